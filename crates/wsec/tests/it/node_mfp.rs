//! Management frame protection in the live cores (IEEE 802.11-2020 12.6.3, 11.13,
//! 12.5.4/12.5.6): AP and stations in memory, simulated time (1 ms steps). The IGTK goes
//! through the 4-way and group key handshakes; unicast robust frames travel under the
//! PTK and broadcast ones under BIP; forged unprotected deauthentications are ignored;
//! the 3 x 3 `ieee80211w` matrix; the SA Query of a restarted station and of an AP
//! restart; configuration errors with line numbers.
use crate::nodesim;

use nodesim::{Feed, Sim, MS};
use wsec::cipher::CipherSuite;
use wsec::node::ap::{AccessPoint, ApConfig};
use wsec::node::frames::{self, Mgmt};
use wsec::node::mfp::Mfp;
use wsec::node::sta::StaConfig;
use wsec::node::{Output, Phase, Security};
use wsec::rsn::akm::Akm;
use wsec::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite};
use wsec::wire::mac::{mgmt_subtype, Header, MacAddr};
use wsec::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, ReasonCode, StatusCode};
use wsec_live::conf::{parse_ap, parse_sta};
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);
const SSID: &[u8] = b"wsec-mfp";

fn rsn_akm(akm: Akm, pairwise: Vec<CipherSuite>) -> Security {
    let pmk = wsec::rsn::pbkdf2::psk_from_passphrase(b"correct horse battery", SSID).unwrap();
    Security::Rsn { akms: vec![akm], pairwise, groups: vec![CipherSuite::Ccmp128], pmk: Zeroizing::new(pmk.to_vec()) }
}

fn rsn() -> Security {
    rsn_akm(Akm::Psk, vec![CipherSuite::Ccmp128])
}

fn ap_cfg(sec: Security, mfp: Mfp) -> ApConfig {
    let mut c = ApConfig::new(BSSID, SSID, sec);
    c.mfp = mfp;
    c
}

fn sta_cfg(addr: MacAddr, sec: Security, mfp: Mfp) -> StaConfig {
    let mut c = StaConfig::new(addr, SSID, sec);
    c.mfp = mfp;
    c
}

/// Station 0 sends to station 1 through the AP and it arrives.
fn traffic_flows(sim: &mut Sim, tag: &[u8]) -> bool {
    sim.sta_send(0, STA2, tag);
    sim.run(3);
    sim.sta_host[1].last().is_some_and(|e| &e[14..] == tag)
}

/// A lossless simulation, frames to the cores one by one.
fn new_sim(ap: ApConfig, stas: Vec<StaConfig>) -> Sim {
    Sim::new(ap, stas, 0.0, 1, Feed::PerFrame)
}

fn mfp_net(ap: Mfp, sta: Mfp) -> Sim {
    new_sim(ap_cfg(rsn(), ap), vec![sta_cfg(STA1, rsn(), sta), sta_cfg(STA2, rsn(), sta)])
}

fn subtype(f: &[u8]) -> Option<(u8, bool, MacAddr)> {
    let h = Header::new_checked(f).ok()?;
    let fc = h.frame_control();
    fc.is_mgmt().then(|| (fc.subtype(), fc.protected(), h.addr1()))
}

/// The RSN element of the AP's last Beacon on the air.
fn beacon_rsne(sim: &Sim) -> RsnElementRepr {
    let b = sim.air.iter().rev().find(|f| subtype(f).is_some_and(|s| s.0 == mgmt_subtype::BEACON)).expect("a beacon");
    let Ok(Mgmt::Beacon(info)) = frames::parse_mgmt(b) else { panic!("beacon parses") };
    RsnElementRepr::parse(&info.rsne.expect("RSN element")).unwrap()
}

/// A Deauthentication as an attacker sends it: unprotected, with a spoofed transmitter.
fn forged_deauth(da: &MacAddr, sa: &MacAddr, reason: ReasonCode) -> Vec<u8> {
    frames::deauth(da, sa, &BSSID, 7, reason, true)
}

