//! Neighbor reports and BSS transition management through Debian's real `hostapd_cli` and
//! `wpa_cli`, `wsec ap` (`bss_transition=1`, `rrm_neighbor_report=1`) and `wsec sta` over
//! the embedded medium with management frame protection required: the neighbor table
//! (`show_neighbor` with the AP's own report, `set_neighbor`, `remove_neighbor`), the
//! station's `neighbor_rep_request` answered (wpa_supplicant's RRM-NEIGHBOR-REP-RECEIVED
//! lines), `bss_tm_req` answered 7 for a candidate the station never heard and 0 with the
//! target for its own AP (hostapd's BSS-TM-RESP lines), `wnm_bss_query` answered.
//!
//! Needs root (network namespaces, TAP devices), like `ctrl_cli`.
use super::ctrl_cli::run;
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wsec_cli::lab::{Lab, Mode};

const SSID: &str = "wsec-wnm";
const PASS: &str = "correct horse battery";
const STA1: &str = "02:00:00:00:00:11";
const HOSTAPD_CLI: &str = "/usr/sbin/hostapd_cli";
const WPA_CLI: &str = "/usr/sbin/wpa_cli";

/// A raw ATTACHed monitor collecting every event.
struct Monitor {
    events: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Monitor {
    fn attach(server: &Path, at: &Path) -> Monitor {
        let _ = std::fs::remove_file(at);
        let s = UnixDatagram::bind(at).unwrap();
        s.connect(server).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        s.send(b"ATTACH").unwrap();
        let mut b = [0u8; 4096];
        let n = s.recv(&mut b).expect("ATTACH reply");
        assert_eq!(&b[..n], b"OK\n", "ATTACH");
        let events = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (e, st) = (events.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut b = [0u8; 4096];
            while !st.load(std::sync::atomic::Ordering::SeqCst) {
                if let Ok(n) = s.recv(&mut b) {
                    e.lock().unwrap().push(String::from_utf8_lossy(&b[..n]).to_string());
                }
            }
        });
        Monitor { events, stop }
    }

