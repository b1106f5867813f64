//! `wsec synth`: write a capture of synthetic but standard 802.11 traffic (Beacon, a real
//! 4-way handshake, protected data both ways and group data) made by wsec's own handshake
//! and link core: test input for decryptors, and the large capture of the speed comparison.
use clap::Args;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use wsec::capture::synth::{Synth, SynthConfig};
use wsec::capture::{writer::CaptureWriter, Packet};
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::Akm;

#[derive(Args)]
pub struct SynthArgs {
    /// Output capture (pcap, 802.11 link type 105)
    #[arg(short, long)]
    output: PathBuf,
    /// SSID of the synthetic network (in the Beacon and the PMK derivation)
    #[arg(long, default_value = "wsec-synth")]
    ssid: String,
    /// Passphrase (PSK AKMs); the PMK is derived from it and the SSID
    #[arg(long, default_value = "correct horse battery")]
    passphrase: String,
    /// PMK in hex instead of a passphrase (required for SAE, OWE and 802.1X; 48 octets for Suite B 192)
    #[arg(long)]
    pmk: Option<String>,
    /// AKM: psk, psk-sha256, sae, owe, wpa-eap, wpa-eap-sha256, wpa-eap-suite-b-192
    #[arg(long, default_value = "psk")]
    akm: String,
    /// Pairwise cipher (ccmp, ccmp-256, gcmp, gcmp-256, tkip)
    #[arg(long, default_value = "ccmp")]
    cipher: String,
    /// Group cipher (default: the pairwise cipher)
    #[arg(long)]
    group: Option<String>,
    /// Stop after this many frames
    #[arg(long, default_value_t = 1000)]
    frames: u64,
    /// Or after this many octets of capture (whichever comes first), e.g. 1073741824
    #[arg(long)]
    bytes: Option<u64>,
    /// MSDU payload octets per data frame
    #[arg(long, default_value_t = 1400)]
    payload: usize,
    /// Two-subframe A-MSDUs in QoS data frames
    #[arg(long)]
    amsdu: bool,
    /// Fragment unicast frames at this many body octets
    #[arg(long)]
    fragment: Option<usize>,
    /// Every n-th data frame is group addressed (0: none)
    #[arg(long, default_value_t = 8)]
    group_every: u64,
}

/// The AKMs `wsec synth` makes handshakes for.
const SYNTH_AKMS: [Akm; 7] = [Akm::Psk, Akm::PskSha256, Akm::Sae, Akm::Owe, Akm::Ieee8021x, Akm::Ieee8021xSha256, Akm::SuiteB192];

pub fn run(a: SynthArgs) -> Result<String, (u8, String)> {
    let usage = |e: String| (2u8, e);
    // The library's AKM names, as given (lower case), of the AKMs synth can run.
    let akm = Akm::from_name(&a.akm).ok().filter(|k| SYNTH_AKMS.contains(k) && k.name() == a.akm).ok_or_else(|| {
        let names: Vec<&str> = SYNTH_AKMS.iter().map(|k| k.name()).collect();
        let (last, rest) = names.split_last().expect("four AKMs");
        usage(format!("--akm {}: use {} or {last}", a.akm, rest.join(", ")))
    })?;
    let pairwise: CipherSuite = a.cipher.parse().map_err(|_| usage(format!("--cipher {}: unknown", a.cipher)))?;
    let group: CipherSuite = match &a.group {
        Some(g) => g.parse().map_err(|_| usage(format!("--group {g}: unknown")))?,
        None => pairwise,
    };
    let pmk = match &a.pmk {
        Some(h) => hex::decode(h).map_err(|e| usage(format!("--pmk: {e}")))?,
        None if akm.is_psk() => wsec::rsn::pbkdf2::psk_from_passphrase(a.passphrase.as_bytes(), a.ssid.as_bytes())
            .map_err(|e| usage(format!("--passphrase: {e}")))?
            .to_vec(),
        None => return Err(usage(format!("--akm {}: give the PMK with --pmk", a.akm))),
    };
    let mut cfg = SynthConfig::wpa2(a.ssid.as_bytes(), &pmk);
    cfg.akm = akm;
    cfg.pairwise = pairwise;
    cfg.group = group;
    cfg.payload_len = a.payload;
    cfg.amsdu = a.amsdu;
    cfg.fragment = a.fragment;
    cfg.group_every = a.group_every;
    let gen = Synth::new(cfg).map_err(|e| (1, format!("cannot generate: {e}")))?;
    let f = File::create(&a.output).map_err(|e| (1, format!("{}: {e}", a.output.display())))?;
    let mut w = CaptureWriter::pcap(BufWriter::with_capacity(1 << 20, f), 105, false).map_err(|e| (1, e.to_string()))?;
    let (mut n, mut octets) = (0u64, 24u64);
    for fr in gen {
        let data = fr.map_err(|e| (1, format!("generator: {e}")))?;
        octets += 16 + data.len() as u64;
        w.write(&Packet { linktype: 105, ts_ns: 1_700_000_000_000_000_000 + n * 100_000, data }).map_err(|e| (1, e.to_string()))?;
        n += 1;
        if n >= a.frames || a.bytes.is_some_and(|b| octets >= b) {
            break;
        }
    }
    w.finish().map_err(|e| (1, e.to_string()))?;
    Ok(format!("{}: {n} frames, {octets} octets", a.output.display()))
}
