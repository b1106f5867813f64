//! Management frames, IEEE 802.11-2020 9.3.3, and the fixed fields of 9.4.1 their bodies are
//! made of.
//!
//! [`Frame`] is a zero-copy view of a whole management MPDU (MAC header, 9.3.3.1, then the
//! body). Each body has a `Repr` with `parse` (from the body octets), `buffer_len` and `emit`
//! (into a body buffer); [`BodyRepr`] picks one by subtype and [`MgmtRepr`] adds the MAC
//! header, so a whole frame is parsed or built in one call. Elements stay as their octets
//! (`elements`), walked with [`crate::wire::element`].
//!
//! ```text
//! Beacon (9.3.3.2), Probe Response (9.3.3.10)
//!     Timestamp (8) | Beacon Interval (2) | Capability Information (2) | elements
//! Probe Request (9.3.3.9)                       elements
//! Authentication (9.3.3.11)
//!     Algorithm (2) | Transaction Sequence (2) | Status Code (2) | elements (Challenge Text)
//! Association Request (9.3.3.5)                 Capability (2) | Listen Interval (2) | elements
//! Reassociation Request (9.3.3.7)               ... | Listen Interval (2) | Current AP Address (6) | elements
//! (Re)Association Response (9.3.3.6, 9.3.3.8)   Capability (2) | Status Code (2) | AID (2) | elements
//! Deauthentication (9.3.3.12), Disassociation (9.3.3.4)   Reason Code (2) | elements
//! Action (9.3.3.13), Action No Ack (9.3.3.14)   Category (1) | Action details
//! SA Query (9.6.9)                              Category 8 | Action (1) | Transaction Identifier (2)
//! ```
//! Every fixed field is little-endian. Every parser checks bounds and returns
//! `Error::Truncated` or `Error::Malformed`; none panics on any input.
use crate::error::{Error, Result};
use crate::wire::element::{self, Elements};
use crate::wire::mac::{mgmt_subtype, FrameControl, FrameType, Header, HeaderRepr, MacAddr, Mpdu, SeqControl};

