//! The host crypto engine: where the keys of phase 3 are installed, and the only place
//! (seed 000 section IV-B: after the 4-way handshake the keys go to the host operating
//! system, the card's own security is off, and the host protects every frame before the
//! card sends it). It holds one [`SecurityAssociation`] per peer (the per-station key
//! table of the AP) and one for the group keys, and does the crypto and nothing else:
//! when a frame is ready (the card model) is [`super::card`]'s, and batching, the queue
//! of frames waiting for the card and their release [`super::datapath`]'s.
//!
//! Batches: [`Engine::protect_batch`] protects a batch of frames together (multi-buffer
//! CCMP: eight frames' CBC-MAC chains and CTR interleaved, whatever their peers; ECCMP-4:
//! two frames of a key to a pass); [`Engine::open_ahead`] opens the CCMP and ECCMP frames
//! of a received batch ahead of their turn,
//! each result belonging to the frame at the same position, for
//! [`Engine::unprotect_opened`].
//!
//! Cores: with [`Engine::set_parallel`] (`engine_threads=`, all cores by default in the
//! programs) the crypto of a batch runs on a pool of threads. The per-station key tables
//! stay here; what is order-dependent (PN allocation on transmit, the replay check and
//! counter on receive) stays in order on the calling thread, and only the AEAD of the
//! frames (each with its own station's key) is spread: transmit in
//! [`Engine::protect_batch`], receive in [`Engine::open_ahead`]. So the bytes on the air
//! and every accept/drop decision are those of one frame at a time, whatever the pool.
use crate::cipher::device::CcmDevice;
use crate::cipher::RxInfo;
use crate::cipher::{new_protection, AadOptions, Algorithm, CipherSuite, Pn};
use crate::error::{Error, Result};
use crate::link::sa::{KeyType, Role, RxOutcome, RxSlot, SecurityAssociation};
use crate::wire::mac::{MacAddr, Mpdu};
use std::collections::HashMap;
use std::sync::Arc;
use zeroize::Zeroizing;

/// Counters of the engine.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EngineStats {
    pub protected: u64,
    pub unprotected: u64,
    pub octets: u64,
    /// Batches through [`Engine::protect_batch`] and the frames they held (frames per
    /// batch is their ratio).
    pub batches: u64,
    pub batch_frames: u64,
    /// Received batches opened ahead ([`Engine::open_ahead`]) and the CCMP frames in them.
    pub open_batches: u64,
    pub open_batch_frames: u64,
}

/// One frame of a batch for [`Engine::protect_batch`].
pub struct TxJob {
    /// The peer whose pairwise key protects the frame; `None` for group-addressed frames.
    pub peer: Option<MacAddr>,
    /// Plaintext MPDU in; protected MPDU out (on success).
    pub mpdu: Vec<u8>,
    pub result: Result<()>,
}

pub struct Engine {
    role: Role,
    peers: HashMap<MacAddr, SecurityAssociation>,
    group: SecurityAssociation,
    /// WEP default keys, also used for shared-key authentication (12.3.3.3).
    wep: [Option<(CipherSuite, Zeroizing<Vec<u8>>)>; 4],
    wep_tx: u8,
    wep_iv: u32,
    pub stats: EngineStats,
    scratch: Vec<u8>,
    /// Frame buffers to reuse (see [`Engine::take_buf`]), at most [`POOL_MAX`].
    bufs: Vec<Vec<u8>>,
    /// The crypto threads (None: the calling thread only).
    pool: Option<Box<dyn Parallel>>,
    /// The hardware engine that holds the keys of its suite (`crypto_offload=fpga-sim`).
    device: Option<Arc<dyn CcmDevice>>,
    /// The runtime's clock ([`Engine::set_meter`]) and the time spent in the AEAD passes.
    meter: Option<Meter>,
    crypto_ns: std::sync::atomic::AtomicU64,
    /// Peers with SPP A-MSDUs negotiated (both SPP A-MSDU Capable, 9.4.2.24.4): their
    /// pairwise keys keep the A-MSDU Present bit in the AAD (12.5.3.3.3).
    spp: std::collections::HashSet<MacAddr>,
    /// [`EngineStats::open_batches`] and `open_batch_frames` (open_ahead takes `&self`).
    open_stats: [std::sync::atomic::AtomicU64; 2],
}

