//! WPA2-Enterprise live: `wsec air`, `wsec ap` (ieee8021x=1, WPA-EAP) relaying EAP to a
//! real FreeRADIUS (tests/it/freeradius.rs) over loopback RADIUS, two `wsec sta` with
//! EAP-TLS (wpa_supplicant's network keys: eap, identity, ca_cert, client_cert,
//! private_key, domain_suffix_match) and a wired host in namespaces: ping and SHA-256-checked
//! TCP, then the recorded air decrypted by `wsec decrypt` given the two MSKs the server
//! printed. Needs root, as live_netns.
use super::freeradius::{self, FreeRadius, Opts};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use wsec_cli::lab::{Lab, Mode, STA_IP, WIRED_IP};

const SSID: &str = "wsec-enterprise";

#[test]
fn wpa2_enterprise_eap_tls_with_freeradius() {
    let fr = FreeRadius::start(Opts::default());
    // "en": every lab of the test binary has a tag of its own (live_fpga has "le").
    let tag = format!("en{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, SSID).unwrap_or_else(|e| panic!("{e}"));
    let pcap = lab.dir.join("air.pcap");
    let mode = Mode {
        name: "wpa2-enterprise",
        ap: format!(
            "wpa=2\nwpa_key_mgmt=WPA-EAP\nrsn_pairwise=CCMP\nieee8021x=1\nauth_server_addr=127.0.0.1\nauth_server_port={}\nauth_server_shared_secret={s}\nacct_server_addr=127.0.0.1\nacct_server_port={}\nacct_server_shared_secret={s}\nradius_acct_interim_interval=1\nnas_identifier=wsec-ap\nown_ip_addr=127.0.0.1\ncrypto_offload=host\n",
            fr.auth.port(),
            fr.acct.port(),
            s = freeradius::SECRET
        ),
        sta: freeradius::eap_tls_network(),
        sta_global: "crypto_offload=host\n".into(),
        tshark_key: None,
    };
    lab.start_air(0.0, Some(&pcap)).unwrap();
    // Control interfaces: the AP's, and station 1's (the two stations share a global
    // configuration, and a control socket is named by the interface).
    let (ap_ctrl, sta_ctrl) = (lab.dir.join("ctrl-ap"), lab.dir.join("ctrl-sta1"));
    lab.write_confs(&mode, &format!("ctrl_interface={}\n", ap_ctrl.display())).unwrap();
    let sta1_conf = lab.dir.join("sta1.conf");
    let text = format!("ctrl_interface={}\n{}", sta_ctrl.display(), std::fs::read_to_string(&sta1_conf).unwrap());
    std::fs::remove_file(&sta1_conf).unwrap();
    wsec_cli::lab::write_private(&sta1_conf, &text).unwrap();
    lab.start_ap().unwrap();
    lab.start_sta(1).unwrap();
    lab.start_sta(2).unwrap();
    for s in ["sta1", "sta2"] {
        lab.wait_log(s, "data open", Duration::from_secs(30)).unwrap_or_else(|e| {
            let l = fr.log();
            panic!(
                "{e}\nap:\n{}\nserver (last 40 lines):\n{}",
                lab.log("ap"),
                l.lines().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        });
    }
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(30)).unwrap();
    lab.wait_ping("s2", STA_IP[0], Duration::from_secs(30)).unwrap();
    // wpa_cli STATUS shows the EAP side as wpa_supplicant does; hostapd_cli MIB the
    // RADIUS client's (RFC 4668 names).
    let st = super::ctrl_cli::run("wpa_cli", &sta_ctrl, "wsta0", &["status"]);
    for want in [
        "key_mgmt=WPA2/IEEE 802.1X/EAP",
        "suppPortStatus=Authorized",
        "EAP state=SUCCESS",
        "selectedMethod=13 (EAP-TLS)",
        "eap_tls_version=TLSv1",
    ] {
        assert!(st.contains(want), "wpa_cli status lacks {want}:\n{st}");
    }
    let mib = super::ctrl_cli::run("hostapd_cli", &ap_ctrl, "wap0", &["mib"]);
    assert!(mib.contains(&format!("radiusAuthServerAddress=127.0.0.1\nradiusAuthClientServerPortNumber={}", fr.auth.port())), "{mib}");
    let requests: u64 =
        mib.lines().find_map(|l| l.strip_prefix("radiusAuthClientAccessRequests=")).and_then(|v| v.parse().ok()).unwrap_or(0);
    assert!(requests >= 10, "two EAP-TLS runs take several round trips: {mib}");
    // hostapd_cli STA: the station's 802.1X session as ieee802_1x_get_mib_sta prints it.
    let sta = super::ctrl_cli::run("hostapd_cli", &ap_ctrl, "wap0", &["sta", "02:00:00:00:00:11"]);
    for want in [
        "dot1xAuthPaeState=5",
        "dot1xAuthAuthControlledPortStatus=1",
        "dot1xAuthSessionAuthenticMethod=1",
        "dot1xAuthSessionUserName=alice@wsec.test",
        "last_eap_type_as=13 (TLS)",
    ] {
        assert!(sta.contains(want), "hostapd_cli sta lacks {want}:\n{sta}");
    }
    let sid = sta.lines().find_map(|l| l.strip_prefix("dot1xAuthSessionId=")).unwrap_or_default();
    assert!(sid.len() == 16 && sid.chars().all(|c| c.is_ascii_hexdigit()) && sid != "0000000000000000", "{sta}");
    let n = 3_000_000;
    let mbps = lab.tcp("s1", "w", WIRED_IP, n, 5400).unwrap();
    eprintln!("enterprise s1 -> wired: {n} bytes, {mbps:.1} Mb/s, checksum equal");
    let mbps = lab.tcp("s2", "s1", STA_IP[0], n / 4, 5401).unwrap();
    eprintln!("enterprise s2 -> s1: {} bytes, {mbps:.1} Mb/s, checksum equal", n / 4);
    // Station 1 leaves first: the AP's Accounting-Request Stop carries its counters (checked
    // below against its log and the station's own). At least one Interim-Update first (radius_acct_interim_interval=1; a release build
    // moves the transfers in well under a second).
    std::thread::sleep(Duration::from_millis(2500));
    lab.stop("sta1");
    std::thread::sleep(Duration::from_millis(500));
    let sta1 = lab.log("sta1");
    lab.stop_all();
    let (tx, tx_b, rx, rx_b) = sta_data_counters(&sta1);
    let stop = acct_records(&fr)
        .into_iter()
        .find(|r| {
            r.get("Acct-Status-Type").map(String::as_str) == Some("Stop")
                && r.get("Calling-Station-Id").map(String::as_str) == Some("\"02-00-00-00-00-11\"")
        })
        .unwrap_or_else(|| panic!("no Stop for station 1 in the detail file:\n{:?}", acct_records(&fr)));
    eprintln!("accounting Stop: {stop:?}");
    let n_of = |k: &str| stop.get(k).and_then(|v| v.parse::<u64>().ok()).unwrap_or_else(|| panic!("{k} in {stop:?}"));
    // The record holds exactly the counters the AP had for the station when it left (its
    // log line at the Stop)...
    let ap_log = lab.log("ap");
    let line =
        ap_log.lines().find(|l| l.contains("02:00:00:00:00:11 accounting stop:")).unwrap_or_else(|| panic!("no Stop line:\n{ap_log}"));
    let nums: Vec<u64> = line
        .split("stop:")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(
        nums,
        [n_of("Acct-Input-Octets"), n_of("Acct-Input-Packets"), n_of("Acct-Output-Octets"), n_of("Acct-Output-Packets")],
        "{line}"
    );
    // ... and those are the station's own, up to what the medium lost (the hub drops
    // datagrams under load; TCP sent them again) and, towards the station, the
    // group-addressed frames it also counts.
    let (in_b, in_p, out_b, out_p) = (nums[0], nums[1], nums[2], nums[3]);
    eprintln!("AP: in {in_b} B {in_p} frames, out {out_b} B {out_p} frames; station: tx {tx_b} B {tx} frames, rx {rx_b} B {rx} frames");
    assert!(in_b <= tx_b && in_p <= tx && in_b * 10 >= tx_b * 8 && in_p * 10 >= tx * 8, "station -> AP");
    assert!(rx_b * 10 >= out_b * 8 && rx * 10 >= out_p * 8 && out_b * 10 >= rx_b * 8 && out_p * 10 >= rx * 8, "AP -> station");
    assert_eq!(stop.get("Acct-Terminate-Cause").map(String::as_str), Some("User-Request"));
    let recs = acct_records(&fr);
    for st in ["Start", "Interim-Update"] {
        assert!(recs.iter().any(|r| r.get("Acct-Status-Type").map(String::as_str) == Some(st)), "no {st}: {recs:?}");
    }
    let ap = lab.log("ap");
    assert!(ap.contains("RADIUS client on"), "{ap}");
    assert_eq!(ap.matches("eap success (method TLS, identity \"alice@wsec.test\")").count(), 2, "{ap}");
    for s in ["sta1", "sta2"] {
        assert!(lab.log(s).contains("eap success (method TLS"), "{}", lab.log(s));
    }
    let log = fr.log();
    assert!(log.matches("Sent Access-Accept").count() >= 2, "{log}");
    // The air decrypts with the MSKs alone (the PMK is the MSK's first 32 octets).
    let mut keys = freeradius::msks(&log);
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 2, "two stations, two MSKs: {keys:?}");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wsec"));
    cmd.args(["decrypt", "--json"]);
    for k in &keys {
        cmd.args(["--msk", k]);
    }
    let o = cmd.arg("-o").arg(lab.dir.join("dec.pcap")).arg(&pcap).output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{s}{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_str(s.trim()).unwrap();
    eprintln!("wsec decrypt: {j}");
    let c = |k: &str| j.get(k).and_then(|v| v.as_u64()).unwrap_or_else(|| panic!("no {k} in {j}"));
    assert!(c("decrypted") > (n / 1500) as u64, "{j}");
    assert_eq!(c("protected"), c("decrypted"), "{j}");
}

/// The station's data counters at exit ("data rx N (B B) tx M (B B)"): (tx frames, tx
/// octets, rx frames, rx octets).
fn sta_data_counters(log: &str) -> (u64, u64, u64, u64) {
    let l = log.lines().rev().find(|l| l.starts_with("sta counters:")).unwrap_or_else(|| panic!("no counters line:\n{log}"));
    let nums: Vec<u64> = l
        .split("data rx ")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.parse().unwrap())
        .collect();
    (nums[2], nums[3], nums[0], nums[1])
}

/// The records of FreeRADIUS's accounting detail files (radacct/<client>/detail-*), each
/// attribute name to its value.
fn acct_records(fr: &FreeRadius) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut out = Vec::new();
    let dir = fr.dir.join("log").join("radacct");
    let mut files = Vec::new();
    for c in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(c.path()).into_iter().flatten().flatten() {
            files.push(f.path());
        }
    }
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for rec in text.split("\n\n") {
            let m: std::collections::BTreeMap<String, String> =
                rec.lines().filter_map(|l| l.trim().split_once(" = ")).map(|(k, v)| (k.to_string(), v.to_string())).collect();
            if !m.is_empty() {
                out.push(m);
            }
        }
    }
    out
}
