//! Wireless network management, IEEE 802.11-2020: the BSS Transition Management Action
//! frames (9.6.13.8 Query, 9.6.13.9 Request, 9.6.13.10 Response) and the Extended
//! Capabilities element (9.4.2.26) bit that advertises them (b19, BSS Transition).
//!
//! ```text
//! BTM Query    Category 10 | Action 6 | Dialog Token | BSS Transition Query Reason (1)
//!              | BSS Transition Candidate List Entries (Neighbor Report elements, optional)
//! BTM Request  Category 10 | Action 7 | Dialog Token | Request Mode (1) | Disassociation Timer (2)
//!              | Validity Interval (1) | BSS Termination Duration (12, if Request Mode b3)
//!              | Session Information URL (Length (1) | URL, if Request Mode b4)
//!              | BSS Transition Candidate List Entries (Neighbor Report elements, optional)
//! BTM Response Category 10 | Action 8 | Dialog Token | BTM Status Code (1)
//!              | BSS Termination Delay (1) | Target BSSID (6, with status 0)
//!              | BSS Transition Candidate List Entries (optional)
//! ```
//! Multi-octet fields are little-endian; the Disassociation Timer and the Validity Interval
//! count Beacon intervals (TBTTs). Every parser checks each length and returns
//! `Error::Truncated` or `Error::Malformed`; none panics on any input.
use crate::error::{Error, Result};
use crate::wire::element;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::ActionCategory;
use crate::wire::rrm::{self, NeighborReport};

/// WNM Action field values (Table 9-482).
pub mod action {
    pub const EVENT_REQUEST: u8 = 0;
    pub const EVENT_REPORT: u8 = 1;
    pub const DIAGNOSTIC_REQUEST: u8 = 2;
    pub const DIAGNOSTIC_REPORT: u8 = 3;
    pub const LOCATION_CONFIGURATION_REQUEST: u8 = 4;
    pub const LOCATION_CONFIGURATION_RESPONSE: u8 = 5;
    pub const BSS_TRANSITION_QUERY: u8 = 6;
    pub const BSS_TRANSITION_REQUEST: u8 = 7;
    pub const BSS_TRANSITION_RESPONSE: u8 = 8;
    pub const FMS_REQUEST: u8 = 9;
    pub const SLEEP_MODE_REQUEST: u8 = 16;
    pub const SLEEP_MODE_RESPONSE: u8 = 17;
    pub const NOTIFICATION_REQUEST: u8 = 26;
    pub const NOTIFICATION_RESPONSE: u8 = 27;
}

/// Request Mode field bits of a BTM Request (9.6.13.9, Figure 9-937).
pub mod request_mode {
    /// The BSS Transition Candidate List Entries field is present.
    pub const PREFERRED_CANDIDATE_LIST: u8 = 0x01;
    /// BSSs not in the list count as preference 0 (excluded).
    pub const ABRIDGED: u8 = 0x02;
    /// The AP disassociates the STA when the Disassociation Timer runs out.
    pub const DISASSOCIATION_IMMINENT: u8 = 0x04;
    /// The BSS Termination Duration field is present: the BSS shuts down.
    pub const BSS_TERMINATION_INCLUDED: u8 = 0x08;
    /// The STA leaves the ESS; the Session Information URL field is present.
    pub const ESS_DISASSOCIATION_IMMINENT: u8 = 0x10;
}

/// BSS Transition Query Reason values (Table 9-176), the few wsec names.
pub mod query_reason {
    pub const UNSPECIFIED: u8 = 0;
    pub const EXCESSIVE_FRAME_LOSS: u8 = 1;
    pub const EXCESSIVE_DELAY: u8 = 2;
    pub const INSUFFICIENT_QOS_CAPACITY: u8 = 3;
    pub const FIRST_ASSOCIATION_TO_ESS: u8 = 4;
    pub const LOAD_BALANCING: u8 = 5;
    pub const BETTER_AP_FOUND: u8 = 6;
}

/// The Extended Capabilities bit of BSS Transition (9.4.2.26, Table 9-153).
pub const EXT_CAPAB_BSS_TRANSITION: usize = 19;

