//! wsec against the peers, payload by payload: on every capture with a known key, each
//! frame that tshark or airdecap-ng decrypts, wsec decrypts too, to byte-identical
//! plaintext; and wsec decrypts at least as many frames as the union of the two.
mod common;
mod peers;
use peers::{PeerFrame, PeerKey};
use std::collections::BTreeMap;
use std::path::Path;
use wsec::capture::{radio, CaptureReader};
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, Outcome};
use wsec::wire::Header;

/// wsec's plaintext payload (after the MAC header) by frame number (1-based), two passes.
fn wsec_payloads(path: &Path, keys: Vec<UserKey>) -> BTreeMap<u32, Vec<u8>> {
    let mpdus: Vec<Option<Vec<u8>>> = CaptureReader::open(path)
        .unwrap()
        .map_while(|p| p.ok())
        .map(|p| radio::mpdu(p.linktype, &p.data).ok().map(|m| m.bytes.to_vec()))
        .collect();
    let mut d = Decryptor::new(keys);
    d.start_learning();
    for m in mpdus.iter().flatten() {
        d.process(m);
    }
    d.end_learning();
    let mut out = BTreeMap::new();
    for (i, m) in mpdus.iter().enumerate() {
        let Some(m) = m else { continue };
        if let Outcome::Decrypted { mpdu, .. } | Outcome::Duplicate { mpdu, .. } = d.process(m) {
            let hl = Header::new_checked(&mpdu[..]).unwrap().header_len();
            out.insert(i as u32 + 1, mpdu[hl..].to_vec());
        }
    }
    out
}

fn check(name: &str, keys: Vec<UserKey>, peer_keys: Vec<PeerKey>, airdecap_bssid: Option<&str>) -> (usize, usize, usize) {
    let path = common::shared_dir().join("captures").join(name);
    let ours = wsec_payloads(&path, keys);
    let tshark: Vec<PeerFrame> = peers::tshark_decrypted(&path, &peer_keys);
    let air: Vec<PeerFrame> = peers::airdecap_decrypted_bssid(&path, &peer_keys[0], airdecap_bssid);
    let mut union = std::collections::BTreeSet::new();
    for (who, frames) in [("tshark", &tshark), ("airdecap-ng", &air)] {
        for f in frames {
            let n = f.frame_number.expect("the harness numbers every frame");
            union.insert(n);
            let mine = ours.get(&n).unwrap_or_else(|| panic!("{name}: frame {n} decrypted by {who}, not by wsec"));
            assert!(mine == &f.payload, "{name}: frame {n}: plaintext differs from {who}'s");
        }
    }
    assert!(ours.len() >= union.len(), "{name}: {} < {}", ours.len(), union.len());
    eprintln!("{name}: wsec {}, tshark {}, airdecap-ng {}, union {}", ours.len(), tshark.len(), air.len(), union.len());
    (ours.len(), tshark.len(), air.len())
}

fn wpa(ssid: &str, pass: &str) -> (Vec<UserKey>, Vec<PeerKey>) {
    (vec![UserKey::passphrase(ssid, pass).unwrap()], vec![PeerKey::WpaPwd { ssid: ssid.into(), passphrase: pass.into() }])
}

#[test]
fn wep_64_ptw() {
    let (n, t, a) = check("aircrack/wep_64_ptw.cap", vec![UserKey::wep_hex("1f1f1f1f1f").unwrap()], vec![PeerKey::Wep("1f1f1f1f1f".into())], None);
    assert_eq!((n, t, a), (30630, 30630, 30630));
}

#[test]
fn wpa_family() {
    for (name, ssid, pass, bssid) in [
        ("aircrack/wpa.cap", "test", "biscotte", None),
        ("aircrack/wpa-psk-linksys.cap", "linksys", "dictionary", None),
        ("aircrack/wpa2-psk-linksys.cap", "linksys", "dictionary", None),
        ("aircrack/capture_wds-01.cap", "test1", "12345678", Some("00:11:22:00:00:00")),
        ("aircrack/zn2i.pcap", "dlink", "12345678", None),
        ("aircrack/n-02.cap", "Neheb", "bo$$password", None),
        ("vanhoef/wnm_sleep_test-wpa2-psk_12345678.pcapng", "test-wnm-rsn", "12345678", None),
    ] {
        let (k, pk) = wpa(ssid, pass);
        check(name, k, pk, bssid);
    }
}
