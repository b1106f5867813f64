//! The 802.11 MAC header, IEEE 802.11-2020 clause 9.2.3 / 9.2.4 (general frame format).
//!
//! [`Header`] is a zero-copy view over the first octets of an MPDU; [`HeaderRepr`] is its
//! parsed form with `parse`/`emit`. Which fields exist depends on the frame type, the
//! To DS/From DS bits, the QoS subtype bit and the Order bit (9.2.4.1.10: the HT Control
//! field is present in QoS Data/QoS Null and in management frames when Order = 1).
use crate::error::{Error, Result};

/// A 48-bit MAC address (IEEE 802.11-2020 9.2.4.3, the address fields; the IEEE 802 MAC
/// address of IEEE Std 802-2014 clause 8), octets in transmission order.
///
/// Printed (`Display` and `Debug`) as lowercase colon-separated hex, `aa:bb:cc:dd:ee:ff`;
/// parsed (`FromStr`) from `aa:bb:cc:dd:ee:ff`, `aa-bb-cc-dd-ee-ff` (either case) or 12
/// hex digits. Ordered and hashed as its octets, so it keys maps like the array it wraps.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// Length of an address in octets.
    pub const LEN: usize = 6;
    /// The broadcast address ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);
    /// The PAE group address 01:80:C2:00:00:03 (IEEE 802.1X-2020 11.1.1, Table 11-1):
    /// EAPOL frames to it are for the receiving port's own PAE and are never forwarded.
    pub const PAE_GROUP: MacAddr = MacAddr([0x01, 0x80, 0xc2, 0x00, 0x00, 0x03]);

    pub const fn new(octets: [u8; 6]) -> MacAddr {
        MacAddr(octets)
    }

    /// The address in `b`, which must be exactly six octets (Error::Truncated when
    /// shorter, Error::Malformed when longer).
    pub fn from_bytes(b: &[u8]) -> Result<MacAddr> {
        match <[u8; 6]>::try_from(b) {
            Ok(a) => Ok(MacAddr(a)),
            Err(_) if b.len() < 6 => Err(Error::Truncated),
            Err(_) => Err(Error::Malformed("a MAC address is 6 octets")),
        }
    }

    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// A group (multicast or broadcast) address: the Individual/Group bit, b0 of the
    /// first octet, is 1 (IEEE Std 802-2014 clause 8).
    pub const fn is_group(self) -> bool {
        self.0[0] & 1 != 0
    }

    /// An individual (unicast) address: the Individual/Group bit is 0.
    pub const fn is_individual(self) -> bool {
        !self.is_group()
    }

    /// The broadcast address (all ones).
    pub fn is_broadcast(self) -> bool {
        self == MacAddr::BROADCAST
    }
}

impl From<[u8; 6]> for MacAddr {
    fn from(a: [u8; 6]) -> MacAddr {
        MacAddr(a)
    }
}

impl From<MacAddr> for [u8; 6] {
    fn from(a: MacAddr) -> [u8; 6] {
        a.0
    }
}

impl AsRef<[u8]> for MacAddr {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl core::fmt::Display for MacAddr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let a = &self.0;
        write!(f, "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", a[0], a[1], a[2], a[3], a[4], a[5])
    }
}

impl core::fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

/// Why a string is not a MAC address (see [`MacAddr`]'s `FromStr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseMacAddrError;

impl core::fmt::Display for ParseMacAddrError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a MAC address is aa:bb:cc:dd:ee:ff or 12 hex digits")
    }
}

impl std::error::Error for ParseMacAddrError {}

impl core::str::FromStr for MacAddr {
    type Err = ParseMacAddrError;

    /// Six pairs of hex digits separated by `:` or `-` (17 characters), or 12 hex
    /// digits; upper or lower case. Nothing else: no signs, no spaces, no short groups.
    fn from_str(s: &str) -> core::result::Result<MacAddr, ParseMacAddrError> {
        let b = s.as_bytes();
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8).ok_or(ParseMacAddrError);
        let stride = match b.len() {
            12 => 2,
            17 if (0..5).all(|i| matches!(b[3 * i + 2], b':' | b'-')) => 3,
            _ => return Err(ParseMacAddrError),
        };
        let mut a = [0u8; 6];
        for (i, o) in a.iter_mut().enumerate() {
            *o = (digit(b[stride * i])? << 4) | digit(b[stride * i + 1])?;
        }
        Ok(MacAddr(a))
    }
}

