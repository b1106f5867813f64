//! Per-MPDU frame protection, IEEE 802.11-2020 clause 12.5.
//!
//! | module | cipher suite | clause |
//! |---|---|---|
//! | [`wep`] | WEP-40, WEP-104 | 12.5.1 |
//! | [`tkip`], [`michael`] | TKIP | 12.5.2 |
//! | [`ccmp`] | CCMP-128, CCMP-256 | 12.5.3 |
//! | [`gcmp`] | GCMP-128, GCMP-256 | 12.5.5 |
//! | [`bip`] | BIP-CMAC-128/256, BIP-GMAC-128/256 | 12.5.4, 12.5.6 |
//! | [`eccmp`] | Enhanced CCMP, 2/4/8 MIC lanes (wsec's own, vendor suites) | docs/eccmp.md |
//! | [`ccm16e`] | IEEE 802.16e AES-CCM (golden model of the hw AESCCM6) | 802.16-2004 7.5.1.2 |
//! | [`aad`] | CCMP/GCMP AAD and nonce construction | 12.5.3.3.3-4, 12.5.5.3.3-4 |
//! | [`kernel`] | the AES-CCM/GCM kernels (crate `wsec-kernel`) | - |
//!
//! Every cipher takes a whole plaintext MPDU (MAC header + body, no FCS) and returns the
//! protected MPDU, and the reverse; the [`Protection`] trait names that contract.
pub mod aad;
pub mod bip;
pub mod ccm16e;
pub mod ccmp;
pub mod eccmp;
pub mod gcmp;
/// The AES-CCM/GCM kernels and their backends: crate `wsec-kernel`'s [`wsec_kernel::aead`].
pub use wsec_kernel::aead as kernel;
pub mod michael;
pub mod mpdu;
pub mod tkip;
pub mod wep;

use crate::error::{Error, Result};
pub use crate::wire::sechdr::Pn;

/// Cipher suites of 802.11-2020 Table 9-149 (OUI 00-0F-AC), WEP, and wsec's Enhanced CCMP
/// (vendor-specific selectors, see [`CipherSuite::selector`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CipherSuite {
    Wep40,
    Wep104,
    Tkip,
    Ccmp128,
    Ccmp256,
    Gcmp128,
    Gcmp256,
    BipCmac128,
    BipCmac256,
    BipGmac128,
    BipGmac256,
    /// Enhanced CCMP with 2, 4 or 8 MIC lanes (docs/eccmp.md); AES-128, 8-octet MIC.
    Eccmp2,
    Eccmp4,
    Eccmp8,
}

/// The unregistered, locally administered CID under which wsec's ECCMP suites are selected
/// (docs/eccmp.md "Suite selectors").
pub const WSEC_CID: [u8; 3] = [0x0a, 0x57, 0x53];

impl CipherSuite {
    pub const ALL: [CipherSuite; 14] = [
        CipherSuite::Wep40,
        CipherSuite::Wep104,
        CipherSuite::Tkip,
        CipherSuite::Ccmp128,
        CipherSuite::Ccmp256,
        CipherSuite::Gcmp128,
        CipherSuite::Gcmp256,
        CipherSuite::BipCmac128,
        CipherSuite::BipCmac256,
        CipherSuite::BipGmac128,
        CipherSuite::BipGmac256,
        CipherSuite::Eccmp2,
        CipherSuite::Eccmp4,
        CipherSuite::Eccmp8,
    ];

    /// Suite type: in the 00-0F-AC OUI (Table 9-149), or for ECCMP the lane count under
    /// [`WSEC_CID`]. Use [`CipherSuite::selector`] for the OUI that goes with it.
    pub fn suite_type(self) -> u8 {
        match self {
            CipherSuite::Wep40 => 1,
            CipherSuite::Tkip => 2,
            CipherSuite::Ccmp128 => 4,
            CipherSuite::Wep104 => 5,
            CipherSuite::BipCmac128 => 6,
            CipherSuite::Gcmp128 => 8,
            CipherSuite::Gcmp256 => 9,
            CipherSuite::Ccmp256 => 10,
            CipherSuite::BipGmac128 => 11,
            CipherSuite::BipGmac256 => 12,
            CipherSuite::BipCmac256 => 13,
            CipherSuite::Eccmp2 => 2,
            CipherSuite::Eccmp4 => 4,
            CipherSuite::Eccmp8 => 8,
        }
    }

