//! Reading what a user hands in: whole files and streams with a size limit, and hex text
//! with nothing but hex digits.
//!
//! Every file or stream the programs read whole goes through [`read_limited`]: a
//! configuration file, a keys file, an MPDU on standard input. A stream that never ends
//! (`/dev/zero`, a FIFO kept open) fails once the limit is passed, with the memory of the
//! limit and no more. The limits themselves are set by the callers and listed in
//! `docs/cli.md`.
use std::io::Read;
use zeroize::Zeroizing;

/// Limits of the inputs read whole (octets); `docs/cli.md` lists them.
pub mod limits {
    /// A hostapd.conf / wpa_supplicant.conf file (`wsec ap -c`, `wsec sta -c`).
    pub const CONFIG: usize = 1 << 20;
    /// A Wireshark `80211_keys` file (`wsec decrypt --keys`).
    pub const KEYS_FILE: usize = 4 << 20;
    /// One key, passphrase or PMK read from a file or standard input (`--key-file`,
    /// `--passphrase-file`, `--pmk-file`, ...): a line of text.
    pub const SECRET: usize = 4 << 10;
    /// An MPDU in hex on standard input (`wsec protect -`, `wsec unprotect -`): the longest
    /// MPDU (11 454 octets, IEEE 802.11-2020 Table 9-34) is under 35 KiB as `xx:` text.
    pub const MPDU_TEXT: usize = 1 << 20;
    /// A model scenario, cost file or hardware report (`wsec model`).
    pub const MODEL_FILE: usize = 16 << 20;
}

/// Why [`read_limited`] failed.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// More than `limit` octets.
    TooLarge {
        limit: usize,
    },
}

impl core::fmt::Display for ReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge { limit } => write!(f, "larger than the limit of {limit} octets"),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads `r` to its end, at most `limit` octets. The buffer is allocated once (no
/// reallocation leaves a copy of a secret behind in freed memory) and wiped when dropped.
pub fn read_limited<R: Read>(r: R, limit: usize) -> Result<Zeroizing<Vec<u8>>, ReadError> {
    let mut buf = Zeroizing::new(Vec::with_capacity(limit.saturating_add(1).min(1 << 16)));
    let mut r = r.take(limit as u64 + 1);
    let mut chunk = Zeroizing::new([0u8; 8192]);
    loop {
        let n = match r.read(&mut chunk[..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        if buf.len() + n > limit {
            return Err(ReadError::TooLarge { limit });
        }
        if buf.len() + n > buf.capacity() {
            // Grow by moving into a larger buffer and wiping the old one ourselves.
            let mut bigger = Zeroizing::new(Vec::with_capacity((buf.capacity() * 2).max(buf.len() + n).min(limit)));
            bigger.extend_from_slice(&buf);
            buf = bigger;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(buf)
}

/// Reads the file at `path` whole, at most `limit` octets, as UTF-8 text (wiped on drop).
pub fn read_text_file(path: &std::path::Path, limit: usize) -> Result<Zeroizing<String>, ReadError> {
    let f = std::fs::File::open(path).map_err(ReadError::Io)?;
    into_text(read_limited(f, limit)?)
}

/// `bytes` as UTF-8 text, without copying; not UTF-8 is an [`std::io::ErrorKind::InvalidData`] error.
pub fn into_text(mut bytes: Zeroizing<Vec<u8>>) -> Result<Zeroizing<String>, ReadError> {
    let v = core::mem::take(&mut *bytes);
    match String::from_utf8(v) {
        Ok(s) => Ok(Zeroizing::new(s)),
        Err(e) => {
            let _ = Zeroizing::new(e.into_bytes());
            Err(ReadError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text")))
        }
    }
}

/// The value of one hex digit (`0-9`, `a-f`, `A-F`); anything else, a sign included, is None.
pub fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes hex text of an even number of hex digits and nothing else (no sign, no `0x`,
/// no separators: callers remove the separators they allow first). Never slices inside a
/// multi-octet character.
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2).map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_refuses_signs_and_wide_characters() {
        assert_eq!(hex_decode("0aFf"), Some(vec![0x0a, 0xff]));
        assert_eq!(hex_decode("+f"), None);
        assert_eq!(hex_decode("-f"), None);
        assert_eq!(hex_decode("aéb"), None);
        assert_eq!(hex_decode("abc"), None);
    }

    #[test]
    fn limited_read_stops_past_the_limit() {
        let endless = std::io::repeat(0);
        match read_limited(endless, 1000) {
            Err(ReadError::TooLarge { limit: 1000 }) => {}
            r => panic!("an endless stream must fail at the limit, got {:?}", r.map(|v| v.len())),
        }
        assert_eq!(read_limited(&[1u8; 1000][..], 1000).unwrap().len(), 1000);
        assert_eq!(read_limited(&[7u8; 100_000][..], 100_000).unwrap()[99_999], 7);
    }
}
