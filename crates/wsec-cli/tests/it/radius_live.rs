//! wsec's RADIUS client and EAP-TLS peer against a real FreeRADIUS (tests/it/freeradius.rs):
//! the EAP conversation an access point relays (RFC 3579, RFC 3580), the MSK the server
//! hands over in MS-MPPE-Recv/Send-Key (RFC 2548) equal to the one the peer derives from
//! TLS (RFC 5216 / RFC 9190), and the bad cases with the standard outcome.
use super::freeradius::{self, FreeRadius, Opts};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};
use wsec::eap::tls::{certs_from_pem, key_from_pem, TlsConfig, TlsVersions};
use wsec::eap::{method, MethodConfig, Password, Peer, PeerConfig, PeerEvent, PeerState, TtlsInner};
use wsec::radius::client::{Client, ClientConfig, Event, Kind, Request, Server};
use wsec::radius::packet::{attr, Code, Packet};
use zeroize::Zeroizing;

fn server(addr: SocketAddr, secret: &str) -> Server {
    Server::udp(addr, secret.as_bytes())
}

fn tls_peer(versions: TlsVersions, ca: &str, domain: Option<&str>) -> Peer {
    let pki = freeradius::pki();
    let t = TlsConfig {
        ca_certs: certs_from_pem(&pki.read(ca)).unwrap(),
        domain_suffix_match: domain.map(String::from),
        client_cert: Some((
            certs_from_pem(&pki.read("client.pem")).unwrap(),
            std::sync::Arc::new(key_from_pem(&pki.read("client.key")).unwrap()),
        )),
        versions,
        ..Default::default()
    };
    Peer::new(PeerConfig { identity: freeradius::USER.as_bytes().to_vec(), anonymous_identity: None, method: MethodConfig::Tls(t) })
        .unwrap()
}

/// What one authentication ended with.
struct Outcome {
    code: Option<Code>,
    /// The MSK from the Access-Accept's MS-MPPE keys.
    server_msk: Option<Zeroizing<Vec<u8>>>,
    round_trips: usize,
    events: Vec<Event>,
    discarded: Vec<String>,
    elapsed: Duration,
    accept: Option<Vec<u8>>,
}

/// The authenticator's relay (what `wsec ap` does between EAPOL and RADIUS): EAP-Request/
/// Identity to the peer, each EAP-Response to the server in an Access-Request with the
/// attributes of RFC 3580 and the State of the last Access-Challenge, each Access-Challenge's
/// EAP-Message to the peer, the Access-Accept's or -Reject's to the peer.
fn authenticate(peer: &mut Peer, cfg: ClientConfig, limit: Duration) -> Outcome {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let mut rng = wsec::rng::seeded(7);
    let mut client = Client::new(cfg).unwrap();
    let t0 = Instant::now();
    let now = || t0.elapsed().as_nanos() as u64;
    let mut out = Outcome {
        code: None,
        server_msk: None,
        round_trips: 0,
        events: Vec::new(),
        discarded: Vec::new(),
        elapsed: Duration::ZERO,
        accept: None,
    };
    let mut state: Option<Vec<u8>> = None;
    let mut user = Vec::new();
    let mut eap_resp = peer.handle(&wsec::eap::packet::emit(wsec::eap::Code::Request, 0, method::IDENTITY, &[]).unwrap()).unwrap();
    let mut buf = [0u8; 4096];
    while t0.elapsed() < limit {
        if let Some(resp) = eap_resp.take() {
            // User-Name: the identity of the EAP-Response/Identity (RFC 3579 2.1).
            if resp.get(4) == Some(&method::IDENTITY) {
                user = resp[5..].to_vec();
            }
            let mut r = Request::new(Code::AccessRequest);
            r.push(attr::USER_NAME, &user)
                .push(attr::NAS_IP_ADDRESS, &[127, 0, 0, 1])
                .push(attr::NAS_IDENTIFIER, b"wsec-ap")
                .push(attr::CALLED_STATION_ID, b"02-00-00-00-01-00:wsec-enterprise")
                .push(attr::CALLING_STATION_ID, b"02-00-00-00-00-11")
                .push_u32(attr::NAS_PORT_TYPE, attr::NAS_PORT_TYPE_WIRELESS_80211)
                .push_u32(attr::SERVICE_TYPE, attr::SERVICE_TYPE_FRAMED)
                .push_u32(attr::FRAMED_MTU, 1400)
                .push_split(attr::EAP_MESSAGE, &resp);
            if let Some(s) = &state {
                r.push(attr::STATE, s);
            }
            client.send(now(), Kind::Auth, 1, r, &mut rng).unwrap();
        }
        while let Some(t) = client.poll_transmit() {
            sock.send_to(&t.data, t.to).unwrap();
        }
        match sock.recv_from(&mut buf) {
            Ok((n, from)) => match client.handle_datagram(now(), Kind::Auth, from, &buf[..n]) {
                Ok(r) => {
                    out.round_trips += 1;
                    let pk = Packet::new_checked(&r.packet[..]).unwrap();
                    state = pk.find(attr::STATE).map(|a| a.value.to_vec());
                    let eap = pk.eap_message();
                    if let Some(e) = &eap {
                        eap_resp = peer.handle(e).unwrap_or(None);
                    }
                    if r.code != Code::AccessChallenge {
                        out.code = Some(r.code);
                        out.server_msk = r.msk;
                        out.accept = Some(r.packet.clone());
                        break;
                    }
                }
                Err(e) => out.discarded.push(e.to_string()),
            },
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(e) => panic!("recv: {e}"),
        }
        if client.poll_timeout().is_some_and(|t| t <= now()) {
            let ev = client.handle_timeout(now(), &mut rng);
            let gave_up = ev.iter().any(|e| matches!(e, Event::GaveUp { .. }));
            out.events.extend(ev);
            if gave_up {
                break;
            }
        }
    }
    out.elapsed = t0.elapsed();
    out
}

