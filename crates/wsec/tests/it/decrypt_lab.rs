//! Captures from the interoperability lab (FT, TDLS, 802.1X, Suite B) with real hostapd
//! v2.10 and wpa_supplicant v2.10 on mac80211_hwsim (`interop/captures --save`;
//! testdata/captures/lab/README.md): an FT-PSK roam between two APs and back, FT-PSK over
//! the DS there and back, a TDLS direct link, WPA2-Enterprise with hostapd's internal EAP
//! server (the MSK read from wpa_supplicant's key log), FT-802.1X (the same MSK) and FT-SAE
//! (the PMK from the same log) each roaming between two APs over the air and over the DS,
//! Suite B 192. Each is decrypted by wsec and by tshark with the same `80211_keys` records
//! and compared payload by payload; wsec must decrypt every protected frame and learn the
//! keys the way the standard says, one per roam. The live runs (`wsec decrypt --live` on
//! two more monitor radios during the same exchange) must hold only frames that the
//! recording, decrypted afterwards, holds too, and nearly all of them.
use crate::common;
use crate::peers;
use peers::PeerKey;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use wsec::capture::{radio, CaptureReader};
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, KeySource, Outcome, Stats};
use wsec::rsn::akm::Akm;
use wsec::wire::Header;

fn dir(s: &str) -> PathBuf {
    common::testdata_dir().join("captures/lab").join(s)
}

fn mpdus(p: &Path) -> Vec<Vec<u8>> {
    CaptureReader::open(p)
        .unwrap()
        .map_while(|r| r.ok())
        .filter_map(|p| radio::mpdu(p.linktype, &p.data).ok().map(|m| m.bytes.to_vec()))
        .collect()
}

struct Run {
    payloads: BTreeMap<u32, Vec<u8>>,
    /// The decrypted MPDUs by frame number.
    decrypted: BTreeMap<u32, Vec<u8>>,
    clear_data: Vec<Vec<u8>>,
    protected: u64,
    stats: Stats,
}

/// One pass over the recording, frame numbers from 1.
fn wsec_run(p: &Path, keys: Vec<UserKey>) -> Run {
    let mut d = Decryptor::new(keys);
    let mut r =
        Run { payloads: BTreeMap::new(), decrypted: BTreeMap::new(), clear_data: Vec::new(), protected: 0, stats: Stats::default() };
    for (i, m) in mpdus(p).iter().enumerate() {
        match d.process(m) {
            Outcome::Decrypted { mpdu, .. } => {
                let hl = Header::new_checked(&mpdu[..]).unwrap().header_len();
                r.payloads.insert(i as u32 + 1, mpdu[hl..].to_vec());
                r.decrypted.insert(i as u32 + 1, mpdu);
            }
            Outcome::Clear if Header::new_checked(&m[..]).is_ok_and(|h| h.frame_control().has_data_body()) => r.clear_data.push(m.clone()),
            _ => {}
        }
    }
    r.protected = d.stats.protected;
    r.stats = d.stats;
    r
}

fn keys_of(s: &str) -> (Vec<UserKey>, Vec<PeerKey>, String) {
    let text = std::fs::read_to_string(dir(s).join("keys.80211")).unwrap();
    let ours = UserKey::from_80211_keys(&text).unwrap();
    let line = text.trim();
    let val = line.split(',').nth(1).unwrap().trim_matches('"').to_string();
    let theirs = if line.starts_with("\"msk\"") {
        PeerKey::Msk(val)
    } else if line.starts_with("\"wpa-psk\"") {
        PeerKey::Psk(val)
    } else {
        let (pass, ssid) = val.split_once(':').unwrap();
        PeerKey::wpa_pwd(ssid, pass)
    };
    (ours, vec![theirs], text)
}

