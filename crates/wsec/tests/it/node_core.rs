//! The AP and STA cores against each other in memory, no sockets: every security mode,
//! relay and bridging, rekeys, frame loss, replayed/forged/garbage frames, restarts and
//! inactivity. Time is simulated (1 ms steps); loss is seeded and the seed printed.
use crate::nodesim;

use nodesim::{Feed, Sim, MS, WIRED};
use rand::{Rng, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::node::ap::ApConfig;
use wsec::node::frames;
use wsec::node::sta::StaConfig;
use wsec::node::{AuthAlgs, Phase, Security, SEC};
use wsec::rsn::akm::Akm;
use wsec::wire::mac::{Header, MacAddr};
use wsec::wire::mgmt::{AuthAlgorithm, AuthRepr, ReasonCode, StatusCode};
use wsec::wire::EtherType;
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);

fn pmk(pass: &str, ssid: &str) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(wsec::rsn::pbkdf2::psk_from_passphrase(pass.as_bytes(), ssid.as_bytes()).unwrap().to_vec())
}

fn rsn(pairwise: CipherSuite, group: CipherSuite) -> Security {
    Security::Rsn { akms: vec![Akm::Psk], pairwise: vec![pairwise], groups: vec![group], pmk: pmk("correct horse battery", "wsec-test") }
}

fn wep(key: &[u8], algs: AuthAlgs) -> Security {
    let mut keys: [Option<Zeroizing<Vec<u8>>>; 4] = Default::default();
    keys[0] = Some(Zeroizing::new(key.to_vec()));
    Security::Wep { keys, tx_key: 0, auth_algs: algs }
}

fn payloads(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    frames.iter().map(|f| f[14..].to_vec()).collect()
}

/// Payloads as a sorted list (relayed frames take one more hop than direct ones).
fn sorted(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut v = payloads(frames);
    v.sort();
    v
}

fn set(v: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = v.iter().map(|x| x.to_vec()).collect();
    v.sort();
    v
}

/// A simulation fed as this test's mode says (see `both!`).
fn new_sim(ap: ApConfig, stas: Vec<StaConfig>, loss: f64, seed: u64) -> Sim {
    let feed = if batched() { Feed::Batched } else { Feed::PerFrame };
    let sim = Sim::new(threaded(ap), stas.into_iter().map(threaded_sta).collect(), loss, seed, feed);
    // The threaded variant really runs the AP's batch crypto on several threads.
    assert_eq!(sim.ap.as_ref().map(|a| a.datapath().threads()), Some(engine_threads()));
    sim
}

fn net(ap_sec: Security, sta_sec: Security, loss: f64, seed: u64) -> Sim {
    let ap = ApConfig::new(BSSID, b"wsec-test", ap_sec);
    let stas = vec![StaConfig::new(STA1, b"wsec-test", sta_sec.clone()), StaConfig::new(STA2, b"wsec-test", sta_sec)];
    new_sim(ap, stas, loss, seed)
}

/// Brings the network up and checks station to station (relayed), station to wired,
/// wired to station and broadcast, in both directions.
fn exercise(sim: &mut Sim, protected: bool) {
    assert!(sim.run_until(3_000, |s| s.all_established()), "network did not come up; events {:?}", sim.events);
    // One Layer 2 Update per station as its port opened, broadcast from its address.
    let mut from: Vec<[u8; 6]> = sim.ap_l2_updates.iter().map(|f| f[6..12].try_into().unwrap()).collect();
    from.sort();
    assert_eq!(from, vec![STA1.0, STA2.0], "{:?}", sim.ap_l2_updates);
    assert!(sim.ap_l2_updates.iter().all(|f| f[..6] == [0xff; 6] && f.len() == 20));
    let air_before = sim.air.len();
    sim.sta_send(0, STA2, b"one to two");
    sim.sta_send(1, STA1, b"two to one");
    sim.sta_send(0, WIRED, b"one to wired");
    sim.ap_send(STA2, b"wired to two");
    sim.ap_send(MacAddr::BROADCAST, b"wired broadcast");
    sim.run(5);
    assert_eq!(sorted(&sim.sta_host[1]), set(&[b"one to two", b"wired to two", b"wired broadcast"]));
    assert_eq!(sorted(&sim.sta_host[0]), set(&[b"two to one", b"wired broadcast"]));
    assert_eq!(payloads(&sim.ap_host), vec![b"one to wired".to_vec()]);
    assert_eq!(sim.ap.as_ref().unwrap().counters.relayed, 2);
    // Every data frame with a body on the air is protected exactly when the mode says.
    let mut data = 0;
    let mut seen_plain = 0;
    for f in &sim.air[air_before..] {
        let h = Header::new_checked(&f[..]).unwrap();
        let fc = h.frame_control();
        if fc.has_data_body() {
            data += 1;
            assert_eq!(fc.protected(), protected, "frame {f:02x?}");
            // No plaintext on the air when protected.
            let visible = f[24..].windows(6).any(|w| w == b"to two");
            if protected {
                assert!(!visible, "plaintext on the air");
            } else if visible {
                seen_plain += 1;
            }
        }
    }
    // sta1->ap, ap->sta2 (relay), sta2->ap, ap->sta1, sta1->ap (wired), ap->sta2, ap->bcast
    assert_eq!(data, 7);
    // Open: "one to two" (two hops) and "wired to two" are readable on the air.
    assert_eq!(seen_plain, if protected { 0 } else { 3 });
}

fn open_network() {
    let mut sim = net(Security::Open, Security::Open, 0.0, 1);
    exercise(&mut sim, false);
    let p = sim.phases(1);
    assert!(matches!(p[0], Phase::Discovered { rsn: false, .. }), "{p:?}");
    assert!(p.contains(&Phase::Established { pairwise: None }));
}

fn wpa2_ccmp_network() {
    let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), 0.0, 2);
    exercise(&mut sim, true);
    let p = sim.phases(2);
    assert!(p.contains(&Phase::Established { pairwise: Some(CipherSuite::Ccmp128) }), "{p:?}");
    // The four EAPOL-Key frames of each 4-way handshake went in the clear (no PTK yet).
    let eapol = sim.air.iter().filter(|f| f.len() > 32 && f[24..32] == [0xaa, 0xaa, 3, 0, 0, 0, 0x88, 0x8e]).count();
    assert_eq!(eapol, 8);
    assert_eq!(sim.ap.as_ref().unwrap().counters.total_drops(), 0, "{}", sim.ap.as_ref().unwrap().counters);
}

