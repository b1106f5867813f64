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
pub mod device;
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

/// The cipher-suite table and its facts (selectors, lengths, names, uses, default lists)
/// live in `wsec-base`, which the model shares without the protocol code.
pub use wsec_base::suite::{Algorithm, CipherSuite, DefaultList, SuiteRow, UnknownSuite, Uses, SUITES, WSEC_CID};

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
    /// A CCMP-128/ECCMP key held by an external engine ([`device`]); built by the link
    /// layer when a device is attached, never by [`SuiteKey::new`].
    Device(device::DeviceKey),
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
            SuiteKey::Device(k) => k,
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
            SuiteKey::Device(k) => Box::new(k),
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
