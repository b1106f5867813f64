//! WPA3 in the AP and STA cores, in memory (no sockets): SAE authentication (algorithm 3,
//! IEEE 802.11-2020 12.4) then the 4-way handshake with AKM 8, configured from
//! hostapd.conf / wpa_supplicant.conf text: WPA3-only with PMF required, both password
//! element derivations, groups 19/20/21, transition mode (WPA2 and WPA3 stations on one
//! BSS), per-station passwords, anti-clogging in the live AP, a wrong password, loss.
use crate::nodesim;

use nodesim::{Feed, Sim, WIRED};
use wsec::node::{Phase, Security};
use wsec::rsn::akm::Akm;
use wsec_live::conf::{parse_ap, parse_sta};

const STA1: &str = "02:00:00:00:00:11";
const STA2: &str = "02:00:00:00:00:12";

fn ap_conf(extra: &str) -> String {
    format!("interface=wsec-ap\nmedium=air:127.0.0.1:7411\nbssid=02:00:00:00:00:01\nssid=wsec-wpa3\nwpa=2\nrsn_pairwise=CCMP\n{extra}")
}

fn sta_conf(addr: &str, global: &str, net: &str) -> String {
    format!("interface=wsec-sta\nmedium=air:127.0.0.1:7411\naddr={addr}\n{global}network={{\n ssid=\"wsec-wpa3\"\n{net}\n}}\n")
}

fn sim(ap: &str, stas: &[String], loss: f64, seed: u64) -> Sim {
    let ap = parse_ap(ap).unwrap().ap;
    let stas = stas.iter().map(|s| parse_sta(s).unwrap().sta).collect();
    Sim::new(ap, stas, loss, seed, Feed::PerFrame)
}

fn akm_of(sim: &Sim, who: usize) -> Option<Akm> {
    sim.phases(who).iter().find_map(|p| match p {
        Phase::Associated { akm, .. } => *akm,
        _ => None,
    })
}

fn sae_phase(sim: &Sim, who: usize) -> Option<(u16, bool)> {
    sim.phases(who).iter().find_map(|p| match p {
        Phase::SaeAuthenticated { group, h2e } => Some((*group, *h2e)),
        _ => None,
    })
}

/// Data both ways once the network is up.
fn traffic(sim: &mut Sim, i: usize) {
    let sta_addr = sim.sta(i).addr();
    sim.sta_send(i, WIRED, b"station to wired");
    sim.ap_send(sta_addr, b"wired to station");
    sim.run(10);
    assert!(sim.ap_host.iter().any(|f| f.ends_with(b"station to wired")), "uplink");
    assert!(sim.sta_host[i].iter().any(|f| f.ends_with(b"wired to station")), "downlink");
}

#[test]
fn wpa3_only_every_group_both_pwe_methods() {
    for (groups, pwe) in [("19", 0), ("19", 1), ("20", 0), ("20", 1), ("21", 2), ("20 19", 2)] {
        let ap = ap_conf(&format!("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\nsae_groups={groups}\nsae_pwe={pwe}\n"));
        let sta = sta_conf(
            STA1,
            &format!("sae_groups={}\nsae_pwe={pwe}\n", groups.split(' ').next().unwrap()),
            " key_mgmt=SAE\n sae_password=\"secret sauce\"\n ieee80211w=2",
        );
        let mut s = sim(&ap, &[sta], 0.0, 1);
        assert!(s.run_until(3_000, |s| s.all_established()), "groups {groups} pwe {pwe}: {:?}", s.events);
        let g: u16 = groups.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(sae_phase(&s, 1), Some((g, pwe != 0)), "groups {groups} pwe {pwe}");
        assert_eq!(sae_phase(&s, 0), Some((g, pwe != 0)));
        assert_eq!(akm_of(&s, 1), Some(Akm::Sae));
        assert_eq!(s.ap().station_mfp(&s.sta(0).addr()), Some(true), "PMF in force");
        traffic(&mut s, 0);
    }
}

