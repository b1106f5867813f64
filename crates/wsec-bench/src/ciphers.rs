//! Seed 004 on this machine: throughput and energy of AES, DES, 3DES, RC2, Blowfish and RC6
//! (plus AES-GCM and ChaCha20-Poly1305 as today's references), by file size, data type and
//! packet size (`wsec bench ciphers`; results and their discussion in `docs/ciphers.md`).
//!
//! - [`impls`]: the ciphers wired to one interface, in the paper's setting (CBC with
//!   PKCS#7, its key sizes) and as AEADs; each is a RustCrypto crate.
//! - [`soft_aes`]: the portable AES beside the hardware one in the same binary.
//! - [`data`]: the input files (text, WAV audio, PNG images) at the paper's sizes.
//! - [`paper`]: the paper's setting, sizes, ranking and ratios.
//! - [`run`]: what is timed and how (medians of runs, spread, energy per sample).
//! - [`report`]: terminal report, `--json` records, ranking beside the paper's with the
//!   reasons, plots.
//!
//! ```no_run
//! use wsec_bench::ciphers::{report, run};
//! use wsec_bench::energy::{Battery, Eq7, Meter};
//! let (meter, _why_not_rapl) = Meter::auto(Eq7::seed004());
//! let results = run::run(&run::Config::quick(), &meter, &mut |_| {}).unwrap();
//! let opts = report::TextOptions { battery: Battery::laptop_6cell(), detail: false };
//! println!("{}", report::text(&results, &opts));
//! ```
pub mod data;
pub mod impls;
pub mod paper;
pub mod report;
pub mod run;
pub mod soft_aes;
