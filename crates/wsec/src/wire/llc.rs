//! LLC/SNAP header of an MSDU carried in an 802.11 data frame (IEEE 802.2 with the
//! RFC 1042 / 802.1H SNAP encapsulation; 802.11-2020 5.1.4 and Annex M).
use crate::error::{Error, Result};
use crate::wire::ethernet::EtherType;

/// OUI of RFC 1042 encapsulation.
pub const OUI_RFC1042: [u8; 3] = [0, 0, 0];
/// OUI of 802.1H bridge tunnel (used for AppleTalk AARP and IPX by old bridges).
pub const OUI_BRIDGE_TUNNEL: [u8; 3] = [0, 0, 0xf8];

/// Byte ranges of the 8-octet LLC/SNAP header.
pub mod field {
    pub const DSAP: usize = 0;
    pub const SSAP: usize = 1;
    pub const CONTROL: usize = 2;
    pub const OUI: core::ops::Range<usize> = 3..6;
    pub const ETHERTYPE: core::ops::Range<usize> = 6..8;
    pub const PAYLOAD: core::ops::RangeFrom<usize> = 8..;
}

/// Zero-copy view of an LLC/SNAP-encapsulated MSDU.
#[derive(Debug, Clone)]
pub struct Snap<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Snap<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        Snap { buffer }
    }
    /// Checks the length and the AA-AA-03 SNAP signature.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < 8 {
            return Err(Error::Truncated);
        }
        if b[field::DSAP] != 0xaa || b[field::SSAP] != 0xaa || b[field::CONTROL] != 0x03 {
            return Err(Error::Malformed("not an LLC/SNAP header"));
        }
        Ok(Snap { buffer })
    }
    pub fn oui(&self) -> [u8; 3] {
        let b = &self.buffer.as_ref()[field::OUI];
        [b[0], b[1], b[2]]
    }
    pub fn ethertype(&self) -> EtherType {
        let b = &self.buffer.as_ref()[field::ETHERTYPE];
        EtherType(u16::from_be_bytes([b[0], b[1]]))
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }
}

impl<'a> Snap<&'a [u8]> {
    /// The payload, borrowed for as long as the buffer is.
    pub fn into_payload(self) -> &'a [u8] {
        &self.buffer[field::PAYLOAD]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapRepr {
    pub oui: [u8; 3],
    pub ethertype: EtherType,
}

impl SnapRepr {
    pub const LEN: usize = 8;
    pub fn parse<T: AsRef<[u8]>>(s: &Snap<T>) -> SnapRepr {
        SnapRepr { oui: s.oui(), ethertype: s.ethertype() }
    }
    pub fn emit(&self, b: &mut [u8]) -> Result<()> {
        if b.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        b[..3].copy_from_slice(&[0xaa, 0xaa, 0x03]);
        b[field::OUI].copy_from_slice(&self.oui);
        b[field::ETHERTYPE].copy_from_slice(&self.ethertype.0.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snap_ipv4() {
        // The plaintext of the aircrack-ng CCMP capture frame: aaaa030000000800 4500...
        let b = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00, 0x45, 0x00];
        let s = Snap::new_checked(&b[..]).unwrap();
        let r = SnapRepr::parse(&s);
        assert_eq!(r, SnapRepr { oui: OUI_RFC1042, ethertype: EtherType::IPV4 });
        assert_eq!(s.payload(), &[0x45, 0x00]);
        let mut o = [0u8; 8];
        r.emit(&mut o).unwrap();
        assert_eq!(&o, &b[..8]);
        assert_eq!(Snap::new_checked(&b[..7]).err(), Some(Error::Truncated));
        assert!(Snap::new_checked(&[0xab, 0xaa, 3, 0, 0, 0, 8, 0][..]).is_err());
    }
}
