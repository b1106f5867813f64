//! RADIUS packets and attributes (RFC 2865 3 and 5), as a zero-copy view and a builder.
//!
//! ```text
//! Code (1) | Identifier (1) | Length (2, BE) | Authenticator (16) | Attributes ...
//! Attribute: Type (1) | Length (1, type and length octets included) | Value (Length - 2)
//! Vendor-Specific (26): Vendor-Id (4, BE) | Vendor-Type (1) | Vendor-Length (1) | Value
//! ```
//!
//! Octets beyond the Length field are padding and never read (RFC 2865 3); a Length below
//! 20 or above 4096, or longer than the datagram, makes the packet malformed, as does an
//! attribute whose Length runs past the end or is below 2 (the receiver silently discards
//! such a packet, RFC 2865 3 and 5).
use crate::error::{Error, Result};

/// Octets before the attributes.
pub const HEADER_LEN: usize = 20;
/// The largest packet (RFC 2865 3).
pub const MAX_LEN: usize = 4096;
/// The largest attribute value (Length is one octet and counts the two header octets).
pub const MAX_VALUE_LEN: usize = 253;

/// RADIUS Code (RFC 2865 3, RFC 2866 3, RFC 5997).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    AccessRequest,
    AccessAccept,
    AccessReject,
    AccountingRequest,
    AccountingResponse,
    AccessChallenge,
    StatusServer,
    Other(u8),
}

impl Code {
    pub fn number(self) -> u8 {
        match self {
            Code::AccessRequest => 1,
            Code::AccessAccept => 2,
            Code::AccessReject => 3,
            Code::AccountingRequest => 4,
            Code::AccountingResponse => 5,
            Code::AccessChallenge => 11,
            Code::StatusServer => 12,
            Code::Other(n) => n,
        }
    }
    pub fn from_number(n: u8) -> Code {
        match n {
            1 => Code::AccessRequest,
            2 => Code::AccessAccept,
            3 => Code::AccessReject,
            4 => Code::AccountingRequest,
            5 => Code::AccountingResponse,
            11 => Code::AccessChallenge,
            12 => Code::StatusServer,
            n => Code::Other(n),
        }
    }
    /// The name RFC 2865 gives the code.
    pub fn name(self) -> &'static str {
        match self {
            Code::AccessRequest => "Access-Request",
            Code::AccessAccept => "Access-Accept",
            Code::AccessReject => "Access-Reject",
            Code::AccountingRequest => "Accounting-Request",
            Code::AccountingResponse => "Accounting-Response",
            Code::AccessChallenge => "Access-Challenge",
            Code::StatusServer => "Status-Server",
            Code::Other(_) => "unknown code",
        }
    }
}

/// Attribute types (RFC 2865 5, RFC 2866 5, RFC 2869 5, RFC 3579 3, RFC 3580 3, RFC 7268).
pub mod attr {
    pub const USER_NAME: u8 = 1;
    pub const USER_PASSWORD: u8 = 2;
    pub const NAS_IP_ADDRESS: u8 = 4;
    pub const NAS_PORT: u8 = 5;
    pub const SERVICE_TYPE: u8 = 6;
    pub const FRAMED_MTU: u8 = 12;
    pub const REPLY_MESSAGE: u8 = 18;
    pub const STATE: u8 = 24;
    pub const CLASS: u8 = 25;
    pub const VENDOR_SPECIFIC: u8 = 26;
    pub const SESSION_TIMEOUT: u8 = 27;
    pub const TERMINATION_ACTION: u8 = 29;
    pub const CALLED_STATION_ID: u8 = 30;
    pub const CALLING_STATION_ID: u8 = 31;
    pub const NAS_IDENTIFIER: u8 = 32;
    pub const ACCT_STATUS_TYPE: u8 = 40;
    pub const ACCT_DELAY_TIME: u8 = 41;
    pub const ACCT_INPUT_OCTETS: u8 = 42;
    pub const ACCT_OUTPUT_OCTETS: u8 = 43;
    pub const ACCT_SESSION_ID: u8 = 44;
    pub const ACCT_AUTHENTIC: u8 = 45;
    pub const ACCT_SESSION_TIME: u8 = 46;
    pub const ACCT_INPUT_PACKETS: u8 = 47;
    pub const ACCT_OUTPUT_PACKETS: u8 = 48;
    pub const ACCT_TERMINATE_CAUSE: u8 = 49;
    pub const ACCT_MULTI_SESSION_ID: u8 = 50;
    pub const ACCT_INPUT_GIGAWORDS: u8 = 52;
    pub const ACCT_OUTPUT_GIGAWORDS: u8 = 53;
    pub const EVENT_TIMESTAMP: u8 = 55;
    pub const NAS_PORT_TYPE: u8 = 61;
    pub const CONNECT_INFO: u8 = 77;
    pub const EAP_MESSAGE: u8 = 79;
    pub const MESSAGE_AUTHENTICATOR: u8 = 80;
    pub const ACCT_INTERIM_INTERVAL: u8 = 85;
    pub const NAS_PORT_ID: u8 = 87;
    pub const CHARGEABLE_USER_IDENTITY: u8 = 89;
    pub const NAS_IPV6_ADDRESS: u8 = 95;
    pub const WLAN_PAIRWISE_CIPHER: u8 = 186;
    pub const WLAN_GROUP_CIPHER: u8 = 187;
    pub const WLAN_AKM_SUITE: u8 = 188;
    pub const WLAN_GROUP_MGMT_CIPHER: u8 = 189;

