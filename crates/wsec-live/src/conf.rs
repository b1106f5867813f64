//! Configuration files in the style of hostapd.conf (`wsec ap`) and wpa_supplicant.conf
//! (`wsec sta`, one `network={...}` block), plus wsec's own keys (`crypto_offload`,
//! `eccmp_lanes`, `engine_threads`, `card_ns_per_frame`, `card_ns_per_byte`, `medium`), with management
//! frame protection (`ieee80211w`, `group_mgmt_cipher`, the STA's global `pmf`). Every unknown key
//! and every invalid value is an error naming its line; see `docs/live.md` for the keys.
//!
//! Lines and comments follow the program each file belongs to:
//! - AP (hostapd, `hostapd/config_file.c`, `hostapd_config_read`): a line whose first
//!   character is `#` is a comment; any other line is `key=value`, split at the first `=`,
//!   and the value runs to the end of the line: a `#` later in the line is part of the value
//!   (`wpa_passphrase=abc # x` is the passphrase `abc # x`, as hostapd reads it). wsec also
//!   skips blank lines and ignores white space around the key; the value is taken verbatim.
//! - STA (wpa_supplicant, `wpa_supplicant/config_file.c`, `wpa_config_get_line`): leading
//!   white space is skipped, a line then starting with `#` is a comment, a `#` after the last
//!   double-quoted string starts a comment, trailing white space is removed.
//!
//! Every number is decimal digits only and range-checked (hostapd's ranges where hostapd
//! has them); an error names the line, never quotes a line that may hold a secret.
use wsec::cipher::{CipherSuite, DefaultList};
use wsec::node::ap::ApConfig;
use wsec::node::card::{Offload, CARD_NS_PER_BYTE, CARD_NS_PER_FRAME};
use wsec::node::mfp::Mfp;
use wsec::node::sae::{SaePassword, SaeSettings};
use wsec::node::sta::StaConfig;
use wsec::node::{AuthAlgs, Security};
use wsec::rsn::akm::Akm;
use wsec::rsn::pbkdf2::psk_from_passphrase;
use wsec::rsn::sae::{Group, PweMethod};
use wsec::wire::mac::MacAddr;
use zeroize::Zeroizing;

/// A configuration error: the line (1-based; 0 for the file as a whole) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfError {
    pub line: usize,
    pub msg: String,
}

impl core::fmt::Display for ConfError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.msg)
        } else {
            write!(f, "line {}: {}", self.line, self.msg)
        }
    }
}

impl std::error::Error for ConfError {}

fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, ConfError> {
    Err(ConfError { line, msg: msg.into() })
}

/// What `wsec ap -c` reads.
#[derive(Debug, Clone)]
pub struct ApFile {
    /// The wired-side TAP interface to create (with `driver=nl80211`, `interface=` names
    /// the radio as in hostapd and this is `wired_interface=`).
    pub interface: String,
    /// hostapd's `bridge=`: the bridge the wired side joins.
    pub bridge: Option<String>,
    /// No `bssid=` with `driver=nl80211`: the BSSID is the radio's own address, which the
    /// runtime reads before it takes the radio over.
    pub address_from_radio: bool,
    /// The medium: `air:HOST:PORT` or `packet:IFNAME` (wsec's own key).
    pub medium: Option<String>,
    /// `ctrl_interface` (a directory; wpa_supplicant's `DIR=... GROUP=...` form is kept
    /// as written) and `ctrl_interface_group`: where the control socket goes.
    pub ctrl_interface: Option<String>,
    pub ctrl_interface_group: Option<String>,
    pub ap: ApConfig,
    /// `crypto_offload=fpga-sim`: the engine configuration and its options.
    pub fpga: Option<crate::fpga::FpgaOptions>,
    /// The RadSec servers (`auth_server_type=TLS`, `acct_server_type=TLS`) and their TLS
    /// files, which the runtime reads at start.
    pub radsec: Vec<RadsecServer>,
    /// The further BSSs on the same radio (`bss=` sections), each with its own wired-side
    /// interface, control socket, SSID and security; empty for one BSS.
    pub bss: Vec<ApFile>,
    /// `tap_offload` (wsec's own, default 1): the wired side's TAP with IFF_VNET_HDR and
    /// checksum/segmentation offloads (`medium::vnet`); 0: one plain frame per call.
    pub tap_offload: bool,
    /// A `bss=` section's own interface on the radio (driver=nl80211): the name of the
    /// active monitor that acknowledges frames to its BSSID (`mon.<interface>` otherwise).
    pub vif: Option<String>,
}

/// One RADIUS server over TLS (hostapd's `*_server_type=TLS` with `*_server_ca_cert`,
/// `*_server_client_cert`, `*_server_private_key`; `*_server_domain_match` is wsec's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RadsecServer {
    pub kind: wsec::radius::Kind,
    pub addr: std::net::SocketAddr,
    pub ca_cert: String,
    pub client_cert: String,
    pub private_key: String,
    /// The name the server's certificate must carry (else its address).
    pub domain_match: Option<String>,
}

impl RadsecServer {
    /// The files read and the TLS configuration made (a start-up error if unusable).
    pub fn load(&self) -> Result<crate::radsec::Target, String> {
        use wsec::eap::tls::{certs_from_pem, key_from_pem};
        let read = |what: &str, p: &str| std::fs::read(p).map_err(|e| format!("{what} {p}: {e}"));
        let tls = wsec::radius::tls::RadsecTls {
            ca_certs: certs_from_pem(&read("ca_cert", &self.ca_cert)?).map_err(|e| format!("ca_cert {}: {e}", self.ca_cert))?,
            client_chain: certs_from_pem(&read("client_cert", &self.client_cert)?)
                .map_err(|e| format!("client_cert {}: {e}", self.client_cert))?,
            client_key: std::sync::Arc::new(
                key_from_pem(&read("private_key", &self.private_key)?).map_err(|e| format!("private_key {}: {e}", self.private_key))?,
            ),
        };
        crate::radsec::Target::new(&tls, self.domain_match.as_deref(), self.addr).map_err(|e| e.to_string())
    }
}

/// What `wsec sta -c` reads.
#[derive(Debug, Clone)]
pub struct StaFile {
    pub interface: String,
    pub medium: Option<String>,
    /// The channels to look for the network on (`scan_freq=` / `frequency=` in MHz, as
    /// wpa_supplicant spells them); empty: every 2.4 GHz channel in turn on a radio.
    pub scan_channels: Vec<u8>,
    /// No `addr=` with `driver=nl80211`: the station's address is the radio's own.
    pub address_from_radio: bool,
    /// As [`ApFile::ctrl_interface`].
    pub ctrl_interface: Option<String>,
    pub ctrl_interface_group: Option<String>,
    pub sta: StaConfig,
    /// The network block's EAP settings (`key_mgmt=WPA-EAP...`), with the file names the
    /// runtime reads ([`EapFile::load`]) into `sta.eap`.
    pub eap: Option<EapFile>,
    /// wpa_supplicant `bgscan="simple:<short s>:<signal threshold dBm>:<long s>"`: the
    /// station looks for a better BSS of its network and roams to it by itself.
    pub bgscan: Option<Bgscan>,
    /// As [`ApFile::tap_offload`].
    pub tap_offload: bool,
}

/// wpa_supplicant's `bgscan` module `simple`: how often to look (short below the
/// threshold, long above it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bgscan {
    pub short_s: u64,
    pub threshold_dbm: i8,
    pub long_s: u64,
}

impl Bgscan {
    /// `simple:<short>:<threshold>:<long>` (wpa_supplicant bgscan_simple.c: short 30,
    /// threshold 0 and long 300 when left out).
    fn parse(line: usize, v: &str) -> Result<Bgscan, ConfError> {
        let v = unquote(v).unwrap_or(v);
        let mut f = v.split(':');
        if f.next() != Some("simple") {
            return err(line, "bgscan: only the \"simple\" module is supported (bgscan=\"simple:30:-70:300\")");
        }
        let num = |x: Option<&str>, d: i64| -> Result<i64, ConfError> {
            match x {
                None | Some("") => Ok(d),
                Some(t) => t.parse::<i64>().map_err(|_| ConfError { line, msg: format!("bgscan: {t} is not a number") }),
            }
        };
        let (short, threshold, long) = (num(f.next(), 30)?, num(f.next(), 0)?, num(f.next(), 300)?);
        if !(1..=3600).contains(&short) || !(1..=86_400).contains(&long) || !(-120..=0).contains(&threshold) {
            return err(line, "bgscan: intervals 1-3600 and 1-86400 s, threshold -120..0 dBm");
        }
        Ok(Bgscan { short_s: short as u64, threshold_dbm: threshold as i8, long_s: long as u64 })
    }
}

/// One `auth_server_addr` / `acct_server_addr` and what followed it.
struct RadiusServerLine {
    line: usize,
    ip: std::net::IpAddr,
    port: Option<u16>,
    secret: Option<Zeroizing<Vec<u8>>>,
    /// `*_server_type=TLS` (RadSec) and its files.
    tls: bool,
    ca_cert: Option<String>,
    client_cert: Option<String>,
    private_key: Option<String>,
    domain_match: Option<String>,
}

/// wpa_supplicant's EAP keys of a network block.
#[derive(Clone, Default)]
pub struct EapFile {
    pub identity: Vec<u8>,
    pub anonymous_identity: Option<Vec<u8>>,
    pub ca_cert: Option<String>,
    pub client_cert: Option<String>,
    pub private_key: Option<String>,
    pub domain_match: Option<String>,
    pub domain_suffix_match: Option<String>,
    /// `phase1="tls_disable_tlsv1_3=1"` / `"tls_disable_tlsv1_2=1"`.
    pub versions: wsec::eap::tls::TlsVersions,
    pub fragment_size: usize,
    /// `eap=TLS`, `eap=TTLS` or `eap=PEAP`.
    pub method: EapKind,
    /// `phase2="auth=PAP"` / `"auth=MSCHAPV2"` (TTLS; PEAP takes MSCHAPV2 only).
    pub phase2: Option<wsec::eap::TtlsInner>,
    /// `password="..."`, or `password=hash:<32 hex>` (the NtPasswordHash, MS-CHAPv2 only).
    pub password: Option<Zeroizing<Vec<u8>>>,
    /// `ocsp=0|1|2`: the server certificate's stapled OCSP status.
    pub ocsp: wsec::eap::ocsp::OcspPolicy,
    /// `password` was the unquoted `hash:<32 hex>` (a quoted "hash:..." is a password).
    pub password_is_hash: bool,
    /// `phase1="tls_disable_tlsv1_3=0"`: TLS 1.3 asked for (PEAP runs TLS 1.2 otherwise).
    pub tls13_asked: bool,
    /// `phase1="crypto_binding=0|1|2"` (PEAP).
    pub crypto_binding: wsec::eap::CryptoBinding,
}

/// The EAP method of a network block (`eap=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EapKind {
    #[default]
    Tls,
    Ttls,
    Peap,
}

impl core::fmt::Debug for EapFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "EapFile {{ identity: {:?}, ca_cert: {:?} }}", String::from_utf8_lossy(&self.identity), self.ca_cert)
    }
}

