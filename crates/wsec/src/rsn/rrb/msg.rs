//! The five key-holder messages as typed values, with hostapd's TLV sets and order
//! (`wpa_auth.h` comment block; `wpa_ft_pull_pmk_r1`, `wpa_ft_rrb_rx_pull`,
//! `wpa_ft_rrb_build_r0`, `wpa_ft_generate_pmk_r1`, `wpa_ft_rrb_seq_req`,
//! `wpa_ft_rrb_rx_seq_req`):
//!
//! | message  | authenticated                 | encrypted                              |
//! |----------|-------------------------------|----------------------------------------|
//! | PULL     | NONCE, SEQ, R0KH-ID, R1KH-ID  | PMKR0Name, S1KH-ID                     |
//! | RESP     | NONCE, SEQ, R0KH-ID, R1KH-ID  | S1KH-ID [, session]                    |
//! | PUSH     | SEQ, R0KH-ID, R1KH-ID         | S1KH-ID, PMKR0Name, session            |
//! | SEQ_REQ  | NONCE, R0KH-ID, R1KH-ID       | (none)                                 |
//! | SEQ_RESP | NONCE, SEQ, R0KH-ID, R1KH-ID  | (none)                                 |
//!
//! The session TLVs: PMK-R1, PMKR1Name, PAIRWISE, EXPIRES_IN, IDENTITY, RADIUS_CUI,
//! SESSION_TIMEOUT, then VLAN_UNTAGGED/VLAN_TAGGED when there is a VLAN. A RESP without
//! PAIRWISE is hostapd's "no PMK-R0 of that name" (a NAK).
//!
//! Parsing is strict where hostapd is lenient: every TLV whole, no known type twice,
//! every known type its exact length. Unknown types are skipped.
use super::wire::{self, parse_tlvs, put_tlv, tlv, KhFrame, PacketType, RkhKey, Seq, NONCE_LEN, PMK_NAME_LEN, R0KH_ID_MAX_LEN};
use crate::error::{Error, Result};
use crate::wire::mac::MacAddr;
use zeroize::Zeroizing;

/// The highest VLAN ID hostapd takes (`MAX_VLAN_ID`), and its tagged list limit
/// (`MAX_NUM_TAGGED_VLAN`).
pub const MAX_VLAN_ID: u16 = 4094;
pub const MAX_TAGGED_VLANS: usize = 32;

/// What an R1KH gets for one station: the PMK-R1 and what the R0KH knows of the session
/// (hostapd `wpa_ft_rrb_build_r0`). `pairwise` is hostapd's `WPA_CIPHER_*` bit
/// ([`pairwise_to_suite`]); `expires_in`/`session_timeout` are seconds left, 0 for none.
#[derive(Clone, PartialEq, Eq)]
pub struct Session {
    pub pmk_r1: Zeroizing<Vec<u8>>,
    pub pmk_r1_name: [u8; PMK_NAME_LEN],
    pub pairwise: u16,
    pub expires_in: u16,
    pub session_timeout: u32,
    /// EAP identity (empty: none; hostapd sends the TLV empty then).
    pub identity: Vec<u8>,
    /// RADIUS Chargeable-User-Identity (empty: none).
    pub radius_cui: Vec<u8>,
    /// 0: none.
    pub vlan_untagged: u16,
    pub vlan_tagged: Vec<u16>,
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("pmk_r1", &format_args!("({} octets)", self.pmk_r1.len()))
            .field("pmk_r1_name", &crate::rsn::rrb::Hex(&self.pmk_r1_name))
            .field("pairwise", &format_args!("{:#x}", self.pairwise))
            .field("expires_in", &self.expires_in)
            .field("session_timeout", &self.session_timeout)
            .field("identity", &String::from_utf8_lossy(&self.identity))
            .field("radius_cui", &String::from_utf8_lossy(&self.radius_cui))
            .field("vlan_untagged", &self.vlan_untagged)
            .field("vlan_tagged", &self.vlan_tagged)
            .finish()
    }
}

/// hostapd's `WPA_CIPHER_*` bit (`common/defs.h`) of a pairwise cipher suite.
pub fn suite_to_pairwise(c: crate::cipher::CipherSuite) -> Option<u16> {
    use crate::cipher::CipherSuite::*;
    Some(match c {
        Tkip => 1 << 3,
        Ccmp128 => 1 << 4,
        Gcmp128 => 1 << 6,
        Gcmp256 => 1 << 8,
        Ccmp256 => 1 << 9,
        _ => return None,
    })
}

