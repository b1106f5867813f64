//! The access point and station cores with IEEE 802.1X against a real FreeRADIUS: `wsec`'s
//! AP relays EAP between `wsec`'s station (EAP-TLS) and the server over RADIUS, takes the
//! PMK from the Access-Accept, and both run the 4-way handshake under it; then protected
//! data flows both ways. The medium between the cores is in memory; the RADIUS datagrams go
//! over loopback UDP to the server. Also the failures: a rejected station (untrusted client
//! certificate) gets EAP-Failure and Deauthentication reason 23.
use super::freeradius::{self, FreeRadius, Opts};
use std::net::UdpSocket;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wsec::cipher::CipherSuite;
use wsec::eap::tls::{certs_from_pem, key_from_pem, TlsConfig};
use wsec::eap::{MethodConfig, PeerConfig};
use wsec::node::ap::{AccessPoint, ApConfig, Dot1xSettings};
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{frames, NodeEvent, Output, Phase, Security};
use wsec::radius::client::{ClientConfig, Server};
use wsec::rsn::akm::Akm;
use wsec::wire::mac::MacAddr;
use wsec::wire::EtherType;
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0x00]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const WIRED: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x99]);

fn rsn(akm: Akm) -> Security {
    // WPA3-Enterprise 192-bit: GCMP-256 both ways (WPA3 Specification 3.5).
    let c = if akm == Akm::SuiteB192 { CipherSuite::Gcmp256 } else { CipherSuite::Ccmp128 };
    Security::Rsn { akms: vec![akm], pairwise: vec![c], groups: vec![c], pmk: Zeroizing::new(Vec::new()) }
}

fn ap(fr: &FreeRadius, akm: Akm) -> AccessPoint {
    let mut c = ApConfig::new(BSSID, b"wsec-enterprise", rsn(akm));
    if akm == Akm::SuiteB192 {
        c.mfp = wsec::node::mfp::Mfp::Required;
        c.group_mgmt_cipher = CipherSuite::BipGmac256;
    }
    c.dot1x = Some(Dot1xSettings {
        radius: ClientConfig {
            auth_servers: vec![Server { addr: fr.auth, secret: Zeroizing::new(freeradius::SECRET.as_bytes().to_vec()) }],
            ..Default::default()
        },
        nas_identifier: Some("wsec-ap".into()),
        own_ip_addr: Some(std::net::Ipv4Addr::LOCALHOST),
        ..Default::default()
    });
    AccessPoint::new(c, 0, wsec::rng::seeded(1)).unwrap()
}

fn sta(client: &str, akm: Akm) -> Station {
    let pki = freeradius::pki();
    let ca = if akm == Akm::SuiteB192 { "ca384.pem" } else { "ca.pem" };
    let t = TlsConfig {
        ca_certs: certs_from_pem(&pki.read(ca)).unwrap(),
        domain_match: Some(freeradius::SERVER_NAME.into()),
        client_cert: Some((
            certs_from_pem(&pki.read(&format!("{client}.pem"))).unwrap(),
            Arc::new(key_from_pem(&pki.read(&format!("{client}.key"))).unwrap()),
        )),
        ..Default::default()
    };
    let mut c = StaConfig::new(STA, b"wsec-enterprise", rsn(akm));
    if akm == Akm::SuiteB192 {
        c.mfp = wsec::node::mfp::Mfp::Required;
    }
    c.eap = Some(PeerConfig { identity: freeradius::USER.as_bytes().to_vec(), anonymous_identity: None, method: MethodConfig::Tls(t) });
    Station::new(c, 0, wsec::rng::seeded(2)).unwrap()
}

/// Runs the two cores and the server until `done` says so or `limit` passes; every
/// event of either side, with who said it.
fn run(ap: &mut AccessPoint, st: &mut Station, limit: Duration, mut done: impl FnMut(&[(char, Phase)]) -> bool) -> Vec<(char, Phase)> {
    run_from(0, ap, st, limit, &mut done)
}

/// Says from the events so far whether the run is over.
type Done<'a> = dyn FnMut(&[(char, Phase)]) -> bool + 'a;