/// wsec against tshark on one recording; returns wsec's run and the frames tshark decrypted.
fn compare(s: &str) -> (Run, Vec<u32>) {
    let (ours, theirs, _) = keys_of(s);
    let air = dir(s).join("air.pcap");
    let r = wsec_run(&air, ours);
    assert!(r.protected > 0, "{s}: protected frames in the recording");
    assert_eq!(r.payloads.len() as u64, r.protected, "{s}: every protected frame; failures {:?}", r.stats.failed);
    let ts = peers::tshark_decrypted(&air, &theirs);
    for f in &ts {
        let n = f.frame_number.unwrap();
        assert_eq!(r.payloads.get(&n), Some(&f.payload), "{s}: frame {n}: tshark's plaintext");
    }
    eprintln!("{s}: {} protected, wsec {}, tshark {}", r.protected, r.payloads.len(), ts.len());
    // tshark 4.0.17 decrypts every one of them too (checked when the captures were made),
    // except the group frames of Suite B 192 (as on synthetic captures,
    // tests/decrypt_keys_peers.rs) and FT-802.1X-SHA384 after a roam
    // (ft_eap_sha384_roams_from_the_msk).
    if s != "suite-b" && s != "ft-eap-sha384" {
        assert_eq!(ts.len() as u64, r.protected, "{s}: tshark");
    }
    (r, ts.iter().map(|f| f.frame_number.unwrap()).collect())
}

fn sources(r: &Run) -> Vec<(KeySource, Option<Akm>, [u8; 2])> {
    r.stats.keys_learnt.iter().map(|k| (k.source, k.akm, [k.aa.0[4], k.spa.0[4]])).collect()
}

#[test]
fn ft_psk_roam_between_two_hostapd_aps() {
    let (r, ts) = compare("ft-psk");
    check_roams("ft-psk", &r, &[("air", 1), ("air", 0)]);
    let src = sources(&r);
    assert_eq!(src[0].0, KeySource::FtInitial, "{src:?}");
    // AP 1 is radio 0 (02:00:00:00:00:00), AP 2 radio 1, the station radio 2.
    assert!(src.iter().any(|k| k.0 == KeySource::FtTransition && k.2 == [1, 2]), "a transition to AP 2: {src:?}");
    assert!(src.iter().any(|k| k.0 == KeySource::FtTransition && k.2 == [0, 2]), "and back to AP 1: {src:?}");
    assert!(src.iter().all(|k| k.1 == Some(Akm::FtPsk)));
    assert!(!ts.is_empty(), "tshark decrypts FT-PSK too");
}

#[test]
fn tdls_direct_link_between_two_wpa_supplicants() {
    let (r, ts) = compare("tdls");
    let src = sources(&r);
    assert!(src.iter().any(|k| k.0 == KeySource::Tdls && k.2 == [1, 2]), "the TPK of the two stations: {src:?}");
    // Frames on the direct link (To DS = From DS = 0) were protected and decrypted.
    let direct = r.decrypted.values().filter(|m| m[0] & 0x0c == 0x08 && m[1] & 0x03 == 0).count();
    assert!(direct >= 10, "direct-link frames decrypted: {direct}");
    assert!(!ts.is_empty());
}

#[test]
fn wpa2_eap_from_the_msk() {
    let (r, ts) = compare("eap");
    assert_eq!(sources(&r)[0].0, KeySource::FourWay);
    assert_eq!(sources(&r)[0].1, Some(Akm::Ieee8021x));
    assert!(!ts.is_empty(), "tshark decrypts WPA2-EAP from the MSK");
}

/// The station (radio 2) and the two APs of the roaming scenarios (radios 0 and 1).
const STA: [u8; 6] = [2, 0, 0, 0, 2, 0];
fn ap(i: u8) -> [u8; 6] {
    [2, 0, 0, 0, i, 0]
}

/// The roams the station made, in order, as the guest script saw them (`result.env`:
/// `roamN=air-ok` or `ds-ok`), each confirmed by wpa_supplicant's status (the target BSSID,
/// state COMPLETED) before a ping.
fn station_roams(s: &str) -> Vec<&'static str> {
    let text = std::fs::read_to_string(dir(s).join("result.env")).unwrap();
    let mut v = Vec::new();
    for l in text.lines() {
        let Some((k, val)) = l.split_once('=') else { continue };
        let Some(n) = k.strip_prefix("roam").and_then(|n| n.parse::<usize>().ok()) else { continue };
        let how = match val {
            "air-ok" => "air",
            "ds-ok" => "ds",
            other => panic!("{s}: roam {n} did not complete: {other}"),
        };
        assert_eq!(n, v.len() + 1, "{s}: roams in order");
        v.push(how);
    }
    v
}