    /// Service-Type Framed (RFC 2865 5.6), what an 802.1X authenticator sends (RFC 3580 3.17).
    pub const SERVICE_TYPE_FRAMED: u32 = 2;
    /// NAS-Port-Type Wireless - IEEE 802.11 (RFC 2865 5.41, RFC 3580 3.4).
    pub const NAS_PORT_TYPE_WIRELESS_80211: u32 = 19;
    /// Termination-Action RADIUS-Request: reauthenticate at Session-Timeout (RFC 3580 3.19).
    pub const TERMINATION_ACTION_RADIUS_REQUEST: u32 = 1;
    /// The Microsoft vendor (SMI Network Management Private Enterprise Code 311, RFC 2548).
    pub const VENDOR_MICROSOFT: u32 = 311;
    /// MS-MPPE-Send-Key (RFC 2548 2.4.2): the second 32 octets of the MSK (RFC 3748 / 5216).
    pub const MS_MPPE_SEND_KEY: u8 = 16;
    /// MS-MPPE-Recv-Key (RFC 2548 2.4.3): the first 32 octets of the MSK, the authenticator's PMK.
    pub const MS_MPPE_RECV_KEY: u8 = 17;
}

/// Acct-Status-Type values (RFC 2866 5.1, RFC 2869 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcctStatus {
    Start = 1,
    Stop = 2,
    InterimUpdate = 3,
    AccountingOn = 7,
    AccountingOff = 8,
}

/// Acct-Terminate-Cause values (RFC 2866 5.10, RFC 3580 3.23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminateCause {
    UserRequest = 1,
    LostCarrier = 2,
    IdleTimeout = 4,
    SessionTimeout = 5,
    AdminReset = 6,
    AdminReboot = 7,
    NasRequest = 10,
    NasReboot = 11,
    SupplicantRestart = 19,
    ReauthenticationFailure = 20,
}

/// A Vendor-Specific attribute's Vendor-Id and its (Vendor-Type, value) sub-attributes.
pub type VendorAttrs<'a> = (u32, Vec<(u8, &'a [u8])>);

/// One attribute: its type and value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr<'a> {
    pub typ: u8,
    pub value: &'a [u8],
}

impl<'a> Attr<'a> {
    /// A 4-octet integer value (RFC 2865 5: "integer").
    pub fn u32(&self) -> Result<u32> {
        let b: [u8; 4] = self.value.try_into().map_err(|_| Error::Malformed("RADIUS integer attribute not 4 octets"))?;
        Ok(u32::from_be_bytes(b))
    }
    /// Vendor-Specific (RFC 2865 5.26) in the recommended format: the Vendor-Id and each
    /// (Vendor-Type, value) sub-attribute.
    pub fn vendor(&self) -> Result<VendorAttrs<'a>> {
        if self.typ != attr::VENDOR_SPECIFIC {
            return Err(Error::Malformed("not a Vendor-Specific attribute"));
        }
        if self.value.len() < 4 {
            return Err(Error::Truncated);
        }
        let vendor = u32::from_be_bytes([self.value[0], self.value[1], self.value[2], self.value[3]]);
        let mut subs = Vec::new();
        let mut rest = &self.value[4..];
        while !rest.is_empty() {
            if rest.len() < 2 || (rest[1] as usize) < 2 || rest[1] as usize > rest.len() {
                return Err(Error::Malformed("Vendor-Specific sub-attribute length"));
            }
            let l = rest[1] as usize;
            subs.push((rest[0], &rest[2..l]));
            rest = &rest[l..];
        }
        Ok((vendor, subs))
    }
}