impl EapFile {
    /// The EAP peer's configuration, its certificate and key files read (each at most
    /// 1 MiB). Errors name the file, never its contents.
    pub fn load(&self) -> Result<wsec::eap::PeerConfig, String> {
        use wsec::eap::tls;
        let read = |what: &str, p: &str| -> Result<zeroize::Zeroizing<Vec<u8>>, String> {
            let f = std::fs::File::open(p).map_err(|e| format!("{what} {p}: {e}"))?;
            wsec::input::read_limited(f, 1 << 20).map_err(|e| format!("{what} {p}: {e}"))
        };
        let ca_certs = match &self.ca_cert {
            Some(p) => tls::certs_from_pem(&read("ca_cert", p)?).map_err(|e| format!("ca_cert {p}: {e}"))?,
            None => Vec::new(),
        };
        let client_cert = match (&self.client_cert, &self.private_key) {
            (Some(c), Some(k)) => Some((
                tls::certs_from_pem(&read("client_cert", c)?).map_err(|e| format!("client_cert {c}: {e}"))?,
                std::sync::Arc::new(tls::key_from_pem(&read("private_key", k)?).map_err(|e| format!("private_key {k}: {e}"))?),
            )),
            (None, None) => None,
            _ => return Err("client_cert and private_key go together".into()),
        };
        let t = tls::TlsConfig {
            ca_certs,
            domain_match: self.domain_match.clone(),
            domain_suffix_match: self.domain_suffix_match.clone(),
            client_cert,
            versions: self.versions,
            fragment_size: self.fragment_size,
            ocsp: self.ocsp,
            ..Default::default()
        };
        use wsec::eap::{MethodConfig, Password, TtlsInner};
        let password = || -> Result<Password, String> {
            let p = self.password.as_ref().ok_or("this EAP method needs password")?;
            if self.password_is_hash {
                Password::from_config(p).map_err(|e| format!("password: {e}"))
            } else {
                Ok(Password::Clear(p.clone()))
            }
        };
        let method = match self.method {
            EapKind::Tls => MethodConfig::Tls(t),
            EapKind::Ttls => {
                let inner = self.phase2.unwrap_or(TtlsInner::Pap);
                let password = password()?;
                if inner == TtlsInner::Pap && password.clear().is_none() {
                    return Err("password=hash:... works with MSCHAPV2 only (PAP sends the password itself)".into());
                }
                MethodConfig::Ttls { tls: t, inner, password }
            }
            EapKind::Peap => MethodConfig::Peap {
                tls: t,
                password: password()?,
                crypto_binding: self.crypto_binding,
                allow_tls13: self.tls13_asked || self.versions == wsec::eap::tls::TlsVersions::Tls13,
            },
        };
        Ok(wsec::eap::PeerConfig { identity: self.identity.clone(), anonymous_identity: self.anonymous_identity.clone(), method })
    }
}

/// Channel number of a frequency (IEEE 802.11-2020 15.4.4.3, 17.3.8.4.2, 19.3.15.4).
pub fn freq_channel(mhz: u32) -> Option<u8> {
    match mhz {
        2412..=2472 if (mhz - 2407).is_multiple_of(5) => Some(((mhz - 2407) / 5) as u8),
        2484 => Some(14),
        5160..=5885 if mhz.is_multiple_of(5) => Some(((mhz - 5000) / 5) as u8),
        _ => None,
    }
}

fn unquote(v: &str) -> Option<&str> {
    v.strip_prefix('"').and_then(|s| s.strip_suffix('"'))
}

/// SSID: `"text"` (wpa_supplicant) or bare text (hostapd), 1-32 octets.
fn parse_ssid(line: usize, v: &str) -> Result<Vec<u8>, ConfError> {
    let s = unquote(v).unwrap_or(v).as_bytes().to_vec();
    if s.is_empty() || s.len() > 32 {
        return err(line, "ssid must be 1 to 32 octets");
    }
    Ok(s)
}

/// WEP key: 10 or 26 hex digits, or a quoted 5- or 13-character string (hostapd).
fn parse_wep(line: usize, v: &str) -> Result<Zeroizing<Vec<u8>>, ConfError> {
    let k = match unquote(v) {
        Some(s) => s.as_bytes().to_vec(),
        None => match hex_decode(v) {
            Some(k) => k,
            None => return err(line, "WEP key must be hex or a quoted string"),
        },
    };
    if k.len() != 5 && k.len() != 13 {
        return err(line, "WEP key must be 5 or 13 octets (WEP-40 or WEP-104)");
    }
    Ok(Zeroizing::new(k))
}

/// Hex digits only: no sign (`u8::from_str_radix` takes "+f"), no separators.
fn hex_decode(s: &str) -> Option<Vec<u8>> {
    wsec::input::hex_decode(s)
}

/// A number in `lo..=hi`: decimal digits only (no sign, no white space), the error naming
/// the key and the range.
fn ranged(line: usize, key: &str, v: &str, lo: u64, hi: u64) -> Result<u64, ConfError> {
    let hint = if v.contains('#') { " ('#' starts a comment only at the start of a line)" } else { "" };
    if v.is_empty() || !v.bytes().all(|c| c.is_ascii_digit()) {
        let shown = if v.len() <= 24 { format!(": {v:?}") } else { String::new() };
        return err(line, format!("{key}: not a decimal number{shown}{hint}"));
    }
    match v.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => err(line, format!("{key} must be {lo} to {hi}{hint}")),
    }
}

/// [`ranged`] into a smaller integer type (the range fits it).
fn num<T: TryFrom<u64>>(line: usize, key: &str, v: &str, lo: u64, hi: u64) -> Result<T, ConfError> {
    let n = ranged(line, key, v, lo, hi)?;
    T::try_from(n).map_err(|_| ConfError { line, msg: format!("{key} must be {lo} to {hi}") })
}

/// hostapd reads these with `atoi` into a C `int`: 0 to 2^31 - 1 (seconds).
const HOSTAPD_INT_MAX: u64 = i32::MAX as u64;
/// hostapd's `MAX_STA_COUNT` (`src/ap/ap_config.h`), the range of `max_num_sta`.
const MAX_STA_COUNT: u64 = 2007;
/// wsec's card model: at most 1 s per frame and 1 ms per octet.
const CARD_NS_PER_FRAME_MAX: u64 = 1_000_000_000;
const CARD_NS_PER_BYTE_MAX: u64 = 1_000_000;

/// A key name as it may appear in an error: a configuration key's shape, or nothing (a
/// line without `=` or with a strange key may be a secret pasted on the wrong line).
fn shown_key(k: &str) -> String {
    if !k.is_empty() && k.len() <= 32 && k.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_') {
        format!(" {k}")
    } else {
        " (not shown)".into()
    }
}

/// The TAP device's name (`interface`): 1 to 15 octets (IFNAMSIZ - 1), no white space,
/// `/` or `:` (Linux `dev_valid_name`).
fn parse_ifname(line: usize, v: &str) -> Result<String, ConfError> {
    if v.is_empty()
        || v.len() > 15
        || v == "."
        || v == ".."
        || v.bytes().any(|c| c.is_ascii_whitespace() || c == b'/' || c == b':' || c == 0)
    {
        return err(line, "interface must be 1 to 15 characters without white space, '/' or ':'");
    }
    Ok(v.to_string())
}

/// `driver=`, `interface=`, `wired_interface=` and `medium=` resolved into the TAP's name
/// and the medium. With `driver=nl80211` (as hostapd spells a Linux 802.11 radio),
/// `interface=` names the radio, the medium is `radio:<interface>`, and the wired-side TAP
/// is `wired_interface=` (default `wsec-<interface>`, cut to 15 characters). Otherwise
/// (`driver=wsec`, the default) `interface=` names the TAP and `medium=` the medium.
fn resolve_driver(
    driver: Option<(usize, String)>,
    interface: Option<String>,
    wired: Option<(usize, String)>,
    medium: Option<(usize, String)>,
) -> Result<(String, Option<String>), ConfError> {
    let iface = interface.ok_or(ConfError { line: 0, msg: "interface is required".into() })?;
    match driver {
        Some((n, d)) if d == "nl80211" => {
            if let Some((m, _)) = medium {
                return err(m, format!("medium: driver=nl80211 (line {n}) takes the radio from interface=; leave medium= out"));
            }
            let tap = match wired {
                Some((_, w)) => w,
                None => format!("wsec-{iface}").chars().take(15).collect(),
            };
            if tap == iface {
                return err(0, "wired_interface must differ from the radio's interface");
            }
            Ok((tap, Some(format!("radio:{iface}"))))
        }
        Some((n, d)) if d != "wsec" => err(n, "driver must be nl80211 (a Linux 802.11 radio) or wsec (medium= names the medium)"),
        _ => {
            if let Some((n, _)) = wired {
                return err(n, "wired_interface needs driver=nl80211");
            }
            Ok((iface, medium.map(|(_, m)| m)))
        }
    }
}

/// A hostapd cipher list (`wpa_pairwise`, `rsn_pairwise`, `group_cipher`; the STA's
/// `pairwise`, `group`): the data suites of the suite table under their hostapd names.
fn ciphers(line: usize, v: &str) -> Result<Vec<CipherSuite>, ConfError> {
    let data = |c: CipherSuite| c.is_pairwise() || c.is_group();
    let mut out = Vec::new();
    for w in v.split_whitespace() {
        match CipherSuite::from_hostapd_conf(w).filter(|&c| data(c)) {
            Some(c) => out.push(c),
            None => return err(line, format!("unknown cipher {w} ({})", hostapd_names(data))),
        }
    }
    if out.is_empty() {
        return err(line, "empty cipher list");
    }
    Ok(out)
}

/// The hostapd names of the suites `keep` selects, for an error message.
fn hostapd_names(keep: impl Fn(CipherSuite) -> bool) -> String {
    CipherSuite::filtered(keep).map(|c| c.hostapd_conf_name()).collect::<Vec<_>>().join(", ")
}

fn akms(line: usize, v: &str) -> Result<Vec<Akm>, ConfError> {
    let mut out = Vec::new();
    for w in v.split_whitespace() {
        out.push(match w {
            "WPA-PSK" => Akm::Psk,
            "WPA-PSK-SHA256" => Akm::PskSha256,
            "SAE" => Akm::Sae,
            "FT-PSK" => Akm::FtPsk,
            "FT-SAE" => Akm::FtSae,
            "FT-EAP" => Akm::FtIeee8021x,
            "FT-EAP-SHA384" => Akm::FtIeee8021xSha384,
            "OWE" => Akm::Owe,
            "WPA-EAP" => Akm::Ieee8021x,
            "WPA-EAP-SHA256" => Akm::Ieee8021xSha256,
            "WPA-EAP-SUITE-B" => Akm::SuiteB,
            "WPA-EAP-SUITE-B-192" => Akm::SuiteB192,
            _ => {
                return err(
                    line,
                    format!("unsupported key management {w} (WPA-PSK, WPA-PSK-SHA256, SAE, FT-PSK, FT-SAE, FT-EAP, FT-EAP-SHA384, OWE, WPA-EAP, WPA-EAP-SHA256, WPA-EAP-SUITE-B, WPA-EAP-SUITE-B-192)"),
                )
            }
        });
    }
    if out.is_empty() {
        return err(line, "empty key management list");
    }
    Ok(out)
}

/// `ieee80211w` / `pmf`: 0 (disabled), 1 (optional), 2 (required).
fn parse_mfp(line: usize, k: &str, v: &str) -> Result<Mfp, ConfError> {
    let w: u8 = num(line, k, v, 0, 2)?;
    Mfp::from_setting(w).ok_or(ConfError { line, msg: format!("{k} must be 0 (disabled), 1 (optional) or 2 (required)") })
}

/// hostapd's `group_mgmt_cipher` names (12.5.4, 12.5.6): the group management suites of
/// the suite table.
fn parse_group_mgmt(line: usize, v: &str) -> Result<CipherSuite, ConfError> {
    match CipherSuite::from_hostapd_conf(v).filter(|c| c.is_bip()) {
        Some(c) => Ok(c),
        None => err(line, format!("unknown group_mgmt_cipher {v} ({})", hostapd_names(CipherSuite::is_bip))),
    }
}

