//! The live system's access point and station (seed 000, Figs. 1-2) as sans-IO cores.
//!
//! [`ap::AccessPoint`] and [`sta::Station`] take bytes and the time in and give bytes,
//! events and their next deadline out, like rustls or quinn-proto: 802.11 MPDUs from the
//! medium (`handle_air`), Ethernet frames from the host's TAP device (`handle_host`) and
//! timer expiries (`handle_timeout`). They never touch a socket or a clock; the programs
//! `wsec ap` / `wsec sta` (and the tests) put the medium, the TAP and the clock around them.
//!
//! The phases of IEEE 802.11i run in the cores (12.1, 12.6; seed 000 Fig. 2): discovery
//! (Beacon / Probe Response with the RSN element), authentication (open system, or WEP
//! shared key 12.3.3.3), association with cipher/AKM negotiation (12.6.3), key
//! generation and distribution (the 4-way and group key handshakes of
//! [`crate::rsn::handshake`], unchanged), protected data transfer, and termination
//! (Deauthentication/Disassociation at shutdown and on inactivity).
//!
//! The keys the handshakes produce go to the host crypto [`engine::Engine`] and nowhere
//! else: the medium only ever sees protected frames (seed 000's modified phase 4).
//!
//! - [`frames`]: the management and data frames the cores exchange.
//! - [`amsdu`]: the MSDUs of a received A-MSDU, with the FragAttacks rules.
//! - [`engine`]: the host crypto engine (security associations, batch crypto).
//! - [`datapath`]: the data path both cores share: batches through the engine, the
//!   queue of frames waiting for the card, their release, the parsed receive header.
//! - [`card`]: the wireless card's timing model (`crypto_offload=host|card`).
//! - [`ap`], [`sta`]: the two cores, both behind [`Node`] ([`node_if`]).
//! - [`sae`]: SAE authentication (algorithm 3) settings and frames for the cores.
//!
//! The configuration files that fill [`ap::ApConfig`] and [`sta::StaConfig`] (hostapd.conf,
//! wpa_supplicant.conf) are read by `wsec-live`'s `conf` module.
pub mod amsdu;
pub mod ap;
pub mod card;
pub mod datapath;
pub mod engine;
pub mod frames;
pub mod mfp;
pub mod node_if;
pub mod owe;
pub mod qos;
pub mod sae;
pub mod sta;

use crate::cipher::CipherSuite;
use crate::error::Error;
use crate::rsn::akm::Akm;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::ReasonCode;
use std::collections::BTreeMap;
use zeroize::Zeroizing;

pub use card::Offload;
pub use node_if::Node;

/// Link security of a BSS (AP) or a network block (STA).
#[derive(Clone)]
pub enum Security {
    /// No protection (seed 000 "open").
    Open,
    /// WEP-40/104 default keys (12.5.1), with open and/or shared-key authentication.
    Wep { keys: [Option<Zeroizing<Vec<u8>>>; 4], tx_key: u8, auth_algs: AuthAlgs },
    /// An RSNA with PSK (WPA2-Personal and the Enhanced-WPA2 of seed 000).
    /// The AP advertises every AKM and pairwise cipher listed and `groups[0]`; a STA
    /// picks its first AKM/pairwise the AP offers and accepts a group cipher in `groups`.
    Rsn { akms: Vec<Akm>, pairwise: Vec<CipherSuite>, groups: Vec<CipherSuite>, pmk: Zeroizing<Vec<u8>> },
}

impl core::fmt::Debug for Security {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Security::Open => f.write_str("Open"),
            Security::Wep { tx_key, auth_algs, .. } => write!(f, "Wep {{ tx_key: {tx_key}, auth_algs: {auth_algs:?} }}"),
            Security::Rsn { akms, pairwise, groups, .. } => {
                write!(f, "Rsn {{ akms: {akms:?}, pairwise: {pairwise:?}, groups: {groups:?} }}")
            }
        }
    }
}

impl Security {
    pub fn is_open(&self) -> bool {
        matches!(self, Security::Open)
    }
    /// A short name of the mode, as `wsec demo` prints it.
    pub fn describe(&self) -> String {
        match self {
            Security::Open => "open".into(),
            Security::Wep { keys, tx_key, .. } => {
                let l = keys.get(*tx_key as usize).and_then(|k| k.as_ref()).map(|k| k.len()).unwrap_or(0);
                CipherSuite::by_algorithm(crate::cipher::Algorithm::Wep, l).unwrap_or(CipherSuite::Wep104).name().into()
            }
            Security::Rsn { pairwise, groups, .. } => format!(
                "rsn pairwise={} group={}",
                pairwise.iter().map(|c| c.name()).collect::<Vec<_>>().join(","),
                groups.first().map(|c| c.name()).unwrap_or("-")
            ),
        }
    }
}

