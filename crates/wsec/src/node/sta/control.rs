//! What the control interface reads at the station (wpa_supplicant's `STATUS`, ...):
//! its state, the BSS, what association negotiated, management frame protection.
use crate::cipher::CipherSuite;
use crate::node::datapath::Datapath;
use crate::node::engine;
use crate::rsn::akm::Akm;
use crate::wire::mac::MacAddr;

use super::{Negotiated, StaConfig, State, Station};

impl Station {
    pub fn addr(&self) -> MacAddr {
        self.cfg.addr
    }

    pub fn config(&self) -> &StaConfig {
        &self.cfg
    }

    /// Whether protected data may flow.
    pub fn is_established(&self) -> bool {
        self.state.is_established()
    }

    /// The AP's BSSID once associated.
    pub fn bssid(&self) -> Option<MacAddr> {
        self.state.link().map(|l| l.bss.bssid)
    }

    /// The channel of the BSS joined or being joined.
    pub fn channel(&self) -> Option<u8> {
        self.state.link().map(|l| l.bss.channel)
    }

    /// What association negotiated with an RSN/WPA AP: AKM, pairwise and group cipher,
    /// WPA1 (rather than RSN), management frame protection.
    pub fn negotiated(&self) -> Option<(Akm, CipherSuite, CipherSuite, bool, bool)> {
        self.neg().map(|n| (n.akm, n.pairwise, n.group, crate::rsn::ie::is_wpa_element(&n.sta_rsne), n.group_mgmt.is_some()))
    }

    /// The state as wpa_supplicant names it (`wpa_supplicant_state_txt`): SCANNING,
    /// AUTHENTICATING, ASSOCIATING, 4WAY_HANDSHAKE, COMPLETED.
    pub fn wpa_state(&self) -> &'static str {
        match self.state {
            State::Scanning => "SCANNING",
            State::Authenticating { .. } => "AUTHENTICATING",
            State::Associating(_) => "ASSOCIATING",
            State::Handshake(..) => "4WAY_HANDSHAKE",
            State::Established(..) => "COMPLETED",
        }
    }

    /// Whether management frame protection is in force with the AP (negotiated, and the
    /// 4-way handshake done).
    pub fn mfp_active(&self) -> bool {
        self.state.is_established() && self.neg().is_some_and(|n| n.group_mgmt.is_some())
    }

    /// Whether an SA Query (11.13) to the AP is running.
    pub fn sa_query_running(&self) -> bool {
        self.state.rsna().is_some_and(|r| r.sa_query.is_some())
    }

    /// Runs the host engine's batch crypto on these threads (None: the calling thread).
    pub fn set_crypto_threads(&mut self, p: Option<Box<dyn engine::Parallel>>) {
        self.dp.set_parallel(p);
    }

    /// Measures the time of the engine's AEAD passes with the runtime's clock.
    pub fn set_crypto_meter(&mut self, m: Option<engine::Meter>) {
        self.dp.set_meter(m);
    }

    /// The data path: the host engine's counters and threads, the card model.
    pub fn datapath(&self) -> &Datapath {
        &self.dp
    }

    /// What association negotiated with the BSS chosen.
    pub(super) fn neg(&self) -> Option<&Negotiated> {
        self.state.link().and_then(|l| l.neg.as_ref())
    }
}
