//! `wsec decrypt`: decrypt an 802.11 capture (pcap/pcapng; raw 802.11, radiotap, Prism,
//! AVS, PPI) with passphrases, PMKs, WEP keys or TKs; write the plaintext capture in the
//! same link type (or Ethernet, like airdecap-ng) and print a summary.
use clap::Args;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use wsec::capture::rewrite::{replace_mpdu, to_ethernet};
use wsec::capture::writer::CaptureWriter;
use wsec::capture::{radio, CaptureReader, Packet};
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, FailReason, Outcome, Stats};

#[derive(Args)]
pub struct DecryptArgs {
    /// The capture to decrypt (pcap or pcapng)
    #[arg(required_unless_present = "live", conflicts_with = "live")]
    pub(crate) capture: Option<PathBuf>,
    /// Decrypt live from this Linux 802.11 interface, taken over as a monitor (radiotap) on
    /// --channel until SIGINT/SIGTERM or --duration; one pass, frames written in the order
    /// received. With -o - the output is a pcap stream on standard output (for `tshark -i -`)
    /// and the summary goes to standard error
    #[arg(long, value_name = "IFACE")]
    pub(crate) live: Option<String>,
    /// Channel of --live (2.4 GHz 1-14, 5 GHz 36-165)
    #[arg(long, default_value_t = 6, requires = "live")]
    pub(crate) channel: u8,
    /// Stop --live after this many seconds
    #[arg(long, requires = "live")]
    pub(crate) duration: Option<f64>,
    /// Where to write the decrypted capture ('-' with --live: a pcap stream on standard output)
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// SSID of a network whose passphrase follows (repeatable, pairs in order with
    /// --passphrase or with --passphrase-file)
    #[arg(long)]
    ssid: Vec<String>,
    /// Passphrase of the matching --ssid (repeatable). Visible in the process list: prefer
    /// --passphrase-file or --keys
    #[arg(long, conflicts_with = "passphrase_file")]
    passphrase: Vec<String>,
    /// Read the passphrase of the matching --ssid from this file (one line), or '-' for
    /// standard input (repeatable)
    #[arg(long)]
    passphrase_file: Vec<PathBuf>,
    /// A PMK/PSK in hex (PSK, PSK-SHA256, SAE, OWE, 802.1X...; repeatable). Visible in the
    /// process list: prefer --pmk-file or --keys
    #[arg(long)]
    pmk: Vec<String>,
    /// Read a PMK in hex (one line) from this file, or '-' for standard input (repeatable)
    #[arg(long)]
    pmk_file: Vec<PathBuf>,
    /// An 802.1X MSK in hex, 64-128 octets (repeatable): the PMK is its first 32 octets (48
    /// for Suite B 192), the FT XXKey its second 32 (FT-802.1X) or first 48 (FT-802.1X-SHA384).
    /// Visible in the process list: prefer --msk-file or --keys
    #[arg(long)]
    msk: Vec<String>,
    /// Read an MSK in hex (one line) from this file, or '-' for standard input (repeatable)
    #[arg(long)]
    msk_file: Vec<PathBuf>,
    /// A WEP key in hex (repeatable; visible in the process list: prefer --keys)
    #[arg(long = "wep-key")]
    wep_key: Vec<String>,
    /// A temporal key (TK or GTK) in hex, any cipher (repeatable; visible in the process
    /// list: prefer --keys). A 16-octet TK also opens TKIP frames, without Michael
    /// verification (the summary counts them)
    #[arg(long)]
    tk: Vec<String>,
    /// Keys in Wireshark's 80211_keys format ("wpa-pwd","pass:ssid" / "wpa-psk" / "wep" / "tk" / "msk"),
    /// a file of at most 4 MiB or '-' for standard input
    #[arg(long)]
    keys: Option<PathBuf>,
    /// Write Ethernet frames (DA, SA, EtherType, payload) like airdecap-ng
    #[arg(long)]
    pub(crate) ethernet: bool,
    /// Leave out frames that could not be decrypted (kept unchanged by default)
    #[arg(long)]
    pub(crate) drop_undecrypted: bool,
    /// One streaming pass (for pipes); by default a file is read twice so that keys seen
    /// late (e.g. a GTK) also decrypt earlier frames
    #[arg(long)]
    one_pass: bool,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
    /// Threads for the crypto (default: every core)
    #[arg(long)]
    threads: Option<usize>,
}