    /// Waits for an event equal to `line` (after the `<3>` level); all events if none.
    fn wait(&self, line: &str, timeout: Duration) -> Result<(), String> {
        let t0 = Instant::now();
        loop {
            let ev = self.events.lock().unwrap().clone();
            if ev.iter().any(|e| e.strip_prefix("<3>") == Some(line)) {
                return Ok(());
            }
            if t0.elapsed() > timeout {
                return Err(ev.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn hostapd_cli_and_wpa_cli_neighbor_reports_and_bss_transition() {
    for b in [HOSTAPD_CLI, WPA_CLI] {
        assert!(Path::new(b).exists(), "{b} is missing: scripts/setup installs the hostapd and wpasupplicant packages");
    }
    let tag = format!("cw{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, SSID).unwrap_or_else(|e| panic!("{e}"));
    let (hd, wd) = (lab.dir.join("hostapd"), lab.dir.join("wpa_supplicant"));
    lab.start_air(0.0, None).unwrap();
    let mut mode = Mode::named("wpa2-mfp", SSID, PASS).unwrap();
    mode.sta_global += &format!("ctrl_interface=DIR={}\n", wd.display());
    let ap_extra = format!("ctrl_interface={}\nbss_transition=1\nrrm_neighbor_report=1\n", hd.display());
    lab.write_confs(&mode, &ap_extra).unwrap();
    lab.start_ap().unwrap();
    lab.wait_log("ap", "ctrl_interface", Duration::from_secs(5)).unwrap();
    let hcli = |args: &[&str]| run(HOSTAPD_CLI, &hd, "wap0", args);
    let ap_mon = Monitor::attach(&hd.join("wap0"), &lab.dir.join("mon-ap"));

    // The AP's own report is in the table from the start (hostapd_neighbor_set_own_report).
    let own = "02:00:00:00:00:01 ssid=777365632d776e6d nr=0200000000018f0000005106060603000000\n";
    assert_eq!(hcli(&["show_neighbor"]), own);
    let nr = "0200000000990300000051010703019f";
    assert_eq!(hcli(&["set_neighbor", "02:00:00:00:00:99", &format!("ssid=\"{SSID}\""), &format!("nr={nr}")]), "OK\n");
    assert_eq!(hcli(&["set_neighbor", "02:00:00:00:00:99", "ssid=\"x\"", "nr=02"]), "FAIL\n");
    assert_eq!(hcli(&["show_neighbor"]), format!("02:00:00:00:00:99 ssid=777365632d776e6d nr={nr}\n{own}"));

    lab.start_sta(1).unwrap();
    lab.wait_log("sta1", "data open", Duration::from_secs(20)).unwrap();
    let wcli = |args: &[&str]| run(WPA_CLI, &wd, "wsta0", args);
    std::thread::sleep(Duration::from_millis(300));
    let sta_mon = Monitor::attach(&wd.join("wsta0"), &lab.dir.join("mon-sta"));

    // NEIGHBOR_REP_REQUEST, answered under the PTK with both entries.
    assert_eq!(wcli(&["neighbor_rep_request"]), "OK\n");
    let t = Duration::from_secs(5);
    sta_mon.wait("RRM-NEIGHBOR-REP-RECEIVED bssid=02:00:00:00:00:99 info=0x3 op_class=81 chan=1 phy_type=7", t).unwrap();
    sta_mon.wait("RRM-NEIGHBOR-REP-RECEIVED bssid=02:00:00:00:00:01 info=0x8f op_class=81 chan=6 phy_type=6", t).unwrap();
    assert_eq!(wcli(&["neighbor_rep_request", "ssid=\"nobody\""]), "OK\n");
    sta_mon.wait("RRM-NEIGHBOR-REP-REQUEST-FAILED ", t).unwrap();

    // BSS_TM_REQ naming a BSS the station never heard: 7 (no suitable candidates).
    assert_eq!(hcli(&["bss_tm_req", STA1, "pref=1", "neighbor=02:00:00:00:00:99,0x3,81,1,7,0301ff"]), "OK\n");
    ap_mon.wait(&format!("BSS-TM-RESP {STA1} status_code=7 bss_termination_delay=0"), t).unwrap();
    sta_mon.wait("WNM: Preferred List Available", t).unwrap();
    // Naming its own AP: accepted with the target, and the station stays.
    assert_eq!(hcli(&["bss_tm_req", STA1, "pref=1", "dialog_token=5", "neighbor=02:00:00:00:00:01,0x8f,81,6,6,0301ff"]), "OK\n");
    ap_mon.wait(&format!("BSS-TM-RESP {STA1} status_code=0 bss_termination_delay=0 target_bssid=02:00:00:00:00:01"), t).unwrap();
    // WNM_BSS_QUERY: hostapd's answer has no candidates, the station says 1.
    assert_eq!(wcli(&["wnm_bss_query", "0"]), "OK\n");
    ap_mon.wait(&format!("BSS-TM-RESP {STA1} status_code=1 bss_termination_delay=0"), t).unwrap();
    sta_mon.wait("WNM: BSS Transition Management Request did not include candidates", t).unwrap();
    assert_eq!(hcli(&["bss_tm_req", "02:00:00:00:00:77", "pref=1"]), "FAIL\n");
    assert!(!lab.log("sta1").contains("deauthenticated"), "{}", lab.log("sta1"));

    assert_eq!(hcli(&["remove_neighbor", "02:00:00:00:00:99"]), "OK\n");
    assert_eq!(hcli(&["remove_neighbor", "02:00:00:00:00:99"]), "FAIL\n");
    assert_eq!(hcli(&["show_neighbor"]), own);
    drop((ap_mon, sta_mon));
    lab.stop_all();
}