/// Settings both files share, collected before the security mode is decided.
#[derive(Default)]
struct Common {
    ssid: Option<Vec<u8>>,
    wpa: Option<u8>,
    key_mgmt: Option<Vec<Akm>>,
    /// `rsn_pairwise` (AP) / `pairwise` (STA).
    pairwise: Option<Vec<CipherSuite>>,
    /// hostapd `wpa_pairwise`: WPA1's pairwise ciphers, and RSN's when `rsn_pairwise` is
    /// not set.
    wpa_pairwise: Option<(usize, Vec<CipherSuite>)>,
    group: Option<Vec<CipherSuite>>,
    passphrase: Option<(usize, Zeroizing<String>)>,
    psk: Option<Zeroizing<Vec<u8>>>,
    wep: [Option<Zeroizing<Vec<u8>>>; 4],
    wep_default: u8,
    auth_algs: Option<AuthAlgs>,
    offload: Option<String>,
    /// `hw_config`, `fpga_check`, `hw_engine_dir` (crypto_offload=fpga-sim).
    hw_config: Option<String>,
    fpga_check: bool,
    hw_engine_dir: Option<String>,
    card_ns_per_frame: Option<u64>,
    card_ns_per_byte: Option<u64>,
    eccmp_lanes: u8,
    engine_threads: Option<usize>,
    /// `tap_offload`.
    tap_offload: Option<bool>,
    /// `ieee80211w` and its line.
    mfp: Option<(usize, Mfp)>,
    /// `sae_password` lines (hostapd: several, `|mac=` / `|id=`), `sae_password_id` (STA).
    sae_passwords: Vec<SaePassword>,
    sae_password_id: Option<Vec<u8>>,
    sae_groups: Option<Vec<Group>>,
    sae_pwe: Option<PweMethod>,
    sae_anti_clogging: Option<usize>,
    sae_sync: Option<u16>,
}

/// hostapd `owe_groups` (a space-separated list) or wpa_supplicant `owe_group` (one number;
/// 0 there: every group in turn): the OWE Diffie-Hellman groups 19, 20, 21 (RFC 8110 4.3).
fn parse_owe_groups(line: usize, k: &str, v: &str, zero_ok: bool) -> Result<Vec<u16>, ConfError> {
    let mut out = Vec::new();
    for w in v.split_whitespace() {
        let g: u16 = num(line, k, w, 0, 65535)?;
        if !(matches!(g, 19..=21) || (zero_ok && g == 0)) {
            return err(line, format!("{k}: unsupported OWE group {g} (19, 20, 21)"));
        }
        out.push(g);
    }
    if out.is_empty() {
        return err(line, format!("{k} names no group (19, 20, 21)"));
    }
    Ok(out)
}

/// hostapd's `sae_password` value: `password[|mac=<addr>][|id=<identifier>][|vlanid=..][|pk=..]`
/// (`parse_sae_password`: the password ends at the first parameter); a STA's is quoted.
fn parse_sae_password(line: usize, v: &str) -> Result<SaePassword, ConfError> {
    if let Some(p) = unquote(v) {
        if p.is_empty() {
            return err(line, "sae_password must not be empty");
        }
        return Ok(SaePassword { password: Zeroizing::new(p.as_bytes().to_vec()), identifier: None, mac: None });
    }
    let cut = ["|mac=", "|id=", "|vlanid=", "|pk="].iter().filter_map(|m| v.find(m)).min().unwrap_or(v.len());
    let (pw, params) = v.split_at(cut);
    if pw.is_empty() {
        return err(line, "sae_password must not be empty");
    }
    let mut out = SaePassword { password: Zeroizing::new(pw.as_bytes().to_vec()), identifier: None, mac: None };
    for p in params.split('|').skip(1) {
        match p.split_once('=') {
            Some(("mac", a)) => {
                let a = a.parse::<MacAddr>().map_err(|_| ConfError { line, msg: "sae_password: mac= must be aa:bb:cc:dd:ee:ff".into() })?;
                // hostapd: ff:ff:ff:ff:ff:ff is "any station".
                out.mac = (!a.is_broadcast()).then_some(a);
            }
            Some(("id", id)) if !id.is_empty() && id.len() <= 255 => out.identifier = Some(id.as_bytes().to_vec()),
            Some(("vlanid" | "pk", _)) => return err(line, "sae_password: vlanid= and pk= (SAE-PK) are not supported"),
            _ => return err(line, "sae_password: parameters are |mac=, |id="),
        }
    }
    Ok(out)
}

