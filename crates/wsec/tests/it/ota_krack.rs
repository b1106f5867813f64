//! The KRACK test scripts' checks (Vanhoef and Piessens, CCS 2017 and 2018; github
//! vanhoefm/krackattacks-scripts, `krack-test-client.py` and its README) against the live
//! station core, in memory. The scripts are a modified AP (hostapd) that retransmits
//! handshake messages to the client under test and then replays frames or watches the
//! client's packet numbers; here the real AP core retransmits (the test, a man in the
//! middle on the medium, blocks the client's answer so that it must) and the test holds
//! the link's keys (from the handshake on the air and the passphrase) to replay, forge
//! and check as the scripts do. A key reinstallation shows as a transmit PN that starts
//! again (nonce reuse, 12.5.3.3.4) or as a receive replay counter that starts again (a
//! replayed frame accepted, 12.5.3.4.4). The 802.11-2020 rules: 12.7.6.4 (the Supplicant
//! installs the PTK once per 4-way handshake; a retransmitted message 3 is answered, not
//! reinstalled), 12.7.7.3 (likewise the GTK/IGTK of group message 1), 12.6.21 (keys and
//! their counters are per SA). FT reassociation (`krack-ft-test.py`, CVE-2017-13082) is
//! not applicable: wsec has no fast BSS transition yet. See docs/ota-attacks.md.
use crate::nodesim;
use nodesim::attacker::*;
use nodesim::{Sim, WIRED};
use std::cell::RefCell;
use std::rc::Rc;
use wsec::node::mfp::Mfp;
use wsec::node::{NodeEvent, Phase};
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::ReasonCode;

/// The man in the middle: counts the AP's handshake messages that reach STA1 (`want` says
/// which, by Key Information), blocks STA1's frames to the AP once the first arrived (so
/// that the AP retransmits), and holds the retransmissions instead of delivering them
/// while `hold` is set.
#[derive(Default)]
struct Mitm {
    tks: Vec<Vec<u8>>,
    seen: usize,
    armed: bool,
    block_up: bool,
    hold: bool,
    held: Vec<Vec<u8>>,
}

type Want = fn(u16) -> bool;

fn is_m3(ki: u16) -> bool {
    ki & (KI_PAIRWISE | KI_INSTALL | KI_ACK) == KI_PAIRWISE | KI_INSTALL | KI_ACK
}

fn is_group_m1(ki: u16) -> bool {
    ki & (KI_PAIRWISE | KI_ACK) == KI_ACK
}

fn mitm(sim: &mut Sim, want: Want) -> Rc<RefCell<Mitm>> {
    let m = Rc::new(RefCell::new(Mitm { armed: true, ..Default::default() }));
    let mm = m.clone();
    sim.block = Some(Box::new(move |from, to, f| {
        let mut m = mm.borrow_mut();
        // The AP's frames, also those a test had it send at once (`Sim::with_ap`).
        let from_ap = (from == 0 || from == usize::MAX) && addr(f, 2) == BSSID;
        if m.armed && from_ap && to == 1 && addr(f, 1) == STA1 && key_info(f, &m.tks).is_some_and(want) {
            m.block_up = true;
            if m.hold {
                m.held.push(f.to_vec());
                return true;
            }
            m.seen += 1;
        }
        from == 1 && to == 0 && m.block_up
    }));
    m
}

/// Ends the man in the middle; the link comes back. STA1 answers every retransmitted
/// message 3 with a message 4 protected under the PTK it installed, which the AP (still
/// without that PTK) cannot open: the AP gives up after its last retransmission,
/// deauthenticates STA1 (reason 15) and STA1 joins again with a fresh PTK (see
/// docs/ota-attacks.md). Either way, within 6 s.
fn release(sim: &mut Sim) {
    sim.block = None;
    let k = tks_on_air(&sim.air, STA1).len();
    assert!(sim.run_until(6_000, |s| s.all_established()), "the link did not come back: {:?}", sim.events);
    let _ = k;
}

