//! Writing decrypted frames back out: a captured packet rebuilt around a new MPDU
//! ([`replace_mpdu`]), or an 802.11 data MPDU turned into an Ethernet II frame
//! ([`to_ethernet`]), as `airdecap-ng` writes them.
use super::radio::{self, LINKTYPE_AVS, LINKTYPE_IEEE802_11, LINKTYPE_PPI, LINKTYPE_PRISM, LINKTYPE_RADIOTAP};
use crate::error::{Error, Result};
use crate::wire::llc::{OUI_BRIDGE_TUNNEL, OUI_RFC1042};
use crate::wire::mac::Header;

/// LINKTYPE_ETHERNET (tcpdump.org link-layer header types): IEEE 802.3 / Ethernet II
/// frames without preamble and FCS, as airdecap-ng's `-dec.cap` output is.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// Radiotap Flags field (radiotap.org/fields/Flags): "frame includes FCS".
const RT_FLAG_FCS: u8 = 0x10;
/// Radiotap Flags: "frame has padding between 802.11 header and payload (to 32-bit
/// boundary)".
const RT_FLAG_DATAPAD: u8 = 0x20;
/// Radiotap Flags: "frame failed FCS check".
const RT_FLAG_BADFCS: u8 = 0x40;

/// Prism (wlan-ng `p80211` sniff message) message codes, as Wireshark's
/// `packet-ieee80211-prism.c` recognises them to tell the header's byte order:
/// `DIDmsg_lnxind_wlansniffrm` and its second variant.
const PRISM_MSGCODES: [u32; 2] = [0x0000_0044, 0x0000_0041];
/// DID of the `frmlen` item ("Frame Length: length of the following frame in bytes"),
/// in both numbering schemes Wireshark knows (PRISM_TYPE1_FRMLEN, PRISM_TYPE2_FRMLEN).
const PRISM_DID_FRMLEN: [u32; 2] = [0x000a_0044, 0x0000_a041];
/// Prism header: msgcode (4), msglen (4), devname (16), then DID items of 12 octets:
/// did (4), status (2; 0 = value supplied), len (2), data (4).
const PRISM_ITEMS_AT: usize = 24;
const PRISM_ITEM_LEN: usize = 12;

/// PPI field type of the 802.11-Common field (PPI Header Format Specification 1.0.10,
/// CACE Technologies, 2007, section 4.1.2).
const PPI_FIELD_80211_COMMON: u16 = 2;
/// 802.11-Common Flags (offset 8 in the field): FCS present, FCS invalid.
const PPI_COMMON_FCS_PRESENT: u16 = 0x0001;
const PPI_COMMON_FCS_INVALID: u16 = 0x0004;
/// PPI header flags bit 0: fields are 32-bit aligned.
const PPI_FLAG_ALIGN32: u8 = 0x01;

