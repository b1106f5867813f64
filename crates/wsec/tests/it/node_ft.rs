//! Fast BSS transition (IEEE 802.11-2020 13) in the AP and station cores, in memory: two
//! APs of one mobility domain on one medium, a station that makes its FT initial mobility
//! domain association with one (13.4), roams to the other over the air (13.5.2) and back,
//! with data both ways after each step; FT-PSK with keys generated locally at each AP and
//! FT-SAE with the PMK-R0 shared by the APs of one domain; the refusals with their status
//! codes (a wrong MDID, an unknown PMKR0Name, a bad FTE MIC) leave the station where it was.
use crate::multi_ap::{Net, STA_ID};
use wsec::cipher::CipherSuite;
use wsec::node::ap::{AccessPoint, ApConfig, FtDomain, FtSettings};
use wsec::node::mfp::Mfp;
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::wire::mac::MacAddr;

const AP1: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa0, 0x01]);
const AP2: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa0, 0x02]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0xb0, 0x01]);
const PSK: [u8; 32] = [0x42; 32];

fn security(akm: Akm) -> Security {
    Security::Rsn { akms: vec![akm], pairwise: vec![CipherSuite::Ccmp128], groups: vec![CipherSuite::Ccmp128], pmk: PSK.to_vec().into() }
}

fn ap_cfg(bssid: MacAddr, nas: &str, akm: Akm, mdid: [u8; 2], local: bool) -> ApConfig {
    let mut c = ApConfig::new(bssid, b"ft-net", security(akm));
    let mut f = FtSettings::new(mdid, nas.as_bytes(), bssid);
    f.psk_generate_local = local;
    c.ft = Some(f);
    if akm == Akm::FtSae {
        c.mfp = Mfp::Required;
        c.sae = Some(sae());
    }
    c
}

fn sae() -> wsec::node::sae::SaeSettings {
    let pw = wsec::node::sae::SaePassword { password: b"secret sauce".to_vec().into(), identifier: None, mac: None };
    wsec::node::sae::SaeSettings::new(vec![pw])
}

fn sta_cfg(akm: Akm, bssid: Option<MacAddr>) -> StaConfig {
    let mut c = StaConfig::new(STA, b"ft-net", security(akm));
    c.bssid = bssid;
    if akm == Akm::FtSae {
        c.mfp = Mfp::Required;
        c.sae = Some(sae());
    }
    c
}

/// The APs (joined in one FT domain with `domain`) and the station, seeded.
fn net(aps: Vec<ApConfig>, sta: StaConfig, domain: bool) -> Net {
    let d = FtDomain::new();
    let aps = aps
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let mut a = AccessPoint::new(c, 0, wsec::rng::seeded(10 + i as u64)).unwrap();
            if domain {
                a.join_ft_domain(d.clone());
            }
            a
        })
        .collect();
    Net::with_cores(aps, Station::new(sta, 0, wsec::rng::seeded(99)).unwrap())
}

/// What the FT tests ask of the network.
trait FtNet {
    fn established(&self) -> bool;
    fn roam(&mut self, target: MacAddr) -> bool;
    fn roam_how(&mut self, target: MacAddr, over_ds: bool) -> bool;
}

impl FtNet for Net {
    fn established(&self) -> bool {
        self.phases(STA_ID).iter().any(|p| matches!(p, Phase::Established { .. }))
    }

    fn roam(&mut self, target: MacAddr) -> bool {
        self.roam_how(target, false)
    }

    fn roam_how(&mut self, target: MacAddr, over_ds: bool) -> bool {
        let before = self.count(STA_ID, |p| matches!(p, Phase::FtReassociated { .. }));
        let mut out = Output::default();
        self.sta.roam(self.now, target, over_ds, &mut out).unwrap();
        self.collect(STA_ID, &mut out);
        self.run_until(2_000, |n| n.count(STA_ID, |p| matches!(p, Phase::FtReassociated { .. } | Phase::FtFailed { .. })) > before)
            && self.sta.bssid() == Some(target)
    }
}

