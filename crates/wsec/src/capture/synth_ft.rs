//! Synthetic Fast BSS Transition (802.11r) traffic for tests of decryption: two access
//! points of one mobility domain and a station that
//!
//! 1. makes an FT initial mobility domain association with AP 1 (IEEE 802.11-2020 13.4):
//!    Association Request/Response with the MDE and FTE (R0KH-ID, R1KH-ID), then the 4-way
//!    handshake with the PTK from PMK-R1 (12.7.1.7), message 2 carrying RSNE (PMKR1Name),
//!    MDE and FTE, message 3 the GTK;
//! 2. roams to AP 2 over the air (13.5.2): FT Authentication (algorithm 2) with the FTE
//!    nonces, then Reassociation Request/Response with the FTE MIC (13.8.4) and the GTK
//!    subelement wrapped with the new KEK;
//! 3. roams back to AP 1 over the DS (13.5.3): FT Request/Response Action frames through
//!    AP 2, then the Reassociation with AP 1.
//!
//! After each step both directions exchange protected data and AP sends group data. Keys
//! come from the library's FT hierarchy ([`crate::rsn::ft`]); the XXKey is the PSK
//! (FT-PSK), the PMK (FT-SAE) or the MSK's second half (FT-802.1X). The frames are MPDUs
//! without radio header or FCS (link type 105).
use crate::cipher::{CipherSuite, KeyOptions, SuiteKey};
use crate::error::{Error, Result};
use crate::rsn::akm::{Akm, KdfHash};
use crate::rsn::eapol::{DescriptorType, EapolKeyRepr, KeyInfo};
use crate::rsn::ft::{self, subelement};
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite};
use crate::rsn::kde::KeyDataBuilder;
use crate::rsn::kdf::Ptk;
use crate::rsn::keywrap;
use crate::wire::element;
use crate::wire::mac::{mgmt_subtype, MacAddr};
use zeroize::Zeroizing;

/// What to generate.
#[derive(Clone)]
pub struct FtSynthConfig {
    pub akm: Akm,
    /// The XXKey: PSK (FT-PSK), PMK (FT-SAE), or L(MSK, 256, 256) (FT-802.1X).
    pub xxkey: Zeroizing<Vec<u8>>,
    pub ssid: Vec<u8>,
    pub mdid: [u8; 2],
    pub r0kh_id: Vec<u8>,
    pub ap1: MacAddr,
    pub ap2: MacAddr,
    pub sta: MacAddr,
    /// Data frames per association (each direction alternately, every 4th from the AP to
    /// broadcast).
    pub data_frames: usize,
    pub seed: u8,
}

impl FtSynthConfig {
    pub fn new(akm: Akm, xxkey: &[u8]) -> FtSynthConfig {
        FtSynthConfig {
            akm,
            xxkey: Zeroizing::new(xxkey.to_vec()),
            ssid: b"ft-net".to_vec(),
            mdid: [0xa1, 0xb2],
            r0kh_id: b"ap1.r0kh.example".to_vec(),
            ap1: MacAddr([0x02, 0, 0, 0, 0x0a, 0x01]),
            ap2: MacAddr([0x02, 0, 0, 0, 0x0a, 0x02]),
            sta: MacAddr([0x02, 0, 0, 0, 0x0b, 0x01]),
            data_frames: 12,
            seed: 1,
        }
    }
}

struct Gen {
    c: FtSynthConfig,
    out: Vec<Vec<u8>>,
    seq: u16,
    pn: u64,
    n: u64,
}

/// Key Descriptor Version of the FT AKMs' EAPOL-Key frames (12.7.2): 3 for FT-PSK and
/// FT-802.1X, 0 (AKM-defined) for FT-SAE and FT-802.1X-SHA384.
fn kdv_of(akm: Akm) -> crate::rsn::akm::KeyDescriptorVersion {
    akm.key_descriptor_version(CipherSuite::Ccmp128)
}

fn mic_len(akm: Akm) -> usize {
    if akm.kdf_hash() == KdfHash::Sha384 {
        24
    } else {
        16
    }
}

