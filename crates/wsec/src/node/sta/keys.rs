//! The station's keys (12.7): the outputs of its [`Supplicant`](crate::rsn::handshake::Supplicant),
//! the keys they install in the host engine, and Transition Disable.
use crate::cipher::CipherSuite;
use crate::link::sa::KeyType;
use crate::node::frames::{self, Dir};
use crate::node::mfp::Mfp;
use crate::node::{NodeEvent, Output, Phase, Security};
use crate::rsn::handshake;
use crate::wire::ethernet::EtherType;
use crate::wire::mgmt::ReasonCode;

use super::{State, Station};

impl Station {
    /// Sends the handshake's EAPOL frames and acts on its events (12.7.6, 12.7.7): the
    /// keys go to the host engine, the link is established.
    pub(super) fn after_handshake(&mut self, now: u64, o: handshake::Output, out: &mut Output) {
        let bssid = self.bssid().unwrap_or_default();
        for eapol in o.tx {
            let seq = self.seq.take();
            let f = frames::data(Dir::ToAp, &bssid, &bssid, &self.cfg.addr, seq, EtherType::EAPOL, &eapol);
            if self.dp.has_pairwise(&bssid) {
                self.send_protected(now, f, out);
            } else {
                self.tx(now, f, out);
            }
        }
        for e in o.events {
            match e {
                handshake::Event::InstallPtk { tk, cipher, key_id } => {
                    let rekey = self.dp.has_pairwise(&bssid);
                    let spp = self.neg().is_some_and(|n| n.spp_amsdu);
                    self.dp.keys().set_spp_amsdu(bssid, spp);
                    if self.dp.keys().install(Some(bssid), KeyType::Pairwise, key_id, cipher, &tk, None).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                    if rekey {
                        out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::PtkRekeyed });
                    }
                }
                handshake::Event::InstallPtkRx { tk, cipher, key_id } => {
                    let spp = self.neg().is_some_and(|n| n.spp_amsdu);
                    self.dp.keys().set_spp_amsdu(bssid, spp);
                    if self.dp.keys().install_rx(bssid, key_id, cipher, &tk).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                }
                handshake::Event::ActivatePtk { key_id } => {
                    let rekey = self.dp.has_pairwise(&bssid);
                    if self.dp.keys().set_pairwise_tx(&bssid, key_id).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                    if rekey {
                        out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::PtkRekeyed });
                    }
                }
                handshake::Event::InstallGtk { gtk, cipher, key_id, rsc } => {
                    if self.dp.keys().install(Some(bssid), KeyType::Group, key_id, cipher, &gtk, Some(rsc)).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                }
                handshake::Event::InstallIgtk { igtk, cipher, key_id, ipn } => {
                    // BIP frames must carry an IPN above the KDE's (12.7.2, 12.5.4.4).
                    if self.dp.keys().install(Some(bssid), KeyType::ManagementGroup, key_id, cipher, &igtk, Some(ipn)).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                }
                handshake::Event::Established { pairwise, .. } => {
                    if self.state.link().is_some_and(|l| l.pmksa_in_use) {
                        // The AP took the cached PMKSA: an OKC entry is now a proper one.
                        self.pmksa.confirm(&bssid);
                    }
                    self.advance(|s| match s {
                        State::Handshake(link, r) => State::Established(link, Some(r)),
                        s => s,
                    });
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::Established { pairwise: Some(pairwise) } });
                }
                handshake::Event::GroupKeyDone { key_id } => {
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::GroupKey { key_id } });
                }
                handshake::Event::Failed(why) => {
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::HandshakeFailed(why) });
                    return self.leave(now, ReasonCode::IE_DIFFERENT, out);
                }
                handshake::Event::Dropped(_) => self.counters.drop("eapol-key refused"),
                handshake::Event::TransitionDisable(bitmap) => {
                    let applied = self.transition_disable(bitmap);
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::TransitionDisable { bitmap, applied } });
                }
            }
        }
    }

    /// What a Transition Disable bitmap from the AP changes in the network (WPA3
    /// Specification 13.2; wpa_supplicant `wpas_transition_disable`): WPA3-Personal on an
    /// SAE link drops the PSK AKMs, WPA1 and TKIP and requires MFP; Enhanced Open on an
    /// OWE link sets owe_only. SAE-PK and WPA3-Enterprise have nothing to change here (wsec
    /// has neither). Kept for the life of the process (wpa_supplicant also writes them to
    /// its configuration file with `update_config=1`). Returns whether anything changed.
    pub(super) fn transition_disable(&mut self, bitmap: u8) -> bool {
        use crate::rsn::kde::transition_disable as td;
        let akm = self.neg().map(|n| n.akm);
        let mut changed = false;
        if bitmap & td::WPA3_PERSONAL != 0 && akm.is_some_and(|a| a.is_sae()) {
            if let Security::Rsn { akms, pairwise, groups, .. } = &mut self.cfg.security {
                let before = (akms.len(), pairwise.len(), groups.len());
                akms.retain(|a| !a.is_psk());
                pairwise.retain(|c| *c != CipherSuite::Tkip);
                groups.retain(|c| *c != CipherSuite::Tkip);
                if groups.is_empty() {
                    groups.push(CipherSuite::Ccmp128);
                }
                changed |= before != (akms.len(), pairwise.len(), groups.len());
            }
            changed |= self.cfg.mfp != Mfp::Required || self.cfg.proto_wpa1;
            self.cfg.mfp = Mfp::Required;
            self.cfg.proto_wpa1 = false;
        }
        if bitmap & td::ENHANCED_OPEN != 0 && akm.is_some_and(|a| a.is_owe()) && !self.cfg.owe_only {
            self.cfg.owe_only = true;
            changed = true;
        }
        changed
    }
}
