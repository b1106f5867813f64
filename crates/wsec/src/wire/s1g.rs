//! The S1G Beacon frame header (802.11ah; IEEE 802.11-2020 9.3.4.3): an Extension-type
//! frame (type 3, subtype 1) with FC, Duration, SA, Timestamp (4), Change Sequence (1),
//! then Next TBTT (3), Compressed SSID (4) and ANO (1) when FC b8, b9, b10 say so.
use crate::error::{Error, Result};
use crate::wire::mac::{FrameControl, FrameType, MacAddr};

pub mod field {
    pub const FRAME_CONTROL: core::ops::Range<usize> = 0..2;
    pub const DURATION: core::ops::Range<usize> = 2..4;
    pub const SA: core::ops::Range<usize> = 4..10;
    pub const TIMESTAMP: core::ops::Range<usize> = 10..14;
    pub const CHANGE_SEQUENCE: usize = 14;
    /// End of the fixed part.
    pub const FIXED_LEN: usize = 15;
}

/// S1G Beacon Frame Control bits.
pub const NEXT_TBTT_PRESENT: u16 = 1 << 8;
pub const COMPRESSED_SSID_PRESENT: u16 = 1 << 9;
pub const ANO_PRESENT: u16 = 1 << 10;
/// The S1G Beacon subtype of the Extension type.
pub const SUBTYPE_S1G_BEACON: u8 = 1;
/// S1G Beacon Compatibility element ID (9.4.2.196).
pub const ELEMENT_S1G_BEACON_COMPAT: u8 = 213;

/// Zero-copy view of an S1G Beacon.
#[derive(Debug, Clone)]
pub struct S1gBeacon<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> S1gBeacon<T> {
    /// Checks the frame is an S1G Beacon and holds its whole header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < 2 {
            return Err(Error::Truncated);
        }
        let fc = FrameControl(u16::from_le_bytes([b[0], b[1]]));
        if fc.protocol_version() != 0 || fc.frame_type() != FrameType::Extension || fc.subtype() != SUBTYPE_S1G_BEACON {
            return Err(Error::Unsupported("not an S1G Beacon"));
        }
        let s = S1gBeacon { buffer };
        if s.buffer.as_ref().len() < s.header_len() {
            return Err(Error::Truncated);
        }
        Ok(s)
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    pub fn frame_control(&self) -> u16 {
        let b = self.buffer.as_ref();
        u16::from_le_bytes([b[0], b[1]])
    }

    pub fn sa(&self) -> MacAddr {
        let mut a = [0u8; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SA]);
        MacAddr(a)
    }

    /// Octets of the optional fields after Change Sequence.
    pub fn optional_len(&self) -> usize {
        let fc = self.frame_control();
        (if fc & NEXT_TBTT_PRESENT != 0 { 3 } else { 0 })
            + (if fc & COMPRESSED_SSID_PRESENT != 0 { 4 } else { 0 })
            + (if fc & ANO_PRESENT != 0 { 1 } else { 0 })
    }

    pub fn header_len(&self) -> usize {
        field::FIXED_LEN + self.optional_len()
    }

    pub fn body(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s1g_beacon_headers() {
        // P802.11REVme/D4.0 J.9.2 frames: no optional fields; all three present.
        let a = hex("1c4000000200000000000000000000d5088000000012345678");
        let s = S1gBeacon::new_checked(&a[..]).unwrap();
        assert_eq!(s.header_len(), 15);
        assert_eq!(s.sa(), MacAddr([2, 0, 0, 0, 0, 0]));
        assert_eq!(s.body()[0], ELEMENT_S1G_BEACON_COMPAT);
        let b = hex("1c47000002000000000000000000000000000000000000");
        let s = S1gBeacon::new_checked(&b[..]).unwrap();
        assert_eq!(s.header_len(), 23);
        assert!(s.body().is_empty());
        assert_eq!(S1gBeacon::new_checked(&b[..22]).err(), Some(Error::Truncated));
        assert!(S1gBeacon::new_checked(&[0xc0u8, 0, 0, 0][..]).is_err());
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }
}
