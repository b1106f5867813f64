//! The FT key hierarchy (802.11r; IEEE 802.11-2020 12.7.1.6.3-12.7.1.6.5): PMK-R0 and
//! PMKR0Name from the XXKey, PMK-R1 and PMKR1Name for one R1KH, and the FT PTK.
//!
//! Hash and lengths by AKM (Table 9-151): SHA-256 with a 256-bit PMK-R0/R1 for FT-802.1X,
//! FT-PSK and FT-SAE; SHA-384 with 384 bits for FT-802.1X-SHA384. The XXKey is the PSK
//! (FT-PSK), the PMK (FT-SAE) or the second 256 bits of the MSK (FT-802.1X).
use crate::cipher::CipherSuite;
use crate::error::{Error, Result};
use crate::rsn::akm::{Akm, KdfHash};
use crate::rsn::kdf::{kdf_hash_length, Ptk};
use sha2::{Digest, Sha256, Sha384};
use zeroize::Zeroizing;

/// PMK-R0 with its name.
pub struct PmkR0 {
    pub key: Zeroizing<Vec<u8>>,
    pub name: [u8; 16],
}

/// PMK-R1 with its name.
pub struct PmkR1 {
    pub key: Zeroizing<Vec<u8>>,
    pub name: [u8; 16],
}

fn hash_of(akm: Akm) -> Result<KdfHash> {
    if !akm.is_ft() {
        return Err(Error::Unsupported("not an FT AKM"));
    }
    Ok(akm.kdf_hash())
}

/// Q: the PMK-R0/PMK-R1 length in octets.
fn q(h: KdfHash) -> usize {
    if h == KdfHash::Sha384 {
        48
    } else {
        32
    }
}

fn truncate_128(h: KdfHash, parts: &[&[u8]]) -> [u8; 16] {
    let mut out = [0u8; 16];
    if h == KdfHash::Sha384 {
        let mut d = Sha384::new();
        parts.iter().for_each(|p| d.update(p));
        out.copy_from_slice(&d.finalize()[..16]);
    } else {
        let mut d = Sha256::new();
        parts.iter().for_each(|p| d.update(p));
        out.copy_from_slice(&d.finalize()[..16]);
    }
    out
}

/// 12.7.1.6.3: R0-Key-Data = KDF-Hash-Length(XXKey, "FT-R0", SSIDlength || SSID || MDID ||
/// R0KHlength || R0KH-ID || S0KH-ID); PMK-R0 = its first Q octets, PMK-R0Name-Salt the next
/// 16; PMKR0Name = Truncate-128(Hash("FT-R0N" || PMK-R0Name-Salt)).
pub fn derive_pmk_r0(akm: Akm, xxkey: &[u8], ssid: &[u8], mdid: [u8; 2], r0kh_id: &[u8], s0kh_id: [u8; 6]) -> Result<PmkR0> {
    let h = hash_of(akm)?;
    if ssid.len() > 32 || r0kh_id.is_empty() || r0kh_id.len() > 48 {
        return Err(Error::Malformed("SSID over 32 octets or R0KH-ID not 1-48 octets"));
    }
    let mut ctx = Vec::with_capacity(1 + ssid.len() + 2 + 1 + r0kh_id.len() + 6);
    ctx.push(ssid.len() as u8);
    ctx.extend_from_slice(ssid);
    ctx.extend_from_slice(&mdid);
    ctx.push(r0kh_id.len() as u8);
    ctx.extend_from_slice(r0kh_id);
    ctx.extend_from_slice(&s0kh_id);
    let mut data = Zeroizing::new(vec![0u8; q(h) + 16]);
    kdf_hash_length(h, xxkey, b"FT-R0", &ctx, &mut data)?;
    let name = truncate_128(h, &[b"FT-R0N", &data[q(h)..]]);
    Ok(PmkR0 { key: Zeroizing::new(data[..q(h)].to_vec()), name })
}

/// 12.7.1.6.4: PMK-R1 = KDF-Hash-Length(PMK-R0, "FT-R1", R1KH-ID || S1KH-ID);
/// PMKR1Name = Truncate-128(Hash("FT-R1N" || PMKR0Name || R1KH-ID || S1KH-ID)).
pub fn derive_pmk_r1(akm: Akm, r0: &PmkR0, r1kh_id: [u8; 6], s1kh_id: [u8; 6]) -> Result<PmkR1> {
    let h = hash_of(akm)?;
    if r0.key.len() != q(h) {
        return Err(Error::BadKeyLength);
    }
    let mut ctx = [0u8; 12];
    ctx[..6].copy_from_slice(&r1kh_id);
    ctx[6..].copy_from_slice(&s1kh_id);
    let mut key = Zeroizing::new(vec![0u8; q(h)]);
    kdf_hash_length(h, &r0.key, b"FT-R1", &ctx, &mut key)?;
    let name = truncate_128(h, &[b"FT-R1N", &r0.name, &r1kh_id, &s1kh_id]);
    Ok(PmkR1 { key, name })
}

/// 12.7.1.6.5: PTK = KDF-Hash-Length(PMK-R1, "FT-PTK", SNonce || ANonce || BSSID ||
/// STA-ADDR), split into KCK, KEK, TK (and a KDK of `kdk_len` octets).
#[allow(clippy::too_many_arguments)]
pub fn derive_ft_ptk(
    akm: Akm,
    r1: &PmkR1,
    snonce: &[u8; 32],
    anonce: &[u8; 32],
    bssid: [u8; 6],
    sta: [u8; 6],
    cipher: CipherSuite,
    kdk_len: usize,
) -> Result<Ptk> {
    let h = hash_of(akm)?;
    if r1.key.len() != q(h) {
        return Err(Error::BadKeyLength);
    }
    let mut ctx = Vec::with_capacity(76);
    ctx.extend_from_slice(snonce);
    ctx.extend_from_slice(anonce);
    ctx.extend_from_slice(&bssid);
    ctx.extend_from_slice(&sta);
    let tk_len = if cipher == CipherSuite::Tkip { 32 } else { cipher.key_len() };
    let mut raw = Zeroizing::new(vec![0u8; akm.kck_len() + akm.kek_len() + tk_len + kdk_len]);
    kdf_hash_length(h, &r1.key, b"FT-PTK", &ctx, &mut raw)?;
    Ptk::split(akm, cipher, kdk_len, &raw)
}
