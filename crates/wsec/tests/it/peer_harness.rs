//! Checks the peer harness (tests/it/peers) on the shared captures against the figures of
//! testdata/captures/README.md (TShark 4.0.17, aircrack-ng 1.7): if these hold, the
//! harness runs the peers right and reads their output right, and decryption tests can
//! compare wsec's plaintext with theirs frame by frame. The peers must be installed
//! (scripts/setup): these tests fail, not skip, without them.
use crate::common;
use crate::peers;

use std::collections::BTreeMap;
use std::path::PathBuf;

use peers::{PeerFrame, PeerKey};
use wsec::capture::radio;
use wsec::capture::rewrite::to_ethernet;
use wsec::capture::CaptureReader;

fn cap(rel: &str) -> PathBuf {
    common::testdata_dir().join("captures").join(rel)
}

/// Frame number -> payload; each frame at most once.
fn by_number(frames: &[PeerFrame]) -> BTreeMap<u32, &[u8]> {
    let mut m = BTreeMap::new();
    for f in frames {
        let n = f.frame_number.expect("frame number");
        assert!(m.insert(n, &f.payload[..]).is_none(), "frame {n} twice");
    }
    m
}

/// Where both peers decrypted a frame, the plaintext is the same (README: "byte-identical").
/// Returns the frames only tshark decrypted and those only airdecap-ng did.
fn agree(ts: &[PeerFrame], ad: &[PeerFrame]) -> (Vec<u32>, Vec<u32>) {
    let (t, a) = (by_number(ts), by_number(ad));
    for (n, p) in &a {
        if let Some(q) = t.get(n) {
            assert_eq!(common::hx(p), common::hx(q), "frame {n}: airdecap-ng and tshark plaintext differ");
        }
    }
    (t.keys().filter(|n| !a.contains_key(n)).copied().collect(), a.keys().filter(|n| !t.contains_key(n)).copied().collect())
}

/// The MPDU (radio header and FCS removed) of every frame of a capture; index = number - 1.
fn mpdus(rel: &str) -> Vec<Vec<u8>> {
    CaptureReader::open(&cap(rel))
        .unwrap()
        .map_while(|p| p.ok())
        .map(|p| radio::mpdu(p.linktype, &p.data).unwrap().bytes.to_vec())
        .collect()
}

/// Frame Control (first two octets of the MPDU) of every frame of a capture.
fn frame_controls(rel: &str) -> Vec<[u8; 2]> {
    mpdus(rel).iter().map(|m| [m[0], m[1]]).collect()
}

/// Of the given frames: (group-addressed, retransmitted (Retry set), other).
fn classify(rel: &str, numbers: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let m = mpdus(rel);
    let (mut group, mut retry, mut other) = (vec![], vec![], vec![]);
    for &n in numbers {
        let f = &m[n as usize - 1];
        if f[4] & 1 == 1 {
            group.push(n);
        } else if f[1] & 0x08 != 0 {
            retry.push(n);
        } else {
            other.push(n);
        }
    }
    (group, retry, other)
}

fn snap(p: &[u8]) -> bool {
    p.starts_with(&[0xaa, 0xaa, 0x03])
}

#[test]
fn wep_64_ptw() {
    let c = cap("aircrack/wep_64_ptw.cap");
    let key = PeerKey::wep("1f1f1f1f1f");
    let ts = peers::tshark_decrypted(&c, std::slice::from_ref(&key));
    assert_eq!(ts.len(), 30630);
    assert!(ts.iter().all(|f| snap(&f.payload)));
    let run = peers::try_airdecap(&c, &key, None, true).unwrap();
    assert_eq!(run.stats["Number of decrypted WEP packets"], 30630);
    assert_eq!(run.stats["Number of corrupted WEP packets"], 0);
    let ad = peers::airdecap_decrypted(&c, &key);
    assert_eq!(ad.len(), 30630);
    assert_eq!(agree(&ts, &ad), (vec![], vec![]));
}

