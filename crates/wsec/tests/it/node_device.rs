//! The access point's keys in an external CCM engine (`cipher::device`, seed 000's AP with
//! its link crypto in hardware), with a software model of the engine's host interface:
//! every data frame the AP protects or opens goes through the engine; each key is loaded
//! into its key table when the handshake installs it and erased when it is replaced or its
//! station leaves; a forged frame fails the engine's MIC check; `fpga_check` catches an
//! engine that is wrong; a full key table leaves the key on the host.
use crate::nodesim;

use nodesim::{Feed, Sim, WIRED};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::device::{CcmDevice, DeviceFrame, Mismatch};
use wsec::cipher::{AadOptions, CipherSuite, Protection};
use wsec::error::{Error, Result};
use wsec::node::ap::ApConfig;
use wsec::node::sta::StaConfig;
use wsec::node::Security;
use wsec::rsn::akm::Akm;
use wsec::wire::mac::{FrameControl, MacAddr};
use zeroize::Zeroizing;

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA1: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);

#[derive(Default, Debug, Clone)]
struct State {
    slots: BTreeSet<u32>,
    loaded: u32,
    erased: u32,
    sealed: u32,
    opened: u32,
    mic_failures: u32,
    fallback: u32,
    mismatches: Vec<String>,
    /// Corrupt the output of the seal with this index (a faulty engine).
    fault_at: Option<u32>,
}

/// The engine's host interface over wsec's software CCMP: the descriptor's header prefix
/// and PN are put back into an MPDU and sealed or opened (so a descriptor that misses what
/// the nonce or AAD need gives a wrong MIC).
#[derive(Debug)]
struct Model {
    table: u32,
    check: bool,
    st: Mutex<State>,
}

impl Model {
    fn new(table: u32, check: bool) -> Arc<Model> {
        Arc::new(Model { table, check, st: Mutex::new(State::default()) })
    }
    fn st(&self) -> std::sync::MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// A copy of the state (no lock held past the call: an assertion may read it twice).
    fn s(&self) -> State {
        self.st().clone()
    }
    fn header(f: &DeviceFrame<'_>) -> Vec<u8> {
        let hl = FrameControl(u16::from_le_bytes([f.hdr[0], f.hdr[1]])).header_len().unwrap();
        f.hdr[..hl].to_vec()
    }
    fn key(f: &DeviceFrame<'_>) -> Ccmp {
        Ccmp::with_options(f.key, AadOptions { spp_amsdu: f.spp, ..Default::default() }).unwrap()
    }
}

impl CcmDevice for Model {
    fn suite(&self) -> CipherSuite {
        CipherSuite::Ccmp128
    }
    fn load_key(&self, _key: &[u8; 16]) -> Result<Option<u32>> {
        let mut s = self.st();
        let slot = (0..self.table).find(|i| !s.slots.contains(i)).ok_or(Error::Device("key table full"))?;
        s.slots.insert(slot);
        s.loaded += 1;
        Ok(Some(slot))
    }
    fn erase_key(&self, slot: u32) {
        let mut s = self.st();
        assert!(s.slots.remove(&slot), "slot {slot} erased twice");
        s.erased += 1;
    }
    fn seal(&self, f: &DeviceFrame<'_>, data: &mut [u8], mic: &mut [u8; 8]) -> Result<()> {
        assert!(f.slot.is_some_and(|s| self.st().slots.contains(&s)), "a frame under a slot not loaded");
        let mut m = Self::header(f);
        let hl = m.len();
        m[1] &= !0x40;
        m.extend_from_slice(data);
        let mut out = Vec::new();
        Self::key(f).encapsulate(&m, f.pn, 0, &mut out)?;
        data.copy_from_slice(&out[hl + 8..hl + 8 + data.len()]);
        mic.copy_from_slice(&out[hl + 8 + data.len()..]);
        let mut s = self.st();
        if s.fault_at == Some(s.sealed) {
            data[0] ^= 0x80;
        }
        s.sealed += 1;
        Ok(())
    }
    fn open(&self, f: &DeviceFrame<'_>, data: &mut [u8], mic: &[u8; 8]) -> Result<()> {
        let mut m = Self::header(f);
        m[1] |= 0x40;
        m.extend_from_slice(&[(f.pn & 0xff) as u8, (f.pn >> 8) as u8, 0, 0x20]);
        m.extend((2..6).map(|i| (f.pn >> (8 * i)) as u8));
        m.extend_from_slice(data);
        m.extend_from_slice(mic);
        let hl = m.len() - 8 - data.len() - 8;
        let mut out = Vec::new();
        match Self::key(f).decapsulate(&m, &mut out) {
            Ok(_) => {
                data.copy_from_slice(&out[hl..]);
                self.st().opened += 1;
                Ok(())
            }
            Err(Error::MicFailure) => {
                data.fill(0);
                self.st().mic_failures += 1;
                Err(Error::MicFailure)
            }
            Err(e) => Err(e),
        }
    }
    fn check(&self) -> bool {
        self.check
    }
    fn mismatch(&self, m: &Mismatch<'_>) -> Error {
        self.st().mismatches.push(format!("{:?} PN {} {} octets: {}", m.dir, m.frame.pn, m.cipher.len(), m.what));
        Error::Device("mismatch")
    }
    fn host_fallback(&self, _octets: usize) {
        self.st().fallback += 1;
    }
}

fn pmk() -> Zeroizing<Vec<u8>> {
    Zeroizing::new(wsec::rsn::pbkdf2::psk_from_passphrase(b"correct horse battery", b"wsec-test").unwrap().to_vec())
}