fn cfg(servers: Vec<Server>) -> ClientConfig {
    ClientConfig { auth_servers: servers, ..Default::default() }
}

fn eap_tls_accepts(tls_max: &'static str, versions: TlsVersions, want_version: &str) {
    let fr = FreeRadius::start(Opts { tls_max, ..Default::default() });
    let mut peer = tls_peer(versions, "ca.pem", Some("wsec.test"));
    let o = authenticate(&mut peer, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessAccept), "discarded {:?}; server log:\n{}", o.discarded, fr.log());
    assert!(o.discarded.is_empty(), "{:?}", o.discarded);
    assert_eq!(peer.state(), PeerState::Success);
    let (v, suite) = peer.tls_info().unwrap();
    assert_eq!(v, want_version);
    let msk = peer.msk().expect("the peer's MSK");
    let server_msk = o.server_msk.expect("MS-MPPE-Recv-Key and -Send-Key in the Access-Accept");
    assert_eq!(server_msk.len(), 64);
    assert_eq!(&server_msk[..], msk, "the server's MSK (RFC 2548) is the peer's (TLS exporter)");
    // The Access-Accept carried a Message-Authenticator (the client refuses one without).
    let acc = o.accept.unwrap();
    assert_eq!(Packet::new_checked(&acc[..]).unwrap().count(attr::MESSAGE_AUTHENTICATOR), 1);
    // The server's log shows the Nak from MD5 (its default) to TLS, and the peer's events.
    let log = fr.log();
    assert!(log.contains("Peer sent packet with method EAP NAK (3)"), "no Nak in the server log");
    let mut ev = Vec::new();
    while let Some(e) = peer.poll_event() {
        ev.push(e);
    }
    assert!(
        ev.contains(&PeerEvent::ProposedMethod(method::MD5_CHALLENGE))
            && ev.contains(&PeerEvent::Method(method::TLS))
            && ev.last() == Some(&PeerEvent::Success),
        "{ev:?}"
    );
    eprintln!("EAP-TLS {v} {suite}: Access-Accept after {} round trips in {:?}", o.round_trips, o.elapsed);
}

#[test]
fn eap_tls12_against_freeradius() {
    eap_tls_accepts("1.2", TlsVersions::Both, "TLSv1.2");
}

#[test]
fn eap_tls13_against_freeradius() {
    eap_tls_accepts("1.3", TlsVersions::Tls13, "TLSv1.3");
}

#[test]
fn untrusted_or_misnamed_server_is_refused() {
    // The server presents a certificate of a CA the station does not trust.
    let fr = FreeRadius::start(Opts { cert: "rogue-server", ..Default::default() });
    let mut peer = tls_peer(TlsVersions::Both, "ca.pem", None);
    let o = authenticate(&mut peer, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessReject), "{:?}", o.discarded);
    assert_eq!(peer.state(), PeerState::Failure);
    assert!(peer.msk().is_none());
    let why: Vec<_> =
        std::iter::from_fn(|| peer.poll_event()).filter_map(|e| if let PeerEvent::Failure(w) = e { Some(w) } else { None }).collect();
    assert!(
        why.iter().any(|w| w.contains("UnknownIssuer") || w.contains("unknown issuer") || w.contains("invalid peer certificate")),
        "{why:?}"
    );
    assert!(fr.log().contains("alert"), "the server saw the station's TLS alert");
    drop(fr);
    // The right CA, the wrong name.
    let fr = FreeRadius::start(Opts::default());
    let mut peer = tls_peer(TlsVersions::Both, "ca.pem", Some("other.example"));
    let o = authenticate(&mut peer, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessReject));
    assert!(peer.msk().is_none());
}

