//! Extended Key ID for Individually Addressed Frames (IEEE 802.11-2020 12.6.21) in the
//! handshake cores and the AP and station cores: negotiated only when both RSNEs set it
//! (not with TKIP), the Key ID KDE in message 3 (12.7.6.4), each PTK under the Key ID the
//! one in force does not have, installed for reception before message 3 (Authenticator)
//! or message 4 (Supplicant) and for transmission after message 4. The PTK rekey race a
//! Key ID 0 rekey has (frames under the old key after the receiver switched) is gone.
use crate::nodesim;

use nodesim::{Feed, Sim, MS, WIRED};
use wsec::cipher::CipherSuite;
use wsec::node::ap::ApConfig;
use wsec::node::frames;
use wsec::node::sta::StaConfig;
use wsec::node::{NodeEvent, Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::rsn::handshake::authenticator::GroupKeys;
use wsec::rsn::handshake::{Authenticator, Config, Event, Supplicant, Timers};
use wsec::wire::mac::{MacAddr, Mpdu};
use wsec::wire::EtherType;
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);

fn rsn(pairwise: CipherSuite) -> Security {
    let pmk = wsec::rsn::pbkdf2::psk_from_passphrase(b"correct horse battery", b"wsec-test").unwrap();
    Security::Rsn { akms: vec![Akm::Psk], pairwise: vec![pairwise], groups: vec![CipherSuite::Ccmp128], pmk: Zeroizing::new(pmk.to_vec()) }
}

/// The Key ID of a protected MPDU (the Key ID octet of its CCMP/GCMP header, 12.5.3.2).
fn key_id(f: &[u8]) -> Option<u8> {
    let m = Mpdu::new_checked(f).ok()?;
    m.frame_control().protected().then(|| f.get(m.header_len() + 3).map(|o| o >> 6))?
}

fn handshake_config(ext: bool) -> Config {
    // RSNE: CCMP-128 group and pairwise, PSK, RSN Capabilities with b13 when `ext`.
    let mut b = vec![48, 20, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 2, 0, 0];
    if ext {
        b[21] = 0x20;
    }
    Config {
        akm: Akm::Psk,
        pairwise: CipherSuite::Ccmp128,
        group: CipherSuite::Ccmp128,
        group_mgmt: None,
        pmk: Zeroizing::new(vec![7; 32]),
        aa: BSSID,
        spa: STA1,
        ap_rsne: b.clone(),
        sta_rsne: b,
        timers: Timers::default(),
    }
}

/// (pairwise installs, receive-only installs, activations) among `events`, by Key ID.
fn ptk_events(events: &[Event]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut r = (Vec::new(), Vec::new(), Vec::new());
    for e in events {
        match e {
            Event::InstallPtk { key_id, .. } => r.0.push(*key_id),
            Event::InstallPtkRx { key_id, .. } => r.1.push(*key_id),
            Event::ActivatePtk { key_id } => r.2.push(*key_id),
            _ => {}
        }
    }
    r
}

#[test]
fn handshake_cores_alternate_key_ids_and_never_reinstall() {
    let cfg = handshake_config(true);
    assert!(cfg.extended_key_id());
    assert!(!handshake_config(false).extended_key_id());
    let mut tkip = handshake_config(true);
    tkip.pairwise = CipherSuite::Tkip;
    assert!(!tkip.extended_key_id(), "never with TKIP (12.6.21)");
    let mut rng = wsec::rng::seeded(5);
    let mut a = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut *rng), wsec::rng::seeded(6));
    let mut s = Supplicant::new(cfg, wsec::rng::seeded(7));
    let mut now = 0;
    for (round, want) in [0u8, 1, 0, 1].into_iter().enumerate() {
        now += 1_000_000_000;
        let m1 = if round == 0 { a.start(now) } else { a.rekey_ptk(now) };
        let m2 = s.handle_eapol(now, &m1.tx[0]);
        let m3 = a.handle_eapol(now, &m2.tx[0]);
        // The Authenticator installs for reception before message 3 goes out.
        assert_eq!(ptk_events(&m3.events), (vec![], vec![want], vec![]), "round {round}");
        let m4 = s.handle_eapol(now, &m3.tx[0]);
        assert_eq!(ptk_events(&m4.events), (vec![], vec![want], vec![want]), "round {round}");
        // The same message 3 again is a replay; a retransmission (message 4 lost) is
        // answered but installs nothing (KRACK), and the Authenticator installs nothing
        // again for it either.
        assert!(s.handle_eapol(now, &m3.tx[0]).tx.is_empty(), "round {round}");
        now += 1_000_000_000;
        let m3b = a.handle_timeout(now);
        assert_eq!((m3b.tx.len(), ptk_events(&m3b.events)), (1, (vec![], vec![], vec![])), "round {round}");
        let again = s.handle_eapol(now, &m3b.tx[0]);
        assert_eq!(again.tx.len(), 1, "round {round}");
        assert_eq!(ptk_events(&again.events), (vec![], vec![], vec![]), "round {round}");
        let done = a.handle_eapol(now, &again.tx[0]);
        assert_eq!(ptk_events(&done.events), (vec![], vec![], vec![want]), "round {round}");
    }
    // Without Extended Key ID: Key ID 0, installed once at the end, as before.
    let cfg = handshake_config(false);
    let mut a = Authenticator::new(cfg.clone(), GroupKeys::random(&cfg, 1, &mut *rng), wsec::rng::seeded(8));
    let mut s = Supplicant::new(cfg, wsec::rng::seeded(9));
    let m2 = s.handle_eapol(now, &a.start(now).tx[0]);
    let m3 = a.handle_eapol(now, &m2.tx[0]);
    assert_eq!(ptk_events(&m3.events), (vec![], vec![], vec![]));
    let m4 = s.handle_eapol(now, &m3.tx[0]);
    assert_eq!(ptk_events(&m4.events), (vec![0], vec![], vec![]));
    assert_eq!(ptk_events(&a.handle_eapol(now, &m4.tx[0]).events), (vec![0], vec![], vec![]));
}