/// Byte ranges of the fixed part of the header.
pub mod field {
    pub type Field = core::ops::Range<usize>;
    pub const FRAME_CONTROL: Field = 0..2;
    pub const DURATION_ID: Field = 2..4;
    pub const ADDR1: Field = 4..10;
    pub const ADDR2: Field = 10..16;
    pub const ADDR3: Field = 16..22;
    pub const SEQ_CTRL: Field = 22..24;
    /// Address 4, present only in data frames with To DS = From DS = 1.
    pub const ADDR4: Field = 24..30;
}

/// Frame Control field, 9.2.4.1 (little-endian on the wire).
pub mod fc {
    pub const PROTOCOL_VERSION: u16 = 0x0003;
    pub const TYPE_MASK: u16 = 0x000c;
    pub const SUBTYPE_MASK: u16 = 0x00f0;
    pub const TO_DS: u16 = 0x0100;
    pub const FROM_DS: u16 = 0x0200;
    pub const MORE_FRAGMENTS: u16 = 0x0400;
    pub const RETRY: u16 = 0x0800;
    pub const POWER_MGMT: u16 = 0x1000;
    pub const MORE_DATA: u16 = 0x2000;
    pub const PROTECTED: u16 = 0x4000;
    pub const ORDER: u16 = 0x8000;
    /// Subtype b7 in a data frame: QoS subtype (QoS Control field present).
    pub const QOS_SUBTYPE: u16 = 0x0080;
    /// Subtype b6 in a data frame: no Frame Body ("Null").
    pub const NULL_SUBTYPE: u16 = 0x0040;
}

/// Frame type, 9.2.4.1.3 (Table 9-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameType {
    Management,
    Control,
    Data,
    Extension,
}

impl FrameType {
    pub fn from_bits(t: u8) -> FrameType {
        match t & 3 {
            0 => FrameType::Management,
            1 => FrameType::Control,
            2 => FrameType::Data,
            _ => FrameType::Extension,
        }
    }
    pub fn bits(self) -> u8 {
        match self {
            FrameType::Management => 0,
            FrameType::Control => 1,
            FrameType::Data => 2,
            FrameType::Extension => 3,
        }
    }
}

/// Management subtypes used by the security code (Table 9-1).
pub mod mgmt_subtype {
    pub const ASSOC_REQ: u8 = 0;
    pub const ASSOC_RESP: u8 = 1;
    pub const REASSOC_REQ: u8 = 2;
    pub const REASSOC_RESP: u8 = 3;
    pub const PROBE_REQ: u8 = 4;
    pub const PROBE_RESP: u8 = 5;
    pub const BEACON: u8 = 8;
    pub const ATIM: u8 = 9;
    pub const DISASSOC: u8 = 10;
    pub const AUTH: u8 = 11;
    pub const DEAUTH: u8 = 12;
    pub const ACTION: u8 = 13;
    pub const ACTION_NO_ACK: u8 = 14;
}

/// Control subtypes whose header length differs (Table 9-1, 9.3.1).
pub mod ctrl_subtype {
    pub const CONTROL_WRAPPER: u8 = 7;
    pub const CTS: u8 = 12;
    pub const ACK: u8 = 13;
}

/// Frame Control as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FrameControl(pub u16);

