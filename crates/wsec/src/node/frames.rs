//! The management and data frames the AP and STA cores exchange, and what the cores read
//! out of them. The formats are [`crate::wire`]'s (management bodies and their fixed fields
//! in [`crate::wire::mgmt`], elements in [`crate::wire::element`], the MAC header, LLC/SNAP
//! and Ethernet II); this module only says which frames the cores send (which elements, which
//! rates, which addresses) and turns received ones into [`Mgmt`] and [`Msdu`]. Every parser
//! returns an error, never panics, on any input.
use crate::error::{Error, Result};
use crate::wire::element::{self, id as eid, TimeoutIntervalRepr};
use crate::wire::ethernet::{EtherType, EthernetFrame, EthernetRepr};
use crate::wire::llc::{Snap, SnapRepr, OUI_BRIDGE_TUNNEL, OUI_RFC1042};
use crate::wire::mac::{fc, FrameControl, FrameType, Header, HeaderRepr, MacAddr, Mpdu, SeqControl};
use crate::wire::mgmt::{
    self, ActionCategory, AssocRequestRepr, AssocResponseRepr, AuthAlgorithm, AuthRepr, BeaconRepr, BodyRepr, Capability, DeauthRepr,
    MgmtRepr, ProbeRequestRepr, ReasonCode, SaQueryRepr, StatusCode,
};

/// Supported Rates of an ERP (802.11g) BSS: 1, 2, 5.5, 11 (basic), 6, 9, 12, 18 Mb/s; the
/// extended rates 24, 36, 48, 54 go in a separate element (9.4.2.3, 9.4.2.13).
pub const SUPP_RATES: [u8; 8] = [0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];
pub const EXT_SUPP_RATES: [u8; 4] = [0x30, 0x48, 0x60, 0x6c];

/// Listen Interval of the STA's Association Request, in Beacon Intervals.
const LISTEN_INTERVAL: u16 = 10;

/// Sequence numbers of one transmitter (10.3.2.14.2: a modulo-4096 counter).
#[derive(Debug, Default, Clone)]
pub struct SeqNum(u16);

impl SeqNum {
    /// The next Sequence Number to send, and moves on.
    pub fn take(&mut self) -> u16 {
        let s = self.0;
        self.0 = (self.0 + 1) & 0x0fff;
        s
    }
}

/// Whether a whole (plaintext or BIP) management MPDU is a robust management frame.
pub fn is_robust(mpdu: &[u8]) -> bool {
    Mpdu::new_checked(mpdu).is_ok_and(|m| is_robust_mpdu(&m))
}

/// [`is_robust`] of an MPDU whose header was checked once.
pub fn is_robust_mpdu(m: &Mpdu<'_>) -> bool {
    mgmt::Frame::from_mpdu(m).is_ok_and(|f| f.is_robust())
}

/// A management frame with sequence number `seq`: every body here fits an MPDU, so the
/// emit cannot fail.
fn mgmt_frame(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, body: BodyRepr<'_>) -> Vec<u8> {
    let r = MgmtRepr { da: *da, sa: *sa, bssid: *bssid, seq_control: SeqControl::new(seq, 0), body };
    r.to_vec().unwrap_or_default()
}

/// Appends an element; the bodies here are at most 255 octets (an SSID of 32, a
/// 128-octet challenge, an RSNE the parser accepted).
fn push(v: &mut Vec<u8>, id: u8, body: &[u8]) {
    debug_assert!(body.len() <= element::MAX_BODY_LEN);
    let _ = element::push(v, id, &body[..body.len().min(element::MAX_BODY_LEN)]);
}

