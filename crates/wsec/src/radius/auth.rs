//! The RADIUS integrity and hiding functions, all keyed by the shared secret:
//! - the Response Authenticator (RFC 2865 3) and the Accounting-Request Authenticator
//!   (RFC 2866 3), MD5 over the packet and the secret;
//! - the Message-Authenticator (RFC 3579 3.2; RFC 2869 5.14), HMAC-MD5 over the packet
//!   with its own value zeroed and, in a response, the request's authenticator in place;
//! - User-Password hiding (RFC 2865 5.2);
//! - the MS-MPPE-Send/Recv-Key encryption that carries the MSK to the authenticator
//!   (RFC 2548 2.4.2, 2.4.3).
//!
//! Every comparison is constant time. A response is accepted only when its Response
//! Authenticator verifies and, when present, its Message-Authenticator does; whether a
//! missing Message-Authenticator is acceptable is the caller's policy (the client requires
//! it on every Access-Accept, -Reject and -Challenge: the BlastRADIUS defence, CVE-2024-3596).
use super::packet::{attr, Code, Packet, HEADER_LEN};
use crate::error::{Error, Result};
use hmac::{Hmac, Mac};
use md5::{Digest, Md5};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

type HmacMd5 = Hmac<Md5>;

/// Offset of the Message-Authenticator value in `p`, if the packet has one (the first).
fn message_authenticator_offset(p: &[u8]) -> Result<Option<usize>> {
    let pk = Packet::new_checked(p)?;
    let mut off = HEADER_LEN;
    for a in pk.attributes() {
        let a = a?;
        if a.typ == attr::MESSAGE_AUTHENTICATOR {
            if a.value.len() != 16 {
                return Err(Error::Malformed("Message-Authenticator not 16 octets"));
            }
            return Ok(Some(off + 2));
        }
        off += a.value.len() + 2;
    }
    Ok(None)
}

/// HMAC-MD5(secret, packet) with the Message-Authenticator value zeroed and the
/// Authenticator field replaced by `authenticator` (RFC 3579 3.2).
fn hmac_md5(p: &[u8], ma_off: usize, authenticator: &[u8; 16], secret: &[u8]) -> [u8; 16] {
    let mut m = <HmacMd5 as Mac>::new_from_slice(secret).expect("HMAC takes keys of any length");
    m.update(&p[..4]);
    m.update(authenticator);
    m.update(&p[HEADER_LEN..ma_off]);
    m.update(&[0u8; 16]);
    m.update(&p[ma_off + 16..]);
    m.finalize().into_bytes().into()
}

/// MD5(Code | Identifier | Length | `authenticator` | Attributes | secret).
fn md5_auth(p: &[u8], authenticator: &[u8; 16], secret: &[u8]) -> [u8; 16] {
    let mut h = Md5::new();
    h.update(&p[..4]);
    h.update(authenticator);
    h.update(&p[HEADER_LEN..]);
    h.update(secret);
    h.finalize().into()
}

/// Signs a request built by [`super::packet::Builder`]: fills its Message-Authenticator (if
/// it has one) over the Request Authenticator already in place (Access-Request, RFC 3579
/// 3.2), or, for an Accounting-Request, sets the Request Authenticator (RFC 2866 3) after
/// filling the Message-Authenticator over sixteen zero octets (RFC 5080 2.2.2).
pub fn sign_request(p: &mut [u8], secret: &[u8]) -> Result<()> {
    let ma = message_authenticator_offset(p)?;
    let code = Code::from_number(p[0]);
    if code == Code::AccountingRequest {
        p[4..20].fill(0);
        if let Some(off) = ma {
            let mac = hmac_md5(p, off, &[0; 16], secret);
            p[off..off + 16].copy_from_slice(&mac);
        }
        let a = md5_auth(&p[..], &[0; 16], secret);
        p[4..20].copy_from_slice(&a);
    } else if let Some(off) = ma {
        let mut ra = [0u8; 16];
        ra.copy_from_slice(&p[4..20]);
        let mac = hmac_md5(p, off, &ra, secret);
        p[off..off + 16].copy_from_slice(&mac);
    }
    Ok(())
}

