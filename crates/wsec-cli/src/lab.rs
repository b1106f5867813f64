//! The lab `wsec demo` and the end-to-end tests build: an AP, two stations and a wired
//! host, each in its own network namespace, over the `air` hub (UDP, or its shared-memory
//! medium with [`Lab::start_air_shm`]); ping and TCP through it;
//! everything removed again on drop (also when a test fails or the demo is interrupted).
//!
//! Addresses: stations 10.77.0.11 and .12, wired host 10.77.0.2; the AP's wired TAP sits
//! in a bridge in the AP's namespace with a veth to the wired host.
//!
//! It runs the `wsec` binary it is given (`wsec air`, `wsec ap`, `wsec sta`), so it lives
//! with the command-line tool, not in the runtime library.
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wsec_live::medium::netns;
use wsec_live::{Error, Result};

pub const STA_IP: [&str; 2] = ["10.77.0.11", "10.77.0.12"];
pub const WIRED_IP: &str = "10.77.0.2";

/// The security settings of one mode, as config-file lines.
#[derive(Clone, Debug)]
pub struct Mode {
    pub name: &'static str,
    pub ap: String,
    pub sta: String,
    /// wsec's global STA keys (outside the network block).
    pub sta_global: String,
    /// What tshark needs to decrypt the air: `("wpa-pwd", "pass:ssid")` or `("wep", hex)`.
    pub tshark_key: Option<(String, String)>,
}

impl Mode {
    pub fn named(name: &str, ssid: &str, pass: &str) -> Option<Mode> {
        let wpa = |pw: &str, extra: &str| {
            (
                format!("wpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise={pw}\nwpa_passphrase={pass}\n{extra}"),
                format!("    key_mgmt=WPA-PSK\n    psk=\"{pass}\"\n"),
            )
        };
        let tk = Some(("wpa-pwd".to_string(), format!("{pass}:{ssid}")));
        let wep_hex = "0102030405060708090a0b0c0d";
        Some(match name {
            "open" => {
                Mode { name: "open", ap: String::new(), sta: "    key_mgmt=NONE\n".into(), sta_global: String::new(), tshark_key: None }
            }
            "wep" => Mode {
                name: "wep",
                ap: format!("wep_key0={wep_hex}\nwep_default_key=0\nauth_algs=2\ncrypto_offload=card\n"),
                sta: format!("    key_mgmt=NONE\n    wep_key0={wep_hex}\n    wep_tx_keyidx=0\n    auth_alg=SHARED\n"),
                sta_global: "crypto_offload=card\n".into(),
                tshark_key: Some(("wep".into(), wep_hex.into())),
            },
            "tkip" | "ccmp" | "gcmp" => {
                let c = match name {
                    "tkip" => "TKIP",
                    "ccmp" => "CCMP",
                    _ => "GCMP",
                };
                let (ap, sta) = wpa(c, "crypto_offload=card\n");
                let name = match name {
                    "tkip" => "tkip",
                    "ccmp" => "ccmp",
                    _ => "gcmp",
                };
                Mode { name, ap, sta, sta_global: "crypto_offload=card\n".into(), tshark_key: tk }
            }
            // WPA2 (CCMP) with the crypto in the host engine: seed 000's Enhanced-WPA2.
            "wpa2-host" => {
                let (ap, sta) = wpa("CCMP", "crypto_offload=host\n");
                Mode { name: "wpa2-host", ap, sta, sta_global: "crypto_offload=host\n".into(), tshark_key: tk }
            }
            // WPA2 (CCMP, host engine) with management frame protection required.
            "wpa2-mfp" => {
                let (ap, sta) = wpa("CCMP", "crypto_offload=host\nieee80211w=2\n");
                let sta = format!("{sta}    ieee80211w=2\n");
                Mode { name: "wpa2-mfp", ap, sta, sta_global: "crypto_offload=host\n".into(), tshark_key: tk }
            }
            // WPA3-Personal: SAE (hash-to-element, group 19) with PMF required, CCMP in the
            // host engine. tshark cannot decrypt it from the passphrase (the PMK comes
            // from SAE).
            "sae" => Mode {
                name: "sae",
                ap: format!(
                    "wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password={pass}\nsae_groups=19\nsae_pwe=2\nieee80211w=2\ncrypto_offload=host\n"
                ),
                sta: format!("    key_mgmt=SAE\n    sae_password=\"{pass}\"\n    ieee80211w=2\n"),
                sta_global: "crypto_offload=host\nsae_pwe=2\nsae_groups=19\n".into(),
                tshark_key: None,
            },
            // Enhanced Open: OWE (RFC 8110; group 19 by the station's default order), PMF
            // optional, CCMP in the host engine. Nothing to decrypt the air with: the PMK
            // comes from the Diffie-Hellman exchange.
            "owe" => Mode {
                name: "owe",
                ap: "wpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\nieee80211w=1\ncrypto_offload=host\n".into(),
                sta: "    key_mgmt=OWE\n    ieee80211w=1\n".into(),
                sta_global: "crypto_offload=host\n".into(),
                tshark_key: None,
            },
            "enhanced" => {
                let (ap, sta) = wpa("CCMP", "crypto_offload=host\neccmp_lanes=4\n");
                Mode { name: "enhanced", ap, sta, sta_global: "crypto_offload=host\neccmp_lanes=4\n".into(), tshark_key: None }
            }
            _ => return None,
        })
    }
}