fn initial(akm: Akm, local: bool, domain: bool) -> Net {
    let aps = vec![ap_cfg(AP1, "ap1.example", akm, [0xa1, 0xb2], local), ap_cfg(AP2, "ap2.example", akm, [0xa1, 0xb2], local)];
    let mut n = net(aps, sta_cfg(akm, Some(AP1)), domain);
    assert!(n.run_until(5_000, |n| n.established()), "initial association: {:?}", n.events);
    // Both APs heard (their Beacons), the station on AP 1.
    assert!(n.run_until(300, |n| n.sta.bssid() == Some(AP1)));
    n.run_until(300, |_| false);
    n
}

#[test]
fn ft_psk_initial_association_then_roams_over_the_air_both_ways() {
    let mut n = initial(Akm::FtPsk, true, false);
    let assoc = n.phases(STA_ID).into_iter().find_map(|p| match p {
        Phase::Associated { akm, .. } => akm,
        _ => None,
    });
    assert_eq!(assoc, Some(Akm::FtPsk));
    n.traffic(0, b"initial");
    assert!(n.roam(AP2), "roam to AP 2: {:?}", n.phases(STA_ID));
    // No 4-way handshake for the transition: one EAPOL-based establishment in all at AP 2.
    assert_eq!(n.count(1, |p| matches!(p, Phase::FtReassociated { from, over_ds: false } if *from == AP1)), 1);
    n.traffic(1, b"after roam 1");
    assert!(n.roam(AP1), "roam back to AP 1: {:?}", n.phases(STA_ID));
    n.traffic(0, b"after roam 2");
    assert_eq!(n.count(STA_ID, |p| matches!(p, Phase::FtReassociated { .. })), 2);
    // Each AP told its distribution system the station arrived (a Layer 2 Update frame:
    // 802.2 XID response from the station to all), once per arrival: AP 1 at the initial
    // association and the return, AP 2 at the roam.
    let sta = n.sta.addr().0;
    let mut l2u = vec![0xffu8; 6];
    l2u.extend_from_slice(&sta);
    l2u.extend_from_slice(&[0x00, 0x06, 0x00, 0x01, 0xaf, 0x81, 0x01, 0x00]);
    let updates = |i: usize| n.ap_host[i].iter().filter(|f| **f == l2u).count();
    assert_eq!((updates(0), updates(1)), (2, 1));
    // Another AP's Layer 2 Update reaching this one over the bridge is an 802.3 frame with
    // a length field: not carried to the air, counted by name.
    let mut out = Output::default();
    let before = n.aps[1].counters.dropped("802.3 length frame");
    n.aps[1].handle_host(n.now, &l2u, &mut out);
    assert!(out.air.is_empty());
    assert_eq!(n.aps[1].counters.dropped("802.3 length frame"), before + 1);
    assert_eq!(n.count(STA_ID, |p| matches!(p, Phase::FtFailed { .. })), 0);
}

#[test]
fn ft_sae_roams_with_the_pmk_r0_of_the_domain() {
    let mut n = initial(Akm::FtSae, false, true);
    n.traffic(0, b"initial");
    assert!(n.roam(AP2), "{:?}", n.phases(STA_ID));
    n.traffic(1, b"ft-sae roam");
    assert!(n.roam(AP1), "{:?}", n.phases(STA_ID));
    n.traffic(0, b"ft-sae back");
}

#[test]
fn ft_sae_without_a_shared_pmk_r0_is_refused_with_status_53() {
    // Two APs that do not share PMK-R0s and cannot derive one (FT-SAE has no PSK): the
    // target answers INVALID_PMKID (hostapd, when its pull finds no R0KH) and the station
    // stays with AP 1, its data still flowing.
    let mut n = initial(Akm::FtSae, false, false);
    assert!(!n.roam(AP2));
    assert!(n.phases(STA_ID).iter().any(|p| matches!(p, Phase::FtFailed { status: 53, .. })), "{:?}", n.phases(STA_ID));
    assert_eq!(n.sta.bssid(), Some(AP1));
    n.traffic(0, b"still on AP 1");
}

#[test]
fn a_target_of_another_mobility_domain_is_not_roamed_to() {
    let aps = vec![ap_cfg(AP1, "ap1.example", Akm::FtPsk, [0xa1, 0xb2], true), ap_cfg(AP2, "ap2.example", Akm::FtPsk, [0x11, 0x22], true)];
    let mut n = net(aps, sta_cfg(Akm::FtPsk, Some(AP1)), false);
    assert!(n.run_until(5_000, |n| n.established()));
    n.run_until(300, |_| false);
    let mut out = Output::default();
    assert_eq!(n.sta.roam(n.now, AP2, false, &mut out), Err("target is not in our mobility domain"));
    assert!(out.air.is_empty());
}

