//! OWE (RFC 8110, AKM 00-0F-AC:18) in the AP and STA cores, in memory: the Diffie-Hellman
//! Parameter element in the Association Request and Response for groups 19, 20 and 21 and
//! the 4-way handshake with each group's hash, status 77 for a group the AP does not take
//! and the station's retry with the next one (wpa_supplicant `owe_group=0`), malformed and
//! off-curve elements refused with a status, PMKSA caching, and transition mode (an open
//! BSS pointing to a hidden OWE BSS, followed by the station).
use crate::nodesim;

use nodesim::{ap_core, Feed, Sim, WIRED};
use wsec::node::frames::{self, Mgmt};
use wsec::node::{Output, Phase};
use wsec::rsn::akm::Akm;
use wsec::rsn::owe::{parse_dh_param_element, EXT_OWE_DH_PARAM};
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, StatusCode};
use wsec_live::conf::{parse_ap, parse_sta};

const STA1: &str = "02:00:00:00:00:11";

fn ap_conf(extra: &str) -> String {
    format!("interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:01\nssid=wsec-owe\nwpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\n{extra}")
}

fn sta_conf(net: &str) -> String {
    format!("interface=wsec-sta\nmedium=air:127.0.0.1:7411\naddr={STA1}\nnetwork={{\n ssid=\"wsec-owe\"\n key_mgmt=OWE\n{net}\n}}\n")
}

fn sim(ap: &str, sta: &str, seed: u64) -> Sim {
    Sim::new(parse_ap(ap).unwrap().ap, vec![parse_sta(sta).unwrap().sta], 0.0, seed, Feed::PerFrame)
}

fn owe_keys(sim: &Sim) -> Vec<(u16, bool)> {
    sim.phases(1)
        .iter()
        .filter_map(|p| match p {
            Phase::OweKeys { group, cached } => Some((*group, *cached)),
            _ => None,
        })
        .collect()
}

/// (status, OWE DH element's group and public key length) of every Association Response.
fn assoc_responses(air: &[Vec<u8>]) -> Vec<(StatusCode, Option<(u16, usize)>)> {
    air.iter()
        .filter_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocResp { status, owe_dh, .. }) => {
                Some((status, owe_dh.map(|d| parse_dh_param_element(d).map(|(g, k)| (g, k.len())).unwrap())))
            }
            _ => None,
        })
        .collect()
}

/// The groups of the OWE DH elements in the Association Requests on the air.
fn request_groups(air: &[Vec<u8>]) -> Vec<u16> {
    air.iter()
        .filter_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocReq { owe_dh: Some(d), .. }) => Some(parse_dh_param_element(d).unwrap().0),
            _ => None,
        })
        .collect()
}

fn traffic(sim: &mut Sim) {
    let sta_addr = sim.sta(0).addr();
    sim.sta_send(0, WIRED, b"station to wired");
    sim.ap_send(sta_addr, b"wired to station");
    sim.run(10);
    assert!(sim.ap_host.iter().any(|f| f.ends_with(b"station to wired")), "uplink");
    assert!(sim.sta_host[0].iter().any(|f| f.ends_with(b"wired to station")), "downlink");
}

#[test]
fn owe_against_itself_in_every_group() {
    // Public keys are x coordinates: 32, 48 and 66 octets (RFC 8110 4.3).
    for (g, klen, mfp) in [(19u16, 32usize, 1), (20, 48, 2), (21, 66, 0)] {
        let ap = ap_conf(&format!("ieee80211w={mfp}\n"));
        let sta = sta_conf(&format!(" owe_group={g}\n ieee80211w={mfp}"));
        let mut s = sim(&ap, &sta, g as u64);
        assert!(s.run_until(3_000, |s| s.all_established()), "group {g}: {:?}", s.events);
        assert_eq!(owe_keys(&s), vec![(g, false)], "group {g}");
        assert_eq!(request_groups(&s.air), vec![g]);
        assert_eq!(assoc_responses(&s.air), vec![(StatusCode::SUCCESS, Some((g, klen)))], "group {g}");
        let addr = s.sta(0).addr();
        assert_eq!(s.ap().station_info(&addr).unwrap().akm, Some(Akm::Owe));
        assert_eq!(s.ap().station_mfp(&addr), Some(mfp != 0));
        // Both ends named the PMKSA alike: Truncate-128(Hash(C | A)) on both sides.
        let (_, id) = s.sta(0).owe_pmkid().expect("the station cached its OWE PMKSA");
        assert_eq!(s.ap().pmksa_pmkid(&addr), Some(id));
        traffic(&mut s);
        // A PTK rekey runs with the group's hash too.
        s.with_ap(|a, now, out| assert!(a.rekey_ptk(now, &addr, out)));
        s.run(50);
        assert!(s.phases(0).contains(&Phase::PtkRekeyed), "group {g}");
        traffic(&mut s);
    }
}