/// The frames of a fast BSS transition as the air shows them (in the clear, or as wsec
/// decrypted them: with PMF the FT Action frames are protected, category 6 being robust
/// in the Category values table of 9.4.1.11):
/// Authentication frames with the FT algorithm (number 2, 9.4.1.1) over the air (13.5.2),
/// FT Request and Response Action frames (category 6, actions 1 and 2, 9.6.8.2-3) over
/// the DS (13.5.3).
#[derive(Debug, PartialEq, Eq)]
enum FtFrame {
    Auth { sa: [u8; 6], da: [u8; 6], seq: u16, status: u16 },
    Request { sta: [u8; 6], target: [u8; 6] },
    Response { sta: [u8; 6], target: [u8; 6], status: u16 },
}

fn ft_frames(s: &str, r: &Run) -> BTreeMap<u32, FtFrame> {
    let mut out = BTreeMap::new();
    for (i, raw) in mpdus(&dir(s).join("air.pcap")).into_iter().enumerate() {
        let n = i as u32 + 1;
        let m = r.decrypted.get(&n).cloned().unwrap_or(raw);
        let Ok(h) = Header::new_checked(&m[..]) else { continue };
        let fc = h.frame_control();
        if !fc.is_mgmt() || fc.protected() {
            continue;
        }
        let b = &m[h.header_len()..];
        let a6 = |o: usize| -> [u8; 6] { b[o..o + 6].try_into().unwrap() };
        let le = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let f = match fc.subtype() {
            11 if b.len() >= 6 && le(0) == 2 => {
                FtFrame::Auth { sa: m[10..16].try_into().unwrap(), da: m[4..10].try_into().unwrap(), seq: le(2), status: le(4) }
            }
            13 if b.len() >= 14 && b[0] == 6 && b[1] == 1 => FtFrame::Request { sta: a6(2), target: a6(8) },
            13 if b.len() >= 16 && b[0] == 6 && b[1] == 2 => FtFrame::Response { sta: a6(2), target: a6(8), status: le(14) },
            _ => continue,
        };
        out.insert(n, f);
    }
    out
}

