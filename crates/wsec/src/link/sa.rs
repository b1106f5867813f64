//! A security association as one STA holds it for one peer: the keys by Key ID and what
//! each key needs around it, IEEE 802.11-2020 12.5 and 12.6.
//!
//! - Pairwise keys under Key ID 0 and 1 (Extended Key ID, 12.6.21: two PTKs may be
//!   installed at once, and the transmitter switches between them); group keys (GTK, and
//!   WEP default keys) under Key ID 0-3; IGTK under 4-5 and BIGTK under 6-7 (BIP).
//! - Each key has its own transmit PN generator (fails closed at 2^48 - 1) and its own
//!   receive replay counters; a key install gets a fresh tag so that fragments decrypted
//!   under different keys are never joined.
//! - Receive order: key by Key ID and A1 → replay pre-check on the cleartext PN →
//!   decapsulation (MIC/ICV) → reassembly (TKIP: Michael on the whole MSDU) → the replay
//!   counter advances. A frame that fails any step changes nothing.
//! - A PTK rekey under the same Key ID (no Extended Key ID) keeps the replaced CCMP/GCMP
//!   key for reception for [`RETIRED_PTK_RX_NS`]: see [`SecurityAssociation::install`].
use super::defrag::{FragMeta, Reassembler};
use super::mic_failure::{MicFailureAction, MicFailureTracker};
use super::pn::PnGenerator;
use super::replay::ReplayCounters;
use crate::cipher::ccmp::BatchKey;
use crate::cipher::tkip::{MichaelDirection, TkipKey};
// Each installed key is the cipher's own type, as the one constructor builds it.
use crate::cipher::device::{CcmDevice, DeviceKey};
use crate::cipher::SuiteKey as Key;
use crate::cipher::{mpdu, AadOptions, CipherSuite, Pn, RxInfo};
use crate::error::{Error, Result};
use crate::wire::mac::{fc, Header, Mpdu, SeqControl};
use crate::wire::mme::MmeRepr;
use crate::wire::sechdr::KeyIdOctet;
use std::sync::Arc;

/// The STA's role in the 4-way handshake that made the PTK: it picks TKIP's Michael key
/// for each direction (12.7.2: the Authenticator transmits with PTK octets 16-23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Authenticator,
    Supplicant,
}

/// Which key table a key goes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    /// PTK's TK, Key ID 0 or 1.
    Pairwise,
    /// GTK (or a WEP default key), Key ID 0-3.
    Group,
    /// IGTK (Key ID 4-5) or BIGTK (6-7).
    ManagementGroup,
}

struct Slot {
    key: Key,
    tx: PnGenerator,
    rx: ReplayCounters,
    tag: u64,
    /// Installed for reception only (Extended Key ID, 12.6.21) until
    /// [`SecurityAssociation::set_tx_key`] selects it.
    rx_only: bool,
}

/// How long a pairwise key replaced under the same Key ID still opens received frames:
/// dot11MaxTransmitMSDULifetime (Annex C, default 512 TU = 524.288 ms).
///
/// Without Extended Key ID (12.6.21) the two ends of a PTK rekey switch keys at different
/// times (12.7.6.4: the Supplicant installs after sending message 4, the Authenticator
/// when it receives it), so frames the peer protected under the old TK, queued or in the
/// air when the key changed, arrive after it. Against hostapd under load that was 46 to
/// 63 data frames a rekey dropped as MIC failures (interop lab, wsec sta). The standard
/// has no receive window; what bounds one is the transmitter's: an MSDU not delivered
/// within dot11MaxTransmitMSDULifetime of its first attempt is discarded, so no frame the
/// peer protected before its own switch (which precedes this install, or follows it by
/// one message 4 in flight) can arrive later than that. The lab's worst gap was 70 ms.
/// Peers that negotiate Extended Key ID never need it: the new key takes the other Key
/// ID, installed for reception before either end transmits with it.
pub const RETIRED_PTK_RX_NS: u64 = 512 * 1_024_000;

/// The pairwise key a PTK0 rekey replaced: receive only, with its own replay counters,
/// until `until` (ns on the receive clock).
struct Retired {
    id: u8,
    slot: Slot,
    until: u64,
}

