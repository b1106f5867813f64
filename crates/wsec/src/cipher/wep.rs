//! WEP-40 and WEP-104, IEEE 802.11-2020 12.5.1 (deprecated; kept for interoperability and
//! for decrypting old captures).
//!
//! Encapsulation (12.5.1.3, Figure 12-2): ICV = CRC-32 of the plaintext body (transmitted
//! least significant octet first); `body || ICV` is encrypted with RC4 seeded by
//! `IV || key`; the 4-octet `IV0 IV1 IV2 KeyID<<6` header goes between MAC header and body.
//!
//! Besides the [`Protection`] impl on [`WepKey`], the primitives [`rc4_apply`], [`icv`],
//! [`wep_seal`] and [`wep_open`] are public: TKIP (12.5.2) reuses them with its per-packet
//! key as the RC4 seed.
use super::{CipherSuite, Pn, Protection, RxInfo, MAX_MPDU_BODY};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, mgmt_subtype, Header};
use crate::wire::sechdr::WepHeaderRepr;
use rc4::cipher::generic_array::GenericArray;
use rc4::consts::{U16, U19, U8};
use rc4::{KeyInit, Rc4, StreamCipher};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Length of the WEP ICV (and the TKIP ICV), octets.
pub const ICV_LEN: usize = 4;
/// Largest 24-bit WEP IV as a number.
pub const IV_MAX: Pn = 0xff_ffff;

/// XORs the RC4 keystream for `seed` into `data`.
///
/// Supported seed lengths: 8 (WEP-40: IV + 5), 16 (WEP-104 IV + 13, and the TKIP per-packet
/// key) and 19 (non-standard "WEP-128": IV + 16); others give [`Error::BadKeyLength`].
pub fn rc4_apply(seed: &[u8], data: &mut [u8]) -> Result<()> {
    // `from_slice` cannot panic here: each arm matches its exact length.
    match seed.len() {
        8 => Rc4::<U8>::new(GenericArray::from_slice(seed)).apply_keystream(data),
        16 => Rc4::<U16>::new(GenericArray::from_slice(seed)).apply_keystream(data),
        19 => Rc4::<U19>::new(GenericArray::from_slice(seed)).apply_keystream(data),
        _ => return Err(Error::BadKeyLength),
    }
    Ok(())
}

/// The WEP/TKIP ICV of `data`: CRC-32 (IEEE 802.3 polynomial), little-endian.
pub fn icv(data: &[u8]) -> [u8; 4] {
    crc32fast::hash(data).to_le_bytes()
}

/// Seals in place: `buf` holds the plaintext followed by 4 spare octets; the ICV of the
/// plaintext is written into them and the whole buffer is RC4-encrypted under `seed`.
pub fn wep_seal(seed: &[u8], buf: &mut [u8]) -> Result<()> {
    let n = buf.len().checked_sub(ICV_LEN).ok_or(Error::Truncated)?;
    let (data, tail) = buf.split_at_mut(n);
    tail.copy_from_slice(&icv(data));
    rc4_apply(seed, buf)
}

/// Opens in place: RC4-decrypts `buf` (ciphertext || encrypted ICV) under `seed` and checks
/// the ICV in constant time. Returns the plaintext length (`buf.len() - 4`).
///
/// On [`Error::IcvFailure`] `buf` holds the (unauthenticated) decryption: discard it.
pub fn wep_open(seed: &[u8], buf: &mut [u8]) -> Result<usize> {
    let n = buf.len().checked_sub(ICV_LEN).ok_or(Error::Truncated)?;
    rc4_apply(seed, buf)?;
    let (data, tail) = buf.split_at(n);
    let want = icv(data);
    if bool::from(want.ct_eq(tail)) {
        Ok(n)
    } else {
        Err(Error::IcvFailure)
    }
}

/// A WEP key: 5 octets (WEP-40), 13 octets (WEP-104), or 16 octets, the common but
/// non-standard "WEP-128" (RC4 seed IV || 16-octet key), which reports
/// [`CipherSuite::Wep104`] as its suite since 802.11 defines no suite for it.
///
/// The key is zeroized on drop; per-frame RC4 seeds are zeroized after use.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct WepKey {
    key: [u8; 16],
    len: usize,
}

