//! EAPOL-Key frames (16- and 24-octet Key MIC) and Key Data on arbitrary bytes: no panic;
//! parse -> emit gives back the input's EAPOL frame byte for byte; Key Data parse -> build
//! -> parse is stable; MIC verification never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::rsn::akm::{Akm, KeyDescriptorVersion};
use wsec::rsn::eapol::{self, EapolKey, EapolKeyRepr};
use wsec::rsn::kde::{self, KeyDataBuilder};

fn key_data(d: &[u8]) {
    let n = kde::iter(d).count();
    if let Ok(items) = kde::parse(d) {
        assert!(items.len() <= n);
        let mut b = KeyDataBuilder::new();
        for it in &items {
            b.push(it).expect("a parsed item emits");
        }
        let out = b.finish();
        assert!(out.len() <= d.len());
        assert_eq!(kde::parse(&out).expect("emitted Key Data parses"), items);
        let mut padded = out.clone();
        kde::pad_for_key_wrap(&mut padded);
        assert_eq!(kde::parse(&padded).expect("padded Key Data parses"), items);
    }
}

fuzz_target!(|data: &[u8]| {
    for (ml, kdv, akm, kck_len) in [
        (16, KeyDescriptorVersion::HmacSha1Aes, Akm::Psk, 16),
        (16, KeyDescriptorVersion::AkmDefined, Akm::Sae, 16),
        (24, KeyDescriptorVersion::AkmDefined, Akm::SuiteB192, 24),
    ] {
        if let Ok(v) = EapolKey::new_checked(data, ml) {
            let r = EapolKeyRepr::from_view(&v);
            let b = r.to_bytes().expect("a parsed frame emits");
            assert_eq!(&b[..], v.frame());
            assert_eq!(EapolKeyRepr::parse(&b, ml).expect("emitted frame parses"), r);
            assert_eq!(v.key_data().len(), v.key_data_len() as usize);
            key_data(v.key_data());
            let kck = vec![0x5a; kck_len];
            let mut signed = data.to_vec();
            eapol::write_mic(kdv, akm, &kck, &mut signed).expect("a parsed frame takes a MIC");
            eapol::verify_mic(kdv, akm, &kck, &signed).expect("its own MIC verifies");
        } else {
            assert!(EapolKeyRepr::parse(data, ml).is_err());
        }
        let _ = eapol::verify_mic(kdv, akm, &[1; 16], data);
    }
    key_data(data);
});