/// An Extended Capabilities element (9.4.2.26) with the bits `bits` set, as long as its
/// highest octet with a bit in it (hostapd's `hostapd_eid_ext_capab` leaves trailing zero
/// octets out); no element for no bits.
pub fn ext_capab_element(bits: &[usize]) -> Vec<u8> {
    let Some(n) = bits.iter().map(|b| b / 8 + 1).max() else { return Vec::new() };
    let mut body = vec![0u8; n.min(element::MAX_BODY_LEN)];
    for &b in bits {
        if let Some(o) = body.get_mut(b / 8) {
            *o |= 1 << (b % 8);
        }
    }
    let mut v = Vec::with_capacity(2 + body.len());
    let _ = element::push(&mut v, element::id::EXTENDED_CAPABILITIES, &body);
    v
}

/// Whether an Extended Capabilities Information field sets bit `bit` (a field too short
/// to hold it leaves it 0, 9.4.2.26).
pub fn ext_capab_has(body: &[u8], bit: usize) -> bool {
    body.get(bit / 8).is_some_and(|o| o & (1 << (bit % 8)) != 0)
}

/// BTM Status Code (9.6.13.10, Table 9-428).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BtmStatus(pub u8);

impl BtmStatus {
    pub const ACCEPT: BtmStatus = BtmStatus(0);
    pub const REJECT_UNSPECIFIED: BtmStatus = BtmStatus(1);
    pub const REJECT_INSUFFICIENT_BEACON: BtmStatus = BtmStatus(2);
    pub const REJECT_INSUFFICIENT_CAPACITY: BtmStatus = BtmStatus(3);
    pub const REJECT_BSS_TERMINATION_UNDESIRED: BtmStatus = BtmStatus(4);
    pub const REJECT_BSS_TERMINATION_DELAY_REQUEST: BtmStatus = BtmStatus(5);
    pub const REJECT_STA_CANDIDATE_LIST_PROVIDED: BtmStatus = BtmStatus(6);
    /// No suitable BSS transition candidates: wpa_supplicant's answer when none of the
    /// candidates is a BSS it can join.
    pub const REJECT_NO_SUITABLE_CANDIDATES: BtmStatus = BtmStatus(7);
    pub const REJECT_LEAVING_ESS: BtmStatus = BtmStatus(8);

    pub fn is_accept(self) -> bool {
        self == BtmStatus::ACCEPT
    }
}

impl core::fmt::Display for BtmStatus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The BSS Termination Duration subelement (9.4.2.36, Figure 9-343): ID 4, Length 10,
/// BSS Termination TSF (8) and Duration in minutes (2). The BTM Request carries it whole
/// as its BSS Termination Duration field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BssTerminationDuration {
    pub tsf: u64,
    pub duration_min: u16,
}

impl BssTerminationDuration {
    /// Octets of the whole subelement.
    pub const LEN: usize = 12;

    /// Parses the whole subelement at the start of `b` (octets after it not looked at).
    pub fn parse(b: &[u8]) -> Result<BssTerminationDuration> {
        let b = b.get(..Self::LEN).ok_or(Error::Truncated)?;
        if b[0] != rrm::subelement::BSS_TERMINATION_DURATION || b[1] != 10 {
            return Err(Error::Malformed("BSS Termination Duration is subelement 4 of length 10"));
        }
        let mut tsf = [0u8; 8];
        tsf.copy_from_slice(&b[2..10]);
        Ok(BssTerminationDuration { tsf: u64::from_le_bytes(tsf), duration_min: u16::from_le_bytes([b[10], b[11]]) })
    }

    pub fn to_bytes(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[0] = rrm::subelement::BSS_TERMINATION_DURATION;
        b[1] = 10;
        b[2..10].copy_from_slice(&self.tsf.to_le_bytes());
        b[10..].copy_from_slice(&self.duration_min.to_le_bytes());
        b
    }
}

