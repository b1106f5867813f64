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
//! - the receive batch: every MPDU's MAC header is parsed once ([`RxFrame`]), the CCMP
//!   data frames are opened ahead on the engine's threads, and each frame carries its
//!   opened result to [`Datapath::unprotect_data`].
//!
//! It records what it does in the core's [`Counters`] (`tx_air`, `tx_host`, and the drops
//! `card queue full` and `protect failed`), which stay the core's: they count every input
//! of the node, management frames included.
//!
//! The cores implement [`Core`] (access to their data path) and call [`air`],
//! [`air_batch`] and [`host_batch`] with their handling of one frame: the one
//! implementation of the receive prologue and of a batch for both.
use super::card::{self, CardModel, Offload};
use super::engine::{Engine, EngineStats, Opened, Parallel, TxJob};
use super::{Counters, Output};
use crate::error::Result;
use crate::wire::mac::{FrameControl, MacAddr, Mpdu};
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

/// One MPDU from the medium with its MAC header parsed and checked once; the cores take
/// what they need from here, and hand `hdr` down (the engine, the security association,
/// the cipher, the MSDU and management frame parsers) instead of parsing the header again.
pub(crate) struct RxFrame<'a> {
    pub mpdu: &'a [u8],
    /// The checked header.
    pub hdr: Mpdu<'a>,
    pub fc: FrameControl,
    /// Address 1 (the receiver).
    pub ra: MacAddr,
    /// Address 2 (the transmitter; present in management and data frames).
    pub ta: Option<MacAddr>,
    /// The engine's result for this frame if the batch opened it ahead.
    pub opened: Option<Opened>,
}

