//! The data path of a node, one type for the access point and the station: how a frame
//! goes through the host engine ([`Engine`]) to the medium or the host, and when.
//!
//! [`Datapath`] owns
//!
//! - the engine (keys and crypto), reached for key changes only through
//!   [`Datapath::keys`], which first protects what a batch has queued;
//! - the batch protocol: between [`Datapath::begin_batch`] and [`Datapath::end_batch`]
//!   the frames the core would protect are queued and protected together at the end
//!   ([`Engine::protect_batch`], multi-buffer CCMP), in queue order. Every key change
//!   first protects what is queued, so a queued frame gets exactly the key and PN it would
//!   have had one frame at a time (an EAPOL-Key message 4 queued before its PTK is
//!   installed still goes under the old key);
//! - the card model ([`CardModel`]) and the queue of frames waiting for it: a frame goes
//!   to `Output` when the card is done with it ([`Datapath::release`]), in order; a
//!   received frame's service time holds back what the core produces after it;
//! - the receive batch: the CCMP data frames are opened ahead on the engine's threads
//!   ([`Engine::open_ahead_air`]) before the core handles them one by one.
//!
//! It records what it does in the core's [`Counters`] (`tx_air`, `tx_host`, and the drops
//! `card queue full` and `protect failed`), which stay the core's: they count every input
//! of the node, management frames included.
//!
//! The cores implement [`Core`] (access to their data path) and call [`air_batch`] and
//! [`host_batch`] with their handling of one frame: the one implementation of a batch for
//! both.
use super::card::{self, CardModel, Offload};
use super::engine::{Engine, EngineStats, Parallel, TxJob};
use super::{Counters, Output};
use crate::error::Result;
use crate::wire::mac::MacAddr;
use std::collections::VecDeque;

/// Where a delayed frame goes when the card is done with it.
enum Release {
    Air(Vec<u8>),
    Host(Vec<u8>),
    /// Nothing: a received frame's service time, which holds back what follows.
    Hold,
}

/// A frame waiting for the card model (FIFO: the card is one server, so ready times never
/// decrease).
struct Delayed {
    at: u64,
    what: Release,
}

impl Release {
    fn push(self, out: &mut Output) {
        match self {
            Release::Air(f) => out.air.push(f),
            Release::Host(f) => out.host.push(f),
            Release::Hold => {}
        }
    }
}

/// Pushes a frame to `out` now, or queues it until the card is done (and after whatever
/// waits already).
fn emit(delayed: &mut VecDeque<Delayed>, now: u64, at: u64, what: Release, out: &mut Output) {
    if at <= now && delayed.is_empty() {
        what.push(out);
    } else {
        delayed.push_back(Delayed { at, what });
    }
}

/// The data path of a node (see the module documentation).
pub struct Datapath {
    engine: Engine,
    card: CardModel,
    batching: bool,
    /// Frames queued in the open batch, not yet protected, with their lengths before
    /// protection (the card's service time depends on them).
    queued: Vec<TxJob>,
    queued_lens: Vec<usize>,
    /// When the frames were queued (the batch's time).
    queued_now: u64,
    /// Frames of the open batch already protected (by a key change in its middle), with
    /// the time each is ready, in order.
    settled: Vec<(TxJob, u64)>,
    delayed: VecDeque<Delayed>,
}

impl Datapath {
    /// The data path around `engine` (with its keys so far), its crypto where `offload`
    /// says.
    pub fn new(engine: Engine, offload: Offload) -> Datapath {
        Datapath {
            engine,
            card: CardModel::new(offload),
            batching: false,
            queued: Vec::new(),
            queued_lens: Vec::new(),
            queued_now: 0,
            settled: Vec::new(),
            delayed: VecDeque::new(),
        }
    }

    /// Runs the engine's batch crypto on these threads (None: the calling thread only).
    pub fn set_parallel(&mut self, p: Option<Box<dyn Parallel>>) {
        self.engine.set_parallel(p);
    }

    /// Threads the engine spreads a batch's crypto over.
    pub fn threads(&self) -> usize {
        self.engine.threads()
    }

    pub fn engine_stats(&self) -> EngineStats {
        self.engine.stats
    }

    pub fn card(&self) -> &CardModel {
        &self.card
    }

    /// The engine, to change keys (or anything else of its state): what the open batch
    /// has queued is protected first, under the keys it was queued under.
    pub fn keys(&mut self) -> &mut Engine {
        self.settle();
        &mut self.engine
    }

    /// Whether a pairwise key is installed for `peer`.
    pub fn has_pairwise(&mut self, peer: &MacAddr) -> bool {
        self.engine.has_pairwise(peer)
    }

    /// Starts a batch: until [`Datapath::end_batch`], frames to protect are queued.
    pub fn begin_batch(&mut self) {
        self.batching = true;
    }

    /// Whether a batch is open.
    pub fn batching(&self) -> bool {
        self.batching
    }

    /// Protects the queued frames now (one multi-buffer pass); the card serves them in
    /// queue order.
    fn settle(&mut self) {
        if self.queued.is_empty() {
            return;
        }
        self.engine.protect_batch(&mut self.queued);
        let now = self.queued_now;
        for (j, len) in self.queued.drain(..).zip(self.queued_lens.drain(..)) {
            let at = if j.result.is_ok() { self.card.serve(now, len) } else { now };
            self.settled.push((j, at));
        }
    }

