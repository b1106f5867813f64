//! GCMP-128 and GCMP-256, IEEE 802.11-2020 12.5.5: AES-GCM with a 12-octet nonce
//! (A2 || PN) and a 16-octet MIC, on wsec's GCM kernel ([`super::kernel::GcmKey`]: AES-NI +
//! PCLMULQDQ or VAES + VPCLMULQDQ, chosen like the CCM kernel; RustCrypto `aes-gcm` on the
//! portable backend).
use super::kernel::{Backend, GcmKey};
use super::{mpdu, AadOptions, CipherSuite, Pn, Protection, RxInfo};
use crate::error::{Error, Result};
use crate::wire::mac::Mpdu;

/// A GCMP temporal key (key material zeroized on drop).
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

    /// Key on the GCM kernel backend [`super::kernel::current`] names.
    pub fn with_options(tk: &[u8], opts: AadOptions) -> Result<Gcmp> {
        Ok(Gcmp { key: GcmKey::new(tk)?, opts })
    }

    /// Key on a chosen kernel backend (`Err(Error::Unsupported)` if the CPU lacks it).
    pub fn with_backend(tk: &[u8], opts: AadOptions, backend: Backend) -> Result<Gcmp> {
        Ok(Gcmp { key: GcmKey::with(tk, backend)?, opts })
    }

    /// The GCM kernel key (for batches: [`super::kernel::gcm_seal_batch`]).
    pub fn key(&self) -> &GcmKey {
        &self.key
    }

    /// Raw GCM seal (for vectors whose AAD does not follow the MPDU rules).
    pub fn seal_raw(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<[u8; 16]> {
        self.key.seal_in_place(nonce, aad, data)
    }

    /// Raw GCM open; on failure `data` holds the ciphertext it was given.
    pub fn open_raw(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        if tag.len() != MIC_LEN {
            return Err(Error::Truncated);
        }
        self.key.open_in_place(nonce, aad, data, tag)
    }
}

impl Gcmp {
    /// [`Protection::encapsulate`] of an MPDU whose header was checked once.
    pub fn encapsulate_parsed(&self, m: &Mpdu<'_>, pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate_parsed(m, pn, key_id, MIC_LEN, self.opts, out, |n, aad, data, mic| {
            let tag = self.seal_raw(&n.gcm(pn), aad.as_bytes(), data)?;
            mic.copy_from_slice(&tag);
            Ok(())
        })
    }

    /// [`Protection::decapsulate`] of an MPDU whose header was checked once.
    pub fn decapsulate_parsed(&self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate_parsed(m, MIC_LEN, self.opts, out, |n, aad, pn, data, mic| self.open_raw(&n.gcm(pn), aad.as_bytes(), data, mic))
    }
}

impl Protection for Gcmp {
    fn suite(&self) -> CipherSuite {
        if self.key.key_bits() == 128 {
            CipherSuite::Gcmp128
        } else {
            CipherSuite::Gcmp256
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
