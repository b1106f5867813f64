//! AKM suites (IEEE 802.11-2020 9.4.2.24.3, Table 9-151) and what each implies for key
//! derivation and EAPOL-Key integrity (12.7.1.3, 12.7.2, 12.7.3).
use crate::cipher::CipherSuite;
use crate::error::{Error, Result};

/// The AKM suites wsec knows (OUI 00-0F-AC; `suite_type` is the low octet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Akm {
    /// 1: IEEE 802.1X with PRF-SHA1.
    Ieee8021x,
    /// 2: PSK with PRF-SHA1 (WPA2-Personal).
    Psk,
    /// 3: FT over IEEE 802.1X (SHA-256).
    FtIeee8021x,
    /// 4: FT with PSK (SHA-256).
    FtPsk,
    /// 5: IEEE 802.1X with SHA-256.
    Ieee8021xSha256,
    /// 6: PSK with SHA-256.
    PskSha256,
    /// 8: SAE (SHA-256).
    Sae,
    /// 9: FT over SAE (SHA-256).
    FtSae,
    /// 11: Suite B, IEEE 802.1X with SHA-256.
    SuiteB,
    /// 12: Suite B 192-bit, IEEE 802.1X with SHA-384.
    SuiteB192,
    /// 13: FT over IEEE 802.1X with SHA-384.
    FtIeee8021xSha384,
    /// 18: OWE with group 19 (SHA-256). OWE's hash follows its DH group (RFC 8110 4.4,
    /// hostapd `wpa_kck_len`/`wpa_pmk_to_ptk` by PMK length): the next two are the same
    /// suite 18 with group 20 and 21; the RSNE always names 00-0F-AC:18.
    Owe,
    /// 18 with group 20: SHA-384, PMK 48, KCK 24, KEK 32, MIC 24.
    OweSha384,
    /// 18 with group 21: SHA-512, PMK 64, KCK 32, KEK 32, MIC 32.
    OweSha512,
    /// 24: SAE with a group-dependent hash (SHA-256 for group 19, as assumed here).
    SaeExtKey,
}

/// Hash of the key derivation function (12.7.1.7.2): PRF-SHA1 or KDF-SHA256/384.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KdfHash {
    Sha1,
    Sha256,
    Sha384,
    /// OWE with group 21 only (RFC 8110 4.4).
    Sha512,
}

/// How EAPOL-Key frames are integrity-protected and their Key Data encrypted
/// (Key Descriptor Version, 12.7.2 b.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyDescriptorVersion {
    /// 1: HMAC-MD5 MIC, RC4 Key Data encryption (TKIP pairwise with a SHA1 AKM).
    HmacMd5Rc4,
    /// 2: HMAC-SHA1-128 MIC, AES Key Wrap (CCMP pairwise with a SHA1 AKM).
    HmacSha1Aes,
    /// 3: AES-128-CMAC MIC, AES Key Wrap (the *-SHA256 AKMs 3-6).
    AesCmacAes,
    /// 0: AKM-defined (SAE, OWE, Suite B, FT-SHA384...): HMAC-SHA256/384 MIC, AES Key Wrap.
    AkmDefined,
}

impl KeyDescriptorVersion {
    pub fn number(self) -> u8 {
        match self {
            KeyDescriptorVersion::AkmDefined => 0,
            KeyDescriptorVersion::HmacMd5Rc4 => 1,
            KeyDescriptorVersion::HmacSha1Aes => 2,
            KeyDescriptorVersion::AesCmacAes => 3,
        }
    }
}

impl Akm {
    pub const ALL: [Akm; 13] = [
        Akm::Ieee8021x,
        Akm::Psk,
        Akm::FtIeee8021x,
        Akm::FtPsk,
        Akm::Ieee8021xSha256,
        Akm::PskSha256,
        Akm::Sae,
        Akm::FtSae,
        Akm::SuiteB,
        Akm::SuiteB192,
        Akm::FtIeee8021xSha384,
        Akm::Owe,
        Akm::SaeExtKey,
    ];

