//! The management and data frames the AP and STA cores exchange (IEEE 802.11-2020 9.3.3
//! management frame bodies, 9.3.2 data frames), built as plain byte vectors and parsed
//! with bounds checks: every parser returns an error, never panics, on any input.
use crate::error::{Error, Result};
use crate::wire::mac::{mgmt_subtype, FrameControl, FrameType, Header, MacAddr};

/// EtherType of EAPOL (IEEE 802.1X).
pub const ETHERTYPE_EAPOL: u16 = 0x888e;

/// Element IDs used here (Table 9-92).
pub mod eid {
    pub const SSID: u8 = 0;
    pub const SUPP_RATES: u8 = 1;
    pub const DS_PARAMS: u8 = 3;
    pub const TIM: u8 = 5;
    pub const CHALLENGE: u8 = 16;
    pub const RSN: u8 = 48;
    pub const EXT_SUPP_RATES: u8 = 50;
    /// Timeout Interval (9.4.2.48): the association comeback time of status 30.
    pub const TIMEOUT_INTERVAL: u8 = 56;
}

/// Action frame categories (Table 9-51) the cores use.
pub mod category {
    pub const SA_QUERY: u8 = 8;
}

/// Whether an Action frame of `category` is a robust management frame (Table 9-51, the
/// "Robust" column: every category but these).
pub fn robust_action(category: u8) -> bool {
    // Public, HT, Self-protected, Unprotected DMG, VHT, Unprotected S1G, Vendor-specific.
    !matches!(category, 4 | 7 | 15 | 20 | 21 | 22 | 127)
}

/// Whether a whole (plaintext or BIP) management MPDU is a robust management frame.
pub fn is_robust(mpdu: &[u8]) -> bool {
    match Header::new_checked(mpdu) {
        Ok(h) if h.frame_control().is_mgmt() => robust_mgmt(h.frame_control().subtype(), &mpdu[h.header_len()..]),
        _ => false,
    }
}

/// Whether a management frame body of `subtype` is a robust management frame (12.6.3:
/// Deauthentication, Disassociation and robust Action frames); `body` is its body.
pub fn robust_mgmt(subtype: u8, body: &[u8]) -> bool {
    match subtype {
        mgmt_subtype::DEAUTH | mgmt_subtype::DISASSOC => true,
        mgmt_subtype::ACTION | mgmt_subtype::ACTION_NO_ACK => body.first().is_some_and(|&c| robust_action(c)),
        _ => false,
    }
}

/// Capability Information bits (9.4.1.4).
pub mod cap {
    pub const ESS: u16 = 0x0001;
    pub const PRIVACY: u16 = 0x0010;
    pub const SHORT_PREAMBLE: u16 = 0x0020;
}

/// Authentication algorithm numbers (9.4.1.1).
pub const AUTH_OPEN: u16 = 0;
pub const AUTH_SHARED_KEY: u16 = 1;

/// Status codes (Table 9-50) used by the cores.
pub mod status {
    pub const SUCCESS: u16 = 0;
    pub const UNSPECIFIED: u16 = 1;
    pub const NOT_SUPPORTED_AUTH_ALG: u16 = 13;
    pub const AUTH_SEQ_UNEXPECTED: u16 = 14;
    pub const CHALLENGE_FAIL: u16 = 15;
    pub const DENIED_UNSPECIFIED: u16 = 12;
    pub const INVALID_ELEMENT: u16 = 40;
    pub const INVALID_GROUP_CIPHER: u16 = 41;
    pub const INVALID_PAIRWISE_CIPHER: u16 = 42;
    pub const INVALID_AKMP: u16 = 43;
    pub const INVALID_RSNE_CAPABILITIES: u16 = 45;
    pub const AP_FULL: u16 = 17;
    /// "Association request rejected temporarily; try again later" (11.13: with a
    /// Timeout Interval element, the association comeback time, while an SA Query runs).
    pub const REFUSED_TEMPORARILY: u16 = 30;
    /// "Robust management frame policy violation" (12.6.3 MFPC/MFPR mismatch).
    pub const ROBUST_MGMT_POLICY_VIOLATION: u16 = 31;
    /// "Cipher suite rejected because of the security policy" (hostapd: a group
    /// management cipher other than the AP's).
    pub const CIPHER_REJECTED_PER_POLICY: u16 = 46;
}

