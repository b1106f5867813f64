//! Checks of a recorded air capture shared by the live tests: `wsec decrypt` with the
//! passphrase, and tshark (Wireshark's 802.11 dissector, IEEE 802.11 12.5) given only the
//! passphrase and SSID. Both fail the test on any error; neither skips.
use std::path::Path;
use std::process::Command;

/// `wsec decrypt --json` of `pcap` with the passphrase (writing `out`); its summary object.
pub fn wsec_decrypt(pcap: &Path, out: &Path, ssid: &str, pass: &str) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec"))
        .args(["decrypt", "--json", "--ssid", ssid, "--passphrase", pass, "-o"])
        .arg(out)
        .arg(pcap)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{s}{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("{e}: {s}"));
    eprintln!("wsec decrypt: {j}");
    j
}

/// A counter of `wsec_decrypt`'s summary; a missing one fails.
pub fn count(j: &serde_json::Value, k: &str) -> u64 {
    j.get(k).and_then(|v| v.as_u64()).unwrap_or_else(|| panic!("no {k} in {j}"))
}

/// How many frames of `pcap` match `filter` once tshark decrypts with `pass:ssid` (a private
/// Wireshark configuration directory under `work`, so no user preference interferes).
pub fn tshark_decrypted(pcap: &Path, work: &Path, ssid: &str, pass: &str, filter: &str) -> usize {
    let conf = work.join("wireshark");
    std::fs::create_dir_all(&conf).unwrap();
    let t = Command::new("tshark")
        .env("WIRESHARK_CONFIG_DIR", &conf)
        .args(["-n", "-r"])
        .arg(pcap)
        .args(["-o", "wlan.enable_decryption:TRUE", "-o", &format!("uat:80211_keys:\"wpa-pwd\",\"{pass}:{ssid}\"")])
        .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
        .output()
        .expect("tshark (scripts/setup installs it)");
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    String::from_utf8_lossy(&t.stdout).lines().count()
}