    pub fn suite_type(self) -> u8 {
        match self {
            Akm::Ieee8021x => 1,
            Akm::Psk => 2,
            Akm::FtIeee8021x => 3,
            Akm::FtPsk => 4,
            Akm::Ieee8021xSha256 => 5,
            Akm::PskSha256 => 6,
            Akm::Sae => 8,
            Akm::FtSae => 9,
            Akm::SuiteB => 11,
            Akm::SuiteB192 => 12,
            Akm::FtIeee8021xSha384 => 13,
            Akm::Owe | Akm::OweSha384 | Akm::OweSha512 => 18,
            Akm::SaeExtKey => 24,
        }
    }

    pub fn from_suite_type(t: u8) -> Result<Akm> {
        Akm::ALL.iter().copied().find(|a| a.suite_type() == t).ok_or(Error::Unsupported("unknown AKM suite"))
    }

    /// wsec's command-line name (hostapd's `wpa_key_mgmt` names, lower case).
    pub fn name(self) -> &'static str {
        match self {
            Akm::Ieee8021x => "wpa-eap",
            Akm::Psk => "psk",
            Akm::FtIeee8021x => "ft-eap",
            Akm::FtPsk => "ft-psk",
            Akm::Ieee8021xSha256 => "wpa-eap-sha256",
            Akm::PskSha256 => "psk-sha256",
            Akm::Sae => "sae",
            Akm::FtSae => "ft-sae",
            Akm::SuiteB => "wpa-eap-suite-b",
            Akm::SuiteB192 => "wpa-eap-suite-b-192",
            Akm::FtIeee8021xSha384 => "ft-eap-sha384",
            Akm::Owe => "owe",
            Akm::OweSha384 => "owe-sha384",
            Akm::OweSha512 => "owe-sha512",
            Akm::SaeExtKey => "sae-ext-key",
        }
    }

    pub fn from_name(s: &str) -> Result<Akm> {
        let s = s.to_ascii_lowercase();
        Akm::ALL.iter().copied().find(|a| a.name() == s).ok_or(Error::Unsupported("unknown AKM name"))
    }

    /// The PTK KDF hash (12.7.1.7.2 and Table 9-151's "Key derivation type").
    pub fn kdf_hash(self) -> KdfHash {
        match self {
            Akm::Ieee8021x | Akm::Psk => KdfHash::Sha1,
            Akm::SuiteB192 | Akm::FtIeee8021xSha384 | Akm::OweSha384 => KdfHash::Sha384,
            Akm::OweSha512 => KdfHash::Sha512,
            _ => KdfHash::Sha256,
        }
    }

    /// Fast BSS Transition AKMs (PTK from PMK-R1, not used by the plain 4-way handshake).
    pub fn is_ft(self) -> bool {
        matches!(self, Akm::FtIeee8021x | Akm::FtPsk | Akm::FtSae | Akm::FtIeee8021xSha384)
    }

    /// The Key Descriptor Version of EAPOL-Key frames, given the pairwise cipher.
    pub fn key_descriptor_version(self, pairwise: CipherSuite) -> KeyDescriptorVersion {
        match self {
            Akm::Ieee8021x | Akm::Psk => {
                if pairwise == CipherSuite::Tkip {
                    KeyDescriptorVersion::HmacMd5Rc4
                } else {
                    KeyDescriptorVersion::HmacSha1Aes
                }
            }
            Akm::FtIeee8021x | Akm::FtPsk | Akm::Ieee8021xSha256 | Akm::PskSha256 => KeyDescriptorVersion::AesCmacAes,
            _ => KeyDescriptorVersion::AkmDefined,
        }
    }

    /// KCK, KEK and EAPOL-Key MIC lengths in octets (12.7.3, Table 12-11; OWE's from
    /// hostapd `wpa_kck_len`/`wpa_kek_len`/`wpa_mic_len`: half the PMK, KEK 32 beyond 32).
    pub fn kck_len(self) -> usize {
        match self.kdf_hash() {
            KdfHash::Sha384 => 24,
            KdfHash::Sha512 => 32,
            _ => 16,
        }
    }
    pub fn kek_len(self) -> usize {
        match self.kdf_hash() {
            KdfHash::Sha384 | KdfHash::Sha512 => 32,
            _ => 16,
        }
    }
    pub fn mic_len(self) -> usize {
        self.kck_len()
    }

    /// PMK length: 32 octets, 48 for the SHA-384 AKMs, 64 for OWE with group 21.
    pub fn pmk_len(self) -> usize {
        match self.kdf_hash() {
            KdfHash::Sha384 => 48,
            KdfHash::Sha512 => 64,
            _ => 32,
        }
    }

    /// OWE's AKM for a DH group (19, 20, 21), the hash of RFC 8110 4.4.
    pub fn owe_for_group(group: u16) -> Option<Akm> {
        match group {
            19 => Some(Akm::Owe),
            20 => Some(Akm::OweSha384),
            21 => Some(Akm::OweSha512),
            _ => None,
        }
    }

    /// Whether this is OWE (suite 18) with any group.
    pub fn is_owe(self) -> bool {
        matches!(self, Akm::Owe | Akm::OweSha384 | Akm::OweSha512)
    }

    /// Whether this is SAE (8, FT 9, or SAE-EXT-KEY 24).
    pub fn is_sae(self) -> bool {
        matches!(self, Akm::Sae | Akm::FtSae | Akm::SaeExtKey)
    }

    /// Whether the PMK comes from a passphrase/PSK (PSK, FT-PSK, PSK-SHA256).
    /// An AKM whose PMK comes from IEEE 802.1X (EAP): 1, 3, 5, 11, 12, 13 (12.7.1.3).
    pub fn is_8021x(self) -> bool {
        matches!(self, Akm::Ieee8021x | Akm::Ieee8021xSha256 | Akm::SuiteB | Akm::SuiteB192 | Akm::FtIeee8021x | Akm::FtIeee8021xSha384)
    }

    pub fn is_psk(self) -> bool {
        matches!(self, Akm::Psk | Akm::FtPsk | Akm::PskSha256)
    }
}