/// Authentication algorithms allowed (hostapd `auth_algs`: bit 0 open system, bit 1
/// shared key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthAlgs(pub u8);

impl AuthAlgs {
    pub const OPEN: AuthAlgs = AuthAlgs(1);
    pub const SHARED: AuthAlgs = AuthAlgs(2);
    pub const BOTH: AuthAlgs = AuthAlgs(3);
    pub fn open(self) -> bool {
        self.0 & 1 != 0
    }
    pub fn shared(self) -> bool {
        self.0 & 2 != 0
    }
}

/// A phase transition of the link with one peer (seed 000 Fig. 2), printed one per line
/// by `wsec ap` and `wsec sta`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Discovery: a BSS with our SSID and an acceptable security policy was found.
    Discovered {
        ssid: String,
        channel: u8,
        rsn: bool,
    },
    /// Authentication (open system or shared key) succeeded.
    Authenticated {
        shared_key: bool,
    },
    /// SAE authentication (12.4) succeeded: its group and whether hash-to-element derived
    /// the password element.
    SaeAuthenticated {
        group: u16,
        h2e: bool,
    },
    /// SAE authentication failed with this status code (15: the peer's confirm did not
    /// verify, a wrong password).
    /// OWE (RFC 8110): the PMK from the Diffie-Hellman exchange in `group`, or from the
    /// cached PMKSA the AP accepted (`cached`).
    OweKeys {
        group: u16,
        cached: bool,
    },
    SaeFailed {
        status: u16,
    },
    /// Association succeeded; for an RSNA the negotiated AKM and ciphers.
    Associated {
        aid: u16,
        akm: Option<Akm>,
        pairwise: Option<CipherSuite>,
        group: Option<CipherSuite>,
    },
    /// Keys are in the host engine and protected data may flow (4-way handshake done, or
    /// right after association for open/WEP).
    Established {
        pairwise: Option<CipherSuite>,
    },
    /// A PTK rekey (a new 4-way handshake) installed a new pairwise key.
    PtkRekeyed,
    /// The AP's message 3 carried a Transition Disable bitmap (WPA3 Specification 13.2);
    /// the station applied what it names to its network (`applied`).
    TransitionDisable {
        bitmap: u8,
        applied: bool,
    },
    /// A group key handshake completed (STA) or a new GTK is in use (AP).
    GroupKey {
        key_id: u8,
    },
    /// The handshake failed; the peer is deauthenticated.
    HandshakeFailed(&'static str),
    Deauthenticated {
        reason: ReasonCode,
        by_peer: bool,
    },
    Disassociated {
        reason: ReasonCode,
        by_peer: bool,
    },
    /// The STA heard nothing from its AP for too long and scans again.
    BeaconLoss,
    /// IEEE 802.1X: the EAP conversation started (CTRL-EVENT-EAP-STARTED).
    EapStarted,
    /// IEEE 802.1X: the station's association rides on a cached PMKSA (12.6.10.3): no EAP.
    PmksaCached,
    /// Opportunistic key caching: the cached PMKSA was made at the BSS `from` (hostapd's
    /// "OKC match for PMKID").
    OkcMatch {
        from: MacAddr,
    },
    /// EAP succeeded (CTRL-EVENT-EAP-SUCCESS): the PMK is the MSK's; `identity` as the
    /// station gave it, `method` the EAP method's name.
    EapSuccess {
        identity: String,
        method: &'static str,
    },
    /// EAP failed (CTRL-EVENT-EAP-FAILURE), with why.
    EapFailure(String),
    /// The key holders' RRB exchange with another AP ([`crate::rsn::rrb::RrbEvent`]'s words).
    Rrb(String),
    /// Fast BSS transition (13.5): the FT Authentication with the target AP succeeded
    /// (STA: `peer` is the target; AP: the station).
    FtAuthenticated,
    /// Fast BSS transition done (13.8.5): reassociated under the keys of the FT exchange,
    /// no 4-way handshake; `from` the AP left (the STA's old BSSID; the AP: the Current AP
    /// Address of the request), `over_ds` whether the exchange went through it (13.5.3).
    FtReassociated {
        from: MacAddr,
        over_ds: bool,
    },
    /// Fast BSS transition refused or given up (the status code of the target's answer, or
    /// 0 for no answer); the STA stays with its AP.
    FtFailed {
        status: u16,
        why: &'static str,
    },
    /// Neighbor Report Response (9.6.6.7) to the station's request: the neighbors the AP
    /// named, in its order (wpa_supplicant: one RRM-NEIGHBOR-REP-RECEIVED each).
    NeighborReport {
        dialog_token: u8,
        neighbors: Vec<crate::wire::rrm::NeighborReport>,
    },
    /// The station's Neighbor Report Request got no answer in time, or one naming no
    /// neighbor (wpa_supplicant's RRM-NEIGHBOR-REP-REQUEST-FAILED).
    NeighborReportFailed,
    /// A BSS Transition Management Request (9.6.13.9) from the AP: its Request Mode
    /// ([`crate::wire::wnm::request_mode`]), Disassociation Timer and Validity Interval
    /// (TBTTs), how many candidates it listed, its Session Information URL.
    BtmRequest {
        dialog_token: u8,
        mode: u8,
        disassoc_timer: u16,
        validity: u8,
        candidates: usize,
        url: Option<String>,
    },
    /// A BSS Transition Management Response (9.6.13.10): sent by the station, received by
    /// the AP (hostapd's BSS-TM-RESP); `target` with status 0.
    BtmResponse {
        dialog_token: u8,
        status: u8,
        termination_delay: u8,
        target: Option<MacAddr>,
    },
    /// The AP sent the station's Accounting-Request Stop with these counters (RFC 2866
    /// 5.3-5.8): octets and frames from the station (input) and to it (output).
    AccountingStop {
        in_octets: u64,
        in_frames: u64,
        out_octets: u64,
        out_frames: u64,
    },
}