/// A monotonic clock in nanoseconds, given by the runtime so that the engine can say how
/// long its AEAD passes took (the core itself never reads a clock).
pub type Meter = fn() -> u64;

/// A received CCMP frame opened ahead of its turn ([`Engine::open_ahead`]): it belongs to
/// the frame at its position in the batch, and goes with that frame to
/// [`Engine::unprotect_opened`].
pub struct Opened {
    /// The transmitter whose key opened it.
    peer: MacAddr,
    slot: RxSlot,
    result: Result<RxInfo>,
    out: Vec<u8>,
}

/// The threads a batch's crypto runs on: a fork-join job of `parts` parts, `f` called
/// once with each part's index, returning when every part is done. The engine holds one
/// and never starts a thread itself (this crate does no I/O and spawns nothing).
pub trait Parallel: Send {
    /// Threads a job runs on, the calling one included.
    fn threads(&self) -> usize;
    /// Runs `f(0)` .. `f(parts - 1)`, on the calling thread and the others.
    fn run(&self, parts: usize, f: &(dyn Fn(usize) + Sync));
}

/// Frames per thread below which a batch is not worth spreading (the multi-buffer kernel
/// takes eight at a time).
const MIN_PER_THREAD: usize = 8;

/// Buffers the engine keeps for reuse.
const POOL_MAX: usize = 256;
/// A buffer bigger than this is not kept: room for the largest A-MSDU a medium carries
/// (16 KiB on the hub and `shm:`; a protected frame's buffer has a power-of-two capacity).
const POOL_BUF_MAX: usize = 32 * 1024;

impl Engine {
    pub fn new(role: Role) -> Engine {
        Engine {
            role,
            peers: HashMap::new(),
            group: SecurityAssociation::new(role),
            wep: Default::default(),
            wep_tx: 0,
            wep_iv: 0,
            stats: EngineStats::default(),
            scratch: Vec::new(),
            bufs: Vec::new(),
            pool: None,
            device: None,
            meter: None,
            crypto_ns: Default::default(),
            spp: Default::default(),
            open_stats: Default::default(),
        }
    }

    /// Whether the pairwise keys installed for `peer` from now on protect SPP A-MSDUs
    /// (the association's negotiation, 9.4.2.24.4; set before the keys).
    pub fn set_spp_amsdu(&mut self, peer: MacAddr, on: bool) {
        if on {
            self.spp.insert(peer);
        } else {
            self.spp.remove(&peer);
        }
    }

    /// The AAD rules of a key of type `kt` for `peer` (12.5.3.3.3): SPP A-MSDU for the
    /// pairwise keys of a peer that negotiated it; group keys never (group-addressed
    /// A-MSDUs are not sent).
    fn aad_options(&self, peer: Option<&MacAddr>, kt: KeyType) -> AadOptions {
        let spp_amsdu = kt == KeyType::Pairwise && peer.is_some_and(|p| self.spp.contains(p));
        AadOptions { spp_amsdu, ..AadOptions::default() }
    }

    /// What the engine counted.
    pub fn stats(&self) -> EngineStats {
        let o = |i: usize| self.open_stats[i].load(std::sync::atomic::Ordering::Relaxed);
        EngineStats { open_batches: o(0), open_batch_frames: o(1), ..self.stats }
    }

    /// Measures the time of each AEAD pass with `m` ([`Engine::crypto_ns`]); None: not
    /// measured (the default).
    pub fn set_meter(&mut self, m: Option<Meter>) {
        self.meter = m;
    }

