//! QoS Data and A-MSDU transmit (IEEE 802.11-2020 9.2.4.5, 9.3.2.2, 10.3.2.14, 10.12),
//! shared by the access point and the station cores.
//!
//! What a peer told us at association ([`PeerQos`]): QoS (the WMM element: hostapd and
//! mac80211 go by it) and, if HT, the Max A-MSDU Length of its HT Capabilities
//! (9.4.2.55.2). To a QoS peer individually addressed MSDUs go in QoS Data frames (TID
//! from the 802.1D priority, [`tid_of`]; Sequence Numbers per TID, 10.3.2.14.2); to an HT
//! QoS peer consecutive MSDUs of one TID are packed into one A-MSDU ([`Aggregator`]) up to
//! that length. The cores decide which MSDUs may go in one (not EAPOL, not group
//! addressed, CCMP/GCMP links that allow A-MSDUs, see `amsdu_ok` in each core) and flush
//! the A-MSDU being built before anything else leaves, so frames to a peer keep their
//! order.
//!
//! mac80211 takes what this sends: `ieee80211_rx_h_amsdu` (net/mac80211/rx.c) takes an
//! A-MSDU with Address 1 individual, three addresses, not under WEP/TKIP; then
//! `ieee80211_amsdu_to_8023s` (net/wireless/util.c) walks the subframes (DA, SA, Length,
//! padding to 4 octets between subframes, none required after the last), dropping the
//! whole A-MSDU when the first subframe's DA is an RFC 1042 header (CVE-2020-24588) and,
//! from an AP, skipping subframes whose SA or DA do not fit the frame's direction
//! (`check_sa`/`check_da`). Every subframe here has the MSDU's real DA and SA.
use crate::wire::amsdu::{self, SubframeRepr, HEADER_LEN};
use crate::wire::element;
use crate::wire::ethernet::EtherType;
use crate::wire::ht::{HtCapInfo, HtCapabilitiesRepr, HtOperationRepr};
use crate::wire::llc::{SnapRepr, OUI_RFC1042};
use crate::wire::mac::{fc, FrameControl, FrameType, Header, HeaderRepr, MacAddr, QosControl, SeqControl};
use crate::wire::wmm::{self, WmmInfoRepr, WmmParamRepr};

/// QoS Data subtype (9.2.4.1.3, Table 9-1).
const QOS_DATA: u8 = 8;
/// A three-address QoS Data header: 24 octets and QoS Control.
pub const QOS_HEADER_LEN: usize = 26;

/// What the peer of an association advertised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PeerQos {
    /// The peer sends and takes QoS Data (both sides advertised WMM).
    pub qos: bool,
    /// The longest A-MSDU the peer takes (its HT Capabilities, 9.4.2.55.2), when both
    /// sides are HT.
    pub max_amsdu: Option<usize>,
}

impl PeerQos {
    /// From the peer's elements `ies`, with what we advertised (`our_ht`, `our_wmm`): a
    /// WMM element of `subtype` (Information from a STA, Parameter from an AP) and an HT
    /// Capabilities element. A malformed element counts as absent, as hostapd
    /// (`hostapd_get_ht_capab` ignores an element it cannot read).
    pub fn from_ies(ies: &[u8], our_ht: bool, our_wmm: bool, subtype: u8) -> PeerQos {
        let wmm_ok = our_wmm
            && wmm::find(ies, subtype).ok().flatten().is_some_and(|e| wmm::Wmm::new_checked(e.body).is_ok_and(|w| w.subtype() == subtype));
        let ht = (our_ht && wmm_ok)
            .then(|| element::find(ies, element::id::HT_CAPABILITIES).ok().flatten())
            .flatten()
            .and_then(|e| HtCapabilitiesRepr::parse_body(e.body).ok());
        PeerQos { qos: wmm_ok, max_amsdu: ht.map(|h| h.max_amsdu_len()) }
    }
}

/// The elements of an HT QoS BSS (AP side): HT Capabilities and HT Operation (after the
/// RSNE and MDE, 9.3.3.2 Table 9-34 order) and the WMM Parameter element (a Vendor
/// Specific element, last).
pub fn ap_elements(ht: Option<HtCapInfo>, channel: u8) -> (Vec<u8>, Vec<u8>) {
    let mut h = Vec::new();
    if let Some(info) = ht {
        let mut cap = HtCapabilitiesRepr::wsec_default(false);
        cap.info = info;
        let _ = cap.push(&mut h);
        let _ = HtOperationRepr::twenty_mhz(channel).push(&mut h);
    }
    let mut w = Vec::new();
    let _ = WmmParamRepr::hostapd_default().push(&mut w);
    (h, w)
}

