//! The octets on the wire: the two Ethernet encapsulations, the TLV lists, the AES-SIV
//! protection and the keys of the `r0kh=`/`r1kh=` lines.
//!
//! Two formats share the distribution system:
//!
//! - **FT over the DS** (IEEE 802.11-2020 13.10.3, the Remote Request/Response frame;
//!   11A.10.3 of 802.11r-2008): Ethernet type 89-0D, then hostapd's `struct ft_rrb_frame`:
//!   Frame Type (1 = FT RRB), Packet Type (0 Request, 1 Response), Action Length (LE16),
//!   AP Address (6) and the FT Action frame from its Category field. [`OverDs`].
//! - **Key-holder messages** (PULL, RESP, PUSH, SEQ_REQ, SEQ_RESP): not in the standard,
//!   which leaves R0KH-R1KH key transport out of scope (13.2). hostapd carries them in the
//!   IEEE 802 OUI Extended EtherType 88-B7 (IEEE Std 802-2014 9.2.4) with OUI 00-13-74,
//!   vendor subtype 00-01 and one octet of packet type (`eth_p_oui.c`), *not* in 89-0D.
//!   After that: the length of the authenticated TLVs (LE16), those TLVs, then the
//!   AES-SIV output over the encrypted TLVs (`wpa_ft_rrb_build`). [`KhFrame`].
use crate::error::{Error, Result};
use crate::wire::mac::MacAddr;
use aes_siv::aead::KeyInit;
use aes_siv::siv::Aes128Siv;
use zeroize::Zeroizing;

/// The Ethernet type of FT over the DS (IEEE 802.11 encapsulation, 89-0D; hostapd
/// `ETH_P_RRB`).
pub const ETHERTYPE_RRB: u16 = 0x890d;
/// IEEE 802 OUI Extended EtherType (88-B7), what hostapd's key-holder messages ride on.
pub const ETHERTYPE_OUI: u16 = 0x88b7;
/// hostapd's OUI (00-13-74) and vendor-specific subtype (00-01) after type 88-B7.
pub const OUI_PREFIX: [u8; 5] = [0x00, 0x13, 0x74, 0x00, 0x01];
/// Ethernet II header: destination, source, type.
pub const ETH_HEADER_LEN: usize = 14;
/// Ethernet header, OUI prefix and the packet-type octet of a key-holder message.
pub const KH_HEADER_LEN: usize = ETH_HEADER_LEN + OUI_PREFIX.len() + 1;
/// The largest frame accepted or built: an Ethernet frame of MTU 1500 (hostapd's messages
/// are a few hundred octets; a longer one is refused as `Oversize`, before any crypto).
pub const MAX_FRAME_LEN: usize = 1514;
/// hostapd pads a key-holder payload (from the authenticated length on) to 64 octets with
/// an empty TLV at the end of the authenticated part (`RRB_MIN_MSG_LEN`), so no Ethernet
/// padding ever follows the SIV output.
pub const MIN_PAYLOAD_LEN: usize = 64;
/// The synthetic IV AES-SIV puts before the ciphertext (RFC 5297 2.6).
pub const SIV_LEN: usize = 16;
/// The nonce of a PULL/RESP or SEQ_REQ/SEQ_RESP pair (`FT_RRB_NONCE_LEN`).
pub const NONCE_LEN: usize = 16;
/// R0KH-ID length limits (IEEE 802.11-2020 9.4.2.47: 1 to 48 octets).
pub const R0KH_ID_MAX_LEN: usize = 48;
/// PMKR0Name / PMKR1Name (Truncate-128, 12.7.1.6.3/4).
pub const PMK_NAME_LEN: usize = 16;

/// The key-holder packet types (hostapd `FT_PACKET_R0KH_R1KH_*`): the octet after the OUI
/// prefix, and the last element of the AES-SIV associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PacketType {
    Pull = 1,
    Resp = 2,
    Push = 3,
    SeqReq = 4,
    SeqResp = 5,
}