impl FrameControl {
    pub fn new(ftype: FrameType, subtype: u8) -> FrameControl {
        FrameControl(((ftype.bits() as u16) << 2) | (((subtype & 0xf) as u16) << 4))
    }
    pub fn protocol_version(self) -> u8 {
        (self.0 & fc::PROTOCOL_VERSION) as u8
    }
    pub fn frame_type(self) -> FrameType {
        FrameType::from_bits(((self.0 & fc::TYPE_MASK) >> 2) as u8)
    }
    pub fn subtype(self) -> u8 {
        ((self.0 & fc::SUBTYPE_MASK) >> 4) as u8
    }
    fn flag(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
    pub fn to_ds(self) -> bool {
        self.flag(fc::TO_DS)
    }
    pub fn from_ds(self) -> bool {
        self.flag(fc::FROM_DS)
    }
    pub fn more_fragments(self) -> bool {
        self.flag(fc::MORE_FRAGMENTS)
    }
    pub fn retry(self) -> bool {
        self.flag(fc::RETRY)
    }
    pub fn power_mgmt(self) -> bool {
        self.flag(fc::POWER_MGMT)
    }
    pub fn more_data(self) -> bool {
        self.flag(fc::MORE_DATA)
    }
    pub fn protected(self) -> bool {
        self.flag(fc::PROTECTED)
    }
    pub fn order(self) -> bool {
        self.flag(fc::ORDER)
    }
    pub fn set(&mut self, bit: u16, on: bool) {
        if on {
            self.0 |= bit
        } else {
            self.0 &= !bit
        }
    }
    pub fn with(mut self, bit: u16, on: bool) -> FrameControl {
        self.set(bit, on);
        self
    }
    pub fn is_mgmt(self) -> bool {
        self.frame_type() == FrameType::Management
    }
    pub fn is_data(self) -> bool {
        self.frame_type() == FrameType::Data
    }
    pub fn is_ctrl(self) -> bool {
        self.frame_type() == FrameType::Control
    }
    /// A data frame of a QoS subtype (QoS Control present).
    pub fn is_qos_data(self) -> bool {
        self.is_data() && self.flag(fc::QOS_SUBTYPE)
    }
    /// A data frame with a Frame Body (not a Null subtype).
    pub fn has_data_body(self) -> bool {
        self.is_data() && !self.flag(fc::NULL_SUBTYPE)
    }
    /// Address 4 present: data frame with To DS = From DS = 1 (9.3.2.1, Table 9-26).
    pub fn has_addr4(self) -> bool {
        self.is_data() && self.to_ds() && self.from_ds()
    }
    /// HT Control present (9.2.4.1.10): Order = 1 in QoS data or management frames.
    pub fn has_ht_control(self) -> bool {
        self.order() && (self.is_qos_data() || self.is_mgmt())
    }
    /// Length of the MAC header this Frame Control implies, or an error for frame kinds
    /// whose header is not defined here (extension frames, protocol version != 0).
    pub fn header_len(self) -> Result<usize> {
        self.header_len_for(false)
    }

    /// Header length for a pre-HT transmitter (`pre_ht`): before 802.11n the Order bit of a
    /// QoS data frame announced no HT Control field (P802.11i/D7.0 test MPDUs 3/4/5/8).
    pub fn header_len_for(self, pre_ht: bool) -> Result<usize> {
        let len = self.header_len_ht()?;
        Ok(if pre_ht && self.is_qos_data() && self.order() { len - 4 } else { len })
    }

    fn header_len_ht(self) -> Result<usize> {
        if self.protocol_version() != 0 {
            return Err(Error::Unsupported("protocol version other than 0"));
        }
        match self.frame_type() {
            FrameType::Management => Ok(24 + if self.order() { 4 } else { 0 }),
            FrameType::Data => Ok(24
                + if self.has_addr4() { 6 } else { 0 }
                + if self.is_qos_data() { 2 } else { 0 }
                + if self.has_ht_control() { 4 } else { 0 }),
            FrameType::Control => match self.subtype() {
                ctrl_subtype::CTS | ctrl_subtype::ACK => Ok(10),
                // FC, Duration, Address 1, Carried Frame Control, HT Control.
                ctrl_subtype::CONTROL_WRAPPER => Ok(16),
                // RTS, PS-Poll, CF-End, BlockAckReq, BlockAck, NDP Announcement, Trigger, ...:
                // at least FC, Duration, RA, TA.
                _ => Ok(16),
            },
            FrameType::Extension => Err(Error::Unsupported("extension frame type")),
        }
    }
}

/// Sequence Control field, 9.2.4.4: fragment number (b0-b3), sequence number (b4-b15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeqControl(pub u16);

impl SeqControl {
    pub fn new(seq: u16, frag: u8) -> SeqControl {
        SeqControl(((seq & 0x0fff) << 4) | (frag & 0xf) as u16)
    }
    pub fn fragment(self) -> u8 {
        (self.0 & 0xf) as u8
    }
    pub fn sequence(self) -> u16 {
        self.0 >> 4
    }
}

/// QoS Control field, 9.2.4.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QosControl(pub u16);

impl QosControl {
    pub const TID_MASK: u16 = 0x000f;
    pub const EOSP: u16 = 0x0010;
    pub const ACK_POLICY_MASK: u16 = 0x0060;
    /// A-MSDU Present (b7).
    pub const AMSDU_PRESENT: u16 = 0x0080;
    pub fn tid(self) -> u8 {
        (self.0 & Self::TID_MASK) as u8
    }
    pub fn amsdu_present(self) -> bool {
        self.0 & Self::AMSDU_PRESENT != 0
    }
}

/// Zero-copy view of an MPDU's MAC header (and, through [`Header::payload`], of what follows).
#[derive(Debug, Clone)]
pub struct Header<T: AsRef<[u8]>> {
    buffer: T,
    /// Parse as a pre-HT frame: Order in QoS data frames does not announce HT Control.
    pre_ht: bool,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wraps a buffer without checking it; use [`Header::new_checked`] on wire data.
    pub fn new_unchecked(buffer: T) -> Header<T> {
        Header { buffer, pre_ht: false }
    }

    /// Like [`Header::new_checked`], for a frame from a pre-HT transmitter
    /// (see [`FrameControl::header_len_for`]).
    pub fn new_checked_pre_ht(buffer: T) -> Result<Header<T>> {
        let h = Header { buffer, pre_ht: true };
        h.check_len()?;
        Ok(h)
    }