impl Gen {
    fn nonce(&self, tag: u8) -> [u8; 32] {
        core::array::from_fn(|i| (i as u8).wrapping_mul(37).wrapping_add(tag).wrapping_add(self.c.seed.wrapping_mul(101)))
    }

    fn seq(&mut self) -> [u8; 2] {
        self.seq = (self.seq + 1) & 0x0fff;
        (self.seq << 4).to_le_bytes()
    }

    fn mgmt(&mut self, subtype: u8, da: MacAddr, sa: MacAddr, bssid: MacAddr, body: &[u8]) {
        let mut f = vec![subtype << 4, 0, 0, 0];
        f.extend(da.0);
        f.extend(sa.0);
        f.extend(bssid.0);
        f.extend(self.seq());
        f.extend_from_slice(body);
        self.out.push(f);
    }

    fn rsne(&self, pmkid: Option<[u8; 16]>) -> Result<Vec<u8>> {
        let mfp = self.c.akm == Akm::FtSae;
        let caps = if mfp { RsnCapabilities::MFPC | RsnCapabilities::MFPR } else { 0 };
        RsnElementRepr {
            group_cipher: Some(Suite::from_cipher(CipherSuite::Ccmp128)),
            pairwise: vec![Suite::from_cipher(CipherSuite::Ccmp128)],
            akms: vec![Suite::from_akm(self.c.akm)],
            capabilities: Some(RsnCapabilities(caps)),
            pmkids: pmkid.into_iter().collect(),
            group_mgmt_cipher: mfp.then(|| Suite::from_cipher(CipherSuite::BipCmac128)),
            ..Default::default()
        }
        .to_bytes()
    }

    fn mde(&self) -> Vec<u8> {
        vec![element::id::MOBILITY_DOMAIN, 3, self.c.mdid[0], self.c.mdid[1], 0x01]
    }

    /// An FTE (9.4.2.47) with a zero MIC of the AKM's length.
    fn fte(&self, count: u8, anonce: &[u8; 32], snonce: &[u8; 32], r1kh: Option<MacAddr>, gtk: Option<&[u8]>) -> Vec<u8> {
        let mut b = vec![0, count];
        b.extend(vec![0u8; mic_len(self.c.akm)]);
        b.extend(anonce);
        b.extend(snonce);
        if let Some(r1) = r1kh {
            b.extend([subelement::R1KH_ID, 6]);
            b.extend(r1.0);
        }
        if let Some(g) = gtk {
            b.extend([subelement::GTK, g.len() as u8]);
            b.extend(g);
        }
        b.extend([subelement::R0KH_ID, self.c.r0kh_id.len() as u8]);
        b.extend(&self.c.r0kh_id);
        let mut e = vec![element::id::FAST_BSS_TRANSITION, b.len() as u8];
        e.extend(b);
        e
    }