/// Rewrites the MDID of the station's FT Authentication Request: the target refuses it
/// with status 54 (INVALID_MDE).
#[test]
fn a_wrong_mde_in_the_ft_authentication_is_refused_with_status_54() {
    let mut n = initial(Akm::FtPsk, true, false);
    n.tamper = Some(Box::new(|f: &mut Vec<u8>| {
        // Authentication (subtype 11), algorithm 2: the MDE's MDID.
        if f[0] == 0xb0 && f.get(24..26) == Some(&[2, 0]) {
            if let Some(i) = (30..f.len().saturating_sub(4)).find(|&i| f[i] == 54 && f[i + 1] == 3) {
                f[i + 2] ^= 0xff;
            }
        }
        true
    }));
    assert!(!n.roam(AP2));
    assert!(n.phases(STA_ID).iter().any(|p| matches!(p, Phase::FtFailed { status: 54, .. })), "{:?}", n.phases(STA_ID));
    assert!(n.count(1, |p| matches!(p, Phase::FtFailed { status: 54, .. })) >= 1);
    n.tamper = None;
    n.traffic(0, b"still on AP 1");
}

/// A Reassociation Request whose FTE MIC does not verify (one MIC bit flipped in flight):
/// the target answers INVALID_FTE (55) and installs nothing; the station gives up after its
/// tries and stays with AP 1.
#[test]
fn a_bad_fte_mic_in_the_reassociation_is_refused_with_status_55() {
    let mut n = initial(Akm::FtPsk, true, false);
    n.tamper = Some(Box::new(|f: &mut Vec<u8>| {
        // Reassociation Request (subtype 2): the FTE's MIC (after ID, Length, MIC Control).
        if f[0] == 0x20 {
            if let Some(i) = (34..f.len().saturating_sub(20)).find(|&i| f[i] == 55 && f[i + 1] >= 82) {
                f[i + 4] ^= 0x01;
            }
        }
        true
    }));
    assert!(!n.roam(AP2));
    assert!(n.count(1, |p| matches!(p, Phase::FtFailed { status: 55, .. })) >= 1, "{:?}", n.events);
    assert_eq!(n.count(1, |p| matches!(p, Phase::FtReassociated { .. })), 0);
    assert_eq!(n.sta.bssid(), Some(AP1));
    n.tamper = None;
    n.traffic(0, b"still on AP 1");
}

/// Two APs whose key holders speak RRB with each other (r0kh/r1kh as hostapd.conf writes
/// them): AP 2 PULLs the PMK-R1 of an FT-SAE station from AP 1 (or has it PUSHed), and the
/// station roams there and back, over the air and over the DS.
fn rrb_aps(push: bool) -> Vec<ApConfig> {
    use wsec::rsn::rrb::{RemoteR0kh, RemoteR1kh};
    let key = "000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f";
    [(AP1, "ap1.example", AP2), (AP2, "ap2.example", AP1)]
        .iter()
        .map(|(me, nas, other)| {
            let mut c = ap_cfg(*me, nas, Akm::FtSae, [0xa1, 0xb2], false);
            let f = c.ft.as_mut().unwrap();
            f.r0kh = vec![
                RemoteR0kh::parse(&format!("{AP1} ap1.example {key}")).unwrap(),
                RemoteR0kh::parse(&format!("{AP2} ap2.example {key}")).unwrap(),
            ];
            f.r1kh = vec![RemoteR1kh::parse(&format!("{other} {other} {key}")).unwrap()];
            f.pmk_r1_push = push;
            c
        })
        .collect()
}

