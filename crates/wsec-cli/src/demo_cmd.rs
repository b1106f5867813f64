//! `wsec demo`: the whole network on one machine (docs/live.md).
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct DemoArgs {
    /// open, wep, tkip, ccmp, gcmp, enhanced or all
    #[arg(long, default_value = "all")]
    mode: String,
    #[arg(long, default_value = "wsec-demo")]
    ssid: String,
    #[arg(long, default_value = "wsec demo passphrase")]
    passphrase: String,
    /// Record the air (radiotap pcap)
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Seconds of TCP traffic per measurement
    #[arg(long, default_value_t = 5)]
    seconds: u64,
}

pub fn run(_a: DemoArgs) -> Result<String, String> {
    Err("demo: not implemented yet".into())
}
