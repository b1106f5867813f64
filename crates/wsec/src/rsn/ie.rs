//! The RSN element (IEEE 802.11-2020 9.4.2.24, Figure 9-288), the WPA1 vendor element, and
//! the choice of cipher suites, AKM and protection options from them (12.6.3, 12.6.2).
//!
//! ```text
//! RSN element   Element ID 48 | Length | Version (2) = 1
//!               [Group Data Cipher Suite (4)]
//!               [Pairwise Cipher Suite Count (2) | Pairwise Cipher Suite List (4 m)]
//!               [AKM Suite Count (2) | AKM Suite List (4 n)]
//!               [RSN Capabilities (2)]
//!               [PMKID Count (2) | PMKID List (16 s)]
//!               [Group Management Cipher Suite (4)]
//! WPA element   Element ID 221 | Length | OUI 00-50-F2 | type 1 | Version (2) = 1
//!               [Multicast cipher (4)] [Unicast count (2) | list] [AKM count (2) | list]
//!               [Capabilities (2)]
//! ```
//! All counts and the version are little-endian. The element may end after any complete
//! field (9.4.2.24.1); a field cut short is Error::Truncated up to the RSN Capabilities.
//! The RSNE is extensible (9.4.2.1, Table 9-92): octets after the last field this module
//! knows are ignored, and so is a field cut short after the RSN Capabilities, as hostapd
//! does. Absent fields mean their defaults:
//! CCMP-128 group and pairwise, AKM 00-0F-AC:1, capabilities 0, BIP-CMAC-128 group
//! management (when MFP is negotiated); for WPA1, TKIP and AKM 00-50-F2:1.
//!
//! A suite is kept as its raw OUI and type ([`Suite`]) so that unknown suites round-trip;
//! [`Suite::cipher`] and [`Suite::akm`] interpret them.
use crate::cipher::{CipherSuite, DefaultList};
use crate::error::{Error, Result};
use crate::rsn::akm::{Akm, KeyDescriptorVersion};
use crate::rsn::eapol::DescriptorType;
use crate::wire::element;

/// Element ID of the RSN element.
pub const RSN_ELEMENT_ID: u8 = element::id::RSN;
/// Element ID of vendor-specific elements (the WPA1 element is one).
pub const VENDOR_ELEMENT_ID: u8 = element::id::VENDOR_SPECIFIC;
/// OUI of the IEEE 802.11 cipher and AKM suites.
pub const RSN_OUI: [u8; 3] = [0x00, 0x0f, 0xac];
/// OUI of the WPA1 element and its suites.
pub const WPA_OUI: [u8; 3] = [0x00, 0x50, 0xf2];
/// OUI type of the WPA1 element.
pub const WPA_OUI_TYPE: u8 = 1;

/// A cipher or AKM suite selector: OUI and suite type (9.4.2.24.2, 9.4.2.24.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Suite {
    pub oui: [u8; 3],
    pub suite_type: u8,
}

/// AKM suite selectors share the layout of cipher suite selectors.
pub type AkmSuite = Suite;

impl Suite {
    /// 00-0F-AC:0 in a Pairwise list: "Use group cipher suite" (Table 9-149).
    pub const USE_GROUP_CIPHER: Suite = Suite::rsn(0);
    /// 00-0F-AC:7 as Group Data Cipher: "Group addressed traffic not allowed".
    pub const GROUP_ADDRESSED_NOT_ALLOWED: Suite = Suite::rsn(7);

    pub const fn new(oui: [u8; 3], suite_type: u8) -> Suite {
        Suite { oui, suite_type }
    }
    /// A suite of the 00-0F-AC OUI.
    pub const fn rsn(suite_type: u8) -> Suite {
        Suite { oui: RSN_OUI, suite_type }
    }
    /// A suite of the 00-50-F2 (WPA1) OUI.
    pub const fn wpa(suite_type: u8) -> Suite {
        Suite { oui: WPA_OUI, suite_type }
    }
    pub fn from_cipher(c: CipherSuite) -> Suite {
        let (oui, t) = c.selector();
        Suite::new(oui, t)
    }
    pub fn from_akm(a: Akm) -> Suite {
        Suite::rsn(a.suite_type())
    }
    /// The WPA1 selector of a cipher: WEP-40, TKIP, CCMP-128 and WEP-104 only (the suite
    /// table's WPA1 column).
    pub fn wpa_cipher(c: CipherSuite) -> Option<Suite> {
        c.has_wpa1_selector().then(|| Suite::wpa(c.suite_type()))
    }
    /// The WPA1 selector of an AKM: 802.1X (1) and PSK (2) only.
    pub fn wpa_akm(a: Akm) -> Option<Suite> {
        matches!(a, Akm::Ieee8021x | Akm::Psk).then(|| Suite::wpa(a.suite_type()))
    }
    /// The cipher this selector names: any of Table 9-149 under 00-0F-AC; WEP-40 (1),
    /// TKIP (2), CCMP (4), WEP-104 (5) under 00-50-F2; ECCMP-2/4/8 under wsec's CID
    /// (docs/eccmp.md). None for others (including 0 and 7).
    pub fn cipher(self) -> Option<CipherSuite> {
        if self.oui == WPA_OUI {
            CipherSuite::from_wpa1_type(self.suite_type)
        } else {
            CipherSuite::from_selector(self.oui, self.suite_type)
        }
    }
    /// The AKM this selector names: those [`Akm`] knows under 00-0F-AC; 802.1X (1) and
    /// PSK (2) under 00-50-F2.
    pub fn akm(self) -> Option<Akm> {
        let wpa_ok = matches!(self.suite_type, 1 | 2);
        if self.oui == RSN_OUI || (self.oui == WPA_OUI && wpa_ok) {
            Akm::from_suite_type(self.suite_type).ok()
        } else {
            None
        }
    }
    pub fn to_bytes(self) -> [u8; 4] {
        [self.oui[0], self.oui[1], self.oui[2], self.suite_type]
    }
    pub fn from_bytes(b: [u8; 4]) -> Suite {
        Suite { oui: [b[0], b[1], b[2]], suite_type: b[3] }
    }
}

