//! Encryption of the EAPOL-Key Key Data field (IEEE 802.11-2020 12.7.2 b.1 and j):
//!
//! - Key Descriptor Versions 2, 3 and the AKM-defined 0: NIST AES Key Wrap (RFC 3394) with
//!   the KEK ([`aes_key_wrap`], [`aes_key_unwrap`]; 128-, 192- and 256-bit KEKs, the
//!   default IV `A6A6A6A6A6A6A6A6`), after padding the Key Data ([`pad_key_data`]).
//! - Key Descriptor Version 1 (TKIP with a SHA-1 AKM): ARC4 keyed with
//!   EAPOL-Key IV || KEK, the first 256 octets of keystream discarded ([`rc4_key_data`]).
//!
//! # Errors
//! A failed unwrap integrity check (the recovered IV is not `A6A6A6A6A6A6A6A6`: wrong KEK
//! or altered Key Data) is `Error::Malformed("AES key unwrap integrity check failed")`, not
//! `MicFailure`: by the time Key Data is unwrapped the EAPOL-Key MIC has verified, and
//! `MicFailure` stays reserved for frame MICs (which count towards e.g. TKIP
//! countermeasures). Nothing of the unwrapped data is returned on that failure.
use crate::error::{Error, Result};
use aes_kw::{KekAes128, KekAes192, KekAes256};
use rc4::cipher::generic_array::GenericArray;
use rc4::consts::U32;
use rc4::{KeyInit, Rc4, StreamCipher};
use zeroize::{Zeroize, Zeroizing};

/// The default initial value of RFC 3394 2.2.3.1.
pub const KEY_WRAP_IV: [u8; 8] = [0xA6; 8];

/// AES Key Wrap (RFC 3394 2.2.1) of `plaintext` under `kek` (16, 24 or 32 octets, else
/// `BadKeyLength`). The plaintext must be a multiple of 8 octets and at least 16 (else
/// `Malformed`; see [`pad_key_data`]). Returns the 8 octets longer ciphertext.
pub fn aes_key_wrap(kek: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
    if plaintext.len() < 16 || plaintext.len() & 7 != 0 {
        return Err(Error::Malformed("key wrap input must be a multiple of 8 octets, at least 16"));
    }
    let mut out = vec![0u8; plaintext.len() + 8];
    let r = match kek.len() {
        16 => KekAes128::new(GenericArray::from_slice(kek)).wrap(plaintext, &mut out),
        24 => KekAes192::new(GenericArray::from_slice(kek)).wrap(plaintext, &mut out),
        32 => KekAes256::new(GenericArray::from_slice(kek)).wrap(plaintext, &mut out),
        _ => return Err(Error::BadKeyLength),
    };
    match r {
        Ok(()) => Ok(out),
        Err(_) => {
            out.zeroize();
            Err(Error::Malformed("key wrap input must be a multiple of 8 octets, at least 16"))
        }
    }
}

/// AES Key Unwrap (RFC 3394 2.2.2) of `ciphertext` under `kek` (16, 24 or 32 octets, else
/// `BadKeyLength`). The ciphertext must be a multiple of 8 octets and at least 24 (else
/// `Malformed`). Returns the plaintext (wiped on drop), or
/// `Malformed("AES key unwrap integrity check failed")` (see the module notes).
pub fn aes_key_unwrap(kek: &[u8], ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if ciphertext.len() < 24 || ciphertext.len() & 7 != 0 {
        return Err(Error::Malformed("wrapped Key Data must be a multiple of 8 octets, at least 24"));
    }
    let mut out = Zeroizing::new(vec![0u8; ciphertext.len() - 8]);
    let r = match kek.len() {
        16 => KekAes128::new(GenericArray::from_slice(kek)).unwrap(ciphertext, &mut out),
        24 => KekAes192::new(GenericArray::from_slice(kek)).unwrap(ciphertext, &mut out),
        32 => KekAes256::new(GenericArray::from_slice(kek)).unwrap(ciphertext, &mut out),
        _ => return Err(Error::BadKeyLength),
    };
    match r {
        Ok(()) => Ok(out),
        // `out` (the unauthenticated plaintext) is wiped when it drops here.
        Err(_) => Err(Error::Malformed("AES key unwrap integrity check failed")),
    }
}

/// Key Data encryption of Key Descriptor Version 1 (12.7.2 b.1.i): ARC4 with the 32-octet
/// key `EAPOL-Key IV || KEK`, the first 256 octets of the keystream discarded, applied in
/// place (encryption and decryption are the same operation).
pub fn rc4_key_data(kek: &[u8; 16], key_iv: &[u8; 16], data: &mut [u8]) {
    let mut key = Zeroizing::new([0u8; 32]);
    key[..16].copy_from_slice(key_iv);
    key[16..].copy_from_slice(kek);
    let mut rc4 = Rc4::<U32>::new(GenericArray::from_slice(&key[..]));
    let mut discard = [0u8; 256];
    rc4.apply_keystream(&mut discard);
    discard.zeroize();
    rc4.apply_keystream(data);
}

/// Key Data padding before AES Key Wrap (12.7.2 j): when the Key Data is shorter than 16
/// octets or not a multiple of 8, append `0xdd` and then zeros up to the next multiple of
/// 8 (at least 16 octets in all). Key Data that needs no padding is left as it is.
pub fn pad_key_data(v: &mut Vec<u8>) {
    if v.len() >= 16 && v.len() & 7 == 0 {
        return;
    }
    v.push(0xdd);
    let target = v.len().div_ceil(8).max(2) * 8;
    v.resize(target, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_rule() {
        for n in 0..40usize {
            let mut v = vec![0x11u8; n];
            pad_key_data(&mut v);
            assert!(v.len() >= 16 && v.len() & 7 == 0);
            if n >= 16 && n % 8 == 0 {
                assert_eq!(v.len(), n);
            } else {
                assert_eq!(v[n], 0xdd);
                assert!(v[n + 1..].iter().all(|&b| b == 0));
                assert!(v.len() - n <= 8 || n < 16);
            }
        }
    }
}
