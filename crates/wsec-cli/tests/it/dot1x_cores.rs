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
    AccessPoint::new(ap_config(fr, akm), 0, wsec::rng::seeded(1)).unwrap()
}

fn ap_config(fr: &FreeRadius, akm: Akm) -> ApConfig {
    let mut c = ApConfig::new(BSSID, b"wsec-enterprise", rsn(akm));
    if akm == Akm::SuiteB192 {
        c.mfp = wsec::node::mfp::Mfp::Required;
        c.group_mgmt_cipher = CipherSuite::BipGmac256;
    }
    c.dot1x = Some(Dot1xSettings {
        radius: ClientConfig { auth_servers: vec![Server::udp(fr.auth, freeradius::SECRET.as_bytes())], ..Default::default() },
        nas_identifier: Some("wsec-ap".into()),
        own_ip_addr: Some(std::net::Ipv4Addr::LOCALHOST),
        ..Default::default()
    });
    c
}

fn sta(client: &str, akm: Akm) -> Station {
    Station::new(sta_config(client, akm), 0, wsec::rng::seeded(2)).unwrap()
}

fn sta_config(client: &str, akm: Akm) -> StaConfig {
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
    c
}

/// Runs the two cores and the server until `done` says so or `limit` passes; every
/// event of either side, with who said it.
fn run(ap: &mut AccessPoint, st: &mut Station, limit: Duration, mut done: impl FnMut(&[(char, Phase)]) -> bool) -> Vec<(char, Phase)> {
    run_from(0, ap, st, limit, &mut done)
}

/// The two cores' timers that are due at `t`.
pub(super) fn timers(ap: &mut AccessPoint, st: &mut Station, ao: &mut Output, so: &mut Output, t: u64) {
    if ap.poll_timeout() <= t {
        ap.handle_timeout(t, ao);
    }
    if st.poll_timeout() <= t {
        st.handle_timeout(t, so);
    }
}