/// Holds the AP's next retransmission of the message the man in the middle watches (within
/// 1.5 s: the AP retransmits after 1 s) and hands it over instead of delivering it.
fn hold_next(sim: &mut Sim, m: &Rc<RefCell<Mitm>>, what: &str) -> Vec<u8> {
    m.borrow_mut().hold = true;
    assert!(sim.run_until(1_500, |_| !m.borrow().held.is_empty()), "the AP did not retransmit {what}");
    let mut mm = m.borrow_mut();
    mm.hold = false;
    mm.held.remove(0)
}

/// The protected data frames STA1 sent to the AP, from `start` on the air.
fn sta1_protected(sim: &Sim, start: usize) -> Vec<Vec<u8>> {
    sim.air[start..].iter().filter(|f| is_data(f) && is_protected(f) && addr(f, 2) == STA1 && addr(f, 1) == BSSID).cloned().collect()
}

/// The scripts' pairwise check (`check_pairwise_reinstall`, `mark_allzero_key`): every
/// frame STA1 protected opens under the TK of one of its handshakes on the air, none under
/// an all-zero TK, and under each TK the PNs only grow (a PN used twice under one TK is
/// the nonce reuse a reinstalled PTK causes, 12.5.3.3.4). Returns how many frames each TK
/// protected.
fn no_nonce_reuse(sim: &Sim) -> Vec<usize> {
    let tks = tks_on_air(&sim.air, STA1);
    let frames = sta1_protected(sim, 0);
    let zero = vec![0u8; 16];
    let mut last = vec![0; tks.len()];
    let mut n = vec![0; tks.len()];
    for f in &frames {
        assert!(open_any(f, std::slice::from_ref(&zero)).is_none(), "STA1 transmits under an all-zero TK");
        let (_, i) = open_any(f, &tks).expect("a frame from STA1 under no handshake's TK");
        let pn = ccmp_pn(f);
        assert!(pn > last[i], "STA1 reused PN {pn} (after {}) under TK {i}: its PTK was reinstalled", last[i]);
        last[i] = pn;
        n[i] += 1;
    }
    n
}

/// The latest broadcast data frame the AP protected.
fn last_group_frame(sim: &Sim) -> Vec<u8> {
    sim.air.iter().rev().find(|f| is_data(f) && is_protected(f) && addr(f, 1) == MacAddr::BROADCAST && addr(f, 2) == BSSID).unwrap().clone()
}

/// A unicast frame to STA1 as the AP, QoS TID 2 (its own replay counter: the AP's own
/// non-QoS frames are not disturbed), under `tk` with PN `pn`.
fn to_sta1(tk: &[u8], pn: u64, tag: &str) -> Vec<u8> {
    let h = Hdr { to_ds: false, a1: STA1, a2: BSSID, a3: WIRED, seq: 7, frag: 0, more: false, tid: Some(2), amsdu: false };
    let mut out = Vec::new();
    ccmp(tk).encapsulate(&h.bytes(&ping(tag)), pn, 0, &mut out).unwrap();
    out
}

fn host_count(sim: &Sim, sta: usize, tag: &str) -> usize {
    sim.sta_host[sta].iter().filter(|e| e.windows(tag.len()).any(|w| w == tag.as_bytes())).count()
}