/// Checks that `ies` is a well-formed element sequence.
fn well_formed(ies: &[u8]) -> Result<()> {
    element::elements(ies).try_for_each(|e| e.map(|_| ()))
}

/// The octets after the Action field of a WNM frame of `want` action (details start with
/// the Action).
fn after_action<'a>(details: &'a [u8], want: u8, what: &'static str) -> Result<&'a [u8]> {
    match details {
        [a, rest @ ..] if *a == want => Ok(rest),
        [_, ..] => Err(Error::Malformed(what)),
        [] => Err(Error::Truncated),
    }
}

/// The Action details of an Action frame body of category WNM.
fn wnm_details(body: &[u8]) -> Result<&[u8]> {
    match body {
        [c, details @ ..] if *c == ActionCategory::WNM.0 => Ok(details),
        [_, ..] => Err(Error::Malformed("not a WNM Action frame")),
        [] => Err(Error::Truncated),
    }
}

/// A BSS Transition Management Query (9.6.13.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BtmQueryRepr<'a> {
    pub dialog_token: u8,
    /// BSS Transition Query Reason ([`query_reason`]).
    pub reason: u8,
    /// The BSS Transition Candidate List Entries (Neighbor Report elements), well formed.
    pub candidates: &'a [u8],
}

impl<'a> BtmQueryRepr<'a> {
    /// Parses the Action details (Action, Dialog Token, Query Reason, candidates).
    pub fn parse_details(details: &'a [u8]) -> Result<BtmQueryRepr<'a>> {
        match after_action(details, action::BSS_TRANSITION_QUERY, "not a BSS Transition Management Query")? {
            [token, reason, candidates @ ..] => {
                well_formed(candidates)?;
                Ok(BtmQueryRepr { dialog_token: *token, reason: *reason, candidates })
            }
            _ => Err(Error::Truncated),
        }
    }

    /// Parses an Action frame body (Category 10 first).
    pub fn parse(body: &'a [u8]) -> Result<BtmQueryRepr<'a>> {
        Self::parse_details(wnm_details(body)?)
    }

    pub fn buffer_len(&self) -> usize {
        4 + self.candidates.len()
    }

    /// Writes the whole Action frame body.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = buf.get_mut(..self.buffer_len()).ok_or(Error::Truncated)?;
        b[..4].copy_from_slice(&[ActionCategory::WNM.0, action::BSS_TRANSITION_QUERY, self.dialog_token, self.reason]);
        b[4..].copy_from_slice(self.candidates);
        Ok(())
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0; self.buffer_len()];
        let _ = self.emit(&mut v);
        v
    }
}

/// A BSS Transition Management Request (9.6.13.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BtmRequestRepr<'a> {
    pub dialog_token: u8,
    /// Request Mode ([`request_mode`]); its BSS Termination Included and ESS
    /// Disassociation Imminent bits go with `bss_termination` and `session_url`.
    pub mode: u8,
    /// Disassociation Timer, in TBTTs (0: not set).
    pub disassoc_timer: u16,
    /// Validity Interval of the candidate list, in TBTTs.
    pub validity_interval: u8,
    pub bss_termination: Option<BssTerminationDuration>,
    /// The Session Information URL.
    pub session_url: Option<&'a [u8]>,
    /// The BSS Transition Candidate List Entries and any elements after them (an MBO
    /// element), well formed.
    pub elements: &'a [u8],
}

impl<'a> BtmRequestRepr<'a> {
    /// Dialog Token, Request Mode, Disassociation Timer, Validity Interval.
    pub const FIXED_LEN: usize = 5;