impl PacketType {
    pub fn from_u8(v: u8) -> Option<PacketType> {
        Some(match v {
            1 => PacketType::Pull,
            2 => PacketType::Resp,
            3 => PacketType::Push,
            4 => PacketType::SeqReq,
            5 => PacketType::SeqResp,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PacketType::Pull => "PULL",
            PacketType::Resp => "RESP",
            PacketType::Push => "PUSH",
            PacketType::SeqReq => "SEQ_REQ",
            PacketType::SeqResp => "SEQ_RESP",
        }
    }
}

/// TLV types (hostapd `FT_RRB_*`, `wpa_auth.h`). Type and length are LE16 each.
pub mod tlv {
    /// Padding (the authenticated part's last TLV when a message is short).
    pub const LAST_EMPTY: u16 = 0;
    /// `struct ft_rrb_seq`: dom, seq, ts, LE32 each.
    pub const SEQ: u16 = 1;
    pub const NONCE: u16 = 2;
    pub const TIMESTAMP: u16 = 3;
    pub const R0KH_ID: u16 = 4;
    pub const R1KH_ID: u16 = 5;
    pub const S1KH_ID: u16 = 6;
    pub const PMK_R0_NAME: u16 = 7;
    pub const PMK_R0: u16 = 8;
    pub const PMK_R1_NAME: u16 = 9;
    pub const PMK_R1: u16 = 10;
    /// LE16, hostapd's `WPA_CIPHER_*` bit of the pairwise cipher.
    pub const PAIRWISE: u16 = 11;
    /// LE16 seconds (0: no expiry).
    pub const EXPIRES_IN: u16 = 12;
    pub const VLAN_UNTAGGED: u16 = 13;
    pub const VLAN_TAGGED: u16 = 14;
    pub const IDENTITY: u16 = 15;
    pub const RADIUS_CUI: u16 = 16;
    /// LE32 seconds (0: none).
    pub const SESSION_TIMEOUT: u16 = 17;
}

/// Splits a TLV list into (type, value) pairs. Every octet must belong to a TLV: a header
/// or value cut short is `Malformed` (hostapd stops quietly there; a list we take is whole).
pub fn parse_tlvs(mut b: &[u8]) -> Result<Vec<(u16, &[u8])>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        if b.len() < 4 {
            return Err(Error::Malformed("RRB TLV header cut short"));
        }
        let t = u16::from_le_bytes([b[0], b[1]]);
        let len = u16::from_le_bytes([b[2], b[3]]) as usize;
        let v = b.get(4..4 + len).ok_or(Error::Malformed("RRB TLV runs past the list"))?;
        out.push((t, v));
        b = &b[4 + len..];
    }
    Ok(out)
}

/// Appends one TLV. Values over 65535 octets cannot be written (`Oversize`).
pub fn put_tlv(out: &mut Vec<u8>, t: u16, v: &[u8]) -> Result<()> {
    let len = u16::try_from(v.len()).map_err(|_| Error::Oversize)?;
    out.extend_from_slice(&t.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(v);
    Ok(())
}

/// The 256-bit key shared with one remote key holder: AES-SIV-CMAC-256 (RFC 5297, two
/// AES-128 keys: S2V with the first half, CTR with the second), as hostapd uses it
/// (`aes_siv_encrypt(key, 32, ...)`).
#[derive(Clone)]
pub struct RkhKey(Zeroizing<[u8; 32]>);

impl RkhKey {
    pub fn from_bytes(k: [u8; 32]) -> RkhKey {
        RkhKey(Zeroizing::new(k))
    }

    /// The key field of an `r0kh=`/`r1kh=` line (hostapd `rkh_derive_key`): 64 hex digits
    /// are the key; 32 hex digits are an old 128-bit key, stretched with the RFC 5295 KDF,
    /// HMAC-SHA256(old, "FT OLDKEY" || 0x00 || 0x01) (one output block). Anything else
    /// is `Malformed`.
    pub fn from_hex(s: &str) -> Result<RkhKey> {
        let s = s.trim();
        let b = s.as_bytes();
        let mut k = Zeroizing::new([0u8; 32]);
        let decode = |out: &mut [u8]| -> Result<()> {
            for (i, o) in out.iter_mut().enumerate() {
                let hi = crate::input::hex_digit(b[2 * i]).ok_or(Error::Malformed("key is not hex"))?;
                let lo = crate::input::hex_digit(b[2 * i + 1]).ok_or(Error::Malformed("key is not hex"))?;
                *o = hi << 4 | lo;
            }
            Ok(())
        };
        match b.len() {
            64 => decode(&mut k[..])?,
            32 => {
                use hmac::Mac;
                let mut old = Zeroizing::new([0u8; 16]);
                decode(&mut old[..])?;
                let mut m =
                    <hmac::Hmac<sha2::Sha256> as hmac::digest::KeyInit>::new_from_slice(&old[..]).map_err(|_| Error::BadKeyLength)?;
                m.update(b"FT OLDKEY\0\x01");
                k.copy_from_slice(&m.finalize().into_bytes());
            }
            _ => return Err(Error::Malformed("r0kh/r1kh key is not 64 (or 32) hex digits")),
        }
        Ok(RkhKey(k))
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl core::fmt::Debug for RkhKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RkhKey(..)")
    }
}

/// `struct ft_rrb_seq`: the sender's sequence domain (random, odd), its counter and its
/// clock in seconds (hostapd: `os_get_reltime`, a monotonic clock, not Unix time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seq {
    pub dom: u32,
    pub seq: u32,
    pub ts: u32,
}

