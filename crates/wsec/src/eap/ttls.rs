//! EAP-TTLS phase 2 (RFC 5281): the AVPs the tunnel carries once the TLS handshake is done.
//!
//! ```text
//! AVP: Code (4) | Flags (1: V 0x80 vendor, M 0x40 mandatory) | Length (3, header and data)
//!      | Vendor-ID (4, when V) | Data | padding to 4 octets (RFC 5281 10.1, 10.2)
//! ```
//!
//! - PAP (RFC 5281 11.2.5): User-Name and User-Password, sent at once; the server's
//!   EAP-Success or -Failure says whether it passed.
//! - MS-CHAP-V2 (RFC 5281 11.2.4): the challenge is implicit, 17 octets of TLS keying
//!   material with the label "ttls challenge": 16 for MS-CHAP-Challenge (vendor 311, code
//!   11) and one for the Ident of MS-CHAP2-Response (311/25: Ident | Flags 0 | Peer-Challenge
//!   (16) | Reserved (8) | NT-Response (24)), with User-Name. The server proves it knows
//!   the password with MS-CHAP2-Success (311/26: Ident | "S=<40 hex>"), which must verify
//!   before the method succeeds; MS-CHAP-Error (311/2: Ident | "E=691 R=0 ...") fails it.
use super::mschapv2::{self, Failure, Password};
use super::tls::{Export, Tunnel, TunnelOutcome};
use crate::error::{Error, Result};
use zeroize::Zeroizing;

/// Microsoft's vendor number (RFC 2548).
pub const VENDOR_MICROSOFT: u32 = 311;
/// RFC 2548 attribute numbers.
pub const MS_CHAP_ERROR: u32 = 2;
pub const MS_CHAP_CHALLENGE: u32 = 11;
pub const MS_CHAP2_RESPONSE: u32 = 25;
pub const MS_CHAP2_SUCCESS: u32 = 26;
/// The largest number of AVPs read from one message.
const MAX_AVPS: usize = 64;

/// A Diameter AVP as EAP-TTLS carries it (RFC 5281 10.1): Code (4) | Flags (1; M 0x40) |
/// Length (3, header and data) | Data | padding to 4 octets.
pub fn ttls_avp(code: u32, data: &[u8], out: &mut Vec<u8>) {
    let len = 8 + data.len();
    out.extend_from_slice(&code.to_be_bytes());
    out.push(0x40);
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.extend_from_slice(data);
    out.resize(out.len() + (4 - len % 4) % 4, 0);
}

/// A vendor-specific AVP (V and M set, the Vendor-ID after the length).
pub fn ttls_vendor_avp(vendor: u32, code: u32, data: &[u8], out: &mut Vec<u8>) {
    let len = 12 + data.len();
    out.extend_from_slice(&code.to_be_bytes());
    out.push(0xc0);
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.extend_from_slice(&vendor.to_be_bytes());
    out.extend_from_slice(data);
    out.resize(out.len() + (4 - len % 4) % 4, 0);
}

/// TTLS phase 2 PAP (RFC 5281 11.2.5): User-Name (1) and User-Password (2), the password
/// padded with zeros to a multiple of 16 octets.
pub fn ttls_pap(user: &[u8], password: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::new());
    ttls_avp(1, user, &mut out);
    let mut pw = Zeroizing::new(password.to_vec());
    pw.resize(password.len().div_ceil(16).max(1) * 16, 0);
    ttls_avp(2, &pw, &mut out);
    out
}

/// One AVP read: (vendor, 0 for none; code; data).
pub type Avp<'a> = (u32, u32, &'a [u8]);

/// The AVPs of a tunneled message (at most 64; the last one's padding may be missing).
pub fn parse_avps(mut b: &[u8]) -> Result<Vec<Avp<'_>>> {
    let mut v = Vec::new();
    while !b.is_empty() {
        if v.len() == MAX_AVPS {
            return Err(Error::Oversize);
        }
        if b.len() < 8 {
            return Err(Error::Truncated);
        }
        let code = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let flags = b[4];
        let len = u32::from_be_bytes([0, b[5], b[6], b[7]]) as usize;
        let hdr = if flags & 0x80 != 0 { 12 } else { 8 };
        if len < hdr || len > b.len() {
            return Err(Error::Malformed("TTLS AVP length"));
        }
        let vendor = if hdr == 12 { u32::from_be_bytes([b[8], b[9], b[10], b[11]]) } else { 0 };
        v.push((vendor, code, &b[hdr..len]));
        b = &b[len.div_ceil(4).saturating_mul(4).min(b.len())..];
    }
    Ok(v)
}

/// Fixed AVPs sent once the tunnel is up (PAP): the method is done when they went.
pub struct TtlsAvps {
    avps: Zeroizing<Vec<u8>>,
    sent: bool,
}

