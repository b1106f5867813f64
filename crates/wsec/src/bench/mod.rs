//! Benchmarks that reproduce the experiments of the seed papers on this machine.
//!
//! Shared pieces, written for any benchmark:
//! - [`cpu`]: CPU model and features, the time-stamp counter and its rate.
//! - [`stats`]: medians of repeated runs with their spread.
//! - [`energy`]: energy per byte, measured (RAPL) or modelled (seed 004's equation 7),
//!   and battery share for a named battery.
//! - [`plot`] (feature `plot`): line charts as SVG or PNG.
//!
//! Benchmarks:
//! - [`ciphers`]: seed 004, six block ciphers (plus today's AEADs) on battery devices:
//!   throughput and energy by file size, data type and packet size (`wsec bench ciphers`).
pub mod ciphers;
pub mod cpu;
pub mod energy;
#[cfg(feature = "plot")]
pub mod plot;
pub mod stats;
