//! RADIUS over TLS (RadSec, RFC 6614) against a real FreeRADIUS (its Debian
//! sites-available/tls listener, tests/it/freeradius.rs): `wsec`'s AP core relaying a
//! station core's EAP-TLS over the RadSec connections `wsec ap` makes
//! (wsec_live::radsec), with accounting over its own TLS connection; a server whose
//! certificate does not validate; the server killed and the client moving to another;
//! and the live `wsec ap` with `auth_server_type=TLS` authenticating a `wsec sta`.
use super::freeradius::{self, FreeRadius, Opts};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wsec::cipher::CipherSuite;
use wsec::eap::tls::{certs_from_pem, key_from_pem, TlsConfig};
use wsec::eap::{MethodConfig, PeerConfig};
use wsec::node::ap::{AccessPoint, ApConfig, Dot1xSettings};
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{NodeEvent, Output, Phase, Security};
use wsec::radius::client::{ClientConfig, Server};
use wsec::radius::tls::RadsecTls;
use wsec::radius::Kind;
use wsec::rsn::akm::Akm;
use wsec::wire::mac::MacAddr;
use wsec_live::radsec::{Happening, Radsec, Target};
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0x00]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);

fn rsn() -> Security {
    Security::Rsn {
        akms: vec![Akm::Ieee8021x],
        pairwise: vec![CipherSuite::Ccmp128],
        groups: vec![CipherSuite::Ccmp128],
        pmk: Zeroizing::new(Vec::new()),
    }
}

/// The AP's side of the test PKI: trusts `ca.pem`, presents the client certificate.
fn target(addr: SocketAddr) -> Target {
    let pki = freeradius::pki();
    let tls = RadsecTls {
        ca_certs: certs_from_pem(&pki.read("ca.pem")).unwrap(),
        client_chain: certs_from_pem(&pki.read("client.pem")).unwrap(),
        client_key: Arc::new(key_from_pem(&pki.read("client.key")).unwrap()),
    };
    Target::new(&tls, Some(freeradius::SERVER_NAME), addr).unwrap()
}

/// An AP core whose authentication servers are `auth` (RadSec, secret "radsec") and
/// accounting server `acct`, and the connections to them.
fn ap(auth: &[SocketAddr], acct: Option<SocketAddr>) -> (AccessPoint, Radsec) {
    let mut c = ApConfig::new(BSSID, b"wsec-enterprise", rsn());
    let mut rs = Radsec::new();
    for a in auth {
        rs.add(Kind::Auth, *a, target(*a));
    }
    if let Some(a) = acct {
        rs.add(Kind::Acct, a, target(a));
    }
    c.dot1x = Some(Dot1xSettings {
        radius: ClientConfig {
            auth_servers: auth.iter().map(|a| Server::tls(*a, b"radsec")).collect(),
            acct_servers: acct.iter().map(|a| Server::tls(*a, b"radsec")).collect(),
            ..Default::default()
        },
        nas_identifier: Some("wsec-ap".into()),
        own_ip_addr: Some(std::net::Ipv4Addr::LOCALHOST),
        ..Default::default()
    });
    (AccessPoint::new(c, 0, wsec::rng::seeded(1)).unwrap(), rs)
}

fn sta() -> Station {
    let pki = freeradius::pki();
    let t = TlsConfig {
        ca_certs: certs_from_pem(&pki.read("ca.pem")).unwrap(),
        domain_match: Some(freeradius::SERVER_NAME.into()),
        client_cert: Some((certs_from_pem(&pki.read("client.pem")).unwrap(), Arc::new(key_from_pem(&pki.read("client.key")).unwrap()))),
        ..Default::default()
    };
    let mut c = StaConfig::new(STA, b"wsec-enterprise", rsn());
    c.eap = Some(PeerConfig { identity: freeradius::USER.as_bytes().to_vec(), anonymous_identity: None, method: MethodConfig::Tls(t) });
    Station::new(c, 0, wsec::rng::seeded(2)).unwrap()
}

/// What a run saw: the cores' events and the connections' (with when, in ns).
#[derive(Default)]
struct Seen {
    phases: Vec<(char, Phase)>,
    links: Vec<(u64, String)>,
}