    pub fn is_pre_ht(&self) -> bool {
        self.pre_ht
    }

    /// Wraps a buffer, checking it holds the whole header the Frame Control announces.
    pub fn new_checked(buffer: T) -> Result<Header<T>> {
        let h = Header::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }

    pub fn check_len(&self) -> Result<()> {
        #[cfg(test)]
        parse_count::bump();
        let data = self.buffer.as_ref();
        if data.len() < 2 {
            return Err(Error::Truncated);
        }
        let len = self.frame_control().header_len_for(self.pre_ht)?;
        if data.len() < len {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    pub fn frame_control(&self) -> FrameControl {
        let d = self.buffer.as_ref();
        FrameControl(u16::from_le_bytes([d[0], d[1]]))
    }

    pub fn duration_id(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::DURATION_ID];
        u16::from_le_bytes([d[0], d[1]])
    }

    fn addr(&self, f: field::Field) -> MacAddr {
        let mut a = [0u8; 6];
        a.copy_from_slice(&self.buffer.as_ref()[f]);
        MacAddr(a)
    }

    pub fn addr1(&self) -> MacAddr {
        self.addr(field::ADDR1)
    }

    /// Address 2 (TA); absent in CTS/ACK.
    pub fn addr2(&self) -> Option<MacAddr> {
        (self.header_len() >= 16).then(|| self.addr(field::ADDR2))
    }

    /// Address 3; present in management and data frames.
    pub fn addr3(&self) -> Option<MacAddr> {
        self.has_seq_addr3().then(|| self.addr(field::ADDR3))
    }

    fn has_seq_addr3(&self) -> bool {
        let fc = self.frame_control();
        fc.is_mgmt() || fc.is_data()
    }

    pub fn seq_control(&self) -> Option<SeqControl> {
        self.has_seq_addr3().then(|| {
            let d = &self.buffer.as_ref()[field::SEQ_CTRL];
            SeqControl(u16::from_le_bytes([d[0], d[1]]))
        })
    }

    pub fn addr4(&self) -> Option<MacAddr> {
        self.frame_control().has_addr4().then(|| self.addr(field::ADDR4))
    }

    fn qos_offset(&self) -> usize {
        if self.frame_control().has_addr4() {
            30
        } else {
            24
        }
    }

    pub fn qos_control(&self) -> Option<QosControl> {
        self.frame_control().is_qos_data().then(|| {
            let o = self.qos_offset();
            let d = self.buffer.as_ref();
            QosControl(u16::from_le_bytes([d[o], d[o + 1]]))
        })
    }

    pub fn ht_control(&self) -> Option<u32> {
        let fc = self.frame_control();
        if !fc.has_ht_control() || (self.pre_ht && fc.is_qos_data()) {
            return None;
        }
        let o = if fc.is_mgmt() { 24 } else { self.qos_offset() + 2 };
        let d = &self.buffer.as_ref()[o..o + 4];
        Some(u32::from_le_bytes([d[0], d[1], d[2], d[3]]))
    }

    /// Header length; the buffer must have passed [`Header::check_len`].
    pub fn header_len(&self) -> usize {
        self.frame_control().header_len_for(self.pre_ht).unwrap_or(0)
    }

    /// Octets after the MAC header (security header, body, trailer; the FCS if the caller
    /// left it on).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }

    /// Receiver, transmitter, destination and source addresses (9.3.2.1, Table 9-26).
    pub fn ra(&self) -> MacAddr {
        self.addr1()
    }
    pub fn ta(&self) -> Option<MacAddr> {
        self.addr2()
    }
    /// Destination address of the MSDU (Table 9-26); for management frames, A1.
    pub fn da(&self) -> Option<MacAddr> {
        let fc = self.frame_control();
        if !fc.is_data() {
            return fc.is_mgmt().then(|| self.addr1());
        }
        if fc.to_ds() {
            self.addr3()
        } else {
            Some(self.addr1())
        }
    }
    /// Source address of the MSDU (Table 9-26); for management frames, A2.
    pub fn sa(&self) -> Option<MacAddr> {
        let fc = self.frame_control();
        if !fc.is_data() {
            return if fc.is_mgmt() { self.addr2() } else { None };
        }
        match (fc.to_ds(), fc.from_ds()) {
            (_, false) => self.addr2(),
            (false, true) => self.addr3(),
            (true, true) => self.addr4(),
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Header<T> {
    pub fn set_frame_control(&mut self, fc: FrameControl) {
        self.buffer.as_mut()[field::FRAME_CONTROL].copy_from_slice(&fc.0.to_le_bytes());
    }
    pub fn set_duration_id(&mut self, v: u16) {
        self.buffer.as_mut()[field::DURATION_ID].copy_from_slice(&v.to_le_bytes());
    }
    pub fn set_addr1(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::ADDR1].copy_from_slice(&a.0);
    }
    pub fn set_addr2(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::ADDR2].copy_from_slice(&a.0);
    }
    pub fn set_addr3(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::ADDR3].copy_from_slice(&a.0);
    }
    pub fn set_seq_control(&mut self, sc: SeqControl) {
        self.buffer.as_mut()[field::SEQ_CTRL].copy_from_slice(&sc.0.to_le_bytes());
    }
    pub fn set_addr4(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::ADDR4].copy_from_slice(&a.0);
    }
    pub fn set_qos_control(&mut self, q: QosControl) {
        let o = self.qos_offset();
        self.buffer.as_mut()[o..o + 2].copy_from_slice(&q.0.to_le_bytes());
    }
    pub fn set_ht_control(&mut self, v: u32) {
        let fc = self.frame_control();
        if self.pre_ht && fc.is_qos_data() {
            return;
        }
        let o = if fc.is_mgmt() { 24 } else { self.qos_offset() + 2 };
        self.buffer.as_mut()[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }
    pub fn set_protected(&mut self, on: bool) {
        let fc = self.frame_control().with(fc::PROTECTED, on);
        self.set_frame_control(fc);
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let l = self.header_len();
        &mut self.buffer.as_mut()[l..]
    }
}

/// A received (or to-be-protected) MPDU whose MAC header (9.2.3) was checked once: the
/// buffer holds the whole header its Frame Control announces (current rules: Order in a
/// QoS data or management frame announces HT Control, 9.2.4.1.10). It carries what every
/// layer of the receive path reads (Frame Control, header length, Address 1 and 2, the QoS
/// TID) so that defragmentation, the security association and the cipher take it from
/// here instead of checking the header again; the other fields are read at fixed offsets
/// without a new check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mpdu<'a> {
    bytes: &'a [u8],
    fc: FrameControl,
    header_len: usize,
    addr1: MacAddr,
    addr2: Option<MacAddr>,
    tid: u8,
}

impl<'a> Mpdu<'a> {
    /// Checks the MAC header of `bytes` (Error::Truncated when shorter than the header its
    /// Frame Control announces; Error::Unsupported for a header not defined here).
    pub fn new_checked(bytes: &'a [u8]) -> Result<Mpdu<'a>> {
        #[cfg(test)]
        parse_count::bump();
        if bytes.len() < 2 {
            return Err(Error::Truncated);
        }
        let fc = FrameControl(u16::from_le_bytes([bytes[0], bytes[1]]));
        let header_len = fc.header_len()?;
        if bytes.len() < header_len {
            return Err(Error::Truncated);
        }
        let h = Header::new_unchecked(bytes);
        let tid = h.qos_control().map_or(0, |q| q.tid());
        let addr2 = (header_len >= 16).then(|| h.addr(field::ADDR2));
        Ok(Mpdu { bytes, fc, header_len, addr1: h.addr1(), addr2, tid })
    }

    /// The whole MPDU.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    pub fn frame_control(&self) -> FrameControl {
        self.fc
    }
    /// The header length under the current rules (see [`FrameControl::header_len`]).
    pub fn header_len(&self) -> usize {
        self.header_len
    }
    /// The header length for a pre-HT transmitter (at most [`Self::header_len`], so the
    /// check covers it too).
    pub fn header_len_for(&self, pre_ht: bool) -> usize {
        if pre_ht && self.fc.is_qos_data() && self.fc.order() {
            self.header_len - 4
        } else {
            self.header_len
        }
    }
    /// The checked header as a [`Header`] view (no new check).
    pub fn header(&self) -> Header<&'a [u8]> {
        Header::new_unchecked(self.bytes)
    }
    /// Address 1 (the receiver).
    pub fn addr1(&self) -> MacAddr {
        self.addr1
    }
    /// Address 2 (the transmitter); absent in CTS/ACK.
    pub fn addr2(&self) -> Option<MacAddr> {
        self.addr2
    }
    pub fn seq_control(&self) -> Option<SeqControl> {
        self.header().seq_control()
    }
    pub fn qos_control(&self) -> Option<QosControl> {
        self.header().qos_control()
    }
    /// The TID of a QoS data frame, else 0.
    pub fn tid(&self) -> u8 {
        self.tid
    }
    /// Destination and source address of the MSDU (Table 9-26).
    pub fn da(&self) -> Option<MacAddr> {
        self.header().da()
    }
    pub fn sa(&self) -> Option<MacAddr> {
        self.header().sa()
    }
    /// A fragment: More Fragments set or a fragment number above 0 (10.6).
    pub fn is_fragment(&self) -> bool {
        self.fc.more_fragments() || self.seq_control().is_some_and(|s| s.fragment() > 0)
    }
    /// Octets after the header (security header, body, trailer).
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[self.header_len..]
    }
}