/// Iterates the attributes of a packet; an error ends the walk (the packet is malformed).
pub struct Attrs<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Attrs<'a> {
    pub fn new(attributes: &'a [u8]) -> Attrs<'a> {
        Attrs { rest: attributes, failed: false }
    }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Result<Attr<'a>>;
    fn next(&mut self) -> Option<Result<Attr<'a>>> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        if self.rest.len() < 2 {
            self.failed = true;
            return Some(Err(Error::Truncated));
        }
        let l = self.rest[1] as usize;
        if l < 2 || l > self.rest.len() {
            self.failed = true;
            return Some(Err(Error::Malformed("RADIUS attribute length")));
        }
        let a = Attr { typ: self.rest[0], value: &self.rest[2..l] };
        self.rest = &self.rest[l..];
        Some(Ok(a))
    }
}

/// A RADIUS packet in a buffer (the datagram as received or as built).
#[derive(Debug, Clone)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    pub fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// The packet, with its Length and every attribute's length checked.
    pub fn new_checked(buffer: T) -> Result<Packet<T>> {
        let p = Packet { buffer };
        p.check_len()?;
        Ok(p)
    }

    /// RFC 2865 3: Length within 20..=4096 and within the datagram; attributes well formed.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let l = u16::from_be_bytes([b[2], b[3]]) as usize;
        if !(HEADER_LEN..=MAX_LEN).contains(&l) {
            return Err(Error::Malformed("RADIUS Length outside 20..4096"));
        }
        if l > b.len() {
            return Err(Error::Truncated);
        }
        for a in self.attributes() {
            a?;
        }
        Ok(())
    }

    pub fn code(&self) -> Code {
        Code::from_number(self.buffer.as_ref()[0])
    }
    pub fn identifier(&self) -> u8 {
        self.buffer.as_ref()[1]
    }
    pub fn length(&self) -> usize {
        let b = self.buffer.as_ref();
        u16::from_be_bytes([b[2], b[3]]) as usize
    }
    pub fn authenticator(&self) -> [u8; 16] {
        let mut a = [0u8; 16];
        a.copy_from_slice(&self.buffer.as_ref()[4..20]);
        a
    }
    /// The packet's octets up to Length (without padding).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.length()]
    }
    pub fn attributes(&self) -> Attrs<'_> {
        let b = self.buffer.as_ref();
        let l = u16::from_be_bytes([b[2], b[3]]) as usize;
        Attrs::new(&b[HEADER_LEN..l.min(b.len()).max(HEADER_LEN)])
    }
    /// The first attribute of this type.
    pub fn find(&self, typ: u8) -> Option<Attr<'_>> {
        self.attributes().filter_map(|a| a.ok()).find(|a| a.typ == typ)
    }
    /// How many attributes of this type.
    pub fn count(&self, typ: u8) -> usize {
        self.attributes().filter_map(|a| a.ok()).filter(|a| a.typ == typ).count()
    }
    /// The EAP packet carried in the EAP-Message attributes, concatenated in order (RFC 3579
    /// 3.1); `None` without any.
    pub fn eap_message(&self) -> Option<Vec<u8>> {
        let mut out: Option<Vec<u8>> = None;
        for a in self.attributes().filter_map(|a| a.ok()).filter(|a| a.typ == attr::EAP_MESSAGE) {
            out.get_or_insert_with(Vec::new).extend_from_slice(a.value);
        }
        out
    }
    /// The sub-attribute `vtype` of vendor `vendor`'s Vendor-Specific attributes.
    pub fn find_vendor(&self, vendor: u32, vtype: u8) -> Option<&[u8]> {
        for a in self.attributes().filter_map(|a| a.ok()).filter(|a| a.typ == attr::VENDOR_SPECIFIC) {
            if let Ok((v, subs)) = a.vendor() {
                if v == vendor {
                    if let Some((_, val)) = subs.into_iter().find(|(t, _)| *t == vtype) {
                        return Some(val);
                    }
                }
            }
        }
        None
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
}

/// Builds a packet: the header, then attributes in order; [`Builder::finish`] sets Length.
/// The authenticators and the Message-Authenticator are filled by [`super::auth`].
#[derive(Debug, Clone)]
pub struct Builder {
    buf: Vec<u8>,
}

impl Builder {
    pub fn new(code: Code, identifier: u8, authenticator: [u8; 16]) -> Builder {
        let mut buf = Vec::with_capacity(256);
        buf.extend_from_slice(&[code.number(), identifier, 0, 0]);
        buf.extend_from_slice(&authenticator);
        Builder { buf }
    }

    fn room(&self, n: usize) -> Result<()> {
        if self.buf.len() + n > MAX_LEN {
            return Err(Error::Oversize);
        }
        Ok(())
    }

    /// One attribute; its value at most 253 octets and the packet at most 4096.
    pub fn add(&mut self, typ: u8, value: &[u8]) -> Result<&mut Builder> {
        if value.len() > MAX_VALUE_LEN {
            return Err(Error::Oversize);
        }
        self.room(value.len() + 2)?;
        self.buf.push(typ);
        self.buf.push((value.len() + 2) as u8);
        self.buf.extend_from_slice(value);
        Ok(self)
    }

