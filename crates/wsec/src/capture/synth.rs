//! Synthetic 802.11 traffic built with wsec's own core, for tests and benchmarks of
//! decryption: a Beacon with the RSN element, a real 4-way handshake between an
//! [`Authenticator`] and a [`Supplicant`] (frames as a monitor interface would capture
//! them), then protected data in both directions and group-addressed data from the AP,
//! optionally as A-MSDUs, fragments, or after a PTK rekey onto the other Key ID (Extended
//! Key ID, IEEE 802.11-2020 12.6.21).
//!
//! Every frame is an MPDU without radio header or FCS (link type 105). The keys come from
//! the PMK given, so a decryptor given the same PMK (or passphrase) must decrypt every
//! protected frame; that is what the tests check.
use crate::cipher::{AadOptions, CipherSuite};
use crate::error::{Error, Result};
use crate::link::sa::{KeyType, Role, SecurityAssociation};
use crate::rsn::akm::Akm;
use crate::rsn::handshake::authenticator::GroupKeys;
use crate::rsn::handshake::{Authenticator, Config, Event, Supplicant, Timers};
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite};
use crate::wire::element;
use crate::wire::mac::{MacAddr, SeqControl};
use crate::wire::mgmt::{BeaconRepr, BodyRepr, Capability, MgmtRepr};
use std::collections::VecDeque;
use zeroize::Zeroizing;

/// What to generate.
#[derive(Clone)]
pub struct SynthConfig {
    pub ssid: Vec<u8>,
    pub pmk: Zeroizing<Vec<u8>>,
    pub akm: Akm,
    pub pairwise: CipherSuite,
    pub group: CipherSuite,
    pub bssid: MacAddr,
    pub sta: MacAddr,
    /// MSDU payload octets of each data frame (after LLC/SNAP).
    pub payload_len: usize,
    /// Send QoS data frames carrying two-subframe A-MSDUs.
    pub amsdu: bool,
    /// Fragment unicast data frames with this many body octets per fragment.
    pub fragment: Option<usize>,
    /// After this many data frames, rekey the PTK onto Key ID 1 (Extended Key ID).
    pub ext_key_id_rekey_after: Option<u64>,
    /// Every n-th data frame is group addressed (from the AP, GTK); 0 for none.
    pub group_every: u64,
    /// Seed of the nonces and group keys: the same configuration writes the same capture.
    /// (Test data: these keys protect nothing.)
    pub seed: u64,
}

impl SynthConfig {
    /// WPA2-PSK CCMP with 1000-octet frames, addresses of the 02-... local range.
    pub fn wpa2(ssid: &[u8], pmk: &[u8]) -> SynthConfig {
        SynthConfig {
            ssid: ssid.to_vec(),
            pmk: Zeroizing::new(pmk.to_vec()),
            akm: Akm::Psk,
            pairwise: CipherSuite::Ccmp128,
            group: CipherSuite::Ccmp128,
            bssid: MacAddr([0x02, 0, 0, 0, 0, 0x01]),
            sta: MacAddr([0x02, 0, 0, 0, 0, 0x02]),
            payload_len: 1000,
            amsdu: false,
            fragment: None,
            ext_key_id_rekey_after: None,
            group_every: 8,
            seed: 1,
        }
    }
}

/// The generator: an iterator of MPDUs.
pub struct Synth {
    cfg: SynthConfig,
    ap_rsne: Vec<u8>,
    ap: Authenticator,
    sta: Supplicant,
    sa_ap: SecurityAssociation,
    sa_sta: SecurityAssociation,
    queue: VecDeque<Vec<u8>>,
    seq: u16,
    n: u64,
    now: u64,
    rekeyed: bool,
}

fn mfp_of(akm: Akm) -> Option<CipherSuite> {
    matches!(akm, Akm::Sae | Akm::SaeExtKey | Akm::Owe | Akm::PskSha256).then_some(CipherSuite::BipCmac128)
}