impl Common {
    /// Handles a key both files know; Ok(false) if the key is not one of them.
    fn set(&mut self, line: usize, k: &str, v: &str) -> Result<bool, ConfError> {
        match k {
            "ssid" => self.ssid = Some(parse_ssid(line, v)?),
            // hostapd's wpa_key_mgmt has no NONE (hostapd_config_parse_key_mgmt: "invalid
            // key_mgmt"): an open or WEP AP is wpa=0. wpa_supplicant's key_mgmt=NONE is a
            // network without WPA.
            "wpa_key_mgmt" if v.split_whitespace().any(|w| w == "NONE") => {
                return err(line, "wpa_key_mgmt has no NONE (hostapd); for an open or WEP network set wpa=0");
            }
            "wpa_key_mgmt" | "key_mgmt" => {
                if v == "NONE" {
                    self.key_mgmt = Some(vec![]);
                } else {
                    self.key_mgmt = Some(akms(line, v)?)
                }
            }
            "wpa_pairwise" => self.wpa_pairwise = Some((line, ciphers(line, v)?)),
            "rsn_pairwise" | "pairwise" => self.pairwise = Some(ciphers(line, v)?),
            "group_cipher" | "group" => self.group = Some(ciphers(line, v)?),
            "wpa_passphrase" => {
                let p = unquote(v).unwrap_or(v);
                if wsec::rsn::pbkdf2::check_passphrase(p.as_bytes()).is_err() {
                    return err(line, "passphrase must be 8 to 63 printable ASCII characters");
                }
                self.passphrase = Some((line, Zeroizing::new(p.to_string())));
            }
            "psk" | "wpa_psk" => {
                if let Some(p) = unquote(v) {
                    if wsec::rsn::pbkdf2::check_passphrase(p.as_bytes()).is_err() {
                        return err(line, "passphrase must be 8 to 63 printable ASCII characters");
                    }
                    self.passphrase = Some((line, Zeroizing::new(p.to_string())));
                } else {
                    match hex_decode(v) {
                        Some(b) if b.len() == 32 => self.psk = Some(Zeroizing::new(b)),
                        _ => return err(line, "PSK must be 64 hex digits (or a quoted passphrase)"),
                    }
                }
            }
            "wep_key0" | "wep_key1" | "wep_key2" | "wep_key3" => {
                let i = (k.as_bytes()[7] - b'0') as usize;
                self.wep[i] = Some(parse_wep(line, v)?);
            }
            "wep_default_key" | "wep_tx_keyidx" => {
                self.wep_default = num(line, k, v, 0, 3)?;
            }
            "auth_algs" => {
                // hostapd refuses 0 ("no authentication algorithms allowed") and so an empty
                // value; bits 0 (open) and 1 (shared key) are the ones wsec implements.
                self.auth_algs = Some(AuthAlgs(num(line, "auth_algs (1 open, 2 shared key, 3 both)", v, 1, 3)?));
            }
            "auth_alg" => {
                let mut a = 0;
                for w in v.split_whitespace() {
                    a |= match w {
                        "OPEN" => 1,
                        "SHARED" => 2,
                        _ => return err(line, format!("unsupported auth_alg {w} (OPEN, SHARED)")),
                    };
                }
                // wpa_supplicant: "no auth_alg values configured".
                if a == 0 {
                    return err(line, "auth_alg names no algorithm (OPEN, SHARED)");
                }
                self.auth_algs = Some(AuthAlgs(a));
            }
            "ieee80211w" => self.mfp = Some((line, parse_mfp(line, k, v)?)),
            "sae_password" => self.sae_passwords.push(parse_sae_password(line, v)?),
            "sae_password_id" => {
                let id = unquote(v).unwrap_or(v);
                if id.is_empty() || id.len() > 255 {
                    return err(line, "sae_password_id must be 1 to 255 octets");
                }
                self.sae_password_id = Some(id.as_bytes().to_vec());
            }
            "sae_groups" => {
                let mut g = Vec::new();
                for w in v.split_whitespace() {
                    let id: u16 = num(line, k, w, 1, 65535)?;
                    g.push(Group::from_id(id).ok_or_else(|| ConfError { line, msg: format!("unsupported SAE group {id} (19, 20, 21)") })?);
                }
                if g.is_empty() {
                    return err(line, "sae_groups names no group (19, 20, 21)");
                }
                self.sae_groups = Some(g);
            }
            "sae_pwe" => {
                let m: u8 = num(line, "sae_pwe (0 hunting-and-pecking, 1 hash-to-element, 2 both)", v, 0, 2)?;
                self.sae_pwe = PweMethod::from_conf(m);
            }
            "sae_anti_clogging_threshold" | "anti_clogging_threshold" => {
                self.sae_anti_clogging = Some(num(line, k, v, 0, HOSTAPD_INT_MAX)?);
            }
            "sae_sync" => self.sae_sync = Some(num(line, k, v, 0, 255)?),
            "crypto_offload" => match v {
                "host" | "card" | "fpga-sim" => self.offload = Some(v.to_string()),
                _ => return err(line, "crypto_offload must be host, card or fpga-sim"),
            },
            "hw_config" => {
                if v.is_empty() || v.len() > 64 || !v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                    return err(line, "hw_config must name an engine configuration (hw/run configs), e.g. ccmp-k1-r1-kt-dec");
                }
                self.hw_config = Some(v.to_string());
            }
            "fpga_check" => self.fpga_check = num::<u8>(line, k, v, 0, 1)? == 1,
            "hw_engine_dir" => self.hw_engine_dir = Some(v.to_string()),
            "card_ns_per_frame" => self.card_ns_per_frame = Some(ranged(line, k, v, 0, CARD_NS_PER_FRAME_MAX)?),
            "card_ns_per_byte" => self.card_ns_per_byte = Some(ranged(line, k, v, 0, CARD_NS_PER_BYTE_MAX)?),
            "eccmp_lanes" => {
                // 1 (standard CCMP only) or the lane count of an ECCMP suite of the table.
                let l: u8 = num(line, k, v, 1, u8::MAX as u64)?;
                if l != 1 && CipherSuite::eccmp(l as usize).is_none() {
                    let lanes: Vec<String> = CipherSuite::filtered(|c| c.eccmp_lanes().is_some())
                        .filter_map(|c| c.eccmp_lanes())
                        .map(|n| n.to_string())
                        .collect();
                    return err(line, format!("eccmp_lanes must be 1 (off) or an ECCMP lane count: {}", lanes.join(", ")));
                }
                self.eccmp_lanes = l;
            }
            "tap_offload" => self.tap_offload = Some(num::<u8>(line, k, v, 0, 1)? == 1),
            "engine_threads" => {
                let t: usize = num(line, k, v, 0, 256).map_err(|e| ConfError { msg: format!("{} (0: one per core)", e.msg), ..e })?;
                self.engine_threads = Some(t);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The MFP policy (`default` when `ieee80211w` is not set) checked against the
    /// security mode: MFP needs an RSNA and, when used, a CCMP/GCMP pairwise cipher
    /// (12.6.3).
    fn mfp(&self, security: &Security, default: (usize, Mfp), is_ap: bool) -> Result<Mfp, ConfError> {
        let (line, m) = self.mfp.unwrap_or(default);
        if !m.capable() {
            return Ok(m);
        }
        match security {
            Security::Rsn { pairwise, .. } => {
                // A STA with ieee80211w=1 may fall back to TKIP without MFP; an AP offers MFP
                // to every station, so it needs a cipher MFP can run over.
                if (is_ap || m.required()) && pairwise.iter().all(|&c| c == CipherSuite::Tkip) {
                    return err(line, "ieee80211w needs a CCMP or GCMP pairwise cipher (MFP cannot use TKIP)");
                }
                Ok(m)
            }
            // A global `pmf` default does not apply to open/WEP networks (wpa_supplicant).
            _ if self.mfp.is_none() => Ok(Mfp::Disabled),
            _ => err(line, "ieee80211w=1/2 needs WPA2 (wpa=2 / key_mgmt=WPA-PSK)"),
        }
    }

    /// SAE settings when the AKMs include SAE: the `sae_password` lines, else the
    /// passphrase (hostapd and wpa_supplicant use `wpa_passphrase` / `psk` then).
    fn sae(&self, security: &Security) -> Result<Option<SaeSettings>, ConfError> {
        let Security::Rsn { akms, .. } = security else { return Ok(None) };
        if !akms.iter().any(|a| matches!(a, Akm::Sae | Akm::FtSae)) {
            return Ok(None);
        }
        let mut passwords = self.sae_passwords.clone();
        if passwords.is_empty() {
            if let Some((_, p)) = &self.passphrase {
                passwords.push(SaePassword { password: Zeroizing::new(p.as_bytes().to_vec()), identifier: None, mac: None });
            }
        }
        if passwords.is_empty() {
            return err(0, "SAE needs sae_password (or a passphrase)");
        }
        if let Some(id) = &self.sae_password_id {
            for p in &mut passwords {
                p.identifier = Some(id.clone());
            }
        }
        let mut s = SaeSettings::new(passwords);
        if let Some(g) = &self.sae_groups {
            s.groups = g.clone();
        }
        if let Some(p) = self.sae_pwe {
            s.pwe = p;
        }
        if let Some(t) = self.sae_anti_clogging {
            s.anti_clogging_threshold = t;
        }
        if let Some(n) = self.sae_sync {
            s.sync = n;
        }
        Ok(Some(s))
    }

    /// `crypto_offload=fpga-sim` with its `hw_config` (the timing is the engine's own: the
    /// host-side model is off).
    fn fpga(&self) -> Result<Option<crate::fpga::FpgaOptions>, ConfError> {
        match (self.offload.as_deref(), &self.hw_config) {
            (Some("fpga-sim"), Some(c)) => Ok(Some(crate::fpga::FpgaOptions {
                config: c.clone(),
                check: self.fpga_check,
                dir: self.hw_engine_dir.as_ref().map(std::path::PathBuf::from),
                vec_dir: std::path::PathBuf::from("."),
            })),
            (Some("fpga-sim"), None) => err(0, "crypto_offload=fpga-sim needs hw_config= (an engine configuration, hw/run configs)"),
            (_, Some(_)) => err(0, "hw_config needs crypto_offload=fpga-sim"),
            _ if self.fpga_check => err(0, "fpga_check needs crypto_offload=fpga-sim"),
            _ => Ok(None),
        }
    }

    fn offload(&self) -> Result<Offload, ConfError> {
        let card = Offload::Card {
            ns_per_frame: self.card_ns_per_frame.unwrap_or(CARD_NS_PER_FRAME),
            ns_per_byte: self.card_ns_per_byte.unwrap_or(CARD_NS_PER_BYTE),
        };
        match self.offload.as_deref() {
            Some("card") => Ok(card),
            Some("fpga-sim") if self.card_ns_per_frame.is_some() || self.card_ns_per_byte.is_some() => {
                err(0, "card_ns_per_frame/card_ns_per_byte need crypto_offload=card")
            }
            Some("fpga-sim") => Ok(Offload::Host),
            _ if self.card_ns_per_frame.is_some() || self.card_ns_per_byte.is_some() => {
                err(0, "card_ns_per_frame/card_ns_per_byte need crypto_offload=card")
            }
            _ => Ok(Offload::Host),
        }
    }

    /// The pairwise ciphers of an AP's WPA1 (`wpa=1` or `3`): `wpa_pairwise`, TKIP by
    /// default (hostapd's default `wpa_pairwise`); WPA1 has selectors for TKIP and CCMP only.
    fn ap_wpa1_pairwise(&self) -> Result<Option<Vec<CipherSuite>>, ConfError> {
        if self.wpa.unwrap_or(0) & 1 == 0 {
            return Ok(None);
        }
        let (line, w) = self.wpa_pairwise.clone().unwrap_or_else(|| (0, CipherSuite::default_list(DefaultList::ApWpaPairwise)));
        if w.iter().any(|c| !c.wpa1_usable()) {
            return err(line, "wpa_pairwise for WPA (wpa=1) must be TKIP and/or CCMP");
        }
        if self.key_mgmt.as_ref().is_some_and(|k| !k.contains(&Akm::Psk)) {
            return err(0, "WPA (wpa=1) needs wpa_key_mgmt=WPA-PSK");
        }
        if self.mfp.is_some_and(|(_, m)| m.capable()) && self.wpa == Some(1) {
            return err(0, "ieee80211w needs RSN (wpa=2 or 3); WPA (wpa=1) has no MFP");
        }
        Ok(Some(w))
    }

    /// The security mode these settings describe. `wpa` is hostapd's bit field (1 WPA,
    /// 2 WPA2); for a STA `key_mgmt` decides. For an AP with `wpa=1` only, the pairwise
    /// list is WPA1's; [`Common::ap_wpa1_pairwise`] gives WPA1's list in every case.
    fn security(&self, ssid: &[u8], is_ap: bool) -> Result<Security, ConfError> {
        let rsn = match (is_ap, self.wpa, &self.key_mgmt) {
            (true, Some(w), _) => w != 0,
            (true, None, _) => false,
            (false, _, Some(k)) => !k.is_empty(),
            (false, _, None) => self.passphrase.is_some() || self.psk.is_some(),
        };
        if !rsn {
            if self.passphrase.is_some() || self.psk.is_some() {
                return err(0, "a passphrase/PSK is set but WPA is off (set wpa=2 / key_mgmt=WPA-PSK)");
            }
            if self.wep.iter().any(|k| k.is_some()) {
                if self.wep[self.wep_default as usize].is_none() {
                    return err(0, "wep_default_key names a key that is not set");
                }
                return Ok(Security::Wep {
                    keys: self.wep.clone(),
                    tx_key: self.wep_default,
                    auth_algs: self.auth_algs.unwrap_or(AuthAlgs::BOTH),
                });
            }
            if self.auth_algs.is_some_and(|a| a.shared() && !a.open()) {
                return err(0, "shared key authentication needs a WEP key");
            }
            return Ok(Security::Open);
        }
        if self.wep.iter().any(|k| k.is_some()) {
            return err(0, "WEP keys and WPA together are not supported");
        }
        let akms = self.key_mgmt.clone().filter(|k| !k.is_empty()).unwrap_or_else(|| vec![Akm::Psk]);
        // SAE, OWE and 802.1X derive their PMK per exchange: without a passphrase this one
        // is unused.
        let sae_only = akms.iter().all(|a| matches!(a, Akm::Sae | Akm::FtSae | Akm::Owe) || a.is_8021x());
        let pmk = match (&self.psk, &self.passphrase) {
            (Some(p), _) => p.clone(),
            (None, Some((line, p))) => match psk_from_passphrase(p.as_bytes(), ssid) {
                Ok(k) => Zeroizing::new(k.to_vec()),
                Err(_) => return err(*line, "cannot derive the PSK from this passphrase"),
            },
            // SAE alone derives its PMK per exchange; this one is never used.
            (None, None) if sae_only => Zeroizing::new(vec![0u8; 32]),
            (None, None) => return err(0, "WPA needs wpa_passphrase or wpa_psk"),
        };
        let wpa1 = if is_ap { self.ap_wpa1_pairwise()? } else { None };
        // hostapd: rsn_pairwise defaults to wpa_pairwise; wpa=1 alone uses WPA1's list.
        let rsn_pw = if is_ap && self.wpa == Some(1) { wpa1.clone() } else { self.pairwise.clone() };
        let rsn_pw = rsn_pw.or_else(|| self.wpa_pairwise.clone().map(|(_, w)| w));
        let mut pairwise = rsn_pw.unwrap_or_else(|| {
            if is_ap {
                CipherSuite::default_list(DefaultList::ApRsnPairwise)
            } else {
                // wpa_supplicant's default is "CCMP TKIP"; the GCMP/256-bit suites as well.
                // TKIP only with WPA-PSK: the SHA-256 AKMs use key descriptor version 3.
                let mut v = CipherSuite::default_list(DefaultList::StaPairwise);
                if self.key_mgmt.as_ref().is_some_and(|k| k.contains(&Akm::PskSha256)) {
                    v.retain(|&c| c != CipherSuite::Tkip);
                }
                v
            }
        });
        let eccmp = CipherSuite::eccmp(self.eccmp_lanes as usize);
        if let Some(e) = eccmp {
            // Enhanced CCMP first; standard CCMP stays as the fallback for peers without it.
            pairwise.retain(|&c| c != e);
            pairwise.insert(0, e);
        }
        let groups = match &self.group {
            Some(g) => g.clone(),
            None if is_ap => {
                // hostapd: the group cipher is the weakest pairwise one, of RSN's and WPA1's.
                let mut std: Vec<CipherSuite> = pairwise.iter().copied().filter(|c| c.is_group()).collect();
                std.extend(wpa1.iter().flatten().copied());
                vec![if std.contains(&CipherSuite::Tkip) { CipherSuite::Tkip } else { *std.first().unwrap_or(&CipherSuite::Ccmp128) }]
            }
            None => CipherSuite::default_list(DefaultList::StaGroup),
        };
        if let Some(g) = groups.iter().find(|g| !g.is_group()) {
            return err(0, format!("{} is a pairwise cipher; the group cipher must be a standard one", g.hostapd_conf_name()));
        }
        if pairwise.contains(&CipherSuite::Tkip) && akms.contains(&Akm::PskSha256) {
            return err(0, "TKIP needs WPA-PSK (key descriptor version 1)");
        }
        if akms.contains(&Akm::Sae) && is_ap && pairwise.contains(&CipherSuite::Tkip) {
            return err(0, "SAE cannot use TKIP (WPA3 needs CCMP or GCMP)");
        }
        Ok(Security::Rsn { akms, pairwise, groups, pmk })
    }
}

/// One line of an AP file by hostapd's rules (`hostapd_config_read`): None for a comment
/// (`#` as the line's first character) or a blank line; else `Some(Some((key, value)))`
/// split at the first `=`, the value verbatim to the end of the line, or `Some(None)` for
/// a line without `=`.
fn ap_line(line: &str) -> Option<Option<(&str, &str)>> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    Some(line.split_once('=').map(|(k, v)| (k.trim(), v)))
}

/// One line of a STA file by wpa_supplicant's rules (`wpa_config_get_line`): leading white
/// space skipped, `#` then starts a comment line; otherwise a `#` after the last
/// double-quoted string (or anywhere, without one) ends the line; trailing white space is
/// removed. None for an empty result.
fn sta_line(line: &str) -> Option<&str> {
    let t = line.trim_start_matches([' ', '\t', '\r']);
    if t.starts_with('#') {
        return None;
    }
    // sstart: the last '"' after the first one, if any; '#' is searched from there.
    let from = match t.find('"') {
        Some(first) => t[first + 1..].rfind('"').map_or(0, |last| first + 1 + last),
        None => 0,
    };
    let t = match t[from..].find('#') {
        Some(h) => &t[..from + h],
        None => t,
    };
    let t = t.trim_end_matches([' ', '\t', '\r', '\n']);
    (!t.is_empty()).then_some(t)
}

/// The keys of the radio rather than of one BSS (hostapd's `struct hostapd_config`, not
/// `hostapd_bss_config`): wherever they stand, they apply to every BSS of the file.
const RADIO_KEYS: [&str; 5] = ["driver", "medium", "channel", "hw_mode", "beacon_int"];

/// Most BSSs one `wsec ap` serves (hostapd has no fixed limit; its BSSID mask covers up to
/// 2^40; a radio's beacons for 64 BSSs already fill a 100 TU interval at 1 Mb/s).
pub const MAX_BSS: usize = 64;

/// Parses a hostapd.conf-style AP configuration: the first BSS, then one more for each
/// `bss=IFNAME` line (hostapd `hostapd_config_bss`), in [`ApFile::bss`]. A `bss=` section
/// inherits nothing from the sections before it but the radio's keys ([`RADIO_KEYS`]), as
/// in hostapd, where each BSS starts from the defaults; its wired-side interface is the
/// `bss=` name (`interface=` in the section renames it, as in hostapd).
pub fn parse_ap(text: &str) -> Result<ApFile, ConfError> {
    let mut sections: Vec<Vec<(usize, &str)>> = vec![Vec::new()];
    let mut radio: Vec<(usize, &str)> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(Some((k, v))) = ap_line(l) {
            if k == "bss" {
                parse_ifname(n, v)?;
                if sections.len() == MAX_BSS {
                    return err(n, format!("more than {MAX_BSS} BSSs"));
                }
                sections.push(vec![(n, l)]);
                continue;
            }
            if RADIO_KEYS.contains(&k) {
                radio.push((n, l));
                continue;
            }
        }
        sections.last_mut().unwrap_or_else(|| unreachable!()).push((n, l));
    }
    let mut files = Vec::with_capacity(sections.len());
    for (i, s) in sections.iter().enumerate() {
        // The radio's lines first, then the section's: a section's own line wins.
        let mut lines: Vec<(usize, &str)> = radio.clone();
        lines.extend(s.iter().map(|&(n, l)| if i > 0 && n == s[0].0 { (n, "") } else { (n, l) }));
        let mut f = parse_bss(&lines, (i > 0).then(|| s[0]))?;
        if i > 0 {
            // The BSSs share the first one's radio and medium; with driver=nl80211 the
            // section's name is its interface on that radio.
            let shared = files.first().and_then(|f0: &ApFile| f0.medium.clone());
            if f.medium != shared {
                f.vif = f.medium.as_deref().and_then(|m| m.strip_prefix("radio:")).map(String::from);
            }
            f.medium = shared;
        }
        files.push(f);
    }
    let mut files = files.into_iter();
    let mut first = files.next().unwrap_or_else(|| unreachable!());
    first.bss = files.collect();
    check_bsses(&first)?;
    Ok(first)
}