impl Seen {
    fn established(&self) -> bool {
        self.phases.iter().filter(|(_, p)| matches!(p, Phase::Established { .. })).count() >= 2
    }
}

/// Runs the cores with the RadSec connections (as the `wsec ap` run loop does) from
/// `base` ns until `done` or `limit`.
fn run(base: u64, ap: &mut AccessPoint, rs: &mut Radsec, st: &mut Station, limit: Duration, done: &dyn Fn(&Seen) -> bool) -> Seen {
    let t0 = Instant::now();
    let now = || base + t0.elapsed().as_nanos() as u64;
    let (mut ao, mut so) = (Output::default(), Output::default());
    let mut seen = Seen::default();
    while t0.elapsed() < limit {
        let t = now();
        super::dot1x_cores::timers(ap, st, &mut ao, &mut so, t);
        for h in rs.poll(now()) {
            match h {
                Happening::Packet { kind, from, data } => {
                    if let Err(e) = ap.handle_radius_kind(now(), kind, from, &data, &mut ao) {
                        seen.links.push((now(), format!("discarded: {e}")));
                    }
                }
                Happening::Up { kind, addr, version } => seen.links.push((now(), format!("up {kind:?} {addr} {version}"))),
                Happening::Down { kind, addr, why } => {
                    seen.links.push((now(), format!("down {kind:?} {addr}: {why}")));
                    ap.radius_transport_down(now(), kind, addr, &mut ao);
                }
            }
        }
        super::dot1x_cores::exchange(ap, st, &mut ao, &mut so, &now, |r| {
            assert!(r.tls, "every server here is RadSec");
            rs.send(r.kind, r.to, r.data).unwrap();
        });
        seen.phases.extend(ao.events.drain(..).map(|NodeEvent::Phase { phase, .. }| ('a', phase)));
        seen.phases.extend(so.events.drain(..).map(|NodeEvent::Phase { phase, .. }| ('s', phase)));
        if done(&seen) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    seen
}

/// The accounting records of the server's detail files.
fn acct_types(fr: &FreeRadius) -> Vec<String> {
    let mut out = Vec::new();
    for c in std::fs::read_dir(fr.dir.join("log").join("radacct")).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(c.path()).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(f.path()).unwrap_or_default();
            out.extend(text.lines().filter_map(|l| l.trim().strip_prefix("Acct-Status-Type = ")).map(String::from));
        }
    }
    out
}

fn radsec_server(o: Opts) -> FreeRadius {
    FreeRadius::start(Opts { radsec: true, ..o })
}

#[test]
fn eap_tls_through_the_ap_core_over_radsec_with_accounting() {
    let fr = radsec_server(Opts { tls_max: "1.3", ..Default::default() });
    let rad = fr.radsec.unwrap();
    let (mut a, mut rs) = ap(&[rad], Some(rad));
    let mut s = sta();
    let seen = run(0, &mut a, &mut rs, &mut s, Duration::from_secs(30), &|s| {
        s.established() && s.links.iter().filter(|(_, l)| l.starts_with("up ")).count() >= 2
    });
    assert!(seen.established(), "{:?}\n{:?}\nserver log:\n{}", seen.phases, seen.links, fr.log());
    // One connection per kind, both TLS 1.3, nothing discarded or dropped.
    assert!(seen.links.iter().any(|(_, l)| l == &format!("up Auth {rad} TLSv1.3")), "{:?}", seen.links);
    assert!(seen.links.iter().any(|(_, l)| l == &format!("up Acct {rad} TLSv1.3")), "{:?}", seen.links);
    assert!(!seen.links.iter().any(|(_, l)| l.starts_with("down") || l.starts_with("discarded")), "{:?}", seen.links);
    // The MSK the server handed over is the one both cores keyed with: the PMKID of its
    // first 32 octets is the AP's and the station's.
    let msks: Vec<Vec<u8>> = freeradius::msks(&fr.log()).iter().map(|m| hex::decode(m).unwrap()).collect();
    assert_eq!(msks.len(), 1, "one Access-Accept with MS-MPPE keys");
    assert_eq!(msks[0].len(), 64);
    let want = wsec::rsn::kdf::pmkid(Akm::Ieee8021x, &msks[0][..32], &BSSID.0, &STA.0);
    assert_eq!(a.pmksa_pmkid(&STA), Some(want), "AP's PMK is the server's MSK's");
    assert_eq!(s.pmksa_pmkid(&BSSID), Some(want), "station's PMK is the server's MSK's");
    // The Accounting-Request Start went over the accounting connection and was answered.
    let t0 = Instant::now();
    while !acct_types(&fr).iter().any(|t| t == "Start") && t0.elapsed() < Duration::from_secs(10) {
        run(40_000_000_000, &mut a, &mut rs, &mut s, Duration::from_millis(200), &|_| false);
    }
    assert!(acct_types(&fr).iter().any(|t| t == "Start"), "no accounting Start in the detail file");
    assert_eq!(a.radius_stats().unwrap().retransmissions, 0, "a reliable transport: nothing retransmitted");
    let log = fr.log();
    assert!(log.contains("proto = \"tcp\"") || log.contains("proto = tcp"), "the tls site's listener");
    assert!(log.contains("Sent Accounting-Response"), "accounting answered");
}