/// Frames per batch handed to the decryptor (planned in order, crypto on every thread,
/// committed in order), and a cap on the batch's octets: memory stays bounded.
const BATCH_FRAMES: usize = 4096;
const BATCH_BYTES: usize = 8 << 20;

pub(crate) fn keys_of(a: &DecryptArgs) -> Result<Vec<UserKey>, String> {
    let mut keys = Vec::new();
    let stdin_users =
        a.passphrase_file.iter().chain(&a.pmk_file).chain(&a.msk_file).chain(&a.keys).filter(|p| p.as_os_str() == "-").count();
    if stdin_users > 1 {
        return Err("standard input ('-') can feed only one option".into());
    }
    if a.ssid.len() != a.passphrase.len() + a.passphrase_file.len() {
        return Err("each --passphrase or --passphrase-file needs its --ssid".into());
    }
    for (s, p) in a.ssid.iter().zip(&a.passphrase) {
        keys.push(UserKey::passphrase(s, p).map_err(|e| format!("--passphrase for {s:?}: {e}"))?);
    }
    for (s, f) in a.ssid.iter().zip(&a.passphrase_file) {
        let p = crate::read_secret(f, "--passphrase-file")?;
        keys.push(UserKey::passphrase(s, &p).map_err(|e| format!("--passphrase-file for {s:?}: {e}"))?);
    }
    for p in &a.pmk {
        keys.push(UserKey::pmk_hex(p).map_err(|e| format!("--pmk: {e}"))?);
    }
    for f in &a.pmk_file {
        let p = crate::read_secret(f, "--pmk-file")?;
        keys.push(UserKey::pmk_hex(&p).map_err(|e| format!("--pmk-file {}: {e}", f.display()))?);
    }
    for m in &a.msk {
        keys.push(UserKey::msk_hex(m).map_err(|e| format!("--msk: {e}"))?);
    }
    for f in &a.msk_file {
        let m = crate::read_secret(f, "--msk-file")?;
        keys.push(UserKey::msk_hex(&m).map_err(|e| format!("--msk-file {}: {e}", f.display()))?);
    }
    for w in &a.wep_key {
        keys.push(UserKey::wep_hex(w).map_err(|e| format!("--wep-key: {e}"))?);
    }
    for t in &a.tk {
        keys.push(UserKey::tk_hex(t).map_err(|e| format!("--tk: {e}"))?);
    }
    if let Some(f) = &a.keys {
        // Bounded (unbounded, a keys file of /dev/zero grows until the OOM killer ends it)
        // and wiped.
        use wsec::input::{into_text, limits, read_limited, ReadError};
        let shown = if f.as_os_str() == "-" { "standard input".to_string() } else { f.display().to_string() };
        let bytes = if f.as_os_str() == "-" {
            read_limited(std::io::stdin().lock(), limits::KEYS_FILE)
        } else {
            File::open(f).map_err(ReadError::Io).and_then(|f| read_limited(f, limits::KEYS_FILE))
        };
        let text = bytes.and_then(into_text).map_err(|e| format!("--keys {shown}: {e}"))?;
        keys.extend(UserKey::from_80211_keys(&text).map_err(|e| format!("--keys {shown}: {e}"))?);
    }
    if keys.is_empty() {
        return Err("no keys: give --ssid/--passphrase(-file), --pmk(-file), --msk(-file), --wep-key, --tk or --keys".into());
    }
    Ok(keys)
}

fn reason_key(r: FailReason) -> &'static str {
    match r {
        FailReason::NoHandshake => "no_handshake",
        FailReason::WrongOrMissingPmk => "wrong_or_missing_pmk",
        FailReason::PmkNeeded => "pmk_needed",
        FailReason::NoGroupKey => "no_group_key",
        FailReason::NoWepKey => "no_wep_key",
        FailReason::MicOrIcvFailure => "mic_or_icv_failure",
        FailReason::Malformed => "malformed",
    }
}

