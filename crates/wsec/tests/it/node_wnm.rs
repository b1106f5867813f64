//! Neighbor reports (IEEE 802.11-2020 11.10.10.2) and BSS transition management (11.22.7)
//! in the AP and station cores, in memory: two APs of one SSID on one medium and a station.
//! The AP's neighbor table answers the station's Neighbor Report Request (filtered by the
//! SSID it names, protected under MFP); a BSS Transition Management Request with a
//! candidate list moves the station to the preferred candidate it heard (a new association,
//! or a fast BSS transition inside an FT mobility domain) after it accepts with status 0
//! and the target; no acceptable candidate is status 7, no list status 1; the
//! Disassociation Timer disassociates; malformed Radio Measurement and WNM frames are
//! dropped and counted at both ends.
use crate::multi_ap::{Net, MS, STA_ID};
use wsec::cipher::CipherSuite;
use wsec::node::ap::{AccessPoint, ApConfig, BtmRequestParams, FtSettings};
use wsec::node::frames;
use wsec::node::mfp::Mfp;
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{NodeEvent, Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::wire::element;
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::{BeaconRepr, Capability};
use wsec::wire::rrm::{self, NeighborReport};
use wsec::wire::wnm::{self, request_mode};

const AP1: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa1, 0x01]);
const AP2: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa1, 0x02]);
/// A BSS no one hears.
const GHOST: MacAddr = MacAddr([0x02, 0, 0, 0, 0xa1, 0x0f]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0xb1, 0x01]);
const SSID: &[u8] = b"wnm-net";

fn psk(akm: Akm) -> Security {
    Security::Rsn { akms: vec![akm], pairwise: vec![CipherSuite::Ccmp128], groups: vec![CipherSuite::Ccmp128], pmk: vec![0x5a; 32].into() }
}

fn ap_cfg(bssid: MacAddr, channel: u8, akm: Akm, mfp: Mfp) -> ApConfig {
    let mut c = ApConfig::new(bssid, SSID, psk(akm));
    c.channel = channel;
    c.mfp = mfp;
    c.bss_transition = true;
    c.rrm_neighbor_report = true;
    if akm == Akm::FtPsk {
        let mut f = FtSettings::new([0x77, 0x01], format!("{bssid}.example").as_bytes(), bssid);
        f.psk_generate_local = true;
        c.ft = Some(f);
    }
    c
}

fn sta_cfg(akm: Akm, mfp: Mfp) -> StaConfig {
    let mut c = StaConfig::new(STA, SSID, psk(akm));
    c.mfp = mfp;
    c
}

fn net(aps: Vec<ApConfig>, sta: StaConfig) -> Net {
    let aps = aps.into_iter().enumerate().map(|(i, c)| AccessPoint::new(c, 0, wsec::rng::seeded(40 + i as u64)).unwrap()).collect();
    Net::with_cores(aps, Station::new(sta, 0, wsec::rng::seeded(77)).unwrap())
}

/// Two PSK APs (channels 1 and 6) and a station connected to one of them, both heard.
fn connected(akm: Akm, mfp: Mfp) -> Net {
    let mut n = net(vec![ap_cfg(AP1, 1, akm, mfp), ap_cfg(AP2, 6, akm, mfp)], sta_cfg(akm, mfp));
    assert!(n.run_until(5_000, |n| n.sta.is_established()), "{:?}", n.events);
    n.run_until(300, |_| false);
    assert_eq!(n.sta.bss_heard().len(), 2);
    n
}

fn bssid_of(i: usize) -> MacAddr {
    [AP1, AP2][i]
}

/// What the steering tests ask of the network.
trait WnmNet {
    fn ends(&self) -> (usize, usize);
    fn btm(&mut self, i: usize, p: &BtmRequestParams) -> (u8, Option<MacAddr>);
    fn neighbor_report(&mut self, ssid: Option<&[u8]>) -> Phase;
}

impl WnmNet for Net {
    /// The AP the station is with, and the other one.
    fn ends(&self) -> (usize, usize) {
        if self.sta.bssid() == Some(AP1) {
            (0, 1)
        } else {
            (1, 0)
        }
    }

