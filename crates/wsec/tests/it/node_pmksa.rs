//! The station's PMKSA cache across roams (IEEE 802.11-2020 12.6.10.3) in the AP and
//! station cores, in memory: two SAE APs of one ESS without FT. The station associates
//! with AP 1 (SAE), roams to AP 2 (SAE), back to AP 1 and to AP 2 again: each return runs
//! no SAE, offers that AP's PMKID in the Association Request and completes the 4-way
//! handshake under the cached PMK, data flowing after every step. A PMKID an AP no longer
//! holds is refused and only that AP's entry goes.
//!
//! 802.1X roaming is not here: the AP core takes its PMK from a RADIUS server
//! (wsec-cli's `dot1x_cores` runs those against FreeRADIUS).
use crate::multi_ap::{Net, STA_ID};
use std::cell::RefCell;
use std::rc::Rc;
use wsec::cipher::CipherSuite;
use wsec::node::ap::{AccessPoint, ApConfig};
use wsec::node::frames::{self, Mgmt};
use wsec::node::mfp::Mfp;
use wsec::node::sae::{SaePassword, SaeSettings};
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::rsn::ie::RsnElementRepr;
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::{AuthAlgorithm, StatusCode};
use zeroize::Zeroizing;

const AP1: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa0, 0x01]);
const AP2: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa0, 0x02]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0xb0, 0x01]);
const SSID: &[u8] = b"roam-net";

fn security() -> Security {
    Security::Rsn {
        akms: vec![Akm::Sae],
        pairwise: vec![CipherSuite::Ccmp128],
        groups: vec![CipherSuite::Ccmp128],
        pmk: Zeroizing::new(Vec::new()),
    }
}

fn sae() -> SaeSettings {
    SaeSettings::new(vec![SaePassword { password: b"secret sauce".to_vec().into(), identifier: None, mac: None }])
}

/// The station's frames as they went on the air.
type AirLog = Rc<RefCell<Vec<Vec<u8>>>>;

/// Two SAE APs (no FT) and a station of their SSID that may join either; what the station
/// sends is logged.
fn net() -> (Net, AirLog) {
    let aps = [AP1, AP2]
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            let mut c = ApConfig::new(b, SSID, security());
            c.mfp = Mfp::Required;
            c.sae = Some(sae());
            AccessPoint::new(c, 0, wsec::rng::seeded(20 + i as u64)).unwrap()
        })
        .collect();
    let mut c = StaConfig::new(STA, SSID, security());
    c.mfp = Mfp::Required;
    c.sae = Some(sae());
    let mut n = Net::with_cores(aps, Station::new(c, 0, wsec::rng::seeded(98)).unwrap());
    let log = AirLog::default();
    let l = log.clone();
    n.tamper = Some(Box::new(move |f: &mut Vec<u8>| {
        l.borrow_mut().push(f.clone());
        true
    }));
    (n, log)
}

/// SAE commits (Authentication, algorithm 3, transaction 1) the station sent to `ap`.
fn sae_commits(log: &AirLog, ap: MacAddr) -> usize {
    log.borrow()
        .iter()
        .filter(|f| f.get(4..10) == Some(&ap.0[..]))
        .filter(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::Auth { alg: AuthAlgorithm::SAE, seq: 1, .. })))
        .count()
}

/// The PMKIDs in the RSNE of each (Re)Association Request the station sent to `ap`.
fn assoc_pmkids(log: &AirLog, ap: MacAddr) -> Vec<Vec<[u8; 16]>> {
    log.borrow()
        .iter()
        .filter(|f| f.get(4..10) == Some(&ap.0[..]))
        .filter_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocReq { rsne: Some(r), .. }) => Some(RsnElementRepr::parse(r).unwrap().pmkids),
            _ => None,
        })
        .collect()
}

/// The Current AP Address of each (Re)Association Request the station sent to `ap` (None:
/// an Association Request).
fn current_aps(log: &AirLog, ap: MacAddr) -> Vec<Option<MacAddr>> {
    log.borrow()
        .iter()
        .filter(|f| f.get(4..10) == Some(&ap.0[..]))
        .filter_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocReq { current_ap, .. }) => Some(current_ap),
            _ => None,
        })
        .collect()
}

fn established(n: &Net) -> usize {
    n.count(STA_ID, |p| matches!(p, Phase::Established { .. }))
}

/// Roams (wpa_cli ROAM: not FT, so a new authentication and association) to `target` and
/// waits for the 4-way handshake with it to end at both sides.
fn roam(n: &mut Net, target: MacAddr) {
    let i = if target == AP1 { 0 } else { 1 };
    let ap_up = |n: &Net| n.count(i, |p| matches!(p, Phase::Established { .. }));
    let before = (established(n), ap_up(n));
    let mut out = Output::default();
    n.sta.roam(n.now, target, false, &mut out).unwrap();
    n.collect(STA_ID, &mut out);
    assert!(n.run_until(3_000, |n| established(n) > before.0 && ap_up(n) > before.1), "roam to {target}: {:?}", n.phases(STA_ID));
    assert_eq!(n.sta.bssid(), Some(target));
}

