//! The station's PMKSA cache (IEEE 802.11-2020 12.6.10.3, the PMKID of 12.7.1.3), as
//! wpa_supplicant's `src/rsn_supp/pmksa_cache.c` keeps it: one PMKSA per AP, made by SAE
//! or EAP, so a station that comes back to an AP (after a roam, a disconnection) offers
//! its PMKID and skips SAE or EAP. At most [`PMKSA_CACHE_SIZE`] entries; expired ones are
//! ignored and pruned. Opportunistic key caching adds an entry for a new AP derived from
//! another AP's 802.1X entry, which stays.
use crate::rsn::akm::Akm;
use crate::wire::MacAddr;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// dot11RSNAConfigPMKSACacheSize: wpa_supplicant's `pmksa_cache_max_entries`.
pub const PMKSA_CACHE_SIZE: usize = 32;

/// A PMKSA (12.6.10.1): its AP (AA), PMK, PMKID, AKM, whether SAE used hash-to-element
/// (the Association Request then carries the RSNXE again), and its expiry (ns).
pub(super) struct Pmksa {
    pub(super) aa: MacAddr,
    pub(super) pmk: Zeroizing<Vec<u8>>,
    pub(super) pmkid: [u8; 16],
    pub(super) akm: Akm,
    pub(super) h2e: bool,
    pub(super) expires: u64,
    /// Made by opportunistic key caching and not yet accepted by its AP (wpa_supplicant
    /// clears the flag once a 4-way handshake under it completes).
    pub(super) opportunistic: bool,
}

/// An entry as the control interface lists it (wpa_supplicant `pmksa_cache_list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmksaInfo {
    pub aa: MacAddr,
    pub pmkid: [u8; 16],
    pub akm: Akm,
    /// Seconds until it expires.
    pub expires_in_s: u64,
    pub opportunistic: bool,
}

/// The cache: few entries, so a vector searched by AP.
#[derive(Default)]
pub(super) struct PmksaCache {
    entries: Vec<Pmksa>,
}

impl PmksaCache {
    /// Drops the expired entries (wpa_supplicant `pmksa_cache_expire`).
    fn prune(&mut self, now: u64) {
        self.entries.retain(|c| c.expires > now);
    }

    /// Adds `e`, replacing its AP's entry (wpa_supplicant `pmksa_cache_add_entry`): when
    /// the replaced one was accepted by its AP, the entries opportunistic key caching made
    /// from its PMK go too, their PMK being superseded. A full cache loses the entry that
    /// expires soonest.
    pub(super) fn insert(&mut self, now: u64, e: Pmksa) {
        self.prune(now);
        if let Some(i) = self.entries.iter().position(|c| c.aa == e.aa) {
            let old = self.entries.swap_remove(i);
            if !old.opportunistic {
                self.entries.retain(|c| !same_pmk(&c.pmk, &old.pmk));
            }
        }
        if self.entries.len() >= PMKSA_CACHE_SIZE {
            if let Some(i) = self.entries.iter().enumerate().min_by_key(|(_, c)| c.expires).map(|(i, _)| i) {
                self.entries.swap_remove(i);
            }
        }
        self.entries.push(e);
    }

    /// The live entry with `aa` for `akm` (a PMKSA is bound to its AKM, 12.6.10.1).
    pub(super) fn get(&self, now: u64, aa: &MacAddr, akm: Akm) -> Option<&Pmksa> {
        self.entries.iter().find(|c| c.aa == *aa && c.akm == akm && c.expires > now)
    }

    /// The entry with `aa`, expired or not.
    pub(super) fn entry(&self, aa: &MacAddr) -> Option<&Pmksa> {
        self.entries.iter().find(|c| c.aa == *aa)
    }

    /// Opportunistic key caching (wpa_supplicant `pmksa_cache_get_opportunistic`): with no
    /// entry for `aa`, the newest live 802.1X entry of `akm` with another AP is copied for
    /// `aa` under the PMKID for `aa` and `spa` (12.7.1.3), marked opportunistic; the source
    /// stays. Returns whether `aa` now has an entry.
    pub(super) fn opportunistic(&mut self, now: u64, aa: &MacAddr, spa: &MacAddr, akm: Akm) -> bool {
        if self.get(now, aa, akm).is_some() {
            return true;
        }
        if !akm.is_8021x() {
            return false;
        }
        let source = self.entries.iter().filter(|c| c.aa != *aa && c.akm == akm && c.expires > now && !c.h2e).max_by_key(|c| c.expires);
        let Some(s) = source else { return false };
        let clone = Pmksa {
            aa: *aa,
            pmk: s.pmk.clone(),
            pmkid: crate::rsn::kdf::pmkid(akm, &s.pmk, &aa.0, &spa.0),
            akm,
            h2e: false,
            expires: s.expires,
            opportunistic: true,
        };
        self.insert(now, clone);
        true
    }