#[test]
fn mfp_handshake_installs_igtk_and_bip_broadcast_deauth_verifies() {
    let mut sim = mfp_net(Mfp::Required, Mfp::Required);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let e = beacon_rsne(&sim);
    let caps = e.capabilities.unwrap();
    assert!(caps.mfpc() && caps.mfpr(), "beacon RSN capabilities {:#06x}", caps.0);
    assert_eq!(e.group_mgmt_cipher, None, "BIP-CMAC-128 is the default: no field (as hostapd)");
    for (i, a) in [STA1, STA2].iter().enumerate() {
        assert!(sim.sta(i).mfp_active());
        assert_eq!(sim.ap().station_mfp(a), Some(true));
    }
    assert!(traffic_flows(&mut sim, b"data under mfp"));
    // One group-addressed Deauthentication under BIP: both stations verify its MME with
    // the IGTK they got in message 3, so their IGTK is the AP's.
    let fs = sim.with_ap(|ap, _, out| ap.deauth_broadcast(ReasonCode::DEAUTH_LEAVING, out));
    let bip = fs.iter().find(|f| subtype(f).is_some_and(|s| s.0 == mgmt_subtype::DEAUTH)).expect("broadcast deauth").clone();
    let (_, protected, a1) = subtype(&bip).unwrap();
    assert_eq!(a1, MacAddr::BROADCAST);
    assert!(!protected, "BIP does not encrypt: Protected stays 0");
    // Body: Reason (2) + MME (ID 76, length 16, Key ID 4, IPN 1, MIC 8).
    assert_eq!(bip.len(), 24 + 2 + 18);
    assert_eq!(&bip[26..30], &[76, 16, 4, 0]);
    assert_eq!(&bip[30..36], &[1, 0, 0, 0, 0, 0]);
    sim.run(2);
    for who in 1..=2 {
        assert!(sim.phases(who).contains(&Phase::Deauthenticated { reason: ReasonCode(3), by_peer: true }), "{:?}", sim.phases(who));
    }
    // They join again (the IGTK KDE now carries IPN 1); a replay of that deauthentication
    // is refused by both.
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let replays_before: u64 = (0..2).map(|i| sim.sta(i).counters.dropped("replay")).sum();
    sim.inject.push(bip.clone());
    sim.run(5);
    assert!(sim.all_established());
    let replays: u64 = (0..2).map(|i| sim.sta(i).counters.dropped("replay")).sum();
    assert_eq!(replays - replays_before, 2, "{} / {}", sim.sta(0).counters, sim.sta(1).counters);
    // A forged MIC is refused too.
    let mut forged = bip.clone();
    forged[30] = 9; // a fresh IPN, but the MIC no longer matches
    let n = forged.len();
    forged[n - 1] ^= 1;
    sim.inject.push(forged);
    sim.run(5);
    assert!(sim.all_established());
    assert_eq!((0..2).map(|i| sim.sta(i).counters.dropped("mic failure")).sum::<u64>(), 2);
    // And the AP's shutdown under MFP is that same BIP deauthentication, obeyed.
    let fs = sim.with_ap(|ap, _, out| ap.shutdown(out));
    assert_eq!(fs.len(), 1);
    assert_eq!(&fs[0][26..30], &[76, 16, 4, 0]);
    sim.ap = None;
    sim.run(2);
    assert!((0..2).all(|i| !sim.sta(i).is_established()));
}