impl From<CipherSuite> for Suite {
    fn from(c: CipherSuite) -> Suite {
        Suite::from_cipher(c)
    }
}

impl From<Akm> for Suite {
    fn from(a: Akm) -> Suite {
        Suite::from_akm(a)
    }
}

/// RSN Capabilities field, 9.4.2.24.4 (Figure 9-289), little-endian on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RsnCapabilities(pub u16);

impl RsnCapabilities {
    pub const PREAUTH: u16 = 1 << 0;
    pub const NO_PAIRWISE: u16 = 1 << 1;
    /// b2-b3: PTKSA Replay Counter.
    pub const PTKSA_REPLAY_COUNTER_MASK: u16 = 0x000c;
    /// b4-b5: GTKSA Replay Counter.
    pub const GTKSA_REPLAY_COUNTER_MASK: u16 = 0x0030;
    /// b6: Management Frame Protection Required.
    pub const MFPR: u16 = 1 << 6;
    /// b7: Management Frame Protection Capable.
    pub const MFPC: u16 = 1 << 7;
    pub const JOINT_MULTI_BAND_RSNA: u16 = 1 << 8;
    pub const PEERKEY_ENABLED: u16 = 1 << 9;
    pub const SPP_AMSDU_CAPABLE: u16 = 1 << 10;
    pub const SPP_AMSDU_REQUIRED: u16 = 1 << 11;
    pub const PBAC: u16 = 1 << 12;
    /// b13: Extended Key ID for Individually Addressed Frames.
    pub const EXTENDED_KEY_ID: u16 = 1 << 13;
    /// b14: Operating Channel Validation Capable.
    pub const OCVC: u16 = 1 << 14;