impl Seq {
    pub const LEN: usize = 12;

    pub fn parse(b: &[u8]) -> Result<Seq> {
        if b.len() != Seq::LEN {
            return Err(Error::Malformed("RRB SEQ is not 12 octets"));
        }
        let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Ok(Seq { dom: w(0), seq: w(4), ts: w(8) })
    }

    pub fn to_bytes(self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&self.dom.to_le_bytes());
        b[4..8].copy_from_slice(&self.seq.to_le_bytes());
        b[8..].copy_from_slice(&self.ts.to_le_bytes());
        b
    }
}

fn eth_header(dst: MacAddr, src: MacAddr, ethertype: u16, out: &mut Vec<u8>) {
    out.extend_from_slice(dst.as_bytes());
    out.extend_from_slice(src.as_bytes());
    out.extend_from_slice(&ethertype.to_be_bytes());
}

/// A key-holder message as received: addresses, packet type, the authenticated TLVs
/// (padding included: they are associated data as sent) and the AES-SIV output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KhFrame<'a> {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub packet_type: PacketType,
    pub auth: &'a [u8],
    pub sealed: &'a [u8],
}

impl<'a> KhFrame<'a> {
    /// Parses a whole Ethernet frame (no FCS). Not type 88-B7, another OUI or subtype, or an
    /// unknown packet type is `Unsupported`; a frame over [`MAX_FRAME_LEN`] `Oversize`; an
    /// authenticated length past the frame, or less than the SIV left after it, `Malformed`.
    pub fn parse(frame: &'a [u8]) -> Result<KhFrame<'a>> {
        if frame.len() > MAX_FRAME_LEN {
            return Err(Error::Oversize);
        }
        if frame.len() < KH_HEADER_LEN + 2 {
            return Err(Error::Truncated);
        }
        if u16::from_be_bytes([frame[12], frame[13]]) != ETHERTYPE_OUI {
            return Err(Error::Unsupported("not EtherType 88-B7"));
        }
        if frame[ETH_HEADER_LEN..ETH_HEADER_LEN + 5] != OUI_PREFIX {
            return Err(Error::Unsupported("not hostapd's OUI 00-13-74 subtype 00-01"));
        }
        let packet_type = PacketType::from_u8(frame[KH_HEADER_LEN - 1]).ok_or(Error::Unsupported("unknown RRB packet type"))?;
        let p = &frame[KH_HEADER_LEN..];
        let alen = u16::from_le_bytes([p[0], p[1]]) as usize;
        let auth = p.get(2..2 + alen).ok_or(Error::Malformed("RRB authenticated length past the frame"))?;
        let sealed = &p[2 + alen..];
        if sealed.len() < SIV_LEN {
            return Err(Error::Malformed("RRB message shorter than its SIV"));
        }
        let a = |r: core::ops::Range<usize>| {
            MacAddr([frame[r.start], frame[r.start + 1], frame[r.start + 2], frame[r.start + 3], frame[r.start + 4], frame[r.start + 5]])
        };
        Ok(KhFrame { dst: a(0..6), src: a(6..12), packet_type, auth, sealed })
    }

    /// AES-SIV decryption (hostapd `wpa_ft_rrb_decrypt`): associated data are, in order,
    /// the source address, the authenticated TLVs and the packet type. A wrong key or any
    /// changed octet is `MicFailure`. Like hostapd, a second try without the last two
    /// octets (Ethernet devices that pad frames that needed none).
    pub fn open(&self, key: &RkhKey) -> Result<Zeroizing<Vec<u8>>> {
        let ty = [self.packet_type as u8];
        let ad: [&[u8]; 3] = [self.src.as_bytes(), self.auth, &ty];
        let mut siv = Aes128Siv::new(key.as_bytes().into());
        if let Ok(p) = siv.decrypt(ad, self.sealed) {
            return Ok(Zeroizing::new(p));
        }
        if self.sealed.len() >= SIV_LEN + 2 {
            if let Ok(p) = siv.decrypt(ad, &self.sealed[..self.sealed.len() - 2]) {
                return Ok(Zeroizing::new(p));
            }
        }
        Err(Error::MicFailure)
    }
}

/// Builds a key-holder message (hostapd `wpa_ft_rrb_build`): pads the authenticated TLVs
/// with an empty TLV to a 64-octet payload, seals `plain` with AES-SIV over (source,
/// authenticated TLVs, type) and prepends the Ethernet and OUI headers.
pub fn seal(dst: MacAddr, src: MacAddr, packet_type: PacketType, key: &RkhKey, mut auth: Vec<u8>, plain: &[u8]) -> Result<Vec<u8>> {
    let len = 2 + auth.len() + SIV_LEN + plain.len();
    if len < MIN_PAYLOAD_LEN {
        // hostapd: at least a whole TLV header, even when fewer octets are missing.
        let pad = (MIN_PAYLOAD_LEN - len).max(4);
        put_tlv(&mut auth, tlv::LAST_EMPTY, &vec![0u8; pad - 4])?;
    }
    let alen = u16::try_from(auth.len()).map_err(|_| Error::Oversize)?;
    if KH_HEADER_LEN + 2 + auth.len() + SIV_LEN + plain.len() > MAX_FRAME_LEN {
        return Err(Error::Oversize);
    }
    let ty = [packet_type as u8];
    let ad: [&[u8]; 3] = [src.as_bytes(), &auth, &ty];
    let mut siv = Aes128Siv::new(key.as_bytes().into());
    let sealed = siv.encrypt(ad, plain).map_err(|_| Error::Oversize)?;
    let mut f = Vec::with_capacity(KH_HEADER_LEN + 2 + auth.len() + sealed.len());
    eth_header(dst, src, ETHERTYPE_OUI, &mut f);
    f.extend_from_slice(&OUI_PREFIX);
    f.push(packet_type as u8);
    f.extend_from_slice(&alen.to_le_bytes());
    f.extend_from_slice(&auth);
    f.extend_from_slice(&sealed);
    Ok(f)
}

/// Packet Type of a Remote Request/Response frame (13.10.3; hostapd `FT_PACKET_REQUEST`,
/// `FT_PACKET_RESPONSE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverDsType {
    Request = 0,
    Response = 1,
}