/// What a Beacon or Probe Response says (9.3.3.2, 9.3.3.10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BssInfo {
    pub bssid: MacAddr,
    pub ssid: Vec<u8>,
    pub channel: u8,
    pub beacon_interval_tu: u16,
    pub capability: Capability,
    /// The whole RSN element (ID, length, body), as advertised.
    pub rsne: Option<Vec<u8>>,
    /// The whole WPA1 vendor element (OUI 00-50-F2 type 1), as advertised.
    pub wpa_ie: Option<Vec<u8>>,
    /// The whole RSN Extension element (9.4.2.241), as advertised (SAE hash-to-element).
    pub rsnxe: Option<Vec<u8>>,
    /// The whole OWE Transition Mode element (WFA vendor element), naming the other BSS of
    /// an open/OWE pair ([`crate::rsn::owe::transition_element`]).
    pub owe_transition: Option<Vec<u8>>,
    /// The whole Mobility Domain element of an FT AP (9.4.2.46).
    pub mde: Option<Vec<u8>>,
    /// The whole HT Capabilities and HT Operation elements of an HT AP (9.4.2.55,
    /// 9.4.2.56), both well formed, as advertised.
    pub ht: Option<Vec<u8>>,
    /// The whole WMM Parameter element of a QoS AP, well formed.
    pub wmm: Option<Vec<u8>>,
}

/// Builds a Beacon (`probe_resp_to == None`) or a Probe Response to a STA.
pub fn beacon(info: &BssInfo, tsf_us: u64, seq: u16, probe_resp_to: Option<&MacAddr>) -> Vec<u8> {
    let mut ies = Vec::with_capacity(128);
    push(&mut ies, eid::SSID, &info.ssid);
    push(&mut ies, eid::SUPPORTED_RATES, &SUPP_RATES);
    push(&mut ies, eid::DSSS_PARAMETER_SET, &[info.channel]);
    if probe_resp_to.is_none() {
        // TIM: DTIM count 0, period 1, no buffered traffic (no power save here).
        push(&mut ies, eid::TIM, &[0, 1, 0, 0]);
    }
    if let Some(r) = &info.rsne {
        ies.extend_from_slice(r);
    }
    push(&mut ies, eid::EXTENDED_SUPPORTED_RATES, &EXT_SUPP_RATES);
    if let Some(x) = &info.rsnxe {
        ies.extend_from_slice(x);
    }
    // The MDE after the RSNE and RSNXE (9.3.3.2, Table 9-34 order, as hostapd).
    if let Some(m) = &info.mde {
        ies.extend_from_slice(m);
    }
    if let Some(h) = &info.ht {
        ies.extend_from_slice(h);
    }
    // Vendor Specific elements come last (9.3.3.2, Table 9-34); hostapd puts the WPA
    // element there too.
    if let Some(w) = &info.wpa_ie {
        ies.extend_from_slice(w);
    }
    if let Some(t) = &info.owe_transition {
        ies.extend_from_slice(t);
    }
    if let Some(w) = &info.wmm {
        ies.extend_from_slice(w);
    }
    let b = BeaconRepr { timestamp: tsf_us, beacon_interval: info.beacon_interval_tu, capability: info.capability, elements: &ies };
    match probe_resp_to {
        Some(a) => mgmt_frame(a, &info.bssid, &info.bssid, seq, BodyRepr::ProbeResponse(b)),
        None => mgmt_frame(&MacAddr::BROADCAST, &info.bssid, &info.bssid, seq, BodyRepr::Beacon(b)),
    }
}