#[test]
fn sae_roams_back_to_each_ap_with_its_cached_pmksa() {
    let (mut n, log) = net();
    assert!(n.run_until(5_000, |n| established(n) == 1 && n.count(0, |p| matches!(p, Phase::Established { .. })) == 1), "{:?}", n.events);
    assert_eq!(n.sta.bssid(), Some(AP1), "the first AP answered first");
    // Both APs heard (their Beacons) before any roam.
    n.run_until(300, |_| false);
    assert_eq!(sae_commits(&log, AP1), 1);
    let id1 = n.aps[0].pmksa_pmkid(&STA).expect("AP 1 cached the SAE PMKSA");
    assert_eq!(n.sta.pmksa_pmkid(&AP1), Some(id1), "both ends derived one PMKID");
    n.traffic(0, b"initial");

    // AP 2 is new: SAE, and no PMKID offered.
    roam(&mut n, AP2);
    assert_eq!(sae_commits(&log, AP2), 1);
    assert_eq!(assoc_pmkids(&log, AP2), vec![Vec::<[u8; 16]>::new()]);
    let id2 = n.aps[1].pmksa_pmkid(&STA).expect("AP 2 cached the SAE PMKSA");
    assert_ne!(id1, id2);
    // The cache holds both APs' PMKSAs.
    let list = n.sta.pmksa_list(n.now);
    let mut held: Vec<(MacAddr, [u8; 16])> = list.iter().map(|e| (e.aa, e.pmkid)).collect();
    held.sort();
    assert_eq!(held, vec![(AP1, id1), (AP2, id2)], "{list:?}");
    n.traffic(1, b"on AP 2");

    // Back to AP 1: no SAE commit, AP 1's PMKID in the Association Request, the 4-way
    // handshake under the cached PMK (the AP took it by that PMKID; a different PMK on
    // either side fails message 2's MIC).
    roam(&mut n, AP1);
    assert_eq!(sae_commits(&log, AP1), 1, "SAE ran again with AP 1: {:?}", n.phases(STA_ID));
    assert_eq!(assoc_pmkids(&log, AP1), vec![vec![], vec![id1]]);
    assert_eq!(n.count(0, |p| matches!(p, Phase::Established { .. })), 2);
    n.traffic(0, b"back on AP 1");

    // And to AP 2 again, on its entry.
    roam(&mut n, AP2);
    assert_eq!(sae_commits(&log, AP2), 1, "SAE ran again with AP 2: {:?}", n.phases(STA_ID));
    assert_eq!(assoc_pmkids(&log, AP2), vec![vec![], vec![id2]]);
    n.traffic(1, b"back on AP 2");
    // Joining is an Association; each roam within the ESS a Reassociation naming the AP
    // left (11.3.5.4, as wpa_supplicant sends it).
    assert_eq!(current_aps(&log, AP1), vec![None, Some(AP2)]);
    assert_eq!(current_aps(&log, AP2), vec![Some(AP1), Some(AP1)]);
    assert_eq!(n.count(STA_ID, |p| matches!(p, Phase::SaeAuthenticated { .. })), 2);
    assert_eq!(n.count(STA_ID, |p| matches!(p, Phase::HandshakeFailed(_))), 0);
    assert_eq!(n.sta.pmksa_list(n.now).len(), 2);
}

#[test]
fn a_refused_pmkid_forgets_only_that_aps_entry() {
    let (mut n, log) = net();
    let ap_log = AirLog::default();
    let l = ap_log.clone();
    n.tamper_ap = Some(Box::new(move |f: &mut Vec<u8>| {
        l.borrow_mut().push(f.clone());
        true
    }));
    assert!(n.run_until(5_000, |n| established(n) == 1), "{:?}", n.events);
    assert_eq!(n.sta.bssid(), Some(AP1));
    n.run_until(300, |_| false);
    roam(&mut n, AP2);
    let (id1, id2) = (n.sta.pmksa_pmkid(&AP1).unwrap(), n.sta.pmksa_pmkid(&AP2).unwrap());
    // AP 1 forgets the station's PMKSA; the station offers it anyway and is refused.
    n.aps[0].pmksa_flush();
    let before = established(&n);
    let mut out = Output::default();
    n.sta.roam(n.now, AP1, false, &mut out).unwrap();
    n.collect(STA_ID, &mut out);
    let refusal = |l: &AirLog| {
        l.borrow().iter().filter(|f| f.get(10..16) == Some(&AP1.0[..])).find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocResp { status, .. }) if status != StatusCode::SUCCESS => Some(status),
            _ => None,
        })
    };
    assert!(n.run_until(2_000, |_| refusal(&ap_log).is_some()), "{:?}", n.phases(STA_ID));
    assert_eq!(refusal(&ap_log), Some(StatusCode(43)), "wsec's AP: no PMK for the PMKID");
    assert_eq!(assoc_pmkids(&log, AP1).last(), Some(&vec![id1]));
    assert_eq!(n.sta.pmksa_pmkid(&AP1), None, "AP 1's entry went");
    assert_eq!(n.sta.pmksa_pmkid(&AP2), Some(id2), "AP 2's entry stays");
    assert_eq!(n.sta.pmksa_list(n.now).len(), 1);
    // The station joins again, with the AP it hears first: AP 1 by SAE, or AP 2 on its
    // entry.
    assert!(n.run_until(5_000, |n| established(n) > before), "{:?}", n.phases(STA_ID));
    match n.sta.bssid() {
        Some(AP1) => {
            assert_eq!(sae_commits(&log, AP1), 2, "a fresh SAE with AP 1");
            assert_ne!(n.sta.pmksa_pmkid(&AP1), Some(id1));
        }
        Some(AP2) => assert_eq!(assoc_pmkids(&log, AP2).last(), Some(&vec![id2])),
        b => panic!("associated with {b:?}"),
    }
    assert_eq!(n.sta.pmksa_pmkid(&AP2), Some(id2));
}