#[test]
fn wpa3_only_refuses_a_wpa2_station_and_requires_pmf() {
    let ap = ap_conf("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\n");
    let wpa2 = sta_conf(STA1, "", " key_mgmt=WPA-PSK\n psk=\"secret sauce\"");
    let mut s = sim(&ap, &[wpa2], 0.0, 2);
    assert!(!s.run_until(2_000, |s| s.all_established()));
    assert!(akm_of(&s, 1).is_none());
    // hostapd-style configuration: SAE alone without ieee80211w=2 is refused.
    let e = parse_ap(&ap_conf("wpa_key_mgmt=SAE\nsae_password=secret sauce\n")).unwrap_err();
    assert!(e.msg.contains("ieee80211w=2"), "{e}");
}

#[test]
fn transition_mode_wpa2_and_wpa3_stations_on_one_bss() {
    let ap = ap_conf("wpa_key_mgmt=WPA-PSK SAE\nieee80211w=1\nwpa_passphrase=secret sauce\nsae_pwe=2\n");
    let wpa2 = sta_conf(STA1, "", " key_mgmt=WPA-PSK\n psk=\"secret sauce\"");
    let wpa3 = sta_conf(STA2, "sae_pwe=2\n", " key_mgmt=SAE\n psk=\"secret sauce\"\n ieee80211w=2");
    let mut s = sim(&ap, &[wpa2, wpa3], 0.0, 3);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
    assert_eq!(akm_of(&s, 1), Some(Akm::Psk));
    assert_eq!(akm_of(&s, 2), Some(Akm::Sae));
    assert_eq!(sae_phase(&s, 1), None, "the WPA2 station used open system authentication");
    assert_eq!(sae_phase(&s, 2), Some((19, true)));
    traffic(&mut s, 0);
    traffic(&mut s, 1);
}

#[test]
fn wrong_password_fails_with_status_15_on_both_sides() {
    let ap = ap_conf("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\n");
    let sta = sta_conf(STA1, "", " key_mgmt=SAE\n sae_password=\"secret source\"");
    let mut s = sim(&ap, &[sta], 0.0, 4);
    assert!(!s.run_until(1_500, |s| s.all_established()));
    assert!(s.phases(0).contains(&Phase::SaeFailed { status: 15 }), "{:?}", s.phases(0));
    assert!(s.phases(1).contains(&Phase::SaeFailed { status: 15 }), "{:?}", s.phases(1));
    assert!(akm_of(&s, 1).is_none());
}

#[test]
fn per_station_passwords_and_identifiers() {
    // hostapd: `sae_password=...|mac=` binds a password to one station.
    let ap = ap_conf(&format!("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=only for one|mac={STA1}\nsae_password=for everyone else\n"));
    let one = sta_conf(STA1, "", " key_mgmt=SAE\n sae_password=\"only for one\"");
    let two = sta_conf(STA2, "", " key_mgmt=SAE\n sae_password=\"for everyone else\"");
    let mut s = sim(&ap, &[one, two], 0.0, 5);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
    // The first station's password is not the second's.
    let ap = ap_conf(&format!("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=only for one|mac={STA1}\nsae_password=for everyone else\n"));
    let wrong = sta_conf(STA2, "", " key_mgmt=SAE\n sae_password=\"only for one\"");
    let mut s = sim(&ap, &[wrong], 0.0, 6);
    assert!(!s.run_until(1_500, |s| s.all_established()));
    // A password identifier (hash-to-element).
    let ap = ap_conf("wpa_key_mgmt=SAE\nieee80211w=2\nsae_pwe=1\nsae_password=with id|id=guest\n");
    let sta = sta_conf(STA1, "sae_pwe=1\n", " key_mgmt=SAE\n sae_password=\"with id\"\n sae_password_id=\"guest\"");
    let mut s = sim(&ap, &[sta], 0.0, 7);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
}

#[test]
fn anti_clogging_in_the_ap_core_and_a_lossy_medium() {
    // Threshold 0: every first commit is answered with a token request (status 76).
    let ap = ap_conf("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\nsae_anti_clogging_threshold=0\nsae_pwe=2\n");
    let stas: Vec<String> =
        [STA1, STA2].iter().map(|a| sta_conf(a, "sae_pwe=2\n", " key_mgmt=SAE\n sae_password=\"secret sauce\"")).collect();
    for seed in 1..=3 {
        let mut s = sim(&ap, &stas, 0.2, seed);
        assert!(s.run_until(20_000, |s| s.all_established()), "seed {seed}: {:?}", s.events);
        let requests = s
            .air
            .iter()
            .filter_map(|f| wsec::node::sae::parse_auth_frame(f))
            .filter(|(t, st, _)| *t == 1 && *st == wsec::rsn::sae::status::ANTI_CLOGGING_TOKEN_REQUIRED)
            .count();
        assert!(requests >= 2, "seed {seed}: {requests} token requests");
        // Data has no retransmission here: check it over a clean medium.
        s.loss = 0.0;
        traffic(&mut s, 1);
    }
}

