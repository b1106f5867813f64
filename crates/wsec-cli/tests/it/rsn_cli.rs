//! End-to-end tests of `wsec passphrase` (wpa_passphrase-compatible) and `wsec ptk` on the
//! vectors of `../shared/vectors.md` 6.1, 6.3 and 6.4.
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs wsec; returns (exit code, stdout, stderr), stdout untrimmed (the format is exact).
fn wsec_in(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wsec"))
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run wsec");
    if let Some(data) = stdin {
        let mut si = child.stdin.take().expect("stdin");
        si.write_all(data).expect("write stdin");
    }
    let o = child.wait_with_output().expect("wait wsec");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).to_string(), String::from_utf8_lossy(&o.stderr).trim().to_string())
}

fn wsec(args: &[&str]) -> (i32, String, String) {
    wsec_in(args, None)
}

fn network(ssid: &str, pass: &str, psk: &str) -> String {
    format!("network={{\n\tssid=\"{ssid}\"\n\t#psk=\"{pass}\"\n\tpsk={psk}\n}}\n")
}

#[test]
fn passphrase_vectors() {
    for (ssid, pass, psk) in [
        ("IEEE", "password", "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e"),
        ("ThisIsASSID", "ThisIsAPassword", "0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af"),
        (
            "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "becb93866bb8c3832cb777c2f559807c8c59afcb6eae734885001300a981cc62",
        ),
        ("Harkonen", "12345678", "ee51883793a6f68e9615fe73c80a3aa6f2dd0ea537bce627b929183cc6e57925"),
    ] {
        let (code, out, err) = wsec(&["passphrase", ssid, pass]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, network(ssid, pass, psk));
    }
}

#[test]
fn passphrase_from_stdin() {
    let want = network("IEEE", "password", "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e");
    for input in [&b"password\n"[..], b"password", b"password\r\n", b"password\nsecond line\n"] {
        let (code, out, err) = wsec_in(&["passphrase", "IEEE"], Some(input));
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, format!("# reading passphrase from stdin\n{want}"), "{input:?}");
    }
    // Spaces inside are part of the passphrase.
    let (code, out, _) = wsec_in(&["passphrase", "IEEE"], Some(b"pass word  \n"));
    assert_eq!(code, 0);
    assert!(out.contains("\t#psk=\"pass word  \"\n"), "{out}");
    // Nothing to read.
    let (code, out, err) = wsec_in(&["passphrase", "IEEE"], Some(b""));
    assert_eq!(code, 1);
    assert_eq!(out, "# reading passphrase from stdin\n");
    assert!(err.contains("Failed to read passphrase"), "{err}");
    // Too short from stdin.
    let (code, out, err) = wsec_in(&["passphrase", "IEEE"], Some(b"1234567\n"));
    assert_eq!(code, 2);
    assert!(!out.contains("network"));
    assert!(err.contains("Passphrase must be 8..63 characters"), "{err}");
}

