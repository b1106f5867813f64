//! The AP's data path (12.5, seed 002): protected data from stations, relayed between
//! them (decrypted with the sender's key, encrypted with the receiver's) or bridged to
//! the wired side, and frames from the wired side to the stations.
use crate::cipher::{Algorithm, CipherSuite};
use crate::node::amsdu;
use crate::node::datapath::{self, RxFrame};
use crate::node::frames::{self, Dir, Msdu};
use crate::node::qos;
use crate::node::{rx_error_reason, Output};
use crate::wire::ethernet::EtherType;
use crate::wire::mac::{FrameControl, MacAddr};
use crate::wire::mgmt::ReasonCode;

use super::AccessPoint;

impl AccessPoint {
    /// Protects a plaintext MPDU in the host engine and queues it for the medium.
    /// The A-MSDU being built goes first, so frames keep their order.
    pub(super) fn send_protected(&mut self, now: u64, peer: Option<MacAddr>, f: Vec<u8>, out: &mut Output) {
        self.flush_amsdu(now, out);
        self.dp.send_protected(now, peer, f, &mut self.counters, out);
    }

    /// Sends the A-MSDU being built, if any ([`qos::Aggregator::take`]).
    pub(super) fn flush_amsdu(&mut self, now: u64, out: &mut Output) {
        let Some(b) = self.agg.take() else { return };
        if b.msdus > 1 {
            self.counters.amsdu_tx += 1;
            self.counters.amsdu_tx_msdus += b.msdus as u64;
        }
        if self.cfg.security.is_open() {
            self.counters.tx_air += 1;
            out.air.push(b.mpdu);
        } else {
            self.dp.send_protected(now, Some(b.peer), b.mpdu, &mut self.counters, out);
        }
    }

    /// The longest A-MSDU an MSDU to station `ra` may join, or `None` when it goes alone
    /// (9.3.2.2, 10.12): A-MSDU transmit on, an HT QoS station, a CCMP/GCMP/ECCMP pairwise
    /// key or an open BSS (mac80211 drops A-MSDUs under WEP and TKIP; unprotected ones it
    /// takes on open links, as wsec does), never EAPOL (the uncontrolled port's frames
    /// travel alone), an MSDU within 2304 octets.
    fn amsdu_max(&self, ra: &MacAddr, ethertype: EtherType, msdu_len: usize) -> Option<usize> {
        if !self.cfg.amsdu_tx || ethertype == EtherType::EAPOL || msdu_len > crate::wire::amsdu::MAX_MSDU_LEN {
            return None;
        }
        let p = self.peers.get(ra)?;
        let ccm_gcm = match p.negotiated {
            Some(n) => {
                n.amsdu_allowed && !n.wpa1 && matches!(n.pairwise.algorithm(), Algorithm::Ccm | Algorithm::Gcm | Algorithm::Eccm { .. })
            }
            None => self.cfg.security.is_open(),
        };
        let max = p.qos.max_amsdu.filter(|_| p.qos.qos && ccm_gcm)?;
        Some(max.min(self.cfg.amsdu_max_len))
    }

