//! WPA1 (pre-RSNA WPA: Wi-Fi Alliance WPA v3.1, hostapd `wpa=1`, wpa_supplicant
//! `proto=WPA`) in the live AP and station cores, in memory: the WPA vendor element in
//! Beacons and the Association Request, the 4-way handshake with EAPOL-Key descriptor 254
//! (no GTK in message 3), the GTK in a group key handshake, traffic both ways with TKIP
//! and with CCMP pairwise, GTK rekeys, a mixed `wpa=3` AP; the frames checked octet by
//! octet against the WPA rules, and the capture decrypted by `wsec::decrypt` and tshark
//! from the passphrase alone.
use crate::nodesim;
use crate::peers;

use nodesim::{Feed, Sim, WIRED};
use wsec::cipher::CipherSuite;
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, Outcome};
use wsec::node::ap::ApConfig;
use wsec::node::frames::{self, Mgmt};
use wsec::node::sta::StaConfig;
use wsec::node::{Phase, Security};
use wsec::rsn::akm::{Akm, KeyDescriptorVersion};
use wsec::rsn::eapol::{DescriptorType, EapolKeyRepr, KeyInfo};
use wsec::rsn::ie::{is_wpa_element, WpaElementRepr};
use wsec::wire::mac::{Header, MacAddr};
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);
const SSID: &str = "wsec-wpa1";
const PASS: &str = "correct horse battery";

fn pmk() -> Zeroizing<Vec<u8>> {
    Zeroizing::new(wsec::rsn::pbkdf2::psk_from_passphrase(PASS.as_bytes(), SSID.as_bytes()).unwrap().to_vec())
}

fn sec(pairwise: &[CipherSuite], group: CipherSuite) -> Security {
    Security::Rsn { akms: vec![Akm::Psk], pairwise: pairwise.to_vec(), groups: vec![group], pmk: pmk() }
}

/// A `wpa=1` AP (WPA element only) with `wpa_pairwise` and the group cipher.
fn wpa1_ap(pairwise: &[CipherSuite], group: CipherSuite) -> ApConfig {
    let mut ap = ApConfig::new(BSSID, SSID.as_bytes(), sec(pairwise, group));
    ap.rsn = false;
    ap.wpa1_pairwise = Some(pairwise.to_vec());
    ap
}

/// A `proto=WPA` station (wpa_supplicant's default ciphers, WPA1 only).
fn wpa1_sta(addr: MacAddr) -> StaConfig {
    let all = [CipherSuite::Ccmp128, CipherSuite::Tkip];
    let mut s = StaConfig::new(addr, SSID.as_bytes(), sec(&all, CipherSuite::Ccmp128));
    if let Security::Rsn { groups, .. } = &mut s.security {
        *groups = vec![CipherSuite::Ccmp128, CipherSuite::Tkip];
    }
    s.proto_rsn = false;
    s.proto_wpa1 = true;
    s
}

fn rsn_sta(addr: MacAddr) -> StaConfig {
    let mut s = wpa1_sta(addr);
    s.proto_rsn = true;
    s.proto_wpa1 = false;
    s
}

fn eapol_of(f: &[u8]) -> Option<(MacAddr, MacAddr, EapolKeyRepr)> {
    let h = Header::new_checked(f).ok()?;
    if h.frame_control().protected() || !h.frame_control().has_data_body() {
        return None;
    }
    let m = frames::msdu(f).ok()?;
    if m.ethertype != wsec::wire::EtherType::EAPOL {
        return None;
    }
    Some((m.sa, m.da, EapolKeyRepr::parse(m.payload, 16).ok()?))
}

/// Every plaintext EAPOL-Key frame on the air: (from, to, frame).
fn eapol_frames(sim: &Sim) -> Vec<(MacAddr, MacAddr, EapolKeyRepr)> {
    sim.air.iter().filter_map(|f| eapol_of(f)).collect()
}

