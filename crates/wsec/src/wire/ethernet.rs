//! EtherTypes and the Ethernet II frame.
//!
//! An MSDU carries its EtherType in the LLC/SNAP header ([`crate::wire::llc`], IEEE 802.11-2020
//! 5.1.4 and Annex M); an Ethernet II frame (IEEE Std 802.3-2018 3.1.1, the Length/Type field
//! holding a type) is what a TAP device reads and writes on the host side of an AP or STA.
use crate::error::{Error, Result};
use crate::wire::mac::MacAddr;

/// An EtherType (IEEE Std 802-2014 clause 9; values registered by the IEEE RA),
/// big-endian on the wire.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EtherType(pub u16);

impl EtherType {
    pub const IPV4: EtherType = EtherType(0x0800);
    pub const ARP: EtherType = EtherType(0x0806);
    /// IEEE 802.1Q VLAN tag.
    pub const VLAN: EtherType = EtherType(0x8100);
    pub const IPV6: EtherType = EtherType(0x86dd);
    /// IEEE 802.1X EAPOL: the 4-way and group key handshakes (12.7) ride on it.
    pub const EAPOL: EtherType = EtherType(0x888e);
    /// RSN pre-authentication (12.6.10.2): EAPOL frames to a target AP through the DS.
    pub const RSN_PREAUTH: EtherType = EtherType(0x88c7);
    /// IEEE 802.11 data encapsulation (89-0D): TDLS Action frames (11.20) and FT Remote
    /// Request/Response frames travel in data frames with this type.
    pub const TDLS: EtherType = EtherType(0x890d);

    /// The smallest Length/Type value that is a type (IEEE Std 802.3-2018 3.2.6): below it
    /// the field of an 802.3 frame is a length.
    pub const MIN_TYPE: u16 = 0x0600;
}

impl From<u16> for EtherType {
    fn from(v: u16) -> EtherType {
        EtherType(v)
    }
}

impl core::fmt::Debug for EtherType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "EtherType({:#06x})", self.0)
    }
}

impl core::fmt::Display for EtherType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:#06x}", self.0)
    }
}

/// Byte ranges of the Ethernet II header.
pub mod field {
    pub const DESTINATION: core::ops::Range<usize> = 0..6;
    pub const SOURCE: core::ops::Range<usize> = 6..12;
    pub const ETHERTYPE: core::ops::Range<usize> = 12..14;
    pub const PAYLOAD: core::ops::RangeFrom<usize> = 14..;
}

/// Zero-copy view of an Ethernet II frame (no FCS: what a TAP device hands over).
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }

    /// Checks that the 14-octet header is there.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < EthernetRepr::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(EthernetFrame { buffer })
    }

    pub fn dst(&self) -> MacAddr {
        let b = &self.buffer.as_ref()[field::DESTINATION];
        MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    pub fn src(&self) -> MacAddr {
        let b = &self.buffer.as_ref()[field::SOURCE];
        MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    /// The Length/Type field.
    pub fn ethertype(&self) -> EtherType {
        let b = &self.buffer.as_ref()[field::ETHERTYPE];
        EtherType(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }
}

/// The header of an Ethernet II frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetRepr {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub ethertype: EtherType,
}

impl EthernetRepr {
    pub const HEADER_LEN: usize = 14;

    /// Parses the header; an 802.3 frame (Length/Type below 0x0600, a length) is
    /// Error::Unsupported.
    pub fn parse<T: AsRef<[u8]>>(f: &EthernetFrame<T>) -> Result<EthernetRepr> {
        if f.buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        let ethertype = f.ethertype();
        if ethertype.0 < EtherType::MIN_TYPE {
            return Err(Error::Unsupported("802.3 length field instead of an EtherType"));
        }
        Ok(EthernetRepr { dst: f.dst(), src: f.src(), ethertype })
    }

    /// Writes the header into the first 14 octets of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = buf.get_mut(..Self::HEADER_LEN).ok_or(Error::Truncated)?;
        b[field::DESTINATION].copy_from_slice(self.dst.as_bytes());
        b[field::SOURCE].copy_from_slice(self.src.as_bytes());
        b[field::ETHERTYPE].copy_from_slice(&self.ethertype.0.to_be_bytes());
        Ok(())
    }

    /// The whole frame: this header, then `payload`.
    pub fn to_vec(&self, payload: &[u8]) -> Vec<u8> {
        let mut v = vec![0u8; Self::HEADER_LEN];
        v.reserve(payload.len());
        // The buffer is HEADER_LEN long: emit cannot fail.
        let _ = self.emit(&mut v);
        v.extend_from_slice(payload);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ethernet_ii_arp() {
        // An ARP request as Linux puts it on a TAP: broadcast, from 02:00:00:00:00:11, type 0806.
        let f = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x11, 0x08, 0x06, 0x00, 0x01];
        let v = EthernetFrame::new_checked(&f[..]).unwrap();
        let r = EthernetRepr::parse(&v).unwrap();
        assert_eq!(r, EthernetRepr { dst: MacAddr::BROADCAST, src: MacAddr([2, 0, 0, 0, 0, 0x11]), ethertype: EtherType::ARP });
        assert_eq!(v.payload(), [0x00, 0x01]);
        assert_eq!(r.to_vec(&[0x00, 0x01]), f);
        assert_eq!(EthernetFrame::new_checked(&f[..13]).err(), Some(Error::Truncated));
        // 802.3 with a length of 46 in the Length/Type field.
        let mut l = f;
        l[12..14].copy_from_slice(&46u16.to_be_bytes());
        assert!(matches!(EthernetRepr::parse(&EthernetFrame::new_unchecked(&l[..])), Err(Error::Unsupported(_))));
        assert_eq!(format!("{:?} {}", EtherType::EAPOL, EtherType::TDLS), "EtherType(0x888e) 0x890d");
    }
}
