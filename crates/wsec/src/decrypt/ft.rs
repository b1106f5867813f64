//! Fast BSS Transition (802.11r) in captures: the PTK of an FT AKM comes from the XXKey
//! through PMK-R0 and PMK-R1 (IEEE 802.11-2020 12.7.1.7), with the Mobility Domain ID and
//! the R0KH-ID/R1KH-ID an observer reads from the air:
//!
//! - FT initial mobility domain association (13.4): a 4-way handshake; message 2's Key
//!   Data carries the MDE and the FTE (R0KH-ID, R1KH-ID) of the Association Response.
//! - A transition over the air or over the DS (13.5, 13.6): the Reassociation Request's
//!   FTE holds ANonce, SNonce, the key holder IDs and a MIC under the new PTK's KCK
//!   (13.8.4), which verifies the derived key; the Reassociation Response's FTE carries the
//!   target AP's GTK wrapped with the KEK (13.8.5).
//!
//! The XXKey (12.7.1.7.3) is the PSK for FT-PSK, the PMK for FT-SAE, and comes from the MSK
//! for FT-802.1X ([`super::keys::msk_xxkey`]).
use super::{Decryptor, KeySource};
use crate::cipher::CipherSuite;
use crate::rsn::akm::{Akm, KdfHash};
use crate::rsn::ft::{self, fte_mic_len, FtElements, Fte};
use crate::rsn::kdf::Ptk;
use crate::rsn::keywrap;
use crate::wire::mac::{Header, MacAddr};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// What an observer needs besides the nonces: MDID, R0KH-ID, R1KH-ID.
#[derive(Debug, Clone, Default)]
pub(super) struct FtIds {
    pub mdid: Option<[u8; 2]>,
    pub r0kh_id: Option<Vec<u8>>,
    pub r1kh_id: Option<[u8; 6]>,
}

fn ft_elements(ies: &[u8]) -> FtElements<'_> {
    FtElements::find(ies)
}

fn parse_fte(whole: &[u8], akm: Akm) -> Option<Fte> {
    Fte::parse(whole.get(2..)?, fte_mic_len(akm)).ok()
}

/// The FTE with its MIC field zeroed (the MIC covers it so).
fn zero_mic(whole: &[u8], mic_len: usize) -> Option<Vec<u8>> {
    let mut v = whole.to_vec();
    v.get_mut(4..4 + mic_len)?.fill(0);
    Some(v)
}

impl FtIds {
    fn update(&mut self, mde: Option<&[u8]>, fte: Option<&Fte>) {
        if let Some(m) = mde.and_then(|m| ft::mdid_of(m.get(2..)?)) {
            self.mdid = Some(m);
        }
        if let Some(f) = fte {
            if f.r0kh_id.is_some() {
                self.r0kh_id.clone_from(&f.r0kh_id);
            }
            if f.r1kh_id.is_some() {
                self.r1kh_id = f.r1kh_id;
            }
        }
    }
}

impl Decryptor {
    /// The target AP refused the transition whose Reassociation Request gave the link's
    /// newest PTK (a Reassociation Response with a Status Code other than SUCCESS, e.g.
    /// 55 "invalid FTE" when the STA answered an ANonce the AP had replaced): no PTKSA
    /// was set up (13.5.2, 13.8.5), so that key and the roam it reported are dropped. The
    /// STA's MIC verified it, so nothing else tells an observer the roam did not happen.
    fn ft_refused(&mut self, bssid: MacAddr, sta: MacAddr) {
        let Some(l) = self.links.get_mut(&(bssid, sta)) else { return };
        let Some(at) = l.ft_pending.take() else { return };
        let before = l.ptks.len();
        l.ptks.retain(|(_, _, p)| *p != at);
        if l.ptks.len() == before {
            return;
        }
        if l.first_ptk_at == Some(at) {
            l.first_ptk_at = l.ptks.iter().map(|p| p.2).min();
        }
        self.stats.handshakes_verified = self.stats.handshakes_verified.saturating_sub(1);
        self.stats.keys_learnt.retain(|k| !(k.frame == at && k.aa == bssid && k.spa == sta && k.source == KeySource::FtTransition));
    }