    /// OUI (or CID) and suite type of the selector (9.4.2.24.2).
    pub fn selector(self) -> ([u8; 3], u8) {
        let oui = if self.eccmp_lanes().is_some() { WSEC_CID } else { [0x00, 0x0f, 0xac] };
        (oui, self.suite_type())
    }

    /// The suite a selector names, if wsec knows it (the RSN OUI's suites and ECCMP).
    pub fn from_selector(oui: [u8; 3], suite_type: u8) -> Option<CipherSuite> {
        CipherSuite::ALL.iter().copied().find(|c| c.selector() == (oui, suite_type))
    }

    /// MIC lanes of an Enhanced CCMP suite, None for the others.
    pub fn eccmp_lanes(self) -> Option<usize> {
        match self {
            CipherSuite::Eccmp2 => Some(2),
            CipherSuite::Eccmp4 => Some(4),
            CipherSuite::Eccmp8 => Some(8),
            _ => None,
        }
    }

    /// The Enhanced CCMP suite with `lanes` MIC lanes (2, 4 or 8).
    pub fn eccmp(lanes: usize) -> Option<CipherSuite> {
        CipherSuite::ALL.iter().copied().find(|s| s.eccmp_lanes() == Some(lanes))
    }

    /// The name used on wsec's command line (hostapd's names where it has them).
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite::Wep40 => "wep-40",
            CipherSuite::Wep104 => "wep-104",
            CipherSuite::Tkip => "tkip",
            CipherSuite::Ccmp128 => "ccmp",
            CipherSuite::Ccmp256 => "ccmp-256",
            CipherSuite::Gcmp128 => "gcmp",
            CipherSuite::Gcmp256 => "gcmp-256",
            CipherSuite::BipCmac128 => "bip-cmac",
            CipherSuite::BipCmac256 => "bip-cmac-256",
            CipherSuite::BipGmac128 => "bip-gmac",
            CipherSuite::BipGmac256 => "bip-gmac-256",
            CipherSuite::Eccmp2 => "eccmp-2",
            CipherSuite::Eccmp4 => "eccmp-4",
            CipherSuite::Eccmp8 => "eccmp-8",
        }
    }

    /// Temporal key length in octets (12.7.2, Table 12-8).
    pub fn key_len(self) -> usize {
        match self {
            CipherSuite::Wep40 => 5,
            CipherSuite::Wep104 => 13,
            CipherSuite::Tkip => 32,
            CipherSuite::Ccmp128 | CipherSuite::Gcmp128 => 16,
            CipherSuite::Eccmp2 | CipherSuite::Eccmp4 | CipherSuite::Eccmp8 => 16,
            CipherSuite::BipCmac128 | CipherSuite::BipGmac128 => 16,
            CipherSuite::Ccmp256 | CipherSuite::Gcmp256 => 32,
            CipherSuite::BipCmac256 | CipherSuite::BipGmac256 => 32,
        }
    }

    /// Octets the protection adds to an MPDU: security header + MIC + ICV (for BIP, the MME).
    pub fn overhead(self) -> usize {
        match self {
            CipherSuite::Wep40 | CipherSuite::Wep104 => 4 + 4,
            CipherSuite::Tkip => 8 + 8 + 4,
            CipherSuite::Ccmp128 => 8 + 8,
            CipherSuite::Eccmp2 | CipherSuite::Eccmp4 | CipherSuite::Eccmp8 => 8 + 8,
            CipherSuite::Ccmp256 | CipherSuite::Gcmp128 | CipherSuite::Gcmp256 => 8 + 16,
            CipherSuite::BipCmac128 => 18,
            CipherSuite::BipCmac256 | CipherSuite::BipGmac128 | CipherSuite::BipGmac256 => 26,
        }
    }

    /// True for the group management suites (BIP), which add an MME instead of encrypting.
    pub fn is_bip(self) -> bool {
        matches!(self, CipherSuite::BipCmac128 | CipherSuite::BipCmac256 | CipherSuite::BipGmac128 | CipherSuite::BipGmac256)
    }
}

