//! The HT Capabilities element (IEEE 802.11-2020 9.4.2.55) and the HT Operation element
//! (9.4.2.56): what an HT AP and an HT STA advertise, wsec's part of it being the Max
//! A-MSDU Length (9.4.2.55.2, b11) its A-MSDU transmit is bounded by.
//!
//! [`HtCapabilities`] and [`HtOperation`] are views over an element's Information field
//! (after Element ID and Length); their reprs parse and emit it. The Information field is
//! 26 (HT Capabilities) or 22 (HT Operation) octets; a shorter one is Error::Truncated. A
//! longer one is taken, its extra octets ignored, as mac80211 does (`ieee802_11_parse_elems`
//! checks `elen >= sizeof(struct ieee80211_ht_cap)`).
use crate::error::{Error, Result};
use crate::wire::amsdu::HT_MAX_AMSDU_LEN;
use crate::wire::element::{self, id};

/// Byte ranges of the HT Capabilities element's Information field (9.4.2.55.1, Figure 9-330).
pub mod cap_field {
    pub const INFO: core::ops::Range<usize> = 0..2;
    pub const AMPDU_PARAMS: usize = 2;
    pub const MCS: core::ops::Range<usize> = 3..19;
    pub const EXT: core::ops::Range<usize> = 19..21;
    pub const TXBF: core::ops::Range<usize> = 21..25;
    pub const ASEL: usize = 25;
}

/// The HT Capabilities Information field (9.4.2.55.2, Figure 9-331).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HtCapInfo(pub u16);

impl HtCapInfo {
    pub const LDPC: u16 = 1 << 0;
    /// Supported Channel Width Set: 20/40 MHz.
    pub const CHANNEL_WIDTH_40: u16 = 1 << 1;
    /// SM Power Save (b2-b3): 3 is disabled.
    pub const SM_PS_MASK: u16 = 0x000c;
    pub const SM_PS_DISABLED: u16 = 0x000c;
    pub const GREENFIELD: u16 = 1 << 4;
    pub const SHORT_GI_20: u16 = 1 << 5;
    pub const SHORT_GI_40: u16 = 1 << 6;
    pub const TX_STBC: u16 = 1 << 7;
    /// Rx STBC (b8-b9): spatial streams.
    pub const RX_STBC_MASK: u16 = 0x0300;
    pub const DELAYED_BA: u16 = 1 << 10;
    /// Maximum A-MSDU Length: 0 is 3839 octets, 1 is 7935.
    pub const MAX_AMSDU_7935: u16 = 1 << 11;
    pub const DSSS_CCK_40: u16 = 1 << 12;
    pub const FORTY_MHZ_INTOLERANT: u16 = 1 << 14;
    pub const LSIG_TXOP_PROT: u16 = 1 << 15;

    pub fn has(self, bit: u16) -> bool {
        self.0 & bit == bit
    }

    pub fn with(self, bit: u16, on: bool) -> HtCapInfo {
        HtCapInfo(if on { self.0 | bit } else { self.0 & !bit })
    }

    /// The longest A-MSDU the STA receives (9.4.2.55.2): 3839 or 7935 octets.
    pub fn max_amsdu_len(self) -> usize {
        HT_MAX_AMSDU_LEN[self.has(Self::MAX_AMSDU_7935) as usize]
    }
}

/// Zero-copy view of an HT Capabilities element's Information field.
#[derive(Debug, Clone)]
pub struct HtCapabilities<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> HtCapabilities<T> {
    pub fn new_unchecked(buffer: T) -> HtCapabilities<T> {
        HtCapabilities { buffer }
    }