fn le16(b: &[u8], at: usize) -> Result<u16> {
    let s = b.get(at..at + 2).ok_or(Error::Truncated)?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

/// Checks an emit buffer and returns it cut to `len`.
fn out(buf: &mut [u8], len: usize) -> Result<&mut [u8]> {
    buf.get_mut(..len).ok_or(Error::Truncated)
}

/// Authentication Algorithm Number field, 9.4.1.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AuthAlgorithm(pub u16);

impl AuthAlgorithm {
    pub const OPEN_SYSTEM: AuthAlgorithm = AuthAlgorithm(0);
    /// WEP shared key (12.3.3.3): a 128-octet challenge in frames 2 and 3.
    pub const SHARED_KEY: AuthAlgorithm = AuthAlgorithm(1);
    pub const FAST_BSS_TRANSITION: AuthAlgorithm = AuthAlgorithm(2);
    /// Simultaneous authentication of equals (12.4): the body carries SAE fields, not a
    /// challenge.
    pub const SAE: AuthAlgorithm = AuthAlgorithm(3);
}

/// Capability Information field, 9.4.1.4 (the bits wsec sets or reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Capability(pub u16);

impl Capability {
    pub const ESS: u16 = 0x0001;
    pub const IBSS: u16 = 0x0002;
    /// Privacy (b4): WEP, or an RSNA, is required.
    pub const PRIVACY: u16 = 0x0010;
    pub const SHORT_PREAMBLE: u16 = 0x0020;
    pub const SHORT_SLOT_TIME: u16 = 0x0400;

    pub fn has(self, bit: u16) -> bool {
        self.0 & bit == bit
    }
    pub fn with(self, bit: u16, on: bool) -> Capability {
        Capability(if on { self.0 | bit } else { self.0 & !bit })
    }
}

/// Reason Code field, 9.4.1.7 (Table 9-49): why a Deauthentication or Disassociation was
/// sent. Displayed as its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReasonCode(pub u16);

impl ReasonCode {
    pub const UNSPECIFIED: ReasonCode = ReasonCode(1);
    /// Previous authentication no longer valid.
    pub const PREV_AUTH_NOT_VALID: ReasonCode = ReasonCode(2);
    /// Deauthenticated because the sending STA is leaving (or has left) the BSS.
    pub const DEAUTH_LEAVING: ReasonCode = ReasonCode(3);
    /// Disassociated due to inactivity.
    pub const INACTIVITY: ReasonCode = ReasonCode(4);
    /// Class 2 frame received from a nonauthenticated STA.
    pub const CLASS2_FROM_NONAUTH: ReasonCode = ReasonCode(6);
    /// Class 3 frame received from a nonassociated STA.
    pub const CLASS3_FROM_NONASSOC: ReasonCode = ReasonCode(7);
    /// Disassociated because the sending STA is leaving (or has left) the BSS.
    pub const ASSOC_LEAVING: ReasonCode = ReasonCode(8);
    /// Message integrity code (MIC) failure.
    pub const MIC_FAILURE: ReasonCode = ReasonCode(14);
    /// 4-way handshake timeout.
    pub const FOURWAY_TIMEOUT: ReasonCode = ReasonCode(15);
    /// Group key handshake timeout.
    pub const GROUP_KEY_TIMEOUT: ReasonCode = ReasonCode(16);
    /// Element in 4-way handshake different from (Re)Association Request/Probe
    /// Response/Beacon frame.
    pub const IE_DIFFERENT: ReasonCode = ReasonCode(17);
    /// 23: IEEE 802.1X authentication failed (Table 9-49).
    pub const IEEE_8021X_AUTH_FAILED: ReasonCode = ReasonCode(23);
}

impl core::fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Status Code field, 9.4.1.9 (Table 9-50): the outcome an Authentication or
/// (Re)Association Response reports. Displayed as its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StatusCode(pub u16);

impl StatusCode {
    pub const SUCCESS: StatusCode = StatusCode(0);
    /// Unspecified failure.
    pub const UNSPECIFIED: StatusCode = StatusCode(1);
    /// Association denied for a reason outside the scope of the standard.
    pub const DENIED_UNSPECIFIED: StatusCode = StatusCode(12);
    /// The responding STA does not support the specified authentication algorithm.
    pub const NOT_SUPPORTED_AUTH_ALG: StatusCode = StatusCode(13);
    /// Authentication frame with an authentication transaction sequence number out of the
    /// expected sequence.
    pub const AUTH_SEQ_UNEXPECTED: StatusCode = StatusCode(14);
    /// Authentication rejected because of challenge failure.
    pub const CHALLENGE_FAIL: StatusCode = StatusCode(15);
    /// Association denied because the AP is unable to handle additional associated STAs.
    pub const AP_FULL: StatusCode = StatusCode(17);
    /// Association request rejected temporarily; try again later (11.13: with a Timeout
    /// Interval element, the association comeback time, while an SA Query runs).
    pub const REFUSED_TEMPORARILY: StatusCode = StatusCode(30);
    /// Robust management frame policy violation (12.6.3: MFPC/MFPR mismatch).
    pub const ROBUST_MGMT_POLICY_VIOLATION: StatusCode = StatusCode(31);
    pub const INVALID_ELEMENT: StatusCode = StatusCode(40);
    pub const INVALID_GROUP_CIPHER: StatusCode = StatusCode(41);
    pub const INVALID_PAIRWISE_CIPHER: StatusCode = StatusCode(42);
    pub const INVALID_AKMP: StatusCode = StatusCode(43);
    pub const INVALID_RSNE_CAPABILITIES: StatusCode = StatusCode(45);
    /// Cipher suite rejected because of the security policy (hostapd: a group management
    /// cipher other than the AP's).
    pub const CIPHER_REJECTED_PER_POLICY: StatusCode = StatusCode(46);
    /// Invalid PMKID (a PMKSA the AP does not hold).
    pub const INVALID_PMKID: StatusCode = StatusCode(53);
    /// Invalid MDE (13.5.2: a Mobility Domain the AP is not part of).
    pub const INVALID_MDE: StatusCode = StatusCode(54);
    /// Invalid FTE (13.8: nonces, key holder IDs or the MIC do not match).
    pub const INVALID_FTE: StatusCode = StatusCode(55);
    /// Authentication is rejected because the offered finite cyclic group is not
    /// supported (OWE's Diffie-Hellman group, RFC 8110 4.3).
    pub const FINITE_CYCLIC_GROUP_NOT_SUPPORTED: StatusCode = StatusCode(77);

    pub fn is_success(self) -> bool {
        self == StatusCode::SUCCESS
    }
}

impl core::fmt::Display for StatusCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Category of an Action frame, 9.4.1.11 (Table 9-51).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ActionCategory(pub u8);

impl ActionCategory {
    pub const SPECTRUM_MANAGEMENT: ActionCategory = ActionCategory(0);
    pub const QOS: ActionCategory = ActionCategory(1);
    pub const BLOCK_ACK: ActionCategory = ActionCategory(3);
    pub const PUBLIC: ActionCategory = ActionCategory(4);
    pub const RADIO_MEASUREMENT: ActionCategory = ActionCategory(5);
    pub const FAST_BSS_TRANSITION: ActionCategory = ActionCategory(6);
    pub const HT: ActionCategory = ActionCategory(7);
    pub const SA_QUERY: ActionCategory = ActionCategory(8);
    pub const PROTECTED_DUAL_OF_PUBLIC: ActionCategory = ActionCategory(9);
    pub const WNM: ActionCategory = ActionCategory(10);
    pub const UNPROTECTED_WNM: ActionCategory = ActionCategory(11);
    pub const TDLS: ActionCategory = ActionCategory(12);
    pub const SELF_PROTECTED: ActionCategory = ActionCategory(15);
    pub const UNPROTECTED_DMG: ActionCategory = ActionCategory(20);
    pub const VHT: ActionCategory = ActionCategory(21);
    pub const UNPROTECTED_S1G: ActionCategory = ActionCategory(22);
    pub const VENDOR_SPECIFIC_PROTECTED: ActionCategory = ActionCategory(126);
    pub const VENDOR_SPECIFIC: ActionCategory = ActionCategory(127);

    /// Whether Action frames of this category are robust management frames (Table 9-51,
    /// the "Robust" column): every category but Public, HT, Self-protected, Unprotected
    /// DMG, VHT, Unprotected S1G and Vendor-specific.
    pub fn is_robust(self) -> bool {
        !matches!(self.0, 4 | 7 | 15 | 20 | 21 | 22 | 127)
    }
}

/// Whether a management frame body of `subtype` is a robust management frame (12.6.3:
/// Deauthentication, Disassociation and Action frames of a robust category); `body` is the
/// frame body.
pub fn is_robust(subtype: u8, body: &[u8]) -> bool {
    match subtype {
        mgmt_subtype::DEAUTH | mgmt_subtype::DISASSOC => true,
        mgmt_subtype::ACTION | mgmt_subtype::ACTION_NO_ACK => body.first().is_some_and(|&c| ActionCategory(c).is_robust()),
        _ => false,
    }
}

/// Zero-copy view of a management MPDU: the MAC header (9.3.3.1: Address 1 = DA, Address 2
/// = SA, Address 3 = BSSID; 28 octets with HT Control when Order is set) and the body.
#[derive(Debug, Clone)]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Frame<T> {
    pub fn new_unchecked(buffer: T) -> Frame<T> {
        Frame { buffer }
    }

    /// Checks that the buffer holds a whole management frame header.
    pub fn new_checked(buffer: T) -> Result<Frame<T>> {
        let h = Header::new_checked(buffer.as_ref())?;
        if !h.frame_control().is_mgmt() {
            return Err(Error::Malformed("not a management frame"));
        }
        Ok(Frame { buffer })
    }

    pub fn header(&self) -> Header<&[u8]> {
        Header::new_unchecked(self.buffer.as_ref())
    }
    pub fn frame_control(&self) -> FrameControl {
        self.header().frame_control()
    }
    /// The management subtype (Table 9-1, [`mgmt_subtype`]).
    pub fn subtype(&self) -> u8 {
        self.frame_control().subtype()
    }
    /// Address 1, the receiver and destination.
    pub fn da(&self) -> MacAddr {
        self.header().addr1()
    }
    /// Address 2, the transmitter and source.
    pub fn sa(&self) -> MacAddr {
        self.header().addr2().unwrap_or_default()
    }
    /// Address 3.
    pub fn bssid(&self) -> MacAddr {
        self.header().addr3().unwrap_or_default()
    }
    pub fn seq_control(&self) -> SeqControl {
        self.header().seq_control().unwrap_or_default()
    }
    pub fn header_len(&self) -> usize {
        self.header().header_len()
    }
    /// A robust management frame (see [`is_robust`]). Meant for a frame in the clear: the
    /// first body octet of a protected frame is its security header, not the Category.
    pub fn is_robust(&self) -> bool {
        is_robust(self.subtype(), &self.buffer.as_ref()[self.header_len()..])
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
}

impl<'a> Frame<&'a [u8]> {
    /// The management frame view of an MPDU whose header was checked once (no new check).
    pub fn from_mpdu(m: &Mpdu<'a>) -> Result<Frame<&'a [u8]>> {
        if !m.frame_control().is_mgmt() {
            return Err(Error::Malformed("not a management frame"));
        }
        Ok(Frame { buffer: m.bytes() })
    }

    /// The frame body (ciphertext when the Protected bit is set; with any FCS the caller
    /// left on).
    pub fn body(&self) -> &'a [u8] {
        &self.buffer[self.header_len()..]
    }
}

/// Beacon (9.3.3.2) and Probe Response (9.3.3.10) body: the same fixed fields, then
/// elements (SSID, Supported Rates, DSSS Parameter Set, TIM in Beacons, RSNE, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BeaconRepr<'a> {
    /// Timestamp (9.4.1.10): the TSF in microseconds.
    pub timestamp: u64,
    /// Beacon Interval (9.4.1.3), in TUs.
    pub beacon_interval: u16,
    pub capability: Capability,
    pub elements: &'a [u8],
}

