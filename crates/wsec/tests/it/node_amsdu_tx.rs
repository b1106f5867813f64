//! A-MSDU transmit and QoS Data (issue 37; IEEE 802.11-2020 9.2.4.5, 9.3.2.2, 10.3.2.14):
//! the AP and station cores negotiate HT and WMM as hostapd and wpa_supplicant do (HT
//! Capabilities, HT Operation, WMM Parameter in Beacons and (Re)Association Responses; HT
//! Capabilities and WMM Information in the request), then pack bursts from the host and
//! relayed frames into A-MSDUs up to the peer's Max A-MSDU Length, and the peer takes
//! every MSDU in order. The frames are checked on the air (QoS Control, lengths) and the
//! A-MSDU and the elements against tshark's dissection.
use crate::peers;
use wsec::cipher::CipherSuite;
use wsec::node::ap::{AccessPoint, ApConfig};
use wsec::node::frames::{self, Mgmt};
use wsec::node::qos::{self, Aggregator};
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{Output, Security};
use wsec::rsn::akm::Akm;
use wsec::wire::amsdu::Amsdu;
use wsec::wire::ht::HtCapInfo;
use wsec::wire::mac::{MacAddr, Mpdu};
use wsec::wire::EtherType;
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x22]);
const WIRED: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x99]);
const MS: u64 = 1_000_000;
const SSID: &[u8] = b"wsec-amsdu";

fn rsn(c: CipherSuite) -> Security {
    Security::Rsn { akms: vec![Akm::Psk], pairwise: vec![c], groups: vec![CipherSuite::Ccmp128], pmk: Zeroizing::new(vec![0x5a; 32]) }
}

fn ht_ap(sec: Security) -> ApConfig {
    let mut c = ApConfig::new(BSSID, SSID, sec);
    c.ht_capab = Some(HtCapInfo(HtCapInfo::SM_PS_DISABLED));
    c.wmm = true;
    c
}

/// An AP and stations over a lossless medium until every station is established; every
/// frame that went on the air meanwhile.
fn network(ap: ApConfig, stas: Vec<StaConfig>) -> (AccessPoint, Vec<Station>, u64, Vec<Vec<u8>>) {
    let mut now = 1_000 * MS;
    let mut ap = AccessPoint::new(ap, now, wsec::rng::seeded(1)).unwrap();
    let mut stas: Vec<Station> =
        stas.into_iter().enumerate().map(|(i, c)| Station::new(c, now, wsec::rng::seeded(2 + i as u64)).unwrap()).collect();
    let mut out = Output::default();
    let mut seen = Vec::new();
    for _ in 0..5_000 {
        if stas.iter().all(|s| s.is_established()) {
            return (ap, stas, now, seen);
        }
        now += MS;
        let mut air = std::collections::VecDeque::new();
        ap.handle_timeout(now, &mut out);
        air.extend(out.air.drain(..));
        for s in stas.iter_mut() {
            s.handle_timeout(now, &mut out);
            air.extend(out.air.drain(..));
        }
        let mut budget = 1_000;
        while let Some(f) = air.pop_front() {
            budget -= 1;
            assert!(budget > 0, "the nodes keep answering each other");
            seen.push(f.clone());
            ap.handle_air(now, &f, &mut out);
            air.extend(out.air.drain(..));
            for s in stas.iter_mut() {
                s.handle_air(now, &f, &mut out);
                air.extend(out.air.drain(..));
            }
            out.clear();
        }
    }
    panic!("the stations did not establish");
}

/// `n` Ethernet frames from `sa` to `da`, IPv4 with best-effort DSCP, `len` octets of
/// payload each, numbered in their first octets after the IPv4 header.
fn burst(da: MacAddr, sa: MacAddr, n: usize, len: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut p = vec![0u8; len];
            p[0] = 0x45;
            p[20..24].copy_from_slice(&(i as u32).to_be_bytes());
            frames::ethernet(&da, &sa, EtherType::IPV4, &p)
        })
        .collect()
}

/// (QoS Data, A-MSDU Present, TID) of a data MPDU; QoS Data false for a non-QoS one.
fn qos_of(f: &[u8]) -> (bool, bool, u8) {
    let m = Mpdu::new_checked(f).unwrap();
    match m.qos_control() {
        Some(q) => (true, q.amsdu_present(), q.tid()),
        None => (false, false, 0),
    }
}