    /// Its AP accepted the entry with `aa` (a 4-way handshake under it completed): no
    /// longer opportunistic.
    pub(super) fn confirm(&mut self, aa: &MacAddr) {
        if let Some(c) = self.entries.iter_mut().find(|c| c.aa == *aa) {
            c.opportunistic = false;
        }
    }

    /// Forgets the entry with `aa` (its AP refused the PMKID, or the 4-way handshake under
    /// it failed); the others stay.
    pub(super) fn remove(&mut self, aa: &MacAddr) {
        self.entries.retain(|c| c.aa != *aa);
    }

    /// Forgets every entry (`PMKSA_FLUSH`).
    pub(super) fn flush(&mut self) {
        self.entries.clear();
    }

    /// The live entries, soonest-expiring first (wpa_supplicant's list order).
    pub(super) fn list(&self, now: u64) -> Vec<PmksaInfo> {
        let mut live: Vec<&Pmksa> = self.entries.iter().filter(|c| c.expires > now).collect();
        live.sort_by_key(|c| c.expires);
        live.into_iter()
            .map(|c| PmksaInfo {
                aa: c.aa,
                pmkid: c.pmkid,
                akm: c.akm,
                expires_in_s: (c.expires - now) / 1_000_000_000,
                opportunistic: c.opportunistic,
            })
            .collect()
    }
}

