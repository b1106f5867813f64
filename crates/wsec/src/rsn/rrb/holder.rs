//! The key holders, sans-IO: [`R0kh`] keeps PMK-R0s and answers PULLs (and makes PUSHes),
//! [`R1kh`] keeps PMK-R1s and PULLs the ones it lacks; [`KeyHolder`] is both, with the
//! dispatch of one BSS (hostapd `wpa_ft_rrb_oui_rx`). Frames come in and go out as whole
//! Ethernet frames; time is a monotonic `now_ns`; randomness is handed in.
//!
//! Each role has its own peers, as hostapd's `r0kh=`/`r1kh=` lists do, and each peer its
//! own sequence state (`struct ft_remote_seq`): an R0KH's peers are the remote R1KHs
//! (`r1kh=` lines: PULL in, RESP and PUSH out), an R1KH's are the remote R0KHs (`r0kh=`
//! lines: PULL out, RESP and PUSH in). A SEQ_REQ/SEQ_RESP goes to the role whose own ID
//! it names.
//!
//! Every refused input leaves nothing installed and is reported as
//! [`RrbEvent::Dropped`] with its reason (and counted in `drops`).
use super::msg::{Msg, Pull, Push, Resp, SeqReq, SeqResp, Session};
use super::seq::{SeqCheck, SeqRx, SeqTx, MAX_DEFERRED, SEQ_TIMEOUT_S};
use super::wire::{KhFrame, PacketType, RkhKey, NONCE_LEN, PMK_NAME_LEN, R0KH_ID_MAX_LEN};
use crate::error::{Error, Result};
use crate::rsn::akm::Akm;
use crate::rsn::ft::{derive_pmk_r1, PmkR0, PmkR1};
use crate::wire::mac::MacAddr;
use rand_core::CryptoRngCore;
use sha2::{Digest, Sha256, Sha384};
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;

const NS: u64 = 1_000_000_000;
/// Peers learned through a wildcard line, per role.
pub const MAX_LEARNED_PEERS: usize = 64;
/// PMK-R0 / PMK-R1 entries kept; the oldest goes when a new one comes.
pub const MAX_ENTRIES: usize = 4096;
/// PULLs waiting for their RESP.
pub const MAX_PENDING_PULLS: usize = 256;

fn secs(now_ns: u64) -> u32 {
    (now_ns / NS) as u32
}

fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// An `r0kh=<MAC> <R0KH-ID> <key>` line: a remote R0KH this R1KH may PULL from and take
/// RESP/PUSH from. R0KH-ID `*` is the wildcard (any R0KH-ID, at that address, which may be
/// ff:ff:ff:ff:ff:ff).
#[derive(Debug, Clone)]
pub struct RemoteR0kh {
    pub addr: MacAddr,
    pub r0kh_id: Vec<u8>,
    pub key: RkhKey,
}

impl RemoteR0kh {
    /// The value of hostapd's `r0kh=` (`add_r0kh`).
    pub fn parse(line: &str) -> Result<RemoteR0kh> {
        let mut it = line.split_whitespace();
        let (Some(addr), Some(id), Some(key), None) = (it.next(), it.next(), it.next(), it.next()) else {
            return Err(Error::Malformed("r0kh is <MAC> <R0KH-ID> <key>"));
        };
        let addr: MacAddr = addr.parse().map_err(|_| Error::Malformed("r0kh address"))?;
        if id.len() > R0KH_ID_MAX_LEN {
            return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
        }
        Ok(RemoteR0kh { addr, r0kh_id: id.as_bytes().to_vec(), key: RkhKey::from_hex(key)? })
    }

    pub fn is_wildcard(&self) -> bool {
        self.r0kh_id == b"*"
    }
}

/// An `r1kh=<MAC> <R1KH-ID> <key>` line: a remote R1KH this R0KH answers and pushes to.
/// `00:00:00:00:00:00 00:00:00:00:00:00` is the wildcard (any R1KH, at any address).
#[derive(Debug, Clone)]
pub struct RemoteR1kh {
    pub addr: MacAddr,
    pub r1kh_id: MacAddr,
    pub key: RkhKey,
}

impl RemoteR1kh {
    /// The value of hostapd's `r1kh=` (`add_r1kh`).
    pub fn parse(line: &str) -> Result<RemoteR1kh> {
        let mut it = line.split_whitespace();
        let (Some(addr), Some(id), Some(key), None) = (it.next(), it.next(), it.next(), it.next()) else {
            return Err(Error::Malformed("r1kh is <MAC> <R1KH-ID> <key>"));
        };
        Ok(RemoteR1kh {
            addr: addr.parse().map_err(|_| Error::Malformed("r1kh address"))?,
            r1kh_id: id.parse().map_err(|_| Error::Malformed("R1KH-ID is not a MAC address"))?,
            key: RkhKey::from_hex(key)?,
        })
    }

    pub fn is_wildcard(&self) -> bool {
        self.addr == MacAddr::default() && self.r1kh_id == MacAddr::default()
    }
}