/// A station's elements for a (Re)Association Request to an AP that offered them: HT
/// Capabilities (when `ht`), then the WMM Information element (QoS Info 0: no U-APSD, as
/// wpa_supplicant without `uapsd`).
pub fn sta_elements(ht: Option<HtCapInfo>) -> Vec<u8> {
    let mut v = Vec::new();
    if let Some(info) = ht {
        let mut cap = HtCapabilitiesRepr::wsec_default(false);
        cap.info = info;
        let _ = cap.push(&mut v);
    }
    let _ = WmmInfoRepr { qos_info: 0 }.push(&mut v);
    v
}

/// The TID of an MSDU (9.2.4.5.2: TIDs 0-7 are 802.1D user priorities) as Linux's
/// `cfg80211_classify8021d` gives it without a VLAN tag: the top three bits of the IPv4
/// DSCP / IPv6 Traffic Class; 0 (best effort) for everything else.
pub fn tid_of(ethertype: EtherType, payload: &[u8]) -> u8 {
    let ds = match ethertype {
        EtherType::IPV4 => payload.get(1).copied(),
        EtherType::IPV6 => payload.get(..2).map(|b| (b[0] << 4) | (b[1] >> 4)),
        _ => None,
    };
    ds.map_or(0, |d| (d & 0xfc) >> 5)
}

/// Sequence Numbers of the QoS Data frames to one peer, one modulo-4096 counter per TID
/// (10.3.2.14.2); non-QoS data and management frames keep the node's shared counter.
#[derive(Debug, Clone, Default)]
pub struct TidSeq([u16; 8]);

impl TidSeq {
    pub fn take(&mut self, tid: u8) -> u16 {
        let s = &mut self.0[(tid & 7) as usize];
        let v = *s;
        *s = (*s + 1) & 0x0fff;
        v
    }
}

/// The header of a three-address QoS Data frame (9.3.2.1): To DS from a station
/// (`to_ap`) or From DS from the AP, TID `tid`, A-MSDU Present when `amsdu`.
pub fn qos_header(to_ap: bool, a1: &MacAddr, a2: &MacAddr, a3: &MacAddr, seq: u16, tid: u8, amsdu: bool) -> [u8; QOS_HEADER_LEN] {
    let ds = if to_ap { fc::TO_DS } else { fc::FROM_DS };
    let q = QosControl((tid & 0x0f) as u16 | if amsdu { QosControl::AMSDU_PRESENT } else { 0 });
    let h = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Data, QOS_DATA).with(ds, true),
        duration_id: 0,
        addr1: *a1,
        addr2: Some(*a2),
        addr3: Some(*a3),
        seq_control: Some(SeqControl::new(seq, 0)),
        addr4: None,
        qos_control: Some(q),
        ht_control: None,
    };
    let mut b = [0u8; QOS_HEADER_LEN];
    // A 26-octet QoS header fits its buffer.
    let _ = h.emit(&mut Header::new_unchecked(&mut b[..]));
    b
}

/// A plaintext QoS Data frame carrying one MSDU (RFC 1042 encapsulated).
#[allow(clippy::too_many_arguments)]
pub fn qos_data(to_ap: bool, a1: &MacAddr, a2: &MacAddr, a3: &MacAddr, seq: u16, tid: u8, ethertype: EtherType, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(QOS_HEADER_LEN + SnapRepr::LEN + payload.len() + 24);
    v.extend_from_slice(&qos_header(to_ap, a1, a2, a3, seq, tid, false));
    v.resize(QOS_HEADER_LEN + SnapRepr::LEN, 0);
    let _ = SnapRepr { oui: OUI_RFC1042, ethertype }.emit(&mut v[QOS_HEADER_LEN..]);
    v.extend_from_slice(payload);
    v
}

/// The A-MSDU being built: its QoS Data MPDU so far (header with A-MSDU Present, then the
/// subframes, 9.3.2.2.2) and what bounds it.
#[derive(Debug)]
struct Pending {
    peer: MacAddr,
    tid: u8,
    mpdu: Vec<u8>,
    msdus: usize,
    /// The last subframe's MSDU length (its padding comes when another follows).
    last: usize,
    /// The longest A-MSDU (the frame body) allowed.
    max: usize,
}

/// An A-MSDU finished by [`Aggregator::take`]: the plaintext MPDU to protect and send.
#[derive(Debug)]
pub struct Built {
    pub peer: MacAddr,
    pub mpdu: Vec<u8>,
    /// MSDUs in it; 1: it went out as a plain QoS Data frame (A-MSDU Present clear).
    pub msdus: usize,
}

/// Builds one A-MSDU at a time (see the module documentation).
#[derive(Debug, Default)]
pub struct Aggregator {
    pending: Option<Pending>,
}

