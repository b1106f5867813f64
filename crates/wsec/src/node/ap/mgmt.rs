//! Management frames at the AP: their dispatch, Beacons and Probe Responses (11.1.3),
//! the frames it sends, and the end of associations and authentications
//! (Deauthentication, Disassociation, inactivity; 11.3.4, 11.3.5.9).
use super::{AccessPoint, PeerState};
use crate::node::frames::{self, Mgmt};
use crate::node::{NodeEvent, Output, Phase, SEC, TU};
use crate::radius::packet::TerminateCause;
use crate::wire::mac::{MacAddr, Mpdu};
use crate::wire::mgmt::{self, ActionCategory, AuthAlgorithm, Capability, ReasonCode};

/// How many transmitters' last management Sequence Control the AP remembers.
const MGMT_SEQ_CACHE: usize = 4096;

impl AccessPoint {
    /// The Capability Information field (9.4.1.4) of our Beacons and responses.
    pub(super) fn capability(&self) -> Capability {
        Capability(Capability::ESS | Capability::SHORT_PREAMBLE)
            .with(Capability::PRIVACY, !self.cfg.security.is_open())
            .with(crate::wire::rrm::CAPABILITY_RADIO_MEASUREMENT, self.cfg.rrm_neighbor_report)
    }

    /// What Beacons (`probe: false`) and Probe Responses say; a hidden BSS
    /// (`ignore_broadcast_ssid`) leaves its SSID out of Beacons only.
    pub(super) fn bss_info(&self, probe: bool) -> frames::BssInfo {
        let ssid = match self.cfg.ignore_broadcast_ssid {
            1 if !probe => Vec::new(),
            2 if !probe => vec![0; self.cfg.ssid.len()],
            _ => self.cfg.ssid.clone(),
        };
        frames::BssInfo {
            bssid: self.cfg.bssid,
            ssid,
            channel: self.cfg.channel,
            beacon_interval_tu: self.cfg.beacon_interval_tu,
            capability: self.capability(),
            rsne: self.rsne.clone(),
            wpa_ie: self.wpa_ie.clone(),
            rsnxe: self.cfg.sae.as_ref().filter(|s| s.offers_h2e()).map(|_| crate::node::sae::rsnxe_h2e()),
            owe_transition: self.cfg.owe_transition.as_ref().map(|t| t.element()),
            mde: self.ft_mde(),
            ht: (!self.ht_ies.is_empty()).then(|| self.ht_ies.clone()),
            wmm: (!self.wmm_ie.is_empty()).then(|| self.wmm_ie.clone()),
        }
    }

    /// Queues a management frame for the medium as it is.
    pub(super) fn tx_mgmt(&mut self, f: Vec<u8>, out: &mut Output) {
        self.flush_amsdu(self.clock, out);
        self.counters.tx_air += 1;
        out.air.push(f);
    }

    /// A Beacon (11.1.3.1), and the time of the next one.
    pub(super) fn beacon(&mut self, now: u64, out: &mut Output) {
        let tsf = (now - self.start) / 1000;
        let seq = self.seq.take();
        let b = self.with_wnm_elements(frames::beacon(&self.bss_info(false), tsf, seq, None));
        self.tx_mgmt(b, out);
        let iv = self.cfg.beacon_interval_tu as u64 * TU;
        self.next_beacon = (self.next_beacon + iv).max(now + iv / 2);
    }

    /// Deauthenticates every station silent for longer than `ap_max_inactivity`.
    pub(super) fn deauth_idle(&mut self, now: u64, out: &mut Output) {
        let limit = self.cfg.max_inactivity_s.saturating_mul(SEC);
        let idle: Vec<MacAddr> = self.peers.iter().filter(|(_, p)| now.saturating_sub(p.last_rx) > limit).map(|(a, _)| *a).collect();
        for a in idle {
            self.deauth(&a, ReasonCode::INACTIVITY, out);
        }
    }

    /// Sends a management frame to `sta`, under its pairwise key when it is a robust
    /// frame to an MFP peer (CCMP/GCMP with the management nonce flag, Protected bit).
    pub(super) fn send_mgmt(&mut self, now: u64, sta: &MacAddr, f: Vec<u8>, out: &mut Output) {
        if self.peer_mfp(sta) && frames::is_robust(&f) {
            self.send_protected(now, Some(*sta), f, out);
        } else {
            self.tx_mgmt(f, out);
        }
    }

