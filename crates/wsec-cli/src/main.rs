//! `wsec`: the command-line face of the wsec library.
use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::process::ExitCode;
use std::sync::OnceLock;
use wsec::cipher::{self, AadOptions, Algorithm, CipherSuite, OrderRule};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench_cmd;
mod bench_live;
mod decrypt_cmd;
mod decrypt_live;
mod demo_cmd;
mod hwvec_cmd;
mod live_cmd;
mod model_cmd;
mod report_cmd;
mod rsn_cmd;
mod stream_cmd;
mod synth_cmd;

/// The tagline of `wsec --help`: what the system is.
const ABOUT: &str = "wsec, a WLAN security system: IEEE 802.11 link crypto (WEP, TKIP, CCMP, GCMP, BIP, Enhanced CCMP), \
RSN handshakes and key derivation, capture decryption, the live AP/STA with the Enhanced-WPA2 host engine, \
the 802.11 DCF performance model, benchmarks against OpenSSL/RustCrypto/ipsec-mb, and test vectors for the Verilog engines";

/// Printed after `--help`: the exit codes and where keys are safe (docs/cli.md).
const AFTER_HELP: &str = "\
Exit codes: 0 success; 1 the operation failed (bad frame, authentication failure, a missing
or unreadable input, I/O); 2 usage error (bad argument, key, configuration or limit); 3
`decrypt` read a damaged capture and wrote what it could read; 4 `decrypt` ran but decrypted
none of the capture's protected frames with the keys given (a wrong passphrase or key).
Errors go to standard error as one line; results to standard output. Inputs read whole have
size limits (docs/cli.md).

Keys on the command line (--key, --passphrase, --pmk, --tk, --wep-key) are visible to
other users in the process list (ps, /proc/PID/cmdline): use --key-file, --passphrase-file,
--pmk-file or --keys with a file or '-' for standard input instead.";

#[derive(Parser)]
#[command(name = "wsec", version, about = ABOUT, after_help = AFTER_HELP)]
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
    /// Decrypt an 802.11 capture (pcap/pcapng) or a live monitor interface with passphrases,
    /// PMKs, MSKs, WEP keys or TKs (4-way handshakes, FT, TDLS).
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
    /// Send frames of a capture again on a medium (a radio, a packet socket or the hub):
    /// replay tests such as a replayed EAPOL-Key message 3.
    Inject(live_cmd::InjectArgs),
    /// Load an access point: up to 2,007 emulated stations (wsec sta's core each) on one
    /// medium join with N handshakes in flight, then pass traffic; reports the handshakes
    /// per second, the time to fill, the frames passed and the AP's RSS (docs/interop.md, "Load").
    Load(live_cmd::LoadArgs),
    /// A numbered UDP stream (send, or receive and report losses and gaps): how long a
    /// roam interrupts a station's traffic.
    Stream(stream_cmd::StreamArgs),
    /// Bring up AP, two stations and a wired host in network namespaces, measure, tear down
    /// (needs root: it creates network namespaces and TAP devices).
    Demo(demo_cmd::DemoArgs),
    /// Measure the seed papers' experiments on this machine, with the peers in the same run
    /// (`wsec bench ciphers|ccmp|relay`).
    Bench(bench_cmd::BenchArgs),
    /// WLAN performance model: 802.11 DCF simulation with measured crypto costs
    Model(model_cmd::ModelArgs),
    /// Test vectors for the Verilog engines in hw/ (hex lines for $fscanf).
    #[command(name = "hw-vectors")]
    HwVectors(hwvec_cmd::HwVecArgs),
    /// One HTML page (SVG charts, JSON of every number) setting every seed paper's result
    /// beside wsec's: benchmarks and model rerun, place and route and the live demo read
    /// from docs/results/ unless --full.
    Report(report_cmd::ReportArgs),
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
            let suites = CipherSuite::filtered(|s| s.algorithm() != Algorithm::Wep);
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
    /// Temporal key (TK, GTK, IGTK or WEP key) in hex. Visible in the process list: prefer --key-file
    #[arg(long, required_unless_present = "key_file")]
    key: Option<String>,
    /// Read the key (hex, one line) from this file, or '-' for standard input
    #[arg(long, conflicts_with = "key")]
    key_file: Option<std::path::PathBuf>,
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
        // Bounded: `wsec unprotect -` on an endless stream fails at the limit.
        let s = wsec::input::read_limited(std::io::stdin().lock(), wsec::input::limits::MPDU_TEXT)
            .map_err(|e| format!("standard input: {e}"))?;
        parse_hex("standard input", &String::from_utf8_lossy(&s))
    } else {
        parse_hex("MPDU", arg)
    }
}

