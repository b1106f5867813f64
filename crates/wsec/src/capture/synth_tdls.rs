//! Synthetic TDLS (802.11z) traffic for tests of decryption: two stations associate with a
//! WPA2-PSK access point (4-way handshakes with the PTK of IEEE 802.11-2020 12.7.1.3), set
//! up a TDLS direct link with the TPK handshake (TDLS Setup Request, Response and Confirm,
//! 9.6.12.2-9.6.12.4, relayed by the AP inside frames protected with each station's PTK;
//! TPK and FTE MICs of 12.7.8), exchange data on the direct link under the TPK (To DS =
//! From DS = 0), tear the link down (9.6.12.5, on the direct link), then exchange data
//! through the AP again. MPDUs without radio header or FCS (link type 105).
use crate::cipher::{CipherSuite, KeyOptions, SuiteKey};
use crate::error::Result;
use crate::rsn::akm::{Akm, KeyDescriptorVersion};
use crate::rsn::eapol::{DescriptorType, EapolKeyRepr, KeyInfo};
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite};
use crate::rsn::kde::KeyDataBuilder;
use crate::rsn::kdf::{derive_ptk, Ptk};
use crate::rsn::keywrap;
use crate::rsn::tdls::{self, action};
use crate::wire::element;
use crate::wire::mac::{mgmt_subtype, MacAddr};
use zeroize::Zeroizing;

/// What to generate.
#[derive(Clone)]
pub struct TdlsSynthConfig {
    pub ssid: Vec<u8>,
    /// The PSK of the BSS (WPA2-PSK, CCMP-128).
    pub pmk: Zeroizing<Vec<u8>>,
    pub ap: MacAddr,
    /// TDLS initiator and responder.
    pub sta_i: MacAddr,
    pub sta_r: MacAddr,
    /// Data frames on the direct link (alternating directions).
    pub direct_frames: usize,
}

impl TdlsSynthConfig {
    pub fn new(ssid: &[u8], pmk: &[u8]) -> TdlsSynthConfig {
        TdlsSynthConfig {
            ssid: ssid.to_vec(),
            pmk: Zeroizing::new(pmk.to_vec()),
            ap: MacAddr([0x02, 0, 0, 0, 0x0c, 0x01]),
            sta_i: MacAddr([0x02, 0, 0, 0, 0x0d, 0x01]),
            sta_r: MacAddr([0x02, 0, 0, 0, 0x0d, 0x02]),
            direct_frames: 10,
        }
    }
}

struct Gen {
    c: TdlsSynthConfig,
    out: Vec<Vec<u8>>,
    seq: u16,
    pn: u64,
    n: u64,
}

const SNAP_IP: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];

impl Gen {
    fn seq(&mut self) -> [u8; 2] {
        self.seq = (self.seq + 1) & 0x0fff;
        (self.seq << 4).to_le_bytes()
    }

    /// A data frame with addresses (A1, A2, A3) and DS bits `ds` (0x01 To DS, 0x02 From
    /// DS, 0 direct), protected with `tk` if given.
    fn data(&mut self, ds: u8, a: [MacAddr; 3], body: &[u8], tk: Option<&[u8]>, key_id: u8) -> Result<()> {
        let mut f = vec![0x08, ds, 0, 0];
        for x in a {
            f.extend(x.0);
        }
        f.extend(self.seq());
        f.extend_from_slice(body);
        match tk {
            Some(k) => {
                self.pn += 1;
                let key = SuiteKey::new(CipherSuite::Ccmp128, k, KeyOptions::default())?;
                let mut p = Vec::new();
                key.as_protection().encapsulate(&f, self.pn, key_id, &mut p)?;
                self.out.push(p);
            }
            None => self.out.push(f),
        }
        Ok(())
    }

    fn ap_rsne(&self) -> Result<Vec<u8>> {
        RsnElementRepr {
            group_cipher: Some(Suite::from_cipher(CipherSuite::Ccmp128)),
            pairwise: vec![Suite::from_cipher(CipherSuite::Ccmp128)],
            akms: vec![Suite::from_akm(Akm::Psk)],
            capabilities: Some(RsnCapabilities(0)),
            ..Default::default()
        }
        .to_bytes()
    }