/// Feeds `frames` to `node` one by one and returns what it gave the host.
fn deliver(sta: &mut Station, now: u64, frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Output::default();
    for f in frames {
        sta.handle_air(now, f, &mut out);
    }
    out.host
}

#[test]
fn beacons_and_association_carry_ht_and_wmm_only_when_configured() {
    // Default AP: the Beacon as before, no HT, no WMM; the station sends neither.
    let (mut ap, _, now, seen) =
        network(ApConfig::new(BSSID, SSID, rsn(CipherSuite::Ccmp128)), vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128))]);
    let mut out = Output::default();
    ap.handle_timeout(now + 200 * MS, &mut out);
    let beacon = out.air.iter().find(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::Beacon(_)))).expect("a beacon");
    let Ok(Mgmt::Beacon(info)) = frames::parse_mgmt(beacon) else { unreachable!() };
    assert_eq!((info.ht.is_none(), info.wmm.is_none()), (true, true));
    let req = seen.iter().find_map(|f| match frames::parse_mgmt(f) {
        Ok(Mgmt::AssocReq { ies, .. }) => Some(ies.to_vec()),
        _ => None,
    });
    let req = req.expect("an association request");
    assert!(wsec::wire::element::find(&req, 45).unwrap().is_none());
    assert!(wsec::wire::wmm::find(&req, 0).unwrap().is_none());

    // HT AP: Beacon, Association Response with HT Capabilities, HT Operation, WMM
    // Parameter; the station's request with HT Capabilities and WMM Information.
    let (_, _, _, seen) = network(ht_ap(rsn(CipherSuite::Ccmp128)), vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128))]);
    let info = seen
        .iter()
        .find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::Beacon(i)) => Some(i),
            _ => None,
        })
        .expect("a beacon");
    assert_eq!(info.ht.as_ref().map(|h| (h[0], h[1], h[28], h[29], h[30])), Some((45, 26, 61, 22, 6)));
    assert!(info.wmm.is_some());
    let req = seen.iter().find_map(|f| match frames::parse_mgmt(f) {
        Ok(Mgmt::AssocReq { ies, .. }) => Some(ies.to_vec()),
        _ => None,
    });
    let req = req.unwrap();
    let cap = wsec::wire::element::find(&req, 45).unwrap().expect("HT Capabilities in the request");
    assert_eq!(wsec::wire::ht::HtCapabilitiesRepr::parse_body(cap.body).unwrap().max_amsdu_len(), 3839);
    assert!(wsec::wire::wmm::find(&req, 0).unwrap().is_some(), "WMM Information in the request");
    let resp = seen.iter().find_map(|f| match frames::parse_mgmt(f) {
        Ok(Mgmt::AssocResp { ies, .. }) => Some(ies.to_vec()),
        _ => None,
    });
    let resp = resp.unwrap();
    assert!(wsec::wire::element::find(&resp, 61).unwrap().is_some());
    assert!(wsec::wire::wmm::find(&resp, 1).unwrap().is_some());
    // The 4-way handshake's EAPOL-Key frames travel alone (none has A-MSDU Present).
    let data: Vec<_> = seen.iter().filter(|f| f[0] & 0x0c == 0x08).collect();
    assert!(!data.is_empty());
    assert!(data.iter().all(|f| !qos_of(f).1), "an EAPOL frame in an A-MSDU");
}