/// Every roam of a scenario against the air and wsec: one FT transition key per roam the
/// station made, for the target AP (`want`: how, and the AP's radio), learnt from the
/// Reassociation Request whose FTE MIC it verifies (13.8.4); before it, the FT
/// authentication (over the air) or the FT Request/Response through the current AP (over
/// the DS), and no other; after it, the pings of that roam decrypted. The `--json` reports
/// of the recording (decrypt.json, by interop/captures) and of the live run count the
/// roams too.
fn check_roams(s: &str, r: &Run, want: &[(&str, u8)]) {
    let roams = station_roams(s);
    assert_eq!(roams, want.iter().map(|w| w.0).collect::<Vec<_>>(), "{s}: the station's roams");
    let all: Vec<u64> = r.stats.keys_learnt.iter().map(|k| k.frame).collect();
    let ev: Vec<_> = r.stats.keys_learnt.iter().filter(|k| k.source == KeySource::FtTransition).collect();
    assert_eq!(ev.len(), want.len(), "{s}: one FT transition key per roam: {:?}", sources(r));
    let ft = ft_frames(s, r);
    for (i, (e, (how, target))) in ev.iter().zip(want).enumerate() {
        let (target, sta) = (ap(*target), STA);
        assert_eq!((e.aa.0, e.spa.0), (target, sta), "{s}: roam {}", i + 1);
        let from = all.iter().copied().filter(|&f| f < e.frame).max().unwrap_or(0) as u32;
        let to = all.iter().copied().filter(|&f| f > e.frame).min().unwrap_or(u64::MAX).min(u32::MAX as u64) as u32;
        let before: Vec<&FtFrame> = ft.range(from + 1..e.frame as u32).map(|(_, f)| f).collect();
        let auth = [FtFrame::Auth { sa: sta, da: target, seq: 1, status: 0 }, FtFrame::Auth { sa: target, da: sta, seq: 2, status: 0 }];
        let action = [FtFrame::Request { sta, target }, FtFrame::Response { sta, target, status: 0 }];
        let (yes, no) = if *how == "air" { (&auth, &action) } else { (&action, &auth) };
        for f in yes {
            assert!(before.contains(&f), "{s}: roam {} ({how}): {f:?} before the reassociation: {before:?}", i + 1);
        }
        for f in no {
            assert!(!before.contains(&f), "{s}: roam {} ({how}): {f:?}", i + 1);
        }
        let link = |m: &Vec<u8>| {
            let (a1, a2) = (&m[4..10], &m[10..16]);
            m[0] & 0x0c == 0x08 && ((a1 == target && a2 == sta) || (a1 == sta && a2 == target))
        };
        let after = r.decrypted.range(e.frame as u32 + 1..to).filter(|(_, m)| link(m)).count();
        eprintln!(
            "{s}: roam {} {how} to {} at frame {}: {} FT frames before it, {after} data frames decrypted after",
            i + 1,
            e.aa,
            e.frame,
            before.len()
        );
        // Four echo requests and four replies (ping -c 4), besides ARP.
        assert!(after >= 8, "{s}: roam {}: {after} frames decrypted after the reassociation", i + 1);
    }
    let json = |f: &str| std::fs::read_to_string(dir(s).join(f)).unwrap().matches("\"FT transition (roam)\"").count();
    assert_eq!(json("decrypt.json"), want.len(), "{s}: decrypt.json");
}

/// FT-PSK over the DS (13.5.3, 13.6): the station sends its FT Request to AP 1 in an Action
/// frame, AP 1 hands it to AP 2 over the DS (hostapd's RRB), AP 2's FT Response comes back
/// through AP 1, and the station reassociates with AP 2, then the same way back.
#[test]
fn ft_psk_over_the_ds() {
    let (r, ts) = compare("ft-ds");
    let src = sources(&r);
    assert_eq!(src[0].0, KeySource::FtInitial, "{src:?}");
    assert!(src.iter().all(|k| k.1 == Some(Akm::FtPsk)));
    check_roams("ft-ds", &r, &[("ds", 1), ("ds", 0)]);
    assert!(!ts.is_empty());
}

/// FT-802.1X (AKM 3) between two APs: the initial mobility domain association with AP 1
/// (EAP-PSK, the XXKey from the MSK, 12.7.1.7.3), AP 1 pushes the PMK-R1 to AP 2 (R0KH to
/// R1KH), then to AP 2 and back over the air and over the DS.
#[test]
fn ft_eap_roams_from_the_msk() {
    let (r, ts) = compare("ft-eap");
    assert_eq!(sources(&r)[0].0, KeySource::FtInitial);
    assert!(sources(&r).iter().all(|k| k.1 == Some(Akm::FtIeee8021x)));
    check_roams("ft-eap", &r, &[("air", 1), ("air", 0), ("ds", 1), ("ds", 0)]);
    assert!(!ts.is_empty());
}

/// FT-SAE (AKM 9): the FT initial mobility domain association from the SAE PMK (the
/// XXKey), which wpa_supplicant logged (`-K`, "SAE: PMK"), then the roams of FT-802.1X;
/// PMF required, so the management frames after it (the FT Action frames among them) are
/// protected too.
#[test]
fn ft_sae_roams_from_the_pmk() {
    let (r, ts) = compare("ft-sae");
    assert_eq!(sources(&r)[0].0, KeySource::FtInitial);
    assert!(sources(&r).iter().all(|k| k.1 == Some(Akm::FtSae)));
    check_roams("ft-sae", &r, &[("air", 1), ("air", 0), ("ds", 1), ("ds", 0)]);
    let protected_actions = r.decrypted.values().filter(|m| m[0] == 0xd0 && m[24] == 6).count();
    assert_eq!(protected_actions, 4, "the FT Request and Response of both roams over the DS, decrypted");
    assert!(!ts.is_empty());
}