impl Aggregator {
    /// Whether an MSDU of `msdu_len` octets (LLC/SNAP header included) joins the A-MSDU
    /// being built for `peer` and `tid` within its bound.
    pub fn fits(&self, peer: &MacAddr, tid: u8, msdu_len: usize) -> bool {
        self.pending.as_ref().is_some_and(|p| {
            let body = p.mpdu.len() - QOS_HEADER_LEN;
            p.peer == *peer && p.tid == tid && body + amsdu::padding(p.last) + HEADER_LEN + msdu_len <= p.max
        })
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_none()
    }

    /// Starts an A-MSDU for `peer` under `header` (a [`qos_header`] with A-MSDU Present)
    /// bounded by `max` octets. The previous one must have been taken.
    pub fn start(&mut self, peer: MacAddr, tid: u8, header: [u8; QOS_HEADER_LEN], max: usize) {
        debug_assert!(self.pending.is_none());
        let mut mpdu = Vec::with_capacity(QOS_HEADER_LEN + max.min(8192) + 24);
        mpdu.extend_from_slice(&header);
        self.pending = Some(Pending { peer, tid, mpdu, msdus: 0, last: 0, max });
    }

    /// Appends one MSDU (DA, SA, RFC 1042 header with `ethertype`, `payload`); the caller
    /// checked [`Aggregator::fits`] or started a new A-MSDU (the first subframe always goes
    /// in: a lone MSDU over the bound leaves as a plain QoS Data frame).
    pub fn append(&mut self, da: &MacAddr, sa: &MacAddr, ethertype: EtherType, payload: &[u8]) {
        let Some(p) = self.pending.as_mut() else { return };
        let len = SnapRepr::LEN + payload.len();
        if p.msdus > 0 {
            let pad = amsdu::padding(p.last);
            p.mpdu.resize(p.mpdu.len() + pad, 0);
        }
        let at = p.mpdu.len();
        p.mpdu.resize(at + HEADER_LEN + SnapRepr::LEN, 0);
        // Every MSDU here is at most 2304 octets (the cores check), so the Length fits.
        let _ = SubframeRepr { da: *da, sa: *sa, length: len as u16 }.emit(&mut p.mpdu[at..]);
        let _ = SnapRepr { oui: OUI_RFC1042, ethertype }.emit(&mut p.mpdu[at + HEADER_LEN..]);
        wsec_kernel::bytes::extend(&mut p.mpdu, payload);
        p.msdus += 1;
        p.last = len;
    }

    /// The A-MSDU built so far, if any. One MSDU alone goes as a plain QoS Data frame:
    /// A-MSDU Present cleared and its subframe header removed (9.3.2.2.1 lets a single
    /// MSDU go either way; mac80211 sends them plain).
    pub fn take(&mut self) -> Option<Built> {
        let p = self.pending.take()?;
        let mut mpdu = p.mpdu;
        if p.msdus == 1 {
            // Address 3 of an A-MSDU is the BSSID; of a single MSDU it is the DA (To DS)
            // or the SA (From DS) (9.3.2.1, Table 9-30): taken from the subframe header.
            let to_ds = mpdu[1] & 0x01 != 0;
            let a3 = if to_ds { QOS_HEADER_LEN..QOS_HEADER_LEN + 6 } else { QOS_HEADER_LEN + 6..QOS_HEADER_LEN + 12 };
            let addr3: [u8; 6] = mpdu[a3].try_into().unwrap_or_default();
            mpdu[16..22].copy_from_slice(&addr3);
            mpdu[24] &= !(QosControl::AMSDU_PRESENT as u8);
            mpdu.drain(QOS_HEADER_LEN..QOS_HEADER_LEN + HEADER_LEN);
        }
        Some(Built { peer: p.peer, mpdu, msdus: p.msdus })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tid_from_dscp() {
        let mut ip = [0x45u8, 0x00, 0, 0];
        assert_eq!(tid_of(EtherType::IPV4, &ip), 0);
        ip[1] = 0xb8; // EF (46): priority 5
        assert_eq!(tid_of(EtherType::IPV4, &ip), 5);
        assert_eq!(tid_of(EtherType::IPV6, &[0x6e, 0x00]), 7); // traffic class 0xe0
        assert_eq!(tid_of(EtherType::ARP, &ip), 0);
        assert_eq!(tid_of(EtherType::IPV4, &[]), 0);
    }

    #[test]
    fn sequence_numbers_per_tid() {
        let mut s = TidSeq::default();
        assert_eq!((s.take(0), s.take(0), s.take(5), s.take(0)), (0, 1, 0, 2));
    }
}