#[test]
fn status_77_and_the_next_group() {
    // hostapd owe_groups=21; wpa_supplicant owe_group=0 tries 19, 20, then 21.
    let mut s = sim(&ap_conf("owe_groups=21\n"), &sta_conf(""), 7);
    assert!(s.run_until(5_000, |s| s.all_established()), "{:?}", s.events);
    assert_eq!(request_groups(&s.air), vec![19, 20, 21]);
    let st: Vec<StatusCode> = assoc_responses(&s.air).iter().map(|r| r.0).collect();
    assert_eq!(st, vec![StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED, StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED, StatusCode::SUCCESS]);
    // Refusals carry no DH element.
    assert!(assoc_responses(&s.air)[..2].iter().all(|r| r.1.is_none()));
    assert_eq!(owe_keys(&s), vec![(21, false)]);
    traffic(&mut s);

    // A station fixed to a group the AP does not take never gets in.
    let mut s = sim(&ap_conf("owe_groups=20 21\n"), &sta_conf(" owe_group=19"), 8);
    assert!(!s.run_until(3_000, |s| s.all_established()));
    let r = assoc_responses(&s.air);
    assert!(!r.is_empty() && r.iter().all(|r| r.0 == StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED), "{r:?}");
    assert!(request_groups(&s.air).iter().all(|&g| g == 19));
}

/// Authenticates `sta` (open system) at a lone AP core and sends an Association Request
/// with `elements` after the RSNE; the AP's status.
fn assoc_status(dh: &[u8]) -> StatusCode {
    let ap_cfg = parse_ap(&ap_conf("")).unwrap().ap;
    let bssid = ap_cfg.bssid;
    let mut ap = ap_core(ap_cfg, 1_000_000_000);
    let sta: MacAddr = STA1.parse().unwrap();
    let mut out = Output::default();
    let auth = frames::auth(&bssid, &sta, &bssid, 0, AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 1, StatusCode::SUCCESS));
    ap.handle_air(1_000_000_000, &auth, &mut out);
    // RSNE: CCMP group and pairwise, AKM 18, no capabilities.
    let rsne = [48u8, 18, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 18];
    let ies = [&rsne[..], dh].concat();
    let req = frames::assoc_req(&sta, &bssid, 1, Capability(Capability::ESS | Capability::PRIVACY), b"wsec-owe", Some(&ies));
    out.air.clear();
    ap.handle_air(1_000_000_000, &req, &mut out);
    nodesim::assoc_resp_status(&out.air).expect("an Association Response")
}

#[test]
fn bad_dh_elements_are_refused_with_a_status() {
    let elem = |group: u16, key: &[u8]| {
        let mut e = vec![255, (3 + key.len()) as u8, EXT_OWE_DH_PARAM];
        e.extend_from_slice(&group.to_le_bytes());
        e.extend_from_slice(key);
        e
    };
    // x = 1 is not on P-256: 1 - 3 + b is not a square mod p (Euler's criterion, checked
    // with Python's pow outside this code).
    let mut one = [0u8; 32];
    one[31] = 1;
    assert_eq!(assoc_status(&elem(19, &one)), StatusCode::UNSPECIFIED);
    // An all-ones x is above p: not a field element.
    assert_eq!(assoc_status(&elem(19, &[0xffu8; 32])), StatusCode::UNSPECIFIED);
    // Wrong length for the group.
    assert_eq!(assoc_status(&elem(19, &[1u8; 31])), StatusCode::UNSPECIFIED);
    // An unknown group: status 77.
    assert_eq!(assoc_status(&elem(22, &[1u8; 32])), StatusCode::FINITE_CYCLIC_GROUP_NOT_SUPPORTED);
    // No element, or one too short to hold a group: 43 (hostapd "No Diffie-Hellman
    // Parameter element").
    assert_eq!(assoc_status(&[]), StatusCode::INVALID_AKMP);
    assert_eq!(assoc_status(&[255, 2, EXT_OWE_DH_PARAM, 19]), StatusCode::INVALID_AKMP);
    // A well-formed one passes (the check above can tell them apart).
    let kp = wsec::rsn::owe::OweKeyPair::generate(wsec::rsn::sae::Group::P256, &mut rand::rngs::OsRng);
    assert_eq!(assoc_status(&elem(19, kp.public())), StatusCode::SUCCESS);
}

