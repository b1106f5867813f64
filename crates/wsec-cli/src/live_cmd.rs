//! `wsec ap`, `wsec sta`, `wsec air`: the live system's programs. Each puts the medium, a
//! TAP device and the clock around a sans-IO core of `wsec::node` (`wsec_live::runtime`,
//! docs/live.md); here only their arguments.
use clap::Args;
use std::path::PathBuf;
use wsec_live::runtime::{self, AirOptions, NodeOptions};

#[derive(Args)]
pub struct ApArgs {
    /// hostapd.conf-style configuration (docs/live.md lists the keys)
    #[arg(short, long)]
    config: PathBuf,
    /// The medium: air:HOST:PORT (the `wsec air` hub) or packet:IFNAME (overrides `medium=`)
    #[arg(long)]
    medium: Option<String>,
    /// Create the wired-side TAP inside this network namespace (`ip netns` name); the
    /// medium socket stays in the namespace wsec was started in
    #[arg(long)]
    netns: Option<String>,
    /// Add the TAP device to this bridge (in the namespace)
    #[arg(long)]
    bridge: Option<String>,
    /// Print per-station counters every 10 s and at exit
    #[arg(long)]
    counters: bool,
}

#[derive(Args)]
pub struct StaArgs {
    /// wpa_supplicant.conf-style configuration with one network={...} block
    #[arg(short, long)]
    config: PathBuf,
    /// The medium: air:HOST:PORT or packet:IFNAME (overrides `medium=`)
    #[arg(long)]
    medium: Option<String>,
    /// Create the TAP inside this network namespace
    #[arg(long)]
    netns: Option<String>,
    /// Print counters every 10 s and at exit
    #[arg(long)]
    counters: bool,
}

#[derive(Args)]
pub struct AirArgs {
    /// Address to listen on (loopback UDP); port 0 picks a free one (printed)
    #[arg(long, default_value = "127.0.0.1:7411")]
    listen: String,
    /// Record every frame on the air (radiotap, pcap)
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Probability that one copy of a frame is lost (0 to 1), per receiver
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Seed of the loss pattern
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn air(a: AirArgs) -> Result<(), String> {
    runtime::run_air(&AirOptions { listen: a.listen, pcap: a.pcap, loss: a.loss, seed: a.seed }).map_err(|e| e.to_string())
}

/// Runs `wsec ap`: a configuration that cannot be read or parsed is a usage error (exit 2),
/// a failure while running exit 1.
pub fn ap(a: ApArgs) -> Result<(), (u8, String)> {
    let f = runtime::load_ap(&a.config).map_err(|e| (2, e.to_string()))?;
    let o = NodeOptions { medium: a.medium, netns: a.netns, bridge: a.bridge, counters: a.counters };
    runtime::run_ap(f, &o).map_err(|e| (1, e.to_string()))
}

/// Runs `wsec sta`; exit codes as [`ap`].
pub fn sta(a: StaArgs) -> Result<(), (u8, String)> {
    let f = runtime::load_sta(&a.config).map_err(|e| (2, e.to_string()))?;
    let o = NodeOptions { medium: a.medium, netns: a.netns, bridge: None, counters: a.counters };
    runtime::run_sta(f, &o).map_err(|e| (1, e.to_string()))
}