/// [`run`] with the cores' clock starting at `base` (ns): it never goes back.
fn run_from(base: u64, ap: &mut AccessPoint, st: &mut Station, limit: Duration, done: &mut Done<'_>) -> Vec<(char, Phase)> {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_nonblocking(true).unwrap();
    let t0 = Instant::now();
    let now = || base + t0.elapsed().as_nanos() as u64;
    let (mut ao, mut so) = (Output::default(), Output::default());
    let mut events = Vec::new();
    let mut buf = [0u8; 4096];
    while t0.elapsed() < limit {
        let t = now();
        if ap.poll_timeout() <= t {
            ap.handle_timeout(t, &mut ao);
        }
        if st.poll_timeout() <= t {
            st.handle_timeout(t, &mut so);
        }
        while let Ok((n, from)) = sock.recv_from(&mut buf) {
            ap.handle_radius(now(), from, &buf[..n], &mut ao).unwrap();
        }
        let mut moved = true;
        while moved {
            moved = false;
            for f in std::mem::take(&mut ao.air) {
                st.handle_air(now(), &f, &mut so);
                moved = true;
            }
            for f in std::mem::take(&mut so.air) {
                ap.handle_air(now(), &f, &mut ao);
                moved = true;
            }
            for r in std::mem::take(&mut ao.radius) {
                sock.send_to(&r.data, r.to).unwrap();
            }
        }
        events.extend(ao.events.drain(..).map(|NodeEvent::Phase { phase, .. }| ('a', phase)));
        events.extend(so.events.drain(..).map(|NodeEvent::Phase { phase, .. }| ('s', phase)));
        if done(&events) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    events
}

fn established(e: &[(char, Phase)]) -> bool {
    e.iter().filter(|(_, p)| matches!(p, Phase::Established { .. })).count() >= 2
}

#[test]
fn wsec_sta_wsec_ap_freeradius_eap_tls() {
    let fr = FreeRadius::start(Opts::default());
    let mut a = ap(&fr, Akm::Ieee8021x);
    let mut s = sta("client", Akm::Ieee8021x);
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    for side in ['a', 's'] {
        assert!(ev.iter().any(|(w, p)| *w == side && matches!(p, Phase::EapSuccess { method: "TLS", .. })), "{side}: {ev:?}");
        assert!(ev.iter().any(|(w, p)| *w == side && *p == Phase::EapStarted), "{side}: {ev:?}");
    }
    // Protected data both ways under the PTK the MSK's PMK gave.
    let (mut ao, mut so) = (Output::default(), Output::default());
    let t = Instant::now().elapsed().as_nanos() as u64 + 30_000_000_000;
    a.handle_host(t, &frames::ethernet(&STA, &WIRED, EtherType::IPV4, b"from the wired side"), &mut ao);
    assert!(!ao.air.is_empty());
    for f in ao.air.drain(..) {
        assert!(f[1] & 0x40 != 0 || f[0] & 0x0c != 0x08, "data leaves protected");
        s.handle_air(t, &f, &mut so);
    }
    assert!(so.host.iter().any(|h| h.ends_with(b"from the wired side")), "the station got the wired host's frame");
    s.handle_host(t, &frames::ethernet(&WIRED, &STA, EtherType::IPV4, b"from the station"), &mut so);
    for f in so.air.drain(..) {
        a.handle_air(t, &f, &mut ao);
    }
    assert!(ao.host.iter().any(|h| h.ends_with(b"from the station")), "the wired side got the station's frame");
    // The station leaves and comes back: its PMKID in the Association Request, the AP's
    // cached PMKSA (12.6.10.3), no EAP and no RADIUS, the 4-way handshake under the same PMK.
    let t = t + 1_000_000_000;
    s.shutdown(t, &mut so);
    for f in so.air.drain(..) {
        a.handle_air(t, &f, &mut ao);
    }
    ao.air.clear();
    let ev2 = run_from(t, &mut a, &mut s, Duration::from_secs(20), &mut established);
    assert!(established(&ev2), "{ev2:?}");
    assert!(ev2.iter().any(|(w, p)| *w == 'a' && *p == Phase::PmksaCached), "{ev2:?}");
    assert!(!ev2.iter().any(|(_, p)| *p == Phase::EapStarted), "no EAP on the cached PMKSA: {ev2:?}");
    let log = fr.log();
    assert_eq!(log.matches("Sent Access-Accept").count(), 1, "one EAP run only");
    assert!(log.contains("Called-Station-Id = \"02-00-00-00-01-00:wsec-enterprise\""), "RFC 3580 attributes");
    assert!(log.contains("NAS-Port-Type = Wireless-802.11"));
}

#[test]
fn rejected_station_gets_failure_and_reason_23() {
    let fr = FreeRadius::start(Opts::default());
    let mut a = ap(&fr, Akm::Ieee8021xSha256);
    // A client certificate of a CA FreeRADIUS does not trust.
    let mut s = sta("rogue-server", Akm::Ieee8021xSha256);
    let ev =
        run(&mut a, &mut s, Duration::from_secs(20), |e| e.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::Deauthenticated { .. })));
    assert!(ev.iter().any(|(w, p)| *w == 'a' && *p == Phase::EapFailure("Access-Reject".into())), "{ev:?}");
    assert!(ev.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::Deauthenticated { reason, .. } if reason.0 == 23)), "{ev:?}");
    assert!(ev.iter().any(|(w, p)| *w == 's' && matches!(p, Phase::EapFailure(_))), "{ev:?}");
    assert!(!ev.iter().any(|(_, p)| matches!(p, Phase::Established { .. })), "{ev:?}");
}