impl core::fmt::Display for CipherSuite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for CipherSuite {
    type Err = Error;
    fn from_str(s: &str) -> Result<CipherSuite> {
        let s = s.to_ascii_lowercase();
        Ok(match s.as_str() {
            "wep-40" | "wep40" => CipherSuite::Wep40,
            "wep-104" | "wep104" => CipherSuite::Wep104,
            "tkip" => CipherSuite::Tkip,
            "ccmp" | "ccmp-128" => CipherSuite::Ccmp128,
            "ccmp-256" => CipherSuite::Ccmp256,
            "gcmp" | "gcmp-128" => CipherSuite::Gcmp128,
            "gcmp-256" => CipherSuite::Gcmp256,
            "bip-cmac" | "bip-cmac-128" | "aes-128-cmac" => CipherSuite::BipCmac128,
            "bip-cmac-256" => CipherSuite::BipCmac256,
            "bip-gmac" | "bip-gmac-128" => CipherSuite::BipGmac128,
            "bip-gmac-256" => CipherSuite::BipGmac256,
            "eccmp-2" => CipherSuite::Eccmp2,
            "eccmp-4" => CipherSuite::Eccmp4,
            "eccmp-8" => CipherSuite::Eccmp8,
            _ => return Err(Error::Unsupported("unknown cipher suite name")),
        })
    }
}

/// Which revision's AAD rule to apply to the Order bit of QoS Data frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OrderRule {
    /// IEEE 802.11-2020 12.5.3.3.3: Order (FC b15) masked to 0 in QoS Data frames, since the
    /// bit there announces an HT Control field rather than a service class.
    #[default]
    Current,
    /// P802.11i/D7.0 (2003): Order kept, and the frame is parsed as pre-HT (Order in a QoS
    /// data frame announces no HT Control field). The D7.0 CCMP test MPDUs 3/4/5/8 follow
    /// this rule; so do captures of pre-HT QoS traffic from mac80211 before 2022.
    Draft2003,
}

/// Options of the CCMP/GCMP AAD construction that depend on negotiation, not on the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AadOptions {
    pub order_rule: OrderRule,
    /// SPP A-MSDU negotiated (both STAs set SPP A-MSDU Capable and Required, 12.5.3.3.3):
    /// the A-MSDU Present bit (QC b7) is then kept in the AAD instead of masked.
    pub spp_amsdu: bool,
}

/// What decapsulation learned besides the plaintext: the sequence number used for replay
/// detection (PN, TSC, IPN, or the WEP IV as a number) and the Key ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RxInfo {
    pub pn: Pn,
    pub key_id: u8,
}

/// Encapsulation and decapsulation of whole MPDUs (MAC header + body, no FCS).
///
/// `encapsulate` takes a plaintext MPDU with the Protected Frame bit clear and writes the
/// protected MPDU (Protected set, security header inserted, MIC/ICV appended) to `out`,
/// replacing its contents. `decapsulate` reverses it and checks integrity; on error `out` is
/// left empty and the input is untouched. Neither keeps state: PN allocation and replay
/// checks belong to [`crate::link`].
pub trait Protection {
    fn suite(&self) -> CipherSuite;
    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> Result<()>;
    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> Result<RxInfo>;
}

/// Largest MSDU body (0-2304 octets, 9.2.4.7.1) plus A-MSDU/fragment headroom: we accept
/// bodies up to the largest MPDU of 802.11-2020 (11 454 octets, VHT) and reject larger.
pub const MAX_MPDU_BODY: usize = 11454;

