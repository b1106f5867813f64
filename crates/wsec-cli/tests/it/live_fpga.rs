//! Seed 000's architecture end to end: `wsec ap` with its link crypto on the Verilog engine
//! (`crypto_offload=fpga-sim`, a Verilator model of the configuration behind a descriptor
//! ring, `fpga_check=1` comparing every result with the software) and two `wsec sta` doing
//! theirs on the host CPU, in network namespaces. Ping and a SHA-256-checked TCP transfer
//! each way with a GTK and a PTK rekey during the traffic (keys written into the engine
//! while frames flow), a station leaving and rejoining, forged frames injected on the air
//! (rejected by the RTL's MIC check; nothing of them reaches the wired side), and the
//! recorded air decrypted by tshark (CCMP) and `wsec decrypt`. The engines are built by
//! `scripts/test` (`hw/run engine`) before the tests; a missing one fails.
//! `WSEC_FPGA_BYTES` sets the transfer size (default 3 MB each way).
use crate::air_check;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use wsec_cli::lab::{Lab, Mode, STA_IP, WIRED_IP};

const SSID: &str = "wsec-fpga";
const PASS: &str = "correct horse battery";

fn engine_dir() -> PathBuf {
    std::env::var_os("WSEC_HW_ENGINE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../hw/build/engine"))
}

fn bytes() -> usize {
    std::env::var("WSEC_FPGA_BYTES").ok().and_then(|s| s.parse().ok()).unwrap_or(3_000_000)
}

/// A number after `key` on the AP's engine report line.
fn report_num(ap: &str, key: &str) -> u64 {
    let line = ap.lines().rev().find(|l| l.starts_with("ap engine: fpga-sim")).unwrap_or_else(|| panic!("no engine report: {ap}"));
    let at = line.find(key).unwrap_or_else(|| panic!("no \"{key}\" in {line}"));
    line[..at].split_whitespace().last().and_then(|v| v.trim_start_matches('(').parse().ok()).unwrap_or_else(|| panic!("{key} in {line}"))
}

/// The AP's counters line's drop count `k`.
fn dropped(ap: &str, k: &str) -> u64 {
    ap.lines()
        .rev()
        .find(|l| l.starts_with("ap counters:"))
        .and_then(|l| l.split(&format!(" {k}=")).nth(1))
        .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .unwrap_or(0)
}