#[test]
fn pmksa_caching_skips_the_dh_exchange() {
    use wsec::wire::mgmt::ReasonCode;
    let mut s = sim(&ap_conf("ieee80211w=1\n"), &sta_conf(" ieee80211w=1"), 9);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
    let addr = s.sta(0).addr();
    let (_, pmkid) = s.sta(0).owe_pmkid().unwrap();
    let n = s.phases(1).len();
    let air_from = s.air.len();
    s.with_ap(|a, now, out| a.disassociate(now, &addr, ReasonCode::DEAUTH_LEAVING, out));
    assert!(s.run_until(5_000, |s| s.phases(1)[n..].iter().skip(1).any(|p| matches!(p, Phase::Established { .. }))));
    assert_eq!(owe_keys(&s), vec![(19, false), (0, true)], "the second association used the cached PMKSA");
    // The AP answered with its RSNE naming the PMKID and no DH element.
    let resp = s.air[air_from..]
        .iter()
        .find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocResp { status: StatusCode::SUCCESS, rsne, owe_dh, .. }) => Some((rsne.map(|r| r.to_vec()), owe_dh.is_some())),
            _ => None,
        })
        .unwrap();
    assert!(!resp.1);
    let e = wsec::rsn::ie::RsnElementRepr::parse(&resp.0.unwrap()).unwrap();
    assert_eq!(e.pmkids, vec![pmkid]);
    traffic(&mut s);
}

#[test]
fn transition_mode_open_bss_points_to_hidden_owe_bss() {
    // The open BSS (wsec-owe, 02:..:02) names the hidden OWE BSS (wsec-owe-hidden, 02:..:01)
    // and the OWE BSS names it back; the station with key_mgmt=OWE for "wsec-owe" follows.
    let owe_ap = "interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:01\nssid=wsec-owe-hidden\nwpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\nieee80211w=1\nignore_broadcast_ssid=1\nowe_transition_bssid=02:00:00:00:00:02\nowe_transition_ssid=\"wsec-owe\"\n";
    let open_ap = "interface=wsec-ap2\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:02\nssid=wsec-owe\nowe_transition_bssid=02:00:00:00:00:01\nowe_transition_ssid=\"wsec-owe-hidden\"\n";
    let mut s = sim(owe_ap, &sta_conf(" ieee80211w=1"), 10);
    let mut open = ap_core(parse_ap(open_ap).unwrap().ap, s.now);
    let mut seen = 0;
    let mut up = false;
    for _ in 0..4_000 {
        // The second AP hears everything on the air and its frames are injected.
        let mut out = Output::default();
        if open.poll_timeout() <= s.now {
            open.handle_timeout(s.now, &mut out);
        }
        for f in &s.air[seen..] {
            open.handle_air(s.now, f, &mut out);
        }
        // Its frames go on the air (recorded here: injected frames are not) and it does
        // not hear itself.
        s.inject.append(&mut out.air);
        s.air.extend(s.inject.iter().cloned());
        seen = s.air.len();
        s.step();
        if s.all_established() {
            up = true;
            break;
        }
    }
    assert!(up, "{:?}", s.events);
    assert_eq!(s.sta(0).bssid(), Some("02:00:00:00:00:01".parse().unwrap()), "joined the OWE BSS");
    assert_eq!(open.peer_count(), 0, "not the open one");
    // The hidden BSS's Beacons carry no SSID and the transition element naming the open BSS.
    let beacon = s
        .air
        .iter()
        .find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::Beacon(b)) if b.bssid.0[5] == 1 => Some(b),
            _ => None,
        })
        .unwrap();
    assert!(beacon.ssid.is_empty());
    let (b, ssid) = wsec::rsn::owe::parse_transition_element(beacon.owe_transition.as_deref().unwrap()).unwrap();
    assert_eq!((b, ssid), ([2, 0, 0, 0, 0, 2], &b"wsec-owe"[..]));
    assert_eq!(owe_keys(&s), vec![(19, false)]);
    traffic(&mut s);
}