impl core::fmt::Display for Akm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_roundtrips_and_properties() {
        for a in Akm::ALL {
            assert_eq!(Akm::from_suite_type(a.suite_type()).unwrap(), a);
            assert_eq!(Akm::from_name(a.name()).unwrap(), a);
        }
        assert_eq!(Akm::Psk.key_descriptor_version(CipherSuite::Tkip).number(), 1);
        assert_eq!(Akm::Psk.key_descriptor_version(CipherSuite::Ccmp128).number(), 2);
        assert_eq!(Akm::PskSha256.key_descriptor_version(CipherSuite::Ccmp128).number(), 3);
        assert_eq!(Akm::Sae.key_descriptor_version(CipherSuite::Ccmp128).number(), 0);
        assert_eq!((Akm::SuiteB192.kck_len(), Akm::SuiteB192.kek_len(), Akm::SuiteB192.mic_len()), (24, 32, 24));
        assert!(Akm::from_suite_type(7).is_err());
        // OWE with groups 20 and 21 (hostapd wpa_kck_len/wpa_kek_len/wpa_mic_len, pmk_len/2).
        assert_eq!(
            (Akm::OweSha384.kck_len(), Akm::OweSha384.kek_len(), Akm::OweSha384.mic_len(), Akm::OweSha384.pmk_len()),
            (24, 32, 24, 48)
        );
        assert_eq!(
            (Akm::OweSha512.kck_len(), Akm::OweSha512.kek_len(), Akm::OweSha512.mic_len(), Akm::OweSha512.pmk_len()),
            (32, 32, 32, 64)
        );
        assert_eq!((Akm::Owe.kck_len(), Akm::Owe.kek_len(), Akm::Owe.mic_len(), Akm::Owe.pmk_len()), (16, 16, 16, 32));
        assert_eq!(Akm::OweSha512.suite_type(), 18);
        assert_eq!(Akm::from_suite_type(18).unwrap(), Akm::Owe);
    }
}