impl<'a> BeaconRepr<'a> {
    /// Octets of Timestamp, Beacon Interval and Capability Information.
    pub const FIXED_LEN: usize = 12;

    pub fn parse(body: &'a [u8]) -> Result<BeaconRepr<'a>> {
        let fixed = body.get(..Self::FIXED_LEN).ok_or(Error::Truncated)?;
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&fixed[..8]);
        Ok(BeaconRepr {
            timestamp: u64::from_le_bytes(ts),
            beacon_interval: le16(fixed, 8)?,
            capability: Capability(le16(fixed, 10)?),
            elements: &body[Self::FIXED_LEN..],
        })
    }
    pub fn buffer_len(&self) -> usize {
        Self::FIXED_LEN + self.elements.len()
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = out(buf, self.buffer_len())?;
        b[..8].copy_from_slice(&self.timestamp.to_le_bytes());
        put16(b, 8, self.beacon_interval);
        put16(b, 10, self.capability.0);
        b[Self::FIXED_LEN..].copy_from_slice(self.elements);
        Ok(())
    }
    pub fn elements(&self) -> Elements<'a> {
        element::elements(self.elements)
    }
}

/// Probe Request body (9.3.3.9): elements only (SSID, possibly empty for a wildcard,
/// Supported Rates, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProbeRequestRepr<'a> {
    pub elements: &'a [u8],
}