    /// One individually addressed MSDU to the established station `ra` (from `sa` to `da`):
    /// into the A-MSDU for it ([`qos::Aggregator`]), in a QoS Data frame to a QoS station,
    /// else in a Data frame.
    #[allow(clippy::too_many_arguments)]
    fn send_msdu(&mut self, now: u64, ra: MacAddr, da: MacAddr, sa: MacAddr, ethertype: EtherType, payload: &[u8], out: &mut Output) {
        let bssid = self.cfg.bssid;
        let msdu_len = crate::wire::llc::SnapRepr::LEN + payload.len();
        let tid = qos::tid_of(ethertype, payload);
        if let Some(max) = self.amsdu_max(&ra, ethertype, msdu_len) {
            if !self.agg.fits(&ra, tid, msdu_len) {
                self.flush_amsdu(now, out);
                let Some(p) = self.peers.get_mut(&ra) else { return };
                let seq = p.tid_seq.take(tid);
                // An A-MSDU's Address 3 is the BSSID (9.3.2.1, Table 9-30).
                self.agg.start(ra, tid, qos::qos_header(false, &ra, &bssid, &bssid, seq, tid, true), max);
            }
            self.agg.append(&da, &sa, ethertype, payload);
            self.counters.tx_data += 1;
            self.counters.tx_data_bytes += msdu_len as u64;
            if let Some(p) = self.peers.get_mut(&ra) {
                p.counters.tx_data += 1;
                p.counters.tx_bytes += msdu_len as u64;
            }
            return;
        }
        let f = match self.peers.get_mut(&ra) {
            Some(p) if p.qos.qos => {
                let seq = p.tid_seq.take(tid);
                qos::qos_data(false, &ra, &bssid, &sa, seq, tid, ethertype, payload)
            }
            _ => {
                let seq = self.seq.take();
                frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload)
            }
        };
        self.send_data(now, Some(ra), f, out);
    }

    /// Sends a data MPDU, protected unless the BSS is open.
    pub(super) fn send_data(&mut self, now: u64, peer: Option<MacAddr>, f: Vec<u8>, out: &mut Output) {
        self.flush_amsdu(now, out);
        self.counters.tx_data += 1;
        self.counters.tx_data_bytes += f.len() as u64;
        if let Some(p) = peer.and_then(|a| self.peers.get_mut(&a)) {
            p.counters.tx_data += 1;
            p.counters.tx_bytes += f.len() as u64;
        }
        if self.cfg.security.is_open() {
            self.counters.tx_air += 1;
            out.air.push(f);
        } else {
            self.send_protected(now, peer, f, out);
        }
    }

    /// A data frame from a station (12.5): EAPOL to its authenticator, data relayed to
    /// another station or bridged to the wired side.
    pub(super) fn handle_data(&mut self, now: u64, rx: RxFrame<'_>, out: &mut Output) {
        let RxFrame { mpdu, hdr, fc, ta, opened, .. } = rx;
        let Some(sa) = ta else { return self.counters.drop("malformed") };
        if !self.peers.get(&sa).is_some_and(|p| p.state.is_associated()) {
            // Class 3 frame from a STA that is not associated (11.3.3): deauthenticate it,
            // which is how a STA learns that the AP restarted.
            self.counters.drop("class 3 frame from a non-associated station");
            let seq = self.seq.take();
            let f = frames::deauth(&sa, &self.cfg.bssid, &self.cfg.bssid, seq, ReasonCode::CLASS3_FROM_NONASSOC, true);
            return self.tx_mgmt(f, out);
        }
        if !fc.has_data_body() {
            if let Some(p) = self.peers.get_mut(&sa) {
                p.last_rx = now;
            }
            return; // Null data: a keep-alive
        }
        if !fc.protected() && hdr.is_fragment() {
            // Never taken as a whole MSDU, and not reassembled: FragAttacks CVE-2020-26145
            // and CVE-2020-26147 (plaintext fragments, alone or mixed with protected ones).
            return self.counters.drop("unprotected fragment");
        }
        let plain: std::borrow::Cow<'_, [u8]> = if fc.protected() {
            // With the card model, relay and bridging below wait for the card's
            // receive-side service time.
            match self.dp.unprotect_data(now, &sa, &hdr, opened) {
                Ok(Some(p)) => std::borrow::Cow::Owned(p),
                Ok(None) => return,
                Err(e) => {
                    if let Some(p) = self.peers.get_mut(&sa) {
                        p.counters.rx_dropped += 1;
                        // 802.11 MIB: Michael failures are TKIP's own counter; a
                        // CCMP/GCMP MIC or a WEP/TKIP ICV mismatch is a decrypt error.
                        match e {
                            crate::Error::Replay => p.counters.rx_replays += 1,
                            crate::Error::MicFailure if p.negotiated.is_some_and(|n| n.pairwise == CipherSuite::Tkip) => {
                                p.counters.rx_mic_failures += 1
                            }
                            _ => p.counters.rx_decrypt_errors += 1,
                        }
                    }
                    return self.counters.drop(rx_error_reason(&e));
                }
            }
        } else {
            std::borrow::Cow::Borrowed(mpdu)
        };
        let n = self.peers.get(&sa).and_then(|p| p.negotiated);
        let link = amsdu::Link {
            pairwise: n.map(|n| n.pairwise),
            spp: n.is_some_and(|n| n.spp_amsdu),
            allowed: n.is_none_or(|n| n.amsdu_allowed),
            open: self.cfg.security.is_open(),
        };
        let policy = self.cfg.amsdu_rx;
        amsdu::each_msdu(self, &hdr, &plain, policy, link, out, |ap, m, len, out| ap.rx_msdu(now, sa, fc, m, len, out));
        if let std::borrow::Cow::Owned(v) = plain {
            self.dp.recycle(v);
        }
    }

    /// One MSDU from station `sa` in a data frame with Frame Control `fc`, alone (`len`:
    /// the MPDU's octets) or from an A-MSDU (`len`: the MSDU's): EAPOL to the
    /// authenticator, data relayed or bridged.
    fn rx_msdu(&mut self, now: u64, sa: MacAddr, fc: FrameControl, m: Msdu<'_>, len: usize, out: &mut Output) {
        if m.sa != sa {
            return self.counters.drop("source address is not the transmitter");
        }
        if m.ethertype == EtherType::EAPOL {
            // The uncontrolled port (IEEE 802.1X-2020 6.4, 12.3) delivers EAPOL to the local
            // PAE only, protected or not: addressed to the AP or the PAE group address, it
            // goes to the authenticator; to anyone else it is never relayed nor bridged
            // (FragAttacks CVE-2020-26139; as mac80211's ieee80211_frame_allowed).
            if m.da != self.cfg.bssid && m.da != MacAddr::PAE_GROUP {
                return self.counters.drop("eapol not addressed to this node");
            }
            let Some(p) = self.peers.get_mut(&sa) else { return };
            p.last_rx = now;
            let eapol = m.payload.to_vec();
            if eapol.get(1).is_some_and(|&t| t != super::dot1x::EAPOL_KEY) {
                // EAP, EAPOL-Start, -Logoff: the 802.1X authenticator's.
                return self.dot1x_eapol(now, &sa, &eapol, out);
            }
            let Some(p) = self.peers.get_mut(&sa) else { return };
            let o = p.rsna_mut().map(|r| r.auth.handle_eapol(now, &eapol));
            match o {
                Some(o) => self.after_handshake(now, &sa, o, out),
                None => self.counters.drop("eapol without an rsna"),
            }
            return;
        }
        if !fc.protected() && !self.cfg.security.is_open() {
            return self.counters.drop("unprotected");
        }
        let Some(p) = self.peers.get_mut(&sa) else { return };
        p.last_rx = now;
        if !p.state.is_established() {
            return self.counters.drop("data before the keys are installed");
        }
        p.counters.rx_data += 1;
        p.counters.rx_bytes += len as u64;
        self.counters.rx_data += 1;
        self.counters.rx_data_bytes += len as u64;
        let (da, ethertype, payload) = (m.da, m.ethertype, m.payload);
        let bssid = self.cfg.bssid;
        if da.is_group() {
            // To the wired side and back out to every station under the GTK.
            self.deliver_host(now, frames::ethernet(&da, &sa, ethertype, payload), out);
            let seq = self.seq.take();
            let f = frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload);
            self.send_data(now, None, f, out);
        } else if self.peers.get(&da).is_some_and(|p| p.state.is_established()) {
            // Wireless to wireless: decrypted with the sender's key above, encrypted with
            // the receiver's here.
            self.counters.relayed += 1;
            self.send_msdu(now, da, da, sa, ethertype, payload, out);
        } else {
            self.deliver_host(now, frames::ethernet(&da, &sa, ethertype, payload), out);
        }
    }

    pub(super) fn deliver_host(&mut self, now: u64, eth: Vec<u8>, out: &mut Output) {
        self.dp.deliver_host(now, eth, &mut self.counters, out);
    }

    /// Ethernet frames from the wired side, as [`AccessPoint::handle_host`] one by one,
    /// protected as one batch.
    pub fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        datapath::host_batch(self, now, eths, out, Self::host_frame);
    }

    /// One Ethernet frame from the wired side (the AP's TAP).
    pub fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        self.host_frame(now, eth, out);
        self.flush_amsdu(now, out);
    }

    /// One Ethernet frame from the wired side; an A-MSDU it joined may wait for the next.
    fn host_frame(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        self.clock = now;
        self.counters.rx_host += 1;
        let Ok((da, sa, ethertype, payload)) = frames::parse_ethernet(eth) else {
            // An IEEE 802.3 frame with a length field (an LLC frame such as another AP's
            // Layer 2 Update) is not carried: only Ethernet II types get an RFC 1042 header.
            if eth.len() >= 14 && u16::from_be_bytes([eth[12], eth[13]]) < 0x0600 {
                return self.counters.drop("802.3 length frame");
            }
            return self.counters.drop("malformed ethernet frame");
        };
        if self.rrb_rx(now, da, ethertype.0, eth, out) {
            return;
        }
        if ethertype == EtherType::EAPOL {
            // The authenticator is the only source of EAPOL towards the stations: EAPOL
            // from the wired side is not bridged (a wired host could otherwise hand a
            // station a forged message 1; to the PAE group address a bridge never forwards
            // it, IEEE 802.1Q-2022 8.6.3).
            return self.counters.drop("eapol from the host");
        }
        let bssid = self.cfg.bssid;
        if da.is_group() {
            if self.peers.values().any(|p| p.state.is_established()) {
                let seq = self.seq.take();
                let f = frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload);
                self.send_data(now, None, f, out);
            }
        } else if self.peers.get(&da).is_some_and(|p| p.state.is_established()) {
            self.send_msdu(now, da, da, sa, ethertype, payload, out);
        } else {
            self.counters.drop("unknown destination");
        }
    }
}
