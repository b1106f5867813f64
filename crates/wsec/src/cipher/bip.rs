//! BIP: integrity of group-addressed robust management frames (and beacons with a BIGTK),
//! IEEE 802.11-2020 12.5.4 (BIP-CMAC-128/256) and 12.5.6 (BIP-GMAC-128/256).
//!
//! The frame is not encrypted: a Management MIC element (MME, 9.4.2.53) is appended as the
//! last element of the body. MIC input (12.5.4.3, 12.5.6.3): AAD = FC (Retry, PwrMgt,
//! MoreData masked) || A1 || A2 || A3, then the body with the MME's MIC field zeroed.
//! BIP-CMAC: AES-CMAC truncated to 8 (128) or 16 (256) octets. BIP-GMAC: GMAC with nonce
//! A2 || IPN (IPN5 first), 16 octets.
use super::{CipherSuite, Pn, Protection, RxInfo, MAX_MPDU_BODY};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, Header};
use crate::wire::mme::MmeRepr;
use crate::wire::sechdr::CcmpHeaderRepr;
use aes::{Aes128, Aes256};
use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Aes128Gcm, Aes256Gcm, KeyInit as _, Nonce};
use cmac::{Cmac, Mac};
use subtle::ConstantTimeEq;

#[derive(Clone)]
enum BipKey {
    Cmac128(Box<Cmac<Aes128>>),
    Cmac256(Box<Cmac<Aes256>>),
    Gmac128(Box<Aes128Gcm>),
    Gmac256(Box<Aes256Gcm>),
}

/// An IGTK or BIGTK for one BIP suite. The AES key schedules are zeroized on drop (the
/// `aes` crate's `zeroize` feature).
#[derive(Clone)]
pub struct Bip {
    key: BipKey,
}

impl core::fmt::Debug for Bip {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Bip({})", self.suite())
    }
}

/// Only this many octets of AAD: FC || A1 || A2 || A3.
const AAD_LEN: usize = 20;

impl Bip {
    pub fn new(suite: CipherSuite, igtk: &[u8]) -> Result<Bip> {
        if igtk.len() != suite.key_len() {
            return Err(Error::BadKeyLength);
        }
        let bad = |_| Error::BadKeyLength;
        let key = match suite {
            CipherSuite::BipCmac128 => BipKey::Cmac128(Box::new(<Cmac<Aes128> as Mac>::new_from_slice(igtk).map_err(bad)?)),
            CipherSuite::BipCmac256 => BipKey::Cmac256(Box::new(<Cmac<Aes256> as Mac>::new_from_slice(igtk).map_err(bad)?)),
            CipherSuite::BipGmac128 => BipKey::Gmac128(Box::new(Aes128Gcm::new_from_slice(igtk).map_err(bad)?)),
            CipherSuite::BipGmac256 => BipKey::Gmac256(Box::new(Aes256Gcm::new_from_slice(igtk).map_err(bad)?)),
            _ => return Err(Error::Unsupported("not a BIP cipher suite")),
        };
        Ok(Bip { key })
    }

    pub fn mic_len(&self) -> usize {
        if matches!(self.key, BipKey::Cmac128(_)) {
            8
        } else {
            16
        }
    }

    fn aad(hdr: &Header<&[u8]>) -> [u8; AAD_LEN] {
        let b = hdr.as_bytes();
        let mut a = [0u8; AAD_LEN];
        let f = hdr.frame_control().0 & !(fc::RETRY | fc::POWER_MGMT | fc::MORE_DATA);
        a[0..2].copy_from_slice(&f.to_le_bytes());
        a[2..20].copy_from_slice(&b[4..22]);
        a
    }

