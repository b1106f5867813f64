//! BIP: integrity of group-addressed robust management frames (and beacons with a BIGTK),
//! IEEE 802.11-2020 12.5.4 (BIP-CMAC-128/256) and 12.5.6 (BIP-GMAC-128/256).
//!
//! The frame is not encrypted: a Management MIC element (MME, 9.4.2.53) is appended as the
//! last element of the body. MIC input (12.5.4.3, 12.5.6.3): AAD = FC (Retry, PwrMgt,
//! MoreData masked) || A1 || A2 || A3, then the body with the MME's MIC field zeroed.
//! BIP-CMAC: AES-CMAC truncated to 8 (128) or 16 (256) octets. BIP-GMAC: GMAC with nonce
//! A2 || IPN (IPN5 first), 16 octets.
use super::kernel::GcmKey;
use super::{CipherSuite, Pn, Protection, RxInfo, MAX_MPDU_BODY};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, Header};
use crate::wire::mme::MmeRepr;
use crate::wire::s1g::{self, S1gBeacon};
use crate::wire::sechdr::CcmpHeaderRepr;
use aes::{Aes128, Aes256};
use cmac::{Cmac, Mac};
use subtle::ConstantTimeEq;

#[derive(Clone)]
enum BipKey {
    Cmac128(Box<Cmac<Aes128>>),
    Cmac256(Box<Cmac<Aes256>>),
    /// GMAC on wsec's GCM kernel (the backend [`super::kernel::current`] names).
    Gmac128(Box<GcmKey>),
    Gmac256(Box<GcmKey>),
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
            CipherSuite::BipGmac128 if igtk.len() == 16 => BipKey::Gmac128(Box::new(GcmKey::new(igtk)?)),
            CipherSuite::BipGmac256 if igtk.len() == 32 => BipKey::Gmac256(Box::new(GcmKey::new(igtk)?)),
            CipherSuite::BipGmac128 | CipherSuite::BipGmac256 => return Err(Error::BadKeyLength),
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
        let a2 = hdr.addr2().ok_or(Error::Truncated)?;
        let mut input = Vec::with_capacity(AAD_LEN + body.len());
        input.extend_from_slice(&Self::aad(hdr));
        input.extend_from_slice(body);
        self.mac(a2.as_bytes(), ipn, &input)
    }

    /// The BIP MAC of `input` (AAD || body): AES-CMAC, or GMAC with nonce `addr` || IPN.
    fn mac(&self, addr: &[u8; 6], ipn: Pn, input: &[u8]) -> Result<[u8; 16]> {
        let mut out = [0u8; 16];
        match &self.key {
            BipKey::Cmac128(k) => out.copy_from_slice(&cmac_of(k, input)),
            BipKey::Cmac256(k) => out.copy_from_slice(&cmac_of(k, input)),
            BipKey::Gmac128(_) | BipKey::Gmac256(_) => {
                let mut nonce = [0u8; 12];
                nonce[..6].copy_from_slice(addr);
                nonce[6..].copy_from_slice(&CcmpHeaderRepr::pn_be(ipn));
                let tag = match &self.key {
                    BipKey::Gmac128(k) | BipKey::Gmac256(k) => k.gmac(&nonce, input)?,
                    _ => unreachable!("matched above"),
                };
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

fn cmac_of<C>(k: &Cmac<C>, input: &[u8]) -> Vec<u8>
where
    C: cipher::BlockCipher + cipher::BlockEncrypt + Clone + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>,
    Cmac<C>: Mac + Clone,
{
    let mut m = k.clone();
    m.update(input);
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

/// Element ID of the MIC element (hostap's WLAN_EID_MIC) that replaces the MME in S1G
/// Beacons when BCE is used: it carries only the MIC, not the Key ID or BIPN.
pub const ELEMENT_MIC: u8 = 140;

/// BIP for S1G Beacon frames (802.11ah; rule as in IEEE 802.11-2024 12.5.4.3 / P802.11REVme
/// J.9.2, clause number not verified here): the AAD is FC (unmasked) || SA || Change
/// Sequence || the optional header fields, then the BIPN when BCE is used (the IPN is then
/// not sent: a MIC element replaces the MME), then the body. Duration and Timestamp are
/// left out, and the TSF Completion field of an S1G Beacon Compatibility element at the
/// start of the body is masked to zero. BIP-GMAC's nonce is SA || IPN.
impl Bip {
    fn s1g_input(&self, s: &S1gBeacon<&[u8]>, body_with_element: &[u8], bce_ipn: Option<Pn>) -> Vec<u8> {
        let b = s.as_bytes();
        let hl = s.header_len();
        let mut input = Vec::with_capacity(b.len() + body_with_element.len());
        input.extend_from_slice(&b[s1g::field::FRAME_CONTROL]);
        input.extend_from_slice(&b[s1g::field::SA]);
        input.push(b[s1g::field::CHANGE_SEQUENCE]);
        input.extend_from_slice(&b[s1g::field::FIXED_LEN..hl]);
        if let Some(ipn) = bce_ipn {
            input.extend_from_slice(&ipn.to_le_bytes()[..6]);
        }
        let body_at = input.len();
        input.extend_from_slice(body_with_element);
        // S1G Beacon Compatibility element: ID, Length, Compatibility Information (2),
        // Beacon Interval (2), TSF Completion (4).
        if input.len() >= body_at + 10 && input[body_at] == s1g::ELEMENT_S1G_BEACON_COMPAT {
            input[body_at + 6..body_at + 10].fill(0);
        }
        input
    }

    /// Protects an S1G Beacon with a BIGTK (Key ID 6 or 7). With `bce`, a MIC element is
    /// appended and the IPN is only in the MIC input; otherwise an MME.
    pub fn protect_s1g_beacon(&self, frame: &[u8], ipn: Pn, key_id: u8, bce: bool, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let s = S1gBeacon::new_checked(frame)?;
        if !(4..=7).contains(&key_id) {
            return Err(Error::Malformed("BIP Key ID must be 4-7"));
        }
        let mic_len = self.mic_len();
        let mut elem = Vec::with_capacity(10 + mic_len);
        if bce {
            elem.extend_from_slice(&[ELEMENT_MIC, mic_len as u8]);
            elem.resize(2 + mic_len, 0);
        } else {
            let mme = MmeRepr { key_id: key_id as u16, ipn, mic_len };
            elem.resize(mme.buffer_len(), 0);
            mme.emit(&mut elem, &[0u8; 16][..mic_len])?;
        }
        let mut body = s.body().to_vec();
        body.extend_from_slice(&elem);
        let input = self.s1g_input(&s, &body, bce.then_some(ipn));
        let mic = self.mac(s.sa().as_bytes(), ipn, &input)?;
        out.extend_from_slice(frame);
        out.extend_from_slice(&elem[..elem.len() - mic_len]);
        out.extend_from_slice(&mic[..mic_len]);
        Ok(())
    }

    /// Verifies a protected S1G Beacon and returns it without the MME/MIC element. With a
    /// MIC element (BCE) neither BIPN nor Key ID is on the air: the receiver supplies the
    /// BIPN it expects and the Key ID of the BIGTK it is trying in `bce`, and a Key ID that
    /// disagrees with the Compatibility element's BIGTK Key ID Index is refused.
    pub fn verify_s1g_beacon(&self, frame: &[u8], bce: Option<(Pn, u8)>, out: &mut Vec<u8>) -> Result<RxInfo> {
        let bce_ipn = bce.map(|(ipn, _)| ipn);
        out.clear();
        let s = S1gBeacon::new_checked(frame)?;
        let mic_len = self.mic_len();
        let elem_len = if bce_ipn.is_some() { 2 + mic_len } else { 10 + mic_len };
        let body = s.body();
        if body.len() < elem_len {
            return Err(Error::MmeMissing);
        }
        let at = frame.len() - elem_len;
        let elem = &frame[at..];
        let (ipn, key_id) = match bce_ipn {
            Some(ipn) => {
                if elem[0] != ELEMENT_MIC || elem[1] as usize != mic_len {
                    return Err(Error::MmeMissing);
                }
                let key_id = bce.map(|(_, k)| k).unwrap_or(6);
                // The Compatibility element's b7 is the BIGTK Key ID Index (6 + b7).
                let b = s.body();
                if b.len() >= 4 && b[0] == s1g::ELEMENT_S1G_BEACON_COMPAT && 6 + ((b[2] >> 7) & 1) != key_id {
                    return Err(Error::UnknownKeyId(key_id));
                }
                (ipn, key_id)
            }
            None => {
                let (mme, _) = MmeRepr::parse(elem).map_err(|_| Error::MmeMissing)?;
                if mme.mic_len != mic_len {
                    return Err(Error::MmeMissing);
                }
                let id = u8::try_from(mme.key_id & 0x0fff).map_err(|_| Error::Malformed("MME Key ID over 255"))?;
                (mme.ipn, id)
            }
        };
        let mut body_zeroed = body.to_vec();
        let l = body_zeroed.len();
        body_zeroed[l - mic_len..].fill(0);
        let input = self.s1g_input(&s, &body_zeroed, bce_ipn);
        let mic = self.mac(s.sa().as_bytes(), ipn, &input)?;
        if !bool::from(mic[..mic_len].ct_eq(&frame[frame.len() - mic_len..])) {
            return Err(Error::MicFailure);
        }
        out.extend_from_slice(&frame[..at]);
        Ok(RxInfo { pn: ipn, key_id })
    }
}