fn net(ap_ext: u8, sta_ext: bool, pairwise: CipherSuite) -> Sim {
    let mut ap = ApConfig::new(BSSID, b"wsec-test", rsn(pairwise));
    ap.extended_key_id = ap_ext;
    ap.ptk_rekey_s = 2;
    let mut sta = StaConfig::new(STA1, b"wsec-test", rsn(pairwise));
    sta.extended_key_id = sta_ext;
    let mut sim = Sim::new(ap, vec![sta], 0.0, 12, Feed::PerFrame);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    sim
}

/// The Key IDs of one data frame each way, after the network settled.
fn key_ids_now(sim: &mut Sim) -> (Option<u8>, Option<u8>) {
    let start = sim.air.len();
    sim.sta_send(0, WIRED, b"up");
    sim.ap_send(STA1, b"down");
    sim.run(3);
    let of = |from: MacAddr| {
        sim.air[start..]
            .iter()
            .filter(|f| Mpdu::new_checked(&f[..]).is_ok_and(|m| m.addr2() == Some(from) && m.frame_control().is_data()))
            .find_map(|f| key_id(f))
    };
    (of(STA1), of(BSSID))
}

#[test]
fn negotiated_only_when_both_ends_set_it_and_then_rekeys_alternate() {
    // (AP extended_key_id, station extended_key_id, pairwise) -> Key ID of the first PTK.
    for (ap, sta, pw, first) in [
        (0, false, CipherSuite::Ccmp128, 0),
        (1, false, CipherSuite::Ccmp128, 0),
        (0, true, CipherSuite::Ccmp128, 0),
        (1, true, CipherSuite::Ccmp128, 0),
        (2, true, CipherSuite::Gcmp256, 1),
        (2, false, CipherSuite::Ccmp128, 0),
        (1, true, CipherSuite::Tkip, 0),
    ] {
        let mut sim = net(ap, sta, pw);
        let ext = ap > 0 && sta && pw != CipherSuite::Tkip;
        assert_eq!(key_ids_now(&mut sim), (Some(first), Some(first)), "ap {ap} sta {sta} {pw}");
        // Two PTK rekeys (ptk_rekey_s = 2): with Extended Key ID the Key ID flips each time.
        let mut want = first;
        for _ in 0..2 {
            let n = sim.phases(0).iter().filter(|p| matches!(p, Phase::PtkRekeyed)).count();
            assert!(sim.run_until(3_000, |s| s.phases(0).iter().filter(|p| matches!(p, Phase::PtkRekeyed)).count() > n));
            sim.run(20);
            if ext {
                want ^= 1;
            }
            assert_eq!(key_ids_now(&mut sim), (Some(want), Some(want)), "ap {ap} sta {sta} {pw}");
        }
        assert_eq!(sim.ap().counters.total_drops(), 0, "ap {ap} sta {sta} {pw}: {}", sim.ap().counters);
        assert_eq!(sim.sta(0).counters.total_drops(), 0, "ap {ap} sta {sta} {pw}: {}", sim.sta(0).counters);
    }
}

