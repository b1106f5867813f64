//! CCMP-128 and CCMP-256, IEEE 802.11-2020 12.5.3: AES-CCM with a 13-octet nonce (L = 2)
//! and an 8-octet (CCMP-128) or 16-octet (CCMP-256) MIC, over the fused kernel.
use super::kernel::CcmKey;
use super::{mpdu, AadOptions, CipherSuite, Pn, Protection, RxInfo};
use crate::error::{Error, Result};

/// A CCMP temporal key with the AAD options negotiated for the link.
#[derive(Clone, Debug)]
pub struct Ccmp {
    key: CcmKey,
    suite: CipherSuite,
    pub opts: AadOptions,
}

impl Ccmp {
    /// 16-octet TK → CCMP-128, 32-octet TK → CCMP-256.
    pub fn new(tk: &[u8]) -> Result<Ccmp> {
        Self::with_options(tk, AadOptions::default())
    }

    pub fn with_options(tk: &[u8], opts: AadOptions) -> Result<Ccmp> {
        let suite = match tk.len() {
            16 => CipherSuite::Ccmp128,
            32 => CipherSuite::Ccmp256,
            _ => return Err(Error::BadKeyLength),
        };
        Ok(Ccmp { key: CcmKey::new(tk)?, suite, opts })
    }

    pub fn mic_len(&self) -> usize {
        if self.suite == CipherSuite::Ccmp128 {
            8
        } else {
            16
        }
    }
}

impl Protection for Ccmp {
    fn suite(&self) -> CipherSuite {
        self.suite
    }

    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        mpdu::encapsulate(mpdu, pn, key_id, self.mic_len(), self.opts, out, |n, aad, data, mic| {
            self.key.seal_in_place(&n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }

    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        mpdu::decapsulate(mpdu, self.mic_len(), self.opts, out, |n, aad, pn, data, mic| {
            self.key.open_in_place(&n.ccm(pn), aad.as_bytes(), data, mic)
        })
    }
}