/// A parsed management frame of one of the kinds the cores use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mgmt<'a> {
    Beacon(BssInfo),
    ProbeResp(BssInfo),
    ProbeReq {
        ssid: &'a [u8],
    },
    Auth {
        alg: AuthAlgorithm,
        seq: u16,
        status: StatusCode,
        challenge: Option<&'a [u8]>,
        /// The elements after the fixed fields (FT: RSNE, MDE, FTE; 9.3.3.12).
        ies: &'a [u8],
    },
    AssocReq {
        capability: Capability,
        /// The Current AP Address of a Reassociation Request (9.3.3.7).
        current_ap: Option<MacAddr>,
        /// All the elements.
        ies: &'a [u8],
        ssid: &'a [u8],
        rsne: Option<&'a [u8]>,
        /// The WPA1 element of a `proto=WPA` station.
        wpa_ie: Option<&'a [u8]>,
        /// The OWE Diffie-Hellman Parameter element (whole element, RFC 8110 4.3).
        owe_dh: Option<&'a [u8]>,
    },
    AssocResp {
        status: StatusCode,
        aid: u16,
        /// A Reassociation Response.
        reassoc: bool,
        /// All the elements.
        ies: &'a [u8],
        /// The AP's RSN element (OWE: with the PMKID when it accepted a cached PMKSA).
        rsne: Option<&'a [u8]>,
        /// The OWE Diffie-Hellman Parameter element (whole element).
        owe_dh: Option<&'a [u8]>,
    },
    Deauth {
        reason: ReasonCode,
    },
    Disassoc {
        reason: ReasonCode,
    },
    /// SA Query Request (`request`) or Response with its Transaction Identifier (9.6.9).
    SaQuery {
        request: bool,
        id: [u8; 2],
    },
    /// Another Action frame (its category).
    Action {
        category: ActionCategory,
        /// The octets after the Category field (Action field on).
        details: &'a [u8],
    },
    Other(u8),
}

/// What a Beacon or Probe Response from `bssid` advertises: a missing SSID is empty, a
/// missing DSSS Parameter Set channel 0; elements must be well formed up to the last one
/// read.
fn bss_info(bssid: MacAddr, b: &BeaconRepr<'_>) -> Result<BssInfo> {
    let ies = b.elements;
    Ok(BssInfo {
        bssid,
        ssid: element::find(ies, eid::SSID)?.map(|e| e.body.to_vec()).unwrap_or_default(),
        channel: element::find(ies, eid::DSSS_PARAMETER_SET)?.and_then(|e| e.body.first().copied()).unwrap_or(0),
        beacon_interval_tu: b.beacon_interval,
        capability: b.capability,
        rsne: element::find(ies, eid::RSN)?.map(|e| e.bytes.to_vec()),
        wpa_ie: crate::rsn::ie::find_wpa_element(ies)?.map(|e| e.to_vec()),
        rsnxe: element::find(ies, super::sae::EID_RSNXE)?.map(|e| e.bytes.to_vec()),
        owe_transition: element::find_by(ies, |e| crate::rsn::owe::is_transition_element(e.bytes))?.map(|e| e.bytes.to_vec()),
        mde: element::find(ies, eid::MOBILITY_DOMAIN)?.filter(|e| e.body.len() == 3).map(|e| e.bytes.to_vec()),
        ht: ht_elements(ies)?,
        wmm: crate::wire::wmm::find(ies, crate::wire::wmm::SUBTYPE_PARAM)?
            .filter(|e| crate::wire::wmm::Wmm::new_checked(e.body).is_ok())
            .map(|e| e.bytes.to_vec()),
    })
}

/// An HT AP's HT Capabilities and HT Operation elements, whole, when both are there and
/// well formed (mac80211 takes a BSS as HT only with both).
fn ht_elements(ies: &[u8]) -> Result<Option<Vec<u8>>> {
    use crate::wire::ht::{HtCapabilitiesRepr, HtOperationRepr};
    let cap = element::find(ies, eid::HT_CAPABILITIES)?.filter(|e| HtCapabilitiesRepr::parse_body(e.body).is_ok());
    let op = element::find(ies, eid::HT_OPERATION)?.filter(|e| HtOperationRepr::parse_body(e.body).is_ok());
    Ok(cap.zip(op).map(|(c, o)| [c.bytes, o.bytes].concat()))
}

/// The OWE Diffie-Hellman Parameter element (Element ID Extension 32) among `ies`.
fn owe_dh(ies: &[u8]) -> Result<Option<&[u8]>> {
    Ok(element::find_by(ies, |e| e.ext_id() == Some(crate::rsn::owe::EXT_OWE_DH_PARAM))?.map(|e| e.bytes))
}