    /// Parses the Action details (Action, then the fields).
    pub fn parse_details(details: &'a [u8]) -> Result<BtmRequestRepr<'a>> {
        let b = after_action(details, action::BSS_TRANSITION_REQUEST, "not a BSS Transition Management Request")?;
        let f = b.get(..Self::FIXED_LEN).ok_or(Error::Truncated)?;
        let (dialog_token, mode, disassoc_timer, validity_interval) = (f[0], f[1], u16::from_le_bytes([f[2], f[3]]), f[4]);
        let mut rest = &b[Self::FIXED_LEN..];
        let mut bss_termination = None;
        if mode & request_mode::BSS_TERMINATION_INCLUDED != 0 {
            bss_termination = Some(BssTerminationDuration::parse(rest)?);
            rest = &rest[BssTerminationDuration::LEN..];
        }
        let mut session_url = None;
        if mode & request_mode::ESS_DISASSOCIATION_IMMINENT != 0 {
            let n = *rest.first().ok_or(Error::Truncated)? as usize;
            session_url = Some(rest.get(1..1 + n).ok_or(Error::Truncated)?);
            rest = &rest[1 + n..];
        }
        well_formed(rest)?;
        Ok(BtmRequestRepr { dialog_token, mode, disassoc_timer, validity_interval, bss_termination, session_url, elements: rest })
    }

    /// Parses an Action frame body (Category 10 first).
    pub fn parse(body: &'a [u8]) -> Result<BtmRequestRepr<'a>> {
        Self::parse_details(wnm_details(body)?)
    }

    /// Request Mode bit `bit` ([`request_mode`]).
    pub fn has(&self, bit: u8) -> bool {
        self.mode & bit != 0
    }

    /// The candidates (the Neighbor Report elements), in order: a Neighbor Report too
    /// short or with bad subelements is its error.
    pub fn candidates(&self) -> impl Iterator<Item = Result<NeighborReport>> + 'a {
        rrm::neighbor_reports(self.elements)
    }

    pub fn buffer_len(&self) -> usize {
        2 + Self::FIXED_LEN
            + self.bss_termination.map_or(0, |_| BssTerminationDuration::LEN)
            + self.session_url.map_or(0, |u| 1 + u.len())
            + self.elements.len()
    }

    /// Writes the whole Action frame body: Error::Malformed when the Request Mode's BSS
    /// Termination Included or ESS Disassociation Imminent bit disagrees with its field,
    /// Error::Oversize for a URL over 255 octets.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if self.has(request_mode::BSS_TERMINATION_INCLUDED) != self.bss_termination.is_some()
            || self.has(request_mode::ESS_DISASSOCIATION_IMMINENT) != self.session_url.is_some()
        {
            return Err(Error::Malformed("BTM Request Mode disagrees with its optional fields"));
        }
        let url_len = self.session_url.map(|u| u8::try_from(u.len()).map_err(|_| Error::Oversize)).transpose()?;
        let b = buf.get_mut(..self.buffer_len()).ok_or(Error::Truncated)?;
        let t = self.disassoc_timer.to_le_bytes();
        b[..7].copy_from_slice(&[
            ActionCategory::WNM.0,
            action::BSS_TRANSITION_REQUEST,
            self.dialog_token,
            self.mode,
            t[0],
            t[1],
            self.validity_interval,
        ]);
        let mut at = 7;
        if let Some(d) = self.bss_termination {
            b[at..at + BssTerminationDuration::LEN].copy_from_slice(&d.to_bytes());
            at += BssTerminationDuration::LEN;
        }
        if let (Some(u), Some(n)) = (self.session_url, url_len) {
            b[at] = n;
            b[at + 1..at + 1 + u.len()].copy_from_slice(u);
            at += 1 + u.len();
        }
        b[at..].copy_from_slice(self.elements);
        Ok(())
    }

    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}

/// A BSS Transition Management Response (9.6.13.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BtmResponseRepr<'a> {
    pub dialog_token: u8,
    pub status: BtmStatus,
    /// BSS Termination Delay, minutes.
    pub termination_delay: u8,
    /// The BSS the STA moves to: present with status 0 (accept) and only then.
    pub target: Option<MacAddr>,
    /// The BSS Transition Candidate List Entries, well formed.
    pub candidates: &'a [u8],
}

