//! hostapd's and wpa_supplicant's control interface for `wsec ap` and `wsec sta`, so
//! `hostapd_cli`, `wpa_cli` and the scripts and monitoring built on them work unchanged
//! (docs/ctrl.md has the command table).
//!
//! - [`socket`]: the UNIX datagram socket, framing, `ATTACH`/`DETACH`, events, permissions;
//! - this module: the commands both daemons answer ([`Ctrl::request`]) and the
//!   [`CtrlNode`] interface through which it reaches each core's own;
//! - [`ap`]: the access point's commands and events (hostapd `ctrl_iface.c`,
//!   `src/ap/ctrl_iface_ap.c`);
//! - [`sta`]: the station's (wpa_supplicant `ctrl_iface.c`);
//! - [`wnm`]: neighbor reports and BSS transition management at both.
//!
//! The run loop ([`crate::runtime`]) polls the socket beside the medium and the TAP, hands
//! each request to [`Ctrl::request`] with the core, and each [`wsec::node::NodeEvent`] to
//! [`CtrlNode::events`]; commands that change the loop itself (reload, disable, ...) come
//! back as an [`Action`].
pub mod ap;
pub mod socket;
pub mod sta;
pub mod wnm;

pub use socket::{CtrlSocket, CtrlSpec};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;
use wsec::cipher::CipherSuite;
use wsec::node::{Node, NodeEvent, Output};
use wsec::rsn::ie::Suite;
use wsec::wire::mac::MacAddr;

/// What the run loop does after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Re-read the configuration file (hostapd `RELOAD`, wpa_supplicant `RECONFIGURE`).
    Reload,
    /// Stop serving: the AP stops beaconing, the station stops scanning (AP `DISABLE`,
    /// station `DISCONNECT`/`DISABLE_NETWORK`); the core was told to say goodbye.
    Pause,
    /// Serve again (AP `ENABLE`, station `RECONNECT`/`ENABLE_NETWORK`/`SELECT_NETWORK`).
    Resume,
    /// Leave the run loop as on SIGTERM (`TERMINATE`).
    Terminate,
}

/// What the run loop knows that the commands report.
pub struct Ctx<'a> {
    /// The time of the request (ns on the run loop's clock).
    pub now: u64,
    pub ifname: &'a str,
    /// Serving (not paused by DISABLE / DISCONNECT).
    pub enabled: bool,
    pub started: Instant,
    /// Frames from the medium with a bad FCS.
    pub bad_fcs: u64,
    /// The configuration file, for GET_CONFIG-like answers that need it.
    pub config: Option<&'a Path>,
    /// The BSSs of the radio when it has several (`bss=` sections), this one among them;
    /// empty for one BSS.
    pub radio: &'a [RadioBss],
}

/// One BSS of a radio with several, as hostapd's `STATUS` lists them on each of them.
#[derive(Debug)]
pub struct RadioBss {
    pub ifname: String,
    pub bssid: MacAddr,
    pub ssid: Vec<u8>,
    /// Its associated stations, as its run loop last counted them (at most a second old
    /// for the other BSSs).
    pub num_sta: std::sync::atomic::AtomicUsize,
}

/// The control interface of one node.
pub struct Ctrl {
    pub sock: CtrlSocket,
    /// AP: the stations reported AP-STA-CONNECTED and not yet AP-STA-DISCONNECTED.
    connected: BTreeSet<MacAddr>,
    /// Station: associated (a disconnection is reported), connected (keys in place).
    sta_associated: bool,
    sta_connected: bool,
    /// Station: the BSSs heard (Beacons, Probe Responses) for SCAN_RESULTS.
    pub scan: sta::ScanTable,
    /// AP: 4-way handshakes that failed (`dot11RSNA4WayHandshakeFailures`).
    handshake_failures: u64,
}

impl Ctrl {
    pub fn open(spec: &CtrlSpec, ifname: &str) -> std::io::Result<Ctrl> {
        Ok(Ctrl {
            sock: CtrlSocket::open(spec, ifname)?,
            connected: BTreeSet::new(),
            sta_associated: false,
            sta_connected: false,
            scan: sta::ScanTable::default(),
            handshake_failures: 0,
        })
    }

    /// One request from the client bound at `from`: the commands both daemons answer the
    /// same way here, the others by the core's [`CtrlNode::command`] (`UNKNOWN COMMAND`
    /// if it has none of that name). The reply, and what the run loop must do.
    pub fn request<N: CtrlNode>(
        &mut self,
        node: &mut N,
        req: &str,
        from: &Path,
        ctx: &Ctx<'_>,
        out: &mut Output,
    ) -> (String, Option<Action>) {
        let (cmd, arg) = split(req);
        let r = match cmd {
            "PING" => "PONG\n".into(),
            "ATTACH" => ok(self.sock.attach(from)),
            "DETACH" => ok(self.sock.detach(from)),
            "LEVEL" => match arg.parse::<u8>() {
                Ok(l) => ok(self.sock.set_level(from, l)),
                Err(_) => "FAIL\n".into(),
            },
            "STATUS" => self.status(node, ctx),
            "MIB" => node.mib(self),
            "PMKSA" => node.pmksa(ctx.now),
            "PMKSA_FLUSH" => {
                node.pmksa_flush();
                "OK\n".into()
            }
            "TERMINATE" => return ("OK\n".into(), Some(Action::Terminate)),
            _ => return node.command(self, cmd, arg, ctx, out).unwrap_or_else(|| ("UNKNOWN COMMAND\n".into(), None)),
        };
        (r, None)
    }