    /// A management frame for this BSS: the protection rules of MFP (12.6.3) first,
    /// then SAE, probes, authentication, association, and the station leaving.
    pub(super) fn handle_mgmt(&mut self, now: u64, hdr: Mpdu<'_>, out: &mut Output) {
        let mpdu = hdr.bytes();
        let Ok(f) = mgmt::Frame::from_mpdu(&hdr) else {
            return self.counters.drop("malformed");
        };
        let (sa, bssid, protected) = (f.sa(), f.bssid(), f.frame_control().protected());
        // 10.3.2.14.3: a retransmission (Retry set) of the last frame from this address is
        // discarded: a Reassociation Request repeated after its answer was sent late would
        // otherwise start the association over (an FT station would see a 4-way handshake).
        let sc = f.seq_control().0;
        if f.frame_control().retry() && self.mgmt_rx_seq.get(&sa) == Some(&sc) {
            return self.counters.drop("duplicate management frame");
        }
        if self.mgmt_rx_seq.len() >= MGMT_SEQ_CACHE && !self.mgmt_rx_seq.contains_key(&sa) {
            self.mgmt_rx_seq.clear();
        }
        self.mgmt_rx_seq.insert(sa, sc);
        if protected {
            if self.peer_mfp(&sa) {
                return self.protected_mgmt(now, &sa, &hdr, out);
            }
            // Otherwise only the third frame of shared-key authentication is protected.
            return self.shared_key_frame3(now, &sa, mpdu, out);
        }
        if let Some((t, st, body)) = crate::node::sae::parse_auth_mpdu(&hdr) {
            if bssid == self.cfg.bssid {
                return self.sae_auth(now, &sa, t, st, body, out);
            }
            return;
        }
        let m = match frames::parse_mgmt_mpdu(&hdr) {
            Ok(m) => m,
            Err(_) => return self.counters.drop("malformed"),
        };
        if bssid != self.cfg.bssid && !matches!(m, Mgmt::ProbeReq { .. }) {
            return;
        }
        if f.is_robust() && self.peer_mfp(&sa) {
            // 12.6.3: an MFP peer's robust management frames come protected; this one is
            // forged (e.g. a deauthentication attack) or stale.
            return self.counters.drop("unprotected robust management frame");
        }
        if let Some(p) = self.peers.get_mut(&sa) {
            p.last_rx = now;
        }
        match m {
            Mgmt::ProbeReq { ssid } if (ssid.is_empty() && self.cfg.ignore_broadcast_ssid == 0) || ssid == &self.cfg.ssid[..] => {
                let tsf = (now - self.start) / 1000;
                let seq = self.seq.take();
                let f = self.with_wnm_elements(frames::beacon(&self.bss_info(true), tsf, seq, Some(&sa)));
                self.tx_mgmt(f, out);
            }
            Mgmt::Auth { alg: AuthAlgorithm::FAST_BSS_TRANSITION, seq: 1, ies, .. } => self.ft_auth_request(now, &sa, ies, out),
            Mgmt::Auth { alg, seq: 1, .. } => self.auth_request(now, &sa, alg, out),
            Mgmt::Auth { .. } => self.counters.drop("unexpected authentication frame"),
            Mgmt::AssocReq { ies, current_ap, .. } if self.is_ft_reassoc(&sa, ies) => self.ft_reassoc(now, &sa, ies, current_ap, out),
            Mgmt::AssocReq { capability: _, ssid, rsne, wpa_ie, owe_dh, current_ap, ies } => {
                // hostapd (`hostapd_notif_assoc` / `check_assoc_ies`): the RSNE when RSN is
                // offered and the station sent one, else the WPA element when WPA1 is.
                let ie = match (rsne, wpa_ie) {
                    (Some(r), _) if self.rsne.is_some() => Some(r),
                    (_, Some(w)) if self.wpa_ie.is_some() => Some(w),
                    (r, _) => r,
                };
                let ie = ie.map(|r| r.to_vec());
                let ssid_ok = ssid == &self.cfg.ssid[..];
                let owe_dh = owe_dh.map(|d| d.to_vec());
                let req = super::assoc::AssocReq { ssid_ok, rsne: ie, owe_dh, ies: ies.to_vec(), reassoc: current_ap.is_some() };
                self.assoc_request(now, &sa, req, out)
            }
            Mgmt::Action { category: ActionCategory::FAST_BSS_TRANSITION, details } => self.ft_action_rx(&sa, details, out),
            Mgmt::Deauth { reason } => self.peer_left(&sa, Phase::Deauthenticated { reason, by_peer: true }, out),
            Mgmt::Disassoc { reason } => self.peer_left(&sa, Phase::Disassociated { reason, by_peer: true }, out),
            Mgmt::Action { category: c @ (ActionCategory::RADIO_MEASUREMENT | ActionCategory::WNM), details } => {
                self.wnm_action(now, &sa, c, details, out)
            }
            _ => {}
        }
    }

    /// The station deauthenticated or disassociated itself: it is forgotten.
    pub(super) fn peer_left(&mut self, sta: &MacAddr, phase: Phase, out: &mut Output) {
        self.acct_stop(sta, TerminateCause::UserRequest, out);
        if self.peers.remove(sta).is_some() {
            out.events.push(NodeEvent::Phase { peer: *sta, phase });
        }
        self.forget_keys(sta, out);
    }