/// Data both ways: station to wired, wired to station, station to station (relayed) and a
/// broadcast under the GTK; every payload arrives exactly once.
fn traffic(sim: &mut Sim, tag: &str) {
    let n0 = (sim.sta_host[0].len(), sim.sta_host[1].len(), sim.ap_host.len());
    sim.sta_send(0, WIRED, format!("{tag} up").as_bytes());
    sim.ap_send(STA1, format!("{tag} down").as_bytes());
    sim.sta_send(1, STA1, format!("{tag} relayed").as_bytes());
    sim.ap_send(MacAddr::BROADCAST, format!("{tag} broadcast").as_bytes());
    sim.run(10);
    let got = |v: &[Vec<u8>], from: usize| v[from..].iter().map(|f| String::from_utf8_lossy(&f[14..]).into_owned()).collect::<Vec<_>>();
    let mut s1 = got(&sim.sta_host[0], n0.0);
    s1.sort();
    assert_eq!(s1, vec![format!("{tag} broadcast"), format!("{tag} down"), format!("{tag} relayed")]);
    assert_eq!(got(&sim.sta_host[1], n0.1), vec![format!("{tag} broadcast")]);
    assert_eq!(got(&sim.ap_host, n0.2), vec![format!("{tag} up")]);
}

fn sim(ap: ApConfig, stas: Vec<StaConfig>, seed: u64) -> Sim {
    let mut s = Sim::new(ap, stas, 0.0, seed, Feed::PerFrame);
    assert!(s.run_until(3_000, |s| s.all_established()), "network did not come up: {:?}", s.events);
    s.run(20); // the last group message 2
    s
}

/// Checks the WPA1 4-way and group key handshakes on the air for one station against WPA
/// v3.1 and hostapd/wpa_supplicant: descriptor 254, Key Information of each message, a
/// plaintext WPA element (the Beacon's) in message 3 and no GTK, the GTK alone, encrypted,
/// in group message 1 with its Key Index in b4-b5. Returns the messages seen.
fn check_wpa1_messages(sim: &Sim, sta: MacAddr, pairwise: CipherSuite, group: CipherSuite) -> usize {
    let beacon_ie = sim
        .air
        .iter()
        .find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::Beacon(b)) => Some(b),
            _ => None,
        })
        .expect("a beacon");
    assert!(beacon_ie.rsne.is_none(), "wpa=1: no RSN element");
    let ap_ie = beacon_ie.wpa_ie.expect("WPA element in the Beacon");
    let ver: u16 = if pairwise == CipherSuite::Tkip { 1 } else { 2 };
    let msgs: Vec<(bool, EapolKeyRepr)> =
        eapol_frames(sim).into_iter().filter(|(sa, da, _)| *sa == sta || *da == sta).map(|(sa, _, k)| (sa == BSSID, k)).collect();
    // M1..M4 in the clear; the group messages travel under the PTK (checked below from
    // the handshake layer).
    assert_eq!(msgs.len(), 4, "{msgs:?}");
    for (_, k) in &msgs {
        assert_eq!(k.descriptor_type, DescriptorType::Wpa);
        assert_eq!(k.key_info.descriptor_version() as u16, ver);
    }
    let ki = |i: usize| msgs[i].1.key_info.0;
    assert_eq!(ki(0), 0x0088 | ver, "M1: Pairwise|Ack");
    assert_eq!(ki(1), 0x0108 | ver, "M2: Pairwise|MIC");
    assert_eq!(ki(2), 0x01c8 | ver, "M3: Pairwise|Install|Ack|MIC, not Secure, not Encrypted Key Data");
    assert_eq!(ki(3), 0x0108 | ver, "M4: Pairwise|MIC, not Secure");
    let m3 = &msgs[2].1;
    assert!(msgs[2].0);
    assert_eq!(m3.key_data, ap_ie, "M3 Key Data: the Beacon's WPA element, plaintext");
    assert_eq!(m3.key_length as usize, pairwise.key_len());
    assert!(is_wpa_element(&msgs[1].1.key_data), "M2 Key Data: the station's WPA element");
    let sta_ie = WpaElementRepr::parse(&msgs[1].1.key_data).unwrap();
    assert_eq!(sta_ie.pairwise.len(), 1);
    assert_eq!(sta_ie.pairwise[0].cipher(), Some(pairwise));
    assert_eq!(sta_ie.group_cipher.and_then(|s| s.cipher()), Some(group));
    assert!(msgs[3].1.key_data.is_empty());
    msgs.len()
}