fn net(dev: &Arc<Model>) -> Sim {
    let sec = Security::Rsn { akms: vec![Akm::Psk], pairwise: vec![CipherSuite::Ccmp128], groups: vec![CipherSuite::Ccmp128], pmk: pmk() };
    let ap = ApConfig::new(BSSID, b"wsec-test", sec.clone());
    let stas = vec![StaConfig::new(STA1, b"wsec-test", sec.clone()), StaConfig::new(STA2, b"wsec-test", sec)];
    let mut sim = Sim::new(ap, stas, 0.0, 7, Feed::PerFrame);
    let d: Arc<dyn CcmDevice> = dev.clone();
    sim.ap.as_mut().unwrap().set_crypto_device(Some(d));
    assert!(sim.run_until(3_000, |s| s.all_established()), "network did not come up; events {:?}", sim.events);
    sim
}

fn delivered(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = frames.iter().map(|f| f[14..].to_vec()).collect();
    v.sort();
    v
}

#[test]
fn every_frame_goes_through_the_engine_and_keys_follow_the_stations() {
    let dev = Model::new(32, true);
    let mut sim = net(&dev);
    // Two PTKs and the GTK in the table.
    assert_eq!(dev.s().slots.len(), 3, "{:?}", dev.s());
    let (sealed0, opened0) = (dev.s().sealed, dev.s().opened);
    sim.sta_send(0, STA2, b"one to two");
    sim.sta_send(0, WIRED, b"one to wired");
    sim.ap_send(STA2, b"wired to two");
    sim.ap_send(MacAddr::BROADCAST, b"wired broadcast");
    sim.run(5);
    let mut want = vec![b"one to two".to_vec(), b"wired to two".to_vec(), b"wired broadcast".to_vec()];
    want.sort();
    assert_eq!(delivered(&sim.sta_host[1]), want);
    // Opened: station 1's two frames; sealed: the relay, the wired frame, the broadcast.
    assert_eq!(dev.s().opened - opened0, 2, "{:?}", dev.s());
    assert_eq!(dev.s().sealed - sealed0, 3, "{:?}", dev.s());
    assert!(dev.s().mismatches.is_empty(), "{:?}", dev.s().mismatches);
    // A PTK rekey loads the new key; station 2 leaving erases its key.
    let before = dev.s().loaded;
    sim.with_ap(|a, now, out| assert!(a.rekey_ptk(now, &STA1, out)));
    sim.run(200);
    assert_eq!(dev.s().loaded, before + 1, "{:?}", dev.s());
    sim.sta_send(0, WIRED, b"after the rekey");
    sim.run(5);
    assert!(sim.ap_host.iter().any(|f| f.ends_with(b"after the rekey")));
    let erased = dev.s().erased;
    sim.with_sta(1, |s, now, out| s.shutdown(now, out));
    sim.run(50);
    assert_eq!(dev.s().erased, erased + 1, "station 2's key leaves the table: {:?}", dev.s());
    // The AP's core dropped: every key leaves the table.
    sim.ap = None;
    assert!(dev.s().slots.is_empty(), "{:?}", dev.s());
}

#[test]
fn a_forged_frame_fails_the_engines_mic_check_and_goes_nowhere() {
    let dev = Model::new(32, true);
    let mut sim = net(&dev);
    sim.sta_send(0, WIRED, b"genuine frame to the wired side");
    let genuine = sim.air.last().unwrap().clone();
    sim.run(5);
    let host_before = sim.ap_host.len();
    let mut forged = genuine.clone();
    forged[28] = forged[28].wrapping_add(1); // PN2: past the replay counter
    let n = forged.len();
    forged[n - 12] ^= 1;
    sim.inject.push(forged);
    sim.run(5);
    assert_eq!(dev.s().mic_failures, 1, "{:?}", dev.s());
    assert_eq!(sim.ap_host.len(), host_before, "the forged frame reached the wired side");
    assert_eq!(sim.ap().counters.drops.get("mic failure"), Some(&1));
    assert!(dev.s().mismatches.is_empty(), "the software agrees the MIC fails: {:?}", dev.s().mismatches);
}

#[test]
fn fpga_check_catches_a_wrong_engine() {
    let dev = Model::new(32, true);
    let mut sim = net(&dev);
    let at = dev.s().sealed;
    dev.st().fault_at = Some(at);
    sim.ap_send(STA1, b"this frame the engine gets wrong");
    sim.run(5);
    assert_eq!(dev.s().mismatches.len(), 1, "{:?}", dev.s());
    assert!(dev.s().mismatches[0].contains("Seal"), "{:?}", dev.s().mismatches);
    assert!(sim.sta_host[0].is_empty(), "a frame the check refused went on the air");
    // Without the check the same fault reaches the air and the station's MIC check.
    let dev = Model::new(32, false);
    let mut sim = net(&dev);
    let at = dev.s().sealed;
    dev.st().fault_at = Some(at);
    sim.ap_send(STA1, b"this frame the engine gets wrong");
    sim.run(5);
    assert!(dev.s().mismatches.is_empty());
    assert!(sim.sta_host[0].is_empty());
    assert_eq!(sim.sta(0).counters.drops.get("mic failure"), Some(&1), "{:?}", sim.sta(0).counters);
}

#[test]
fn a_full_key_table_leaves_the_key_on_the_host() {
    // Room for the GTK and one PTK: the second station's PTK stays on the host.
    let dev = Model::new(2, true);
    let mut sim = net(&dev);
    assert_eq!(dev.s().slots.len(), 2);
    sim.sta_send(0, WIRED, b"one");
    sim.sta_send(1, WIRED, b"two");
    sim.run(5);
    let got: Vec<&[u8]> = sim.ap_host.iter().map(|f| &f[14..]).collect();
    assert!(got.contains(&&b"one"[..]) && got.contains(&&b"two"[..]), "{got:?}");
    assert_eq!(dev.s().fallback, 1, "{:?}", dev.s());
}
