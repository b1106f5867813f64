//! The exit-code contract of docs/cli.md, subcommand by subcommand:
//! usage errors exit 2, input and verification failures exit 1, `decrypt` exits 3 on a
//! damaged capture and 4 when it decrypted nothing with the keys given; input files are
//! checked before anything else; every error is one `wsec: ` line on standard error.
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A file of the repository's test data (`testdata/`).
fn testdata(p: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(p).to_str().unwrap().to_string()
}

fn tmp(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("wsec-exit-codes-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name).to_str().unwrap().to_string()
}

/// Runs `wsec args` (standard input empty) and checks the exit code, that standard error is
/// exactly one line `wsec: ...` containing `want`, and, for exit 1 and 2, that standard
/// output is empty. Returns a description of what is wrong, if anything.
fn check(args: &[&str], code: i32, want: &str) -> Option<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec")).args(args).stdin(Stdio::null()).output().expect("run wsec");
    let err = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    let mut bad = Vec::new();
    if o.status.code() != Some(code) {
        bad.push(format!("exit {:?}, want {code}", o.status.code()));
    }
    if err.lines().count() != 1 || !err.starts_with("wsec: ") || !err.ends_with('\n') {
        bad.push("stderr is not one 'wsec: ' line".into());
    }
    if !err.contains(want) {
        bad.push(format!("stderr lacks {want:?}"));
    }
    if code <= 2 && !out.is_empty() {
        bad.push("stdout not empty".into());
    }
    (!bad.is_empty()).then(|| format!("wsec {args:?}: {}\n  stderr: {err:?}\n  stdout: {:?}", bad.join("; "), out.trim()))
}

const TK: &str = "c97c1f67ce371185514a8a19f2bdd52f";
/// IEEE 802.11-2012 M.6.4: a plaintext data MPDU and its CCMP protection.
const PLAIN: &str = "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050";
const PROT: &str =
    "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623";
const NO_FILE: &str = "/nonexistent/wsec-exit-codes";