/// hostapd's checks across the BSSs of one radio: distinct interfaces, distinct
/// configured BSSIDs, and no configured BSSID equal to the first BSS's ("BSS '%s' may not
/// have BSSID set to the MAC address of the radio").
fn check_bsses(f: &ApFile) -> Result<(), ConfError> {
    let all: Vec<&ApFile> = std::iter::once(f).chain(f.bss.iter()).collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[..i] {
            if a.interface == b.interface {
                return err(0, format!("two BSSs use interface {}", a.interface));
            }
            if !a.address_from_radio && !b.address_from_radio && a.ap.bssid == b.ap.bssid {
                return err(0, format!("two BSSs have bssid {}", a.ap.bssid));
            }
        }
    }
    Ok(())
}

impl ApFile {
    /// The `bss=` sections' BSSIDs filled in when the first one is the radio's address
    /// (hostapd `hostapd_setup_interface_complete` / `hostapd_setup_bss`: a BSS without
    /// `bssid=` takes the previous such BSS's address plus one, skipping the configured
    /// ones).
    pub fn assign_bssids(&mut self) {
        let configured: Vec<MacAddr> = self.bss.iter().filter(|b| !b.address_from_radio).map(|b| b.ap.bssid).collect();
        let mut prev = self.ap.bssid;
        for b in self.bss.iter_mut().filter(|b| b.address_from_radio) {
            let mut a = prev;
            loop {
                // inc_byte_array: the six octets as one big-endian number, plus one.
                for o in a.0.iter_mut().rev() {
                    *o = o.wrapping_add(1);
                    if *o != 0 {
                        break;
                    }
                }
                if a != self.ap.bssid && !configured.contains(&a) {
                    break;
                }
            }
            let placeholder = b.ap.bssid;
            b.ap.bssid = a;
            if let Some(ft) = b.ap.ft.as_mut().filter(|ft| ft.r1kh_id == placeholder) {
                ft.r1kh_id = a;
            }
            prev = a;
        }
    }

    /// Every BSS of the file, the first one first.
    pub fn bsses(&self) -> impl Iterator<Item = &ApFile> {
        std::iter::once(self).chain(self.bss.iter())
    }
}