/// The Remote Request/Response frame of FT over the DS (IEEE 802.11-2020 13.10.3; hostapd
/// `struct ft_rrb_frame`, `wpa_ft_rrb_rx`): EtherType 89-0D, Frame Type 1, Packet Type,
/// Action Length (LE16), AP Address (the current AP in a Request, the target AP in a
/// Response) and the FT Action frame from its Category field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverDs {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub packet_type: OverDsType,
    pub ap_address: MacAddr,
    /// The FT Action frame (Category 6 first), [`FtAction`].
    pub action: Vec<u8>,
}

impl OverDs {
    /// `RSN_REMOTE_FRAME_TYPE_FT_RRB`.
    pub const FRAME_TYPE: u8 = 1;

    /// Parses a whole Ethernet frame. Octets after the action (Ethernet padding) are
    /// ignored, as hostapd does; an action shorter than Category, Action and two
    /// addresses, or one that runs past the frame, is `Malformed`.
    pub fn parse(frame: &[u8]) -> Result<OverDs> {
        if frame.len() > MAX_FRAME_LEN {
            return Err(Error::Oversize);
        }
        if frame.len() < ETH_HEADER_LEN + 10 {
            return Err(Error::Truncated);
        }
        if u16::from_be_bytes([frame[12], frame[13]]) != ETHERTYPE_RRB {
            return Err(Error::Unsupported("not EtherType 89-0D"));
        }
        let p = &frame[ETH_HEADER_LEN..];
        if p[0] != OverDs::FRAME_TYPE {
            return Err(Error::Unsupported("RRB frame type is not FT (1)"));
        }
        let packet_type = match p[1] {
            0 => OverDsType::Request,
            1 => OverDsType::Response,
            _ => return Err(Error::Unsupported("RRB packet type is neither Request nor Response")),
        };
        let alen = u16::from_le_bytes([p[2], p[3]]) as usize;
        let action = p.get(10..10 + alen).ok_or(Error::Malformed("RRB action length past the frame"))?;
        if alen < 14 {
            return Err(Error::Malformed("RRB action shorter than its addresses"));
        }
        let m = |b: &[u8]| MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]]);
        Ok(OverDs { dst: m(&frame[0..6]), src: m(&frame[6..12]), packet_type, ap_address: m(&p[4..10]), action: action.to_vec() })
    }

    pub fn emit(&self) -> Result<Vec<u8>> {
        let alen = u16::try_from(self.action.len()).map_err(|_| Error::Oversize)?;
        if ETH_HEADER_LEN + 10 + self.action.len() > MAX_FRAME_LEN {
            return Err(Error::Oversize);
        }
        let mut f = Vec::with_capacity(ETH_HEADER_LEN + 10 + self.action.len());
        eth_header(self.dst, self.src, ETHERTYPE_RRB, &mut f);
        f.push(OverDs::FRAME_TYPE);
        f.push(self.packet_type as u8);
        f.extend_from_slice(&alen.to_le_bytes());
        f.extend_from_slice(self.ap_address.as_bytes());
        f.extend_from_slice(&self.action);
        Ok(f)
    }
}