    /// `STATUS`: the core's, then the number of attached monitors (wsec's; neither daemon
    /// has that field).
    fn status<N: CtrlNode>(&self, node: &N, ctx: &Ctx<'_>) -> String {
        node.status(ctx) + &format!("ctrl_monitors={}\n", self.sock.monitors())
    }
}

/// What the control interface needs of a core beside [`Node`]: the replies and events it
/// gives in its daemon's formats (hostapd's for the access point, wpa_supplicant's for the
/// station), and the commands only that daemon has.
pub trait CtrlNode: Node {
    /// The `STATUS` reply (the engine's counters last).
    fn status(&self, ctx: &Ctx<'_>) -> String;
    /// The `MIB` reply: the 802.11 MIB's RSNA variables, then wsec's counters.
    fn mib(&self, ctrl: &Ctrl) -> String;
    /// The `PMKSA` reply: the PMKSA cache (IEEE 802.11-2020 12.6.10.2), see [`pmksa_txt`].
    fn pmksa(&self, now: u64) -> String;
    /// `PMKSA_FLUSH`: empties the PMKSA cache.
    fn pmksa_flush(&mut self);
    /// A command of this daemon only; None: it has none of that name.
    fn command(&mut self, ctrl: &mut Ctrl, cmd: &str, arg: &str, ctx: &Ctx<'_>, out: &mut Output) -> Option<(String, Option<Action>)>;
    /// The core's events as the daemon sends them to its monitors.
    fn events(&self, ctrl: &mut Ctrl, events: &[NodeEvent]);
    /// A frame the run loop took from the medium (`mpdu`, inside `frame` after its
    /// radiotap header); nothing by default.
    fn heard(&self, _ctrl: &mut Ctrl, _now: u64, _mpdu: &[u8], _frame: &[u8]) {}
    /// Time-driven events, once per turn of the run loop; nothing by default.
    fn tick(&self, _ctrl: &mut Ctrl, _now: u64) {}
    /// What the daemon decides by itself from what the control side knows (the station's
    /// roaming from the BSS table's signal levels), once per turn; nothing by default.
    fn act(&mut self, _ctrl: &mut Ctrl, _now: u64, _out: &mut Output) {}
    /// The event sent when the node stops serving (`enabled` false) or serves again;
    /// none by default.
    fn serving_event(&self, _enabled: bool) -> Option<&'static str> {
        None
    }
}

/// A `PMKSA` reply as hostapd's `pmksa_cache_auth_list` and wpa_supplicant's
/// `pmksa_cache_list` write it: a header naming the peer column (`SPA` at an AP, `AA` at a
/// station), then one line per entry counted from `first` (hostapd 0, wpa_supplicant 1):
/// peer, PMKID in hex, seconds left, 1 for an opportunistic key caching entry its AP has
/// not yet accepted, else 0.
pub fn pmksa_txt(peer: &str, first: usize, entries: impl IntoIterator<Item = (MacAddr, [u8; 16], u64, bool)>) -> String {
    let mut r = format!("Index / {peer} / PMKID / expiration (in seconds) / opportunistic\n");
    for (i, (addr, pmkid, left, okc)) in entries.into_iter().enumerate() {
        let hex: String = pmkid.iter().map(|b| format!("{b:02x}")).collect();
        r += &format!("{} {addr} {hex} {left} {}\n", first + i, u8::from(okc));
    }
    r
}

/// The command word and the rest.
pub(crate) fn split(req: &str) -> (&str, &str) {
    match req.split_once(' ') {
        Some((c, a)) => (c, a.trim()),
        None => (req.trim(), ""),
    }
}

pub(crate) fn ok(b: bool) -> String {
    if b { "OK\n" } else { "FAIL\n" }.into()
}

/// A cipher as hostapd and wpa_supplicant write it (`wpa_cipher_txt`, from the suite
/// table); wsec's ECCMP suites under their own names.
pub fn cipher_txt(c: CipherSuite) -> &'static str {
    c.hostapd_txt()
}

/// A suite selector as hostapd writes it in the MIB (`RSN_SUITE`: "%02x-%02x-%02x-%d").
pub fn suite_txt(s: Suite) -> String {
    format!("{:02x}-{:02x}-{:02x}-{}", s.oui[0], s.oui[1], s.oui[2], s.suite_type)
}