/// The race of a Key ID 0 rekey (node_core's
/// `ap_frames_sent_before_message_4_arrives_survive_a_ptk_rekey`), under Extended Key ID:
/// while message 4 is in flight the station already transmits under the new Key ID, which
/// the AP installed for reception before message 3, and the AP still under the old one,
/// which the station keeps. Both directions open every frame, on the keys in force.
#[test]
fn message_4_in_flight_loses_nothing_either_way() {
    let sec = rsn(CipherSuite::Ccmp128);
    let mut cfg = ApConfig::new(BSSID, b"wsec-test", sec.clone());
    cfg.ptk_rekey_s = 5;
    cfg.extended_key_id = 1;
    let mut sc = StaConfig::new(STA1, b"wsec-test", sec);
    sc.extended_key_id = true;
    let t0 = 1_000 * MS;
    let mut ap = nodesim::ap_core(cfg, t0);
    let mut sta = nodesim::sta_core(sc, t0);
    let (mut ao, mut so) = (Output::default(), Output::default());
    let rekeyed = |o: &Output| o.events.iter().any(|e| matches!(e, NodeEvent::Phase { phase: Phase::PtkRekeyed, .. }));
    let mut now = t0;
    let mut from_ap: Vec<Vec<u8>> = Vec::new();
    let mut held_m4: Option<Vec<Vec<u8>>> = None;
    for _ in 0..20_000 {
        now += MS;
        if ap.poll_timeout() <= now {
            ap.handle_timeout(now, &mut ao);
        }
        from_ap.append(&mut ao.air);
        if sta.poll_timeout() <= now {
            sta.handle_timeout(now, &mut so);
        }
        let mut from_sta: Vec<Vec<u8>> = so.air.drain(..).collect();
        for f in from_ap.drain(..) {
            so.events.clear();
            sta.handle_air(now, &f, &mut so);
            if rekeyed(&so) {
                held_m4 = Some(so.air.drain(..).collect());
                break;
            }
            from_sta.append(&mut so.air);
        }
        if held_m4.is_some() {
            break;
        }
        for f in from_sta {
            ap.handle_air(now, &f, &mut ao);
        }
        ao.events.clear();
        so.host.clear();
        ao.host.clear();
    }
    let held_m4 = held_m4.expect("the station never switched to a new PTK");
    assert_eq!(held_m4.len(), 1, "message 4 alone");
    assert_eq!(key_id(&held_m4[0]), Some(0), "message 4 goes under the PTK in force");
    // Downlink before message 4 arrives: Key ID 0, opened by the station.
    let mut down = Vec::new();
    for i in 0..10 {
        ap.handle_host(now, &frames::ethernet(&STA1, &WIRED, EtherType::IPV4, format!("down {i}").as_bytes()), &mut ao);
        down.append(&mut ao.air);
    }
    assert!(down.iter().all(|f| key_id(f) == Some(0)));
    so.host.clear();
    sta.handle_air_batch(now, down.iter().map(|f| f.as_slice()), &mut so);
    assert_eq!(so.host.len(), 10, "{}", sta.counters);
    // Uplink meanwhile: Key ID 1, opened by the AP, which has not seen message 4.
    let mut up = Vec::new();
    for i in 0..10 {
        sta.handle_host(now, &frames::ethernet(&WIRED, &STA1, EtherType::IPV4, format!("up {i}").as_bytes()), &mut so);
        up.append(&mut so.air);
    }
    assert!(up.iter().all(|f| key_id(f) == Some(1)));
    ao.host.clear();
    for f in &up {
        ap.handle_air(now, f, &mut ao);
    }
    assert_eq!(ao.host.len(), 10, "{}", ap.counters);
    // Message 4: the AP transmits under Key ID 1 too.
    ao.events.clear();
    ap.handle_air(now, &held_m4[0], &mut ao);
    assert!(rekeyed(&ao), "the AP did not switch on message 4");
    ap.handle_host(now, &frames::ethernet(&STA1, &WIRED, EtherType::IPV4, b"after"), &mut ao);
    let after: Vec<Vec<u8>> = ao.air.drain(..).collect();
    assert_eq!(after.iter().map(|f| key_id(f)).collect::<Vec<_>>(), vec![Some(1)]);
    so.host.clear();
    sta.handle_air(now, &after[0], &mut so);
    assert_eq!(so.host.len(), 1);
    assert_eq!((ap.counters.total_drops(), sta.counters.total_drops()), (0, 0), "{} / {}", ap.counters, sta.counters);
}