fn every_mode() {
    let modes: Vec<(&str, Security, Security)> = vec![
        ("wep-40 open", wep(b"12345", AuthAlgs::BOTH), wep(b"12345", AuthAlgs::OPEN)),
        ("wep-104 shared key", wep(b"0123456789abc", AuthAlgs::SHARED), wep(b"0123456789abc", AuthAlgs::SHARED)),
        ("tkip", rsn(CipherSuite::Tkip, CipherSuite::Tkip), rsn(CipherSuite::Tkip, CipherSuite::Tkip)),
        ("gcmp", rsn(CipherSuite::Gcmp128, CipherSuite::Gcmp128), rsn(CipherSuite::Gcmp128, CipherSuite::Gcmp128)),
        ("ccmp-256", rsn(CipherSuite::Ccmp256, CipherSuite::Ccmp256), rsn(CipherSuite::Ccmp256, CipherSuite::Ccmp256)),
        ("ccmp/tkip group", rsn(CipherSuite::Ccmp128, CipherSuite::Tkip), rsn(CipherSuite::Ccmp128, CipherSuite::Tkip)),
        ("eccmp-4", rsn(CipherSuite::Eccmp4, CipherSuite::Ccmp128), rsn(CipherSuite::Eccmp4, CipherSuite::Ccmp128)),
    ];
    for (name, a, s) in modes {
        let mut sim = net(a, s, 0.0, 3);
        eprintln!("mode {name}");
        exercise(&mut sim, true);
        if name.contains("shared") {
            assert!(sim.phases(1).contains(&Phase::Authenticated { shared_key: true }), "{name}");
        }
    }
}

fn wep_shared_key_wrong_key_refused() {
    let mut sim = net(wep(b"0123456789abc", AuthAlgs::SHARED), wep(b"0123456789abX", AuthAlgs::SHARED), 0.0, 4);
    sim.run(1_500);
    assert!(!sim.stas[0].as_ref().unwrap().is_established());
    assert!(sim.ap.as_ref().unwrap().counters.dropped("shared key challenge failed") > 0);
}

fn eccmp_falls_back_to_ccmp_and_wrong_passphrase_fails() {
    // A STA preferring ECCMP-4 joins an AP offering CCMP only: CCMP is negotiated.
    let sta = Security::Rsn {
        akms: vec![Akm::Psk],
        pairwise: vec![CipherSuite::Eccmp4, CipherSuite::Ccmp128],
        groups: vec![CipherSuite::Ccmp128],
        pmk: pmk("correct horse battery", "wsec-test"),
    };
    let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), sta, 0.0, 5);
    exercise(&mut sim, true);
    assert!(sim.phases(1).contains(&Phase::Established { pairwise: Some(CipherSuite::Ccmp128) }));
    // Wrong passphrase: message 2's MIC fails at the AP, nothing is installed.
    let bad = Security::Rsn {
        akms: vec![Akm::Psk],
        pairwise: vec![CipherSuite::Ccmp128],
        groups: vec![CipherSuite::Ccmp128],
        pmk: pmk("wrong horse battery", "wsec-test"),
    };
    let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), bad, 0.0, 6);
    sim.run(6_000);
    assert!(sim.ap.as_ref().unwrap().stations().is_empty());
    assert!(sim.ap.as_ref().unwrap().counters.dropped("eapol-key refused") > 0);
    assert!(sim.phases(0).iter().any(|p| matches!(p, Phase::HandshakeFailed(_))));
}

fn replayed_and_forged_frames_are_counted_and_dropped() {
    let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), 0.0, 7);
    assert!(sim.run_until(3_000, |s| s.all_established()));
    let start = sim.air.len();
    sim.sta_send(0, WIRED, b"genuine frame");
    sim.run(2);
    assert_eq!(payloads(&sim.ap_host), vec![b"genuine frame".to_vec()]);
    let genuine = sim.air[start..].iter().find(|f| Header::new_checked(&f[..]).unwrap().frame_control().protected()).unwrap().clone();
    // Replay: the same frame again.
    sim.inject.push(genuine.clone());
    sim.run(2);
    assert_eq!(sim.ap.as_ref().unwrap().counters.dropped("replay"), 1);
    // The station's own counters (hostapd_cli `sta`): one replay, no other error.
    let k = sim.ap.as_ref().unwrap().station_info(&STA1).expect("associated").counters;
    assert_eq!((k.rx_replays, k.rx_mic_failures, k.rx_decrypt_errors, k.rx_dropped, k.key_installs), (1, 0, 0, 1, 1));
    // Forgery: a higher PN (so the replay check passes) and a flipped ciphertext bit.
    let mut forged = genuine.clone();
    forged[24] = forged[24].wrapping_add(5);
    let n = forged.len();
    forged[n - 12] ^= 1;
    sim.inject.push(forged);
    // Forged group frame to a station (AP's address, GTK key id) and an unprotected data
    // frame claiming to come from the AP.
    let mut fake = frames::data(frames::Dir::FromAp, &BSSID, &STA1, &WIRED, 1, EtherType::IPV4, b"inject me");
    sim.inject.push(fake.clone());
    fake[1] |= 0x40; // Protected bit on a frame without a security header
    sim.inject.push(fake);
    sim.run(2);
    let ap = sim.ap.as_ref().unwrap();
    assert_eq!(ap.counters.dropped("mic failure"), 1, "{}", ap.counters);
    // A CCMP MIC mismatch is a decrypt error in the MIB (dot11RSNAStatsCCMPDecryptErrors).
    let k = ap.station_info(&STA1).expect("associated").counters;
    assert_eq!((k.rx_replays, k.rx_mic_failures, k.rx_decrypt_errors, k.rx_dropped), (1, 0, 1, 2));
    let s1 = sim.stas[0].as_ref().unwrap();
    assert_eq!(s1.counters.dropped("unprotected"), 1, "{}", s1.counters);
    assert_eq!(s1.counters.total_drops(), 2, "{}", s1.counters);
    assert_eq!(payloads(&sim.ap_host), vec![b"genuine frame".to_vec()]);
    assert!(sim.sta_host[0].is_empty());
    // The link still works.
    sim.sta_send(0, WIRED, b"after the attack");
    sim.run(2);
    assert_eq!(sim.ap_host.len(), 2);
}