    fn beacon(&mut self) -> Result<()> {
        let ap = self.c.ap;
        let mut b = vec![0u8; 8];
        b.extend(100u16.to_le_bytes());
        b.extend(0x0011u16.to_le_bytes());
        element::push(&mut b, element::id::SSID, &self.c.ssid.clone())?;
        element::push(&mut b, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])?;
        b.extend(self.ap_rsne()?);
        let mut f = vec![mgmt_subtype::BEACON << 4, 0, 0, 0];
        f.extend(MacAddr::BROADCAST.0);
        f.extend(ap.0);
        f.extend(ap.0);
        f.extend(self.seq());
        f.extend(b);
        self.out.push(f);
        Ok(())
    }

    /// The 4-way handshake of `sta` (12.7.6): PTK from the PSK, GTK in message 3.
    fn four_way(&mut self, sta: MacAddr, tag: u8, gtk: &[u8]) -> Result<Ptk> {
        let ap = self.c.ap;
        let anonce: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(13).wrapping_add(tag));
        let snonce: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(17).wrapping_add(tag ^ 0x55));
        let ptk = derive_ptk(Akm::Psk, &self.c.pmk, &ap.0, &sta.0, &anonce, &snonce, CipherSuite::Ccmp128, 0)?;
        let kdv = KeyDescriptorVersion::HmacSha1Aes;
        let ki = |bits: u16| KeyInfo(KeyInfo::KEY_TYPE | bits).with_descriptor_version(kdv);
        let snap = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e];
        let mut m1 = EapolKeyRepr::new(DescriptorType::Rsn, ki(KeyInfo::KEY_ACK), 16);
        m1.key_length = 16;
        m1.replay_counter = 1;
        m1.key_nonce = anonce;
        let mut m2 = EapolKeyRepr::new(DescriptorType::Rsn, ki(KeyInfo::KEY_MIC), 16);
        m2.replay_counter = 1;
        m2.key_nonce = snonce;
        m2.key_data = self.ap_rsne()?;
        let mut kd = KeyDataBuilder::new();
        kd.element(&self.ap_rsne()?)?.gtk(1, false, gtk)?;
        let mut plain = kd.finish();
        keywrap::pad_key_data(&mut plain);
        let bits = KeyInfo::KEY_ACK | KeyInfo::KEY_MIC | KeyInfo::INSTALL | KeyInfo::SECURE | KeyInfo::ENCRYPTED_KEY_DATA;
        let mut m3 = EapolKeyRepr::new(DescriptorType::Rsn, ki(bits), 16);
        m3.key_length = 16;
        m3.replay_counter = 2;
        m3.key_nonce = anonce;
        m3.key_data = keywrap::aes_key_wrap(ptk.kek(), &plain)?;
        let mut m4 = EapolKeyRepr::new(DescriptorType::Rsn, ki(KeyInfo::KEY_MIC | KeyInfo::SECURE), 16);
        m4.replay_counter = 2;
        let akm = Akm::Psk;
        let frames = [
            (true, m1.to_bytes()?),
            (false, m2.to_bytes_with_mic(kdv, akm, ptk.kck())?),
            (true, m3.to_bytes_with_mic(kdv, akm, ptk.kck())?),
            (false, m4.to_bytes_with_mic(kdv, akm, ptk.kck())?),
        ];
        for (from_ap, e) in frames {
            let body = [&snap[..], &e].concat();
            if from_ap {
                self.data(0x02, [sta, ap, ap], &body, None, 0)?;
            } else {
                self.data(0x01, [ap, sta, ap], &body, None, 0)?;
            }
        }
        Ok(ptk)
    }

    /// A TDLS Action frame body (LLC/SNAP, EtherType 89-0d, Payload Type, Category).
    fn tdls_body(code: u8, rest: &[u8]) -> Vec<u8> {
        let mut b = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x89, 0x0d, tdls::PAYLOAD_TYPE_TDLS, tdls::CATEGORY_TDLS, code];
        b.extend_from_slice(rest);
        b
    }

    /// Relays a frame from `src` to `dst` through the AP: To DS under `src`'s PTK, then
    /// From DS under `dst`'s.
    fn via_ap(&mut self, src: (MacAddr, &[u8]), dst: (MacAddr, &[u8]), body: &[u8]) -> Result<()> {
        let ap = self.c.ap;
        self.data(0x01, [ap, src.0, dst.0], body, Some(src.1), 0)?;
        self.data(0x02, [dst.0, ap, src.0], body, Some(dst.1), 0)
    }

    fn payload(&mut self) -> Vec<u8> {
        self.n += 1;
        let n = self.n;
        let mut p = SNAP_IP.to_vec();
        p.extend((0..100u64).map(|j| j.wrapping_mul(11).wrapping_add(n) as u8));
        p
    }
}

fn fte(mic: &[u8; 16], anonce: &[u8; 32], snonce: &[u8; 32]) -> Vec<u8> {
    let mut e = vec![element::id::FAST_BSS_TRANSITION, 82, 0, 0];
    e.extend(mic);
    e.extend(anonce);
    e.extend(snonce);
    e
}