impl core::fmt::Display for Phase {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let c = |c: &Option<CipherSuite>| c.map(|c| c.name()).unwrap_or("none");
        match self {
            Phase::Discovered { ssid, channel, rsn } => {
                write!(f, "discovery: ssid \"{ssid}\" channel {channel}{}", if *rsn { " rsn" } else { "" })
            }
            Phase::Authenticated { shared_key } => {
                write!(f, "authenticated ({})", if *shared_key { "shared key" } else { "open system" })
            }
            Phase::SaeAuthenticated { group, h2e } => {
                write!(f, "authenticated (sae group {group} {})", if *h2e { "hash-to-element" } else { "hunting-and-pecking" })
            }
            Phase::OweKeys { group, cached: false } => write!(f, "owe pmk from diffie-hellman group {group}"),
            Phase::OweKeys { cached: true, .. } => write!(f, "owe pmk from the cached pmksa"),
            Phase::SaeFailed { status } => write!(f, "sae authentication failed status {status}"),
            Phase::Associated { aid, akm, pairwise, group } => {
                write!(f, "associated aid {aid}")?;
                if let Some(a) = akm {
                    write!(f, " akm {} pairwise {} group {}", a, c(pairwise), c(group))?;
                }
                Ok(())
            }
            Phase::Established { pairwise } => write!(f, "keys installed, data open (pairwise {})", c(pairwise)),
            Phase::PtkRekeyed => write!(f, "ptk rekeyed"),
            Phase::TransitionDisable { bitmap, applied } => {
                write!(f, "transition disable 0x{bitmap:02x} ({})", if *applied { "applied to the network" } else { "nothing to change" })
            }
            Phase::GroupKey { key_id } => write!(f, "group key {key_id} in use"),
            Phase::HandshakeFailed(w) => write!(f, "handshake failed: {w}"),
            Phase::Deauthenticated { reason, by_peer } => {
                write!(f, "deauthenticated reason {reason}{}", if *by_peer { " (by peer)" } else { "" })
            }
            Phase::Disassociated { reason, by_peer } => {
                write!(f, "disassociated reason {reason}{}", if *by_peer { " (by peer)" } else { "" })
            }
            Phase::BeaconLoss => write!(f, "beacon loss: scanning again"),
            Phase::EapStarted => write!(f, "eap started"),
            Phase::PmksaCached => write!(f, "pmksa cache used: no eap"),
            Phase::OkcMatch { from } => write!(f, "okc match: pmksa made at {from}"),
            Phase::EapSuccess { identity, method } => write!(f, "eap success (method {method}, identity \"{identity}\")"),
            Phase::EapFailure(why) => write!(f, "eap failure: {why}"),
            Phase::Rrb(e) => f.write_str(e),
            Phase::FtAuthenticated => write!(f, "ft authenticated"),
            Phase::FtReassociated { from, over_ds } => {
                write!(f, "ft reassociated from {from} ({}), data open", if *over_ds { "over the ds" } else { "over the air" })
            }
            Phase::FtFailed { status, why } => write!(f, "ft failed status {status}: {why}"),
            Phase::NeighborReport { dialog_token, neighbors } => {
                write!(f, "neighbor report (token {dialog_token}):")?;
                for n in neighbors {
                    write!(f, " {} (channel {}{})", n.bssid, n.channel, n.preference().map(|p| format!(" pref {p}")).unwrap_or_default())?;
                }
                Ok(())
            }
            Phase::NeighborReportFailed => write!(f, "neighbor report request failed"),
            Phase::BtmRequest { dialog_token, mode, disassoc_timer, validity, candidates, url } => {
                write!(
                    f,
                    "bss transition management request (token {dialog_token}) mode 0x{mode:02x} disassociation timer {disassoc_timer} validity {validity} candidates {candidates}"
                )?;
                match url {
                    Some(u) => write!(f, " url {u}"),
                    None => Ok(()),
                }
            }
            Phase::BtmResponse { dialog_token, status, termination_delay, target } => {
                write!(
                    f,
                    "bss transition management response (token {dialog_token}) status {status} termination delay {termination_delay}"
                )?;
                match target {
                    Some(t) => write!(f, " target {t}"),
                    None => Ok(()),
                }
            }
            Phase::AccountingStop { in_octets, in_frames, out_octets, out_frames } => {
                write!(f, "accounting stop: in {in_octets} octets {in_frames} frames, out {out_octets} octets {out_frames} frames")
            }
        }
    }
}