#[test]
fn passphrase_refused() {
    let long = "x".repeat(64);
    for pass in ["1234567", long.as_str(), ""] {
        let (code, out, err) = wsec(&["passphrase", "IEEE", pass]);
        assert_eq!(code, 2, "{pass}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains("Passphrase must be 8..63 characters"), "{err}");
    }
    let (code, out, _) = wsec(&["passphrase", "IEEE", &"x".repeat(63)]);
    assert_eq!(code, 0);
    assert!(out.starts_with("network={\n"));
    for pass in ["passwörd!", "pass\tword"] {
        let (code, _, err) = wsec(&["passphrase", "IEEE", pass]);
        assert_eq!(code, 2);
        assert!(err.contains("Invalid passphrase character"), "{err}");
    }
    let (code, _, err) = wsec(&["passphrase", &"s".repeat(33), "password"]);
    assert_eq!(code, 2);
    assert!(err.contains("SSID"), "{err}");
}

const PMK_63: &str = "ee51883793a6f68e9615fe73c80a3aa6f2dd0ea537bce627b929183cc6e57925";
const ANONCE_63: &str = "225854b0444de3af06d1492b852984f04cf6274c0e3218b8681756864db7a055";
const SNONCE_63: &str = "59168bc3a5df18d71efb6423f340088dab9e1ba2bbc58659e07b3764b0de8570";

#[test]
fn ptk_prf_sha1_6_3() {
    let want = "KCK ea0e404633c802450302868ccaa749de\n\
                KEK 5cba5abcb267e2de1d5e21e57accd507\n\
                TK 9b31e9ff220e132ae4f6ed9ef1acc885\n";
    for (aa, spa) in [("00:14:6c:7e:40:80", "00:13:46:fe:32:0c"), ("00146c7e4080", "001346fe320c")] {
        let (code, out, err) = wsec(&["ptk", "--pmk", PMK_63, "--aa", aa, "--spa", spa, "--anonce", ANONCE_63, "--snonce", SNONCE_63]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, want);
    }
    // Roles swapped: same PTK (min/max ordering).
    let (code, out, _) = wsec(&[
        "ptk",
        "--pmk",
        PMK_63,
        "--aa",
        "001346fe320c",
        "--spa",
        "00146c7e4080",
        "--anonce",
        SNONCE_63,
        "--snonce",
        ANONCE_63,
        "--akm",
        "psk",
        "--cipher",
        "ccmp",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, want);
    // TKIP: 32-octet TK, and a KDK appended from the same PRF output.
    let (code, out, _) = wsec(&[
        "ptk",
        "--pmk",
        PMK_63,
        "--aa",
        "00146c7e4080",
        "--spa",
        "001346fe320c",
        "--anonce",
        ANONCE_63,
        "--snonce",
        SNONCE_63,
        "--cipher",
        "tkip",
        "--kdk-len",
        "16",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "KCK ea0e404633c802450302868ccaa749de\n\
         KEK 5cba5abcb267e2de1d5e21e57accd507\n\
         TK 9b31e9ff220e132ae4f6ed9ef1acc88545825fc32ee55961395ae43734d6c107\n\
         KDK 98ef5afe42c07426471868a577d4d17e\n"
    );
}

#[test]
fn ptk_sae_kdk_6_4() {
    let (code, out, err) = wsec(&[
        "ptk",
        "--akm",
        "sae",
        "--pmk",
        "def43e5567e01ca6649265f19a290eeff8bd888f6c1d9cc9d10f04bd378f3cad",
        "--aa",
        "c0:ff:d4:a8:db:c1",
        "--spa",
        "00:90:4c:01:c1:07",
        "--anonce",
        "be7a1ca284347b5bd67dbd2dfdb4d99f1afae0b88ba18e008718417e4b27ef5f",
        "--snonce",
        "404b012ffb43ed0fb43ea1f287c91f2506d21b4a92d74b5ea50c943350ce8671",
        "--kdk-len",
        "32",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "KCK cd7b9e7555362df0b63568484a8112f5\n\
         KEK 99cad3588da0f1e63fd190191039bb4b\n\
         TK 9e2e9377e7532e737a1bc250fe194a03\n\
         KDK 6c7fb97ceb55b01acff00f070942bdf5291feb4bee38e0365b25a250bb2ac9ff\n"
    );
}

#[test]
fn ptk_usage_errors() {
    let base = |aa: &'static str, pmk: &'static str, extra: &[&'static str]| {
        let mut v = vec!["ptk", "--pmk", pmk, "--aa", aa, "--spa", "001346fe320c"];
        v.extend(["--anonce", ANONCE_63, "--snonce", SNONCE_63]);
        v.extend_from_slice(extra);
        wsec(&v)
    };
    for aa in ["00:14:6c:7e:40", "00146c7e40800", "zz146c7e4080", "00:146c:7e:40:80"] {
        let (code, _, err) = base(aa, PMK_63, &[]);
        assert_eq!(code, 2, "{aa}: {err}");
    }
    let (code, _, err) = base("00146c7e4080", "00112233", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("32 octets"), "{err}");
    let (code, _, _) = base("00146c7e4080", PMK_63, &["--cipher", "bip-cmac"]);
    assert_eq!(code, 2);
    let (code, _, _) = base("00146c7e4080", PMK_63, &["--akm", "nonsense"]);
    assert_eq!(code, 2);
    let (code, _, _) = base("00146c7e4080", PMK_63, &["--kdk-len", "65"]);
    assert_eq!(code, 2);
    let (code, _, _) = base("00146c7e4080", PMK_63, &["--akm", "ft-psk"]);
    assert_eq!(code, 2);
}