#[test]
fn configuration_as_hostapd_and_wpa_supplicant_spell_it() {
    let f = parse_ap(&ap_conf("")).unwrap().ap;
    assert_eq!(f.owe_groups, vec![19, 20, 21], "hostapd: every group when owe_groups is unset");
    let f = parse_ap(&ap_conf(
        "owe_groups=20 21\nignore_broadcast_ssid=1\nowe_transition_bssid=02:00:00:00:00:02\nowe_transition_ssid=\"open\"\n",
    ))
    .unwrap()
    .ap;
    assert_eq!(f.owe_groups, vec![20, 21]);
    assert_eq!(f.ignore_broadcast_ssid, 1);
    assert_eq!(f.owe_transition.as_ref().map(|t| (t.bssid.0, t.ssid.clone())), Some(([2, 0, 0, 0, 0, 2], b"open".to_vec())));
    let s = parse_sta(&sta_conf(" owe_group=20\n owe_only=1")).unwrap().sta;
    assert_eq!(s.owe_group, 20);
    for (text, want) in [
        ("owe_groups=18\n", "unsupported OWE group 18"),
        ("owe_groups=\n", "names no group"),
        ("owe_transition_bssid=02:00:00:00:00:02\n", "go together"),
        ("owe_transition_bssid=ff:ff:ff:ff:ff:ff\nowe_transition_ssid=x\n", "individual"),
        ("ignore_broadcast_ssid=3\n", "ignore_broadcast_ssid"),
    ] {
        let e = parse_ap(&ap_conf(text)).unwrap_err();
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
    let e = parse_ap("interface=a\nbssid=02:00:00:00:00:01\nssid=x\nwpa=2\nwpa_key_mgmt=WPA-PSK\nwpa_passphrase=12345678\nowe_groups=19\n")
        .unwrap_err();
    assert!(e.to_string().contains("needs wpa_key_mgmt=OWE"), "{e}");
    for (net, want) in [(" owe_group=22", "unsupported OWE group 22"), (" owe_group=19 20", "one group"), (" owe_only=2", "owe_only")] {
        let e = parse_sta(&sta_conf(net)).unwrap_err();
        assert!(e.to_string().contains(want), "{net:?}: {e}");
    }
}

/// `wsec decrypt` on an OWE capture takes the handshake's hash from the group of the
/// station's DH element: a synthetic 4-way handshake with the hash of group 19, 20 and 21
/// (`capture::synth`, its PMK given as the observer's key) behind an Association Request
/// naming AKM 18 and that group decrypts completely; without the request's DH element (so
/// group 19's SHA-256 assumed) the group 20/21 traffic does not.
#[test]
fn decrypt_follows_the_owe_group() {
    use wsec::capture::synth::{Synth, SynthConfig};
    use wsec::decrypt::keys::UserKey;
    use wsec::decrypt::{Decryptor, Outcome};
    use wsec::rsn::sae::Group;
    for (g, akm, pmk_len) in [(Group::P256, Akm::Owe, 32usize), (Group::P384, Akm::OweSha384, 48), (Group::P521, Akm::OweSha512, 64)] {
        let pmk: Vec<u8> = (0..pmk_len as u8).map(|i| i.wrapping_mul(7)).collect();
        let mut cfg = SynthConfig::wpa2(b"wsec-owe", &pmk);
        cfg.akm = akm;
        let fs: Vec<Vec<u8>> = Synth::new(cfg.clone()).unwrap().take(40).map(|f| f.unwrap()).collect();
        let kp = wsec::rsn::owe::OweKeyPair::generate(g, &mut rand::rngs::OsRng);
        let rsne = [48u8, 18, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 18];
        let cap = Capability(Capability::ESS | Capability::PRIVACY);
        for with_dh in [true, false] {
            let ies = if with_dh { [&rsne[..], &wsec::rsn::owe::dh_param_element(g, kp.public())].concat() } else { rsne.to_vec() };
            let req = frames::assoc_req(&cfg.sta, &cfg.bssid, 1, cap, b"wsec-owe", Some(&ies));
            // The Beacon first, then the request, then the handshake and the data.
            let mut all = vec![fs[0].clone(), req];
            all.extend(fs[1..].iter().cloned());
            let mut d = Decryptor::new(vec![UserKey::Pmk(zeroize::Zeroizing::new(pmk.clone()))]);
            let (mut prot, mut ok) = (0, 0);
            for f in &all {
                match d.process(f) {
                    Outcome::Clear => {}
                    Outcome::Decrypted { .. } | Outcome::Duplicate { .. } => {
                        prot += 1;
                        ok += 1
                    }
                    _ => prot += 1,
                }
            }
            assert!(prot > 20, "{akm}: {prot} protected frames");
            if with_dh || akm == Akm::Owe {
                assert_eq!(ok, prot, "{akm} with DH element {with_dh}");
            } else {
                assert_eq!(ok, 0, "{akm}: decrypted with SHA-256 although the group's hash is not");
            }
        }
    }
}

/// The station's side of a bad Association Response: a success status with a DH element
/// that is off the curve, in another group than ours, cut short, or missing. wsec sta
/// leaves with a Deauthentication (reason 1, as wpa_supplicant after "OWE: Failed to
/// process OWE"), counts why, and scans again; nothing panics.
#[test]
fn station_refuses_a_bad_dh_element_in_the_response() {
    use wsec::cipher::CipherSuite;
    use wsec::node::ap::ap_rsn_element;
    use wsec::wire::mgmt::ReasonCode;
    let bssid: MacAddr = "02:00:00:00:00:01".parse().unwrap();
    let rsne = ap_rsn_element(&[Akm::Owe], &[CipherSuite::Ccmp128], CipherSuite::Ccmp128).unwrap();
    let info = frames::BssInfo {
        bssid,
        ssid: b"wsec-owe".to_vec(),
        channel: 6,
        beacon_interval_tu: 100,
        capability: Capability(Capability::ESS | Capability::PRIVACY),
        rsne: Some(rsne.clone()),
        wpa_ie: None,
        rsnxe: None,
        owe_transition: None,
        mde: None,
        ht: None,
        wmm: None,
    };
    let mut one = [0u8; 32];
    one[31] = 1;
    let elem = |group: u16, key: &[u8]| [&[255u8, (3 + key.len()) as u8, EXT_OWE_DH_PARAM][..], &group.to_le_bytes(), key].concat();
    let other = wsec::rsn::owe::OweKeyPair::generate(wsec::rsn::sae::Group::P384, &mut rand::rngs::OsRng);
    for bad in [elem(19, &one), elem(20, other.public()), vec![255, 3, EXT_OWE_DH_PARAM, 19, 0], vec![]] {
        let cfg = parse_sta(&sta_conf(" owe_group=19")).unwrap().sta;
        let now = 1_000_000_000u64;
        let mut sta = nodesim::sta_core(cfg, now);
        let mut out = Output::default();
        sta.handle_air(now, &frames::beacon(&info, 0, 0, None), &mut out);
        let auth = frames::auth(&sta.addr(), &bssid, &bssid, 1, AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 2, StatusCode::SUCCESS));
        sta.handle_air(now, &auth, &mut out);
        let req = out.air.iter().find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::AssocReq { owe_dh: Some(d), .. }) => Some(parse_dh_param_element(d).unwrap().0),
            _ => None,
        });
        assert_eq!(req, Some(19), "the station asked in group 19");
        out.air.clear();
        let mut resp = frames::assoc_resp(&sta.addr(), &bssid, 2, Capability(Capability::ESS), StatusCode::SUCCESS, 1);
        resp.extend_from_slice(&rsne);
        resp.extend_from_slice(&bad);
        sta.handle_air(now, &resp, &mut out);
        assert!(!sta.is_established() && sta.wpa_state() == "SCANNING", "{bad:02x?}");
        assert_eq!(sta.counters.dropped("owe: bad diffie-hellman parameter element"), 1, "{bad:02x?}");
        let deauth = out.air.iter().any(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::Deauth { reason: ReasonCode::UNSPECIFIED })));
        assert!(deauth, "a Deauthentication with reason 1: {bad:02x?}");
        assert!(sta.owe_pmkid().is_none(), "no PMKSA from a refused response");
    }
}

