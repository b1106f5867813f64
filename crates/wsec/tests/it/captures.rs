//! Real traffic nobody here produced: the WEP-40 capture of aircrack-ng's test suite
//! (testdata/captures/aircrack/wep_64_ptw.cap, key 1f1f1f1f1f). Its README records that
//! tshark decrypts 30630 of 30630 protected data frames and airdecap-ng 30630 with none
//! corrupted; wsec must decrypt every one, and re-protecting the plaintext with the frame's
//! own IV must give the captured bytes back.
use crate::common;
use wsec::cipher::wep::WepKey;
use wsec::cipher::Protection;
use wsec::wire::llc::Snap;
use wsec::wire::Header;

#[test]
fn wep_64_ptw_capture_all_frames_decrypt() {
    let path = common::testdata_dir().join("captures/aircrack/wep_64_ptw.cap");
    let (linktype, frames) = common::read_pcap(&path);
    assert_eq!(linktype, 105, "raw 802.11");
    let key = WepKey::new(&common::h("1f1f1f1f1f")).unwrap();
    let (mut protected, mut ok, mut snap) = (0, 0, 0);
    let mut out = Vec::new();
    let mut again = Vec::new();
    for f in &frames {
        let Ok(h) = Header::new_checked(&f[..]) else { continue };
        let fc = h.frame_control();
        if !(fc.is_data() && fc.protected()) {
            continue;
        }
        protected += 1;
        match key.decapsulate(f, &mut out) {
            Ok(info) => {
                ok += 1;
                let hl = h.header_len();
                if Snap::new_checked(&out[hl..]).is_ok() {
                    snap += 1;
                }
                key.encapsulate(&out, info.pn, info.key_id, &mut again).unwrap();
                assert_eq!(again, *f, "re-protection with the captured IV");
            }
            Err(e) => panic!("frame {protected} not decrypted: {e}"),
        }
    }
    assert_eq!((protected, ok), (30630, 30630));
    // The plaintext of every frame starts with an LLC/SNAP header: a check independent of
    // the ICV that the key and the RC4 seed are right.
    assert_eq!(snap, ok);
}
