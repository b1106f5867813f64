//! GCMP-128 and GCMP-256, IEEE 802.11-2020 12.5.5: AES-GCM with a 12-octet nonce
//! (A2 || PN) and a 16-octet MIC, using RustCrypto's `aes-gcm` (AES-NI + CLMUL).
use super::{mpdu, AadOptions, CipherSuite, Pn, Protection, RxInfo};
use crate::error::{Error, Result};
use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Aes128Gcm, Aes256Gcm, KeyInit, Nonce, Tag};

#[derive(Clone)]
enum GcmKey {
    K128(Box<Aes128Gcm>),
    K256(Box<Aes256Gcm>),
}

/// A GCMP temporal key (key schedule zeroized on drop by `aes-gcm`'s `zeroize` feature).
#[derive(Clone)]
pub struct Gcmp {
    key: GcmKey,
    pub opts: AadOptions,
}

impl core::fmt::Debug for Gcmp {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Gcmp({})", self.suite())
    }
}

pub(crate) const MIC_LEN: usize = 16;

impl Gcmp {
    /// 16-octet TK → GCMP-128, 32-octet TK → GCMP-256.
    pub fn new(tk: &[u8]) -> Result<Gcmp> {
        Self::with_options(tk, AadOptions::default())
    }

    pub fn with_options(tk: &[u8], opts: AadOptions) -> Result<Gcmp> {
        let key = match tk.len() {
            16 => GcmKey::K128(Box::new(Aes128Gcm::new_from_slice(tk).map_err(|_| Error::BadKeyLength)?)),
            32 => GcmKey::K256(Box::new(Aes256Gcm::new_from_slice(tk).map_err(|_| Error::BadKeyLength)?)),
            _ => return Err(Error::BadKeyLength),
        };
        Ok(Gcmp { key, opts })
    }

    /// Raw GCM seal (for vectors whose AAD does not follow the MPDU rules).
    pub fn seal_raw(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<[u8; 16]> {
        let n = Nonce::from_slice(nonce);
        let tag = match &self.key {
            GcmKey::K128(k) => k.encrypt_in_place_detached(n, aad, data),
            GcmKey::K256(k) => k.encrypt_in_place_detached(n, aad, data),
        }
        .map_err(|_| Error::Oversize)?;
        Ok(tag.into())
    }

    /// Raw GCM open; on failure `data` holds the ciphertext it was given.
    pub fn open_raw(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        if tag.len() != MIC_LEN {
            return Err(Error::Truncated);
        }
        let n = Nonce::from_slice(nonce);
        let t = Tag::from_slice(tag);
        // aes-gcm checks the tag (in constant time) before decrypting, so `data` is unchanged
        // on failure.
        match &self.key {
            GcmKey::K128(k) => k.decrypt_in_place_detached(n, aad, data, t),
            GcmKey::K256(k) => k.decrypt_in_place_detached(n, aad, data, t),
        }
        .map_err(|_| Error::MicFailure)
    }
}

impl Protection for Gcmp {
    fn suite(&self) -> CipherSuite {
        match self.key {
            GcmKey::K128(_) => CipherSuite::Gcmp128,
            GcmKey::K256(_) => CipherSuite::Gcmp256,
        }
    }

    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate(mpdu, pn, key_id, MIC_LEN, self.opts, out, |n, aad, data, mic| {
            let tag = self.seal_raw(&n.gcm(pn), aad.as_bytes(), data)?;
            mic.copy_from_slice(&tag);
            Ok(())
        })
    }

    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate(mpdu, MIC_LEN, self.opts, out, |n, aad, pn, data, mic| self.open_raw(&n.gcm(pn), aad.as_bytes(), data, mic))
    }
}
