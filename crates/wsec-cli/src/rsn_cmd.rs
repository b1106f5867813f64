//! `wsec passphrase` (wpa_passphrase-compatible PSK from a passphrase, IEEE 802.11-2020
//! J.4.1) and `wsec ptk` (the 4-way handshake PTK and its split, 12.7.1.3).
//!
//! Both return what `main` prints on standard output, or `(exit code, message)`:
//! exit 2 for usage errors (a passphrase or SSID the standard refuses, from the command
//! line or standard input, or a line past its limit; wpa_passphrase exits 1 there), exit 1
//! when no passphrase could be read.
use clap::Args;
use std::io::{BufRead, Read, Write};
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::Akm;
use wsec::rsn::{kdf, pbkdf2};
use wsec::wire::MacAddr;

#[derive(Args)]
pub struct PassphraseArgs {
    /// SSID (0..32 octets)
    pub ssid: String,
    /// Passphrase: 8..63 printable ASCII characters. When omitted, one line is read from
    /// standard input (up to the first CR or LF; at most 4 KiB), which keeps it out of the
    /// process list
    pub passphrase: Option<String>,
}

#[derive(Args)]
pub struct PtkArgs {
    /// PMK in hex (32 octets; 48 for the SHA-384 AKMs). Visible in the process list: prefer --pmk-file
    #[arg(long, required_unless_present = "pmk_file")]
    pub pmk: Option<String>,
    /// Read the PMK (hex, one line) from this file, or '-' for standard input
    #[arg(long, conflicts_with = "pmk")]
    pub pmk_file: Option<std::path::PathBuf>,
    /// Authenticator address (aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or 12 hex digits)
    #[arg(long)]
    pub aa: MacAddr,
    /// Supplicant address (aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or 12 hex digits)
    #[arg(long)]
    pub spa: MacAddr,
    /// ANonce, 32 octets in hex
    #[arg(long, value_parser = parse_nonce)]
    pub anonce: [u8; 32],
    /// SNonce, 32 octets in hex
    #[arg(long, value_parser = parse_nonce)]
    pub snonce: [u8; 32],
    /// AKM: psk, psk-sha256, sae, sae-ext-key, owe, wpa-eap, wpa-eap-sha256,
    /// wpa-eap-suite-b, wpa-eap-suite-b-192
    #[arg(long, default_value = "psk", value_parser = parse_akm)]
    pub akm: Akm,
    /// Pairwise cipher: ccmp, ccmp-256, gcmp, gcmp-256, tkip
    #[arg(long, default_value = "ccmp", value_parser = parse_pairwise)]
    pub cipher: CipherSuite,
    /// Also derive a KDK of this many octets (IEEE 802.11az; 0..=64)
    #[arg(long, default_value_t = 0)]
    pub kdk_len: usize,
}

fn hex_clean(s: &str) -> String {
    s.chars().filter(|c| !(c.is_whitespace() || *c == ':' || *c == '-')).collect()
}

fn parse_nonce(s: &str) -> Result<[u8; 32], String> {
    let v = hex::decode(hex_clean(s)).map_err(|e| format!("not valid hex: {e}"))?;
    v.try_into().map_err(|v: Vec<u8>| format!("a nonce is 32 octets, got {}", v.len()))
}

fn parse_akm(s: &str) -> Result<Akm, String> {
    Akm::from_name(s).map_err(|_| {
        let names: Vec<&str> = Akm::ALL.iter().map(|a| a.name()).collect();
        format!("unknown AKM; one of {}", names.join(", "))
    })
}

/// The suites `wsec ptk --cipher` takes (a PTK's TK is for a pairwise cipher): the
/// standard pairwise suites of the suite table.
fn ptk_suite(c: CipherSuite) -> bool {
    c.is_pairwise() && c.is_standard()
}