/// Rebuilds a captured packet of link type `linktype` around `new_mpdu` (typically the
/// decrypted MPDU: same MAC header with Protected cleared, plaintext body, no security
/// header, MIC or ICV, no padding), keeping the radio header in front.
///
/// Rules, per link type:
/// - FCS: if the original packet carried an FCS (as [`radio::mpdu`] decides: radiotap's
///   Flags, else the CRC-32 of the tail), a correct FCS over `new_mpdu` is computed and
///   appended (IEEE 802.11-2020 9.2.4.8: CRC-32 over the MAC header and frame body,
///   least significant octet first), so that readers which check it accept the frame.
/// - 105, raw 802.11: no header.
/// - 127, radiotap (radiotap.org): `it_len` covers the radiotap header only, so it stays.
///   In the Flags field (if present) the FCS bit is kept (it matches the FCS appended),
///   "bad FCS" is cleared (the new FCS is right) and "data pad" is cleared (`new_mpdu`
///   has no padding between header and body).
/// - 119, Prism (wlan-ng sniff header as Wireshark's `packet-ieee80211-prism.c` lays it
///   out): the `frmlen` DID item, if present with status 0, holds the length of the
///   frame that follows, FCS included (e.g. 118 for the 114 + 4 octets of the frames of
///   aircrack-ng's `wpa.cap`); it is set to the new length, in the header's byte order
///   (told by the message code, as Wireshark does). `msglen` covers the header only.
/// - 163, AVS (the "AVS WLAN capture header", Wireshark's `packet-ieee80211-wlancap.c`):
///   a fixed header (64 octets in version 1) with no frame length: kept as is.
/// - 192, PPI (PPI Header Format Specification 1.0.10): `pph_len` covers the PPI header
///   only: kept. In an 802.11-Common field, "FCS present" is set to whether an FCS is
///   appended and "FCS invalid" is cleared.
///
/// Errors: the original's radio header cannot be parsed (see [`radio::mpdu`]), or
/// `new_mpdu` does not hold a whole 802.11 MAC header.
pub fn replace_mpdu(linktype: u32, original: &[u8], new_mpdu: &[u8]) -> Result<Vec<u8>> {
    let m = radio::mpdu(linktype, original)?;
    Header::new_checked(new_mpdu)?;
    let radio_len = m.radio_len;
    let mut out = Vec::with_capacity(radio_len + new_mpdu.len() + 4);
    out.extend_from_slice(original.get(..radio_len).ok_or(Error::Truncated)?);
    out.extend_from_slice(new_mpdu);
    if m.had_fcs {
        out.extend_from_slice(&crc32fast::hash(new_mpdu).to_le_bytes());
    }
    let frame_len = new_mpdu.len() + if m.had_fcs { 4 } else { 0 };
    match linktype {
        LINKTYPE_RADIOTAP => {
            if let Some(at) = radiotap_flags_offset(&out[..radio_len])? {
                out[at] &= !(RT_FLAG_BADFCS | RT_FLAG_DATAPAD);
                // radio::mpdu took `had_fcs` from this very bit: it stays as it was.
                if m.had_fcs {
                    out[at] |= RT_FLAG_FCS;
                }
            }
        }
        LINKTYPE_PRISM => prism_set_frmlen(&mut out[..radio_len], frame_len)?,
        LINKTYPE_PPI => ppi_set_fcs_flags(&mut out[..radio_len], m.had_fcs),
        LINKTYPE_AVS | LINKTYPE_IEEE802_11 => {}
        _ => return Err(Error::Unsupported("link type without 802.11 frames")),
    }
    Ok(out)
}

