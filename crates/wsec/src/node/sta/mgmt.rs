//! Management frames at the station: their receive rules under MFP (12.6.3, 11.13) and
//! dispatch, the frames it sends, and leaving a BSS (Deauthentication, 11.3.4).
use crate::node::frames::{self, Mgmt};
use crate::node::mfp::SaQuery;
use crate::node::{rx_error_reason, NodeEvent, Output, Phase};
use crate::wire::mac::Mpdu;
use crate::wire::mgmt::{ActionCategory, AuthAlgorithm, ReasonCode};

use super::{State, Station};

impl Station {
    /// Sends a management frame to the AP: under the pairwise key when it is a robust
    /// frame and MFP is on.
    pub(super) fn send_mgmt(&mut self, now: u64, f: Vec<u8>, out: &mut Output) {
        if self.mfp_on() && frames::is_robust(&f) {
            self.send_protected(now, f, out);
        } else {
            self.tx(now, f, out);
        }
    }

    /// Queues a frame for the medium as it is.
    pub(super) fn tx(&mut self, now: u64, f: Vec<u8>, out: &mut Output) {
        self.flush_amsdu(now, out);
        self.counters.tx_air += 1;
        self.last_tx = now;
        out.air.push(f);
    }

    /// Back to scanning after `backoff_ms`: the BSS, its keys and what the station had
    /// with it go.
    pub(super) fn reset(&mut self, now: u64, backoff_ms: u64) {
        if let Some(b) = self.bssid() {
            self.dp.keys().remove_peer(&b);
        }
        self.state = State::Scanning;
        self.owe.restart();
        self.tries = 0;
        self.deadline = now + backoff_ms * 1_000_000;
    }

    /// Leaves the BSS with a Deauthentication (shutdown, phase 5).
    pub fn shutdown(&mut self, now: u64, out: &mut Output) {
        if let Some(b) = self.bssid() {
            if !matches!(self.state, State::Scanning | State::Authenticating { .. }) {
                let seq = self.seq.take();
                let f = frames::deauth(&b, &self.cfg.addr, &b, seq, ReasonCode::DEAUTH_LEAVING, true);
                self.send_mgmt(now, f, out);
                out.events.push(NodeEvent::Phase {
                    peer: b,
                    phase: Phase::Deauthenticated { reason: ReasonCode::DEAUTH_LEAVING, by_peer: false },
                });
            }
        }
        // A protected goodbye may sit in the card model's queue: wait for the card.
        self.dp.flush(out);
        self.reset(now, 0);
    }

    /// Deauthenticates from the AP and scans again.
    pub(super) fn leave(&mut self, now: u64, why: ReasonCode, out: &mut Output) {
        if let Some(b) = self.bssid() {
            let seq = self.seq.take();
            let f = frames::deauth(&b, &self.cfg.addr, &b, seq, why, true);
            self.send_mgmt(now, f, out);
            out.events.push(NodeEvent::Phase { peer: b, phase: Phase::Deauthenticated { reason: why, by_peer: false } });
        }
        self.reset(now, self.cfg.retry_ms);
    }

    /// Management frames, with the receive rules of MFP (12.6.3, 11.13) first: protected
    /// ones are decrypted under the PTK, group-addressed robust ones verified with BIP
    /// (MME, IPN replay), and unprotected robust ones from the AP dropped, an SA Query
    /// started if they say the AP lost our association.
    pub(super) fn handle_mgmt(&mut self, now: u64, h: Mpdu<'_>, from_ap: bool, out: &mut Output) {
        let fc = h.frame_control();
        let group = h.addr1().is_group();
        if fc.protected() {
            if !(from_ap && self.mfp_on()) {
                return self.counters.drop("unexpected protected management frame");
            }
            let bssid = self.bssid().unwrap_or_default();
            return match self.dp.unprotect(now, &bssid, &h) {
                Ok(Some(plain)) => self.handle_mgmt_decrypted(now, &plain, out),
                Ok(None) => {}
                Err(e) => self.counters.drop(rx_error_reason(&e)),
            };
        }
        if from_ap && frames::is_robust_mpdu(&h) && self.mfp_on() {
            if group {
                let bssid = self.bssid().unwrap_or_default();
                return match self.dp.unprotect(now, &bssid, &h) {
                    Ok(Some(plain)) => self.handle_mgmt_decrypted(now, &plain, out),
                    Ok(None) => {}
                    Err(crate::Error::MmeMissing) => self.counters.drop("unprotected robust management frame"),
                    Err(e) => self.counters.drop(rx_error_reason(&e)),
                };
            }
            self.counters.drop("unprotected robust management frame");
            if let Ok(Mgmt::Deauth { reason: r } | Mgmt::Disassoc { reason: r }) = frames::parse_mgmt_mpdu(&h) {
                let running = self.state.rsna().is_some_and(|x| x.sa_query.is_some());
                if (r == ReasonCode::CLASS2_FROM_NONAUTH || r == ReasonCode::CLASS3_FROM_NONASSOC) && !running {
                    let (q, id) = SaQuery::start(now, &mut *self.rng);
                    if let Some(rsna) = self.state.rsna_mut() {
                        rsna.sa_query = Some(q);
                    }
                    self.send_sa_query(now, true, id, out);
                }
            }
            return;
        }
        self.handle_mgmt_plain(now, h, from_ap, false, out)
    }