/// Parses an unprotected management frame (the Authentication frame 3 of shared-key
/// authentication and protected robust frames arrive decrypted by the caller).
pub fn parse_mgmt(mpdu: &[u8]) -> Result<Mgmt<'_>> {
    parse_mgmt_mpdu(&Mpdu::new_checked(mpdu)?)
}

/// [`parse_mgmt`] of an MPDU whose header was checked once: its typed repr
/// ([`MgmtRepr::parse_mpdu`]) read into a [`Mgmt`].
pub fn parse_mgmt_mpdu<'a>(hdr: &Mpdu<'a>) -> Result<Mgmt<'a>> {
    let m = MgmtRepr::parse_mpdu(hdr)?;
    let body = mgmt::Frame::from_mpdu(hdr)?.body();
    Ok(match m.body {
        BodyRepr::Beacon(b) => Mgmt::Beacon(bss_info(m.bssid, &b)?),
        BodyRepr::ProbeResponse(b) => Mgmt::ProbeResp(bss_info(m.bssid, &b)?),
        BodyRepr::ProbeRequest(p) => Mgmt::ProbeReq { ssid: element::find(p.elements, eid::SSID)?.map(|e| e.body).unwrap_or(&[]) },
        BodyRepr::Auth(a) => Mgmt::Auth {
            alg: a.algorithm,
            seq: a.transaction,
            status: a.status,
            challenge: a.challenge,
            ies: body.get(AuthRepr::FIXED_LEN..).unwrap_or_default(),
        },
        BodyRepr::AssocRequest(r) => Mgmt::AssocReq {
            capability: r.capability,
            current_ap: r.current_ap,
            ies: r.elements,
            ssid: element::find(r.elements, eid::SSID)?.map(|e| e.body).ok_or(Error::Malformed("no SSID element"))?,
            rsne: element::find(r.elements, eid::RSN)?.map(|e| e.bytes),
            wpa_ie: crate::rsn::ie::find_wpa_element(r.elements)?,
            owe_dh: owe_dh(r.elements)?,
        },
        BodyRepr::AssocResponse(r) | BodyRepr::ReassocResponse(r) => Mgmt::AssocResp {
            status: r.status,
            aid: r.aid,
            reassoc: matches!(m.body, BodyRepr::ReassocResponse(_)),
            ies: r.elements,
            rsne: element::find(r.elements, eid::RSN)?.map(|e| e.bytes),
            owe_dh: owe_dh(r.elements)?,
        },
        BodyRepr::Deauth(d) => Mgmt::Deauth { reason: d.reason },
        BodyRepr::Disassoc(d) => Mgmt::Disassoc { reason: d.reason },
        BodyRepr::SaQuery(q) => Mgmt::SaQuery { request: q.request, id: q.transaction_id },
        BodyRepr::Action(a) | BodyRepr::ActionNoAck(a) => Mgmt::Action { category: a.category, details: a.details },
        BodyRepr::Other { subtype, .. } => Mgmt::Other(subtype),
    })
}

/// A wildcard-BSSID Probe Request for `ssid` (9.3.3.9).
pub fn probe_req(sta: &MacAddr, ssid: &[u8], seq: u16) -> Vec<u8> {
    let mut ies = Vec::with_capacity(48);
    push(&mut ies, eid::SSID, ssid);
    push(&mut ies, eid::SUPPORTED_RATES, &SUPP_RATES);
    push(&mut ies, eid::EXTENDED_SUPPORTED_RATES, &EXT_SUPP_RATES);
    mgmt_frame(&MacAddr::BROADCAST, sta, &MacAddr::BROADCAST, seq, BodyRepr::ProbeRequest(ProbeRequestRepr { elements: &ies }))
}

/// An Authentication frame (9.3.3.11) from `sa` to `da`.
pub fn auth(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, body: AuthRepr<'_>) -> Vec<u8> {
    mgmt_frame(da, sa, bssid, seq, BodyRepr::Auth(body))
}