#[test]
fn bip_gmac_256_and_psk_sha256() {
    let sec = rsn_akm(Akm::PskSha256, vec![CipherSuite::Gcmp256]);
    let mut ap = ap_cfg(sec.clone(), Mfp::Required);
    ap.group_mgmt_cipher = CipherSuite::BipGmac256;
    let mut sim = new_sim(ap, vec![sta_cfg(STA1, sec.clone(), Mfp::Optional), sta_cfg(STA2, sec, Mfp::Required)]);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let e = beacon_rsne(&sim);
    assert_eq!(e.group_mgmt_cipher, Some(Suite::from_cipher(CipherSuite::BipGmac256)));
    assert_eq!(e.akms, vec![Suite::rsn(6)], "WPA-PSK-SHA256 is 00-0F-AC:6");
    assert!(traffic_flows(&mut sim, b"gcmp-256 + bip-gmac-256"));
    let fs = sim.with_ap(|ap, _, out| ap.deauth_broadcast(ReasonCode::DEAUTH_LEAVING, out));
    // BIP-GMAC-256: a 16-octet MIC, MME length 24.
    assert_eq!(&fs[0][26..28], &[76, 24]);
    sim.ap = None; // so that the stations cannot join again at once
    sim.run(2);
    assert!((0..2).all(|i| !sim.sta(i).is_established()));
    assert_eq!((0..2).map(|i| sim.sta(i).counters.total_drops()).sum::<u64>(), 0);
}

#[test]
fn protected_deauth_accepted_forged_deauth_ignored() {
    let mut sim = mfp_net(Mfp::Optional, Mfp::Optional);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    // Forged, unprotected: to STA1 "from the AP", and to the AP "from STA1".
    sim.inject.push(forged_deauth(&STA1, &BSSID, ReasonCode::DEAUTH_LEAVING));
    sim.inject.push(forged_deauth(&BSSID, &STA1, ReasonCode::DEAUTH_LEAVING));
    sim.inject.push(frames::deauth(&STA1, &BSSID, &BSSID, 8, ReasonCode::ASSOC_LEAVING, false)); // disassociation
    sim.run(3);
    assert!(sim.all_established(), "{:?}", sim.events);
    assert_eq!(sim.sta(0).counters.dropped("unprotected robust management frame"), 2);
    assert_eq!(sim.ap().counters.dropped("unprotected robust management frame"), 1);
    assert!(traffic_flows(&mut sim, b"still associated"));
    // Reason 7 ("class 3 frame from a non-associated STA") might be genuine: STA1 asks
    // the AP with a protected SA Query; the AP answers and STA1 stays.
    sim.inject.push(forged_deauth(&STA1, &BSSID, ReasonCode::CLASS3_FROM_NONASSOC));
    sim.run(1);
    assert!(sim.sta(0).sa_query_running() || sim.sta(0).is_established());
    sim.run(5);
    assert!(!sim.sta(0).sa_query_running());
    assert!(sim.all_established());
    let queries: Vec<&Vec<u8>> = sim.air.iter().filter(|f| subtype(f).is_some_and(|s| s.0 == mgmt_subtype::ACTION)).collect();
    assert_eq!(queries.len(), 2, "SA Query Request and Response");
    assert!(queries.iter().all(|f| subtype(f).unwrap().1), "SA Query frames are protected");
    // A real (protected) deauthentication from the AP is obeyed.
    let fs = sim.with_ap(|ap, _, out| ap.deauth(&STA1, ReasonCode::UNSPECIFIED, out));
    let (st, protected, a1) = subtype(&fs[0]).unwrap();
    assert_eq!((st, protected, a1), (mgmt_subtype::DEAUTH, true, STA1));
    // CCMP: header 24 + CCMP header 8 + reason 2 + MIC 8; the reason is not readable.
    assert_eq!(fs[0].len(), 24 + 8 + 2 + 8);
    sim.run(2);
    assert!(sim.phases(1).contains(&Phase::Deauthenticated { reason: ReasonCode(1), by_peer: true }), "{:?}", sim.phases(1));
    // And a station's protected goodbye is obeyed by the AP.
    let fs = sim.with_sta(1, |s, now, out| s.shutdown(now, out));
    assert!(subtype(&fs[0]).unwrap().1, "station's deauthentication is protected");
    sim.stas[1] = None; // gone for good
    sim.run(2);
    assert!(sim.phases(0).contains(&Phase::Deauthenticated { reason: ReasonCode(3), by_peer: true }), "{:?}", sim.phases(0));
    assert_eq!(sim.ap().station_mfp(&STA2), None);
}