/// The protected flags of the data frames on the air between the two addresses.
fn data_protected(air: &[Vec<u8>]) -> Vec<bool> {
    air.iter()
        .filter_map(|f| wsec::wire::mac::Header::new_checked(&f[..]).ok())
        .filter(|h| h.frame_control().is_data() && h.payload().len() > 8)
        .map(|h| h.frame_control().protected())
        .collect()
}

/// wpa_supplicant's `owe_only` (wpa_supplicant.conf: "0 = enable transition mode (allow
/// connection to either OWE or open BSS)", its default; `wpa_supplicant_ssid_bss_match`):
/// an OWE network without owe_only joins an open BSS of its SSID, unprotected; with
/// owe_only=1 it never does.
#[test]
fn owe_only_0_joins_an_open_bss_and_owe_only_1_does_not() {
    let open_ap = "interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:01\nssid=wsec-owe\n";
    let mut s = sim(open_ap, &sta_conf(""), 21);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
    traffic(&mut s);
    let p = data_protected(&s.air);
    assert!(!p.is_empty() && p.iter().all(|&x| !x), "open link: unprotected data ({p:?})");
    assert!(owe_keys(&s).is_empty());
    let mut s = sim(open_ap, &sta_conf(" owe_only=1"), 22);
    assert!(!s.run_until(3_000, |s| s.all_established()), "owe_only=1 joined an open BSS");
    assert!(s.sta(0).counters.to_string().contains("bss security not acceptable"), "{}", s.sta(0).counters);
}