#[test]
fn configuration_errors() {
    for (text, want) in [
        ("wpa_key_mgmt=SAE\nieee80211w=2\n", "SAE needs sae_password"),
        ("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x\nsae_groups=19 24\n", "unsupported SAE group 24"),
        ("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x\nsae_pwe=3\n", "sae_pwe"),
        ("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x|vlanid=3\n", "not supported"),
        ("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x|mac=zz\n", "mac="),
        ("wpa_key_mgmt=OWE\nowe_groups=19 22\n", "unsupported OWE group 22"),
        ("wpa_key_mgmt=FT-PSK\nwpa_passphrase=secret sauce\n", "needs mobility_domain"),
        ("wpa_key_mgmt=FT-PSK\nwpa_passphrase=secret sauce\nmobility_domain=a1b2\n", "requires nas_identifier"),
        ("wpa_key_mgmt=FT-PSK\nwpa_passphrase=secret sauce\nmobility_domain=a1\nnas_identifier=x\n", "mobility_domain must be 2 octets"),
        ("wpa_key_mgmt=FT-PSK\nwpa_passphrase=secret sauce\nmobility_domain=a1b2\nnas_identifier=x\nr0kh=zz x 00\n", "r0kh must be"),
        ("wpa_key_mgmt=WPA-PSK\nwpa_passphrase=secret sauce\nmobility_domain=a1b2\n", "needs an FT AKM"),
        ("wpa_key_mgmt=FT-FOO\n", "unsupported key management FT-FOO"),
        ("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x\ntransition_disable=0x100\n", "transition_disable"),
        ("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x\ntransition_disable=yes\n", "transition_disable"),
    ] {
        let e = parse_ap(&ap_conf(text)).unwrap_err();
        assert!(e.to_string().contains(want), "{text:?}: {e}");
        // The password never appears in an error.
        assert!(!e.to_string().contains("sae_password=x"), "{e}");
    }
    let f = parse_ap(&ap_conf("wpa_key_mgmt=SAE WPA-PSK\nieee80211w=1\nwpa_passphrase=secret sauce\n")).unwrap();
    let Security::Rsn { akms, .. } = &f.ap.security else { panic!() };
    assert_eq!(akms, &vec![Akm::Sae, Akm::Psk]);
    let sae = f.ap.sae.as_ref().unwrap();
    assert_eq!(&sae.passwords[0].password[..], b"secret sauce", "wpa_passphrase is the SAE password");
    assert_eq!(sae.anti_clogging_threshold, 5);
    // hostapd reads transition_disable with strtol(.., 16): with or without 0x.
    for (v, want) in [("0x01", 1u8), ("09", 9), ("0X0f", 15)] {
        let f = parse_ap(&ap_conf(&format!("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=x\ntransition_disable={v}\n"))).unwrap();
        assert_eq!(f.ap.transition_disable, want, "{v}");
    }
    let s = parse_sta(&sta_conf(STA1, "", " key_mgmt=SAE\n sae_password=\"pw\"")).unwrap();
    assert!(s.sta.mfp.required(), "SAE alone: PMF required by default");
}