fn garbage_and_truncated_frames_never_panic() {
    for seed in 0..3u64 {
        let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), 0.0, seed);
        assert!(sim.run_until(3_000, |s| s.all_established()));
        sim.sta_send(0, STA2, b"some traffic to truncate");
        sim.run(3);
        let seen = sim.air.clone();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for f in &seen {
            for cut in 0..f.len() {
                sim.inject.push(f[..cut].to_vec());
            }
            // Random bit flips in every known frame.
            let mut g = f.clone();
            let i = rng.gen_range(0..g.len());
            g[i] ^= 1 << rng.gen_range(0..8);
            sim.inject.push(g);
            sim.step();
        }
        for _ in 0..2_000 {
            let n = rng.gen_range(0..300);
            let mut g: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            // Half of them aimed at the AP / a station so they get past the address filter.
            if n >= 24 && rng.gen_bool(0.5) {
                g[4..10].copy_from_slice(if rng.gen_bool(0.5) { BSSID.as_bytes() } else { STA1.as_bytes() });
                g[10..16].copy_from_slice(if rng.gen_bool(0.5) { STA2.as_bytes() } else { BSSID.as_bytes() });
            }
            sim.inject.push(g);
            if n % 10 == 0 {
                sim.step();
            }
        }
        sim.run(10);
        let ap = sim.ap.as_ref().unwrap();
        assert!(ap.counters.total_drops() > 0);
        // Whatever the garbage did (a forged deauth or auth may legitimately reset a
        // station: there is no management frame protection), the network recovers.
        assert!(sim.run_until(10_000, |s| s.all_established()), "seed {seed}: {:?}", sim.events.last());
        sim.sta_host[1].clear();
        sim.sta_send(0, STA2, b"still alive");
        sim.run(3);
        assert_eq!(payloads(&sim.sta_host[1]), vec![b"still alive".to_vec()], "seed {seed}");
    }
}

/// Memory stays bounded under a flood of strangers: Authentication requests and data
/// frames from thousands of made-up addresses fill the station table only up to
/// `max_stations` (hostapd's `max_num_sta`; the rest get status 17, AP full), the
/// stations already there keep their link, and the strangers age out with inactivity.
fn a_flood_of_strangers_stays_within_the_station_table() {
    let sec = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let mut ap = ApConfig::new(BSSID, b"wsec-test", sec.clone());
    ap.max_stations = 16;
    ap.max_inactivity_s = 3;
    let stas = vec![StaConfig::new(STA1, b"wsec-test", sec.clone()), StaConfig::new(STA2, b"wsec-test", sec)];
    let mut sim = new_sim(ap, stas, 0.0, 21);
    assert!(sim.run_until(3_000, |s| s.all_established()));
    let start = sim.air.len();
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    for k in 0..5_000u32 {
        let mut who = MacAddr(rng.gen());
        who.0[0] = (who.0[0] | 0x02) & 0xfe; // locally administered, unicast
        if k % 2 == 0 {
            sim.inject.push(frames::auth(
                &BSSID,
                &who,
                &BSSID,
                k as u16 & 0x0fff,
                AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 1, StatusCode::SUCCESS),
            ));
        } else {
            sim.inject.push(frames::data(frames::Dir::ToAp, &BSSID, &who, &WIRED, k as u16 & 0x0fff, EtherType::IPV4, b"let me in"));
        }
        if k % 50 == 0 {
            sim.step();
            assert!(sim.ap().peer_count() <= 16, "{} peers after {k} strangers", sim.ap().peer_count());
        }
        if k % 1000 == 0 {
            // The stations already in keep talking (and so stay active).
            sim.sta_send(0, WIRED, b"still here");
            sim.sta_send(1, WIRED, b"still here");
        }
    }
    sim.run(5);
    assert_eq!(sim.ap().peer_count(), 16);
    let full = sim.air[start..]
        .iter()
        .filter(|f| f.len() >= 30 && f[0] == 0xb0 && u16::from_le_bytes([f[28], f[29]]) == StatusCode::AP_FULL.0)
        .count();
    assert!(full > 2_000, "only {full} Authentications refused with AP full");
    assert!(sim.ap_host.iter().all(|f| &f[14..] == b"still here"));
    assert_eq!(sim.ap_host.len(), 10);
    // Past the inactivity limit the strangers are gone; the stations that talk stay.
    for _ in 0..5 {
        sim.sta_send(0, WIRED, b"still here");
        sim.sta_send(1, WIRED, b"still here");
        sim.run(1_000);
    }
    assert_eq!(sim.ap().peer_count(), 2, "strangers not aged out");
    assert_eq!(sim.ap().stations().len(), 2);
}

fn five_percent_loss_handshakes_complete() {
    for seed in 10..16u64 {
        let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), 0.05, seed);
        assert!(sim.run_until(20_000, |s| s.all_established()), "seed {seed}: {:?}", sim.events);
        // Lossy data still gets through most of the time (TCP does the rest in the live test).
        let mut got = 0;
        for i in 0..200u32 {
            sim.sta_send(0, STA2, &i.to_be_bytes());
            sim.run(1);
            got = sim.sta_host[1].len();
        }
        assert!(got > 150 && got < 200, "seed {seed}: {got} of 200 with two lossy hops");
    }
}