/// A secret (key, passphrase, PMK) from a file or, for `-`, standard input: one line of at
/// most [`wsec::input::limits::SECRET`] octets, without its line end; wiped when dropped.
/// `what` names the option in errors; the secret itself never appears in one.
pub(crate) fn read_secret(path: &std::path::Path, what: &str) -> Result<zeroize::Zeroizing<String>, String> {
    use wsec::input::{limits, read_limited};
    let shown = if path.as_os_str() == "-" { "standard input".to_string() } else { path.display().to_string() };
    let bytes = if path.as_os_str() == "-" {
        read_limited(std::io::stdin().lock(), limits::SECRET)
    } else {
        std::fs::File::open(path).map_err(wsec::input::ReadError::Io).and_then(|f| read_limited(f, limits::SECRET))
    }
    .map_err(|e| format!("{what} {shown}: {e}"))?;
    let text = wsec::input::into_text(bytes).map_err(|e| format!("{what} {shown}: {e}"))?;
    let body = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
    if body.contains(['\n', '\r']) {
        return Err(format!("{what} {shown}: one line expected"));
    }
    if body.is_empty() {
        return Err(format!("{what} {shown}: empty"));
    }
    Ok(zeroize::Zeroizing::new(body.to_string()))
}

fn suite_of(c: CipherName, key_len: usize) -> CipherSuite {
    match c {
        CipherName::Wep => CipherSuite::by_algorithm(Algorithm::Wep, key_len).unwrap_or(CipherSuite::Wep104),
        CipherName::Suite(s) => s,
    }
}

fn protection(k: &KeyArgs) -> Result<Box<dyn cipher::Protection + Send + Sync>, String> {
    let key = zeroize::Zeroizing::new(match (&k.key, &k.key_file) {
        (Some(h), _) => parse_hex("key", h)?,
        (None, Some(f)) => parse_hex("--key-file", &read_secret(f, "--key-file")?)?,
        (None, None) => return Err("give --key or --key-file".into()),
    });
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

/// What a command leaves: its output for standard output and, when the command did its work
/// only in part (`wsec decrypt` on a damaged capture), the exit code and the one-line error
/// for standard error.
pub(crate) struct Reply {
    pub out: String,
    pub partial: Option<(u8, String)>,
}

impl From<String> for Reply {
    fn from(out: String) -> Reply {
        Reply { out, partial: None }
    }
}

/// Exit code of `wsec decrypt` when the capture was damaged (truncated or corrupt) and the
/// output holds what was read before the damage (docs/cli.md).
pub(crate) const EXIT_PARTIAL: u8 = 3;

/// Exit code of `wsec decrypt` when the capture has protected frames and none of them
/// decrypted with the keys given (a wrong passphrase or key, no handshake); the output and
/// summary are written as usual (docs/cli.md).
pub(crate) const EXIT_NOTHING_DECRYPTED: u8 = 4;

fn stdin_once(args: &[Option<&std::path::Path>]) -> Result<(), (u8, String)> {
    if args.iter().flatten().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err((2, "standard input ('-') can feed only one option".into()));
    }
    Ok(())
}

/// Input files are checked before anything else (docs/cli.md): a file argument that does not
/// exist or cannot be looked up is exit 1, named, before any usage error about the other
/// arguments. Only looked up, not opened (a FIFO would lose its writer); `-` is standard input.
pub(crate) fn inputs_exist<'a>(paths: impl IntoIterator<Item = &'a std::path::Path>) -> Result<(), (u8, String)> {
    for p in paths {
        if p.as_os_str() != "-" {
            std::fs::metadata(p).map_err(|e| (1, format!("{}: {e}", p.display())))?;
        }
    }
    Ok(())
}