/// Where a frame opened ahead of [`SecurityAssociation::unprotect_opened`] found its key:
/// the key table, Key ID and the installation's tag (a rekey changes the tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxSlot {
    kt: KeyType,
    id: u8,
    tag: u64,
}

/// What `unprotect` hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RxOutcome {
    /// A whole plaintext MPDU (reassembled if it came in fragments), with the PN of its
    /// last fragment and the Key ID.
    Frame { mpdu: Vec<u8>, info: RxInfo },
    /// A fragment was accepted and is held until the rest arrives.
    FragmentHeld,
}

pub struct SecurityAssociation {
    role: Role,
    pairwise: [Option<Slot>; 2],
    tx_pairwise: u8,
    group: [Option<Slot>; 4],
    tx_group: u8,
    mgmt_group: [Option<Slot>; 4],
    tx_mgmt_group: u8,
    next_tag: u64,
    /// See [`RETIRED_PTK_RX_NS`].
    retired: Option<Retired>,
    /// The latest receive clock seen (`unprotect`'s `now_ns`): when a retired key expires.
    rx_clock: u64,
    /// Frames accepted under a retired pairwise key.
    pub rx_retired: u64,
    defrag: Reassembler,
    pub mic_failures: MicFailureTracker,
    /// What the last TKIP Michael failure calls for (report, or countermeasures).
    pub last_mic_failure: Option<MicFailureAction>,
    /// The crypto engine that holds this association's keys of its suite (see
    /// [`Self::set_device`]).
    device: Option<Arc<dyn CcmDevice>>,
}

impl SecurityAssociation {
    pub fn new(role: Role) -> Self {
        SecurityAssociation {
            role,
            pairwise: [None, None],
            tx_pairwise: 0,
            group: [None, None, None, None],
            tx_group: 1,
            mgmt_group: [None, None, None, None],
            tx_mgmt_group: 4,
            next_tag: 1,
            retired: None,
            rx_clock: 0,
            rx_retired: 0,
            defrag: Reassembler::new(),
            mic_failures: MicFailureTracker::new(),
            last_mic_failure: None,
            device: None,
        }
    }

    /// Gives the keys installed from now on of the suite `dev` runs to that engine
    /// ([`crate::cipher::device`]): it protects and opens their frames, and a key leaves
    /// its key table when it is replaced or removed. Keys of other suites stay here.
    pub fn set_device(&mut self, dev: Option<Arc<dyn CcmDevice>>) {
        self.device = dev;
    }

    fn table(&mut self, kt: KeyType, key_id: u8) -> Result<&mut Option<Slot>> {
        let i = key_id as usize;
        match kt {
            KeyType::Pairwise if i < 2 => Ok(&mut self.pairwise[i]),
            KeyType::Group if i < 4 => Ok(&mut self.group[i]),
            KeyType::ManagementGroup if (4..8).contains(&i) => Ok(&mut self.mgmt_group[i - 4]),
            _ => Err(Error::UnknownKeyId(key_id)),
        }
    }

    /// Installs a key. `rsc` is the receive sequence counter announced with it (a GTK's
    /// RSC from the GTK KDE): frames must carry a PN above it. Installing also selects the
    /// key for transmission in its table; with Extended Key ID use [`Self::set_tx_key`]
    /// to switch later.
    ///
    /// A pairwise CCMP/GCMP key installed over another under the same Key ID (a PTK0
    /// rekey) does not end the old one at once: it still opens received whole MPDUs that
    /// fail under the new key, for [`RETIRED_PTK_RX_NS`] from the last receive, with its
    /// own replay counters and never for transmission. TKIP (Michael failures start
    /// countermeasures) and WEP keys are replaced outright.
    pub fn install(&mut self, kt: KeyType, key_id: u8, suite: CipherSuite, key: &[u8], opts: AadOptions, rsc: Option<Pn>) -> Result<()> {
        self.put(kt, key_id, suite, key, opts, rsc, false)
    }

    /// Installs a pairwise key for reception only (Extended Key ID, 12.6.21: each end
    /// installs the new PTK under the other Key ID to receive before either transmits with
    /// it); [`Self::set_tx_key`] later switches transmission to it. The key it joins stays
    /// in force for both until then, and for reception after.
    pub fn install_rx(&mut self, key_id: u8, suite: CipherSuite, key: &[u8], opts: AadOptions) -> Result<()> {
        self.put(KeyType::Pairwise, key_id, suite, key, opts, None, true)
    }

