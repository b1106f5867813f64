//! PEAPv0 (EAP Type 25; draft-kamath-pppext-peapv0-00, [MS-PEAP]), the peer side: the TLS
//! tunnel of [`super::tls`], then phase 2 EAP inside it with EAP-MSCHAPv2
//! ([`super::mschapv2`]) as the inner method.
//!
//! - Header compression ([MS-PEAP] 3.1.5.6, PEAPv0): inner EAP Requests and Responses
//!   travel without their 4-octet header (Type | Type-Data), except the Extensions method
//!   (Type 33), which is sent whole. As wpa_supplicant does, a whole 5-octet
//!   Request/Identity (FreeRADIUS sends one) is taken as it is.
//! - The Result TLV ([MS-PEAP] 2.2.8.1, in an EAP-Request/Extensions): the peer answers
//!   with the same status when it agrees (Success only if its inner method succeeded and,
//!   when present, the crypto binding verified), Failure otherwise.
//! - The Crypto-Binding TLV ([MS-PEAP] 2.2.8.3, 3.1.5.5; hostapd's server sends one, with
//!   PEAPv0 success; FreeRADIUS 3.2 does not): TK = the first 60 octets of the TLS keys
//!   ("client EAP encryption"), ISK = the inner MSK (32 octets, MS-CHAPv2's send | receive
//!   keys), IPMK | CMK = PRF+(TK[0..40], "Inner Methods Compound Keys" | ISK, 60) with
//!   PEAPv0's PRF+ (T_n = HMAC-SHA1(K, T_{n-1} | label | seed | n | 0x00 0x00)). The request's
//!   Compound MAC = HMAC-SHA1(CMK, TLV with the MAC zeroed | 25) must verify; the answer
//!   carries the same Nonce, SubType 1 and its own MAC.
//! - The MSK (as hostapd and wpa_supplicant, `eap_peap.c` getKey): with the crypto binding
//!   answered, the first 64 octets of CSK = PRF+(IPMK, "Session Key Generating Function" |
//!   0x00, 128); without it, TLS-PRF(master secret, "client EAP encryption", randoms).
//!
//! The peer runs version 0 only (wpa_supplicant's `phase1="peapver=0"`; whatever version the
//! server offers, the answer says 0) and TLS 1.2 unless TLS 1.3 is asked for, as
//! wpa_supplicant 2.10 does for PEAP. Over TLS 1.3 the TLS keys (TK, and the MSK without
//! crypto binding) are 64 octets of TLS-Exporter("EXPORTER_EAP_TLS_Key_Material", 0x19),
//! as hostapd's PEAP server derives them.
use super::mschapv2::{EapMschapv2, Password, State as MsState};
use super::packet::{emit, method, Code, Packet};
use super::tls::{Export, Tunnel, TunnelOutcome};
use crate::error::{Error, Result};
use hmac::{Hmac, Mac};
use zeroize::Zeroizing;

/// EAP Type of the Extensions method ([MS-PEAP] 2.2.8: "EAP-TLV").
pub const EXTENSIONS: u8 = 33;
/// TLV types ([MS-PEAP] 2.2.8).
pub const TLV_RESULT: u16 = 3;
pub const TLV_NAK: u16 = 4;
pub const TLV_CRYPTO_BINDING: u16 = 12;
/// Result TLV status values.
pub const RESULT_SUCCESS: u16 = 1;
pub const RESULT_FAILURE: u16 = 2;

/// What the peer does about the crypto binding (wpa_supplicant's `phase1="crypto_binding=N"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CryptoBinding {
    /// 0: ignored (never answered).
    Never,
    /// 1: validated and answered when the server sends one (the default).
    #[default]
    Optional,
    /// 2: a Result without one is a failure.
    Required,
}