    pub fn add_u32(&mut self, typ: u8, v: u32) -> Result<&mut Builder> {
        self.add(typ, &v.to_be_bytes())
    }

    /// A value longer than one attribute holds, split over consecutive attributes of the
    /// same type (EAP-Message, RFC 3579 3.1).
    pub fn add_split(&mut self, typ: u8, value: &[u8]) -> Result<&mut Builder> {
        if value.is_empty() {
            return self.add(typ, value);
        }
        for c in value.chunks(MAX_VALUE_LEN) {
            self.add(typ, c)?;
        }
        Ok(self)
    }

    /// A Vendor-Specific attribute with one sub-attribute (RFC 2865 5.26).
    pub fn add_vendor(&mut self, vendor: u32, vtype: u8, value: &[u8]) -> Result<&mut Builder> {
        if value.len() > MAX_VALUE_LEN - 6 {
            return Err(Error::Oversize);
        }
        let mut v = Vec::with_capacity(value.len() + 6);
        v.extend_from_slice(&vendor.to_be_bytes());
        v.push(vtype);
        v.push((value.len() + 2) as u8);
        v.extend_from_slice(value);
        self.add(attr::VENDOR_SPECIFIC, &v)
    }

    /// A zero Message-Authenticator (RFC 3579 3.2), filled in when the packet is signed.
    pub fn add_message_authenticator(&mut self) -> Result<&mut Builder> {
        self.add(attr::MESSAGE_AUTHENTICATOR, &[0u8; 16])
    }

    /// The packet with its Length set.
    pub fn finish(mut self) -> Vec<u8> {
        let l = self.buf.len() as u16;
        self.buf[2..4].copy_from_slice(&l.to_be_bytes());
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_lengths() {
        let mut p = vec![1u8, 0, 0, 20];
        p.extend_from_slice(&[0; 16]);
        assert!(Packet::new_checked(&p[..]).is_ok());
        assert_eq!(Packet::new_checked(&p[..19]).unwrap_err(), Error::Truncated);
        p[3] = 19;
        assert!(Packet::new_checked(&p[..]).is_err());
        p[3] = 22;
        assert_eq!(Packet::new_checked(&p[..]).unwrap_err(), Error::Truncated);
        p.extend_from_slice(&[1, 1]);
        assert!(Packet::new_checked(&p[..]).is_err(), "attribute length 1");
        let l = p.len();
        p[l - 1] = 3;
        assert!(Packet::new_checked(&p[..]).is_err(), "attribute past the end");
        p[l - 1] = 2;
        assert!(Packet::new_checked(&p[..]).is_ok());
        // Padding beyond Length is accepted and not read.
        p.extend_from_slice(&[0xff; 3]);
        let pk = Packet::new_checked(&p[..]).unwrap();
        assert_eq!(pk.attributes().count(), 1);
        p[2] = 0x10;
        p[3] = 1;
        assert!(Packet::new_checked(&p[..]).is_err(), "Length above 4096");
    }

    #[test]
    fn eap_message_splits_and_joins() {
        let eap: Vec<u8> = (0..600u32).map(|i| i as u8).collect();
        let mut b = Builder::new(Code::AccessRequest, 7, [0; 16]);
        b.add_split(attr::EAP_MESSAGE, &eap).unwrap();
        b.add(attr::USER_NAME, b"u").unwrap();
        let p = b.finish();
        let pk = Packet::new_checked(&p[..]).unwrap();
        assert_eq!(pk.count(attr::EAP_MESSAGE), 3);
        assert_eq!(pk.eap_message().unwrap(), eap);
        assert_eq!(pk.find(attr::USER_NAME).unwrap().value, b"u");
    }

    #[test]
    fn builder_refuses_oversize() {
        let mut b = Builder::new(Code::AccessRequest, 0, [0; 16]);
        assert_eq!(b.add(1, &[0; 254]).unwrap_err(), Error::Oversize);
        let big = vec![0u8; 4096];
        assert_eq!(b.add_split(attr::EAP_MESSAGE, &big).unwrap_err(), Error::Oversize);
    }

    #[test]
    fn vendor_specific_round_trip() {
        let mut b = Builder::new(Code::AccessAccept, 0, [0; 16]);
        b.add_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_RECV_KEY, &[9; 34]).unwrap();
        let p = b.finish();
        let pk = Packet::new_checked(&p[..]).unwrap();
        assert_eq!(pk.find_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_RECV_KEY).unwrap(), &[9; 34][..]);
        assert!(pk.find_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_SEND_KEY).is_none());
        assert!(pk.find_vendor(9, attr::MS_MPPE_RECV_KEY).is_none());
    }
}
