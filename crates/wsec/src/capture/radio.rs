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

/// Radiotap Flags: the frame failed its FCS check.
pub const RT_FLAG_BAD_FCS: u8 = 0x40;

/// What a receiver wants from a radiotap header (radiotap.org, the defined fields 0 to 15).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RadiotapInfo {
    /// it_len: the MPDU starts here.
    pub len: usize,
    /// Flags (field 1).
    pub flags: Option<u8>,
    /// Rate (field 2), in 500 kb/s.
    pub rate: Option<u8>,
    /// Channel (field 3): frequency in MHz.
    pub freq: Option<u16>,
    /// dBm antenna signal (field 5).
    pub signal_dbm: Option<i8>,
    /// TX flags (field 15) present: the driver's report of a frame this radio sent, not a
    /// frame it received (mac80211 hands transmitted frames back to monitor interfaces).
    pub tx_report: bool,
}

impl RadiotapInfo {
    /// The frame carries an FCS at its end.
    pub fn has_fcs(&self) -> bool {
        self.flags.is_some_and(|f| f & RT_FLAG_FCS != 0)
    }
    /// The receiver marked the frame's FCS as bad.
    pub fn bad_fcs(&self) -> bool {
        self.flags.is_some_and(|f| f & RT_FLAG_BAD_FCS != 0)
    }
}

/// Parses a radiotap header's fields 0 to 5 and the TX flags bit (radiotap.org: fields in
/// bit order after every present word, each aligned to its natural size).
pub fn radiotap_info(b: &[u8]) -> Result<RadiotapInfo> {
    if b.len() < 8 || b[0] != 0 {
        return Err(Error::Malformed("radiotap header"));
    }
    let len = le16(b, 2)?;
    if len < 8 || len > b.len() {
        return Err(Error::Truncated);
    }
    let hdr = &b[..len];
    let first = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let mut off = 4;
    loop {
        let w = hdr.get(off..off + 4).ok_or(Error::Malformed("radiotap present bitmap"))?;
        off += 4;
        if u32::from_le_bytes([w[0], w[1], w[2], w[3]]) & 0x8000_0000 == 0 {
            break;
        }
    }
    let mut info = RadiotapInfo { len, tx_report: first & (1 << 15) != 0, ..Default::default() };
    // (alignment, size) of fields 0 (TSFT) to 5 (dBm antenna signal).
    const FIELDS: [(usize, usize); 6] = [(8, 8), (1, 1), (1, 1), (2, 4), (2, 2), (1, 1)];
    for (bit, &(align, size)) in FIELDS.iter().enumerate() {
        if first & (1 << bit) == 0 {
            continue;
        }
        off = (off + align - 1) & !(align - 1);
        let f = hdr.get(off..off + size).ok_or(Error::Malformed("radiotap field past the header"))?;
        match bit {
            1 => info.flags = Some(f[0]),
            2 => info.rate = Some(f[0]),
            3 => info.freq = Some(u16::from_le_bytes([f[0], f[1]])),
            5 => info.signal_dbm = Some(f[0] as i8),
            _ => {}
        }
        off += size;
    }
    Ok(info)
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

    #[test]
    fn radiotap_fields_as_mac80211_reports_them() {
        // hwsim on Linux 6.1: present 0x0000482f (TSFT, Flags, Rate, Channel, dBm signal,
        // RX flags), it_len 26; a transmit report instead has TX flags (bit 15).
        let rx = [
            0x00, 0x00, 0x1a, 0x00, 0x2f, 0x48, 0x00, 0x00, 0x4b, 0xbc, 0x3d, 0x3f, 0x23, 0x61, 0x06, 0x00, 0x00, 0x02, 0x85, 0x09, 0xa0,
            0x00, 0xe2, 0x00, 0x00, 0x00,
        ];
        let i = radiotap_info(&rx).unwrap();
        assert_eq!(i.len, 26);
        assert_eq!(i.flags, Some(0));
        assert_eq!(i.rate, Some(2));
        assert_eq!(i.freq, Some(2437));
        assert_eq!(i.signal_dbm, Some(-30));
        assert!(!i.tx_report && !i.bad_fcs() && !i.has_fcs());
        let mut tx = rx;
        tx[5] |= 0x80; // TX flags present
        tx[8] = 0x00; // (the TSFT value does not matter)
        assert!(radiotap_info(&tx).unwrap().tx_report);
        let mut bad = rx;
        bad[16] = RT_FLAG_BAD_FCS;
        assert!(radiotap_info(&bad).unwrap().bad_fcs());
        for n in 0..rx.len() {
            assert!(radiotap_info(&rx[..n]).is_err(), "{n}");
        }
        // A header that claims a field it does not hold is an error, not a panic.
        let short = [0u8, 0, 8, 0, 0x02, 0, 0, 0];
        assert!(radiotap_info(&short).is_err());
    }
}
