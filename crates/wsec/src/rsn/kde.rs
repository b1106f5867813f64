//! The Key Data field of EAPOL-Key frames, IEEE 802.11-2020 12.7.2 (Figure 12-34,
//! Table 12-10): a sequence of elements and KDEs.
//!
//! A KDE is `0xdd | Length | OUI 00-0F-AC | Data Type | Data` (Length counts OUI, Data Type
//! and Data). Elements (the RSN element, ID 48; vendor elements such as the WPA1 element;
//! RSNXE, ...) pass through whole. When AES Key Wrap encrypts the Key Data it is padded to
//! at least 16 octets and a multiple of 8 with one 0xdd octet followed by 0x00 octets
//! (12.7.2 j); on parsing, a 0xdd octet that is last or followed by 0x00 starts that
//! padding, and everything after it must be 0x00.
//!
//! [`iter`] walks Key Data yielding [`KeyDataItem`]s (borrowing from the buffer);
//! [`KeyDataBuilder`] lays them out. Neither panics on any input.
use crate::error::{Error, Result};
use crate::wire::mac::MacAddr;
use zeroize::Zeroize;

/// Element ID of KDEs and vendor-specific elements.
pub const KDE_ID: u8 = 0xdd;
/// The IEEE 802.11 OUI that KDEs carry.
pub const KDE_OUI: [u8; 3] = [0x00, 0x0f, 0xac];
/// The WPA1 vendor element: OUI 00-50-F2, OUI type 1.
pub const WPA_OUI: [u8; 3] = [0x00, 0x50, 0xf2];
pub const WPA_OUI_TYPE: u8 = 1;
/// The Wi-Fi Alliance's OUI, and the data type of its Transition Disable KDE (WPA3
/// Specification v3.x, 13.2; hostapd `WFA_KEY_DATA_TRANSITION_DISABLE`).
pub const WFA_OUI: [u8; 3] = [0x50, 0x6f, 0x9a];
pub const WFA_TRANSITION_DISABLE: u8 = 0x20;

/// Transition Disable bitmap bits (WPA3 Specification 13.2; wpa_common.h).
pub mod transition_disable {
    /// WPA3-Personal: no more WPA2-Personal (PSK) with this network.
    pub const WPA3_PERSONAL: u8 = 1 << 0;
    /// SAE-PK only.
    pub const SAE_PK: u8 = 1 << 1;
    /// WPA3-Enterprise: no more WPA2-Enterprise.
    pub const WPA3_ENTERPRISE: u8 = 1 << 2;
    /// Enhanced Open: no more open BSSs for this OWE network (owe_only).
    pub const ENHANCED_OPEN: u8 = 1 << 3;
}
/// Element ID of the RSN element.
pub const RSN_ELEMENT_ID: u8 = 48;

/// KDE Data Types (Table 12-10).
pub mod data_type {
    pub const GTK: u8 = 1;
    pub const MAC_ADDRESS: u8 = 3;
    pub const PMKID: u8 = 4;
    pub const NONCE: u8 = 6;
    pub const LIFETIME: u8 = 7;
    pub const ERROR: u8 = 8;
    pub const IGTK: u8 = 9;
    pub const KEY_ID: u8 = 10;
    pub const MULTI_BAND_GTK: u8 = 11;
    pub const MULTI_BAND_KEY_ID: u8 = 12;
    pub const OCI: u8 = 13;
    pub const BIGTK: u8 = 14;
}

/// GTK KDE (Figure 12-35): Key ID (b0-b1) and Tx (b2) in the first octet, one reserved
/// octet, the GTK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GtkKde<'a> {
    pub key_id: u8,
    pub tx: bool,
    pub gtk: &'a [u8],
}

/// IGTK KDE (Figure 12-42) and BIGTK KDE (Figure 12-43): Key ID (2 octets, little-endian),
/// IPN/BIPN (6 octets, little-endian: the first octet is IPN0), the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IgtkKde<'a> {
    /// 4 or 5 for an IGTK, 6 or 7 for a BIGTK (not enforced here).
    pub key_id: u16,
    /// The 48-bit IPN (BIPN for a BIGTK) in the low bits.
    pub ipn: u64,
    pub key: &'a [u8],
}