    /// SSIDs to derive PMK-R0 with: the BSS's, else every SSID seen or given.
    fn ft_ssids(&self, bssid: &MacAddr) -> Vec<Vec<u8>> {
        if let Some(s) = self.bss.get(bssid).and_then(|b| b.ssid.clone()) {
            return vec![s];
        }
        let mut v: Vec<Vec<u8>> = self.bss.values().filter_map(|b| b.ssid.clone()).collect();
        v.extend(self.passphrases.iter().map(|(s, _)| s.clone()));
        v.sort();
        v.dedup();
        v
    }

    /// Candidate XXKeys (12.7.1.7.3): PSKs of the passphrases, the PMKs given (the PSK of
    /// FT-PSK, the PMK of FT-SAE), the MSK's part for FT-802.1X; of the AKM's length.
    fn xxkey_candidates(&mut self, bssid: &MacAddr, akm: Akm) -> Vec<Zeroizing<Vec<u8>>> {
        let want = if akm.kdf_hash() == KdfHash::Sha384 { 48 } else { 32 };
        let mut v = if akm == Akm::FtPsk { self.psk_candidates(bssid) } else { Vec::new() };
        v.extend(self.pmks.iter().cloned());
        v.extend(self.msks.iter().filter_map(|m| super::keys::msk_xxkey(akm, m)));
        v.retain(|k| k.len() == want);
        v
    }