    /// AP `i` sends the station a BTM Request; the station's answer at AP `i`.
    fn btm(&mut self, i: usize, p: &BtmRequestParams) -> (u8, Option<MacAddr>) {
        let before = self.events.len();
        let mut out = Output::default();
        self.aps[i].bss_tm_req(self.now, &STA, p, &mut out).unwrap();
        self.collect(i, &mut out);
        let seen = |n: &Net| {
            n.events[before..].iter().filter(|(w, _)| *w == i).find_map(|(_, NodeEvent::Phase { phase, .. })| match *phase {
                Phase::BtmResponse { status, target, .. } => Some((status, target)),
                _ => None,
            })
        };
        assert!(self.run_until(100, |n| seen(n).is_some()), "no BTM Response at AP {i}: {:?}", self.events);
        seen(self).unwrap()
    }

    fn neighbor_report(&mut self, ssid: Option<&[u8]>) -> Phase {
        let before = self.phases(STA_ID).len();
        let mut out = Output::default();
        self.sta.neighbor_rep_request(self.now, ssid, false, false, &mut out).unwrap();
        self.collect(STA_ID, &mut out);
        let done = |n: &Net| {
            n.phases(STA_ID)[before..].iter().find(|p| matches!(p, Phase::NeighborReport { .. } | Phase::NeighborReportFailed)).cloned()
        };
        assert!(self.run_until(1_500, |n| done(n).is_some()));
        done(self).unwrap()
    }
}

/// A neighbor entry for `bssid` on `channel` as hostapd_cli's `nr=` gives it.
fn nr(bssid: MacAddr, channel: u8) -> Vec<u8> {
    NeighborReport::new(bssid, rrm::bssid_info::REACHABLE | rrm::bssid_info::SECURITY, 81, channel, rrm::phy_type::ERP).to_body()
}

fn cand(bssid: MacAddr, pref: Option<u8>) -> NeighborReport {
    let r = NeighborReport::new(bssid, rrm::bssid_info::REACHABLE, 81, 1, rrm::phy_type::HT);
    match pref {
        Some(p) => r.with_preference(p),
        None => r,
    }
}

fn pref_list(cands: Vec<NeighborReport>) -> BtmRequestParams {
    BtmRequestParams { mode: request_mode::PREFERRED_CANDIDATE_LIST, validity_interval: 255, candidates: cands, ..Default::default() }
}

#[test]
fn beacons_advertise_neighbor_reports_and_bss_transition() {
    let mut ap = AccessPoint::new(ap_cfg(AP1, 1, Akm::Psk, Mfp::Disabled), 0, wsec::rng::seeded(1)).unwrap();
    let mut out = Output::default();
    ap.handle_timeout(0, &mut out);
    let b = out.air.iter().find(|f| f[0] == 0x80).expect("a Beacon");
    let body = BeaconRepr::parse(&b[24..]).unwrap();
    assert!(body.capability.has(Capability::ESS | rrm::CAPABILITY_RADIO_MEASUREMENT));
    let rm = element::find(body.elements, rrm::EID_RM_ENABLED_CAPABILITIES).unwrap().unwrap();
    assert!(rrm::RmEnabledCapabilities::parse(rm.body).unwrap().neighbor_report());
    let ext = element::find(body.elements, element::id::EXTENDED_CAPABILITIES).unwrap().unwrap();
    assert!(wnm::ext_capab_has(ext.body, wnm::EXT_CAPAB_BSS_TRANSITION));
    // Off by default: neither element, no Radio Measurement bit.
    let mut plain = AccessPoint::new(ApConfig::new(AP2, SSID, Security::Open), 0, wsec::rng::seeded(1)).unwrap();
    let mut out = Output::default();
    plain.handle_timeout(0, &mut out);
    let body = BeaconRepr::parse(&out.air[0][24..]).unwrap();
    assert!(!body.capability.has(rrm::CAPABILITY_RADIO_MEASUREMENT));
    assert_eq!(element::find(body.elements, rrm::EID_RM_ENABLED_CAPABILITIES), Ok(None));
    assert_eq!(element::find(body.elements, element::id::EXTENDED_CAPABILITIES), Ok(None));
    assert!(plain.set_neighbor(AP1, SSID, &nr(AP1, 1)).is_err(), "SET_NEIGHBOR needs rrm_neighbor_report=1");
}