    fn flag(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
    pub fn preauth(self) -> bool {
        self.flag(Self::PREAUTH)
    }
    pub fn no_pairwise(self) -> bool {
        self.flag(Self::NO_PAIRWISE)
    }
    /// The PTKSA Replay Counter subfield (0-3).
    pub fn ptksa_replay_counter(self) -> u8 {
        ((self.0 & Self::PTKSA_REPLAY_COUNTER_MASK) >> 2) as u8
    }
    /// The GTKSA Replay Counter subfield (0-3).
    pub fn gtksa_replay_counter(self) -> u8 {
        ((self.0 & Self::GTKSA_REPLAY_COUNTER_MASK) >> 4) as u8
    }
    /// Number of replay counters a replay counter subfield value announces: 1, 2, 4, 16.
    pub fn replay_counters(subfield: u8) -> u8 {
        [1, 2, 4, 16][(subfield & 3) as usize]
    }
    pub fn mfpr(self) -> bool {
        self.flag(Self::MFPR)
    }
    pub fn mfpc(self) -> bool {
        self.flag(Self::MFPC)
    }
    pub fn joint_multi_band_rsna(self) -> bool {
        self.flag(Self::JOINT_MULTI_BAND_RSNA)
    }
    pub fn peerkey_enabled(self) -> bool {
        self.flag(Self::PEERKEY_ENABLED)
    }
    pub fn spp_amsdu_capable(self) -> bool {
        self.flag(Self::SPP_AMSDU_CAPABLE)
    }
    pub fn spp_amsdu_required(self) -> bool {
        self.flag(Self::SPP_AMSDU_REQUIRED)
    }
    pub fn pbac(self) -> bool {
        self.flag(Self::PBAC)
    }
    pub fn extended_key_id(self) -> bool {
        self.flag(Self::EXTENDED_KEY_ID)
    }
    pub fn ocvc(self) -> bool {
        self.flag(Self::OCVC)
    }
    pub fn set(&mut self, bit: u16, on: bool) {
        if on {
            self.0 |= bit
        } else {
            self.0 &= !bit
        }
    }
    pub fn with(mut self, bit: u16, on: bool) -> RsnCapabilities {
        self.set(bit, on);
        self
    }
    /// `self` with the PTKSA and GTKSA Replay Counter subfields set (each `& 3`).
    pub fn with_replay_counters(self, ptksa: u8, gtksa: u8) -> RsnCapabilities {
        let m = Self::PTKSA_REPLAY_COUNTER_MASK | Self::GTKSA_REPLAY_COUNTER_MASK;
        RsnCapabilities((self.0 & !m) | (((ptksa & 3) as u16) << 2) | (((gtksa & 3) as u16) << 4))
    }
}

/// Reads little-endian fields from an element body; a short read is Error::Truncated.
struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    fn is_empty(&self) -> bool {
        self.b.is_empty()
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.b.len() < n {
            return Err(Error::Truncated);
        }
        let (h, t) = self.b.split_at(n);
        self.b = t;
        Ok(h)
    }
    fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn suite(&mut self) -> Result<Suite> {
        let b = self.take(4)?;
        Ok(Suite::from_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn suites(&mut self) -> Result<Vec<Suite>> {
        let n = self.u16()? as usize;
        if self.b.len() < 4 * n {
            return Err(Error::Truncated);
        }
        (0..n).map(|_| self.suite()).collect()
    }
}

/// The body of the element `id` at the start of `buf` (octets after it are not read).
fn element_body<'a>(buf: &'a [u8], id: u8, what: &'static str) -> Result<&'a [u8]> {
    if buf.len() < 2 {
        return Err(Error::Truncated);
    }
    if buf[0] != id {
        return Err(Error::Malformed(what));
    }
    buf.get(2..2 + buf[1] as usize).ok_or(Error::Truncated)
}

fn put_suites(out: &mut Vec<u8>, s: &[Suite]) {
    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
    for x in s {
        out.extend_from_slice(&x.to_bytes());
    }
}

fn finish_element(id: u8, header: &[u8], body: Vec<u8>, buf: &mut [u8]) -> Result<usize> {
    let len = header.len() + body.len();
    let l = u8::try_from(len).map_err(|_| Error::Oversize)?;
    if buf.len() < 2 + len {
        return Err(Error::Truncated);
    }
    buf[0] = id;
    buf[1] = l;
    buf[2..2 + header.len()].copy_from_slice(header);
    buf[2 + header.len()..2 + len].copy_from_slice(&body);
    Ok(2 + len)
}

/// The RSN element in parsed form. `None`/empty fields are absent; `emit` writes every
/// field up to the last present one, filling absent earlier fields with their defaults
/// (group CCMP-128, counts 0, capabilities 0). So an element that ended with an empty
/// list (e.g. `PMKID Count = 0` last) re-emits without it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RsnElementRepr {
    pub version: u16,
    pub group_cipher: Option<Suite>,
    pub pairwise: Vec<Suite>,
    pub akms: Vec<AkmSuite>,
    pub capabilities: Option<RsnCapabilities>,
    pub pmkids: Vec<[u8; 16]>,
    pub group_mgmt_cipher: Option<Suite>,
}

impl Default for RsnElementRepr {
    fn default() -> RsnElementRepr {
        RsnElementRepr {
            version: 1,
            group_cipher: None,
            pairwise: Vec::new(),
            akms: Vec::new(),
            capabilities: None,
            pmkids: Vec::new(),
            group_mgmt_cipher: None,
        }
    }
}

impl RsnElementRepr {
    /// Parses the RSN element at the start of `buf` (Element ID, Length, body; octets after
    /// the element are not read). Errors: Truncated (buffer or a field cut short), Malformed
    /// (Element ID not 48), Unsupported (Version not 1).
    pub fn parse(buf: &[u8]) -> Result<RsnElementRepr> {
        RsnElementRepr::parse_body(element_body(buf, RSN_ELEMENT_ID, "not an RSN element (ID 48)")?)
    }