/// What the key holders report besides frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RrbEvent {
    /// R0KH: a PULL answered, with the PMK-R1 (`found`) or with a NAK.
    PullAnswered { r1kh_id: MacAddr, spa: MacAddr, pmk_r0_name: [u8; PMK_NAME_LEN], found: bool },
    /// R1KH: a PMK-R1 stored, from a RESP or a PUSH.
    PmkR1Stored { spa: MacAddr, pmk_r1_name: [u8; PMK_NAME_LEN], r0kh_id: Vec<u8>, pushed: bool },
    /// R1KH: the R0KH has no PMK-R0 of that name (a RESP without session TLVs).
    PullRefused { spa: MacAddr, pmk_r0_name: [u8; PMK_NAME_LEN] },
    /// R1KH: no RESP after every try.
    PullTimedOut { spa: MacAddr, pmk_r0_name: [u8; PMK_NAME_LEN] },
    /// A message kept while a SEQ_REQ asks its sender for its sequence state.
    Deferred { from: MacAddr, packet_type: PacketType, reason: &'static str },
    /// A message refused; nothing of it was used.
    Dropped { from: MacAddr, packet_type: Option<PacketType>, reason: &'static str },
}

impl core::fmt::Display for RrbEvent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use super::Hex;
        match self {
            RrbEvent::PullAnswered { r1kh_id, spa, pmk_r0_name, found } => {
                write!(
                    f,
                    "rrb: PULL from R1KH {r1kh_id} for {spa} PMKR0Name {} answered {}",
                    Hex(pmk_r0_name),
                    if *found { "with PMK-R1" } else { "NAK (unknown)" }
                )
            }
            RrbEvent::PmkR1Stored { spa, pmk_r1_name, r0kh_id, pushed } => {
                write!(
                    f,
                    "rrb: PMK-R1 {} for {spa} from R0KH {} stored ({})",
                    Hex(pmk_r1_name),
                    String::from_utf8_lossy(r0kh_id),
                    if *pushed { "PUSH" } else { "RESP" }
                )
            }
            RrbEvent::PullRefused { spa, pmk_r0_name } => write!(f, "rrb: R0KH has no PMK-R0 {} for {spa}", Hex(pmk_r0_name)),
            RrbEvent::PullTimedOut { spa, pmk_r0_name } => write!(f, "rrb: PULL for {spa} PMKR0Name {} timed out", Hex(pmk_r0_name)),
            RrbEvent::Deferred { from, packet_type, reason } => write!(f, "rrb: {} from {from} deferred: {reason}", packet_type.name()),
            RrbEvent::Dropped { from, packet_type, reason } => {
                write!(f, "rrb: {} from {from} dropped: {reason}", packet_type.map(|t| t.name()).unwrap_or("frame"))
            }
        }
    }
}

/// What one call produced. Reuse one across calls and drain it.
#[derive(Debug, Default)]
pub struct RrbOutput {
    /// Whole Ethernet frames to send on the distribution system, in order.
    pub frames: Vec<Vec<u8>>,
    pub events: Vec<RrbEvent>,
}

impl RrbOutput {
    pub fn clear(&mut self) {
        self.frames.clear();
        self.events.clear();
    }
}

/// A message deferred for a SEQ_REQ (hostapd `struct ft_remote_item`); `frame` is `None`
/// for a SEQ_REQ sent ahead of a PULL.
struct Deferred {
    nonce: [u8; NONCE_LEN],
    at_ns: u64,
    frame: Option<Vec<u8>>,
}

struct Peer {
    addr: MacAddr,
    /// The remote R1KH-ID (6 octets) or R0KH-ID.
    id: Vec<u8>,
    key: RkhKey,
    tx: SeqTx,
    rx: SeqRx,
    queue: Vec<Deferred>,
    /// Made from a wildcard line: its address is learned (hostapd: from a SEQ_RESP).
    learned: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    R0,
    R1,
}

/// The part both roles share: the peers and their sequence state.
struct Side {
    role: Role,
    own_addr: MacAddr,
    /// This key holder's R0KH-ID, or its R1KH-ID's 6 octets.
    own_id: Vec<u8>,
    peers: Vec<Peer>,
    /// The wildcard line: its address (R0 role: unused) and key.
    wildcard: Option<(MacAddr, RkhKey)>,
    drops: BTreeMap<&'static str, u64>,
}

/// Why a message was not used.
type Why = &'static str;

impl Side {
    fn new(role: Role, own_addr: MacAddr, own_id: Vec<u8>) -> Side {
        Side { role, own_addr, own_id, peers: Vec::new(), wildcard: None, drops: BTreeMap::new() }
    }

    fn add(&mut self, addr: MacAddr, id: Vec<u8>, key: RkhKey, wildcard: bool) {
        if wildcard {
            self.wildcard = Some((addr, key));
            return;
        }
        self.peers.retain(|p| p.id != id);
        self.peers.push(Peer { addr, id, key, tx: SeqTx::default(), rx: SeqRx::default(), queue: Vec::new(), learned: false });
    }

    fn find(&self, id: &[u8]) -> Option<usize> {
        self.peers.iter().position(|p| ct_eq(&p.id, id))
    }

    /// The key for a message from `src` naming the peer `id`: the peer's (from its own
    /// address, or any while a wildcard peer's address is not learned yet), else the
    /// wildcard's. The peer is only made once the message has decrypted ([`Side::admit`]).
    fn key_for(&self, id: &[u8], src: MacAddr) -> core::result::Result<(Option<usize>, RkhKey), Why> {
        if let Some(i) = self.find(id) {
            let p = &self.peers[i];
            if p.addr == src || (p.learned && p.addr.is_group()) {
                return Ok((Some(i), p.key.clone()));
            }
            if !p.learned {
                return Err("source address is not the configured peer's");
            }
        }
        match &self.wildcard {
            Some((_, k)) => Ok((None, k.clone())),
            None if self.role == Role::R0 => Err("unknown R1KH (no r1kh line)"),
            None => Err("unknown R0KH (no r0kh line)"),
        }
    }