/// Reason codes (Table 9-49) used by the cores.
pub mod reason {
    pub const UNSPECIFIED: u16 = 1;
    pub const PREV_AUTH_NOT_VALID: u16 = 2;
    pub const CLASS2_FROM_NONAUTH: u16 = 6;
    pub const DEAUTH_LEAVING: u16 = 3;
    pub const INACTIVITY: u16 = 4;
    pub const CLASS3_FROM_NONASSOC: u16 = 7;
    pub const ASSOC_LEAVING: u16 = 8;
    pub const FOURWAY_TIMEOUT: u16 = 15;
    pub const GROUP_KEY_TIMEOUT: u16 = 16;
    pub const IE_DIFFERENT: u16 = 17;
    pub const MIC_FAILURE: u16 = 14;
}

/// Supported Rates of an ERP (802.11g) BSS: 1, 2, 5.5, 11 (basic), 6, 9, 12, 18 Mb/s; the
/// extended rates 24, 36, 48, 54 go in a separate element (9.4.2.3, 9.4.2.13).
pub const SUPP_RATES: [u8; 8] = [0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];
pub const EXT_SUPP_RATES: [u8; 4] = [0x30, 0x48, 0x60, 0x6c];

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

fn mgmt_header(subtype: u8, da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, protected: bool) -> Vec<u8> {
    let mut fc = FrameControl::new(FrameType::Management, subtype);
    fc.set(crate::wire::mac::fc::PROTECTED, protected);
    let mut v = Vec::with_capacity(256);
    v.extend_from_slice(&fc.0.to_le_bytes());
    v.extend_from_slice(&[0, 0]); // Duration: filled by the PHY in a real card.
    v.extend_from_slice(da.as_bytes());
    v.extend_from_slice(sa.as_bytes());
    v.extend_from_slice(bssid.as_bytes());
    v.extend_from_slice(&(seq << 4).to_le_bytes());
    v
}

pub fn push_element(v: &mut Vec<u8>, id: u8, body: &[u8]) {
    debug_assert!(body.len() <= 255);
    v.push(id);
    v.push(body.len().min(255) as u8);
    v.extend_from_slice(&body[..body.len().min(255)]);
}

/// What a Beacon or Probe Response says (9.3.3.2, 9.3.3.10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BssInfo {
    pub bssid: MacAddr,
    pub ssid: Vec<u8>,
    pub channel: u8,
    pub beacon_interval_tu: u16,
    pub capability: u16,
    /// The whole RSN element (ID, length, body), as advertised.
    pub rsne: Option<Vec<u8>>,
}

/// Builds a Beacon (`probe_resp_to == None`) or a Probe Response to a STA.
pub fn beacon(info: &BssInfo, tsf_us: u64, seq: u16, probe_resp_to: Option<&MacAddr>) -> Vec<u8> {
    let (sub, da) = match probe_resp_to {
        Some(a) => (mgmt_subtype::PROBE_RESP, *a),
        None => (mgmt_subtype::BEACON, MacAddr::BROADCAST),
    };
    let mut v = mgmt_header(sub, &da, &info.bssid, &info.bssid, seq, false);
    v.extend_from_slice(&tsf_us.to_le_bytes());
    v.extend_from_slice(&info.beacon_interval_tu.to_le_bytes());
    v.extend_from_slice(&info.capability.to_le_bytes());
    push_element(&mut v, eid::SSID, &info.ssid);
    push_element(&mut v, eid::SUPP_RATES, &SUPP_RATES);
    push_element(&mut v, eid::DS_PARAMS, &[info.channel]);
    if probe_resp_to.is_none() {
        // TIM: DTIM count 0, period 1, no buffered traffic (no power save here).
        push_element(&mut v, eid::TIM, &[0, 1, 0, 0]);
    }
    if let Some(r) = &info.rsne {
        v.extend_from_slice(r);
    }
    push_element(&mut v, eid::EXT_SUPP_RATES, &EXT_SUPP_RATES);
    v
}

/// Iterates over the elements of `ies`, stopping at the first malformed one.
pub fn elements(ies: &[u8]) -> impl Iterator<Item = (u8, &[u8], &[u8])> {
    let mut rest = ies;
    core::iter::from_fn(move || {
        if rest.len() < 2 {
            return None;
        }
        let (id, len) = (rest[0], rest[1] as usize);
        if rest.len() < 2 + len {
            rest = &[];
            return None;
        }
        let whole = &rest[..2 + len];
        let body = &rest[2..2 + len];
        rest = &rest[2 + len..];
        Some((id, body, whole))
    })
}

