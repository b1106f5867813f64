//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod frames;

pub fn h(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(s).expect("test vector hex")
}

pub fn hx(b: &[u8]) -> String {
    hex::encode(b)
}

/// The repository's test data (`testdata/`: the real captures, with their origin in
/// `testdata/captures/README.md`).
pub fn testdata_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// The records of a classic pcap file: (link type, frames). A minimal reader for tests,
/// independent of any capture code in the library.
pub fn read_pcap(path: &std::path::Path) -> (u32, Vec<Vec<u8>>) {
    let d = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let le = match &d[..4] {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        m => panic!("not a pcap file: magic {m:02x?}"),
    };
    let u32_at = |b: &[u8]| {
        let a = [b[0], b[1], b[2], b[3]];
        if le {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let linktype = u32_at(&d[20..24]);
    let mut frames = Vec::new();
    let mut off = 24;
    while off + 16 <= d.len() {
        let incl = u32_at(&d[off + 8..off + 12]) as usize;
        off += 16;
        if off + incl > d.len() {
            break; // a truncated last record: keep what came before it
        }
        frames.push(d[off..off + incl].to_vec());
        off += incl;
    }
    (linktype, frames)
}