impl TtlsAvps {
    pub fn new(avps: Zeroizing<Vec<u8>>) -> TtlsAvps {
        TtlsAvps { avps, sent: false }
    }
}

impl Tunnel for TtlsAvps {
    fn established(&mut self, _keys: &[u8], _export: &mut Export<'_>) -> Result<Zeroizing<Vec<u8>>> {
        self.sent = true;
        Ok(self.avps.clone())
    }
    fn received(&mut self, _data: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        Ok(Zeroizing::new(Vec::new()))
    }
    fn outcome(&self) -> TunnelOutcome {
        if self.sent {
            TunnelOutcome::Success
        } else {
            TunnelOutcome::Running
        }
    }
}

/// TTLS with MS-CHAP-V2 inside (RFC 5281 11.2.4).
pub struct TtlsMschapv2 {
    identity: Vec<u8>,
    hash: Zeroizing<[u8; 16]>,
    peer_challenge: [u8; 16],
    ident: u8,
    expected: Option<[u8; 20]>,
    nt_response: Option<[u8; 24]>,
    outcome: TunnelOutcome,
    error: Option<(u32, String)>,
}

impl TtlsMschapv2 {
    /// `peer_challenge`: 16 random octets.
    pub fn new(identity: &[u8], password: &Password, peer_challenge: [u8; 16]) -> Result<TtlsMschapv2> {
        Ok(TtlsMschapv2 {
            identity: identity.to_vec(),
            hash: password.nt_hash()?,
            peer_challenge,
            ident: 0,
            expected: None,
            nt_response: None,
            outcome: TunnelOutcome::Running,
            error: None,
        })
    }

    /// The AVPs for the implicit challenge `challenge` (17 octets of "ttls challenge").
    pub fn response(&mut self, challenge: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let auth: [u8; 16] = challenge.get(..16).and_then(|c| c.try_into().ok()).ok_or(Error::Truncated)?;
        self.ident = *challenge.get(16).ok_or(Error::Truncated)?;
        let user = mschapv2::user_name(&self.identity);
        let nt = mschapv2::generate_nt_response(&auth, &self.peer_challenge, user, &self.hash);
        self.expected = Some(mschapv2::authenticator_response(&self.hash, &nt, &self.peer_challenge, &auth, user));
        self.nt_response = Some(nt);
        let mut out = Zeroizing::new(Vec::new());
        ttls_avp(1, &self.identity, &mut out);
        ttls_vendor_avp(VENDOR_MICROSOFT, MS_CHAP_CHALLENGE, &auth, &mut out);
        let mut r = Vec::with_capacity(50);
        r.extend_from_slice(&[self.ident, 0]);
        r.extend_from_slice(&self.peer_challenge);
        r.extend_from_slice(&[0u8; 8]);
        r.extend_from_slice(&nt);
        ttls_vendor_avp(VENDOR_MICROSOFT, MS_CHAP2_RESPONSE, &r, &mut out);
        Ok(out)
    }
}

impl Tunnel for TtlsMschapv2 {
    fn established(&mut self, _keys: &[u8], export: &mut Export<'_>) -> Result<Zeroizing<Vec<u8>>> {
        let ch = export(b"ttls challenge", 17)?;
        self.response(&ch)
    }

    fn received(&mut self, data: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let none = Zeroizing::new(Vec::new());
        if self.outcome != TunnelOutcome::Running || self.expected.is_none() {
            return Ok(none);
        }
        for (vendor, code, d) in parse_avps(data)? {
            if vendor != VENDOR_MICROSOFT {
                continue;
            }
            match code {
                MS_CHAP2_SUCCESS => {
                    let ok = d.first() == Some(&self.ident)
                        && self.expected.as_ref().is_some_and(|e| mschapv2::check_authenticator_response(e, &d[1..]));
                    self.outcome = if ok {
                        TunnelOutcome::Success
                    } else {
                        TunnelOutcome::Failure("the server's MS-CHAP2-Success does not verify".into())
                    };
                    return Ok(none);
                }
                MS_CHAP_ERROR => {
                    let f = Failure::parse(d.get(1..).unwrap_or_default());
                    self.error = Some((f.error, f.message.clone()));
                    self.outcome = TunnelOutcome::Failure(f.to_string());
                    return Ok(none);
                }
                _ => {}
            }
        }
        self.outcome = TunnelOutcome::Failure("the server answered MS-CHAP-V2 without MS-CHAP2-Success".into());
        Ok(none)
    }

    fn outcome(&self) -> TunnelOutcome {
        self.outcome.clone()
    }