fn find(ies: &[u8], id: u8) -> Option<(&[u8], &[u8])> {
    elements(ies).find(|e| e.0 == id).map(|e| (e.1, e.2))
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
        alg: u16,
        seq: u16,
        status: u16,
        challenge: Option<&'a [u8]>,
    },
    AssocReq {
        capability: u16,
        ssid: &'a [u8],
        rsne: Option<&'a [u8]>,
    },
    AssocResp {
        status: u16,
        aid: u16,
    },
    Deauth {
        reason: u16,
    },
    Disassoc {
        reason: u16,
    },
    /// SA Query Request (`request`) or Response with its Transaction Identifier (9.6.9).
    SaQuery {
        request: bool,
        id: [u8; 2],
    },
    /// Another Action frame (its category).
    Action {
        category: u8,
    },
    Other(u8),
}

/// Addresses of a management frame: (DA, SA, BSSID).
pub fn mgmt_addrs(mpdu: &[u8]) -> Result<(MacAddr, MacAddr, MacAddr)> {
    let h = Header::new_checked(mpdu)?;
    Ok((h.addr1(), h.addr2().ok_or(Error::Truncated)?, h.addr3().ok_or(Error::Truncated)?))
}

fn le16(b: &[u8], at: usize) -> Result<u16> {
    let s = b.get(at..at + 2).ok_or(Error::Truncated)?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

/// Parses the body of an unprotected management frame (the Authentication frame 3 of
/// shared-key authentication arrives decrypted by the caller).
pub fn parse_mgmt(mpdu: &[u8]) -> Result<Mgmt<'_>> {
    let h = Header::new_checked(mpdu)?;
    let fc = h.frame_control();
    if !fc.is_mgmt() {
        return Err(Error::Malformed("not a management frame"));
    }
    let bssid = h.addr3().ok_or(Error::Truncated)?;
    let body = &mpdu[h.header_len()..];
    Ok(match fc.subtype() {
        s @ (mgmt_subtype::BEACON | mgmt_subtype::PROBE_RESP) => {
            let fixed = body.get(..12).ok_or(Error::Truncated)?;
            let ies = &body[12..];
            let ssid = find(ies, eid::SSID).map(|e| e.0.to_vec()).unwrap_or_default();
            let channel = find(ies, eid::DS_PARAMS).and_then(|e| e.0.first().copied()).unwrap_or(0);
            let info = BssInfo {
                bssid,
                ssid,
                channel,
                beacon_interval_tu: le16(fixed, 8)?,
                capability: le16(fixed, 10)?,
                rsne: find(ies, eid::RSN).map(|e| e.1.to_vec()),
            };
            if s == mgmt_subtype::BEACON {
                Mgmt::Beacon(info)
            } else {
                Mgmt::ProbeResp(info)
            }
        }
        mgmt_subtype::PROBE_REQ => Mgmt::ProbeReq { ssid: find(body, eid::SSID).map(|e| e.0).unwrap_or(&[]) },
        mgmt_subtype::AUTH => Mgmt::Auth {
            alg: le16(body, 0)?,
            seq: le16(body, 2)?,
            status: le16(body, 4)?,
            challenge: find(&body[6..], eid::CHALLENGE).map(|e| e.0),
        },
        mgmt_subtype::ASSOC_REQ | mgmt_subtype::REASSOC_REQ => {
            let fixed = if fc.subtype() == mgmt_subtype::ASSOC_REQ { 4 } else { 10 };
            let ies = body.get(fixed..).ok_or(Error::Truncated)?;
            Mgmt::AssocReq {
                capability: le16(body, 0)?,
                ssid: find(ies, eid::SSID).map(|e| e.0).ok_or(Error::Malformed("no SSID element"))?,
                rsne: find(ies, eid::RSN).map(|e| e.1),
            }
        }
        mgmt_subtype::ASSOC_RESP | mgmt_subtype::REASSOC_RESP => Mgmt::AssocResp { status: le16(body, 2)?, aid: le16(body, 4)? & 0x3fff },
        mgmt_subtype::DEAUTH => Mgmt::Deauth { reason: le16(body, 0)? },
        mgmt_subtype::DISASSOC => Mgmt::Disassoc { reason: le16(body, 0)? },
        mgmt_subtype::ACTION | mgmt_subtype::ACTION_NO_ACK => match body {
            [category::SA_QUERY, a @ (0 | 1), i0, i1, ..] => Mgmt::SaQuery { request: *a == 0, id: [*i0, *i1] },
            [category::SA_QUERY, ..] => return Err(Error::Malformed("SA Query frame")),
            [c, ..] => Mgmt::Action { category: *c },
            [] => return Err(Error::Truncated),
        },
        s => Mgmt::Other(s),
    })
}