#[test]
fn host_burst_goes_in_amsdus_of_the_peer_size_and_arrives_in_order() {
    for cipher in [CipherSuite::Ccmp128, CipherSuite::Gcmp256] {
        let (mut ap, mut stas, now, _) = network(ht_ap(rsn(cipher)), vec![StaConfig::new(STA1, SSID, rsn(cipher))]);
        let eths = burst(STA1, WIRED, 20, 500);
        let mut out = Output::default();
        ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
        // 508-octet MSDUs (LLC/SNAP + 500), 522-octet subframes padded to 524: seven fit
        // 3839 octets (6 * 524 + 522 = 3666; eight would be 4190).
        assert_eq!(out.air.len(), 3, "{cipher:?}");
        for f in &out.air {
            assert_eq!(qos_of(f), (true, true, 0));
        }
        let overhead = 26 + 8 + if cipher == CipherSuite::Gcmp256 { 16 } else { 8 };
        assert_eq!(out.air[0].len(), overhead + 3666);
        assert_eq!(out.air[2].len(), overhead + 5 * 524 + 522);
        assert_eq!((ap.counters.amsdu_tx, ap.counters.amsdu_tx_msdus), (3, 20));
        assert!(ap.counters.to_string().contains("; a-msdu tx 3 (20 msdus); dropped"), "{}", ap.counters);
        assert_eq!(deliver(&mut stas[0], now, &out.air), eths, "every MSDU, in order ({cipher:?})");
        assert_eq!(stas[0].counters.total_drops(), 0, "{}", stas[0].counters);

        // Upstream: the station packs its burst to the AP, which bridges every MSDU.
        let up = burst(WIRED, STA1, 9, 1000);
        let mut out = Output::default();
        stas[0].handle_host_batch(now, up.iter().map(|e| &e[..]), &mut out);
        // 1008-octet MSDUs, 1022-octet subframes padded to 1024: three per A-MSDU.
        assert_eq!(out.air.len(), 3);
        assert!(out.air.iter().all(|f| qos_of(f) == (true, true, 0)));
        assert_eq!(stas[0].counters.amsdu_tx_msdus, 9);
        let mut o = Output::default();
        for f in &out.air {
            ap.handle_air(now, f, &mut o);
        }
        assert_eq!(o.host, up);
    }
}

#[test]
fn a_lone_msdu_goes_as_plain_qos_data_and_order_holds_around_group_frames() {
    let (mut ap, mut stas, now, _) = network(ht_ap(rsn(CipherSuite::Ccmp128)), vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128))]);
    let mut out = Output::default();
    let one = burst(STA1, WIRED, 1, 100);
    ap.handle_host(now, &one[0], &mut out);
    assert_eq!(out.air.len(), 1);
    assert_eq!(qos_of(&out.air[0]), (true, false, 0));
    // A plain frame From DS: Address 3 is the SA.
    assert_eq!(Mpdu::new_checked(&out.air[0]).unwrap().header().addr3(), Some(WIRED));
    assert_eq!(deliver(&mut stas[0], now, &out.air), one);
    assert_eq!(ap.counters.amsdu_tx, 0);

    // Two unicast, a broadcast, two unicast: the broadcast splits the A-MSDUs and every
    // frame reaches the station in the order the host gave them.
    let mut eths = burst(STA1, WIRED, 4, 200);
    eths.insert(2, frames::ethernet(&MacAddr::BROADCAST, &WIRED, EtherType::IPV4, &[0x45; 60]));
    let mut out = Output::default();
    ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
    let kinds: Vec<_> = out.air.iter().map(|f| qos_of(f)).collect();
    assert_eq!(kinds, vec![(true, true, 0), (false, false, 0), (true, true, 0)]);
    assert_eq!(deliver(&mut stas[0], now, &out.air), eths);
    // A different TID (DSCP EF: priority 5) starts another A-MSDU.
    let mut e = burst(STA1, WIRED, 2, 200);
    let mut vo = burst(STA1, WIRED, 2, 200);
    for v in vo.iter_mut() {
        v[15] = 0xb8;
    }
    e.extend(vo);
    let mut out = Output::default();
    ap.handle_host_batch(now, e.iter().map(|e| &e[..]), &mut out);
    let kinds: Vec<_> = out.air.iter().map(|f| qos_of(f)).collect();
    assert_eq!(kinds, vec![(true, true, 0), (true, true, 5)]);
    assert_eq!(deliver(&mut stas[0], now, &out.air), e);
}