    #[allow(clippy::too_many_arguments)]
    fn put(
        &mut self,
        kt: KeyType,
        key_id: u8,
        suite: CipherSuite,
        key: &[u8],
        opts: AadOptions,
        rsc: Option<Pn>,
        rx_only: bool,
    ) -> Result<()> {
        let valid = match kt {
            KeyType::Pairwise => !suite.is_bip(),
            KeyType::Group => !suite.is_bip(),
            KeyType::ManagementGroup => suite.is_bip(),
        };
        if !valid {
            return Err(Error::Unsupported("cipher suite not valid for this key type"));
        }
        // KRACK's all-zero key (wpa_supplicant 2.4/2.5): never install a key of zeros.
        if key.iter().all(|&b| b == 0) {
            return Err(Error::Malformed("all-zero key refused"));
        }
        let key = match &self.device {
            Some(d) if DeviceKey::runs(d.as_ref(), suite) => Key::Device(DeviceKey::new(d.clone(), suite, key, opts)?),
            _ => Key::new(suite, key, opts.into())?,
        };
        let tx = match key {
            Key::Wep(_) => PnGenerator::with_range(0, 24),
            _ => PnGenerator::new(),
        };
        let tag = self.next_tag;
        self.next_tag += 1;
        let rx = rsc.map(ReplayCounters::with_rsc).unwrap_or_default();
        let until = self.rx_clock.saturating_add(RETIRED_PTK_RX_NS);
        let old = self.table(kt, key_id)?.replace(Slot { key, tx, rx, tag, rx_only });
        // Extended Key ID replaces the key of two rekeys ago, long out of use: no window.
        if kt == KeyType::Pairwise && !rx_only {
            self.retired = old
                .filter(|o| matches!(o.key, Key::Ccmp(_) | Key::Gcmp(_) | Key::Eccmp(_) | Key::Device(_)))
                .map(|slot| Retired { id: key_id, slot, until });
        }
        if !rx_only {
            self.set_tx_key(kt, key_id)?;
        }
        // Fragments decrypted under the old key must not be completed under the new one.
        self.defrag.clear();
        Ok(())
    }

    /// Selects the key used to transmit (Extended Key ID switch, GTK rollover).
    pub fn set_tx_key(&mut self, kt: KeyType, key_id: u8) -> Result<()> {
        match self.table(kt, key_id)? {
            Some(slot) => slot.rx_only = false,
            None => return Err(Error::UnknownKeyId(key_id)),
        }
        match kt {
            KeyType::Pairwise => self.tx_pairwise = key_id,
            KeyType::Group => self.tx_group = key_id,
            KeyType::ManagementGroup => self.tx_mgmt_group = key_id,
        }
        Ok(())
    }

    /// Removes a key (and every partial MSDU).
    pub fn remove(&mut self, kt: KeyType, key_id: u8) -> Result<()> {
        *self.table(kt, key_id)? = None;
        if kt == KeyType::Pairwise && self.retired.as_ref().is_some_and(|r| r.id == key_id) {
            self.retired = None;
        }
        self.defrag.clear();
        Ok(())
    }

    /// The next PN the transmit key of `kt` will use (the RSC to announce is one less).
    pub fn tx_pn(&mut self, kt: KeyType) -> Option<Pn> {
        let id = match kt {
            KeyType::Pairwise => self.tx_pairwise,
            KeyType::Group => self.tx_group,
            KeyType::ManagementGroup => self.tx_mgmt_group,
        };
        self.table(kt, id).ok()?.as_ref().filter(|s| !s.rx_only).map(|s| s.tx.peek())
    }

    fn michael_rx(&self, group: bool) -> MichaelDirection {
        // Group frames always come from the Authenticator (AP).
        match (self.role, group) {
            (Role::Supplicant, _) | (_, true) => MichaelDirection::AuthenticatorToSupplicant,
            (Role::Authenticator, false) => MichaelDirection::SupplicantToAuthenticator,
        }
    }