#[test]
fn wpa2_psk_linksys() {
    let c = cap("aircrack/wpa2-psk-linksys.cap");
    let key = PeerKey::wpa_pwd("linksys", "dictionary");
    let ts = peers::tshark_decrypted(&c, std::slice::from_ref(&key));
    assert_eq!(ts.len(), 30, "tshark: 30 of 32 protected data frames");
    let ad = peers::airdecap_decrypted(&c, &key);
    assert_eq!(ad.len(), 25);
    let (only_tshark, only_airdecap) = agree(&ts, &ad);
    assert!(only_airdecap.is_empty());
    // What tshark alone decrypts: a group-addressed frame (airdecap-ng derives no GTK) and
    // retransmissions (airdecap-ng drops a frame whose body repeats the previous one).
    let (group, retry, other) = classify("aircrack/wpa2-psk-linksys.cap", &only_tshark);
    assert_eq!((group, retry, other), (vec![280], vec![282, 283, 284, 460], vec![]));
    let run = peers::try_airdecap(&c, &key, None, true).unwrap();
    assert_eq!(run.stats["Number of decrypted WPA packets"], 25);
    assert_eq!(run.stats["Total number of WPA data packets"], 28);

    // The same run with the PMK, and with a wrong WEP key in front of the passphrase:
    // several uat records in one run.
    let pmk = PeerKey::Psk("5df920b5481ed70538dd5fd02423d7e2522205feeebb974cad08a52b5613ede2".into());
    assert_eq!(peers::tshark_decrypted(&c, std::slice::from_ref(&pmk)), ts);
    assert_eq!(peers::tshark_decrypted(&c, &[PeerKey::wep("0102030405"), key.clone()]), ts);
    assert_eq!(peers::tshark_decrypted(&c, &[key.clone(), PeerKey::wep("0102030405")]), ts);
    assert_eq!(peers::airdecap_decrypted(&c, &pmk), ad);
    // Temporal keys (as tshark derives them, wlan.analysis.tk) of two of the handshakes:
    // a subset, with the same plaintext.
    let tks = [PeerKey::Tk("1d035e8beb4f83611dc93e2657cecf69".into()), PeerKey::Tk("0ab0404984be2ef15086aa997804f47e".into())];
    let by_tk = peers::tshark_decrypted(&c, &tks);
    assert_eq!(by_tk.len(), 11);
    let all = by_number(&ts);
    for f in &by_tk {
        assert_eq!(all[&f.frame_number.unwrap()], &f.payload[..]);
    }
}

#[test]
fn wpa_psk_linksys_tkip() {
    let c = cap("aircrack/wpa-psk-linksys.cap");
    let key = PeerKey::wpa_pwd("linksys", "dictionary");
    let ts = peers::tshark_decrypted(&c, std::slice::from_ref(&key));
    assert_eq!(ts.len(), 59);
    let ad = peers::airdecap_decrypted(&c, &key);
    assert_eq!(ad.len(), 53);
    let (only_tshark, only_airdecap) = agree(&ts, &ad);
    assert!(only_airdecap.is_empty());
    let (group, retry, other) = classify("aircrack/wpa-psk-linksys.cap", &only_tshark);
    assert_eq!((group, retry, other), (vec![37, 181, 314, 351], vec![54, 561], vec![]));
}

#[test]
fn wpa_prism_fcs() {
    // Prism header and FCS on every frame: tshark decrypts nothing, airdecap-ng 2.
    let c = cap("aircrack/wpa.cap");
    let key = PeerKey::wpa_pwd("test", "biscotte");
    assert_eq!(peers::tshark_decrypted(&c, std::slice::from_ref(&key)).len(), 0);
    let ad = peers::airdecap_decrypted(&c, &key);
    assert_eq!(ad.len(), 2);
    assert!(ad.iter().all(|f| f.frame_number.is_some() && snap(&f.payload)));
}