impl<'a> ProbeRequestRepr<'a> {
    pub fn parse(body: &'a [u8]) -> Result<ProbeRequestRepr<'a>> {
        Ok(ProbeRequestRepr { elements: body })
    }
    pub fn buffer_len(&self) -> usize {
        self.elements.len()
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        out(buf, self.buffer_len())?.copy_from_slice(self.elements);
        Ok(())
    }
    pub fn elements(&self) -> Elements<'a> {
        element::elements(self.elements)
    }
}

/// Authentication body (9.3.3.11): Authentication Algorithm Number (9.4.1.1),
/// Authentication Transaction Sequence Number (9.4.1.2), Status Code (9.4.1.9), then what
/// the algorithm needs. For shared key authentication that is the Challenge Text element of
/// frames 2 and 3 (12.3.3.3); the fields of other algorithms (SAE's scalar and element, FT
/// and FILS elements) are not interpreted here and not re-emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AuthRepr<'a> {
    pub algorithm: AuthAlgorithm,
    /// The transaction sequence number: 1 for the request, 2 for the response, 3 and 4 for
    /// the rest of shared key authentication.
    pub transaction: u16,
    pub status: StatusCode,
    /// The Challenge Text element's Information field (shared key only).
    pub challenge: Option<&'a [u8]>,
}

