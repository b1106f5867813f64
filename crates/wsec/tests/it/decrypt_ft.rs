//! Fast BSS Transition in captures: a station's FT initial mobility domain
//! association with AP 1, its roam to AP 2 over the air and back to AP 1 over the DS
//! (`capture::synth_ft`), for FT-PSK (passphrase), FT-802.1X (MSK) and FT-SAE (PMK).
//! wsec must decrypt every protected frame, learn the three PTKs the way the standard
//! says (4-way handshake from PMK-R1, then the Reassociation FTE MICs) and the GTKs (message
//! 3, then the Reassociation Responses); tshark, given the same key, must decrypt the same
//! frames to the same bytes wherever it decrypts them.
use crate::peers;
use peers::PeerKey;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wsec::capture::synth_ft::{ft_capture, FtSynthConfig};
use wsec::capture::writer::CaptureWriter;
use wsec::capture::Packet;
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, KeySource, Outcome, Stats};
use wsec::rsn::akm::Akm;
use wsec::wire::Header;
use zeroize::Zeroizing;

fn write(name: &str, frames: &[Vec<u8>]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wsec-ft-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let path = d.join(name);
    let mut w = CaptureWriter::pcap(std::fs::File::create(&path).unwrap(), 105, false).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(&Packet { linktype: 105, ts_ns: i as u64 * 1000, data: f.clone() }).unwrap();
    }
    w.finish().unwrap();
    path
}

fn wsec_payloads(frames: &[Vec<u8>], keys: Vec<UserKey>) -> (BTreeMap<u32, Vec<u8>>, Stats) {
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

fn protected(frames: &[Vec<u8>]) -> usize {
    frames.iter().filter(|f| f[1] & 0x40 != 0).count()
}

fn tshark(path: &Path, keys: &[PeerKey]) -> BTreeMap<u32, Vec<u8>> {
    peers::tshark_decrypted(path, keys).into_iter().map(|f| (f.frame_number.unwrap(), f.payload)).collect()
}

/// Runs one AKM; returns (protected, wsec decrypted, tshark decrypted).
fn case(akm: Akm, xxkey: &[u8], ours: Vec<UserKey>, theirs: Vec<PeerKey>, file: &str) -> (usize, usize, usize) {
    let frames = ft_capture(FtSynthConfig::new(akm, xxkey)).expect("FT capture");
    let path = write(file, &frames);
    let (mine, s) = wsec_payloads(&frames, ours);
    let n = protected(&frames);
    assert_eq!(mine.len(), n, "{akm}: wsec decrypts every protected frame; failures {:?}", s.failed);
    let src: Vec<KeySource> = s.keys_learnt.iter().map(|k| k.source).collect();
    assert_eq!(src, [KeySource::FtInitial, KeySource::FtTransition, KeySource::FtTransition], "{akm}");
    assert_eq!(s.group_keys, 2, "{akm}: GTK from message 3 and from the first Reassociation Response");
    let ts = tshark(&path, &theirs);
    for (k, p) in &ts {
        assert_eq!(mine.get(k), Some(p), "{akm}: frame {k}: tshark's plaintext");
    }
    eprintln!("{akm}: {n} protected, wsec {}, tshark {}", mine.len(), ts.len());
    (n, mine.len(), ts.len())
}

#[test]
fn ft_psk_initial_and_two_roams() {
    let pass = "ft passphrase 1";
    let psk = wsec::rsn::pbkdf2::psk_from_passphrase(pass.as_bytes(), b"ft-net").unwrap();
    let (n, _, ts) = case(
        Akm::FtPsk,
        &psk[..],
        vec![UserKey::passphrase("ft-net", pass).unwrap()],
        vec![PeerKey::wpa_pwd("ft-net", pass)],
        "ft-psk.pcap",
    );
    assert_eq!(n, 36);
    assert_eq!(ts, n, "tshark decrypts every frame of the FT-PSK capture");
    // The wrong passphrase: nothing, and the reason is the key.
    let frames = ft_capture(FtSynthConfig::new(Akm::FtPsk, &psk[..])).unwrap();
    let (none, s) = wsec_payloads(&frames, vec![UserKey::passphrase("ft-net", "not the passphrase").unwrap()]);
    assert!(none.is_empty());
    assert!(s.failed.contains_key(&wsec::decrypt::FailReason::WrongOrMissingPmk), "{:?}", s.failed);
}

#[test]
fn ft_eap_from_the_msk() {
    let msk: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(11).wrapping_add(3)).collect();
    let (n, _, ts) = case(
        Akm::FtIeee8021x,
        &msk[32..],
        vec![UserKey::Msk(Zeroizing::new(msk.clone()))],
        vec![PeerKey::Msk(hex::encode(&msk))],
        "ft-eap.pcap",
    );
    assert_eq!(n, 36);
    assert_eq!(ts, n, "tshark decrypts every frame of the FT-EAP capture from the MSK");
}

#[test]
fn ft_sae_from_the_pmk() {
    let pmk: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(5).wrapping_add(1)).collect();
    let (n, _, ts) =
        case(Akm::FtSae, &pmk, vec![UserKey::Pmk(Zeroizing::new(pmk.clone()))], vec![PeerKey::Psk(hex::encode(&pmk))], "ft-sae.pcap");
    assert_eq!(n, 38, "36 data frames and the two protected FT Action frames");
    assert_eq!(ts, n, "tshark decrypts every frame of the FT-SAE capture from the PMK");
}

/// FT-802.1X-SHA384 (AKM 13): XXKey = the MSK's first 48 octets, KDF-SHA384, 48-octet
/// PMK-R0/R1, 24-octet KCK and MICs (EAPOL-Key HMAC-SHA384-192, FTE MIC HMAC-SHA384).
#[test]
fn ft_eap_sha384_from_the_msk() {
    let msk: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(23).wrapping_add(9)).collect();
    let (n, mine, ts) = case(
        Akm::FtIeee8021xSha384,
        &msk[..48],
        vec![UserKey::Msk(Zeroizing::new(msk.clone()))],
        vec![PeerKey::Msk(hex::encode(&msk))],
        "ft-eap-sha384.pcap",
    );
    assert_eq!((n, mine), (36, 36));
    // tshark 4.0.17 agrees on the initial association's 9 unicast frames (FT PTK from the
    // SHA-384 hierarchy, HMAC-SHA384-192 EAPOL-Key MIC), byte for byte (checked in case()),
    // and decrypts neither its group frames nor the two transitions (24-octet FTE MIC): those
    // are checked here against wsec's own generator only.
    assert_eq!(ts, 9);
}