pub(crate) fn summary(a: &DecryptArgs, s: &Stats, written: u64, read_errors: &[String]) -> String {
    let decrypted: u64 = s.decrypted.values().sum();
    let failed: u64 = s.failed.values().sum();
    let per_suite: BTreeMap<&str, u64> = s.decrypted.iter().map(|(k, v)| (k.name(), *v)).collect();
    let per_reason: BTreeMap<&str, u64> = s.failed.iter().map(|(k, v)| (reason_key(*k), *v)).collect();
    if a.json {
        let j = serde_json::json!({
            "input": input_name(a),
            "output": a.output.display().to_string(),
            "frames_read": s.frames,
            "protected": s.protected,
            "decrypted": decrypted,
            "decrypted_per_cipher": per_suite,
            "retransmissions_dropped": s.duplicates,
            "not_decrypted": failed,
            "not_decrypted_per_reason": per_reason,
            "handshakes_verified": s.handshakes_verified,
            "group_keys_learned": s.group_keys,
            "tkip_michael_unchecked": s.tkip_michael_unchecked,
            "not_decrypted_per_transmitter": s.failed_by_transmitter.iter().map(|(ta, m)| {
                let per: BTreeMap<&str, u64> = m.iter().map(|(r, n)| (reason_key(*r), *n)).collect();
                (ta.to_string(), per)
            }).collect::<BTreeMap<String, BTreeMap<&str, u64>>>(),
            "keys_learned": s.keys_learnt.iter().map(|k| serde_json::json!({
                "frame": k.frame,
                "aa": k.aa.to_string(),
                "spa": k.spa.to_string(),
                "akm": k.akm.map(|a| a.name()),
                "cipher": k.cipher.name(),
                "source": k.source.name(),
            })).collect::<Vec<_>>(),
            "frames_written": written,
            "capture_errors": read_errors,
        });
        return serde_json::to_string_pretty(&j).expect("a JSON value serializes");
    }
    let mut o = String::new();
    let mut line = |k: &str, v: u64| o.push_str(&format!("{k:<44}{v:>10}\n"));
    line("Total number of frames read", s.frames);
    line("Total number of protected frames", s.protected);
    line("Number of decrypted frames", decrypted);
    for (k, v) in &per_suite {
        line(&format!("  {k}"), *v);
    }
    line("Retransmissions (one copy written)", s.duplicates);
    line("Protected frames not decrypted", failed);
    let mut reasons: Vec<_> = s.failed.iter().collect();
    reasons.sort();
    for (r, v) in reasons {
        line(&format!("  {}", r.describe()), *v);
    }
    line("Handshakes verified", s.handshakes_verified);
    line("Group keys learned", s.group_keys);
    if s.tkip_michael_unchecked > 0 {
        line("TKIP, Michael unchecked (16-octet TK)", s.tkip_michael_unchecked);
    }

    line("Frames written", written);
    let mut by_ta: Vec<_> = s.failed_by_transmitter.iter().collect();
    by_ta.sort_by_key(|(ta, _)| ta.0);
    for (ta, m) in by_ta {
        let mut rs: Vec<_> = m.iter().collect();
        rs.sort();
        for (r, n) in rs {
            o.push_str(&format!("not decrypted from {ta}: {n} ({})\n", r.describe()));
        }
    }
    for k in &s.keys_learnt {
        let akm = k.akm.map(|a| a.name()).unwrap_or("-");
        o.push_str(&format!("key: frame {} {} {} <-> {} ({akm}, {})\n", k.frame, k.source.name(), k.aa, k.spa, k.cipher.name()));
    }
    for e in read_errors {
        o.push_str(&format!("capture error: {e}\n"));
    }
    o
}

/// The input as the summary names it: the capture file, or `live:IFACE`.
fn input_name(a: &DecryptArgs) -> String {
    match (&a.capture, &a.live) {
        (Some(c), _) => c.display().to_string(),
        (None, Some(i)) => format!("live:{i}"),
        (None, None) => String::new(),
    }
}

/// Runs `wsec decrypt`; returns the summary to print, or (exit code, message).
/// The output file, written under a temporary name in its directory and renamed into place
/// only when the run succeeded: an interrupted or failed run never leaves a half-written
/// file under the final name (and never touches an existing one).
struct PendingOutput {
    tmp: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl PendingOutput {
    fn create(dest: &Path) -> Result<(PendingOutput, File), (u8, String)> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest.file_name().ok_or_else(|| (2, format!("{}: not a file name", dest.display())))?;
        let tmp = dir.join(format!(".{}.wsec-{}.tmp", name.to_string_lossy(), std::process::id()));
        let f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(|e| (1, format!("{}: {e}", tmp.display())))?;
        Ok((PendingOutput { tmp, dest: dest.to_path_buf(), done: false }, f))
    }