#[test]
fn without_mfp_a_forged_deauth_disconnects() {
    // The control: the same forgery works when MFP is off.
    let mut sim = mfp_net(Mfp::Disabled, Mfp::Optional);
    assert!(sim.run_until(3_000, |s| s.all_established()));
    assert!(!sim.sta(0).mfp_active());
    sim.inject.push(forged_deauth(&STA1, &BSSID, ReasonCode::DEAUTH_LEAVING));
    sim.run(1);
    assert!(!sim.sta(0).is_established());
}

#[test]
fn ieee80211w_negotiation_matrix() {
    use Mfp::*;
    // (AP, STA) -> None: no association; Some(mfp): associated, with MFP or not.
    let table = [
        (Disabled, Disabled, Some(false)),
        (Disabled, Optional, Some(false)),
        (Disabled, Required, None),
        (Optional, Disabled, Some(false)),
        (Optional, Optional, Some(true)),
        (Optional, Required, Some(true)),
        (Required, Disabled, None),
        (Required, Optional, Some(true)),
        (Required, Required, Some(true)),
    ];
    for (ap, sta, want) in table {
        let mut sim = new_sim(ap_cfg(rsn(), ap), vec![sta_cfg(STA1, rsn(), sta)]);
        let up = sim.run_until(1_500, |s| s.all_established());
        assert_eq!(up, want.is_some(), "ap {ap:?} sta {sta:?}: {:?}", sim.events);
        match want {
            Some(m) => {
                assert_eq!(sim.sta(0).mfp_active(), m, "ap {ap:?} sta {sta:?}");
                assert_eq!(sim.ap().station_mfp(&STA1), Some(m), "ap {ap:?} sta {sta:?}");
                assert_eq!(beacon_rsne(&sim).capabilities.unwrap().mfpc(), ap != Disabled);
            }
            None => assert!(sim.sta(0).counters.dropped("bss security not acceptable") > 0, "ap {ap:?} sta {sta:?}"),
        }
    }
}

/// Open authentication and an Association Request with `rsne` from `sta`, straight to
/// the AP core; the status of its Association Response.
fn assoc_status(ap: &mut AccessPoint, sta: &MacAddr, rsne: &RsnElementRepr) -> StatusCode {
    assoc_status_raw(ap, sta, &rsne.to_bytes().unwrap())
}

/// [`assoc_status`] with the RSN element's octets as given.
fn assoc_status_raw(ap: &mut AccessPoint, sta: &MacAddr, r: &[u8]) -> StatusCode {
    let now = 2_000 * MS;
    let mut out = Output::default();
    ap.handle_air(now, &frames::auth(&BSSID, sta, &BSSID, 1, AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 1, StatusCode::SUCCESS)), &mut out);
    out.air.clear();
    ap.handle_air(now, &frames::assoc_req(sta, &BSSID, 2, Capability(0x0031), SSID, Some(r)), &mut out);
    let resp = out.air.iter().find(|f| subtype(f).is_some_and(|s| s.0 == mgmt_subtype::ASSOC_RESP)).expect("a response");
    match frames::parse_mgmt(resp) {
        Ok(Mgmt::AssocResp { status, .. }) => status,
        m => panic!("{m:?}"),
    }
}

fn sta_rsne(pairwise: CipherSuite, caps: u16, mgmt: Option<CipherSuite>) -> RsnElementRepr {
    RsnElementRepr {
        version: 1,
        group_cipher: Some(Suite::from_cipher(CipherSuite::Ccmp128)),
        pairwise: vec![Suite::from_cipher(pairwise)],
        akms: vec![Suite::from_akm(Akm::Psk)],
        capabilities: Some(RsnCapabilities(caps)),
        pmkids: vec![],
        group_mgmt_cipher: mgmt.map(Suite::from_cipher),
    }
}