/// A transition pair whose OWE BSS is out of reach: the open BSS names a hidden OWE BSS
/// that never answers. With owe_only=0 the station looks for it on
/// `OWE_OPEN_FALLBACK_SKIPS` scans (about a second apart), then joins the open BSS, as
/// wpa_supplicant after MAX_OWE_TRANSITION_BSS_SELECT_COUNT selections; with owe_only=1 it
/// keeps looking.
#[test]
fn transition_pair_without_its_owe_bss_falls_back_to_open_unless_owe_only() {
    use wsec::node::sta::OWE_OPEN_FALLBACK_SKIPS;
    let open_ap = "interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:02\nssid=wsec-owe\nowe_transition_bssid=02:00:00:00:00:09\nowe_transition_ssid=\"wsec-owe-hidden\"\n";
    let mut s = sim(open_ap, &sta_conf(""), 23);
    let t0 = s.now;
    assert!(s.run_until(15_000, |s| s.all_established()), "{:?}", s.events);
    let waited_ms = (s.now - t0) / 1_000_000;
    assert!(waited_ms >= (OWE_OPEN_FALLBACK_SKIPS as u64 - 1) * 1000, "joined the open BSS after only {waited_ms} ms");
    // It probed for the hidden OWE BSS by name meanwhile.
    let probed_hidden = s.air.iter().any(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::ProbeReq { ssid }) if ssid == b"wsec-owe-hidden"));
    assert!(probed_hidden, "never looked for the OWE BSS");
    traffic(&mut s);
    let mut s = sim(open_ap, &sta_conf(" owe_only=1"), 24);
    assert!(!s.run_until(15_000, |s| s.all_established()), "owe_only=1 fell back to the open BSS");
    // It did see the open BSS and its pointer: it kept looking for the OWE BSS by name.
    let probes =
        s.air.iter().filter(|f| matches!(frames::parse_mgmt(f), Ok(Mgmt::ProbeReq { ssid }) if ssid == b"wsec-owe-hidden")).count();
    assert!(probes > 10, "owe_only=1: {probes} probes for the OWE BSS in 15 s");
}