impl Synth {
    pub fn new(cfg: SynthConfig) -> Result<Synth> {
        if cfg.pmk.len() != cfg.akm.pmk_len() {
            return Err(Error::BadKeyLength);
        }
        let mfp = mfp_of(cfg.akm);
        let mut caps = 0u16;
        if mfp.is_some() {
            caps |= RsnCapabilities::MFPC | RsnCapabilities::MFPR;
        }
        if cfg.ext_key_id_rekey_after.is_some() {
            caps |= RsnCapabilities::EXTENDED_KEY_ID;
        }
        let ie = RsnElementRepr {
            group_cipher: Some(Suite::from_cipher(cfg.group)),
            pairwise: vec![Suite::from_cipher(cfg.pairwise)],
            akms: vec![Suite::from_akm(cfg.akm)],
            capabilities: Some(RsnCapabilities(caps)),
            group_mgmt_cipher: mfp.map(Suite::from_cipher),
            ..Default::default()
        };
        let mut ap_rsne = vec![0u8; ie.buffer_len()];
        ie.emit(&mut ap_rsne)?;
        let hc = Config {
            akm: cfg.akm,
            pairwise: cfg.pairwise,
            group: cfg.group,
            group_mgmt: mfp,
            pmk: cfg.pmk.clone(),
            aa: cfg.bssid,
            spa: cfg.sta,
            ap_rsne: ap_rsne.clone(),
            sta_rsne: ap_rsne.clone(),
            timers: Timers { eapol_timeout_ns: 1_000_000_000, max_tries: 4 },
        };
        let mut rng = crate::rng::seeded(cfg.seed);
        let gk = GroupKeys::random(&hc, 1, &mut *rng);
        let (gtk, gtk_id) = (gk.gtk.clone(), gk.gtk_key_id);
        let mut s = Synth {
            ap: Authenticator::new(hc.clone(), gk, crate::rng::fork(&mut *rng)),
            sta: Supplicant::new(hc, crate::rng::fork(&mut *rng)),
            ap_rsne,
            cfg,
            sa_ap: SecurityAssociation::new(Role::Authenticator),
            sa_sta: SecurityAssociation::new(Role::Supplicant),
            queue: VecDeque::new(),
            seq: 0,
            n: 0,
            now: 0,
            rekeyed: false,
        };
        let b = s.beacon()?;
        s.queue.push_back(b);
        let out = s.ap.start(0);
        s.exchange(out.tx, out.events, true)?;
        // The AP's GTK goes into use once the STA has it (installed earlier, the SA would
        // protect the unicast handshake frames with it).
        let group = s.cfg.group;
        s.sa_ap.install(KeyType::Group, gtk_id, group, &gtk, AadOptions::default(), None)?;
        s.sa_ap.set_tx_key(KeyType::Group, gtk_id)?;
        Ok(s)
    }

    fn next_seq(&mut self) -> [u8; 2] {
        self.seq = (self.seq + 1) & 0x0fff;
        (self.seq << 4).to_le_bytes()
    }

