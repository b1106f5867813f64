//! The WMM elements (Wi-Fi Alliance WMM Specification 1.2, 2.2): Vendor Specific elements
//! (IEEE 802.11-2020 9.4.2.25) with OUI 00-50-F2 and OUI Type 2. The Information element
//! (OUI Subtype 0) is a QoS STA's in its (Re)Association Request; the Parameter element
//! (Subtype 1) is a QoS AP's in Beacons, Probe and (Re)Association Responses, with the
//! EDCA parameters of the four access categories. Seeing the other's tells each side
//! the peer sends and takes QoS Data frames (hostapd and mac80211 go by these, not by the
//! QoS bit of the Capability Information field).
//!
//! [`Wmm`] is a view over the Vendor Specific element's Information field; its reprs
//! parse and emit it. Version other than 1 is Error::Unsupported; a body shorter than its
//! subtype needs is Error::Truncated (longer is taken, as hostapd's `wmm_process_*`).
use crate::error::{Error, Result};
use crate::wire::element::{self, id, Element};

/// The Microsoft OUI the WMM (and WPA1) elements use.
pub const OUI: [u8; 3] = [0x00, 0x50, 0xf2];
/// OUI Type of the WMM elements.
pub const OUI_TYPE: u8 = 2;
/// OUI Subtype: Information element.
pub const SUBTYPE_INFO: u8 = 0;
/// OUI Subtype: Parameter element.
pub const SUBTYPE_PARAM: u8 = 1;
pub const VERSION: u8 = 1;

/// Byte ranges of the Information field.
pub mod field {
    pub const OUI: core::ops::Range<usize> = 0..3;
    pub const OUI_TYPE: usize = 3;
    pub const SUBTYPE: usize = 4;
    pub const VERSION: usize = 5;
    pub const QOS_INFO: usize = 6;
    /// Parameter element: reserved octet, then four AC Parameter Records of 4 octets.
    pub const RESERVED: usize = 7;
    pub const AC: usize = 8;
}

/// Zero-copy view of a WMM element's Information field.
#[derive(Debug, Clone)]
pub struct Wmm<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Wmm<T> {
    pub fn new_unchecked(buffer: T) -> Wmm<T> {
        Wmm { buffer }
    }

    /// Checks the OUI, type and version and that the subtype's fields are there.
    pub fn new_checked(buffer: T) -> Result<Wmm<T>> {
        let w = Wmm { buffer };
        w.check()?;
        Ok(w)
    }

