//! The AP's side of SAE authentication (IEEE 802.11-2020 12.4; hostapd `handle_auth_sae`):
//! one protocol instance per station, anti-clogging tokens once
//! `sae_anti_clogging_threshold` exchanges are open, the PMK kept for the association.

use super::{AccessPoint, Peer, PeerState};
use crate::node::sae::{auth_frame, ms, SaeSettings};
use crate::node::{NodeEvent, Output, Phase};
use crate::rsn::sae::{self, Instance, Role, State};
use crate::wire::mac::MacAddr;
use zeroize::Zeroizing;

/// dot11RSNASAERetransPeriod of hostapd's AP (ms).
const RETRANS_MS: u64 = 40;
/// How long one anti-clogging secret serves (s; hostapd's 60).
const ANTI_CLOGGING_KEY_LIFETIME_S: u64 = 60;
/// dot11RSNAConfigPMKLifetime (hostapd's default, s).
pub(super) const PMK_LIFETIME_S: u64 = 43_200;

/// A cached PMKSA (12.6.10.3): the PMK of an accepted SAE exchange or OWE association
/// (`owe`), its PMKID, expiry (ns).
pub(super) struct Pmksa {
    pub(super) pmk: Zeroizing<Vec<u8>>,
    pub(super) pmkid: [u8; 16],
    pub(super) expires: u64,
    pub(super) owe: bool,
    /// The BSS that made it, when opportunistic key caching brought it from another.
    pub(super) okc_from: Option<MacAddr>,
}

impl AccessPoint {
    /// An Authentication frame of algorithm 3 from `sta`.
    pub(super) fn sae_auth(&mut self, now: u64, sta: &MacAddr, transaction: u16, status: u16, body: &[u8], out: &mut Output) {
        let Some(settings) = self.cfg.sae.clone() else {
            return self.sae_reply(sta, transaction, crate::wire::mgmt::StatusCode::NOT_SUPPORTED_AUTH_ALG.0, &[], out);
        };
        let has_instance = self.peers.get(sta).is_some_and(|p| p.sae.is_some());
        // Anti-clogging (12.4.6): tokens once this many exchanges are open.
        let clogging = self.sae_open_exchanges() >= settings.anti_clogging_threshold;
        let is_new = !self.peers.contains_key(sta);
        if !has_instance {
            if transaction != 1 {
                return self.counters.drop("sae confirm before commit");
            }
            if is_new && self.peers.len() >= self.cfg.max_stations {
                return self.sae_reply(sta, 1, crate::wire::mgmt::StatusCode::AP_FULL.0, &[], out);
            }
            let Some(h2e) = Instance::ap_h2e_for(settings.pwe, status) else {
                // hostapd: "SAE: Unexpected Status Code".
                return self.sae_reply(sta, 1, sae::status::UNSPECIFIED_FAILURE, &[], out);
            };
            if clogging {
                // Checked before anything is kept for the address or any group arithmetic
                // is done: a flood of commits from spoofed addresses costs an HMAC each
                // and leaves no state (12.4.6: the token lets the AP commit resources only
                // to a peer that receives at the address it claims).
                self.rotate_anti_clogging(now);
                if let Ok(c) = sae::msg::Commit::parse(body, h2e) {
                    if !c.token.as_deref().is_some_and(|t| self.anti_clogging.check(&sta.0, t)) {
                        self.counters.drop("sae commit without a valid token");
                        let req = sae::msg::anti_clogging_request(c.group, &self.anti_clogging.token(&sta.0), h2e);
                        return self.sae_reply(sta, 1, sae::status::ANTI_CLOGGING_TOKEN_REQUIRED, &req, out);
                    }
                }
            }
            let Some(pw) = settings.password_for(sta) else {
                return self.sae_reply(sta, 1, sae::status::UNSPECIFIED_FAILURE, &[], out);
            };
            let inst = match Instance::new(
                Role::Ap,
                settings.sm_config(RETRANS_MS),
                h2e,
                self.cfg.bssid.0,
                sta.0,
                &self.cfg.ssid,
                SaeSettings::credentials(pw),
            ) {
                Ok(i) => i,
                Err(_) => return self.sae_reply(sta, 1, sae::status::UNSPECIFIED_FAILURE, &[], out),
            };
            // A new exchange replaces an earlier one only once it is accepted: an MFP
            // station's association stands until then (11.13).
            let p = self.peers.entry(*sta).or_insert_with(|| Peer::new(now, PeerState::Sae));
            p.sae = Some(Box::new(inst));
        }
        let clog = clogging.then_some(&self.anti_clogging);
        let Some(p) = self.peers.get_mut(sta) else { return };
        p.last_rx = now;
        let inst = p.sae.as_mut().expect("instance made above");
        let outs = inst.receive(ms(now), transaction, status, body, &mut *self.rng, clog);
        let refused = inst.state() == State::Nothing;
        self.sae_outputs(now, sta, outs, out);
        if is_new && refused && self.peers.get(sta).is_some_and(|p| matches!(p.state, PeerState::Sae)) {
            // A first commit answered with a refusal (a malformed commit, a group not
            // offered, an unknown password identifier) leaves nothing behind either.
            self.peers.remove(sta);
        }
    }