    /// Parses the body of an RSN element (after Element ID and Length).
    pub fn parse_body(body: &[u8]) -> Result<RsnElementRepr> {
        let mut r = Reader { b: body };
        let mut e = RsnElementRepr { version: r.u16()?, ..Default::default() };
        if e.version != 1 {
            return Err(Error::Unsupported("RSN element version other than 1"));
        }
        if r.is_empty() {
            return Ok(e);
        }
        e.group_cipher = Some(r.suite()?);
        if r.is_empty() {
            return Ok(e);
        }
        e.pairwise = r.suites()?;
        if r.is_empty() {
            return Ok(e);
        }
        e.akms = r.suites()?;
        if r.is_empty() {
            return Ok(e);
        }
        e.capabilities = Some(RsnCapabilities(r.u16()?));
        // The RSNE is extensible (9.4.2.1, Table 9-92): octets after the fields this
        // parser knows are ignored, and so is a field cut short after the RSN
        // Capabilities, the first optional one a later revision may follow with others
        // (hostapd's wpa_parse_wpa_ie_rsn: "trailing bytes - ignored"). A PMKID Count
        // that promises more PMKIDs than there are octets stays an error, as there.
        if r.b.len() < 2 {
            return Ok(e);
        }
        let n = r.u16()? as usize;
        let list = r.take(16usize * n)?;
        e.pmkids = list
            .chunks_exact(16)
            .map(|c| {
                let mut p = [0u8; 16];
                p.copy_from_slice(c);
                p
            })
            .collect();
        if r.b.len() < 4 {
            return Ok(e);
        }
        e.group_mgmt_cipher = Some(r.suite()?);
        Ok(e)
    }

    /// Index of the last field present: 0 = Version only ... 6 = Group Management Cipher.
    fn last_field(&self) -> usize {
        if self.group_mgmt_cipher.is_some() {
            6
        } else if !self.pmkids.is_empty() {
            5
        } else if self.capabilities.is_some() {
            4
        } else if !self.akms.is_empty() {
            3
        } else if !self.pairwise.is_empty() {
            2
        } else if self.group_cipher.is_some() {
            1
        } else {
            0
        }
    }

    fn body(&self) -> Vec<u8> {
        let last = self.last_field();
        let mut b = Vec::with_capacity(64);
        b.extend_from_slice(&self.version.to_le_bytes());
        if last >= 1 {
            b.extend_from_slice(&self.group_cipher.unwrap_or(Suite::from_cipher(CipherSuite::Ccmp128)).to_bytes());
        }
        if last >= 2 {
            put_suites(&mut b, &self.pairwise);
        }
        if last >= 3 {
            put_suites(&mut b, &self.akms);
        }
        if last >= 4 {
            b.extend_from_slice(&self.capabilities.unwrap_or_default().0.to_le_bytes());
        }
        if last >= 5 {
            b.extend_from_slice(&(self.pmkids.len() as u16).to_le_bytes());
            for p in &self.pmkids {
                b.extend_from_slice(p);
            }
        }
        if let (true, Some(g)) = (last >= 6, self.group_mgmt_cipher) {
            b.extend_from_slice(&g.to_bytes());
        }
        b
    }

    /// Length of the element `emit` writes, header included.
    pub fn buffer_len(&self) -> usize {
        let last = self.last_field();
        let mut n = 2 + 2;
        if last >= 1 {
            n += 4;
        }
        if last >= 2 {
            n += 2 + 4 * self.pairwise.len();
        }
        if last >= 3 {
            n += 2 + 4 * self.akms.len();
        }
        if last >= 4 {
            n += 2;
        }
        if last >= 5 {
            n += 2 + 16 * self.pmkids.len();
        }
        if last >= 6 {
            n += 4;
        }
        n
    }

    /// Writes the element (ID 48, Length, body) to the start of `buf`. Errors: body over
    /// 255 octets (Oversize), `buf` shorter than [`RsnElementRepr::buffer_len`] (Truncated).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if self.buffer_len() > 2 + 255 {
            return Err(Error::Oversize);
        }
        finish_element(RSN_ELEMENT_ID, &[], self.body(), buf).map(|_| ())
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}

/// The WPA1 vendor element (OUI 00-50-F2, type 1) in parsed form; fields as in
/// [`RsnElementRepr`] (absent multicast cipher emits as TKIP).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WpaElementRepr {
    pub version: u16,
    /// Multicast (group) cipher.
    pub group_cipher: Option<Suite>,
    /// Unicast (pairwise) cipher list.
    pub pairwise: Vec<Suite>,
    pub akms: Vec<AkmSuite>,
    /// The optional WPA Capabilities field (same bit layout as the low RSN Capabilities).
    pub capabilities: Option<u16>,
}

impl Default for WpaElementRepr {
    fn default() -> WpaElementRepr {
        WpaElementRepr { version: 1, group_cipher: None, pairwise: Vec::new(), akms: Vec::new(), capabilities: None }
    }
}

/// Whether `element` (ID, Length, body) is a WPA1 vendor element.
pub fn is_wpa_element(element: &[u8]) -> bool {
    element.len() >= 6 && element[0] == VENDOR_ELEMENT_ID && element[2..5] == WPA_OUI && element[5] == WPA_OUI_TYPE
}