#[test]
fn ap_refuses_with_the_status_codes_of_12_6_3() {
    const MFPC: u16 = RsnCapabilities::MFPC;
    const MFPR: u16 = RsnCapabilities::MFPR;
    let ccmp = CipherSuite::Ccmp128;
    let mut req = nodesim::ap_core(ap_cfg(rsn(), Mfp::Required), 0);
    assert_eq!(assoc_status(&mut req, &STA1, &sta_rsne(ccmp, 0, None)), StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
    assert_eq!(assoc_status(&mut req, &STA1, &sta_rsne(ccmp, MFPC, None)), StatusCode::SUCCESS);
    let mut off = nodesim::ap_core(ap_cfg(rsn(), Mfp::Disabled), 0);
    assert_eq!(assoc_status(&mut off, &STA1, &sta_rsne(ccmp, MFPC | MFPR, None)), StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
    assert_eq!(assoc_status(&mut off, &STA2, &sta_rsne(ccmp, MFPC, None)), StatusCode::SUCCESS);
    let mut opt = nodesim::ap_core(ap_cfg(rsn(), Mfp::Optional), 0);
    let wrong = Some(CipherSuite::BipGmac256);
    assert_eq!(assoc_status(&mut opt, &STA1, &sta_rsne(ccmp, MFPC, wrong)), StatusCode::CIPHER_REJECTED_PER_POLICY);
    assert_eq!(assoc_status(&mut opt, &STA1, &sta_rsne(ccmp, MFPR, None)), StatusCode::INVALID_RSNE_CAPABILITIES);
    // MFP over TKIP is refused (12.6.3); the same TKIP station without MFPC is fine.
    let tk = rsn_akm(Akm::Psk, vec![ccmp, CipherSuite::Tkip]);
    let mut mixed = nodesim::ap_core(ap_cfg(tk, Mfp::Optional), 0);
    assert_eq!(assoc_status(&mut mixed, &STA1, &sta_rsne(CipherSuite::Tkip, MFPC, None)), StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
    assert_eq!(assoc_status(&mut mixed, &STA2, &sta_rsne(CipherSuite::Tkip, 0, None)), StatusCode::SUCCESS);
    // An AP cannot offer MFP over TKIP alone, nor without an RSNA.
    assert!(nodesim::try_ap_core(ap_cfg(rsn_akm(Akm::Psk, vec![CipherSuite::Tkip]), Mfp::Optional), 0).is_err());
    assert!(nodesim::try_ap_core(ap_cfg(Security::Open, Mfp::Optional), 0).is_err());
}

#[test]
fn ap_ignores_octets_after_the_rsn_capabilities_as_hostapd_does() {
    // The RSNE is extensible (9.4.2.1, Table 9-92): what follows the fields the AP knows is
    // ignored, a field cut short after the RSN Capabilities included; hostapd's
    // wpa_parse_wpa_ie_rsn does the same. A short field before them, or a PMKID Count
    // beyond the element, is still status 40 (Invalid element).
    let ccmp = CipherSuite::Ccmp128;
    let with = |base: &RsnElementRepr, extra: &[u8]| {
        let mut r = base.to_bytes().unwrap();
        r.extend_from_slice(extra);
        r[1] += extra.len() as u8;
        r
    };
    let caps = sta_rsne(ccmp, RsnCapabilities::MFPC, None);
    let mgmt = sta_rsne(ccmp, RsnCapabilities::MFPC, Some(CipherSuite::BipCmac128));
    for (i, (base, extra, want)) in [
        (&caps, &[0xdd][..], StatusCode::SUCCESS),
        (&caps, &[0, 0, 0xdd, 0xdd, 0xdd][..], StatusCode::SUCCESS),
        (&mgmt, &[1, 2, 3, 4, 5, 6, 7][..], StatusCode::SUCCESS),
        (&caps, &[2, 0, 0xdd][..], StatusCode::INVALID_ELEMENT),
    ]
    .into_iter()
    .enumerate()
    {
        let mut ap = nodesim::ap_core(ap_cfg(rsn(), Mfp::Optional), 0);
        assert_eq!(assoc_status_raw(&mut ap, &STA1, &with(base, extra)), want, "case {i}");
    }
    // One octet where the RSN Capabilities would start: hostapd's "ie too short".
    let no_caps = RsnElementRepr { capabilities: None, ..sta_rsne(ccmp, 0, None) };
    let mut ap = nodesim::ap_core(ap_cfg(rsn(), Mfp::Optional), 0);
    assert_eq!(assoc_status_raw(&mut ap, &STA1, &with(&no_caps, &[0])), StatusCode::INVALID_ELEMENT);
}

#[test]
fn restarted_station_gets_association_comeback_then_sa_query_timeout_lets_it_in() {
    let mut sim = mfp_net(Mfp::Required, Mfp::Required);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    // STA1 killed (no goodbye) and restarted without its keys.
    sim.stas[0] = None;
    sim.run(50);
    sim.stas[0] = Some(nodesim::sta_core(sta_cfg(STA1, rsn(), Mfp::Required), sim.now));
    assert!(sim.run_until(5_000, |s| s.all_established()), "{:?}", sim.events);
    // The way in: status 30 with a comeback time, an unanswered SA Query, the old
    // association dropped, then a normal association.
    assert!(sim.ap().counters.dropped("association refused: sa query") >= 1, "{}", sim.ap().counters);
    assert_eq!(sim.ap().counters.dropped("sa query timeout"), 1, "{}", sim.ap().counters);
    assert!(sim.sta(0).counters.dropped("association refused temporarily") >= 1);
    let resp30 = sim
        .air
        .iter()
        .find(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::AssocResp { status: StatusCode::REFUSED_TEMPORARILY, .. })))
        .expect("an association response with status 30");
    let tu = frames::assoc_comeback_tu(resp30).expect("Timeout Interval element, type 3");
    assert!((1..=1000).contains(&tu), "comeback {tu} TU");
    assert!(traffic_flows(&mut sim, b"after sta restart"));
    assert!(sim.sta(0).mfp_active());
}

#[test]
fn spoofed_association_request_does_not_kick_a_live_station() {
    let mut sim = mfp_net(Mfp::Required, Mfp::Required);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    // An attacker replays STA1's (re)association: authentication + association request.
    let r = sta_rsne(CipherSuite::Ccmp128, RsnCapabilities::MFPC | RsnCapabilities::MFPR, None).to_bytes().unwrap();
    sim.inject.push(frames::auth(&BSSID, &STA1, &BSSID, 1, AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 1, StatusCode::SUCCESS)));
    sim.inject.push(frames::assoc_req(&STA1, &BSSID, 2, Capability(0x0031), SSID, Some(&r)));
    sim.run(1);
    assert!(sim.air.iter().any(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::AssocResp { status: StatusCode::REFUSED_TEMPORARILY, .. }))));
    // The real STA1 answers the SA Query: nothing changes.
    sim.run(1_500);
    assert!(!sim.ap().sa_query_running(&STA1));
    assert_eq!(sim.ap().counters.dropped("sa query timeout"), 0);
    assert!(sim.all_established());
    assert!(traffic_flows(&mut sim, b"still here"));
}

