//! Debian's real `hostapd_cli` and `wpa_cli` (packages `hostapd`, `wpasupplicant`;
//! `scripts/setup` installs them) drive `wsec ap` and `wsec sta` over the embedded medium
//! through `ctrl_interface`, command by command. Each reply is parsed as hostapd's and
//! wpa_supplicant's are (the field names and formats of `hostapd/ctrl_iface.c`,
//! `src/ap/ctrl_iface_ap.c`, `wpa_supplicant/ctrl_iface.c`); the events the binaries'
//! action mode (`-a`, which ATTACHes) and a raw ATTACH monitor receive during connect,
//! rekey and disconnect are checked; a DEAUTHENTICATE through hostapd_cli is seen by the
//! station, which joins again; RELOAD and SIGHUP with a new passphrase force new
//! handshakes; the socket's permissions keep out a user without the group.
//!
//! Needs root (network namespaces, TAP devices): without it the test fails saying so; a
//! missing binary fails too (never a skip).
use std::collections::BTreeMap;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wsec_cli::lab::{write_private, Lab, Mode};

const SSID: &str = "wsec-live";
const PASS: &str = "correct horse battery";
const NEW_PASS: &str = "a brand new passphrase";
const BSSID: &str = "02:00:00:00:00:01";
const STA1: &str = "02:00:00:00:00:11";
const STA2: &str = "02:00:00:00:00:12";
const HOSTAPD_CLI: &str = "/usr/sbin/hostapd_cli";
const WPA_CLI: &str = "/usr/sbin/wpa_cli";
/// The group the control sockets are given (numeric: no /etc/group entry needed).
const CTRL_GID: u32 = 4242;

/// Where the clients bind their own sockets (`-s`): beside the control directory, world
/// writable and sticky like /tmp, but private to this test. In the default /tmp a socket
/// left by a killed client of an earlier run (`wpa_ctrl_<pid>-1`, owned by root) makes a
/// later client under `nobody` that reuses the pid fail with "Address already in use"
/// (wpa_ctrl.c unlinks and retries, which the sticky /tmp refuses to another user).
fn client_dir(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let c = dir.parent().expect("a control directory has a parent").join("clients");
    if !c.exists() {
        std::fs::create_dir_all(&c).unwrap();
        std::fs::set_permissions(&c, std::fs::Permissions::from_mode(0o1777)).unwrap();
    }
    c
}

/// Runs one command line of a real client; its standard output.
pub(super) fn run(bin: &str, dir: &Path, ifname: &str, args: &[&str]) -> String {
    let out = Command::new(bin)
        .arg("-p")
        .arg(dir)
        .arg("-s")
        .arg(client_dir(dir))
        .args(["-i", ifname])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{bin} (scripts/setup installs hostapd and wpasupplicant): {e}"));
    let s = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{bin} {args:?}: {:?}\n{s}{}", out.status, String::from_utf8_lossy(&out.stderr));
    s
}

/// `key=value` lines as hostapd_cli / wpa_cli print them; every line must be one.
fn kv(s: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for l in s.lines().filter(|l| !l.is_empty()) {
        let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("not key=value: {l:?} in\n{s}"));
        assert!(!k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || "_[]".contains(c)), "bad key {k:?} in\n{s}");
        m.insert(k.to_string(), v.to_string());
    }
    m
}

fn num(m: &BTreeMap<String, String>, k: &str) -> f64 {
    m.get(k).unwrap_or_else(|| panic!("no {k} in {m:?}")).parse().unwrap_or_else(|_| panic!("{k} not a number: {m:?}"))
}

