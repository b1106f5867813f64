//! The station's side of SAE authentication (IEEE 802.11-2020 12.4; wpa_supplicant
//! `sme_send_authentication` / `sme_sae_auth`): the exchange replaces open system
//! authentication when the negotiated AKM is SAE, and its PMK feeds the 4-way handshake.

use super::pmksa::{Pmksa, PmksaInfo};
use super::{State, Station};
use crate::node::sae::{auth_frame, ms, rsnxe_has_h2e, SaeSettings};
use crate::node::{NodeEvent, Output, Phase};
use crate::rsn::akm::Akm;
use crate::rsn::sae::{self, Instance, PweMethod, Role};
use crate::wire::MacAddr;
use zeroize::Zeroizing;

/// dot11RSNAConfigPMKLifetime (s), wpa_supplicant's and hostapd's default.
const PMK_LIFETIME_S: u64 = 43_200;

impl Station {
    /// Start SAE with the chosen BSS (Nothing -> Committed). Hash-to-element when
    /// `sae_pwe=1`, or `sae_pwe=2` and the AP's RSNXE offers it (12.4.4.2.3).
    pub(super) fn sae_start(&mut self, now: u64, out: &mut Output) {
        let (Some(settings), Some(b)) = (self.cfg.sae.clone(), self.state.link().map(|l| l.bss.clone())) else {
            self.counters.drop("sae without sae_password");
            return self.reset(now, self.cfg.retry_ms * 5);
        };
        let h2e = match settings.pwe {
            PweMethod::HuntingAndPecking => false,
            PweMethod::HashToElement => true,
            PweMethod::Both => rsnxe_has_h2e(b.rsnxe.as_deref()),
        };
        let Some(pw) = settings.password_for(&b.bssid) else {
            self.counters.drop("sae without sae_password");
            return self.reset(now, self.cfg.retry_ms * 5);
        };
        let inst = Instance::new(
            Role::Sta,
            // dot11RSNASAERetransPeriod: the station's retry interval (`retry_ms`, 200 ms
            // by default: a lossy medium's exchange stays short, still far above an AP's
            // answer time; wpa_supplicant's `sme_auth_timer` is 1 s).
            settings.sm_config(self.cfg.retry_ms),
            h2e,
            self.cfg.addr.0,
            b.bssid.0,
            &self.cfg.ssid,
            SaeSettings::credentials(pw),
        );
        let mut inst = match inst {
            Ok(i) => Box::new(i),
            Err(_) => return self.reset(now, self.cfg.retry_ms * 5),
        };
        self.tries += 1;
        match inst.start(ms(now), &mut *self.rng) {
            Ok(outs) => {
                if let Some(l) = self.state.link_mut() {
                    l.sae = Some(inst);
                }
                self.sae_outputs(now, outs, out);
            }
            Err(_) => self.reset(now, self.cfg.retry_ms * 5),
        }
    }

    /// Rides on the cached PMKSA with the chosen AP if there is one for the negotiated AKM
    /// and it has not expired (12.6.10.3): its PMK for the 4-way handshake and its PMKID
    /// in our RSNE (in the Association Request and message 2 alike). Returns whether it
    /// did.
    pub(super) fn use_cached_pmksa(&mut self, now: u64) -> bool {
        let spa = self.cfg.addr;
        let Some(link) = self.state.link_mut() else { return false };
        let Some(n) = link.neg.as_mut() else { return false };
        let bssid = link.bss.bssid;
        // Opportunistic key caching: an 802.1X PMKSA of another AP of this network, under
        // the PMKID for this one, added beside its source; if the AP does not know it, it
        // runs EAP and that AP's entry is replaced.
        if self.cfg.okc && n.akm.is_8021x() {
            self.pmksa.opportunistic(now, &bssid, &spa, n.akm);
        }
        let Some(c) = self.pmksa.get(now, &bssid, n.akm) else { return false };
        let Ok(mut e) = crate::rsn::ie::RsnElementRepr::parse(&n.sta_rsne) else { return false };
        e.pmkids = vec![c.pmkid];
        let Ok(rsne) = e.to_bytes() else { return false };
        n.sta_rsne = rsne;
        link.sae_pmk = Some(c.pmk.clone());
        link.pmksa_in_use = true;
        link.pmksa_h2e = c.h2e;
        true
    }

    /// Caches the PMKSA of an EAP exchange with `bssid` (12.6.10.3; the PMKID of 12.7.1.3)
    /// for `lifetime_s`, so the next association with it offers its PMKID and skips EAP.
    pub(super) fn cache_eap_pmksa(&mut self, now: u64, bssid: MacAddr, akm: Akm, pmk: &[u8], lifetime_s: u64) {
        let pmkid = crate::rsn::kdf::pmkid(akm, pmk, &bssid.0, &self.cfg.addr.0);
        let expires = now.saturating_add(lifetime_s.saturating_mul(1_000_000_000));
        let e = Pmksa { aa: bssid, pmk: Zeroizing::new(pmk.to_vec()), pmkid, akm, h2e: false, expires, opportunistic: false };
        self.pmksa.insert(now, e);
    }