fn same_pmk(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;
    const SPA: MacAddr = MacAddr([2, 0, 0, 0, 0, 0x11]);

    fn ap(i: u8) -> MacAddr {
        MacAddr([2, 0, 0, 0, 0xa0, i])
    }

    fn entry(aa: MacAddr, pmk: u8, akm: Akm, expires: u64) -> Pmksa {
        Pmksa { aa, pmk: Zeroizing::new(vec![pmk; 32]), pmkid: [pmk; 16], akm, h2e: false, expires, opportunistic: false }
    }

    fn aas(c: &PmksaCache, now: u64) -> Vec<MacAddr> {
        c.list(now).into_iter().map(|e| e.aa).collect()
    }

    #[test]
    fn one_entry_per_ap_the_newest_replaces() {
        let mut c = PmksaCache::default();
        c.insert(0, entry(ap(1), 1, Akm::Sae, 100 * S));
        c.insert(0, entry(ap(2), 2, Akm::Sae, 100 * S));
        c.insert(S, entry(ap(1), 3, Akm::Sae, 101 * S));
        let l = c.list(S);
        assert_eq!(l.len(), 2, "{l:?}");
        assert_eq!(c.get(S, &ap(1), Akm::Sae).map(|e| e.pmkid), Some([3; 16]));
        assert_eq!(c.get(S, &ap(2), Akm::Sae).map(|e| e.pmkid), Some([2; 16]));
        // Bound to its AKM.
        assert!(c.get(S, &ap(1), Akm::FtSae).is_none());
    }

    #[test]
    fn a_full_cache_drops_the_entry_that_expires_soonest() {
        let mut c = PmksaCache::default();
        // 33 APs; AP 7's entry expires first, though it is not the first added.
        for i in 0..33u8 {
            let expires = if i == 7 { 50 * S } else { (100 + i as u64) * S };
            c.insert(0, entry(ap(i), i, Akm::Sae, expires));
        }
        let l = aas(&c, 0);
        assert_eq!(l.len(), PMKSA_CACHE_SIZE);
        assert!(!l.contains(&ap(7)), "the soonest-expiring entry went: {l:?}");
        assert!((0..33u8).filter(|i| *i != 7).all(|i| l.contains(&ap(i))));
        // A 34th drops the next soonest (AP 0's).
        c.insert(0, entry(ap(40), 40, Akm::Sae, 500 * S));
        let l = aas(&c, 0);
        assert_eq!(l.len(), PMKSA_CACHE_SIZE);
        assert!(!l.contains(&ap(0)) && l.contains(&ap(40)) && l.contains(&ap(1)));
        // Listed soonest-expiring first.
        assert_eq!(l[0], ap(1));
        assert_eq!(*l.last().unwrap(), ap(40));
    }

    #[test]
    fn expired_entries_are_ignored_and_make_room() {
        let mut c = PmksaCache::default();
        c.insert(0, entry(ap(1), 1, Akm::Sae, 10 * S));
        c.insert(0, entry(ap(2), 2, Akm::Sae, 20 * S));
        assert!(c.get(10 * S - 1, &ap(1), Akm::Sae).is_some());
        assert!(c.get(10 * S, &ap(1), Akm::Sae).is_none(), "expired at its expiry");
        assert_eq!(aas(&c, 15 * S), vec![ap(2)]);
        assert_eq!(c.list(15 * S)[0].expires_in_s, 5);
        // A full cache of expired entries takes new ones without evicting live ones.
        for i in 10..10 + PMKSA_CACHE_SIZE as u8 {
            c.insert(0, entry(ap(i), i, Akm::Sae, 30 * S));
        }
        c.insert(30 * S, entry(ap(100), 100, Akm::Sae, 60 * S));
        c.insert(30 * S, entry(ap(101), 101, Akm::Sae, 70 * S));
        assert_eq!(aas(&c, 30 * S), vec![ap(100), ap(101)]);
        assert!(c.entries.len() == 2, "expired entries pruned on insert");
    }

    #[test]
    fn a_refusal_removes_only_that_aps_entry() {
        let mut c = PmksaCache::default();
        for i in 1..=3 {
            c.insert(0, entry(ap(i), i, Akm::Sae, 100 * S));
        }
        c.remove(&ap(2));
        assert_eq!(aas(&c, 0), vec![ap(1), ap(3)]);
        assert!(c.get(0, &ap(2), Akm::Sae).is_none());
    }

    #[test]
    fn okc_adds_an_entry_and_keeps_its_source() {
        let mut c = PmksaCache::default();
        c.insert(0, entry(ap(1), 1, Akm::Ieee8021x, 100 * S));
        assert!(c.opportunistic(S, &ap(2), &SPA, Akm::Ieee8021x));
        let src = c.get(S, &ap(1), Akm::Ieee8021x).expect("the source stays");
        assert_eq!(src.pmkid, [1; 16]);
        assert!(!src.opportunistic);
        let okc = c.get(S, &ap(2), Akm::Ieee8021x).expect("an entry for the new AP");
        assert!(okc.opportunistic);
        assert_eq!(&okc.pmk[..], &[1; 32]);
        assert_eq!(okc.expires, 100 * S, "the source's lifetime");
        // PMKID = Truncate-128(HMAC-SHA-1(PMK, "PMK Name" || AA || SPA)), computed apart.
        let want = {
            use hmac::{Hmac, Mac};
            let mut m = <Hmac<sha1::Sha1> as Mac>::new_from_slice(&[1; 32]).unwrap();
            m.update(b"PMK Name");
            m.update(&ap(2).0);
            m.update(&SPA.0);
            let d = m.finalize().into_bytes();
            <[u8; 16]>::try_from(&d[..16]).unwrap()
        };
        assert_eq!(okc.pmkid, want);
        let l = c.list(S);
        assert_eq!(l.len(), 2);
        assert!(l.iter().any(|e| e.aa == ap(2) && e.opportunistic) && l.iter().any(|e| e.aa == ap(1) && !e.opportunistic));
        c.confirm(&ap(2));
        assert!(!c.get(S, &ap(2), Akm::Ieee8021x).unwrap().opportunistic);
    }

    #[test]
    fn okc_only_from_a_live_8021x_entry_of_the_akm() {
        let mut c = PmksaCache::default();
        c.insert(0, entry(ap(1), 1, Akm::Sae, 100 * S));
        assert!(!c.opportunistic(0, &ap(2), &SPA, Akm::Sae), "not for SAE");
        c.insert(0, entry(ap(3), 3, Akm::Ieee8021xSha256, 100 * S));
        assert!(!c.opportunistic(0, &ap(2), &SPA, Akm::Ieee8021x), "another AKM");
        c.insert(0, entry(ap(4), 4, Akm::Ieee8021x, 10 * S));
        assert!(!c.opportunistic(10 * S, &ap(2), &SPA, Akm::Ieee8021x), "expired");
        assert!(c.opportunistic(0, &ap(2), &SPA, Akm::Ieee8021x));
        assert_eq!(c.list(0).len(), 4);
    }

    #[test]
    fn a_replaced_accepted_pmk_takes_its_okc_copies_along() {
        let mut c = PmksaCache::default();
        c.insert(0, entry(ap(1), 1, Akm::Ieee8021x, 100 * S));
        assert!(c.opportunistic(0, &ap(2), &SPA, Akm::Ieee8021x));
        c.insert(0, entry(ap(3), 3, Akm::Ieee8021x, 100 * S));
        // EAP again with AP 1: its old PMK is superseded, AP 2's copy of it too.
        c.insert(S, entry(ap(1), 9, Akm::Ieee8021x, 101 * S));
        assert_eq!(aas(&c, S), vec![ap(3), ap(1)]);
        // An opportunistic entry replaced (its AP ran EAP) leaves its source alone.
        assert!(c.opportunistic(S, &ap(2), &SPA, Akm::Ieee8021x));
        c.insert(S, entry(ap(2), 7, Akm::Ieee8021x, 102 * S));
        assert_eq!(aas(&c, S), vec![ap(3), ap(1), ap(2)]);
    }

    #[test]
    fn flush_empties_it() {
        let mut c = PmksaCache::default();
        for i in 1..=3 {
            c.insert(0, entry(ap(i), i, Akm::Sae, 100 * S));
        }
        c.flush();
        assert!(c.list(0).is_empty() && c.entry(&ap(1)).is_none());
    }
}