/// Injects `frames` at STA1 and checks its drop counters moved by exactly `want`.
fn inject_expect(sim: &mut Sim, frames: &[Vec<u8>], want: &[(&'static str, u64)]) {
    let before = sim.sta(0).counters.drops.clone();
    for f in frames {
        sim.inject.push(f.clone());
        sim.step();
    }
    assert_eq!(delta(&before, &sim.sta(0).counters.drops), drops(want), "{}", sim.sta(0).counters);
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tptk {
    No,
    /// `--tptk`: a forged message 1 with the handshake's ANonce.
    Same,
    /// `--tptk-rand`: with a random ANonce.
    Rand,
}

/// `krack-test-client.py` (default, `--tptk`, `--tptk-rand`): STA1's message 4 never
/// reaches the AP, which retransmits message 3 (a valid one, its replay counter one
/// higher) after a second. Before it arrives, STA1 (which installed its PTK and GTK on the
/// first message 3) sends data, accepts a unicast frame and the AP's broadcast. After it:
/// no PN of STA1 is used twice (CVE-2017-13077), the unicast and broadcast frames replayed
/// are refused (the PTK's and GTK's receive counters were not reset; CVE-2017-13077,
/// CVE-2017-13078), nothing is under an all-zero TK (wpa_supplicant 2.4/2.5) and a frame
/// under an all-zero TK is refused.
fn fourway(tptk: Tptk) {
    let mut sim = network(rsn(), Mfp::Disabled);
    let m = mitm(&mut sim, is_m3);
    let up = |s: &Sim| s.sta(0).is_established() && s.sta(1).is_established() && s.ap().stations().len() == 1;
    assert!(sim.run_until(3_000, up), "{:?}", sim.events);
    assert_eq!(m.borrow().seen, 1);
    assert!(sim.ap().station_info(&STA1).is_none_or(|i| i.counters.key_installs == 0), "the AP got message 4");
    let tk = tk_on_air(&sim, STA1);
    // Before the retransmission: STA1 sends, receives a unicast and a broadcast frame.
    sim.sta_send(0, WIRED, b"before 1");
    sim.sta_send(0, WIRED, b"before 2");
    let uni = to_sta1(&tk, 5_000, "unicast before");
    sim.inject.push(uni.clone());
    sim.ap_send(MacAddr::BROADCAST, b"broadcast before");
    sim.run(2);
    let bcast = last_group_frame(&sim);
    assert_eq!(host_count(&sim, 0, "unicast before"), 1, "{}", sim.sta(0).counters);
    assert_eq!(host_count(&sim, 0, "broadcast before"), 1, "{}", sim.sta(0).counters);
    // The retransmitted message 3 as the scripts' AP sends it: its Key RSC (the GTK's
    // receive counter) reset to 0; with the scripts' forged message 1 first, if asked.
    let mut m3 = hold_next(&mut sim, &m, "message 3");
    let ptk = full_ptks_on_air(&sim.air, STA1).pop().unwrap();
    rewrite_key_msg(&mut m3, &ptk, Some(0), None);
    if tptk != Tptk::No {
        let (_, rc, _) = eapol_key(&m3).unwrap();
        let mut m1 = sim
            .air
            .iter()
            .find(|f| addr(f, 1) == STA1 && eapol_key(f).is_some_and(|k| k.0 & KI_ACK != 0 && k.0 & KI_MIC == 0))
            .unwrap()
            .clone();
        let e = 24 + 8;
        m1[e + 9..e + 17].copy_from_slice(&rc.to_be_bytes());
        if tptk == Tptk::Rand {
            m1[e + 17..e + 49].copy_from_slice(&[0x77; 32]);
        }
        sim.air.push(m1.clone()); // on the air, for the TPTK's derivation
        sim.inject.push(m1);
        sim.step();
    }
    sim.inject.push(m3);
    sim.step();
    assert_eq!(m.borrow().seen, 2);
    sim.run(2);
    assert!(sim.sta(0).is_established(), "{:?}", sim.events);
    sim.sta_send(0, WIRED, b"after 1");
    sim.sta_send(0, WIRED, b"after 2");
    sim.run(1);
    // Under the handshake's TK: before 1, 2, the answer to the retransmitted message 3
    // (none when the forged message 1's TPTK does not verify it), the answer to the forged
    // message 1, after 1, 2. Under any other TK (a TPTK): nothing.
    let n = no_nonce_reuse(&sim);
    let want = match tptk {
        Tptk::No => 5,
        Tptk::Same => 6,
        Tptk::Rand => 5,
    };
    assert_eq!((n[0], n[1..].iter().sum::<usize>()), (want, 0), "frames per TK {n:?}");
    // Replays of what STA1 accepted before, and the all-zero TK.
    let zero = to_sta1(&[0; 16], 6_000, "all-zero tk");
    inject_expect(&mut sim, &[uni, bcast, zero], &[("replay", 2), ("mic failure", 1)]);
    assert_eq!(host_count(&sim, 0, "unicast before"), 1);
    assert_eq!(host_count(&sim, 0, "broadcast before"), 1);
    assert_eq!(host_count(&sim, 0, "all-zero tk"), 0);
    // The link still works under the one PTK once message 4 gets through.
    release(&mut sim);
    sim.sta_send(0, WIRED, b"after release");
    sim.run(2);
    assert!(sim.ap_host.iter().any(|e| e.ends_with(b"after release")), "{}", sim.ap().counters);
    no_nonce_reuse(&sim);
}

#[test]
fn fourway_retransmitted_m3() {
    fourway(Tptk::No)
}

#[test]
fn fourway_tptk() {
    fourway(Tptk::Same)
}

#[test]
fn fourway_tptk_rand() {
    fourway(Tptk::Rand)
}

/// WFA KRACK test 4.1.3 (the scripts' default against a rekey): a PTK rekey whose message
/// 4 is blocked, so the AP retransmits message 3, protected under the old PTK. STA1
/// installs the new TK once: its PNs under it never repeat and a frame it accepted under
/// it is refused when replayed.
#[test]
fn ptk_rekey_retransmitted_m3() {
    let mut sim = network(rsn(), Mfp::Disabled);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let old = tk_on_air(&sim, STA1);
    let m = mitm(&mut sim, is_m3);
    m.borrow_mut().tks = vec![old.clone()];
    let start = sim.air.len();
    sim.with_ap(|ap, now, out| assert!(ap.rekey_ptk(now, &STA1, out)));
    assert!(sim.run_until(100, |_| m.borrow().seen == 1));
    sim.run(2);
    let tks = tks_on_air(&sim.air, STA1);
    assert_eq!(tks.len(), 2, "no new PTK on the air");
    let new = tks[1].clone();
    sim.sta_send(0, WIRED, b"new key 1");
    sim.sta_send(0, WIRED, b"new key 2");
    let uni = to_sta1(&new, 5_000, "under the new tk");
    sim.inject.push(uni.clone());
    sim.run(1);
    assert_eq!(host_count(&sim, 0, "under the new tk"), 1, "{}", sim.sta(0).counters);
    assert!(sim.run_until(1_500, |_| m.borrow().seen >= 2), "the AP did not retransmit message 3");
    sim.run(2);
    sim.sta_send(0, WIRED, b"new key 3");
    sim.sta_send(0, WIRED, b"new key 4");
    sim.run(1);
    // STA1's frames under the new TK: PNs strictly growing.
    let mut last = 0;
    let under_new: Vec<Vec<u8>> =
        sta1_protected(&sim, start).into_iter().filter(|f| open_any(f, std::slice::from_ref(&new)).is_some()).collect();
    assert!(under_new.len() >= 4, "{}", under_new.len());
    for f in &under_new {
        let pn = ccmp_pn(f);
        assert!(pn > last, "STA1 reused PN {pn} under the new TK: reinstalled");
        last = pn;
    }
    inject_expect(&mut sim, &[uni], &[("replay", 1)]);
    release(&mut sim);
}

/// `krack-test-client.py --group` (CVE-2017-13080): a GTK rekey whose group message 2
/// from STA1 is blocked, so the AP retransmits group message 1 (the same GTK, 12.7.7.3),
/// which the man in the middle delivers with Key RSC 0 as the scripts' AP does. Broadcast
/// frames STA1 accepted, before the rekey and after its first group message 1, are
/// refused when replayed after the retransmission. Once the rekey is done and the new GTK
/// in use, the scripts' own group message 1 with that GTK and RSC 0: a broadcast accepted
/// under it before is still a replay. No GTK was reinstalled with a reset counter.
#[test]
fn group_retransmitted_m1() {
    let mut sim = network(rsn(), Mfp::Disabled);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    sim.ap_send(MacAddr::BROADCAST, b"broadcast 1");
    sim.run(1);
    let b1 = last_group_frame(&sim);
    let m = mitm(&mut sim, is_group_m1);
    m.borrow_mut().tks = tks_on_air(&sim.air, STA1);
    sim.with_ap(|ap, now, out| assert!(ap.rekey_gtk(now, out)));
    assert!(sim.run_until(100, |_| m.borrow().seen == 1));
    sim.ap_send(MacAddr::BROADCAST, b"broadcast 2");
    sim.run(1);
    let b2 = last_group_frame(&sim);
    assert_eq!(host_count(&sim, 0, "broadcast 2"), 1, "{}", sim.sta(0).counters);
    // The retransmission, as the scripts' AP sends it: Key RSC 0.
    let real = hold_next(&mut sim, &m, "group message 1");
    let ptk = full_ptks_on_air(&sim.air, STA1).pop().unwrap();
    let (mut plain, _) = open_any(&real, std::slice::from_ref(&ptk.tk)).unwrap();
    rewrite_key_msg(&mut plain, &ptk, Some(0), None);
    let mut g1 = Vec::new();
    ccmp(&ptk.tk).encapsulate(&plain, ccmp_pn(&real), 0, &mut g1).unwrap();
    sim.inject.push(g1);
    sim.step();
    assert_eq!(m.borrow().seen, 2);
    sim.run(2);
    assert!(sim.sta(0).is_established());
    inject_expect(&mut sim, &[b1, b2], &[("replay", 2)]);
    assert_eq!(host_count(&sim, 0, "broadcast 1"), 1);
    assert_eq!(host_count(&sim, 0, "broadcast 2"), 1);
    release(&mut sim);
    // The rekey completes: the new GTK carries the AP's broadcasts to STA1.
    assert!(sim.run_until(3_000, |s| s.phases(0).contains(&Phase::GroupKey { key_id: 2 })), "{:?}", sim.phases(0));
    sim.ap_send(MacAddr::BROADCAST, b"broadcast 3");
    sim.run(1);
    assert_eq!(host_count(&sim, 0, "broadcast 3"), 1, "{}", sim.sta(0).counters);
    let b3 = last_group_frame(&sim);
    // The scripts' periodic group message 1 with the GTK in use (now Key ID 2), Key RSC
    // 0 and a fresh replay counter, from the AP's address under STA1's PTK (QoS TID 7,
    // its own replay counter). STA1 must answer it without reinstalling that GTK.
    let mut body = plain[24..].to_vec();
    let rc = u64::from_be_bytes(body[8 + 9..8 + 17].try_into().unwrap()) + 10;
    body[8 + 9..8 + 17].copy_from_slice(&rc.to_be_bytes());
    let h = Hdr { to_ds: false, a1: STA1, a2: BSSID, a3: BSSID, seq: 9, frag: 0, more: false, tid: Some(7), amsdu: false };
    let mut again = h.bytes(&body);
    rewrite_key_msg(&mut again, &ptk, Some(0), None);
    let mut g1 = Vec::new();
    ccmp(&ptk.tk).encapsulate(&again, 5_000, 0, &mut g1).unwrap();
    let up = sim.air.len();
    inject_expect(&mut sim, &[g1], &[]);
    sim.run(1);
    assert!(sim.air[up..].iter().any(|f| is_data(f) && addr(f, 2) == STA1 && is_protected(f)), "STA1 did not answer group message 1");
    inject_expect(&mut sim, &[b3], &[("replay", 1)]);
    assert_eq!(host_count(&sim, 0, "broadcast 3"), 1);
}

/// `krack-test-client.py --group --gtkinit`: the client installs the GTK of group message
/// 1 with the RSC that message gives (12.7.7.3, Key RSC). The scripts' AP announces a high
/// RSC; here the man in the middle, holding STA1's KCK, replaces group message 1 with a
/// copy whose Key RSC is 5 (MIC recomputed, 12.7.2; same replay counter and PN, so the AP
/// takes STA1's answer). The AP's first five broadcasts under the new GTK are then
/// replays for STA1; the sixth and seventh are delivered.
#[test]
fn group_m1_rsc_honoured() {
    let mut sim = network(rsn(), Mfp::Disabled);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let ptk = full_ptks_on_air(&sim.air, STA1).pop().unwrap();
    let tk = ptk.tk.clone();
    let m = mitm(&mut sim, is_group_m1);
    m.borrow_mut().tks = vec![tk.clone()];
    m.borrow_mut().hold = true;
    sim.with_ap(|ap, now, out| assert!(ap.rekey_gtk(now, out)));
    assert!(sim.run_until(100, |_| !m.borrow().held.is_empty()));
    let real = m.borrow_mut().held.remove(0);
    {
        let mut mm = m.borrow_mut();
        mm.hold = false;
        mm.armed = false;
        mm.block_up = false;
    }
    let pn = ccmp_pn(&real);
    let (mut plain, _) = open_any(&real, std::slice::from_ref(&tk)).unwrap();
    rewrite_key_msg(&mut plain, &ptk, Some(5), None);
    let mut forged = Vec::new();
    ccmp(&tk).encapsulate(&plain, pn, 0, &mut forged).unwrap();
    sim.inject.push(forged);
    assert!(sim.run_until(100, |s| s.phases(0).contains(&Phase::GroupKey { key_id: 2 })), "{:?}", sim.phases(0));
    let before = sim.sta(0).counters.drops.clone();
    for i in 1..=7 {
        sim.ap_send(MacAddr::BROADCAST, format!("new gtk {i}").as_bytes());
        sim.run(1);
    }
    assert_eq!(delta(&before, &sim.sta(0).counters.drops), drops(&[("replay", 5)]), "{}", sim.sta(0).counters);
    let got: Vec<usize> = (1..=7).map(|i| host_count(&sim, 0, &format!("new gtk {i}"))).collect();
    assert_eq!(got, [0, 0, 0, 0, 0, 1, 1]);
    // STA2 got the real message (RSC 0): all seven.
    assert_eq!((1..=7).map(|i| host_count(&sim, 1, &format!("new gtk {i}"))).sum::<usize>(), 7);
}

/// `krack-test-client.py --gtkinit`: the GTK of message 3 is installed with the RSC of
/// the GTK KDE's message (12.7.6.4, Key RSC): broadcasts the AP sent before STA1 joined
/// are replays for it.
#[test]
fn gtk_rsc_in_4way() {
    let mut sim = network(rsn(), Mfp::Disabled);
    let cfg = sim.sta(0).config().clone();
    sim.stas[0] = None;
    assert!(sim.run_until(3_000, |s| s.sta(1).is_established()), "{:?}", sim.events);
    let mut sent = Vec::new();
    for i in 0..3 {
        sim.ap_send(MacAddr::BROADCAST, format!("before join {i}").as_bytes());
        sim.run(1);
        sent.push(last_group_frame(&sim));
    }
    sim.stas[0] = Some(nodesim::sta_core(cfg, sim.now));
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    inject_expect(&mut sim, &sent, &[("replay", 3)]);
    assert_eq!((0..3).map(|i| host_count(&sim, 0, &format!("before join {i}"))).sum::<usize>(), 0);
    sim.ap_send(MacAddr::BROADCAST, b"after join");
    sim.run(1);
    assert_eq!(host_count(&sim, 0, "after join"), 1);
}

/// `krack-test-client.py --replay-broadcast` (and `--replay-unicast`): replayed broadcast
/// and unicast frames are refused (12.5.3.4.4), the scripts' precondition for the group
/// key tests.
#[test]
fn replay_broadcast_and_unicast() {
    let mut sim = network(rsn(), Mfp::Disabled);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    sim.ap_send(MacAddr::BROADCAST, b"broadcast once");
    sim.ap_send(STA1, b"unicast once");
    sim.run(1);
    let b = last_group_frame(&sim);
    let u = sim.air.iter().rev().find(|f| is_data(f) && is_protected(f) && addr(f, 1) == STA1).unwrap().clone();
    inject_expect(&mut sim, &[b.clone(), u, b], &[("replay", 3)]);
    assert_eq!(host_count(&sim, 0, "broadcast once"), 1);
    assert_eq!(host_count(&sim, 0, "unicast once"), 1);
}

/// The IGTK (CVE-2017-13079 via message 3; the scripts' `experimental_test_igtk_installation`):
/// with MFP, a group-addressed BIP Deauthentication STA1 obeyed is captured; STA1 joins
/// again with its message 4 blocked, so the AP retransmits message 3 (with the IGTK KDE,
/// 12.7.2). Before and after that retransmission the captured frame is a replay for STA1
/// (its IPN counter, 12.5.4.5, was not reset by a reinstalled IGTK): STA1 stays.
#[test]
fn igtk_retransmitted_m3() {
    let mut sim = network(rsn(), Mfp::Required);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let fs = sim.with_ap(|ap, _, out| ap.deauth_broadcast(ReasonCode::DEAUTH_LEAVING, out));
    let bip = fs[0].clone();
    assert_eq!(&bip[26..28], &[76, 16], "a BIP Deauthentication");
    let m = mitm(&mut sim, is_m3);
    sim.run(1);
    assert!(sim.phases(1).iter().any(|p| matches!(p, Phase::Deauthenticated { .. })), "{:?}", sim.phases(1));
    let up = |s: &Sim| s.sta(0).is_established() && s.sta(1).is_established() && s.ap().stations().len() == 1;
    assert!(sim.run_until(3_000, up), "{:?}", sim.events);
    assert!(sim.sta(0).mfp_active());
    let replay = |sim: &mut Sim| {
        let before = sim.sta(0).counters.drops.clone();
        sim.inject.push(bip.clone());
        sim.step();
        assert_eq!(delta(&before, &sim.sta(0).counters.drops), drops(&[("replay", 1)]), "{}", sim.sta(0).counters);
        assert!(sim.sta(0).is_established(), "STA1 obeyed a replayed BIP deauthentication");
    };
    replay(&mut sim);
    // The retransmitted message 3 as the scripts' AP would send it: the IGTK KDE's IPN
    // (and the Key RSC) reset to 0.
    let mut m3 = hold_next(&mut sim, &m, "message 3");
    let ptk = full_ptks_on_air(&sim.air, STA1).pop().unwrap();
    rewrite_key_msg(&mut m3, &ptk, Some(0), Some(0));
    sim.inject.push(m3);
    sim.step();
    assert_eq!(m.borrow().seen, 2);
    sim.run(2);
    replay(&mut sim);
    release(&mut sim);
    let leaving = Phase::Deauthenticated { reason: ReasonCode::DEAUTH_LEAVING, by_peer: true };
    let deauths = sim.events.iter().filter(|(w, e)| *w == 1 && matches!(e, NodeEvent::Phase { phase, .. } if *phase == leaving)).count();
    assert_eq!(deauths, 1, "only the genuine BIP deauthentication was obeyed");
}
