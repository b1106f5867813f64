//! RSN and WPA1 elements, element sequences and negotiation on arbitrary bytes: no panic;
//! parse -> emit -> parse is stable and the emitted element is no longer than the input's.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::rsn::ie::{self, negotiate, negotiate_wpa, Prefs, RsnElementRepr, WpaElementRepr};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = RsnElementRepr::parse(data) {
        let b = r.to_bytes().expect("a parsed RSN element emits");
        assert_eq!(b.len(), r.buffer_len());
        assert!(b.len() <= 2 + data[1] as usize);
        assert_eq!(RsnElementRepr::parse(&b).expect("emitted RSN element parses"), r);
        for p in [Prefs::wpa2_personal(), Prefs::wpa3_personal()] {
            if let Ok(n) = negotiate(&r, &p) {
                let mine = n.sta_rsn_element(&p, &[]);
                let e = mine.to_bytes().expect("the STA element emits");
                assert_eq!(RsnElementRepr::parse(&e).unwrap(), mine);
                assert_eq!(n.mic_len, wsec::rsn::eapol::mic_len(n.key_descriptor_version, n.akm));
            }
        }
    }
    if let Ok(w) = WpaElementRepr::parse(data) {
        let b = w.to_bytes().expect("a parsed WPA element emits");
        assert_eq!(WpaElementRepr::parse(&b).expect("emitted WPA element parses"), w);
        if let Ok(n) = negotiate_wpa(&w, &Prefs::default()) {
            let mine = n.sta_wpa_element().expect("WPA1 suites have WPA1 selectors");
            assert_eq!(WpaElementRepr::parse(&mine.to_bytes().unwrap()).unwrap(), mine);
        }
    }
    let mut total = 0;
    for e in wsec::wire::element::elements(data) {
        match e {
            Ok(e) => {
                assert_eq!(e.bytes.len(), 2 + e.body.len());
                total += e.bytes.len();
            }
            Err(_) => break,
        }
    }
    assert!(total <= data.len());
    if let Ok(Some(e)) = ie::find_rsn_element(data) {
        assert_eq!(e[0], ie::RSN_ELEMENT_ID);
        let _ = RsnElementRepr::parse(e);
    }
    if let Ok(Some(e)) = ie::find_wpa_element(data) {
        assert!(ie::is_wpa_element(e));
        let _ = WpaElementRepr::parse(e);
    }
});
