//! Key material in the forms Wireshark users hold: 48-octet PMKs and Suite B
//! 192 (AKM 12: KDF-SHA384, KCK 24, KEK 32, HMAC-SHA384-192 MIC; IEEE 802.11-2020
//! 12.7.1.3, 12.7.2), `"msk"` records (PMK = the first 32 octets of the MSK, 48 for AKM 12),
//! and TKIP temporal keys of 16 octets (decrypted without Michael, as Wireshark does).
//! Synthetic captures from wsec's own handshake core, decrypted by wsec and by tshark with
//! the same keys to byte-identical payloads; the TKIP TK is the one tshark derives itself
//! (`wlan.analysis.tk`), not one from wsec.
use crate::common;
use crate::peers;
use peers::PeerKey;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wsec::capture::synth::{Synth, SynthConfig};
use wsec::capture::writer::CaptureWriter;
use wsec::capture::Packet;
use wsec::cipher::CipherSuite;
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, Outcome, Stats};
use wsec::rsn::akm::Akm;
use wsec::wire::Header;
use zeroize::Zeroizing;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wsec-keys-peers-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Writes `n` frames of the synthetic network to a pcap (link type 105); returns its path.
fn synth(name: &str, cfg: SynthConfig, n: usize) -> PathBuf {
    let path = tmp(name);
    let mut w = CaptureWriter::pcap(std::fs::File::create(&path).unwrap(), 105, false).unwrap();
    for (i, f) in Synth::new(cfg).expect("synth").take(n).enumerate() {
        w.write(&Packet { linktype: 105, ts_ns: i as u64 * 1000, data: f.expect("frame") }).unwrap();
    }
    w.finish().unwrap();
    path
}

/// wsec's payloads (after the MAC header) by frame number, one pass, and its counters.
fn wsec_payloads(path: &Path, keys: Vec<UserKey>) -> (BTreeMap<u32, Vec<u8>>, Stats) {
    let (lt, frames) = common::read_pcap(path);
    assert_eq!(lt, 105);
    let mut d = Decryptor::new(keys);
    let mut out = BTreeMap::new();
    for (i, m) in frames.iter().enumerate() {
        if let Outcome::Decrypted { mpdu, .. } = d.process(m) {
            let hl = Header::new_checked(&mpdu[..]).unwrap().header_len();
            out.insert(i as u32 + 1, mpdu[hl..].to_vec());
        }
    }
    (out, d.stats)
}

fn tshark_payloads(path: &Path, keys: &[PeerKey]) -> BTreeMap<u32, Vec<u8>> {
    peers::tshark_decrypted(path, keys).into_iter().map(|f| (f.frame_number.unwrap(), f.payload)).collect()
}

fn key(n: usize, mul: u8) -> Vec<u8> {
    (0..n as u8).map(|i| i.wrapping_mul(mul).wrapping_add(7)).collect()
}

fn cfg(akm: Akm, pmk: &[u8], pairwise: CipherSuite) -> SynthConfig {
    let mut c = SynthConfig::wpa2(b"keys-net", pmk);
    c.akm = akm;
    c.pairwise = pairwise;
    c.group = pairwise;
    c.payload_len = 200;
    c
}