#[test]
fn ft_sae_with_the_pmk_r1_pulled_over_rrb() {
    let mut n = net(rrb_aps(false), sta_cfg(Akm::FtSae, Some(AP1)), false);
    assert!(n.run_until(5_000, |n| n.established()), "{:?}", n.events);
    n.run_until(300, |_| false);
    assert!(n.roam(AP2), "{:?}", n.events);
    // A PULL and its RESP (after the sequence-number exchange) went over the DS.
    assert!(n.ds_seen.iter().filter(|t| **t == 0x88b7).count() >= 2, "{:?}", n.ds_seen);
    assert!(n.count(1, |p| matches!(p, Phase::Rrb(e) if e.contains("stored (RESP)"))) == 1, "{:?}", n.events);
    n.traffic(1, b"pulled");
    assert!(n.roam(AP1), "{:?}", n.phases(STA_ID));
    n.traffic(0, b"back at the r0kh");
}

#[test]
fn ft_sae_with_the_pmk_r1_pushed_then_over_the_ds() {
    let mut n = net(rrb_aps(true), sta_cfg(Akm::FtSae, Some(AP1)), false);
    assert!(n.run_until(5_000, |n| n.established()), "{:?}", n.events);
    n.run_until(300, |_| false);
    assert!(n.count(1, |p| matches!(p, Phase::Rrb(e) if e.contains("stored (PUSH)"))) == 1, "{:?}", n.events);
    assert!(n.roam_how(AP2, true), "{:?}", n.events);
    assert!(n.ds_seen.contains(&0x890d), "the FT Request went over the DS");
    assert_eq!(n.count(1, |p| matches!(p, Phase::FtReassociated { over_ds: true, .. })), 1);
    n.traffic(1, b"over the ds");
}

/// The target's FT Authentication Response lost once: the station asks again with the same
/// SNonce and the target answers with the same ANonce (a new one would make the station's
/// Reassociation fail its MIC at the target if it took the first answer).
#[test]
fn a_lost_ft_authentication_response_is_answered_again_alike() {
    let mut n = initial(Akm::FtPsk, true, false);
    let mut dropped = 0;
    let mut answers: Vec<Vec<u8>> = Vec::new();
    let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let l2 = log.clone();
    n.tamper_ap = Some(Box::new(move |f: &mut Vec<u8>| {
        if f[0] == 0xb0 && f.get(24..28) == Some(&[2, 0, 2, 0]) {
            l2.borrow_mut().push(f[30..].to_vec());
            dropped += 1;
            return dropped > 1;
        }
        true
    }));
    assert!(n.roam(AP2), "{:?}", n.events);
    answers.extend(log.borrow().iter().cloned());
    assert_eq!(answers.len(), 2, "one answer lost, one delivered");
    assert_eq!(answers[0], answers[1], "the same elements (ANonce) both times");
    n.traffic(1, b"after a lost answer");
}

/// The station's MLME sends its Reassociation Request again when the answer is slow (a new
/// frame, a new Sequence Number): the target answers it with the same Reassociation
/// Response and neither associates anew nor starts a 4-way handshake.
#[test]
fn a_repeated_reassociation_request_gets_the_same_answer() {
    let mut n = initial(Akm::FtPsk, true, false);
    let saved = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let s2 = saved.clone();
    n.tamper = Some(Box::new(move |f: &mut Vec<u8>| {
        if f[0] == 0x20 {
            *s2.borrow_mut() = f.clone();
        }
        true
    }));
    assert!(n.roam(AP2), "{:?}", n.events);
    n.tamper = None;
    let assoc_before = n.count(1, |p| matches!(p, Phase::Associated { .. }));
    let mut req = saved.borrow().clone();
    assert!(!req.is_empty(), "the Reassociation Request was seen");
    req[22] = req[22].wrapping_add(0x10); // another Sequence Number, as a resend has
    let mut out = Output::default();
    n.aps[1].handle_air(n.now, &req, &mut out);
    let resp: Vec<&Vec<u8>> = out.air.iter().filter(|f| f[0] == 0x30).collect();
    assert_eq!(resp.len(), 1, "one Reassociation Response");
    assert_eq!(&resp[0][26..28], &[0, 0][..], "status 0");
    assert!(!out.air.iter().any(|f| f[0] == 0x08 || f[0] == 0x88), "no EAPOL (no 4-way handshake)");
    n.collect(1, &mut out);
    assert_eq!(n.count(1, |p| matches!(p, Phase::Associated { .. })), assoc_before, "not associated anew");
    n.traffic(1, b"after the repeated request");
}

