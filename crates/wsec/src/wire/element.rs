//! Elements, IEEE 802.11-2020 9.4.2: the `Element ID (1) | Length (1) | Information
//! (Length)` items that follow the fixed fields of most management frame bodies (9.4.2.1,
//! Figure 9-144), their IDs (Table 9-92), and the few element bodies the cores read or
//! write.
//!
//! [`elements`] walks a sequence of elements with bounds checks: an element whose Length
//! runs past the end of the buffer yields `Error::Truncated` once and ends the walk, so a
//! caller decides whether what came before it is good enough. [`push`] appends one element
//! and refuses an Information field over 255 octets.
use crate::error::{Error, Result};

/// Element IDs, IEEE 802.11-2020 Table 9-92 (those wsec reads or writes, and the common ones
/// real Beacons, Probe Responses and (Re)Association frames carry).
pub mod id {
    /// SSID (9.4.2.2): 0-32 octets.
    pub const SSID: u8 = 0;
    /// Supported Rates and BSS Membership Selectors (9.4.2.3).
    pub const SUPPORTED_RATES: u8 = 1;
    /// DSSS Parameter Set (9.4.2.4): the Current Channel.
    pub const DSSS_PARAMETER_SET: u8 = 3;
    /// Traffic Indication Map.
    pub const TIM: u8 = 5;
    pub const COUNTRY: u8 = 7;
    /// Challenge Text of shared key authentication (12.3.3.3).
    pub const CHALLENGE_TEXT: u8 = 16;
    pub const POWER_CAPABILITY: u8 = 33;
    pub const SUPPORTED_CHANNELS: u8 = 36;
    pub const ERP: u8 = 42;
    pub const HT_CAPABILITIES: u8 = 45;
    /// RSN element (9.4.2.24), see [`crate::rsn::ie`].
    pub const RSN: u8 = 48;
    pub const EXTENDED_SUPPORTED_RATES: u8 = 50;
    pub const MOBILITY_DOMAIN: u8 = 54;
    pub const FAST_BSS_TRANSITION: u8 = 55;
    /// Timeout Interval (9.4.2.48), see [`super::TimeoutIntervalRepr`].
    pub const TIMEOUT_INTERVAL: u8 = 56;
    pub const SUPPORTED_OPERATING_CLASSES: u8 = 59;
    pub const HT_OPERATION: u8 = 61;
    /// Management MIC element (9.4.2.53), see [`crate::wire::mme`].
    pub const MANAGEMENT_MIC: u8 = 76;
    pub const EXTENDED_CAPABILITIES: u8 = 127;
    pub const VHT_CAPABILITIES: u8 = 191;
    pub const VHT_OPERATION: u8 = 192;
    /// Vendor Specific (9.4.2.25); the WPA1 element is one.
    pub const VENDOR_SPECIFIC: u8 = 221;
    /// RSN Extension element (RSNXE).
    pub const RSNX: u8 = 244;
    /// Element ID Extension present: the first Information octet extends the ID.
    pub const EXTENSION: u8 = 255;
}

/// Octets of Element ID and Length.
pub const HEADER_LEN: usize = 2;
/// Longest Information field.
pub const MAX_BODY_LEN: usize = 255;

/// One element of a sequence of elements (9.4.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Element<'a> {
    pub id: u8,
    /// The Information field (after Element ID and Length).
    pub body: &'a [u8],
    /// The whole element, Element ID and Length included.
    pub bytes: &'a [u8],
}

impl<'a> Element<'a> {
    /// Parses the element at the start of `b` (octets after it are not looked at).
    pub fn parse(b: &'a [u8]) -> Result<Element<'a>> {
        let len = *b.get(1).ok_or(Error::Truncated)? as usize;
        let bytes = b.get(..HEADER_LEN + len).ok_or(Error::Truncated)?;
        Ok(Element { id: bytes[0], body: &bytes[HEADER_LEN..], bytes })
    }

    /// The Element ID Extension of an element with ID 255 (9.4.2.1); `None` for others
    /// and for an ID 255 element with no Information.
    pub fn ext_id(&self) -> Option<u8> {
        if self.id == id::EXTENSION {
            self.body.first().copied()
        } else {
            None
        }
    }
}

/// Iterator over a sequence of elements; an element cut short yields Error::Truncated once,
/// then the iterator ends.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
}