impl<'a> RxFrame<'a> {
    /// `None` when the MPDU is shorter than the header its Frame Control announces.
    fn parse(mpdu: &'a [u8]) -> Option<RxFrame<'a>> {
        let h = Mpdu::new_checked(mpdu).ok()?;
        Some(RxFrame { mpdu, hdr: h, fc: h.frame_control(), ra: h.addr1(), ta: h.addr2(), opened: None })
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

    /// Measures the engine's AEAD passes with the runtime's clock ([`Engine::set_meter`]).
    pub fn set_meter(&mut self, m: Option<super::engine::Meter>) {
        self.engine.set_meter(m);
    }

    /// Nanoseconds in the engine's AEAD passes ([`Engine::crypto_ns`]).
    pub fn crypto_ns(&self) -> u64 {
        self.engine.crypto_ns()
    }

    /// Runs the engine's batch crypto on these threads (None: the calling thread only).
    pub fn set_parallel(&mut self, p: Option<Box<dyn Parallel>>) {
        self.engine.set_parallel(p);
    }

    /// Gives the keys of its suite to a hardware engine ([`Engine::set_device`]).
    pub fn set_device(&mut self, dev: Option<std::sync::Arc<dyn crate::cipher::device::CcmDevice>>) {
        self.engine.set_device(dev);
    }

    /// Threads the engine spreads a batch's crypto over.
    pub fn threads(&self) -> usize {
        self.engine.threads()
    }

    pub fn engine_stats(&self) -> EngineStats {
        self.engine.stats()
    }

    pub fn card(&self) -> &CardModel {
        &self.card
    }

    /// The engine, read only (its peers, what it holds for reassembly).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Frames waiting: queued in the open batch, protected but not released, and every
    /// delayed release (to the medium, to the host, a received frame's service time).
    /// [`card::QUEUE_MAX`] bounds what is sent to the medium.
    pub fn backlog(&self) -> usize {
        self.queued.len() + self.settled.len() + self.delayed.len()
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
        let mut p = self.engine.take_buf();
        let r = self.engine.protect_into(peer.as_ref(), &mpdu, &mut p);
        let len = mpdu.len();
        self.engine.recycle(mpdu);
        match r {
            Ok(()) => {
                let at = self.card.serve(now, len);
                counters.tx_air += 1;
                emit(&mut self.delayed, now, at, Release::Air(p), out);
                true
            }
            Err(_) => {
                self.engine.recycle(p);
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
    /// Behind a full queue ([`card::QUEUE_MAX`]) the frame is dropped, as a full receive
    /// ring drops: a peer sending faster than the card serves cannot grow the queue.
    pub fn deliver_host(&mut self, now: u64, eth: Vec<u8>, counters: &mut Counters, out: &mut Output) {
        if !self.delayed.is_empty() && self.backlog() >= card::QUEUE_MAX {
            counters.drop("card queue full");
            return;
        }
        counters.tx_host += 1;
        emit(&mut self.delayed, now, now, Release::Host(eth), out);
    }

    /// Checks and removes the protection of a received data MPDU from `peer`
    /// ([`Engine::unprotect_parsed`], with the result of opening it ahead if the batch
    /// did), its header as [`RxFrame`] checked it. With the card model, what the core
    /// produces after it waits for the card's service time. `None`: a fragment, held until
    /// its MSDU is whole. The plaintext's buffer goes back with [`Datapath::recycle`].
    pub fn unprotect_data(&mut self, now: u64, peer: &MacAddr, hdr: &Mpdu<'_>, opened: Option<Opened>) -> Result<Option<Vec<u8>>> {
        let plain = self.engine.unprotect_parsed(now, peer, hdr, opened)?;
        let at = self.card.serve(now, hdr.len());
        // The queue stays within QUEUE_MAX: when it is full, what the frame makes the core
        // send or deliver is dropped there, so it needs no place to wait.
        if plain.is_some() && at > now && self.backlog() < card::QUEUE_MAX {
            self.delayed.push_back(Delayed { at, what: Release::Hold });
        }
        Ok(plain)
    }

    /// Checks and removes the protection of a received management MPDU from `peer`, its
    /// header as [`RxFrame`] checked it (the card serves it; nothing waits for it).
    pub fn unprotect(&mut self, now: u64, peer: &MacAddr, hdr: &Mpdu<'_>) -> Result<Option<Vec<u8>>> {
        let plain = self.engine.unprotect_parsed(now, peer, hdr, None)?;
        self.card.serve(now, hdr.len());
        Ok(plain)
    }

    /// Gives a frame buffer (a plaintext the core is done with) back to the engine's pool.
    pub fn recycle(&mut self, buf: Vec<u8>) {
        self.engine.recycle(buf);
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

    /// Opens the protected data frames of a received batch ahead of their turn (each
    /// under its transmitter's key), and puts each result on its frame.
    fn open_ahead(&mut self, frames: &mut [Option<RxFrame<'_>>]) {
        let mut idx = Vec::new();
        let mut todo = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            if let Some(RxFrame { hdr, fc, ta: Some(ta), .. }) = f {
                if fc.is_data() && fc.protected() {
                    idx.push(i);
                    todo.push((*ta, Some(*hdr)));
                }
            }
        }
        if todo.is_empty() {
            return;
        }
        for (i, o) in idx.into_iter().zip(self.engine.open_ahead_parsed(&todo)) {
            if let Some(f) = &mut frames[i] {
                f.opened = o;
            }
        }
    }
}

/// A core (access point or station) as the receive and batch loops see it: its data path
/// and the counters that path records into. What the core does with one frame is handed
/// to the loops as a function (`on_air`, `on_host`).
pub(crate) trait Core {
    fn datapath_mut(&mut self) -> (&mut Datapath, &mut Counters);

    /// Before a batch is protected: what the core still holds back (an A-MSDU being
    /// built, `super::qos`) joins it.
    fn before_end_batch(&mut self, _now: u64, _out: &mut Output) {}
}

fn air_parsed<C: Core>(
    core: &mut C,
    now: u64,
    rx: Option<RxFrame<'_>>,
    out: &mut Output,
    on_air: &mut impl FnMut(&mut C, u64, RxFrame<'_>, &mut Output),
) {
    core.datapath_mut().1.rx_air += 1;
    match rx {
        Some(rx) => on_air(core, now, rx, out),
        None => core.datapath_mut().1.drop("malformed"),
    }
}

/// One MPDU (no FCS) from the medium: counted, its MAC header parsed, handed to `on_air`
/// (a frame shorter than its header is counted as malformed and dropped).
pub(crate) fn air<C: Core>(
    core: &mut C,
    now: u64,
    mpdu: &[u8],
    out: &mut Output,
    mut on_air: impl FnMut(&mut C, u64, RxFrame<'_>, &mut Output),
) {
    air_parsed(core, now, RxFrame::parse(mpdu), out, &mut on_air);
}

/// MPDUs from the medium, as [`air`] one by one, except that the protected data frames
/// are opened ahead together and what the core protects goes through the engine as one
/// batch, reaching `out` at the end.
pub(crate) fn air_batch<'a, C: Core>(
    core: &mut C,
    now: u64,
    mpdus: impl IntoIterator<Item = &'a [u8]>,
    out: &mut Output,
    mut on_air: impl FnMut(&mut C, u64, RxFrame<'_>, &mut Output),
) {
    let mut frames: Vec<Option<RxFrame<'a>>> = mpdus.into_iter().map(RxFrame::parse).collect();
    let (dp, _) = core.datapath_mut();
    dp.open_ahead(&mut frames);
    dp.begin_batch();
    for rx in frames {
        air_parsed(core, now, rx, out, &mut on_air);
    }
    core.before_end_batch(now, out);
    let (dp, counters) = core.datapath_mut();
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
    core.before_end_batch(now, out);
    let (dp, counters) = core.datapath_mut();
    dp.end_batch(now, counters, out);
}

/// The MAC header checks along one frame's path through the AP core, counted
/// ([`crate::wire::mac::parse_count`], test builds only).
#[cfg(test)]
mod tests {
    use crate::cipher::CipherSuite;
    use crate::node::ap::{AccessPoint, ApConfig};
    use crate::node::sta::{StaConfig, Station};
    use crate::node::{frames, Output, Security};
    use crate::rsn::akm::Akm;
    use crate::wire::mac::{parse_count, MacAddr};
    use crate::wire::EtherType;

    const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
    const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
    const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x22]);
    const MS: u64 = 1_000_000;

    fn rsn() -> Security {
        Security::Rsn {
            akms: vec![Akm::Psk],
            pairwise: vec![CipherSuite::Ccmp128],
            groups: vec![CipherSuite::Ccmp128],
            pmk: zeroize::Zeroizing::new(vec![0x5a; 32]),
        }
    }

    /// An AP with two stations whose 4-way handshakes are done, and the time.
    fn network() -> (AccessPoint, Vec<Station>, u64) {
        let mut now = 1_000 * MS;
        let mut ap = AccessPoint::new(ApConfig::new(BSSID, b"wsec-count", rsn()), now, crate::rng::seeded(1)).unwrap();
        let mut stas: Vec<Station> = [(STA1, 2), (STA2, 3)]
            .into_iter()
            .map(|(a, seed)| Station::new(StaConfig::new(a, b"wsec-count", rsn()), now, crate::rng::seeded(seed)).unwrap())
            .collect();
        let mut out = Output::default();
        for _ in 0..5_000 {
            if stas.iter().all(|s| s.is_established()) {
                return (ap, stas, now);
            }
            now += MS;
            let mut air = std::collections::VecDeque::new();
            ap.handle_timeout(now, &mut out);
            air.extend(out.air.drain(..));
            for s in stas.iter_mut() {
                s.handle_timeout(now, &mut out);
                air.extend(out.air.drain(..));
            }
            // A lossless medium: every frame reaches every node, and what they answer goes
            // out in the same millisecond.
            let mut budget = 1_000;
            while let Some(f) = air.pop_front() {
                budget -= 1;
                assert!(budget > 0, "the nodes keep answering each other");
                ap.handle_air(now, &f, &mut out);
                air.extend(out.air.drain(..));
                for s in stas.iter_mut() {
                    s.handle_air(now, &f, &mut out);
                    air.extend(out.air.drain(..));
                }
                out.clear();
            }
        }
        panic!("the stations did not establish");
    }

    /// Header checks (MAC header decoded and checked against its Frame Control) while the
    /// AP takes one frame from the medium; and what it sent.
    fn checks(ap: &mut AccessPoint, now: u64, f: &[u8]) -> (usize, Output) {
        let mut out = Output::default();
        let before = parse_count::get();
        ap.handle_air(now, f, &mut out);
        (parse_count::get() - before, out)
    }

    #[test]
    fn relayed_ccmp_frame_and_management_frame_checked_once() {
        let (mut ap, mut stas, now) = network();
        let mut out = Output::default();
        let eth = frames::ethernet(&STA2, &STA1, EtherType::IPV4, &[0x45; 100]);
        stas[0].handle_host(now, &eth, &mut out);
        let up = out.air.pop().expect("station 1 sends");
        let (n, sent) = checks(&mut ap, now, &up);
        assert_eq!(sent.air.len(), 1, "the AP relays the frame");
        // The received frame once (the data path), the relayed frame once (before it is
        // protected).
        assert_eq!(n, 2, "header checks for one relayed CCMP frame");
        // The relayed frame opens at station 2.
        let mut o2 = Output::default();
        stas[1].handle_air(now, &sent.air[0], &mut o2);
        assert_eq!(o2.host, vec![eth]);

        let probe = frames::probe_req(&STA1, b"wsec-count", 7);
        let (n, sent) = checks(&mut ap, now, &probe);
        assert_eq!(sent.air.len(), 1, "the AP answers the Probe Request");
        assert_eq!(n, 1, "header checks for one management frame");
    }

    /// With the card model, frames received faster than the card serves them wait in the
    /// same queue as what is sent: it stays within QUEUE_MAX (a fuzzed station core sent
    /// 513 frames' worth, issue 38), the frames beyond it are dropped and counted, and
    /// every frame counted as delivered reaches the host, in order.
    #[test]
    fn receive_side_within_the_card_queue() {
        use super::Datapath;
        use crate::link::sa::{KeyType, Role};
        use crate::node::card::{Offload, QUEUE_MAX};
        use crate::node::engine::Engine;
        use crate::node::Counters;
        use crate::wire::mac::Mpdu;
        let key = [0x42; 16];
        let mut tx = Engine::new(Role::Supplicant);
        tx.install(Some(BSSID), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &key, None).unwrap();
        let mut rx = Engine::new(Role::Authenticator);
        rx.install(Some(STA1), KeyType::Pairwise, 0, CipherSuite::Ccmp128, &key, None).unwrap();
        let mut dp = Datapath::new(rx, Offload::card_default());
        let (mut counters, mut out) = (Counters::default(), Output::default());
        let now = 1_000 * MS;
        for i in 0..2 * QUEUE_MAX as u32 {
            let mut plain = vec![0x08, 0x01, 0, 0];
            plain.extend_from_slice(&BSSID.0);
            plain.extend_from_slice(&STA1.0);
            plain.extend_from_slice(&STA2.0);
            plain.extend_from_slice(&[0, 0, 0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00]);
            plain.extend_from_slice(&i.to_be_bytes());
            let f = tx.protect(Some(&BSSID), &plain).unwrap();
            let hdr = Mpdu::new_checked(&f[..]).unwrap();
            let opened = dp.unprotect_data(now, &STA1, &hdr, None).unwrap().expect("a whole MSDU");
            assert_eq!(opened, plain);
            dp.deliver_host(now, i.to_be_bytes().to_vec(), &mut counters, &mut out);
            assert!(dp.backlog() <= QUEUE_MAX, "frame {i}: {} waiting", dp.backlog());
        }
        assert!(counters.dropped("card queue full") > 0);
        assert_eq!(counters.tx_host + counters.dropped("card queue full"), 2 * QUEUE_MAX as u64);
        dp.flush(&mut out);
        assert_eq!(out.host.len() as u64, counters.tx_host);
        let order: Vec<u32> = out.host.iter().map(|h| u32::from_be_bytes(h[..4].try_into().unwrap())).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "delivered in order");
    }
}
