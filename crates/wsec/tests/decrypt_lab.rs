//! Real captures of issue 24's cases, made in the interoperability lab with real hostapd
//! v2.10 and wpa_supplicant v2.10 on mac80211_hwsim (`interop/captures --save`;
//! testdata/captures/lab/README.md): an FT-PSK roam between two APs and back, a TDLS
//! direct link, WPA2-Enterprise and FT-802.1X with hostapd's internal EAP server (the MSK
//! read from wpa_supplicant's key log), FT-SAE (the PMK from the same log). Each is decrypted by wsec and by tshark with the
//! same `80211_keys` records and compared payload by payload; wsec must decrypt every
//! protected frame and learn the keys the way the standard says. The live runs
//! (`wsec decrypt --live` on two more monitor radios during the same exchange) must hold
//! only frames that the recording, decrypted afterwards, holds too, and nearly all of them.
mod common;
mod peers;
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
    decrypted: Vec<Vec<u8>>,
    clear_data: Vec<Vec<u8>>,
    protected: u64,
    stats: Stats,
}

/// One pass over the recording, frame numbers from 1.
fn wsec_run(p: &Path, keys: Vec<UserKey>) -> Run {
    let mut d = Decryptor::new(keys);
    let mut r = Run { payloads: BTreeMap::new(), decrypted: Vec::new(), clear_data: Vec::new(), protected: 0, stats: Stats::default() };
    for (i, m) in mpdus(p).iter().enumerate() {
        match d.process(m) {
            Outcome::Decrypted { mpdu, .. } => {
                let hl = Header::new_checked(&mpdu[..]).unwrap().header_len();
                r.payloads.insert(i as u32 + 1, mpdu[hl..].to_vec());
                r.decrypted.push(mpdu);
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

/// wsec against tshark on one recording; returns wsec's run and tshark's count.
fn compare(s: &str) -> (Run, usize) {
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
    // tests/decrypt_keys_peers.rs).
    if s != "suite-b" {
        assert_eq!(ts.len() as u64, r.protected, "{s}: tshark");
    }
    (r, ts.len())
}

fn sources(r: &Run) -> Vec<(KeySource, Option<Akm>, [u8; 2])> {
    r.stats.keys_learnt.iter().map(|k| (k.source, k.akm, [k.aa.0[4], k.spa.0[4]])).collect()
}

#[test]
fn ft_psk_roam_between_two_hostapd_aps() {
    let (r, ts) = compare("ft-psk");
    let src = sources(&r);
    assert_eq!(src[0].0, KeySource::FtInitial, "{src:?}");
    // AP 1 is radio 0 (02:00:00:00:00:00), AP 2 radio 1, the station radio 2.
    assert!(src.iter().any(|k| k.0 == KeySource::FtTransition && k.2 == [1, 2]), "a transition to AP 2: {src:?}");
    assert!(src.iter().any(|k| k.0 == KeySource::FtTransition && k.2 == [0, 2]), "and back to AP 1: {src:?}");
    assert!(src.iter().all(|k| k.1 == Some(Akm::FtPsk)));
    assert!(ts > 0, "tshark decrypts FT-PSK too");
}

#[test]
fn tdls_direct_link_between_two_wpa_supplicants() {
    let (r, ts) = compare("tdls");
    let src = sources(&r);
    assert!(src.iter().any(|k| k.0 == KeySource::Tdls && k.2 == [1, 2]), "the TPK of the two stations: {src:?}");
    // Frames on the direct link (To DS = From DS = 0) were protected and decrypted.
    let direct = r.decrypted.iter().filter(|m| m[0] & 0x0c == 0x08 && m[1] & 0x03 == 0).count();
    assert!(direct >= 10, "direct-link frames decrypted: {direct}");
    assert!(ts > 0);
}

#[test]
fn wpa2_eap_and_ft_eap_from_the_msk() {
    let (r, ts) = compare("eap");
    assert_eq!(sources(&r)[0].0, KeySource::FourWay);
    assert_eq!(sources(&r)[0].1, Some(Akm::Ieee8021x));
    assert!(ts > 0, "tshark decrypts WPA2-EAP from the MSK");
    let (r, _) = compare("ft-eap");
    assert_eq!(sources(&r)[0].0, KeySource::FtInitial);
    assert_eq!(sources(&r)[0].1, Some(Akm::FtIeee8021x));
}

/// FT-SAE (AKM 9): the FT initial mobility domain association from the SAE PMK (the
/// XXKey), which wpa_supplicant logged (`-K`, "SAE: PMK"); PMF required, so the
/// management frames after it are protected too.
#[test]
fn ft_sae_from_the_pmk() {
    let (r, ts) = compare("ft-sae");
    assert_eq!(sources(&r)[0].0, KeySource::FtInitial);
    assert_eq!(sources(&r)[0].1, Some(Akm::FtSae));
    assert!(ts > 0);
}

/// WPA3-Enterprise 192-bit (AKM 12, GCMP-256, BIP-GMAC-256, PMF): EAP-TLS with P-384
/// certificates; the 64-octet MSK (EAP-TLS "Derived key") gives the 48-octet PMK.
#[test]
fn suite_b_192_from_the_msk() {
    let (r, ts) = compare("suite-b");
    assert_eq!(sources(&r)[0].0, KeySource::FourWay);
    assert_eq!(sources(&r)[0].1, Some(Akm::SuiteB192));
    assert_eq!(r.stats.decrypted.keys().map(|c| c.name()).collect::<Vec<_>>(), ["gcmp-256"]);
    let unicast = r.decrypted.iter().filter(|m| m[4] & 1 == 0).count();
    assert_eq!(ts, unicast, "tshark: the unicast frames");
}

/// The live runs against the recording decrypted afterwards: every data frame the live
/// decryptor wrote in the clear is one the recording gives (decrypted or clear), and it
/// holds every frame the recording decrypts (in these runs; the live runs start a second
/// before tcpdump's recording and stop after it).
#[test]
fn live_decryption_matches_the_recording() {
    for s in ["ft-psk", "tdls"] {
        let (ours, _, _) = keys_of(s);
        let r = wsec_run(&dir(s).join("air.pcap"), ours);
        let mut file: HashMap<Vec<u8>, usize> = HashMap::new();
        for m in r.decrypted.iter().chain(&r.clear_data) {
            *file.entry(m.clone()).or_default() += 1;
        }
        let decrypted: std::collections::HashSet<&Vec<u8>> = r.decrypted.iter().collect();
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
    }
}