/// The cipher suite of a `WPA_CIPHER_*` bit; `None` for anything that is not one pairwise
/// cipher.
pub fn pairwise_to_suite(p: u16) -> Option<crate::cipher::CipherSuite> {
    use crate::cipher::CipherSuite::*;
    Some(match p {
        0x0008 => Tkip,
        0x0010 => Ccmp128,
        0x0040 => Gcmp128,
        0x0100 => Gcmp256,
        0x0200 => Ccmp256,
        _ => return None,
    })
}

/// SEQ_REQ: "tell me your sequence state", answered by a SEQ_RESP echoing the nonce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqReq {
    pub nonce: [u8; NONCE_LEN],
    pub r0kh_id: Vec<u8>,
    pub r1kh_id: MacAddr,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqResp {
    pub nonce: [u8; NONCE_LEN],
    pub seq: Seq,
    pub r0kh_id: Vec<u8>,
    pub r1kh_id: MacAddr,
}

/// PULL: an R1KH asks the R0KH for the PMK-R1 of (PMKR0Name, S1KH-ID).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pull {
    pub nonce: [u8; NONCE_LEN],
    pub seq: Seq,
    pub r0kh_id: Vec<u8>,
    pub r1kh_id: MacAddr,
    pub pmk_r0_name: [u8; PMK_NAME_LEN],
    pub s1kh_id: MacAddr,
}

/// RESP: the R0KH's answer, the PULL's nonce echoed; `session` is `None` for a NAK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resp {
    pub nonce: [u8; NONCE_LEN],
    pub seq: Seq,
    pub r0kh_id: Vec<u8>,
    pub r1kh_id: MacAddr,
    pub s1kh_id: MacAddr,
    pub session: Option<Session>,
}

/// PUSH: the R0KH hands a PMK-R1 to an R1KH unasked (hostapd `pmk_r1_push=1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    pub seq: Seq,
    pub r0kh_id: Vec<u8>,
    pub r1kh_id: MacAddr,
    pub s1kh_id: MacAddr,
    pub pmk_r0_name: [u8; PMK_NAME_LEN],
    pub session: Session,
}

/// One key-holder message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    SeqReq(SeqReq),
    SeqResp(SeqResp),
    Pull(Pull),
    Resp(Resp),
    Push(Push),
}

/// The authenticated TLVs, readable before decryption (they pick the key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthFields {
    pub nonce: Option<[u8; NONCE_LEN]>,
    pub seq: Option<Seq>,
    pub r0kh_id: Vec<u8>,
    pub r1kh_id: MacAddr,
}

fn once<'a>(slot: &mut Option<&'a [u8]>, v: &'a [u8]) -> Result<()> {
    if slot.replace(v).is_some() {
        return Err(Error::Malformed("RRB TLV repeated"));
    }
    Ok(())
}

fn exact<const N: usize>(v: &[u8], what: &'static str) -> Result<[u8; N]> {
    v.try_into().map_err(|_| Error::Malformed(what))
}

impl KhFrame<'_> {
    /// The authenticated TLVs ([`AuthFields::parse`]).
    pub fn auth_fields(&self) -> Result<AuthFields> {
        AuthFields::parse(self.auth)
    }
}

impl AuthFields {
    /// R0KH-ID (1-48 octets) and R1KH-ID (6) are required in every message.
    pub fn parse(auth: &[u8]) -> Result<AuthFields> {
        let (mut nonce, mut seq, mut r0, mut r1) = (None, None, None, None);
        for (t, v) in parse_tlvs(auth)? {
            match t {
                tlv::NONCE => once(&mut nonce, v)?,
                tlv::SEQ => once(&mut seq, v)?,
                tlv::R0KH_ID => once(&mut r0, v)?,
                tlv::R1KH_ID => once(&mut r1, v)?,
                _ => {}
            }
        }
        let r0kh_id = r0.ok_or(Error::Malformed("RRB message without R0KH-ID"))?;
        if r0kh_id.is_empty() || r0kh_id.len() > R0KH_ID_MAX_LEN {
            return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
        }
        let r1kh_id = MacAddr(exact(r1.ok_or(Error::Malformed("RRB message without R1KH-ID"))?, "R1KH-ID is not 6 octets")?);
        Ok(AuthFields {
            nonce: nonce.map(|v| exact(v, "RRB nonce is not 16 octets")).transpose()?,
            seq: seq.map(Seq::parse).transpose()?,
            r0kh_id: r0kh_id.to_vec(),
            r1kh_id,
        })
    }
}