fn run(tag: &str, mode: &str, config: &str) {
    let tag = format!("{tag}{}", std::process::id() % 10_000);
    let mut lab = Lab::new(Path::new(env!("CARGO_BIN_EXE_wsec")), &tag, SSID).unwrap_or_else(|e| panic!("{e}"));
    let pcap = lab.dir.join("air.pcap");
    let mut mode = Mode::named(mode, SSID, PASS).unwrap();
    // A GTK rekey every 4 s and a PTK rekey every 5 s: several of each during the traffic.
    // PTK rekeys with Extended Key ID (12.6.21): under Key ID 0 the frames a station sends
    // between installing the new PTK and the AP installing it are lost (the race 12.6.21
    // removes), and with the engine's latency that window holds dozens of frames; the
    // check below is that every frame on the air decrypts.
    let extra = format!(
        "crypto_offload=fpga-sim\nhw_config={config}\nfpga_check=1\nhw_engine_dir={}\nwpa_group_rekey=4\nwpa_ptk_rekey=5\nextended_key_id=1\n",
        engine_dir().display()
    );
    mode.sta_global.push_str("extended_key_id=1\n");
    lab.start_air(0.0, Some(&pcap)).unwrap();
    lab.write_confs(&mode, &extra).unwrap();
    lab.start_ap().unwrap();
    lab.wait_log("ap", "crypto_offload=fpga-sim", Duration::from_secs(10)).unwrap();
    lab.start_sta(1).unwrap();
    lab.start_sta(2).unwrap();
    for s in ["sta1", "sta2"] {
        lab.wait_log(s, "data open", Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}\nap: {}", lab.log("ap")));
    }
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}\nap: {}", lab.log("ap")));
    let n = bytes();
    let t0 = std::time::Instant::now();
    let rtt = lab.ping("s1", WIRED_IP, 3).unwrap();
    let up = lab.tcp("s1", "w", WIRED_IP, n, 5600).unwrap_or_else(|e| panic!("{e}\nap: {}", lab.log("ap")));
    let down = lab.tcp("w", "s2", STA_IP[1], n, 5601).unwrap_or_else(|e| panic!("{e}\nap: {}", lab.log("ap")));
    let relay = lab.tcp("s2", "s1", STA_IP[0], n / 4, 5602).unwrap_or_else(|e| panic!("{e}\nap: {}", lab.log("ap")));
    // Keep traffic going until both rekeys have run at least twice.
    while t0.elapsed() < Duration::from_secs(11) {
        lab.ping("s1", WIRED_IP, 2).unwrap();
    }
    eprintln!("{config}: rtt {rtt:.3} ms; {n} bytes sta1 -> wired {up:.1} Mb/s, wired -> sta2 {down:.1} Mb/s; {} bytes sta2 -> sta1 {relay:.1} Mb/s", n / 4);
    // A station leaves and joins again: its keys leave the key table and come back.
    lab.stop("sta1");
    std::thread::sleep(Duration::from_millis(500));
    lab.start_sta(1).unwrap();
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}\nsta1: {}", lab.log("sta1")));
    assert!(lab.log("sta1").matches("data open").count() >= 1);
    lab.tcp("s1", "w", WIRED_IP, n / 4, 5603).unwrap();

    // Forged frames on the air: catch a protected To-DS data frame of station 1, send it
    // back five times with a higher PN and one ciphertext bit flipped. The RTL's MIC check
    // refuses each; the wired side sees nothing from station 1 meanwhile.
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    sock.send_to(&[], &lab.hub).unwrap();
    let caught = std::thread::scope(|sc| {
        let spy = sc.spawn(|| {
            let mut buf = vec![0u8; 16 * 1024];
            let t0 = std::time::Instant::now();
            while t0.elapsed() < Duration::from_secs(8) {
                let Ok((k, _)) = sock.recv_from(&mut buf) else { continue };
                if let Ok(m) = wsec_live::medium::decap(&buf[..k]) {
                    if m.len() > 60 && m[0] == 0x08 && m[1] & 0x43 == 0x41 && m[10..16] == [2, 0, 0, 0, 0, 0x11] {
                        return Some(m.to_vec());
                    }
                }
            }
            None
        });
        let _ = lab.ping("s1", WIRED_IP, 3);
        spy.join().unwrap()
    });
    let genuine = caught.expect("no protected data frame of station 1 seen on the air");
    std::thread::sleep(Duration::from_millis(500));
    let wired = lab.dir.join("wired.pcap");
    let mut cap = Command::new("ip")
        .args([
            "netns",
            "exec",
            &lab.ns("w"),
            "tshark",
            "-q",
            "-i",
            &format!("{tag}w"),
            "-a",
            "duration:4",
            "-f",
            "src host 10.77.0.11",
            "-w",
        ])
        .arg(&wired)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("tshark (scripts/setup installs it)");
    std::thread::sleep(Duration::from_millis(1500));
    let failures_before = dropped(&lab.log("ap"), "mic failure");
    for i in 0..5u8 {
        let mut forged = genuine.clone();
        forged[28] = forged[28].wrapping_add(1 + i); // PN2: past the replay counter
        let len = forged.len();
        forged[len - 12] ^= 1;
        sock.send_to(&wsec_live::medium::encap(&forged, 1), &lab.hub).unwrap();
    }
    let st = cap.wait().unwrap();
    assert!(st.success() || wired.exists(), "tshark capture on the wired side failed");
    let seen = Command::new("tshark").arg("-r").arg(&wired).output().unwrap();
    let frames = String::from_utf8_lossy(&seen.stdout).lines().count();
    assert_eq!(
        frames,
        0,
        "frames from station 1 reached the wired side while only forged ones were sent:\n{}",
        String::from_utf8_lossy(&seen.stdout)
    );
    std::thread::sleep(Duration::from_millis(300));
    lab.stop_all();
    let ap = lab.log("ap");
    assert!(!ap.contains("fpga_check:"), "the engine and the software disagreed: {ap}");
    assert!(ap.contains("deauthenticated reason 3"), "orderly shutdown: {ap}");
    eprintln!("{}", ap.lines().filter(|l| l.starts_with("ap engine") || l.starts_with("  at ")).collect::<Vec<_>>().join("\n"));
    assert!(dropped(&ap, "mic failure") >= failures_before + 5, "forgeries not counted: {ap}");
    assert!(report_num(&ap, "MIC failures") >= 5, "the RTL's MIC check did not refuse the forgeries: {ap}");
    let (sealed, opened) = (report_num(&ap, "sealed"), report_num(&ap, "opened"));
    assert!(sealed > (n / 1500) as u64 && opened > (n / 1500) as u64, "{sealed} sealed, {opened} opened: {ap}");
    // Rekeys during the traffic, and station 1 twice: keys were loaded well beyond the
    // first three (two PTKs and a GTK), and erased.
    // Station 2 stayed the whole time: it saw the GTK rekeys and its PTK rekeys.
    let s2 = lab.log("sta2");
    let (gtk, ptk) = (s2.matches("group key").count(), s2.matches("ptk rekeyed").count());
    eprintln!("station 2: {gtk} group keys in use, {ptk} PTK rekeys");
    assert!(gtk >= 3 && ptk >= 2, "rekeys during the traffic: {gtk} group keys, {ptk} PTK rekeys: {s2}");
    let fails = ap.lines().filter(|l| l.contains("MIC check failed in the engine on a frame from 02:00:00:00:00:11")).count();
    assert!(fails >= 5, "the RTL's MIC failures are logged: {ap}");
    let loaded = report_num(&ap, "loaded");
    assert!(loaded >= 7, "keys loaded into the engine: {loaded}: {ap}");
    // The recorded air: every protected frame decrypts with the passphrase.
    let j = air_check::wsec_decrypt(&pcap, &lab.dir.join("dec.pcap"), SSID, PASS);
    assert!(air_check::count(&j, "decrypted") > (2 * n / 1500) as u64, "{j}");
    // Everything but the five forgeries (and nothing else) decrypts.
    assert_eq!(air_check::count(&j, "protected"), air_check::count(&j, "decrypted") + 5, "{j}");
    if mode.tshark_key.is_some() {
        let lines = air_check::tshark_decrypted(&pcap, &lab.dir, SSID, PASS, "tcp.len > 1000");
        assert!(lines as u64 > (2 * n / 1500) as u64, "tshark decrypted only {lines} TCP segments");
        eprintln!("tshark decrypted {lines} TCP segments of the RTL's frames");
    }
}

#[test]
fn wpa2_ccmp_on_the_key_table_engine() {
    run("lf", "wpa2-host", "ccmp-k1-r1-kt-dec");
}

#[test]
fn enhanced_wpa2_on_the_eccmp4_engine() {
    run("le", "enhanced", "eccmp4-r1-rom-dec");
}