/// PEAPv0's PRF+ (hostapd `peap_prfplus`, version 0).
pub fn prf_plus(key: &[u8], label: &[u8], seed: &[u8], len: usize) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(len + 20));
    let mut prev = Zeroizing::new(Vec::new());
    let mut n = 1u8;
    while out.len() < len {
        let mut m = <Hmac<sha1::Sha1> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
        m.update(&prev);
        m.update(label);
        m.update(seed);
        m.update(&[n, 0, 0]);
        prev = Zeroizing::new(m.finalize().into_bytes().to_vec());
        out.extend_from_slice(&prev);
        n = n.wrapping_add(1);
    }
    out.truncate(len);
    out
}

/// IPMK (40) and CMK (20) from TK and the inner session key ([MS-PEAP] 3.1.5.5).
pub fn ipmk_cmk(tk: &[u8], isk: &[u8; 32]) -> (Zeroizing<Vec<u8>>, Zeroizing<Vec<u8>>) {
    let imck = prf_plus(&tk[..40], b"Inner Methods Compound Keys", isk, 60);
    (Zeroizing::new(imck[..40].to_vec()), Zeroizing::new(imck[40..].to_vec()))
}

/// The Compound MAC of a Crypto-Binding TLV (60 octets, its MAC field zeroed first).
pub fn compound_mac(cmk: &[u8], tlv: &[u8; 60]) -> [u8; 20] {
    let mut b = *tlv;
    b[40..60].fill(0);
    let mut m = <Hmac<sha1::Sha1> as Mac>::new_from_slice(cmk).expect("HMAC takes any key length");
    m.update(&b);
    m.update(&[method::PEAP]);
    m.finalize().into_bytes().into()
}

/// The phase 2 of PEAPv0 with EAP-MSCHAPv2.
pub struct Peap {
    identity: Vec<u8>,
    mschap: EapMschapv2,
    binding: CryptoBinding,
    tk: Option<Zeroizing<Vec<u8>>>,
    outcome: TunnelOutcome,
    csk: Option<Zeroizing<Vec<u8>>>,
    error: Option<(u32, String)>,
}

impl Peap {
    /// `identity`: the inner identity; `peer_challenge`: 16 random octets for MS-CHAPv2.
    pub fn new(identity: &[u8], password: &Password, peer_challenge: [u8; 16], binding: CryptoBinding) -> Result<Peap> {
        Ok(Peap {
            identity: identity.to_vec(),
            mschap: EapMschapv2::new(identity, password, peer_challenge)?,
            binding,
            tk: None,
            outcome: TunnelOutcome::Running,
            csk: None,
            error: None,
        })
    }

    fn fail(&mut self, why: String) {
        if self.outcome == TunnelOutcome::Running {
            self.outcome = TunnelOutcome::Failure(why);
        }
    }