/// PMKSA caching at the AP (12.6.10.3): a station that comes back after SAE with open
/// system authentication and the PMKID of the cached PMKSA in its RSNE associates without
/// a new SAE exchange and gets message 1 of the 4-way handshake; a PMKID the AP does not
/// hold is refused (status 43, as AKM 8 then has no PMK).
#[test]
fn pmksa_caching_at_the_ap() {
    use wsec::cipher::CipherSuite;
    use wsec::node::frames;
    use wsec::node::mfp::Mfp;
    use wsec::rsn::ie::{RsnElementRepr, Suite};
    use wsec::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, StatusCode};
    let ap = ap_conf("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\n");
    let sta = sta_conf(STA1, "", " key_mgmt=SAE\n sae_password=\"secret sauce\"");
    let mut s = sim(&ap, &[sta], 0.0, 9);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
    let addr = s.sta(0).addr();
    let bssid = s.sta(0).bssid().unwrap();
    let pmkid = s.ap().pmksa_pmkid(&addr).expect("the AP cached the PMKSA of the SAE exchange");
    // The station leaves (a protected Deauthentication), then comes back with the PMKID.
    s.with_sta(0, |st, now, out| st.shutdown(now, out));
    s.stas[0] = None;
    s.run(5);
    assert!(
        s.phases(0).iter().any(|p| matches!(p, Phase::Deauthenticated { by_peer: true, .. })),
        "the AP let the station go: {:?}",
        s.phases(0)
    );
    let rejoin = |s: &mut Sim, id: [u8; 16]| -> (StatusCode, bool) {
        let before = s.air.len();
        let auth = frames::auth(&bssid, &addr, &bssid, 100, AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 1, StatusCode::SUCCESS));
        s.with_ap(|a, now, out| a.handle_air(now, &auth, out));
        let rsne = RsnElementRepr {
            version: 1,
            group_cipher: Some(Suite::from_cipher(CipherSuite::Ccmp128)),
            pairwise: vec![Suite::from_cipher(CipherSuite::Ccmp128)],
            akms: vec![Suite::from_akm(Akm::Sae)],
            capabilities: Some(Mfp::Required.capabilities()),
            pmkids: vec![id],
            group_mgmt_cipher: None,
        }
        .to_bytes()
        .unwrap();
        let cap = Capability(Capability::ESS | Capability::PRIVACY);
        let req = frames::assoc_req(&addr, &bssid, 101, cap, b"wsec-wpa3", Some(&rsne));
        s.with_ap(|a, now, out| a.handle_air(now, &req, out));
        let sent: Vec<Vec<u8>> = s.air[before..].to_vec();
        let status = nodesim::assoc_resp_status(&sent).expect("an association response");
        // EAPOL (LLC SNAP 88-8E) from the AP: message 1 of the 4-way handshake.
        let m1 = sent.iter().any(|f| f.windows(8).any(|w| w == [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e]));
        (status, m1)
    };
    let mut wrong = pmkid;
    wrong[0] ^= 1;
    assert_eq!(rejoin(&mut s, wrong), (StatusCode(43), false), "unknown PMKID");
    assert_eq!(rejoin(&mut s, pmkid), (StatusCode::SUCCESS, true), "cached PMKSA");
    assert!(!s
        .phases(0)
        .iter()
        .skip_while(|p| !matches!(p, Phase::Established { .. }))
        .any(|p| matches!(p, Phase::SaeAuthenticated { .. })));
    // The cache as the control interface lists it (hostapd_cli pmksa): this station, its
    // PMKID, and the lifetime left (dot11RSNAConfigPMKLifetime, 43200 s, minus the run).
    let list = s.ap().pmksa_list(s.now);
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!((list[0].0, list[0].1), (addr, pmkid));
    assert!((43_100..43_200).contains(&list[0].2), "{list:?}");
    // PMKSA_FLUSH: the PMKID no longer opens the door.
    s.with_ap(|a, _, _| a.pmksa_flush());
    assert!(s.ap().pmksa_list(s.now).is_empty() && s.ap().pmksa_pmkid(&addr).is_none());
    assert_eq!(rejoin(&mut s, pmkid), (StatusCode(43), false), "flushed PMKSA");
}

