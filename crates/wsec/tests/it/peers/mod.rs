//! Test support: the peers wsec's decryption is compared against, run on a capture,
//! returning the plaintext they recover frame by frame.
//!
//! - **tshark** (Wireshark 4.0): `tshark -n -r FILE -o wlan.enable_decryption:TRUE
//!   -o uat:80211_keys:"TYPE","KEY" ... -o gui.column.format:"No.","%m" -P -x`.
//!   * Keys: one `-o uat:80211_keys:...` option per key; each adds one record to the
//!     `80211_keys` table (checked: a WEP key then a WPA password, in either order, both
//!     apply). Record types `"wep"` (hex), `"wpa-pwd"` (`passphrase:ssid`, each
//!     percent-decoded by Wireshark, so `:`, `%`, `"` and non-ASCII octets are written
//!     `%XX`), `"wpa-psk"` (PMK hex) and `"tk"` (temporal key hex, Wireshark 3.6+).
//!   * Output: `-P` prints the packet summary, reduced by the column preference to the
//!     frame number; `-x` then prints the hex dump of every data source of the packet.
//!     When decryption succeeds the packet has a second source, printed under a label
//!     `Decrypted CCMP data (N bytes):` (`TKIP`, `WEP`, `GCMP`, ... likewise) holding the
//!     plaintext MSDU (or management frame body for protected management frames): what
//!     follows the security header, LLC/SNAP first, without MIC, Michael MIC, ICV or FCS.
//!     The captured frame itself is then labelled `Frame (N bytes):` (unlabelled when it
//!     is the only source). Other labels (`Decrypted AES keydata`, `Decrypted RC4
//!     keydata`: EAPOL-Key Key Data) are ignored.
//!   * Why not fields or JSON: `-T fields -e data.data` only shows undissected bytes, and
//!     the decrypted payload is dissected (LLC, IP, ...); `-T json -x` gives `*_raw` per
//!     field without saying which data source a field lies in, so the MSDU would have to
//!     be pieced together. The labelled hex dump is the decrypted buffer, whole.
//!   * `WIRESHARK_CONFIG_DIR` points at an empty directory so that no personal
//!     preference or key table changes the result.
//! - **airdecap-ng** (aircrack-ng 1.7): `airdecap-ng -l [-b BSSID] (-e SSID -p PASS | -k PMK
//!   | -w WEPKEY) -o OUT -c BAD IN`.
//!   * airdecap-ng reads only classic microsecond pcap files (not pcapng) with link type
//!     105, 119, 127 or 192, and writes no frame numbers. So IN is a copy of the capture
//!     written by wsec's `CaptureWriter` in classic pcap, with each packet's time stamp
//!     set to its frame number in seconds; airdecap-ng copies the time stamp of each
//!     packet it writes, which gives the frame number of every output record back.
//!   * With `-l` the output (link type 105) holds each decrypted frame's MAC header with
//!     Protected cleared, then the plaintext MSDU (security header, MIC/ICV, FCS and radio
//!     header removed). The payload is what follows the header as airdecap-ng sizes it:
//!     24 octets, 30 with To DS = From DS = 1, plus 2 for QoS Data (subtype exactly 8).
//!   * Without `-l` the output is Ethernet (link type 1): DA, SA, then the body with its
//!     first 6 octets (the LLC/SNAP header up to the EtherType) removed.
//!   * What airdecap-ng leaves out (its `main` loop): group-addressed and all other frames
//!     of a station without a PTK (only pairwise keys are derived), To DS = From DS = 0
//!     (IBSS) data frames, management frames, a frame whose body has the same CRC as the
//!     previous frame of the same station and direction (retransmissions), AKMs other than
//!     PSK with HMAC-SHA1/AES-CMAC key descriptors (no PSK-SHA256 key derivation), and
//!     with a `-b` filter the frames whose BSSID (A2 for WDS) differs.
//!
//! Every function panics with a clear message when a peer is missing or fails (the
//! project's `scripts/setup` installs both); the `try_` forms return the message instead.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use wsec::capture::writer::CaptureWriter;
use wsec::capture::{CaptureReader, Packet};