/// Which kernel the CCM suites (CCMP, ECCMP) and GCMP run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CcmBackend {
    /// The kernel [`kernel::current`] names: forced ([`kernel::set_backend`],
    /// `WSEC_BACKEND`) or else the fastest this CPU has.
    #[default]
    Detect,
    /// The portable kernel (no AES instructions in wsec's own code), e.g. to count the
    /// instructions a WLAN card's core would run.
    Portable,
    /// A named kernel backend (key construction fails if the CPU cannot run it).
    Kernel(kernel::Backend),
}

impl CcmBackend {
    pub(crate) fn key(self, tk: &[u8]) -> Result<kernel::CcmKey> {
        match self {
            CcmBackend::Detect => kernel::CcmKey::new(tk),
            CcmBackend::Portable => kernel::CcmKey::new_portable(tk),
            CcmBackend::Kernel(b) => kernel::CcmKey::with(tk, b),
        }
    }
}

/// What a key's protection depends on besides its suite and octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KeyOptions {
    /// AAD rules of CCMP, GCMP and ECCMP (negotiated per link); WEP, TKIP and BIP ignore it.
    pub aad: AadOptions,
    /// Kernel of CCMP, ECCMP and GCMP; the other suites ignore it.
    pub ccm_backend: CcmBackend,
}

impl From<AadOptions> for KeyOptions {
    fn from(aad: AadOptions) -> KeyOptions {
        KeyOptions { aad, ..KeyOptions::default() }
    }
}

/// A temporal key of one cipher suite, ready to protect MPDUs. [`SuiteKey::new`] is the one
/// place that maps (suite, key octets, options) to a protection: the link layer's key
/// tables, the capture decryptor and [`new_protection`] all build their keys with it.
///
/// The variants give the cipher's own API where a caller needs more than [`Protection`]:
/// TKIP's Michael key per direction (`TkipKey::*_dir`; [`Protection`] picks it from the
/// frame's From DS bit, which is right for infrastructure traffic only), CCMP's batch
/// kernels, BIP's MIC length.
#[derive(Clone, Debug)]
pub enum SuiteKey {
    Wep(wep::WepKey),
    Tkip(tkip::TkipKey),
    // Boxed: the expanded AES key schedules are large next to the other variants.
    Ccmp(Box<ccmp::Ccmp>),
    Gcmp(gcmp::Gcmp),
    Eccmp(Box<eccmp::Eccmp>),
    Bip(bip::Bip),
}

impl SuiteKey {
    /// Builds the key of `suite` from its octets: exactly [`CipherSuite::key_len`] of them
    /// (WEP-40 5, WEP-104 13; TKIP the 32-octet TK || Michael Authenticator→Supplicant ||
    /// Michael Supplicant→Authenticator), else [`Error::BadKeyLength`].
    pub fn new(suite: CipherSuite, key: &[u8], opts: KeyOptions) -> Result<SuiteKey> {
        if key.len() != suite.key_len() {
            return Err(Error::BadKeyLength);
        }
        let (aad, ccm) = (opts.aad, opts.ccm_backend);
        Ok(match suite {
            CipherSuite::Wep40 | CipherSuite::Wep104 => SuiteKey::Wep(wep::WepKey::new(key)?),
            CipherSuite::Tkip => SuiteKey::Tkip(tkip::TkipKey::new(key)?),
            CipherSuite::Ccmp128 | CipherSuite::Ccmp256 => SuiteKey::Ccmp(Box::new(ccmp::Ccmp::with_backend(key, aad, ccm)?)),
            CipherSuite::Gcmp128 | CipherSuite::Gcmp256 => SuiteKey::Gcmp(match ccm {
                CcmBackend::Detect => gcmp::Gcmp::with_options(key, aad)?,
                CcmBackend::Portable => gcmp::Gcmp::with_backend(key, aad, kernel::Backend::Portable)?,
                CcmBackend::Kernel(b) => gcmp::Gcmp::with_backend(key, aad, b)?,
            }),
            CipherSuite::Eccmp2 | CipherSuite::Eccmp4 | CipherSuite::Eccmp8 => {
                SuiteKey::Eccmp(Box::new(eccmp::Eccmp::with_backend(key, suite, aad, ccm)?))
            }
            CipherSuite::BipCmac128 | CipherSuite::BipCmac256 | CipherSuite::BipGmac128 | CipherSuite::BipGmac256 => {
                SuiteKey::Bip(bip::Bip::new(suite, key)?)
            }
        })
    }