/// PMKSA caching at the station (12.6.10.3): after a disassociation wsec sta comes back
/// with open system authentication and the PMKID of its cached PMKSA in its RSNE, runs no
/// new SAE exchange, and completes a fresh 4-way handshake on the cached PMK. When the AP
/// no longer holds the PMKSA (refused, status 43), the station forgets its cache and runs
/// SAE again.
#[test]
fn pmksa_caching_at_the_station() {
    use wsec::wire::mgmt::ReasonCode;
    for pwe in [0, 1] {
        let ap = ap_conf(&format!("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\nsae_pwe={pwe}\n"));
        let sta = sta_conf(STA1, &format!("sae_pwe={pwe}\n"), " key_mgmt=SAE\n sae_password=\"secret sauce\"");
        let mut s = sim(&ap, &[sta], 0.0, 11 + pwe);
        assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
        let addr = s.sta(0).addr();
        let bssid = s.sta(0).bssid().unwrap();
        let pmkid = s.sta(0).pmksa_pmkid(&bssid).expect("the station cached the PMKSA of its SAE exchange");
        // Both ends derived the same PMKID from the exchange (12.4.5.4).
        assert_eq!(s.ap().pmksa_pmkid(&addr), Some(pmkid));
        let list = s.sta(0).pmksa_list(s.now);
        assert_eq!(list.len(), 1, "{list:?}");
        let e = &list[0];
        assert!((e.aa, e.pmkid, e.akm, e.opportunistic) == (bssid, pmkid, Akm::Sae, false), "{e:?}");
        assert!((43_100..43_200).contains(&e.expires_in_s), "{e:?}");
        let rejoin = |s: &mut Sim| -> Vec<Phase> {
            let n = s.phases(0).len();
            s.with_ap(|a, now, out| a.disassociate(now, &addr, ReasonCode::DEAUTH_LEAVING, out));
            let back = s.run_until(5_000, |s| s.phases(0)[n..].iter().skip(1).any(|p| matches!(p, Phase::Established { .. })));
            assert!(back, "pwe {pwe}: the station did not come back: {:?}", &s.phases(0)[n..]);
            s.phases(0)[n..].to_vec()
        };
        let again = rejoin(&mut s);
        assert!(again.iter().any(|p| matches!(p, Phase::Authenticated { shared_key: false })), "pwe {pwe}: {again:?}");
        assert!(!again.iter().any(|p| matches!(p, Phase::SaeAuthenticated { .. })), "pwe {pwe}: SAE ran again: {again:?}");
        assert_eq!(s.sta(0).pmksa_pmkid(&bssid), Some(pmkid));
        traffic(&mut s, 0);
        // The AP forgets: the cached PMKID is refused, the station drops it and runs SAE.
        s.with_ap(|a, _, _| a.pmksa_flush());
        let fresh = rejoin(&mut s);
        assert!(fresh.iter().any(|p| matches!(p, Phase::SaeAuthenticated { .. })), "pwe {pwe}: {fresh:?}");
        let new_id = s.sta(0).pmksa_pmkid(&bssid).expect("a new PMKSA");
        assert_eq!(s.sta(0).pmksa_list(s.now).len(), 1);
        assert_ne!(new_id, pmkid);
        assert_eq!(s.ap().pmksa_pmkid(&addr), Some(new_id));
        traffic(&mut s, 0);
    }
}