#[test]
fn neighbor_report_request_is_answered_with_the_table_under_mfp() {
    let mut n = connected(Akm::Psk, Mfp::Required);
    let (cur, other) = n.ends();
    let other_bssid = bssid_of(other);
    // The own entry is there from the start; SET_NEIGHBOR puts new entries first.
    assert_eq!(n.aps[cur].neighbors().len(), 1);
    n.aps[cur].set_neighbor(other_bssid, SSID, &nr(other_bssid, 6)).unwrap();
    n.aps[cur].set_neighbor(GHOST, b"elsewhere", &nr(GHOST, 11)).unwrap();
    assert_eq!(n.aps[cur].neighbors().iter().map(|e| e.bssid).collect::<Vec<_>>(), [GHOST, other_bssid, bssid_of(cur)]);
    assert!(n.aps[cur].set_neighbor(GHOST, b"elsewhere", &[1, 2, 3]).is_err(), "a report under 13 octets");
    assert!(n.aps[cur].set_neighbor(GHOST, b"", &nr(GHOST, 11)).is_err(), "an empty SSID");
    let drops_before = n.sta.counters.total_drops();

    // No SSID named: the entries of the AP's own SSID, in the table's order.
    let Phase::NeighborReport { neighbors, .. } = n.neighbor_report(None) else { panic!("{:?}", n.phases(STA_ID)) };
    assert_eq!(neighbors.iter().map(|r| r.bssid).collect::<Vec<_>>(), [other_bssid, bssid_of(cur)]);
    assert_eq!((neighbors[0].channel, neighbors[0].op_class), (6, 81));
    // The AP's own report as hostapd makes it: 0x8f, its channel, ERP, a 20 MHz Wide
    // Bandwidth Channel subelement.
    assert_eq!(neighbors[1].bssid_info, 0x8f);
    assert_eq!(neighbors[1].subelement(rrm::subelement::WIDE_BANDWIDTH_CHANNEL), Some(&[0u8, 0, 0][..]));
    // The SSID named picks its entries.
    let Phase::NeighborReport { neighbors, .. } = n.neighbor_report(Some(b"elsewhere")) else { panic!() };
    assert_eq!(neighbors.iter().map(|r| (r.bssid, r.channel)).collect::<Vec<_>>(), [(GHOST, 11)]);
    // An SSID with no entry: an empty response, which wpa_supplicant reports as failed.
    assert_eq!(n.neighbor_report(Some(b"nobody")), Phase::NeighborReportFailed);
    // Both directions went protected: nothing was dropped as unprotected anywhere.
    assert_eq!(n.sta.counters.total_drops(), drops_before, "{}", n.sta.counters);
    assert_eq!(n.aps[cur].counters.dropped("unprotected robust management frame"), 0);
    // REMOVE_NEIGHBOR.
    assert!(n.aps[cur].remove_neighbor(&GHOST, None));
    assert!(!n.aps[cur].remove_neighbor(&GHOST, None));
    assert!(n.aps[cur].remove_neighbor(&other_bssid, Some(SSID)));
    let Phase::NeighborReport { neighbors, .. } = n.neighbor_report(None) else { panic!() };
    assert_eq!(neighbors.len(), 1);
}

#[test]
fn a_neighbor_report_request_without_an_answer_fails_after_a_second() {
    let mut n = connected(Akm::Psk, Mfp::Disabled);
    // The request never reaches the AP.
    n.tamper = Some(Box::new(|f: &mut Vec<u8>| !(f[0] == 0xd0 && f.get(24) == Some(&5))));
    let mut out = Output::default();
    let t0 = n.now;
    n.sta.neighbor_rep_request(n.now, None, true, true, &mut out).unwrap();
    n.collect(STA_ID, &mut out);
    // One at a time.
    assert_eq!(n.sta.neighbor_rep_request(n.now, None, false, false, &mut out), Err("a neighbor report request is already waiting"));
    assert!(n.run_until(2_000, |n| n.phases(STA_ID).contains(&Phase::NeighborReportFailed)));
    assert!(n.now >= t0 + 1_000 * MS);
    n.tamper = None;
    assert!(matches!(n.neighbor_report(None), Phase::NeighborReport { .. }));
}

