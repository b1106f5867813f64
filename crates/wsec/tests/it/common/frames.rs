//! Random MPDUs and the CCMP/GCMP AAD written from the standard's text (12.5.3.3.3-4),
//! independently of the library, for cross-checks.
use rand::Rng;

/// A random data or management MPDU (plaintext): random subtype, DS bits, QoS, Order,
/// fragment bits, body length 0..=2304.
pub fn random_mpdu(rng: &mut impl Rng) -> Vec<u8> {
    let data = rng.gen_bool(0.8);
    let mut fc0: u8 = if data { 0x08 } else { 0x00 };
    let mut fc1: u8 = rng.gen::<u8>() & !0x40; // every flag random but Protected
    let mut hl = 24;
    if data {
        // Any subtype without the Null bit (b6): data, CF variants, QoS data variants.
        let st = rng.gen::<u8>() & 0x0b;
        fc0 |= st << 4;
        if fc1 & 0x03 == 0x03 {
            hl += 6;
        }
        if st & 0x08 != 0 {
            hl += 2;
            if fc1 & 0x80 != 0 {
                hl += 4;
            }
        }
    } else {
        // Management: action, deauth, disassoc (robust management frames).
        fc0 |= [0xd0u8, 0xc0, 0xa0][rng.gen_range(0..3)];
        fc1 &= !0x03;
        if fc1 & 0x80 != 0 {
            hl += 4;
        }
    }
    let mut f = vec![0u8; hl];
    rng.fill_bytes(&mut f[2..]);
    f[0] = fc0;
    f[1] = fc1;
    let len = if rng.gen_bool(0.1) { rng.gen_range(0..64) } else { rng.gen_range(0..=2304) };
    let mut body = vec![0u8; len];
    rng.fill_bytes(&mut body);
    f.extend(body);
    f
}

/// AAD and nonce-flags, written from the standard's text, not from the library.
pub fn independent_aad(f: &[u8]) -> (Vec<u8>, u8, usize) {
    let is_data = (f[0] >> 2) & 3 == 2;
    let qos = is_data && f[0] & 0x80 != 0;
    let a4 = is_data && f[1] & 3 == 3;
    let mut aad = Vec::new();
    let mut fc0 = f[0];
    if is_data {
        fc0 &= !(0x10 | 0x20 | 0x40); // subtype bits b4, b5, b6
    }
    let mut fc1 = f[1];
    fc1 &= !(0x08 | 0x10 | 0x20); // Retry, PwrMgt, MoreData
    fc1 |= 0x40; // Protected
    if qos {
        fc1 &= !0x80; // Order, current rule
    }
    aad.push(fc0);
    aad.push(fc1);
    aad.extend_from_slice(&f[4..22]); // A1 A2 A3
    aad.push(f[22] & 0x0f); // fragment number only
    aad.push(0);
    let mut off = 24;
    if a4 {
        aad.extend_from_slice(&f[24..30]);
        off = 30;
    }
    let mut flags = if is_data { 0 } else { 0x10 };
    let mut hl = off;
    if qos {
        aad.push(f[off] & 0x0f);
        aad.push(0);
        flags = f[off] & 0x0f;
        hl += 2;
        if f[1] & 0x80 != 0 {
            hl += 4;
        }
    } else if !is_data && f[1] & 0x80 != 0 {
        hl += 4;
    }
    (aad, flags, hl)
}