impl core::fmt::Debug for WepKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "WepKey({} octets)", self.len)
    }
}

/// Checks that WEP may protect this frame: a data frame with a body, or the body of a
/// management Authentication frame (shared-key authentication, 12.3.3.3).
fn check_frame(mpdu: &[u8]) -> Result<(Header<&[u8]>, usize)> {
    let hdr = Header::new_checked(mpdu)?;
    let f = hdr.frame_control();
    if f.is_data() {
        if !f.has_data_body() {
            return Err(Error::Unsupported("Null data frames carry no body to protect"));
        }
    } else if !(f.is_mgmt() && f.subtype() == mgmt_subtype::AUTH) {
        return Err(Error::Unsupported("WEP protects data frames and Authentication frames only"));
    }
    let hl = hdr.header_len();
    Ok((hdr, hl))
}

impl WepKey {
    /// Builds a key from 5, 13 or 16 octets; any other length is [`Error::BadKeyLength`].
    pub fn new(key: &[u8]) -> Result<WepKey> {
        if !matches!(key.len(), 5 | 13 | 16) {
            return Err(Error::BadKeyLength);
        }
        let mut k = [0u8; 16];
        k[..key.len()].copy_from_slice(key);
        Ok(WepKey { key: k, len: key.len() })
    }

    /// Key length in octets (5, 13 or 16).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false (a WEP key is never empty); present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The RC4 seed `IV || key` for a 24-bit IV given as a number (IV0 most significant,
    /// as [`WepHeaderRepr::iv_from_u32`]). Returns the seed buffer and its length.
    fn seed(&self, iv: [u8; 3]) -> (Zeroizing<[u8; 19]>, usize) {
        let mut s = Zeroizing::new([0u8; 19]);
        s[..3].copy_from_slice(&iv);
        s[3..3 + self.len].copy_from_slice(&self.key[..self.len]);
        (s, 3 + self.len)
    }

    /// Encrypts `buf` = plaintext || 4 spare octets in place under this key and `iv`.
    pub fn seal_body(&self, iv: [u8; 3], buf: &mut [u8]) -> Result<()> {
        let (s, n) = self.seed(iv);
        wep_seal(&s[..n], buf)
    }

    /// Decrypts `buf` = ciphertext || encrypted ICV in place and checks the ICV; returns the
    /// plaintext length. On error `buf` holds unauthenticated data: discard it.
    pub fn open_body(&self, iv: [u8; 3], buf: &mut [u8]) -> Result<usize> {
        let (s, n) = self.seed(iv);
        wep_open(&s[..n], buf)
    }

    /// Reads the IV (as a number, IV0 most significant) and Key ID of a WEP-protected MPDU
    /// without decrypting it.
    pub fn peek(mpdu: &[u8]) -> Result<RxInfo> {
        let (hdr, hl) = check_frame(mpdu)?;
        if !hdr.frame_control().protected() {
            return Err(Error::NotProtected);
        }
        let sec = WepHeaderRepr::parse(&mpdu[hl..])?;
        Ok(RxInfo { pn: iv_number(sec.iv), key_id: sec.key_id })
    }
}

fn iv_number(iv: [u8; 3]) -> Pn {
    ((iv[0] as Pn) << 16) | ((iv[1] as Pn) << 8) | iv[2] as Pn
}

impl Protection for WepKey {
    /// [`CipherSuite::Wep40`] for a 5-octet key, [`CipherSuite::Wep104`] otherwise
    /// (including the non-standard 16-octet key).
    fn suite(&self) -> CipherSuite {
        if self.len == 5 {
            CipherSuite::Wep40
        } else {
            CipherSuite::Wep104
        }
    }

