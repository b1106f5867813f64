//! The hash functions SAE is built from (IEEE 802.11-2020 12.4.2, 12.7.1.7.2) for the three
//! hashes its ECC groups use: SHA-256, SHA-384 and SHA-512.

use hmac::{Mac, SimpleHmac};
use sha2::{Sha256, Sha384, Sha512};
use zeroize::{Zeroize, Zeroizing};

/// The hash `H` of a SAE exchange (12.4.2): SHA-256 for hunting-and-pecking of every group;
/// for hash-to-element the one that fits the prime, as `sae_ecc_prime_len_2_hash_len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaeHash {
    Sha256,
    Sha384,
    Sha512,
}

impl SaeHash {
    /// Output length in octets.
    pub fn output_len(self) -> usize {
        match self {
            SaeHash::Sha256 => 32,
            SaeHash::Sha384 => 48,
            SaeHash::Sha512 => 64,
        }
    }
}

/// `HMAC-H(key, parts[0] || parts[1] || ...)`, which is also HKDF-Extract(salt = key, IKM).
pub fn hmac(hash: SaeHash, key: &[u8], parts: &[&[u8]]) -> Zeroizing<Vec<u8>> {
    macro_rules! run {
        ($h:ty) => {{
            // SimpleHmac accepts keys of any length, as HMAC does.
            let mut mac = <SimpleHmac<$h> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
            for p in parts {
                mac.update(p);
            }
            Zeroizing::new(mac.finalize().into_bytes().to_vec())
        }};
    }
    match hash {
        SaeHash::Sha256 => run!(Sha256),
        SaeHash::Sha384 => run!(Sha384),
        SaeHash::Sha512 => run!(Sha512),
    }
}

/// HKDF-Expand (RFC 5869) of `prk` with `info`, `len` octets (len <= 255 * HashLen).
pub fn hkdf_expand(hash: SaeHash, prk: &[u8], info: &[u8], len: usize) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(vec![0u8; len]);
    macro_rules! run {
        ($h:ty) => {{
            let hk = hkdf::SimpleHkdf::<$h>::from_prk(prk).expect("PRK is one hash long");
            hk.expand(info, &mut out).expect("length within 255 hash blocks");
        }};
    }
    match hash {
        SaeHash::Sha256 => run!(Sha256),
        SaeHash::Sha384 => run!(Sha384),
        SaeHash::Sha512 => run!(Sha512),
    }
    out
}

/// KDF-Hash-Length (12.7.1.7.2) with a Length in bits that need not be a multiple of 8:
/// `HMAC-H(K, i || label || context || Length)`, i and Length 16-bit little endian; the
/// output is `ceil(bits / 8)` octets with the unused low bits of the last octet cleared
/// (as hostapd's `sha256_prf_bits`).
pub fn kdf_bits(hash: SaeHash, key: &[u8], label: &[u8], context: &[u8], bits: usize) -> Zeroizing<Vec<u8>> {
    let n = bits.div_ceil(8);
    let mut out = Zeroizing::new(Vec::with_capacity(n + hash.output_len()));
    let length = (bits as u16).to_le_bytes();
    let mut i: u16 = 1;
    while out.len() < n {
        let block = hmac(hash, key, &[&i.to_le_bytes(), label, context, &length]);
        out.extend_from_slice(&block);
        i += 1;
    }
    out[n..].zeroize();
    out.truncate(n);
    if !bits.is_multiple_of(8) {
        out[n - 1] &= 0xffu8 << (8 - bits % 8);
    }
    out
}