/// The group key handshake of one station, checked at the EAPOL layer: the same
/// authenticator/supplicant configuration the cores build, run directly.
fn group_handshake_frames(pairwise: CipherSuite, group: CipherSuite) {
    use wsec::rsn::handshake::authenticator::GroupKeys;
    use wsec::rsn::handshake::{Authenticator, Config, Event, Supplicant, Timers};
    let ap_ie = wsec::node::ap::ap_wpa_element(&[Akm::Psk], &[pairwise], group).unwrap();
    let sta_ie = WpaElementRepr {
        version: 1,
        group_cipher: wsec::rsn::ie::Suite::wpa_cipher(group),
        pairwise: vec![wsec::rsn::ie::Suite::wpa_cipher(pairwise).unwrap()],
        akms: vec![wsec::rsn::ie::Suite::wpa_akm(Akm::Psk).unwrap()],
        capabilities: None,
    }
    .to_bytes()
    .unwrap();
    let cfg = Config {
        akm: Akm::Psk,
        pairwise,
        group,
        group_mgmt: None,
        pmk: pmk(),
        aa: BSSID,
        spa: STA1,
        ap_rsne: ap_ie.clone(),
        sta_rsne: sta_ie,
        timers: Timers::default(),
    };
    let gtk: Vec<u8> = (0..group.key_len() as u8).map(|i| i.wrapping_mul(7).wrapping_add(1)).collect();
    let gk = GroupKeys { gtk: Zeroizing::new(gtk.clone()), gtk_key_id: 1, gtk_rsc: 0x1234, igtk: None };
    let mut a = Authenticator::new(cfg.clone(), gk.clone(), wsec::rng::seeded(1));
    let mut s = Supplicant::new(cfg.clone(), wsec::rng::seeded(2));
    let m1 = a.start(0).tx.remove(0);
    let m2 = s.handle_eapol(0, &m1).tx.remove(0);
    let m3 = a.handle_eapol(0, &m2).tx.remove(0);
    let o = s.handle_eapol(0, &m3);
    assert!(o.events.iter().any(|e| matches!(e, Event::InstallPtk { .. })));
    assert!(!o.events.iter().any(|e| matches!(e, Event::InstallGtk { .. } | Event::Established { .. })), "{:?}", o.events);
    let m4 = o.tx[0].clone();
    let o = a.handle_eapol(0, &m4);
    // Message 4 installs the PTK at the AP and starts the group key handshake.
    assert!(o.events.iter().any(|e| matches!(e, Event::InstallPtk { .. })));
    let g1 = o.tx[0].clone();
    let r = EapolKeyRepr::parse(&g1[..], 16).unwrap();
    let ver: u16 = if pairwise == CipherSuite::Tkip { 1 } else { 2 };
    assert_eq!(r.descriptor_type, DescriptorType::Wpa);
    assert_eq!(
        r.key_info.0,
        KeyInfo::KEY_ACK | KeyInfo::KEY_MIC | KeyInfo::SECURE | (1 << 4) | ver,
        "G1: Group|Ack|MIC|Secure, Key Index 1"
    );
    assert_eq!(r.key_info.key_index(), 1);
    assert_eq!(r.key_length as usize, group.key_len(), "G1 Key Length: the GTK's");
    assert_eq!(r.key_rsc, 0x1234, "G1 Key RSC: the GTK's");
    // The Key Data is the bare GTK, encrypted with the KEK: RC4(Key IV || KEK), 256
    // octets of keystream skipped, for version 1; AES key wrap for version 2.
    let ptk = a.ptk().unwrap();
    let plain = if ver == 1 {
        assert_ne!(r.key_iv, [0; 16], "RC4 needs a fresh Key IV");
        assert_eq!(r.key_data.len(), gtk.len());
        let mut d = r.key_data.clone();
        wsec::rsn::keywrap::rc4_key_data(ptk.kek().try_into().unwrap(), &r.key_iv, &mut d);
        d
    } else {
        wsec::rsn::keywrap::aes_key_unwrap(ptk.kek(), &r.key_data).unwrap().to_vec()
    };
    assert_eq!(plain, gtk, "G1 Key Data decrypts to the GTK itself (no KDE)");
    assert_ne!(r.key_data, gtk);
    let o = s.handle_eapol(0, &g1);
    assert!(o.events.contains(&Event::InstallGtk { gtk: Zeroizing::new(gtk.clone()), cipher: group, key_id: 1, rsc: 0x1234 }));
    assert!(o.events.iter().any(|e| matches!(e, Event::Established { .. })), "the port opens with the GTK");
    let g2 = o.tx[0].clone();
    let r2 = EapolKeyRepr::parse(&g2[..], 16).unwrap();
    assert_eq!(r2.key_info.0, KeyInfo::KEY_MIC | KeyInfo::SECURE | (1 << 4) | ver, "G2: Group|MIC|Secure, the same Key Index");
    let o = a.handle_eapol(0, &g2);
    assert!(o.events.contains(&Event::GroupKeyDone { key_id: 1 }), "{:?}", o.events);
    // KRACK: the same G1 again is refused (replay counter); a retransmission with a new
    // counter of the same GTK is answered but installs nothing.
    let o = s.handle_eapol(0, &g1);
    assert!(o.tx.is_empty() && !o.events.iter().any(|e| matches!(e, Event::InstallGtk { .. })));
    let mut a2 = a;
    let o = a2.rekey_group(0, gk);
    let g1b = o.tx[0].clone();
    let o = s.handle_eapol(0, &g1b);
    assert_eq!(o.tx.len(), 1, "answered");
    assert!(!o.events.iter().any(|e| matches!(e, Event::InstallGtk { .. } | Event::InstallPtk { .. })), "no reinstall: {:?}", o.events);
    // And a retransmitted message 3 (counter moved on) reinstalls no PTK.
    let mut m3b = EapolKeyRepr::parse(&m3[..], 16).unwrap();
    m3b.replay_counter = 1000;
    let kdv = if ver == 1 { KeyDescriptorVersion::HmacMd5Rc4 } else { KeyDescriptorVersion::HmacSha1Aes };
    let m3b = m3b.to_bytes_with_mic(kdv, Akm::Psk, ptk_kck(&s)).unwrap();
    let o = s.handle_eapol(0, &m3b);
    assert_eq!(o.tx.len(), 1, "message 4 again");
    assert!(!o.events.iter().any(|e| matches!(e, Event::InstallPtk { .. } | Event::InstallGtk { .. })), "{:?}", o.events);
}