impl<'a> BtmResponseRepr<'a> {
    /// Parses the Action details (Action, then the fields). With status 0 the Target BSSID
    /// must be there (hostapd: "not enough room for Target BSSID field").
    pub fn parse_details(details: &'a [u8]) -> Result<BtmResponseRepr<'a>> {
        match after_action(details, action::BSS_TRANSITION_RESPONSE, "not a BSS Transition Management Response")? {
            [token, status, delay, rest @ ..] => {
                let status = BtmStatus(*status);
                let (target, candidates) = if status.is_accept() {
                    (Some(MacAddr::from_bytes(rest.get(..6).ok_or(Error::Truncated)?)?), &rest[6..])
                } else {
                    (None, rest)
                };
                well_formed(candidates)?;
                Ok(BtmResponseRepr { dialog_token: *token, status, termination_delay: *delay, target, candidates })
            }
            _ => Err(Error::Truncated),
        }
    }

    /// Parses an Action frame body (Category 10 first).
    pub fn parse(body: &'a [u8]) -> Result<BtmResponseRepr<'a>> {
        Self::parse_details(wnm_details(body)?)
    }

    pub fn buffer_len(&self) -> usize {
        5 + self.target.map_or(0, |_| 6) + self.candidates.len()
    }

    /// Writes the whole Action frame body: Error::Malformed for a Target BSSID with a
    /// status other than 0 or none with status 0 (9.6.13.10).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if self.target.is_some() != self.status.is_accept() {
            return Err(Error::Malformed("a BTM Response has a Target BSSID with status 0 only"));
        }
        let b = buf.get_mut(..self.buffer_len()).ok_or(Error::Truncated)?;
        b[..5].copy_from_slice(&[
            ActionCategory::WNM.0,
            action::BSS_TRANSITION_RESPONSE,
            self.dialog_token,
            self.status.0,
            self.termination_delay,
        ]);
        let mut at = 5;
        if let Some(t) = self.target {
            b[5..11].copy_from_slice(t.as_bytes());
            at = 11;
        }
        b[at..].copy_from_slice(self.candidates);
        Ok(())
    }

    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}