/// The STA's Association Request (9.3.3.5) with its SSID, rates and RSN element (or, for
/// WPA1, the WPA vendor element: after these, as Vendor Specific elements go last).
pub fn assoc_req(sta: &MacAddr, bssid: &MacAddr, seq: u16, capability: Capability, ssid: &[u8], rsne: Option<&[u8]>) -> Vec<u8> {
    let mut ies = Vec::with_capacity(64);
    push(&mut ies, eid::SSID, ssid);
    push(&mut ies, eid::SUPPORTED_RATES, &SUPP_RATES);
    push(&mut ies, eid::EXTENDED_SUPPORTED_RATES, &EXT_SUPP_RATES);
    if let Some(r) = rsne {
        ies.extend_from_slice(r);
    }
    let r = AssocRequestRepr { capability, listen_interval: LISTEN_INTERVAL, current_ap: None, elements: &ies };
    mgmt_frame(bssid, sta, bssid, seq, BodyRepr::AssocRequest(r))
}

/// The STA's Reassociation Request (9.3.3.7) to `bssid` from the AP `current_ap`, with
/// its SSID, rates and `ies` (RSNE, MDE, FTE of a fast BSS transition).
pub fn reassoc_req(
    sta: &MacAddr,
    bssid: &MacAddr,
    seq: u16,
    capability: Capability,
    ssid: &[u8],
    current_ap: &MacAddr,
    ies: &[u8],
) -> Vec<u8> {
    let mut all = Vec::with_capacity(64 + ies.len());
    push(&mut all, eid::SSID, ssid);
    push(&mut all, eid::SUPPORTED_RATES, &SUPP_RATES);
    push(&mut all, eid::EXTENDED_SUPPORTED_RATES, &EXT_SUPP_RATES);
    all.extend_from_slice(ies);
    let r = AssocRequestRepr { capability, listen_interval: LISTEN_INTERVAL, current_ap: Some(*current_ap), elements: &all };
    mgmt_frame(bssid, sta, bssid, seq, BodyRepr::AssocRequest(r))
}

/// The AP's Association Response (9.3.3.6).
pub fn assoc_resp(sta: &MacAddr, bssid: &MacAddr, seq: u16, capability: Capability, status: StatusCode, aid: u16) -> Vec<u8> {
    any_assoc_resp(sta, bssid, seq, capability, status, aid, false)
}

/// The Association Response, or with `reassoc` the Reassociation Response (9.3.3.8) that
/// answers a Reassociation Request (11.3.5.5); elements may be appended.
pub fn any_assoc_resp(
    sta: &MacAddr,
    bssid: &MacAddr,
    seq: u16,
    capability: Capability,
    status: StatusCode,
    aid: u16,
    reassoc: bool,
) -> Vec<u8> {
    let mut ies = Vec::with_capacity(16);
    push(&mut ies, eid::SUPPORTED_RATES, &SUPP_RATES);
    push(&mut ies, eid::EXTENDED_SUPPORTED_RATES, &EXT_SUPP_RATES);
    let r = AssocResponseRepr { capability, status, aid, elements: &ies };
    let body = if reassoc { BodyRepr::ReassocResponse(r) } else { BodyRepr::AssocResponse(r) };
    mgmt_frame(sta, bssid, bssid, seq, body)
}

/// The association comeback time of an Association Response with status 30 (the
/// Timeout Interval element of type 3, 9.4.2.48), in TUs.
pub fn assoc_comeback_tu(mpdu: &[u8]) -> Option<u32> {
    assoc_comeback_tu_mpdu(&Mpdu::new_checked(mpdu).ok()?)
}

/// [`assoc_comeback_tu`] of an MPDU whose header was checked once.
pub fn assoc_comeback_tu_mpdu(m: &Mpdu<'_>) -> Option<u32> {
    let (BodyRepr::AssocResponse(r) | BodyRepr::ReassocResponse(r)) = MgmtRepr::parse_mpdu(m).ok()?.body else { return None };
    let e = element::find(r.elements, eid::TIMEOUT_INTERVAL).ok()??;
    TimeoutIntervalRepr::parse(e.body).ok().filter(|t| t.kind == element::timeout_type::ASSOCIATION_COMEBACK).map(|t| t.value)
}