impl<'a> AuthRepr<'a> {
    pub const FIXED_LEN: usize = 6;

    /// Frame `transaction` of `algorithm` with `status` and no challenge.
    pub fn new(algorithm: AuthAlgorithm, transaction: u16, status: StatusCode) -> AuthRepr<'a> {
        AuthRepr { algorithm, transaction, status, challenge: None }
    }

    /// The same with the Challenge Text `challenge` (shared key frames 2 and 3).
    pub fn with_challenge(self, challenge: &'a [u8]) -> AuthRepr<'a> {
        AuthRepr { challenge: Some(challenge), ..self }
    }

    /// Parses the body. For shared key the elements must be well formed up to the
    /// Challenge Text element (Error::Truncated otherwise).
    pub fn parse(body: &'a [u8]) -> Result<AuthRepr<'a>> {
        let algorithm = AuthAlgorithm(le16(body, 0)?);
        let transaction = le16(body, 2)?;
        let status = StatusCode(le16(body, 4)?);
        let challenge = if algorithm == AuthAlgorithm::SHARED_KEY {
            element::find(&body[Self::FIXED_LEN..], element::id::CHALLENGE_TEXT)?.map(|e| e.body)
        } else {
            None
        };
        Ok(AuthRepr { algorithm, transaction, status, challenge })
    }
    pub fn buffer_len(&self) -> usize {
        Self::FIXED_LEN + self.challenge.map_or(0, |c| element::HEADER_LEN + c.len())
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let len = self.buffer_len();
        let b = out(buf, len)?;
        put16(b, 0, self.algorithm.0);
        put16(b, 2, self.transaction);
        put16(b, 4, self.status.0);
        if let Some(c) = self.challenge {
            b[6] = element::id::CHALLENGE_TEXT;
            b[7] = u8::try_from(c.len()).map_err(|_| Error::Oversize)?;
            b[8..].copy_from_slice(c);
        }
        Ok(())
    }
}

/// Association Request (9.3.3.5) and Reassociation Request (9.3.3.7) body: Capability
/// Information, Listen Interval (9.4.1.6), for a reassociation the Current AP Address
/// (9.4.1.5), then elements (SSID, Supported Rates, RSNE, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AssocRequestRepr<'a> {
    pub capability: Capability,
    /// Listen Interval, in Beacon Intervals.
    pub listen_interval: u16,
    /// The AP the STA is associated with: present in (and only in) a Reassociation Request.
    pub current_ap: Option<MacAddr>,
    pub elements: &'a [u8],
}

impl<'a> AssocRequestRepr<'a> {
    /// Parses an Association Request body, or a Reassociation Request body if `reassoc`.
    pub fn parse(body: &'a [u8], reassoc: bool) -> Result<AssocRequestRepr<'a>> {
        let capability = Capability(le16(body, 0)?);
        let listen_interval = le16(body, 2)?;
        let (current_ap, fixed) =
            if reassoc { (Some(MacAddr::from_bytes(body.get(4..10).ok_or(Error::Truncated)?)?), 10) } else { (None, 4) };
        Ok(AssocRequestRepr { capability, listen_interval, current_ap, elements: &body[fixed..] })
    }
    pub fn subtype(&self) -> u8 {
        if self.current_ap.is_some() {
            mgmt_subtype::REASSOC_REQ
        } else {
            mgmt_subtype::ASSOC_REQ
        }
    }
    fn fixed_len(&self) -> usize {
        if self.current_ap.is_some() {
            10
        } else {
            4
        }
    }
    pub fn buffer_len(&self) -> usize {
        self.fixed_len() + self.elements.len()
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let f = self.fixed_len();
        let b = out(buf, self.buffer_len())?;
        put16(b, 0, self.capability.0);
        put16(b, 2, self.listen_interval);
        if let Some(a) = self.current_ap {
            b[4..10].copy_from_slice(a.as_bytes());
        }
        b[f..].copy_from_slice(self.elements);
        Ok(())
    }
    pub fn elements(&self) -> Elements<'a> {
        element::elements(self.elements)
    }
}