    /// Error::Truncated under 26 octets.
    pub fn new_checked(buffer: T) -> Result<HtCapabilities<T>> {
        let p = HtCapabilities { buffer };
        p.check_len()?;
        Ok(p)
    }

    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < HtCapabilitiesRepr::BODY_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn info(&self) -> HtCapInfo {
        let b = &self.buffer.as_ref()[cap_field::INFO];
        HtCapInfo(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A-MPDU Parameters (9.4.2.55.3): Maximum A-MPDU Length Exponent (b0-b1), Minimum
    /// MPDU Start Spacing (b2-b4).
    pub fn ampdu_params(&self) -> u8 {
        self.buffer.as_ref()[cap_field::AMPDU_PARAMS]
    }

    /// Supported MCS Set (9.4.2.55.4).
    pub fn mcs_set(&self) -> [u8; 16] {
        let mut m = [0u8; 16];
        m.copy_from_slice(&self.buffer.as_ref()[cap_field::MCS]);
        m
    }

    /// HT Extended Capabilities (9.4.2.55.5).
    pub fn ext_caps(&self) -> u16 {
        let b = &self.buffer.as_ref()[cap_field::EXT];
        u16::from_le_bytes([b[0], b[1]])
    }

    /// Transmit Beamforming Capabilities (9.4.2.55.6).
    pub fn txbf(&self) -> u32 {
        let b = &self.buffer.as_ref()[cap_field::TXBF];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// ASEL Capability (9.4.2.55.7).
    pub fn asel(&self) -> u8 {
        self.buffer.as_ref()[cap_field::ASEL]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> HtCapabilities<T> {
    pub fn set_info(&mut self, v: HtCapInfo) {
        self.buffer.as_mut()[cap_field::INFO].copy_from_slice(&v.0.to_le_bytes());
    }
    pub fn set_ampdu_params(&mut self, v: u8) {
        self.buffer.as_mut()[cap_field::AMPDU_PARAMS] = v;
    }
    pub fn set_mcs_set(&mut self, v: &[u8; 16]) {
        self.buffer.as_mut()[cap_field::MCS].copy_from_slice(v);
    }
    pub fn set_ext_caps(&mut self, v: u16) {
        self.buffer.as_mut()[cap_field::EXT].copy_from_slice(&v.to_le_bytes());
    }
    pub fn set_txbf(&mut self, v: u32) {
        self.buffer.as_mut()[cap_field::TXBF].copy_from_slice(&v.to_le_bytes());
    }
    pub fn set_asel(&mut self, v: u8) {
        self.buffer.as_mut()[cap_field::ASEL] = v;
    }
}

/// The HT Capabilities element's Information field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HtCapabilitiesRepr {
    pub info: HtCapInfo,
    pub ampdu_params: u8,
    pub mcs_set: [u8; 16],
    pub ext_caps: u16,
    pub txbf: u32,
    pub asel: u8,
}

impl HtCapabilitiesRepr {
    pub const BODY_LEN: usize = 26;

    /// What wsec advertises: hostapd's default `ht_capab` (SM Power Save disabled, nothing
    /// else: 3839-octet A-MSDUs unless `max_amsdu_7935`), A-MPDU Parameters 0x03 (64 KiB,
    /// no spacing; wsec answers no ADDBA, so none comes), MCS 0-7 received and Tx MCS Set
    /// Defined (one spatial stream).
    pub fn wsec_default(max_amsdu_7935: bool) -> HtCapabilitiesRepr {
        let mut mcs_set = [0u8; 16];
        mcs_set[0] = 0xff;
        mcs_set[12] = 0x01;
        HtCapabilitiesRepr {
            info: HtCapInfo(HtCapInfo::SM_PS_DISABLED).with(HtCapInfo::MAX_AMSDU_7935, max_amsdu_7935),
            ampdu_params: 0x03,
            mcs_set,
            ext_caps: 0,
            txbf: 0,
            asel: 0,
        }
    }

    pub fn parse<T: AsRef<[u8]>>(p: &HtCapabilities<T>) -> Result<HtCapabilitiesRepr> {
        p.check_len()?;
        Ok(HtCapabilitiesRepr {
            info: p.info(),
            ampdu_params: p.ampdu_params(),
            mcs_set: p.mcs_set(),
            ext_caps: p.ext_caps(),
            txbf: p.txbf(),
            asel: p.asel(),
        })
    }

    /// The Information field of an element's body (`Element::body`).
    pub fn parse_body(body: &[u8]) -> Result<HtCapabilitiesRepr> {
        Self::parse(&HtCapabilities::new_checked(body)?)
    }

    pub fn buffer_len(&self) -> usize {
        Self::BODY_LEN
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut HtCapabilities<T>) {
        p.set_info(self.info);
        p.set_ampdu_params(self.ampdu_params);
        p.set_mcs_set(&self.mcs_set);
        p.set_ext_caps(self.ext_caps);
        p.set_txbf(self.txbf);
        p.set_asel(self.asel);
    }

    /// Appends the whole element (Element ID 45).
    pub fn push(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut b = [0u8; Self::BODY_LEN];
        self.emit(&mut HtCapabilities::new_unchecked(&mut b[..]));
        element::push(out, id::HT_CAPABILITIES, &b)
    }

    /// The longest A-MSDU the STA receives.
    pub fn max_amsdu_len(&self) -> usize {
        self.info.max_amsdu_len()
    }
}

/// Byte ranges of the HT Operation element's Information field (9.4.2.56, Figure 9-339).
pub mod op_field {
    pub const PRIMARY_CHANNEL: usize = 0;
    pub const INFO: core::ops::Range<usize> = 1..6;
    pub const BASIC_MCS: core::ops::Range<usize> = 6..22;
}

/// Zero-copy view of an HT Operation element's Information field.
#[derive(Debug, Clone)]
pub struct HtOperation<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> HtOperation<T> {
    pub fn new_unchecked(buffer: T) -> HtOperation<T> {
        HtOperation { buffer }
    }

    /// Error::Truncated under 22 octets.
    pub fn new_checked(buffer: T) -> Result<HtOperation<T>> {
        let p = HtOperation { buffer };
        p.check_len()?;
        Ok(p)
    }

    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < HtOperationRepr::BODY_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn primary_channel(&self) -> u8 {
        self.buffer.as_ref()[op_field::PRIMARY_CHANNEL]
    }

    /// HT Operation Information (9.4.2.56, Figure 9-340), 5 octets.
    pub fn info(&self) -> [u8; 5] {
        let mut i = [0u8; 5];
        i.copy_from_slice(&self.buffer.as_ref()[op_field::INFO]);
        i
    }

    /// Secondary Channel Offset (b0-b1): 0 none, 1 above, 3 below.
    pub fn secondary_channel_offset(&self) -> u8 {
        self.info()[0] & 0x03
    }

    /// STA Channel Width (b2): 0 20 MHz, 1 any width the STA supports.
    pub fn sta_channel_width(&self) -> bool {
        self.info()[0] & 0x04 != 0
    }

    /// HT Protection (b8-b9 of the field): 0 none, 1 nonmember, 2 20 MHz, 3 non-HT mixed.
    pub fn ht_protection(&self) -> u8 {
        self.info()[1] & 0x03
    }

    pub fn basic_mcs_set(&self) -> [u8; 16] {
        let mut m = [0u8; 16];
        m.copy_from_slice(&self.buffer.as_ref()[op_field::BASIC_MCS]);
        m
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> HtOperation<T> {
    pub fn set_primary_channel(&mut self, v: u8) {
        self.buffer.as_mut()[op_field::PRIMARY_CHANNEL] = v;
    }
    pub fn set_info(&mut self, v: &[u8; 5]) {
        self.buffer.as_mut()[op_field::INFO].copy_from_slice(v);
    }
    pub fn set_basic_mcs_set(&mut self, v: &[u8; 16]) {
        self.buffer.as_mut()[op_field::BASIC_MCS].copy_from_slice(v);
    }
}

/// The HT Operation element's Information field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HtOperationRepr {
    pub primary_channel: u8,
    pub info: [u8; 5],
    pub basic_mcs_set: [u8; 16],
}

impl HtOperationRepr {
    pub const BODY_LEN: usize = 22;

    /// A 20 MHz BSS on `channel`: no secondary channel, STA Channel Width 20 MHz, no RIFS,
    /// HT Protection 0, no Basic HT-MCS Set (as hostapd's 20 MHz `ht_oper` before any
    /// legacy station changes its protection mode).
    pub fn twenty_mhz(channel: u8) -> HtOperationRepr {
        HtOperationRepr { primary_channel: channel, info: [0; 5], basic_mcs_set: [0; 16] }
    }

    pub fn parse<T: AsRef<[u8]>>(p: &HtOperation<T>) -> Result<HtOperationRepr> {
        p.check_len()?;
        Ok(HtOperationRepr { primary_channel: p.primary_channel(), info: p.info(), basic_mcs_set: p.basic_mcs_set() })
    }

    pub fn parse_body(body: &[u8]) -> Result<HtOperationRepr> {
        Self::parse(&HtOperation::new_checked(body)?)
    }

    pub fn buffer_len(&self) -> usize {
        Self::BODY_LEN
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut HtOperation<T>) {
        p.set_primary_channel(self.primary_channel);
        p.set_info(&self.info);
        p.set_basic_mcs_set(&self.basic_mcs_set);
    }

    /// Appends the whole element (Element ID 61).
    pub fn push(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut b = [0u8; Self::BODY_LEN];
        self.emit(&mut HtOperation::new_unchecked(&mut b[..]));
        element::push(out, id::HT_OPERATION, &b)
    }
}

/// hostapd's `ht_capab` flags wsec takes (hostapd.conf): each `[FLAG]` sets its bit of
/// the HT Capabilities Information field. Error::Unsupported for a flag not listed here
/// (hostapd refuses unknown flags too).
pub fn parse_ht_capab(v: &str) -> Result<HtCapInfo> {
    let mut info = HtCapInfo(HtCapInfo::SM_PS_DISABLED);
    let mut rest = v.trim();
    while let Some(r) = rest.strip_prefix('[') {
        let (flag, after) = r.split_once(']').ok_or(Error::Malformed("ht_capab: '[' without ']'"))?;
        let bit =
            match flag {
                "LDPC" => HtCapInfo::LDPC,
                "GF" => HtCapInfo::GREENFIELD,
                "SHORT-GI-20" => HtCapInfo::SHORT_GI_20,
                "TX-STBC" => HtCapInfo::TX_STBC,
                "RX-STBC1" => 0x0100,
                "MAX-AMSDU-7935" => HtCapInfo::MAX_AMSDU_7935,
                "DSSS_CCK-40" => HtCapInfo::DSSS_CCK_40,
                "LSIG-TXOP-PROT" => HtCapInfo::LSIG_TXOP_PROT,
                "SMPS-STATIC" => {
                    info.0 &= !HtCapInfo::SM_PS_MASK;
                    0
                }
                _ => return Err(Error::Unsupported(
                    "ht_capab flag (LDPC, GF, SHORT-GI-20, TX-STBC, RX-STBC1, MAX-AMSDU-7935, DSSS_CCK-40, LSIG-TXOP-PROT, SMPS-STATIC)",
                )),
            };
        info.0 |= bit;
        rest = after.trim_start();
    }
    if !rest.is_empty() {
        return Err(Error::Malformed("ht_capab: flags go in brackets"));
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ht_capabilities_round_trip_and_amsdu_len() {
        let r = HtCapabilitiesRepr::wsec_default(false);
        let mut v = Vec::new();
        r.push(&mut v).unwrap();
        assert_eq!(v.len(), 28);
        assert_eq!(&v[..5], &[45, 26, 0x0c, 0x00, 0x03]);
        let back = HtCapabilitiesRepr::parse_body(&v[2..]).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.max_amsdu_len(), 3839);
        assert_eq!(HtCapabilitiesRepr::wsec_default(true).max_amsdu_len(), 7935);
        assert_eq!(HtCapabilitiesRepr::parse_body(&v[2..27]), Err(Error::Truncated));
        // Longer is taken, as mac80211.
        let mut long = v[2..].to_vec();
        long.push(0xee);
        assert_eq!(HtCapabilitiesRepr::parse_body(&long).unwrap(), r);
    }

    #[test]
    fn ht_operation_round_trip() {
        let r = HtOperationRepr { primary_channel: 6, info: [0x05, 0x03, 0, 0, 0], basic_mcs_set: [0; 16] };
        let mut v = Vec::new();
        r.push(&mut v).unwrap();
        assert_eq!(&v[..4], &[61, 22, 6, 0x05]);
        let p = HtOperation::new_checked(&v[2..]).unwrap();
        assert_eq!((p.secondary_channel_offset(), p.sta_channel_width(), p.ht_protection()), (1, true, 3));
        assert_eq!(HtOperationRepr::parse(&p).unwrap(), r);
        assert_eq!(HtOperationRepr::parse_body(&v[2..23]), Err(Error::Truncated));
    }

    #[test]
    fn ht_capab_flags() {
        assert_eq!(parse_ht_capab("").unwrap(), HtCapInfo(0x000c));
        assert_eq!(parse_ht_capab("[SHORT-GI-20][MAX-AMSDU-7935]").unwrap(), HtCapInfo(0x082c));
        assert_eq!(parse_ht_capab("[SMPS-STATIC]").unwrap(), HtCapInfo(0));
        assert!(parse_ht_capab("[HT40+]").is_err());
        assert!(parse_ht_capab("[LDPC").is_err());
        assert!(parse_ht_capab("LDPC").is_err());
    }
}