#[test]
fn wrong_secret_is_discarded_and_times_out() {
    let fr = FreeRadius::start(Opts::default());
    let mut peer = tls_peer(TlsVersions::Both, "ca.pem", None);
    let c = ClientConfig {
        first_wait_ns: 300_000_000,
        max_wait_ns: 600_000_000,
        num_failover: 2,
        max_failover: 1,
        ..cfg(vec![server(fr.auth, "not-the-secret")])
    };
    let o = authenticate(&mut peer, c, Duration::from_secs(20));
    assert_eq!(o.code, None);
    assert!(matches!(o.events.last(), Some(Event::GaveUp { .. })), "{:?}", o.events);
    // FreeRADIUS drops a request whose Message-Authenticator does not verify with its secret.
    let log = fr.log();
    assert!(log.contains("Message-Authenticator") || log.contains("shared secret"), "server log names the bad request:\n{log}");
}

#[test]
fn pap_accept_without_message_authenticator_is_refused() {
    // FreeRADIUS 3.2.1 answers a PAP Access-Request without a Message-Authenticator (it
    // adds one only with EAP): the BlastRADIUS-hardened client must discard that answer.
    let fr = FreeRadius::start(Opts::default());
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut rng = wsec::rng::seeded(9);
    for require in [true, false] {
        let mut c =
            Client::new(ClientConfig { require_message_authenticator: require, ..cfg(vec![server(fr.auth, freeradius::SECRET)]) }).unwrap();
        let mut r = Request::new(Code::AccessRequest);
        r.push(attr::USER_NAME, freeradius::USER.as_bytes());
        r.password = Some(Zeroizing::new(freeradius::PASSWORD.as_bytes().to_vec()));
        c.send(0, Kind::Auth, 5, r, &mut rng).unwrap();
        let t = c.poll_transmit().unwrap();
        sock.send_to(&t.data, t.to).unwrap();
        let mut buf = [0u8; 4096];
        let (n, from) = sock.recv_from(&mut buf).expect("FreeRADIUS answers PAP");
        let pk = Packet::new_checked(&buf[..n]).unwrap();
        assert_eq!(pk.code(), Code::AccessAccept, "the password is right:\n{}", fr.log());
        assert_eq!(pk.count(attr::MESSAGE_AUTHENTICATOR), 0, "FreeRADIUS 3.2.1 sends none with PAP");
        let r = c.handle_datagram(1, Kind::Auth, from, &buf[..n]);
        if require {
            let e = r.unwrap_err().to_string();
            assert!(e.contains("without Message-Authenticator"), "{e}");
        } else {
            assert_eq!(r.unwrap().code, Code::AccessAccept, "the same answer verifies by its Response Authenticator");
        }
    }
}

#[test]
fn failover_to_the_second_server() {
    let mut primary = FreeRadius::start(Opts::default());
    let secondary = FreeRadius::start(Opts { tls_max: "1.3", ..Default::default() });
    let dead = primary.auth;
    primary.stop();
    let mut peer = tls_peer(TlsVersions::Both, "ca.pem", None);
    // Retransmissions after 0.5 s and 1 s, then 2 s without an answer: the second server, 3.5 s
    // after the first request (hostapd: 3 s, 6 s, 12 s, 24 s: 45 s with its defaults).
    let c = ClientConfig {
        first_wait_ns: 500_000_000,
        max_wait_ns: 4_000_000_000,
        num_failover: 2,
        ..cfg(vec![server(dead, freeradius::SECRET), server(secondary.auth, freeradius::SECRET)])
    };
    let o = authenticate(&mut peer, c, Duration::from_secs(30));
    assert_eq!(o.code, Some(Code::AccessAccept), "{:?} {:?}", o.events, o.discarded);
    assert_eq!(o.events, vec![Event::Failover { kind: Kind::Auth, from: dead, to: secondary.auth }]);
    assert_eq!(peer.tls_info().unwrap().0, "TLSv1.3", "the secondary (TLS 1.3) did the work");
    assert!(o.elapsed >= Duration::from_millis(3500), "{:?}", o.elapsed);
    eprintln!("failover: Access-Accept from the second server {:?} after the first request", o.elapsed);
}