/// One BSS's lines (with the radio's), numbered as in the file; `bss` is a `bss=` section's
/// own line, which names its interface.
fn parse_bss(lines: &[(usize, &str)], bss: Option<(usize, &str)>) -> Result<ApFile, ConfError> {
    let mut c = Common { eccmp_lanes: 1, ..Default::default() };
    let mut interface = None;
    let mut medium: Option<(usize, String)> = None;
    let mut bssid = None;
    let (mut driver, mut wired, mut bridge) = (None, None, None);
    let mut channel = 6u8;
    let mut beacon_int = 100u16;
    let mut group_rekey = 86_400u64;
    let mut ptk_rekey = 0u64;
    let mut inactivity = 300u64;
    let mut max_sta = MAX_STA_COUNT as usize;
    let mut group_mgmt = None;
    let (mut ctrl, mut ctrl_group) = (None, None);
    let (mut owe_groups, mut owe_bssid, mut owe_ssid, mut hidden) = (None, None, None, 0u8);
    let mut transition_disable = 0u8;
    let mut extended_key_id = 0u8;
    let mut spp_amsdu = 0u8;
    let mut ieee8021x = false;
    // hostapd: each *_server_addr starts a server; *_port and *_shared_secret set the last.
    let (mut auth_servers, mut acct_servers): (Vec<RadiusServerLine>, Vec<RadiusServerLine>) = (Vec::new(), Vec::new());
    let mut dot1x = wsec::node::ap::Dot1xSettings::default();
    let mut okc = false;
    let (mut bss_transition, mut rrm_neighbor_report) = (false, false);
    // hostapd: ieee80211n=0 by default; wmm_enabled follows it unless set.
    let (mut ieee80211n, mut wmm, mut ht_capab) = (false, None, None);
    let (mut amsdu_tx, mut amsdu_max_len) = (true, None);
    let mut radsec = Vec::new();
    let mut ft = FtLines::default();
    if let Some((n, l)) = bss {
        if let Some(Some((_, v))) = ap_line(l) {
            interface = Some(parse_ifname(n, v)?);
        }
    }
    for &(n, l) in lines {
        let Some(kv) = ap_line(l) else { continue };
        // hostapd: "invalid line"; the line itself is not repeated (it may be a secret).
        let Some((k, v)) = kv else { return err(n, "expected key=value (a line without '=')") };
        if c.set(n, k, v)? {
            continue;
        }
        match k {
            "interface" => interface = Some(parse_ifname(n, v)?),
            "medium" => medium = Some((n, v.to_string())),
            "driver" => driver = Some((n, v.to_string())),
            "wired_interface" => wired = Some((n, parse_ifname(n, v)?)),
            "bridge" => bridge = Some(parse_ifname(n, v)?),
            "bssid" => {
                bssid = Some(v.parse::<MacAddr>().map_err(|_| ConfError { line: n, msg: "bssid must be aa:bb:cc:dd:ee:ff".into() })?)
            }
            "channel" => channel = num(n, "channel (2.4 GHz)", v, 1, 14)?,
            "hw_mode" => {
                if !["b", "g"].contains(&v) {
                    return err(n, "hw_mode must be b or g");
                }
            }
            // hostapd: "Invalid beacon_int %d (expected 15..65535)".
            "beacon_int" => beacon_int = num(n, "beacon_int (TU)", v, 15, 65535)?,
            // hostapd's wpa bit field: 1 WPA, 2 WPA2 (RSN).
            "wpa" => c.wpa = Some(num(n, k, v, 0, 3)?),
            "wpa_group_rekey" => group_rekey = ranged(n, "wpa_group_rekey (s)", v, 0, HOSTAPD_INT_MAX)?,
            "wpa_ptk_rekey" => ptk_rekey = ranged(n, "wpa_ptk_rekey (s)", v, 0, HOSTAPD_INT_MAX)?,
            // 0 would deauthenticate every station at the next housekeeping tick.
            "ap_max_inactivity" => inactivity = ranged(n, "ap_max_inactivity (s)", v, 1, HOSTAPD_INT_MAX)?,
            // hostapd: "Invalid max_num_sta=%d; allowed range 0..%d" (MAX_STA_COUNT).
            "max_num_sta" => max_sta = num(n, k, v, 0, MAX_STA_COUNT)?,
            "group_mgmt_cipher" => group_mgmt = Some(parse_group_mgmt(n, v)?),
            "ctrl_interface" => ctrl = Some(v.to_string()),
            "ctrl_interface_group" => ctrl_group = Some(v.to_string()),
            "owe_groups" => owe_groups = Some(parse_owe_groups(n, k, v, false)?),
            // hostapd reads it with strtol(.., 16): "0x01" or "01".
            "transition_disable" => {
                let h = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")).unwrap_or(v);
                transition_disable = u8::from_str_radix(h, 16)
                    .map_err(|_| ConfError { line: n, msg: "transition_disable must be a hex bitmap, 0x00-0xff".into() })?;
            }
            // hostapd: 0 off, 1 on, 2 on with the first PTK under Key ID 1 (12.6.21).
            "extended_key_id" => extended_key_id = num(n, k, v, 0, 2)?,
            // hostapd: spp_amsdu=0/1 (SPP A-MSDU Capable); 2 also sets Required (wsec).
            "spp_amsdu" => spp_amsdu = num(n, k, v, 0, 2)?,
            "owe_transition_bssid" => {
                let a = v
                    .parse::<MacAddr>()
                    .map_err(|_| ConfError { line: n, msg: "owe_transition_bssid must be aa:bb:cc:dd:ee:ff".into() })?;
                if a.is_group() {
                    return err(n, "owe_transition_bssid must be an individual address");
                }
                owe_bssid = Some(a);
            }
            "owe_transition_ssid" => owe_ssid = Some(parse_ssid(n, v)?),
            "ignore_broadcast_ssid" => hidden = num(n, "ignore_broadcast_ssid (0, 1 empty SSID, 2 zeros)", v, 0, 2)?,
            "ieee8021x" => ieee8021x = num::<u8>(n, k, v, 0, 1)? == 1,
            // hostapd's integrated EAP server is not wsec's: RADIUS only.
            "eap_server" => {
                if num::<u8>(n, k, v, 0, 1)? == 1 {
                    return err(n, "eap_server=1 (an EAP server inside the AP) is not supported: use a RADIUS server (auth_server_addr)");
                }
            }
            "auth_server_addr" | "acct_server_addr" => {
                let ip =
                    v.trim().parse::<std::net::IpAddr>().map_err(|_| ConfError { line: n, msg: format!("{k} must be an IP address") })?;
                let l = RadiusServerLine {
                    line: n,
                    ip,
                    port: None,
                    secret: None,
                    tls: false,
                    ca_cert: None,
                    client_cert: None,
                    private_key: None,
                    domain_match: None,
                };
                if k == "auth_server_addr" {
                    auth_servers.push(l)
                } else {
                    acct_servers.push(l)
                }
            }
            "auth_server_port" | "acct_server_port" => {
                let list = if k == "auth_server_port" { &mut auth_servers } else { &mut acct_servers };
                let Some(last) = list.last_mut() else { return err(n, format!("{k} before its *_server_addr")) };
                last.port = Some(num(n, k, v, 1, 65535)?);
            }
            "auth_server_type" | "acct_server_type" => {
                let list = if k == "auth_server_type" { &mut auth_servers } else { &mut acct_servers };
                let Some(last) = list.last_mut() else { return err(n, format!("{k} before its *_server_addr")) };
                last.tls = match v {
                    "UDP" => false,
                    "TLS" => true,
                    _ => return err(n, format!("{k} must be UDP or TLS")),
                };
            }
            "auth_server_ca_cert"
            | "acct_server_ca_cert"
            | "auth_server_client_cert"
            | "acct_server_client_cert"
            | "auth_server_private_key"
            | "acct_server_private_key"
            | "auth_server_domain_match"
            | "acct_server_domain_match" => {
                let list = if k.starts_with("auth") { &mut auth_servers } else { &mut acct_servers };
                let Some(last) = list.last_mut() else { return err(n, format!("{k} before its *_server_addr")) };
                if v.is_empty() {
                    return err(n, format!("{k} must not be empty"));
                }
                let slot = match &k[5..] {
                    "server_ca_cert" => &mut last.ca_cert,
                    "server_client_cert" => &mut last.client_cert,
                    "server_private_key" => &mut last.private_key,
                    _ => &mut last.domain_match,
                };
                *slot = Some(v.to_string());
            }
            "auth_server_private_key_passwd" | "acct_server_private_key_passwd" => {
                return err(n, format!("{k}: encrypted private keys are not supported (give an unencrypted PKCS#8 or SEC1 key)"));
            }
            "auth_server_shared_secret" | "acct_server_shared_secret" => {
                let list = if k == "auth_server_shared_secret" { &mut auth_servers } else { &mut acct_servers };
                let Some(last) = list.last_mut() else { return err(n, format!("{k} before its *_server_addr")) };
                if v.is_empty() {
                    return err(n, format!("{k} must not be empty"));
                }
                last.secret = Some(Zeroizing::new(v.as_bytes().to_vec()));
            }
            "nas_identifier" => {
                if v.is_empty() || v.len() > 253 {
                    return err(n, "nas_identifier must be 1 to 253 octets");
                }
                dot1x.nas_identifier = Some(v.to_string());
                ft.nas = Some((n, v.to_string()));
            }
            "mobility_domain"
            | "r1_key_holder"
            | "ft_over_ds"
            | "ft_psk_generate_local"
            | "reassociation_deadline"
            | "ft_r0_key_lifetime"
            | "r0_key_lifetime"
            | "r0kh"
            | "r1kh"
            | "pmk_r1_push"
            | "rkh_pos_timeout"
            | "rkh_neg_timeout"
            | "rkh_pull_timeout"
            | "rkh_pull_retries"
            | "ft_r1_max_key_lifetime" => ft.set(n, k, v)?,
            "own_ip_addr" => {
                dot1x.own_ip_addr = Some(
                    v.trim()
                        .parse::<std::net::Ipv4Addr>()
                        .map_err(|_| ConfError { line: n, msg: "own_ip_addr must be an IPv4 address".into() })?,
                )
            }
            // wsec's own (hostapd has the schedule built in: RADIUS_CLIENT_FIRST_WAIT 3 s):
            // the first retransmission's wait, doubling after; failover after 4 of them.
            "radius_client_first_wait_ms" => {
                dot1x.radius.first_wait_ns = ranged(n, "radius_client_first_wait_ms", v, 100, 120_000)?.saturating_mul(1_000_000)
            }
            "radius_retry_primary_interval" => {
                dot1x.radius.retry_primary_ns =
                    ranged(n, "radius_retry_primary_interval (s)", v, 0, HOSTAPD_INT_MAX)?.saturating_mul(1_000_000_000)
            }
            "eap_reauth_period" => dot1x.eap_reauth_period_s = ranged(n, "eap_reauth_period (s)", v, 0, HOSTAPD_INT_MAX)?,
            "radius_acct_interim_interval" => {
                dot1x.acct_interim_interval_s = ranged(n, "radius_acct_interim_interval (s)", v, 0, HOSTAPD_INT_MAX)?
            }
            "eapol_version" => dot1x.eapol_version = num(n, k, v, 1, 3)?,
            // hostapd: INT_RANGE(okc, 0, 1); it acts across the BSSs of one process.
            "okc" => okc = num::<u8>(n, k, v, 0, 1)? == 1,
            // hostapd: BSS transition management (Extended Capabilities b19, BTM Queries
            // and Responses) and neighbor reports (RM Enabled Capabilities, SET_NEIGHBOR).
            "bss_transition" => bss_transition = num::<u8>(n, k, v, 0, 1)? == 1,
            "rrm_neighbor_report" => rrm_neighbor_report = num::<u8>(n, k, v, 0, 1)? == 1,
            "ieee80211n" => ieee80211n = num::<u8>(n, k, v, 0, 1)? == 1,
            "wmm_enabled" => wmm = Some(num::<u8>(n, k, v, 0, 1)? == 1),
            "ht_capab" => {
                ht_capab = Some(wsec::wire::ht::parse_ht_capab(v).map_err(|e| ConfError { line: n, msg: format!("ht_capab: {e}") })?)
            }
            "amsdu_tx" => amsdu_tx = num::<u8>(n, k, v, 0, 1)? == 1,
            "amsdu_max_len" => amsdu_max_len = Some(num::<usize>(n, k, v, 256, 11454)?),
            _ => return err(n, format!("unknown key{}", shown_key(k))),
        }
    }
    let ssid = c.ssid.clone().ok_or(ConfError { line: 0, msg: "ssid is required".into() })?;
    // On a radio (driver=nl80211) the BSSID defaults to the radio's address, as in hostapd;
    // the runtime reads it (`address_from_radio`).
    let radio = driver.as_ref().is_some_and(|(_, d)| d == "nl80211");
    let address_from_radio = bssid.is_none() && radio;
    let bssid = match bssid {
        Some(b) => b,
        None if radio => MacAddr([0x02, 0, 0, 0, 0, 0]),
        None => return err(0, "bssid is required (or driver=nl80211: the radio's address)"),
    };
    if bssid.is_group() {
        return err(0, "bssid must be an individual address");
    }
    let security = c.security(&ssid, true)?;
    let mfp = c.mfp(&security, (0, Mfp::Disabled), true)?;
    let sae = c.sae(&security)?;
    if let Security::Rsn { akms, .. } = &security {
        // WPA3-Personal only: SAE with management frame protection required.
        if akms.iter().all(|a| matches!(a, Akm::Sae | Akm::FtSae)) && !mfp.required() {
            return err(c.mfp.map_or(0, |(l, _)| l), "wpa_key_mgmt=SAE alone (WPA3-only) needs ieee80211w=2");
        }
    }
    let owe = matches!(&security, Security::Rsn { akms, .. } if akms.contains(&Akm::Owe));
    if owe_groups.is_some() && !owe {
        return err(0, "owe_groups needs wpa_key_mgmt=OWE");
    }
    let owe_transition = match (owe_bssid, owe_ssid) {
        (Some(bssid), Some(ssid)) => Some(wsec::node::owe::OweTransition { bssid, ssid }),
        (None, None) => None,
        _ => return err(0, "owe_transition_bssid and owe_transition_ssid go together"),
    };
    if owe_transition.is_some() && !(owe || matches!(security, Security::Open)) {
        return err(0, "owe_transition_* belongs to an open BSS or an OWE BSS (wpa_key_mgmt=OWE)");
    }
    let mut ap = ApConfig::new(bssid, &ssid, security);
    ap.sae = sae;
    if let Some(g) = owe_groups {
        ap.owe_groups = g;
    }
    ap.owe_transition = owe_transition;
    ap.ignore_broadcast_ssid = hidden;
    ap.transition_disable = transition_disable;
    ap.extended_key_id = extended_key_id;
    ap.spp_amsdu = spp_amsdu;
    ap.bss_transition = bss_transition;
    ap.rrm_neighbor_report = rrm_neighbor_report;
    let eap_akm = matches!(&ap.security, Security::Rsn { akms, .. } if akms.iter().any(|a| a.is_8021x()));
    if eap_akm && !ieee8021x {
        return err(0, "wpa_key_mgmt=WPA-EAP needs ieee8021x=1");
    }
    if ieee8021x {
        if !eap_akm {
            return err(0, "ieee8021x=1 needs wpa=2 and wpa_key_mgmt=WPA-EAP (dynamic WEP is not supported)");
        }
        let mut servers = |list: Vec<RadiusServerLine>, what: &str| -> Result<Vec<wsec::radius::Server>, ConfError> {
            let kind = if what == "auth" { wsec::radius::Kind::Auth } else { wsec::radius::Kind::Acct };
            list.into_iter()
                .map(|l| {
                    if !l.tls {
                        if l.ca_cert.is_some() || l.client_cert.is_some() || l.private_key.is_some() || l.domain_match.is_some() {
                            return err(l.line, format!("{what}_server TLS files without {what}_server_type=TLS"));
                        }
                        let port = l.port.unwrap_or(if what == "auth" { 1812 } else { 1813 });
                        return match l.secret {
                            Some(secret) => Ok(wsec::radius::Server { addr: std::net::SocketAddr::new(l.ip, port), secret, tls: false }),
                            None => err(l.line, format!("{what}_server_addr without {what}_server_shared_secret")),
                        };
                    }
                    // RadSec: port 2083 and the secret "radsec" unless given (RFC 6614 2.1, 2.3).
                    let addr = std::net::SocketAddr::new(l.ip, l.port.unwrap_or(wsec::radius::tls::PORT));
                    let (Some(ca_cert), Some(client_cert), Some(private_key)) = (l.ca_cert, l.client_cert, l.private_key) else {
                        return err(
                            l.line,
                            format!(
                                "{what}_server_type=TLS needs {what}_server_ca_cert, {what}_server_client_cert and {what}_server_private_key (RFC 6614 2.3: mutual certificates)"
                            ),
                        );
                    };
                    radsec.push(RadsecServer { kind, addr, ca_cert, client_cert, private_key, domain_match: l.domain_match });
                    let secret = l.secret.unwrap_or_else(|| Zeroizing::new(wsec::radius::tls::DEFAULT_SECRET.to_vec()));
                    Ok(wsec::radius::Server { addr, secret, tls: true })
                })
                .collect()
        };
        dot1x.radius.auth_servers = servers(auth_servers, "auth")?;
        dot1x.radius.acct_servers = servers(acct_servers, "acct")?;
        if dot1x.radius.auth_servers.is_empty() {
            return err(0, "ieee8021x=1 needs auth_server_addr (a RADIUS server)");
        }
        ap.dot1x = Some(dot1x);
    } else if !auth_servers.is_empty() || !acct_servers.is_empty() {
        return err(0, "RADIUS servers are set but ieee8021x is not 1");
    }
    ap.wpa1_pairwise = c.ap_wpa1_pairwise()?;
    ap.rsn = c.wpa != Some(1);
    ap.mfp = mfp;
    if let Some(g) = group_mgmt {
        ap.group_mgmt_cipher = g;
    }
    ap.channel = channel;
    ap.beacon_interval_tu = beacon_int;
    ap.group_rekey_s = group_rekey;
    ap.ptk_rekey_s = ptk_rekey;
    ap.max_inactivity_s = inactivity;
    ap.max_stations = max_sta;
    ap.okc = okc;
    ap.ft = ft.settings(bssid, &ap.security)?;
    ap.wmm = wmm.unwrap_or(ieee80211n);
    ap.ht_capab = ieee80211n.then(|| ht_capab.unwrap_or(wsec::wire::ht::HtCapInfo(wsec::wire::ht::HtCapInfo::SM_PS_DISABLED)));
    ap.amsdu_tx = amsdu_tx;
    // The medium bounds it further at run time (`Medium::max_mpdu`: a radio's MTU).
    ap.amsdu_max_len = amsdu_max_len.unwrap_or(usize::MAX);
    ap.offload = c.offload()?;
    let fpga = c.fpga()?;
    // The AP's engine uses every core unless told otherwise (issue: per-station key tables,
    // crypto of a batch spread over the cores).
    ap.engine_threads = c.engine_threads.unwrap_or(0);
    let (interface, medium) = resolve_driver(driver, interface, wired, medium)?;
    Ok(ApFile {
        interface,
        bridge,
        medium,
        address_from_radio,
        ctrl_interface: ctrl,
        ctrl_interface_group: ctrl_group,
        ap,
        fpga,
        radsec,
        bss: Vec::new(),
        vif: None,
        tap_offload: c.tap_offload.unwrap_or(true),
    })
}