#[test]
fn a_btm_request_moves_the_station_to_the_preferred_candidate() {
    let mut n = connected(Akm::Psk, Mfp::Required);
    let (cur, other) = n.ends();
    let (cur_bssid, target) = (bssid_of(cur), bssid_of(other));
    n.traffic(cur, b"before");
    // The most preferred is a BSS the station never heard, the current one is excluded
    // (preference 0): the other AP is the one to go to.
    let mut p = pref_list(vec![cand(cur_bssid, Some(0)), cand(target, Some(100)), cand(GHOST, Some(255))]);
    p.mode |= request_mode::DISASSOCIATION_IMMINENT;
    p.dialog_token = 9;
    assert_eq!(n.btm(cur, &p), (0, Some(target)));
    assert!(n.phases(STA_ID).iter().any(|ph| matches!(ph, Phase::BtmRequest { dialog_token: 9, candidates: 3, mode: 0x05, .. })));
    assert!(n.run_until(5_000, |n| n.sta.is_established() && n.sta.bssid() == Some(target)), "{:?}", n.phases(STA_ID));
    n.run_until(50, |_| false);
    // A new association and 4-way handshake with the target; the old AP was told.
    assert!(n.phases(other).iter().any(|ph| matches!(ph, Phase::Established { .. })));
    assert!(n.phases(cur).iter().any(|ph| matches!(ph, Phase::Deauthenticated { by_peer: true, .. })));
    n.traffic(other, b"after");
    // And back, with the station's own order when no preferences are given: the AP's order.
    let p = pref_list(vec![cand(GHOST, None), cand(cur_bssid, None)]);
    assert_eq!(n.btm(other, &p), (0, Some(cur_bssid)));
    assert!(n.run_until(5_000, |n| n.sta.is_established() && n.sta.bssid() == Some(cur_bssid)));
    n.run_until(50, |_| false);
    n.traffic(cur, b"back");
}

#[test]
fn a_btm_request_inside_an_ft_mobility_domain_uses_a_fast_transition() {
    let mut n = connected(Akm::FtPsk, Mfp::Disabled);
    let (cur, other) = n.ends();
    let target = bssid_of(other);
    assert_eq!(n.btm(cur, &pref_list(vec![cand(target, Some(200))])), (0, Some(target)));
    let ft = |n: &Net| n.phases(STA_ID).iter().any(|p| matches!(p, Phase::FtReassociated { .. }));
    assert!(n.run_until(2_000, ft), "{:?}", n.phases(STA_ID));
    assert_eq!(n.sta.bssid(), Some(target));
    // The target saw the fast transition (no new association from scratch).
    assert!(n.phases(other).iter().any(|p| matches!(p, Phase::FtReassociated { over_ds: false, .. })));
    assert!(!n.phases(STA_ID).iter().any(|p| matches!(p, Phase::Deauthenticated { .. })));
    n.traffic(other, b"ft after btm");
}

#[test]
fn no_acceptable_candidate_is_status_7_and_no_list_is_status_1() {
    let mut n = connected(Akm::Psk, Mfp::Disabled);
    let (cur, _) = n.ends();
    let cur_bssid = bssid_of(cur);
    // Only a BSS never heard and the current one excluded.
    let p = pref_list(vec![cand(GHOST, Some(255)), cand(cur_bssid, Some(0))]);
    assert_eq!(n.btm(cur, &p), (7, None));
    n.events.clear();
    // The list announced but empty.
    assert_eq!(n.btm(cur, &pref_list(vec![])), (7, None));
    n.events.clear();
    // No list at all (a candidate without the Preferred Candidate List bit is no list).
    let p = BtmRequestParams { candidates: vec![cand(cur_bssid, Some(1))], ..Default::default() };
    assert_eq!(n.btm(cur, &p), (1, None));
    n.events.clear();
    // The current BSS as the preferred candidate: accepted, no move.
    assert_eq!(n.btm(cur, &pref_list(vec![cand(cur_bssid, Some(1))])), (0, Some(cur_bssid)));
    n.run_until(200, |_| false);
    assert_eq!(n.sta.bssid(), Some(cur_bssid));
    assert!(n.sta.is_established());
    n.traffic(cur, b"stayed");
}

