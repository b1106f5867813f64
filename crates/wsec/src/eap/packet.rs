//! EAP packets (RFC 3748 4, 5): Code (1) | Identifier (1) | Length (2, BE) | Type (1,
//! Request and Response only) | Type-Data.
//!
//! Octets beyond Length are padding (an EAPOL body may carry them) and never read; a
//! Length below 4 (or 5 for a Request/Response) or past the buffer is malformed.
use crate::error::{Error, Result};

/// The EAP header.
pub const HEADER_LEN: usize = 4;

/// EAP Code (RFC 3748 4; RFC 6696 for 5 and 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    Request,
    Response,
    Success,
    Failure,
    Other(u8),
}

impl Code {
    pub fn number(self) -> u8 {
        match self {
            Code::Request => 1,
            Code::Response => 2,
            Code::Success => 3,
            Code::Failure => 4,
            Code::Other(n) => n,
        }
    }
    pub fn from_number(n: u8) -> Code {
        match n {
            1 => Code::Request,
            2 => Code::Response,
            3 => Code::Success,
            4 => Code::Failure,
            n => Code::Other(n),
        }
    }
}

/// EAP method types (RFC 3748 5; IANA "EAP Method Types").
pub mod method {
    pub const IDENTITY: u8 = 1;
    pub const NOTIFICATION: u8 = 2;
    pub const NAK: u8 = 3;
    pub const MD5_CHALLENGE: u8 = 4;
    pub const TLS: u8 = 13;
    pub const TTLS: u8 = 21;
    pub const PEAP: u8 = 25;
    pub const MSCHAPV2: u8 = 26;
    pub const EXPANDED: u8 = 254;

    /// The name wpa_supplicant and hostapd print for a method.
    pub fn name(t: u8) -> &'static str {
        match t {
            IDENTITY => "Identity",
            NOTIFICATION => "Notification",
            NAK => "Nak",
            MD5_CHALLENGE => "MD5",
            TLS => "TLS",
            TTLS => "TTLS",
            PEAP => "PEAP",
            MSCHAPV2 => "MSCHAPV2",
            EXPANDED => "expanded",
            _ => "unknown",
        }
    }
}

/// An EAP packet in a buffer.
#[derive(Debug, Clone)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    pub fn new_checked(buffer: T) -> Result<Packet<T>> {
        let b = buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let l = u16::from_be_bytes([b[2], b[3]]) as usize;
        if l < HEADER_LEN {
            return Err(Error::Malformed("EAP Length below 4"));
        }
        if l > b.len() {
            return Err(Error::Truncated);
        }
        if matches!(Code::from_number(b[0]), Code::Request | Code::Response) && l < HEADER_LEN + 1 {
            return Err(Error::Malformed("EAP Request/Response without a Type"));
        }
        Ok(Packet { buffer })
    }
    pub fn code(&self) -> Code {
        Code::from_number(self.buffer.as_ref()[0])
    }
    pub fn identifier(&self) -> u8 {
        self.buffer.as_ref()[1]
    }
    pub fn length(&self) -> usize {
        let b = self.buffer.as_ref();
        u16::from_be_bytes([b[2], b[3]]) as usize
    }
    /// The method type of a Request/Response.
    pub fn typ(&self) -> Option<u8> {
        match self.code() {
            Code::Request | Code::Response => Some(self.buffer.as_ref()[4]),
            _ => None,
        }
    }
    /// The Type-Data of a Request/Response (empty otherwise).
    pub fn type_data(&self) -> &[u8] {
        match self.code() {
            Code::Request | Code::Response => &self.buffer.as_ref()[5..self.length()],
            _ => &[],
        }
    }
    /// The packet without padding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.length()]
    }
}

/// A Request or Response of `typ` with `data`.
pub fn emit(code: Code, identifier: u8, typ: u8, data: &[u8]) -> Result<Vec<u8>> {
    let l = HEADER_LEN + 1 + data.len();
    if l > u16::MAX as usize {
        return Err(Error::Oversize);
    }
    let mut v = Vec::with_capacity(l);
    v.extend_from_slice(&[code.number(), identifier]);
    v.extend_from_slice(&(l as u16).to_be_bytes());
    v.push(typ);
    v.extend_from_slice(data);
    Ok(v)
}

/// A Success or Failure (header only).
pub fn emit_result(success: bool, identifier: u8) -> Vec<u8> {
    vec![if success { 3 } else { 4 }, identifier, 0, 4]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_emit() {
        let r = emit(Code::Response, 9, method::IDENTITY, b"alice").unwrap();
        assert_eq!(r, [2, 9, 0, 10, 1, b'a', b'l', b'i', b'c', b'e']);
        let mut padded = r.clone();
        padded.extend_from_slice(&[0; 6]);
        let p = Packet::new_checked(&padded[..]).unwrap();
        assert_eq!((p.code(), p.identifier(), p.typ(), p.type_data()), (Code::Response, 9, Some(1), &b"alice"[..]));
        assert_eq!(p.as_bytes(), &r[..]);
        let s = emit_result(true, 3);
        let p = Packet::new_checked(&s[..]).unwrap();
        assert_eq!((p.code(), p.typ(), p.type_data()), (Code::Success, None, &[][..]));
        assert!(Packet::new_checked(&[1u8, 0, 0, 4][..]).is_err(), "Request without Type");
        assert!(Packet::new_checked(&[1u8, 0, 0, 3][..]).is_err());
        assert!(Packet::new_checked(&[1u8, 0, 0, 9, 1][..]).is_err());
        assert!(Packet::new_checked(&[1u8, 0][..]).is_err());
    }
}