/// A frequency in MHz of a 2.4 GHz channel (IEEE 802.11-2020 15.4.4.3 / 19.3.15.2) or a
/// 5 GHz one (17.3.8.4.2).
pub fn channel_freq(ch: u8) -> u32 {
    match ch {
        14 => 2484,
        1..=13 => 2407 + 5 * ch as u32,
        _ => 5000 + 5 * ch as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wsec::node::ap::{AccessPoint, ApConfig};
    use wsec::node::sta::{StaConfig, Station};
    use wsec::node::Security;

    /// The shared commands answer alike at both nodes (PMKSA with each daemon's header);
    /// each node's own commands are UNKNOWN COMMAND at the other.
    #[test]
    fn shared_and_own_commands() {
        let dir = std::env::temp_dir().join(format!("wsec-ctrl-mod-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = CtrlSpec::parse(dir.to_str().unwrap(), None).unwrap();
        let (mut ca, mut cs) = (Ctrl::open(&spec, "wap8").unwrap(), Ctrl::open(&spec, "wsta8").unwrap());
        let mut ap =
            AccessPoint::new(ApConfig::new("02:00:00:00:00:01".parse().unwrap(), b"t", Security::Open), 1, Box::new(rand_core::OsRng))
                .unwrap();
        let mut sta =
            Station::new(StaConfig::new("02:00:00:00:00:11".parse().unwrap(), b"t", Security::Open), 1, Box::new(rand_core::OsRng))
                .unwrap();
        let ctx = Ctx { now: 2, ifname: "x", enabled: true, started: Instant::now(), bad_fcs: 0, config: None, radio: &[] };
        let from = Path::new("/nonexistent/client");
        let mut out = Output::default();
        let mut a = |r: &str| ca.request(&mut ap, r, from, &ctx, &mut out);
        assert_eq!(a("PING").0, "PONG\n");
        assert_eq!(a("PMKSA").0, "Index / SPA / PMKID / expiration (in seconds) / opportunistic\n");
        assert_eq!(a("PMKSA_FLUSH").0, "OK\n");
        assert!(a("STATUS").0.starts_with("state=ENABLED\n") && a("STATUS").0.ends_with("ctrl_monitors=0\n"));
        assert_eq!(a("TERMINATE"), ("OK\n".into(), Some(Action::Terminate)));
        assert_eq!(a("RELOAD"), ("OK\n".into(), Some(Action::Reload)));
        for own in ["STATUS-VERBOSE", "RECONFIGURE", "SCAN", "IFNAME", "NOPE"] {
            assert_eq!(a(own).0, "UNKNOWN COMMAND\n", "{own}");
        }
        let mut out = Output::default();
        let mut s = |r: &str| cs.request(&mut sta, r, from, &ctx, &mut out);
        assert_eq!(s("PING").0, "PONG\n");
        assert_eq!(s("PMKSA").0, "Index / AA / PMKID / expiration (in seconds) / opportunistic\n");
        // The same reply but for the CPU time, which moves between the two.
        let steady = |r: String| r.lines().filter(|l| !l.starts_with("cores_busy=")).collect::<Vec<_>>().join("\n");
        assert_eq!(steady(s("STATUS").0), steady(s("STATUS-VERBOSE").0));
        assert!(s("STATUS").0.starts_with("wpa_state=SCANNING\naddress=02:00:00:00:00:11\n"));
        assert!(s("STATUS").0.ends_with("ctrl_monitors=0\n"));
        assert_eq!(s("IFNAME").0, "x\n");
        assert_eq!(s("RECONFIGURE"), ("OK\n".into(), Some(Action::Reload)));
        assert_eq!(s("TERMINATE"), ("OK\n".into(), Some(Action::Terminate)));
        for own in ["RELOAD", "STA-FIRST", "REKEY_GTK", "GET_CONFIG", "NOPE"] {
            assert_eq!(s(own).0, "UNKNOWN COMMAND\n", "{own}");
        }
        drop((ca, cs));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// wpa_supplicant's `pmksa_cache_list` line: index, AA, PMKID in hex, seconds left,
    /// opportunistic 0 or 1 (hostapd's the same, counted from 0).
    #[test]
    fn pmksa_lines_as_the_daemons_write_them() {
        let a: MacAddr = "02:00:00:00:a0:01".parse().unwrap();
        let b: MacAddr = "02:00:00:00:a0:02".parse().unwrap();
        let mut id = [0u8; 16];
        id[0] = 0xab;
        id[15] = 0x01;
        let r = pmksa_txt("AA", 1, [(a, id, 43_199, false), (b, [0x10; 16], 7, true)]);
        assert_eq!(
            r,
            "Index / AA / PMKID / expiration (in seconds) / opportunistic\n\
             1 02:00:00:00:a0:01 ab000000000000000000000000000001 43199 0\n\
             2 02:00:00:00:a0:02 10101010101010101010101010101010 7 1\n"
        );
        assert!(pmksa_txt("SPA", 0, [(a, id, 5, false)]).ends_with("\n0 02:00:00:00:a0:01 ab000000000000000000000000000001 5 0\n"));
    }
}