#[test]
fn a_btm_query_is_answered_and_the_disassociation_timer_disassociates() {
    let mut n = connected(Akm::Psk, Mfp::Disabled);
    let (cur, _) = n.ends();
    // hostapd answers a Query with a request without candidates: the station says 1.
    let mut out = Output::default();
    n.sta.wnm_bss_query(n.now, wnm::query_reason::UNSPECIFIED, &[], &mut out).unwrap();
    n.collect(STA_ID, &mut out);
    assert!(n.run_until(100, |n| n.phases(cur).iter().any(|p| matches!(p, Phase::BtmResponse { status: 1, dialog_token: 1, .. }))));
    // Disassociation Imminent, 5 TBTTs, no candidates: the station answers 1 and the AP
    // disassociates it (reason 2) about 512 ms later.
    let t0 = n.now;
    let p = BtmRequestParams { mode: request_mode::DISASSOCIATION_IMMINENT, disassoc_timer: 5, ..Default::default() };
    assert_eq!(n.btm(cur, &p).0, 1);
    let gone = |n: &Net| n.phases(cur).iter().any(|p| matches!(p, Phase::Disassociated { reason, by_peer: false } if reason.0 == 2));
    assert!(n.run_until(1_000, gone));
    assert!(n.now >= t0 + 5 * 100 * wsec::node::TU, "not before the timer");
    // The station finds a BSS again.
    assert!(n.run_until(5_000, |n| n.sta.is_established()));
}