fn wait(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < timeout, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn is_mac(s: &str) -> bool {
    s.len() == 17 && s.parse::<wsec::wire::mac::MacAddr>().is_ok()
}

/// hostapd_cli's `all_sta` output: one block per station, its address on the first line.
fn sta_blocks(s: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut cur: Option<(String, String)> = None;
    for l in s.lines() {
        if is_mac(l) {
            if let Some((a, b)) = cur.take() {
                out.insert(a, kv(&b));
            }
            cur = Some((l.to_string(), String::new()));
        } else if let Some((_, b)) = cur.as_mut() {
            b.push_str(l);
            b.push('\n');
        } else {
            assert!(l.is_empty(), "all_sta output before the first address: {l:?}");
        }
    }
    if let Some((a, b)) = cur {
        out.insert(a, kv(&b));
    }
    out
}

/// A client in action mode (`-a script`): it ATTACHes and runs the script per event;
/// the script appends its arguments to `file`.
struct Action {
    child: Child,
    file: PathBuf,
}

impl Action {
    fn start(bin: &str, dir: &Path, ifname: &str, work: &Path, name: &str) -> Action {
        let file = work.join(format!("{name}.events"));
        let script = work.join(format!("{name}.sh"));
        std::fs::write(&script, format!("#!/bin/sh\necho \"$@\" >> {}\n", file.display())).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o700)).unwrap();
        let child = Command::new(bin)
            .arg("-p")
            .arg(dir)
            .arg("-s")
            .arg(client_dir(dir))
            .args(["-i", ifname, "-a"])
            .arg(&script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{bin}: {e}"));
        Action { child, file }
    }
    fn events(&self) -> String {
        std::fs::read_to_string(&self.file).unwrap_or_default()
    }
    fn count(&self, line: &str) -> usize {
        self.events().lines().filter(|l| l.trim() == line).count()
    }
}

