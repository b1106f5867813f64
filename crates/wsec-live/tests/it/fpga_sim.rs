//! The Verilog engine as `wsec ap`'s crypto device (`crypto_offload=fpga-sim`): the engine
//! process of `hw/run engine CFG` (a Verilator model behind the descriptor ring), driven
//! through the core's `DeviceKey` exactly as the access point drives it. Random MPDUs
//! (data with and without QoS, 4 addresses, management frames, 0-2,304 octets) are sealed
//! by the RTL and compared octet for octet with wsec's software suite; the software's
//! frames are opened by the RTL; every frame tampered in one bit fails the RTL's MIC check
//! and its plaintext comes back zeroed; key-table slots are loaded and erased with the
//! keys. Built by `scripts/test` before the tests (`hw/run engine`); a missing engine fails.
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::sync::Arc;
use wsec::cipher::device::{CcmDevice, DeviceKey};
use wsec::cipher::{AadOptions, CipherSuite, Protection, SuiteKey};
use wsec::error::Error;
use wsec_live::fpga::{FpgaOptions, FpgaSim};

fn engine_dir() -> PathBuf {
    std::env::var_os("WSEC_HW_ENGINE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../hw/build/engine"))
}

fn start(config: &str) -> Arc<FpgaSim> {
    let o = FpgaOptions { config: config.into(), check: false, dir: Some(engine_dir()), vec_dir: std::env::temp_dir() };
    FpgaSim::start(&o).unwrap_or_else(|e| panic!("{e} (scripts/test builds it: bash hw/run engine {config})"))
}

/// A random MPDU: QoS or plain data (To DS, From DS or both), or an action frame (MFP).
fn mpdu(r: &mut rand::rngs::StdRng, body: usize) -> Vec<u8> {
    let (fc, hl): (u16, usize) = match r.gen_range(0..5) {
        0 => (0x0108, 24), // data, To DS
        1 => (0x0208, 24), // data, From DS
        2 => (0x0188, 26), // QoS data, To DS
        3 => (0x0388, 32), // QoS data, 4 addresses
        _ => (0x00d0, 24), // action (a robust management frame)
    };
    let mut m = vec![0u8; hl + body];
    r.fill(&mut m[..]);
    m[..2].copy_from_slice(&fc.to_le_bytes());
    // Random Retry / PwrMgt / MoreData bits (masked in the AAD), never Protected or Order.
    m[1] |= r.gen::<u8>() & 0x38;
    m
}

fn run(config: &str, suite: CipherSuite, frames: usize) {
    let sim = start(config);
    let dev: Arc<dyn CcmDevice> = sim.clone();
    let mut r = rand::rngs::StdRng::seed_from_u64(34);
    let mut keys = Vec::new();
    for _ in 0..3 {
        let mut k = [0u8; 16];
        r.fill(&mut k);
        keys.push(k);
    }
    let dk: Vec<DeviceKey> = keys.iter().map(|k| DeviceKey::new(dev.clone(), suite, k, AadOptions::default()).unwrap()).collect();
    assert!(dk.iter().all(|k| k.on_device()));
    let sw: Vec<SuiteKey> = keys.iter().map(|k| SuiteKey::new(suite, k, AadOptions::default().into()).unwrap()).collect();
    let (mut tampered, mut sizes) = (0, std::collections::BTreeSet::new());
    for i in 0..frames {
        let body = match i {
            0 => 0,
            1 => 1500,
            2 => 2304,
            _ => r.gen_range(0..=2304),
        };
        sizes.insert(body / 500);
        let m = mpdu(&mut r, body);
        let ki = i % keys.len();
        let pn = r.gen::<u64>() & 0xffff_ffff_ffff;
        let (mut hw, mut soft) = (Vec::new(), Vec::new());
        dk[ki].encapsulate(&m, pn, 0, &mut hw).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        sw[ki].as_protection().encapsulate(&m, pn, 0, &mut soft).unwrap();
        assert_eq!(hw, soft, "{config} frame {i} ({body} octets): the RTL's protected MPDU differs from the software's");
        let mut opened = Vec::new();
        let info = dk[ki].decapsulate(&soft, &mut opened).unwrap_or_else(|e| panic!("{config} frame {i}: the RTL refused it: {e}"));
        assert_eq!(info.pn, pn);
        let mut back = Vec::new();
        sw[ki].as_protection().decapsulate(&soft, &mut back).unwrap();
        assert_eq!(opened, back, "{config} frame {i}: the RTL's plaintext differs");
        // One bit flipped anywhere the MIC covers (header octets in the AAD, PN, body, MIC).
        let hl = m.len() - body;
        let covered: Vec<usize> = (4..10).chain(hl..hl + 2).chain(hl + 4..soft.len()).collect();
        let at = covered[r.gen_range(0..covered.len())];
        let mut bad = soft.clone();
        bad[at] ^= 1 << r.gen_range(0..8);
        let mut out = Vec::new();
        assert_eq!(dk[ki].decapsulate(&bad, &mut out), Err(Error::MicFailure), "{config} frame {i}: octet {at} flipped and still opened");
        assert!(out.is_empty());
        tampered += 1;
    }
    let s = sim.stats();
    eprintln!("{config}: {:?}", s);
    assert_eq!(s.sealed, frames as u64);
    assert_eq!(s.opened, frames as u64);
    assert_eq!(s.mic_failures, tampered as u64);
    assert!(sizes.len() >= 4, "frame sizes cover 0-2304: {sizes:?}");
    assert!(s.cycles > 0);
    // Keys leave the table with their last copy.
    let loaded = s.keys_loaded;
    assert_eq!(loaded, 3);
    drop(dk);
    let s = sim.stats();
    if sim.info().rom == 3 {
        assert_eq!((s.keys_erased, s.kt_writes), (3, 6 * 16), "{s:?}");
    }
}