    /// The peer for a decrypted message: as found, or learned from the wildcard line at
    /// the sender's address (a known wildcard peer that moved takes the new address).
    fn admit(&mut self, found: Option<usize>, id: &[u8], src: MacAddr) -> core::result::Result<usize, Why> {
        if let Some(i) = found {
            return Ok(i);
        }
        if let Some(i) = self.find(id) {
            let p = &mut self.peers[i];
            p.addr = src;
            p.rx = SeqRx::default();
            return Ok(i);
        }
        if self.peers.iter().filter(|p| p.learned).count() >= MAX_LEARNED_PEERS {
            return Err("too many peers learned from the wildcard line");
        }
        let key = self.wildcard.as_ref().map(|w| w.1.clone()).ok_or("no wildcard line")?;
        self.peers.push(Peer {
            addr: src,
            id: id.to_vec(),
            key,
            tx: SeqTx::default(),
            rx: SeqRx::default(),
            queue: Vec::new(),
            learned: true,
        });
        Ok(self.peers.len() - 1)
    }

    /// R0KH-ID and R1KH-ID of a message between this side and peer `i`.
    fn ids(&self, i: usize) -> (Vec<u8>, MacAddr) {
        let (r0, r1) = match self.role {
            Role::R0 => (&self.own_id, &self.peers[i].id),
            Role::R1 => (&self.peers[i].id, &self.own_id),
        };
        (r0.clone(), MacAddr::from_bytes(r1).unwrap_or_default())
    }

    /// Sends a SEQ_REQ to `dst` for peer `i` and keeps `frame` until its SEQ_RESP.
    fn seq_req(
        &mut self,
        i: usize,
        dst: MacAddr,
        frame: Option<Vec<u8>>,
        now_ns: u64,
        rng: &mut dyn CryptoRngCore,
        out: &mut RrbOutput,
    ) -> core::result::Result<(), Why> {
        if self.peers[i].queue.len() >= MAX_DEFERRED {
            return Err("too many messages waiting for a SEQ_RESP");
        }
        let nonce = crate::rng::array::<NONCE_LEN>(rng);
        let (r0kh_id, r1kh_id) = self.ids(i);
        let m = Msg::SeqReq(SeqReq { nonce, r0kh_id, r1kh_id });
        let f = m.emit(dst, self.own_addr, &self.peers[i].key).map_err(|_| "SEQ_REQ could not be built")?;
        self.peers[i].queue.push(Deferred { nonce, at_ns: now_ns, frame });
        out.frames.push(f);
        Ok(())
    }

    /// The sequence gate of a PULL, RESP or PUSH: `Ok(true)` to go on, `Ok(false)` when
    /// deferred (kept, SEQ_REQ sent).
    #[allow(clippy::too_many_arguments)]
    fn gate(
        &mut self,
        i: usize,
        src: MacAddr,
        ty: PacketType,
        seq: &super::wire::Seq,
        raw: &[u8],
        no_defer: bool,
        now_ns: u64,
        rng: &mut dyn CryptoRngCore,
        out: &mut RrbOutput,
    ) -> core::result::Result<bool, Why> {
        match self.peers[i].rx.check(seq, secs(now_ns)) {
            SeqCheck::Ok => {
                self.peers[i].rx.accept(seq);
                Ok(true)
            }
            SeqCheck::Drop(why) => Err(why),
            SeqCheck::Defer(why) if no_defer => Err(why),
            SeqCheck::Defer(why) => {
                self.seq_req(i, src, Some(raw.to_vec()), now_ns, rng, out)?;
                out.events.push(RrbEvent::Deferred { from: src, packet_type: ty, reason: why });
                Ok(false)
            }
        }
    }

    fn on_seq_req(
        &mut self,
        i: usize,
        src: MacAddr,
        m: &SeqReq,
        now_ns: u64,
        rng: &mut dyn CryptoRngCore,
        out: &mut RrbOutput,
    ) -> core::result::Result<(), Why> {
        let seq = self.peers[i].tx.next(secs(now_ns), rng);
        let r = Msg::SeqResp(SeqResp { nonce: m.nonce, seq, r0kh_id: m.r0kh_id.clone(), r1kh_id: m.r1kh_id });
        out.frames.push(r.emit(src, self.own_addr, &self.peers[i].key).map_err(|_| "SEQ_RESP could not be built")?);
        Ok(())
    }

    /// A verified SEQ_RESP: its nonce must be one of ours and fresh; sets the window and
    /// returns the deferred messages to try again.
    fn on_seq_resp(&mut self, i: usize, src: MacAddr, m: &SeqResp, now_ns: u64) -> core::result::Result<Vec<Vec<u8>>, Why> {
        let p = &mut self.peers[i];
        let fresh = |d: &Deferred| now_ns.saturating_sub(d.at_ns) <= SEQ_TIMEOUT_S as u64 * NS;
        if !p.queue.iter().any(|d| fresh(d) && ct_eq(&d.nonce, &m.nonce)) {
            return Err("SEQ_RESP nonce matches no SEQ_REQ of ours");
        }
        if p.learned {
            p.addr = src;
        }
        match p.rx.check(&m.seq, secs(now_ns)) {
            SeqCheck::Ok => p.rx.accept(&m.seq),
            _ => p.rx.reset(&m.seq, secs(now_ns), p.queue.len()),
        }
        Ok(p.queue.drain(..).filter_map(|d| d.frame).collect())
    }

    fn expire(&mut self, now_ns: u64) {
        for p in &mut self.peers {
            p.queue.retain(|d| now_ns.saturating_sub(d.at_ns) <= SEQ_TIMEOUT_S as u64 * NS);
        }
    }