    /// Nanoseconds spent in the AEAD passes (protecting and opening, batches and single
    /// frames, on every thread of a batch's wall time), by the [`Meter`]; 0 without one.
    pub fn crypto_ns(&self) -> u64 {
        self.crypto_ns.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Gives the keys of the suite `dev` runs to that engine (seed 000's AP: the link
    /// crypto in a hardware engine): every key installed from now on, for every peer and
    /// the node's own group keys ([`crate::cipher::device`]).
    pub fn set_device(&mut self, dev: Option<Arc<dyn CcmDevice>>) {
        self.group.set_device(dev.clone());
        for sa in self.peers.values_mut() {
            sa.set_device(dev.clone());
        }
        self.device = dev;
    }

    /// A new security association, with the engine's device.
    fn new_sa(role: Role, dev: &Option<Arc<dyn CcmDevice>>) -> SecurityAssociation {
        let mut sa = SecurityAssociation::new(role);
        sa.set_device(dev.clone());
        sa
    }

    /// Runs the crypto of batches on these threads (None: the calling thread only, the
    /// default). `wsec_live::pool::Pool` is the implementation the live system uses.
    pub fn set_parallel(&mut self, p: Option<Box<dyn Parallel>>) {
        self.pool = p;
    }

    /// Threads the crypto of a batch runs on (the calling one included).
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.threads())
    }

    /// Runs `f` on chunks of `items` (whole multiples of eight), one per thread, on the
    /// calling thread and the pool (whichever claims a chunk first), when the batch is big
    /// enough; else all here.
    fn spread<T: Send>(&self, items: &mut [T], f: impl Fn(&mut [T]) + Sync) {
        let t0 = self.meter.map(|m| m());
        self.spread_unmetered(items, f);
        if let (Some(m), Some(t0)) = (self.meter, t0) {
            self.crypto_ns.fetch_add(m().saturating_sub(t0), std::sync::atomic::Ordering::Relaxed);
        }
    }

    fn spread_unmetered<T: Send>(&self, items: &mut [T], f: impl Fn(&mut [T]) + Sync) {
        match &self.pool {
            Some(p) if items.len() >= 2 * MIN_PER_THREAD => {
                let t = p.threads().min(items.len() / MIN_PER_THREAD);
                let chunk = items.len().div_ceil(t).div_ceil(MIN_PER_THREAD) * MIN_PER_THREAD;
                let parts: Vec<std::sync::Mutex<&mut [T]>> = items.chunks_mut(chunk).map(std::sync::Mutex::new).collect();
                p.run(parts.len(), &|i| {
                    if let Some(c) = parts.get(i) {
                        f(&mut c.lock().unwrap_or_else(|e| e.into_inner()));
                    }
                });
            }
            _ => f(items),
        }
    }

    /// Installs the WEP default keys (Key ID 0-3) and selects `tx` for transmission.
    pub fn install_wep(&mut self, keys: &[Option<Zeroizing<Vec<u8>>>; 4], tx: u8, rng: &mut dyn rand_core::CryptoRngCore) -> Result<()> {
        for (i, k) in keys.iter().enumerate() {
            if let Some(k) = k {
                // WEP-40 or WEP-104 by the key's length (the suite table).
                let suite = CipherSuite::by_algorithm(Algorithm::Wep, k.len()).ok_or(Error::BadKeyLength)?;
                self.group.install(KeyType::Group, i as u8, suite, k, AadOptions::default(), None)?;
                self.wep[i] = Some((suite, k.clone()));
            }
        }
        if self.wep.get(tx as usize).and_then(|k| k.as_ref()).is_none() {
            return Err(Error::UnknownKeyId(tx));
        }
        self.group.set_tx_key(KeyType::Group, tx)?;
        self.wep_tx = tx;
        // Start the IV at a random point: two nodes sharing a WEP key should not walk the
        // same IV sequence.
        let r = crate::rng::array::<4>(rng);
        self.wep_iv = u32::from_le_bytes(r) & 0x00ff_ffff;
        Ok(())
    }

    /// Installs a key from a handshake: pairwise (TK) for `peer`, or a group key, for
    /// `peer` (a STA's GTK from its AP) or for the node's own group table (`peer` None:
    /// the AP's transmit GTK).
    pub fn install(
        &mut self,
        peer: Option<MacAddr>,
        kt: KeyType,
        key_id: u8,
        suite: CipherSuite,
        key: &[u8],
        rsc: Option<Pn>,
    ) -> Result<()> {
        let role = self.role;
        let opts = self.aad_options(peer.as_ref(), kt);
        let sa = match peer {
            Some(p) => self.peers.entry(p).or_insert_with(|| Self::new_sa(role, &self.device)),
            None => &mut self.group,
        };
        sa.install(kt, key_id, suite, key, opts, rsc)
    }

