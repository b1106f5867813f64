//! Benchmarks that reproduce the experiments of the seed papers on this machine.
//!
//! Shared pieces, written for any benchmark:
//! - [`cpu`]: CPU model and features, the time-stamp counter and its rate.
//! - [`stats`]: medians of repeated runs with their spread.
//! - [`energy`]: energy per byte, measured (RAPL) or modelled (seed 004's equation 7),
//!   and battery share for a named battery.
//! - [`plot`]: line charts as SVG or PNG.
//! - [`error`]: why a benchmark did not run (setup, disagreeing implementations, tools).
//!
//! Benchmarks:
//! - [`ciphers`]: seed 004, six block ciphers (plus today's AEADs) on battery devices:
//!   throughput and energy by file size, data type and packet size (`wsec bench ciphers`).
//! - [`ccmp`]: seed 000's Tables I and II, ECCMP and multi-buffer CCMP, with OpenSSL,
//!   RustCrypto and Intel ipsec-mb timed in the same run (`wsec bench ccmp`).
//! - [`hw_vectors`]: test vectors for the Verilog engines (`wsec hw-vectors`), checked
//!   against the IEEE vector and a second ECCMP written from docs/eccmp.md.
//! - [`relay`]: the access point's CCMP relay rate per core (`wsec bench relay`).
//! - [`model_costs`]: the crypto costs of this machine for the model's cost file
//!   (`wsec model costs`).
pub mod auth;
pub mod ccmp;
pub mod ciphers;
pub mod cpu;
pub mod energy;
pub mod error;
pub mod hw_vectors;
#[cfg(feature = "ipsec-mb")]
pub mod ipsec_mb;
pub mod model_costs;
pub mod plot;
pub mod relay;
pub mod stats;

pub use error::{Error, Result};