/// One item of Key Data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyDataItem<'a> {
    /// GTK KDE (Data Type 1).
    Gtk(GtkKde<'a>),
    /// MAC address KDE (3).
    MacAddress(MacAddr),
    /// PMKID KDE (4).
    Pmkid([u8; 16]),
    /// IGTK KDE (9).
    Igtk(IgtkKde<'a>),
    /// BIGTK KDE (14), same layout as the IGTK KDE.
    Bigtk(IgtkKde<'a>),
    /// Key ID KDE (10, Extended Key ID for Individually Addressed Frames): the Key ID
    /// (b0-b1 of the first octet; 0 or 1).
    KeyId(u8),
    /// Transition Disable KDE (OUI 50-6F-9A, type 0x20): the bitmap of
    /// [`transition_disable`] (its first Data octet).
    TransitionDisable(u8),
    /// Another KDE of the 00-0F-AC OUI, not interpreted (Nonce, Lifetime, Error, OCI,
    /// multi-band and MLO KDEs, ...): its Data Type and Data.
    Kde { data_type: u8, data: &'a [u8] },
    /// The RSN element, whole (Element ID, Length, body): parse with
    /// [`crate::rsn::ie::RsnElementRepr::parse`].
    Rsn(&'a [u8]),
    /// The WPA1 vendor element (OUI 00-50-F2 type 1), whole.
    Wpa(&'a [u8]),
    /// Any other element, whole (vendor elements, RSNXE, ...).
    Element(&'a [u8]),
}

impl<'a> KeyDataItem<'a> {
    /// Octets [`KeyDataItem::emit`] appends.
    pub fn buffer_len(&self) -> usize {
        match self {
            KeyDataItem::Rsn(e) | KeyDataItem::Wpa(e) | KeyDataItem::Element(e) => e.len(),
            _ => 6 + self.kde_data_len(),
        }
    }

    fn kde_data_len(&self) -> usize {
        match self {
            KeyDataItem::Gtk(g) => 2 + g.gtk.len(),
            KeyDataItem::MacAddress(_) => 6,
            KeyDataItem::Pmkid(_) => 16,
            KeyDataItem::Igtk(k) | KeyDataItem::Bigtk(k) => 8 + k.key.len(),
            KeyDataItem::KeyId(_) => 2,
            KeyDataItem::TransitionDisable(_) => 1,
            KeyDataItem::Kde { data, .. } => data.len(),
            KeyDataItem::Rsn(_) | KeyDataItem::Wpa(_) | KeyDataItem::Element(_) => 0,
        }
    }

    /// Appends the item to `out`. Errors: a KDE over 255 octets (Oversize), an element that
    /// is not exactly one whole element of the right kind, a Key ID over 3, an IPN over 48
    /// bits (Malformed).
    pub fn emit(&self, out: &mut Vec<u8>) -> Result<()> {
        let kde = |out: &mut Vec<u8>, dt: u8, parts: &[&[u8]]| -> Result<()> {
            let n: usize = parts.iter().map(|p| p.len()).sum();
            let len = u8::try_from(4 + n).map_err(|_| Error::Oversize)?;
            out.extend_from_slice(&[KDE_ID, len, KDE_OUI[0], KDE_OUI[1], KDE_OUI[2], dt]);
            for p in parts {
                out.extend_from_slice(p);
            }
            Ok(())
        };
        match self {
            KeyDataItem::Gtk(g) => {
                if g.key_id > 3 {
                    return Err(Error::Malformed("GTK Key ID over 3"));
                }
                let flags = g.key_id | if g.tx { 0x04 } else { 0 };
                kde(out, data_type::GTK, &[&[flags, 0], g.gtk])
            }
            KeyDataItem::MacAddress(a) => kde(out, data_type::MAC_ADDRESS, &[a.as_bytes()]),
            KeyDataItem::Pmkid(p) => kde(out, data_type::PMKID, &[p]),
            KeyDataItem::Igtk(k) | KeyDataItem::Bigtk(k) => {
                if k.ipn >> 48 != 0 {
                    return Err(Error::Malformed("IPN over 48 bits"));
                }
                let dt = if matches!(self, KeyDataItem::Igtk(_)) { data_type::IGTK } else { data_type::BIGTK };
                let ipn = k.ipn.to_le_bytes();
                kde(out, dt, &[&k.key_id.to_le_bytes(), &ipn[..6], k.key])
            }
            KeyDataItem::KeyId(id) => {
                if *id > 3 {
                    return Err(Error::Malformed("Key ID over 3"));
                }
                kde(out, data_type::KEY_ID, &[&[*id, 0]])
            }
            KeyDataItem::Kde { data_type, data } => kde(out, *data_type, &[data]),
            KeyDataItem::TransitionDisable(b) => {
                out.extend_from_slice(&[KDE_ID, 5, WFA_OUI[0], WFA_OUI[1], WFA_OUI[2], WFA_TRANSITION_DISABLE, *b]);
                Ok(())
            }
            KeyDataItem::Rsn(e) | KeyDataItem::Wpa(e) | KeyDataItem::Element(e) => {
                if e.len() < 2 || e.len() != 2 + e[1] as usize {
                    return Err(Error::Malformed("not one whole element"));
                }
                // The item must parse back as what it claims to be.
                match (classify(e)?, self) {
                    (KeyDataItem::Rsn(_), KeyDataItem::Rsn(_))
                    | (KeyDataItem::Wpa(_), KeyDataItem::Wpa(_))
                    | (KeyDataItem::Element(_), KeyDataItem::Element(_)) => {}
                    _ => return Err(Error::Malformed("element of another kind than the item names")),
                }
                out.extend_from_slice(e);
                Ok(())
            }
        }
    }
}

/// Interprets one whole element (ID, Length, body; `e.len() == 2 + e[1]`).
fn classify(e: &[u8]) -> Result<KeyDataItem<'_>> {
    let (id, body) = (e[0], &e[2..]);
    if id == RSN_ELEMENT_ID {
        return Ok(KeyDataItem::Rsn(e));
    }
    if id != KDE_ID {
        return Ok(KeyDataItem::Element(e));
    }
    if body.len() >= 4 && body[..3] == WPA_OUI && body[3] == WPA_OUI_TYPE {
        return Ok(KeyDataItem::Wpa(e));
    }
    if body.len() >= 4 && body[..3] == WFA_OUI && body[3] == WFA_TRANSITION_DISABLE {
        // At least the bitmap octet; later octets are reserved (hostapd reads the first).
        return body.get(4).map(|&b| KeyDataItem::TransitionDisable(b)).ok_or(Error::Truncated);
    }
    if body.len() < 3 || body[..3] != KDE_OUI {
        return Ok(KeyDataItem::Element(e));
    }
    if body.len() < 4 {
        // OUI 00-0F-AC without a Data Type.
        return Err(Error::Truncated);
    }
    let (dt, data) = (body[3], &body[4..]);
    let exact = |n: usize| -> Result<()> {
        if data.len() < n {
            Err(Error::Truncated)
        } else if data.len() > n {
            Err(Error::Malformed("KDE longer than its data type allows"))
        } else {
            Ok(())
        }
    };
    Ok(match dt {
        data_type::GTK => {
            if data.len() < 2 {
                return Err(Error::Truncated);
            }
            KeyDataItem::Gtk(GtkKde { key_id: data[0] & 3, tx: data[0] & 4 != 0, gtk: &data[2..] })
        }
        data_type::MAC_ADDRESS => {
            exact(6)?;
            KeyDataItem::MacAddress(MacAddr::from_bytes(data)?)
        }
        data_type::PMKID => {
            exact(16)?;
            let mut p = [0u8; 16];
            p.copy_from_slice(data);
            KeyDataItem::Pmkid(p)
        }
        data_type::IGTK | data_type::BIGTK => {
            if data.len() < 8 {
                return Err(Error::Truncated);
            }
            let k = IgtkKde {
                key_id: u16::from_le_bytes([data[0], data[1]]),
                ipn: u64::from_le_bytes([data[2], data[3], data[4], data[5], data[6], data[7], 0, 0]),
                key: &data[8..],
            };
            if dt == data_type::IGTK {
                KeyDataItem::Igtk(k)
            } else {
                KeyDataItem::Bigtk(k)
            }
        }
        data_type::KEY_ID => {
            exact(2)?;
            KeyDataItem::KeyId(data[0] & 3)
        }
        _ => KeyDataItem::Kde { data_type: dt, data },
    })
}

/// Iterator over the items of Key Data; yields at most one error, then stops.
#[derive(Debug, Clone)]
pub struct KeyDataIter<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
}

/// Walks plaintext Key Data.
pub fn iter(key_data: &[u8]) -> KeyDataIter<'_> {
    KeyDataIter { data: key_data, pos: 0, done: false }
}

/// All items of plaintext Key Data, or the first error.
pub fn parse(key_data: &[u8]) -> Result<Vec<KeyDataItem<'_>>> {
    iter(key_data).collect()
}

impl<'a> KeyDataIter<'a> {
    fn step(&mut self) -> Option<Result<KeyDataItem<'a>>> {
        let d = self.data;
        let rest = d.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        if rest[0] == KDE_ID && rest.get(1).is_none_or(|&b| b == 0) {
            // Padding: 0xdd then 0x00 octets to the end.
            self.pos = d.len();
            return if rest[1..].iter().all(|&b| b == 0) { None } else { Some(Err(Error::Malformed("Key Data padding not all zero"))) };
        }
        if rest.len() < 2 {
            return Some(Err(Error::Truncated));
        }
        let n = 2 + rest[1] as usize;
        let Some(e) = rest.get(..n) else {
            return Some(Err(Error::Truncated));
        };
        self.pos += n;
        Some(classify(e))
    }
}

impl<'a> Iterator for KeyDataIter<'a> {
    type Item = Result<KeyDataItem<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

impl core::iter::FusedIterator for KeyDataIter<'_> {}

/// Appends the AES Key Wrap padding of 12.7.2 j: if `key_data` is shorter than 16 octets or
/// not a multiple of 8, one 0xdd octet then 0x00 octets up to the next multiple of 8 (and at
/// least 16).
pub fn pad_for_key_wrap(key_data: &mut Vec<u8>) {
    let n = key_data.len();
    if n >= 16 && n & 7 == 0 {
        return;
    }
    let target = (n + 1).div_ceil(8).max(2) * 8;
    key_data.push(KDE_ID);
    key_data.resize(target, 0);
}

/// Builds Key Data. The buffer holds key material; it is wiped on drop (the vectors
/// `finish` returns are the caller's to wipe).
#[derive(Default)]
pub struct KeyDataBuilder {
    buf: Vec<u8>,
}

impl Drop for KeyDataBuilder {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

impl core::fmt::Debug for KeyDataBuilder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyDataBuilder").field("len", &self.buf.len()).finish_non_exhaustive()
    }
}

impl KeyDataBuilder {
    pub fn new() -> KeyDataBuilder {
        KeyDataBuilder::default()
    }

    /// Appends an item (errors as [`KeyDataItem::emit`]; nothing is appended on error).
    pub fn push(&mut self, item: &KeyDataItem<'_>) -> Result<&mut KeyDataBuilder> {
        let mut tmp = Vec::with_capacity(item.buffer_len());
        let r = item.emit(&mut tmp);
        if r.is_ok() {
            self.buf.extend_from_slice(&tmp);
        }
        tmp.zeroize();
        r.map(|_| self)
    }

    pub fn gtk(&mut self, key_id: u8, tx: bool, gtk: &[u8]) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::Gtk(GtkKde { key_id, tx, gtk }))
    }

    pub fn igtk(&mut self, key_id: u16, ipn: u64, igtk: &[u8]) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::Igtk(IgtkKde { key_id, ipn, key: igtk }))
    }

    pub fn bigtk(&mut self, key_id: u16, bipn: u64, bigtk: &[u8]) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::Bigtk(IgtkKde { key_id, ipn: bipn, key: bigtk }))
    }

    pub fn mac_address(&mut self, addr: MacAddr) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::MacAddress(addr))
    }

    pub fn pmkid(&mut self, pmkid: [u8; 16]) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::Pmkid(pmkid))
    }

    pub fn key_id(&mut self, key_id: u8) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::KeyId(key_id))
    }

    /// Any other KDE of the 00-0F-AC OUI.
    pub fn kde(&mut self, data_type: u8, data: &[u8]) -> Result<&mut KeyDataBuilder> {
        self.push(&KeyDataItem::Kde { data_type, data })
    }

    /// One whole element (ID, Length, body), e.g. the RSN element for message 2 or 3.
    pub fn element(&mut self, element: &[u8]) -> Result<&mut KeyDataBuilder> {
        if element.len() < 2 || element.len() != 2 + element[1] as usize {
            return Err(Error::Malformed("not one whole element"));
        }
        let item = classify(element)?;
        self.push(&item)
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The Key Data as built, unpadded (for RC4 encryption, or plaintext messages).
    pub fn finish(mut self) -> Vec<u8> {
        core::mem::take(&mut self.buf)
    }

    /// The Key Data padded for AES Key Wrap ([`pad_for_key_wrap`]).
    pub fn finish_padded(self) -> Vec<u8> {
        let mut v = self.finish();
        pad_for_key_wrap(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_parse_pad() {
        let mut b = KeyDataBuilder::new();
        b.gtk(1, true, &[0x11; 16]).unwrap().igtk(4, 0x0102_0304_0506, &[0x22; 16]).unwrap();
        b.key_id(1).unwrap();
        let v = b.finish_padded();
        assert_eq!(v.len() % 8, 0);
        let items = parse(&v).unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0], KeyDataItem::Gtk(GtkKde { key_id: 1, tx: true, gtk: &[0x11; 16] }));
        assert_eq!(items[1], KeyDataItem::Igtk(IgtkKde { key_id: 4, ipn: 0x0102_0304_0506, key: &[0x22; 16] }));
        assert_eq!(items[2], KeyDataItem::KeyId(1));
        for n in 0..40 {
            let mut v = vec![0x30, 0];
            v.resize(n.max(2), 1);
            v[1] = (v.len() - 2) as u8;
            let len = v.len();
            pad_for_key_wrap(&mut v);
            assert!(v.len() >= 16 && v.len() % 8 == 0);
            assert_eq!(parse(&v).unwrap().len(), 1, "{len}");
        }
        assert_eq!(parse(&[0xdd, 0, 1]), Err(Error::Malformed("Key Data padding not all zero")));
        assert_eq!(parse(&[0xdd]), Ok(vec![]));
        assert_eq!(parse(&[0x30]), Err(Error::Truncated));
    }
}