    /// Installs `peer`'s new pairwise key for reception only (Extended Key ID, 12.6.21);
    /// [`Engine::set_pairwise_tx`] later switches transmission to it.
    pub fn install_rx(&mut self, peer: MacAddr, key_id: u8, suite: CipherSuite, key: &[u8]) -> Result<()> {
        let role = self.role;
        let opts = self.aad_options(Some(&peer), KeyType::Pairwise);
        let sa = self.peers.entry(peer).or_insert_with(|| Self::new_sa(role, &self.device));
        sa.install_rx(key_id, suite, key, opts)
    }

    /// Transmits to `peer` with its pairwise key under `key_id` from now on.
    pub fn set_pairwise_tx(&mut self, peer: &MacAddr, key_id: u8) -> Result<()> {
        self.peers.get_mut(peer).ok_or(Error::UnknownKeyId(key_id))?.set_tx_key(KeyType::Pairwise, key_id)
    }

    /// Selects the group transmit key (GTK rollover).
    pub fn set_group_tx(&mut self, key_id: u8) -> Result<()> {
        self.group.set_tx_key(KeyType::Group, key_id)
    }

    /// Removes a group key from the node's own table.
    pub fn remove_group(&mut self, key_id: u8) {
        let _ = self.group.remove(KeyType::Group, key_id);
    }

    /// The transmit PN the group key would use next (for the GTK's RSC).
    pub fn group_tx_pn(&mut self) -> Pn {
        self.group.tx_pn(KeyType::Group).unwrap_or(0)
    }

    // The IGTK (management frame protection, `node::mfp`).

    /// Selects the IGTK that protects group-addressed management frames (BIP, Key ID 4/5).
    pub fn set_mgmt_group_tx(&mut self, key_id: u8) -> Result<()> {
        self.group.set_tx_key(KeyType::ManagementGroup, key_id)
    }

    /// Removes an IGTK from the node's own table.
    pub fn remove_mgmt_group(&mut self, key_id: u8) {
        let _ = self.group.remove(KeyType::ManagementGroup, key_id);
    }

    /// The IPN the transmit IGTK would use next (for the IGTK KDE's IPN).
    pub fn mgmt_group_tx_pn(&mut self) -> Pn {
        self.group.tx_pn(KeyType::ManagementGroup).unwrap_or(0)
    }

    /// Forgets every key of a peer.
    pub fn remove_peer(&mut self, peer: &MacAddr) {
        self.peers.remove(peer);
        self.spp.remove(peer);
    }

    /// Whether a pairwise key is installed for `peer`.
    pub fn has_pairwise(&mut self, peer: &MacAddr) -> bool {
        self.peers.get_mut(peer).is_some_and(|sa| sa.tx_pn(KeyType::Pairwise).is_some())
    }

    /// Number of peers with keys.
    pub fn peer_count(&self) -> usize {
        self.peers.len()
    }

    /// Octets of partial MSDUs held for reassembly, over every security association
    /// (each holds at most `max_entries * (max_msdu + header)`, see
    /// [`crate::link::defrag::Reassembler`]).
    pub fn reassembly_bytes(&self) -> usize {
        self.group.fragment_bytes() + self.peers.values().map(|sa| sa.fragment_bytes()).sum::<usize>()
    }

    /// An empty buffer for a frame: one given back by [`Engine::recycle`] if there is one.
    pub fn take_buf(&mut self) -> Vec<u8> {
        self.bufs.pop().unwrap_or_default()
    }

    /// Gives a frame buffer back for reuse (emptied; dropped when the pool is full or the
    /// buffer large).
    pub fn recycle(&mut self, mut buf: Vec<u8>) {
        if self.bufs.len() < POOL_MAX && buf.capacity() <= POOL_BUF_MAX {
            buf.clear();
            self.bufs.push(buf);
        }
    }

    /// Protects one plaintext MPDU: with `peer`'s pairwise key when it has one, else with
    /// the group (GTK or WEP default) key.
    pub fn protect(&mut self, peer: Option<&MacAddr>, mpdu: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(mpdu.len() + 24);
        self.protect_into(peer, mpdu, &mut out)?;
        Ok(out)
    }