    /// A management frame the link decrypted or verified (a new buffer: its header is
    /// checked once here).
    fn handle_mgmt_decrypted(&mut self, now: u64, plain: &[u8], out: &mut Output) {
        match Mpdu::new_checked(plain) {
            Ok(h) => self.handle_mgmt_plain(now, h, true, true, out),
            Err(_) => self.counters.drop("malformed"),
        }
    }

    /// A management frame in the clear (or decrypted): scanning, authentication,
    /// association, and the AP's Deauthentication, Disassociation and SA Query.
    fn handle_mgmt_plain(&mut self, now: u64, h: Mpdu<'_>, from_ap: bool, protected: bool, out: &mut Output) {
        if let Some((t, st, body)) = crate::node::sae::parse_auth_mpdu(&h).filter(|_| from_ap) {
            return self.sae_rx(now, t, st, body, out);
        }
        let m = match frames::parse_mgmt_mpdu(&h) {
            Ok(m) => m,
            Err(_) => return self.counters.drop("malformed"),
        };
        if let Mgmt::Beacon(info) | Mgmt::ProbeResp(info) = &m {
            self.ft_heard(now, info);
        }
        // Fast BSS transition: the target AP answers before it is our AP.
        if !from_ap && self.ft.roam_target().is_some() && self.ft.roam_target() == h.addr2() {
            match m {
                Mgmt::Auth { alg: AuthAlgorithm::FAST_BSS_TRANSITION, seq: 2, status, ies, .. } => self.ft_response(now, status, ies, out),
                Mgmt::AssocResp { reassoc: true, status, aid, ies, .. } => self.ft_reassoc_response(now, status, aid, ies, out),
                _ => {}
            }
            return;
        }
        match m {
            Mgmt::Beacon(info) | Mgmt::ProbeResp(info)
                if matches!(self.state, State::Scanning) && now >= self.deadline.saturating_sub(self.cfg.retry_ms * 1_000_000) =>
            {
                self.consider(now, info, out);
            }
            Mgmt::Auth { alg, seq, status, challenge, .. } if from_ap => self.auth_response(now, alg, seq, status, challenge, out),
            Mgmt::AssocResp { status, aid, rsne, owe_dh, ies, .. } if from_ap && matches!(self.state, State::Associating(_)) => {
                self.assoc_response(now, &h, super::assoc::AssocResp { status, aid, rsne, owe_dh, ies }, out)
            }
            Mgmt::Action { category: ActionCategory::FAST_BSS_TRANSITION, details } if from_ap => self.ft_action(now, details, out),
            Mgmt::Action { category: c @ (ActionCategory::RADIO_MEASUREMENT | ActionCategory::WNM), details } if from_ap => {
                self.wnm_action(now, c, details, !h.addr1().is_group(), out)
            }
            Mgmt::Deauth { reason } | Mgmt::Disassoc { reason } if from_ap => {
                if matches!(self.state, State::Scanning) {
                    return;
                }
                let phase = if matches!(m, Mgmt::Deauth { .. }) {
                    Phase::Deauthenticated { reason, by_peer: true }
                } else {
                    Phase::Disassociated { reason, by_peer: true }
                };
                out.events.push(NodeEvent::Phase { peer: self.bssid().unwrap_or_default(), phase });
                self.reset(now, 0);
            }
            Mgmt::SaQuery { request: true, id } if from_ap && protected => self.send_sa_query(now, false, id, out),
            Mgmt::SaQuery { request: false, id }
                if from_ap && protected && self.state.rsna().and_then(|r| r.sa_query.as_ref()).is_some_and(|q| q.answers(id)) =>
            {
                // The AP still has our association.
                if let Some(r) = self.state.rsna_mut() {
                    r.sa_query = None;
                }
            }
            _ => {}
        }
    }
}
