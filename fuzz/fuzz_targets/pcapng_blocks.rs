//! pcapng block structure: the input is read as a list of blocks (type, a length that may
//! lie, a body), put behind a valid Section Header Block and read back. Every block type
//! the reader knows (SHB, IDB, EPB, SPB, obsolete PB, NRB, ISB) and unknown ones, in any
//! order, with leading and trailing lengths that disagree with the body or each other:
//! packets or one located error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::capture::CaptureReader;

const TYPES: [u32; 9] = [0x0A0D_0D0A, 1, 6, 3, 2, 4, 5, 0x0000_0BAD, 0x4000_0BAD];

fn block(out: &mut Vec<u8>, ty: u32, body: &[u8], lead_fudge: i8, trail_fudge: i8) {
    let total = (12 + body.len()) as i64;
    let lead = (total + lead_fudge as i64).clamp(0, u32::MAX as i64) as u32;
    let trail = (total + trail_fudge as i64).clamp(0, u32::MAX as i64) as u32;
    out.extend_from_slice(&ty.to_le_bytes());
    out.extend_from_slice(&lead.to_le_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&trail.to_le_bytes());
}

fuzz_target!(|data: &[u8]| {
    let mut cap = Vec::new();
    // A valid SHB (little-endian, version 1.0, section length unknown) and a radiotap IDB.
    let mut shb = vec![0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0];
    shb.extend_from_slice(&u64::MAX.to_le_bytes());
    block(&mut cap, TYPES[0], &shb, 0, 0);
    block(&mut cap, 1, &[127, 0, 0, 0, 0, 0, 0, 0], 0, 0);
    let mut d = data;
    while d.len() >= 4 {
        let (ty, lead, trail, n) = (TYPES[d[0] as usize % TYPES.len()], d[1] as i8 % 9, d[2] as i8 % 9, d[3] as usize);
        d = &d[4..];
        let n = n.min(d.len());
        let (body, rest) = d.split_at(n);
        // Keep most bodies 32-bit aligned, as the format requires; the rest not.
        let body = if lead == 0 && body.len() % 4 != 0 { &body[..body.len() / 4 * 4] } else { body };
        block(&mut cap, ty, body, lead, trail);
        d = rest;
    }
    cap.extend_from_slice(d);
    if let Ok(r) = CaptureReader::new(std::io::Cursor::new(&cap)) {
        for p in r.take(10_000) {
            match p {
                Ok(p) => assert!(p.data.len() <= wsec::capture::MAX_RECORD),
                Err(e) => {
                    let _ = e.to_string();
                    break;
                }
            }
        }
    }
});