/// Appends a Timeout Interval element of type 3 (association comeback time, TUs) to an
/// Association Response (11.13: status 30 while the AP runs an SA Query); elements are the
/// last thing in its body.
pub fn add_comeback(resp: &mut Vec<u8>, tu: u32) {
    let _ = TimeoutIntervalRepr { kind: element::timeout_type::ASSOCIATION_COMEBACK, value: tu }.push(resp);
}

/// An SA Query Request or Response Action frame (9.6.9.2, 9.6.9.3), unprotected: the
/// caller protects it with the pairwise key (it is a robust management frame).
/// An Action frame (9.3.3.13) whose body (Category, Action and the rest) is `body`.
pub fn action(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, body: &[u8]) -> Vec<u8> {
    match body {
        [c, details @ ..] => {
            mgmt_frame(da, sa, bssid, seq, BodyRepr::Action(crate::wire::mgmt::ActionRepr { category: ActionCategory(*c), details }))
        }
        [] => Vec::new(),
    }
}

pub fn sa_query(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, request: bool, id: [u8; 2]) -> Vec<u8> {
    mgmt_frame(da, sa, bssid, seq, BodyRepr::SaQuery(SaQueryRepr { request, transaction_id: id }))
}

/// Deauthentication (`deauth`, 9.3.3.12) or Disassociation (9.3.3.4) frame with a reason
/// code.
pub fn deauth(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, reason: ReasonCode, deauth: bool) -> Vec<u8> {
    let d = DeauthRepr { reason };
    mgmt_frame(da, sa, bssid, seq, if deauth { BodyRepr::Deauth(d) } else { BodyRepr::Disassoc(d) })
}

/// Direction of a data frame in an infrastructure BSS (9.3.2.1, Table 9-26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// STA to AP: To DS; A1 = BSSID, A2 = SA, A3 = DA.
    ToAp,
    /// AP to STA: From DS; A1 = DA, A2 = BSSID, A3 = SA.
    FromAp,
}

/// The header of a non-QoS data frame of `subtype` in direction `dir`.
fn data_header(dir: Dir, subtype: u8, a1: &MacAddr, a2: &MacAddr, a3: &MacAddr, seq: u16) -> HeaderRepr {
    let ds = if dir == Dir::ToAp { fc::TO_DS } else { fc::FROM_DS };
    HeaderRepr {
        frame_control: FrameControl::new(FrameType::Data, subtype).with(ds, true),
        duration_id: 0,
        addr1: *a1,
        addr2: Some(*a2),
        addr3: Some(*a3),
        seq_control: Some(SeqControl::new(seq, 0)),
        addr4: None,
        qos_control: None,
        ht_control: None,
    }
}

/// A plaintext Data frame carrying an MSDU (LLC/SNAP + payload of an Ethernet frame with
/// `ethertype`), 9.3.2.1 and 802.11-2020 Annex M (RFC 1042 encapsulation).
pub fn data(dir: Dir, bssid: &MacAddr, da: &MacAddr, sa: &MacAddr, seq: u16, ethertype: EtherType, payload: &[u8]) -> Vec<u8> {
    let h = match dir {
        Dir::ToAp => data_header(dir, 0, bssid, sa, da, seq),
        Dir::FromAp => data_header(dir, 0, da, bssid, sa, seq),
    };
    // Room for the security header and MIC the frame gets when protected (at most 24).
    let mut v = Vec::with_capacity(24 + SnapRepr::LEN + payload.len() + 24);
    v.resize(24 + SnapRepr::LEN, 0);
    // A 24-octet non-QoS header and an 8-octet SNAP header: both emits fit their buffers.
    let _ = h.emit(&mut Header::new_unchecked(&mut v[..24]));
    let _ = SnapRepr { oui: OUI_RFC1042, ethertype }.emit(&mut v[24..]);
    v.extend_from_slice(payload);
    v
}