    pub fn check(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < WmmInfoRepr::BODY_LEN {
            return Err(Error::Truncated);
        }
        if b[field::OUI] != OUI || b[field::OUI_TYPE] != OUI_TYPE {
            return Err(Error::Malformed("not a WMM element"));
        }
        if b[field::VERSION] != VERSION {
            return Err(Error::Unsupported("WMM version other than 1"));
        }
        if self.subtype() == SUBTYPE_PARAM && b.len() < WmmParamRepr::BODY_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn subtype(&self) -> u8 {
        self.buffer.as_ref()[field::SUBTYPE]
    }

    /// QoS Info (WMM 2.2.1): an AP's Parameter Set Count (b0-b3) and U-APSD (b7); a STA's
    /// U-APSD flags per AC (b0-b3) and Max SP Length (b5-b6).
    pub fn qos_info(&self) -> u8 {
        self.buffer.as_ref()[field::QOS_INFO]
    }

    /// The AC Parameter Record `i` of a Parameter element (0 BE, 1 BK, 2 VI, 3 VO).
    pub fn ac(&self, i: usize) -> AcParams {
        let b = &self.buffer.as_ref()[field::AC + 4 * i..field::AC + 4 * i + 4];
        AcParams { aci_aifsn: b[0], ecw: b[1], txop_limit: u16::from_le_bytes([b[2], b[3]]) }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Wmm<T> {
    /// Writes OUI, type, subtype and version 1.
    pub fn set_header(&mut self, subtype: u8) {
        let b = self.buffer.as_mut();
        b[field::OUI].copy_from_slice(&OUI);
        b[field::OUI_TYPE] = OUI_TYPE;
        b[field::SUBTYPE] = subtype;
        b[field::VERSION] = VERSION;
    }
    pub fn set_qos_info(&mut self, v: u8) {
        self.buffer.as_mut()[field::QOS_INFO] = v;
    }
    pub fn set_ac(&mut self, i: usize, a: AcParams) {
        let t = a.txop_limit.to_le_bytes();
        self.buffer.as_mut()[field::AC + 4 * i..field::AC + 4 * i + 4].copy_from_slice(&[a.aci_aifsn, a.ecw, t[0], t[1]]);
    }
}

/// An AC Parameter Record (WMM 2.2.2): ACI/AIFSN, ECWmin/ECWmax, TXOP Limit (32 us units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AcParams {
    pub aci_aifsn: u8,
    pub ecw: u8,
    pub txop_limit: u16,
}

impl AcParams {
    pub const fn new(aci: u8, aifsn: u8, ecw_min: u8, ecw_max: u8, txop_limit: u16) -> AcParams {
        AcParams { aci_aifsn: (aci & 3) << 5 | (aifsn & 0x0f), ecw: (ecw_max & 0x0f) << 4 | (ecw_min & 0x0f), txop_limit }
    }
    pub fn aifsn(self) -> u8 {
        self.aci_aifsn & 0x0f
    }
    /// Admission Control Mandatory.
    pub fn acm(self) -> bool {
        self.aci_aifsn & 0x10 != 0
    }
    pub fn aci(self) -> u8 {
        (self.aci_aifsn >> 5) & 3
    }
    pub fn ecw_min(self) -> u8 {
        self.ecw & 0x0f
    }
    pub fn ecw_max(self) -> u8 {
        self.ecw >> 4
    }
}

/// The WMM Information element's Information field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WmmInfoRepr {
    pub qos_info: u8,
}

impl WmmInfoRepr {
    pub const BODY_LEN: usize = 7;

    pub fn parse<T: AsRef<[u8]>>(w: &Wmm<T>) -> Result<WmmInfoRepr> {
        w.check()?;
        if w.subtype() != SUBTYPE_INFO {
            return Err(Error::Malformed("not a WMM Information element"));
        }
        Ok(WmmInfoRepr { qos_info: w.qos_info() })
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, w: &mut Wmm<T>) {
        w.set_header(SUBTYPE_INFO);
        w.set_qos_info(self.qos_info);
    }

    /// Appends the whole Vendor Specific element.
    pub fn push(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut b = [0u8; Self::BODY_LEN];
        self.emit(&mut Wmm::new_unchecked(&mut b[..]));
        element::push(out, id::VENDOR_SPECIFIC, &b)
    }
}

/// The WMM Parameter element's Information field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WmmParamRepr {
    pub qos_info: u8,
    /// AC_BE, AC_BK, AC_VI, AC_VO, in the element's order.
    pub ac: [AcParams; 4],
}

impl WmmParamRepr {
    pub const BODY_LEN: usize = 24;

    /// hostapd's defaults for an AP (`wmm_ac_*` in hostapd.conf; WMM Table 14): BE AIFSN 3
    /// CWmin 15 CWmax 1023, BK 7/15/1023, VI 2/7/15 TXOP 3.008 ms, VO 2/3/7 TXOP 1.504 ms;
    /// Parameter Set Count 0, no U-APSD.
    pub fn hostapd_default() -> WmmParamRepr {
        WmmParamRepr {
            qos_info: 0,
            ac: [
                AcParams::new(0, 3, 4, 10, 0),
                AcParams::new(1, 7, 4, 10, 0),
                AcParams::new(2, 2, 3, 4, 94),
                AcParams::new(3, 2, 2, 3, 47),
            ],
        }
    }