#[test]
fn malformed_rrm_and_wnm_frames_are_dropped_and_counted() {
    let mut n = connected(Akm::Psk, Mfp::Disabled);
    let (cur, _) = n.ends();
    let ap = bssid_of(cur);
    let to_ap = |body: &[u8]| frames::action(&ap, &STA, &ap, 0, body);
    let to_sta = |body: &[u8]| frames::action(&STA, &ap, &ap, 0, body);
    let mut out = Output::default();
    let bad_to_ap: [&[u8]; 6] = [
        &[5, 4],                                           // Neighbor Report Request without its Dialog Token
        &[5, 4, 1, 0, 5, b'w'],                            // its SSID element cut short
        &[10, 8, 1, 0, 0, 2, 0, 0],                        // BTM Response, status 0, Target BSSID cut short
        &[10, 8, 1],                                       // BTM Response without status and delay
        &[10, 6, 1],                                       // BTM Query without its reason
        &[10, 6, 1, 0, 52, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0], // a candidate cut short
    ];
    for b in bad_to_ap {
        n.aps[cur].handle_air(n.now, &to_ap(b), &mut out);
    }
    let c = &n.aps[cur].counters;
    assert_eq!(c.dropped("malformed radio measurement frame"), 2, "{c}");
    assert_eq!(c.dropped("malformed wnm frame"), 4, "{c}");
    assert!(out.air.is_empty() && out.events.is_empty());
    let bad_to_sta: [&[u8]; 5] = [
        &[10, 7, 1, 1, 0],                                    // BTM Request cut in its fixed fields
        &[10, 7, 1, 0x08, 0, 0, 1, 4, 10, 0],                 // BSS Termination Duration cut short
        &[10, 7, 1, 0x10, 0, 0, 1, 9, b'h'],                  // Session Information URL past the end
        &[10, 7, 1, 0x01, 0, 0, 1, 52, 13, 2, 0, 0, 0, 0xa1], // a candidate cut short
        &[5, 5],                                              // Neighbor Report Response without its token
    ];
    for b in bad_to_sta {
        n.sta.handle_air(n.now, &to_sta(b), &mut out);
    }
    let c = &n.sta.counters;
    assert_eq!(c.dropped("malformed wnm frame"), 4, "{c}");
    assert_eq!(c.dropped("malformed radio measurement frame"), 1, "{c}");
    assert!(out.air.is_empty() && out.events.is_empty(), "{:?}", out.events);
    // A response to no request, and a candidate whose subelements run past its end (that
    // candidate is skipped, the request answered).
    n.sta.handle_air(n.now, &to_sta(&[5, 5, 42]), &mut out);
    assert_eq!(n.sta.counters.dropped("unexpected neighbor report"), 1);
    let mut bad_cand = cand(GHOST, Some(9)).to_body();
    bad_cand.extend_from_slice(&[3, 4, 1]);
    let body = [&[10u8, 7, 3, 0x01, 0, 0, 1, 52, bad_cand.len() as u8][..], &bad_cand].concat();
    n.sta.handle_air(n.now, &to_sta(&body), &mut out);
    assert_eq!(n.sta.counters.dropped("malformed bss transition candidate"), 1);
    assert_eq!(out.air.len(), 1, "the request is answered (status 7)");
    // Random bodies of both categories, to both: no panic.
    let mut x = 0x1234_5678u32;
    for len in 0..400 {
        let mut b: Vec<u8> = (0..len % 40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        b.insert(0, if len % 2 == 0 { 5 } else { 10 });
        if b.len() > 1 {
            b[1] = [4, 5, 6, 7, 8][len % 5];
        }
        n.aps[cur].handle_air(n.now, &to_ap(&b), &mut out);
        n.sta.handle_air(n.now, &to_sta(&b), &mut out);
    }
    // Frames from a station that is not associated are not looked at.
    let stranger = MacAddr([0x02, 0, 0, 0, 0xc0, 0x01]);
    n.aps[cur].handle_air(n.now, &frames::action(&ap, &stranger, &ap, 0, &[5, 4, 1]), &mut out);
    assert_eq!(n.aps[cur].counters.dropped("action frame from an unassociated station"), 1);
}

/// The AP's Neighbor Report Response and BSS Transition Management Request are octet for
/// octet hostapd 2.10's, recorded in the interop lab (`bss-tm.wsecsta-hostapd`: radio 0's
/// BSSID 02:00:00:00:00:00 on channel 6, station 02:00:00:00:01:00).
#[test]
fn the_ap_sends_what_hostapd_sends() {
    let (bssid, sta) = (MacAddr([2, 0, 0, 0, 0, 0]), MacAddr([2, 0, 0, 0, 1, 0]));
    let mut c = ApConfig::new(bssid, SSID, Security::Open);
    c.rrm_neighbor_report = true;
    let mut ap = AccessPoint::new(c, 0, wsec::rng::seeded(5)).unwrap();
    let mut out = Output::default();
    for f in [
        frames::auth(
            &bssid,
            &sta,
            &bssid,
            0,
            wsec::wire::mgmt::AuthRepr::new(wsec::wire::mgmt::AuthAlgorithm::OPEN_SYSTEM, 1, Default::default()),
        ),
        frames::assoc_req(&sta, &bssid, 1, Capability(Capability::ESS), SSID, None),
        frames::action(&bssid, &sta, &bssid, 2, &[5, 4, 1]),
    ] {
        ap.handle_air(0, &f, &mut out);
    }
    let bodies: Vec<Vec<u8>> = out.air.iter().filter(|f| f[0] == 0xd0).map(|f| f[24..].to_vec()).collect();
    let hostapd_resp = [
        0x05, 0x05, 0x01, 0x34, 0x12, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8f, 0x00, 0x00, 0x00, 0x51, 0x06, 0x06, 0x06, 0x03, 0x00, 0x00,
        0x00,
    ];
    assert_eq!(bodies, [hostapd_resp.to_vec()]);
    // hostapd_cli BSS_TM_REQ 02:00:00:00:01:00 pref=1 neighbor=02:00:00:00:03:00,0x8f,81,6,6,0301ff
    out.air.clear();
    let mut cand = NeighborReport::new(MacAddr([2, 0, 0, 0, 3, 0]), 0x8f, 81, 6, 6);
    cand.subelements = vec![3, 1, 0xff];
    // hostapd's defaults: dialog token 1, Validity Interval 1.
    let p = BtmRequestParams { mode: request_mode::PREFERRED_CANDIDATE_LIST, candidates: vec![cand], ..Default::default() };
    ap.bss_tm_req(1, &sta, &p, &mut out).unwrap();
    let hostapd_req = [
        0x0a, 0x07, 0x01, 0x01, 0x00, 0x00, 0x01, 0x34, 0x10, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x8f, 0x00, 0x00, 0x00, 0x51, 0x06, 0x06,
        0x03, 0x01, 0xff,
    ];
    assert_eq!(&out.air[0][24..], &hostapd_req[..]);
}