    /// The PMKID of the cached PMKSA with the AP `aa`, expired or not.
    pub fn pmksa_pmkid(&self, aa: &MacAddr) -> Option<[u8; 16]> {
        self.pmksa.entry(aa).map(|c| c.pmkid)
    }

    /// The cached PMKSAs that have not expired, soonest-expiring first, for the control
    /// interface's `PMKSA`.
    pub fn pmksa_list(&self, now: u64) -> Vec<PmksaInfo> {
        self.pmksa.list(now)
    }

    /// Forgets every cached PMKSA (`PMKSA_FLUSH`): the next association runs SAE or EAP.
    pub fn pmksa_flush(&mut self) {
        self.pmksa.flush();
    }

    /// Our RSNE, followed by an RSNXE with the hash-to-element bit when SAE used it: the
    /// Association Request and message 2 carry both (hostapd checks that they match and
    /// that an H2E station says so, 12.4.4.2.3).
    pub(super) fn with_rsnxe(&self, akm: Akm, mut rsne: Vec<u8>) -> Vec<u8> {
        let link = self.state.link();
        let h2e = link.and_then(|l| l.sae.as_ref()).and_then(|i| i.exchange()).is_some_and(|e| e.h2e())
            || link.is_some_and(|l| l.pmksa_in_use && l.pmksa_h2e);
        if akm == Akm::Sae && h2e {
            rsne.extend_from_slice(&crate::node::sae::rsnxe_h2e());
        }
        rsne
    }

    /// The instance's retransmission timer.
    pub(super) fn sae_timeout(&mut self, now: u64, out: &mut Output) {
        let Some(inst) = self.state.link_mut().and_then(|l| l.sae.as_mut()) else { return };
        if inst.deadline().is_some_and(|d| d <= ms(now)) {
            let outs = inst.on_timeout(ms(now));
            self.sae_outputs(now, outs, out);
        }
    }

    /// An Authentication frame of algorithm 3 from the AP.
    pub(super) fn sae_rx(&mut self, now: u64, transaction: u16, status: u16, body: &[u8], out: &mut Output) {
        if !matches!(self.state, State::Authenticating { .. }) {
            return self.counters.drop("unexpected sae authentication frame");
        }
        let Some(inst) = self.state.link_mut().and_then(|l| l.sae.as_mut()) else {
            return self.counters.drop("unexpected sae authentication frame");
        };
        self.last_from_ap = now;
        let outs = inst.receive(ms(now), transaction, status, body, &mut *self.rng, None);
        self.sae_outputs(now, outs, out);
    }

    fn sae_outputs(&mut self, now: u64, outs: Vec<sae::Output>, out: &mut Output) {
        let bssid = self.bssid().unwrap_or_default();
        for o in outs {
            match o {
                sae::Output::Send { transaction, status, body } => {
                    let seq = self.seq.take();
                    let f = auth_frame(&bssid, &self.cfg.addr, &bssid, seq, transaction, status, &body);
                    self.tx(now, f, out);
                }
                sae::Output::Accepted(keys) => {
                    let (group, h2e) = match self.state.link().and_then(|l| l.sae.as_ref()) {
                        Some(i) => (i.group().id(), i.exchange().is_some_and(|e| e.h2e())),
                        None => (0, false),
                    };
                    let akm = self.neg().map_or(Akm::Sae, |n| n.akm);
                    if let Some(l) = self.state.link_mut() {
                        l.sae_pmk = Some(Zeroizing::new(keys.pmk().to_vec()));
                    }
                    let expires = now.saturating_add(PMK_LIFETIME_S * 1_000_000_000);
                    let pmk = Zeroizing::new(keys.pmk().to_vec());
                    self.pmksa.insert(now, Pmksa { aa: bssid, pmk, pmkid: *keys.pmkid(), akm, h2e, expires, opportunistic: false });
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::SaeAuthenticated { group, h2e } });
                    self.enter_associating();
                    self.tries = 0;
                    self.send_assoc(now, out);
                    return;
                }
                sae::Output::Failed(status) => {
                    self.counters.drop("sae authentication failed");
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::SaeFailed { status } });
                    return self.reset(now, self.cfg.retry_ms * 5);
                }
            }
        }
        // Wake up for the instance's retransmission.
        if let Some(d) = self.state.link().and_then(|l| l.sae.as_ref()).and_then(|i| i.deadline()) {
            self.deadline = d.saturating_mul(1_000_000);
        }
    }
}
