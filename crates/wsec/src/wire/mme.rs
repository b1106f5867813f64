//! Management MIC element (MME), IEEE 802.11-2020 9.4.2.53: Element ID 76, Length 16
//! (BIP-CMAC-128, 8-octet MIC) or 24 (BIP-CMAC-256, BIP-GMAC-128/256, 16-octet MIC);
//! Key ID (2 octets, LE), IPN (6 octets, LE), MIC.
use crate::error::{Error, Result};
use crate::wire::sechdr::{Pn, PN_MAX};

/// Element ID of the MME ([`crate::wire::element::id::MANAGEMENT_MIC`]).
pub const ELEMENT_ID: u8 = crate::wire::element::id::MANAGEMENT_MIC;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MmeRepr {
    pub key_id: u16,
    pub ipn: Pn,
    /// MIC length: 8 or 16.
    pub mic_len: usize,
}

impl MmeRepr {
    /// Element ID and Length.
    pub const HEADER_LEN: usize = 2;
    /// Key ID and IPN, before the MIC.
    pub const FIXED_LEN: usize = 8;

    /// Total element length (ID + Length + body).
    pub fn buffer_len(&self) -> usize {
        Self::HEADER_LEN + Self::FIXED_LEN + self.mic_len
    }

    /// Parses an MME at the start of `b`; returns it and the MIC bytes.
    pub fn parse(b: &[u8]) -> Result<(MmeRepr, &[u8])> {
        if b.len() < 2 {
            return Err(Error::Truncated);
        }
        if b[0] != ELEMENT_ID {
            return Err(Error::MmeMissing);
        }
        let mic_len = match b[1] {
            16 => 8,
            24 => 16,
            _ => return Err(Error::Malformed("MME length is neither 16 nor 24")),
        };
        let len = 2 + b[1] as usize;
        if b.len() < len {
            return Err(Error::Truncated);
        }
        let key_id = u16::from_le_bytes([b[2], b[3]]);
        let ipn = u64::from_le_bytes([b[4], b[5], b[6], b[7], b[8], b[9], 0, 0]);
        Ok((MmeRepr { key_id, ipn, mic_len }, &b[10..len]))
    }

    /// Writes the element with the given MIC (all zeros while the MIC is computed).
    pub fn emit(&self, b: &mut [u8], mic: &[u8]) -> Result<()> {
        if mic.len() != self.mic_len || !(self.mic_len == 8 || self.mic_len == 16) {
            return Err(Error::Malformed("MME MIC length"));
        }
        if self.ipn > PN_MAX {
            return Err(Error::Malformed("IPN over 48 bits"));
        }
        let len = self.buffer_len();
        if b.len() < len {
            return Err(Error::Truncated);
        }
        b[0] = ELEMENT_ID;
        b[1] = (len - 2) as u8;
        b[2..4].copy_from_slice(&self.key_id.to_le_bytes());
        b[4..10].copy_from_slice(&self.ipn.to_le_bytes()[..6]);
        b[10..len].copy_from_slice(mic);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mme_vector() {
        // IEEE 802.11-2012 M.9.1: key 4, IPN 4, MIC 48dfbfa7b8278872.
        let b = [0x4c, 0x10, 0x04, 0x00, 0x04, 0, 0, 0, 0, 0, 0x48, 0xdf, 0xbf, 0xa7, 0xb8, 0x27, 0x88, 0x72];
        let (r, mic) = MmeRepr::parse(&b).unwrap();
        assert_eq!(r, MmeRepr { key_id: 4, ipn: 4, mic_len: 8 });
        assert_eq!(mic, &b[10..]);
        let mut o = [0u8; 18];
        r.emit(&mut o, mic).unwrap();
        assert_eq!(o, b);
        assert_eq!(MmeRepr::parse(&b[..17]), Err(Error::Truncated));
        let mut wrong = b;
        wrong[1] = 17;
        assert!(matches!(MmeRepr::parse(&wrong), Err(Error::Malformed(_))));
        wrong[0] = 0xdd;
        assert_eq!(MmeRepr::parse(&wrong), Err(Error::MmeMissing));
    }
}