fn rekeys_keep_traffic_flowing() {
    let mut ap = ApConfig::new(BSSID, b"wsec-test", rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128));
    ap.group_rekey_s = 2;
    ap.ptk_rekey_s = 3;
    let s = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let mut sim = new_sim(ap, vec![StaConfig::new(STA1, b"wsec-test", s.clone()), StaConfig::new(STA2, b"wsec-test", s)], 0.0, 8);
    assert!(sim.run_until(3_000, |s| s.all_established()));
    let mut sent = 0;
    for _ in 0..70 {
        sim.sta_send(0, STA2, b"through rekeys");
        sim.ap_send(MacAddr::BROADCAST, b"broadcast through rekeys");
        sent += 1;
        sim.run(100);
    }
    let got = sim.sta_host[1].len();
    assert_eq!(got, 2 * sent, "every frame delivered across GTK and PTK rekeys");
    let ap_phases = sim.phases(0);
    let gtk = ap_phases.iter().filter(|p| matches!(p, Phase::GroupKey { .. })).count();
    let ptk = ap_phases.iter().filter(|p| matches!(p, Phase::PtkRekeyed)).count();
    assert!(gtk >= 2, "{ap_phases:?}");
    assert!(ptk >= 2, "{ap_phases:?}");
    assert!(sim.phases(1).iter().any(|p| matches!(p, Phase::GroupKey { key_id: 2 })));
    assert_eq!(sim.ap.as_ref().unwrap().counters.total_drops(), 0, "{}", sim.ap.as_ref().unwrap().counters);
}

fn station_and_ap_restarts_recover() {
    let sec = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let mut sim = net(sec.clone(), sec.clone(), 0.0, 9);
    assert!(sim.run_until(3_000, |s| s.all_established()));
    // Station 1 killed (no goodbye) and restarted.
    sim.stas[0] = None;
    sim.run(50);
    sim.stas[0] = Some(nodesim::sta_core(threaded_sta(StaConfig::new(STA1, b"wsec-test", sec.clone())), sim.now));
    assert!(sim.run_until(3_000, |s| s.all_established()));
    sim.sta_send(0, STA2, b"after sta restart");
    sim.run(3);
    assert_eq!(payloads(&sim.sta_host[1]).last().unwrap(), b"after sta restart");
    // AP killed and restarted: the stations learn from its deauthentication of their
    // class 3 frames (or from beacon loss) and join again.
    sim.ap = None;
    sim.run(200);
    let cfg = ApConfig::new(BSSID, b"wsec-test", sec);
    sim.ap = Some(nodesim::ap_core(threaded(cfg), sim.now));
    assert!(sim.run_until(10_000, |s| s.all_established()), "{:?}", sim.events);
    sim.sta_send(1, STA1, b"after ap restart");
    sim.run(3);
    assert_eq!(payloads(&sim.sta_host[0]).last().unwrap(), b"after ap restart");
}

fn inactive_station_is_deauthenticated_and_shutdown_says_goodbye() {
    let mut ap = ApConfig::new(BSSID, b"wsec-test", Security::Open);
    ap.max_inactivity_s = 2;
    let mut sim = new_sim(ap, vec![StaConfig::new(STA1, b"wsec-test", Security::Open)], 0.0, 10);
    assert!(sim.run_until(1_000, |s| s.all_established()));
    // An idle station keeps itself alive with Null frames.
    sim.run(5_000);
    assert_eq!(sim.ap.as_ref().unwrap().stations().len(), 1);
    sim.stas[0] = None;
    sim.run(4_000);
    assert!(sim.phases(0).contains(&Phase::Deauthenticated { reason: ReasonCode::INACTIVITY, by_peer: false }));
    assert!(sim.ap.as_ref().unwrap().stations().is_empty());
    // Orderly shutdown: the STA's Deauthentication reaches the AP.
    let mut sim =
        new_sim(ApConfig::new(BSSID, b"wsec-test", Security::Open), vec![StaConfig::new(STA1, b"wsec-test", Security::Open)], 0.0, 11);
    assert!(sim.run_until(1_000, |s| s.all_established()));
    sim.with_sta(0, |s, now, out| s.shutdown(now, out));
    sim.stas[0] = None;
    sim.step();
    assert!(sim.phases(0).contains(&Phase::Deauthenticated { reason: ReasonCode::DEAUTH_LEAVING, by_peer: true }));
    let _ = SEC;
}

fn card_offload_delays_but_delivers() {
    let mut ap = ApConfig::new(BSSID, b"wsec-test", rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128));
    ap.offload = wsec::node::Offload::Card { ns_per_frame: 2 * MS, ns_per_byte: 0 };
    let s = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let mut sim = new_sim(ap, vec![StaConfig::new(STA1, b"wsec-test", s.clone()), StaConfig::new(STA2, b"wsec-test", s)], 0.0, 12);
    assert!(sim.run_until(3_000, |s| s.all_established()));
    sim.sta_send(0, STA2, b"slow card");
    sim.run(1);
    assert!(sim.sta_host[1].is_empty(), "the AP's card holds the frame (decrypt 2 ms + encrypt 2 ms)");
    sim.run(5);
    assert_eq!(payloads(&sim.sta_host[1]), vec![b"slow card".to_vec()]);
    assert!(sim.ap.as_ref().unwrap().datapath().card().busy_ns() >= 4 * MS);
}

