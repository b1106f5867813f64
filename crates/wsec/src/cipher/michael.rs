//! Michael, the TKIP message integrity code, IEEE 802.11-2020 12.5.2.3.
//!
//! Michael takes a 64-bit key `K0 || K1` (each a little-endian 32-bit word, key octets 0..3
//! and 4..7) and a message, pads the message with `0x5a` and 4 to 7 zero octets up to a
//! multiple of 4, and runs the block function `b` once per little-endian 32-bit word. The
//! 64-bit result `L || R` is emitted as two little-endian words (12.5.2.3.2).
//!
//! [`michael_msdu`] applies it to an MSDU the way TKIP does (12.5.2.3.3): the input is
//! `DA || SA || Priority || 0 || 0 || 0 || MSDU data`.
//!
//! Michael is weak by design (about 20 bits of forgery resistance; hence TKIP
//! countermeasures, 12.5.2.4): a verifier must treat a mismatch as an attack indication.
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Length of a Michael key and of a Michael MIC, in octets.
pub const MICHAEL_LEN: usize = 8;

/// The Michael block function `b(L, R)` (12.5.2.3.2, Figure 12-8).
#[inline(always)]
fn block(mut l: u32, mut r: u32) -> (u32, u32) {
    r ^= l.rotate_left(17);
    l = l.wrapping_add(r);
    r ^= ((l & 0xff00_ff00) >> 8) | ((l & 0x00ff_00ff) << 8);
    l = l.wrapping_add(r);
    r ^= l.rotate_left(3);
    l = l.wrapping_add(r);
    r ^= l.rotate_right(2);
    l = l.wrapping_add(r);
    (l, r)
}

/// Streaming Michael: `new`, any number of `update`s, then `finalize`.
///
/// The state (which is derived from the key) is zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Michael {
    l: u32,
    r: u32,
    /// Octets of a partial 32-bit word not yet absorbed.
    buf: [u8; 4],
    nbuf: usize,
}

impl core::fmt::Debug for Michael {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Michael(..)")
    }
}

impl Michael {
    /// Starts a Michael computation under the 8-octet key.
    pub fn new(key: &[u8; 8]) -> Michael {
        Michael {
            l: u32::from_le_bytes([key[0], key[1], key[2], key[3]]),
            r: u32::from_le_bytes([key[4], key[5], key[6], key[7]]),
            buf: [0; 4],
            nbuf: 0,
        }
    }

    #[inline(always)]
    fn word(&mut self, w: u32) {
        let (l, r) = block(self.l ^ w, self.r);
        self.l = l;
        self.r = r;
    }

    /// Absorbs more message octets.
    pub fn update(&mut self, mut data: &[u8]) {
        if self.nbuf > 0 {
            while self.nbuf < 4 {
                match data.split_first() {
                    Some((&b, rest)) => {
                        self.buf[self.nbuf] = b;
                        self.nbuf += 1;
                        data = rest;
                    }
                    None => return,
                }
            }
            let w = u32::from_le_bytes(self.buf);
            self.word(w);
            self.nbuf = 0;
        }
        let mut chunks = data.chunks_exact(4);
        for c in &mut chunks {
            self.word(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        let rem = chunks.remainder();
        self.buf[..rem.len()].copy_from_slice(rem);
        self.nbuf = rem.len();
    }

    /// Pads (`0x5a`, then zeros: 5 to 8 padding octets in all, ending on a word boundary)
    /// and returns the 8-octet MIC.
    pub fn finalize(mut self) -> [u8; 8] {
        // The last, partial word gets 0x5a then zeros; then one all-zero word. When the
        // message is word-aligned the 0x5a opens a new word.
        let mut last = [0u8; 4];
        last[..self.nbuf].copy_from_slice(&self.buf[..self.nbuf]);
        last[self.nbuf] = 0x5a;
        let w = u32::from_le_bytes(last);
        self.word(w);
        self.word(0);
        last.zeroize();
        let mut out = [0u8; 8];
        out[..4].copy_from_slice(&self.l.to_le_bytes());
        out[4..].copy_from_slice(&self.r.to_le_bytes());
        out
    }
}

/// Michael over a byte string.
pub fn michael(key: &[u8; 8], data: &[u8]) -> [u8; 8] {
    let mut m = Michael::new(key);
    m.update(data);
    m.finalize()
}

/// Michael over an MSDU as TKIP defines it (12.5.2.3.3, Figure 12-7): the input is
/// `DA || SA || Priority || 0 || 0 || 0 || MSDU`. `priority` is the TID of a QoS data frame
/// (its low 4 bits), 0 for a non-QoS frame.
pub fn michael_msdu(key: &[u8; 8], da: &[u8; 6], sa: &[u8; 6], priority: u8, msdu: &[u8]) -> [u8; 8] {
    let mut m = Michael::new(key);
    m.update(da);
    m.update(sa);
    m.update(&[priority, 0, 0, 0]);
    m.update(msdu);
    m.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    // IEEE 802.11i Michael vectors (vectors.md 4.2), chained: each key is the previous MIC.
    const CHAIN: [(&[u8], [u8; 8]); 6] = [
        (b"", [0x82, 0x92, 0x5c, 0x1c, 0xa1, 0xd1, 0x30, 0xb8]),
        (b"M", [0x43, 0x47, 0x21, 0xca, 0x40, 0x63, 0x9b, 0x3f]),
        (b"Mi", [0xe8, 0xf9, 0xbe, 0xca, 0xe9, 0x7e, 0x5d, 0x29]),
        (b"Mic", [0x90, 0x03, 0x8f, 0xc6, 0xcf, 0x13, 0xc1, 0xdb]),
        (b"Mich", [0xd5, 0x5e, 0x10, 0x05, 0x10, 0x12, 0x89, 0x86]),
        (b"Michael", [0x0a, 0x94, 0x2b, 0x12, 0x4e, 0xca, 0xa5, 0x46]),
    ];

    #[test]
    fn chained_vectors() {
        let mut key = [0u8; 8];
        for (msg, mic) in CHAIN {
            assert_eq!(michael(&key, msg), mic, "message {:?}", msg);
            key = mic;
        }
    }

    #[test]
    fn streaming_matches_one_shot_for_every_split() {
        let key = [1, 2, 3, 4, 5, 6, 7, 8];
        let data: Vec<u8> = (0..37u8).map(|i| i.wrapping_mul(29)).collect();
        for len in 0..data.len() {
            let want = michael(&key, &data[..len]);
            for a in 0..=len {
                for b in a..=len {
                    let mut m = Michael::new(&key);
                    m.update(&data[..a]);
                    m.update(&data[a..b]);
                    m.update(&data[b..len]);
                    assert_eq!(m.finalize(), want, "len {len} split {a} {b}");
                }
            }
        }
    }

    #[test]
    fn msdu_form() {
        let key = [9; 8];
        let da = [1, 2, 3, 4, 5, 6];
        let sa = [7, 8, 9, 10, 11, 12];
        let mut flat = Vec::new();
        flat.extend_from_slice(&da);
        flat.extend_from_slice(&sa);
        flat.extend_from_slice(&[5, 0, 0, 0]);
        flat.extend_from_slice(b"payload");
        assert_eq!(michael_msdu(&key, &da, &sa, 5, b"payload"), michael(&key, &flat));
    }
}