/// Signs a response to a request with `request_authenticator`: the Message-Authenticator
/// (if present) first, then the Response Authenticator over the whole (RFC 2865 3, RFC 3579
/// 3.2). What a RADIUS server does; the client's tests use it as their server.
pub fn sign_response(p: &mut [u8], request_authenticator: &[u8; 16], secret: &[u8]) -> Result<()> {
    if let Some(off) = message_authenticator_offset(p)? {
        let mac = hmac_md5(p, off, request_authenticator, secret);
        p[off..off + 16].copy_from_slice(&mac);
    }
    let a = md5_auth(&p[..], request_authenticator, secret);
    p[4..20].copy_from_slice(&a);
    Ok(())
}

/// What [`verify_response`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    /// The response carried a Message-Authenticator (and it verified).
    pub message_authenticator: bool,
}

/// Checks a response against the request it answers: the Response Authenticator and, if
/// present, the Message-Authenticator. Errors name what failed, never the secret.
pub fn verify_response(p: &[u8], request_authenticator: &[u8; 16], secret: &[u8]) -> Result<Verified> {
    let pk = Packet::new_checked(p)?;
    let p = pk.as_bytes();
    let want = md5_auth(p, request_authenticator, secret);
    if !bool::from(want.ct_eq(&p[4..20])) {
        return Err(Error::Malformed("RADIUS Response Authenticator does not verify (wrong shared secret?)"));
    }
    let ma = message_authenticator_offset(p)?;
    if let Some(off) = ma {
        let mac = hmac_md5(p, off, request_authenticator, secret);
        if !bool::from(mac.ct_eq(&p[off..off + 16])) {
            return Err(Error::Malformed("RADIUS Message-Authenticator does not verify"));
        }
    }
    Ok(Verified { message_authenticator: ma.is_some() })
}

/// Checks a request as a server would: an Access-Request's Message-Authenticator (if
/// present), an Accounting-Request's Request Authenticator.
pub fn verify_request(p: &[u8], secret: &[u8]) -> Result<Verified> {
    let pk = Packet::new_checked(p)?;
    let p = pk.as_bytes();
    let ma = message_authenticator_offset(p)?;
    let auth_field = if pk.code() == Code::AccountingRequest {
        let want = md5_auth(p, &[0; 16], secret);
        if !bool::from(want.ct_eq(&p[4..20])) {
            return Err(Error::Malformed("RADIUS Accounting-Request Authenticator does not verify"));
        }
        [0u8; 16]
    } else {
        pk.authenticator()
    };
    if let Some(off) = ma {
        let mac = hmac_md5(p, off, &auth_field, secret);
        if !bool::from(mac.ct_eq(&p[off..off + 16])) {
            return Err(Error::Malformed("RADIUS Message-Authenticator does not verify"));
        }
    }
    Ok(Verified { message_authenticator: ma.is_some() })
}

/// User-Password hiding (RFC 2865 5.2): the password padded with zeros to a multiple of 16
/// (at most 128 octets), XORed with the chain MD5(S + RA), MD5(S + c1), ...
pub fn hide_password(password: &[u8], request_authenticator: &[u8; 16], secret: &[u8]) -> Result<Vec<u8>> {
    if password.len() > 128 {
        return Err(Error::Oversize);
    }
    let n = password.len().div_ceil(16).max(1) * 16;
    let mut out = Zeroizing::new(vec![0u8; n]);
    out[..password.len()].copy_from_slice(password);
    let mut prev: Vec<u8> = request_authenticator.to_vec();
    for c in out.chunks_mut(16) {
        let b: [u8; 16] = Md5::new().chain_update(secret).chain_update(&prev).finalize().into();
        for (x, k) in c.iter_mut().zip(b) {
            *x ^= k;
        }
        prev = c.to_vec();
    }
    Ok(out.to_vec())
}