    fn michael_tx(&self) -> MichaelDirection {
        match self.role {
            Role::Authenticator => MichaelDirection::AuthenticatorToSupplicant,
            Role::Supplicant => MichaelDirection::SupplicantToAuthenticator,
        }
    }

    /// Picks the transmit key of a plaintext MPDU: BIP for group-addressed management
    /// frames, the GTK for group-addressed data, else the pairwise key.
    fn tx_slot(&mut self, m: &Mpdu<'_>) -> (KeyType, u8) {
        let f = m.frame_control();
        let group = m.addr1().is_group();
        if f.is_mgmt() && group {
            (KeyType::ManagementGroup, self.tx_mgmt_group)
        } else if group {
            (KeyType::Group, self.tx_group)
        } else if self.pairwise[self.tx_pairwise as usize].as_ref().is_some_and(|s| !s.rx_only) || f.is_mgmt() {
            (KeyType::Pairwise, self.tx_pairwise)
        } else {
            // No pairwise key: WEP default key (or a GTK-only link).
            (KeyType::Group, self.tx_group)
        }
    }

    /// Protects one plaintext MPDU with the right transmit key and a fresh PN.
    pub fn protect(&mut self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<()> {
        self.protect_parsed(&Mpdu::new_checked(mpdu)?, out)
    }

    /// [`Self::protect`] of a plaintext MPDU whose header was checked once; `out` is the
    /// caller's buffer (cleared first).
    pub fn protect_parsed(&mut self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<()> {
        let (kt, id) = self.tx_slot(m);
        let dir = self.michael_tx();
        let slot = self.tx_key(kt, id)?;
        let pn = slot.tx.next_pn()?;
        let mpdu = m.bytes();
        match &slot.key {
            Key::Tkip(k) if kt == KeyType::Pairwise => k.encapsulate_dir(mpdu, pn, id, dir, out),
            Key::Tkip(k) => k.encapsulate_dir(mpdu, pn, id, MichaelDirection::AuthenticatorToSupplicant, out),
            Key::Ccmp(c) => c.encapsulate_parsed(m, pn, id, out),
            Key::Gcmp(g) => g.encapsulate_parsed(m, pn, id, out),
            Key::Eccmp(e) => e.encapsulate_parsed(m, pn, id, out),
            Key::Device(d) => d.encapsulate_parsed(m, pn, id, out),
            k => k.as_protection().encapsulate(mpdu, pn, id, out),
        }
    }

    /// First half of [`Self::protect`] for batching: when the transmit key of `mpdu` is CCMP
    /// or ECCMP, allocates its PN and returns (key type, Key ID, PN); `None` when it is another cipher
    /// (use [`Self::protect`]). The frame must then be sealed with [`Self::ccmp_key`] and
    /// that PN (e.g. by [`crate::cipher::ccmp::encapsulate_batch`]) or the PN is skipped,
    /// never reused.
    pub fn tx_ccmp_pn(&mut self, mpdu: &[u8]) -> Result<Option<(KeyType, u8, Pn)>> {
        let (kt, id) = self.tx_slot(&Mpdu::new_checked(mpdu)?);
        let slot = self.tx_key(kt, id)?;
        if !matches!(slot.key, Key::Ccmp(_) | Key::Eccmp(_)) {
            return Ok(None);
        }
        Ok(Some((kt, id, slot.tx.next_pn()?)))
    }

    /// The key `tx_slot` chose, if it may transmit (not a receive-only key).
    fn tx_key(&mut self, kt: KeyType, id: u8) -> Result<&mut Slot> {
        self.table(kt, id)?.as_mut().filter(|s| !s.rx_only).ok_or(Error::UnknownKeyId(id))
    }

    fn slot(&self, kt: KeyType, key_id: u8) -> Option<&Slot> {
        let i = key_id as usize;
        match kt {
            KeyType::Pairwise => self.pairwise.get(i)?.as_ref(),
            KeyType::Group => self.group.get(i)?.as_ref(),
            KeyType::ManagementGroup => self.mgmt_group.get(i.checked_sub(4)?)?.as_ref(),
        }
    }

    /// The CCMP or ECCMP key in a slot (see [`Self::tx_ccmp_pn`]).
    pub fn ccmp_key(&self, kt: KeyType, key_id: u8) -> Option<BatchKey<'_>> {
        match &self.slot(kt, key_id)?.key {
            Key::Ccmp(c) => Some(BatchKey::Ccmp(c)),
            Key::Eccmp(e) => Some(BatchKey::Eccmp(e)),
            _ => None,
        }
    }

    /// First half of [`Self::unprotect`] for batched receive: when `mpdu` is a whole (not
    /// fragmented) MPDU under a CCMP or ECCMP key of this association, that key and the slot it
    /// sits in. The frame can then be opened anywhere (e.g. by
    /// [`crate::cipher::ccmp::decapsulate_batch`] on another thread) and finished by
    /// [`Self::unprotect_opened`]; nothing here changes the association.
    pub fn rx_ccmp_key(&self, mpdu: &[u8]) -> Option<(RxSlot, BatchKey<'_>)> {
        self.rx_ccmp_key_parsed(&Mpdu::new_checked(mpdu).ok()?)
    }

    /// [`Self::rx_ccmp_key`] of an MPDU whose header was checked once.
    pub fn rx_ccmp_key_parsed(&self, m: &Mpdu<'_>) -> Option<(RxSlot, BatchKey<'_>)> {
        if m.is_fragment() {
            return None;
        }
        let (kt, id) = self.rx_slot(m).ok()?;
        let slot = self.slot(kt, id)?;
        match &slot.key {
            Key::Ccmp(c) => Some((RxSlot { kt, id, tag: slot.tag }, BatchKey::Ccmp(c))),
            Key::Eccmp(e) => Some((RxSlot { kt, id, tag: slot.tag }, BatchKey::Eccmp(e))),
            _ => None,
        }
    }

    /// Second half of [`Self::unprotect`] for a frame opened ahead with the key of
    /// [`Self::rx_ccmp_key`]: `opened` is the decapsulation's outcome and `out` the
    /// plaintext MPDU. Applies the same replay rule in the same order (a replay is a
    /// replay even when its MIC is bad) and accepts the PN. `None` when the slot no longer
    /// holds that key (a rekey since): the caller must use [`Self::unprotect`].
    /// A frame that fails under its slot's key while a retired key could open it also
    /// gets `None` (see [`Self::install`]). `now_ns` is the receive clock.
    pub fn unprotect_opened(
        &mut self,
        now_ns: u64,
        mpdu: &[u8],
        at: RxSlot,
        opened: Result<RxInfo>,
        out: Vec<u8>,
    ) -> Option<Result<RxOutcome>> {
        self.rx_clock = self.rx_clock.max(now_ns);
        let m = Mpdu::new_checked(mpdu).ok()?;
        self.unprotect_opened_parsed(now_ns, &m, at, opened, out)
    }

    /// [`Self::unprotect_opened`] of an MPDU whose header was checked once.
    pub fn unprotect_opened_parsed(
        &mut self,
        now_ns: u64,
        m: &Mpdu<'_>,
        at: RxSlot,
        opened: Result<RxInfo>,
        out: Vec<u8>,
    ) -> Option<Result<RxOutcome>> {
        self.rx_clock = self.rx_clock.max(now_ns);
        if self.rx_slot(m).ok()? != (at.kt, at.id) {
            return None;
        }
        let slot = self.slot(at.kt, at.id)?;
        let opts = match &slot.key {
            Key::Ccmp(c) => c.opts,
            Key::Eccmp(e) => e.opts,
            _ => return None,
        };
        if slot.tag != at.tag {
            return None;
        }
        let replay_slot = ReplayCounters::slot_of(m);
        let checked = mpdu::peek_parsed(m, opts).and_then(|p| {
            slot.rx.check(replay_slot, p.pn)?;
            Ok((replay_slot, opened?))
        });
        if checked.is_err() && self.retired_for(at.kt, at.id) {
            return None;
        }
        Some(checked.map(|(replay_slot, info)| {
            self.accept(at.kt, at.id, replay_slot, info.pn);
            RxOutcome::Frame { mpdu: out, info }
        }))
    }

    /// Protects an MSDU in fragments of at most `max_fragment_body` body octets
    /// (10.2.7 fragmentation, then per-MPDU protection with consecutive PNs).
    pub fn protect_fragmented(&mut self, mpdu: &[u8], max_fragment_body: usize) -> Result<Vec<Vec<u8>>> {
        let m = Mpdu::new_checked(mpdu)?;
        let (kt, id) = self.tx_slot(&m);
        let dir = if kt == KeyType::Pairwise { self.michael_tx() } else { MichaelDirection::AuthenticatorToSupplicant };
        let hdr = m.header();
        let hl = m.header_len();
        if max_fragment_body == 0 {
            return Err(Error::Malformed("fragment size 0"));
        }
        let slot = self.tx_key(kt, id)?;
        if let Key::Tkip(k) = &slot.key {
            // Michael covers the whole MSDU, so the MIC may straddle fragments.
            let n = (mpdu.len() - hl + 8).div_ceil(max_fragment_body) as u64;
            let first = slot.tx.next_run(n)?;
            return k.encapsulate_msdu(&mpdu[..hl], &mpdu[hl..], first, id, max_fragment_body, dir);
        }
        let body = &mpdu[hl..];
        let chunks: Vec<&[u8]> = if body.is_empty() { vec![body] } else { body.chunks(max_fragment_body).collect() };
        if chunks.len() > 16 {
            return Err(Error::Fragment("more than 16 fragments"));
        }
        let first = slot.tx.next_run(chunks.len() as u64)?;
        let seq = hdr.seq_control().ok_or(Error::Unsupported("no Sequence Control"))?.sequence();
        let mut out = Vec::with_capacity(chunks.len());
        let fc = hdr.frame_control();
        for (i, c) in chunks.iter().enumerate() {
            let mut m = mpdu[..hl].to_vec();
            let mut h = Header::new_unchecked(&mut m[..]);
            h.set_frame_control(fc.with(fc::MORE_FRAGMENTS, i + 1 < chunks.len()));
            h.set_seq_control(SeqControl::new(seq, i as u8));
            m.extend_from_slice(c);
            let mut p = Vec::new();
            slot.key.as_protection().encapsulate(&m, first + i as u64, id, &mut p)?;
            out.push(p);
        }
        Ok(out)
    }

    /// Finds the receive key of a protected (or BIP) MPDU.
    fn rx_slot(&self, hdr: &Mpdu<'_>) -> Result<(KeyType, u8)> {
        let f = hdr.frame_control();
        let group = hdr.addr1().is_group();
        if f.is_mgmt() && group && !f.protected() {
            // BIP: the MME is the last element; its Key ID says which IGTK/BIGTK.
            for (i, s) in self.mgmt_group.iter().enumerate() {
                if let Some(Slot { key: Key::Bip(b), .. }) = s {
                    let l = MmeRepr::HEADER_LEN + MmeRepr::FIXED_LEN + b.mic_len();
                    let Some(m) = hdr.payload().len().checked_sub(l).map(|at| &hdr.payload()[at..]) else { continue };
                    if MmeRepr::parse(m).is_ok_and(|(r, _)| r.key_id as usize == i + 4 && r.mic_len == b.mic_len()) {
                        return Ok((KeyType::ManagementGroup, i as u8 + 4));
                    }
                }
            }
            return Err(Error::MmeMissing);
        }
        if !f.protected() {
            return Err(Error::NotProtected);
        }
        let id = KeyIdOctet::parse(hdr.payload())?.key_id();
        if !group && id < 2 && self.pairwise[id as usize].is_some() {
            return Ok((KeyType::Pairwise, id));
        }
        if self.group[id as usize].is_some() {
            return Ok((KeyType::Group, id));
        }
        Err(Error::UnknownKeyId(id))
    }

    /// Checks and removes the protection of a received MPDU. `now_ns` is a monotonic clock
    /// (reassembly lifetime, TKIP countermeasures, how long a retired PTK lasts).
    pub fn unprotect(&mut self, now_ns: u64, mpdu: &[u8]) -> Result<RxOutcome> {
        self.rx_clock = self.rx_clock.max(now_ns);
        let m = Mpdu::new_checked(mpdu)?;
        let mut out = Vec::new();
        Ok(match self.unprotect_into(now_ns, &m, &mut out)? {
            Some(info) => RxOutcome::Frame { mpdu: out, info },
            None => RxOutcome::FragmentHeld,
        })
    }

    /// Moves the receive clock to `now_ns` (a frame arrived, even one refused before it
    /// reached the association).
    pub fn observe_clock(&mut self, now_ns: u64) {
        self.rx_clock = self.rx_clock.max(now_ns);
    }

    /// [`Self::unprotect`] of an MPDU whose header was checked once, into the caller's
    /// buffer: `Some(info)` when `out` holds the whole plaintext MPDU (reassembled if it
    /// came in fragments), `None` when a fragment was accepted and is held.
    pub fn unprotect_into(&mut self, now_ns: u64, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<Option<RxInfo>> {
        self.rx_clock = self.rx_clock.max(now_ns);
        match self.unprotect_current(now_ns, m, out) {
            Err(e @ (Error::MicFailure | Error::Replay)) => self.unprotect_retired(m, out).unwrap_or(Err(e)),
            r => r,
        }
    }

    /// Whether a retired pairwise key (see [`Self::install`]) is still there for Key ID
    /// `id`; drops it once it has expired.
    fn retired_for(&mut self, kt: KeyType, id: u8) -> bool {
        if self.retired.as_ref().is_some_and(|r| self.rx_clock > r.until) {
            self.retired = None;
        }
        kt == KeyType::Pairwise && self.retired.as_ref().is_some_and(|r| r.id == id)
    }

    /// A whole MPDU that failed under the current pairwise key, under the key it replaced,
    /// on the retired key's own replay counters. `None` when there is no such key or it
    /// does not open the frame either (the caller keeps the first error). The MIC is
    /// checked before the replay counter here, so that a replay of an old-key frame is
    /// reported as a replay, not as the new key's MIC failure.
    fn unprotect_retired(&mut self, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Option<Result<Option<RxInfo>>> {
        if m.is_fragment() {
            return None;
        }
        let (kt, id) = self.rx_slot(m).ok()?;
        if !self.retired_for(kt, id) || matches!(self.slot(kt, id).map(|s| &s.key), Some(Key::Tkip(_))) {
            return None;
        }
        let r = self.retired.as_mut()?;
        let pn = match &r.slot.key {
            Key::Ccmp(c) => mpdu::peek_parsed(m, c.opts).ok()?.pn,
            Key::Gcmp(g) => mpdu::peek_parsed(m, g.opts).ok()?.pn,
            Key::Eccmp(e) => mpdu::peek_parsed(m, e.opts).ok()?.pn,
            Key::Device(d) => mpdu::peek_parsed(m, d.opts()).ok()?.pn,
            _ => return None,
        };
        let replay_slot = ReplayCounters::slot_of(m);
        let info = open(&r.slot.key, m, out).ok()?;
        debug_assert_eq!(info.pn, pn);
        if let Err(e) = r.slot.rx.check(replay_slot, pn) {
            return Some(Err(e));
        }
        r.slot.rx.accept(replay_slot, pn);
        self.rx_retired += 1;
        Some(Ok(Some(info)))
    }

    fn unprotect_current(&mut self, now_ns: u64, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<Option<RxInfo>> {
        let (kt, id) = self.rx_slot(m)?;
        let dir = self.michael_rx(kt != KeyType::Pairwise);
        let is_frag = m.is_fragment();
        let slot = self.table(kt, id)?.as_ref().ok_or(Error::UnknownKeyId(id))?;
        let replay_slot = ReplayCounters::slot_of(m);
        let mpdu = m.bytes();
        // Replay pre-check on the cleartext PN, so replays never count as MIC failures.
        let peeked = match &slot.key {
            Key::Ccmp(c) => Some(mpdu::peek_parsed(m, c.opts)?.pn),
            Key::Gcmp(g) => Some(mpdu::peek_parsed(m, g.opts)?.pn),
            Key::Eccmp(e) => Some(mpdu::peek_parsed(m, e.opts)?.pn),
            Key::Device(d) => Some(mpdu::peek_parsed(m, d.opts())?.pn),
            Key::Tkip(_) => Some(TkipKey::peek(mpdu)?.pn),
            Key::Wep(_) | Key::Bip(_) => None,
        };
        if let Some(pn) = peeked {
            slot.rx.check(replay_slot, pn)?;
        }
        let tag = slot.tag;
        let info = match (&slot.key, is_frag) {
            (Key::Tkip(k), true) => k.decapsulate_fragment_into(mpdu, out)?,
            (Key::Tkip(k), false) => match k.decapsulate_dir(mpdu, dir, out) {
                Err(Error::MicFailure) => return Err(self.tkip_mic_failure(now_ns)),
                r => r?,
            },
            (k, _) => open(k, m, out)?,
        };
        if let Key::Bip(_) = slot.key {
            slot.rx.check(replay_slot, info.pn)?;
        }
        let is_tkip = matches!(slot.key, Key::Tkip(_));
        if is_frag {
            let meta = FragMeta { pn: Some(info.pn), consecutive_pn: !is_tkip, key_tag: tag };
            let meta = if matches!(slot.key, Key::Wep(_)) { FragMeta { pn: None, consecutive_pn: false, ..meta } } else { meta };
            match self.defrag.push_parsed(now_ns, m, out, meta)? {
                None => {
                    if !is_tkip {
                        // Each CCMP/GCMP/WEP fragment verified on its own: its PN is spent.
                        self.accept(kt, id, replay_slot, info.pn);
                    }
                    return Ok(None);
                }
                Some(mut whole) if is_tkip => {
                    let h = Header::new_checked(&whole[..])?;
                    let (da, sa) = (h.da().ok_or(Error::Truncated)?, h.sa().ok_or(Error::Truncated)?);
                    let prio = h.qos_control().map(|q| q.tid()).unwrap_or(0);
                    let hl = h.header_len();
                    let slot = self.table(kt, id)?.as_ref().ok_or(Error::UnknownKeyId(id))?;
                    let Key::Tkip(k) = &slot.key else { unreachable!("is_tkip") };
                    match k.verify_msdu_mic(da.as_bytes(), sa.as_bytes(), prio, &whole[hl..], dir) {
                        Ok(n) => whole.truncate(hl + n),
                        Err(Error::MicFailure) => return Err(self.tkip_mic_failure(now_ns)),
                        Err(e) => return Err(e),
                    }
                    *out = whole;
                }
                Some(whole) => *out = whole,
            }
        }
        self.accept(kt, id, replay_slot, info.pn);
        Ok(Some(info))
    }

    fn accept(&mut self, kt: KeyType, id: u8, replay_slot: usize, pn: Pn) {
        let wep = matches!(self.table(kt, id), Ok(Some(Slot { key: Key::Wep(_), .. })));
        if let Ok(Some(s)) = self.table(kt, id) {
            if !wep {
                s.rx.accept(replay_slot, pn);
            }
        }
    }

    fn tkip_mic_failure(&mut self, now_ns: u64) -> Error {
        self.last_mic_failure = Some(self.mic_failures.record(now_ns));
        Error::MicFailure
    }

    /// Partial MSDUs held by the reassembler.
    pub fn fragments_pending(&self) -> usize {
        self.defrag.pending()
    }

    /// Octets the reassembler holds (bounded: [`super::defrag::Reassembler::bytes_held`]).
    pub fn fragment_bytes(&self) -> usize {
        self.defrag.bytes_held()
    }
}

/// Decapsulates `m` under `key` into `out`: the AEAD suites from the checked header, the
/// others from the octets.
fn open(key: &Key, m: &Mpdu<'_>, out: &mut Vec<u8>) -> Result<RxInfo> {
    match key {
        Key::Ccmp(c) => c.decapsulate_parsed(m, out),
        Key::Gcmp(g) => g.decapsulate_parsed(m, out),
        Key::Eccmp(e) => e.decapsulate_parsed(m, out),
        Key::Device(d) => d.decapsulate_parsed(m, out),
        k => k.as_protection().decapsulate(m.bytes(), out),
    }
}

impl core::fmt::Debug for SecurityAssociation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let ids = |t: &[Option<Slot>], base: usize| -> Vec<String> {
            t.iter().enumerate().filter_map(|(i, s)| s.as_ref().map(|s| format!("{}:{}", i + base, s.key.suite()))).collect()
        };
        f.debug_struct("SecurityAssociation")
            .field("role", &self.role)
            .field("pairwise", &ids(&self.pairwise, 0))
            .field("group", &ids(&self.group, 0))
            .field("mgmt_group", &ids(&self.mgmt_group, 4))
            .finish()
    }
}