/// The in-memory medium between the two cores: frames move until neither has anything
/// more to send; the AP's RADIUS datagrams go to `radius`.
pub(super) fn exchange(
    ap: &mut AccessPoint,
    st: &mut Station,
    ao: &mut Output,
    so: &mut Output,
    now: &dyn Fn() -> u64,
    mut radius: impl FnMut(wsec::radius::client::Transmit),
) {
    let mut moved = true;
    while moved {
        moved = false;
        for f in std::mem::take(&mut ao.air) {
            st.handle_air(now(), &f, so);
            moved = true;
        }
        for f in std::mem::take(&mut so.air) {
            ap.handle_air(now(), &f, ao);
            moved = true;
        }
        for r in std::mem::take(&mut ao.radius) {
            radius(r);
        }
    }
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
        timers(ap, st, &mut ao, &mut so, now());
        while let Ok((n, from)) = sock.recv_from(&mut buf) {
            ap.handle_radius(now(), from, &buf[..n], &mut ao).unwrap();
        }
        exchange(ap, st, &mut ao, &mut so, &now, |r| {
            sock.send_to(&r.data, r.to).unwrap();
        });
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
fn reauthentication_renews_the_pmk_and_logoff_ends_the_association() {
    // eap_reauth_period: the AP runs EAP again with the established station; the new MSK is
    // the PMK from then on, both sides take it, and a 4-way handshake under it follows at
    // once (12.7.10's ReAuthenticationRequest; hostapd WPA_REAUTH_EAPOL), which only
    // completes when the two sides hold the same new PMK.
    let fr = FreeRadius::start(Opts::default());
    let mut c = ap_config(&fr, Akm::Ieee8021x);
    if let Some(d) = c.dot1x.as_mut() {
        d.eap_reauth_period_s = 2;
    }
    let mut a = AccessPoint::new(c, 0, wsec::rng::seeded(1)).unwrap();
    let mut s = sta("client", Akm::Ieee8021x);
    let t0 = Instant::now();
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    let rekeyed = |e: &[(char, Phase)]| ['a', 's'].iter().all(|w| e.iter().any(|(x, p)| x == w && *p == Phase::PtkRekeyed));
    let ev2 = run_from(t0.elapsed().as_nanos() as u64, &mut a, &mut s, Duration::from_secs(20), &mut |e: &[(char, Phase)]| rekeyed(e));
    assert!(rekeyed(&ev2), "{ev2:?}\nserver log:\n{}", fr.log());
    for side in ['a', 's'] {
        assert!(ev2.iter().any(|(w, p)| *w == side && matches!(p, Phase::EapSuccess { method: "TLS", .. })), "{side}: {ev2:?}");
    }
    assert!(!ev2.iter().any(|(_, p)| matches!(p, Phase::Deauthenticated { .. } | Phase::HandshakeFailed(_))), "{ev2:?}");
    assert_eq!(fr.log().matches("Sent Access-Accept").count(), 2, "two EAP runs");
    // Data under the new PTK, both ways.
    let t = t0.elapsed().as_nanos() as u64 + 1_000_000;
    let (mut ao, mut so) = (Output::default(), Output::default());
    a.handle_host(t, &frames::ethernet(&STA, &WIRED, EtherType::IPV4, b"after the reauthentication"), &mut ao);
    for f in ao.air.drain(..) {
        s.handle_air(t, &f, &mut so);
    }
    assert!(so.host.iter().any(|h| h.ends_with(b"after the reauthentication")), "the station got the wired host's frame");
    s.handle_host(t, &frames::ethernet(&WIRED, &STA, EtherType::IPV4, b"station after the reauthentication"), &mut so);
    for f in so.air.drain(..) {
        a.handle_air(t, &f, &mut ao);
    }
    assert!(ao.host.iter().any(|h| h.ends_with(b"station after the reauthentication")), "the wired side got the station's frame");
    // EAPOL-Logoff (IEEE 802.1X-2020 11.3) from the station: the AP ends the session.
    assert!(s.eapol_logoff(t, &mut so));
    let logoff = so.air.pop().expect("the station sent EAPOL-Logoff");
    assert!(logoff[1] & 0x40 != 0, "EAPOL after the handshake goes protected");
    a.handle_air(t, &logoff, &mut ao);
    let phases: Vec<Phase> = ao.events.drain(..).map(|NodeEvent::Phase { phase, .. }| phase).collect();
    assert!(phases.contains(&Phase::EapFailure("EAPOL-Logoff".into())), "{phases:?}");
    assert!(phases.iter().any(|p| matches!(p, Phase::Deauthenticated { reason, .. } if reason.0 == 3)), "{phases:?}");
    assert!(ao.air.iter().any(|f| f[0] == 0xc0), "the AP sent a Deauthentication");
}

/// The AP of [`ap_config`] with the server's accounting port too.
fn ap_with_accounting(fr: &FreeRadius) -> AccessPoint {
    let mut c = ap_config(fr, Akm::Ieee8021x);
    if let Some(d) = c.dot1x.as_mut() {
        d.radius.acct_servers = vec![Server::udp(fr.acct, freeradius::SECRET.as_bytes())];
    }
    AccessPoint::new(c, 0, wsec::rng::seeded(1)).unwrap()
}

#[test]
fn session_timeout_ends_the_session_unless_termination_action_asks_for_reauthentication() {
    // RFC 3580 3.17, as hostapd: a Session-Timeout without Termination-Action RADIUS-Request
    // is the session's length: the AP deauthenticates (reason 2, hostapd's
    // ap_handle_session_timer) and its Accounting-Request Stop says Session-Timeout.
    let fr = FreeRadius::start(Opts { reply: "Session-Timeout = 2", ..Default::default() });
    let mut a = ap_with_accounting(&fr);
    let mut s = sta("client", Akm::Ieee8021x);
    let t0 = Instant::now();
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    let ended =
        |e: &[(char, Phase)]| e.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::Deauthenticated { reason, .. } if reason.0 == 2));
    let ev2 = run_from(t0.elapsed().as_nanos() as u64, &mut a, &mut s, Duration::from_secs(10), &mut |e: &[(char, Phase)]| ended(e));
    assert!(ended(&ev2), "{ev2:?}");
    assert!(
        !ev2.iter().take_while(|(_, p)| !matches!(p, Phase::Deauthenticated { .. })).any(|(_, p)| *p == Phase::EapStarted),
        "no reauthentication first: {ev2:?}"
    );
    assert!(ev2.iter().any(|(w, p)| *w == 's' && matches!(p, Phase::Deauthenticated { by_peer: true, .. })), "{ev2:?}");
    let t = Instant::now();
    while !fr.log().contains("Acct-Terminate-Cause = Session-Timeout") {
        assert!(t.elapsed() < Duration::from_secs(5), "no Stop with Session-Timeout:\n{}", fr.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(fr);
    // With Termination-Action RADIUS-Request it is the reauthentication period: EAP again,
    // the new PMK, a 4-way handshake under it, and the session goes on.
    let fr = FreeRadius::start(Opts { reply: "Session-Timeout = 2, Termination-Action = RADIUS-Request", ..Default::default() });
    let mut a = ap_with_accounting(&fr);
    let mut s = sta("client", Akm::Ieee8021x);
    let t0 = Instant::now();
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    let rekeyed = |e: &[(char, Phase)]| ['a', 's'].iter().all(|w| e.iter().any(|(x, p)| x == w && *p == Phase::PtkRekeyed));
    let ev2 = run_from(t0.elapsed().as_nanos() as u64, &mut a, &mut s, Duration::from_secs(10), &mut |e: &[(char, Phase)]| rekeyed(e));
    assert!(rekeyed(&ev2), "{ev2:?}");
    assert!(ev2.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::EapSuccess { .. })), "{ev2:?}");
    assert!(!ev2.iter().any(|(_, p)| matches!(p, Phase::Deauthenticated { .. })), "{ev2:?}");
    assert!(!fr.log().contains("Acct-Terminate-Cause"), "the session goes on");
}