/// Offset of the radiotap Flags octet, if the field is present (radiotap.org: fields
/// follow the chain of `it_present` words in bit order, each aligned to its size; TSFT,
/// bit 0, is 8 octets aligned to 8; Flags, bit 1, is one octet).
fn radiotap_flags_offset(h: &[u8]) -> Result<Option<usize>> {
    let word = |at: usize| -> Result<u32> {
        let w = h.get(at..at + 4).ok_or(Error::Truncated)?;
        Ok(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let first = word(4)?;
    let mut off = 4;
    loop {
        let w = word(off)?;
        off += 4;
        if w & 0x8000_0000 == 0 {
            break;
        }
    }
    if first & 0b10 == 0 {
        return Ok(None);
    }
    if first & 1 != 0 {
        off = (off + 7) & !7;
        off += 8;
    }
    if off >= h.len() {
        return Err(Error::Truncated);
    }
    Ok(Some(off))
}

fn prism_set_frmlen(h: &mut [u8], frame_len: usize) -> Result<()> {
    let Some(code) = h.get(0..4) else {
        return Err(Error::Truncated);
    };
    let code = [code[0], code[1], code[2], code[3]];
    let le = if PRISM_MSGCODES.contains(&u32::from_le_bytes(code)) {
        true
    } else if PRISM_MSGCODES.contains(&u32::from_be_bytes(code)) {
        false
    } else {
        // Not a header whose items are known (e.g. an AVS header in a Prism file, which
        // Wireshark also accepts): nothing to update.
        return Ok(());
    };
    let rd32 = |b: &[u8]| {
        if le {
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        } else {
            u32::from_be_bytes([b[0], b[1], b[2], b[3]])
        }
    };
    let rd16 = |b: &[u8]| {
        if le {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        }
    };
    let value = u32::try_from(frame_len).map_err(|_| Error::Oversize)?;
    let mut off = PRISM_ITEMS_AT;
    while off + PRISM_ITEM_LEN <= h.len() {
        let item = &mut h[off..off + PRISM_ITEM_LEN];
        if PRISM_DID_FRMLEN.contains(&rd32(&item[0..4])) && rd16(&item[4..6]) == 0 {
            item[8..12].copy_from_slice(&if le { value.to_le_bytes() } else { value.to_be_bytes() });
        }
        off += PRISM_ITEM_LEN;
    }
    Ok(())
}

/// PPI: header (version, flags, length LE, DLT LE), then fields (type LE, length LE,
/// data). The 802.11-Common field is TSF (8), Flags (2), Rate, Channel, ... (20 octets).
fn ppi_set_fcs_flags(h: &mut [u8], has_fcs: bool) {
    if h.len() < 8 {
        return;
    }
    let align = h[1] & PPI_FLAG_ALIGN32 != 0;
    let mut off = 8;
    while off + 4 <= h.len() {
        let ftype = u16::from_le_bytes([h[off], h[off + 1]]);
        let flen = u16::from_le_bytes([h[off + 2], h[off + 3]]) as usize;
        let data = off + 4;
        if ftype == PPI_FIELD_80211_COMMON && flen >= 10 && data + 10 <= h.len() {
            let mut flags = u16::from_le_bytes([h[data + 8], h[data + 9]]);
            flags &= !PPI_COMMON_FCS_INVALID;
            if has_fcs {
                flags |= PPI_COMMON_FCS_PRESENT;
            } else {
                flags &= !PPI_COMMON_FCS_PRESENT;
            }
            h[data + 8..data + 10].copy_from_slice(&flags.to_le_bytes());
        }
        off = data + flen;
        if align {
            off = (off + 3) & !3;
        }
    }
}

/// An 802.11 data MPDU (plaintext: Protected clear, no security header, no FCS) with an
/// LLC/SNAP-encapsulated MSDU, as the Ethernet frame a bridge would forward:
/// `DA || SA || EtherType || payload` (no FCS), for [`LINKTYPE_ETHERNET`].
///
/// - DA and SA by To DS / From DS (IEEE 802.11-2020 9.3.2.1, Table 9-26): A1/A2 in an
///   IBSS, A3/A2 to the DS, A1/A3 from the DS, A3/A4 with four addresses. airdecap-ng's
///   `write_packet` picks the same addresses.
/// - A SNAP header `AA-AA-03` with the RFC 1042 OUI `00-00-00` or the 802.1H
///   bridge-tunnel OUI `00-00-F8` is removed and its EtherType kept (IEEE 802.1H, RFC
///   1042; 802.11-2020 Annex M). airdecap-ng removes the 6 octets after the MAC header and
///   keeps the next 2 whatever they hold; on SNAP bodies both give the same frame. (Linux
///   mac80211 additionally keeps RFC 1042-encapsulated AARP and IPX as 802.3 frames; as
///   airdecap-ng does, they are turned into Ethernet II here.)
/// - Any other body (LLC without SNAP, e.g. spanning tree `42-42-03`, or SNAP with another
///   OUI) becomes an IEEE 802.3 frame with a length field, `DA || SA || length || body`,
///   which keeps every octet (Linux mac80211 does the same). airdecap-ng has no such
///   case: it would cut 6 octets of the body and take the next two as an EtherType, a
///   corrupt frame; its output and this one differ only for such bodies. A body over 1500
///   octets cannot be framed so (the length would read as an EtherType): `Oversize`.
///
/// Errors: not a data frame or a Null (no body) subtype (`Unsupported`), Protected set
/// (`Unsupported`: decrypt first), an A-MSDU (`Unsupported`: one MSDU per Ethernet frame;
/// split the A-MSDU subframes first), an empty or truncated body (`Truncated`).
pub fn to_ethernet(mpdu: &[u8]) -> Result<Vec<u8>> {
    let h = Header::new_checked(mpdu)?;
    let fc = h.frame_control();
    if !fc.is_data() {
        return Err(Error::Unsupported("not a data frame"));
    }
    if !fc.has_data_body() {
        return Err(Error::Unsupported("Null data frame: no MSDU"));
    }
    if fc.protected() {
        return Err(Error::Unsupported("protected frame: decrypt it first"));
    }
    if h.qos_control().is_some_and(|q| q.amsdu_present()) {
        return Err(Error::Unsupported("A-MSDU: split its subframes first"));
    }
    let (Some(da), Some(sa)) = (h.da(), h.sa()) else {
        return Err(Error::Malformed("data frame without DA/SA"));
    };
    let body = h.payload();
    if body.is_empty() {
        return Err(Error::Truncated);
    }
    let snap = body.len() >= 3 && body[..3] == [0xaa, 0xaa, 0x03];
    if snap && body.len() < 8 {
        return Err(Error::Truncated);
    }
    let mut out = Vec::with_capacity(14 + body.len());
    out.extend_from_slice(da.as_bytes());
    out.extend_from_slice(sa.as_bytes());
    if snap && (body[3..6] == OUI_RFC1042 || body[3..6] == OUI_BRIDGE_TUNNEL) {
        out.extend_from_slice(&body[6..]);
    } else {
        if body.len() > 1500 {
            return Err(Error::Oversize);
        }
        out.extend_from_slice(&(body.len() as u16).to_be_bytes());
        out.extend_from_slice(body);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{CaptureReader, Packet};
    use super::*;
    use std::path::{Path, PathBuf};

    fn capture(rel: &str) -> Vec<Packet> {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let path = base.join("captures").join(rel);
        CaptureReader::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).map(|p| p.unwrap()).collect()
    }

    fn h(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    fn all_captures(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                all_captures(&p, out);
            } else if super::super::writer::file_kind(&p).is_ok() {
                out.push(p);
            }
        }
    }

    /// Replacing the MPDU of a packet by itself gives the packet back, on every frame of
    /// every capture in testdata/: raw 802.11, radiotap (with and without
    /// the FCS flag), Prism with FCS.
    #[test]
    fn identity_on_real_captures() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut files = Vec::new();
        all_captures(&base.join("captures"), &mut files);
        // (link type, had FCS) -> frames
        let mut seen = std::collections::BTreeMap::new();
        for f in &files {
            // pmkid-not-recognized.cap is cut short in its last record: whole packets only.
            for p in CaptureReader::open(f).unwrap().map_while(|p| p.ok()) {
                let lt = p.linktype;
                let Ok(m) = radio::mpdu(lt, &p.data) else { continue };
                if Header::new_checked(m.bytes).is_err() {
                    continue;
                }
                *seen.entry((lt, m.had_fcs)).or_insert(0usize) += 1;
                assert_eq!(replace_mpdu(lt, &p.data, m.bytes).unwrap(), p.data, "{}", f.display());
            }
        }
        // (No shared capture has raw 802.11 frames with an FCS: `raw_with_fcs` covers it.)
        for key in [(LINKTYPE_IEEE802_11, false), (LINKTYPE_RADIOTAP, false), (LINKTYPE_RADIOTAP, true), (LINKTYPE_PRISM, true)] {
            assert!(seen.contains_key(&key), "{key:?} not seen: {seen:?}");
        }
    }

    /// A shorter MPDU in a Prism packet with FCS (aircrack-ng's wpa.cap): frmlen follows,
    /// the FCS is recomputed, and the packet parses back to the new MPDU.
    #[test]
    fn prism_frmlen_and_fcs() {
        let pkts = capture("aircrack/wpa.cap");
        let orig = &pkts[0].data;
        let m = radio::mpdu(LINKTYPE_PRISM, orig).unwrap();
        assert_eq!(m.radio_len, 144);
        assert!(m.had_fcs);
        // The frmlen item (DID 0x000a0044, LE) at 24 + 9 * 12 holds the frame length.
        let frmlen = |b: &[u8]| u32::from_le_bytes(b[132 + 8..132 + 12].try_into().unwrap()) as usize;
        assert_eq!(&orig[132..136], &[0x44, 0, 0x0a, 0]);
        assert_eq!(frmlen(orig), orig.len() - 144);
        let new = &m.bytes[..m.bytes.len() - 10];
        let out = replace_mpdu(LINKTYPE_PRISM, orig, new).unwrap();
        assert_eq!(out.len(), 144 + new.len() + 4);
        assert_eq!(frmlen(&out), new.len() + 4);
        assert_eq!(&out[..132], &orig[..132]);
        let back = radio::mpdu(LINKTYPE_PRISM, &out).unwrap();
        assert!(back.had_fcs);
        assert_eq!(back.bytes, new);
        // Big-endian header: same rule in the other byte order.
        let mut be = orig.clone();
        for at in (0..144).step_by(4).filter(|&a| a == 0 || a == 4 || (a >= 24 && (a - 24) % 12 != 4)) {
            be[at..at + 4].reverse();
        }
        for at in (24..144).step_by(12) {
            be[at + 4..at + 6].reverse();
            be[at + 6..at + 8].reverse();
        }
        let out = replace_mpdu(LINKTYPE_PRISM, &be, new).unwrap();
        assert_eq!(u32::from_be_bytes(out[140..144].try_into().unwrap()) as usize, new.len() + 4);
    }

    #[test]
    fn radiotap_flags() {
        // Radiotap: len 16, present = TSFT|Flags|Rate, TSFT, flags FCS|DATAPAD|BADFCS, rate.
        let frame = h("08020000 000102030405 0a0b0c0d0e0f 000102030405 1000 aaaa0300000008004500");
        let mut p = h("0000 1200 07000000 1122334455667788 70 02");
        p[2] = 18;
        assert_eq!(p.len(), 18);
        p.extend_from_slice(&frame);
        p.extend_from_slice(&crc32fast::hash(&frame).to_le_bytes());
        let new = &frame[..frame.len() - 2];
        let out = replace_mpdu(LINKTYPE_RADIOTAP, &p, new).unwrap();
        assert_eq!(out[16], RT_FLAG_FCS, "FCS kept, bad FCS and data pad cleared");
        let back = radio::mpdu(LINKTYPE_RADIOTAP, &out).unwrap();
        assert!(back.had_fcs);
        assert_eq!(back.bytes, new);
        assert_eq!(&out[back.bytes.len() + 18..], &crc32fast::hash(new).to_le_bytes());
        // Without the FCS flag: no FCS appended.
        let mut q = p[..18].to_vec();
        q[16] = 0;
        q.extend_from_slice(&frame);
        let out = replace_mpdu(LINKTYPE_RADIOTAP, &q, new).unwrap();
        assert_eq!(out.len(), 18 + new.len());
    }

    #[test]
    fn raw_with_fcs() {
        let frame = h("08020000 000102030405 0a0b0c0d0e0f 000102030405 1000 aaaa0300000008004500");
        let mut p = frame.clone();
        p.extend_from_slice(&crc32fast::hash(&frame).to_le_bytes());
        let new = &frame[..28];
        let out = replace_mpdu(LINKTYPE_IEEE802_11, &p, new).unwrap();
        assert_eq!(&out[..28], new);
        assert_eq!(&out[28..], &crc32fast::hash(new).to_le_bytes());
        assert_eq!(replace_mpdu(LINKTYPE_IEEE802_11, &frame, new).unwrap(), new);
    }

    #[test]
    fn avs_and_ppi() {
        let frame = h("08010000 000102030405 0a0b0c0d0e0f 000102030405 1000 aaaa0300000008004500");
        let mut with_fcs = frame.clone();
        with_fcs.extend_from_slice(&crc32fast::hash(&frame).to_le_bytes());
        let new = &frame[..26];
        // AVS v1: version, length 64 (big-endian), 56 octets of fields: kept verbatim.
        let mut avs = h("80211001 00000040");
        avs.resize(64, 0x5a);
        let mut p = avs.clone();
        p.extend_from_slice(&with_fcs);
        let out = replace_mpdu(LINKTYPE_AVS, &p, new).unwrap();
        assert_eq!(&out[..64], &avs[..]);
        assert_eq!(radio::mpdu(LINKTYPE_AVS, &out).unwrap().bytes, new);
        // PPI with an 802.11-Common field whose flags say FCS present + FCS invalid.
        let mut ppi = h("00 00 2000 69000000 0200 1400");
        ppi.extend_from_slice(&[0; 8]);
        ppi.extend_from_slice(&(PPI_COMMON_FCS_PRESENT | PPI_COMMON_FCS_INVALID).to_le_bytes());
        ppi.extend_from_slice(&[0; 10]);
        assert_eq!(ppi.len(), 32);
        let mut p = ppi.clone();
        p.extend_from_slice(&with_fcs);
        let out = replace_mpdu(LINKTYPE_PPI, &p, new).unwrap();
        assert_eq!(u16::from_le_bytes([out[20], out[21]]), PPI_COMMON_FCS_PRESENT);
        assert_eq!(&out[..20], &ppi[..20]);
        let back = radio::mpdu(LINKTYPE_PPI, &out).unwrap();
        assert!(back.had_fcs);
        assert_eq!(back.bytes, new);
    }

    #[test]
    fn replace_errors_not_panics() {
        let frame = h("08010000 000102030405 0a0b0c0d0e0f 000102030405 1000 aaaa");
        assert_eq!(replace_mpdu(LINKTYPE_IEEE802_11, &frame, &frame[..20]), Err(Error::Truncated));
        assert!(replace_mpdu(1, &frame, &frame).is_err());
        for n in 0..40 {
            for lt in [LINKTYPE_IEEE802_11, LINKTYPE_RADIOTAP, LINKTYPE_PRISM, LINKTYPE_AVS, LINKTYPE_PPI] {
                let junk: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
                let _ = replace_mpdu(lt, &junk, &frame);
                let _ = replace_mpdu(lt, &frame, &junk);
            }
        }
    }

    /// Unprotected EAPOL frames of real captures (the handshakes are sent in the clear):
    /// from the AP (From DS) and to it (To DS).
    #[test]
    fn ethernet_from_real_eapol_frames() {
        let (mut from_ds, mut to_ds) = (0, 0);
        for p in capture("aircrack/wpa2-psk-linksys.cap") {
            let m = radio::mpdu(p.linktype, &p.data).unwrap();
            let Ok(hd) = Header::new_checked(m.bytes) else { continue };
            let fc = hd.frame_control();
            if !fc.is_data() || fc.protected() || !fc.has_data_body() {
                continue;
            }
            let body = hd.payload();
            assert_eq!(&body[..8], &h("aaaa03000000888e")[..]);
            let e = to_ethernet(m.bytes).unwrap();
            assert_eq!(e.len(), 12 + body.len() - 6);
            assert_eq!(&e[12..], &body[6..]);
            assert_eq!(&e[12..14], &[0x88, 0x8e]);
            if fc.from_ds() {
                from_ds += 1;
                assert_eq!(&e[..6], &m.bytes[4..10]); // DA = A1
                assert_eq!(&e[6..12], &m.bytes[16..22]); // SA = A3
            } else {
                to_ds += 1;
                assert_eq!(&e[..6], &m.bytes[16..22]); // DA = A3
                assert_eq!(&e[6..12], &m.bytes[10..16]); // SA = A2
            }
        }
        assert!(from_ds >= 6 && to_ds >= 3, "{from_ds} {to_ds}");
    }

    #[test]
    fn ethernet_address_rules_and_bodies() {
        let a = |n: u8| [n; 6];
        let ip = h("aaaa030000000800 45000014");
        let mk = |fc1: u8, qos: bool, body: &[u8]| {
            let mut f = vec![if qos { 0x88 } else { 0x08 }, fc1, 0, 0];
            for n in 1..=3 {
                f.extend_from_slice(&a(n));
            }
            f.extend_from_slice(&[0x10, 0]);
            if fc1 & 3 == 3 {
                f.extend_from_slice(&a(4));
            }
            if qos {
                f.extend_from_slice(&[5, 0]);
            }
            f.extend_from_slice(body);
            f
        };
        // Table 9-26: (DA, SA) by To DS / From DS.
        for (fc1, da, sa) in [(0u8, 1u8, 2u8), (1, 3, 2), (2, 1, 3), (3, 3, 4)] {
            for qos in [false, true] {
                let e = to_ethernet(&mk(fc1, qos, &ip)).unwrap();
                assert_eq!(&e[..6], &a(da));
                assert_eq!(&e[6..12], &a(sa));
                assert_eq!(&e[12..], &h("0800 45000014")[..]);
            }
        }
        // 802.1H bridge tunnel: stripped too.
        let e = to_ethernet(&mk(1, false, &h("aaaa03 0000f8 80f3 0102"))).unwrap();
        assert_eq!(&e[12..], &h("80f3 0102")[..]);
        // Non-SNAP LLC (spanning tree) and SNAP with another OUI: 802.3 length framing.
        for body in [h("424203 0000 00"), h("aaaa03 004096 0000 01")] {
            let e = to_ethernet(&mk(2, false, &body)).unwrap();
            assert_eq!(u16::from_be_bytes([e[12], e[13]]) as usize, body.len());
            assert_eq!(&e[14..], &body[..]);
        }
        assert_eq!(to_ethernet(&mk(2, false, &vec![0x42; 1501])), Err(Error::Oversize));
        // Refusals.
        assert_eq!(to_ethernet(&mk(2, false, &h("aaaa030000"))), Err(Error::Truncated));
        assert_eq!(to_ethernet(&mk(2, false, &[])), Err(Error::Truncated));
        let mut prot = mk(2, false, &ip);
        prot[1] |= 0x40;
        assert!(matches!(to_ethernet(&prot), Err(Error::Unsupported(_))));
        let mut amsdu = mk(2, true, &ip);
        amsdu[24] |= 0x80;
        assert!(matches!(to_ethernet(&amsdu), Err(Error::Unsupported(_))));
        let mut null = mk(1, false, &[]);
        null[0] = 0x48;
        assert!(matches!(to_ethernet(&null), Err(Error::Unsupported(_))));
        let mut mgmt = mk(0, false, &ip);
        mgmt[0] = 0xd0;
        assert!(matches!(to_ethernet(&mgmt), Err(Error::Unsupported(_))));
        for n in 0..30 {
            assert!(to_ethernet(&mk(3, true, &ip)[..n]).is_err());
        }
    }
}