/// How many MAC header checks ([`Mpdu::new_checked`], [`Header::check_len`] and the
/// ciphers' own) this thread has done: the unit tests count the checks along a frame's
/// path with it. Test builds only.
#[cfg(test)]
pub(crate) mod parse_count {
    use core::cell::Cell;
    thread_local! {
        static N: Cell<usize> = const { Cell::new(0) };
    }
    pub(crate) fn bump() {
        N.with(|n| n.set(n.get() + 1));
    }
    /// The count so far.
    pub(crate) fn get() -> usize {
        N.with(|n| n.get())
    }
}

/// Parsed MAC header. Fields that the Frame Control says are absent are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderRepr {
    pub frame_control: FrameControl,
    pub duration_id: u16,
    pub addr1: MacAddr,
    pub addr2: Option<MacAddr>,
    pub addr3: Option<MacAddr>,
    pub seq_control: Option<SeqControl>,
    pub addr4: Option<MacAddr>,
    pub qos_control: Option<QosControl>,
    pub ht_control: Option<u32>,
}

impl HeaderRepr {
    pub fn parse<T: AsRef<[u8]>>(h: &Header<T>) -> Result<HeaderRepr> {
        h.check_len()?;
        Ok(HeaderRepr {
            frame_control: h.frame_control(),
            duration_id: h.duration_id(),
            addr1: h.addr1(),
            addr2: h.addr2(),
            addr3: h.addr3(),
            seq_control: h.seq_control(),
            addr4: h.addr4(),
            qos_control: h.qos_control(),
            ht_control: h.ht_control(),
        })
    }