    fn beacon(&mut self, ap: MacAddr) -> Result<()> {
        let mut b = vec![0u8; 8];
        b.extend(100u16.to_le_bytes());
        b.extend(0x0011u16.to_le_bytes());
        element::push(&mut b, element::id::SSID, &self.c.ssid.clone())?;
        element::push(&mut b, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])?;
        b.extend(self.rsne(None)?);
        b.extend(self.mde());
        self.mgmt(mgmt_subtype::BEACON, MacAddr::BROADCAST, ap, ap, &b);
        Ok(())
    }

    fn keys(&self, ap: MacAddr, anonce: &[u8; 32], snonce: &[u8; 32]) -> Result<(Ptk, [u8; 16], [u8; 16])> {
        let c = &self.c;
        let r0 = ft::derive_pmk_r0(c.akm, &c.xxkey, &c.ssid, c.mdid, &c.r0kh_id, c.sta.0)?;
        let r1 = ft::derive_pmk_r1(c.akm, &r0, ap.0, c.sta.0)?;
        let ptk = ft::derive_ft_ptk(c.akm, &r1, snonce, anonce, ap.0, c.sta.0, CipherSuite::Ccmp128, 0)?;
        Ok((ptk, r0.name, r1.name))
    }

    fn eapol_frame(&mut self, ap: MacAddr, from_ap: bool, eapol: &[u8], tk: Option<&[u8]>) -> Result<()> {
        let mut p = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e];
        p.extend_from_slice(eapol);
        self.data(ap, from_ap, None, p, tk, None)
    }

    /// A data frame of the link with `ap` (From DS or To DS), protected with `tk` if given.
    fn data(
        &mut self,
        ap: MacAddr,
        from_ap: bool,
        da: Option<MacAddr>,
        body: Vec<u8>,
        tk: Option<&[u8]>,
        key_id: Option<u8>,
    ) -> Result<()> {
        let sta = self.c.sta;
        let mut f = vec![0x08, if from_ap { 0x02 } else { 0x01 }, 0, 0];
        if from_ap {
            f.extend(da.unwrap_or(sta).0);
            f.extend(ap.0);
            f.extend(ap.0);
        } else {
            f.extend(ap.0);
            f.extend(sta.0);
            f.extend(da.unwrap_or(ap).0);
        }
        f.extend(self.seq());
        f.extend(body);
        match tk {
            Some(k) => {
                self.pn += 1;
                let key = SuiteKey::new(CipherSuite::Ccmp128, k, KeyOptions::default())?;
                let mut p = Vec::new();
                key.as_protection().encapsulate(&f, self.pn, key_id.unwrap_or(0), &mut p)?;
                self.out.push(p);
            }
            None => self.out.push(f),
        }
        Ok(())
    }

    fn traffic(&mut self, ap: MacAddr, tk: &[u8], gtk: &[u8], gtk_id: u8) -> Result<()> {
        for i in 0..self.c.data_frames {
            self.n += 1;
            let mut body = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
            let n = self.n;
            body.extend((0..120u64).map(|j| j.wrapping_mul(7).wrapping_add(n) as u8));
            if i % 4 == 3 {
                self.data(ap, true, Some(MacAddr::BROADCAST), body, Some(gtk), Some(gtk_id))?;
            } else {
                self.data(ap, i % 2 == 0, None, body, Some(tk), None)?;
            }
        }
        Ok(())
    }

    fn key_info(&self, bits: u16) -> KeyInfo {
        KeyInfo(KeyInfo::KEY_TYPE | bits).with_descriptor_version(kdv_of(self.c.akm))
    }

    /// FT initial mobility domain association with `ap` and its 4-way handshake.
    fn initial(&mut self, ap: MacAddr, gtk: &[u8], gtk_id: u8) -> Result<Ptk> {
        let (akm, sta) = (self.c.akm, self.c.sta);
        // Open System authentication (9.3.3.12): algorithm 0, sequence 1 and 2, status 0.
        self.mgmt(mgmt_subtype::AUTH, ap, sta, ap, &[0, 0, 1, 0, 0, 0]);
        self.mgmt(mgmt_subtype::AUTH, sta, ap, ap, &[0, 0, 2, 0, 0, 0]);
        let mut req = vec![0x11, 0x00, 0x0a, 0x00];
        element::push(&mut req, element::id::SSID, &self.c.ssid.clone())?;
        element::push(&mut req, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])?;
        req.extend(self.rsne(None)?);
        req.extend(self.mde());
        self.mgmt(mgmt_subtype::ASSOC_REQ, ap, sta, ap, &req);
        let fte_ids = self.fte(0, &[0; 32], &[0; 32], Some(ap), None);
        let mut resp = vec![0x11, 0x00, 0x00, 0x00, 0x01, 0xc0];
        element::push(&mut resp, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])?;
        resp.extend(self.mde());
        resp.extend(&fte_ids);
        self.mgmt(mgmt_subtype::ASSOC_RESP, sta, ap, ap, &resp);
        let (anonce, snonce) = (self.nonce(1), self.nonce(2));
        let (ptk, _, r1name) = self.keys(ap, &anonce, &snonce)?;
        let kdv = kdv_of(akm);
        let ml = mic_len(akm);
        // Message 1.
        let mut m1 = EapolKeyRepr::new(DescriptorType::Rsn, self.key_info(KeyInfo::KEY_ACK), ml);
        m1.key_length = 16;
        m1.replay_counter = 1;
        m1.key_nonce = anonce;
        self.eapol_frame(ap, true, &m1.to_bytes()?, None)?;
        // Message 2: RSNE with PMKR1Name, MDE, FTE of the Association Response.
        let mut m2 = EapolKeyRepr::new(DescriptorType::Rsn, self.key_info(KeyInfo::KEY_MIC), ml);
        m2.replay_counter = 1;
        m2.key_nonce = snonce;
        m2.key_data = [self.rsne(Some(r1name))?, self.mde(), fte_ids.clone()].concat();
        self.eapol_frame(ap, false, &m2.to_bytes_with_mic(kdv, akm, ptk.kck())?, None)?;
        // Message 3: RSNE, MDE, FTE and the GTK KDE, wrapped with the KEK.
        let mut kd = KeyDataBuilder::new();
        kd.element(&self.rsne(Some(r1name))?)?.element(&self.mde())?;
        kd.gtk(gtk_id, false, gtk)?;
        let mut plain = kd.finish();
        plain.extend(&fte_ids);
        keywrap::pad_key_data(&mut plain);
        let bits = KeyInfo::KEY_ACK | KeyInfo::KEY_MIC | KeyInfo::INSTALL | KeyInfo::SECURE | KeyInfo::ENCRYPTED_KEY_DATA;
        let mut m3 = EapolKeyRepr::new(DescriptorType::Rsn, self.key_info(bits), ml);
        m3.key_length = 16;
        m3.replay_counter = 2;
        m3.key_nonce = anonce;
        m3.key_data = keywrap::aes_key_wrap(ptk.kek(), &plain)?;
        self.eapol_frame(ap, true, &m3.to_bytes_with_mic(kdv, akm, ptk.kck())?, None)?;
        // Message 4.
        let mut m4 = EapolKeyRepr::new(DescriptorType::Rsn, self.key_info(KeyInfo::KEY_MIC | KeyInfo::SECURE), ml);
        m4.replay_counter = 2;
        self.eapol_frame(ap, false, &m4.to_bytes_with_mic(kdv, akm, ptk.kck())?, None)?;
        Ok(ptk)
    }

    /// A fast BSS transition from `cur` to `target`, over the air or over the DS (through
    /// `cur`), then the Reassociation with `target` (13.8.4, 13.8.5).
    #[allow(clippy::too_many_arguments)]
    fn transition(&mut self, cur: MacAddr, cur_tk: &[u8], target: MacAddr, over_ds: bool, tag: u8, gtk: &[u8], gtk_id: u8) -> Result<Ptk> {
        let sta = self.c.sta;
        let (anonce, snonce) = (self.nonce(tag), self.nonce(tag + 1));
        let (ptk, r0name, r1name) = self.keys(target, &anonce, &snonce)?;
        let req_ies = [self.rsne(Some(r0name))?, self.mde(), self.fte(0, &[0; 32], &snonce, None, None)].concat();
        let resp_ies = [self.rsne(Some(r1name))?, self.mde(), self.fte(0, &anonce, &snonce, Some(target), None)].concat();
        if over_ds {
            // FT Request/Response Action frames (9.6.8.2, 9.6.8.3), category 6, to and from
            // the current AP. With MFP they are robust and go protected under its PTK.
            let mut rq = vec![6, 1];
            rq.extend(sta.0);
            rq.extend(target.0);
            rq.extend(&req_ies);
            let mut rs = vec![6, 2];
            rs.extend(sta.0);
            rs.extend(target.0);
            rs.extend([0, 0]);
            rs.extend(&resp_ies);
            let mfp = self.c.akm == Akm::FtSae;
            for (da, sa, body) in [(cur, sta, rq), (sta, cur, rs)] {
                self.mgmt(mgmt_subtype::ACTION, da, sa, cur, &body);
                if mfp {
                    let f = self.out.pop().ok_or(Error::Malformed("no frame"))?;
                    self.pn += 1;
                    let key = SuiteKey::new(CipherSuite::Ccmp128, cur_tk, KeyOptions::default())?;
                    let mut p = Vec::new();
                    key.as_protection().encapsulate(&f, self.pn, 0, &mut p)?;
                    self.out.push(p);
                }
            }
        } else {
            // FT Authentication (algorithm 2, 9.3.3.12).
            let mut a1 = vec![2, 0, 1, 0, 0, 0];
            a1.extend(&req_ies);
            let mut a2 = vec![2, 0, 2, 0, 0, 0];
            a2.extend(&resp_ies);
            self.mgmt(mgmt_subtype::AUTH, target, sta, target, &a1);
            self.mgmt(mgmt_subtype::AUTH, sta, target, target, &a2);
        }
        // Reassociation Request: RSNE (PMKR1Name), MDE, FTE with the MIC (TSN 5).
        let rsne = self.rsne(Some(r1name))?;
        let mde = self.mde();
        let mut fte = self.fte(3, &anonce, &snonce, Some(target), None);
        let mic = ft::fte_mic(ptk.kck(), sta.0, target.0, 5, &rsne, &mde, &fte, None)?;
        fte[4..4 + mic.len()].copy_from_slice(&mic);
        let mut req = vec![0x11, 0x00, 0x0a, 0x00];
        req.extend(cur.0);
        element::push(&mut req, element::id::SSID, &self.c.ssid.clone())?;
        element::push(&mut req, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])?;
        req.extend(&rsne);
        req.extend(&mde);
        req.extend(&fte);
        self.mgmt(mgmt_subtype::REASSOC_REQ, target, sta, target, &req);
        // Reassociation Response: the GTK subelement (Key Info with the Key ID, Key Length,
        // RSC, the GTK wrapped with the KEK) and the MIC (TSN 6).
        let mut g = Vec::new();
        g.extend((gtk_id as u16 & 3).to_le_bytes());
        g.push(gtk.len() as u8);
        g.extend([0u8; 8]);
        g.extend(keywrap::aes_key_wrap(ptk.kek(), gtk)?);
        let mut fte = self.fte(3, &anonce, &snonce, Some(target), Some(&g));
        let mic = ft::fte_mic(ptk.kck(), sta.0, target.0, 6, &rsne, &mde, &fte, None)?;
        fte[4..4 + mic.len()].copy_from_slice(&mic);
        let mut resp = vec![0x11, 0x00, 0x00, 0x00, 0x01, 0xc0];
        element::push(&mut resp, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])?;
        resp.extend(&rsne);
        resp.extend(&mde);
        resp.extend(&fte);
        self.mgmt(mgmt_subtype::REASSOC_RESP, sta, target, target, &resp);
        Ok(ptk)
    }
}