impl Drop for Action {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw monitor: ATTACH from our own bound socket, every `<3>` event collected.
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
    fn has(&self, prefix: &str) -> bool {
        self.events.lock().unwrap().iter().any(|e| e.starts_with(prefix))
    }
    fn count(&self, prefix: &str) -> usize {
        self.events.lock().unwrap().iter().filter(|e| e.starts_with(prefix)).count()
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

fn rewrite(p: &Path, text: &str) {
    std::fs::remove_file(p).unwrap();
    write_private(p, text).unwrap();
}

fn opens(lab: &Lab, name: &str) -> usize {
    lab.log(name).matches("data open").count()
}

#[test]
fn hostapd_cli_and_wpa_cli_drive_ap_and_station() {
    for b in [HOSTAPD_CLI, WPA_CLI] {
        assert!(Path::new(b).exists(), "{b} is missing: scripts/setup installs the hostapd and wpasupplicant packages");
    }
    let tag = format!("ct{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, SSID).unwrap_or_else(|e| panic!("{e}"));
    // The control directories sit in a world-traversable parent, so the permission check
    // below tests the daemon's own 0770 directory and socket, not the lab's private one.
    let ctl = std::env::temp_dir().join(format!("wsec-ctrl-{tag}"));
    let _ = std::fs::remove_dir_all(&ctl);
    std::fs::create_dir(&ctl).unwrap();
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::set_permissions(&ctl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (hd, wd) = (ctl.join("hostapd"), ctl.join("wpa_supplicant"));
    lab.start_air(0.0, None).unwrap();
    let mut mode = Mode::named("wpa2-host", SSID, PASS).unwrap();
    mode.sta_global += &format!("ctrl_interface=DIR={} GROUP={CTRL_GID}\n", wd.display());
    let ap_extra = format!("ctrl_interface={}\nctrl_interface_group={CTRL_GID}\n", hd.display());
    lab.write_confs(&mode, &ap_extra).unwrap();
    // Station 2 has no control interface (one socket per interface name and directory).
    let sta2 = lab.dir.join("sta2.conf");
    let t = std::fs::read_to_string(&sta2).unwrap();
    rewrite(&sta2, &t.lines().filter(|l| !l.starts_with("ctrl_interface")).map(|l| format!("{l}\n")).collect::<String>());

    lab.start_ap().unwrap();
    lab.wait_log("ap", "ctrl_interface", Duration::from_secs(5)).unwrap();
    let hcli = |args: &[&str]| run(HOSTAPD_CLI, &hd, "wap0", args);
    assert_eq!(hcli(&["ping"]), "PONG\n");
    let ap_events = Action::start(HOSTAPD_CLI, &hd, "wap0", &lab.dir, "hostapd_cli");
    wait("hostapd_cli -a to attach", Duration::from_secs(10), || kv(&hcli(&["status"]))["ctrl_monitors"] == "1");
    lab.start_sta(1).unwrap();
    lab.start_sta(2).unwrap();
    for s in ["sta1", "sta2"] {
        lab.wait_log(s, "data open", Duration::from_secs(20)).unwrap();
    }
    let wcli = |args: &[&str]| run(WPA_CLI, &wd, "wsta0", args);
    wait("the station's socket", Duration::from_secs(5), || wd.join("wsta0").exists());

    // Access rules: directory and sockets 0770 with the configured group; a user without
    // the group cannot reach them, one with it can.
    for p in [&hd, &hd.join("wap0"), &wd, &wd.join("wsta0")] {
        let md = std::fs::metadata(p).unwrap();
        assert_eq!((md.mode() & 0o777, md.gid()), (0o770, CTRL_GID), "{}", p.display());
    }
    let as_nobody = |groups: &str| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", groups, HOSTAPD_CLI, "-p"])
            .arg(&hd)
            .arg("-s")
            .arg(client_dir(&hd))
            .args(["-i", "wap0", "ping"])
            .output()
            .expect("setpriv (util-linux)")
    };
    let denied = as_nobody("--clear-groups");
    assert!(!String::from_utf8_lossy(&denied.stdout).contains("PONG"), "a user without the group reached the socket");
    let allowed = as_nobody(&format!("--groups={CTRL_GID}"));
    assert_eq!(String::from_utf8_lossy(&allowed.stdout), "PONG\n", "{}", String::from_utf8_lossy(&allowed.stderr));
    eprintln!("permissions: 0770 gid {CTRL_GID}; nobody without the group refused, with it PONG");

    // AP: connect events (hostapd_cli -a runs its script with the interface and event).
    wait("AP-STA-CONNECTED for both", Duration::from_secs(5), || {
        ap_events.count(&format!("wap0 AP-STA-CONNECTED {STA1}")) == 1 && ap_events.count(&format!("wap0 AP-STA-CONNECTED {STA2}")) == 1
    });
    assert_eq!(ap_events.count(&format!("wap0 EAPOL-4WAY-HS-COMPLETED {STA1}")), 1, "{}", ap_events.events());

    // STATUS: hostapd's fields, then the engine's counters.
    let st = kv(&hcli(&["status"]));
    eprintln!("hostapd_cli status: {st:?}");
    for (k, v) in [("state", "ENABLED"), ("channel", "6"), ("freq", "2437"), ("ssid[0]", SSID), ("bssid[0]", BSSID), ("num_sta[0]", "2")] {
        assert_eq!(st.get(k).map(String::as_str), Some(v), "{k} in {st:?}");
    }
    for k in ["beacon_int", "engine_threads", "engine_batches", "engine_frames_per_batch", "engine_protected", "cores_busy"] {
        num(&st, k);
    }
    // ALL_STA (STA-FIRST / STA-NEXT) and STA: hostapd's station fields.
    let all = sta_blocks(&hcli(&["all_sta"]));
    assert_eq!(all.keys().cloned().collect::<Vec<_>>(), vec![STA1.to_string(), STA2.to_string()], "{all:?}");
    for (a, m) in &all {
        assert_eq!(m["flags"], "[AUTH][ASSOC][AUTHORIZED]", "{a}: {m:?}");
        assert_eq!(m["AKMSuiteSelector"], "00-0f-ac-2");
        assert_eq!(m["dot11RSNAStatsSelectedPairwiseCipher"], "00-0f-ac-4");
        assert_eq!(m["dot11RSNAStatsSTAAddress"], *a);
        assert_eq!(m["wpa"], "2");
        for k in ["aid", "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "inactive_msec", "connected_time"] {
            num(m, k);
        }
        assert_eq!(num(m, "key_installs"), 1.0, "{m:?}");
        assert_eq!(num(m, "dot11RSNAStatsCCMPReplays"), 0.0);
    }
    eprintln!("hostapd_cli all_sta {STA1}: {:?}", all[STA1]);
    let one = hcli(&["sta", STA2]);
    assert_eq!(one.lines().next(), Some(STA2));
    assert_eq!(sta_blocks(&one)[STA2]["aid"], all[STA2]["aid"]);
    let list = hcli(&["list_sta"]);
    assert_eq!(list, format!("{STA1}\n{STA2}\n"));
    assert_eq!(hcli(&["sta", "02:00:00:00:00:99"]).trim(), "FAIL");
    let gc = kv(&hcli(&["get_config"]));
    assert_eq!((gc["bssid"].as_str(), gc["ssid"].as_str(), gc["wpa"].as_str()), (BSSID, SSID, "2"));
    assert_eq!((gc["key_mgmt"].as_str(), gc["group_cipher"].as_str(), gc["rsn_pairwise_cipher"].as_str()), ("WPA-PSK ", "CCMP", "CCMP "));
    let mib = kv(&hcli(&["mib"]));
    assert_eq!(mib["dot11RSNAEnabled"], "TRUE");
    assert_eq!(mib["dot11RSNAPairwiseCipherSelected"], "00-0f-ac-4");
    assert_eq!(num(&mib, "wsecSuiteCCMPStations"), 2.0);
    assert_eq!(num(&mib, "wsecSuiteCCMPKeyInstalls"), 2.0);
    // SET / GET of a run-time key; an unknown key or a bad value is FAIL.
    assert_eq!(hcli(&["set", "wpa_group_rekey", "1234"]), "OK\n");
    assert_eq!(hcli(&["get", "wpa_group_rekey"]), "1234\n");
    assert_eq!(hcli(&["set", "ssid", "x"]), "FAIL\n");
    assert_eq!(hcli(&["set", "max_num_sta", "5000"]), "FAIL\n");
    assert_eq!(hcli(&["pmksa"]), "Index / SPA / PMKID / expiration (in seconds) / opportunistic\n");
    assert_eq!(hcli(&["raw", "NO_SUCH_COMMAND"]), "UNKNOWN COMMAND\n");

    // Station: wpa_cli, and a raw monitor for the events wpa_cli's action mode does not pass on.
    let sta_mon = Monitor::attach(&wd.join("wsta0"), &lab.dir.join("mon-sta"));
    let sta_events = Action::start(WPA_CLI, &wd, "wsta0", &lab.dir, "wpa_cli");
    assert_eq!(wcli(&["ping"]), "PONG\n");
    wait("wpa_cli -a to attach", Duration::from_secs(10), || kv(&wcli(&["status"]))["ctrl_monitors"] == "2");
    let ws = kv(&wcli(&["status"]));
    eprintln!("wpa_cli status: {ws:?}");
    for (k, v) in [
        ("wpa_state", "COMPLETED"),
        ("bssid", BSSID),
        ("ssid", SSID),
        ("freq", "2437"),
        ("id", "0"),
        ("mode", "station"),
        ("pairwise_cipher", "CCMP"),
        ("group_cipher", "CCMP"),
        ("key_mgmt", "WPA2-PSK"),
        ("address", STA1),
    ] {
        assert_eq!(ws.get(k).map(String::as_str), Some(v), "{k} in {ws:?}");
    }
    assert_eq!(wcli(&["list_networks"]), format!("network id / ssid / bssid / flags\n0\t{SSID}\tany\t[CURRENT]\n"));
    assert_eq!(wcli(&["scan"]), "OK\n");
    wait("CTRL-EVENT-SCAN-RESULTS", Duration::from_secs(3), || sta_mon.has("<3>CTRL-EVENT-SCAN-RESULTS"));
    let sr = wcli(&["scan_results"]);
    let mut lines = sr.lines();
    assert_eq!(lines.next(), Some("bssid / frequency / signal level / flags / ssid"));
    let row: Vec<&str> = lines.next().unwrap_or_else(|| panic!("no BSS in {sr}")).split('\t').collect();
    assert_eq!(row, vec![BSSID, "2437", "0", "[WPA2-PSK-CCMP][ESS]", SSID], "{sr}");
    // The air hub's radiotap carries the rate (54 Mb/s) and no signal level.
    assert_eq!(wcli(&["signal_poll"]), "LINKSPEED=54\nFREQUENCY=2437\n");
    assert_eq!(wcli(&["pmksa"]), "Index / AA / PMKID / expiration (in seconds) / opportunistic\n");
    assert_eq!(wcli(&["pmksa_flush"]), "OK\n");
    let smib = kv(&wcli(&["mib"]));
    assert_eq!(smib["dot11RSNAPairwiseCipherSelected"], "00-0f-ac-4");

    // Rekeys: events at both ends.
    assert_eq!(hcli(&["raw", "REKEY_GTK"]), "OK\n");
    wait("WPA: Group rekeying completed", Duration::from_secs(5), || {
        sta_mon.has(&format!("<3>WPA: Group rekeying completed with {BSSID} [GTK=CCMP]"))
    });
    assert_eq!(hcli(&["raw", &format!("REKEY_PTK {STA1}")]), "OK\n");
    wait("EAPOL-4WAY-HS-COMPLETED after REKEY_PTK", Duration::from_secs(5), || {
        ap_events.count(&format!("wap0 EAPOL-4WAY-HS-COMPLETED {STA1}")) == 2
    });
    wait("WPA: Key negotiation completed at the station", Duration::from_secs(5), || {
        sta_mon.has(&format!("<3>WPA: Key negotiation completed with {BSSID} [PTK=CCMP GTK=CCMP]"))
    });
    assert_eq!(num(&sta_blocks(&hcli(&["sta", STA1]))[STA1], "key_installs"), 2.0);

    // DEAUTHENTICATE through hostapd_cli: the station sees it and joins again.
    let before = opens(&lab, "sta1");
    assert_eq!(hcli(&["deauthenticate", STA1]), "OK\n");
    lab.wait_log("sta1", "deauthenticated reason 2 (by peer)", Duration::from_secs(5)).unwrap();
    wait("sta1 to join again after the deauthentication", Duration::from_secs(20), || opens(&lab, "sta1") > before);
    wait("AP-STA-DISCONNECTED then AP-STA-CONNECTED", Duration::from_secs(5), || {
        ap_events.count(&format!("wap0 AP-STA-DISCONNECTED {STA1}")) == 1 && ap_events.count(&format!("wap0 AP-STA-CONNECTED {STA1}")) == 2
    });
    wait("wpa_cli -a: DISCONNECTED, CONNECTED", Duration::from_secs(5), || {
        sta_events.count("wsta0 DISCONNECTED") == 1 && sta_events.count("wsta0 CONNECTED") == 1
    });
    assert!(sta_mon.has(&format!("<3>CTRL-EVENT-DISCONNECTED bssid={BSSID} reason=2")), "{:?}", sta_mon.events.lock().unwrap());
    assert!(sta_mon.has(&format!("<3>CTRL-EVENT-CONNECTED - Connection to {BSSID} completed [id=0 id_str=]")));
    // DISASSOCIATE: the same for station 2.
    let before2 = opens(&lab, "sta2");
    assert_eq!(hcli(&["disassociate", STA2]), "OK\n");
    lab.wait_log("sta2", "disassociated reason 2 (by peer)", Duration::from_secs(5)).unwrap();
    wait("sta2 to join again", Duration::from_secs(20), || opens(&lab, "sta2") > before2);

    // Station-side control: DISCONNECT, RECONNECT, DISABLE_NETWORK / SELECT_NETWORK, REASSOCIATE.
    assert_eq!(wcli(&["disconnect"]), "OK\n");
    assert_eq!(kv(&wcli(&["status"]))["wpa_state"], "DISCONNECTED");
    wait("AP-STA-DISCONNECTED after wpa_cli disconnect", Duration::from_secs(5), || {
        ap_events.count(&format!("wap0 AP-STA-DISCONNECTED {STA1}")) == 2
    });
    lab.wait_log("ap", &format!("{STA1} deauthenticated reason 3 (by peer)"), Duration::from_secs(5)).unwrap();
    assert_eq!(wcli(&["signal_poll"]), "FAIL\n");
    assert_eq!(wcli(&["reconnect"]), "OK\n");
    wait("COMPLETED after reconnect", Duration::from_secs(20), || kv(&wcli(&["status"]))["wpa_state"] == "COMPLETED");
    assert_eq!(wcli(&["disable_network", "0"]), "OK\n");
    assert!(wcli(&["list_networks"]).ends_with("[DISABLED]\n"));
    assert_eq!(wcli(&["select_network", "0"]), "OK\n");
    assert_eq!(wcli(&["enable_network", "7"]), "FAIL\n");
    wait("COMPLETED after select_network", Duration::from_secs(20), || kv(&wcli(&["status"]))["wpa_state"] == "COMPLETED");
    let n = sta_events.count("wsta0 CONNECTED");
    assert_eq!(wcli(&["reassociate"]), "OK\n");
    wait("CONNECTED after reassociate", Duration::from_secs(20), || sta_events.count("wsta0 CONNECTED") > n);

    // DISABLE / ENABLE of the AP.
    assert_eq!(hcli(&["disable"]), "OK\n");
    assert_eq!(kv(&hcli(&["status"]))["state"], "DISABLED");
    assert_eq!(hcli(&["disable"]), "FAIL\n");
    wait("AP-DISABLED", Duration::from_secs(3), || ap_events.count("wap0 AP-DISABLED") == 1);
    let before = opens(&lab, "sta1");
    assert_eq!(hcli(&["enable"]), "OK\n");
    wait("sta1 back after ENABLE", Duration::from_secs(20), || opens(&lab, "sta1") > before);
    assert_eq!(ap_events.count("wap0 AP-ENABLED"), 1);

    // RELOAD with a new passphrase: every station is flushed (reason 2) and must
    // handshake again; with the old passphrase they cannot.
    let ap_conf = lab.dir.join("ap.conf");
    let old_ap = std::fs::read_to_string(&ap_conf).unwrap();
    rewrite(&ap_conf, &old_ap.replace(PASS, NEW_PASS));
    let failed_before = lab.log("ap").matches("handshake failed").count();
    assert_eq!(hcli(&["reload"]), "OK\n");
    lab.wait_log("ap", "configuration reloaded", Duration::from_secs(5)).unwrap();
    wait("both stations flushed with reason 2", Duration::from_secs(5), || {
        lab.log("sta1").matches("deauthenticated reason 2 (by peer)").count() == 2
            && lab.log("sta2").contains("deauthenticated reason 2 (by peer)")
    });
    wait("a handshake with the old passphrase to fail", Duration::from_secs(30), || {
        lab.log("ap").matches("handshake failed").count() > failed_before
    });
    // No station holds keys under the old passphrase.
    let blocks = sta_blocks(&hcli(&["all_sta"]));
    assert!(blocks.values().all(|m| !m["flags"].contains("[AUTHORIZED]")), "{blocks:?}");
    // The station learns the new passphrase: RECONFIGURE re-reads its file.
    let s1 = lab.dir.join("sta1.conf");
    let old_s1 = std::fs::read_to_string(&s1).unwrap();
    rewrite(&s1, &old_s1.replace(PASS, NEW_PASS));
    let before = opens(&lab, "sta1");
    assert_eq!(wcli(&["reconfigure"]), "OK\n");
    wait("sta1 to join with the new passphrase", Duration::from_secs(30), || opens(&lab, "sta1") > before);
    wait("wpa_state COMPLETED", Duration::from_secs(10), || kv(&wcli(&["status"]))["wpa_state"] == "COMPLETED");
    let m = sta_blocks(&hcli(&["sta", STA1]));
    assert_eq!(m[STA1]["flags"], "[AUTH][ASSOC][AUTHORIZED]");

    // SIGHUP re-reads the file too: the passphrase back to the old one (station 1 is
    // flushed and cannot join until it follows), and a BSSID change, which needs a restart,
    // is reported and not applied.
    rewrite(&ap_conf, &old_ap.replace("bssid=02:00:00:00:00:01", "bssid=02:00:00:00:00:09"));
    let pid = lab.pid("ap").expect("ap runs") as i32;
    // SAFETY: kill on our own child's pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGHUP) }, 0);
    lab.wait_log("ap", "reload: bssid cannot change at run time", Duration::from_secs(5)).unwrap();
    wait("sta1 flushed by the SIGHUP reload", Duration::from_secs(5), || {
        lab.log("sta1").matches("deauthenticated reason 2 (by peer)").count() == 3
    });
    assert_eq!(kv(&hcli(&["get_config"]))["bssid"], BSSID);
    rewrite(&s1, &old_s1);
    let before = opens(&lab, "sta1");
    assert_eq!(wcli(&["reconfigure"]), "OK\n");
    wait("sta1 back with the old passphrase", Duration::from_secs(30), || opens(&lab, "sta1") > before);

    // wpa_cli -a saw the connects and disconnects; the raw monitor their full text.
    eprintln!("hostapd_cli -a events:\n{}", ap_events.events());
    eprintln!("wpa_cli -a events:\n{}", sta_events.events());
    eprintln!(
        "raw station monitor: {} events, e.g. {:?}",
        sta_mon.count("<3>"),
        sta_mon.events.lock().unwrap().iter().take(6).collect::<Vec<_>>()
    );
    assert!(sta_events.count("wsta0 CONNECTED") >= 5, "{}", sta_events.events());

    // docs/ctrl.md classifies every command the binaries' `help` lists.
    let table = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/ctrl.md")).unwrap();
    for (bin, help) in [("hostapd_cli", hcli(&["help"])), ("wpa_cli", wcli(&["help"]))] {
        let section = table.split(&format!("### {bin} ")).nth(1).unwrap_or_else(|| panic!("no {bin} section in docs/ctrl.md"));
        let section = section.split("\n### ").next().unwrap_or_default();
        let mut n = 0;
        for l in help.lines() {
            let Some(name) = l.strip_prefix("  ").and_then(|r| r.split_whitespace().next()) else { continue };
            if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') || l.starts_with("   ") {
                continue;
            }
            n += 1;
            assert!(section.contains(&format!("| `{name}` |")), "docs/ctrl.md has no row for {bin} {name}");
        }
        assert!(n > 50, "{bin} help listed only {n} commands");
        eprintln!("docs/ctrl.md: all {n} commands of {bin} help have a row");
    }

    assert_eq!(hcli(&["raw", "TERMINATE"]), "OK\n");
    wait("the AP to leave", Duration::from_secs(5), || lab.log("ap").contains("ap counters:"));
    wait("its socket removed", Duration::from_secs(5), || !hd.join("wap0").exists());
    drop(ap_events);
    drop(sta_events);
    lab.stop_all();
    let _ = std::fs::remove_dir_all(&ctl);
}

/// With management frame protection required (`ieee80211w=2`): hostapd_cli's
/// DEAUTHENTICATE goes out under the station's PTK and RELOAD's flush as one BIP-protected
/// group Deauthentication; the stations accept both (an unprotected one they would drop)
/// and join again; `sta` shows `[MFP]`.
#[test]
fn hostapd_cli_with_management_frame_protection() {
    assert!(Path::new(HOSTAPD_CLI).exists(), "{HOSTAPD_CLI} is missing: scripts/setup installs the hostapd package");
    let tag = format!("cm{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, SSID).unwrap_or_else(|e| panic!("{e}"));
    let hd = lab.dir.join("hostapd");
    lab.start_air(0.0, None).unwrap();
    let mode = Mode::named("wpa2-mfp", SSID, PASS).unwrap();
    lab.write_confs(&mode, &format!("ctrl_interface={}\n", hd.display())).unwrap();
    lab.start_ap().unwrap();
    lab.wait_log("ap", "ctrl_interface", Duration::from_secs(5)).unwrap();
    let events = Action::start(HOSTAPD_CLI, &hd, "wap0", &lab.dir, "hostapd_cli");
    let hcli = |args: &[&str]| run(HOSTAPD_CLI, &hd, "wap0", args);
    wait("hostapd_cli -a to attach", Duration::from_secs(10), || kv(&hcli(&["status"]))["ctrl_monitors"] == "1");
    lab.start_sta(1).unwrap();
    lab.start_sta(2).unwrap();
    for s in ["sta1", "sta2"] {
        lab.wait_log(s, "data open", Duration::from_secs(20)).unwrap();
    }
    let all = sta_blocks(&hcli(&["all_sta"]));
    assert_eq!(all.len(), 2, "{all:?}");
    for m in all.values() {
        assert_eq!(m["flags"], "[AUTH][ASSOC][AUTHORIZED][MFP]", "{m:?}");
    }
    // SA_QUERY: the station answers under its PTK, so the association stands (an
    // unanswered query would end it after 1000 TU, dot11AssociationSAQueryMaximumTimeout).
    let tx_before = num(&kv(&hcli(&["mib"])), "wsecTxAir");
    assert_eq!(hcli(&["sa_query", STA1]), "OK\n");
    assert_eq!(hcli(&["sa_query", "02:00:00:00:00:99"]), "FAIL\n");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(num(&kv(&hcli(&["mib"])), "wsecTxAir") > tx_before);
    assert_eq!(sta_blocks(&hcli(&["sta", STA1]))[STA1]["flags"], "[AUTH][ASSOC][AUTHORIZED][MFP]");
    assert!(!lab.log("ap").contains("disassociated"), "{}", lab.log("ap"));
    let before = opens(&lab, "sta1");
    assert_eq!(hcli(&["deauthenticate", STA1]), "OK\n");
    lab.wait_log("sta1", "deauthenticated reason 2 (by peer)", Duration::from_secs(5)).unwrap();
    wait("sta1 to join again", Duration::from_secs(20), || opens(&lab, "sta1") > before);
    wait("AP-STA-DISCONNECTED", Duration::from_secs(5), || events.count(&format!("wap0 AP-STA-DISCONNECTED {STA1}")) == 1);
    let (b1, b2) = (opens(&lab, "sta1"), opens(&lab, "sta2"));
    assert_eq!(hcli(&["reload"]), "OK\n");
    wait("both stations to take the protected flush and join again", Duration::from_secs(30), || {
        opens(&lab, "sta1") > b1 && opens(&lab, "sta2") > b2
    });
    assert!(lab.log("sta2").contains("deauthenticated reason 2 (by peer)"), "{}", lab.log("sta2"));
    assert_eq!(hcli(&["raw", "REKEY_GTK"]), "OK\n");
    for s in ["sta1", "sta2"] {
        lab.wait_log(s, "group key 2 in use", Duration::from_secs(5)).unwrap();
    }
    eprintln!("MFP: deauthenticate, reload and rekey through hostapd_cli; events:\n{}", events.events());
    drop(events);
    lab.stop_all();
}