/// Transitions the target AP refused, from real runs on a loaded machine (full
/// `interop/captures` runs; testdata/captures/lab/README.md): the station sent its FT
/// Authentication Request twice, AP 2 answered both with different ANonces, the station's
/// Reassociation Request used the first, and AP 2 refused it with Status Code 55 (invalid
/// FTE, 9.4.1.9); the station then made a new initial mobility domain association with
/// AP 1 and went on roaming. The Request's FTE MIC verifies under the PTK of the first
/// ANonce, so only the Response says that no PTKSA was set up (13.5.2, 13.8.5): wsec must
/// report the station's roams only. In `ft-psk-refused` the Reassociation Request and the
/// refusal were each sent twice (the retransmitted Request gives the same key).
#[test]
fn refused_transitions_are_no_roams() {
    use KeySource::{FtInitial, FtTransition};
    /// Name, the station's roam results, the keys wsec must learn (how, from which AP).
    type Case<'a> = (&'a str, &'a [&'a str], &'a [(KeySource, [u8; 6])]);
    let cases: [Case; 2] = [
        (
            "ft-sae-refused",
            &["roam1=air-fail", "roam2=air-ok", "roam3=ds-ok", "roam4=ds-ok"],
            // The initial association, the one after the refusal, then the three roams.
            &[(FtInitial, ap(0)), (FtInitial, ap(0)), (FtTransition, ap(0)), (FtTransition, ap(1)), (FtTransition, ap(0))],
        ),
        ("ft-psk-refused", &["roam1=air-fail", "roam2=air-ok"], &[(FtInitial, ap(0)), (FtInitial, ap(0)), (FtTransition, ap(0))]),
    ];
    for (s, station, keys) in cases {
        let (r, ts) = compare(s);
        let env = std::fs::read_to_string(dir(s).join("result.env")).unwrap();
        let roams: Vec<&str> = env.lines().filter(|l| l.starts_with("roam")).collect();
        assert_eq!(roams, station, "{s}");
        // The refusal on the air: AP 2's Reassociation Responses (subtype 3) with status 55.
        let refused: Vec<u32> = mpdus(&dir(s).join("air.pcap"))
            .iter()
            .enumerate()
            .filter(|(_, m)| m.len() >= 28 && m[0] == 0x30 && m[10..16] == ap(1) && m[4..10] == STA)
            .filter(|(_, m)| u16::from_le_bytes([m[26], m[27]]) == 55)
            .map(|(i, _)| i as u32 + 1)
            .collect();
        assert!(!refused.is_empty(), "{s}: a refused reassociation");
        let ev: Vec<_> = r.stats.keys_learnt.iter().map(|k| (k.source, k.aa.0)).collect();
        assert_eq!(ev, keys, "{s}");
        assert!(r.stats.keys_learnt[1].frame > refused[0] as u64, "{s}");
        let json = std::fs::read_to_string(dir(s).join("decrypt.json")).unwrap();
        let ok = station.iter().filter(|l| l.ends_with("-ok")).count();
        assert_eq!(json.matches("\"FT transition (roam)\"").count(), ok, "{s}: decrypt.json");
        assert!(!ts.is_empty());
    }
}