fn parse_pairwise(s: &str) -> Result<CipherSuite, String> {
    match s.parse::<CipherSuite>() {
        Ok(c) if ptk_suite(c) => Ok(c),
        _ => {
            let names: Vec<&str> = CipherSuite::filtered(ptk_suite).map(|c| c.name()).collect();
            Err(format!("pairwise cipher is one of {}", names.join(", ")))
        }
    }
}

/// `wsec passphrase <ssid> [passphrase]`: the output of `wpa_passphrase`.
pub fn passphrase(a: PassphraseArgs) -> Result<String, (u8, String)> {
    let pass = match a.passphrase {
        Some(p) => p.into_bytes(),
        None => {
            // wpa_passphrase announces this on standard output before reading.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "# reading passphrase from stdin");
            let _ = out.flush();
            // At most one line of limits::SECRET octets: an endless stream without a line end
            // (/dev/zero) fails at the limit instead of growing without bound.
            let mut line = zeroize::Zeroizing::new(Vec::new());
            let limit = wsec::input::limits::SECRET;
            match std::io::stdin().lock().take(limit as u64 + 1).read_until(b'\n', &mut line) {
                Ok(n) if n > limit => return Err((2, format!("Failed to read passphrase: longer than the limit of {limit} octets"))),
                Ok(n) if n > 0 => {}
                _ => return Err((1, "Failed to read passphrase".into())),
            }
            if let Some(end) = line.iter().position(|&c| c == b'\r' || c == b'\n') {
                line.truncate(end);
            }
            line.to_vec()
        }
    };
    if !(8..=63).contains(&pass.len()) {
        return Err((2, "Passphrase must be 8..63 characters".into()));
    }
    if pass.iter().any(|&c| !(32..=126).contains(&c)) {
        return Err((2, "Invalid passphrase character".into()));
    }
    if a.ssid.len() > pbkdf2::MAX_SSID_LEN {
        return Err((2, format!("SSID must be 0..32 octets, got {}", a.ssid.len())));
    }
    let psk = pbkdf2::psk_from_passphrase(&pass, a.ssid.as_bytes()).map_err(|e| (1, e.to_string()))?;
    // `pass` is printable ASCII, checked above.
    let pass = String::from_utf8_lossy(&pass);
    Ok(format!("network={{\n\tssid=\"{}\"\n\t#psk=\"{}\"\n\tpsk={}\n}}", a.ssid, pass, hex::encode(psk)))
}

/// `wsec ptk ...`: lines `KCK <hex>`, `KEK <hex>`, `TK <hex>` and, with `--kdk-len`, `KDK <hex>`.
pub fn ptk(a: PtkArgs) -> Result<String, (u8, String)> {
    crate::inputs_exist(a.pmk_file.as_deref())?;
    let text = match (&a.pmk, &a.pmk_file) {
        (Some(p), _) => zeroize::Zeroizing::new(p.clone()),
        (None, Some(f)) => crate::read_secret(f, "--pmk-file").map_err(|e| (2, e))?,
        (None, None) => return Err((2, "give --pmk or --pmk-file".into())),
    };
    let pmk = zeroize::Zeroizing::new(hex::decode(hex_clean(&text)).map_err(|e| (2, format!("--pmk is not valid hex: {e}")))?);
    let ptk =
        kdf::derive_ptk(a.akm, &pmk, a.aa.as_bytes(), a.spa.as_bytes(), &a.anonce, &a.snonce, a.cipher, a.kdk_len).map_err(
            |e| match e {
                wsec::Error::BadKeyLength => (2, format!("--pmk must be {} octets for {}, got {}", a.akm.pmk_len(), a.akm, pmk.len())),
                e => (2, e.to_string()),
            },
        )?;
    let mut s = format!("KCK {}\nKEK {}\nTK {}", hex::encode(ptk.kck()), hex::encode(ptk.kek()), hex::encode(ptk.tk()));
    if a.kdk_len > 0 {
        s.push_str(&format!("\nKDK {}", hex::encode(ptk.kdk())));
    }
    Ok(s)
}