    fn drop(&mut self, out: &mut RrbOutput, from: MacAddr, ty: Option<PacketType>, why: Why) {
        *self.drops.entry(why).or_insert(0) += 1;
        out.events.push(RrbEvent::Dropped { from, packet_type: ty, reason: why });
    }
}

/// The checks every key-holder frame passes before its role looks at it.
fn frame_checks(
    own: MacAddr,
    raw: &[u8],
) -> core::result::Result<(KhFrame<'_>, super::msg::AuthFields), (MacAddr, Option<PacketType>, Why)> {
    let src = if raw.len() >= 12 { MacAddr::from_bytes(&raw[6..12]).unwrap_or_default() } else { MacAddr::default() };
    let f = KhFrame::parse(raw).map_err(|e| (src, None, error_why(e)))?;
    if f.src.is_group() {
        return Err((src, Some(f.packet_type), "group source address"));
    }
    if f.src == own {
        return Err((src, Some(f.packet_type), "own source address"));
    }
    if f.dst != own && !f.dst.is_group() {
        return Err((src, Some(f.packet_type), "not addressed to this key holder"));
    }
    let a = f.auth_fields().map_err(|e| (src, Some(f.packet_type), error_why(e)))?;
    Ok((f, a))
}

fn error_why(e: Error) -> Why {
    match e {
        Error::Truncated => "truncated",
        Error::Oversize => "frame too long",
        Error::MicFailure => "AES-SIV check failed (wrong key or changed octets)",
        Error::Malformed(w) | Error::Unsupported(w) => w,
        _ => "malformed",
    }
}

/// A PMK-R0 this R0KH holds (hostapd `struct wpa_ft_pmk_r0_sa`).
pub struct PmkR0Entry {
    /// The AKM it was derived for (the hash of its PMK-R1s).
    pub akm: Akm,
    pub pmk_r0: PmkR0,
    pub spa: MacAddr,
    /// hostapd's `WPA_CIPHER_*` bit ([`super::msg::suite_to_pairwise`]).
    pub pairwise: u16,
    /// Monotonic expiry (`None`: never), e.g. now + `ft_r0_key_lifetime`.
    pub expires_at_ns: Option<u64>,
    pub session_timeout_at_ns: Option<u64>,
    pub identity: Vec<u8>,
    pub radius_cui: Vec<u8>,
    pub vlan_untagged: u16,
    pub vlan_tagged: Vec<u16>,
}

impl PmkR0Entry {
    fn live(&self, now_ns: u64) -> bool {
        self.expires_at_ns.is_none_or(|t| now_ns < t) && self.session_timeout_at_ns.is_none_or(|t| now_ns < t)
    }

    /// The session TLVs for `r1kh_id` (hostapd `wpa_ft_rrb_build_r0`): the PMK-R1 derived
    /// here, and the seconds left, at least 1 when set. hostapd writes EXPIRES_IN as the low
    /// 16 bits of the seconds left; this saturates at 65535 instead.
    fn session(&self, r1kh_id: MacAddr, now_ns: u64) -> Result<Session> {
        let r1 = derive_pmk_r1(self.akm, &self.pmk_r0, r1kh_id.0, self.spa.0)?;
        let left = |t: Option<u64>| t.map(|t| (t.saturating_sub(now_ns).div_ceil(NS)).max(1)).unwrap_or(0);
        Ok(Session {
            pmk_r1: r1.key,
            pmk_r1_name: r1.name,
            pairwise: self.pairwise,
            expires_in: left(self.expires_at_ns).min(u16::MAX as u64) as u16,
            session_timeout: left(self.session_timeout_at_ns).min(u32::MAX as u64) as u32,
            identity: self.identity.clone(),
            radius_cui: self.radius_cui.clone(),
            vlan_untagged: self.vlan_untagged,
            vlan_tagged: self.vlan_tagged.clone(),
        })
    }
}

/// The R0 key holder of one BSS (hostapd: the R0KH half of `wpa_auth_ft.c`).
pub struct R0kh {
    side: Side,
    entries: Vec<PmkR0Entry>,
}

impl R0kh {
    /// `own_addr` is the BSS's address (the frames' source), `r0kh_id` its R0KH-ID
    /// (hostapd `nas_identifier`).
    pub fn new(own_addr: MacAddr, r0kh_id: &[u8]) -> Result<R0kh> {
        if r0kh_id.is_empty() || r0kh_id.len() > R0KH_ID_MAX_LEN {
            return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
        }
        Ok(R0kh { side: Side::new(Role::R0, own_addr, r0kh_id.to_vec()), entries: Vec::new() })
    }

    pub fn r0kh_id(&self) -> &[u8] {
        &self.side.own_id
    }

    /// Adds (or replaces, by R1KH-ID) a remote R1KH; the wildcard line sets the key any
    /// other R1KH is taken with.
    pub fn add_r1kh(&mut self, r: RemoteR1kh) {
        let w = r.is_wildcard();
        self.side.add(r.addr, r.r1kh_id.0.to_vec(), r.key, w);
    }