/// The whole capture (see the module documentation).
pub fn tdls_capture(c: TdlsSynthConfig) -> Result<Vec<Vec<u8>>> {
    let (ap, si, sr) = (c.ap, c.sta_i, c.sta_r);
    let mut g = Gen { c, out: Vec::new(), seq: 0, pn: 0, n: 0 };
    let gtk: Vec<u8> = (0..16u8).map(|i| i ^ 0x3c).collect();
    g.beacon()?;
    let pi = g.four_way(si, 1, &gtk)?;
    let pr = g.four_way(sr, 2, &gtk)?;
    // TDLS RSNE (12.7.8.4): group "not allowed" (00-0F-AC:7), CCMP-128, AKM 00-0F-AC:7
    // (TPK handshake), RSN Capabilities with PeerKey Enabled (b9) as wpa_supplicant sends.
    let rsne = [48, 20, 1, 0, 0, 0x0f, 0xac, 7, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 7, 0x00, 0x02];
    let timeout = [element::id::TIMEOUT_INTERVAL, 5, 2, 0xc0, 0xa8, 0, 0]; // key lifetime 43200 s
    let mut link = vec![101, 18];
    link.extend(ap.0);
    link.extend(si.0);
    link.extend(sr.0);
    let ext_cap = [element::id::EXTENDED_CAPABILITIES, 5, 0, 0, 0, 0, 0x20]; // b37: TDLS Support
    let snonce: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(3).wrapping_add(0x40));
    let anonce: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(5).wrapping_add(0x80));
    let tpk = tdls::derive_tpk(&snonce, &anonce, si.0, sr.0, ap.0, CipherSuite::Ccmp128)?;
    let rates = [element::id::SUPPORTED_RATES, 4, 0x82, 0x84, 0x8b, 0x96];
    // Setup Request (initiator -> responder): Dialog Token, Capability, elements; FTE with
    // the SNonce and no MIC.
    let req = [&[7u8, 0x11, 0x00][..], &rates, &rsne, &ext_cap, &fte(&[0; 16], &[0; 32], &snonce), &timeout, &link].concat();
    g.via_ap((si, pi.tk()), (sr, pr.tk()), &Gen::tdls_body(action::SETUP_REQUEST, &req))?;
    // Setup Response: Status 0, Dialog Token, Capability; FTE with both nonces and the MIC
    // (Transaction Sequence 2).
    let f0 = fte(&[0; 16], &anonce, &snonce);
    let mic = tdls::tdls_mic(tpk.kck(), si.0, sr.0, 2, &link, &rsne, &timeout, &f0)?;
    let resp = [&[0u8, 0, 7, 0x11, 0x00][..], &rates, &rsne, &ext_cap, &fte(&mic, &anonce, &snonce), &timeout, &link].concat();
    g.via_ap((sr, pr.tk()), (si, pi.tk()), &Gen::tdls_body(action::SETUP_RESPONSE, &resp))?;
    // Setup Confirm: Status 0, Dialog Token; MIC with Transaction Sequence 3.
    let mic = tdls::tdls_mic(tpk.kck(), si.0, sr.0, 3, &link, &rsne, &timeout, &f0)?;
    let conf = [&[0u8, 0, 7][..], &rsne, &fte(&mic, &anonce, &snonce), &timeout, &link].concat();
    g.via_ap((si, pi.tk()), (sr, pr.tk()), &Gen::tdls_body(action::SETUP_CONFIRM, &conf))?;
    // The direct link: To DS = From DS = 0, A1 = peer, A2 = sender, A3 = BSSID.
    for i in 0..g.c.direct_frames {
        let p = g.payload();
        let (from, to) = if i % 2 == 0 { (si, sr) } else { (sr, si) };
        g.data(0, [to, from, ap], &p, Some(tpk.tk()), 0)?;
    }
    // Teardown on the direct link (Reason Code 3, FTE, Link Identifier; 9.6.12.5).
    let td = [&[3u8, 0][..], &fte(&[0; 16], &anonce, &snonce), &link].concat();
    g.data(0, [sr, si, ap], &Gen::tdls_body(action::TEARDOWN, &td), Some(tpk.tk()), 0)?;
    // And through the AP again, plus a group frame.
    let p = g.payload();
    g.via_ap((si, pi.tk()), (sr, pr.tk()), &p)?;
    let p = g.payload();
    g.data(0x02, [MacAddr::BROADCAST, ap, ap], &p, Some(&gtk), 1)?;
    Ok(g.out)
}