/// A key as the peers take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerKey {
    /// WPA/WPA2 passphrase and SSID (PMK = PBKDF2-SHA1(passphrase, SSID, 4096, 32)).
    WpaPwd { ssid: String, passphrase: String },
    /// WEP key, hex (10 or 26 digits; `:` or `-` separators allowed).
    Wep(String),
    /// PMK (the PSK), 64 hex digits.
    Psk(String),
    /// Temporal key, hex (tshark only).
    Tk(String),
    /// 802.1X MSK, hex (tshark only, Wireshark 3.6+ `"msk"` records).
    Msk(String),
}

impl PeerKey {
    pub fn wpa_pwd(ssid: &str, passphrase: &str) -> PeerKey {
        PeerKey::WpaPwd { ssid: ssid.into(), passphrase: passphrase.into() }
    }
    pub fn wep(hex: &str) -> PeerKey {
        PeerKey::Wep(hex.into())
    }
}

/// One frame a peer decrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerFrame {
    /// 1-based number of the frame in the capture (tshark's `frame.number`; for
    /// airdecap-ng recovered from the time stamp, see the module documentation).
    pub frame_number: Option<u32>,
    /// The plaintext after the MAC header and the security header: the MSDU starting with
    /// its LLC/SNAP header (for a protected management frame, the frame body), without
    /// MIC, ICV or FCS.
    pub payload: Vec<u8>,
}

/// The hex digits of a key, separators removed; an error for anything else (the text
/// goes inside a quoted tshark record or onto a command line).
fn key_hex(s: &str) -> Result<String, String> {
    let h: String = s.chars().filter(|c| *c != ':' && *c != '-').collect();
    if h.is_empty() || h.len() & 1 == 1 || !h.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("key {s:?} is not an even number of hex digits"));
    }
    Ok(h.to_ascii_lowercase())
}

/// Percent-encodes what Wireshark's `wpa-pwd` parser would otherwise split on or what a
/// uat string cannot hold: `:`, `%`, `"`, `\`, and every octet outside printable ASCII.
fn pct(s: &str) -> String {
    let mut o = String::new();
    for &b in s.as_bytes() {
        if b.is_ascii_graphic() && !b":%\"\\".contains(&b) || b == b' ' {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02x}"));
        }
    }
    o
}

/// The `80211_keys` uat record for one key: `"type","key"`.
pub fn tshark_uat_record(key: &PeerKey) -> Result<String, String> {
    Ok(match key {
        PeerKey::WpaPwd { ssid, passphrase } => format!("\"wpa-pwd\",\"{}:{}\"", pct(passphrase), pct(ssid)),
        PeerKey::Wep(k) => format!("\"wep\",\"{}\"", key_hex(k)?),
        PeerKey::Psk(k) => format!("\"wpa-psk\",\"{}\"", key_hex(k)?),
        PeerKey::Tk(k) => format!("\"tk\",\"{}\"", key_hex(k)?),
        PeerKey::Msk(k) => format!("\"msk\",\"{}\"", key_hex(k)?),
    })
}

static TMP_SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Result<TempDir, String> {
        let base = std::env::temp_dir();
        for _ in 0..100 {
            let n = TMP_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
            let p = base.join(format!("wsec-{tag}-{}-{n}-{t}", std::process::id()));
            if std::fs::create_dir(&p).is_ok() {
                return Ok(TempDir(p));
            }
        }
        Err(format!("cannot create a temporary directory in {}", base.display()))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<std::process::Output, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e} (install it: scripts/setup installs the Debian packages tshark and aircrack-ng)"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    Ok(out)
}

