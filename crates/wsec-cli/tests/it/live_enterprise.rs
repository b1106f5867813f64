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

/// The MSKs of the server's Access-Accepts (-X prints MS-MPPE-Recv-Key and -Send-Key).
fn msks(log: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut recv: Option<String> = None;
    for l in log.lines() {
        let v = |l: &str| l.split("= 0x").nth(1).map(|h| h.trim().to_string());
        if l.contains("MS-MPPE-Recv-Key = 0x") {
            recv = v(l);
        } else if l.contains("MS-MPPE-Send-Key = 0x") {
            if let (Some(r), Some(s)) = (recv.take(), v(l)) {
                out.push(format!("{r}{s}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn wpa2_enterprise_eap_tls_with_freeradius() {
    let fr = FreeRadius::start(Opts::default());
    let pki = freeradius::pki();
    let tag = format!("le{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, SSID).unwrap_or_else(|e| panic!("{e}"));
    let pcap = lab.dir.join("air.pcap");
    let p = |f: &str| pki.path(f).display().to_string();
    let mode = Mode {
        name: "wpa2-enterprise",
        ap: format!(
            "wpa=2\nwpa_key_mgmt=WPA-EAP\nrsn_pairwise=CCMP\nieee8021x=1\nauth_server_addr=127.0.0.1\nauth_server_port={}\nauth_server_shared_secret={}\nnas_identifier=wsec-ap\nown_ip_addr=127.0.0.1\ncrypto_offload=host\n",
            fr.auth.port(),
            freeradius::SECRET
        ),
        sta: format!(
            "    key_mgmt=WPA-EAP\n    eap=TLS\n    identity=\"{}\"\n    ca_cert=\"{}\"\n    client_cert=\"{}\"\n    private_key=\"{}\"\n    domain_suffix_match=\"wsec.test\"\n",
            freeradius::USER,
            p("ca.pem"),
            p("client.pem"),
            p("client.key")
        ),
        sta_global: "crypto_offload=host\n".into(),
        tshark_key: None,
    };
    lab.start_air(0.0, Some(&pcap)).unwrap();
    lab.write_confs(&mode, "").unwrap();
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
    let n = 3_000_000;
    let mbps = lab.tcp("s1", "w", WIRED_IP, n, 5400).unwrap();
    eprintln!("enterprise s1 -> wired: {n} bytes, {mbps:.1} Mb/s, checksum equal");
    let mbps = lab.tcp("s2", "s1", STA_IP[0], n / 4, 5401).unwrap();
    eprintln!("enterprise s2 -> s1: {} bytes, {mbps:.1} Mb/s, checksum equal", n / 4);
    lab.stop_all();
    let ap = lab.log("ap");
    assert!(ap.contains("RADIUS client on"), "{ap}");
    assert_eq!(ap.matches("eap success (method TLS, identity \"alice@wsec.test\")").count(), 2, "{ap}");
    for s in ["sta1", "sta2"] {
        assert!(lab.log(s).contains("eap success (method TLS"), "{}", lab.log(s));
    }
    let log = fr.log();
    assert!(log.matches("Sent Access-Accept").count() >= 2, "{log}");
    // The air decrypts with the MSKs alone (the PMK is the MSK's first 32 octets).
    let keys = msks(&log);
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
