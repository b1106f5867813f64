//! Radio headers in front of captured MPDUs, by link type (tcpdump.org LINKTYPE_*):
//! 105 raw 802.11, 127 radiotap, 119 Prism, 163 AVS, 192 PPI. Finds the MPDU and whether
//! it ends with an FCS (radiotap's Flags field says so; the others do not, so the FCS is
//! recognised by its CRC-32).
use crate::error::{Error, Result};

pub const LINKTYPE_IEEE802_11: u32 = 105;
pub const LINKTYPE_PRISM: u32 = 119;
pub const LINKTYPE_RADIOTAP: u32 = 127;
pub const LINKTYPE_AVS: u32 = 163;
pub const LINKTYPE_PPI: u32 = 192;

/// Radiotap Flags: frame includes FCS.
const RT_FLAG_FCS: u8 = 0x10;
/// PPI data link type 105 inside a PPI header.
const PPI_DLT_80211: u32 = 105;

/// The MPDU inside a captured packet, without radio header and without FCS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mpdu<'a> {
    pub bytes: &'a [u8],
    /// Octets of radio header in front of the MPDU.
    pub radio_len: usize,
    /// The packet carried an FCS, which is removed from `bytes`.
    pub had_fcs: bool,
}

fn le16(b: &[u8], at: usize) -> Result<usize> {
    b.get(at..at + 2).map(|x| u16::from_le_bytes([x[0], x[1]]) as usize).ok_or(Error::Truncated)
}

/// Length of a radiotap header and its FCS flag (radiotap.org; fields walked up to Flags).
fn radiotap(b: &[u8]) -> Result<(usize, Option<bool>)> {
    if b.len() < 8 || b[0] != 0 {
        return Err(Error::Malformed("radiotap header"));
    }
    let len = le16(b, 2)?;
    if len < 8 || len > b.len() {
        return Err(Error::Truncated);
    }
    let first = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    // Skip the chain of present words (bit 31 = another word follows).
    let mut off = 4;
    loop {
        let w = b.get(off..off + 4).ok_or(Error::Truncated)?;
        off += 4;
        if u32::from_le_bytes([w[0], w[1], w[2], w[3]]) & 0x8000_0000 == 0 {
            break;
        }
        if off >= len {
            return Err(Error::Malformed("radiotap present bitmap"));
        }
    }
    let mut fcs = None;
    if first & 0b10 != 0 {
        if first & 1 != 0 {
            off = (off + 7) & !7; // TSFT, 8-aligned
            off += 8;
        }
        fcs = Some(*b.get(off).ok_or(Error::Truncated)? & RT_FLAG_FCS != 0);
    }
    Ok((len, fcs))
}

/// True if the last four octets are the CRC-32 of the rest (IEEE 802.11 FCS, LE).
pub fn ends_with_fcs(frame: &[u8]) -> bool {
    if frame.len() < 14 {
        return false;
    }
    let (body, fcs) = frame.split_at(frame.len() - 4);
    crc32fast::hash(body).to_le_bytes() == fcs
}

/// Finds the MPDU of a captured packet of link type `linktype`.
pub fn mpdu(linktype: u32, pkt: &[u8]) -> Result<Mpdu<'_>> {
    let (radio_len, fcs_flag) = match linktype {
        LINKTYPE_IEEE802_11 => (0, None),
        LINKTYPE_RADIOTAP => radiotap(pkt)?,
        LINKTYPE_PRISM => {
            // msgcode(4) msglen(4, host order as written: LE on the captures seen)...
            let l = pkt.get(4..8).ok_or(Error::Truncated)?;
            let le = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
            let be = u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize;
            (if le <= pkt.len() && le >= 8 { le } else { be }, None)
        }
        LINKTYPE_AVS => {
            let l = pkt.get(4..8).ok_or(Error::Truncated)?;
            (u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize, None)
        }
        LINKTYPE_PPI => {
            let len = le16(pkt, 2)?;
            let dlt = pkt.get(4..8).ok_or(Error::Truncated)?;
            if u32::from_le_bytes([dlt[0], dlt[1], dlt[2], dlt[3]]) != PPI_DLT_80211 {
                return Err(Error::Unsupported("PPI with a link type other than 802.11"));
            }
            (len, None)
        }
        _ => return Err(Error::Unsupported("link type without 802.11 frames")),
    };
    let rest = pkt.get(radio_len..).ok_or(Error::Truncated)?;
    let had_fcs = fcs_flag.unwrap_or_else(|| ends_with_fcs(rest));
    let bytes = if had_fcs { rest.get(..rest.len().saturating_sub(4)).ok_or(Error::Truncated)? } else { rest };
    Ok(Mpdu { bytes, radio_len, had_fcs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radiotap_with_fcs_flag() {
        // Radiotap: version 0, len 12, present = Flags|Rate (0x06), flags 0x10 (FCS), rate.
        let mut p = vec![0, 0, 12, 0, 0x06, 0, 0, 0, 0x10, 0x02, 0, 0];
        let frame = [0xd4u8, 0, 0, 0, 1, 2, 3, 4, 5, 6];
        p.extend_from_slice(&frame);
        p.extend_from_slice(&crc32fast::hash(&frame).to_le_bytes());
        let m = mpdu(LINKTYPE_RADIOTAP, &p).unwrap();
        assert_eq!(m.bytes, &frame);
        assert!(m.had_fcs);
        assert_eq!(m.radio_len, 12);
        // Truncated radiotap headers are errors, not panics.
        for n in 0..12 {
            assert!(mpdu(LINKTYPE_RADIOTAP, &p[..n]).is_err());
        }
    }

    #[test]
    fn raw_80211_fcs_by_crc() {
        let frame = [0x08u8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
        let m = mpdu(LINKTYPE_IEEE802_11, &frame).unwrap();
        assert!(!m.had_fcs);
        let mut with = frame.to_vec();
        with.extend_from_slice(&crc32fast::hash(&frame).to_le_bytes());
        let m = mpdu(LINKTYPE_IEEE802_11, &with).unwrap();
        assert!(m.had_fcs);
        assert_eq!(m.bytes, &frame);
        assert!(mpdu(1, &frame).is_err());
    }
}