    /// Protects a plaintext MPDU for `peer` (its pairwise key, else the group key) and
    /// sends it to the medium when the card is done; in a batch it is queued instead.
    /// Returns whether it was taken (false: dropped and counted).
    pub fn send_protected(&mut self, now: u64, peer: Option<MacAddr>, mpdu: Vec<u8>, counters: &mut Counters, out: &mut Output) -> bool {
        if self.delayed.len() + self.queued.len() + self.settled.len() >= card::QUEUE_MAX {
            counters.drop("card queue full");
            return false;
        }
        if self.batching {
            self.queued_lens.push(mpdu.len());
            self.queued.push(TxJob { peer, mpdu, result: Ok(()) });
            self.queued_now = self.queued_now.max(now);
            return true;
        }
        match self.engine.protect(peer.as_ref(), &mpdu) {
            Ok(p) => {
                let at = self.card.serve(now, mpdu.len());
                counters.tx_air += 1;
                emit(&mut self.delayed, now, at, Release::Air(p), out);
                true
            }
            Err(_) => {
                counters.drop("protect failed");
                false
            }
        }
    }

    /// Ends the batch: protects what is queued and hands every queued frame, in order, to
    /// the medium (or to the card queue); a frame that could not be protected is counted
    /// and dropped.
    pub fn end_batch(&mut self, now: u64, counters: &mut Counters, out: &mut Output) {
        self.settle();
        self.batching = false;
        for (j, at) in self.settled.drain(..) {
            match j.result {
                Ok(()) => {
                    counters.tx_air += 1;
                    emit(&mut self.delayed, now, at, Release::Air(j.mpdu), out);
                }
                Err(_) => counters.drop("protect failed"),
            }
        }
    }

    /// An Ethernet frame for the host, after whatever the card still holds.
    pub fn deliver_host(&mut self, now: u64, eth: Vec<u8>, counters: &mut Counters, out: &mut Output) {
        counters.tx_host += 1;
        emit(&mut self.delayed, now, now, Release::Host(eth), out);
    }

    /// Checks and removes the protection of a received data MPDU from `peer`
    /// ([`Engine::unprotect`]). With the card model, what the core produces after it waits
    /// for the card's service time. `None`: a fragment, held until its MSDU is whole.
    pub fn unprotect_data(&mut self, now: u64, peer: &MacAddr, mpdu: &[u8]) -> Result<Option<Vec<u8>>> {
        let plain = self.engine.unprotect(now, peer, mpdu)?;
        let at = self.card.serve(now, mpdu.len());
        if plain.is_some() && at > now {
            self.delayed.push_back(Delayed { at, what: Release::Hold });
        }
        Ok(plain)
    }

    /// Checks and removes the protection of a received management MPDU from `peer` (the
    /// card serves it; nothing waits for it).
    pub fn unprotect(&mut self, now: u64, peer: &MacAddr, mpdu: &[u8]) -> Result<Option<Vec<u8>>> {
        let plain = self.engine.unprotect(now, peer, mpdu)?;
        self.card.serve(now, mpdu.len());
        Ok(plain)
    }

    /// Releases the delayed frames whose time has come, in order.
    pub fn release(&mut self, now: u64, out: &mut Output) {
        while self.delayed.front().is_some_and(|d| d.at <= now) {
            if let Some(d) = self.delayed.pop_front() {
                d.what.push(out);
            }
        }
    }

    /// Releases every delayed frame (the program waits for the card before it exits).
    pub fn flush(&mut self, out: &mut Output) {
        self.release(u64::MAX, out);
    }

    /// When the next delayed frame is ready.
    pub fn next_release(&self) -> Option<u64> {
        self.delayed.front().map(|d| d.at)
    }
}

/// A core (access point or station) as the batch loops see it: its data path and the
/// counters that path records into. What the core does with one frame is handed
/// to the loops as a function (`on_air`, `on_host`).
pub(crate) trait Core {
    fn datapath_mut(&mut self) -> (&mut Datapath, &mut Counters);
}

/// MPDUs from the medium, handed to `on_air` one by one, except that the protected data
/// frames are opened ahead together and what the core protects goes through the engine as
/// one batch, reaching `out` at the end.
pub(crate) fn air_batch<'a, C: Core>(
    core: &mut C,
    now: u64,
    mpdus: impl IntoIterator<Item = &'a [u8]>,
    out: &mut Output,
    mut on_air: impl FnMut(&mut C, u64, &[u8], &mut Output),
) {
    let mpdus: Vec<&[u8]> = mpdus.into_iter().collect();
    let (dp, _) = core.datapath_mut();
    let ahead = dp.engine.open_ahead_air(&mpdus);
    dp.begin_batch();
    for (m, o) in mpdus.into_iter().zip(ahead) {
        core.datapath_mut().0.engine.expect(o);
        on_air(core, now, m, out);
    }
    let (dp, counters) = core.datapath_mut();
    dp.engine.expect(None);
    dp.end_batch(now, counters, out);
}

/// Ethernet frames from the host, handed to `on_host` one by one, what it protects
/// protected as one batch.
pub(crate) fn host_batch<'a, C: Core>(
    core: &mut C,
    now: u64,
    eths: impl IntoIterator<Item = &'a [u8]>,
    out: &mut Output,
    mut on_host: impl FnMut(&mut C, u64, &[u8], &mut Output),
) {
    core.datapath_mut().0.begin_batch();
    for e in eths {
        on_host(core, now, e, out);
    }
    let (dp, counters) = core.datapath_mut();
    dp.end_batch(now, counters, out);
}
