//! The AP's keys (12.7): the 4-way and group key handshakes of each station's
//! [`Authenticator`](crate::rsn::handshake::Authenticator), their timers, GTK/IGTK and
//! PTK rekeys, and the keys they install in the host engine.
use crate::cipher::CipherSuite;
use crate::link::sa::KeyType;
use crate::node::frames::{self, Dir};
use crate::node::{NodeEvent, Output, Phase, Security, SEC};
use crate::rsn::handshake::{self, authenticator::GroupKeys};
use crate::wire::ethernet::EtherType;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::ReasonCode;
use std::collections::BTreeSet;
use zeroize::Zeroizing;

use super::{AccessPoint, PeerState};

/// A fresh GTK under `key_id`, and an IGTK (12.7.1.5) under `mgmt`'s Key ID (4 or 5)
/// when management frame protection is on.
pub(super) fn random_gtk(
    cipher: CipherSuite,
    key_id: u8,
    mgmt: Option<(CipherSuite, u8)>,
    rng: &mut dyn rand_core::CryptoRngCore,
) -> GroupKeys {
    let mut gtk = Zeroizing::new(crate::rng::array::<32>(rng).to_vec());
    gtk.truncate(cipher.key_len());
    let igtk = mgmt.map(|(c, id)| {
        let mut k = Zeroizing::new(crate::rng::array::<32>(rng).to_vec());
        k.truncate(c.key_len());
        (k, id, 0)
    });
    GroupKeys { gtk, gtk_key_id: key_id, gtk_rsc: 0, igtk }
}

/// The group keys one station gets: without the IGTK unless it negotiated MFP.
pub(super) fn for_peer(g: &GroupKeys, mfp: bool) -> GroupKeys {
    GroupKeys { igtk: if mfp { g.igtk.clone() } else { None }, ..g.clone() }
}

impl AccessPoint {
    /// Starts a GTK rekey now (hostapd `REKEY_GTK`); false without group keys (open, WEP).
    pub fn rekey_gtk(&mut self, now: u64, out: &mut Output) -> bool {
        if self.group.is_none() {
            return false;
        }
        self.clock = now;
        self.start_group_rekey(now, out);
        true
    }

    /// Starts a new 4-way handshake with an established RSN station (a PTK rekey, as
    /// `wpa_ptk_rekey` does on its timer); false if `sta` has none.
    pub fn rekey_ptk(&mut self, now: u64, sta: &MacAddr, out: &mut Output) -> bool {
        self.clock = now;
        let o = match self.peers.get_mut(sta) {
            Some(p) if p.state.is_established() => match p.rsna_mut() {
                Some(r) => {
                    r.ptk_rekey_at = None;
                    r.auth.rekey_ptk(now)
                }
                None => return false,
            },
            _ => return false,
        };
        self.after_handshake(now, sta, o, out);
        true
    }