    /// Stores a PMK-R0 (after an initial mobility domain association).
    pub fn store(&mut self, e: PmkR0Entry) {
        self.entries.retain(|x| !(x.spa == e.spa && ct_eq(&x.pmk_r0.name, &e.pmk_r0.name)));
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.remove(0);
        }
        self.entries.push(e);
    }

    /// The live entry for (`spa`, `pmk_r0_name`).
    pub fn get(&self, spa: MacAddr, pmk_r0_name: &[u8; PMK_NAME_LEN], now_ns: u64) -> Option<&PmkR0Entry> {
        self.entries.iter().find(|e| e.spa == spa && ct_eq(&e.pmk_r0.name, pmk_r0_name) && e.live(now_ns))
    }

    pub fn remove_station(&mut self, spa: MacAddr) {
        self.entries.retain(|e| e.spa != spa);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn drops(&self) -> &BTreeMap<&'static str, u64> {
        &self.side.drops
    }

    /// PUSHes the newest live PMK-R0 of `spa` as a PMK-R1 to every configured R1KH
    /// (hostapd `wpa_ft_push_pmk_r1`, `pmk_r1_push=1`). Returns how many were made.
    pub fn push(&mut self, spa: MacAddr, now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) -> Result<usize> {
        let Some(e) = self.entries.iter().rev().find(|e| e.spa == spa && e.live(now_ns)) else { return Ok(0) };
        let mut n = 0;
        for i in 0..self.side.peers.len() {
            let p = &self.side.peers[i];
            if p.learned || p.addr == MacAddr::default() || p.addr.is_group() {
                continue;
            }
            let r1kh_id = MacAddr::from_bytes(&p.id)?;
            let session = e.session(r1kh_id, now_ns)?;
            let seq = self.side.peers[i].tx.next(secs(now_ns), rng);
            let m = Msg::Push(Push { seq, r0kh_id: self.side.own_id.clone(), r1kh_id, s1kh_id: spa, pmk_r0_name: e.pmk_r0.name, session });
            let p = &self.side.peers[i];
            out.frames.push(m.emit(p.addr, self.side.own_addr, &p.key)?);
            n += 1;
        }
        Ok(n)
    }

    /// Takes a PULL, SEQ_REQ or SEQ_RESP meant for this R0KH.
    pub fn handle(&mut self, raw: &[u8], now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        self.handle_inner(raw, false, now_ns, rng, out)
    }

    fn handle_inner(&mut self, raw: &[u8], no_defer: bool, now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        let (f, a) = match frame_checks(self.side.own_addr, raw) {
            Ok(x) => x,
            Err((from, ty, why)) => return self.side.drop(out, from, ty, why),
        };
        let (src, ty) = (f.src, f.packet_type);
        if let Err(why) = self.take(&f, a, raw, no_defer, now_ns, rng, out) {
            self.side.drop(out, src, Some(ty), why);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn take(
        &mut self,
        f: &KhFrame<'_>,
        a: super::msg::AuthFields,
        raw: &[u8],
        no_defer: bool,
        now_ns: u64,
        rng: &mut dyn CryptoRngCore,
        out: &mut RrbOutput,
    ) -> core::result::Result<(), Why> {
        if !matches!(f.packet_type, PacketType::Pull | PacketType::SeqReq | PacketType::SeqResp) {
            return Err("not a message for an R0KH");
        }
        if !ct_eq(&a.r0kh_id, &self.side.own_id) {
            return Err("R0KH-ID is not ours");
        }
        let r1kh_id = a.r1kh_id;
        let (found, key) = self.side.key_for(r1kh_id.as_bytes(), f.src)?;
        let plain = f.open(&key).map_err(error_why)?;
        let msg = Msg::from_parts(f.packet_type, a, &plain).map_err(error_why)?;
        let i = self.side.admit(found, r1kh_id.as_bytes(), f.src)?;
        match msg {
            Msg::SeqReq(m) => self.side.on_seq_req(i, f.src, &m, now_ns, rng, out),
            Msg::SeqResp(m) => {
                for d in self.side.on_seq_resp(i, f.src, &m, now_ns)? {
                    self.handle_inner(&d, true, now_ns, rng, out);
                }
                Ok(())
            }
            Msg::Pull(m) => {
                if !self.side.gate(i, f.src, f.packet_type, &m.seq, raw, no_defer, now_ns, rng, out)? {
                    return Ok(());
                }
                let session = match self.get(m.s1kh_id, &m.pmk_r0_name, now_ns) {
                    Some(e) => Some(e.session(r1kh_id, now_ns).map_err(|_| "PMK-R1 derivation failed")?),
                    None => None,
                };
                let found = session.is_some();
                let seq = self.side.peers[i].tx.next(secs(now_ns), rng);
                let r = Msg::Resp(Resp { nonce: m.nonce, seq, r0kh_id: m.r0kh_id, r1kh_id, s1kh_id: m.s1kh_id, session });
                out.frames.push(r.emit(f.src, self.side.own_addr, &self.side.peers[i].key).map_err(|_| "RESP could not be built")?);
                out.events.push(RrbEvent::PullAnswered { r1kh_id, spa: m.s1kh_id, pmk_r0_name: m.pmk_r0_name, found });
                Ok(())
            }
            _ => Err("not a message for an R0KH"),
        }
    }

    /// Expires entries and deferred messages.
    pub fn poll(&mut self, now_ns: u64) {
        self.entries.retain(|e| e.live(now_ns));
        self.side.expire(now_ns);
    }
}

/// A PMK-R1 this R1KH holds (hostapd `struct wpa_ft_pmk_r1_sa`).
#[derive(Debug, Clone)]
pub struct PmkR1Entry {
    pub spa: MacAddr,
    pub r0kh_id: Vec<u8>,
    pub session: Session,
    pub expires_at_ns: Option<u64>,
    pub session_timeout_at_ns: Option<u64>,
}

impl PmkR1Entry {
    fn live(&self, now_ns: u64) -> bool {
        self.expires_at_ns.is_none_or(|t| now_ns < t) && self.session_timeout_at_ns.is_none_or(|t| now_ns < t)
    }

    /// The key in the form `rsn::ft::derive_ft_ptk` takes.
    pub fn pmk_r1(&self) -> PmkR1 {
        PmkR1 { key: self.session.pmk_r1.clone(), name: self.session.pmk_r1_name }
    }
}

struct PendingPull {
    spa: MacAddr,
    pmk_r0_name: [u8; PMK_NAME_LEN],
    r0kh_id: Vec<u8>,
    nonce: [u8; NONCE_LEN],
    deadline_ns: u64,
    sends_left: u32,
}

/// PMKR1Name = Truncate-128(Hash("FT-R1N" || PMKR0Name || R1KH-ID || S1KH-ID))
/// (12.7.1.6.4), the hash by the PMK-R1's length (48: SHA-384).
fn pmk_r1_name(q: usize, pmk_r0_name: &[u8; 16], r1kh_id: MacAddr, spa: MacAddr) -> [u8; 16] {
    let mut n = [0u8; 16];
    if q == 48 {
        n.copy_from_slice(
            &Sha384::new().chain_update(b"FT-R1N").chain_update(pmk_r0_name).chain_update(r1kh_id.0).chain_update(spa.0).finalize()[..16],
        );
    } else {
        n.copy_from_slice(
            &Sha256::new().chain_update(b"FT-R1N").chain_update(pmk_r0_name).chain_update(r1kh_id.0).chain_update(spa.0).finalize()[..16],
        );
    }
    n
}

/// The R1 key holder of one BSS (hostapd: the R1KH half of `wpa_auth_ft.c`).
pub struct R1kh {
    side: Side,
    entries: Vec<PmkR1Entry>,
    pending: Vec<PendingPull>,
    /// hostapd `rkh_pull_timeout` (1 s).
    pub pull_timeout_ns: u64,
    /// PULLs sent in all for one request (hostapd `rkh_pull_retries`, 4).
    pub pull_tries: u32,
    /// hostapd `r1_max_key_lifetime` in seconds, 0 for none.
    pub max_lifetime_s: u32,
}

impl R1kh {
    /// `r1kh_id` is hostapd's `r1_key_holder` (usually the BSSID).
    pub fn new(own_addr: MacAddr, r1kh_id: MacAddr) -> R1kh {
        R1kh {
            side: Side::new(Role::R1, own_addr, r1kh_id.0.to_vec()),
            entries: Vec::new(),
            pending: Vec::new(),
            pull_timeout_ns: NS,
            pull_tries: 4,
            max_lifetime_s: 0,
        }
    }

    pub fn r1kh_id(&self) -> MacAddr {
        MacAddr::from_bytes(&self.side.own_id).unwrap_or_default()
    }

    /// Adds (or replaces, by R0KH-ID) a remote R0KH; R0KH-ID `*` is the wildcard.
    pub fn add_r0kh(&mut self, r: RemoteR0kh) {
        let w = r.is_wildcard();
        self.side.add(r.addr, r.r0kh_id, r.key, w);
    }

    /// The live PMK-R1 for (`spa`, `pmk_r1_name`).
    pub fn get(&self, spa: MacAddr, pmk_r1_name: &[u8; PMK_NAME_LEN], now_ns: u64) -> Option<&PmkR1Entry> {
        self.entries.iter().find(|e| e.spa == spa && ct_eq(&e.session.pmk_r1_name, pmk_r1_name) && e.live(now_ns))
    }

    pub fn remove_station(&mut self, spa: MacAddr) {
        self.entries.retain(|e| e.spa != spa);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn drops(&self) -> &BTreeMap<&'static str, u64> {
        &self.side.drops
    }

    /// Whether a PULL for (`spa`, `pmk_r0_name`) waits for its RESP.
    pub fn is_pulling(&self, spa: MacAddr, pmk_r0_name: &[u8; PMK_NAME_LEN]) -> bool {
        self.pending.iter().any(|p| p.spa == spa && p.pmk_r0_name == *pmk_r0_name)
    }

    /// Asks the R0KH `r0kh_id` (from the station's FTE) for the PMK-R1 of `pmk_r0_name`
    /// (from its RSNE) (hostapd `wpa_ft_pull_pmk_r1`). The first contact with that R0KH
    /// also sends a SEQ_REQ, ahead of the RESP's need for it. A PULL already pending is not
    /// sent again here ([`R1kh::poll`] repeats it). Unknown R0KH-ID: `Unsupported`.
    pub fn pull(
        &mut self,
        spa: MacAddr,
        r0kh_id: &[u8],
        pmk_r0_name: [u8; PMK_NAME_LEN],
        now_ns: u64,
        rng: &mut dyn CryptoRngCore,
        out: &mut RrbOutput,
    ) -> Result<()> {
        if r0kh_id.is_empty() || r0kh_id.len() > R0KH_ID_MAX_LEN {
            return Err(Error::Malformed("R0KH-ID is not 1-48 octets"));
        }
        if self.is_pulling(spa, &pmk_r0_name) {
            return Ok(());
        }
        if self.pending.len() >= MAX_PENDING_PULLS {
            return Err(Error::Oversize);
        }
        let i = self.peer_for_pull(r0kh_id)?;
        if self.side.peers[i].addr == self.side.own_addr {
            return Err(Error::Unsupported("the R0KH-ID names this AP itself"));
        }
        let nonce = crate::rng::array::<NONCE_LEN>(rng);
        self.pending.push(PendingPull {
            spa,
            pmk_r0_name,
            r0kh_id: r0kh_id.to_vec(),
            nonce,
            deadline_ns: now_ns.saturating_add(self.pull_timeout_ns),
            sends_left: self.pull_tries.max(1) - 1,
        });
        let mut sent = Ok(());
        if !self.side.peers[i].rx.is_valid() && self.side.peers[i].queue.is_empty() {
            let dst = self.side.peers[i].addr;
            sent = self.side.seq_req(i, dst, None, now_ns, rng, out).map_err(Error::Unsupported);
        }
        sent = sent.and_then(|()| self.send_pull(i, self.pending.len() - 1, now_ns, rng, out));
        if sent.is_err() {
            self.pending.pop();
        }
        sent
    }

    fn peer_for_pull(&mut self, r0kh_id: &[u8]) -> Result<usize> {
        if let Some(i) = self.side.find(r0kh_id) {
            return Ok(i);
        }
        let (addr, _) = self.side.wildcard.as_ref().ok_or(Error::Unsupported("no r0kh line for that R0KH-ID"))?;
        let addr = *addr;
        self.side.admit(None, r0kh_id, addr).map_err(Error::Unsupported)
    }

    fn send_pull(&mut self, i: usize, pi: usize, now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) -> Result<()> {
        if self.side.peers[i].addr == self.side.own_addr {
            return Err(Error::Unsupported("the R0KH-ID names this AP itself"));
        }
        let seq = self.side.peers[i].tx.next(secs(now_ns), rng);
        let p = &self.pending[pi];
        let m = Msg::Pull(Pull {
            nonce: p.nonce,
            seq,
            r0kh_id: p.r0kh_id.clone(),
            r1kh_id: self.r1kh_id(),
            pmk_r0_name: p.pmk_r0_name,
            s1kh_id: p.spa,
        });
        let peer = &self.side.peers[i];
        out.frames.push(m.emit(peer.addr, self.side.own_addr, &peer.key)?);
        Ok(())
    }

    /// Takes a RESP, PUSH, SEQ_REQ or SEQ_RESP meant for this R1KH.
    pub fn handle(&mut self, raw: &[u8], now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        self.handle_inner(raw, false, now_ns, rng, out)
    }

    fn handle_inner(&mut self, raw: &[u8], no_defer: bool, now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        let (f, a) = match frame_checks(self.side.own_addr, raw) {
            Ok(x) => x,
            Err((from, ty, why)) => return self.side.drop(out, from, ty, why),
        };
        let (src, ty) = (f.src, f.packet_type);
        if let Err(why) = self.take(&f, a, raw, no_defer, now_ns, rng, out) {
            self.side.drop(out, src, Some(ty), why);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn take(
        &mut self,
        f: &KhFrame<'_>,
        a: super::msg::AuthFields,
        raw: &[u8],
        no_defer: bool,
        now_ns: u64,
        rng: &mut dyn CryptoRngCore,
        out: &mut RrbOutput,
    ) -> core::result::Result<(), Why> {
        if !matches!(f.packet_type, PacketType::Resp | PacketType::Push | PacketType::SeqReq | PacketType::SeqResp) {
            return Err("not a message for an R1KH");
        }
        if !ct_eq(a.r1kh_id.as_bytes(), &self.side.own_id) {
            return Err("R1KH-ID is not ours");
        }
        // hostapd looks for the pending PULL before anything else (`wpa_ft_rrb_rx_resp`).
        let pending = match (f.packet_type, &a.nonce) {
            (PacketType::Resp, Some(n)) => {
                Some(self.pending.iter().position(|p| ct_eq(&p.nonce, n)).ok_or("RESP nonce matches no pending PULL")?)
            }
            (PacketType::Resp, None) => return Err("RESP without nonce"),
            _ => None,
        };
        let r0kh_id = a.r0kh_id.clone();
        let (found, key) = self.side.key_for(&r0kh_id, f.src)?;
        let plain = f.open(&key).map_err(error_why)?;
        let msg = Msg::from_parts(f.packet_type, a, &plain).map_err(error_why)?;
        let i = self.side.admit(found, &r0kh_id, f.src)?;
        match msg {
            Msg::SeqReq(m) => self.side.on_seq_req(i, f.src, &m, now_ns, rng, out),
            Msg::SeqResp(m) => {
                for d in self.side.on_seq_resp(i, f.src, &m, now_ns)? {
                    self.handle_inner(&d, true, now_ns, rng, out);
                }
                Ok(())
            }
            Msg::Resp(m) => {
                let pi = pending.ok_or("RESP nonce matches no pending PULL")?;
                let p = &self.pending[pi];
                if m.s1kh_id != p.spa || !ct_eq(&m.r0kh_id, &p.r0kh_id) {
                    return Err("RESP is not for the pulled station or R0KH");
                }
                if !self.side.gate(i, f.src, f.packet_type, &m.seq, raw, no_defer, now_ns, rng, out)? {
                    return Ok(());
                }
                let p = self.pending.remove(pi);
                match m.session {
                    None => {
                        out.events.push(RrbEvent::PullRefused { spa: p.spa, pmk_r0_name: p.pmk_r0_name });
                        Ok(())
                    }
                    Some(s) => self.install(p.spa, &p.pmk_r0_name, m.r0kh_id, s, false, now_ns, out),
                }
            }
            Msg::Push(m) => {
                if !self.side.gate(i, f.src, f.packet_type, &m.seq, raw, no_defer, now_ns, rng, out)? {
                    return Ok(());
                }
                self.install(m.s1kh_id, &m.pmk_r0_name, m.r0kh_id, m.session, true, now_ns, out)
            }
            _ => Err("not a message for an R1KH"),
        }
    }

    /// Stores a PMK-R1 whose name is the one this R1KH derives for it (a check hostapd
    /// leaves to the station's next message).
    #[allow(clippy::too_many_arguments)]
    fn install(
        &mut self,
        spa: MacAddr,
        pmk_r0_name: &[u8; 16],
        r0kh_id: Vec<u8>,
        s: Session,
        pushed: bool,
        now_ns: u64,
        out: &mut RrbOutput,
    ) -> core::result::Result<(), Why> {
        let expect = pmk_r1_name(s.pmk_r1.len(), pmk_r0_name, self.r1kh_id(), spa);
        if !ct_eq(&expect, &s.pmk_r1_name) {
            return Err("PMKR1Name is not the one derived from PMKR0Name, R1KH-ID and S1KH-ID");
        }
        let mut life = s.expires_in as u64;
        if self.max_lifetime_s != 0 && (life == 0 || life > self.max_lifetime_s as u64) {
            life = self.max_lifetime_s as u64;
        }
        let at = |secs: u64| (secs != 0).then(|| now_ns.saturating_add(secs.saturating_mul(NS)));
        let e = PmkR1Entry {
            spa,
            r0kh_id: r0kh_id.clone(),
            expires_at_ns: at(life),
            session_timeout_at_ns: at(s.session_timeout as u64),
            session: s,
        };
        out.events.push(RrbEvent::PmkR1Stored { spa, pmk_r1_name: e.session.pmk_r1_name, r0kh_id, pushed });
        self.store(e);
        Ok(())
    }

    /// Stores a PMK-R1 (one derived locally, say).
    pub fn store(&mut self, e: PmkR1Entry) {
        self.entries.retain(|x| !(x.spa == e.spa && ct_eq(&x.session.pmk_r1_name, &e.session.pmk_r1_name)));
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.remove(0);
        }
        self.entries.push(e);
    }

    /// Repeats PULLs past their timeout (same nonce, new sequence number) and gives up
    /// after `pull_tries`; expires entries and deferred messages.
    pub fn poll(&mut self, now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        self.entries.retain(|e| e.live(now_ns));
        self.side.expire(now_ns);
        let mut pi = 0;
        while pi < self.pending.len() {
            if now_ns < self.pending[pi].deadline_ns {
                pi += 1;
                continue;
            }
            let peer = self.side.find(&self.pending[pi].r0kh_id);
            if self.pending[pi].sends_left > 0 {
                if let Some(i) = peer {
                    self.pending[pi].sends_left -= 1;
                    self.pending[pi].deadline_ns = now_ns.saturating_add(self.pull_timeout_ns);
                    if self.send_pull(i, pi, now_ns, rng, out).is_ok() {
                        pi += 1;
                        continue;
                    }
                }
            }
            let p = self.pending.remove(pi);
            out.events.push(RrbEvent::PullTimedOut { spa: p.spa, pmk_r0_name: p.pmk_r0_name });
        }
    }
}

/// Both key holders of one BSS, with hostapd's dispatch: PULL to the R0KH, RESP and PUSH
/// to the R1KH, SEQ_REQ/SEQ_RESP to the one whose own ID the message names (exactly one).
pub struct KeyHolder {
    pub r0: R0kh,
    pub r1: R1kh,
    own_addr: MacAddr,
    drops: BTreeMap<&'static str, u64>,
}

impl KeyHolder {
    /// The usual setup: hostapd's `nas_identifier` and `r1_key_holder` of a BSS whose
    /// address is `own_addr`.
    pub fn new(own_addr: MacAddr, r0kh_id: &[u8], r1kh_id: MacAddr) -> Result<KeyHolder> {
        Ok(KeyHolder { r0: R0kh::new(own_addr, r0kh_id)?, r1: R1kh::new(own_addr, r1kh_id), own_addr, drops: BTreeMap::new() })
    }

    /// The BSS address the frames go out from.
    pub fn addr(&self) -> MacAddr {
        self.own_addr
    }

    /// Every refusal of this holder and its two roles, by reason.
    pub fn drops(&self) -> BTreeMap<&'static str, u64> {
        let mut d = self.drops.clone();
        for (k, v) in self.r0.drops().iter().chain(self.r1.drops()) {
            *d.entry(k).or_insert(0) += v;
        }
        d
    }

    /// Takes one received Ethernet frame of type 88-B7.
    pub fn handle(&mut self, raw: &[u8], now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        let (f, a) = match frame_checks(self.own_addr, raw) {
            Ok(x) => x,
            Err((from, ty, why)) => {
                *self.drops.entry(why).or_insert(0) += 1;
                out.events.push(RrbEvent::Dropped { from, packet_type: ty, reason: why });
                return;
            }
        };
        let to_r0 = match f.packet_type {
            PacketType::Pull => true,
            PacketType::Resp | PacketType::Push => false,
            PacketType::SeqReq | PacketType::SeqResp => {
                let r0 = ct_eq(&a.r0kh_id, self.r0.r0kh_id());
                let r1 = a.r1kh_id == self.r1.r1kh_id();
                if r0 == r1 {
                    let why = if r0 {
                        "SEQ message names both our R0KH-ID and R1KH-ID"
                    } else {
                        "SEQ message names neither our R0KH-ID nor R1KH-ID"
                    };
                    *self.drops.entry(why).or_insert(0) += 1;
                    out.events.push(RrbEvent::Dropped { from: f.src, packet_type: Some(f.packet_type), reason: why });
                    return;
                }
                r0
            }
        };
        if to_r0 {
            self.r0.handle(raw, now_ns, rng, out)
        } else {
            self.r1.handle(raw, now_ns, rng, out)
        }
    }

    pub fn poll(&mut self, now_ns: u64, rng: &mut dyn CryptoRngCore, out: &mut RrbOutput) {
        self.r0.poll(now_ns);
        self.r1.poll(now_ns, rng, out);
    }
}