/// tshark's full dissection (`-V`) of `frames`, written as a classic pcap of link type
/// `linktype` (105: raw 802.11) in a temporary directory. Panics if tshark cannot be run.
pub fn tshark_dissect(frames: &[Vec<u8>], linktype: u32) -> String {
    let dir = TempDir::new("tshark-dissect").expect("temporary directory");
    let mut pcap = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65_535, linktype] {
        pcap.extend(v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        for v in [i as u32 + 1, 0, f.len() as u32, f.len() as u32] {
            pcap.extend(v.to_le_bytes());
        }
        pcap.extend_from_slice(f);
    }
    let path = dir.0.join("frames.pcap");
    std::fs::write(&path, &pcap).expect("write the pcap");
    let mut cmd = Command::new("tshark");
    cmd.env("WIRESHARK_CONFIG_DIR", &dir.0).arg("-n").arg("-r").arg(&path).arg("-V");
    let out = run(&mut cmd, "tshark").unwrap_or_else(|e| panic!("tshark -V: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One field per frame as tshark dissects it with `keys` (`-T fields -e FIELD`), by frame
/// number; empty fields are left out. Panics if tshark cannot be run.
pub fn tshark_field(capture: &Path, keys: &[PeerKey], field: &str) -> BTreeMap<u32, String> {
    let conf = TempDir::new("tshark-conf").expect("temporary directory");
    let mut cmd = Command::new("tshark");
    cmd.env("WIRESHARK_CONFIG_DIR", &conf.0).arg("-n").arg("-r").arg(capture);
    cmd.args(["-o", "wlan.enable_decryption:TRUE"]);
    for k in keys {
        cmd.arg("-o").arg(format!("uat:80211_keys:{}", tshark_uat_record(k).expect("key")));
    }
    cmd.args(["-T", "fields", "-e", "frame.number", "-e", field]);
    let out = run(&mut cmd, "tshark").unwrap_or_else(|e| panic!("tshark on {}: {e}", capture.display()));
    let mut m = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some((n, v)) = line.split_once('\t') {
            if !v.is_empty() {
                m.insert(n.parse().expect("frame number"), v.to_string());
            }
        }
    }
    m
}

/// Frames tshark decrypts in `capture` with `keys`. Panics if tshark cannot be run.
pub fn tshark_decrypted(capture: &Path, keys: &[PeerKey]) -> Vec<PeerFrame> {
    try_tshark_decrypted(capture, keys).unwrap_or_else(|e| panic!("tshark on {}: {e}", capture.display()))
}

pub fn try_tshark_decrypted(capture: &Path, keys: &[PeerKey]) -> Result<Vec<PeerFrame>, String> {
    let conf = TempDir::new("tshark-conf")?;
    let mut cmd = Command::new("tshark");
    cmd.env("WIRESHARK_CONFIG_DIR", &conf.0).arg("-n").arg("-r").arg(capture);
    cmd.args(["-o", "wlan.enable_decryption:TRUE"]);
    for k in keys {
        cmd.arg("-o").arg(format!("uat:80211_keys:{}", tshark_uat_record(k)?));
    }
    cmd.args(["-o", "gui.column.format:\"No.\",\"%m\"", "-P", "-x"]);
    // A file cut short in its last record (aircrack/pmkid-not-recognized.cap) makes tshark
    // exit with status 2 after printing every whole packet: those are kept.
    let out = match run(&mut cmd, "tshark") {
        Ok(out) => out.stdout,
        Err(e) if e.contains("cut short in the middle of a packet") => cmd.output().map_err(|e| e.to_string())?.stdout,
        Err(e) => return Err(e),
    };
    parse_tshark_hex(&String::from_utf8_lossy(&out))
}

/// One `-x` hex dump line: `OFFSET  xx xx ... xx   ascii`. Returns (offset, octets).
fn hex_line(line: &str) -> Option<(usize, Vec<u8>)> {
    let (off, rest) = line.split_once("  ")?;
    if off.len() < 4 || !off.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let off = usize::from_str_radix(off, 16).ok()?;
    let b = rest.as_bytes();
    let mut bytes = Vec::with_capacity(16);
    for i in 0..16 {
        let at = 3 * i;
        let (Some(&h), Some(&l)) = (b.get(at), b.get(at + 1)) else {
            break;
        };
        let sep_ok = b.get(at + 2).is_none_or(|&c| c == b' ');
        let digit = |c: u8| (c as char).to_digit(16);
        match (digit(h), digit(l)) {
            (Some(h), Some(l)) if sep_ok => bytes.push((h * 16 + l) as u8),
            _ => break,
        }
    }
    (!bytes.is_empty()).then_some((off, bytes))
}

/// Parses `tshark -P -x` output (summary = frame number) into the decrypted frames.
pub fn parse_tshark_hex(text: &str) -> Result<Vec<PeerFrame>, String> {
    struct Tab {
        label: Option<(String, usize)>,
        bytes: Vec<u8>,
    }
    let mut frames = Vec::new();
    let mut frame: Option<u32> = None;
    let mut tab: Option<Tab> = None;
    let close = |tab: &mut Option<Tab>, frame: Option<u32>, frames: &mut Vec<PeerFrame>| -> Result<(), String> {
        if let Some(t) = tab.take() {
            if let Some((label, n)) = t.label {
                if t.bytes.len() != n {
                    return Err(format!("frame {frame:?}: tab {label:?} announced {n} octets, has {}", t.bytes.len()));
                }
                let words: Vec<&str> = label.split(' ').collect();
                if words.len() == 3 && words[0] == "Decrypted" && words[2] == "data" {
                    frames.push(PeerFrame { frame_number: frame, payload: t.bytes });
                }
            }
        }
        Ok(())
    };
    for (no, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            close(&mut tab, frame, &mut frames)?;
        } else if trimmed.bytes().all(|c| c.is_ascii_digit()) {
            // The summary line: only the frame number column, right-aligned.
            close(&mut tab, frame, &mut frames)?;
            frame = Some(trimmed.parse().map_err(|_| format!("line {}: frame number {trimmed:?}", no + 1))?);
        } else if let Some(head) = line.strip_suffix(" bytes):") {
            close(&mut tab, frame, &mut frames)?;
            let (label, n) = head.rsplit_once(" (").ok_or_else(|| format!("line {}: label {line:?}", no + 1))?;
            let n = n.parse().map_err(|_| format!("line {}: label {line:?}", no + 1))?;
            tab = Some(Tab { label: Some((label.to_string(), n)), bytes: Vec::new() });
        } else if let Some((off, bytes)) = hex_line(line) {
            let t = tab.get_or_insert(Tab { label: None, bytes: Vec::new() });
            if off != t.bytes.len() {
                return Err(format!("line {}: offset {off:#x} after {} octets", no + 1, t.bytes.len()));
            }
            t.bytes.extend_from_slice(&bytes);
        } else {
            return Err(format!("line {}: unexpected tshark output {line:?}", no + 1));
        }
    }
    close(&mut tab, frame, &mut frames)?;
    Ok(frames)
}

/// Result of one airdecap-ng run.
#[derive(Debug, Clone, Default)]
pub struct AirdecapRun {
    /// Output records in order: (frame number, record) where the record is the plaintext
    /// MPDU (with `-l`) or the Ethernet frame (without).
    pub records: Vec<(Option<u32>, Vec<u8>)>,
    /// The statistics airdecap-ng prints, e.g. "Number of decrypted WPA packets" -> 25.
    pub stats: BTreeMap<String, u64>,
}

/// Frames airdecap-ng decrypts in `capture` with `key`, in output order.
pub fn airdecap_decrypted(capture: &Path, key: &PeerKey) -> Vec<PeerFrame> {
    airdecap_decrypted_bssid(capture, key, None)
}

/// Same, with airdecap-ng's `-b` BSSID filter (needed for WDS: airdecap-ng takes A2 as
/// the BSSID of 4-address frames and, without `-b`, decrypts only frames to the AP).
pub fn airdecap_decrypted_bssid(capture: &Path, key: &PeerKey, bssid: Option<&str>) -> Vec<PeerFrame> {
    let run = try_airdecap(capture, key, bssid, true).unwrap_or_else(|e| panic!("airdecap-ng on {}: {e}", capture.display()));
    run.records.into_iter().map(|(n, mpdu)| PeerFrame { frame_number: n, payload: mpdu[airdecap_header_len(&mpdu)..].to_vec() }).collect()
}

/// MAC header length as airdecap-ng computes it for the frames it writes.
fn airdecap_header_len(mpdu: &[u8]) -> usize {
    let ds = mpdu.get(1).map_or(0, |b| b & 3);
    let qos = mpdu.first().is_some_and(|b| b & 0xf0 == 0x80);
    ((if ds == 3 { 30 } else { 24 }) + if qos { 2 } else { 0 }).min(mpdu.len())
}

/// Runs airdecap-ng on a classic-pcap copy of `capture` whose time stamps are the frame
/// numbers; `keep_header` selects `-l` (802.11 output) rather than Ethernet output.
pub fn try_airdecap(capture: &Path, key: &PeerKey, bssid: Option<&str>, keep_header: bool) -> Result<AirdecapRun, String> {
    let dir = TempDir::new("airdecap")?;
    let input = dir.0.join("in.cap");
    let count = numbered_pcap_copy(capture, &input)?;
    let out_path = dir.0.join("out.cap");
    let mut cmd = Command::new("airdecap-ng");
    if keep_header {
        cmd.arg("-l");
    }
    if let Some(b) = bssid {
        cmd.arg("-b").arg(b);
    }
    match key {
        PeerKey::WpaPwd { ssid, passphrase } => {
            cmd.arg("-e").arg(ssid).arg("-p").arg(passphrase);
        }
        PeerKey::Psk(k) => {
            cmd.arg("-k").arg(key_hex(k)?);
        }
        PeerKey::Wep(k) => {
            cmd.arg("-w").arg(key_hex(k)?);
        }
        PeerKey::Tk(_) | PeerKey::Msk(_) => return Err("airdecap-ng takes no temporal key or MSK".into()),
    }
    cmd.arg("-o").arg(&out_path).arg("-c").arg(dir.0.join("bad.cap")).arg(&input);
    let out = run(&mut cmd, "airdecap-ng")?;
    let mut stats = BTreeMap::new();
    // "\x1b[2KTotal number of stations seen            2", ... (an ANSI erase-line first).
    for line in String::from_utf8_lossy(&out.stdout).replace("\x1b[2K", "").lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some((last, head)) = words.split_last() {
            if let (Ok(v), true) = (last.parse::<u64>(), head.len() >= 2) {
                stats.insert(head.join(" "), v);
            }
        }
    }
    let expect_lt = if keep_header { 105 } else { 1 };
    let mut records = Vec::new();
    for p in CaptureReader::open(&out_path).map_err(|e| format!("airdecap-ng output: {e}"))? {
        let p = p.map_err(|e| format!("airdecap-ng output: {e}"))?;
        if p.linktype != expect_lt {
            return Err(format!("airdecap-ng output of link type {}", p.linktype));
        }
        let secs = p.ts_ns / 1_000_000_000;
        let n = (p.ts_ns % 1_000_000_000 == 0 && secs >= 1 && secs <= count as u64).then_some(secs as u32);
        records.push((n, p.data));
    }
    Ok(AirdecapRun { records, stats })
}