    /// MIC over AAD || `body` (whose MME MIC field is zero).
    fn mic(&self, hdr: &Header<&[u8]>, ipn: Pn, body: &[u8]) -> Result<[u8; 16]> {
        let aad = Self::aad(hdr);
        let mut out = [0u8; 16];
        match &self.key {
            BipKey::Cmac128(k) => out.copy_from_slice(&cmac_of(k, &aad, body)),
            BipKey::Cmac256(k) => out.copy_from_slice(&cmac_of(k, &aad, body)),
            BipKey::Gmac128(_) | BipKey::Gmac256(_) => {
                let a2 = hdr.addr2().ok_or(Error::Truncated)?;
                let mut nonce = [0u8; 12];
                nonce[..6].copy_from_slice(&a2);
                nonce[6..].copy_from_slice(&CcmpHeaderRepr::pn_be(ipn));
                let mut all = Vec::with_capacity(AAD_LEN + body.len());
                all.extend_from_slice(&aad);
                all.extend_from_slice(body);
                let n = Nonce::from_slice(&nonce);
                let tag = match &self.key {
                    BipKey::Gmac128(k) => k.encrypt_in_place_detached(n, &all, &mut []),
                    BipKey::Gmac256(k) => k.encrypt_in_place_detached(n, &all, &mut []),
                    _ => unreachable!("matched above"),
                }
                .map_err(|_| Error::Oversize)?;
                out.copy_from_slice(&tag);
            }
        }
        Ok(out)
    }

    fn check_frame(mpdu: &[u8]) -> Result<(Header<&[u8]>, usize)> {
        let hdr = Header::new_checked(mpdu)?;
        if !hdr.frame_control().is_mgmt() {
            return Err(Error::Unsupported("BIP protects management frames only"));
        }
        let hl = hdr.header_len();
        if mpdu.len() - hl > MAX_MPDU_BODY {
            return Err(Error::Oversize);
        }
        Ok((hdr, hl))
    }
}

fn cmac_of<C>(k: &Cmac<C>, aad: &[u8], body: &[u8]) -> Vec<u8>
where
    C: cipher::BlockCipher + cipher::BlockEncrypt + Clone + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>,
    Cmac<C>: Mac + Clone,
{
    let mut m = k.clone();
    m.update(aad);
    m.update(body);
    m.finalize().into_bytes().to_vec()
}

impl Protection for Bip {
    fn suite(&self) -> CipherSuite {
        match self.key {
            BipKey::Cmac128(_) => CipherSuite::BipCmac128,
            BipKey::Cmac256(_) => CipherSuite::BipCmac256,
            BipKey::Gmac128(_) => CipherSuite::BipGmac128,
            BipKey::Gmac256(_) => CipherSuite::BipGmac256,
        }
    }

    /// Appends the MME with IPN `pn` and Key ID `key_id` (4/5 for an IGTK, 6/7 for a BIGTK).
    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let (hdr, _) = Self::check_frame(mpdu)?;
        if !(4..=7).contains(&key_id) {
            return Err(Error::Malformed("BIP Key ID must be 4-7"));
        }
        let mme = MmeRepr { key_id: key_id as u16, ipn: pn, mic_len: self.mic_len() };
        out.extend_from_slice(mpdu);
        let at = out.len();
        out.resize(at + mme.buffer_len(), 0);
        mme.emit(&mut out[at..], &[0u8; 16][..mme.mic_len])?;
        let body = &out[hdr.header_len()..];
        let mic = match self.mic(&hdr, pn, body) {
            Ok(m) => m,
            Err(e) => {
                out.clear();
                return Err(e);
            }
        };
        let l = out.len();
        out[l - mme.mic_len..].copy_from_slice(&mic[..mme.mic_len]);
        Ok(())
    }

    /// Verifies the MME (which must be the last element) and returns the frame without it.
    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        out.clear();
        let (hdr, hl) = Self::check_frame(mpdu)?;
        let mme_len = 10 + self.mic_len();
        let body_len = mpdu.len() - hl;
        if body_len < mme_len {
            return Err(Error::MmeMissing);
        }
        let at = mpdu.len() - mme_len;
        let (mme, mic) = MmeRepr::parse(&mpdu[at..]).map_err(|e| match e {
            Error::Malformed(_) => Error::MmeMissing,
            e => e,
        })?;
        if mme.mic_len != self.mic_len() {
            return Err(Error::MmeMissing);
        }
        out.extend_from_slice(mpdu);
        let l = out.len();
        out[l - mme.mic_len..].fill(0);
        let expect = self.mic(&hdr, mme.ipn, &out[hl..]);
        out.truncate(at);
        let ok = match expect {
            Ok(e) => bool::from(e[..mme.mic_len].ct_eq(mic)),
            Err(e) => {
                out.clear();
                return Err(e);
            }
        };
        if !ok {
            out.clear();
            return Err(Error::MicFailure);
        }
        let key_id = u8::try_from(mme.key_id & 0x0fff).map_err(|_| Error::Malformed("MME Key ID over 255"))?;
        Ok(RxInfo { pn: mme.ipn, key_id })
    }
}