#[test]
fn peers_without_ht_or_wmm_get_single_msdus() {
    // A station with disable_ht=1: QoS Data (WMM) but no A-MSDU.
    let mut no_ht = StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128));
    no_ht.ht_capab = None;
    // A station without WMM: non-QoS Data as before.
    let mut no_wmm = StaConfig::new(STA2, SSID, rsn(CipherSuite::Ccmp128));
    no_wmm.wmm = false;
    let (mut ap, mut stas, now, _) = network(ht_ap(rsn(CipherSuite::Ccmp128)), vec![no_ht, no_wmm]);
    for (i, (sta, want)) in [(STA1, (true, false, 0)), (STA2, (false, false, 0))].into_iter().enumerate() {
        let eths = burst(sta, WIRED, 6, 300);
        let mut out = Output::default();
        ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), 6);
        assert!(out.air.iter().all(|f| qos_of(f) == want), "{sta}");
        assert_eq!(deliver(&mut stas[i], now, &out.air), eths);
    }
    assert_eq!(ap.counters.amsdu_tx, 0);
    // QoS Data Sequence Numbers run per TID from 0 (10.3.2.14.2).
    let eths = burst(STA1, WIRED, 2, 300);
    let mut out = Output::default();
    ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
    let seqs: Vec<u16> = out.air.iter().map(|f| Mpdu::new_checked(f).unwrap().header().seq_control().unwrap().sequence()).collect();
    assert_eq!(seqs, vec![6, 7]);

    // A non-HT AP (the default) sends non-QoS Data to an HT station.
    let (mut ap, mut stas, now, _) =
        network(ApConfig::new(BSSID, SSID, rsn(CipherSuite::Ccmp128)), vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128))]);
    let eths = burst(STA1, WIRED, 5, 300);
    let mut out = Output::default();
    ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
    assert_eq!(out.air.len(), 5);
    assert!(out.air.iter().all(|f| qos_of(f) == (false, false, 0)));
    assert_eq!(deliver(&mut stas[0], now, &out.air), eths);

    // TKIP: an HT AP advertises no HT with TKIP alone (as hostapd), so nothing is packed.
    let (mut ap, mut stas, now, _) = network(ht_ap(rsn(CipherSuite::Tkip)), vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Tkip))]);
    let eths = burst(STA1, WIRED, 4, 300);
    let mut out = Output::default();
    ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
    assert_eq!(out.air.len(), 4);
    assert!(out.air.iter().all(|f| !qos_of(f).1));
    assert_eq!(deliver(&mut stas[0], now, &out.air), eths);
}

#[test]
fn relayed_burst_is_packed_for_the_receiving_station_and_bounded_by_amsdu_max_len() {
    let mut cfg = ht_ap(rsn(CipherSuite::Ccmp128));
    cfg.amsdu_max_len = 2200;
    let (mut ap, mut stas, now, _) =
        network(cfg, vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128)), StaConfig::new(STA2, SSID, rsn(CipherSuite::Ccmp128))]);
    let eths = burst(STA2, STA1, 8, 400);
    let mut out = Output::default();
    stas[0].handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
    // Station 1 to the AP: 3839 octets, 408-octet MSDUs (424-octet padded subframes):
    // nine would fit, all eight go in one.
    assert_eq!(out.air.len(), 1);
    let mut relayed = Output::default();
    ap.handle_air_batch(now, out.air.iter().map(|f| &f[..]), &mut relayed);
    // The AP's bound, 2200 octets: five subframes (4 * 424 + 422 = 2118), then three.
    assert_eq!(relayed.air.len(), 2);
    assert!(relayed.air.iter().all(|f| qos_of(f) == (true, true, 0)));
    assert_eq!(relayed.air[0].len(), 26 + 8 + 2118 + 8);
    assert_eq!(ap.counters.relayed, 8);
    assert_eq!(deliver(&mut stas[1], now, &relayed.air), eths);
}

/// The QoS Data MPDU of an A-MSDU the aggregator builds (From DS to STA1, two MSDUs, the
/// second to broadcast), octet by octet from 9.2.3 and 9.3.2.2.2.
fn built_amsdu() -> Vec<u8> {
    let mut a = Aggregator::default();
    a.start(STA1, 0, qos::qos_header(false, &STA1, &BSSID, &BSSID, 0x123, 0, true), 3839);
    a.append(&STA1, &WIRED, EtherType(0x88b5), b"ping");
    assert!(a.fits(&STA1, 0, 11));
    a.append(&MacAddr::BROADCAST, &WIRED, EtherType(0x88b5), b"arp");
    let b = a.take().unwrap();
    assert_eq!(b.msdus, 2);
    b.mpdu
}