/// FT-802.1X-SHA384 (AKM 13): the roams of ft-eap with the SHA-384 key hierarchy (XXKey =
/// the MSK's first 384 bits, 12.7.1.7.3; 48-octet PMK-R0/R1, 24-octet KCK). tshark 4.0.17
/// decrypts the unicast frames of the initial association only, byte for byte like wsec
/// (compare): its FT MIC check (Dot11DecryptFtMicCheck in Wireshark's dot11decrypt.c)
/// computes every FTE MIC with AES-CMAC, while 13.8.4 has the MIC computed with the KCK by
/// the negotiated AKM's algorithm, HMAC-SHA-384 with a 24-octet MIC field (9.4.2.47) for
/// AKM 13 (as hostapd's wpa_ft_mic does); so it never accepts a transition's key. The
/// MICs wsec verifies with HMAC-SHA-384 are the ones real hostapd and wpa_supplicant
/// accepted (the station completed every roam).
#[test]
fn ft_eap_sha384_roams_from_the_msk() {
    let (r, ts) = compare("ft-eap-sha384");
    assert_eq!(sources(&r)[0].0, KeySource::FtInitial);
    assert!(sources(&r).iter().all(|k| k.1 == Some(Akm::FtIeee8021xSha384)));
    check_roams("ft-eap-sha384", &r, &[("air", 1), ("air", 0), ("ds", 1), ("ds", 0)]);
    let first_roam = r.stats.keys_learnt.iter().find(|k| k.source == KeySource::FtTransition).unwrap().frame as u32;
    let before: Vec<u32> = r.decrypted.range(..first_roam).filter(|(_, m)| m[4] & 1 == 0).map(|(n, _)| *n).collect();
    assert_eq!(ts, before, "tshark: the unicast frames before the first roam, no other");
}

/// WPA3-Enterprise 192-bit (AKM 12, GCMP-256, BIP-GMAC-256, PMF): EAP-TLS with P-384
/// certificates; the 64-octet MSK (EAP-TLS "Derived key") gives the 48-octet PMK.
#[test]
fn suite_b_192_from_the_msk() {
    let (r, ts) = compare("suite-b");
    assert_eq!(sources(&r)[0].0, KeySource::FourWay);
    assert_eq!(sources(&r)[0].1, Some(Akm::SuiteB192));
    assert_eq!(r.stats.decrypted.keys().map(|c| c.name()).collect::<Vec<_>>(), ["gcmp-256"]);
    let unicast = r.decrypted.values().filter(|m| m[4] & 1 == 0).count();
    assert_eq!(ts.len(), unicast, "tshark: the unicast frames");
}

/// The live runs against the recording decrypted afterwards: every data frame the live
/// decryptor wrote in the clear is one the recording gives (decrypted or clear), and it
/// holds every frame the recording decrypts (in these runs; the live runs start a second
/// before tcpdump's recording and stop after it).
#[test]
fn live_decryption_matches_the_recording() {
    for s in ["ft-psk", "tdls", "ft-ds"] {
        let (ours, _, _) = keys_of(s);
        let r = wsec_run(&dir(s).join("air.pcap"), ours);
        // An empty recording would make every comparison below hold trivially.
        assert!(r.decrypted.len() >= 8, "{s}: the recording decrypts only {} frames", r.decrypted.len());
        let mut file: HashMap<Vec<u8>, usize> = HashMap::new();
        for m in r.decrypted.values().chain(&r.clear_data) {
            *file.entry(m.clone()).or_default() += 1;
        }
        let decrypted: std::collections::HashSet<&Vec<u8>> = r.decrypted.values().collect();
        for live in ["live.pcapng", "live-stream.pcap"] {
            let p = dir(s).join(live);
            let frames = mpdus(&p);
            let data: Vec<&Vec<u8>> = frames
                .iter()
                .filter(|m| Header::new_checked(&m[..]).is_ok_and(|h| h.frame_control().has_data_body() && !h.frame_control().protected()))
                .collect();
            let mut common = 0;
            for m in &data {
                assert!(file.contains_key(*m), "{s}/{live}: a frame the recording does not give");
                if decrypted.contains(m) {
                    common += 1;
                }
            }
            eprintln!(
                "{s}/{live}: {} frames, {} data, {common} of the recording's {} decrypted frames",
                frames.len(),
                data.len(),
                r.decrypted.len()
            );
            assert_eq!(common, r.decrypted.len(), "{s}/{live}");
        }
        if s != "tdls" {
            // The live run's --json names the roams as the recording does.
            let live = std::fs::read_to_string(dir(s).join("live.json")).unwrap();
            assert_eq!(live.matches("\"FT transition (roam)\"").count(), station_roams(s).len(), "{s}: live.json");
        }
    }
}