    /// Header length implied by the Frame Control.
    pub fn buffer_len(&self) -> Result<usize> {
        self.frame_control.header_len()
    }

    /// Checks that the optional fields agree with the Frame Control.
    fn check_consistent(&self) -> Result<()> {
        let fc = self.frame_control;
        let len = fc.header_len()?;
        let bad = |what| Err(Error::Malformed(what));
        if (len >= 16) != self.addr2.is_some() {
            return bad("Address 2 presence disagrees with Frame Control");
        }
        let has_a3 = fc.is_mgmt() || fc.is_data();
        if has_a3 != self.addr3.is_some() || has_a3 != self.seq_control.is_some() {
            return bad("Address 3/Sequence Control presence disagrees with Frame Control");
        }
        if fc.has_addr4() != self.addr4.is_some() {
            return bad("Address 4 presence disagrees with To DS/From DS");
        }
        if fc.is_qos_data() != self.qos_control.is_some() {
            return bad("QoS Control presence disagrees with subtype");
        }
        if fc.has_ht_control() != self.ht_control.is_some() {
            return bad("HT Control presence disagrees with Order bit");
        }
        Ok(())
    }

    /// Writes the header into the start of `buf` (which must be at least `buffer_len()`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut Header<T>) -> Result<()> {
        self.check_consistent()?;
        let len = self.buffer_len()?;
        if h.buffer.as_ref().len() < len {
            return Err(Error::Truncated);
        }
        h.set_frame_control(self.frame_control);
        h.set_duration_id(self.duration_id);
        h.set_addr1(self.addr1);
        if let Some(a) = self.addr2 {
            h.set_addr2(a)
        }
        if let Some(a) = self.addr3 {
            h.set_addr3(a)
        }
        if let Some(s) = self.seq_control {
            h.set_seq_control(s)
        }
        if let Some(a) = self.addr4 {
            h.set_addr4(a)
        }
        if let Some(q) = self.qos_control {
            h.set_qos_control(q)
        }
        if let Some(v) = self.ht_control {
            h.set_ht_control(v)
        }
        Ok(())
    }

    /// Emits into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()?];
        self.emit(&mut Header::new_unchecked(&mut v[..]))?;
        Ok(v)
    }

    /// QoS TID (priority) of a QoS data frame, else 0.
    pub fn tid(&self) -> u8 {
        self.qos_control.map(|q| q.tid()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    // P802.11i/D7.0 CCMP MPDU 3: QoS data, Retry, Protected, Order; not an HT frame in 2003, so
    // this header is 26 bytes and Order does *not* mean HT Control there. Under the current
    // standard Order=1 in a QoS data frame announces HT Control.
    #[test]
    fn data_header_fields() {
        // MPDU 1 (IEEE 802.11-2012 M.6.4): FC 0848 = data, Retry, Protected, no DS bits.
        let b = h("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033");
        let hd = Header::new_checked(&b[..]).unwrap();
        let fc = hd.frame_control();
        assert_eq!(fc.frame_type(), FrameType::Data);
        assert_eq!(fc.subtype(), 0);
        assert!(fc.retry() && fc.protected() && !fc.to_ds() && !fc.from_ds());
        assert_eq!(hd.header_len(), 24);
        assert_eq!(hd.duration_id(), 0x2cc3);
        assert_eq!(hd.addr1(), MacAddr([0x0f, 0xd2, 0xe1, 0x28, 0xa5, 0x7c]));
        assert_eq!(hd.addr2().unwrap(), MacAddr([0x50, 0x30, 0xf1, 0x84, 0x44, 0x08]));
        assert_eq!(hd.addr3().unwrap(), MacAddr([0xab, 0xae, 0xa5, 0xb8, 0xfc, 0xba]));
        assert_eq!(hd.seq_control().unwrap(), SeqControl(0x3380));
        assert_eq!(hd.seq_control().unwrap().sequence(), 0x338);
        assert_eq!(hd.seq_control().unwrap().fragment(), 0);
        assert_eq!(hd.qos_control(), None);
        assert_eq!(hd.addr4(), None);
    }

    #[test]
    fn four_address_qos_header() {
        // hostap GCMP MPDU #2: FC 8848 = QoS data, Retry, Protected; QoS control 0003 (TID 3).
        let b = h("88480b000fd2e128a57c5030f18444085030f184440880330300");
        let hd = Header::new_checked(&b[..]).unwrap();
        assert_eq!(hd.header_len(), 26);
        assert_eq!(hd.qos_control().unwrap().tid(), 3);
        // Turn it into a 4-address frame with HT Control and check the layout.
        let repr = HeaderRepr {
            frame_control: FrameControl(0x4b88 | fc::ORDER),
            addr4: Some(MacAddr([1, 2, 3, 4, 5, 6])),
            ht_control: Some(0xdeadbeef),
            ..HeaderRepr::parse(&hd).unwrap()
        };
        let v = repr.to_vec().unwrap();
        assert_eq!(v.len(), 24 + 6 + 2 + 4);
        assert_eq!(&v[24..30], &[1, 2, 3, 4, 5, 6]);
        assert_eq!(&v[30..32], &[3, 0]);
        assert_eq!(&v[32..36], &0xdeadbeefu32.to_le_bytes());
        let p = HeaderRepr::parse(&Header::new_checked(&v[..]).unwrap()).unwrap();
        assert_eq!(p, repr);
        let hv = Header::new_checked(&v[..]).unwrap();
        // To DS + From DS: DA = A3, SA = A4.
        assert_eq!(hv.da(), hv.addr3());
        assert_eq!(hv.sa(), Some(MacAddr([1, 2, 3, 4, 5, 6])));
    }

    #[test]
    fn da_sa_per_ds_bits() {
        let a1 = MacAddr([1; 6]);
        let a2 = MacAddr([2; 6]);
        let a3 = MacAddr([3; 6]);
        for (ds, da, sa) in [(0u16, a1, a2), (fc::TO_DS, a3, a2), (fc::FROM_DS, a1, a3)] {
            let repr = HeaderRepr {
                frame_control: FrameControl(FrameControl::new(FrameType::Data, 0).0 | ds),
                duration_id: 0,
                addr1: a1,
                addr2: Some(a2),
                addr3: Some(a3),
                seq_control: Some(SeqControl::new(1, 0)),
                addr4: None,
                qos_control: None,
                ht_control: None,
            };
            let v = repr.to_vec().unwrap();
            let hd = Header::new_checked(&v[..]).unwrap();
            assert_eq!(hd.da(), Some(da));
            assert_eq!(hd.sa(), Some(sa));
        }
    }

    #[test]
    fn header_lengths() {
        let mgmt = FrameControl::new(FrameType::Management, mgmt_subtype::DEAUTH);
        assert_eq!(mgmt.header_len().unwrap(), 24);
        assert_eq!(mgmt.with(fc::ORDER, true).header_len().unwrap(), 28);
        let ack = FrameControl::new(FrameType::Control, ctrl_subtype::ACK);
        assert_eq!(ack.header_len().unwrap(), 10);
        let rts = FrameControl::new(FrameType::Control, 11);
        assert_eq!(rts.header_len().unwrap(), 16);
        let data = FrameControl::new(FrameType::Data, 0);
        // Order in a non-QoS data frame is StrictlyOrdered, not HT Control.
        assert_eq!(data.with(fc::ORDER, true).header_len().unwrap(), 24);
        let qos = FrameControl::new(FrameType::Data, 8);
        assert_eq!(qos.header_len().unwrap(), 26);
        assert_eq!(qos.with(fc::ORDER, true).header_len().unwrap(), 30);
        let wds = qos.with(fc::TO_DS, true).with(fc::FROM_DS, true).with(fc::ORDER, true);
        assert_eq!(wds.header_len().unwrap(), 36);
        assert!(FrameControl(0x0001).header_len().is_err());
        assert!(FrameControl::new(FrameType::Extension, 0).header_len().is_err());
    }

    #[test]
    fn truncated_headers_are_errors() {
        let b = h("88480b000fd2e128a57c5030f18444085030f184440880330300");
        for n in 0..b.len() {
            assert!(Header::new_checked(&b[..n]).is_err(), "len {n}");
        }
        let ack = [0xd4u8, 0, 0, 0, 1, 2, 3, 4, 5, 6];
        let hd = Header::new_checked(&ack[..]).unwrap();
        assert_eq!(hd.addr2(), None);
        assert_eq!(hd.seq_control(), None);
        assert_eq!(hd.da(), None);
    }

    #[test]
    fn emit_rejects_inconsistent_repr() {
        let repr = HeaderRepr {
            frame_control: FrameControl::new(FrameType::Data, 8),
            duration_id: 0,
            addr1: MacAddr([0; 6]),
            addr2: Some(MacAddr([0; 6])),
            addr3: Some(MacAddr([0; 6])),
            seq_control: Some(SeqControl(0)),
            addr4: None,
            qos_control: None, // QoS subtype but no QoS Control
            ht_control: None,
        };
        assert!(matches!(repr.to_vec(), Err(Error::Malformed(_))));
    }

    #[test]
    fn mac_addr_text_forms() {
        // The AP of aircrack-ng's wep.shared.key.authentication.cap (tshark: 00:14:6c:7e:40:80).
        let a = MacAddr([0x00, 0x14, 0x6c, 0x7e, 0x40, 0x80]);
        assert_eq!(a.to_string(), "00:14:6c:7e:40:80");
        assert_eq!(format!("{a:?}"), "00:14:6c:7e:40:80");
        assert_eq!(format!("{:?}", Some(a)), "Some(00:14:6c:7e:40:80)");
        for s in ["00:14:6c:7e:40:80", "00-14-6C-7E-40-80", "00146c7e4080", "00:14-6c:7e-40:80"] {
            assert_eq!(s.parse::<MacAddr>(), Ok(a), "{s}");
        }
        for s in [
            "",
            "00:14:6c:7e:40",
            "00:14:6c:7e:40:8",
            "00:14:6c:7e:40:80:",
            "00146c7e40800",
            "zz146c7e4080",
            "00:146c:7e:40:80",
            "+0:14:6c:7e:40:80",
            "00 14 6c 7e 40 80",
            "00:14:6c:7e:40:8é",
        ] {
            assert_eq!(s.parse::<MacAddr>(), Err(ParseMacAddrError), "{s:?}");
        }
        assert_eq!(ParseMacAddrError.to_string(), "a MAC address is aa:bb:cc:dd:ee:ff or 12 hex digits");
        assert_eq!(MacAddr::BROADCAST.to_string(), "ff:ff:ff:ff:ff:ff");
        assert_eq!(MacAddr::default().to_string(), "00:00:00:00:00:00");
    }

    #[test]
    fn mac_addr_bits_and_bytes() {
        assert!(MacAddr::BROADCAST.is_group() && MacAddr::BROADCAST.is_broadcast());
        // IPv6 all-nodes multicast 33:33:00:00:00:01: group, not broadcast.
        let m = MacAddr([0x33, 0x33, 0, 0, 0, 1]);
        assert!(m.is_group() && !m.is_broadcast() && !m.is_individual());
        let u = MacAddr([0x02, 0, 0, 0, 0, 1]);
        assert!(u.is_individual() && !u.is_group());
        assert_eq!(MacAddr::from_bytes(&[2, 0, 0, 0, 0, 1]), Ok(u));
        assert_eq!(MacAddr::from_bytes(&[2, 0, 0, 0, 0]), Err(Error::Truncated));
        assert!(matches!(MacAddr::from_bytes(&[0; 7]), Err(Error::Malformed(_))));
        assert_eq!(u.as_ref(), &[2, 0, 0, 0, 0, 1]);
        assert_eq!(<[u8; 6]>::from(u), *u.as_bytes());
        assert_eq!(MacAddr::from([2, 0, 0, 0, 0, 1]), u);
        // Ordered as the octets: a BTreeMap of stations keeps the array order.
        assert!(MacAddr([0, 0, 0, 0, 0, 2]) < MacAddr([0, 0, 0, 0, 1, 0]));
    }
}