    pub fn parse<T: AsRef<[u8]>>(w: &Wmm<T>) -> Result<WmmParamRepr> {
        w.check()?;
        if w.subtype() != SUBTYPE_PARAM {
            return Err(Error::Malformed("not a WMM Parameter element"));
        }
        Ok(WmmParamRepr { qos_info: w.qos_info(), ac: [w.ac(0), w.ac(1), w.ac(2), w.ac(3)] })
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, w: &mut Wmm<T>) {
        w.set_header(SUBTYPE_PARAM);
        w.set_qos_info(self.qos_info);
        w.buffer.as_mut()[field::RESERVED] = 0;
        for (i, a) in self.ac.iter().enumerate() {
            w.set_ac(i, *a);
        }
    }

    /// Appends the whole Vendor Specific element.
    pub fn push(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut b = [0u8; Self::BODY_LEN];
        self.emit(&mut Wmm::new_unchecked(&mut b[..]));
        element::push(out, id::VENDOR_SPECIFIC, &b)
    }
}

/// Whether `e` is a WMM element of OUI Subtype `subtype` (a well-formed one or not).
pub fn is_wmm(e: &Element<'_>, subtype: u8) -> bool {
    e.id == id::VENDOR_SPECIFIC
        && e.body.len() > field::SUBTYPE
        && e.body[field::OUI] == OUI
        && e.body[3] == OUI_TYPE
        && e.body[4] == subtype
}

/// The first WMM element of `subtype` among `ies`, like [`element::find_by`].
pub fn find(ies: &[u8], subtype: u8) -> Result<Option<Element<'_>>> {
    element::find_by(ies, |e| is_wmm(e, subtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_element_hostapd_bytes() {
        let mut v = Vec::new();
        WmmParamRepr::hostapd_default().push(&mut v).unwrap();
        // The bytes hostapd's Beacons carry with wmm_enabled=1 and its defaults.
        let want = [
            0xdd, 0x18, 0x00, 0x50, 0xf2, 0x02, 0x01, 0x01, 0x00, 0x00, 0x03, 0xa4, 0x00, 0x00, 0x27, 0xa4, 0x00, 0x00, 0x42, 0x43, 0x5e,
            0x00, 0x62, 0x32, 0x2f, 0x00,
        ];
        assert_eq!(v, want);
        let w = Wmm::new_checked(&v[2..]).unwrap();
        let r = WmmParamRepr::parse(&w).unwrap();
        assert_eq!(r, WmmParamRepr::hostapd_default());
        assert_eq!((r.ac[2].aci(), r.ac[2].aifsn(), r.ac[2].ecw_min(), r.ac[2].ecw_max(), r.ac[2].acm()), (2, 2, 3, 4, false));
        assert!(find(&v, SUBTYPE_PARAM).unwrap().is_some());
        assert!(find(&v, SUBTYPE_INFO).unwrap().is_none());
        assert_eq!(WmmInfoRepr::parse(&w), Err(Error::Malformed("not a WMM Information element")));
        assert_eq!(Wmm::new_checked(&v[2..20]).err(), Some(Error::Truncated));
    }

    #[test]
    fn information_element() {
        let mut v = Vec::new();
        WmmInfoRepr { qos_info: 0 }.push(&mut v).unwrap();
        assert_eq!(v, [0xdd, 0x07, 0x00, 0x50, 0xf2, 0x02, 0x00, 0x01, 0x00]);
        assert_eq!(WmmInfoRepr::parse(&Wmm::new_checked(&v[2..]).unwrap()).unwrap(), WmmInfoRepr { qos_info: 0 });
        let mut bad = v[2..].to_vec();
        bad[5] = 2;
        assert_eq!(Wmm::new_checked(&bad[..]).err(), Some(Error::Unsupported("WMM version other than 1")));
        bad[3] = 1; // the WPA element's type
        assert!(Wmm::new_checked(&bad[..]).is_err());
        assert_eq!(Wmm::new_checked(&v[2..8]).err(), Some(Error::Truncated));
    }
}