/// A Null data frame STA to AP (9.3.4.1), the keep-alive of an idle STA.
pub fn null_data(bssid: &MacAddr, sta: &MacAddr, seq: u16) -> Vec<u8> {
    data_header(Dir::ToAp, 4, bssid, sta, bssid, seq).to_vec().unwrap_or_default()
}

/// An MSDU taken out of a plaintext data frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msdu<'a> {
    pub da: MacAddr,
    pub sa: MacAddr,
    pub ethertype: EtherType,
    pub payload: &'a [u8],
}

/// The MSDU of a plaintext data frame with an RFC 1042 or 802.1H LLC/SNAP header.
pub fn msdu(mpdu: &[u8]) -> Result<Msdu<'_>> {
    msdu_of(&Mpdu::new_checked(mpdu)?, mpdu)
}

/// [`msdu`] of `plain`, a plaintext data MPDU whose header is the received MPDU's `hdr`
/// (checked once on receive; decryption and reassembly change neither the addresses, the
/// QoS Control field nor the header length).
pub fn msdu_of<'a>(hdr: &Mpdu<'_>, plain: &'a [u8]) -> Result<Msdu<'a>> {
    if plain.len() < hdr.header_len() {
        return Err(Error::Truncated);
    }
    let mpdu = plain;
    let h = hdr.header();
    let fc = h.frame_control();
    if !fc.has_data_body() {
        return Err(Error::Malformed("no frame body"));
    }
    if fc.has_addr4() {
        return Err(Error::Unsupported("four-address data frame"));
    }
    let (da, sa) = (h.da().ok_or(Error::Truncated)?, h.sa().ok_or(Error::Truncated)?);
    let snap = Snap::new_checked(&mpdu[hdr.header_len()..])?;
    if snap.oui() != OUI_RFC1042 && snap.oui() != OUI_BRIDGE_TUNNEL {
        return Err(Error::Malformed("not an LLC/SNAP MSDU"));
    }
    if h.qos_control().is_some_and(|q| q.amsdu_present()) {
        // Not one MSDU: the cores take A-MSDUs apart with super::amsdu::deaggregate.
        return Err(Error::Unsupported("A-MSDU"));
    }
    Ok(Msdu { da, sa, ethertype: snap.ethertype(), payload: snap.into_payload() })
}

/// An Ethernet II frame (what a TAP device reads and writes).
/// The Layer 2 Update frame an AP puts on its distribution system for a station that
/// joined it (IEEE Std 802.11F-2003 / IAPP; IEEE Std 802.2 5.4.1.2.1: an unsolicited LLC
/// XID response from the station's address to the broadcast address), so that the
/// bridges there learn where the station now is before it sends anything. The bytes
/// Linux mac80211 sends (`ieee80211_send_layer2_update`): an 802.3 length of 6, DSAP 0,
/// SSAP 1 (null LSAP, response), control 0xAF (XID, F=0), XID format 0x81, Type 1 LLC,
/// receive window 0.
pub fn layer2_update(sta: &MacAddr) -> Vec<u8> {
    let mut f = Vec::with_capacity(20);
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&sta.0);
    f.extend_from_slice(&[0x00, 0x06, 0x00, 0x01, 0xaf, 0x81, 0x01, 0x00]);
    f
}

pub fn ethernet(da: &MacAddr, sa: &MacAddr, ethertype: EtherType, payload: &[u8]) -> Vec<u8> {
    EthernetRepr { dst: *da, src: *sa, ethertype }.to_vec(payload)
}

/// Splits an Ethernet II frame: (DA, SA, EtherType, payload). 802.3 length frames (type
/// < 0x0600) are refused: nothing on a TAP here sends them.
pub fn parse_ethernet(f: &[u8]) -> Result<(MacAddr, MacAddr, EtherType, &[u8])> {
    let e = EthernetFrame::new_checked(f)?;
    let r = EthernetRepr::parse(&e)?;
    Ok((r.dst, r.src, r.ethertype, &f[EthernetRepr::HEADER_LEN..]))
}