/// An FT Request (Action 1) or FT Response (Action 2) frame body (IEEE 802.11-2020
/// 9.6.8.2/9.6.8.3): Category 6, Action, STA Address, Target AP Address, the Status Code
/// in a Response, then the elements (RSNE, MDE, FTE, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtAction {
    pub action: u8,
    pub sta: MacAddr,
    pub target_ap: MacAddr,
    /// Present in an FT Response only.
    pub status: Option<u16>,
    pub ies: Vec<u8>,
}

impl FtAction {
    /// Category: Fast BSS Transition (Table 9-51).
    pub const CATEGORY: u8 = 6;
    pub const REQUEST: u8 = 1;
    pub const RESPONSE: u8 = 2;

    pub fn parse(b: &[u8]) -> Result<FtAction> {
        if b.len() < 14 {
            return Err(Error::Truncated);
        }
        if b[0] != FtAction::CATEGORY {
            return Err(Error::Unsupported("Action category is not FT"));
        }
        let m = |b: &[u8]| MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]]);
        let (status, ies) = match b[1] {
            FtAction::REQUEST => (None, &b[14..]),
            FtAction::RESPONSE => {
                let s = b.get(14..16).ok_or(Error::Truncated)?;
                (Some(u16::from_le_bytes([s[0], s[1]])), &b[16..])
            }
            _ => return Err(Error::Unsupported("FT Action is neither Request nor Response")),
        };
        Ok(FtAction { action: b[1], sta: m(&b[2..8]), target_ap: m(&b[8..14]), status, ies: ies.to_vec() })
    }

    pub fn emit(&self) -> Vec<u8> {
        let mut b = vec![FtAction::CATEGORY, self.action];
        b.extend_from_slice(self.sta.as_bytes());
        b.extend_from_slice(self.target_ap.as_bytes());
        if let Some(s) = self.status {
            b.extend_from_slice(&s.to_le_bytes());
        }
        b.extend_from_slice(&self.ies);
        b
    }
}
