//! The decryption engine on arbitrary frames, one at a time and in batches on two threads:
//! no panic, and the batch gives the same outcomes as one frame at a time. The frames are
//! cut from the input at length prefixes; a passphrase, PMKs, an MSK, a WEP key and a TK are
//! given so that every path (handshakes incl. FT and TDLS, WEP, CCMP/GCMP/TKIP tries) runs.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::decrypt::keys::UserKey;
use wsec::decrypt::Decryptor;

fn keys() -> Vec<UserKey> {
    vec![
        UserKey::passphrase("fuzz", "password").expect("valid"),
        UserKey::pmk_hex(&"11".repeat(32)).expect("valid"),
        UserKey::wep_hex("1f1f1f1f1f").expect("valid"),
        UserKey::tk_hex(&"22".repeat(16)).expect("valid"),
        // An MSK and a 48-octet PMK: the 802.1X, FT (PMK-R0/R1 from the XXKey) and SHA-384 paths.
        UserKey::msk_hex(&"33".repeat(64)).expect("valid"),
        UserKey::pmk_hex(&"44".repeat(48)).expect("valid"),
    ]
}

fuzz_target!(|data: &[u8]| {
    let mut frames: Vec<&[u8]> = Vec::new();
    let mut rest = data;
    while rest.len() >= 2 && frames.len() < 256 {
        let n = (u16::from_le_bytes([rest[0], rest[1]]) as usize).min(rest.len() - 2);
        frames.push(&rest[2..2 + n]);
        rest = &rest[2 + n..];
    }
    let mut one = Decryptor::new(keys());
    let want: Vec<_> = frames.iter().map(|f| one.process(f)).collect();
    let mut batch = Decryptor::new(keys());
    let got = batch.process_batch(&frames, 2);
    assert!(got == want, "batch outcomes differ from one at a time");
});