#[test]
fn built_amsdu_octets_and_tshark_dissection() {
    let f = built_amsdu();
    let want = crate::common::h(
        "8802 0000 020000000011 020000000001 020000000001 3012 8000
         020000000011 020000000099 000c aaaa0300000088b5 70696e67 0000
         ffffffffffff 020000000099 000b aaaa0300000088b5 617270",
    );
    assert_eq!(f, want);
    let body = &f[26..];
    assert_eq!(Amsdu::new_checked(body).unwrap().count(), 2);
    let text = peers::tshark_dissect(std::slice::from_ref(&f), 105);
    for needle in [
        "A-MSDU Subframe #1",
        "A-MSDU Subframe #2",
        "Payload Type: A-MSDU",
        "Destination address: 02:00:00:00:00:11",
        "Destination address: ff:ff:ff:ff:ff:ff",
        "Source address: 02:00:00:00:00:99",
        "A-MSDU Length: 12",
        "A-MSDU Length: 11",
        "Sequence number: 291",
    ] {
        assert!(text.contains(needle), "tshark lacks {needle:?}:\n{text}");
    }
    assert!(!text.contains("Malformed"), "{text}");
}

#[test]
fn ht_and_wmm_elements_as_tshark_dissects_them() {
    let mut ap = AccessPoint::new(ht_ap(rsn(CipherSuite::Ccmp128)), 0, wsec::rng::seeded(1)).unwrap();
    let mut out = Output::default();
    ap.handle_timeout(0, &mut out);
    let beacon = out.air.iter().find(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::Beacon(_)))).unwrap().clone();
    let sta = qos::sta_elements(Some(HtCapInfo(0x082c)));
    let req = frames::assoc_req(&STA1, &BSSID, 1, wsec::wire::mgmt::Capability(0x0431), SSID, Some(&sta));
    let text = peers::tshark_dissect(&[beacon, req], 105);
    for needle in [
        "Tag: HT Capabilities (802.11n D1.10)",
        "HT Capabilities Info: 0x000c",
        ".... 0... .... .... = HT Max A-MSDU length: 3839 bytes",
        "Tag: HT Information (802.11n D1.10)",
        "Primary Channel: 6",
        "Tag: Vendor Specific: Microsoft Corp.: WMM/WME: Parameter Element",
        "Ac Parameters ACI 0 (Best Effort), ACM no, AIFSN 3, ECWmin/max 4/10 (CWmin/max 15/1023), TXOP 0",
        "Ac Parameters ACI 1 (Background), ACM no, AIFSN 7, ECWmin/max 4/10 (CWmin/max 15/1023), TXOP 0",
        "Ac Parameters ACI 2 (Video), ACM no, AIFSN 2, ECWmin/max 3/4 (CWmin/max 7/15), TXOP 94",
        "Ac Parameters ACI 3 (Voice), ACM no, AIFSN 2, ECWmin/max 2/3 (CWmin/max 3/7), TXOP 47",
        "Tag: Vendor Specific: Microsoft Corp.: WMM/WME: Information Element",
        "HT Capabilities Info: 0x082c",
        ".... 1... .... .... = HT Max A-MSDU length: 7935 bytes",
    ] {
        assert!(text.contains(needle), "tshark lacks {needle:?}:\n{text}");
    }
    assert!(!text.contains("Malformed"), "{text}");
}