#[test]
fn every_subcommand_keeps_the_exit_code_contract() {
    let wpa = testdata("captures/aircrack/wpa.cap");
    let out = tmp("out.pcap");
    let bad_conf = tmp("bad.conf");
    let load_conf = tmp("load-sta.conf");
    std::fs::write(
        &load_conf,
        "interface=wld\naddr=02:4c:44:00:00:00\nnetwork={\n ssid=\"x\"\n key_mgmt=WPA-PSK\n psk=\"correct horse battery\"\n}\n",
    )
    .unwrap();
    let load = |extra: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> = ["load", "-c", &load_conf, "--medium", "air:127.0.0.1:9"].iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let (l0, l1, l2, l3) =
        (load(&["--stations", "0"]), load(&["--stations", "2008"]), load(&["--retry-ms", "0"]), load(&["--concurrency", "0"]));
    let l4 = load(&["--ap-pid", "4294967295"]);
    std::fs::write(&bad_conf, "ssid=x\nthis line has no equals sign\n").unwrap();
    let nocap = format!("{NO_FILE}.cap");
    let tampered = format!("{}00", &PROT[..PROT.len() - 2]);
    let (n1, n2) = ("00".repeat(32), "11".repeat(32));
    let ptk = ["ptk", "--aa", "02:00:00:00:00:01", "--spa", "02:00:00:00:00:02", "--anonce", &n1, "--snonce", &n2];
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        // top level
        (vec![], 2, "subcommand"),
        (vec!["bogus"], 2, "bogus"),
        // protect
        (vec!["protect", "--cipher", "bogus", "--key", TK, "--pn", "1", PLAIN], 2, "bogus"),
        (vec!["protect", "--cipher", "ccmp", "--key", TK, PLAIN], 2, "--pn"),
        (vec!["protect", "--cipher", "ccmp", "--key", "0011", "--pn", "1", PLAIN], 2, "16-octet key"),
        (vec!["protect", "--cipher", "bip-cmac", "--key", TK, "--pn", "1", PLAIN], 2, "wsec: "),
        (vec!["protect", "--cipher", "ccmp", "--key-file", NO_FILE, "--pn", "1", PLAIN], 1, NO_FILE),
        // unprotect
        (vec!["unprotect", "--cipher", "ccmp", "--key", TK, "zz"], 2, "not valid hex"),
        (vec!["unprotect", "--cipher", "ccmp", "--key", TK, &tampered], 1, "MIC failure"),
        (vec!["unprotect", "--cipher", "ccmp", "--key-file", NO_FILE, PROT], 1, NO_FILE),
        // passphrase
        (vec!["passphrase"], 2, "SSID"),
        (vec!["passphrase", "IEEE", "short"], 2, "8..63"),
        (vec!["passphrase", "IEEE", "pass\tword"], 2, "Invalid passphrase character"),
        // ptk
        (vec!["ptk", "--pmk", "00"], 2, "--aa"),
        ([&ptk[..], &["--pmk", "0011"]].concat(), 2, "--pmk must be 32 octets"),
        ([&ptk[..], &["--pmk-file", NO_FILE]].concat(), 1, NO_FILE),
        // decrypt: the missing capture is named first, before the missing keys
        (vec!["decrypt", &nocap, "-o", &out], 1, &nocap),
        (vec!["decrypt", &wpa, "-o", &out], 2, "no keys"),
        (vec!["decrypt", &wpa], 2, "--output"),
        (vec!["decrypt", &wpa, "-o", &out, "--keys", NO_FILE], 1, NO_FILE),
        (vec!["decrypt", &wpa, "-o", &out, "--ssid", "test", "--passphrase", "short"], 2, "8..63"),
        (vec!["decrypt", &wpa, "-o", &out, "--ssid", "test", "--passphrase", "not the passphrase"], 4, "none of the"),
        // synth
        (vec!["synth"], 2, "--output"),
        (vec!["synth", "-o", &out, "--akm", "bogus"], 2, "--akm bogus"),
        (vec!["synth", "-o", "/nonexistent/dir/x.pcap", "--frames", "5"], 1, "/nonexistent/dir/x.pcap"),
        // ap, sta
        (vec!["ap"], 2, "--config"),
        (vec!["ap", "-c", NO_FILE], 1, NO_FILE),
        (vec!["ap", "-c", &bad_conf], 2, "wsec: "),
        (vec!["sta"], 2, "--config"),
        (vec!["sta", "-c", NO_FILE], 1, NO_FILE),
        (vec!["sta", "-c", &bad_conf], 2, "wsec: "),
        // air
        (vec!["air", "--listen", "not an address"], 2, "--listen"),
        (vec!["air", "--loss", "2"], 2, "--loss"),
        (vec!["air", "--shm", "../x"], 2, "--shm"),
        // inject
        (vec!["inject", &wpa], 2, "--medium"),
        (vec!["inject", &wpa, "--medium", "air:127.0.0.1:9", "--select", "bogus"], 2, "bogus"),
        (vec!["inject", &nocap, "--medium", "air:127.0.0.1:9"], 1, &nocap),
        // load
        (vec!["load"], 2, "--config"),
        (vec!["load", "-c", NO_FILE, "--medium", "air:127.0.0.1:9"], 1, NO_FILE),
        (vec!["load", "-c", &bad_conf, "--medium", "air:127.0.0.1:9"], 2, "wsec: "),
        (l0.iter().map(|s| s.as_str()).collect(), 2, "--stations 0"),
        (l1.iter().map(|s| s.as_str()).collect(), 2, "2007"),
        (l2.iter().map(|s| s.as_str()).collect(), 2, "--retry-ms 0"),
        (l3.iter().map(|s| s.as_str()).collect(), 2, "--concurrency 0"),
        (l4.iter().map(|s| s.as_str()).collect(), 2, "--ap-pid"),
        (vec!["load", "-c", &load_conf, "--medium", "bogus:x"], 1, "medium bogus:x"),
        // demo: usage is checked before root
        (vec!["demo", "--mode", "bogus"], 2, "bogus"),
        (vec!["demo", "--passphrase", "short"], 2, "8..63"),
        (vec!["demo", "--runs", "0"], 2, "1..=20"),
        (vec!["demo", "--runs", "21"], 2, "1..=20"),
        (vec!["demo", "--ht", "2"], 2, "--ht"),
        (vec!["demo", "--tool", "netperf"], 2, "netperf"),
        (vec!["demo", "--medium", "radio"], 2, "radio"),
        (vec!["bench", "live", "--ht", "7"], 2, "--ht"),
        // bench
        (vec!["bench", "bogus"], 2, "bogus"),
        (vec!["bench", "ccmp", "--sizes", "0"], 2, "wsec: "),
        // model
        (vec!["model", "saturation", "--phy", "g", "--rate", "54"], 2, "--stations"),
        (vec!["model", "saturation", "--phy", "g", "--rate", "54", "--stations", "0"], 2, "--stations"),
        (vec!["model", "run", NO_FILE], 1, NO_FILE),
        (vec!["model", "sweep", NO_FILE, "--param", "topology.stations=1,2"], 1, NO_FILE),
        (vec!["model", "run", &wpa], 2, "wsec: "),
        // hw-vectors
        (vec!["hw-vectors"], 2, "--suite"),
        (vec!["hw-vectors", "--suite", "bogus"], 2, "bogus"),
        (vec!["hw-vectors", "--suite", "ccmp", "--max-len", "5000"], 2, "--max-len"),
        (vec!["hw-vectors", "--suite", "ccmp", "--from", NO_FILE], 1, NO_FILE),
    ];
    let failures: Vec<String> = cases.iter().filter_map(|(args, code, want)| check(args, *code, want)).collect();
    assert!(failures.is_empty(), "{} of {} cases break the contract:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// The right passphrase on the same capture is exit 0: exit 4 is about the keys.
#[test]
fn decrypt_with_the_right_passphrase_is_exit_0() {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec"))
        .args(["decrypt", &testdata("captures/aircrack/wpa.cap"), "-o", &tmp("ok.pcap"), "--ssid", "test", "--passphrase", "biscotte"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty());
}