/// WPA3 Specification 13.2, Transition Disable: an AP in transition mode with hostapd's
/// `transition_disable=0x01` sends the bitmap in message 3 (WFA KDE 50-6F-9A:0x20); the
/// station that used SAE drops WPA2-Personal from the network and requires MFP (as
/// wpa_supplicant's `wpas_transition_disable`), so it then refuses a PSK-only BSS of the
/// same SSID (the downgrade this closes). A WPA2 station on the same BSS gets no
/// message 3 KDE it would act on (it is not SAE) and keeps its network.
#[test]
fn transition_disable_drops_wpa2_personal_after_sae() {
    let ap = ap_conf("wpa_key_mgmt=WPA-PSK SAE\nieee80211w=1\nwpa_passphrase=secret sauce\nsae_pwe=2\ntransition_disable=0x01\n");
    let both = sta_conf(STA1, "sae_pwe=2\n", " key_mgmt=SAE WPA-PSK\n psk=\"secret sauce\"\n ieee80211w=1");
    let wpa2 = sta_conf(STA2, "", " key_mgmt=WPA-PSK\n psk=\"secret sauce\"");
    let mut s = sim(&ap, &[both.clone(), wpa2], 0.0, 31);
    assert!(s.run_until(3_000, |s| s.all_established()), "{:?}", s.events);
    assert_eq!(akm_of(&s, 1), Some(Akm::Sae));
    let td = |s: &Sim, who| {
        s.phases(who)
            .iter()
            .filter_map(|p| match p {
                Phase::TransitionDisable { bitmap, applied } => Some((*bitmap, *applied)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(td(&s, 1), vec![(1, true)]);
    assert_eq!(td(&s, 2), vec![(1, false)], "the WPA2 station has nothing to drop");
    let cfg = s.sta(0).config();
    let Security::Rsn { akms, .. } = &cfg.security else { panic!("{:?}", cfg.security) };
    assert_eq!(akms, &vec![Akm::Sae]);
    assert_eq!(cfg.mfp, wsec::node::mfp::Mfp::Required);
    let Security::Rsn { akms, .. } = &s.sta(1).config().security else { panic!() };
    assert_eq!(akms, &vec![Akm::Psk]);
    traffic(&mut s, 0);
    // The same station config without the KDE would join a WPA2-only BSS of the SSID...
    let wpa2_ap = ap_conf("wpa_key_mgmt=WPA-PSK\nwpa_passphrase=secret sauce\n");
    let mut fresh = sim(&wpa2_ap, std::slice::from_ref(&both), 0.0, 32);
    assert!(fresh.run_until(3_000, |s| s.all_established()), "control: {:?}", fresh.events);
    // ...but the station that was told to disable the transition does not.
    // (It leaves its BSS, as `wpa_cli disconnect`, and scans again beside a WPA2-only AP.)
    let mut told = s.stas[0].take().unwrap();
    told.shutdown(s.now, &mut wsec::node::Output::default());
    let mut after = sim(&wpa2_ap, &[], 0.0, 33);
    after.now = s.now;
    after.stas.push(Some(told));
    after.sta_host.push(Vec::new());
    let sent_before = after.air.len();
    after.run(3_000);
    let joined = after.phases(1).iter().any(|p| matches!(p, Phase::Associated { .. } | Phase::Established { .. }));
    assert!(!joined, "joined a WPA2-only BSS after Transition Disable: {:?}", after.events);
    assert!(after.air.len() > sent_before, "the AP was on the air");
    assert!(after.sta(0).counters.to_string().contains("bss security not acceptable"), "{}", after.sta(0).counters);
}

#[test]
fn a_flood_of_spoofed_commits_leaves_no_state_and_the_station_still_connects() {
    // 12.4.6: past `sae_anti_clogging_threshold` open exchanges, a commit without a valid
    // token gets a token request and nothing else: no station-table entry, no group
    // arithmetic. The flood here is the legitimate station's own first commit sent again
    // from 3,000 spoofed addresses (valid group, scalar and element).
    let ap = ap_conf("wpa_key_mgmt=SAE\nieee80211w=2\nsae_password=secret sauce\nsae_anti_clogging_threshold=2\n");
    let stas = vec![sta_conf(STA1, "", " key_mgmt=SAE\n sae_password=\"secret sauce\"")];
    let mut s = sim(&ap, &stas, 0.0, 4);
    let is_commit = |f: &Vec<u8>| {
        f.get(10..16) == Some(&[2, 0, 0, 0, 0, 0x11][..])
            && wsec::node::sae::parse_auth_frame(f).is_some_and(|(t, st, _)| t == 1 && st == 0)
    };
    assert!(s.run_until(2_000, |s| s.air.iter().any(is_commit)), "no commit: {:?}", s.events);
    let commit = s.air.iter().find(|f| is_commit(f)).unwrap().clone();
    const FLOOD: u32 = 3_000;
    for i in 0..FLOOD {
        let mut f = commit.clone();
        f[10..16].copy_from_slice(&[0x02, 0xee, 0, (i >> 16) as u8, (i >> 8) as u8, i as u8]);
        s.inject.push(f);
    }
    s.step();
    let ap = s.ap();
    // The legitimate station's exchange and the first spoofed ones (up to the threshold)
    // are open; every other spoofed commit left nothing.
    assert!(ap.peer_count() <= 3, "{} entries after the flood", ap.peer_count());
    assert!(ap.counters.dropped("sae commit without a valid token") >= u64::from(FLOOD) - 2, "{}", ap.counters);
    assert!(s.run_until(20_000, |s| s.all_established()), "{:?}", s.events);
    traffic(&mut s, 0);
}