#[test]
fn wpa3_enterprise_192_bit_with_freeradius() {
    // P-384 certificates, FreeRADIUS restricted to ECDHE-ECDSA-AES256-GCM-SHA384 on
    // secp384r1; AKM 00-0F-AC:12 (PMK 48 octets of the MSK, KDF-SHA384, MIC 24), GCMP-256
    // and BIP-GMAC-256 with MFP required.
    let fr = FreeRadius::start(Opts { cert: "server384", ca: "ca384", suite_b: true, ..Default::default() });
    let mut a = ap(&fr, Akm::SuiteB192);
    let mut s = sta("client384", Akm::SuiteB192);
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    assert!(ev.iter().any(|(w, p)| *w == 's' && matches!(p, Phase::Established { pairwise: Some(CipherSuite::Gcmp256) })), "{ev:?}");
    assert!(ev.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::Associated { akm: Some(Akm::SuiteB192), .. })), "{ev:?}");
    // The server ran with only the Suite B suite and curve (its -X log echoes them; it
    // logs no negotiated suite), and the AP told it GCMP-256 (00-0F-AC:9) and AKM 12 (RFC 7268).
    let log = fr.log();
    for want in [
        "cipher_list = \"ECDHE-ECDSA-AES256-GCM-SHA384\"",
        "ecdh_curve = \"secp384r1\"",
        "WLAN-Pairwise-Cipher = 1027081",
        "WLAN-AKM-Suite = 1027084",
        "Sent Access-Accept",
    ] {
        assert!(log.contains(want), "server log lacks {want}");
    }
}

#[test]
fn peap_mschapv2_station_through_the_ap_to_freeradius() {
    // The station core's PEAPv0/EAP-MSCHAPv2 (its peer challenge from the station's RNG):
    // the MSK the AP gets from FreeRADIUS is the one the station derived, or the 4-way
    // handshake would fail its MIC.
    let fr = FreeRadius::start(Opts::default());
    let mut a = ap(&fr, Akm::Ieee8021x);
    let pki = freeradius::pki();
    let tls = TlsConfig {
        ca_certs: certs_from_pem(&pki.read("ca.pem")).unwrap(),
        domain_match: Some(freeradius::SERVER_NAME.into()),
        ..Default::default()
    };
    let mut c = StaConfig::new(STA, b"wsec-enterprise", rsn(Akm::Ieee8021x));
    c.eap = Some(PeerConfig {
        identity: freeradius::USER.as_bytes().to_vec(),
        anonymous_identity: Some(b"anonymous@wsec.test".to_vec()),
        method: MethodConfig::peap(tls, wsec::eap::Password::Clear(Zeroizing::new(freeradius::PASSWORD.as_bytes().to_vec()))),
    });
    let mut s = Station::new(c, 0, wsec::rng::seeded(2)).unwrap();
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    for side in ['a', 's'] {
        assert!(ev.iter().any(|(w, p)| *w == side && matches!(p, Phase::EapSuccess { method: "PEAP", .. })), "{side}: {ev:?}");
    }
    assert_eq!(s.eap_status().map(|(st, t, tls)| (st, t, tls.map(|x| x.0))), Some(("SUCCESS", 25, Some("TLSv1.2"))));
}