    /// SAE exchanges past their commit and not yet accepted: the anti-clogging load.
    fn sae_open_exchanges(&self) -> usize {
        self.peers.values().filter(|p| p.sae.as_ref().is_some_and(|i| i.state() == State::Committed)).count()
    }

    /// A new anti-clogging secret every minute, as hostapd's `sae_token_key`: a token
    /// seen on the air stops working soon after.
    fn rotate_anti_clogging(&mut self, now: u64) {
        if now.saturating_sub(self.anti_clogging_since) >= ANTI_CLOGGING_KEY_LIFETIME_S * crate::node::SEC {
            self.anti_clogging = sae::AntiClogging::new(&mut *self.rng);
            self.anti_clogging_since = now;
        }
    }

    /// PMKSA caching: the cached PMK when the station's RSN element names its PMKID and it
    /// has not expired (the station then skips SAE: open system authentication, 12.6.10.3).
    pub(super) fn cached_pmk(&mut self, now: u64, sta: &MacAddr, rsne: Option<&[u8]>) -> Option<Zeroizing<Vec<u8>>> {
        self.pmksa.retain(|_, c| c.expires > now);
        let e = crate::rsn::ie::RsnElementRepr::parse(rsne?).ok()?;
        if let Some(c) = self.pmksa.get(sta).filter(|c| !c.owe) {
            if e.pmkids.iter().any(|id| bool::from(subtle::ConstantTimeEq::ct_eq(&id[..], &c.pmkid[..]))) {
                return Some(c.pmk.clone());
            }
        }
        self.okc_pmk(now, sta, &e)
    }

    /// Opportunistic key caching: a PMKSA another BSS of the group made with `sta` whose
    /// PMK gives one of the offered PMKIDs for this BSSID (hostapd `pmksa_cache_get_okc`),
    /// taken into this BSS's cache.
    fn okc_pmk(&mut self, now: u64, sta: &MacAddr, e: &crate::rsn::ie::RsnElementRepr) -> Option<Zeroizing<Vec<u8>>> {
        let g = self.okc.as_ref().filter(|_| self.cfg.okc)?;
        let akm = e.akms.first().and_then(|a| a.akm()).filter(|a| a.is_8021x())?;
        let bssid = self.cfg.bssid;
        let (id, s) = e.pmkids.iter().find_map(|id| g.find(now, sta, &bssid, akm, id).map(|s| (*id, s)))?;
        self.pmksa.insert(*sta, Pmksa { pmk: s.pmk.clone(), pmkid: id, expires: s.expires, owe: false, okc_from: Some(s.origin) });
        self.eap_cache.insert(*sta, s.run);
        Some(s.pmk)
    }