/// Writes the packets of `capture` (any format `CaptureReader` reads) as a classic
/// microsecond pcap whose packet i (1-based) has time stamp i seconds. A capture cut
/// short in its last record is copied up to its last whole packet, as airdecap-ng reads
/// it. Returns the number of packets.
pub fn numbered_pcap_copy(capture: &Path, to: &Path) -> Result<u32, String> {
    let reader = CaptureReader::open(capture).map_err(|e| format!("{}: {e}", capture.display()))?;
    let file = std::fs::File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let mut w: Option<CaptureWriter<std::io::BufWriter<std::fs::File>>> = None;
    let mut file = Some(std::io::BufWriter::new(file));
    let mut n = 0u32;
    for p in reader.map_while(|p| p.ok()) {
        n += 1;
        if w.is_none() {
            if ![105, 119, 127, 192].contains(&p.linktype) {
                return Err(format!("airdecap-ng does not read link type {}", p.linktype));
            }
            w = Some(CaptureWriter::pcap(file.take().unwrap(), p.linktype, false).map_err(|e| e.to_string())?);
        }
        let pkt = Packet { linktype: p.linktype, ts_ns: n as u64 * 1_000_000_000, data: p.data };
        w.as_mut().unwrap().write(&pkt).map_err(|e| format!("{}: packet {n}: {e}", capture.display()))?;
    }
    match w {
        Some(w) => {
            w.finish().map_err(|e| e.to_string())?;
        }
        None => return Err(format!("{}: no packets", capture.display())),
    }
    Ok(n)
}

/// airdecap-ng's own output file for `capture` itself (no copy, no `-l`): for checks
/// against figures obtained by running it by hand.
pub fn airdecap_output_bytes(capture: &Path, key: &PeerKey, bssid: Option<&str>) -> Vec<u8> {
    let dir = TempDir::new("airdecap-raw").unwrap();
    let out_path = dir.0.join("out.cap");
    let mut cmd = Command::new("airdecap-ng");
    if let Some(b) = bssid {
        cmd.arg("-b").arg(b);
    }
    match key {
        PeerKey::WpaPwd { ssid, passphrase } => cmd.arg("-e").arg(ssid).arg("-p").arg(passphrase),
        PeerKey::Psk(k) => cmd.arg("-k").arg(k),
        PeerKey::Wep(k) => cmd.arg("-w").arg(k),
        PeerKey::Tk(_) | PeerKey::Msk(_) => panic!("airdecap-ng takes no temporal key or MSK"),
    };
    cmd.arg("-o").arg(&out_path).arg(capture);
    run(&mut cmd, "airdecap-ng").unwrap_or_else(|e| panic!("{e}"));
    std::fs::read(&out_path).unwrap()
}