#[test]
fn wds_four_address() {
    let c = cap("aircrack/capture_wds-01.cap");
    let key = PeerKey::wpa_pwd("test1", "12345678");
    assert_eq!(peers::tshark_decrypted(&c, std::slice::from_ref(&key)).len(), 0, "tshark fails on 4-address frames");
    let ad = peers::airdecap_decrypted_bssid(&c, &key, Some("00:11:22:00:00:00"));
    assert_eq!(ad.len(), 46);
    assert!(ad.iter().all(|f| snap(&f.payload)));
    let fcs = frame_controls("aircrack/capture_wds-01.cap");
    assert!(ad.iter().all(|f| fcs[f.frame_number.unwrap() as usize - 1][1] & 3 == 3));
    // airdecap-ng's own Ethernet output on the file itself, as recorded in the README.
    use md5::{Digest, Md5};
    let bytes = peers::airdecap_output_bytes(&c, &key, Some("00:11:22:00:00:00"));
    assert_eq!(common::hx(&Md5::digest(&bytes)), "340b5bc23bec76e88f6a2df0cd2eeb33");
}

#[test]
fn zn2i_n02_wnm_and_nothing_to_decrypt() {
    let key = PeerKey::wpa_pwd("dlink", "12345678");
    let c = cap("aircrack/zn2i.pcap");
    let (ts, ad) = (peers::tshark_decrypted(&c, std::slice::from_ref(&key)), peers::airdecap_decrypted(&c, &key));
    assert_eq!((ts.len(), ad.len()), (1, 1));
    assert_eq!(agree(&ts, &ad), (vec![], vec![]));

    // PSK-SHA256 with MFP: 15 data frames and 5 protected management frames for tshark;
    // airdecap-ng derives no PTK for this AKM.
    let c = cap("aircrack/n-02.cap");
    let key = PeerKey::wpa_pwd("Neheb", "bo$$password");
    let ts = peers::tshark_decrypted(&c, std::slice::from_ref(&key));
    let fcs = frame_controls("aircrack/n-02.cap");
    let data = ts.iter().filter(|f| fcs[f.frame_number.unwrap() as usize - 1][0] & 0x0c == 0x08).count();
    let mgmt = ts.iter().filter(|f| fcs[f.frame_number.unwrap() as usize - 1][0] & 0x0c == 0x00).count();
    assert_eq!((data, mgmt), (15, 5));
    assert_eq!(peers::airdecap_decrypted(&c, &key).len(), 0);

    // pcapng input (airdecap-ng gets a classic pcap copy).
    let c = cap("vanhoef/wnm_sleep_test-wpa2-psk_12345678.pcapng");
    let key = PeerKey::wpa_pwd("test-wnm-rsn", "12345678");
    let (ts, ad) = (peers::tshark_decrypted(&c, std::slice::from_ref(&key)), peers::airdecap_decrypted(&c, &key));
    assert_eq!((ts.len(), ad.len()), (2, 2));
    assert_eq!(agree(&ts, &ad), (vec![], vec![]));

    for (rel, ssid, pass) in [
        ("aircrack/wpa2.eapol.cap", "Harkonen", "12345678"),
        ("aircrack/wpa3-psk.pcap", "WPA3-Network", "abcdefgh"),
        ("vanhoef/wpa3.pcapng", "WPA3-Network", "abcdefgh"),
    ] {
        let key = PeerKey::wpa_pwd(ssid, pass);
        assert_eq!(peers::tshark_decrypted(&cap(rel), std::slice::from_ref(&key)).len(), 0, "{rel}");
        assert_eq!(peers::airdecap_decrypted(&cap(rel), &key).len(), 0, "{rel}");
    }
}