fn ptk_kck(s: &wsec::rsn::handshake::Supplicant) -> &[u8] {
    s.ptk().unwrap().kck()
}

#[test]
fn wpa1_group_key_handshake_frames_tkip() {
    group_handshake_frames(CipherSuite::Tkip, CipherSuite::Tkip);
}

#[test]
fn wpa1_group_key_handshake_frames_ccmp() {
    group_handshake_frames(CipherSuite::Ccmp128, CipherSuite::Ccmp128);
    group_handshake_frames(CipherSuite::Ccmp128, CipherSuite::Tkip);
}

/// Decrypts the whole capture with `wsec::decrypt` from the passphrase alone and returns
/// the payloads it recovered.
fn decryptor_payloads(air: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut d = Decryptor::new(vec![UserKey::passphrase(SSID, PASS).unwrap()]);
    let mut out = Vec::new();
    for f in air {
        if let Outcome::Decrypted { mpdu, .. } = d.process(f) {
            out.push(mpdu);
        }
    }
    out
}

fn contains(hay: &[Vec<u8>], needle: &[u8]) -> bool {
    hay.iter().any(|f| f.windows(needle.len()).any(|w| w == needle))
}

/// tshark (Wireshark's own WPA code) decrypting the capture. tshark missing is a failure,
/// not a skip (scripts/setup installs it).
fn tshark_payloads(air: &[Vec<u8>], name: &str) -> Vec<Vec<u8>> {
    if let Err(e) = std::process::Command::new("tshark").arg("-v").output() {
        panic!("{name}: tshark is needed for the peer check (scripts/setup installs the Debian package tshark): {e}");
    }
    let dir = std::env::temp_dir().join(format!("wsec-wpa1-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("air.pcap");
    let mut w = wsec::capture::writer::CaptureWriter::pcap(std::fs::File::create(&path).unwrap(), 105, false).unwrap();
    for (i, f) in air.iter().enumerate() {
        w.write(&wsec::capture::Packet { linktype: 105, ts_ns: (i as u64 + 1) * 1_000_000, data: f.clone() }).unwrap();
    }
    drop(w);
    let got = peers::tshark_decrypted(&path, &[peers::PeerKey::wpa_pwd(SSID, PASS)]);
    let _ = std::fs::remove_dir_all(&dir);
    got.into_iter().map(|f| f.payload).collect()
}

fn wpa1_network(pairwise: CipherSuite, group: CipherSuite, seed: u64) {
    let mut ap = wpa1_ap(&[pairwise], group);
    ap.group_rekey_s = 2;
    ap.ptk_rekey_s = 3;
    let mut sim = sim(ap, vec![wpa1_sta(STA1), wpa1_sta(STA2)], seed);
    for i in 0..2 {
        let p = sim.phases(i + 1);
        assert!(p.contains(&Phase::Established { pairwise: Some(pairwise) }), "{p:?}");
        assert!(p.iter().any(|p| matches!(p, Phase::GroupKey { key_id: 1 })), "{p:?}");
    }
    assert_eq!(check_wpa1_messages(&sim, STA1, pairwise, group), 4);
    traffic(&mut sim, "before");
    // GTK rekeys (every 2 s) through group key handshakes; traffic keeps flowing.
    sim.run(4_500);
    let ap_phases = sim.phases(0);
    assert!(ap_phases.iter().filter(|p| matches!(p, Phase::GroupKey { .. })).count() >= 2, "{ap_phases:?}");
    assert!(sim.phases(1).iter().any(|p| matches!(p, Phase::GroupKey { key_id: 2 })));
    // A PTK rekey (a new 4-way handshake, then group message 1 again with the GTK in
    // force, which is not installed again).
    assert!(ap_phases.contains(&Phase::PtkRekeyed), "{ap_phases:?}");
    assert!(sim.phases(1).contains(&Phase::PtkRekeyed));
    traffic(&mut sim, "after rekey");
    assert_eq!(sim.ap().counters.total_drops(), 0, "{}", sim.ap().counters);
    for i in 0..2 {
        assert_eq!(sim.sta(i).counters.total_drops(), 0, "{}", sim.sta(i).counters);
    }
    // The capture, decrypted by wsec's decryptor (independent of the cores) and by tshark
    // from the passphrase: unicast both ways and the broadcast, before and after rekeys.
    let name = format!("{}-{}", pairwise.name(), group.name());
    let mine = decryptor_payloads(&sim.air);
    for p in ["before up", "before down", "before broadcast", "after rekey up", "after rekey down", "after rekey broadcast"] {
        assert!(contains(&mine, p.as_bytes()), "wsec decrypt: {p} not recovered ({name})");
    }
    let theirs = tshark_payloads(&sim.air, &name);
    for p in ["before up", "before down", "after rekey up", "after rekey down"] {
        assert!(contains(&theirs, p.as_bytes()), "tshark: {p} not recovered ({name})");
    }
    // Group traffic: Wireshark's dot11decrypt (`Dot11DecryptDecryptWPABroadcastKey`)
    // looks for a GTK KDE after AES-unwrapping group message 1, which a WPA1 GTK
    // (bare, as hostapd sends it) is not; with RC4 (TKIP pairwise) it takes the bare
    // GTK. So the group frames are a tshark check for TKIP pairwise only.
    if pairwise == CipherSuite::Tkip {
        for p in ["before broadcast", "after rekey broadcast"] {
            assert!(contains(&theirs, p.as_bytes()), "tshark: {p} not recovered ({name})");
        }
    }
}

#[test]
fn wpa1_tkip_network() {
    wpa1_network(CipherSuite::Tkip, CipherSuite::Tkip, 11);
}

#[test]
fn wpa1_ccmp_network() {
    wpa1_network(CipherSuite::Ccmp128, CipherSuite::Ccmp128, 12);
}

#[test]
fn wpa1_ccmp_pairwise_tkip_group() {
    wpa1_network(CipherSuite::Ccmp128, CipherSuite::Tkip, 13);
}

/// A `wpa=3` AP (both elements; rsn_pairwise=CCMP, wpa_pairwise=TKIP, TKIP group): a
/// `proto=WPA` station joins with WPA1, an RSN station with RSN, and they talk.
#[test]
fn mixed_wpa3_ap() {
    let mut ap = ApConfig::new(BSSID, SSID.as_bytes(), sec(&[CipherSuite::Ccmp128], CipherSuite::Tkip));
    ap.wpa1_pairwise = Some(vec![CipherSuite::Tkip]);
    let mut sim = sim(ap, vec![wpa1_sta(STA1), rsn_sta(STA2)], 14);
    let b = sim
        .air
        .iter()
        .find_map(|f| match frames::parse_mgmt(f) {
            Ok(Mgmt::Beacon(b)) => Some(b),
            _ => None,
        })
        .unwrap();
    assert!(b.rsne.is_some() && b.wpa_ie.is_some(), "wpa=3: both elements");
    assert!(sim.phases(1).contains(&Phase::Established { pairwise: Some(CipherSuite::Tkip) }));
    assert!(sim.phases(2).contains(&Phase::Established { pairwise: Some(CipherSuite::Ccmp128) }));
    let by = |sta: MacAddr| -> Vec<DescriptorType> {
        eapol_frames(&sim).into_iter().filter(|(s, d, _)| *s == sta || *d == sta).map(|(_, _, k)| k.descriptor_type).collect()
    };
    assert!(by(STA1).iter().all(|d| *d == DescriptorType::Wpa) && !by(STA1).is_empty());
    assert!(by(STA2).iter().all(|d| *d == DescriptorType::Rsn) && !by(STA2).is_empty());
    traffic(&mut sim, "mixed");
    let mine = decryptor_payloads(&sim.air);
    for p in ["mixed up", "mixed down", "mixed relayed", "mixed broadcast"] {
        assert!(contains(&mine, p.as_bytes()), "wsec decrypt: {p}");
    }
    // A station allowing both protocols picks RSN at this AP (wpa_supplicant's order).
    let mut both = wpa1_sta(STA1);
    both.proto_rsn = true;
    let ap2 = {
        let mut a = ApConfig::new(BSSID, SSID.as_bytes(), sec(&[CipherSuite::Ccmp128], CipherSuite::Tkip));
        a.wpa1_pairwise = Some(vec![CipherSuite::Tkip]);
        a
    };
    let sim2 = self::sim(ap2, vec![both, rsn_sta(STA2)], 15);
    assert!(sim2.phases(1).contains(&Phase::Established { pairwise: Some(CipherSuite::Ccmp128) }));
}

/// Mismatches: an RSN-only station finds nothing at a `wpa=1` AP; a `proto=WPA` station
/// nothing at a `wpa=2` AP.
#[test]
fn protocol_mismatch_does_not_join() {
    let mut s = Sim::new(wpa1_ap(&[CipherSuite::Tkip], CipherSuite::Tkip), vec![rsn_sta(STA1)], 0.0, 16, Feed::PerFrame);
    s.run(1_000);
    assert!(!s.sta(0).is_established());
    assert!(s.sta(0).counters.dropped("bss security not acceptable") > 0);
    let ap = ApConfig::new(BSSID, SSID.as_bytes(), sec(&[CipherSuite::Ccmp128], CipherSuite::Ccmp128));
    let mut s = Sim::new(ap, vec![wpa1_sta(STA1)], 0.0, 17, Feed::PerFrame);
    s.run(1_000);
    assert!(!s.sta(0).is_established());
}

#[test]
fn conf_wpa_bits_and_proto() {
    use wsec_live::conf::{parse_ap, parse_sta};
    let base = "interface=wsec0\nbssid=02:00:00:00:00:01\nssid=wsec-wpa1\nwpa_passphrase=correct horse battery\n";
    let a = parse_ap(&format!("{base}wpa=1\n")).unwrap().ap;
    assert!(!a.rsn);
    assert_eq!(a.wpa1_pairwise, Some(vec![CipherSuite::Tkip]), "hostapd's default wpa_pairwise");
    let a = parse_ap(&format!("{base}wpa=3\nwpa_pairwise=TKIP\nrsn_pairwise=CCMP\n")).unwrap().ap;
    assert!(a.rsn);
    assert_eq!(a.wpa1_pairwise, Some(vec![CipherSuite::Tkip]));
    match &a.security {
        Security::Rsn { pairwise, groups, .. } => {
            assert_eq!(pairwise, &vec![CipherSuite::Ccmp128]);
            assert_eq!(groups, &vec![CipherSuite::Tkip], "the weakest of both lists");
        }
        s => panic!("{s:?}"),
    }
    // rsn_pairwise defaults to wpa_pairwise (hostapd).
    let a = parse_ap(&format!("{base}wpa=3\nwpa_pairwise=CCMP\n")).unwrap().ap;
    match &a.security {
        Security::Rsn { pairwise, .. } => assert_eq!(pairwise, &vec![CipherSuite::Ccmp128]),
        s => panic!("{s:?}"),
    }
    let a = parse_ap(&format!("{base}wpa=2\n")).unwrap().ap;
    assert!(a.rsn && a.wpa1_pairwise.is_none());
    assert!(parse_ap(&format!("{base}wpa=1\nwpa_pairwise=GCMP\n")).is_err());
    assert!(parse_ap(&format!("{base}wpa=1\nieee80211w=2\n")).is_err());
    let st = "interface=wsec1\naddr=02:00:00:00:00:11\nnetwork={\n ssid=\"wsec-wpa1\"\n psk=\"correct horse battery\"\n";
    let s = parse_sta(&format!("{st} proto=WPA\n}}\n")).unwrap().sta;
    assert!(!s.proto_rsn && s.proto_wpa1);
    let s = parse_sta(&format!("{st} proto=RSN\n}}\n")).unwrap().sta;
    assert!(s.proto_rsn && !s.proto_wpa1);
    let s = parse_sta(&format!("{st} proto=WPA2 WPA\n}}\n")).unwrap().sta;
    assert!(s.proto_rsn && s.proto_wpa1);
    let s = parse_sta(&format!("{st}}}\n")).unwrap().sta;
    assert!(s.proto_rsn && s.proto_wpa1, "wpa_supplicant's default: WPA RSN");
}

/// Open authentication and an Association Request with `ie` from `sta`, straight to the
/// AP core; the status of its Association Response.
fn assoc_status(ap: &mut wsec::node::ap::AccessPoint, sta: &MacAddr, ie: &[u8]) -> wsec::wire::mgmt::StatusCode {
    use wsec::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, StatusCode};
    let now = 2_000 * nodesim::MS;
    let mut out = wsec::node::Output::default();
    let auth = frames::auth(&BSSID, sta, &BSSID, 1, AuthRepr::new(AuthAlgorithm::OPEN_SYSTEM, 1, StatusCode::SUCCESS));
    ap.handle_air(now, &auth, &mut out);
    out.air.clear();
    ap.handle_air(now, &frames::assoc_req(sta, &BSSID, 2, Capability(0x0031), SSID.as_bytes(), Some(ie)), &mut out);
    nodesim::assoc_resp_status(&out.air).expect("an Association Response")
}

/// The AP checks a station's WPA element against its own (hostapd `wpa_validate_wpa_ie`):
/// group cipher, one offered pairwise cipher, WPA-PSK; an RSN-only AP refuses it.
#[test]
fn ap_checks_the_wpa_element_of_the_association_request() {
    use wsec::rsn::ie::Suite;
    use wsec::wire::mgmt::StatusCode;
    let ie = |group: CipherSuite, pw: CipherSuite, akm: Akm| {
        WpaElementRepr {
            version: 1,
            group_cipher: Suite::wpa_cipher(group),
            pairwise: vec![Suite::wpa_cipher(pw).unwrap()],
            akms: vec![Suite::wpa_akm(akm).unwrap()],
            capabilities: None,
        }
        .to_bytes()
        .unwrap()
    };
    let (t, c) = (CipherSuite::Tkip, CipherSuite::Ccmp128);
    let mut ap = nodesim::ap_core(wpa1_ap(&[t], t), 0);
    assert_eq!(assoc_status(&mut ap, &STA1, &ie(t, t, Akm::Psk)), StatusCode::SUCCESS);
    assert_eq!(assoc_status(&mut ap, &STA1, &ie(t, c, Akm::Psk)), StatusCode::INVALID_PAIRWISE_CIPHER);
    assert_eq!(assoc_status(&mut ap, &STA1, &ie(c, t, Akm::Psk)), StatusCode::INVALID_GROUP_CIPHER);
    assert_eq!(assoc_status(&mut ap, &STA1, &ie(t, t, Akm::Ieee8021x)), StatusCode::INVALID_AKMP);
    // An RSN-only AP: a WPA element is no RSN element.
    let mut rsn_ap = nodesim::ap_core(ApConfig::new(BSSID, SSID.as_bytes(), sec(&[t], t)), 0);
    assert_eq!(assoc_status(&mut rsn_ap, &STA1, &ie(t, t, Akm::Psk)), StatusCode::INVALID_ELEMENT);
    // ieee80211w=2 on a wpa=3 AP: a WPA1 station cannot do MFP.
    let mut cfg = ApConfig::new(BSSID, SSID.as_bytes(), sec(&[c], t));
    cfg.wpa1_pairwise = Some(vec![t]);
    cfg.mfp = wsec::node::mfp::Mfp::Required;
    let mut mfp_ap = nodesim::ap_core(cfg, 0);
    assert_eq!(assoc_status(&mut mfp_ap, &STA1, &ie(t, t, Akm::Psk)), StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
}