    /// Beacon (9.3.3.2) with SSID, Supported Rates and the RSN element.
    fn beacon(&mut self) -> Result<Vec<u8>> {
        let mut ies = Vec::new();
        element::push(&mut ies, element::id::SSID, &self.cfg.ssid)?;
        element::push(&mut ies, element::id::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24])?;
        ies.extend_from_slice(&self.ap_rsne);
        self.seq = (self.seq + 1) & 0x0fff;
        let capability = Capability(Capability::ESS | Capability::PRIVACY);
        let body = BodyRepr::Beacon(BeaconRepr { timestamp: 0, beacon_interval: 100, capability, elements: &ies });
        let cfg = &self.cfg;
        MgmtRepr { da: MacAddr::BROADCAST, sa: cfg.bssid, bssid: cfg.bssid, seq_control: SeqControl::new(self.seq, 0), body }.to_vec()
    }

    /// A data frame header: AP -> STA (FromDS) or STA -> AP (ToDS); QoS with TID 0 and the
    /// A-MSDU Present bit when asked.
    fn header(&mut self, from_ap: bool, da: MacAddr, qos: Option<bool>) -> Vec<u8> {
        let (bssid, sta, da) = (self.cfg.bssid.0, self.cfg.sta.0, da.0);
        let mut f = vec![if qos.is_some() { 0x88 } else { 0x08 }, if from_ap { 0x02 } else { 0x01 }, 0, 0];
        if from_ap {
            f.extend(da);
            f.extend(bssid);
            f.extend(bssid);
        } else {
            f.extend(bssid);
            f.extend(sta);
            f.extend(da);
        }
        f.extend(self.next_seq());
        if let Some(amsdu) = qos {
            f.extend([if amsdu { 0x80 } else { 0x00 }, 0x00]);
        }
        f
    }

    /// Sends handshake frames back and forth until both sides are quiet. A side installs
    /// the keys of an output only after sending that output's frames (message 4 goes out
    /// under the old key, or in the clear, as in 12.7.6.5).
    fn exchange(&mut self, mut tx: Vec<Vec<u8>>, mut events: Vec<Event>, mut from_ap: bool) -> Result<()> {
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > 16 {
                return Err(Error::Malformed("synthetic handshake did not settle"));
            }
            let mut next = Vec::new();
            let mut next_events = Vec::new();
            let mut wrapped = Vec::new();
            for e in &tx {
                let da = if from_ap { self.cfg.sta } else { self.cfg.bssid };
                let mut f = self.header(from_ap, da, None);
                f.extend([0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e]);
                f.extend(e);
                // A handshake inside an established PTK travels encrypted.
                let sa = if from_ap { &mut self.sa_ap } else { &mut self.sa_sta };
                let mut p = Vec::new();
                if sa.protect(&f, &mut p).is_ok() {
                    f = p;
                }
                wrapped.push(f);
            }
            self.queue.extend(wrapped);
            self.apply(std::mem::take(&mut events), from_ap)?;
            if tx.is_empty() {
                return Ok(());
            }
            for e in tx {
                self.now += 1_000_000;
                let out = if from_ap { self.sta.handle_eapol(self.now, &e) } else { self.ap.handle_eapol(self.now, &e) };
                next.extend(out.tx);
                next_events.extend(out.events);
            }
            from_ap = !from_ap;
            tx = next;
            events = next_events;
        }
    }

    fn apply(&mut self, events: Vec<Event>, ap_side: bool) -> Result<()> {
        for e in events {
            let sa = if ap_side { &mut self.sa_ap } else { &mut self.sa_sta };
            match e {
                Event::InstallPtk { tk, cipher, key_id } => {
                    sa.install(KeyType::Pairwise, key_id, cipher, &tk, AadOptions::default(), None)?;
                }
                // Extended Key ID (the RSNEs set it when `ext_key_id_rekey_after` is): the
                // rekeyed PTK takes Key ID 1, so captures carry both IDs (12.6.21).
                Event::InstallPtkRx { tk, cipher, key_id } => sa.install_rx(key_id, cipher, &tk, AadOptions::default())?,
                Event::ActivatePtk { key_id } => sa.set_tx_key(KeyType::Pairwise, key_id)?,
                Event::InstallGtk { gtk, cipher, key_id, rsc } if !ap_side => {
                    sa.install(KeyType::Group, key_id, cipher, &gtk, AadOptions::default(), Some(rsc))?;
                }
                Event::Failed(why) => return Err(Error::Malformed(why)),
                _ => {}
            }
        }
        Ok(())
    }

    fn payload(&self, n: u64) -> Vec<u8> {
        let mut p = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
        p.extend((0..self.cfg.payload_len).map(|i| (i as u64).wrapping_mul(131).wrapping_add(n) as u8));
        p
    }

    fn data_frame(&mut self) -> Result<()> {
        self.n += 1;
        let n = self.n;
        if let Some(after) = self.cfg.ext_key_id_rekey_after {
            if n > after && !self.rekeyed {
                self.rekeyed = true;
                self.now += 1_000_000;
                let out = self.ap.rekey_ptk(self.now);
                self.exchange(out.tx, out.events, true)?;
            }
        }
        #[allow(clippy::manual_is_multiple_of)] // is_multiple_of needs Rust 1.87; MSRV is 1.85
        let group = self.cfg.group_every > 0 && n % self.cfg.group_every == 0;
        let from_ap = group || n % 2 == 1;
        let da = if group {
            MacAddr::BROADCAST
        } else if from_ap {
            self.cfg.sta
        } else {
            self.cfg.bssid
        };
        let qos = (!group && self.cfg.amsdu).then_some(true);
        let mut f = self.header(from_ap, da, qos);
        if qos.is_some() {
            // Two A-MSDU subframes (9.3.2.2.2): DA, SA, length, MSDU, padding to 4 octets.
            for k in 0..2u64 {
                let msdu = self.payload(n * 2 + k);
                f.extend(da.0);
                f.extend(if from_ap { self.cfg.bssid.0 } else { self.cfg.sta.0 });
                f.extend((msdu.len() as u16).to_be_bytes());
                f.extend(&msdu);
                if k == 0 {
                    f.resize(f.len() + (4 - (14 + msdu.len()) % 4) % 4, 0);
                }
            }
        } else {
            f.extend(self.payload(n));
        }
        let sa = if from_ap { &mut self.sa_ap } else { &mut self.sa_sta };
        match self.cfg.fragment {
            Some(sz) if !group => {
                for frag in sa.protect_fragmented(&f, sz)? {
                    self.queue.push_back(frag);
                }
            }
            _ => {
                let mut p = Vec::new();
                sa.protect(&f, &mut p)?;
                self.queue.push_back(p);
            }
        }
        Ok(())
    }
}

impl Iterator for Synth {
    type Item = Result<Vec<u8>>;
    fn next(&mut self) -> Option<Result<Vec<u8>>> {
        if self.queue.is_empty() {
            if let Err(e) = self.data_frame() {
                return Some(Err(e));
            }
        }
        self.queue.pop_front().map(Ok)
    }
}