    /// An EAP-Request/Extensions: the Result (and Crypto-Binding) TLVs; the whole
    /// EAP-Response/Extensions out.
    fn extensions(&mut self, id: u8, mut b: &[u8]) -> Result<Vec<u8>> {
        let mut result = None;
        let mut binding: Option<[u8; 60]> = None;
        let mut tlvs = 0;
        while b.len() >= 4 {
            tlvs += 1;
            if tlvs > 32 {
                return Err(Error::Oversize);
            }
            let mandatory = b[0] & 0x80 != 0;
            let typ = u16::from_be_bytes([b[0], b[1]]) & 0x3fff;
            let len = u16::from_be_bytes([b[2], b[3]]) as usize;
            let v = b.get(4..4 + len).ok_or(Error::Malformed("PEAP TLV length"))?;
            match typ {
                TLV_RESULT => result = Some(v),
                TLV_CRYPTO_BINDING => {
                    binding = Some(
                        b.get(..60)
                            .and_then(|t| t.try_into().ok())
                            .filter(|_| len == 56)
                            .ok_or(Error::Malformed("Crypto-Binding TLV length"))?,
                    )
                }
                t if mandatory => {
                    // A mandatory TLV the peer does not know: a NAK TLV, the rest ignored.
                    let mut r = vec![0x80, TLV_NAK as u8, 0, 6, 0, 0, 0, 0];
                    r.extend_from_slice(&t.to_be_bytes());
                    return emit(Code::Response, id, EXTENSIONS, &r);
                }
                _ => {}
            }
            b = &b[4 + len..];
        }
        if !b.is_empty() {
            return Err(Error::Malformed("PEAP TLV truncated"));
        }
        let Some(result) = result else {
            return Err(Error::Malformed("PEAP Extensions without a Result TLV"));
        };
        let status = match result {
            [a, b, ..] => u16::from_be_bytes([*a, *b]),
            _ => return Err(Error::Malformed("Result TLV shorter than its status")),
        };
        let inner_ok = *self.mschap.state() == MsState::Success;
        let mut answer_binding = None;
        let mut refuse = None;
        match (binding, self.binding) {
            (Some(tlv), CryptoBinding::Optional | CryptoBinding::Required) if status == RESULT_SUCCESS => match self.check_binding(&tlv) {
                Ok(a) => answer_binding = Some(a),
                Err(why) => refuse = Some(why),
            },
            (None, CryptoBinding::Required) if status == RESULT_SUCCESS => refuse = Some("no Crypto-Binding TLV (crypto_binding=2)".into()),
            _ => {}
        }
        let ours = if status != RESULT_SUCCESS {
            let why = match self.mschap.failure() {
                Some(f) => format!("the server's Result TLV says failure after {f}"),
                None => format!("the server's Result TLV says failure ({status})"),
            };
            self.fail(why);
            RESULT_FAILURE
        } else if !inner_ok {
            self.fail("the server's Result TLV says success but EAP-MSCHAPv2 did not succeed".into());
            RESULT_FAILURE
        } else if let Some(why) = refuse {
            self.fail(why);
            RESULT_FAILURE
        } else {
            RESULT_SUCCESS
        };
        let mut r = vec![0x80, TLV_RESULT as u8, 0, 2];
        r.extend_from_slice(&ours.to_be_bytes());
        if ours == RESULT_SUCCESS {
            if let Some((tlv, csk)) = answer_binding {
                r.extend_from_slice(&tlv);
                self.csk = Some(csk);
            }
            self.outcome = TunnelOutcome::Success;
        }
        emit(Code::Response, id, EXTENSIONS, &r)
    }

    /// Validates the server's Crypto-Binding TLV; the answering TLV and the CSK (64).
    #[allow(clippy::type_complexity)]
    fn check_binding(&self, tlv: &[u8; 60]) -> std::result::Result<([u8; 60], Zeroizing<Vec<u8>>), String> {
        let tk = self.tk.as_ref().ok_or("no tunnel keys")?;
        // [4] Reserved, [5] Version, [6] RecvVersion, [7] SubType (0: request).
        if tlv[5] != 0 || tlv[7] != 0 {
            return Err(format!("Crypto-Binding TLV version {} subtype {} (want 0, 0)", tlv[5], tlv[7]));
        }
        let isk = Zeroizing::new(self.mschap.msk().map_or([0u8; 32], |k| *k));
        let (ipmk, cmk) = ipmk_cmk(tk, &isk);
        let mac = compound_mac(&cmk, tlv);
        if !bool::from(subtle::ConstantTimeEq::ct_eq(&mac[..], &tlv[40..60])) {
            return Err("the Crypto-Binding TLV's Compound MAC does not verify".into());
        }
        let mut a = [0u8; 60];
        a[..4].copy_from_slice(&[0, TLV_CRYPTO_BINDING as u8, 0, 56]);
        a[7] = 1;
        a[8..40].copy_from_slice(&tlv[8..40]);
        let m = compound_mac(&cmk, &a);
        a[40..].copy_from_slice(&m);
        let csk = prf_plus(&ipmk, b"Session Key Generating Function", &[0], 128);
        Ok((a, Zeroizing::new(csk[..64].to_vec())))
    }
}

