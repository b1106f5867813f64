//! The wireless card's timing model (`crypto_offload=host|card`): when a frame the host
//! engine protected or opened is ready. The crypto itself always runs in the host engine
//! ([`super::engine::Engine`]); this only says how long a card would have taken.
//!
//! Seed 000 (section IV-B) compares crypto on the host CPU with crypto on the wireless
//! card, whose processor does one frame at a time. The model is a FIFO server:
//!
//! - [`Offload::Host`]: the host CPU; a frame is ready when the engine returns it.
//! - [`Offload::Card`]: the card's processor, one frame at a time in the order handed
//!   over, each taking `ns_per_frame + ns_per_byte x length` (the MPDU's length before
//!   protection on transmit, the received MPDU's on receive). A frame handed over at
//!   `now` is ready at `max(now, the card's previous frame done) + its service time`.
//!
//! Per-frame cost parameters (the defaults of `card_ns_per_frame` and `card_ns_per_byte`):
//!
//! - [`CARD_NS_PER_FRAME`] = 20 us: the low end of seed 000's host-CPU figure for CCMP on
//!   a frame (abstract: "20-40 us on end-host CPUs"), taken as the card's fixed per-MPDU
//!   cost (descriptor handling, key lookup, nonce/AAD setup).
//! - [`CARD_NS_PER_BYTE`] = 100 ns/octet: AES-CCM in software on a ~200 MHz embedded MAC
//!   processor at ~20 cycles per octet (CTR + CBC-MAC, two AES blocks per 16 octets at
//!   ~160 cycles each): 1500 octets take 150 us, a ~80 Mb/s card. Seed 000 reports
//!   10-50 ms per multimedia frame on the card; a higher `card_ns_per_byte` reproduces
//!   that regime.
//!
//! These are model assumptions, not measurements. The card holds at most [`QUEUE_MAX`]
//! frames (its descriptor ring); [`super::datapath::Datapath`] drops beyond that.

/// Default per-frame service time of the card model (ns): see the module documentation.
pub const CARD_NS_PER_FRAME: u64 = 20_000;
/// Default per-octet service time of the card model (ns/octet): see the module
/// documentation.
pub const CARD_NS_PER_BYTE: u64 = 100;

/// Bound on the frames waiting for the card or for the end of a batch (a card's
/// descriptor ring): beyond it a frame is dropped, as a full TX ring drops.
pub const QUEUE_MAX: usize = 512;

/// Where the link crypto runs (`crypto_offload=host|card`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Offload {
    #[default]
    Host,
    Card {
        ns_per_frame: u64,
        ns_per_byte: u64,
    },
}

impl Offload {
    pub fn card_default() -> Offload {
        Offload::Card { ns_per_frame: CARD_NS_PER_FRAME, ns_per_byte: CARD_NS_PER_BYTE }
    }
}

/// The card's processor as a FIFO server (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct CardModel {
    offload: Offload,
    /// When the card finishes the last frame handed to it.
    free_at: u64,
    /// Modelled busy time so far (ns), `Offload::Card` only.
    busy_ns: u64,
}

impl CardModel {
    pub fn new(offload: Offload) -> CardModel {
        CardModel { offload, free_at: 0, busy_ns: 0 }
    }

    pub fn offload(&self) -> Offload {
        self.offload
    }

    /// Hands the card one frame of `len` octets at `now`; returns when it is ready (`now`
    /// on the host).
    pub fn serve(&mut self, now: u64, len: usize) -> u64 {
        match self.offload {
            Offload::Host => now,
            Offload::Card { ns_per_frame, ns_per_byte } => {
                // Saturating: the costs come from a configuration file.
                let t = ns_per_frame.saturating_add(ns_per_byte.saturating_mul(len as u64));
                self.busy_ns = self.busy_ns.saturating_add(t);
                self.free_at = self.free_at.max(now).saturating_add(t);
                self.free_at
            }
        }
    }

    /// Modelled card busy time so far (ns); 0 on the host.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }
}