/// The encrypted TLVs a message may hold.
#[derive(Default)]
struct Plain<'a> {
    s1kh_id: Option<&'a [u8]>,
    pmk_r0_name: Option<&'a [u8]>,
    pmk_r1: Option<&'a [u8]>,
    pmk_r1_name: Option<&'a [u8]>,
    pairwise: Option<&'a [u8]>,
    expires_in: Option<&'a [u8]>,
    session_timeout: Option<&'a [u8]>,
    identity: Option<&'a [u8]>,
    radius_cui: Option<&'a [u8]>,
    vlan_untagged: Option<&'a [u8]>,
    vlan_tagged: Option<&'a [u8]>,
}

impl<'a> Plain<'a> {
    fn parse(b: &'a [u8]) -> Result<Plain<'a>> {
        let mut p = Plain::default();
        for (t, v) in parse_tlvs(b)? {
            let slot = match t {
                tlv::S1KH_ID => &mut p.s1kh_id,
                tlv::PMK_R0_NAME => &mut p.pmk_r0_name,
                tlv::PMK_R1 => &mut p.pmk_r1,
                tlv::PMK_R1_NAME => &mut p.pmk_r1_name,
                tlv::PAIRWISE => &mut p.pairwise,
                tlv::EXPIRES_IN => &mut p.expires_in,
                tlv::SESSION_TIMEOUT => &mut p.session_timeout,
                tlv::IDENTITY => &mut p.identity,
                tlv::RADIUS_CUI => &mut p.radius_cui,
                tlv::VLAN_UNTAGGED => &mut p.vlan_untagged,
                tlv::VLAN_TAGGED => &mut p.vlan_tagged,
                _ => continue,
            };
            once(slot, v)?;
        }
        Ok(p)
    }

    fn s1kh_id(&self) -> Result<MacAddr> {
        Ok(MacAddr(exact(self.s1kh_id.ok_or(Error::Malformed("RRB message without S1KH-ID"))?, "S1KH-ID is not 6 octets")?))
    }

    fn pmk_r0_name(&self) -> Result<[u8; PMK_NAME_LEN]> {
        exact(self.pmk_r0_name.ok_or(Error::Malformed("RRB message without PMKR0Name"))?, "PMKR0Name is not 16 octets")
    }

    /// The session TLVs; `None` without PAIRWISE (hostapd's NAK).
    fn session(&self) -> Result<Option<Session>> {
        let Some(pairwise) = self.pairwise else { return Ok(None) };
        let pairwise = u16::from_le_bytes(exact(pairwise, "PAIRWISE is not 2 octets")?);
        let pmk_r1 = self.pmk_r1.ok_or(Error::Malformed("RRB session without PMK-R1"))?;
        if pmk_r1.len() != 32 && pmk_r1.len() != 48 {
            return Err(Error::Malformed("PMK-R1 is not 32 or 48 octets"));
        }
        let pmk_r1_name = exact(self.pmk_r1_name.ok_or(Error::Malformed("RRB session without PMKR1Name"))?, "PMKR1Name is not 16 octets")?;
        let expires_in = self.expires_in.map(|v| exact(v, "EXPIRES_IN is not 2 octets").map(u16::from_le_bytes)).transpose()?.unwrap_or(0);
        let session_timeout =
            self.session_timeout.map(|v| exact(v, "SESSION_TIMEOUT is not 4 octets").map(u32::from_le_bytes)).transpose()?.unwrap_or(0);
        let vlan = |v: &[u8]| -> Result<Vec<u16>> {
            if !v.len().is_multiple_of(2) {
                return Err(Error::Malformed("VLAN TLV length is odd"));
            }
            v.chunks(2)
                .map(|c| match u16::from_le_bytes([c[0], c[1]]) {
                    id @ 1..=MAX_VLAN_ID => Ok(id),
                    _ => Err(Error::Malformed("VLAN ID not 1-4094")),
                })
                .collect()
        };
        let vlan_untagged = match self.vlan_untagged {
            Some(v) if v.len() != 2 => return Err(Error::Malformed("VLAN_UNTAGGED is not 2 octets")),
            Some(v) => vlan(v)?[0],
            None => 0,
        };
        let vlan_tagged = self.vlan_tagged.map(vlan).transpose()?.unwrap_or_default();
        if vlan_tagged.len() > MAX_TAGGED_VLANS {
            return Err(Error::Malformed("more than 32 tagged VLANs"));
        }
        Ok(Some(Session {
            pmk_r1: Zeroizing::new(pmk_r1.to_vec()),
            pmk_r1_name,
            pairwise,
            expires_in,
            session_timeout,
            identity: self.identity.unwrap_or_default().to_vec(),
            radius_cui: self.radius_cui.unwrap_or_default().to_vec(),
            vlan_untagged,
            vlan_tagged,
        }))
    }
}

fn put_session(out: &mut Vec<u8>, s: &Session) -> Result<()> {
    if s.pmk_r1.len() != 32 && s.pmk_r1.len() != 48 {
        return Err(Error::BadKeyLength);
    }
    put_tlv(out, tlv::PMK_R1, &s.pmk_r1)?;
    put_tlv(out, tlv::PMK_R1_NAME, &s.pmk_r1_name)?;
    put_tlv(out, tlv::PAIRWISE, &s.pairwise.to_le_bytes())?;
    put_tlv(out, tlv::EXPIRES_IN, &s.expires_in.to_le_bytes())?;
    put_tlv(out, tlv::IDENTITY, &s.identity)?;
    put_tlv(out, tlv::RADIUS_CUI, &s.radius_cui)?;
    put_tlv(out, tlv::SESSION_TIMEOUT, &s.session_timeout.to_le_bytes())?;
    if s.vlan_untagged != 0 {
        put_tlv(out, tlv::VLAN_UNTAGGED, &s.vlan_untagged.to_le_bytes())?;
    }
    if !s.vlan_tagged.is_empty() {
        let v: Vec<u8> = s.vlan_tagged.iter().flat_map(|id| id.to_le_bytes()).collect();
        put_tlv(out, tlv::VLAN_TAGGED, &v)?;
    }
    Ok(())
}

fn need<T>(v: Option<T>, what: &'static str) -> Result<T> {
    v.ok_or(Error::Malformed(what))
}

impl Msg {
    pub fn packet_type(&self) -> PacketType {
        match self {
            Msg::SeqReq(_) => PacketType::SeqReq,
            Msg::SeqResp(_) => PacketType::SeqResp,
            Msg::Pull(_) => PacketType::Pull,
            Msg::Resp(_) => PacketType::Resp,
            Msg::Push(_) => PacketType::Push,
        }
    }