/// The inner EAP packet of a PEAPv0 message: the header restored unless it is already whole
/// (an Extensions Request, or a 5-octet Request/Identity).
fn restore_header(d: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let whole =
        (d.len() == 5 && d[0] == 1 && d[2..4] == [0, 5] && d[4] == method::IDENTITY) || (d.len() >= 5 && d[0] == 1 && d[4] == EXTENSIONS);
    if whole {
        return Ok(Zeroizing::new(d.to_vec()));
    }
    let len = d.len() + 4;
    if len > usize::from(u16::MAX) {
        return Err(Error::Oversize);
    }
    let mut p = Zeroizing::new(Vec::with_capacity(len));
    p.extend_from_slice(&[Code::Request.number(), 0]);
    p.extend_from_slice(&(len as u16).to_be_bytes());
    p.extend_from_slice(d);
    Ok(p)
}

/// A Response sent compressed: without its header.
fn compressed(resp: Vec<u8>) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(resp[4..].to_vec())
}

impl Tunnel for Peap {
    fn established(&mut self, keys: &[u8], _export: &mut Export<'_>) -> Result<Zeroizing<Vec<u8>>> {
        self.tk = Some(Zeroizing::new(keys.get(..60).ok_or(Error::Truncated)?.to_vec()));
        Ok(Zeroizing::new(Vec::new()))
    }

    fn received(&mut self, data: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let full = restore_header(data)?;
        let p = Packet::new_checked(&full[..])?;
        match p.code() {
            Code::Request => {}
            Code::Failure => {
                self.fail("EAP-Failure inside the tunnel".into());
                return Ok(Zeroizing::new(Vec::new()));
            }
            _ => return Err(Error::Malformed("PEAP phase 2 code a peer does not take")),
        }
        let id = p.identifier();
        let typ = p.typ().ok_or(Error::Truncated)?;
        let td = p.type_data();
        match typ {
            method::IDENTITY => Ok(compressed(emit(Code::Response, id, method::IDENTITY, &self.identity)?)),
            method::MSCHAPV2 => {
                let r = self.mschap.process(td);
                if let Some(f) = self.mschap.failure() {
                    if self.error.is_none() {
                        self.error = Some((f.error, f.message.clone()));
                    }
                }
                match r {
                    Ok(r) => Ok(compressed(emit(Code::Response, id, method::MSCHAPV2, &r)?)),
                    Err(e) => {
                        if let MsState::Failed(w) = self.mschap.state() {
                            let w = w.clone();
                            self.fail(w);
                        }
                        Err(e)
                    }
                }
            }
            EXTENSIONS => Ok(Zeroizing::new(self.extensions(id, td)?)),
            method::NOTIFICATION | method::NAK | method::EXPANDED => Err(Error::Malformed("PEAP phase 2 type a server does not send")),
            // Another inner method: Nak, naming EAP-MSCHAPv2.
            _ => Ok(compressed(emit(Code::Response, id, method::NAK, &[method::MSCHAPV2])?)),
        }
    }

    fn outcome(&self) -> TunnelOutcome {
        self.outcome.clone()
    }

    fn key(&self) -> Option<Zeroizing<Vec<u8>>> {
        self.csk.clone()
    }

    fn take_error(&mut self) -> Option<(u32, String)> {
        self.error.take()
    }

    fn crypto_binding_used(&self) -> bool {
        self.csk.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        crate::input::hex_decode(s).unwrap()
    }

    fn peer() -> Peap {
        let pc: [u8; 16] = hex("21402324255E262A28295F2B3A337C7E").try_into().unwrap();
        let mut p = Peap::new(b"User", &Password::Clear(Zeroizing::new(b"clientPass".to_vec())), pc, CryptoBinding::Optional).unwrap();
        let keys: Vec<u8> = (0..128u8).collect();
        p.established(&keys, &mut |_, _| Err(Error::Truncated)).unwrap();
        p
    }

    fn ms_request(op: u8, body: &[u8]) -> Vec<u8> {
        let mut d = vec![method::MSCHAPV2, op, 9, 0, 0];
        d.extend_from_slice(body);
        let l = (d.len() - 1) as u16;
        d[3..5].copy_from_slice(&l.to_be_bytes());
        d
    }