/// hostapd's fast BSS transition keys (hostapd.conf, "IEEE 802.11r configuration").
#[derive(Default)]
struct FtLines {
    mdid: Option<(usize, [u8; 2])>,
    nas: Option<(usize, String)>,
    r1kh_id: Option<MacAddr>,
    over_ds: Option<bool>,
    psk_generate_local: bool,
    reassoc_deadline_tu: Option<u32>,
    r0_key_lifetime_s: Option<u32>,
    /// r0kh/r1kh lines: the key holders of the other APs (RRB).
    r0kh: Vec<wsec::rsn::rrb::RemoteR0kh>,
    r1kh: Vec<wsec::rsn::rrb::RemoteR1kh>,
    pmk_r1_push: bool,
}

impl FtLines {
    fn set(&mut self, n: usize, k: &str, v: &str) -> Result<(), ConfError> {
        let hex = |v: &str, len: usize, what: &str| -> Result<Vec<u8>, ConfError> {
            let t: String = v.chars().filter(|c| *c != ':').collect();
            match hex_decode(&t) {
                Some(b) if b.len() == len => Ok(b),
                _ => err(n, format!("{what} must be {len} octets in hex")),
            }
        };
        match k {
            // hostapd: hexstr2bin(pos, mobility_domain, MOBILITY_DOMAIN_ID_LEN).
            "mobility_domain" => {
                let b = hex(v, 2, "mobility_domain")?;
                self.mdid = Some((n, [b[0], b[1]]));
            }
            "r1_key_holder" => {
                let b = hex(v, 6, "r1_key_holder")?;
                self.r1kh_id = Some(MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]]));
            }
            "ft_over_ds" => self.over_ds = Some(num::<u8>(n, k, v, 0, 1)? == 1),
            "ft_psk_generate_local" => self.psk_generate_local = num::<u8>(n, k, v, 0, 1)? == 1,
            "reassociation_deadline" => self.reassoc_deadline_tu = Some(num::<u32>(n, k, v, 1000, 65535)?),
            "ft_r0_key_lifetime" => self.r0_key_lifetime_s = Some(num::<u32>(n, k, v, 1, u32::MAX as u64)?),
            // The old key, in minutes.
            "r0_key_lifetime" => self.r0_key_lifetime_s = Some(num::<u32>(n, k, v, 1, (u32::MAX / 60) as u64)? * 60),
            // hostapd: "<MAC address> <NAS Identifier | R1KH-ID> <256-bit or 128-bit key as hex>".
            "r0kh" => match wsec::rsn::rrb::RemoteR0kh::parse(v) {
                Ok(r) => self.r0kh.push(r),
                Err(_) => return err(n, "r0kh must be \"<MAC> <NAS Identifier> <128- or 256-bit key in hex>\""),
            },
            "r1kh" => match wsec::rsn::rrb::RemoteR1kh::parse(v) {
                Ok(r) => self.r1kh.push(r),
                Err(_) => return err(n, "r1kh must be \"<MAC> <R1KH-ID> <128- or 256-bit key in hex>\""),
            },
            "pmk_r1_push" => self.pmk_r1_push = num::<u8>(n, k, v, 0, 1)? == 1,
            _ => {
                num::<u32>(n, k, v, 0, u32::MAX as u64)?;
            }
        }
        Ok(())
    }

    /// The AP's FT settings; the FT AKMs need a mobility domain and an R0KH-ID (hostapd:
    /// "requires nas_identifier to be configured as a 1..48 octet string").
    fn settings(self, bssid: MacAddr, security: &Security) -> Result<Option<wsec::node::ap::FtSettings>, ConfError> {
        let ft_akm = matches!(security, Security::Rsn { akms, .. } if akms.iter().any(|a| a.is_ft()));
        let Some((n, mdid)) = self.mdid else {
            return if ft_akm { err(0, "an FT AKM (wpa_key_mgmt=FT-...) needs mobility_domain") } else { Ok(None) };
        };
        if !ft_akm {
            return err(n, "mobility_domain needs an FT AKM in wpa_key_mgmt (FT-PSK, FT-SAE)");
        }
        let nas = match self.nas {
            Some((_, v)) if v.len() <= 48 => v,
            other => {
                let line = other.map_or(n, |(l, _)| l);
                return err(line, "FT (IEEE 802.11r) requires nas_identifier to be configured as a 1..48 octet string");
            }
        };
        let mut f = wsec::node::ap::FtSettings::new(mdid, nas.as_bytes(), self.r1kh_id.unwrap_or(bssid));
        if let Some(d) = self.over_ds {
            f.over_ds = d;
        }
        f.psk_generate_local = self.psk_generate_local;
        if let Some(t) = self.reassoc_deadline_tu {
            f.reassoc_deadline_tu = t;
        }
        if let Some(t) = self.r0_key_lifetime_s {
            f.r0_key_lifetime_s = t;
        }
        f.r0kh = self.r0kh;
        f.r1kh = self.r1kh;
        f.pmk_r1_push = self.pmk_r1_push;
        Ok(Some(f))
    }
}