fn ttls_peer(password: &str) -> Peer {
    let pki = freeradius::pki();
    let tls = TlsConfig {
        ca_certs: certs_from_pem(&pki.read("ca.pem")).unwrap(),
        domain_match: Some(freeradius::SERVER_NAME.into()),
        versions: TlsVersions::Tls12,
        ..Default::default()
    };
    Peer::new(PeerConfig {
        identity: freeradius::USER.as_bytes().to_vec(),
        anonymous_identity: Some(b"anonymous@wsec.test".to_vec()),
        method: MethodConfig::ttls_pap(tls, Zeroizing::new(password.as_bytes().to_vec())),
    })
    .unwrap()
}

#[test]
fn eap_ttls_pap_against_freeradius_and_a_wrong_password() {
    // EAP-TTLS (RFC 5281) with PAP inside: the outer identity anonymous, the user's name
    // and password only in the tunnel; keys from "ttls keying material".
    let fr = FreeRadius::start(Opts::default());
    let mut peer = ttls_peer(freeradius::PASSWORD);
    let o = authenticate(&mut peer, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessAccept), "{:?}\n{}", o.discarded, fr.log());
    assert_eq!(peer.state(), PeerState::Success);
    assert_eq!(&o.server_msk.expect("MS-MPPE keys")[..], peer.msk().unwrap(), "the server's MSK is the peer's");
    let log = fr.log();
    assert!(log.contains("User-Name = \"anonymous@wsec.test\""), "outer identity");
    assert!(log.contains(&format!("User-Name = \"{}\"", freeradius::USER)), "the inner identity, in the tunnel");
    // The wrong password: Access-Reject, EAP-Failure, no key.
    let mut bad = ttls_peer("not the password");
    let o = authenticate(&mut bad, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessReject), "{:?}", o.discarded);
    assert_eq!(bad.state(), PeerState::Failure);
    assert!(bad.msk().is_none());
}

#[test]
fn the_lab_server_passes_eapol_test() {
    // The server side checked by hostapd's own RADIUS client and EAP peer (Debian's
    // eapoltest): EAP-TLS to Access-Accept, and the MS-MPPE keys it carries equal to the
    // MSK eapol_test derived ("MPPE keys OK"), so the server the other tests trust is right.
    let fr = FreeRadius::start(Opts::default());
    let pki = freeradius::pki();
    let conf = fr.dir.join("eapol_test.conf");
    std::fs::write(
        &conf,
        format!(
            "network={{\n  key_mgmt=WPA-EAP\n  eap=TLS\n  identity=\"{}\"\n  ca_cert=\"{}\"\n  client_cert=\"{}\"\n  private_key=\"{}\"\n}}\n",
            freeradius::USER,
            pki.path("ca.pem").display(),
            pki.path("client.pem").display(),
            pki.path("client.key").display()
        ),
    )
    .unwrap();
    let o = std::process::Command::new("eapol_test")
        .arg("-c")
        .arg(&conf)
        .args(["-a", "127.0.0.1", "-p", &fr.auth.port().to_string(), "-s", freeradius::SECRET, "-t", "20"])
        .output()
        .expect("eapol_test runs (scripts/setup installs Debian's eapoltest)");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "eapol_test failed:\n{}", out.lines().rev().take(30).collect::<Vec<_>>().join("\n"));
    assert!(out.contains("MPPE keys OK: 1  mismatch: 0"), "{}", out.lines().rev().take(20).collect::<Vec<_>>().join("\n"));
    assert!(out.trim_end().ends_with("SUCCESS"));
}

fn mschapv2_tls(domain: &str) -> TlsConfig {
    let pki = freeradius::pki();
    TlsConfig { ca_certs: certs_from_pem(&pki.read("ca.pem")).unwrap(), domain_match: Some(domain.into()), ..Default::default() }
}

/// PEAPv0/EAP-MSCHAPv2 (wpa_supplicant's defaults: optional crypto binding, TLS 1.2) with
/// an anonymous outer identity and a seeded peer challenge.
fn peap_peer(password: &str) -> Peer {
    Peer::with_rng(
        PeerConfig {
            identity: freeradius::USER.as_bytes().to_vec(),
            anonymous_identity: Some(b"anonymous@wsec.test".to_vec()),
            method: MethodConfig::peap(
                mschapv2_tls(freeradius::SERVER_NAME),
                Password::Clear(Zeroizing::new(password.as_bytes().to_vec())),
            ),
        },
        wsec::rng::seeded(25),
    )
    .unwrap()
}

