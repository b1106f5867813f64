//! The station's data path (12.5): protected data from the AP to the host, the EAPOL
//! frames among them to the supplicant, and frames from the host to the AP.
use crate::cipher::Algorithm;
use crate::node::amsdu;
use crate::node::datapath::{self, RxFrame};
use crate::node::frames::{self, Dir, Msdu};
use crate::node::qos;
use crate::node::{rx_error_reason, Output, Security};
use crate::wire::ethernet::EtherType;
use crate::wire::mac::{FrameControl, MacAddr};

use super::{State, Station};

impl Station {
    /// Whether the current link carries data unprotected: an open network, or an OWE
    /// network that joined an open BSS (`owe_only=0`). WEP has no negotiation either but
    /// protects every data frame.
    pub(super) fn link_open(&self) -> bool {
        self.neg().is_none() && !matches!(self.cfg.security, Security::Wep { .. })
    }

    pub(super) fn handle_data(&mut self, now: u64, rx: RxFrame<'_>, out: &mut Output) {
        if !matches!(self.state, State::Handshake(..) | State::Established(..)) {
            return self.counters.drop("data before association");
        }
        let RxFrame { mpdu, hdr, fc, opened, .. } = rx;
        if !fc.has_data_body() {
            return;
        }
        if !fc.protected() && hdr.is_fragment() {
            // Never taken as a whole MSDU, and not reassembled: FragAttacks CVE-2020-26145
            // and CVE-2020-26147.
            return self.counters.drop("unprotected fragment");
        }
        let bssid = self.bssid().unwrap_or_default();
        let plain: std::borrow::Cow<'_, [u8]> = if fc.protected() {
            match self.dp.unprotect_data(now, &bssid, &hdr, opened) {
                Ok(Some(p)) => std::borrow::Cow::Owned(p),
                Ok(None) => return,
                Err(e) => return self.counters.drop(rx_error_reason(&e)),
            }
        } else {
            std::borrow::Cow::Borrowed(mpdu)
        };
        let n = self.neg();
        let link = amsdu::Link {
            pairwise: n.map(|n| n.pairwise),
            spp: n.is_some_and(|n| n.spp_amsdu),
            allowed: n.is_none_or(|n| n.amsdu_allowed),
            open: self.link_open(),
        };
        let policy = self.cfg.amsdu_rx;
        amsdu::each_msdu(self, &hdr, &plain, policy, link, out, |sta, m, len, out| sta.rx_msdu(now, bssid, fc, m, len, out));
        if let std::borrow::Cow::Owned(v) = plain {
            self.dp.recycle(v);
        }
    }

    /// One MSDU from the AP `bssid` in a data frame with Frame Control `fc`, alone (`len`:
    /// the MPDU's octets) or from an A-MSDU (`len`: the MSDU's): EAPOL to the supplicant,
    /// data to the host.
    fn rx_msdu(&mut self, now: u64, bssid: MacAddr, fc: FrameControl, m: Msdu<'_>, len: usize, out: &mut Output) {
        if m.ethertype == EtherType::EAPOL {
            // EAPOL goes to the local supplicant only (IEEE 802.1X-2020 6.4): addressed to
            // this station or the PAE group address, and from the AP itself (the
            // authenticator is the BSSID; an EAPOL frame another station sent through the
            // AP is not the authenticator's), else dropped, never given to the host.
            if m.da != self.cfg.addr && m.da != MacAddr::PAE_GROUP {
                return self.counters.drop("eapol not addressed to this node");
            }
            if m.sa != bssid {
                return self.counters.drop("eapol not from the bssid");
            }
            let eapol = m.payload.to_vec();
            if eapol.get(1).is_some_and(|&t| t != 3) {
                // EAP: the 802.1X supplicant's.
                return self.eap_rx(now, &eapol, out);
            }
            let o = self.state.rsna_mut().map(|r| r.supplicant.handle_eapol(now, &eapol));
            match o {
                Some(o) => self.after_handshake(now, o, out),
                None => self.counters.drop("eapol without an rsna"),
            }
            return;
        }
        if !fc.protected() && !self.link_open() {
            return self.counters.drop("unprotected");
        }
        if !self.state.is_established() {
            return self.counters.drop("data before the keys are installed");
        }
        if m.sa == self.cfg.addr {
            return; // our own group frame, sent back by the AP
        }
        self.counters.rx_data += 1;
        self.counters.rx_data_bytes += len as u64;
        let eth = frames::ethernet(&m.da, &m.sa, m.ethertype, m.payload);
        self.dp.deliver_host(now, eth, &mut self.counters, out);
    }

    /// The A-MSDU being built goes first, so frames keep their order.
    pub(super) fn send_protected(&mut self, now: u64, f: Vec<u8>, out: &mut Output) {
        self.flush_amsdu(now, out);
        let bssid = self.bssid().unwrap_or_default();
        if self.dp.send_protected(now, Some(bssid), f, &mut self.counters, out) {
            self.last_tx = now;
        }
    }

    /// Sends the A-MSDU being built, if any ([`qos::Aggregator::take`]).
    pub(super) fn flush_amsdu(&mut self, now: u64, out: &mut Output) {
        let Some(b) = self.agg.take() else { return };
        if b.msdus > 1 {
            self.counters.amsdu_tx += 1;
            self.counters.amsdu_tx_msdus += b.msdus as u64;
        }
        if self.link_open() {
            self.tx(now, b.mpdu, out);
        } else if self.dp.send_protected(now, Some(b.peer), b.mpdu, &mut self.counters, out) {
            self.last_tx = now;
        }
    }

    /// The longest A-MSDU an MSDU to the AP may join, or `None` when it goes alone (the
    /// AP core's rules: an HT QoS AP, a CCMP/GCMP/ECCMP pairwise key or an open BSS, no
    /// EAPOL, 2304 octets).
    fn amsdu_max(&self, ethertype: EtherType, msdu_len: usize) -> Option<usize> {
        if !self.cfg.amsdu_tx || ethertype == EtherType::EAPOL || msdu_len > crate::wire::amsdu::MAX_MSDU_LEN {
            return None;
        }
        let l = self.state.link()?;
        let ccm_gcm = match l.neg.as_ref() {
            Some(n) => {
                n.amsdu_allowed
                    && !crate::rsn::ie::is_wpa_element(&n.ap_rsne)
                    && matches!(n.pairwise.algorithm(), Algorithm::Ccm | Algorithm::Gcm | Algorithm::Eccm { .. })
            }
            None => self.link_open(),
        };
        let max = l.qos.max_amsdu.filter(|_| l.qos.qos && ccm_gcm)?;
        Some(max.min(self.cfg.amsdu_max_len))
    }

    /// Ethernet frames from the host's TAP device, as [`Station::handle_host`] one by one,
    /// protected as one batch (multi-buffer CCMP): the station's host engine of seed 000.
    pub fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        datapath::host_batch(self, now, eths, out, Self::host_frame);
    }

    /// One Ethernet frame from the host's TAP device.
    pub fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        self.host_frame(now, eth, out);
        self.flush_amsdu(now, out);
    }

    /// One Ethernet frame from the host; an A-MSDU it joined may wait for the next.
    fn host_frame(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        self.counters.rx_host += 1;
        if !self.state.is_established() {
            return self.counters.drop("not associated");
        }
        let Ok((da, sa, ethertype, payload)) = frames::parse_ethernet(eth) else {
            // An IEEE 802.3 frame with a length field (an LLC frame such as another AP's
            // Layer 2 Update) is not carried: only Ethernet II types get an RFC 1042 header.
            if eth.len() >= 14 && u16::from_be_bytes([eth[12], eth[13]]) < 0x0600 {
                return self.counters.drop("802.3 length frame");
            }
            return self.counters.drop("malformed ethernet frame");
        };
        if sa != self.cfg.addr {
            return self.counters.drop("source address is not the station's");
        }
        if ethertype == EtherType::EAPOL {
            // The station's own supplicant is its only EAPOL source (IEEE 802.1X-2020 6.4).
            return self.counters.drop("eapol from the host");
        }
        let bssid = self.bssid().unwrap_or_default();
        let msdu_len = crate::wire::llc::SnapRepr::LEN + payload.len();
        let tid = qos::tid_of(ethertype, payload);
        if let Some(max) = self.amsdu_max(ethertype, msdu_len) {
            if !self.agg.fits(&bssid, tid, msdu_len) {
                self.flush_amsdu(now, out);
                let seq = self.tid_seq.take(tid);
                // An A-MSDU's Address 3 is the BSSID (9.3.2.1, Table 9-30).
                self.agg.start(bssid, tid, qos::qos_header(true, &bssid, &sa, &bssid, seq, tid, true), max);
            }
            self.agg.append(&da, &sa, ethertype, payload);
            self.counters.tx_data += 1;
            self.counters.tx_data_bytes += msdu_len as u64;
            return;
        }
        let f = if self.state.link().is_some_and(|l| l.qos.qos) {
            let seq = self.tid_seq.take(tid);
            qos::qos_data(true, &bssid, &sa, &da, seq, tid, ethertype, payload)
        } else {
            let seq = self.seq.take();
            frames::data(Dir::ToAp, &bssid, &da, &sa, seq, ethertype, payload)
        };
        self.counters.tx_data += 1;
        self.counters.tx_data_bytes += f.len() as u64;
        if self.link_open() {
            self.tx(now, f, out);
        } else {
            self.send_protected(now, f, out);
        }
    }
}