impl WpaElementRepr {
    /// Parses the WPA1 element at the start of `buf`. Errors: Truncated, Malformed (not a
    /// vendor element with OUI 00-50-F2 type 1), Unsupported (Version not 1).
    pub fn parse(buf: &[u8]) -> Result<WpaElementRepr> {
        let body = element_body(buf, VENDOR_ELEMENT_ID, "not a vendor-specific element (ID 221)")?;
        let mut r = Reader { b: body };
        let oui = r.take(4)?;
        if oui[..3] != WPA_OUI || oui[3] != WPA_OUI_TYPE {
            return Err(Error::Malformed("vendor element other than WPA (00-50-F2 type 1)"));
        }
        let mut e = WpaElementRepr { version: r.u16()?, ..Default::default() };
        if e.version != 1 {
            return Err(Error::Unsupported("WPA element version other than 1"));
        }
        if r.is_empty() {
            return Ok(e);
        }
        e.group_cipher = Some(r.suite()?);
        if r.is_empty() {
            return Ok(e);
        }
        e.pairwise = r.suites()?;
        if r.is_empty() {
            return Ok(e);
        }
        e.akms = r.suites()?;
        if r.is_empty() {
            return Ok(e);
        }
        e.capabilities = Some(r.u16()?);
        Ok(e)
    }

    fn last_field(&self) -> usize {
        if self.capabilities.is_some() {
            4
        } else if !self.akms.is_empty() {
            3
        } else if !self.pairwise.is_empty() {
            2
        } else if self.group_cipher.is_some() {
            1
        } else {
            0
        }
    }

    pub fn buffer_len(&self) -> usize {
        let last = self.last_field();
        let mut n = 2 + 4 + 2;
        if last >= 1 {
            n += 4;
        }
        if last >= 2 {
            n += 2 + 4 * self.pairwise.len();
        }
        if last >= 3 {
            n += 2 + 4 * self.akms.len();
        }
        if last >= 4 {
            n += 2;
        }
        n
    }

    /// Writes the element (ID 221, Length, OUI, type, body) to the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if self.buffer_len() > 2 + 255 {
            return Err(Error::Oversize);
        }
        let last = self.last_field();
        let mut b = Vec::with_capacity(32);
        b.extend_from_slice(&self.version.to_le_bytes());
        if last >= 1 {
            b.extend_from_slice(&self.group_cipher.unwrap_or(Suite::wpa(2)).to_bytes());
        }
        if last >= 2 {
            put_suites(&mut b, &self.pairwise);
        }
        if last >= 3 {
            put_suites(&mut b, &self.akms);
        }
        if let (true, Some(c)) = (last >= 4, self.capabilities) {
            b.extend_from_slice(&c.to_le_bytes());
        }
        let h = [WPA_OUI[0], WPA_OUI[1], WPA_OUI[2], WPA_OUI_TYPE];
        finish_element(VENDOR_ELEMENT_ID, &h, b, buf).map(|_| ())
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}

/// The first RSN element (whole) among `ies`; Error::Truncated if an element before it
/// (or the sequence, when there is none) is cut short.
pub fn find_rsn_element(ies: &[u8]) -> Result<Option<&[u8]>> {
    Ok(element::find(ies, RSN_ELEMENT_ID)?.map(|e| e.bytes))
}

/// The first WPA1 vendor element (whole) among `ies`, like [`find_rsn_element`].
pub fn find_wpa_element(ies: &[u8]) -> Result<Option<&[u8]>> {
    Ok(element::find_by(ies, |e| is_wpa_element(e.bytes))?.map(|e| e.bytes))
}

/// The STA's management frame protection policy (dot11RSNAProtectedManagementFramesActivated
/// / dot11RSNAProtectedManagementFramesRequired): sets MFPC and MFPR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MfpPolicy {
    /// MFPC = 0, MFPR = 0.
    #[default]
    Disabled,
    /// MFPC = 1, MFPR = 0.
    Capable,
    /// MFPC = 1, MFPR = 1.
    Required,
}

/// What a STA is willing to use, in order of preference (first = most preferred).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Prefs {
    pub pairwise: Vec<CipherSuite>,
    /// Group data ciphers the STA accepts (the AP names one).
    pub group: Vec<CipherSuite>,
    pub akms: Vec<Akm>,
    /// Group management ciphers (BIP) the STA accepts.
    pub group_mgmt: Vec<CipherSuite>,
    pub mfp: MfpPolicy,
    pub spp_amsdu_capable: bool,
    pub spp_amsdu_required: bool,
    pub extended_key_id: bool,
    pub ocvc: bool,
}

impl Default for Prefs {
    /// [`Prefs::wpa2_personal`].
    fn default() -> Prefs {
        Prefs::wpa2_personal()
    }
}

