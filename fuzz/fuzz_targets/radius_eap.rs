//! RADIUS packets and EAP conversations on arbitrary bytes: no panic, and
//! - RADIUS (first octet even): a packet that parses rebuilds byte for byte from its
//!   attributes; verification, MS-MPPE decryption, User-Password unhiding and the client's
//!   response matching (a request pending) return errors, never panic;
//! - EAP (first octet odd): the rest, cut at each 0xff 0x00 pair into pieces. Bits 1-2 of
//!   the first octet: 0, the pieces are EAP packets to one EAP-TLS peer (no server
//!   validation: the fuzzer is the server), 1, to a PEAP peer; either answers or refuses
//!   each without panicking and never reports success without key material. 2: the pieces
//!   are what a server sends inside the tunnel, given at once to PEAPv0's phase 2 (header
//!   restoration, EAP-MSCHAPv2, the Result and Crypto-Binding TLVs), to TTLS's MS-CHAP-V2
//!   AVP reader and to a bare EAP-MSCHAPv2 peer: no panic, and no success whose key is not
//!   64 octets (PEAP's compound key) or without the server's verified proof.
//! - RadSec stream (first octet 2 mod 4): the rest, fed to the stream framer in chunks of
//!   the length its first octet says, comes out as packets each of its own Length (20 to
//!   4096) that together are a prefix of the stream, until a bogus Length breaks the stream
//!   for good.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::net::SocketAddr;
use wsec::eap::mschapv2::{self, EapMschapv2, Password};
use wsec::eap::peap::Peap;
use wsec::eap::tls::{TlsConfig, Tunnel, TunnelOutcome};
use wsec::eap::ttls::TtlsMschapv2;
use wsec::eap::{CryptoBinding, MethodConfig, Peer, PeerConfig, PeerState};
use wsec::radius::auth;
use wsec::radius::client::{Client, ClientConfig, Kind, Request, Server};
use wsec::radius::packet::{attr, Builder, Code, Packet};
use wsec::radius::tls::Framer;
use zeroize::Zeroizing;

fn radius(data: &[u8]) {
    if let Ok(p) = Packet::new_checked(data) {
        let mut b = Builder::new(p.code(), p.identifier(), p.authenticator());
        for a in p.attributes() {
            let a = a.expect("a checked packet's attributes parse");
            b.add(a.typ, a.value).expect("a parsed attribute fits again");
            if a.typ == attr::VENDOR_SPECIFIC {
                let _ = a.vendor();
            }
            if a.typ == attr::USER_PASSWORD {
                let _ = auth::unhide_password(a.value, &p.authenticator(), b"s");
            }
        }
        assert_eq!(b.finish(), p.as_bytes());
        let _ = p.eap_message();
        for t in [attr::MS_MPPE_RECV_KEY, attr::MS_MPPE_SEND_KEY] {
            if let Some(v) = p.find_vendor(attr::VENDOR_MICROSOFT, t) {
                let _ = auth::mppe_decrypt(v, &[0; 16], b"s");
            }
        }
    }
    let _ = auth::verify_response(data, &[0; 16], b"s");
    let _ = auth::verify_request(data, b"s");
    let addr = SocketAddr::from(([127, 0, 0, 1], 1812));
    let cfg = ClientConfig { auth_servers: vec![Server::udp(addr, b"s")], ..Default::default() };
    let mut c = Client::new(cfg).expect("a valid configuration");
    let mut rng = wsec::rng::seeded(1);
    let mut r = Request::new(Code::AccessRequest);
    r.push(attr::USER_NAME, b"u");
    c.send(0, Kind::Auth, 1, r, &mut *rng).expect("a request queues");
    let mut d = data.to_vec();
    if d.len() >= 2 {
        // Give the fuzzer the pending request's Identifier.
        d[1] = c.poll_transmit().expect("the request").data[1];
    }
    if let Ok(resp) = c.handle_datagram(1, Kind::Auth, addr, &d) {
        assert!(matches!(resp.code, Code::AccessAccept | Code::AccessReject | Code::AccessChallenge));
    }
}

/// The pieces of `data` between 0xff 0x00 pairs.
fn pieces(data: &[u8], mut f: impl FnMut(&[u8])) {
    let mut start = 0;
    let mut i = 0;
    while i <= data.len() {
        if i == data.len() || (data[i] == 0xff && data.get(i + 1) == Some(&0)) {
            f(&data[start..i]);
            start = i + 2;
            i += 2;
        } else {
            i += 1;
        }
    }
}

fn stream(data: &[u8]) {
    let Some((&chunk, rest)) = data.split_first() else { return };
    let chunk = chunk as usize + 1;
    let mut f = Framer::default();
    let mut out = Vec::new();
    let mut broken = false;
    for c in rest.chunks(chunk) {
        f.push(c);
        loop {
            match f.next_packet() {
                Ok(Some(p)) => {
                    assert!(!broken, "a packet after a framing error");
                    let l = u16::from_be_bytes([p[2], p[3]]) as usize;
                    assert!(l == p.len() && (20..=4096).contains(&l));
                    out.extend_from_slice(&p);
                }
                Ok(None) => break,
                Err(_) => {
                    broken = true;
                    break;
                }
            }
        }
    }
    assert!(rest.starts_with(&out));
    assert!(f.buffered() <= rest.len() - out.len());
}

fn eap(peap: bool, data: &[u8]) {
    let t = TlsConfig { insecure_no_server_validation: true, fragment_size: 300, ..Default::default() };
    let pw = Password::Clear(Zeroizing::new(b"pw".to_vec()));
    let method = if peap { MethodConfig::peap(t, pw) } else { MethodConfig::Tls(t) };
    let mut peer = Peer::with_rng(PeerConfig { identity: b"fuzz".to_vec(), anonymous_identity: None, method }, wsec::rng::seeded(3))
        .expect("a valid configuration");
    pieces(data, |p| {
        let _ = peer.handle(p);
        if peer.state() == PeerState::Success {
            assert_eq!(peer.msk().expect("success has an MSK").len(), 64);
        }
    });
}

/// What a server sends inside the tunnel, to the phase 2 readers.
fn inner(data: &[u8]) {
    let pw = Password::Clear(Zeroizing::new(b"clientPass".to_vec()));
    let keys: Vec<u8> = (0..128u8).collect();
    let mut peap = Peap::new(b"User", &pw, [0x21; 16], CryptoBinding::Optional).expect("a valid password");
    let _ = peap.established(&keys, &mut |_, n| Ok(Zeroizing::new(vec![7; n])));
    let mut ttls = TtlsMschapv2::new(b"User", &pw, [0x21; 16]).expect("a valid password");
    let _ = ttls.response(&[0x5b; 17]);
    let mut ms = EapMschapv2::new(b"User", &pw, [0x21; 16]).expect("a valid password");
    pieces(data, |p| {
        let _ = peap.received(p);
        let _ = ttls.received(p);
        let _ = ms.process(p);
        let _ = mschapv2::Failure::parse(p);
        if let Some(k) = peap.key() {
            assert_eq!(k.len(), 64, "PEAP's compound session key");
            assert_eq!(peap.outcome(), TunnelOutcome::Success);
        }
        if ms.msk().is_some() {
            assert_eq!(*ms.state(), mschapv2::State::Success);
        }
    });
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((m, rest)) if m & 3 == 2 => stream(rest),
        Some((m, rest)) if m & 1 == 0 => radius(rest),
        Some((m, rest)) => match (m >> 1) & 3 {
            0 => eap(false, rest),
            1 => eap(true, rest),
            _ => inner(rest),
        },
        None => {}
    }
});