/// Association Response (9.3.3.6) and Reassociation Response (9.3.3.8) body: Capability
/// Information, Status Code, AID (9.4.1.8), then elements (Supported Rates, Timeout
/// Interval with status 30, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AssocResponseRepr<'a> {
    pub capability: Capability,
    pub status: StatusCode,
    /// Association ID, 1-2007 (0 when refused). On the wire its two most significant
    /// bits are set (9.4.1.8): `parse` clears them and `emit` sets them.
    pub aid: u16,
    pub elements: &'a [u8],
}

impl<'a> AssocResponseRepr<'a> {
    pub const FIXED_LEN: usize = 6;
    /// The two bits 9.4.1.8 sets in the AID field.
    pub const AID_FLAGS: u16 = 0xc000;

    pub fn parse(body: &'a [u8]) -> Result<AssocResponseRepr<'a>> {
        Ok(AssocResponseRepr {
            capability: Capability(le16(body, 0)?),
            status: StatusCode(le16(body, 2)?),
            aid: le16(body, 4)? & !Self::AID_FLAGS,
            elements: &body[Self::FIXED_LEN..],
        })
    }
    pub fn buffer_len(&self) -> usize {
        Self::FIXED_LEN + self.elements.len()
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = out(buf, self.buffer_len())?;
        put16(b, 0, self.capability.0);
        put16(b, 2, self.status.0);
        put16(b, 4, self.aid | Self::AID_FLAGS);
        b[Self::FIXED_LEN..].copy_from_slice(self.elements);
        Ok(())
    }
    pub fn elements(&self) -> Elements<'a> {
        element::elements(self.elements)
    }
}

/// Deauthentication (9.3.3.12) and Disassociation (9.3.3.4) body: the Reason Code
/// (9.4.1.7). Elements after it (vendor-specific, the MME of a BIP-protected frame) are not
/// interpreted here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeauthRepr {
    pub reason: ReasonCode,
}

impl DeauthRepr {
    pub const LEN: usize = 2;

    pub fn parse(body: &[u8]) -> Result<DeauthRepr> {
        Ok(DeauthRepr { reason: ReasonCode(le16(body, 0)?) })
    }
    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        put16(out(buf, Self::LEN)?, 0, self.reason.0);
        Ok(())
    }
}

/// Action (9.3.3.13) and Action No Ack (9.3.3.14) body: the Action field (9.4.1.11),
/// Category then the category's Action details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionRepr<'a> {
    pub category: ActionCategory,
    pub details: &'a [u8],
}

impl<'a> ActionRepr<'a> {
    pub fn parse(body: &'a [u8]) -> Result<ActionRepr<'a>> {
        match body {
            [c, details @ ..] => Ok(ActionRepr { category: ActionCategory(*c), details }),
            [] => Err(Error::Truncated),
        }
    }
    pub fn buffer_len(&self) -> usize {
        1 + self.details.len()
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = out(buf, self.buffer_len())?;
        b[0] = self.category.0;
        b[1..].copy_from_slice(self.details);
        Ok(())
    }
}

/// SA Query Request (9.6.9.2) and SA Query Response (9.6.9.3) Action frame details:
/// Action (0 request, 1 response) and the Transaction Identifier the response echoes
/// (11.13). Octets after it (an OCI element with operating channel validation) are not
/// interpreted here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SaQueryRepr {
    pub request: bool,
    pub transaction_id: [u8; 2],
}

impl SaQueryRepr {
    /// Category, Action and Transaction Identifier.
    pub const LEN: usize = 4;
    pub const ACTION_REQUEST: u8 = 0;
    pub const ACTION_RESPONSE: u8 = 1;