pub fn probe_req(sta: &MacAddr, ssid: &[u8], seq: u16) -> Vec<u8> {
    let mut v = mgmt_header(mgmt_subtype::PROBE_REQ, &MacAddr::BROADCAST, sta, &MacAddr::BROADCAST, seq, false);
    push_element(&mut v, eid::SSID, ssid);
    push_element(&mut v, eid::SUPP_RATES, &SUPP_RATES);
    push_element(&mut v, eid::EXT_SUPP_RATES, &EXT_SUPP_RATES);
    v
}

/// An Authentication frame (9.3.3.12). `challenge` is the Challenge Text element body.
#[allow(clippy::too_many_arguments)]
pub fn auth(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, alg: u16, tseq: u16, st: u16, challenge: Option<&[u8]>) -> Vec<u8> {
    let mut v = mgmt_header(mgmt_subtype::AUTH, da, sa, bssid, seq, false);
    v.extend_from_slice(&alg.to_le_bytes());
    v.extend_from_slice(&tseq.to_le_bytes());
    v.extend_from_slice(&st.to_le_bytes());
    if let Some(c) = challenge {
        push_element(&mut v, eid::CHALLENGE, c);
    }
    v
}

pub fn assoc_req(sta: &MacAddr, bssid: &MacAddr, seq: u16, capability: u16, ssid: &[u8], rsne: Option<&[u8]>) -> Vec<u8> {
    let mut v = mgmt_header(mgmt_subtype::ASSOC_REQ, bssid, sta, bssid, seq, false);
    v.extend_from_slice(&capability.to_le_bytes());
    v.extend_from_slice(&10u16.to_le_bytes()); // Listen Interval
    push_element(&mut v, eid::SSID, ssid);
    push_element(&mut v, eid::SUPP_RATES, &SUPP_RATES);
    push_element(&mut v, eid::EXT_SUPP_RATES, &EXT_SUPP_RATES);
    if let Some(r) = rsne {
        v.extend_from_slice(r);
    }
    v
}

pub fn assoc_resp(sta: &MacAddr, bssid: &MacAddr, seq: u16, capability: u16, st: u16, aid: u16) -> Vec<u8> {
    let mut v = mgmt_header(mgmt_subtype::ASSOC_RESP, sta, bssid, bssid, seq, false);
    v.extend_from_slice(&capability.to_le_bytes());
    v.extend_from_slice(&st.to_le_bytes());
    v.extend_from_slice(&(aid | 0xc000).to_le_bytes());
    push_element(&mut v, eid::SUPP_RATES, &SUPP_RATES);
    push_element(&mut v, eid::EXT_SUPP_RATES, &EXT_SUPP_RATES);
    v
}

/// The association comeback time of an Association Response with status 30 (the
/// Timeout Interval element of type 3, 9.4.2.48), in TUs.
pub fn assoc_comeback_tu(mpdu: &[u8]) -> Option<u32> {
    let h = Header::new_checked(mpdu).ok()?;
    let ies = mpdu.get(h.header_len() + 6..)?;
    let (b, _) = find(ies, eid::TIMEOUT_INTERVAL)?;
    match b {
        [3, v @ ..] if v.len() == 4 => Some(u32::from_le_bytes([v[0], v[1], v[2], v[3]])),
        _ => None,
    }
}

/// Appends a Timeout Interval element of type 3 (association comeback time, TUs) to an
/// Association Response (11.13: status 30 while the AP runs an SA Query).
pub fn add_comeback(resp: &mut Vec<u8>, tu: u32) {
    let mut b = vec![3u8];
    b.extend_from_slice(&tu.to_le_bytes());
    push_element(resp, eid::TIMEOUT_INTERVAL, &b);
}

/// An SA Query Request or Response Action frame (9.6.9.2, 9.6.9.3), unprotected: the
/// caller protects it with the pairwise key (it is a robust management frame).
pub fn sa_query(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, request: bool, id: [u8; 2]) -> Vec<u8> {
    let mut v = mgmt_header(mgmt_subtype::ACTION, da, sa, bssid, seq, false);
    v.extend_from_slice(&[category::SA_QUERY, if request { 0 } else { 1 }, id[0], id[1]]);
    v
}

/// Deauthentication (`deauth`) or Disassociation frame with a reason code.
pub fn deauth(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, reason: u16, deauth: bool) -> Vec<u8> {
    let sub = if deauth { mgmt_subtype::DEAUTH } else { mgmt_subtype::DISASSOC };
    let mut v = mgmt_header(sub, da, sa, bssid, seq, false);
    v.extend_from_slice(&reason.to_le_bytes());
    v
}

/// Direction of a data frame in an infrastructure BSS (9.3.2.1, Table 9-26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// STA to AP: To DS; A1 = BSSID, A2 = SA, A3 = DA.
    ToAp,
    /// AP to STA: From DS; A1 = DA, A2 = BSSID, A3 = SA.
    FromAp,
}