    /// Identity and MS-CHAPv2 (RFC 2759 9.2's values) through the compressed tunnel.
    fn run_inner(p: &mut Peap) {
        // Compressed Request/Identity (one octet), and FreeRADIUS's whole one.
        assert_eq!(&p.received(&[1]).unwrap()[..], b"\x01User");
        assert_eq!(&p.received(&[1, 7, 0, 5, 1]).unwrap()[..], b"\x01User");
        let mut ch = vec![16];
        ch.extend_from_slice(&hex("5B5D7C7D7B3F2F3E3C2C602132262628"));
        ch.extend_from_slice(b"hostapd");
        let r = p.received(&ms_request(1, &ch)).unwrap();
        assert_eq!(r[0], method::MSCHAPV2, "compressed: Type first");
        assert_eq!(r[1], 2);
        let r = p.received(&ms_request(3, b"S=407A5589115FD0D6209F510FE9C04566932CDA56 M=ok")).unwrap();
        assert_eq!(&r[..], &[method::MSCHAPV2, 3]);
    }

    fn extensions(id: u8, status: u16, binding: Option<&[u8; 60]>) -> Vec<u8> {
        let mut t = vec![0x80, 3, 0, 2];
        t.extend_from_slice(&status.to_be_bytes());
        if let Some(b) = binding {
            t.extend_from_slice(b);
        }
        emit(Code::Request, id, EXTENSIONS, &t).unwrap()
    }

    fn server_binding(p: &Peap) -> ([u8; 60], Zeroizing<Vec<u8>>) {
        let isk = Zeroizing::new(*p.mschap.msk().unwrap());
        let (ipmk, cmk) = ipmk_cmk(p.tk.as_ref().unwrap(), &isk);
        let mut b = [0u8; 60];
        b[..4].copy_from_slice(&[0, 12, 0, 56]);
        b[8..40].copy_from_slice(&[0x5a; 32]);
        let m = compound_mac(&cmk, &b);
        b[40..].copy_from_slice(&m);
        (b, ipmk)
    }

    #[test]
    fn prf_plus_shape() {
        // T1 = HMAC-SHA1(K, label | seed | 1 | 0 0), T2 = HMAC-SHA1(K, T1 | label | seed | 2 | 0 0).
        let k = [7u8; 40];
        let o = prf_plus(&k, b"L", b"S", 30);
        let mut m = <Hmac<sha1::Sha1> as Mac>::new_from_slice(&k).unwrap();
        m.update(b"LS\x01\x00\x00");
        let t1 = m.finalize().into_bytes();
        let mut m = <Hmac<sha1::Sha1> as Mac>::new_from_slice(&k).unwrap();
        m.update(&t1);
        m.update(b"LS\x02\x00\x00");
        let t2 = m.finalize().into_bytes();
        assert_eq!(&o[..20], &t1[..]);
        assert_eq!(&o[20..], &t2[..10]);
        assert_eq!(&prf_plus(&k, b"L", b"S", 60)[..30], &o[..], "a prefix of the longer output");
    }

    #[test]
    fn result_without_binding_keeps_the_tls_key() {
        let mut p = peer();
        run_inner(&mut p);
        let r = p.received(&extensions(11, RESULT_SUCCESS, None)).unwrap();
        assert_eq!(&r[..], &emit(Code::Response, 11, EXTENSIONS, &[0x80, 3, 0, 2, 0, 1]).unwrap()[..], "whole, not compressed");
        assert_eq!(p.outcome(), TunnelOutcome::Success);
        assert!(p.key().is_none() && !p.crypto_binding_used());
    }

    #[test]
    fn crypto_binding_validated_and_answered() {
        let mut p = peer();
        run_inner(&mut p);
        let (b, ipmk) = server_binding(&p);
        let r = p.received(&extensions(12, RESULT_SUCCESS, Some(&b))).unwrap();
        assert_eq!(p.outcome(), TunnelOutcome::Success);
        assert!(p.crypto_binding_used());
        // Result success, then the binding: same nonce, SubType 1, a MAC under the same CMK.
        assert_eq!(&r[5..11], &[0x80, 3, 0, 2, 0, 1]);
        let a: [u8; 60] = r[11..71].try_into().unwrap();
        assert_eq!(&a[..8], &[0, 12, 0, 56, 0, 0, 0, 1]);
        assert_eq!(&a[8..40], &[0x5a; 32]);
        let isk = Zeroizing::new(*p.mschap.msk().unwrap());
        let (_, cmk) = ipmk_cmk(p.tk.as_ref().unwrap(), &isk);
        assert_eq!(compound_mac(&cmk, &a), a[40..60]);
        let csk = prf_plus(&ipmk, b"Session Key Generating Function", &[0], 128);
        assert_eq!(&p.key().unwrap()[..], &csk[..64]);
    }