/// Enhanced-WPA2 (ECCMP-4, the seed's parallel MIC under CCMP-128's framing) and an open
/// BSS pack bursts as CCMP does: an ECCMP A-MSDU is opened by the station's ECCMP key; an
/// open BSS's A-MSDUs travel unprotected and are taken there (as mac80211 takes them on
/// open links), while the same unprotected A-MSDU is refused by a station of an RSN BSS.
#[test]
fn eccmp_and_open_links_pack_bursts_too() {
    for sec in [rsn(CipherSuite::Eccmp4), Security::Open] {
        let (mut ap, mut stas, now, _) = network(ht_ap(sec.clone()), vec![StaConfig::new(STA1, SSID, sec.clone())]);
        let eths = burst(STA1, WIRED, 20, 500);
        let mut out = Output::default();
        ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), 3, "{sec:?}");
        for f in &out.air {
            assert_eq!(qos_of(f), (true, true, 0));
            let protected = Mpdu::new_checked(&f[..]).unwrap().frame_control().protected();
            assert_eq!(protected, !sec.is_open(), "{sec:?}");
        }
        assert_eq!((ap.counters.amsdu_tx, ap.counters.amsdu_tx_msdus), (3, 20), "{sec:?}");
        assert_eq!(deliver(&mut stas[0], now, &out.air), eths, "every MSDU, in order ({sec:?})");
        assert_eq!(stas[0].counters.total_drops(), 0, "{}", stas[0].counters);
        // Upstream too.
        let up = burst(WIRED, STA1, 9, 1000);
        let mut out = Output::default();
        stas[0].handle_host_batch(now, up.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), 3, "{sec:?}");
        let mut o = Output::default();
        for f in &out.air {
            ap.handle_air(now, f, &mut o);
        }
        assert_eq!(o.host, up, "{sec:?}");
    }
    // The open BSS's unprotected A-MSDU given to a CCMP station: refused whole.
    let (mut ap, _, now, _) = network(ht_ap(Security::Open), vec![StaConfig::new(STA1, SSID, Security::Open)]);
    let mut out = Output::default();
    let eths = burst(STA1, WIRED, 4, 300);
    ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
    let (_, mut rsn_stas, now2, _) = network(ht_ap(rsn(CipherSuite::Ccmp128)), vec![StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128))]);
    assert!(deliver(&mut rsn_stas[0], now.max(now2), &out.air).is_empty());
    assert!(rsn_stas[0].counters.to_string().contains("unprotected"), "{}", rsn_stas[0].counters);
}

/// An HT AP and one station under CCMP with `spp_amsdu` set as given (0 off, 1 capable,
/// 2 required).
fn spp_network(ap_spp: u8, sta_spp: u8) -> (AccessPoint, Vec<Station>, u64, Vec<Vec<u8>>) {
    let mut ap = ht_ap(rsn(CipherSuite::Ccmp128));
    ap.spp_amsdu = ap_spp;
    let mut sta = StaConfig::new(STA1, SSID, rsn(CipherSuite::Ccmp128));
    sta.spp_amsdu = sta_spp;
    network(ap, vec![sta])
}

/// The elements of the first (Re)Association Request among `seen`.
fn assoc_req_ies(seen: &[Vec<u8>]) -> Vec<u8> {
    seen.iter()
        .find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocReq { ies, .. }) => Some(ies.to_vec()),
            _ => None,
        })
        .expect("an association request")
}

/// RSN Capabilities of the RSN element in `ies`.
fn rsn_caps(ies: &[u8]) -> u16 {
    let e = wsec::wire::element::find(ies, 48).unwrap().expect("an RSN element");
    wsec::rsn::ie::RsnElementRepr::parse(e.bytes).unwrap().capabilities.unwrap_or_default().0
}

