//! `wsec`: the command-line face of the wsec library.
use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Read;
use std::process::ExitCode;
use std::sync::OnceLock;
use wsec::cipher::{self, AadOptions, CipherSuite, OrderRule};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench_cmd;
mod decrypt_cmd;
mod demo_cmd;
mod hwvec_cmd;
mod live_cmd;
mod model_cmd;
mod rsn_cmd;
mod synth_cmd;

#[derive(Parser)]
#[command(name = "wsec", version, about = "IEEE 802.11 link security: WEP, TKIP, CCMP, GCMP, BIP")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Protect a plaintext MPDU (MAC header + body, hex, no FCS); print the protected MPDU in hex.
    Protect(ProtectArgs),
    /// Check and remove the protection of an MPDU (hex); print the plaintext MPDU in hex,
    /// or exit 1 with a one-line reason.
    Unprotect(UnprotectArgs),
    /// The PSK (PMK) of a passphrase and SSID, printed as wpa_passphrase does.
    Passphrase(rsn_cmd::PassphraseArgs),
    /// The PTK of a 4-way handshake and its KCK, KEK and TK (and KDK).
    Ptk(rsn_cmd::PtkArgs),
    /// Decrypt an 802.11 capture (pcap/pcapng) with passphrases, PMKs, WEP keys or TKs.
    Decrypt(decrypt_cmd::DecryptArgs),
    /// Write a capture of synthetic, standard 802.11 traffic (handshake + protected data)
    /// made by wsec's own core.
    Synth(synth_cmd::SynthArgs),
    /// Access point of the live system: beacons, authentication, association, 4-way and
    /// group handshakes, host-engine crypto, a wired-side TAP (docs/live.md).
    Ap(live_cmd::ApArgs),
    /// Station of the live system: scan, authenticate, associate, handshake, carry a TAP's
    /// traffic with host-engine crypto.
    Sta(live_cmd::StaArgs),
    /// The embedded wireless medium: a loopback UDP hub carrying radiotap + 802.11.
    Air(live_cmd::AirArgs),
    /// Bring up AP, two stations and a wired host in network namespaces, measure, tear down.
    Demo(demo_cmd::DemoArgs),
    /// Measure the seed papers' experiments on this machine, with the peers in the same run
    /// (`wsec bench ciphers|ccmp|relay`).
    Bench(bench_cmd::BenchArgs),
    /// WLAN performance model: 802.11 DCF simulation with measured crypto costs
    Model(model_cmd::ModelArgs),
    /// Test vectors for the Verilog engines in hw/ (hex lines for $fscanf).
    #[command(name = "hw-vectors")]
    HwVectors(hwvec_cmd::HwVecArgs),
}

/// A `--cipher` value: `wep` (WEP-40 or WEP-104, by key length), or any other suite of
/// [`CipherSuite::ALL`] under the library's name for it ([`CipherSuite::name`]).
#[derive(Clone, Copy)]
enum CipherName {
    Wep,
    Suite(CipherSuite),
}

impl ValueEnum for CipherName {
    fn value_variants<'a>() -> &'a [Self] {
        static NAMES: OnceLock<Vec<CipherName>> = OnceLock::new();
        NAMES.get_or_init(|| {
            let suites = CipherSuite::ALL.into_iter().filter(|s| !matches!(s, CipherSuite::Wep40 | CipherSuite::Wep104));
            std::iter::once(CipherName::Wep).chain(suites.map(CipherName::Suite)).collect()
        })
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let s = match self {
            CipherName::Wep => return Some(PossibleValue::new("wep").help("WEP-40 or WEP-104, by key length (5 or 13 octets)")),
            CipherName::Suite(s) => *s,
        };
        let v = PossibleValue::new(s.name());
        Some(match (s, s.eccmp_lanes()) {
            (CipherSuite::Tkip, _) => v.help("TKIP; --key is the 32-octet TK || Michael A->S key || Michael S->A key"),
            (_, Some(2)) => v.help("Enhanced CCMP, 2 MIC lanes (docs/eccmp.md)"),
            (_, Some(lanes)) => v.help(format!("Enhanced CCMP, {lanes} MIC lanes")),
            _ => v,
        })
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderRuleArg {
    /// IEEE 802.11-2020: Order masked in QoS Data AAD (HT Control present when Order = 1)
    Current,
    /// P802.11i/D7.0: Order kept, pre-HT header parsing
    #[value(name = "2003")]
    Draft2003,
}

#[derive(Args)]
struct KeyArgs {
    /// Cipher suite
    #[arg(long, value_enum)]
    cipher: CipherName,
    /// Temporal key (TK, GTK, IGTK or WEP key) in hex
    #[arg(long)]
    key: String,
    /// AAD rule for the Order bit of QoS Data frames (CCMP/GCMP)
    #[arg(long, value_enum, default_value = "current")]
    order_rule: OrderRuleArg,
    /// SPP A-MSDU negotiated: keep the A-MSDU Present bit in the AAD (CCMP/GCMP)
    #[arg(long)]
    spp_amsdu: bool,
}

#[derive(Args)]
struct ProtectArgs {
    #[command(flatten)]
    key: KeyArgs,
    /// PN/TSC/IPN (48-bit); for WEP the 24-bit IV. Decimal or 0x-prefixed hex
    #[arg(long, value_parser = parse_number)]
    pn: u64,
    /// Key ID (0-3; BIP 4-7). Default 0, or 4 for BIP
    #[arg(long)]
    keyid: Option<u8>,
    /// The plaintext MPDU in hex (':' and whitespace allowed), or '-' for standard input
    mpdu: String,
}

#[derive(Args)]
struct UnprotectArgs {
    #[command(flatten)]
    key: KeyArgs,
    /// The protected MPDU in hex (':' and whitespace allowed), or '-' for standard input
    mpdu: String,
}

fn parse_number(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("not a number: {e}"))
}

fn parse_hex(what: &str, s: &str) -> Result<Vec<u8>, String> {
    let clean: String = s.chars().filter(|c| !(c.is_whitespace() || *c == ':' || *c == '-')).collect();
    hex::decode(&clean).map_err(|e| format!("{what} is not valid hex: {e}"))
}

fn read_mpdu(arg: &str) -> Result<Vec<u8>, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| format!("reading standard input: {e}"))?;
        parse_hex("standard input", &s)
    } else {
        parse_hex("MPDU", arg)
    }
}