/// Suite B 192 with a 48-octet PMK given as a PMK and inside an MSK: every protected frame
/// decrypts, to tshark's plaintext; a 32-octet prefix of the PMK opens nothing.
#[test]
fn suite_b_192_with_a_48_octet_pmk_and_an_msk() {
    let pmk = key(48, 29);
    let mut msk = pmk.clone();
    msk.extend(key(16, 3));
    let path = synth("suite-b-192.pcap", cfg(Akm::SuiteB192, &pmk, CipherSuite::Gcmp256), 40);
    let ts = tshark_payloads(&path, &[PeerKey::Psk(hex::encode(&pmk))]);
    let ts_msk = tshark_payloads(&path, &[PeerKey::Msk(hex::encode(&msk))]);
    // tshark 4.0.17 decrypts the 31 unicast frames; the 4 group frames (GTK from message
    // 3, unwrapped with the 32-octet KEK) it leaves encrypted.
    assert_eq!(ts.len(), 31, "tshark: every unicast protected frame of 40");
    assert_eq!(ts, ts_msk, "tshark: the MSK gives the same PMK");
    let (ours, s) = wsec_payloads(&path, vec![UserKey::Pmk(Zeroizing::new(pmk.clone()))]);
    assert_eq!((s.protected, ours.len(), s.handshakes_verified, s.group_keys), (35, 35, 1, 1));
    for (n, p) in &ts {
        assert_eq!(ours.get(n), Some(p), "frame {n}: wsec and tshark plaintext");
    }
    let (_, frames) = common::read_pcap(&path);
    for n in ours.keys().filter(|n| !ts.contains_key(n)) {
        assert_eq!(frames[*n as usize - 1][4], 0xff, "frame {n}, beyond tshark, is group addressed");
    }
    let (ours_msk, _) = wsec_payloads(&path, vec![UserKey::Msk(Zeroizing::new(msk))]);
    assert_eq!(ours_msk, ours);
    let (none, s) = wsec_payloads(&path, vec![UserKey::Pmk(Zeroizing::new(pmk[..32].to_vec()))]);
    assert!(none.is_empty() && s.handshakes_verified == 0);
    // Why, per station: the AP's unicast frames and the station's have no verified
    // handshake; the AP's group frames no GTK.
    use wsec::decrypt::FailReason;
    use wsec::wire::mac::MacAddr;
    let count = |ta: u8, group: bool| frames.iter().filter(|f| f[1] & 0x40 != 0 && f[15] == ta && (f[4] & 1 == 1) == group).count() as u64;
    let ap = &s.failed_by_transmitter[&MacAddr([2, 0, 0, 0, 0, 1])];
    let sta = &s.failed_by_transmitter[&MacAddr([2, 0, 0, 0, 0, 2])];
    assert_eq!(
        (ap.get(&FailReason::WrongOrMissingPmk), ap.get(&FailReason::NoGroupKey)),
        (Some(&count(1, false)), Some(&count(1, true))),
        "{ap:?}"
    );
    assert_eq!(sta.iter().collect::<Vec<_>>(), [(&FailReason::WrongOrMissingPmk, &count(2, false))]);
    assert_eq!(count(1, false) + count(1, true) + count(2, false), 35);
}

/// WPA2-Enterprise (AKM 1) and 802.1X-SHA256 (AKM 5) from the MSK alone.
#[test]
fn ieee8021x_from_the_msk() {
    for (akm, file) in [(Akm::Ieee8021x, "eap.pcap"), (Akm::Ieee8021xSha256, "eap-sha256.pcap")] {
        let msk = key(64, 13);
        let path = synth(file, cfg(akm, &msk[..32], CipherSuite::Ccmp128), 40);
        let ts = tshark_payloads(&path, &[PeerKey::Msk(hex::encode(&msk))]);
        assert_eq!(ts.len(), 35, "{akm}: tshark");
        let (ours, s) = wsec_payloads(&path, vec![UserKey::Msk(Zeroizing::new(msk.clone()))]);
        assert_eq!(ours, ts, "{akm}");
        assert_eq!(s.keys_learnt.len(), 1);
        assert_eq!(s.keys_learnt[0].akm, Some(akm));
    }
}

/// A 16-octet TKIP TK (the one tshark derives from the passphrase): wsec and tshark decrypt
/// the same unicast frames to the same MSDUs (Michael MIC removed), and wsec says that
/// Michael went unchecked for each.
#[test]
fn tkip_with_a_16_octet_tk() {
    let pass = "correct horse battery";
    let psk = wsec::rsn::pbkdf2::psk_from_passphrase(pass.as_bytes(), b"keys-net").unwrap();
    let path = synth("tkip.pcap", cfg(Akm::Psk, &psk[..], CipherSuite::Tkip), 40);
    let tks = peers::tshark_field(&path, &[PeerKey::wpa_pwd("keys-net", pass)], "wlan.analysis.tk");
    let tk = tks.values().next().expect("tshark derived the TK").clone();
    assert_eq!(tk.len(), 32, "tshark shows TKIP's 16-octet TK: {tk}");
    let ts = tshark_payloads(&path, &[PeerKey::Tk(tk.clone())]);
    assert!(ts.len() >= 25, "tshark with the TK: {}", ts.len());
    let (ours, s) = wsec_payloads(&path, vec![UserKey::tk_hex(&tk).unwrap()]);
    assert_eq!(ours, ts);
    assert_eq!(s.tkip_michael_unchecked, ours.len() as u64);
    assert_eq!(s.decrypted.get(&CipherSuite::Tkip).copied(), Some(ours.len() as u64));
    // With the passphrase (Michael keys known) the same frames decrypt, Michael checked.
    let (full, s) = wsec_payloads(&path, vec![UserKey::passphrase("keys-net", pass).unwrap()]);
    for (n, p) in &ours {
        assert_eq!(full.get(n), Some(p), "frame {n}");
    }
    assert_eq!(s.tkip_michael_unchecked, 0);
}