    /// [`Engine::protect`] into the caller's buffer `out` (cleared first; on error its
    /// content is unspecified).
    pub fn protect_into(&mut self, peer: Option<&MacAddr>, mpdu: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let m = Mpdu::new_checked(mpdu)?;
        let use_peer = peer.is_some_and(|p| self.peers.get_mut(p).is_some_and(|sa| sa.tx_pn(KeyType::Pairwise).is_some()));
        let sa = match peer {
            Some(p) if use_peer => self.peers.get_mut(p).expect("checked"),
            _ => &mut self.group,
        };
        let t0 = self.meter.map(|m| m());
        let r = sa.protect_parsed(&m, out);
        if let (Some(m), Some(t0)) = (self.meter, t0) {
            self.crypto_ns.fetch_add(m().saturating_sub(t0), std::sync::atomic::Ordering::Relaxed);
        }
        r?;
        self.stats.protected += 1;
        self.stats.octets += mpdu.len() as u64;
        Ok(())
    }

    /// Protects a batch of frames. Each job's result is what [`Engine::protect`] would
    /// give, byte for byte: CCMP and ECCMP frames get their PNs in job order and then go
    /// through the multi-buffer kernels together ([`crate::cipher::ccmp::encapsulate_batch`]:
    /// eight CCMP frames' CBC-MAC chains interleaved, whatever their peers and keys, or two
    /// ECCMP-4 frames of one key); other ciphers one at a time.
    pub fn protect_batch(&mut self, jobs: &mut [TxJob]) {
        use crate::cipher::ccmp::{encapsulate_batch, TxItem};
        if !jobs.is_empty() {
            self.stats.batches += 1;
            self.stats.batch_frames += jobs.len() as u64;
        }
        // Phase 1, in order: PNs for the CCMP frames, the others protected at once.
        let mut planned: Vec<(usize, Option<MacAddr>, KeyType, u8, Pn)> = Vec::with_capacity(jobs.len());
        for (i, j) in jobs.iter_mut().enumerate() {
            let use_peer = j.peer.is_some_and(|p| self.peers.get_mut(&p).is_some_and(|sa| sa.tx_pn(KeyType::Pairwise).is_some()));
            let owner = if use_peer { j.peer } else { None };
            let sa = match owner {
                Some(p) => self.peers.get_mut(&p).expect("checked"),
                None => &mut self.group,
            };
            match sa.tx_ccmp_pn(&j.mpdu) {
                Ok(Some((kt, id, pn))) => planned.push((i, owner, kt, id, pn)),
                Ok(None) => match self.protect(j.peer.as_ref(), &j.mpdu) {
                    Ok(m) => {
                        j.mpdu = m;
                        j.result = Ok(());
                    }
                    Err(e) => j.result = Err(e),
                },
                Err(e) => j.result = Err(e),
            }
        }
        if planned.is_empty() {
            return;
        }
        // Phase 2: one multi-buffer pass.
        let mut missing = Vec::new();
        let mut outs: Vec<(usize, Result<()>, Vec<u8>)> = {
            let mut items: Vec<TxItem> = Vec::with_capacity(planned.len());
            let mut idx = Vec::with_capacity(planned.len());
            for &(i, owner, kt, id, pn) in &planned {
                let sa = match owner {
                    Some(p) => self.peers.get(&p),
                    None => Some(&self.group),
                };
                match sa.and_then(|sa| sa.ccmp_key(kt, id)) {
                    Some(key) => {
                        let out = self.bufs.pop().unwrap_or_default();
                        items.push(TxItem { key, mpdu: &jobs[i].mpdu, pn, key_id: id, out, status: Ok(()) });
                        idx.push(i);
                    }
                    None => missing.push(i), // cannot happen: the PN came from this slot
                }
            }
            self.spread(&mut items, encapsulate_batch);
            idx.into_iter().zip(items).map(|(i, it)| (i, it.status, it.out)).collect()
        };
        for i in missing {
            jobs[i].result = Err(Error::Malformed("transmit key vanished during a batch"));
        }
        for (i, st, out) in outs.drain(..) {
            let len = jobs[i].mpdu.len();
            match st {
                Ok(()) => {
                    let plain = std::mem::replace(&mut jobs[i].mpdu, out);
                    self.recycle(plain);
                    jobs[i].result = Ok(());
                    self.stats.protected += 1;
                    self.stats.octets += len as u64;
                }
                Err(e) => {
                    self.recycle(out);
                    jobs[i].result = Err(e);
                }
            }
        }
    }