#[test]
fn ccmp_key_table_engine_seals_and_opens_like_the_software() {
    run("ccmp-k1-r1-kt-dec", CipherSuite::Ccmp128, 60);
}

#[test]
fn eccmp4_engine_seals_and_opens_like_the_software() {
    run("eccmp4-r1-rom-dec", CipherSuite::Eccmp4, 60);
}

#[test]
fn a_configuration_that_cannot_open_frames_is_refused() {
    let dir = std::env::temp_dir().join(format!("wsec-fpga-enc-only-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("ccmp-k1-r1-kt")).unwrap();
    std::fs::write(dir.join("ccmp-k1-r1-kt/engine.json"), r#"{"config": "ccmp-k1-r1-kt", "lanes": 1, "rom": 3, "dec": 0}"#).unwrap();
    let o = FpgaOptions { config: "ccmp-k1-r1-kt".into(), check: false, dir: Some(dir.clone()), vec_dir: dir.clone() };
    let e = FpgaSim::start(&o).expect_err("an encapsulation-only engine was accepted");
    assert!(e.to_string().contains("only encapsulates"), "{e}");
    let o = FpgaOptions { config: "no-such-config".into(), check: false, dir: Some(dir.clone()), vec_dir: dir.clone() };
    let e = FpgaSim::start(&o).expect_err("a missing engine was accepted");
    assert!(e.to_string().contains("hw/run engine no-such-config"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `fpga_check`'s stop: a disagreement is saved as a `wsec hw-vectors` record (what
/// `tb_ccm_engine +vec=` reads) and the engine is marked failed with a message naming the
/// frame, which the access point's run loop stops on.
#[test]
fn a_mismatch_is_saved_as_a_test_vector_and_stops_the_engine() {
    use wsec::cipher::device::{DeviceFrame, Direction, Mismatch};
    let dir = std::env::temp_dir().join(format!("wsec-fpga-mismatch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = FpgaOptions { config: "ccmp-k1-r1-kt-dec".into(), check: true, dir: Some(engine_dir()), vec_dir: dir.clone() };
    let sim = FpgaSim::start(&o).unwrap_or_else(|e| panic!("{e}"));
    assert!(sim.failed().is_none());
    let key = [0x11u8; 16];
    let mut hdr = [0u8; 32];
    hdr[..2].copy_from_slice(&0x0108u16.to_le_bytes());
    let f = DeviceFrame { key: &key, slot: Some(0), hdr, pn: 0x0102_0304_0506, spp: false };
    let plain: Vec<u8> = (0..20).collect();
    let cipher: Vec<u8> = (100..120).collect();
    let e = sim.mismatch(&Mismatch { dir: Direction::Seal, frame: &f, plain: &plain, cipher: &cipher, mic: &[7; 8], what: "test" });
    assert!(matches!(e, Error::Device(_)), "{e:?}");
    let msg = sim.failed().expect("the engine is marked failed");
    assert!(msg.contains("sealing frame") && msg.contains("PN 1108152157446") && msg.contains("20 octets"), "{msg}");
    let path = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|x| x == "txt")).unwrap();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    let text = std::fs::read_to_string(&path).unwrap();
    let l: Vec<&str> = text.lines().collect();
    assert_eq!(l[0], "00000001");
    let want = format!("{} 0801{} 010203040506 0014 00", "11".repeat(16), "00".repeat(30));
    assert_eq!(l[1], want);
    assert_eq!(l[2], "000102030405060708090a0b0c0d0e0f 6465666768696a6b6c6d6e6f70717273");
    assert_eq!(l[3], format!("10111213{} 74757677{}", "00".repeat(12), "00".repeat(12)));
    assert_eq!(l[4], "0707070707070707");
    assert_eq!(l.len(), 5);
    // Frames after the failure are refused, not sent.
    let mut data = [0u8; 4];
    assert!(sim.seal(&f, &mut data, &mut [0; 8]).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