#[test]
fn ap_restart_station_sa_query_times_out_and_it_rejoins() {
    let mut sim = mfp_net(Mfp::Required, Mfp::Required);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    let cfg = sim.ap().config().clone();
    sim.ap = None;
    sim.run(100);
    sim.ap = Some(nodesim::ap_core(cfg, sim.now));
    // The stations' data meets an unprotected "class 3" deauthentication from the new AP:
    // they check with an SA Query, get no answer and join again.
    sim.sta_send(0, STA2, b"to a restarted ap");
    assert!(sim.run_until(10_000, |s| s.all_established()), "{:?}", sim.events);
    assert!(sim.sta(0).counters.dropped("sa query timeout") >= 1, "{}", sim.sta(0).counters);
    assert!(traffic_flows(&mut sim, b"after ap restart"));
}

#[test]
fn igtk_is_renewed_with_the_gtk() {
    let mut ap = ap_cfg(rsn(), Mfp::Optional);
    ap.group_rekey_s = 2;
    // STA2 without MFP: it gets the GTK but never an IGTK.
    let mut sim = new_sim(ap, vec![sta_cfg(STA1, rsn(), Mfp::Optional), sta_cfg(STA2, rsn(), Mfp::Disabled)]);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    assert_eq!(sim.ap().station_mfp(&STA2), Some(false));
    sim.run(2_500);
    assert!(sim.phases(0).contains(&Phase::GroupKey { key_id: 2 }), "{:?}", sim.phases(0));
    assert!(sim.all_established());
    let fs = sim.with_ap(|ap, _, out| ap.deauth_broadcast(ReasonCode::DEAUTH_LEAVING, out));
    assert_eq!(&fs[0][26..30], &[76, 16, 5, 0], "the new IGTK has Key ID 5");
    sim.run(2);
    assert!(sim.phases(1).contains(&Phase::Deauthenticated { reason: ReasonCode(3), by_peer: true }), "{:?}", sim.phases(1));
    assert!(sim.phases(2).contains(&Phase::Deauthenticated { reason: ReasonCode(3), by_peer: true }));
    assert_eq!(sim.sta(0).counters.total_drops(), 0, "{}", sim.sta(0).counters);
}