/// wsec's `to_ethernet` on the MPDUs airdecap-ng writes with `-l` gives the Ethernet
/// frames it writes without `-l`, frame for frame.
#[test]
fn to_ethernet_matches_airdecap() {
    let mut total = 0;
    for (rel, key, bssid) in [
        ("aircrack/wep_64_ptw.cap", PeerKey::wep("1f1f1f1f1f"), None),
        ("aircrack/wpa2-psk-linksys.cap", PeerKey::wpa_pwd("linksys", "dictionary"), None),
        ("aircrack/wpa-psk-linksys.cap", PeerKey::wpa_pwd("linksys", "dictionary"), None),
        ("aircrack/capture_wds-01.cap", PeerKey::wpa_pwd("test1", "12345678"), Some("00:11:22:00:00:00")),
        ("aircrack/wpa.cap", PeerKey::wpa_pwd("test", "biscotte"), None),
    ] {
        let c = cap(rel);
        let l = peers::try_airdecap(&c, &key, bssid, true).unwrap();
        let e = peers::try_airdecap(&c, &key, bssid, false).unwrap();
        assert_eq!(l.records.len(), e.records.len(), "{rel}");
        for ((n1, mpdu), (n2, eth)) in l.records.iter().zip(&e.records) {
            assert_eq!(n1, n2);
            assert_eq!(common::hx(&to_ethernet(mpdu).unwrap()), common::hx(eth), "{rel} frame {n1:?}");
        }
        total += l.records.len();
    }
    assert_eq!(total, 30630 + 25 + 53 + 46 + 2);
}

#[test]
fn tshark_hex_parser() {
    let text = "    1\n\n0000  d4 00 00 00 00 13 ce 55 98 ef                     .......U..\n\n    \
                2\n\nFrame (36 bytes):\n0000  08 42 d4 00 00 13 ce 55 98 ef 00 0b 86 c2 a4 85   .B.....U........\n\
                0010  00 0f 66 e3 e4 01 80 21 a0 02 00 20 00 00 00 00   ..f....!... ....\n\
                0020  8b 99 d1 40                                       ...@\n\
                Decrypted CCMP data (18 bytes):\n0000  aa aa 03 00 00 00 08 00 45 00 00 21 6a 12 00 00   ........E..!j...\n\
                0010  01 01                                             ..\n\
                Decrypted AES keydata (2 bytes):\n0000  30 14                                             0.\n\n\
                12345\n\n0000  aa aa 03 00 00 00 08 06                           ........\n";
    let f = peers::parse_tshark_hex(text).unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].frame_number, Some(2));
    assert_eq!(common::hx(&f[0].payload), "aaaa030000000800450000216a1200000101");
    // A tab shorter than announced, or offsets out of order, are errors.
    assert!(peers::parse_tshark_hex("    1\n\nDecrypted WEP data (3 bytes):\n0000  01 02   ..\n").is_err());
    assert!(peers::parse_tshark_hex("    1\n\n0010  01 02   ..\n").is_err());
    assert!(peers::parse_tshark_hex("tshark: something else\n").is_err());
}

#[test]
fn uat_records() {
    assert_eq!(peers::tshark_uat_record(&PeerKey::wpa_pwd("my:net", "p%a\"ss")).unwrap(), r#""wpa-pwd","p%25a%22ss:my%3anet""#);
    assert_eq!(peers::tshark_uat_record(&PeerKey::wep("1F:1f:1f:1f:1f")).unwrap(), r#""wep","1f1f1f1f1f""#);
    assert!(peers::tshark_uat_record(&PeerKey::Tk("xyz\"".into())).is_err());
    let c = cap("aircrack/wpa2-psk-linksys.cap");
    assert!(peers::try_airdecap(&c, &PeerKey::Tk("00".into()), None, true).is_err());
}

/// A capture cut short in its last record: tshark exits with an error after its whole
/// packets; the harness still returns what it printed (nothing to decrypt here), and
/// airdecap-ng gets the whole packets.
#[test]
fn cut_short_capture() {
    let c = cap("aircrack/pmkid-not-recognized.cap");
    let key = PeerKey::wpa_pwd("x", "12345678");
    assert_eq!(peers::try_tshark_decrypted(&c, std::slice::from_ref(&key)).unwrap(), vec![]);
    let run = peers::try_airdecap(&c, &key, None, true).unwrap();
    assert_eq!(run.stats["Total number of packets read"], 20056);
}