const BSSID_B: MacAddr = MacAddr([0x02, 0, 0, 0, 0x02, 0x00]);

/// Two BSSs of one authenticator (one OKC group), both 802.1X with FreeRADIUS.
fn okc_pair(fr: &FreeRadius, okc_b: bool) -> [AccessPoint; 2] {
    let g = wsec::node::ap::OkcGroup::new();
    let mut ca = ap_config(fr, Akm::Ieee8021x);
    ca.okc = true;
    let mut cb = ap_config(fr, Akm::Ieee8021x);
    cb.bssid = BSSID_B;
    cb.okc = okc_b;
    let mut a = AccessPoint::new(ca, 0, wsec::rng::seeded(1)).unwrap();
    let mut b = AccessPoint::new(cb, 0, wsec::rng::seeded(3)).unwrap();
    a.join_okc_group(g.clone());
    b.join_okc_group(g);
    [a, b]
}

/// The two APs and the station, the station hearing only the APs `hear` says; each AP's
/// RADIUS over its own socket; `pending`: the station's frames not yet on the air. Events
/// tagged 'a', 'b' (the APs) and 's'.
fn run_pair(
    base: u64,
    aps: &mut [AccessPoint; 2],
    st: &mut Station,
    hear: [bool; 2],
    pending: Vec<Vec<u8>>,
    limit: Duration,
    done: &mut Done<'_>,
) -> Vec<(char, Phase)> {
    let socks: Vec<UdpSocket> = (0..2).map(|_| UdpSocket::bind("127.0.0.1:0").unwrap()).collect();
    for s in &socks {
        s.set_nonblocking(true).unwrap();
    }
    let t0 = Instant::now();
    let now = || base + t0.elapsed().as_nanos() as u64;
    let mut outs = [Output::default(), Output::default()];
    let mut so = Output { air: pending, ..Default::default() };
    let mut events = Vec::new();
    let mut buf = [0u8; 4096];
    while t0.elapsed() < limit {
        let t = now();
        for (ap, o) in aps.iter_mut().zip(outs.iter_mut()) {
            if ap.poll_timeout() <= t {
                ap.handle_timeout(t, o);
            }
        }
        if st.poll_timeout() <= t {
            st.handle_timeout(t, &mut so);
        }
        for i in 0..2 {
            while let Ok((n, from)) = socks[i].recv_from(&mut buf) {
                aps[i].handle_radius(now(), from, &buf[..n], &mut outs[i]).unwrap();
            }
        }
        let mut moved = true;
        while moved {
            moved = false;
            for i in 0..2 {
                for f in std::mem::take(&mut outs[i].air) {
                    if hear[i] {
                        st.handle_air(now(), &f, &mut so);
                    }
                    moved = true;
                }
                for r in std::mem::take(&mut outs[i].radius) {
                    socks[i].send_to(&r.data, r.to).unwrap();
                }
            }
            for f in std::mem::take(&mut so.air) {
                let to = MacAddr(f[4..10].try_into().unwrap());
                for (i, ap) in aps.iter_mut().enumerate() {
                    if hear[i] && (to.0[0] & 1 == 1 || to == ap.config().bssid) {
                        ap.handle_air(now(), &f, &mut outs[i]);
                    }
                }
                moved = true;
            }
        }
        for (w, o) in ['a', 'b'].into_iter().zip(outs.iter_mut()) {
            events.extend(o.events.drain(..).map(|NodeEvent::Phase { phase, .. }| (w, phase)));
        }
        events.extend(so.events.drain(..).map(|NodeEvent::Phase { phase, .. }| ('s', phase)));
        if done(&events) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    events
}

#[test]
fn opportunistic_key_caching_between_two_bsss() {
    // The station runs EAP with BSS A; A's BSS goes away (it deauthenticates the station,
    // which then hears only B); the station offers B the PMKID of A's PMK for B's BSSID
    // (wpa_supplicant proactive_key_caching) and B, in A's OKC group, takes it (hostapd
    // okc=1): the 4-way handshake under that PMK, no EAP, one Access-Accept in all. With
    // OKC off at B, B runs EAP and the station follows (two Access-Accepts).
    for okc_b in [true, false] {
        let fr = FreeRadius::start(Opts::default());
        let mut aps = okc_pair(&fr, okc_b);
        let mut c = sta_config("client", Akm::Ieee8021x);
        c.okc = true;
        let mut s = Station::new(c, 0, wsec::rng::seeded(2)).unwrap();
        let t0 = Instant::now();
        let up = |w: char| move |e: &[(char, Phase)]| e.iter().any(|(x, p)| *x == w && matches!(p, Phase::Established { .. }));
        let ev = run_pair(0, &mut aps, &mut s, [true, false], Vec::new(), Duration::from_secs(20), &mut up('a'));
        assert!(up('a')(&ev), "{ev:?}\nserver log:\n{}", fr.log());
        let id_a = s.pmksa_pmkid(&BSSID).expect("the station cached A's PMKSA");
        let mut o = Output::default();
        aps[0].deauth(&STA, wsec::wire::mgmt::ReasonCode::DEAUTH_LEAVING, &mut o);
        let t = t0.elapsed().as_nanos() as u64;
        for f in o.air {
            s.handle_air(t, &f, &mut Output::default());
        }
        let ev = run_pair(t, &mut aps, &mut s, [false, true], Vec::new(), Duration::from_secs(20), &mut up('b'));
        assert!(up('b')(&ev), "okc at B {okc_b}: {ev:?}\nserver log:\n{}", fr.log());
        let accepts = fr.log().matches("Sent Access-Accept").count();
        if okc_b {
            assert!(ev.contains(&('b', Phase::OkcMatch { from: BSSID })), "{ev:?}");
            assert!(ev.contains(&('b', Phase::PmksaCached)), "{ev:?}");
            assert!(!ev.iter().any(|(_, p)| *p == Phase::EapStarted), "no EAP at B: {ev:?}");
            assert_eq!(accepts, 1, "one EAP run in all");
        } else {
            assert!(ev.iter().any(|(w, p)| *w == 'b' && matches!(p, Phase::EapSuccess { .. })), "{ev:?}");
            assert!(!ev.iter().any(|(_, p)| matches!(p, Phase::OkcMatch { .. })), "{ev:?}");
            assert_eq!(accepts, 2, "B ran EAP");
        }
        // The station's cache: B's entry (A's PMK under B's PMKID, accepted by B, or B's
        // own after EAP) beside A's, which stays.
        let list = s.pmksa_list(t0.elapsed().as_nanos() as u64);
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(s.pmksa_pmkid(&BSSID), Some(id_a));
        assert_eq!(s.pmksa_pmkid(&BSSID_B), aps[1].pmksa_pmkid(&STA));
        assert!(list.iter().all(|e| !e.opportunistic), "B took it: {list:?}");
    }
}

/// PMKSA caching across roams with 802.1X (IEEE 802.11-2020 12.6.10.3), no OKC: the
/// station runs EAP with A, roams (wpa_cli ROAM, not FT: a new authentication and
/// association) to B and runs EAP there, then back to A and to B again, each time on that
/// AP's cached PMKSA: the AP takes the PMKID (PmksaCached), no EAP, no RADIUS (two
/// Access-Accepts in all), the 4-way handshake under the cached PMK and data through the
/// AP.
#[test]
fn eap_roams_back_to_each_ap_with_its_cached_pmksa() {
    let fr = FreeRadius::start(Opts::default());
    let mut cb = ap_config(&fr, Akm::Ieee8021x);
    cb.bssid = BSSID_B;
    let mut aps = [ap(&fr, Akm::Ieee8021x), AccessPoint::new(cb, 0, wsec::rng::seeded(3)).unwrap()];
    let mut s = sta("client", Akm::Ieee8021x);
    let t0 = Instant::now();
    let elapsed = || t0.elapsed().as_nanos() as u64;
    let up = |w: char| {
        move |e: &[(char, Phase)]| [w, 's'].iter().all(|x| e.iter().any(|(y, p)| y == x && matches!(p, Phase::Established { .. })))
    };
    let accepts = |fr: &FreeRadius| fr.log().matches("Sent Access-Accept").count();
    let ev = run_pair(0, &mut aps, &mut s, [true, false], Vec::new(), Duration::from_secs(20), &mut up('a'));
    assert!(up('a')(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    // B's Beacons heard: a roaming target.
    run_pair(elapsed(), &mut aps, &mut s, [true, true], Vec::new(), Duration::from_millis(500), &mut |_| false);
    assert!(s.bss_heard().iter().any(|(b, _)| b.bssid == BSSID_B));
    for (step, (to, w, i)) in [(BSSID_B, 'b', 1), (BSSID, 'a', 0), (BSSID_B, 'b', 1)].into_iter().enumerate() {
        let mut o = Output::default();
        s.roam(elapsed(), to, false, &mut o).unwrap();
        let ev = run_pair(elapsed(), &mut aps, &mut s, [true, true], o.air, Duration::from_secs(20), &mut up(w));
        assert!(up(w)(&ev), "step {step}: {ev:?}\nserver log:\n{}", fr.log());
        assert_eq!(s.bssid(), Some(to));
        if step == 0 {
            assert!(ev.contains(&('s', Phase::EapStarted)), "{ev:?}");
            assert!(ev.iter().any(|(x, p)| *x == 'b' && matches!(p, Phase::EapSuccess { .. })), "{ev:?}");
        } else {
            assert!(ev.contains(&(w, Phase::PmksaCached)), "step {step}: {ev:?}");
            assert!(!ev.iter().any(|(_, p)| *p == Phase::EapStarted), "step {step}: EAP ran again: {ev:?}");
        }
        assert_eq!(accepts(&fr), 2, "step {step}: one EAP run with each AP");
        assert_eq!(s.pmksa_pmkid(&to), aps[i].pmksa_pmkid(&STA), "step {step}");
        // Data from the wired side through the AP reaches the station.
        let (mut ao, mut so) = (Output::default(), Output::default());
        let t = elapsed();
        aps[i].handle_host(t, &frames::ethernet(&STA, &WIRED, EtherType::IPV4, b"through the AP"), &mut ao);
        for f in ao.air.drain(..) {
            s.handle_air(t, &f, &mut so);
        }
        assert!(so.host.iter().any(|h| h.ends_with(b"through the AP")), "step {step}: downlink");
    }
    let list = s.pmksa_list(elapsed());
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list.iter().all(|e| !e.opportunistic && (e.aa == BSSID || e.aa == BSSID_B)), "{list:?}");
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
    // Back on the cached PMKSA: the AP's session says what the EAP run was (hostapd_cli
    // STA's last_eap_type_as and user name), not a method of its own guess.
    let t = 30_000_000_000;
    let mut so = Output::default();
    s.shutdown(t, &mut so);
    for f in so.air.drain(..) {
        a.handle_air(t, &f, &mut Output::default());
    }
    let ev = run_from(t, &mut a, &mut s, Duration::from_secs(20), &mut established);
    assert!(ev.iter().any(|(w, p)| *w == 'a' && *p == Phase::PmksaCached), "{ev:?}");
    let d = a.dot1x_info(&STA).expect("an 802.1X session");
    assert_eq!((d.method, d.identity.as_slice()), (25, b"anonymous@wsec.test".as_slice()));
}

/// FT-802.1X (AKM 3): the initial mobility domain association through FreeRADIUS, the
/// XXKey from the MSK's second half (12.7.1.6.3), the 4-way handshake under PMK-R1 on both
/// cores, and protected data.
#[test]
fn ft_eap_initial_mobility_domain_association() {
    let fr = FreeRadius::start(Opts::default());
    let mut c = ap_config(&fr, Akm::FtIeee8021x);
    c.ft = Some(wsec::node::ap::FtSettings::new([0xa1, 0xb2], b"ap1.wsec.test", BSSID));
    let mut a = AccessPoint::new(c, 0, wsec::rng::seeded(1)).unwrap();
    let mut s = sta("client", Akm::FtIeee8021x);
    let ev = run(&mut a, &mut s, Duration::from_secs(20), established);
    assert!(established(&ev), "{ev:?}\nserver log:\n{}", fr.log());
    for side in ['a', 's'] {
        assert!(ev.iter().any(|(w, p)| *w == side && matches!(p, Phase::Associated { akm: Some(Akm::FtIeee8021x), .. })), "{side}: {ev:?}");
        assert!(ev.iter().any(|(w, p)| *w == side && matches!(p, Phase::EapSuccess { method: "TLS", .. })), "{side}: {ev:?}");
    }
    let (mut ao, mut so) = (Output::default(), Output::default());
    let t = Instant::now().elapsed().as_nanos() as u64 + 30_000_000_000;
    a.handle_host(t, &frames::ethernet(&STA, &WIRED, EtherType::IPV4, b"ft-eap down"), &mut ao);
    for f in ao.air.drain(..) {
        s.handle_air(t, &f, &mut so);
    }
    assert!(so.host.iter().any(|h| h.ends_with(b"ft-eap down")), "the station opened the AP's frame under the FT PTK");
}