impl Prefs {
    /// PSK-SHA256 then PSK; the suite table's preference lists: pairwise CCMP-256, GCMP-256,
    /// CCMP-128, GCMP-128 (wpa_supplicant's order); group also TKIP; MFP capable; any BIP.
    pub fn wpa2_personal() -> Prefs {
        Prefs {
            pairwise: CipherSuite::default_list(DefaultList::PrefsPairwise),
            group: CipherSuite::default_list(DefaultList::PrefsGroup),
            akms: vec![Akm::PskSha256, Akm::Psk],
            group_mgmt: CipherSuite::default_list(DefaultList::PrefsGroupMgmt),
            mfp: MfpPolicy::Capable,
            spp_amsdu_capable: false,
            spp_amsdu_required: false,
            extended_key_id: false,
            ocvc: false,
        }
    }

    /// SAE (after the SAE exchange gave the PMK), MFP required, otherwise as WPA2.
    pub fn wpa3_personal() -> Prefs {
        Prefs { akms: vec![Akm::SaeExtKey, Akm::Sae], mfp: MfpPolicy::Required, ..Prefs::wpa2_personal() }
    }
}

/// The outcome of negotiation: what both sides use from now on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Negotiated {
    /// EAPOL-Key Descriptor Type: RSN (2), or WPA (254) after [`negotiate_wpa`].
    pub descriptor_type: DescriptorType,
    pub akm: Akm,
    pub pairwise: CipherSuite,
    pub group: CipherSuite,
    /// The BIP suite, when management frame protection is in use.
    pub group_mgmt: Option<CipherSuite>,
    /// Management frame protection in use (both MFPC).
    pub mfp: bool,
    /// The STA's MFPR, to be echoed in its own RSN element.
    pub sta_mfpr: bool,
    /// Signaling and Payload Protected A-MSDUs (both SPP A-MSDU Capable).
    pub spp_amsdu: bool,
    /// Whether A-MSDUs may be exchanged at all: false when one side requires SPP A-MSDUs
    /// and the other cannot do them (9.4.2.24.4, Table 9-153).
    pub amsdu_allowed: bool,
    /// Extended Key ID for Individually Addressed Frames (both set, pairwise not TKIP).
    pub extended_key_id: bool,
    /// Operating channel validation (both OCVC, with MFP).
    pub ocv: bool,
    pub key_descriptor_version: KeyDescriptorVersion,
    /// EAPOL-Key MIC length (16 or 24).
    pub mic_len: usize,
}

fn pick<T: Copy + PartialEq>(prefs: &[T], offered: &[Suite], conv: impl Fn(Suite) -> Option<T>) -> Option<T> {
    prefs.iter().copied().find(|p| offered.iter().any(|s| conv(*s) == Some(*p)))
}

fn non_empty_or(list: &[Suite], default: Suite) -> Vec<Suite> {
    if list.is_empty() {
        vec![default]
    } else {
        list.to_vec()
    }
}

