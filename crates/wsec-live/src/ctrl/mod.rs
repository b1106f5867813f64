//! hostapd's and wpa_supplicant's control interface for `wsec ap` and `wsec sta`, so
//! `hostapd_cli`, `wpa_cli` and the scripts and monitoring built on them work unchanged
//! (docs/ctrl.md has the command table).
//!
//! - [`socket`]: the UNIX datagram socket, framing, `ATTACH`/`DETACH`, events, permissions;
//! - [`ap`]: the access point's commands and events (hostapd `ctrl_iface.c`,
//!   `src/ap/ctrl_iface_ap.c`);
//! - [`sta`]: the station's (wpa_supplicant `ctrl_iface.c`).
//!
//! The run loop ([`crate::runtime`]) polls the socket beside the medium and the TAP, hands
//! each request to [`Ctrl::ap_request`] / [`Ctrl::sta_request`] with the core, and each
//! [`wsec::node::NodeEvent`] to [`Ctrl::ap_events`] / [`Ctrl::sta_events`]; commands that
//! change the loop itself (reload, disable, ...) come back as an [`Action`].
pub mod ap;
pub mod socket;
pub mod sta;

pub use socket::{CtrlSocket, CtrlSpec};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;
use wsec::cipher::CipherSuite;
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
    pub ifname: &'a str,
    /// Serving (not paused by DISABLE / DISCONNECT).
    pub enabled: bool,
    pub started: Instant,
    /// Frames from the medium with a bad FCS.
    pub bad_fcs: u64,
    /// The configuration file, for GET_CONFIG-like answers that need it.
    pub config: Option<&'a Path>,
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

    /// The commands both daemons answer the same way; None for the others.
    fn common(&mut self, req: &str, from: &Path) -> Option<String> {
        let (cmd, arg) = split(req);
        Some(match cmd {
            "PING" => "PONG\n".into(),
            "ATTACH" => ok(self.sock.attach(from)),
            "DETACH" => ok(self.sock.detach(from)),
            "LEVEL" => match arg.parse::<u8>() {
                Ok(l) => ok(self.sock.set_level(from, l)),
                Err(_) => "FAIL\n".into(),
            },
            _ => return None,
        })
    }
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