    /// Sends a Deauthentication (protected for an MFP station) and forgets the station.
    pub fn deauth(&mut self, sta: &MacAddr, why: ReasonCode, out: &mut Output) {
        let cause = match why {
            ReasonCode::INACTIVITY => TerminateCause::IdleTimeout,
            ReasonCode::IEEE_8021X_AUTH_FAILED => TerminateCause::ReauthenticationFailure,
            _ => TerminateCause::NasRequest,
        };
        self.deauth_for(sta, why, cause, out);
    }

    /// [`Self::deauth`] with the accounting session's terminate cause (RFC 2866 5.10) given.
    pub(super) fn deauth_for(&mut self, sta: &MacAddr, why: ReasonCode, cause: TerminateCause, out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::deauth(sta, &self.cfg.bssid, &self.cfg.bssid, seq, why, true);
        self.send_mgmt(self.clock, sta, f, out);
        self.acct_stop(sta, cause, out);
        if self.peers.remove(sta).is_some() {
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Deauthenticated { reason: why, by_peer: false } });
        }
        self.forget_keys(sta, out);
    }

    /// The station's keys leave the host engine, and a GTK rekey stops waiting for it: if
    /// it was the last one waited for, the new group keys go into use now (else the AP
    /// would keep transmitting under the old GTK while stations joining meanwhile get
    /// the new one, and no later rekey would start).
    pub(super) fn forget_keys(&mut self, sta: &MacAddr, out: &mut Output) {
        self.dp.keys().remove_peer(sta);
        self.dot1x_forget(sta);
        if let Some((_, w)) = &mut self.pending_group {
            if w.remove(sta) {
                self.maybe_finish_group_rekey(out);
            }
        }
    }

    /// Deauthenticates every station (shutdown, phase 5): with MFP one group-addressed
    /// Deauthentication under BIP (as hostapd), else one per station.
    pub fn shutdown(&mut self, out: &mut Output) {
        self.deauth_all(ReasonCode::DEAUTH_LEAVING, out);
    }

    /// Deauthenticates every station with `why` as [`AccessPoint::shutdown`] does (a
    /// reload flushes the stations with reason 2, as hostapd's `hostapd_flush_old_stations`).
    pub fn deauth_all(&mut self, why: ReasonCode, out: &mut Output) {
        if self.group.as_ref().is_some_and(|g| g.igtk.is_some()) {
            self.deauth_broadcast(why, out);
        } else {
            let all: Vec<MacAddr> = self.peers.keys().copied().collect();
            for a in all {
                self.deauth(&a, why, out);
            }
        }
        // The goodbyes may sit in the card model's queue (protected under MFP): the
        // program waits for the card before it exits.
        self.dp.flush(out);
    }

    /// Sends one group-addressed Deauthentication, BIP-protected (an MME with the IGTK's
    /// Key ID and IPN, 12.5.4) when MFP is on, and forgets every station.
    pub fn deauth_broadcast(&mut self, why: ReasonCode, out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::deauth(&MacAddr::BROADCAST, &self.cfg.bssid, &self.cfg.bssid, seq, why, true);
        if self.group.as_ref().is_some_and(|g| g.igtk.is_some()) {
            self.send_protected(self.clock, None, f, out);
        } else {
            self.tx_mgmt(f, out);
        }
        let all: Vec<MacAddr> = self.peers.keys().copied().collect();
        for a in all {
            self.acct_stop(&a, TerminateCause::AdminReset, out);
            self.peers.remove(&a);
            out.events.push(NodeEvent::Phase { peer: a, phase: Phase::Deauthenticated { reason: why, by_peer: false } });
            self.forget_keys(&a, out);
        }
    }

    /// Sends a Disassociation (protected for an MFP station); the station stays
    /// authenticated and its keys are removed (hostapd `ap_sta_disassociate`).
    pub fn disassociate(&mut self, now: u64, sta: &MacAddr, why: ReasonCode, out: &mut Output) {
        self.clock = now;
        let seq = self.seq.take();
        let f = frames::deauth(sta, &self.cfg.bssid, &self.cfg.bssid, seq, why, false);
        self.send_mgmt(now, sta, f, out);
        self.end_association(sta, why, out);
    }

    /// Ends an association silently (the SA Query got no answer: the station is gone);
    /// the station stays authenticated and may associate again.
    pub(super) fn drop_association(&mut self, sta: &MacAddr, out: &mut Output) {
        self.end_association(sta, ReasonCode::PREV_AUTH_NOT_VALID, out);
    }

    /// The station's keys and association state go; it stays authenticated.
    pub(super) fn end_association(&mut self, sta: &MacAddr, why: ReasonCode, out: &mut Output) {
        self.forget_keys(sta, out);
        if let Some(p) = self.peers.get_mut(sta) {
            p.state = PeerState::Authenticated;
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Disassociated { reason: why, by_peer: false } });
        }
    }
}
