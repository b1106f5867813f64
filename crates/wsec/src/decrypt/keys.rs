//! The keys a capture decryptor is given: passphrases with their SSIDs, PMKs, MSKs, WEP keys
//! and temporal keys; and Wireshark's `80211_keys` file format.
use crate::error::{Error, Result};
use crate::rsn::akm::Akm;
use zeroize::Zeroizing;

/// One key as the user gave it.
#[derive(Clone, PartialEq, Eq)]
pub enum UserKey {
    /// A WPA/WPA2 passphrase for one SSID.
    Passphrase { ssid: Vec<u8>, passphrase: Zeroizing<Vec<u8>> },
    /// A PMK (or PSK) for any network (PSK, PSK-SHA256, SAE, OWE, 802.1X...): 32 octets, or
    /// 48 for the SHA-384 AKMs (Suite B 192, 12.7.1.3, and OWE with group 20), 64 for OWE
    /// with group 21. For the FT AKMs it is the XXKey
    /// (the PSK of FT-PSK, the PMK of FT-SAE; 12.7.1.7.3).
    Pmk(Zeroizing<Vec<u8>>),
    /// The MSK an EAP method exported (RFC 3748, at least 64 octets): the PMK and the FT
    /// XXKey of 802.1X AKMs derive from it ([`msk_pmk`], [`msk_xxkey`]).
    Msk(Zeroizing<Vec<u8>>),
    /// A WEP key (5, 13 or 16 octets).
    Wep(Zeroizing<Vec<u8>>),
    /// A temporal key (TK or GTK) of any cipher: 16 or 32 octets.
    Tk(Zeroizing<Vec<u8>>),
}

impl core::fmt::Debug for UserKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            UserKey::Passphrase { ssid, .. } => write!(f, "Passphrase(ssid {:?})", String::from_utf8_lossy(ssid)),
            UserKey::Pmk(k) => write!(f, "Pmk({} octets)", k.len()),
            UserKey::Msk(k) => write!(f, "Msk({} octets)", k.len()),
            UserKey::Wep(k) => write!(f, "Wep({} octets)", k.len()),
            UserKey::Tk(k) => write!(f, "Tk({} octets)", k.len()),
        }
    }
}

/// A line of an `80211_keys` file that was refused: its number (from 1) and why. The
/// reason never quotes the line (it holds a key or passphrase).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFileError {
    pub line: usize,
    pub reason: Error,
}

impl core::fmt::Display for KeyFileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for KeyFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.reason)
    }
}

/// Shortest and longest MSK accepted: RFC 3748 7.10 requires at least 64 octets; EAP
/// methods export 64 (Wireshark takes up to 128).
pub const MSK_MIN_LEN: usize = 64;
pub const MSK_MAX_LEN: usize = 128;

/// The PMK of an 802.1X AKM from the MSK (IEEE 802.11-2020 12.7.1.3): `L(MSK, 0,
/// PMK_bits)`, 384 bits for AKM 00-0F-AC:12 (Suite B 192), 256 bits otherwise. `None` for
/// the FT AKMs, which use the XXKey ([`msk_xxkey`]), and for an MSK too short.
pub fn msk_pmk(akm: Akm, msk: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    if akm.is_ft() {
        return None;
    }
    let n = if akm == Akm::SuiteB192 { 48 } else { 32 };
    msk.get(..n).map(|p| Zeroizing::new(p.to_vec()))
}

/// The FT XXKey from the MSK (12.7.1.7.3): for FT-802.1X (AKM 3) the second 256 bits of
/// the MSK, `L(MSK, 256, 256)`; for FT-802.1X-SHA384 (AKM 13) the first 384 bits. `None`
/// for the other AKMs (FT-PSK's XXKey is the PSK, FT-SAE's the PMK).
pub fn msk_xxkey(akm: Akm, msk: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    crate::rsn::ft::msk_xxkey(akm, msk)
}

fn unhex(s: &str) -> Result<Vec<u8>> {
    let s: String = s.chars().filter(|c| !matches!(c, ':' | '-' | ' ')).collect();
    if !s.len().is_multiple_of(2) {
        return Err(Error::Malformed("hex key of odd length"));
    }
    // Hex digits only: `from_str_radix` would take a sign ("+f") and slicing by octet
    // offsets would split a multi-octet character.
    crate::input::hex_decode(&s).ok_or(Error::Malformed("key is not hex"))
}