    /// The 4-way handshakes' retransmissions and timeouts, and PTK rekeys on their timer
    /// (`wpa_ptk_rekey`).
    pub(super) fn handshake_timeouts(&mut self, now: u64, out: &mut Output) {
        let addrs: Vec<MacAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| p.rsna().is_some_and(|r| r.deadline.is_some_and(|d| now >= d) || r.ptk_rekey_at.is_some_and(|d| now >= d)))
            .map(|(a, _)| *a)
            .collect();
        for a in addrs {
            let Some(p) = self.peers.get_mut(&a) else { continue };
            let established = p.state.is_established();
            let Some(r) = p.rsna_mut() else { continue };
            let o = if r.ptk_rekey_at.is_some_and(|d| now >= d) && established {
                r.ptk_rekey_at = None;
                r.auth.rekey_ptk(now)
            } else {
                r.auth.handle_timeout(now)
            };
            self.after_handshake(now, &a, o, out);
        }
    }

    /// Starts a GTK (and IGTK) rekey (12.7.7): the new keys go to every established
    /// station with the group key handshake; the old ones stay in use until all answered.
    pub(super) fn start_group_rekey(&mut self, now: u64, out: &mut Output) {
        self.next_group_rekey = (self.cfg.group_rekey_s > 0).then(|| now.saturating_add(self.cfg.group_rekey_s.saturating_mul(SEC)));
        let Some(cur) = &self.group else { return };
        if self.pending_group.is_some() {
            return; // the previous rekey is still running
        }
        let Security::Rsn { groups, .. } = &self.cfg.security else { return };
        // The IGTK is renewed with the GTK, under the other Key ID (4 <-> 5).
        let mgmt = cur.igtk.as_ref().map(|(_, id, _)| (self.cfg.group_mgmt_cipher, if *id == 4 { 5 } else { 4 }));
        let old_igtk = cur.igtk.as_ref().map(|(_, id, _)| *id);
        let new = random_gtk(groups[0], if cur.gtk_key_id == 1 { 2 } else { 1 }, mgmt, &mut *self.rng);
        if self.dp.keys().install(None, KeyType::Group, new.gtk_key_id, groups[0], &new.gtk, None).is_err() {
            return;
        }
        if let (Some((k, id, _)), Some(old)) = (&new.igtk, old_igtk) {
            if self.dp.keys().install(None, KeyType::ManagementGroup, *id, self.cfg.group_mgmt_cipher, k, None).is_err() {
                return;
            }
            let _ = self.dp.keys().set_mgmt_group_tx(old);
        }
        // The old GTK stays the transmit key until every station has the new one.
        let _ = self.dp.keys().set_group_tx(cur.gtk_key_id);
        // In address order (a BTreeSet): a seeded run sends the group messages in the same order.
        // A station in the middle of its 4-way handshake waits too: its message 3 may carry
        // the old GTK, so it gets group message 1 with the new one as soon as it is
        // established (else the AP would switch to a GTK that station never received).
        let waiting: BTreeSet<MacAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| p.state.is_established() || (matches!(p.state, PeerState::Associated(_)) && p.rsna().is_some()))
            .map(|(a, _)| *a)
            .collect();
        self.pending_group = Some((new.clone(), waiting.clone()));
        let established: Vec<MacAddr> =
            waiting.iter().copied().filter(|a| self.peers.get(a).is_some_and(|p| p.state.is_established())).collect();
        for a in established {
            let o = self.peers.get_mut(&a).and_then(|p| {
                let keys = for_peer(&new, p.mfp());
                p.rsna_mut().map(|r| r.auth.rekey_group(now, keys))
            });
            if let Some(o) = o {
                self.after_handshake(now, &a, o, out);
            }
        }
        self.maybe_finish_group_rekey(out);
    }

    /// Once every station has the new group keys, they become the transmit keys.
    pub(super) fn maybe_finish_group_rekey(&mut self, out: &mut Output) {
        let done = self.pending_group.as_ref().is_some_and(|(_, w)| w.is_empty());
        if !done {
            return;
        }
        let (new, _) = self.pending_group.take().expect("checked");
        if let Some(old) = &self.group {
            self.dp.keys().remove_group(old.gtk_key_id);
            if let Some((_, id, _)) = &old.igtk {
                self.dp.keys().remove_mgmt_group(*id);
            }
        }
        let _ = self.dp.keys().set_group_tx(new.gtk_key_id);
        if let Some((_, id, _)) = &new.igtk {
            let _ = self.dp.keys().set_mgmt_group_tx(*id);
        }
        out.events.push(NodeEvent::Phase { peer: self.cfg.bssid, phase: Phase::GroupKey { key_id: new.gtk_key_id } });
        self.group = Some(new);
    }

    /// The GTK (and, with MFP, the IGTK) a station joining now receives (the new ones
    /// while a rekey runs), with the RSC and IPN of their last use.
    pub(super) fn group_for_new_station(&mut self, mfp: bool) -> Option<GroupKeys> {
        let rsc = self.dp.keys().group_tx_pn().saturating_sub(1);
        let ipn = self.dp.keys().mgmt_group_tx_pn().saturating_sub(1);
        if let Some((n, _)) = &self.pending_group {
            return Some(for_peer(n, mfp));
        }
        self.group.as_ref().map(|g| {
            let igtk = g.igtk.as_ref().filter(|_| mfp).map(|(k, id, _)| (k.clone(), *id, ipn));
            GroupKeys { gtk_rsc: rsc, igtk, ..g.clone() }
        })
    }

    /// A new PTK transmits (installed, or activated under Extended Key ID): counted, and
    /// the next PTK rekey scheduled. `false`: the engine refused it and the station is
    /// deauthenticated.
    fn ptk_in_force(&mut self, now: u64, sta: &MacAddr, rekey: bool, done: crate::Result<()>, out: &mut Output) -> bool {
        if done.is_err() {
            self.deauth(sta, ReasonCode::UNSPECIFIED, out);
            return false;
        }
        if rekey {
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::PtkRekeyed });
        }
        if let Some(p) = self.peers.get_mut(sta) {
            p.counters.key_installs += 1;
            if let Some(r) = p.rsna_mut() {
                r.ptk_rekey_at = (self.cfg.ptk_rekey_s > 0).then(|| now.saturating_add(self.cfg.ptk_rekey_s.saturating_mul(SEC)));
            }
        }
        true
    }

    /// Sends the handshake's EAPOL frames and acts on its events.
    pub(super) fn after_handshake(&mut self, now: u64, sta: &MacAddr, o: handshake::Output, out: &mut Output) {
        let bssid = self.cfg.bssid;
        if let Some(r) = self.peers.get_mut(sta).and_then(|p| p.rsna_mut()) {
            r.deadline = o.deadline;
        }
        // Events first: a key installed by this input protects what it sends (WPA1's group
        // message 1 follows message 4 at once and goes under the new PTK, as in hostapd).
        // Every other output with frames installs nothing.
        let mut late_group = false;
        for e in o.events {
            match e {
                handshake::Event::InstallPtkRx { tk, cipher, key_id } if self.dp.keys().install_rx(*sta, key_id, cipher, &tk).is_err() => {
                    self.deauth(sta, ReasonCode::UNSPECIFIED, out);
                    return;
                }
                handshake::Event::InstallPtk { tk, cipher, key_id } => {
                    let rekey = self.dp.has_pairwise(sta);
                    let done = self.dp.keys().install(Some(*sta), KeyType::Pairwise, key_id, cipher, &tk, None);
                    if !self.ptk_in_force(now, sta, rekey, done, out) {
                        return;
                    }
                }
                handshake::Event::ActivatePtk { key_id } => {
                    let rekey = self.dp.has_pairwise(sta);
                    let done = self.dp.keys().set_pairwise_tx(sta, key_id);
                    if !self.ptk_in_force(now, sta, rekey, done, out) {
                        return;
                    }
                }
                handshake::Event::Established { pairwise, .. } => {
                    let first = self.peers.get(sta).is_some_and(|p| !p.state.is_established());
                    if let Some(p) = self.peers.get_mut(sta) {
                        p.establish();
                    }
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Established { pairwise: Some(pairwise) } });
                    if first {
                        // The port is open: the bridges learn the station is here (as
                        // mac80211 does when hostapd authorizes a station).
                        out.host.push(crate::node::frames::layer2_update(sta));
                        self.acct_start(now, sta, out);
                    }
                    late_group = first && self.pending_group.as_ref().is_some_and(|(_, w)| w.contains(sta));
                }
                handshake::Event::GroupKeyDone { .. } => {
                    if let Some((_, w)) = &mut self.pending_group {
                        w.remove(sta);
                    }
                    self.maybe_finish_group_rekey(out);
                }
                handshake::Event::Failed(why) => {
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::HandshakeFailed(why) });
                    let r = if self.peers.get(sta).is_some_and(|p| p.state.is_established()) {
                        ReasonCode::GROUP_KEY_TIMEOUT
                    } else {
                        ReasonCode::FOURWAY_TIMEOUT
                    };
                    self.deauth(sta, r, out);
                    self.maybe_finish_group_rekey(out);
                    return;
                }
                handshake::Event::Dropped(_) => self.counters.drop("eapol-key refused"),
                _ => {}
            }
        }
        for eapol in o.tx {
            let seq = self.seq.take();
            let f = frames::data(Dir::FromAp, &bssid, sta, &bssid, seq, EtherType::EAPOL, &eapol);
            // Before the first PTK EAPOL goes in the clear; a rekey's under the PTK.
            if self.dp.has_pairwise(sta) {
                self.send_protected(now, Some(*sta), f, out);
            } else {
                self.counters.tx_air += 1;
                out.air.push(f);
            }
        }
        // A station established while a GTK rekey waits for it: group message 1 now.
        if late_group {
            let keys = self.pending_group.as_ref().map(|(new, _)| new.clone());
            let o = keys.and_then(|new| {
                self.peers.get_mut(sta).and_then(|p| {
                    let k = for_peer(&new, p.mfp());
                    p.rsna_mut().map(|r| r.auth.rekey_group(now, k))
                })
            });
            if let Some(o) = o {
                self.after_handshake(now, sta, o, out);
            }
        }
    }
}