fn suite_of(c: CipherName, key_len: usize) -> CipherSuite {
    match c {
        CipherName::Wep if key_len == 5 => CipherSuite::Wep40,
        CipherName::Wep => CipherSuite::Wep104,
        CipherName::Suite(s) => s,
    }
}

fn protection(k: &KeyArgs) -> Result<Box<dyn cipher::Protection + Send + Sync>, String> {
    let key = parse_hex("key", &k.key)?;
    let suite = suite_of(k.cipher, key.len());
    let opts = AadOptions {
        order_rule: match k.order_rule {
            OrderRuleArg::Current => OrderRule::Current,
            OrderRuleArg::Draft2003 => OrderRule::Draft2003,
        },
        spp_amsdu: k.spp_amsdu,
    };
    cipher::new_protection(suite, &key, opts).map_err(|e| match e {
        wsec::Error::BadKeyLength => {
            format!("{suite} needs a {}-octet key, got {}", suite.key_len(), key.len())
        }
        e => e.to_string(),
    })
}

fn run(cli: Cli) -> Result<String, (u8, String)> {
    let usage = |e: String| (2u8, e);
    match cli.cmd {
        Cmd::Protect(a) => {
            let p = protection(&a.key).map_err(usage)?;
            let mpdu = read_mpdu(&a.mpdu).map_err(usage)?;
            let key_id = a.keyid.unwrap_or(if p.suite().is_bip() { 4 } else { 0 });
            let mut out = Vec::new();
            p.encapsulate(&mpdu, a.pn, key_id, &mut out).map_err(|e| (1, e.to_string()))?;
            Ok(hex::encode(out))
        }
        Cmd::Unprotect(a) => {
            let p = protection(&a.key).map_err(usage)?;
            let mpdu = read_mpdu(&a.mpdu).map_err(usage)?;
            let mut out = Vec::new();
            p.decapsulate(&mpdu, &mut out).map_err(|e| (1, e.to_string()))?;
            Ok(hex::encode(out))
        }
        Cmd::Passphrase(a) => rsn_cmd::passphrase(a),
        Cmd::Ptk(a) => rsn_cmd::ptk(a),
        Cmd::Decrypt(a) => decrypt_cmd::run(a),
        Cmd::Bench(b) => bench_cmd::run(b),
        Cmd::Synth(a) => synth_cmd::run(a),
        Cmd::Ap(a) => live_cmd::ap(a).map(|_| "ap: stopped".into()).map_err(|e| (1, e)),
        Cmd::Sta(a) => live_cmd::sta(a).map(|_| "sta: stopped".into()).map_err(|e| (1, e)),
        Cmd::Air(a) => live_cmd::air(a).map(|_| "air: stopped".into()).map_err(|e| (1, e)),
        Cmd::Demo(a) => demo_cmd::run(a).map_err(|e| (1, e)),
        Cmd::Model(a) => model_cmd::run(a),
        Cmd::HwVectors(a) => hwvec_cmd::run(a),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err((code, msg)) => {
            eprintln!("wsec: {msg}");
            ExitCode::from(code)
        }
    }
}
