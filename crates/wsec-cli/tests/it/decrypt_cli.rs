//! `wsec decrypt` end to end on real captures: the output capture is readable, keeps the
//! link type, holds the plaintext frames with Protected cleared; --json, --ethernet,
//! --drop-undecrypted, key files, and clear errors for bad input.
use std::path::PathBuf;
use std::process::Command;
use wsec::capture::{radio, CaptureReader};
use wsec::wire::Header;

/// A file of the repository's test data (`testdata/`).
fn testdata(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(p)
}

fn wsec(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec")).args(args).output().expect("run wsec");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wsec-decrypt-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// (protected frames, clear data frames with a body) in a capture.
fn census(p: &std::path::Path) -> (usize, usize, u32) {
    let (mut prot, mut clear, mut lt) = (0, 0, 0);
    for pkt in CaptureReader::open(p).unwrap() {
        let pkt = pkt.unwrap();
        lt = pkt.linktype;
        let Ok(m) = radio::mpdu(pkt.linktype, &pkt.data) else { continue };
        let Ok(h) = Header::new_checked(m.bytes) else { continue };
        let f = h.frame_control();
        if f.protected() {
            prot += 1;
        } else if f.has_data_body() {
            clear += 1;
        }
    }
    (prot, clear, lt)
}

#[test]
fn wep_capture() {
    let out = tmp("wep.pcap");
    let cap = testdata("captures/aircrack/wep_64_ptw.cap");
    let (code, stdout, err) =
        wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--wep-key", "1f:1f:1f:1f:1f", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["decrypted"], 30630);
    assert_eq!(j["decrypted_per_cipher"]["wep-40"], 30630);
    assert_eq!(j["not_decrypted"], 0);
    let (before_prot, before_clear, lt_in) = census(&cap);
    let (prot, clear, lt) = census(&out);
    assert_eq!(lt, lt_in);
    assert_eq!(prot, 0);
    assert_eq!(clear, before_clear + before_prot);
}

#[test]
fn wpa2_capture_with_keys_file_and_options() {
    let keys = tmp("keys");
    std::fs::write(&keys, "# linksys\n\"wpa-pwd\",\"dictionary:linksys\"\n").unwrap();
    let cap = testdata("captures/aircrack/wpa2-psk-linksys.cap");
    let out = tmp("wpa2.pcap");
    let (code, stdout, err) = wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--keys", keys.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("Number of decrypted frames"), "{stdout}");
    // --drop-undecrypted leaves out the two frames sent before the first handshake.
    let out2 = tmp("wpa2-drop.pcap");
    let (code, _, _) = wsec(&[
        "decrypt",
        cap.to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
        "--ssid",
        "linksys",
        "--passphrase",
        "dictionary",
        "--drop-undecrypted",
    ]);
    assert_eq!(code, 0);
    assert_eq!(census(&out2).0, 0);
    assert_eq!(census(&out).0, 2);
    // --ethernet writes Ethernet II frames (link type 1).
    let eth = tmp("wpa2-eth.pcap");
    let (code, _, _) = wsec(&[
        "decrypt",
        cap.to_str().unwrap(),
        "-o",
        eth.to_str().unwrap(),
        "--ssid",
        "linksys",
        "--passphrase",
        "dictionary",
        "--ethernet",
    ]);
    assert_eq!(code, 0);
    let pkts: Vec<_> = CaptureReader::open(&eth).unwrap().map(|p| p.unwrap()).collect();
    assert!(pkts.iter().all(|p| p.linktype == 1 && p.data.len() >= 14));
    assert!(pkts.len() >= 30);
}

#[test]
fn bad_input_gives_clear_errors() {
    let out = tmp("x.pcap");
    let garbage = tmp("garbage.pcap");
    std::fs::write(&garbage, b"this is not a capture at all").unwrap();
    let (code, _, err) = wsec(&["decrypt", garbage.to_str().unwrap(), "-o", out.to_str().unwrap(), "--wep-key", "1f1f1f1f1f"]);
    assert_eq!(code, 1);
    assert!(err.contains("not a pcap or pcapng file"), "{err}");
    // The input is checked first: a capture that is not one is named before missing keys.
    let (code, _, err) = wsec(&["decrypt", garbage.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("not a pcap or pcapng file"), "{err}");
    let wpa = testdata("captures/aircrack/wpa.cap");
    let (code, _, err) = wsec(&["decrypt", wpa.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no keys"), "{err}");
    let (code, _, err) = wsec(&["decrypt", wpa.to_str().unwrap(), "-o", out.to_str().unwrap(), "--ssid", "x", "--passphrase", "short"]);
    assert_eq!(code, 2);
    assert!(err.contains("8..63"), "{err}");
    // A truncated capture: every whole packet is processed, the damage is reported in the
    // summary and on stderr, exit 3 (docs/cli.md).
    let cap = std::fs::read(testdata("captures/aircrack/wpa.cap")).unwrap();
    let cut = tmp("cut.cap");
    std::fs::write(&cut, &cap[..cap.len() - 50]).unwrap();
    let (code, stdout, err) =
        wsec(&["decrypt", cut.to_str().unwrap(), "-o", out.to_str().unwrap(), "--ssid", "test", "--passphrase", "biscotte", "--json"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("damaged capture"), "{err}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["capture_errors"].as_array().unwrap().len(), 1);
    assert!(j["frames_read"].as_u64().unwrap() >= 10);
}

#[test]
fn sae_capture_explains_why_not() {
    let out = tmp("sae.pcap");
    let cap = testdata("captures/vanhoef/wpa3.pcapng");
    let (code, stdout, err) =
        wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--ssid", "WPA3-Network", "--passphrase", "abcdefgh"]);
    // Nothing decrypted although keys were given: exit 4, the summary says why.
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("none of the") && err.lines().count() == 1, "{err}");
    assert!(stdout.contains("a passive observer needs the PMK (--pmk)"), "{stdout}");
}

/// `--msk` (and its file form) opens an 802.1X capture that `wsec synth` makes
/// with the MSK's first half as the PMK; a short MSK is a usage error naming the option;
/// `--live` needs an interface that exists and excludes a capture file.
#[test]
fn msk_option_and_live_usage() {
    let cap = tmp("eap.pcap");
    let msk: String = (0..64u8).map(|i| format!("{:02x}", i.wrapping_mul(7).wrapping_add(1))).collect();
    let (code, _, err) =
        wsec(&["synth", "-o", cap.to_str().unwrap(), "--akm", "wpa-eap", "--pmk", &msk[..64], "--frames", "30", "--payload", "100"]);
    assert_eq!(code, 0, "{err}");
    let out = tmp("eap-out.pcap");
    let (code, stdout, err) = wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--msk", &msk, "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((j["decrypted"].as_u64(), j["protected"].as_u64()), (Some(25), Some(25)));
    assert_eq!(j["keys_learned"][0]["akm"], "wpa-eap");
    assert_eq!(j["keys_learned"][0]["source"], "4-way handshake");
    let f = tmp("msk.hex");
    std::fs::write(&f, format!("{msk}\n")).unwrap();
    let (code, _, err) = wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--msk-file", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--msk", &msk[..100]]);
    assert_eq!(code, 2);
    assert!(err.contains("--msk: malformed: an MSK is 64 to 128 octets"), "{err}");
    let (code, _, err) = wsec(&["decrypt", "--live", "wsec-no-such-if0", "-o", out.to_str().unwrap(), "--msk", &msk]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("wsec-no-such-if0"), "{err}");
    let (code, _, err) = wsec(&["decrypt", cap.to_str().unwrap(), "--live", "wlan9", "-o", out.to_str().unwrap(), "--msk", &msk]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = wsec(&["decrypt", "-o", out.to_str().unwrap(), "--msk", &msk]);
    assert_eq!(code, 2, "{err}");
}