fn run(cli: Cli) -> Result<Reply, (u8, String)> {
    let usage = |e: String| (2u8, e);
    let out = match cli.cmd {
        Cmd::Protect(a) => {
            inputs_exist(a.key.key_file.as_deref())?;
            stdin_once(&[a.key.key_file.as_deref(), Some(std::path::Path::new(&a.mpdu))])?;
            let p = protection(&a.key).map_err(usage)?;
            let mpdu = read_mpdu(&a.mpdu).map_err(usage)?;
            let key_id = a.keyid.unwrap_or(if p.suite().is_bip() { 4 } else { 0 });
            let mut out = Vec::new();
            // The MPDU and options are the caller's: a frame this suite cannot protect (a data
            // frame under BIP, a bad key ID) is a usage error, not a failed verification.
            p.encapsulate(&mpdu, a.pn, key_id, &mut out).map_err(|e| (2, e.to_string()))?;
            hex::encode(out)
        }
        Cmd::Unprotect(a) => {
            inputs_exist(a.key.key_file.as_deref())?;
            stdin_once(&[a.key.key_file.as_deref(), Some(std::path::Path::new(&a.mpdu))])?;
            let p = protection(&a.key).map_err(usage)?;
            let mpdu = read_mpdu(&a.mpdu).map_err(usage)?;
            let mut out = Vec::new();
            p.decapsulate(&mpdu, &mut out).map_err(|e| (1, e.to_string()))?;
            hex::encode(out)
        }
        Cmd::Passphrase(a) => rsn_cmd::passphrase(a)?,
        Cmd::Ptk(a) => rsn_cmd::ptk(a)?,
        Cmd::Decrypt(a) => return decrypt_cmd::run(a),
        Cmd::Bench(b) => bench_cmd::run(b)?,
        Cmd::Synth(a) => synth_cmd::run(a)?,
        Cmd::Ap(a) => live_cmd::ap(a).map(|_| "ap: stopped".to_string())?,
        Cmd::Sta(a) => live_cmd::sta(a).map(|_| "sta: stopped".to_string())?,
        Cmd::Air(a) => live_cmd::air(a).map(|_| "air: stopped".to_string())?,
        Cmd::Inject(a) => live_cmd::inject(a)?,
        Cmd::Stream(a) => stream_cmd::run(a)?,
        Cmd::Load(a) => live_cmd::load(a)?,
        Cmd::Demo(a) => demo_cmd::run(a)?,
        Cmd::Model(a) => model_cmd::run(a)?,
        Cmd::HwVectors(a) => hwvec_cmd::run(a)?,
        Cmd::Report(a) => report_cmd::run(a)?,
    };
    Ok(out.into())
}

/// A command-line parse error as one line for standard error (docs/cli.md: every error is
/// one `wsec: ` line, usage errors exit 2); `--help` and `--version` print as clap prints them.
fn parse_args() -> Result<Cli, String> {
    use clap::error::ErrorKind;
    Cli::try_parse().map_err(|e| {
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            e.exit();
        }
        if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            // `wsec`, `wsec model`, `wsec bench` alone: clap would print the whole help.
            return "a subcommand is required (see --help)".to_string();
        }
        one_line(&e.render().to_string())
    })
}

/// Clap's message (its first paragraph, lines joined) without the `error: ` prefix, the usage
/// block and the hint, plus where to look.
fn one_line(rendered: &str) -> String {
    let first = rendered.split("\n\n").next().unwrap_or(rendered);
    let msg: Vec<&str> = first.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let msg = msg.join(" ");
    format!("{} (see --help)", msg.strip_prefix("error: ").unwrap_or(&msg))
}

fn main() -> ExitCode {
    let cli = match parse_args() {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("wsec: {msg}");
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(Reply { out, partial }) => {
            // Nothing when the command's standard output is its data (decrypt --live -o -).
            if !out.is_empty() {
                println!("{out}");
            }
            match partial {
                None => ExitCode::SUCCESS,
                Some((code, msg)) => {
                    eprintln!("wsec: {msg}");
                    ExitCode::from(code)
                }
            }
        }
        Err((code, msg)) => {
            eprintln!("wsec: {msg}");
            ExitCode::from(code)
        }
    }
}