fn ttls_mschapv2_peer(password: Password) -> Peer {
    let mut tls = mschapv2_tls(freeradius::SERVER_NAME);
    tls.versions = TlsVersions::Tls12;
    Peer::with_rng(
        PeerConfig {
            identity: freeradius::USER.as_bytes().to_vec(),
            anonymous_identity: Some(b"anonymous@wsec.test".to_vec()),
            method: MethodConfig::Ttls { tls, inner: TtlsInner::Mschapv2, password },
        },
        wsec::rng::seeded(21),
    )
    .unwrap()
}

fn events(p: &mut Peer) -> Vec<PeerEvent> {
    std::iter::from_fn(|| p.poll_event()).collect()
}

/// The MSK the peer derived equals the server's MS-MPPE keys; the conversation succeeded.
fn assert_same_msk(what: &str, o: &Outcome, peer: &Peer, log: &dyn Fn() -> String) {
    assert_eq!(o.code, Some(Code::AccessAccept), "{what}: {:?}\n{}", o.discarded, log());
    assert_eq!(peer.state(), PeerState::Success, "{what}");
    let server = o.server_msk.as_ref().expect("MS-MPPE-Recv-Key and -Send-Key in the Access-Accept");
    assert_eq!(server.len(), 64);
    assert_eq!(&server[..], peer.msk().unwrap(), "{what}: the server's MSK is the peer's");
    eprintln!("{what}: MSK equal to the server's MS-MPPE keys ({}...), {} round trips", hex4(&server[..4]), o.round_trips);
}