/// Chooses AKM, pairwise and group ciphers, MFP and its group management cipher, SPP
/// A-MSDU, Extended Key ID and OCV from the AP's RSN element and the STA's preferences
/// (12.6.2, 12.6.3; the AP's absent fields take their 9.4.2.24.1 defaults). The first
/// STA preference the AP offers wins. Errors (Error::Unsupported unless noted), each
/// naming what failed:
/// - RSN version other than 1;
/// - AP sets MFPR without MFPC (Error::Malformed: an invalid element);
/// - AP requires MFP (MFPR) and the STA's policy is Disabled; STA requires MFP and the AP
///   is not MFPC;
/// - no common AKM; no common pairwise cipher; AP's group cipher not in the STA's list;
/// - MFP with a TKIP pairwise cipher (12.6.3: MFP needs CCMP/GCMP);
/// - the AP's group management cipher not in the STA's list (when MFP is in use).
///
/// The pairwise selector "Use group cipher suite" (00-0F-AC:0) is not supported.
pub fn negotiate(ap: &RsnElementRepr, sta: &Prefs) -> Result<Negotiated> {
    if ap.version != 1 {
        return Err(Error::Unsupported("RSN element version other than 1"));
    }
    let caps = ap.capabilities.unwrap_or_default();
    if caps.mfpr() && !caps.mfpc() {
        return Err(Error::Malformed("AP sets MFPR without MFPC"));
    }
    let (sta_mfpc, sta_mfpr) = match sta.mfp {
        MfpPolicy::Disabled => (false, false),
        MfpPolicy::Capable => (true, false),
        MfpPolicy::Required => (true, true),
    };
    if caps.mfpr() && !sta_mfpc {
        return Err(Error::Unsupported("AP requires management frame protection; the STA is not MFP capable"));
    }
    if sta_mfpr && !caps.mfpc() {
        return Err(Error::Unsupported("STA requires management frame protection; the AP is not MFP capable"));
    }
    let mfp = caps.mfpc() && sta_mfpc;

    let akms = non_empty_or(&ap.akms, Suite::rsn(1));
    let akm = pick(&sta.akms, &akms, |s| (s.oui == RSN_OUI).then(|| s.akm()).flatten()).ok_or(Error::Unsupported("no common AKM suite"))?;
    let pw = non_empty_or(&ap.pairwise, Suite::from_cipher(CipherSuite::Ccmp128));
    // The uses come from the suite table (ECCMP, docs/eccmp.md, is pairwise-only).
    let pairwise = pick(&sta.pairwise, &pw, |s| (s.oui != WPA_OUI).then(|| s.cipher()).flatten().filter(|c| c.is_pairwise()))
        .ok_or(Error::Unsupported("no common pairwise cipher suite"))?;
    let gs = ap.group_cipher.unwrap_or(Suite::from_cipher(CipherSuite::Ccmp128));
    let group = gs
        .cipher()
        .filter(|&c| gs.oui != WPA_OUI && c.is_group() && sta.group.contains(&c))
        .ok_or(Error::Unsupported("AP's group data cipher suite not acceptable to the STA"))?;
    if mfp && pairwise == CipherSuite::Tkip {
        return Err(Error::Unsupported("management frame protection cannot use a TKIP pairwise cipher"));
    }
    let group_mgmt = if mfp {
        let s = ap.group_mgmt_cipher.unwrap_or(Suite::from_cipher(CipherSuite::BipCmac128));
        Some(
            s.cipher()
                .filter(|&c| s.oui != WPA_OUI && c.is_bip() && sta.group_mgmt.contains(&c))
                .ok_or(Error::Unsupported("AP's group management cipher suite not acceptable to the STA"))?,
        )
    } else {
        None
    };
    let spp_amsdu = caps.spp_amsdu_capable() && sta.spp_amsdu_capable;
    let amsdu_allowed = spp_amsdu || !(caps.spp_amsdu_required() || sta.spp_amsdu_required);
    let kdv = akm.key_descriptor_version(pairwise);
    Ok(Negotiated {
        descriptor_type: DescriptorType::Rsn,
        akm,
        pairwise,
        group,
        group_mgmt,
        mfp,
        sta_mfpr: mfp && sta_mfpr,
        spp_amsdu,
        amsdu_allowed,
        extended_key_id: caps.extended_key_id() && sta.extended_key_id && pairwise != CipherSuite::Tkip,
        ocv: mfp && caps.ocvc() && sta.ocvc,
        key_descriptor_version: kdv,
        mic_len: crate::rsn::eapol::mic_len(kdv, akm),
    })
}

/// Negotiation against a WPA1 element (defaults TKIP and AKM 00-50-F2:1): only WPA1
/// selectors count; no MFP, SPP A-MSDU, Extended Key ID or OCV. Errors as [`negotiate`].
pub fn negotiate_wpa(ap: &WpaElementRepr, sta: &Prefs) -> Result<Negotiated> {
    if ap.version != 1 {
        return Err(Error::Unsupported("WPA element version other than 1"));
    }
    if sta.mfp == MfpPolicy::Required {
        return Err(Error::Unsupported("STA requires management frame protection; WPA1 has none"));
    }
    let wpa_only = |s: Suite| (s.oui == WPA_OUI).then_some(s);
    let akms = non_empty_or(&ap.akms, Suite::wpa(1));
    let akm = pick(&sta.akms, &akms, |s| wpa_only(s).and_then(Suite::akm)).ok_or(Error::Unsupported("no common AKM suite"))?;
    let pw = non_empty_or(&ap.pairwise, Suite::wpa(2));
    let pairwise =
        pick(&sta.pairwise, &pw, |s| wpa_only(s).and_then(Suite::cipher)).ok_or(Error::Unsupported("no common pairwise cipher suite"))?;
    let gs = ap.group_cipher.unwrap_or(Suite::wpa(2));
    let group = wpa_only(gs)
        .and_then(Suite::cipher)
        .filter(|c| sta.group.contains(c))
        .ok_or(Error::Unsupported("AP's group data cipher suite not acceptable to the STA"))?;
    let kdv = akm.key_descriptor_version(pairwise);
    Ok(Negotiated {
        descriptor_type: DescriptorType::Wpa,
        akm,
        pairwise,
        group,
        group_mgmt: None,
        mfp: false,
        sta_mfpr: false,
        spp_amsdu: false,
        amsdu_allowed: true,
        extended_key_id: false,
        ocv: false,
        key_descriptor_version: kdv,
        mic_len: crate::rsn::eapol::mic_len(kdv, akm),
    })
}

