//! Any frame that one suite encapsulates must decapsulate back to itself, and a one-bit
//! change of the MIC must be refused.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::{new_protection, AadOptions, CipherSuite};

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let suite = CipherSuite::ALL[data[0] as usize % CipherSuite::ALL.len()];
    let key = vec![data[1]; suite.key_len()];
    let p = new_protection(suite, &key, AadOptions::default()).unwrap();
    let pn = if matches!(suite, CipherSuite::Wep40 | CipherSuite::Wep104) { 0x123456 } else { 0x0102_0304_0506 };
    let key_id = if suite.is_bip() { 4 } else { 1 };
    let mpdu = &data[2..];
    let mut prot = Vec::new();
    if p.encapsulate(mpdu, pn, key_id, &mut prot).is_ok() {
        let mut back = Vec::new();
        let info = p.decapsulate(&prot, &mut back).expect("own output must decapsulate");
        assert_eq!(back, mpdu);
        assert_eq!(info.pn, pn);
        let last = prot.len() - 1;
        prot[last] ^= 1;
        assert!(p.decapsulate(&prot, &mut back).is_err(), "{suite}: flipped MIC/ICV accepted");
    }
});