const AP_CONF: &str = "interface=wap0\nssid=wsec-mfp\nbssid=02:00:00:00:00:01\nwpa=2\nwpa_passphrase=correct horse battery\n";
const STA_HEAD: &str = "interface=wsta0\naddr=02:00:00:00:00:11\n";

#[test]
fn configuration_keys_and_errors() {
    let a = parse_ap(&format!("{AP_CONF}ieee80211w=2\ngroup_mgmt_cipher=BIP-GMAC-256\nwpa_key_mgmt=WPA-PSK-SHA256\n")).unwrap();
    assert_eq!(a.ap.mfp, Mfp::Required);
    assert_eq!(a.ap.group_mgmt_cipher, CipherSuite::BipGmac256);
    assert_eq!(parse_ap(&format!("{AP_CONF}ieee80211w=1\n")).unwrap().ap.mfp, Mfp::Optional);
    assert_eq!(parse_ap(AP_CONF).unwrap().ap.group_mgmt_cipher, CipherSuite::BipCmac128);
    let e = parse_ap(&format!("{AP_CONF}ieee80211w=3\n")).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    let e = parse_ap(&format!("{AP_CONF}group_mgmt_cipher=BIP-FOO\n")).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    let e = parse_ap("interface=wap0\nssid=x\nbssid=02:00:00:00:00:01\nieee80211w=1\n").unwrap_err();
    assert_eq!(e.line, 4, "MFP without WPA2: {e}");
    let e = parse_ap(&format!("{AP_CONF}rsn_pairwise=TKIP\nieee80211w=2\n")).unwrap_err();
    assert_eq!(e.line, 7, "MFP over TKIP: {e}");
    let net = "network={\n    ssid=\"wsec-mfp\"\n    psk=\"correct horse battery\"\n    key_mgmt=WPA-PSK WPA-PSK-SHA256\n";
    let s = parse_sta(&format!("{STA_HEAD}{net}    ieee80211w=2\n}}\n")).unwrap();
    assert_eq!(s.sta.mfp, Mfp::Required);
    // `pmf` is the global default; a network's ieee80211w wins.
    assert_eq!(parse_sta(&format!("{STA_HEAD}pmf=1\n{net}}}\n")).unwrap().sta.mfp, Mfp::Optional);
    assert_eq!(parse_sta(&format!("{STA_HEAD}pmf=2\n{net}    ieee80211w=0\n}}\n")).unwrap().sta.mfp, Mfp::Disabled);
    let e = parse_sta(&format!("{STA_HEAD}pmf=5\n{net}}}\n")).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    let e = parse_sta(&format!("{STA_HEAD}{net}    ieee80211w=x\n}}\n")).unwrap_err();
    assert_eq!(e.line, 7, "{e}");
    // A global pmf default does not turn an open network into an error.
    let open = parse_sta(&format!("{STA_HEAD}pmf=2\nnetwork={{\n    ssid=\"o\"\n    key_mgmt=NONE\n}}\n")).unwrap();
    assert_eq!(open.sta.mfp, Mfp::Disabled);
}