    fn take_error(&mut self) -> Option<(u32, String)> {
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_pap_avps() {
        // RFC 5281 10.1: User-Name "bob" (M flag, length 11, one octet of padding), then the
        // password padded to 16 octets (length 24).
        let a = ttls_pap(b"bob", b"secret");
        assert_eq!(&a[..12], &[0, 0, 0, 1, 0x40, 0, 0, 11, b'b', b'o', b'b', 0]);
        assert_eq!(&a[12..20], &[0, 0, 0, 2, 0x40, 0, 0, 24]);
        assert_eq!(&a[20..26], b"secret");
        assert_eq!(a.len(), 12 + 24);
        assert!(a[26..].iter().all(|&b| b == 0));
        let v = parse_avps(&a).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].0, v[0].1, v[0].2), (0, 1, &b"bob"[..]));
    }

    fn rfc2759_peer() -> TtlsMschapv2 {
        let pc: [u8; 16] = crate::input::hex_decode("21402324255E262A28295F2B3A337C7E").unwrap().try_into().unwrap();
        TtlsMschapv2::new(b"User", &Password::Clear(Zeroizing::new(b"clientPass".to_vec())), pc).unwrap()
    }

    fn challenge() -> Vec<u8> {
        let mut c = crate::input::hex_decode("5B5D7C7D7B3F2F3E3C2C602132262628").unwrap();
        c.push(0x42);
        c
    }

    #[test]
    fn mschapv2_avps_and_the_servers_proof() {
        let mut t = rfc2759_peer();
        let a = t.response(&challenge()).unwrap();
        let v = parse_avps(&a).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!((v[0].0, v[0].1, v[0].2), (0, 1, &b"User"[..]));
        assert_eq!((v[1].0, v[1].1, v[1].2), (311, 11, &challenge()[..16]));
        assert_eq!((v[2].0, v[2].1), (311, 25));
        let r = v[2].2;
        assert_eq!(r.len(), 50);
        assert_eq!(&r[..2], &[0x42, 0]);
        // RFC 2759 9.2's NT-Response.
        assert_eq!(&r[26..], &crate::input::hex_decode("82309ECD8D708B5EA08FAA3981CD83544233114A3D85D6DF").unwrap()[..]);
        // A vendor AVP: V|M, length 12 + 50 = 62, 2 octets of padding.
        assert_eq!(&a[a.len() - 64..a.len() - 56], &[0, 0, 0, 25, 0xc0, 0, 0, 62]);
        // The server's proof: right Ident and response.
        let mut ok = Vec::new();
        let mut s = vec![0x42];
        s.extend_from_slice(b"S=407A5589115FD0D6209F510FE9C04566932CDA56");
        ttls_vendor_avp(311, MS_CHAP2_SUCCESS, &s, &mut ok);
        let mut good = rfc2759_peer();
        good.response(&challenge()).unwrap();
        assert!(good.received(&ok).unwrap().is_empty());
        assert_eq!(good.outcome(), TunnelOutcome::Success);
        // The wrong Ident: failure.
        let mut bad = rfc2759_peer();
        bad.response(&challenge()).unwrap();
        let mut s2 = s.clone();
        s2[0] = 0x43;
        let mut wrong = Vec::new();
        ttls_vendor_avp(311, MS_CHAP2_SUCCESS, &s2, &mut wrong);
        bad.received(&wrong).unwrap();
        assert!(matches!(bad.outcome(), TunnelOutcome::Failure(_)));
        // MS-CHAP-Error: the code comes out.
        let mut e = rfc2759_peer();
        e.response(&challenge()).unwrap();
        let mut err = Vec::new();
        ttls_vendor_avp(311, MS_CHAP_ERROR, b"\x42E=691 R=0 C=00 V=3 M=no", &mut err);
        e.received(&err).unwrap();
        assert_eq!(e.take_error(), Some((691, "no".into())));
        assert!(matches!(e.outcome(), TunnelOutcome::Failure(w) if w.contains("691")));
    }

    #[test]
    fn avp_parser_is_bounded() {
        assert!(parse_avps(&[0, 0, 0, 1, 0x40, 0, 0]).is_err());
        assert!(parse_avps(&[0, 0, 0, 1, 0x40, 0, 0, 7]).is_err(), "length below the header");
        assert!(parse_avps(&[0, 0, 0, 1, 0xc0, 0, 0, 9, 0, 0, 0, 0]).is_err(), "vendor AVP shorter than its header");
        assert!(parse_avps(&[0, 0, 0, 1, 0x40, 0, 0, 99]).is_err());
        // No padding after the last AVP is accepted.
        assert_eq!(parse_avps(&[0, 0, 0, 1, 0x40, 0, 0, 9, 7]).unwrap().len(), 1);
        let many: Vec<u8> = (0..65).flat_map(|_| [0, 0, 0, 1, 0x40, 0, 0, 8]).collect();
        assert_eq!(parse_avps(&many).unwrap_err(), Error::Oversize);
    }
}