    /// Checks and removes the protection of a received MPDU from `peer` (its transmitter):
    /// with the peer's keys (pairwise, and for a STA its AP's GTK), else the node's group
    /// table (WEP). A replayed, forged or malformed frame is an error and changes nothing.
    /// `None`: a fragment, held until its MSDU is whole. `now` is the reassembly clock.
    pub fn unprotect(&mut self, now: u64, peer: &MacAddr, mpdu: &[u8]) -> Result<Option<Vec<u8>>> {
        self.unprotect_opened(now, peer, mpdu, None)
    }

    /// [`Engine::unprotect`] of a frame that [`Engine::open_ahead`] may have opened
    /// (`opened`: the result at this frame's position in that batch). Then only the replay
    /// check and counter update are left to do, in order; when the frame's key changed
    /// since it was opened (a rekey inside the batch), or it was opened under another
    /// peer's key, it takes the normal path.
    pub fn unprotect_opened(&mut self, now: u64, peer: &MacAddr, mpdu: &[u8], opened: Option<Opened>) -> Result<Option<Vec<u8>>> {
        match Mpdu::new_checked(mpdu) {
            Ok(m) => self.unprotect_parsed(now, peer, &m, opened),
            // The association still sees the frame (its receive clock moves).
            Err(e) => {
                self.peers.get_mut(peer).unwrap_or(&mut self.group).observe_clock(now);
                Err(e)
            }
        }
    }

    /// [`Engine::unprotect_opened`] of an MPDU whose header was checked once. The plaintext
    /// is in a buffer of the engine's pool: give it back with [`Engine::recycle`] when done.
    pub fn unprotect_parsed(&mut self, now: u64, peer: &MacAddr, m: &Mpdu<'_>, opened: Option<Opened>) -> Result<Option<Vec<u8>>> {
        let sa = match self.peers.get_mut(peer) {
            Some(sa) => sa,
            None => &mut self.group,
        };
        let done = opened.filter(|o| o.peer == *peer).and_then(|o| sa.unprotect_opened_parsed(now, m, o.slot, o.result, o.out));
        let plain = match done {
            Some(Ok(RxOutcome::Frame { mpdu, .. })) => Some(mpdu),
            Some(Ok(RxOutcome::FragmentHeld)) => None,
            Some(Err(e)) => return Err(e),
            None => {
                let mut out = self.bufs.pop().unwrap_or_default();
                let t0 = self.meter.map(|m| m());
                let r = sa.unprotect_into(now, m, &mut out);
                if let (Some(m), Some(t0)) = (self.meter, t0) {
                    self.crypto_ns.fetch_add(m().saturating_sub(t0), std::sync::atomic::Ordering::Relaxed);
                }
                match r {
                    Ok(Some(_)) => Some(out),
                    Ok(None) => {
                        self.recycle(out);
                        None
                    }
                    Err(e) => {
                        self.recycle(out);
                        return Err(e);
                    }
                }
            }
        };
        self.stats.unprotected += 1;
        self.stats.octets += m.len() as u64;
        Ok(plain)
    }