/// A WNM Action frame the cores read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WnmActionRepr<'a> {
    BtmQuery(BtmQueryRepr<'a>),
    BtmRequest(BtmRequestRepr<'a>),
    BtmResponse(BtmResponseRepr<'a>),
    /// Another WNM action (sleep mode, notification, ...): its Action value.
    Other {
        action: u8,
    },
}

impl<'a> WnmActionRepr<'a> {
    /// Parses the Action details of a WNM frame (the octets after the Category).
    pub fn parse_details(details: &'a [u8]) -> Result<WnmActionRepr<'a>> {
        Ok(match details.first() {
            Some(&action::BSS_TRANSITION_QUERY) => WnmActionRepr::BtmQuery(BtmQueryRepr::parse_details(details)?),
            Some(&action::BSS_TRANSITION_REQUEST) => WnmActionRepr::BtmRequest(BtmRequestRepr::parse_details(details)?),
            Some(&action::BSS_TRANSITION_RESPONSE) => WnmActionRepr::BtmResponse(BtmResponseRepr::parse_details(details)?),
            Some(&a) => WnmActionRepr::Other { action: a },
            None => return Err(Error::Truncated),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x01, 0x00]);

    /// The candidate of `hostapd_cli BSS_TM_REQ ... neighbor=02:00:00:00:01:00,0x0000,81,1,7,0301ff`
    /// as hostapd's `ieee802_11_parse_candidate_list` builds it.
    const CAND: [u8; 18] = [0x34, 0x10, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x51, 0x01, 0x07, 0x03, 0x01, 0xff];

    #[test]
    fn btm_request_with_candidates() {
        // hostapd `BSS_TM_REQ <sta> pref=1 disassoc_imminent=1 disassoc_timer=10 valid_int=255
        // neighbor=...` (wnm_send_bss_tm_req): token 1, mode 0x05, timer 10, validity 255.
        let body: Vec<u8> = [&[0x0a, 0x07, 0x01, 0x05, 0x0a, 0x00, 0xff][..], &CAND].concat();
        let r = BtmRequestRepr::parse(&body).unwrap();
        assert_eq!((r.dialog_token, r.mode, r.disassoc_timer, r.validity_interval), (1, 0x05, 10, 255));
        assert!(r.has(request_mode::PREFERRED_CANDIDATE_LIST) && r.has(request_mode::DISASSOCIATION_IMMINENT));
        assert!(!r.has(request_mode::ABRIDGED));
        assert_eq!((r.bss_termination, r.session_url), (None, None));
        let c: Vec<NeighborReport> = r.candidates().map(|c| c.unwrap()).collect();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].bssid, c[0].op_class, c[0].channel, c[0].phy_type, c[0].preference()), (T1, 81, 1, 7, Some(255)));
        assert_eq!(r.to_vec().unwrap(), body);
        assert_eq!(WnmActionRepr::parse_details(&body[1..]).unwrap(), WnmActionRepr::BtmRequest(r));
        // Every shorter prefix that cuts a field or the element is refused.
        for n in [1, 2, 6, body.len() - 1] {
            assert_eq!(BtmRequestRepr::parse(&body[..n]), Err(Error::Truncated), "{n}");
        }
        // The fixed fields alone: a request without candidates.
        assert_eq!(BtmRequestRepr::parse(&body[..7]).unwrap().candidates().count(), 0);
    }

    #[test]
    fn btm_request_termination_and_url() {
        // hostapd `bss_term=0,2 url=http://x disassoc_timer=0`: mode 0x18, the 12-octet
        // BSS Termination Duration (TSF 0, 2 minutes) then the URL with its length.
        let mut body = vec![0x0a, 0x07, 0x03, 0x18, 0x00, 0x00, 0x01];
        body.extend_from_slice(&[0x04, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00]);
        body.extend_from_slice(&[8]);
        body.extend_from_slice(b"http://x");
        let r = BtmRequestRepr::parse(&body).unwrap();
        assert_eq!(r.bss_termination, Some(BssTerminationDuration { tsf: 0, duration_min: 2 }));
        assert_eq!(r.session_url, Some(&b"http://x"[..]));
        assert_eq!(r.to_vec().unwrap(), body);
        // URL length past the end; termination subelement with a wrong length.
        let mut cut = body.clone();
        cut[19] = 9;
        assert_eq!(BtmRequestRepr::parse(&cut), Err(Error::Truncated));
        let mut bad = body.clone();
        bad[8] = 9;
        assert!(matches!(BtmRequestRepr::parse(&bad), Err(Error::Malformed(_))));
        // Emit refuses a Request Mode that disagrees with the fields.
        let wrong = BtmRequestRepr { mode: 0, ..r };
        assert!(matches!(wrong.to_vec(), Err(Error::Malformed(_))));
        let long = [0u8; 256];
        let over = BtmRequestRepr { session_url: Some(&long), ..r };
        assert_eq!(over.to_vec(), Err(Error::Oversize));
    }

    #[test]
    fn btm_response_and_query() {
        // wpa_supplicant's accept (wnm_send_bss_transition_mgmt_resp): token 1, status 0,
        // delay 0, the target.
        let acc = [0x0a, 0x08, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00];
        let r = BtmResponseRepr::parse(&acc).unwrap();
        assert_eq!((r.dialog_token, r.status, r.termination_delay, r.target), (1, BtmStatus::ACCEPT, 0, Some(T1)));
        assert_eq!(r.to_vec().unwrap(), acc);
        // Status 0 without the Target BSSID is cut short (hostapd ignores it).
        assert_eq!(BtmResponseRepr::parse(&acc[..10]), Err(Error::Truncated));
        // Its reject "no suitable candidates": no Target BSSID.
        let rej = [0x0a, 0x08, 0x01, 0x07, 0x00];
        let r = BtmResponseRepr::parse(&rej).unwrap();
        assert_eq!((r.status, r.target), (BtmStatus::REJECT_NO_SUITABLE_CANDIDATES, None));
        assert_eq!(r.to_vec().unwrap(), rej);
        assert!(matches!(BtmResponseRepr { target: Some(T1), ..r }.to_vec(), Err(Error::Malformed(_))));
        assert_eq!(BtmResponseRepr::parse(&rej[..4]), Err(Error::Truncated));
        // wpa_supplicant `WNM_BSS_QUERY 0`: token 1, reason 0; with a candidate list.
        let q = BtmQueryRepr::parse(&[0x0a, 0x06, 0x01, 0x00]).unwrap();
        assert_eq!((q.dialog_token, q.reason, q.candidates), (1, query_reason::UNSPECIFIED, &[][..]));
        let qc: Vec<u8> = [&[0x0a, 0x06, 0x01, 0x06][..], &CAND].concat();
        let q = BtmQueryRepr::parse(&qc).unwrap();
        assert_eq!(q.to_vec(), qc);
        assert_eq!(BtmQueryRepr::parse(&qc[..qc.len() - 2]), Err(Error::Truncated));
        assert!(matches!(BtmQueryRepr::parse(&[0x05, 0x06, 1, 0]), Err(Error::Malformed(_))));
        assert!(matches!(BtmQueryRepr::parse(&[0x0a, 0x07, 1, 0]), Err(Error::Malformed(_))));
        assert_eq!(WnmActionRepr::parse_details(&[26, 1]).unwrap(), WnmActionRepr::Other { action: 26 });
    }

    /// Frames recorded in the interop lab's `bss-tm` rows (hostapd 2.10 and wpa_supplicant
    /// 2.10 on mac80211_hwsim, no MFP: the Action bodies in the clear on the air).
    #[test]
    fn frames_recorded_from_hostapd_and_wpa_supplicant() {
        // hostapd_cli BSS_TM_REQ 02:00:00:00:01:00 pref=1 neighbor=02:00:00:00:03:00,0x8f,81,6,6,0301ff
        let req = hex("0a07010100000134100200000003008f0000005106060301ff");
        let r = BtmRequestRepr::parse(&req).unwrap();
        assert_eq!((r.dialog_token, r.mode, r.disassoc_timer, r.validity_interval), (1, request_mode::PREFERRED_CANDIDATE_LIST, 0, 1));
        let c: Vec<NeighborReport> = r.candidates().map(|c| c.unwrap()).collect();
        assert_eq!((c[0].bssid, c[0].bssid_info, c[0].channel, c[0].preference()), (MacAddr([2, 0, 0, 0, 3, 0]), 0x8f, 6, Some(255)));
        assert_eq!(r.to_vec().unwrap(), req);
        // wpa_supplicant's accept, with the candidate list of its scan results
        // (wnm_add_cand_list: preferences 255, 254).
        let resp = hex("0a080100000200000003003410020000000000820000005106060301ff3410020000000300820000005106060301fe");
        let r = BtmResponseRepr::parse(&resp).unwrap();
        assert_eq!((r.status, r.target), (BtmStatus::ACCEPT, Some(MacAddr([2, 0, 0, 0, 3, 0]))));
        let list: Vec<NeighborReport> = rrm::neighbor_reports(r.candidates).map(|c| c.unwrap()).collect();
        assert_eq!(list.iter().map(|c| (c.bssid.0[4], c.preference())).collect::<Vec<_>>(), [(0, Some(255)), (3, Some(254))]);
        assert_eq!(r.to_vec().unwrap(), resp);
        // wpa_supplicant's Association Request: Extended Capabilities with BSS Transition.
        assert!(ext_capab_has(&hex("04004a0201404040000120"), EXT_CAPAB_BSS_TRANSITION));
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn extended_capabilities() {
        // hostapd bss_transition=1 alone: 7f 03 00 00 08.
        assert_eq!(ext_capab_element(&[EXT_CAPAB_BSS_TRANSITION]), [0x7f, 0x03, 0x00, 0x00, 0x08]);
        assert!(ext_capab_element(&[]).is_empty());
        assert!(ext_capab_has(&[0, 0, 0x08], EXT_CAPAB_BSS_TRANSITION));
        assert!(!ext_capab_has(&[0, 0], EXT_CAPAB_BSS_TRANSITION));
        assert!(!ext_capab_has(&[0xff, 0xff, 0xf7], EXT_CAPAB_BSS_TRANSITION));
    }
}