#[test]
fn rogue_server_certificate_is_refused() {
    // The server presents a certificate of a CA the AP does not trust (same name).
    let fr = radsec_server(Opts { cert: "rogue-server", ..Default::default() });
    let rad = fr.radsec.unwrap();
    let (mut a, mut rs) = ap(&[rad], None);
    let mut s = sta();
    let seen = run(0, &mut a, &mut rs, &mut s, Duration::from_secs(20), &|s| {
        s.phases.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::Deauthenticated { .. }))
    });
    let downs: Vec<&(u64, String)> = seen.links.iter().filter(|(_, l)| l.starts_with("down")).collect();
    assert!(!downs.is_empty(), "{:?}", seen.links);
    for (_, l) in &downs {
        assert!(l.contains("invalid peer certificate") && l.contains("UnknownIssuer"), "the log says why: {l}");
    }
    // Reconnection with back-off: three attempts (max_failover), 1 s then 2 s apart.
    assert_eq!(downs.len(), 3, "{downs:?}");
    assert!(downs[1].0 - downs[0].0 >= 1_000_000_000 && downs[2].0 - downs[1].0 >= 2_000_000_000, "{downs:?}");
    assert!(!seen.links.iter().any(|(_, l)| l.starts_with("up")), "{:?}", seen.links);
    // The station got the standard outcome: EAP-Failure, Deauthentication reason 23.
    assert!(seen.phases.iter().any(|(w, p)| *w == 'a' && *p == Phase::EapFailure("no RADIUS server answered".into())), "{:?}", seen.phases);
    assert!(
        seen.phases.iter().any(|(w, p)| *w == 'a' && matches!(p, Phase::Deauthenticated { reason, .. } if reason.0 == 23)),
        "{:?}",
        seen.phases
    );
    assert!(!seen.established());
    let log = fr.log();
    assert!(!log.contains("Sent Access-Accept") && !log.contains("Received Access-Request"), "nothing reached RADIUS");
}