/// A plaintext Data frame carrying an MSDU (LLC/SNAP + payload of an Ethernet frame with
/// `ethertype`), 9.3.2.1 and 802.11-2020 Annex M (RFC 1042 encapsulation).
pub fn data(dir: Dir, bssid: &MacAddr, da: &MacAddr, sa: &MacAddr, seq: u16, ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let (fcbit, a1, a2, a3) = match dir {
        Dir::ToAp => (crate::wire::mac::fc::TO_DS, bssid, sa, da),
        Dir::FromAp => (crate::wire::mac::fc::FROM_DS, da, bssid, sa),
    };
    let fc = FrameControl::new(FrameType::Data, 0).with(fcbit, true);
    let mut v = Vec::with_capacity(24 + 8 + payload.len() + 24);
    v.extend_from_slice(&fc.0.to_le_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(a1.as_bytes());
    v.extend_from_slice(a2.as_bytes());
    v.extend_from_slice(a3.as_bytes());
    v.extend_from_slice(&(seq << 4).to_le_bytes());
    v.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
    v.extend_from_slice(&ethertype.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

/// A Null data frame STA to AP (9.3.4.1), the keep-alive of an idle STA.
pub fn null_data(bssid: &MacAddr, sta: &MacAddr, seq: u16) -> Vec<u8> {
    let fc = FrameControl::new(FrameType::Data, 4).with(crate::wire::mac::fc::TO_DS, true);
    let mut v = Vec::with_capacity(24);
    v.extend_from_slice(&fc.0.to_le_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(bssid.as_bytes());
    v.extend_from_slice(sta.as_bytes());
    v.extend_from_slice(bssid.as_bytes());
    v.extend_from_slice(&(seq << 4).to_le_bytes());
    v
}

/// An MSDU taken out of a plaintext data frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msdu<'a> {
    pub da: MacAddr,
    pub sa: MacAddr,
    pub ethertype: u16,
    pub payload: &'a [u8],
}

/// The MSDU of a plaintext data frame with an RFC 1042 or 802.1H LLC/SNAP header.
pub fn msdu(mpdu: &[u8]) -> Result<Msdu<'_>> {
    let h = Header::new_checked(mpdu)?;
    let fc = h.frame_control();
    if !fc.has_data_body() {
        return Err(Error::Malformed("no frame body"));
    }
    if fc.has_addr4() {
        return Err(Error::Unsupported("four-address data frame"));
    }
    let (da, sa) = (h.da().ok_or(Error::Truncated)?, h.sa().ok_or(Error::Truncated)?);
    let body = &mpdu[h.header_len()..];
    if body.len() < 8 {
        return Err(Error::Truncated);
    }
    if body[..3] != [0xaa, 0xaa, 0x03] || (body[3..6] != [0, 0, 0] && body[3..6] != [0, 0, 0xf8]) {
        return Err(Error::Malformed("not an LLC/SNAP MSDU"));
    }
    if fc.qos_control_amsdu(&h) {
        return Err(Error::Unsupported("A-MSDU"));
    }
    Ok(Msdu { da, sa, ethertype: u16::from_be_bytes([body[6], body[7]]), payload: &body[8..] })
}

trait AmsduBit {
    fn qos_control_amsdu<T: AsRef<[u8]>>(self, h: &Header<T>) -> bool;
}
impl AmsduBit for FrameControl {
    fn qos_control_amsdu<T: AsRef<[u8]>>(self, h: &Header<T>) -> bool {
        h.qos_control().is_some_and(|q| q.amsdu_present())
    }
}

/// An Ethernet II frame (what a TAP device reads and writes).
pub fn ethernet(da: &MacAddr, sa: &MacAddr, ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(14 + payload.len());
    v.extend_from_slice(da.as_bytes());
    v.extend_from_slice(sa.as_bytes());
    v.extend_from_slice(&ethertype.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

/// Splits an Ethernet II frame: (DA, SA, EtherType, payload). 802.3 length frames (type
/// < 0x0600) are refused: nothing on a TAP here sends them.
pub fn parse_ethernet(f: &[u8]) -> Result<(MacAddr, MacAddr, u16, &[u8])> {
    if f.len() < 14 {
        return Err(Error::Truncated);
    }
    let t = u16::from_be_bytes([f[12], f[13]]);
    if t < 0x0600 {
        return Err(Error::Unsupported("802.3 length field instead of an EtherType"));
    }
    Ok((MacAddr::from_bytes(&f[..6])?, MacAddr::from_bytes(&f[6..12])?, t, &f[14..]))
}