    /// `pn` is the 24-bit IV as a number (IV0 most significant); over 24 bits →
    /// [`Error::Malformed`]. `key_id` 0..=3.
    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let (hdr, hl) = check_frame(mpdu)?;
        if hdr.frame_control().protected() {
            return Err(Error::AlreadyProtected);
        }
        if pn > IV_MAX {
            return Err(Error::Malformed("WEP IV over 24 bits"));
        }
        let body = &mpdu[hl..];
        if body.len() > MAX_MPDU_BODY {
            return Err(Error::Oversize);
        }
        let sec = WepHeaderRepr { iv: WepHeaderRepr::iv_from_u32(pn as u32), key_id };
        let mut ivh = [0u8; WepHeaderRepr::LEN];
        sec.emit(&mut ivh)?;
        out.reserve(hl + WepHeaderRepr::LEN + body.len() + ICV_LEN);
        out.extend_from_slice(&mpdu[..hl]);
        out[1] |= (fc::PROTECTED >> 8) as u8;
        out.extend_from_slice(&ivh);
        out.extend_from_slice(body);
        out.extend_from_slice(&[0u8; ICV_LEN]);
        if let Err(e) = self.seal_body(sec.iv, &mut out[hl + WepHeaderRepr::LEN..]) {
            out.clear();
            return Err(e);
        }
        Ok(())
    }

    /// Returns the IV as a number in [`RxInfo::pn`]. The Key ID is reported, not checked:
    /// key selection by Key ID belongs to the caller.
    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo> {
        out.clear();
        let (hdr, hl) = check_frame(mpdu)?;
        if !hdr.frame_control().protected() {
            return Err(Error::NotProtected);
        }
        let rest = &mpdu[hl..];
        let sec = WepHeaderRepr::parse(rest)?;
        let enc = &rest[WepHeaderRepr::LEN..];
        let body_len = enc.len().checked_sub(ICV_LEN).ok_or(Error::Truncated)?;
        if body_len > MAX_MPDU_BODY {
            return Err(Error::Oversize);
        }
        out.reserve(hl + enc.len());
        out.extend_from_slice(&mpdu[..hl]);
        out[1] &= !((fc::PROTECTED >> 8) as u8);
        out.extend_from_slice(enc);
        match self.open_body(sec.iv, &mut out[hl..]) {
            Ok(n) => {
                out.truncate(hl + n);
                Ok(RxInfo { pn: iv_number(sec.iv), key_id: sec.key_id })
            }
            Err(e) => {
                out.zeroize();
                out.clear();
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_known_answer() {
        // The 8-octet WEP-40 seed of P802.11i/D7.0 I.7.2 (vectors.md 5) and the first
        // ciphertext octets of that vector.
        let seed = [0xfb, 0x02, 0x9e, 0x30, 0x31, 0x32, 0x33, 0x34];
        let mut d = [0xaa, 0xaa, 0x03, 0x00];
        rc4_apply(&seed, &mut d).unwrap();
        assert_eq!(d, [0xf6, 0x9c, 0x58, 0x06]);
        assert_eq!(rc4_apply(&seed[..7], &mut d), Err(Error::BadKeyLength));
    }

    #[test]
    fn icv_is_le_crc32() {
        assert_eq!(icv(b"123456789"), 0xcbf4_3926u32.to_le_bytes());
    }

    #[test]
    fn seal_open_round_trip() {
        let k = WepKey::new(&[7; 13]).unwrap();
        let mut buf = *b"hello world\0\0\0\0";
        k.seal_body([1, 2, 3], &mut buf).unwrap();
        assert_eq!(k.open_body([1, 2, 3], &mut buf).unwrap(), 11);
        assert_eq!(&buf[..11], b"hello world");
        assert_eq!(k.open_body([1, 2, 3], &mut buf[..3]), Err(Error::Truncated));
    }

    #[test]
    fn key_lengths() {
        for n in 0..40 {
            assert_eq!(WepKey::new(&vec![0; n]).is_ok(), matches!(n, 5 | 13 | 16), "{n}");
        }
        assert_eq!(WepKey::new(&[0; 5]).unwrap().suite(), CipherSuite::Wep40);
        assert_eq!(WepKey::new(&[0; 13]).unwrap().suite(), CipherSuite::Wep104);
    }
}