    /// R0KH-ID and R1KH-ID, in every message.
    pub fn ids(&self) -> (&[u8], MacAddr) {
        match self {
            Msg::SeqReq(m) => (&m.r0kh_id, m.r1kh_id),
            Msg::SeqResp(m) => (&m.r0kh_id, m.r1kh_id),
            Msg::Pull(m) => (&m.r0kh_id, m.r1kh_id),
            Msg::Resp(m) => (&m.r0kh_id, m.r1kh_id),
            Msg::Push(m) => (&m.r0kh_id, m.r1kh_id),
        }
    }

    /// The sequence number, in all but SEQ_REQ.
    pub fn seq(&self) -> Option<Seq> {
        match self {
            Msg::SeqReq(_) => None,
            Msg::SeqResp(m) => Some(m.seq),
            Msg::Pull(m) => Some(m.seq),
            Msg::Resp(m) => Some(m.seq),
            Msg::Push(m) => Some(m.seq),
        }
    }

    /// Decrypts and parses a received message with the key shared with its sender.
    pub fn open(f: &KhFrame<'_>, key: &RkhKey) -> Result<Msg> {
        let a = AuthFields::parse(f.auth)?;
        let plain = f.open(key)?;
        Msg::from_parts(f.packet_type, a, &plain)
    }

