//! TDLS in captures: two stations of a WPA2-PSK BSS set up a direct link with
//! the TPK handshake relayed (encrypted) by the AP, exchange data on it, tear it down
//! (`capture::synth_tdls`). wsec, given only the PSK, must decrypt every protected frame:
//! the relayed setup frames under each station's PTK, the direct link under the TPK it
//! derives from the Setup Response and verifies with its FTE MIC. tshark, given the same
//! key, must agree byte for byte on every frame it decrypts.
use crate::peers;
use peers::PeerKey;
use std::collections::BTreeMap;
use wsec::capture::synth_tdls::{tdls_capture, TdlsSynthConfig};
use wsec::capture::writer::CaptureWriter;
use wsec::capture::Packet;
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::{Decryptor, KeySource, Outcome};
use wsec::wire::Header;
use zeroize::Zeroizing;

#[test]
fn tdls_setup_direct_link_and_teardown() {
    let pass = "tdls passphrase";
    let psk = wsec::rsn::pbkdf2::psk_from_passphrase(pass.as_bytes(), b"tdls-net").unwrap();
    let frames = tdls_capture(TdlsSynthConfig::new(b"tdls-net", &psk[..])).unwrap();
    let protected = frames.iter().filter(|f| f[1] & 0x40 != 0).count();
    let direct = frames.iter().filter(|f| f[1] & 0x43 == 0x40).count();
    assert_eq!((protected, direct), (20, 11), "6 relayed setup frames, 10 direct + teardown, 2 relayed, 1 group");
    let mut d = Decryptor::new(vec![UserKey::Pmk(Zeroizing::new(psk.to_vec()))]);
    let mut mine = BTreeMap::new();
    for (i, f) in frames.iter().enumerate() {
        if let Outcome::Decrypted { mpdu, .. } = d.process(f) {
            let hl = Header::new_checked(&mpdu[..]).unwrap().header_len();
            mine.insert(i as u32 + 1, mpdu[hl..].to_vec());
        }
    }
    assert_eq!(mine.len(), protected, "every protected frame: {:?}", d.stats.failed);
    let src: Vec<KeySource> = d.stats.keys_learnt.iter().map(|k| k.source).collect();
    assert_eq!(src, [KeySource::FourWay, KeySource::FourWay, KeySource::Tdls]);
    let tdls = &d.stats.keys_learnt[2];
    assert_eq!((tdls.aa.0[5], tdls.spa.0[5]), (1, 2), "initiator, responder");
    // The teardown is decrypted too: an 89-0d frame with Action 3 on the direct link.
    let td = frames.iter().enumerate().filter(|(_, f)| f[1] & 0x43 == 0x40).map(|(i, _)| i as u32 + 1).max().unwrap();
    assert_eq!(&mine[&td][6..11], &[0x89, 0x0d, 2, 12, 3]);
    // Without the PSK nothing decrypts, and the direct link says no handshake.
    let mut none = Decryptor::new(vec![UserKey::Pmk(Zeroizing::new(vec![7; 32]))]);
    assert!(frames.iter().all(|f| !matches!(none.process(f), Outcome::Decrypted { .. })));

    let dir = std::env::temp_dir().join(format!("wsec-tdls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tdls.pcap");
    let mut w = CaptureWriter::pcap(std::fs::File::create(&path).unwrap(), 105, false).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(&Packet { linktype: 105, ts_ns: i as u64 * 1000, data: f.clone() }).unwrap();
    }
    w.finish().unwrap();
    let ts = peers::tshark_decrypted(&path, &[PeerKey::wpa_pwd("tdls-net", pass)]);
    for f in &ts {
        let n = f.frame_number.unwrap();
        assert_eq!(mine.get(&n), Some(&f.payload), "frame {n}: tshark's plaintext");
    }
    let ts_direct = ts.iter().filter(|f| frames[f.frame_number.unwrap() as usize - 1][1] & 0x43 == 0x40).count();
    eprintln!("tdls: {protected} protected ({direct} direct), wsec {}, tshark {} ({ts_direct} direct)", mine.len(), ts.len());
    assert_eq!(ts.len(), protected, "tshark decrypts every frame too");
}
