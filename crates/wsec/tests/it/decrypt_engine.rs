//! The decryption engine on every capture with a known key: at least as many frames as
//! the peers decrypted (testdata/captures/README.md: tshark 4.0.17, airdecap-ng 1.7), and
//! a reason for every frame it could not decrypt.
use crate::common;
use wsec::capture::{radio, CaptureReader};
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, FailReason, Outcome};

fn run(name: &str, keys: Vec<UserKey>) -> (Decryptor, Vec<Outcome>) {
    let path = common::testdata_dir().join("captures").join(name);
    let mut d = Decryptor::new(keys);
    let mut outs = Vec::new();
    for p in CaptureReader::open(&path).unwrap() {
        let Ok(p) = p else { break };
        let Ok(m) = radio::mpdu(p.linktype, &p.data) else { continue };
        outs.push(d.process(m.bytes));
    }
    (d, outs)
}

/// Frames decrypted, retransmitted copies included (they decrypt too; the peers count them).
fn decrypted(o: &[Outcome]) -> usize {
    o.iter().filter(|o| matches!(o, Outcome::Decrypted { .. } | Outcome::Duplicate { .. })).count()
}

fn pass(ssid: &str, p: &str) -> Vec<UserKey> {
    vec![UserKey::passphrase(ssid, p).unwrap()]
}

#[test]
fn floors_from_the_peers() {
    let cases: Vec<(&str, Vec<UserKey>, usize)> = vec![
        ("aircrack/wep_64_ptw.cap", vec![UserKey::wep_hex("1f1f1f1f1f").unwrap()], 30630),
        ("aircrack/wpa.cap", pass("test", "biscotte"), 2),
        ("aircrack/wpa-psk-linksys.cap", pass("linksys", "dictionary"), 59),
        ("aircrack/wpa2-psk-linksys.cap", pass("linksys", "dictionary"), 30),
        ("aircrack/capture_wds-01.cap", pass("test1", "12345678"), 46),
        ("aircrack/zn2i.pcap", pass("dlink", "12345678"), 1),
        ("aircrack/n-02.cap", pass("Neheb", "bo$$password"), 20),
        ("vanhoef/wnm_sleep_test-wpa2-psk_12345678.pcapng", pass("test-wnm-rsn", "12345678"), 2),
    ];
    for (name, keys, floor) in cases {
        let (d, o) = run(name, keys);
        let n = decrypted(&o);
        eprintln!("{name}: {n} decrypted (floor {floor}); {:?}", d.stats);
        assert!(n >= floor, "{name}: {n} < {floor}");
    }
}

#[test]
fn sae_without_pmk_says_why() {
    let (d, o) = run("vanhoef/wpa3.pcapng", pass("WPA3-Network", "abcdefgh"));
    assert_eq!(decrypted(&o), 0);
    assert!(d.stats.protected > 0);
    assert!(d.stats.failed.keys().all(|r| matches!(r, FailReason::PmkNeeded | FailReason::NoGroupKey)), "{:?}", d.stats.failed);
    assert!(d.stats.failed.contains_key(&FailReason::PmkNeeded), "{:?}", d.stats.failed);
}

/// Two passes go past the peers: n-02.cap's group frames sent before the handshake use
/// the GTK that message 3 reveals later (tshark: 15 data + 5 management frames, all after
/// the handshake; airdecap-ng: 0).
#[test]
fn two_passes_decrypt_earlier_group_frames() {
    let path = common::testdata_dir().join("captures/aircrack/n-02.cap");
    let mut d = Decryptor::new(pass("Neheb", "bo$$password"));
    let mpdus: Vec<Vec<u8>> = CaptureReader::open(&path)
        .unwrap()
        .filter_map(|p| p.ok())
        .filter_map(|p| radio::mpdu(p.linktype, &p.data).ok().map(|m| m.bytes.to_vec()))
        .collect();
    d.start_learning();
    for m in &mpdus {
        d.process(m);
    }
    d.end_learning();
    let outs: Vec<Outcome> = mpdus.iter().map(|m| d.process(m)).collect();
    let n = decrypted(&outs);
    eprintln!("n-02 two passes: {n}; {:?}", d.stats);
    assert!(n >= 20 + 66, "{n}");
}

/// A known TK (`--tk`): aircrack-ng's captured CCMP frame (vectors.md 1.4) decrypts to its
/// published plaintext; a wrong TK does not, and says no key.
#[test]
fn known_tk() {
    let mpdu = common::h(
        "08410201000b86c2a4850013ce5598ef000f66e3e401202e0100002000000000
        95c31e2d0201589f4debe227c4e9c21db12c7a666a35808abe1e738dab1da36b
        a0f31681709a94f0b6532cd6935b141359",
    );
    let mut d = Decryptor::new(vec![UserKey::tk_hex("1d035e8beb4f83611dc93e2657cecf69").unwrap()]);
    match d.process(&mpdu) {
        Outcome::Decrypted { mpdu: m, suite } => {
            assert_eq!(suite, wsec::cipher::CipherSuite::Ccmp128);
            assert_eq!(common::hx(&m[24..]), "aaaa030000000800450000216a1200000101f743ac100065ac10000108002667040003004448435043");
        }
        o => panic!("{o:?}"),
    }
    let mut d = Decryptor::new(vec![UserKey::tk_hex("00112233445566778899aabbccddeeff").unwrap()]);
    assert_eq!(d.process(&mpdu), Outcome::Failed(FailReason::NoHandshake));
    assert!(UserKey::tk_hex("0011").is_err());
}