    /// Parses an Action frame body of category SA Query.
    pub fn parse(body: &[u8]) -> Result<SaQueryRepr> {
        let a = ActionRepr::parse(body)?;
        if a.category != ActionCategory::SA_QUERY {
            return Err(Error::Malformed("not an SA Query Action frame"));
        }
        let request = match a.details.first() {
            Some(&Self::ACTION_REQUEST) => true,
            Some(&Self::ACTION_RESPONSE) => false,
            Some(_) => return Err(Error::Malformed("SA Query Action neither request nor response")),
            None => return Err(Error::Truncated),
        };
        let id = a.details.get(1..3).ok_or(Error::Truncated)?;
        Ok(SaQueryRepr { request, transaction_id: [id[0], id[1]] })
    }
    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let action = if self.request { Self::ACTION_REQUEST } else { Self::ACTION_RESPONSE };
        out(buf, Self::LEN)?.copy_from_slice(&[ActionCategory::SA_QUERY.0, action, self.transaction_id[0], self.transaction_id[1]]);
        Ok(())
    }
}

/// A management frame body of any subtype, parsed by subtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyRepr<'a> {
    Beacon(BeaconRepr<'a>),
    ProbeResponse(BeaconRepr<'a>),
    ProbeRequest(ProbeRequestRepr<'a>),
    Auth(AuthRepr<'a>),
    /// Association or (with `current_ap`) Reassociation Request.
    AssocRequest(AssocRequestRepr<'a>),
    AssocResponse(AssocResponseRepr<'a>),
    ReassocResponse(AssocResponseRepr<'a>),
    Deauth(DeauthRepr),
    Disassoc(DeauthRepr),
    /// An Action frame of category SA Query.
    SaQuery(SaQueryRepr),
    /// An Action frame of another category.
    Action(ActionRepr<'a>),
    ActionNoAck(ActionRepr<'a>),
    /// Any other subtype (ATIM, Timing Advertisement, reserved), body not interpreted.
    Other {
        subtype: u8,
        body: &'a [u8],
    },
}

impl<'a> BodyRepr<'a> {
    /// Parses the body of a management frame of `subtype` (the low 4 bits count).
    pub fn parse(subtype: u8, body: &'a [u8]) -> Result<BodyRepr<'a>> {
        use mgmt_subtype as s;
        Ok(match subtype & 0xf {
            s::BEACON => BodyRepr::Beacon(BeaconRepr::parse(body)?),
            s::PROBE_RESP => BodyRepr::ProbeResponse(BeaconRepr::parse(body)?),
            s::PROBE_REQ => BodyRepr::ProbeRequest(ProbeRequestRepr::parse(body)?),
            s::AUTH => BodyRepr::Auth(AuthRepr::parse(body)?),
            s::ASSOC_REQ => BodyRepr::AssocRequest(AssocRequestRepr::parse(body, false)?),
            s::REASSOC_REQ => BodyRepr::AssocRequest(AssocRequestRepr::parse(body, true)?),
            s::ASSOC_RESP => BodyRepr::AssocResponse(AssocResponseRepr::parse(body)?),
            s::REASSOC_RESP => BodyRepr::ReassocResponse(AssocResponseRepr::parse(body)?),
            s::DEAUTH => BodyRepr::Deauth(DeauthRepr::parse(body)?),
            s::DISASSOC => BodyRepr::Disassoc(DeauthRepr::parse(body)?),
            s::ACTION if body.first() == Some(&ActionCategory::SA_QUERY.0) => BodyRepr::SaQuery(SaQueryRepr::parse(body)?),
            s::ACTION => BodyRepr::Action(ActionRepr::parse(body)?),
            s::ACTION_NO_ACK => BodyRepr::ActionNoAck(ActionRepr::parse(body)?),
            sub => BodyRepr::Other { subtype: sub, body },
        })
    }

    /// The management subtype this body goes with.
    pub fn subtype(&self) -> u8 {
        use mgmt_subtype as s;
        match self {
            BodyRepr::Beacon(_) => s::BEACON,
            BodyRepr::ProbeResponse(_) => s::PROBE_RESP,
            BodyRepr::ProbeRequest(_) => s::PROBE_REQ,
            BodyRepr::Auth(_) => s::AUTH,
            BodyRepr::AssocRequest(r) => r.subtype(),
            BodyRepr::AssocResponse(_) => s::ASSOC_RESP,
            BodyRepr::ReassocResponse(_) => s::REASSOC_RESP,
            BodyRepr::Deauth(_) => s::DEAUTH,
            BodyRepr::Disassoc(_) => s::DISASSOC,
            BodyRepr::SaQuery(_) | BodyRepr::Action(_) => s::ACTION,
            BodyRepr::ActionNoAck(_) => s::ACTION_NO_ACK,
            BodyRepr::Other { subtype, .. } => *subtype & 0xf,
        }
    }

    pub fn buffer_len(&self) -> usize {
        match self {
            BodyRepr::Beacon(r) | BodyRepr::ProbeResponse(r) => r.buffer_len(),
            BodyRepr::ProbeRequest(r) => r.buffer_len(),
            BodyRepr::Auth(r) => r.buffer_len(),
            BodyRepr::AssocRequest(r) => r.buffer_len(),
            BodyRepr::AssocResponse(r) | BodyRepr::ReassocResponse(r) => r.buffer_len(),
            BodyRepr::Deauth(r) | BodyRepr::Disassoc(r) => r.buffer_len(),
            BodyRepr::SaQuery(r) => r.buffer_len(),
            BodyRepr::Action(r) | BodyRepr::ActionNoAck(r) => r.buffer_len(),
            BodyRepr::Other { body, .. } => body.len(),
        }
    }

    /// Writes the body into the start of `buf` (at least `buffer_len()` octets).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        match self {
            BodyRepr::Beacon(r) | BodyRepr::ProbeResponse(r) => r.emit(buf),
            BodyRepr::ProbeRequest(r) => r.emit(buf),
            BodyRepr::Auth(r) => r.emit(buf),
            BodyRepr::AssocRequest(r) => r.emit(buf),
            BodyRepr::AssocResponse(r) | BodyRepr::ReassocResponse(r) => r.emit(buf),
            BodyRepr::Deauth(r) | BodyRepr::Disassoc(r) => r.emit(buf),
            BodyRepr::SaQuery(r) => r.emit(buf),
            BodyRepr::Action(r) | BodyRepr::ActionNoAck(r) => r.emit(buf),
            BodyRepr::Other { body, .. } => {
                out(buf, body.len())?.copy_from_slice(body);
                Ok(())
            }
        }
    }
}

/// A whole unprotected management frame: the addresses and Sequence Control of its MAC
/// header (9.3.3.1) and its body. `emit` writes Duration 0, no HT Control and Protected
/// clear (a protected frame is made from this plaintext by the link's encapsulation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MgmtRepr<'a> {
    /// Address 1.
    pub da: MacAddr,
    /// Address 2.
    pub sa: MacAddr,
    /// Address 3.
    pub bssid: MacAddr,
    pub seq_control: SeqControl,
    pub body: BodyRepr<'a>,
}

impl<'a> MgmtRepr<'a> {
    /// Parses a management MPDU (no FCS). A frame with the Protected bit set is
    /// Error::Unsupported: its body is ciphertext until the link opens it.
    pub fn parse(mpdu: &'a [u8]) -> Result<MgmtRepr<'a>> {
        Self::parse_mpdu(&Mpdu::new_checked(mpdu)?)
    }

    /// [`Self::parse`] of an MPDU whose header was checked once.
    pub fn parse_mpdu(m: &Mpdu<'a>) -> Result<MgmtRepr<'a>> {
        let f = Frame::from_mpdu(m)?;
        if f.frame_control().protected() {
            return Err(Error::Unsupported("protected management frame body"));
        }
        Ok(MgmtRepr {
            da: f.da(),
            sa: f.sa(),
            bssid: f.bssid(),
            seq_control: f.seq_control(),
            body: BodyRepr::parse(f.subtype(), f.body())?,
        })
    }

    fn header(&self) -> HeaderRepr {
        HeaderRepr {
            frame_control: FrameControl::new(FrameType::Management, self.body.subtype()),
            duration_id: 0,
            addr1: self.da,
            addr2: Some(self.sa),
            addr3: Some(self.bssid),
            seq_control: Some(self.seq_control),
            addr4: None,
            qos_control: None,
            ht_control: None,
        }
    }

    /// Length of the MPDU: the 24-octet header and the body.
    pub fn buffer_len(&self) -> usize {
        24 + self.body.buffer_len()
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let len = self.buffer_len();
        let b = out(buf, len)?;
        self.header().emit(&mut Header::new_unchecked(&mut b[..24]))?;
        self.body.emit(&mut b[24..])
    }

    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}
