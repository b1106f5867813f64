//! Opportunistic key caching (hostapd `okc=1`; wpa_supplicant `proactive_key_caching`):
//! the BSSs of one authenticator share the PMKSAs of their 802.1X AKMs, so a station that
//! ran EAP with one of them comes to another with the PMKID that AP's BSSID gives its
//! PMK (12.7.1.3) and skips EAP. IEEE 802.11-2020 12.6.10.3 leaves sharing PMKSAs between
//! APs to the implementation; hostapd's lookup (`pmksa_cache_get_okc`) runs over the PMKSA
//! caches of every BSS of its process, which [`OkcGroup`] is for the cores.
use crate::rsn::akm::Akm;
use crate::wire::mac::MacAddr;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use zeroize::Zeroizing;

/// One shared PMKSA: the PMK, where it was made, until when, and what the EAP run left
/// (for the accounting and status of the BSS that takes it).
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) origin: MacAddr,
    pub(super) pmk: Zeroizing<Vec<u8>>,
    pub(super) expires: u64,
    pub(super) run: super::dot1x::EapRun,
}

/// The PMKSAs the BSSs of one authenticator share; join each core with
/// [`super::AccessPoint::join_okc_group`].
#[derive(Default)]
pub struct OkcGroup {
    by_sta: Mutex<BTreeMap<MacAddr, Shared>>,
}

impl OkcGroup {
    pub fn new() -> Arc<OkcGroup> {
        Arc::new(OkcGroup::default())
    }

    /// A BSS made a PMKSA with `sta` (the newest one per station is kept).
    pub(super) fn publish(&self, sta: MacAddr, s: Shared) {
        if let Ok(mut m) = self.by_sta.lock() {
            m.insert(sta, s);
        }
    }

    /// The PMKSA of `sta` made at another BSS whose PMK gives `pmkid` for `bssid` under
    /// `akm` (a constant-time comparison), while unexpired.
    pub(super) fn find(&self, now: u64, sta: &MacAddr, bssid: &MacAddr, akm: Akm, pmkid: &[u8; 16]) -> Option<Shared> {
        let mut m = self.by_sta.lock().ok()?;
        m.retain(|_, s| s.expires > now);
        let s = m.get(sta).filter(|s| s.origin != *bssid)?;
        let id = crate::rsn::kdf::pmkid(akm, &s.pmk, &bssid.0, &sta.0);
        bool::from(subtle::ConstantTimeEq::ct_eq(&id[..], &pmkid[..])).then(|| s.clone())
    }
}