pub struct Lab {
    bin: PathBuf,
    pub tag: String,
    pub dir: PathBuf,
    pub ssid: String,
    ns: Vec<String>,
    procs: Vec<(String, Child)>,
    pub hub: String,
    /// The medium the hub serves (`air:HOST:PORT` or `shm:NAME`), for the nodes.
    air: String,
    /// Per-node medium overrides (node name, medium spec); the rest use the `air` hub.
    media: Vec<(String, String)>,
    /// The veth pair of [`Lab::use_veth_medium`] (one end; deleting it removes both).
    veth: Option<String>,
}

fn sh(args: &[&str]) -> Result<()> {
    let out = Command::new(args[0]).args(&args[1..]).output().map_err(|e| Error::io(args[0], e))?;
    if !out.status.success() {
        return Err(Error::Setup(format!("{}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(())
}

impl Lab {
    pub fn ns(&self, which: &str) -> String {
        format!("{}{which}", self.tag)
    }

    /// Creates the namespaces, the AP's bridge and the wired host's veth.
    pub fn new(bin: &Path, tag: &str, ssid: &str) -> Result<Lab> {
        if !netns::is_root() {
            return Err(Error::Setup("the live lab needs root (network namespaces, TAP devices): run as root".into()));
        }
        let dir = private_dir(&std::env::temp_dir(), &format!("wsec-lab-{tag}-"))?;
        let mut lab = Lab {
            bin: bin.to_path_buf(),
            tag: tag.into(),
            dir,
            ssid: ssid.into(),
            ns: vec![],
            procs: vec![],
            hub: String::new(),
            air: String::new(),
            media: vec![],
            veth: None,
        };
        for n in ["ap", "s1", "s2", "w"] {
            let name = lab.ns(n);
            let _ = sh(&["ip", "netns", "del", &name]);
            sh(&["ip", "netns", "add", &name])?;
            lab.ns.push(name.clone());
            sh(&["ip", "-n", &name, "link", "set", "lo", "up"])?;
        }
        let (ap, w) = (lab.ns("ap"), lab.ns("w"));
        let (va, vw) = (format!("{tag}a"), format!("{tag}w"));
        sh(&["ip", "-n", &ap, "link", "add", "br0", "type", "bridge"])?;
        sh(&["ip", "-n", &ap, "link", "set", "br0", "up"])?;
        sh(&["ip", "link", "add", &vw, "type", "veth", "peer", "name", &va])?;
        sh(&["ip", "link", "set", &vw, "netns", &w])?;
        sh(&["ip", "link", "set", &va, "netns", &ap])?;
        sh(&["ip", "-n", &ap, "link", "set", &va, "master", "br0", "up"])?;
        sh(&["ip", "-n", &w, "addr", "add", &format!("{WIRED_IP}/24"), "dev", &vw])?;
        sh(&["ip", "-n", &w, "link", "set", &vw, "up"])?;
        Ok(lab)
    }

    fn spawn(&mut self, name: &str, args: &[&str]) -> Result<()> {
        let path = self.dir.join(format!("{name}.log"));
        let log_err = |e| Error::io(path.display().to_string(), e);
        let log = std::fs::File::create(&path).map_err(log_err)?;
        let child = Command::new(&self.bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(log_err)?)
            .stderr(log)
            .spawn()
            .map_err(|e| Error::io(self.bin.display().to_string(), e))?;
        self.procs.push((name.to_string(), child));
        Ok(())
    }

    /// The process id of a running program (to signal it, e.g. SIGHUP).
    pub fn pid(&self, name: &str) -> Option<u32> {
        self.procs.iter().find(|(n, _)| n == name).map(|(_, c)| c.id())
    }

    /// Resident memory of a running program (kB, `VmRSS` of /proc/PID/status).
    pub fn rss_kb(&self, name: &str) -> Option<u64> {
        let (_, c) = self.procs.iter().find(|(n, _)| n == name)?;
        let st = std::fs::read_to_string(format!("/proc/{}/status", c.id())).ok()?;
        st.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default()
    }

    /// Starts the hub (with `loss` and an optional capture).
    pub fn start_air(&mut self, loss: f64, pcap: Option<&Path>) -> Result<()> {
        let port = std::net::UdpSocket::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .map_err(|e| Error::io("a UDP port for the hub", e))?
            .port();
        self.hub = format!("127.0.0.1:{port}");
        let listen = self.hub.clone();
        let loss = loss.to_string();
        let mut args = vec!["air", "--listen", &listen, "--loss", &loss];
        let p;
        if let Some(pc) = pcap {
            p = pc.display().to_string();
            args.extend(["--pcap", &p]);
        }
        self.spawn("air", &args)?;
        self.air = format!("air:{}", self.hub);
        self.wait_log("air", "listening on", Duration::from_secs(5))
    }

    /// Starts the hub on the shared-memory medium `shm:wsec-lab-TAG` (with `loss` and an
    /// optional capture); the nodes attach to it.
    pub fn start_air_shm(&mut self, loss: f64, pcap: Option<&Path>) -> Result<()> {
        let name = format!("wsec-lab-{}", self.tag);
        let loss = loss.to_string();
        let mut args = vec!["air", "--shm", &name, "--loss", &loss];
        let p;
        if let Some(pc) = pcap {
            p = pc.display().to_string();
            args.extend(["--pcap", &p]);
        }
        self.spawn("air", &args)?;
        self.air = format!("shm:{name}");
        self.wait_log("air", "serving shm:", Duration::from_secs(5))
    }

    /// The medium spec the nodes are given (after a `start_air*`).
    pub fn air_medium(&self) -> &str {
        &self.air
    }

    /// The demo network of `wsec demo` and `wsec bench live`: the hub (on shared memory
    /// when `shm`), the AP and both stations in `mode` with the AP's `engine_threads` and
    /// every node's `tap_offload`, up until both stations have their keys. With `ht` the
    /// AP is an HT QoS AP taking A-MSDUs of up to 7935 octets (`ieee80211n=1`,
    /// `ht_capab=[MAX-AMSDU-7935]`; the stations are HT by default), so bursts go in
    /// A-MSDUs both ways.
    pub fn up_demo(&mut self, mode: &Mode, shm: bool, pcap: Option<&Path>, engine_threads: usize, tap_offload: u8, ht: bool) -> Result<()> {
        if shm {
            self.start_air_shm(0.0, pcap)?;
        } else {
            self.start_air(0.0, pcap)?;
        }
        let mut mode = mode.clone();
        mode.sta_global += &format!("tap_offload={tap_offload}\n");
        let ht = if ht { "ieee80211n=1\nht_capab=[MAX-AMSDU-7935]\n" } else { "" };
        self.write_confs(&mode, &format!("engine_threads={engine_threads}\ntap_offload={tap_offload}\n{ht}"))?;
        self.start_ap()?;
        std::thread::sleep(Duration::from_millis(100));
        self.start_sta(1)?;
        self.start_sta(2)?;
        for s in ["sta1", "sta2"] {
            self.wait_log(s, "data open", Duration::from_secs(15))?;
        }
        Ok(())
    }

    pub fn write_confs(&self, mode: &Mode, extra_ap: &str) -> Result<()> {
        // The configurations hold the passphrase: mode 0600, created new in the private
        // directory (never through a link someone placed there).
        let write = |name: String, text: String| write_private(&self.dir.join(name), &zeroize::Zeroizing::new(text));
        let ap = format!("interface=wap0\nssid={}\nbssid=02:00:00:00:00:01\nchannel=6\nhw_mode=g\n{}{}", self.ssid, mode.ap, extra_ap);
        write("ap.conf".into(), ap)?;
        for i in 1..=2 {
            let s = format!(
                "interface=wsta0\naddr=02:00:00:00:00:1{i}\n{}network={{\n    ssid=\"{}\"\n{}}}\n",
                mode.sta_global, self.ssid, mode.sta
            );
            write(format!("sta{i}.conf"), s)?;
        }
        Ok(())
    }

    /// Puts the AP and station 1 on the two ends of a veth pair in the namespace wsec
    /// starts in, driven through `medium::packet` (raw packet sockets: what a monitor-mode
    /// interface with injection uses) instead of the `air` hub.
    pub fn use_veth_medium(&mut self) -> Result<()> {
        let (a, b) = (format!("{}ma", self.tag), format!("{}m1", self.tag));
        let _ = sh(&["ip", "link", "del", &a]);
        sh(&["ip", "link", "add", &a, "type", "veth", "peer", "name", &b])?;
        self.veth = Some(a.clone());
        for i in [&a, &b] {
            // No IPv6 (its neighbour discovery would be garbage on this medium).
            let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{i}/disable_ipv6"), "1");
            // Room for radiotap + 802.11 + security headers around a 1500-octet MSDU (a
            // monitor interface's MTU is the 802.11 one, 2304 octets of body).
            sh(&["ip", "link", "set", i, "mtu", "4000", "up"])?;
        }
        self.media = vec![("ap".into(), format!("packet:{a}")), ("sta1".into(), format!("packet:{b}"))];
        Ok(())
    }

    fn medium_of(&self, node: &str) -> String {
        self.media.iter().find(|(n, _)| n == node).map(|(_, m)| m.clone()).unwrap_or_else(|| self.air.clone())
    }

    pub fn start_ap(&mut self) -> Result<()> {
        let conf = self.dir.join("ap.conf").display().to_string();
        let medium = self.medium_of("ap");
        let ns = self.ns("ap");
        self.spawn("ap", &["ap", "-c", &conf, "--medium", &medium, "--netns", &ns, "--bridge", "br0", "--counters"])
    }

    pub fn start_sta(&mut self, i: usize) -> Result<()> {
        let conf = self.dir.join(format!("sta{i}.conf")).display().to_string();
        let medium = self.medium_of(&format!("sta{i}"));
        let ns = self.ns(&format!("s{i}"));
        self.spawn(&format!("sta{i}"), &["sta", "-c", &conf, "--medium", &medium, "--netns", &ns, "--counters"])?;
        // The TAP appears once the program runs; give it its address.
        let t0 = Instant::now();
        loop {
            if sh(&["ip", "-n", &ns, "link", "show", "wsta0"]).is_ok() {
                let _ = sh(&["ip", "-n", &ns, "addr", "add", &format!("{}/24", STA_IP[i - 1]), "dev", "wsta0"]);
                return Ok(());
            }
            if t0.elapsed() > Duration::from_secs(5) {
                return Err(Error::Setup(format!("sta{i} did not create its TAP: {}", self.log(&format!("sta{i}")))));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `pattern` appears in a process's log; the time it took.
    pub fn wait_log(&self, name: &str, pattern: &str, timeout: Duration) -> Result<()> {
        let t0 = Instant::now();
        while !self.log(name).contains(pattern) {
            if t0.elapsed() > timeout {
                return Err(Error::Setup(format!("{name}: no \"{pattern}\" after {timeout:?}; log:\n{}", self.log(name))));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    /// The time of the first line with `pattern` in a log (seconds since that program
    /// started), as the programs print it.
    pub fn log_time(&self, name: &str, pattern: &str) -> Option<f64> {
        self.log(name).lines().find(|l| l.contains(pattern)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
    }

    /// Stops a process with SIGINT (it deauthenticates and exits), SIGKILL after 3 s.
    pub fn stop(&mut self, name: &str) {
        if let Some(i) = self.procs.iter().position(|(n, _)| n == name) {
            let (_, mut c) = self.procs.remove(i);
            // SAFETY: kill on our own child's pid.
            unsafe { libc::kill(c.id() as i32, libc::SIGINT) };
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(3) {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Kills a process without letting it say goodbye.
    pub fn kill(&mut self, name: &str) {
        if let Some(i) = self.procs.iter().position(|(n, _)| n == name) {
            let (_, mut c) = self.procs.remove(i);
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// `ping -c count` from a namespace; the average RTT in ms.
    pub fn ping(&self, from: &str, ip: &str, count: u32) -> Result<f64> {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.ns(from), "ping", "-q", "-c", &count.to_string(), "-i", "0.2", "-W", "2", ip])
            .output()
            .map_err(|e| Error::io("ping (install iputils-ping)", e))?;
        let s = String::from_utf8_lossy(&out.stdout);
        let rtt = s.lines().find(|l| l.contains("min/avg/max")).and_then(|l| l.split('=').nth(1)?.trim().split('/').nth(1)?.parse().ok());
        match rtt {
            Some(r) if out.status.success() => Ok(r),
            _ => Err(Error::Setup(format!("ping {ip} from {from} failed: {s}{}", String::from_utf8_lossy(&out.stderr)))),
        }
    }

    /// Waits until `from` can ping `ip`.
    pub fn wait_ping(&self, from: &str, ip: &str, timeout: Duration) -> Result<()> {
        let t0 = Instant::now();
        loop {
            match self.ping(from, ip, 1) {
                Ok(_) => return Ok(()),
                Err(e) if t0.elapsed() > timeout => return Err(e),
                Err(_) => {}
            }
        }
    }

    /// Sends `bytes` of pseudo-random data over TCP from namespace `from` to `ip` (in
    /// namespace `to`) and checks the receiver's SHA-256 against the sender's. Returns
    /// the goodput in Mb/s.
    pub fn tcp(&self, from: &str, to: &str, ip: &str, bytes: usize, port: u16) -> Result<f64> {
        tcp_ns(&self.ns(from), &self.ns(to), ip, bytes, port)
    }

    /// `ping -w seconds` from a namespace (what runs beside a transfer: the RTT under
    /// load); the average RTT in ms.
    pub fn ping_during(&self, from: &str, ip: &str, seconds: u64) -> Result<f64> {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.ns(from), "ping", "-q", "-i", "0.2", "-w", &seconds.max(1).to_string(), ip])
            .output()
            .map_err(|e| Error::io("ping (install iputils-ping)", e))?;
        let s = String::from_utf8_lossy(&out.stdout);
        s.lines()
            .find(|l| l.contains("min/avg/max"))
            .and_then(|l| l.split('=').nth(1)?.trim().split('/').nth(1)?.parse().ok())
            .ok_or_else(|| Error::Setup(format!("ping {ip} from {from} under load: no reply: {s}")))
    }
}

/// [`Lab::tcp`] between two named network namespaces.
pub fn tcp_ns(from_ns: &str, to_ns: &str, ip: &str, bytes: usize, port: u16) -> Result<f64> {
    {
        let (from, to) = (from_ns, to_ns);
        use sha2::{Digest, Sha256};
        let (tx, rx) = std::sync::mpsc::channel();
        let server = netns::run_in(to, move || -> Result<(usize, Vec<u8>)> {
            let l = std::net::TcpListener::bind(("0.0.0.0", port)).map_err(|e| Error::io("listen", e))?;
            let _ = tx.send(());
            let (mut c, _) = l.accept().map_err(|e| Error::io("accept", e))?;
            c.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| Error::io("receive timeout", e))?;
            let mut h = Sha256::new();
            let mut buf = vec![0u8; 1 << 16];
            let mut n = 0;
            loop {
                let k = c.read(&mut buf).map_err(|e| Error::io(format!("receive after {n} bytes"), e))?;
                if k == 0 {
                    break;
                }
                h.update(&buf[..k]);
                n += k;
            }
            let _ = c.write_all(b"k");
            Ok((n, h.finalize().to_vec()))
        })
        .map_err(|e| Error::io(format!("TCP server thread in {to}"), e))?;
        rx.recv_timeout(Duration::from_secs(5)).map_err(|_| Error::Setup("TCP server did not start".into()))?;
        let ip = ip.to_string();
        let client = netns::run_in(from, move || -> Result<(f64, Vec<u8>)> {
            let addr: std::net::SocketAddr =
                format!("{ip}:{port}").parse().map_err(|_| Error::Setup(format!("not an address: {ip}:{port}")))?;
            let mut c = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(10)).map_err(|e| Error::io("connect", e))?;
            c.set_write_timeout(Some(Duration::from_secs(30))).map_err(|e| Error::io("send timeout", e))?;
            let mut h = Sha256::new();
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ port as u64;
            let mut block = vec![0u8; 1 << 16];
            let t0 = Instant::now();
            let mut sent = 0;
            while sent < bytes {
                for ch in block.chunks_mut(8) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ch.copy_from_slice(&x.to_le_bytes()[..ch.len()]);
                }
                let k = block.len().min(bytes - sent);
                c.write_all(&block[..k]).map_err(|e| Error::io(format!("send after {sent} bytes"), e))?;
                h.update(&block[..k]);
                sent += k;
            }
            c.shutdown(std::net::Shutdown::Write).map_err(|e| Error::io("shutdown", e))?;
            let mut ack = [0u8; 1];
            c.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| Error::io("receive timeout", e))?;
            c.read_exact(&mut ack).map_err(|e| Error::io("no acknowledgement", e))?;
            let secs = t0.elapsed().as_secs_f64();
            Ok((bytes as f64 * 8.0 / secs / 1e6, h.finalize().to_vec()))
        })
        .map_err(|e| Error::io(format!("TCP client thread in {from}"), e))?;
        let (mbps, sent_hash) =
            client.join().map_err(|_| Error::Setup("client panicked".into()))?.map_err(|e| Error::io(format!("entering {from}"), e))??;
        let (n, got_hash) =
            server.join().map_err(|_| Error::Setup("server panicked".into()))?.map_err(|e| Error::io(format!("entering {to}"), e))??;
        if n != bytes || got_hash != sent_hash {
            return Err(Error::Setup(format!(
                "TCP {from} -> {to}: {n} of {bytes} bytes, checksum {}",
                if got_hash == sent_hash { "equal" } else { "DIFFERENT" }
            )));
        }
        Ok(mbps)
    }
}

impl Lab {
    /// Stops every process (SIGINT first, so that the capture is complete).
    pub fn stop_all(&mut self) {
        let names: Vec<String> = self.procs.iter().map(|(n, _)| n.clone()).filter(|n| n != "air").collect();
        for n in names {
            self.stop(&n);
        }
        self.stop("air");
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        self.stop_all();
        // The directory holds configurations with the passphrase; WSEC_KEEP_LAB=1 keeps it
        // (and the programs' logs) for a look after a failure.
        if std::env::var_os("WSEC_KEEP_LAB").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        for n in &self.ns {
            let _ = sh(&["ip", "netns", "del", n]);
        }
        // A hub that was killed leaves its segment (one stopped removes it).
        if let Some(path) = self.air.strip_prefix("shm:").and_then(|n| wsec_live::medium::shm::path_of(n).ok()) {
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_dir_all(wsec_live::medium::shm::fifo_dir(&path));
        }
        if let Some(v) = &self.veth {
            let _ = sh(&["ip", "link", "del", v]);
        }
    }
}

/// Creates a new directory `prefix` + 16 random hex digits under `parent`, exclusively
/// (`mkdir` fails if the name exists: a directory or link planted at a predictable name is
/// never reused) and with mode 0700 (only the owner may list or enter it).
pub fn private_dir(parent: &Path, prefix: &str) -> Result<PathBuf> {
    use rand_core::RngCore;
    use std::os::unix::fs::DirBuilderExt;
    for _ in 0..16 {
        let dir = parent.join(format!("{prefix}{:016x}", rand_core::OsRng.next_u64()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                // The umask may have taken bits away, never added any; set 0700 exactly.
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| Error::io(dir.display().to_string(), e))?;
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(dir.display().to_string(), e)),
        }
    }
    Err(Error::Setup(format!("{}: no free name for a private directory", parent.display())))
}

/// Writes `text` to a new file `p` with mode 0600 (`O_CREAT | O_EXCL`: an existing file or
/// a link planted at the name is an error, never followed).
pub fn write_private(p: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(p)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| Error::io(p.display().to_string(), e))
}

#[cfg(test)]
mod private_tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// The configurations (with the passphrase) go into a new directory of a random name,
    /// mode 0700, as files 0600 that never follow a planted link.
    #[test]
    fn lab_directory_and_files_are_private() {
        let parent = std::env::temp_dir();
        let a = private_dir(&parent, "wsec-private-test-").unwrap();
        let b = private_dir(&parent, "wsec-private-test-").unwrap();
        assert_ne!(a, b);
        assert_eq!(std::fs::metadata(&a).unwrap().permissions().mode() & 0o777, 0o700);
        let conf = a.join("ap.conf");
        write_private(&conf, "wpa_passphrase=secret passphrase\n").unwrap();
        assert_eq!(std::fs::metadata(&conf).unwrap().mode() & 0o777, 0o600);
        // A second write to the same name, or through a link planted there, is refused.
        assert!(write_private(&conf, "x").is_err());
        let link = b.join("sta1.conf");
        std::os::unix::fs::symlink(&conf, &link).unwrap();
        assert!(write_private(&link, "x").is_err());
        assert_eq!(std::fs::read_to_string(&conf).unwrap(), "wpa_passphrase=secret passphrase\n");
        std::fs::remove_dir_all(&a).unwrap();
        std::fs::remove_dir_all(&b).unwrap();
    }
}