    /// Syncs the file and renames it to its final name.
    fn commit(mut self, f: File) -> Result<(), (u8, String)> {
        f.sync_all().map_err(|e| (1, format!("{}: {e}", self.tmp.display())))?;
        drop(f);
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| (1, format!("{}: {e}", self.dest.display())))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for PendingOutput {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Refuses an output that is the input capture itself (same device and inode: also through
/// a symbolic or hard link), which would be truncated while it is still being read.
fn check_not_input(input: &Path, output: &Path) -> Result<(), (u8, String)> {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(i), Ok(o)) = (std::fs::metadata(input), std::fs::metadata(output)) {
        if i.dev() == o.dev() && i.ino() == o.ino() {
            return Err((2, format!("{}: the output is the input capture; choose another -o", output.display())));
        }
    }
    Ok(())
}

/// Runs `wsec decrypt`. A capture damaged part way (truncated, a corrupt record or block)
/// still gives its output (what was read before the damage) and summary, with exit code
/// [`crate::EXIT_PARTIAL`] and the error on standard error (docs/cli.md).
pub fn run(a: DecryptArgs) -> Result<crate::Reply, (u8, String)> {
    let Some(capture) = a.capture.clone() else {
        return crate::decrypt_live::run(&a);
    };
    let open = || CaptureReader::open(&capture).map_err(|e| (1u8, format!("{}: {e}", capture.display())));
    // The input first: a missing or unreadable capture, or one that is not pcap/pcapng, is
    // reported before anything about the keys or the output (docs/cli.md).
    drop(open()?);
    crate::inputs_exist(a.passphrase_file.iter().chain(&a.pmk_file).chain(&a.msk_file).chain(&a.keys).map(PathBuf::as_path))?;
    check_not_input(&capture, &a.output)?;
    let keys = keys_of(&a).map_err(|e| (2, e))?;
    let mut d = Decryptor::new(keys);
    let mut read_errors = Vec::new();
    let total = std::fs::metadata(&capture).map(|m| m.len()).unwrap_or(0);
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        b
    });
    // The learning pass collects handshakes and group keys; with only WEP keys and TKs
    // there is nothing to learn, so one pass does the same work.
    let learnable = keys_need_learning(&a);
    if !a.one_pass && learnable {
        if let Some(b) = &bar {
            b.set_message("learning keys");
        }
        d.start_learning();
        for p in open()? {
            match p {
                Ok(p) => {
                    if let Some(b) = &bar {
                        b.inc(p.data.len() as u64 + 16);
                    }
                    if let Ok(m) = radio::mpdu(p.linktype, &p.data) {
                        d.process(m.bytes);
                    }
                }
                Err(_) => break,
            }
        }
        d.end_learning();
        if let Some(b) = &bar {
            b.set_position(0);
        }
    }
    if let Some(b) = &bar {
        b.set_message("decrypting");
    }
    let mut reader = open()?;
    let first = reader.next();
    let (pending, out) = PendingOutput::create(&a.output)?;
    let out = BufWriter::new(out);
    // The first four octets say pcapng (never read the whole file: it may be gigabytes).
    let mut magic = [0u8; 4];
    let is_ng =
        File::open(&capture).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic)).is_ok() && magic == [0x0a, 0x0d, 0x0d, 0x0a];
    let first_lt = match &first {
        Some(Ok(p)) => p.linktype,
        _ => 105,
    };
    let mut w = if a.ethernet {
        CaptureWriter::pcap(out, 1, false)
    } else if is_ng {
        CaptureWriter::pcapng_nanos(out)
    } else {
        CaptureWriter::pcap(out, first_lt, false)
    }
    .map_err(|e| (1, format!("{}: {e}", a.output.display())))?;
    let threads = a.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).max(1);
    let mut written = 0u64;
    let mut batch: Vec<Packet> = Vec::with_capacity(BATCH_FRAMES);
    let mut bytes = 0usize;
    let mut packets = first.into_iter().chain(reader);
    loop {
        let next = packets.next();
        let end = match next {
            Some(Ok(p)) => {
                if let Some(b) = &bar {
                    b.inc(p.data.len() as u64 + 16);
                }
                bytes += p.data.len();
                batch.push(p);
                false
            }
            Some(Err(e)) => {
                read_errors.push(e.to_string());
                true
            }
            None => true,
        };
        if batch.len() >= BATCH_FRAMES || bytes >= BATCH_BYTES || (end && !batch.is_empty()) {
            written += write_batch(&a, &mut d, &batch, threads, &mut w)?;
            batch.clear();
            bytes = 0;
        }
        if end {
            break;
        }
    }
    let out = w.finish().map_err(|e| (1, e.to_string()))?;
    let out = out.into_inner().map_err(|e| (1, format!("{}: {}", a.output.display(), e.error())))?;
    pending.commit(out)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let out = summary(&a, &d.stats, written, &read_errors);
    let decrypted: u64 = d.stats.decrypted.values().sum();
    let partial = match read_errors.first() {
        Some(e) => {
            let msg =
                format!("{}: damaged capture: {e}; {} wrote the {written} frame(s) read before it", capture.display(), a.output.display());
            Some((crate::EXIT_PARTIAL, msg))
        }
        // Keys were given (keys_of insists) and the capture has protected frames, but none
        // decrypted: a wrong passphrase or key, or no handshake (docs/cli.md, exit 4).
        None if d.stats.protected > 0 && decrypted == 0 => {
            let msg = format!(
                "{}: none of the {} protected frame(s) decrypted with the keys given (wrong passphrase or key, or no handshake: see the summary)",
                capture.display(),
                d.stats.protected
            );
            Some((crate::EXIT_NOTHING_DECRYPTED, msg))
        }
        None => None,
    };
    Ok(crate::Reply { out, partial })
}