/// Parses a wpa_supplicant.conf-style STA configuration: global keys (`interface`,
/// `medium`, `addr`, wsec's own) and one `network={...}` block.
pub fn parse_sta(text: &str) -> Result<StaFile, ConfError> {
    let mut c = Common { eccmp_lanes: 1, ..Default::default() };
    let mut interface = None;
    let mut medium: Option<(usize, String)> = None;
    let mut addr = None;
    let mut bssid = None;
    let (mut driver, mut wired) = (None, None);
    let mut scan_channels: Vec<u8> = Vec::new();
    let mut in_net = false;
    let mut networks = 0;
    let mut pmf = (0, Mfp::Disabled);
    // wpa_supplicant's default proto is "WPA RSN" (RSN, WPA1).
    let mut proto = (true, true);
    let (mut ctrl, mut ctrl_group) = (None, None);
    let mut owe_group = 0u16;
    let mut owe_only = false;
    let mut extended_key_id = false;
    let mut spp_amsdu = 0u8;
    let mut eap: Option<EapFile> = None;
    let mut eap_method = None;
    let mut eapol_version = 1u8;
    // wpa_supplicant: the global `okc` is the default of each network's
    // `proactive_key_caching` (-1: take the global).
    let mut test_ft_bad_mic = false;
    let mut bgscan = None;
    let (mut okc_global, mut okc_net) = (false, None);
    let mut disable_ht = false;
    let (mut amsdu_tx, mut amsdu_max_len) = (true, None);
    for (i, l) in text.lines().enumerate() {
        let n = i + 1;
        let Some(t) = sta_line(l) else { continue };
        if t == "network={" {
            if in_net {
                return err(n, "nested network block");
            }
            networks += 1;
            if networks > 1 {
                return err(n, "only one network block is supported");
            }
            in_net = true;
            continue;
        }
        if t == "}" {
            if !in_net {
                return err(n, "} outside a network block");
            }
            in_net = false;
            continue;
        }
        // wpa_supplicant: "Line %d: Invalid SSID line"; the line itself is not repeated.
        let Some((k, v)) = t.split_once('=').map(|(k, v)| (k.trim(), v.trim())) else {
            return err(n, "expected key=value (a line without '=')");
        };
        if in_net {
            if c.set(n, k, v)? {
                continue;
            }
            match k {
                "bssid" => {
                    bssid = Some(v.parse::<MacAddr>().map_err(|_| ConfError { line: n, msg: "bssid must be aa:bb:cc:dd:ee:ff".into() })?)
                }
                "bgscan" => bgscan = Some(Bgscan::parse(n, v)?),
                "proto" => {
                    let mut p = (false, false);
                    for w in v.split_whitespace() {
                        match w {
                            "RSN" | "WPA2" => p.0 = true,
                            "WPA" => p.1 = true,
                            _ => return err(n, format!("unknown proto {w}")),
                        }
                    }
                    if p == (false, false) {
                        return err(n, "proto names no protocol (WPA, RSN)");
                    }
                    proto = p;
                }
                // wpa_supplicant: INT_RANGE(scan_ssid, 0, 1), INT(priority).
                "scan_ssid" => {
                    let _: u8 = num(n, k, v, 0, 1)?;
                }
                "scan_freq" | "frequency" => {
                    for w in v.split_whitespace() {
                        let mhz: u32 = num(n, k, w, 2412, 5885)?;
                        let ch = freq_channel(mhz)
                            .ok_or_else(|| ConfError { line: n, msg: format!("{k}: {mhz} MHz is not a 2.4 or 5 GHz channel") })?;
                        if !scan_channels.contains(&ch) {
                            scan_channels.push(ch);
                        }
                    }
                }
                "priority" => {
                    let _: u32 = num(n, k, v, 0, HOSTAPD_INT_MAX)?;
                }
                "owe_group" => {
                    owe_group = parse_owe_groups(n, k, v, true).and_then(|g| match g[..] {
                        [g] => Ok(g),
                        _ => err(n, "owe_group is one group (0, 19, 20, 21)"),
                    })?
                }
                "owe_only" => owe_only = num::<u8>(n, k, v, 0, 1)? == 1,
                "disable_ht" => disable_ht = num::<u8>(n, k, v, 0, 1)? == 1,
                "proactive_key_caching" => okc_net = Some(num::<u8>(n, k, v, 0, 1)? == 1),
                // wpa_supplicant: INT_RANGE(ocsp, 0, 3); 3 (every certificate of the chain)
                // needs a response per certificate, which no stapling server sends.
                "ocsp" => {
                    let e = eap.get_or_insert_with(|| EapFile { fragment_size: 1398, ..Default::default() });
                    e.ocsp = match num::<u8>(n, k, v, 0, 3)? {
                        0 => wsec::eap::ocsp::OcspPolicy::Off,
                        1 => wsec::eap::ocsp::OcspPolicy::Try,
                        2 => wsec::eap::ocsp::OcspPolicy::Require,
                        _ => {
                            return err(
                                n,
                                "ocsp=3 (a status for every certificate of the chain) is not supported; ocsp=2 requires the server's",
                            )
                        }
                    };
                }
                "eap" => {
                    let e = eap.get_or_insert_with(|| EapFile { fragment_size: 1398, ..Default::default() });
                    e.method = match v {
                        "TLS" => EapKind::Tls,
                        "TTLS" => EapKind::Ttls,
                        "PEAP" => EapKind::Peap,
                        _ => return err(n, format!("eap: unsupported method {v} (TLS, TTLS, PEAP)")),
                    };
                    eap_method = Some(n);
                }
                // The inner method: TTLS's PAP (RFC 5281 11.2.5) or MS-CHAP-V2 (11.2.4); PEAP's
                // EAP-MSCHAPv2.
                "phase2" => {
                    let e = eap.get_or_insert_with(|| EapFile { fragment_size: 1398, ..Default::default() });
                    e.phase2 = Some(match unquote(v) {
                        Some("auth=PAP") => wsec::eap::TtlsInner::Pap,
                        Some("auth=MSCHAPV2") => wsec::eap::TtlsInner::Mschapv2,
                        Some("autheap=MSCHAPV2") => {
                            return err(n, "phase2: autheap=MSCHAPV2 (EAP inside TTLS) is not supported: use \"auth=MSCHAPV2\"")
                        }
                        _ => return err(n, "phase2: \"auth=PAP\" (TTLS) or \"auth=MSCHAPV2\" (TTLS, PEAP)"),
                    });
                }
                // wpa_supplicant: a quoted password, or hash:<32 hex> (its NtPasswordHash).
                "password" => {
                    let e = eap.get_or_insert_with(|| EapFile { fragment_size: 1398, ..Default::default() });
                    e.password_is_hash = unquote(v).is_none();
                    let p = match unquote(v) {
                        Some(p) => p.as_bytes().to_vec(),
                        None if v.starts_with("hash:") => {
                            if v.len() != 37 || wsec::input::hex_decode(&v[5..]).is_none() {
                                return err(n, "password=hash: needs 32 hex digits (the NtPasswordHash)");
                            }
                            v.as_bytes().to_vec()
                        }
                        None => return err(n, "password must be a quoted string (or hash:<32 hex digits>)"),
                    };
                    e.password = Some(Zeroizing::new(p));
                }
                "identity"
                | "anonymous_identity"
                | "ca_cert"
                | "client_cert"
                | "private_key"
                | "domain_match"
                | "domain_suffix_match"
                | "phase1"
                | "fragment_size" => {
                    let e = eap.get_or_insert_with(|| EapFile { fragment_size: 1398, ..Default::default() });
                    let text = || unquote(v).map(str::to_string).ok_or(ConfError { line: n, msg: format!("{k} must be a quoted string") });
                    match k {
                        "identity" => e.identity = text()?.into_bytes(),
                        "anonymous_identity" => e.anonymous_identity = Some(text()?.into_bytes()),
                        "ca_cert" => e.ca_cert = Some(text()?),
                        "client_cert" => e.client_cert = Some(text()?),
                        "private_key" => e.private_key = Some(text()?),
                        "domain_match" => e.domain_match = Some(text()?),
                        "domain_suffix_match" => e.domain_suffix_match = Some(text()?),
                        "fragment_size" => e.fragment_size = num(n, k, v, 64, 16384)?,
                        _ => {
                            for w in text()?.split_whitespace() {
                                match w {
                                    "tls_disable_tlsv1_3=1" => e.versions = wsec::eap::tls::TlsVersions::Tls12,
                                    "tls_disable_tlsv1_2=1" => e.versions = wsec::eap::tls::TlsVersions::Tls13,
                                    "tls_disable_tlsv1_3=0" => e.tls13_asked = true,
                                    // Suite B follows from key_mgmt=WPA-EAP-SUITE-B-192 (WPA3 3.5).
                                    "tls_disable_tlsv1_2=0" | "tls_suiteb=1" | "tls_suiteb=0" => {}
                                    // PEAP: version 0 only (draft-kamath-pppext-peapv0-00).
                                    "peapver=0" => {}
                                    "peapver=1" => {
                                        return err(n, "phase1: peapver=1 (PEAPv1) is not supported: PEAPv0 only (peapver=0)")
                                    }
                                    "crypto_binding=0" => e.crypto_binding = wsec::eap::CryptoBinding::Never,
                                    "crypto_binding=1" => e.crypto_binding = wsec::eap::CryptoBinding::Optional,
                                    "crypto_binding=2" => e.crypto_binding = wsec::eap::CryptoBinding::Required,
                                    _ => {
                                        return err(
                                            n,
                                            format!(
                                                "phase1: unsupported setting {w} (tls_disable_tlsv1_2, tls_disable_tlsv1_3, peapver=0, crypto_binding)"
                                            ),
                                        )
                                    }
                                }
                            }
                        }
                    }
                }
                "private_key_passwd" => {
                    return err(n, "private_key_passwd: encrypted private keys are not supported (use an unencrypted PKCS#8 key)")
                }
                _ => return err(n, format!("unknown network key{}", shown_key(k))),
            }
        } else {
            match k {
                "interface" => interface = Some(parse_ifname(n, v)?),
                "medium" => medium = Some((n, v.to_string())),
                "driver" => driver = Some((n, v.to_string())),
                "wired_interface" => wired = Some((n, parse_ifname(n, v)?)),
                "addr" | "mac_addr" => {
                    let a = v.parse::<MacAddr>().map_err(|_| ConfError { line: n, msg: "addr must be aa:bb:cc:dd:ee:ff".into() })?;
                    if a.is_group() {
                        return err(n, "addr must be an individual address");
                    }
                    addr = Some(a)
                }
                "crypto_offload" | "card_ns_per_frame" | "card_ns_per_byte" | "eccmp_lanes" | "engine_threads" | "tap_offload" => {
                    c.set(n, k, v)?;
                }
                "pmf" => pmf = (n, parse_mfp(n, k, v)?),
                "ctrl_interface" => ctrl = Some(v.to_string()),
                "ctrl_interface_group" => ctrl_group = Some(v.to_string()),
                // wpa_supplicant's SAE settings are global.
                "sae_groups" | "sae_pwe" => {
                    c.set(n, k, v)?;
                }
                // wpa_supplicant: INT_RANGE(extended_key_id, 0, 1), a global setting.
                "extended_key_id" => extended_key_id = num::<u8>(n, k, v, 0, 1)? == 1,
                // As the AP's spp_amsdu (wpa_supplicant takes SPP A-MSDU from the driver).
                "spp_amsdu" => spp_amsdu = num(n, k, v, 0, 2)?,
                "eapol_version" => eapol_version = num(n, k, v, 1, 3)?,
                "okc" => okc_global = num::<u8>(n, k, v, 0, 1)? == 1,
                "amsdu_tx" => amsdu_tx = num::<u8>(n, k, v, 0, 1)? == 1,
                "amsdu_max_len" => amsdu_max_len = Some(num::<usize>(n, k, v, 256, 11454)?),
                // A testing option (as wpa_supplicant's CONFIG_TESTING_OPTIONS ones): the FTE
                // MIC of every FT Reassociation Request sent wrong, for the refusal rows.
                "wsec_test_ft_bad_mic" => test_ft_bad_mic = num::<u8>(n, k, v, 0, 1)? == 1,
                "update_config" | "ap_scan" => {}
                _ => return err(n, format!("unknown key{}", shown_key(k))),
            }
        }
    }
    if in_net {
        return err(0, "network block not closed");
    }
    if networks == 0 {
        return err(0, "a network={...} block is required");
    }
    let ssid = c.ssid.clone().ok_or(ConfError { line: 0, msg: "ssid is required in the network block".into() })?;
    let security = c.security(&ssid, false)?;
    // SAE alone: management frame protection required unless set (WPA3-Personal).
    let sae_only = matches!(&security, Security::Rsn { akms, .. } if akms.iter().all(|a| matches!(a, Akm::Sae | Akm::FtSae)));
    let pmf = if sae_only && pmf.0 == 0 { (0, Mfp::Required) } else { pmf };
    let mfp = c.mfp(&security, pmf, false)?;
    let sae = c.sae(&security)?;
    let radio = driver.as_ref().is_some_and(|(_, d)| d == "nl80211");
    let address_from_radio = addr.is_none() && radio;
    let addr = match addr {
        Some(a) => a,
        None if radio => MacAddr([0x02, 0, 0, 0, 0, 0]),
        None => return err(0, "addr (the station's MAC address) is required (or driver=nl80211: the radio's address)"),
    };
    if !proto.0 && mfp.required() {
        return err(0, "proto=WPA has no management frame protection (ieee80211w=2 needs RSN)");
    }
    let mut sta = StaConfig::new(addr, &ssid, security);
    (sta.proto_rsn, sta.proto_wpa1) = proto;
    sta.bssid = bssid;
    sta.mfp = mfp;
    sta.sae = sae;
    sta.owe_group = owe_group;
    sta.owe_only = owe_only;
    sta.extended_key_id = extended_key_id;
    sta.spp_amsdu = spp_amsdu;
    sta.eapol_version = eapol_version;
    sta.okc = okc_net.unwrap_or(okc_global);
    sta.test_ft_bad_mic = test_ft_bad_mic;
    if disable_ht {
        sta.ht_capab = None;
    }
    sta.amsdu_tx = amsdu_tx;
    // The medium bounds it further at run time (`Medium::max_mpdu`: a radio's MTU).
    sta.amsdu_max_len = amsdu_max_len.unwrap_or(usize::MAX);
    let wants_eap = matches!(&sta.security, Security::Rsn { akms, .. } if akms.iter().any(|a| a.is_8021x()));
    match (&eap, wants_eap) {
        (Some(e), true) => {
            if eap_method.is_none() {
                return err(0, "key_mgmt=WPA-EAP needs eap=TLS, eap=TTLS or eap=PEAP");
            }
            match e.method {
                EapKind::Ttls | EapKind::Peap if e.password.is_none() => {
                    return err(0, format!("eap={} needs password", if e.method == EapKind::Ttls { "TTLS" } else { "PEAP" }))
                }
                EapKind::Peap if e.phase2 == Some(wsec::eap::TtlsInner::Pap) => {
                    return err(0, "eap=PEAP runs EAP-MSCHAPv2 inside: phase2=\"auth=MSCHAPV2\"")
                }
                EapKind::Ttls if e.phase2 != Some(wsec::eap::TtlsInner::Mschapv2) && e.password_is_hash => {
                    return err(0, "password=hash:... works with MSCHAPV2 only (PAP sends the password itself)")
                }
                _ => {}
            }
            if e.identity.is_empty() {
                return err(0, "key_mgmt=WPA-EAP needs identity");
            }
        }
        (None, true) => return err(0, "key_mgmt=WPA-EAP needs eap=, identity= and the certificates"),
        (Some(_), false) => return err(0, "EAP settings (identity, ca_cert, ...) need key_mgmt=WPA-EAP"),
        (None, false) => {}
    }
    if c.offload.as_deref() == Some("fpga-sim") || c.hw_config.is_some() {
        return err(0, "crypto_offload=fpga-sim is the access point's (seed 000: stations do their crypto on the host CPU)");
    }
    sta.offload = c.offload()?;
    sta.engine_threads = c.engine_threads.unwrap_or(1);
    let (interface, medium) = resolve_driver(driver, interface, wired, medium)?;
    Ok(StaFile {
        interface,
        medium,
        scan_channels,
        address_from_radio,
        ctrl_interface: ctrl,
        ctrl_interface_group: ctrl_group,
        sta,
        eap,
        bgscan,
        tap_offload: c.tap_offload.unwrap_or(true),
    })
}