/// Wireshark's percent-encoding in `wpa-pwd` entries (`%3a` for ':').
fn unpercent(s: &str) -> Result<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = b.get(i + 1..i + 3).ok_or(Error::Malformed("bad %-escape"))?;
            let d = |c| crate::input::hex_digit(c).ok_or(Error::Malformed("bad %-escape"));
            out.push(d(h[0])? << 4 | d(h[1])?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

impl UserKey {
    pub fn passphrase(ssid: &str, passphrase: &str) -> Result<UserKey> {
        crate::rsn::pbkdf2::check_passphrase(passphrase.as_bytes())?;
        if ssid.len() > 32 {
            return Err(Error::Malformed("SSID longer than 32 octets"));
        }
        Ok(UserKey::Passphrase { ssid: ssid.as_bytes().to_vec(), passphrase: Zeroizing::new(passphrase.as_bytes().to_vec()) })
    }

    pub fn pmk_hex(s: &str) -> Result<UserKey> {
        let k = unhex(s)?;
        if k.len() != 32 && k.len() != 48 && k.len() != 64 {
            return Err(Error::Malformed("a PMK is 32, 48 or 64 octets (OWE with group 21)"));
        }
        Ok(UserKey::Pmk(Zeroizing::new(k)))
    }

    pub fn msk_hex(s: &str) -> Result<UserKey> {
        let k = unhex(s)?;
        if !(MSK_MIN_LEN..=MSK_MAX_LEN).contains(&k.len()) {
            return Err(Error::Malformed("an MSK is 64 to 128 octets"));
        }
        Ok(UserKey::Msk(Zeroizing::new(k)))
    }

    pub fn wep_hex(s: &str) -> Result<UserKey> {
        let k = unhex(s)?;
        if ![5, 13, 16].contains(&k.len()) {
            return Err(Error::Malformed("a WEP key is 5, 13 or 16 octets"));
        }
        Ok(UserKey::Wep(Zeroizing::new(k)))
    }

    pub fn tk_hex(s: &str) -> Result<UserKey> {
        let k = unhex(s)?;
        if k.len() != 16 && k.len() != 32 {
            return Err(Error::Malformed("a TK is 16 or 32 octets"));
        }
        Ok(UserKey::Tk(Zeroizing::new(k)))
    }

    /// One line of Wireshark's `80211_keys` file: `"wpa-pwd","pass:ssid"`, `"wpa-psk","<pmk>"`,
    /// `"wep","<key>"`, `"tk","<key>"`, `"msk","<key>"` (a third field, if any, is ignored). `None` for blank
    /// and comment lines.
    pub fn from_80211_keys_line(line: &str) -> Result<Option<UserKey>> {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            return Ok(None);
        }
        let fields: Vec<&str> = l.split(',').map(|f| f.trim().trim_matches('"')).collect();
        if fields.len() < 2 {
            return Err(Error::Malformed("80211_keys line needs a type and a key"));
        }
        let (kind, val) = (fields[0], fields[1]);
        Ok(Some(match kind {
            "wpa-pwd" => {
                let (pass, ssid) = val.split_once(':').unwrap_or((val, ""));
                let (pass, ssid) = (unpercent(pass)?, unpercent(ssid)?);
                crate::rsn::pbkdf2::check_passphrase(&pass)?;
                UserKey::Passphrase { ssid, passphrase: Zeroizing::new(pass) }
            }
            "wpa-psk" => UserKey::pmk_hex(val)?,
            "wep" => UserKey::wep_hex(val)?,
            "tk" => UserKey::tk_hex(val)?,
            "msk" => UserKey::msk_hex(val)?,
            _ => return Err(Error::Unsupported("80211_keys key type (wpa-pwd, wpa-psk, wep, tk, msk)")),
        }))
    }

    /// Every key of an `80211_keys` file; the error names the line.
    pub fn from_80211_keys(text: &str) -> core::result::Result<Vec<UserKey>, KeyFileError> {
        let mut v = Vec::new();
        for (i, line) in text.lines().enumerate() {
            match UserKey::from_80211_keys_line(line) {
                Ok(Some(k)) => v.push(k),
                Ok(None) => {}
                Err(reason) => return Err(KeyFileError { line: i + 1, reason }),
            }
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wireshark_keys_file() {
        let f = "# comment\n\"wpa-pwd\",\"dictionary:linksys\"\n\"wpa-pwd\",\"pass%3aword:my%3anet\"\n\"wep\",\"1f:1f:1f:1f:1f\"\n\"wpa-psk\",\"ee51883793a6f68e9615fe73c80a3aa6f2dd0ea537bce627b929183cc6e57925\"\n\"tk\",\"1d035e8beb4f83611dc93e2657cecf69\"\n";
        let k = UserKey::from_80211_keys(f).unwrap();
        assert_eq!(k.len(), 5);
        assert!(matches!(&k[0], UserKey::Passphrase { ssid, passphrase } if ssid == b"linksys" && &passphrase[..] == b"dictionary"));
        assert!(matches!(&k[1], UserKey::Passphrase { ssid, passphrase } if ssid == b"my:net" && &passphrase[..] == b"pass:word"));
        assert!(matches!(&k[2], UserKey::Wep(w) if w.len() == 5));
        assert!(matches!(&k[3], UserKey::Pmk(p) if p.len() == 32));
        assert!(matches!(&k[4], UserKey::Tk(t) if t.len() == 16));
        let e = UserKey::from_80211_keys("# keys\n\"wep\",\"zz\"").unwrap_err();
        assert_eq!(e, KeyFileError { line: 2, reason: Error::Malformed("key is not hex") });
        assert_eq!(e.to_string(), "line 2: malformed: key is not hex");
        assert!(UserKey::from_80211_keys("\"wpa-pwd\",\"short:x\"").is_err());
        assert!(UserKey::from_80211_keys("\"foo\",\"00\"").is_err());
    }

    /// Wireshark's `"msk"` records: 64 to 128 octets; the PMK and XXKey are the slices
    /// 12.7.1.3 and 12.7.1.7.3 name (checked on an MSK whose octet i is i).
    #[test]
    fn msk_records_pmk_and_xxkey() {
        let msk: String = (0u8..64).map(|i| format!("{i:02x}")).collect();
        let k = UserKey::from_80211_keys(&format!("\"msk\",\"{msk}\"\n")).unwrap();
        let UserKey::Msk(m) = &k[0] else { panic!("{k:?}") };
        assert_eq!(m.len(), 64);
        assert_eq!(msk_pmk(Akm::Ieee8021x, m).unwrap()[..], (0u8..32).collect::<Vec<_>>()[..]);
        assert_eq!(msk_pmk(Akm::SuiteB192, m).unwrap()[..], (0u8..48).collect::<Vec<_>>()[..]);
        assert!(msk_pmk(Akm::FtIeee8021x, m).is_none());
        assert_eq!(msk_xxkey(Akm::FtIeee8021x, m).unwrap()[..], (32u8..64).collect::<Vec<_>>()[..]);
        assert_eq!(msk_xxkey(Akm::FtIeee8021xSha384, m).unwrap()[..], (0u8..48).collect::<Vec<_>>()[..]);
        assert!(msk_xxkey(Akm::FtPsk, m).is_none());
        let e = UserKey::from_80211_keys(&format!("\"msk\",\"{}\"", &msk[..126])).unwrap_err();
        assert_eq!(e.reason, Error::Malformed("an MSK is 64 to 128 octets"));
        assert_eq!(format!("{:?}", k[0]), "Msk(64 octets)");
    }

    /// A sign is not a hex digit (`u8::from_str_radix` alone takes "+f" as 0x0f), and a
    /// multi-octet character in a hex key or %-escape is an error, not a panic (slicing at
    /// octet offsets would split it).
    #[test]
    fn hex_keys_are_hex_digits_only() {
        for bad in ["+f+f+f+f+f", "1f1f1f1f+f"] {
            assert_eq!(UserKey::wep_hex(bad), Err(Error::Malformed("key is not hex")), "{bad}");
        }
        assert_eq!(UserKey::wep_hex("1f1f1f1\u{e9}f"), Err(Error::Malformed("key is not hex")));
        let e = UserKey::from_80211_keys("\"wpa-pwd\",\"password%\u{e9}:net\"").unwrap_err();
        assert_eq!(e.reason, Error::Malformed("bad %-escape"));
        let e = UserKey::from_80211_keys("\"wpa-pwd\",\"password%+f:net\"").unwrap_err();
        assert_eq!(e.reason, Error::Malformed("bad %-escape"));
    }
}