/// The whole capture: Beacons of both APs, the initial association with AP 1 and its
/// traffic, the roam to AP 2 over the air and its traffic, the roam back to AP 1 over the
/// DS and its traffic.
pub fn ft_capture(c: FtSynthConfig) -> Result<Vec<Vec<u8>>> {
    if !c.akm.is_ft() {
        return Err(Error::Unsupported("not an FT AKM"));
    }
    let (ap1, ap2) = (c.ap1, c.ap2);
    let mut g = Gen { c, out: Vec::new(), seq: 0, pn: 0, n: 0 };
    let gtk1: Vec<u8> = (0..16u8).map(|i| i ^ 0x5a ^ g.c.seed).collect();
    let gtk2: Vec<u8> = (0..16u8).map(|i| i ^ 0xa5 ^ g.c.seed).collect();
    g.beacon(ap1)?;
    g.beacon(ap2)?;
    let p1 = g.initial(ap1, &gtk1, 1)?;
    g.traffic(ap1, p1.tk(), &gtk1, 1)?;
    let p2 = g.transition(ap1, p1.tk(), ap2, false, 10, &gtk2, 2)?;
    g.traffic(ap2, p2.tk(), &gtk2, 2)?;
    let p3 = g.transition(ap2, p2.tk(), ap1, true, 20, &gtk1, 1)?;
    g.traffic(ap1, p3.tk(), &gtk1, 1)?;
    Ok(g.out)
}