thread_local! {
    /// How the cores get their frames: 0 one by one, 1 through the batch entry points,
    /// 2 through them with the engines' crypto on a pool of 3 threads.
    static BATCH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

fn batched() -> bool {
    BATCH.with(|b| b.get()) > 0
}

fn engine_threads() -> usize {
    if BATCH.with(|b| b.get()) == 2 {
        3
    } else {
        1
    }
}

fn threaded(mut c: ApConfig) -> ApConfig {
    c.engine_threads = engine_threads();
    c
}

fn threaded_sta(mut c: StaConfig) -> StaConfig {
    c.engine_threads = engine_threads();
    c
}

/// Every scenario three times: frame by frame (`handle_air`/`handle_host`), through the
/// batch entry points the live programs use (`handle_air_batch`/`handle_host_batch`,
/// the engine's multi-buffer pass), and so with the engines' crypto on three threads:
/// the same outcomes every way.
macro_rules! both {
    ($($name:ident),*) => {
        mod per_frame {
            $( #[test] fn $name() { super::BATCH.with(|b| b.set(0)); super::$name(); } )*
        }
        mod batched {
            $( #[test] fn $name() { super::BATCH.with(|b| b.set(1)); super::$name(); } )*
        }
        mod threaded {
            $( #[test] fn $name() { super::BATCH.with(|b| b.set(2)); super::$name(); } )*
        }
    };
}
both!(
    a_flood_of_strangers_stays_within_the_station_table,
    open_network,
    wpa2_ccmp_network,
    every_mode,
    wep_shared_key_wrong_key_refused,
    eccmp_falls_back_to_ccmp_and_wrong_passphrase_fails,
    replayed_and_forged_frames_are_counted_and_dropped,
    garbage_and_truncated_frames_never_panic,
    five_percent_loss_handshakes_complete,
    rekeys_keep_traffic_flowing,
    station_and_ap_restarts_recover,
    inactive_station_is_deauthenticated_and_shutdown_says_goodbye,
    card_offload_delays_but_delivers
);

/// The EAPOL-Key message 3 of a 4-way handshake in an unprotected data MPDU from the AP
/// (non-QoS header; LLC/SNAP 88-8E; Key Information with Pairwise, Install, Ack, MIC).
fn is_m3(f: &[u8]) -> bool {
    let Ok(h) = Header::new_checked(f) else { return false };
    if !h.frame_control().is_data() || h.frame_control().protected() || f.len() < 24 + 15 {
        return false;
    }
    let b = &f[24..];
    let ki = u16::from_be_bytes([b[13], b[14]]);
    b[..8] == [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e] && b[9] == 3 && ki & 0x1c8 == 0x1c8
}

/// A GTK rekey that starts while a station is between message 3 (which carried the old
/// GTK) and message 4 must still reach that station: seen on the air against a real
/// wpa_supplicant (interop lab, a reconnection meeting `wpa_group_rekey`), where the AP
/// switched to a GTK the station never received and its group frames stopped decrypting.
/// hostapd sends such a station group message 1 once it is established; so does wsec.
#[test]
fn gtk_rekey_during_a_four_way_handshake_reaches_that_station() {
    let sec = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let mut cfg = ApConfig::new(BSSID, b"wsec-test", sec.clone());
    cfg.group_rekey_s = 30;
    let t0 = 1_000 * MS;
    let mut ap = nodesim::ap_core(cfg, t0);
    let mut sta = nodesim::sta_core(StaConfig::new(STA1, b"wsec-test", sec), t0);
    let mut now = t0;
    let mut held_m4: Vec<Vec<u8>> = Vec::new();
    let mut m3_seen = false;
    let mut out = wsec::node::Output::default();
    // Exchange frames until the AP has sent message 3; hold the station's answer (M4).
    for _ in 0..5_000 {
        if ap.poll_timeout() <= now {
            ap.handle_timeout(now, &mut out);
        }
        let from_ap: Vec<Vec<u8>> = out.air.drain(..).collect();
        out.events.clear();
        if sta.poll_timeout() <= now {
            sta.handle_timeout(now, &mut out);
        }
        let mut from_sta: Vec<Vec<u8>> = out.air.drain(..).collect();
        for f in &from_ap {
            m3_seen |= is_m3(f);
            sta.handle_air(now, f, &mut out);
            from_sta.append(&mut out.air);
        }
        out.events.clear();
        if m3_seen {
            held_m4 = from_sta;
            break;
        }
        for f in &from_sta {
            ap.handle_air(now, f, &mut out);
        }
        now += MS;
    }
    assert!(m3_seen && !held_m4.is_empty(), "the AP never sent message 3");
    assert!(ap.stations().is_empty(), "the station must not be established before its message 4");
    // The rekey timer fires now, with the station mid-handshake; then its M4 arrives.
    now = t0 + 31 * SEC;
    ap.handle_timeout(now, &mut out);
    let mut from_ap: Vec<Vec<u8>> = out.air.drain(..).collect();
    for f in &held_m4 {
        ap.handle_air(now, f, &mut out);
    }
    from_ap.append(&mut out.air);
    let mut sta_host = Vec::new();
    // Let the two finish whatever they do (group message 1 and 2), 200 ms.
    for _ in 0..200 {
        let mut from_sta = Vec::new();
        for f in from_ap.drain(..) {
            sta.handle_air(now, &f, &mut out);
            from_sta.append(&mut out.air);
            sta_host.append(&mut out.host);
        }
        for f in from_sta {
            ap.handle_air(now, &f, &mut out);
            from_ap.append(&mut out.air);
        }
        now += MS;
        if ap.poll_timeout() <= now {
            ap.handle_timeout(now, &mut out);
            from_ap.append(&mut out.air);
        }
        if sta.poll_timeout() <= now {
            sta.handle_timeout(now, &mut out);
            let s: Vec<Vec<u8>> = out.air.drain(..).collect();
            for f in s {
                ap.handle_air(now, &f, &mut out);
                from_ap.append(&mut out.air);
            }
        }
    }
    let rekeyed = out.events.iter().any(|e| matches!(e, wsec::node::NodeEvent::Phase { phase: Phase::GroupKey { .. }, .. }));
    assert!(rekeyed, "the group rekey never finished");
    assert_eq!(ap.stations().len(), 1);
    // A broadcast from the wired side, under whatever GTK the AP transmits with now.
    let eth = frames::ethernet(&MacAddr([0xff; 6]), &WIRED, EtherType::IPV4, b"after the rekey");
    ap.handle_host(now, &eth, &mut out);
    for f in out.air.drain(..).collect::<Vec<_>>() {
        sta.handle_air(now, &f, &mut out);
    }
    sta_host.append(&mut out.host);
    assert!(
        sta_host.iter().any(|h| h.ends_with(b"after the rekey")),
        "the station cannot decrypt the AP's group frames after the rekey: it never got the new GTK"
    );
}

/// A PTK rekey as it happens on a busy link (seen against hostapd in the interop lab): the
/// station installs the new TK as it sends message 4 (12.7.6.4), the AP only when message 4
/// arrives, and what the AP sends in between is under the old TK. Those frames must reach
/// the station's host, one by one and through the batch (opened-ahead) path, with no drop;
/// after message 4 both ends use the new key.
#[test]
fn ap_frames_sent_before_message_4_arrives_survive_a_ptk_rekey() {
    use wsec::node::{NodeEvent, Output};
    let sec = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let mut cfg = ApConfig::new(BSSID, b"wsec-test", sec.clone());
    cfg.ptk_rekey_s = 5;
    let t0 = 1_000 * MS;
    let mut ap = nodesim::ap_core(cfg, t0);
    let mut sta = nodesim::sta_core(StaConfig::new(STA1, b"wsec-test", sec), t0);
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
    }
    let held_m4 = held_m4.expect("the station never installed a new PTK");
    assert!(!held_m4.is_empty(), "the station sent no message 4");
    assert_eq!(sta.counters.total_drops(), 0, "{}", sta.counters);
    // The AP has not seen message 4: its downlink is still under the old TK.
    let send = |ap: &mut wsec::node::ap::AccessPoint, ao: &mut Output, tag: &str, n: usize| -> Vec<Vec<u8>> {
        for i in 0..n {
            let eth = frames::ethernet(&STA1, &WIRED, EtherType::IPV4, format!("{tag} {i}").as_bytes());
            ap.handle_host(now, &eth, ao);
        }
        ao.air.drain(..).collect()
    };
    let old = send(&mut ap, &mut ao, "old-key", 20);
    assert_eq!(old.len(), 20);
    so.host.clear();
    for f in &old[..10] {
        sta.handle_air(now, f, &mut so);
    }
    sta.handle_air_batch(now, old[10..].iter().map(|f| f.as_slice()), &mut so);
    let got = so.host.iter().filter(|h| h.windows(7).any(|w| w == b"old-key")).count();
    assert_eq!(got, 20, "frames the AP protected under the old TK before message 4: {}", sta.counters);
    // A copy of one of them is a replay, on the old key's own counters.
    sta.handle_air(now, &old[3], &mut so);
    assert_eq!(sta.counters.total_drops(), 1, "{}", sta.counters);
    assert!(sta.counters.to_string().contains("replay"), "{}", sta.counters);
    // Message 4 arrives: the AP switches, and its frames under the new TK go through.
    ao.events.clear();
    for f in &held_m4 {
        ap.handle_air(now, f, &mut ao);
    }
    assert!(rekeyed(&ao), "the AP did not install the new PTK on message 4");
    let new = send(&mut ap, &mut ao, "new-key", 10);
    so.host.clear();
    sta.handle_air_batch(now, new.iter().map(|f| f.as_slice()), &mut so);
    assert_eq!(so.host.iter().filter(|h| h.windows(7).any(|w| w == b"new-key")).count(), 10, "{}", sta.counters);
    // Long after the rekey, an old-key frame no longer opens.
    now += 2_000 * MS;
    let replayed_late = old[19].clone();
    let before = sta.counters.total_drops();
    sta.handle_air(now, &replayed_late, &mut so);
    assert_eq!(sta.counters.total_drops(), before + 1, "{}", sta.counters);
}

/// Allocations on this thread, counted by the test binary's allocator (for
/// `relay_allocations`).
mod alloc_count {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static N: Cell<usize> = const { Cell::new(0) };
        static R: Cell<usize> = const { Cell::new(0) };
    }

    pub struct Counting;

    fn bump() {
        let _ = N.try_with(|n| n.set(n.get() + 1));
    }

    /// Allocations and reallocations so far on this thread.
    pub fn get() -> usize {
        N.with(|n| n.get())
    }

    /// Reallocations so far on this thread (each may copy the whole old buffer).
    pub fn reallocs() -> usize {
        R.with(|n| n.get())
    }

    // SAFETY: every call goes to the system allocator with the caller's arguments; the
    // count is a thread-local cell that allocates nothing.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            bump();
            // SAFETY: the caller's contract for `alloc` is the system allocator's.
            unsafe { System.alloc(l) }
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            bump();
            // SAFETY: as `alloc`.
            unsafe { System.alloc_zeroed(l) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            // SAFETY: `p` came from this allocator, that is from `System`, with `l`.
            unsafe { System.dealloc(p, l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
            bump();
            let _ = R.try_with(|r| r.set(r.get() + 1));
            // SAFETY: `p` came from `System` with `l`; the caller's contract is its.
            unsafe { System.realloc(p, l, n) }
        }
    }
}

#[global_allocator]
static ALLOC: alloc_count::Counting = alloc_count::Counting;

/// One relayed CCMP frame (station 1 to station 2 through the AP, opened under station 1's
/// key and protected under station 2's) costs the AP one allocation: the protected frame it
/// hands to the medium. The plaintext buffers come from the data path's pool.
#[test]
fn relay_allocations() {
    let sec = rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    let ap = ApConfig::new(BSSID, b"wsec-test", sec.clone());
    let stas = vec![StaConfig::new(STA1, b"wsec-test", sec.clone()), StaConfig::new(STA2, b"wsec-test", sec)];
    let mut sim = Sim::new(ap, stas, 0.0, 41, Feed::PerFrame);
    assert!(sim.run_until(3_000, |s| s.all_established()), "network did not come up");
    let now = sim.now;
    let eth = frames::ethernet(&STA2, &STA1, EtherType::IPV4, &[0x45; 200]);
    let mut so = wsec::node::Output::default();
    let sta1 = sim.stas[0].as_mut().unwrap();
    let up: Vec<Vec<u8>> = (0..3)
        .map(|_| {
            sta1.handle_host(now, &eth, &mut so);
            so.air.pop().unwrap()
        })
        .collect();
    let ap = sim.ap.as_mut().unwrap();
    let mut out = wsec::node::Output::default();
    out.air.reserve(8);
    // The first relay fills the pool.
    ap.handle_air(now, &up[0], &mut out);
    assert_eq!(out.air.len(), 1);
    for f in &up[1..] {
        out.air.clear();
        let before = alloc_count::get();
        ap.handle_air(now, f, &mut out);
        let n = alloc_count::get() - before;
        assert_eq!(out.air.len(), 1, "the AP relays the frame");
        assert_eq!(n, 1, "allocations for one relayed CCMP frame");
    }
    let sta2 = sim.stas[1].as_mut().unwrap();
    sta2.handle_air(now, &out.air[0], &mut so);
    assert_eq!(so.host.last(), Some(&eth));
}

/// The engine's batch relay (what `wsec bench relay` times): after the first batch has
/// filled the engine's buffer pool, the next batches grow no buffer. The pool's buffers
/// are recycled plaintexts, reused for the protected frames; a plaintext buffer sized
/// exactly would be grown (reallocated, its stale contents copied) for every frame.
#[test]
fn batch_relay_reallocates_nothing() {
    use wsec::link::sa::{KeyType, Role};
    use wsec::node::engine::{Engine, TxJob};
    let (sta1, sta2) = (MacAddr([2, 0, 0, 0, 0, 0x11]), MacAddr([2, 0, 0, 0, 0, 0x22]));
    let mut sta = Engine::new(Role::Supplicant);
    sta.install(Some(BSSID), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &[0x31; 16], None).unwrap();
    let mut ap = Engine::new(Role::Authenticator);
    ap.install(Some(sta1), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &[0x31; 16], None).unwrap();
    ap.install(Some(sta2), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &[0x47; 16], None).unwrap();
    let up: Vec<Vec<u8>> = (0..96u16)
        .map(|i| {
            let mut f = vec![0x08, 0x01, 0, 0];
            f.extend(BSSID.0);
            f.extend(sta1.0);
            f.extend(sta2.0);
            f.extend((i << 4).to_le_bytes());
            f.extend([0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00]);
            f.extend((0..1492).map(|j| (i as usize + j) as u8));
            sta.protect(Some(&BSSID), &f).unwrap()
        })
        .collect();
    let mut counts = Vec::new();
    for chunk in up.chunks(32) {
        let before = alloc_count::reallocs();
        let refs: Vec<&[u8]> = chunk.iter().map(|f| &f[..]).collect();
        let mut ahead = ap.open_ahead_air(&refs).into_iter();
        let mut jobs: Vec<TxJob> = chunk
            .iter()
            .map(|f| {
                let mut p = ap.unprotect_opened(0, &sta1, f, ahead.next().flatten()).unwrap().unwrap();
                p[1] = (p[1] & !0x03) | 0x02; // To DS into From DS; addresses as they are
                TxJob { peer: Some(sta2), mpdu: p, result: Ok(()) }
            })
            .collect();
        ap.protect_batch(&mut jobs);
        assert!(jobs.iter().all(|j| j.result.is_ok()));
        counts.push(alloc_count::reallocs() - before);
        // The protected frames go to the medium (dropped here), as in the live AP.
    }
    assert_eq!(&counts[1..], &[0, 0], "reallocations per batch of 32 after the first: {counts:?}");
}

/// A GTK rekey (12.7.7) waits for every station's group message 2; a station that leaves
/// meanwhile is no longer waited for. When it was the last one, the new GTK must go into
/// use then: before, the rekey stayed pending for good, the AP kept transmitting under the
/// old GTK while stations joining later got the new one in message 3 (their group frames
/// never opened; seen in the interop lab as owe-20-retry.wpas-wsecap), and no later rekey
/// started.
#[test]
fn a_station_leaving_during_a_gtk_rekey_lets_it_finish() {
    let mut sim = net(rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), rsn(CipherSuite::Ccmp128, CipherSuite::Ccmp128), 0.0, 38);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    // STA2 goes quiet (its group message 2 never comes), then says goodbye.
    sim.stas[1] = None;
    let group_keys = |s: &Sim| s.phases(0).iter().filter(|p| matches!(p, Phase::GroupKey { .. })).count();
    let before = group_keys(&sim);
    assert!(sim.with_ap(|a, now, out| assert!(a.rekey_gtk(now, out))).len() >= 2, "group message 1 to both stations");
    sim.run(20);
    assert_eq!(group_keys(&sim), before, "the rekey must wait for STA2");
    sim.inject.push(frames::deauth(&BSSID, &STA2, &BSSID, 7, ReasonCode::DEAUTH_LEAVING, true));
    sim.run(5);
    assert_eq!(group_keys(&sim), before + 1, "STA2 left: the new GTK is in use; {:?}", sim.phases(0));
    // The AP's group frames now go under the new GTK, and STA1 opens them.
    sim.ap_send(MacAddr::BROADCAST, b"after the rekey");
    sim.run(5);
    assert!(sim.sta_host[0].iter().any(|f| f.ends_with(b"after the rekey")), "{}", sim.sta(0).counters);
    // And the next rekey runs.
    sim.with_ap(|a, now, out| assert!(a.rekey_gtk(now, out)));
    sim.run(20);
    assert_eq!(group_keys(&sim), before + 2, "{:?}", sim.phases(0));
}

// --- A-MSDUs (9.3.2.2): the cores take protected ones apart (node::amsdu) ---------------

mod amsdu {
    use crate::nodesim::attacker::{amsdu_subframe, rsn, tk_on_air, Hdr, Keys, BSSID, SSID, STA1, STA2};
    use crate::nodesim::{Feed, Sim, WIRED};
    use wsec::node::amsdu::AmsduRx;
    use wsec::node::ap::ApConfig;
    use wsec::node::sta::StaConfig;
    use wsec::wire::mac::MacAddr;

    /// AP, STA1 and STA2 up under CCMP with the AP's and the stations' A-MSDU policy, and
    /// STA1's TK (the test sends as STA1, or as the AP to STA1).
    fn net(policy: AmsduRx, feed: Feed) -> (Sim, Keys) {
        let mut ap = ApConfig::new(BSSID, SSID, rsn());
        ap.amsdu_rx = policy;
        let stas = [STA1, STA2]
            .into_iter()
            .map(|a| {
                let mut c = StaConfig::new(a, SSID, rsn());
                c.amsdu_rx = policy;
                c
            })
            .collect();
        let mut sim = Sim::new(ap, stas, 0.0, 37, feed);
        assert!(sim.run_until(3_000, |s| s.all_established()), "network did not come up: {:?}", sim.events);
        let keys = Keys::new(&tk_on_air(&sim, STA1));
        (sim, keys)
    }

    /// The MSDU of an IPv4 packet (LLC/SNAP 08-00), here any payload.
    fn ipv4(payload: &[u8]) -> Vec<u8> {
        let mut v = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
        v.extend_from_slice(payload);
        v
    }

    /// An Ethernet II frame: DA, SA, EtherType 08-00, payload.
    fn eth(da: MacAddr, sa: MacAddr, payload: &[u8]) -> Vec<u8> {
        let mut v = da.0.to_vec();
        v.extend(sa.0);
        v.extend([0x08, 0x00]);
        v.extend_from_slice(payload);
        v
    }

    /// A CCMP-protected QoS Data MPDU (TID 2) with A-MSDU Present: STA1 to the AP when
    /// `to_ap`, else the AP to STA1; Address 3 the wired host.
    fn amsdu_mpdu(keys: &mut Keys, to_ap: bool, seq: u16, body: &[u8]) -> Vec<u8> {
        let (a1, a2) = if to_ap { (BSSID, STA1) } else { (STA1, BSSID) };
        let h = Hdr { to_ds: to_ap, a1, a2, a3: WIRED, seq, frag: 0, more: false, tid: Some(2), amsdu: true };
        keys.enc(&h.bytes(body))
    }

    fn send(sim: &mut Sim, f: Vec<u8>) {
        sim.inject.push(f);
        sim.step();
        sim.run(2);
    }

    /// Three MSDUs from STA1 in one MPDU: to the wired side (bridged), to STA2 (relayed
    /// under STA2's key) and to broadcast (both); then the FragAttacks frame.
    fn ap_takes_a_protected_amsdu_apart(feed: Feed) {
        let (mut sim, mut keys) = net(AmsduRx::default(), feed);
        let (host0, sta2_0) = (sim.ap_host.len(), sim.sta_host[1].len());
        let mut body = amsdu_subframe(WIRED, STA1, &ipv4(b"to the wired side"), false);
        body.extend(amsdu_subframe(STA2, STA1, &ipv4(b"to sta2"), false));
        body.extend(amsdu_subframe(MacAddr::BROADCAST, STA1, &ipv4(b"to everyone"), true));
        let f = amsdu_mpdu(&mut keys, true, 200, &body);
        send(&mut sim, f);
        let ap = sim.ap();
        assert_eq!(ap.counters.total_drops(), 0, "{}", ap.counters);
        assert_eq!(ap.counters.relayed, 1, "{}", ap.counters);
        assert_eq!(
            sim.ap_host[host0..],
            [eth(WIRED, STA1, b"to the wired side"), eth(MacAddr::BROADCAST, STA1, b"to everyone")],
            "{}",
            ap.counters
        );
        assert_eq!(sim.sta_host[1][sta2_0..], [eth(STA2, STA1, b"to sta2"), eth(MacAddr::BROADCAST, STA1, b"to everyone")]);

        // CVE-2020-24588: a genuine MSDU with A-MSDU Present set by the attacker (its
        // LLC/SNAP header the first DA; an IPv4 packet whose payload holds a subframe).
        let mut inject = ipv4(&[0x45, 0, 0, 0x28, 0, 0x22, 0, 0, 0x40, 0x06, 0, 0, 1, 2, 3, 4, 192, 168, 1, 2]);
        inject.extend(amsdu_subframe(WIRED, STA1, &ipv4(b"injected"), true));
        let f = amsdu_mpdu(&mut keys, true, 201, &inject);
        send(&mut sim, f);
        let ap = sim.ap();
        assert_eq!(ap.counters.dropped("a-msdu starts with an llc/snap header"), 1, "{}", ap.counters);
        assert_eq!(ap.counters.total_drops(), 1, "{}", ap.counters);
        assert_eq!(sim.ap_host.len(), host0 + 2);
        assert_eq!(sim.sta_host[1].len(), sta2_0 + 2);
    }

    #[test]
    fn ap_takes_a_protected_amsdu_apart_per_frame() {
        ap_takes_a_protected_amsdu_apart(Feed::PerFrame)
    }

    #[test]
    fn ap_takes_a_protected_amsdu_apart_batched() {
        ap_takes_a_protected_amsdu_apart(Feed::Batched)
    }

    /// From the AP to STA1: its own MSDU and a broadcast one delivered, one for another
    /// station dropped (mac80211's `check_da`).
    #[test]
    fn sta_takes_the_amsdu_of_its_ap() {
        let (mut sim, mut keys) = net(AmsduRx::default(), Feed::PerFrame);
        let host0 = sim.sta_host[0].len();
        let mut body = amsdu_subframe(STA1, WIRED, &ipv4(b"to sta1"), false);
        body.extend(amsdu_subframe(STA2, WIRED, &ipv4(b"to sta2"), false));
        body.extend(amsdu_subframe(MacAddr::BROADCAST, WIRED, &ipv4(b"to everyone"), true));
        let f = amsdu_mpdu(&mut keys, false, 300, &body);
        send(&mut sim, f);
        let s = sim.sta(0);
        assert_eq!(sim.sta_host[0][host0..], [eth(STA1, WIRED, b"to sta1"), eth(MacAddr::BROADCAST, WIRED, b"to everyone")]);
        assert_eq!(s.counters.dropped("a-msdu subframe for another station"), 1, "{}", s.counters);
        assert_eq!(s.counters.total_drops(), 1, "{}", s.counters);
    }

    /// `AmsduRx::Refuse` (wsec before A-MSDUs) and `SppOnly` on links that negotiate no SPP
    /// A-MSDU: the same A-MSDU is dropped whole, counted.
    #[test]
    fn policy_refuses() {
        for policy in [AmsduRx::Refuse, AmsduRx::SppOnly] {
            let (mut sim, mut keys) = net(policy, Feed::PerFrame);
            let host0 = sim.ap_host.len();
            let body = amsdu_subframe(WIRED, STA1, &ipv4(b"refused"), true);
            let f = amsdu_mpdu(&mut keys, true, 400, &body);
            send(&mut sim, f);
            let ap = sim.ap();
            assert_eq!(ap.counters.dropped("a-msdu refused"), 1, "{policy:?}: {}", ap.counters);
            assert_eq!(sim.ap_host.len(), host0, "{policy:?}");
        }
    }
}