    pub fn suite(&self) -> CipherSuite {
        self.as_protection().suite()
    }

    pub fn as_protection(&self) -> &(dyn Protection + Send + Sync) {
        match self {
            SuiteKey::Wep(k) => k,
            SuiteKey::Tkip(k) => k,
            SuiteKey::Ccmp(k) => k.as_ref(),
            SuiteKey::Gcmp(k) => k,
            SuiteKey::Eccmp(k) => k.as_ref(),
            SuiteKey::Bip(k) => k,
        }
    }

    /// The cipher itself behind [`Protection`] (no dispatch through this enum per frame).
    pub fn into_protection(self) -> Box<dyn Protection + Send + Sync> {
        match self {
            SuiteKey::Wep(k) => Box::new(k),
            SuiteKey::Tkip(k) => Box::new(k),
            SuiteKey::Ccmp(k) => k,
            SuiteKey::Gcmp(k) => Box::new(k),
            SuiteKey::Eccmp(k) => k,
            SuiteKey::Bip(k) => Box::new(k),
        }
    }
}

/// Builds the protection of `suite` from its key (for TKIP, the 32-octet TK with both
/// Michael keys): [`SuiteKey::new`] with `opts` (CCMP, GCMP, ECCMP) and the detected CCM
/// kernel.
pub fn new_protection(suite: CipherSuite, key: &[u8], opts: AadOptions) -> Result<Box<dyn Protection + Send + Sync>> {
    Ok(SuiteKey::new(suite, key, opts.into())?.into_protection())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_key_builds_every_suite_and_checks_length() {
        for s in CipherSuite::ALL {
            let key: Vec<u8> = (1..=s.key_len() as u8).collect();
            assert_eq!(SuiteKey::new(s, &key, KeyOptions::default()).unwrap().suite(), s);
            assert_eq!(new_protection(s, &key, AadOptions::default()).unwrap().suite(), s);
            assert_eq!(SuiteKey::new(s, &key[1..], KeyOptions::default()).unwrap_err(), Error::BadKeyLength);
        }
        assert_eq!(CipherSuite::eccmp(4), Some(CipherSuite::Eccmp4));
        assert_eq!(CipherSuite::eccmp(1), None);
    }

    #[test]
    fn ccm_backends_protect_alike() {
        let mut mpdu = vec![0x08, 0x01, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 3, 0x10, 0];
        mpdu.extend((0..300).map(|i| i as u8));
        let mut choices = vec![CcmBackend::Detect, CcmBackend::Portable];
        choices.extend(kernel::Backend::available().into_iter().map(CcmBackend::Kernel));
        for s in [CipherSuite::Ccmp128, CipherSuite::Ccmp256, CipherSuite::Eccmp4, CipherSuite::Gcmp128, CipherSuite::Gcmp256] {
            let key: Vec<u8> = (1..=s.key_len() as u8).collect();
            let outs: Vec<Vec<u8>> = choices
                .iter()
                .map(|&ccm_backend| {
                    let k = SuiteKey::new(s, &key, KeyOptions { ccm_backend, ..KeyOptions::default() }).unwrap();
                    let mut x = Vec::new();
                    k.as_protection().encapsulate(&mpdu, 7, 0, &mut x).unwrap();
                    x
                })
                .collect();
            for (o, c) in outs.iter().zip(&choices) {
                assert_eq!(o, &outs[0], "{s} on {c:?}");
            }
        }
    }
}