    #[test]
    fn bad_binding_or_inner_failure_is_answered_with_failure() {
        let mut p = peer();
        run_inner(&mut p);
        let (mut b, _) = server_binding(&p);
        b[50] ^= 1;
        let r = p.received(&extensions(13, RESULT_SUCCESS, Some(&b))).unwrap();
        assert_eq!(&r[5..], &[0x80, 3, 0, 2, 0, 2], "failure, no binding");
        assert!(matches!(p.outcome(), TunnelOutcome::Failure(w) if w.contains("Compound MAC")));
        assert!(p.key().is_none());
        // MS-CHAPv2 Failure E=691, then the server's Result failure.
        let mut p = peer();
        p.received(&[1]).unwrap();
        let mut ch = vec![16];
        ch.extend_from_slice(&[1; 16]);
        p.received(&ms_request(1, &ch)).unwrap();
        let r = p.received(&ms_request(4, b"E=691 R=0 C=00 V=3 M=bad password")).unwrap();
        assert_eq!(&r[..], &[method::MSCHAPV2, 4]);
        assert_eq!(p.take_error(), Some((691, "bad password".into())));
        let r = p.received(&extensions(14, RESULT_FAILURE, None)).unwrap();
        assert_eq!(&r[5..], &[0x80, 3, 0, 2, 0, 2]);
        assert!(matches!(p.outcome(), TunnelOutcome::Failure(w) if w.contains("691")));
        // A Result success without MS-CHAPv2 success: the peer says failure.
        let mut p = peer();
        let r = p.received(&extensions(15, RESULT_SUCCESS, None)).unwrap();
        assert_eq!(&r[5..], &[0x80, 3, 0, 2, 0, 2]);
        // Crypto binding required and absent.
        let pc = [1u8; 16];
        let mut p = Peap::new(b"User", &Password::Clear(Zeroizing::new(b"clientPass".to_vec())), pc, CryptoBinding::Required).unwrap();
        p.established(&[0; 128], &mut |_, _| Err(Error::Truncated)).unwrap();
        p.mschap = peer().mschap;
        assert_eq!(&p.received(&extensions(16, RESULT_SUCCESS, None)).unwrap()[5..], &[0x80, 3, 0, 2, 0, 2]);
    }

    #[test]
    fn malformed_tlvs_and_unknown_ones() {
        let mut p = peer();
        // A mandatory TLV the peer does not know: a NAK TLV naming it.
        let r = p.received(&emit(Code::Request, 3, EXTENSIONS, &[0x80, 9, 0, 0]).unwrap()).unwrap();
        assert_eq!(&r[5..], &[0x80, 4, 0, 6, 0, 0, 0, 0, 0, 9]);
        for bad in [
            &[0x80, 3, 0, 9, 0, 1][..],
            &[0x80, 3, 0, 2, 0, 1, 0][..],
            &[0x80, 3, 0, 0][..],
            &[0, 12, 0, 4, 0, 0, 0, 0][..],
            &[0x00, 5, 0, 0][..],
        ] {
            assert!(p.received(&emit(Code::Request, 3, EXTENSIONS, bad).unwrap()).is_err(), "{bad:?}");
        }
        assert!(p.received(&[]).is_err());
        assert!(p.received(&[3, 7, 0, 4]).is_err() || p.outcome() != TunnelOutcome::Success);
        // Another inner method proposed: Nak naming MS-CHAPv2.
        assert_eq!(&p.received(&[method::MD5_CHALLENGE, 16]).unwrap()[..], &[method::NAK, method::MSCHAPV2]);
    }
}