    /// The message from its authenticated fields and decrypted TLVs.
    pub fn from_parts(ty: PacketType, a: AuthFields, plain: &[u8]) -> Result<Msg> {
        let p = Plain::parse(plain)?;
        let AuthFields { nonce, seq, r0kh_id, r1kh_id } = a;
        Ok(match ty {
            PacketType::SeqReq => Msg::SeqReq(SeqReq { nonce: need(nonce, "SEQ_REQ without nonce")?, r0kh_id, r1kh_id }),
            PacketType::SeqResp => Msg::SeqResp(SeqResp {
                nonce: need(nonce, "SEQ_RESP without nonce")?,
                seq: need(seq, "SEQ_RESP without SEQ")?,
                r0kh_id,
                r1kh_id,
            }),
            PacketType::Pull => Msg::Pull(Pull {
                nonce: need(nonce, "PULL without nonce")?,
                seq: need(seq, "PULL without SEQ")?,
                r0kh_id,
                r1kh_id,
                pmk_r0_name: p.pmk_r0_name()?,
                s1kh_id: p.s1kh_id()?,
            }),
            PacketType::Resp => Msg::Resp(Resp {
                nonce: need(nonce, "RESP without nonce")?,
                seq: need(seq, "RESP without SEQ")?,
                r0kh_id,
                r1kh_id,
                s1kh_id: p.s1kh_id()?,
                session: p.session()?,
            }),
            PacketType::Push => Msg::Push(Push {
                seq: need(seq, "PUSH without SEQ")?,
                r0kh_id,
                r1kh_id,
                s1kh_id: p.s1kh_id()?,
                pmk_r0_name: p.pmk_r0_name()?,
                session: need(p.session()?, "PUSH without session TLVs")?,
            }),
        })
    }

    /// The whole Ethernet frame from `src` to `dst`, sealed with `key`; TLVs in hostapd's
    /// order, so the octets equal what hostapd builds from the same values.
    pub fn emit(&self, dst: MacAddr, src: MacAddr, key: &RkhKey) -> Result<Vec<u8>> {
        let (r0kh_id, r1kh_id) = self.ids();
        if r0kh_id.is_empty() || r0kh_id.len() > R0KH_ID_MAX_LEN {
            return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
        }
        let mut auth = Vec::with_capacity(96);
        let mut plain = Zeroizing::new(Vec::with_capacity(160));
        let ids = |auth: &mut Vec<u8>| -> Result<()> {
            put_tlv(auth, tlv::R0KH_ID, r0kh_id)?;
            put_tlv(auth, tlv::R1KH_ID, r1kh_id.as_bytes())
        };
        match self {
            Msg::SeqReq(m) => {
                put_tlv(&mut auth, tlv::NONCE, &m.nonce)?;
                ids(&mut auth)?;
            }
            Msg::SeqResp(m) => {
                put_tlv(&mut auth, tlv::NONCE, &m.nonce)?;
                put_tlv(&mut auth, tlv::SEQ, &m.seq.to_bytes())?;
                ids(&mut auth)?;
            }
            Msg::Pull(m) => {
                put_tlv(&mut auth, tlv::NONCE, &m.nonce)?;
                put_tlv(&mut auth, tlv::SEQ, &m.seq.to_bytes())?;
                ids(&mut auth)?;
                put_tlv(&mut plain, tlv::PMK_R0_NAME, &m.pmk_r0_name)?;
                put_tlv(&mut plain, tlv::S1KH_ID, m.s1kh_id.as_bytes())?;
            }
            Msg::Resp(m) => {
                put_tlv(&mut auth, tlv::NONCE, &m.nonce)?;
                put_tlv(&mut auth, tlv::SEQ, &m.seq.to_bytes())?;
                ids(&mut auth)?;
                put_tlv(&mut plain, tlv::S1KH_ID, m.s1kh_id.as_bytes())?;
                if let Some(s) = &m.session {
                    put_session(&mut plain, s)?;
                }
            }
            Msg::Push(m) => {
                put_tlv(&mut auth, tlv::SEQ, &m.seq.to_bytes())?;
                ids(&mut auth)?;
                put_tlv(&mut plain, tlv::S1KH_ID, m.s1kh_id.as_bytes())?;
                put_tlv(&mut plain, tlv::PMK_R0_NAME, &m.pmk_r0_name)?;
                put_session(&mut plain, &m.session)?;
            }
        }
        wire::seal(dst, src, self.packet_type(), key, auth, &plain)
    }
}