/// Decrypts one batch and writes what goes out, in capture order; returns frames written.
fn write_batch<W: std::io::Write>(
    a: &DecryptArgs,
    d: &mut Decryptor,
    batch: &[Packet],
    threads: usize,
    w: &mut CaptureWriter<W>,
) -> Result<u64, (u8, String)> {
    let mpdus: Vec<Option<&[u8]>> = batch.iter().map(|p| radio::mpdu(p.linktype, &p.data).ok().map(|m| m.bytes)).collect();
    let present: Vec<&[u8]> = mpdus.iter().flatten().copied().collect();
    let mut outcomes = d.process_batch(&present, threads).into_iter();
    let mut written = 0u64;
    for (p, m) in batch.iter().zip(&mpdus) {
        let Some(m) = m else {
            if !a.ethernet && !a.drop_undecrypted {
                w.write(p).map_err(|e| (1, e.to_string()))?;
                written += 1;
            }
            continue;
        };
        let Some(outcome) = outcomes.next() else { break };
        let out_pkt = match outcome {
            Outcome::Decrypted { mpdu, .. } => {
                if a.ethernet {
                    to_ethernet(&mpdu).ok().map(|data| Packet { linktype: 1, ts_ns: p.ts_ns, data })
                } else {
                    replace_mpdu(p.linktype, &p.data, &mpdu).ok().map(|data| Packet { linktype: p.linktype, ts_ns: p.ts_ns, data })
                }
            }
            Outcome::Duplicate { .. } => None,
            Outcome::Clear if a.ethernet => {
                // Like airdecap-ng: unprotected data frames go out as Ethernet too.
                let h = wsec::wire::Header::new_checked(*m).ok();
                if h.is_some_and(|h| h.frame_control().has_data_body()) {
                    to_ethernet(m).ok().map(|data| Packet { linktype: 1, ts_ns: p.ts_ns, data })
                } else {
                    None
                }
            }
            Outcome::Clear => Some(p.clone()),
            Outcome::Failed(_) if a.drop_undecrypted || a.ethernet => None,
            Outcome::Failed(_) => Some(p.clone()),
        };
        if let Some(q) = out_pkt {
            w.write(&q).map_err(|e| (1, e.to_string()))?;
            written += 1;
        }
    }
    Ok(written)
}

/// Keys whose use depends on what the capture holds (handshakes, group keys).
fn keys_need_learning(a: &DecryptArgs) -> bool {
    !a.passphrase.is_empty()
        || !a.passphrase_file.is_empty()
        || !a.pmk.is_empty()
        || !a.pmk_file.is_empty()
        || !a.msk.is_empty()
        || !a.msk_file.is_empty()
        || a.keys.is_some()
}