impl Negotiated {
    /// The RSN element the STA sends (Association Request, EAPOL-Key message 2): the chosen
    /// suites, its capabilities (MFPC/MFPR when MFP is in use, SPP A-MSDU bits from
    /// `prefs`, Extended Key ID and OCVC when negotiated), `pmkids`, and the group
    /// management cipher when MFP is in use and it is not the default BIP-CMAC-128.
    pub fn sta_rsn_element(&self, prefs: &Prefs, pmkids: &[[u8; 16]]) -> RsnElementRepr {
        let caps = RsnCapabilities(0)
            .with(RsnCapabilities::MFPC, self.mfp)
            .with(RsnCapabilities::MFPR, self.mfp && self.sta_mfpr)
            .with(RsnCapabilities::SPP_AMSDU_CAPABLE, prefs.spp_amsdu_capable)
            .with(RsnCapabilities::SPP_AMSDU_REQUIRED, prefs.spp_amsdu_required)
            .with(RsnCapabilities::EXTENDED_KEY_ID, self.extended_key_id)
            .with(RsnCapabilities::OCVC, self.ocv);
        let group_mgmt_cipher = self.group_mgmt.filter(|&c| c != CipherSuite::BipCmac128).map(Suite::from_cipher);
        RsnElementRepr {
            version: 1,
            group_cipher: Some(Suite::from_cipher(self.group)),
            pairwise: vec![Suite::from_cipher(self.pairwise)],
            akms: vec![Suite::from_akm(self.akm)],
            capabilities: Some(caps),
            pmkids: pmkids.to_vec(),
            group_mgmt_cipher,
        }
    }

    /// The WPA1 element the STA sends after [`negotiate_wpa`].
    pub fn sta_wpa_element(&self) -> Result<WpaElementRepr> {
        let c = |x| Suite::wpa_cipher(x).ok_or(Error::Unsupported("cipher without a WPA1 selector"));
        Ok(WpaElementRepr {
            version: 1,
            group_cipher: Some(c(self.group)?),
            pairwise: vec![c(self.pairwise)?],
            akms: vec![Suite::wpa_akm(self.akm).ok_or(Error::Unsupported("AKM without a WPA1 selector"))?],
            capabilities: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_and_defaults() {
        let e = RsnElementRepr::parse(&[48, 2, 1, 0]).unwrap();
        assert_eq!(e, RsnElementRepr::default());
        assert_eq!(e.to_bytes().unwrap(), [48, 2, 1, 0]);
        let n = negotiate(&e, &Prefs { akms: vec![Akm::Ieee8021x], ..Prefs::default() }).unwrap();
        assert_eq!((n.akm, n.pairwise, n.group, n.mfp), (Akm::Ieee8021x, CipherSuite::Ccmp128, CipherSuite::Ccmp128, false));
        assert_eq!(RsnElementRepr::parse(&[48, 3, 1, 0, 0]), Err(Error::Truncated));
        // After the RSN Capabilities a short field is ignored; a PMKID Count past the end
        // is not.
        let caps = [48, 20, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 2, 0x80, 0];
        let mut t = caps.to_vec();
        t.extend_from_slice(&[0xdd]);
        t[1] += 1;
        assert_eq!(RsnElementRepr::parse(&t).unwrap().capabilities, Some(RsnCapabilities(0x80)));
        let mut t = caps.to_vec();
        t.extend_from_slice(&[0, 0, 0xdd, 0xdd]);
        t[1] += 4;
        let e = RsnElementRepr::parse(&t).unwrap();
        assert_eq!((e.pmkids.len(), e.group_mgmt_cipher), (0, None));
        t[22] = 1;
        assert_eq!(RsnElementRepr::parse(&t), Err(Error::Truncated));
        assert_eq!(RsnElementRepr::parse(&[48, 2, 2, 0]), Err(Error::Unsupported("RSN element version other than 1")));
        let r = RsnElementRepr { akms: vec![Suite::from_akm(Akm::Psk)], ..Default::default() };
        let b = r.to_bytes().unwrap();
        assert_eq!(b, [48, 14, 1, 0, 0, 0x0f, 0xac, 4, 0, 0, 1, 0, 0, 0x0f, 0xac, 2]);
        let back = RsnElementRepr::parse(&b).unwrap();
        assert_eq!(back.group_cipher, Some(Suite::from_cipher(CipherSuite::Ccmp128)));
    }

    #[test]
    fn elements_finder() {
        let ies = [0u8, 3, b'a', b'b', b'c', 221, 6, 0, 0x50, 0xf2, 1, 1, 0, 48, 2, 1, 0, 7];
        assert_eq!(find_rsn_element(&ies).unwrap(), Some(&[48u8, 2, 1, 0][..]));
        assert_eq!(find_wpa_element(&ies).unwrap(), Some(&ies[5..13]));
        assert_eq!(find_rsn_element(&ies[..15]), Err(Error::Truncated));
        assert_eq!(element::elements(&ies).filter(|e| e.is_err()).count(), 1);
    }
}