/// What tshark shows of the protected management frames of `pcap` given `passphrase`:
/// one line per frame, "subtype<TAB>reason<TAB>category<TAB>transaction id".
fn tshark_mgmt(pcap: &std::path::Path, conf: &std::path::Path, passphrase: &str) -> Vec<String> {
    let out = std::process::Command::new("tshark")
        .env("WIRESHARK_CONFIG_DIR", conf)
        .args(["-n", "-r"])
        .arg(pcap)
        .args(["-o", "wlan.enable_decryption:TRUE", "-o", &format!("uat:80211_keys:\"wpa-pwd\",\"{passphrase}:wsec-mfp\"")])
        .args(["-Y", "wlan.fc.protected == 1 && wlan.fc.type == 0"])
        .args(["-T", "fields", "-e", "wlan.fc.type_subtype", "-e", "wlan.fixed.reason_code", "-e", "wlan.fixed.category_code"])
        .args(["-e", "wlan.fixed.transaction_id"])
        .output()
        .expect("tshark (scripts/setup installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| l.to_string()).collect()
}

/// tshark, given only the passphrase and SSID, decrypts the protected management frames
/// of an MFP capture (the 4-way handshake is in it): the CCMP-protected
/// Deauthentication's reason code and the SA Query's category and Transaction
/// Identifier come out; with a wrong passphrase they do not. An independent check that
/// the frames on the air are standard (CCMP with the management nonce flag, 12.5.3.3).
#[test]
fn tshark_decrypts_the_protected_management_frames() {
    let mut sim = mfp_net(Mfp::Required, Mfp::Required);
    assert!(sim.run_until(3_000, |s| s.all_established()), "{:?}", sim.events);
    sim.inject.push(forged_deauth(&STA1, &BSSID, ReasonCode::CLASS3_FROM_NONASSOC)); // SA Query Request and Response
    sim.run(5);
    sim.with_ap(|ap, _, out| ap.deauth(&STA1, ReasonCode::INACTIVITY, out));
    sim.run(1);
    let dir = std::env::temp_dir().join(format!("wsec-mfp-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("mfp.pcap");
    {
        let f = std::fs::File::create(&pcap).unwrap();
        let mut w = wsec::capture::writer::CaptureWriter::pcap(f, 105, false).unwrap();
        for (i, m) in sim.air.iter().enumerate() {
            let p = wsec::capture::Packet { linktype: 105, ts_ns: 1_700_000_000_000_000_000 + i as u64 * 1000, data: m.clone() };
            w.write(&p).unwrap();
        }
    }
    let good = tshark_mgmt(&pcap, &dir, "correct horse battery");
    let bad = tshark_mgmt(&pcap, &dir, "wrong horse battery");
    let _ = std::fs::remove_dir_all(&dir);
    let f = |l: &String| l.split('\t').map(|x| x.to_string()).collect::<Vec<String>>();
    let good: Vec<Vec<String>> = good.iter().map(f).collect();
    assert_eq!(good.len(), 3, "{good:?}");
    assert_eq!((good[0][0].as_str(), good[0][2].as_str()), ("0x000d", "8"), "SA Query Request: {good:?}");
    assert_eq!((good[1][0].as_str(), good[1][2].as_str()), ("0x000d", "8"), "SA Query Response: {good:?}");
    assert!(!good[0][3].is_empty() && good[0][3] == good[1][3], "the response echoes the request's ID: {good:?}");
    assert_eq!((good[2][0].as_str(), good[2][1].as_str()), ("0x000c", "0x0004"), "Deauthentication reason 4: {good:?}");
    let bad: Vec<Vec<String>> = bad.iter().map(f).collect();
    assert_eq!(bad.len(), 3);
    assert!(bad.iter().all(|l| l.iter().skip(1).all(|x| x.is_empty())), "nothing readable without the key: {bad:?}");
}