/// The inverse of [`hide_password`], trailing zero padding removed (a server's side).
pub fn unhide_password(hidden: &[u8], request_authenticator: &[u8; 16], secret: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if hidden.is_empty() || !hidden.len().is_multiple_of(16) || hidden.len() > 128 {
        return Err(Error::Malformed("User-Password length not a multiple of 16 up to 128"));
    }
    let mut out = Zeroizing::new(hidden.to_vec());
    let mut prev: Vec<u8> = request_authenticator.to_vec();
    for (i, c) in out.chunks_mut(16).enumerate() {
        let b: [u8; 16] = Md5::new().chain_update(secret).chain_update(&prev).finalize().into();
        prev = hidden[i * 16..i * 16 + 16].to_vec();
        for (x, k) in c.iter_mut().zip(b) {
            *x ^= k;
        }
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    Ok(out)
}

/// Decrypts an MS-MPPE-Send-Key or MS-MPPE-Recv-Key value (RFC 2548 2.4.2): Salt (2, high
/// bit set) | String, where the String is (Key-Length | Key | padding) XORed with
/// b(1) = MD5(S + R + A), b(i) = MD5(S + c(i-1)), R the Access-Request's authenticator.
pub fn mppe_decrypt(value: &[u8], request_authenticator: &[u8; 16], secret: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if value.len() < 2 + 16 || !(value.len() - 2).is_multiple_of(16) {
        return Err(Error::Malformed("MS-MPPE key attribute length"));
    }
    let salt = &value[..2];
    if salt[0] & 0x80 == 0 {
        return Err(Error::Malformed("MS-MPPE key Salt without its high bit set"));
    }
    let c = &value[2..];
    let mut p = Zeroizing::new(vec![0u8; c.len()]);
    for i in 0..c.len() / 16 {
        let b: [u8; 16] = if i == 0 {
            Md5::new().chain_update(secret).chain_update(request_authenticator).chain_update(salt).finalize().into()
        } else {
            Md5::new().chain_update(secret).chain_update(&c[(i - 1) * 16..i * 16]).finalize().into()
        };
        for j in 0..16 {
            p[i * 16 + j] = c[i * 16 + j] ^ b[j];
        }
    }
    let l = p[0] as usize;
    if l + 1 > p.len() {
        return Err(Error::Malformed("MS-MPPE Key-Length longer than the attribute"));
    }
    Ok(Zeroizing::new(p[1..1 + l].to_vec()))
}

/// Encrypts a key for an MS-MPPE-Send/Recv-Key attribute (RFC 2548 2.4.2): what a server
/// does; the tests use it as their server. `salt`'s high bit is set here.
pub fn mppe_encrypt(key: &[u8], salt: [u8; 2], request_authenticator: &[u8; 16], secret: &[u8]) -> Result<Vec<u8>> {
    if key.len() > 240 {
        return Err(Error::Oversize);
    }
    let salt = [salt[0] | 0x80, salt[1]];
    let n = (key.len() + 1).div_ceil(16) * 16;
    let mut p = Zeroizing::new(vec![0u8; n]);
    p[0] = key.len() as u8;
    p[1..1 + key.len()].copy_from_slice(key);
    let mut out = salt.to_vec();
    for i in 0..n / 16 {
        let b: [u8; 16] = if i == 0 {
            Md5::new().chain_update(secret).chain_update(request_authenticator).chain_update(salt).finalize().into()
        } else {
            Md5::new().chain_update(secret).chain_update(&out[2 + (i - 1) * 16..2 + i * 16]).finalize().into()
        };
        for j in 0..16 {
            out.push(p[i * 16 + j] ^ b[j]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::packet::Builder;
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s.split_whitespace().collect::<String>()).unwrap()
    }

    // RFC 2865 7.1: NAS 192.168.1.16 port 3, user "nemo", password "arctangent",
    // shared secret "xyzzy5461".
    const REQUEST: &str = "01 00 00 38 0f 40 3f 94 73 97 80 57 bd 83 d5 cb 98 f4 22 7a 01 06 6e 65 6d 6f
                           02 12 0d be 70 8d 93 d4 13 ce 31 96 e4 3f 78 2a 0a ee 04 06 c0 a8 01 10 05 06 00 00 00 03";
    const ACCEPT: &str = "02 00 00 26 86 fe 22 0e 76 24 ba 2a 10 05 f6 bf 9b 55 e0 b2 06 06 00 00 00 01
                          0f 06 00 00 00 00 0e 06 c0 a8 01 03";
    const SECRET: &[u8] = b"xyzzy5461";

    #[test]
    fn rfc2865_7_1_user_password() {
        let req = unhex(REQUEST);
        let pk = Packet::new_checked(&req[..]).unwrap();
        let ra = pk.authenticator();
        let hidden = pk.find(attr::USER_PASSWORD).unwrap().value;
        assert_eq!(hide_password(b"arctangent", &ra, SECRET).unwrap(), hidden);
        assert_eq!(&unhide_password(hidden, &ra, SECRET).unwrap()[..], b"arctangent");
        // The same packet rebuilt attribute by attribute.
        let mut b = Builder::new(Code::AccessRequest, 0, ra);
        b.add(attr::USER_NAME, b"nemo").unwrap();
        b.add(attr::USER_PASSWORD, &hide_password(b"arctangent", &ra, SECRET).unwrap()).unwrap();
        b.add(attr::NAS_IP_ADDRESS, &[192, 168, 1, 16]).unwrap();
        b.add_u32(attr::NAS_PORT, 3).unwrap();
        assert_eq!(b.finish(), req);
    }

    #[test]
    fn rfc2865_7_1_response_authenticator() {
        let req = unhex(REQUEST);
        let ra = Packet::new_checked(&req[..]).unwrap().authenticator();
        let acc = unhex(ACCEPT);
        assert_eq!(verify_response(&acc, &ra, SECRET).unwrap(), Verified { message_authenticator: false });
        assert!(verify_response(&acc, &ra, b"xyzzy5460").is_err());
        let mut forged = acc.clone();
        forged[25] ^= 1;
        assert!(verify_response(&forged, &ra, SECRET).is_err());
        // Signing the same attributes gives the RFC's authenticator.
        let mut resigned = acc.clone();
        resigned[4..20].fill(0);
        sign_response(&mut resigned, &ra, SECRET).unwrap();
        assert_eq!(resigned, acc);
    }

    #[test]
    fn message_authenticator_round_trip_and_tamper() {
        let ra = [7u8; 16];
        let mut b = Builder::new(Code::AccessRequest, 9, ra);
        b.add(attr::USER_NAME, b"alice").unwrap();
        b.add_split(attr::EAP_MESSAGE, &[2, 1, 0, 10, 1, b'a', b'l', b'i', b'c', b'e']).unwrap();
        b.add_message_authenticator().unwrap();
        let mut p = b.finish();
        sign_request(&mut p, b"s3cret").unwrap();
        assert!(verify_request(&p, b"s3cret").unwrap().message_authenticator);
        assert!(verify_request(&p, b"s3creT").is_err());
        let l = p.len();
        p[l - 1] ^= 0x80;
        assert!(verify_request(&p, b"s3cret").is_err());

        let mut r = Builder::new(Code::AccessChallenge, 9, [0; 16]);
        r.add_message_authenticator().unwrap();
        r.add(attr::STATE, b"st").unwrap();
        let mut r = r.finish();
        sign_response(&mut r, &ra, b"s3cret").unwrap();
        assert!(verify_response(&r, &ra, b"s3cret").unwrap().message_authenticator);
        assert!(verify_response(&r, &[8u8; 16], b"s3cret").is_err(), "another request's authenticator");
        // A Message-Authenticator of the wrong length is malformed.
        let mut b = Builder::new(Code::AccessAccept, 1, [0; 16]);
        b.add(attr::MESSAGE_AUTHENTICATOR, &[0; 15]).unwrap();
        assert!(sign_response(&mut b.finish(), &ra, b"x").is_err());
    }

    #[test]
    fn accounting_request_authenticator() {
        let mut b = Builder::new(Code::AccountingRequest, 3, [0xaa; 16]);
        b.add_u32(attr::ACCT_STATUS_TYPE, 1).unwrap();
        b.add(attr::ACCT_SESSION_ID, b"0123456789ABCDEF").unwrap();
        let mut p = b.finish();
        sign_request(&mut p, b"acct").unwrap();
        // RFC 2866 3: MD5(Code+Identifier+Length+16 zero octets+request attributes+secret).
        let mut h = Md5::new();
        h.update(&p[..4]);
        h.update([0u8; 16]);
        h.update(&p[20..]);
        h.update(b"acct");
        let want: [u8; 16] = h.finalize().into();
        assert_eq!(&p[4..20], &want);
        assert!(verify_request(&p, b"acct").is_ok());
        assert!(verify_request(&p, b"acc").is_err());
    }

    #[test]
    fn mppe_key_round_trip_and_checks() {
        let ra = [3u8; 16];
        let key: Vec<u8> = (0..32).collect();
        let v = mppe_encrypt(&key, [0x12, 0x34], &ra, b"sec").unwrap();
        assert_eq!(v.len(), 2 + 48);
        assert_eq!(v[0], 0x92);
        assert_eq!(&mppe_decrypt(&v, &ra, b"sec").unwrap()[..], &key[..]);
        // A wrong secret gives another Key-Length or other octets, never the key.
        assert!(mppe_decrypt(&v, &ra, b"sed").map(|k| k.to_vec() != key).unwrap_or(true));
        let mut nosalt = v.clone();
        nosalt[0] &= 0x7f;
        assert!(mppe_decrypt(&nosalt, &ra, b"sec").is_err());
        assert!(mppe_decrypt(&v[..20], &ra, b"sec").is_err());
    }
}