/// The FT Authentication Request arrives again while the target's PULL is out (the
/// station's MLME resends after 200 ms; the R0KH may take longer): the target keeps waiting
/// for the RESP instead of refusing with 53, and the roam completes.
#[test]
fn a_request_repeated_while_the_pull_is_out_waits_for_it() {
    let mut n = net(rrb_aps(false), sta_cfg(Akm::FtSae, Some(AP1)), false);
    assert!(n.run_until(5_000, |n| n.established()), "{:?}", n.events);
    n.run_until(300, |_| false);
    let mut out = Output::default();
    n.sta.roam(n.now, AP2, false, &mut out).unwrap();
    let req = out.air.iter().find(|f| f[0] == 0xb0).cloned().expect("the FT Authentication Request");
    n.collect(STA_ID, &mut out);
    n.step(); // AP 2 takes it and PULLs from AP 1 (the PULL not yet delivered)
    let mut again = Output::default();
    n.aps[1].handle_air(n.now, &req, &mut again);
    assert!(!again.air.iter().any(|f| f[0] == 0xb0), "no answer to the repeat while the PULL is out");
    n.collect(1, &mut again);
    assert!(n.run_until(2_000, |n| n.count(STA_ID, |p| matches!(p, Phase::FtReassociated { .. })) == 1), "{:?}", n.events);
    assert_eq!(n.count(1, |p| matches!(p, Phase::FtFailed { .. })), 0, "{:?}", n.events);
    n.traffic(1, b"after the pull");
}

/// QoS and A-MSDU survive a transition (9.3.3.8): the station's FT Reassociation Request
/// carries its HT Capabilities and WMM Information after the FT elements and the target's
/// response its HT and WMM elements, as in an initial association, so after the roam a
/// burst goes in A-MSDUs both ways and arrives whole.
#[test]
fn ft_keeps_qos_and_amsdus_with_the_target() {
    use wsec::node::frames;
    use wsec::wire::ht::HtCapInfo;
    use wsec::wire::mac::Mpdu;
    use wsec::wire::EtherType;
    let ht = |mut c: ApConfig| {
        c.ht_capab = Some(HtCapInfo(HtCapInfo::SM_PS_DISABLED));
        c.wmm = true;
        c
    };
    let aps = vec![
        ht(ap_cfg(AP1, "ap1.example", Akm::FtPsk, [0xa1, 0xb2], true)),
        ht(ap_cfg(AP2, "ap2.example", Akm::FtPsk, [0xa1, 0xb2], true)),
    ];
    let mut n = net(aps, sta_cfg(Akm::FtPsk, Some(AP1)), false);
    assert!(n.run_until(5_000, |n| n.established()), "{:?}", n.events);
    n.run_until(300, |_| false);
    assert!(n.roam(AP2), "roam to AP 2: {:?}", n.phases(STA_ID));
    let wired = MacAddr([0x02, 0, 0, 0, 0, 0x99]);
    let burst = |da: MacAddr, sa: MacAddr| -> Vec<Vec<u8>> {
        (0..12u8).map(|i| frames::ethernet(&da, &sa, EtherType::IPV4, &[[0x45, i].as_slice(), &[0u8; 498]].concat())).collect()
    };
    let amsdu = |f: &Vec<u8>| Mpdu::new_checked(&f[..]).unwrap().qos_control().is_some_and(|q| q.amsdu_present());
    // Down: AP 2 packs for the station.
    let down = burst(STA, wired);
    let mut out = Output::default();
    n.aps[1].handle_host_batch(n.now, down.iter().map(|e| &e[..]), &mut out);
    assert!(!out.air.is_empty() && out.air.len() < down.len() && out.air.iter().all(amsdu), "{} frames", out.air.len());
    let mut o = Output::default();
    for f in &out.air {
        n.sta.handle_air(n.now, f, &mut o);
    }
    assert_eq!(o.host, down);
    // Up: the station packs for AP 2.
    let up = burst(wired, STA);
    let mut out = Output::default();
    n.sta.handle_host_batch(n.now, up.iter().map(|e| &e[..]), &mut out);
    assert!(!out.air.is_empty() && out.air.len() < up.len() && out.air.iter().all(amsdu), "{} frames", out.air.len());
    let mut o = Output::default();
    for f in &out.air {
        n.aps[1].handle_air(n.now, f, &mut o);
    }
    assert_eq!(o.host, up);
}