/// What a core reports besides frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeEvent {
    Phase { peer: MacAddr, phase: Phase },
}

impl core::fmt::Display for NodeEvent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NodeEvent::Phase { peer, phase } => write!(f, "{peer} {phase}"),
        }
    }
}

/// What one call into a core produced. Reuse one `Output` across calls and drain it.
#[derive(Debug, Default)]
pub struct Output {
    /// 802.11 MPDUs (no FCS) to put on the medium, in order.
    pub air: Vec<Vec<u8>>,
    /// Ethernet frames for the host's TAP device.
    pub host: Vec<Vec<u8>>,
    pub events: Vec<NodeEvent>,
    /// RADIUS datagrams to send (an 802.1X access point's authentication and accounting).
    pub radius: Vec<crate::radius::client::Transmit>,
}

impl Output {
    pub fn clear(&mut self) {
        self.air.clear();
        self.host.clear();
        self.events.clear();
        self.radius.clear();
    }
}

/// Frame counters of a core; every dropped input is counted under a reason.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counters {
    pub rx_air: u64,
    pub tx_air: u64,
    pub rx_data: u64,
    pub tx_data: u64,
    pub rx_data_bytes: u64,
    pub tx_data_bytes: u64,
    pub rx_host: u64,
    pub tx_host: u64,
    /// AP: station-to-station frames relayed (decrypted with one key, encrypted with another).
    pub relayed: u64,
    /// A-MSDUs sent (9.3.2.2) and the MSDUs in them ([`qos::Aggregator`]).
    pub amsdu_tx: u64,
    pub amsdu_tx_msdus: u64,
    pub drops: BTreeMap<&'static str, u64>,
}

impl Counters {
    pub fn drop(&mut self, why: &'static str) {
        *self.drops.entry(why).or_insert(0) += 1;
    }
    pub fn dropped(&self, why: &str) -> u64 {
        self.drops.get(why).copied().unwrap_or(0)
    }
    pub fn total_drops(&self) -> u64 {
        self.drops.values().sum()
    }
}

impl core::fmt::Display for Counters {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "air rx {} tx {}; data rx {} ({} B) tx {} ({} B); host rx {} tx {}; relayed {}",
            self.rx_air,
            self.tx_air,
            self.rx_data,
            self.rx_data_bytes,
            self.tx_data,
            self.tx_data_bytes,
            self.rx_host,
            self.tx_host,
            self.relayed
        )?;
        // Printed once A-MSDUs went out: the line stays as it was for a non-HT BSS.
        if self.amsdu_tx > 0 {
            write!(f, "; a-msdu tx {} ({} msdus)", self.amsdu_tx, self.amsdu_tx_msdus)?;
        }
        write!(f, "; dropped")?;
        if self.drops.is_empty() {
            return write!(f, " 0");
        }
        for (k, v) in &self.drops {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

/// The drop reason of a frame the host engine refused.
pub(crate) fn rx_error_reason(e: &Error) -> &'static str {
    match e {
        Error::Replay => "replay",
        Error::MicFailure => "mic failure",
        Error::IcvFailure => "icv failure",
        Error::UnknownKeyId(_) => "unknown key id",
        Error::NotProtected => "unprotected",
        Error::Truncated => "truncated",
        Error::ExtIvMissing => "malformed security header",
        Error::Fragment(_) => "fragment",
        _ => "malformed",
    }
}

/// One second in ns.
pub const SEC: u64 = 1_000_000_000;
/// A time unit (TU, 1024 us) in ns.
pub const TU: u64 = 1_024_000;