fn hex4(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A wrong password: Access-Reject, EAP-Failure, no key, and MS-CHAPv2's error 691 seen.
fn assert_691(what: &str, o: &Outcome, peer: &mut Peer) {
    assert_eq!(o.code, Some(Code::AccessReject), "{what}: {:?}", o.discarded);
    assert_eq!(peer.state(), PeerState::Failure, "{what}");
    assert!(peer.msk().is_none());
    let ev = events(peer);
    assert!(ev.iter().any(|e| matches!(e, PeerEvent::ErrorCode(691, _))), "{what}: {ev:?}");
    assert!(ev.iter().any(|e| matches!(e, PeerEvent::Failure(w) if w.contains("691"))), "{what}: {ev:?}");
}

#[test]
fn peap_mschapv2_against_freeradius_and_a_wrong_password() {
    // FreeRADIUS 3.2's PEAP: version 0, TLS 1.2 (its eap.conf supports TLS 1.3 for EAP-TLS
    // only), EAP-MSCHAPv2 in the inner-tunnel server, the Result TLV and no crypto binding:
    // the MSK is TLS-PRF "client EAP encryption".
    let fr = FreeRadius::start(Opts::default());
    let mut peer = peap_peer(freeradius::PASSWORD);
    let o = authenticate(&mut peer, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("PEAPv0/EAP-MSCHAPv2 (FreeRADIUS)", &o, &peer, &|| fr.log());
    assert_eq!(peer.tls_info().unwrap().0, "TLSv1.2");
    assert!(!peer.crypto_binding_used(), "FreeRADIUS 3.2 sends no Crypto-Binding TLV");
    let ev = events(&mut peer);
    assert!(ev.contains(&PeerEvent::Method(method::PEAP)) && ev.last() == Some(&PeerEvent::Success), "{ev:?}");
    let log = fr.log();
    assert!(log.contains("User-Name = \"anonymous@wsec.test\""), "outer identity");
    assert!(log.contains("eap_mschapv2") && log.contains(&format!("User-Name = \"{}\"", freeradius::USER)), "inner EAP-MSCHAPv2");
    // A wrong password with FreeRADIUS's default (mschapv2 send_error = no): no
    // Failure-Request, the Result TLV says failure, EAP-Failure.
    let mut bad = peap_peer("not the password");
    let o = authenticate(&mut bad, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessReject), "{:?}", o.discarded);
    assert!(bad.msk().is_none());
    let ev = events(&mut bad);
    assert!(ev.iter().any(|e| matches!(e, PeerEvent::Failure(w) if w.contains("Result TLV says failure"))), "{ev:?}");
    drop(fr);
    // With send_error = yes: EAP-MSCHAPv2 Failure-Request E=691, then the same end.
    let fr = FreeRadius::start(Opts { mschapv2_send_error: true, ..Default::default() });
    let mut bad = peap_peer("not the password");
    let o = authenticate(&mut bad, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_691("PEAP wrong password (FreeRADIUS, send_error = yes)", &o, &mut bad);
}

#[test]
fn ttls_mschapv2_against_freeradius_and_a_wrong_password() {
    // RFC 5281 11.2.4: the implicit challenge from "ttls challenge", MS-CHAP2-Success
    // verified; the password also as wpa_supplicant's hash:<NtPasswordHash>.
    let fr = FreeRadius::start(Opts::default());
    let mut peer = ttls_mschapv2_peer(Password::Clear(Zeroizing::new(freeradius::PASSWORD.as_bytes().to_vec())));
    let o = authenticate(&mut peer, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("TTLS/MSCHAPv2 (FreeRADIUS)", &o, &peer, &|| fr.log());
    assert!(fr.log().contains("MS-CHAP2-Success"), "the server's proof went through the tunnel");
    let h = wsec::eap::mschapv2::nt_password_hash(freeradius::PASSWORD.as_bytes()).unwrap();
    let mut hashed = ttls_mschapv2_peer(Password::NtHash(h));
    let o = authenticate(&mut hashed, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("TTLS/MSCHAPv2 with password=hash: (FreeRADIUS)", &o, &hashed, &|| fr.log());
    let mut bad = ttls_mschapv2_peer(Password::Clear(Zeroizing::new(b"not the password".to_vec())));
    let o = authenticate(&mut bad, cfg(vec![server(fr.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_eq!(o.code, Some(Code::AccessReject), "{:?}", o.discarded);
    assert_eq!(bad.state(), PeerState::Failure);
    assert!(bad.msk().is_none());
    eprintln!("TTLS/MSCHAPv2 wrong password: {:?}", events(&mut bad));
}

/// hostapd's integrated EAP server as a RADIUS server (`driver=none`,
/// `radius_server_clients`), with the test PKI and an eap_user file; killed when dropped.
struct HostapdRadius {
    dir: std::path::PathBuf,
    auth: SocketAddr,
    child: std::process::Child,
}

impl HostapdRadius {
    fn start(eap_user: &str) -> HostapdRadius {
        Self::start_with(eap_user, "")
    }

    /// With `extra` lines in hostapd.conf.
    fn start_with(eap_user: &str, extra: &str) -> HostapdRadius {
        let pki = freeradius::pki();
        let port = UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = std::env::temp_dir().join(format!("wsec-hostapd-radius-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("eap_user"), eap_user).unwrap();
        std::fs::write(dir.join("radius_clients"), format!("127.0.0.1/32 {}\n", freeradius::SECRET)).unwrap();
        let p = |f: &str| pki.path(f).display().to_string();
        let conf = format!(
            "driver=none\ninterface=as0\nradius_server_clients={}\nradius_server_auth_port={port}\neap_server=1\neap_user_file={}\n\
             ca_cert={}\nserver_cert={}\nprivate_key={}\n{extra}",
            dir.join("radius_clients").display(),
            dir.join("eap_user").display(),
            p("ca.pem"),
            p("server.pem"),
            p("server.key")
        );
        std::fs::write(dir.join("hostapd.conf"), conf).unwrap();
        let log = std::fs::File::create(dir.join("out.log")).unwrap();
        let child = std::process::Command::new("/usr/sbin/hostapd")
            .arg("-dd")
            .arg(dir.join("hostapd.conf"))
            .stdout(std::process::Stdio::from(log.try_clone().unwrap()))
            .stderr(std::process::Stdio::from(log))
            .spawn()
            .expect("hostapd runs (scripts/setup installs it)");
        let mut h = HostapdRadius { dir, auth: SocketAddr::from(([127, 0, 0, 1], port)), child };
        let t0 = Instant::now();
        while !h.log().contains("RADIUS: Server") && !h.log().contains("ENABLED") {
            if let Some(st) = h.child.try_wait().unwrap() {
                panic!("hostapd exited ({st}):\n{}", h.log());
            }
            assert!(t0.elapsed() < Duration::from_secs(10), "hostapd not ready:\n{}", h.log());
            std::thread::sleep(Duration::from_millis(50));
        }
        h
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("out.log")).unwrap_or_default()
    }
}

impl Drop for HostapdRadius {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[test]
fn peap_with_crypto_binding_and_ttls_mschapv2_against_hostapd() {
    // hostapd's EAP server sends the Crypto-Binding TLV with PEAPv0's Result (optional
    // binding by default): the peer validates its Compound MAC and answers, and the MSK is
    // the compound session key, which must equal the MS-MPPE keys hostapd hands over.
    let users =
        format!("\"anonymous@wsec.test\" PEAP,TTLS\n\"{}\" MSCHAPV2,TTLS-MSCHAPV2 \"{}\" [2]\n", freeradius::USER, freeradius::PASSWORD);
    let h = HostapdRadius::start(&users);
    let mut peer = peap_peer(freeradius::PASSWORD);
    let o = authenticate(&mut peer, cfg(vec![server(h.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("PEAPv0/EAP-MSCHAPv2 with crypto binding (hostapd)", &o, &peer, &|| h.log());
    assert!(peer.crypto_binding_used(), "the peer validated and answered the Crypto-Binding TLV");
    let log = h.log();
    assert!(log.contains("EAP-PEAP: Valid cryptobinding TLV received"), "hostapd checked the peer's Compound MAC");
    assert_eq!(peer.tls_info().unwrap().0, "TLSv1.2");
    // TTLS/MS-CHAP-V2 with the same server (it proposes PEAP first: Nak to TTLS).
    let mut t = ttls_mschapv2_peer(Password::Clear(Zeroizing::new(freeradius::PASSWORD.as_bytes().to_vec())));
    let o = authenticate(&mut t, cfg(vec![server(h.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("TTLS/MSCHAPv2 (hostapd)", &o, &t, &|| h.log());
    // A wrong password: hostapd's MSCHAPv2 server says E=691, then the Result TLV failure.
    let mut bad = peap_peer("not the password");
    let o = authenticate(&mut bad, cfg(vec![server(h.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_691("PEAP wrong password (hostapd)", &o, &mut bad);
}

#[test]
fn peap_over_tls13_only_when_asked_against_hostapd() {
    // wpa_supplicant 2.10 keeps PEAP on TLS 1.2 unless phase1="tls_disable_tlsv1_3=0": so
    // does the peer, even with a server that offers 1.3 (hostapd's tls_flags=[ENABLE-TLSv1.3]).
    // Asked for, TLS 1.3: TK and MSK from the exporter with the Type (0x19) as context.
    let users = format!("\"anonymous@wsec.test\" PEAP\n\"{}\" MSCHAPV2 \"{}\" [2]\n", freeradius::USER, freeradius::PASSWORD);
    let h = HostapdRadius::start_with(&users, "tls_flags=[ENABLE-TLSv1.3]\n");
    let mut peer = peap_peer(freeradius::PASSWORD);
    let o = authenticate(&mut peer, cfg(vec![server(h.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("PEAP, TLS 1.3 not asked for (hostapd offering it)", &o, &peer, &|| h.log());
    assert_eq!(peer.tls_info().unwrap().0, "TLSv1.2");
    let mut asked = Peer::with_rng(
        PeerConfig {
            identity: freeradius::USER.as_bytes().to_vec(),
            anonymous_identity: Some(b"anonymous@wsec.test".to_vec()),
            method: MethodConfig::Peap {
                tls: mschapv2_tls(freeradius::SERVER_NAME),
                password: Password::Clear(Zeroizing::new(freeradius::PASSWORD.as_bytes().to_vec())),
                crypto_binding: wsec::eap::CryptoBinding::Optional,
                allow_tls13: true,
            },
        },
        wsec::rng::seeded(13),
    )
    .unwrap();
    let o = authenticate(&mut asked, cfg(vec![server(h.auth, freeradius::SECRET)]), Duration::from_secs(20));
    assert_same_msk("PEAP over TLS 1.3, asked for (hostapd)", &o, &asked, &|| h.log());
    assert_eq!(asked.tls_info().unwrap().0, "TLSv1.3");
    assert!(asked.crypto_binding_used());
}

/// An OCSP response (RFC 6960) for the server's certificate from the test CA, saying
/// `good` or revoked, made by `openssl ocsp` from an index as a CA's responder keeps it.
fn ocsp_response(dir: &std::path::Path, good: bool) -> std::path::PathBuf {
    let pki = freeradius::pki();
    let run = |args: &[&str]| {
        let o = std::process::Command::new("openssl").args(args).current_dir(dir).output().expect("openssl runs");
        assert!(o.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let server = pki.path("server.pem").display().to_string();
    let serial = run(&["x509", "-in", &server, "-noout", "-serial"]).trim().trim_start_matches("serial=").to_string();
    let subject = format!("/CN={}", freeradius::SERVER_NAME);
    let line = if good {
        format!("V\t351231235959Z\t\t{serial}\tunknown\t{subject}\n")
    } else {
        format!("R\t351231235959Z\t250101000000Z\t{serial}\tunknown\t{subject}\n")
    };
    std::fs::write(dir.join("index.txt"), line).unwrap();
    let (ca, key) = (pki.path("ca.pem").display().to_string(), pki.path("ca.key").display().to_string());
    run(&["ocsp", "-issuer", &ca, "-cert", &server, "-no_nonce", "-reqout", "req.der"]);
    let out = if good { "good.der" } else { "revoked.der" };
    run(&["ocsp", "-index", "index.txt", "-rsigner", &ca, "-rkey", &key, "-CA", &ca, "-reqin", "req.der", "-respout", out, "-ndays", "1"]);
    dir.join(out)
}

fn ocsp_peer(policy: wsec::eap::ocsp::OcspPolicy) -> Peer {
    let pki = freeradius::pki();
    let t = TlsConfig {
        ca_certs: certs_from_pem(&pki.read("ca.pem")).unwrap(),
        domain_suffix_match: Some("wsec.test".into()),
        client_cert: Some((
            certs_from_pem(&pki.read("client.pem")).unwrap(),
            std::sync::Arc::new(key_from_pem(&pki.read("client.key")).unwrap()),
        )),
        versions: TlsVersions::Tls12,
        ocsp: policy,
        ..Default::default()
    };
    Peer::new(PeerConfig { identity: freeradius::USER.as_bytes().to_vec(), anonymous_identity: None, method: MethodConfig::Tls(t) })
        .unwrap()
}

fn failures(peer: &mut Peer) -> Vec<String> {
    std::iter::from_fn(|| peer.poll_event()).filter_map(|e| if let PeerEvent::Failure(w) = e { Some(w) } else { None }).collect()
}

#[test]
fn ocsp_stapled_by_hostapd_revoked_server_refused() {
    // wpa_supplicant's ocsp=: hostapd's EAP server staples an OCSP response its CA signed
    // (ocsp_stapling_response, as hostapd's own hwsim tests do); a revoked server
    // certificate is refused (also with ocsp=1), a good one passes ocsp=2, and ocsp=2
    // refuses a server that staples nothing, which ocsp=1 accepts.
    use wsec::eap::ocsp::OcspPolicy::{Off, Require, Try};
    let dir = std::env::temp_dir().join(format!("wsec-ocsp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = ocsp_response(&dir, true);
    let revoked = ocsp_response(&dir, false);
    let run = |staple: Option<&std::path::Path>, policy| {
        let extra = staple.map(|s| format!("ocsp_stapling_response={}\n", s.display())).unwrap_or_default();
        let hs = HostapdRadius::start_with(&format!("\"{}\" TLS\n", freeradius::USER), &extra);
        let mut peer = ocsp_peer(policy);
        let o = authenticate(&mut peer, cfg(vec![server(hs.auth, freeradius::SECRET)]), Duration::from_secs(20));
        let why = failures(&mut peer);
        (o.code, peer.msk().is_some(), why, hs.log())
    };
    let (code, msk, why, log) = run(Some(&good), Require);
    assert_eq!(code, Some(Code::AccessAccept), "{why:?}\n{log}");
    assert!(msk);
    for policy in [Try, Require] {
        let (code, msk, why, _) = run(Some(&revoked), policy);
        assert_ne!(code, Some(Code::AccessAccept));
        assert!(!msk);
        assert!(why.iter().any(|w| w.contains("Revoked")), "{policy:?}: {why:?}");
    }
    // The good response with one second of its producedAt changed: the CA's signature no
    // longer covers it.
    let mut forged = std::fs::read(&good).unwrap();
    let at = forged.windows(15).position(|w| w[..14].iter().all(u8::is_ascii_digit) && w[14] == b'Z').expect("a GeneralizedTime");
    forged[at + 13] = if forged[at + 13] == b'0' { b'1' } else { b'0' };
    let forged_path = dir.join("forged.der");
    std::fs::write(&forged_path, forged).unwrap();
    let (code, msk, why, _) = run(Some(&forged_path), Require);
    assert_ne!(code, Some(Code::AccessAccept));
    assert!(!msk && why.iter().any(|w| w.contains("signature does not verify")), "{why:?}");
    let (code, _, why, _) = run(Some(&revoked), Off);
    assert_eq!(code, Some(Code::AccessAccept), "ocsp=0 ignores the status: {why:?}");
    let (code, msk, why, _) = run(None, Require);
    assert_ne!(code, Some(Code::AccessAccept));
    assert!(!msk && why.iter().any(|w| w.contains("no OCSP response")), "{why:?}");
    let (code, _, why, _) = run(None, Try);
    assert_eq!(code, Some(Code::AccessAccept), "ocsp=1 takes a server without a response: {why:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
