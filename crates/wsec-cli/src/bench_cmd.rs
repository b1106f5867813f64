//! `wsec bench ...`: measured speed, with the peers in the same run.
use crate::bench_ccmp;
use clap::{Args, Subcommand};
use std::time::Duration;

#[derive(Subcommand)]
pub enum BenchCmd {
    /// CCMP: seed 000 Tables I/II (MIC and CTR, standard vs 2/4/8 parallel), Enhanced
    /// CCMP, multi-buffer CCMP, and OpenSSL / RustCrypto (/ ipsec-mb) in the same run.
    Ccmp(CcmpArgs),
    /// The AP's relay rate with CCMP (decrypt from one station, encrypt to another) in the
    /// host engine: frames/s and Gb/s per core.
    Relay(RelayArgs),
}

#[derive(Args)]
pub struct RelayArgs {
    /// MSDU octets per frame (LLC/SNAP included)
    #[arg(long, default_value_t = 1500)]
    msdu: usize,
    /// Frames relayed per run
    #[arg(long, default_value_t = 20000)]
    frames: usize,
    /// Frames per multi-buffer batch
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// Runs (the median is reported)
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CcmpArgs {
    /// Frame (payload) sizes in octets, comma separated.
    #[arg(long, value_delimiter = ',', default_values_t = bench_ccmp::SIZES)]
    sizes: Vec<usize>,
    /// Samples per figure (the median is reported).
    #[arg(long, default_value_t = 11)]
    reps: usize,
    /// Target length of one sample in milliseconds.
    #[arg(long, default_value_t = 4)]
    sample_ms: u64,
    /// A short smoke run (3 samples of 0.3 ms, fewer batch sizes).
    #[arg(long)]
    quick: bool,
    /// Frame size of the Tables I/II comparison.
    #[arg(long, default_value_t = 1500)]
    table_size: usize,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// Returns what to print, or (exit code, message).
pub fn run(cmd: BenchCmd) -> Result<String, (u8, String)> {
    match cmd {
        BenchCmd::Ccmp(a) => ccmp(a),
        BenchCmd::Relay(a) => crate::bench_relay::run(
            &crate::bench_relay::Options { msdu: a.msdu, frames: a.frames.max(1), batch: a.batch.max(1), reps: a.reps.max(1) },
            a.json,
        )
        .map_err(|e| (1, e)),
    }
}

fn ccmp(a: CcmpArgs) -> Result<String, (u8, String)> {
    if a.sizes.iter().any(|&s| s == 0 || s > 65535) {
        return Err((2, "frame sizes must be 1..=65535 octets".into()));
    }
    let opts = bench_ccmp::Options {
        sizes: a.sizes.clone(),
        reps: if a.quick { 3 } else { a.reps.max(1) },
        sample: if a.quick { Duration::from_micros(300) } else { Duration::from_millis(a.sample_ms.max(1)) },
    };
    let json = a.json;
    let r = bench_ccmp::run(&opts, a.quick, |msg| {
        if !json {
            eprintln!("{msg}");
        }
    });
    match r {
        Ok(rep) if json => Ok(serde_json::to_string_pretty(&rep.json()).unwrap_or_default()),
        Ok(rep) => Ok(rep.text(a.table_size)),
        Err(e) => Err((1, format!("benchmark aborted: {e}"))),
    }
}