#[test]
fn server_killed_moves_to_the_second_server() {
    let mut fr1 = radsec_server(Opts::default());
    let fr2 = radsec_server(Opts::default());
    let (r1, r2) = (fr1.radsec.unwrap(), fr2.radsec.unwrap());
    let (mut a, mut rs) = ap(&[r1, r2], None);
    let mut s = sta();
    let seen = run(0, &mut a, &mut rs, &mut s, Duration::from_secs(30), &|s| s.established());
    assert!(seen.established(), "{:?}\n{:?}", seen.phases, seen.links);
    assert!(seen.links.iter().any(|(_, l)| l.starts_with(&format!("up Auth {r1}"))), "{:?}", seen.links);
    // The primary dies; the established connection sees the close.
    fr1.stop();
    let seen =
        run(40_000_000_000, &mut a, &mut rs, &mut s, Duration::from_secs(5), &|s| s.links.iter().any(|(_, l)| l.starts_with("down")));
    assert!(
        seen.links.iter().any(|(_, l)| l.contains(&format!("{r1}: RadSec authentication server {r1}: connection closed by the server"))),
        "{:?}",
        seen.links
    );
    assert_eq!(a.radius_server(), Some(r1), "an idle connection closing moves nothing");
    // A new EAP run (the PMKSA forgotten on both sides): the primary refuses the
    // connection, the client moves to the second server, which authenticates.
    a.pmksa_flush();
    s.pmksa_flush();
    let mut so = Output::default();
    s.shutdown(50_000_000_000, &mut so);
    let mut ao = Output::default();
    for f in so.air.drain(..) {
        a.handle_air(50_000_000_000, &f, &mut ao);
    }
    let seen = run(50_000_000_000, &mut a, &mut rs, &mut s, Duration::from_secs(30), &|s| s.established());
    assert!(seen.established(), "{:?}\n{:?}\nsecond server:\n{}", seen.phases, seen.links, fr2.log());
    assert!(seen.links.iter().any(|(_, l)| l.starts_with(&format!("down Auth {r1}")) && l.contains("connect")), "{:?}", seen.links);
    assert!(seen.links.iter().any(|(_, l)| l.starts_with(&format!("up Auth {r2}"))), "{:?}", seen.links);
    assert_eq!(a.radius_server(), Some(r2));
    assert_eq!(a.radius_stats().unwrap().failovers, 1);
    assert!(fr2.log().contains("Sent Access-Accept"));
}

/// The live `wsec ap` with RadSec servers for authentication and accounting, a `wsec
/// sta` with EAP-TLS: the station's data path opens, the accounting records arrive over
/// TLS, the AP's log names the connections. Needs root (namespaces), as live_enterprise.
#[test]
fn live_ap_over_radsec() {
    use wsec_cli::lab::{Lab, Mode, WIRED_IP};
    let fr = radsec_server(Opts::default());
    let rad = fr.radsec.unwrap();
    let pki = freeradius::pki();
    let p = |f: &str| pki.path(f).display().to_string();
    let tag = format!("rs{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, "wsec-enterprise").unwrap_or_else(|e| panic!("{e}"));
    let tls = |k: &str| {
        format!(
            "{k}_server_addr=127.0.0.1\n{k}_server_port={}\n{k}_server_type=TLS\n{k}_server_ca_cert={}\n{k}_server_client_cert={}\n{k}_server_private_key={}\n{k}_server_domain_match={}\n",
            rad.port(),
            p("ca.pem"),
            p("client.pem"),
            p("client.key"),
            freeradius::SERVER_NAME
        )
    };
    let mode = Mode {
        name: "wpa2-enterprise-radsec",
        ap: format!(
            "wpa=2\nwpa_key_mgmt=WPA-EAP\nrsn_pairwise=CCMP\nieee8021x=1\n{}{}radius_acct_interim_interval=1\nnas_identifier=wsec-ap\nown_ip_addr=127.0.0.1\ncrypto_offload=host\n",
            tls("auth"),
            tls("acct")
        ),
        sta: freeradius::eap_tls_network(),
        sta_global: "crypto_offload=host\n".into(),
        tshark_key: None,
    };
    lab.start_air(0.0, None).unwrap();
    lab.write_confs(&mode, "").unwrap();
    lab.start_ap().unwrap();
    lab.start_sta(1).unwrap();
    lab.wait_log("sta1", "data open", Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}\nap:\n{}\nserver:\n{}", lab.log("ap"), fr.log()));
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(30)).unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    lab.stop("sta1");
    std::thread::sleep(Duration::from_millis(500));
    let ap = lab.log("ap");
    lab.stop_all();
    for want in [
        format!("RadSec authentication server {rad}"),
        format!("RadSec Auth connection to {rad} up"),
        format!("RadSec Acct connection to {rad} up"),
        "eap success (method TLS, identity \"alice@wsec.test\")".to_string(),
    ] {
        assert!(ap.contains(&want), "ap log lacks {want}:\n{ap}");
    }
    let types = acct_types(&fr);
    for t in ["Start", "Interim-Update", "Stop"] {
        assert!(types.iter().any(|x| x == t), "no accounting {t} over RadSec: {types:?}\nap:\n{ap}");
    }
    assert!(fr.log().contains("Sent Access-Accept"));
}