    /// Opens the CCMP and ECCMP frames of a received batch ahead of their turn, on the engine's
    /// threads, each with its transmitter's key (`frames`: transmitter address and MPDU,
    /// in arrival order). Nothing is accepted here: result `i` belongs to `frames[i]`, and
    /// goes with that frame to [`Engine::unprotect_opened`] in its turn. Frames that are
    /// not whole CCMP or ECCMP MPDUs under a known key get `None`.
    pub fn open_ahead(&self, frames: &[(MacAddr, &[u8])]) -> Vec<Option<Opened>> {
        let parsed: Vec<(MacAddr, Option<Mpdu<'_>>)> = frames.iter().map(|(p, m)| (*p, Mpdu::new_checked(m).ok())).collect();
        self.open_ahead_with(&parsed, Vec::new)
    }

    /// [`Engine::open_ahead`] of MPDUs whose headers were checked once, the plaintexts in
    /// buffers of the engine's pool.
    pub fn open_ahead_parsed(&mut self, frames: &[(MacAddr, Option<Mpdu<'_>>)]) -> Vec<Option<Opened>> {
        let mut bufs = std::mem::take(&mut self.bufs);
        let r = self.open_ahead_with(frames, || bufs.pop().unwrap_or_default());
        self.bufs = bufs;
        r
    }

    fn open_ahead_with(&self, frames: &[(MacAddr, Option<Mpdu<'_>>)], mut buf: impl FnMut() -> Vec<u8>) -> Vec<Option<Opened>> {
        use crate::cipher::ccmp::{decapsulate_batch, RxItem};
        let mut items: Vec<RxItem> = Vec::with_capacity(frames.len());
        let mut plan: Vec<Option<(usize, RxSlot)>> = Vec::with_capacity(frames.len());
        for (peer, m) in frames {
            let sa = self.peers.get(peer).unwrap_or(&self.group);
            match m.as_ref().and_then(|m| sa.rx_ccmp_key_parsed(m).map(|k| (m.bytes(), k))) {
                Some((m, (slot, key))) => {
                    plan.push(Some((items.len(), slot)));
                    items.push(RxItem { key, mpdu: m, out: buf(), result: Err(Error::Truncated) });
                }
                None => plan.push(None),
            }
        }
        if !items.is_empty() {
            self.open_stats[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.open_stats[1].fetch_add(items.len() as u64, std::sync::atomic::Ordering::Relaxed);
        }
        self.spread(&mut items, decapsulate_batch);
        let mut items: Vec<Option<RxItem>> = items.into_iter().map(Some).collect();
        plan.into_iter()
            .zip(frames)
            .map(|(p, (peer, _))| {
                let (i, slot) = p?;
                let it = items[i].take()?;
                Some(Opened { peer: *peer, slot, result: it.result, out: it.out })
            })
            .collect()
    }

    /// [`Engine::open_ahead`] for frames from the medium: the protected data frames, each
    /// with its transmitter (Address 2); `None` for everything else. Result `i` belongs to
    /// `mpdus[i]`.
    pub fn open_ahead_air(&self, mpdus: &[&[u8]]) -> Vec<Option<Opened>> {
        let mut idx = Vec::with_capacity(mpdus.len());
        let mut frames = Vec::with_capacity(mpdus.len());
        for (i, m) in mpdus.iter().enumerate() {
            let Ok(h) = Mpdu::new_checked(m) else { continue };
            let f = h.frame_control();
            if let (true, true, Some(ta)) = (f.is_data(), f.protected(), h.addr2()) {
                idx.push(i);
                frames.push((ta, Some(h)));
            }
        }
        let mut res: Vec<Option<Opened>> = (0..mpdus.len()).map(|_| None).collect();
        if frames.is_empty() {
            return res;
        }
        for (i, o) in idx.into_iter().zip(self.open_ahead_with(&frames, Vec::new)) {
            res[i] = o;
        }
        res
    }

    /// WEP-encrypts the body of Authentication frame 3 of shared-key authentication
    /// (12.3.3.3.3) with the default transmit key.
    pub fn wep_auth_seal(&mut self, mpdu: &[u8]) -> Result<Vec<u8>> {
        let (suite, key) = self.wep[self.wep_tx as usize].as_ref().ok_or(Error::UnknownKeyId(self.wep_tx))?;
        let p = new_protection(*suite, key, AadOptions::default())?;
        self.wep_iv = (self.wep_iv + 1) & 0x00ff_ffff;
        let mut out = Vec::new();
        p.encapsulate(mpdu, self.wep_iv as Pn, self.wep_tx, &mut out)?;
        Ok(out)
    }

    /// Decrypts a WEP-protected Authentication frame 3 with the default key its Key ID
    /// names.
    pub fn wep_auth_open(&mut self, mpdu: &[u8]) -> Result<Vec<u8>> {
        let info = crate::cipher::wep::WepKey::peek(mpdu)?;
        let (suite, key) = self.wep.get(info.key_id as usize).and_then(|k| k.as_ref()).ok_or(Error::UnknownKeyId(info.key_id))?;
        let p = new_protection(*suite, key, AadOptions::default())?;
        self.scratch.clear();
        p.decapsulate(mpdu, &mut self.scratch)?;
        Ok(self.scratch.clone())
    }
}