    /// Every FT PTK the candidate keys give for this link (12.7.1.7.3-12.7.1.7.5).
    #[allow(clippy::too_many_arguments)]
    fn ft_ptks(
        &mut self,
        aa: MacAddr,
        spa: MacAddr,
        akm: Akm,
        pairwise: CipherSuite,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
        ids: &FtIds,
    ) -> Vec<Ptk> {
        let Some(mdid) = ids.mdid.or_else(|| self.bss.get(&aa).and_then(|b| b.mdid)) else { return Vec::new() };
        let (Some(r0kh), Some(r1kh)) = (ids.r0kh_id.as_deref(), ids.r1kh_id) else { return Vec::new() };
        let ssids = self.ft_ssids(&aa);
        let mut out = Vec::new();
        for xx in self.xxkey_candidates(&aa, akm) {
            for ssid in &ssids {
                let Ok(r0) = ft::derive_pmk_r0(akm, &xx, ssid, mdid, r0kh, spa.0) else { continue };
                let Ok(r1) = ft::derive_pmk_r1(akm, &r0, r1kh, spa.0) else { continue };
                if let Ok(p) = ft::derive_ft_ptk(akm, &r1, snonce, anonce, aa.0, spa.0, pairwise, 0) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// FT initial mobility domain association: the PTK candidates of a message 2, with the
    /// MDE and FTE of its Key Data (else those of the Association Response).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ft_initial_ptks(
        &mut self,
        aa: MacAddr,
        spa: MacAddr,
        akm: Akm,
        pairwise: CipherSuite,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
        m2_key_data: &[u8],
    ) -> Vec<Ptk> {
        let mut ids = self.links.get(&(aa, spa)).map(|l| l.ft.clone()).unwrap_or_default();
        let e = ft_elements(m2_key_data);
        let fte = e.fte.and_then(|f| parse_fte(f, akm));
        ids.update(e.mde, fte.as_ref());
        self.ft_ptks(aa, spa, akm, pairwise, anonce, snonce, &ids)
    }

    /// A (Re)Association Request of an FT AKM: with both nonces in its FTE it is a fast
    /// transition; the PTK whose KCK gives the FTE's MIC (Transaction Sequence 5, 13.8.4)
    /// is the new link's key.
    pub(super) fn on_ft_reassoc_req(&mut self, bssid: MacAddr, sta: MacAddr, ies: &[u8]) {
        let Some(akm) = self.links.get(&(bssid, sta)).and_then(|l| l.akm) else { return };
        let e = ft_elements(ies);
        let (Some(rsne), Some(mde), Some(fte_whole)) = (e.rsne, e.mde, e.fte) else { return };
        let Some(fte) = parse_fte(fte_whole, akm) else { return };
        let mut ids = self.links.get(&(bssid, sta)).map(|l| l.ft.clone()).unwrap_or_default();
        ids.update(Some(mde), Some(&fte));
        if let Some(l) = self.links.get_mut(&(bssid, sta)) {
            l.ft = ids.clone();
        }
        if fte.anonce == [0; 32] || fte.snonce == [0; 32] {
            return; // an initial mobility domain association: the 4-way handshake follows
        }
        let pairwise = self.pairwise_of(&bssid, &sta, 0);
        let Some(zeroed) = zero_mic(fte_whole, fte.mic.len()) else { return };
        let rsnxe = if fte.rsnxe_used { e.rsnxe } else { None };
        for ptk in self.ft_ptks(bssid, sta, akm, pairwise, &fte.anonce, &fte.snonce, &ids) {
            let Ok(mic) = ft::fte_mic(ptk.kck(), sta.0, bssid.0, 5, rsne, mde, &zeroed, rsnxe) else { continue };
            if bool::from(mic.ct_eq(&fte.mic)) {
                let tk = Zeroizing::new(ptk.tk().to_vec());
                self.learn_ptk(bssid, sta, ptk, pairwise, Some(akm), KeySource::FtTransition);
                if let Some(l) = self.links.get_mut(&(bssid, sta)) {
                    l.unverified = false;
                    // Where that key was first learnt: a retransmitted Request (same FTE)
                    // gives the key of the first one.
                    l.ft_pending = l.ptks.iter().find(|(p, _, _)| p.tk() == &tk[..]).map(|p| p.2);
                }
                return;
            }
        }
        self.links.entry((bssid, sta)).or_default().unverified = true;
    }

    /// A (Re)Association Response: its FTE names the key holders (R0KH-ID, R1KH-ID) for an
    /// initial association's 4-way handshake; after a transition it carries the GTK,
    /// wrapped with the KEK of the PTK whose KCK gives its MIC (Transaction Sequence 6).
    /// A Status Code other than SUCCESS (9.4.1.9) refuses the transition.
    pub(super) fn on_ft_assoc_resp(&mut self, h: &Header<&[u8]>, status: u16, ies: &[u8]) {
        let (sta, Some(bssid)) = (h.addr1(), h.addr3()) else { return };
        if status != 0 {
            self.ft_refused(bssid, sta);
            return;
        }
        if let Some(l) = self.links.get_mut(&(bssid, sta)) {
            l.ft_pending = None;
        }
        let e = ft_elements(ies);
        let Some(akm) = self.links.get(&(bssid, sta)).and_then(|l| l.akm).filter(|a| a.is_ft()) else { return };
        let Some(fte_whole) = e.fte else { return };
        let Some(fte) = parse_fte(fte_whole, akm) else { return };
        let Some(l) = self.links.get_mut(&(bssid, sta)) else { return };
        l.ft.update(e.mde, Some(&fte));
        let (Some(g), Some(rsne), Some(mde)) = (fte.gtk.as_ref(), e.rsne, e.mde) else { return };
        let Some(zeroed) = zero_mic(fte_whole, fte.mic.len()) else { return };
        let rsnxe = if fte.rsnxe_used { e.rsnxe } else { None };
        let mut gtk = None;
        for (ptk, _, _) in l.ptks.iter().rev() {
            let Ok(mic) = ft::fte_mic(ptk.kck(), sta.0, bssid.0, 6, rsne, mde, &zeroed, rsnxe) else { continue };
            if bool::from(mic.ct_eq(&fte.mic)) {
                if let Ok(k) = keywrap::aes_key_unwrap(ptk.kek(), &g.wrapped) {
                    gtk = k.get(..g.key_len as usize).map(|k| Zeroizing::new(k.to_vec()));
                }
                break;
            }
        }
        if let Some(k) = gtk {
            self.learn_gtk(bssid, g.key_id, k);
        }
    }
}