/// SPP A-MSDU (IEEE 802.11-2020 9.4.2.24.4, 12.5.3.3.3): both sides set SPP A-MSDU Capable
/// (RSN Capabilities b10), and then the A-MSDU Present bit is in the CCMP AAD. Without SPP an
/// attacker sets that bit on a genuine single-MSDU frame and the MIC still verifies
/// (FragAttacks CVE-2020-24588; the LLC/SNAP check then drops it); with SPP the same
/// forgery fails the MIC. `wsec decrypt` takes SPP A-MSDUs from a capture.
#[test]
fn spp_amsdus_put_the_amsdu_present_bit_under_the_mic() {
    const SPP_CAPABLE: u16 = 1 << 10;
    const SPP_REQUIRED: u16 = 1 << 11;
    for spp in [false, true] {
        let n = spp as u8;
        let (mut ap, mut stas, now, seen) = spp_network(n, n);
        // The elements: the AP's in its Beacons, the station's in its request.
        let beacon = seen
            .iter()
            .find_map(|f| match frames::parse_mgmt(f) {
                Ok(Mgmt::Beacon(i)) => i.rsne,
                _ => None,
            })
            .expect("a beacon with an RSN element");
        let req = assoc_req_ies(&seen);
        assert_eq!(rsn_caps(&beacon) & (SPP_CAPABLE | SPP_REQUIRED), if spp { SPP_CAPABLE } else { 0 });
        assert_eq!(rsn_caps(&req) & (SPP_CAPABLE | SPP_REQUIRED), if spp { SPP_CAPABLE } else { 0 });

        // A burst goes in A-MSDUs and arrives whole and in order either way.
        let eths = burst(STA1, WIRED, 20, 500);
        let mut out = Output::default();
        ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), 3);
        let amsdus = out.air.clone();
        assert_eq!(deliver(&mut stas[0], now, &amsdus), eths, "spp {spp}");
        assert_eq!(stas[0].counters.total_drops(), 0, "{}", stas[0].counters);

        // The capture decryptor, with the PMK alone, learns the PTK from the handshake and
        // opens the A-MSDUs: SPP ones with A-MSDU Present in the AAD.
        let mut d = wsec::decrypt::Decryptor::new(vec![wsec::decrypt::keys::UserKey::Pmk(Zeroizing::new(vec![0x5a; 32]))]);
        for f in &seen {
            d.process(f);
        }
        for f in &amsdus {
            match d.process(f) {
                wsec::decrypt::Outcome::Decrypted { mpdu, .. } => assert_eq!(qos_of(&mpdu), (true, true, 0)),
                o => panic!("spp {spp}: an A-MSDU not decrypted: {o:?}"),
            }
        }
        // The key that opened an SPP A-MSDU is not the one of the masked AAD: with the bit
        // cleared (an attacker's edit) the frame no longer verifies, and without SPP it does.
        let mut cleared = amsdus[0].clone();
        cleared[24] &= !0x80;
        assert_eq!(matches!(d.process(&cleared), wsec::decrypt::Outcome::Decrypted { .. }), !spp, "spp {spp}");

        // CVE-2020-24588: a lone MSDU (plain QoS Data) with A-MSDU Present set on the air.
        let one = burst(STA1, WIRED, 1, 300);
        let mut out = Output::default();
        ap.handle_host_batch(now, one.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), 1);
        assert_eq!(qos_of(&out.air[0]), (true, false, 0));
        let mut forged = out.air[0].clone();
        forged[24] |= 0x80;
        let before = stas[0].counters.clone();
        assert!(deliver(&mut stas[0], now, &[forged]).is_empty(), "spp {spp}: the forged A-MSDU reached the host");
        let why = if spp { "mic failure" } else { "a-msdu starts with an llc/snap header" };
        assert_eq!(stas[0].counters.dropped(why), before.dropped(why) + 1, "spp {spp}: {}", stas[0].counters);
        // The genuine frame, sent again in a new MPDU, still arrives.
        let mut out = Output::default();
        ap.handle_host_batch(now, one.iter().map(|e| &e[..]), &mut out);
        assert_eq!(deliver(&mut stas[0], now, &out.air), one);
    }
}

/// SPP A-MSDU Required on one side and not capable on the other: they associate and pass
/// data, but in no A-MSDU (9.4.2.24.4, Table 9-153); required meeting capable is SPP.
#[test]
fn spp_amsdu_required_against_a_peer_without_spp_means_no_amsdus() {
    for (ap_spp, sta_spp, amsdus) in [(2, 0, false), (0, 2, false), (2, 1, true), (1, 2, true), (2, 2, true)] {
        let (mut ap, mut stas, now, seen) = spp_network(ap_spp, sta_spp);
        let req = assoc_req_ies(&seen);
        assert_eq!(rsn_caps(&req) >> 10 & 3, [0, 1, 3][sta_spp as usize], "the station's SPP bits");
        let eths = burst(STA1, WIRED, 12, 500);
        let mut out = Output::default();
        ap.handle_host_batch(now, eths.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), if amsdus { 2 } else { 12 }, "AP {ap_spp} STA {sta_spp}");
        assert!(out.air.iter().all(|f| qos_of(f).1 == amsdus));
        assert_eq!(deliver(&mut stas[0], now, &out.air), eths);
        let up = burst(WIRED, STA1, 6, 1000);
        let mut out = Output::default();
        stas[0].handle_host_batch(now, up.iter().map(|e| &e[..]), &mut out);
        assert_eq!(out.air.len(), if amsdus { 2 } else { 6 }, "AP {ap_spp} STA {sta_spp}");
        let mut o = Output::default();
        for f in &out.air {
            ap.handle_air(now, f, &mut o);
        }
        assert_eq!(o.host, up);
    }
}