    /// Joins the BSSs that share their 802.1X PMKSAs (opportunistic key caching, with
    /// `okc` set in the configuration of each).
    pub fn join_okc_group(&mut self, g: std::sync::Arc<super::OkcGroup>) {
        self.okc = Some(g);
    }

    /// The PMKID of the cached PMKSA with `sta`, if any (sent in the clear by stations
    /// that use it; for tests and status).
    pub fn pmksa_pmkid(&self, sta: &MacAddr) -> Option<[u8; 16]> {
        self.pmksa.get(sta).map(|c| c.pmkid)
    }

    /// The unexpired PMKSA cache entries (12.6.10.3), by station: (station, PMKID, seconds
    /// left), for the control interface's `PMKSA`.
    pub fn pmksa_list(&self, now: u64) -> Vec<(MacAddr, [u8; 16], u64)> {
        self.pmksa.iter().filter(|(_, c)| c.expires > now).map(|(a, c)| (*a, c.pmkid, (c.expires - now) / 1_000_000_000)).collect()
    }

    /// Forgets every cached PMKSA (`PMKSA_FLUSH`): returning stations run SAE again.
    pub fn pmksa_flush(&mut self) {
        self.pmksa.clear();
    }

    /// Retransmissions and the Sync limit of open SAE exchanges.
    pub(super) fn sae_timeouts(&mut self, now: u64, out: &mut Output) {
        let due: Vec<MacAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| p.sae.as_ref().and_then(|i| i.deadline()).is_some_and(|d| d <= ms(now)))
            .map(|(a, _)| *a)
            .collect();
        for a in due {
            let Some(inst) = self.peers.get_mut(&a).and_then(|p| p.sae.as_mut()) else { continue };
            let outs = inst.on_timeout(ms(now));
            self.sae_outputs(now, &a, outs, out);
        }
    }

    fn sae_reply(&mut self, sta: &MacAddr, transaction: u16, status: u16, body: &[u8], out: &mut Output) {
        let seq = self.seq.take();
        let f = auth_frame(sta, &self.cfg.bssid, &self.cfg.bssid, seq, transaction, status, body);
        self.tx_mgmt(f, out);
    }

    fn sae_outputs(&mut self, now: u64, sta: &MacAddr, outs: Vec<sae::Output>, out: &mut Output) {
        for o in outs {
            match o {
                sae::Output::Send { transaction, status, body } => self.sae_reply(sta, transaction, status, &body, out),
                sae::Output::Accepted(keys) => {
                    // The station is (re)authenticated: earlier keys and association go.
                    let (group, h2e) = match self.peers.get(sta).and_then(|p| p.sae.as_ref()) {
                        Some(i) => (i.group().id(), i.exchange().is_some_and(|e| e.h2e())),
                        None => (0, false),
                    };
                    let was_associated = self.peers.get(sta).is_some_and(|p| p.state.is_associated());
                    if was_associated {
                        self.forget_keys(sta, out);
                    }
                    if let Some(p) = self.peers.get_mut(sta) {
                        let inst = p.sae.take();
                        *p = Peer {
                            sae: inst,
                            sae_pmk: Some(Zeroizing::new(keys.pmk().to_vec())),
                            ..Peer::new(now, PeerState::Authenticated)
                        };
                    }
                    let expires = now.saturating_add(PMK_LIFETIME_S * crate::node::SEC);
                    self.pmksa.insert(
                        *sta,
                        Pmksa { pmk: Zeroizing::new(keys.pmk().to_vec()), pmkid: *keys.pmkid(), expires, owe: false, okc_from: None },
                    );
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::SaeAuthenticated { group, h2e } });
                }
                sae::Output::Failed(status) => {
                    self.counters.drop("sae authentication failed");
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::SaeFailed { status } });
                    let keep = self.peers.get(sta).is_some_and(|p| !matches!(p.state, PeerState::Sae));
                    if keep {
                        if let Some(p) = self.peers.get_mut(sta) {
                            p.sae = None;
                        }
                    } else {
                        self.peers.remove(sta);
                    }
                }
            }
        }
    }
}
