//! Enhanced CCMP (ECCMP-2/4/8): CCMP-128 framing (IEEE 802.11-2020 12.5.3.2, same 8-octet
//! header and 8-octet MIC, same AAD and nonce, 12.5.3.3.3-4) with the MIC computed over 2, 4
//! or 8 domain-separated CBC-MAC lanes so that it parallelises (seed 000 section IV-C, made
//! secure). The byte layout and the security argument are in `docs/eccmp.md`; the kernels
//! are [`CcmKey::seal_lanes`] / [`CcmKey::open_lanes`].
use super::kernel::CcmKey;
use super::{mpdu, AadOptions, CcmBackend, CipherSuite, Pn, Protection, RxInfo};
use crate::error::{Error, Result};
use crate::wire::mac::Mpdu;

/// MIC length of every ECCMP suite (as CCMP-128).
pub const MIC_LEN: usize = 8;

/// An ECCMP temporal key (16 octets) with its lane count and AAD options.
#[derive(Clone, Debug)]
pub struct Eccmp {
    key: CcmKey,
    suite: CipherSuite,
    lanes: usize,
    pub opts: AadOptions,
}

impl Eccmp {
    /// `suite` must be [`CipherSuite::Eccmp2`], `Eccmp4` or `Eccmp8`; `tk` 16 octets.
    pub fn with_options(tk: &[u8], suite: CipherSuite, opts: AadOptions) -> Result<Eccmp> {
        Self::with_backend(tk, suite, opts, CcmBackend::Detect)
    }

    /// As [`Eccmp::with_options`], on the CCM kernel `backend`.
    pub fn with_backend(tk: &[u8], suite: CipherSuite, opts: AadOptions, backend: CcmBackend) -> Result<Eccmp> {
        let lanes = suite.eccmp_lanes().ok_or(Error::Unsupported("not an ECCMP suite"))?;
        if tk.len() != 16 {
            return Err(Error::BadKeyLength);
        }
        Ok(Eccmp { key: backend.key(tk)?, suite, lanes, opts })
    }

    /// ECCMP with `lanes` in {2, 4, 8} and default AAD options.
    pub fn new(tk: &[u8], lanes: usize) -> Result<Eccmp> {
        let suite = CipherSuite::eccmp(lanes).ok_or(Error::Unsupported("ECCMP lane count must be 2, 4 or 8"))?;
        Self::with_options(tk, suite, AadOptions::default())
    }

    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The CCM kernel key (for the batch path, [`super::ccmp::BatchKey`]).
    pub(crate) fn kernel(&self) -> &CcmKey {
        &self.key
    }
}

impl Eccmp {
    /// [`Protection::encapsulate`] of an MPDU whose header was checked once.
    pub fn encapsulate_parsed(&self, m: &Mpdu<'_>, pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate_parsed(m, pn, key_id, MIC_LEN, self.opts, out, |n, aad, data, mic| {
            self.key.seal_lanes(self.lanes, &n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }

    /// [`Protection::decapsulate`] of an MPDU whose header was checked once.
    pub fn decapsulate_parsed(&self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate_parsed(m, MIC_LEN, self.opts, out, |n, aad, pn, data, mic| {
            self.key.open_lanes(self.lanes, &n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }
}

impl Protection for Eccmp {
    fn suite(&self) -> CipherSuite {
        self.suite
    }

    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate(mpdu, pn, key_id, MIC_LEN, self.opts, out, |n, aad, data, mic| {
            self.key.seal_lanes(self.lanes, &n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }

    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate(mpdu, MIC_LEN, self.opts, out, |n, aad, pn, data, mic| {
            self.key.open_lanes(self.lanes, &n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }
}