/// Walks the elements of e.g. a Beacon body after its fixed fields or an Association
/// Request's elements.
pub fn elements(ies: &[u8]) -> Elements<'_> {
    Elements { data: ies, pos: 0, done: false }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Result<Element<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let rest = self.data.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        match Element::parse(rest) {
            Ok(e) => {
                self.pos += e.bytes.len();
                Some(Ok(e))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Elements<'_> {}

/// The first element among `ies` for which `pred` holds; Error::Truncated if an element
/// before it (or the sequence, when there is none) is cut short.
pub fn find_by<'a>(ies: &'a [u8], pred: impl Fn(&Element<'a>) -> bool) -> Result<Option<Element<'a>>> {
    for e in elements(ies) {
        let e = e?;
        if pred(&e) {
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// The first element with Element ID `id` among `ies`, like [`find_by`].
pub fn find(ies: &[u8], id: u8) -> Result<Option<Element<'_>>> {
    find_by(ies, |e| e.id == id)
}

/// Appends an element with Element ID `id` and Information `body`: Error::Oversize for a
/// body over 255 octets (nothing is appended then).
pub fn push(out: &mut Vec<u8>, id: u8, body: &[u8]) -> Result<()> {
    let len = u8::try_from(body.len()).map_err(|_| Error::Oversize)?;
    out.reserve(HEADER_LEN + body.len());
    out.push(id);
    out.push(len);
    out.extend_from_slice(body);
    Ok(())
}

/// Timeout Interval Type field values (9.4.2.48).
pub mod timeout_type {
    /// Reassociation deadline interval, TUs.
    pub const REASSOCIATION_DEADLINE: u8 = 1;
    /// Key lifetime interval, seconds.
    pub const KEY_LIFETIME: u8 = 2;
    /// Association comeback time, TUs (11.13: with status 30, while an SA Query runs).
    pub const ASSOCIATION_COMEBACK: u8 = 3;
    /// Time to start, TUs.
    pub const TIME_TO_START: u8 = 4;
}

/// The Timeout Interval element, IEEE 802.11-2020 9.4.2.48: Timeout Interval Type (1) |
/// Timeout Interval Value (4, little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeoutIntervalRepr {
    /// One of [`timeout_type`].
    pub kind: u8,
    pub value: u32,
}

impl TimeoutIntervalRepr {
    /// Length of the Information field.
    pub const BODY_LEN: usize = 5;

    /// Parses the Information field (`Element::body`): exactly five octets.
    pub fn parse(body: &[u8]) -> Result<TimeoutIntervalRepr> {
        match body {
            [kind, v @ ..] if v.len() == 4 => Ok(TimeoutIntervalRepr { kind: *kind, value: u32::from_le_bytes([v[0], v[1], v[2], v[3]]) }),
            _ if body.len() < Self::BODY_LEN => Err(Error::Truncated),
            _ => Err(Error::Malformed("Timeout Interval element longer than 5 octets")),
        }
    }

    /// Appends the whole element.
    pub fn push(&self, out: &mut Vec<u8>) -> Result<()> {
        let v = self.value.to_le_bytes();
        push(out, id::TIMEOUT_INTERVAL, &[self.kind, v[0], v[1], v[2], v[3]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_and_find() {
        // The elements of the Beacon in aircrack-ng's wep.shared.key.authentication.cap
        // (tshark: tags 0,1,3,5,42,50,221 of lengths 5,8,1,4,1,4,12; SSID "teddy", channel 9).
        let ies = [
            0x00, 0x05, b't', b'e', b'd', b'd', b'y', 0x01, 0x08, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x18, 0x30, 0x48, 0x03, 0x01, 0x09, 0x05,
            0x04, 0x00, 0x01, 0x00, 0x00, 0x2a, 0x01, 0x00, 0x32, 0x04, 0x12, 0x24, 0x60, 0x6c, 0xdd, 0x0c, 0x00, 0x03, 0x7f, 0x02, 0x01,
            0x01, 0x00, 0x00, 0x02, 0xa3, 0x00, 0x00,
        ];
        let all: Vec<Element<'_>> = elements(&ies).map(|e| e.unwrap()).collect();
        assert_eq!(all.iter().map(|e| e.id).collect::<Vec<_>>(), [0, 1, 3, 5, 42, 50, 221]);
        assert_eq!(all.iter().map(|e| e.body.len()).collect::<Vec<_>>(), [5, 8, 1, 4, 1, 4, 12]);
        assert_eq!(all[0].body, b"teddy");
        assert_eq!(all[0].bytes, &ies[..7]);
        assert_eq!(find(&ies, id::DSSS_PARAMETER_SET).unwrap().unwrap().body, [9]);
        assert_eq!(find(&ies, id::RSN), Ok(None));
        // Cut inside the vendor element: everything before it is still found.
        let cut = &ies[..ies.len() - 1];
        assert_eq!(elements(cut).filter(|e| e.is_ok()).count(), 6);
        assert_eq!(elements(cut).last(), Some(Err(Error::Truncated)));
        assert_eq!(find(cut, id::ERP).unwrap().unwrap().body, [0]);
        assert_eq!(find(cut, id::RSN), Err(Error::Truncated));
        // A lone Element ID octet is cut short too; an empty list has no element.
        assert_eq!(elements(&[0x30]).collect::<Vec<_>>(), [Err(Error::Truncated)]);
        assert_eq!(elements(&[]).count(), 0);
    }

    #[test]
    fn push_and_extension() {
        let mut v = Vec::new();
        push(&mut v, id::SSID, b"wsec").unwrap();
        push(&mut v, id::EXTENSION, &[35, 1, 2]).unwrap();
        assert_eq!(v, [0, 4, b'w', b's', b'e', b'c', 255, 3, 35, 1, 2]);
        assert_eq!(push(&mut v, id::VENDOR_SPECIFIC, &[0; 256]), Err(Error::Oversize));
        assert_eq!(v.len(), 11);
        push(&mut v, id::VENDOR_SPECIFIC, &[0; 255]).unwrap();
        assert_eq!(v.len(), 11 + 257);
        let e: Vec<Element<'_>> = elements(&v).map(|e| e.unwrap()).collect();
        assert_eq!(e[1].ext_id(), Some(35));
        assert_eq!(e[0].ext_id(), None);
    }

    #[test]
    fn timeout_interval() {
        // 9.4.2.48 laid out by hand: ID 56, Length 5, type 3 (association comeback), 1000 TU LE.
        let b = [0x38, 0x05, 0x03, 0xe8, 0x03, 0x00, 0x00];
        let e = Element::parse(&b).unwrap();
        let r = TimeoutIntervalRepr::parse(e.body).unwrap();
        assert_eq!(r, TimeoutIntervalRepr { kind: timeout_type::ASSOCIATION_COMEBACK, value: 1000 });
        let mut v = Vec::new();
        r.push(&mut v).unwrap();
        assert_eq!(v, b);
        assert_eq!(TimeoutIntervalRepr::parse(&b[2..6]), Err(Error::Truncated));
        assert!(matches!(TimeoutIntervalRepr::parse(&[3, 0, 0, 0, 0, 0]), Err(Error::Malformed(_))));
    }
}
