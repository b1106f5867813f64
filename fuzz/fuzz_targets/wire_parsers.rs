//! Every wire parser on arbitrary bytes: no panic, and parse -> emit -> parse is stable.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::wire::ht::{HtCapabilities, HtCapabilitiesRepr, HtOperation, HtOperationRepr};
use wsec::wire::llc::Snap;
use wsec::wire::mme::MmeRepr;
use wsec::wire::sechdr::{CcmpHeaderRepr, TkipHeaderRepr, WepHeaderRepr};
use wsec::wire::wmm::{Wmm, WmmInfoRepr, WmmParamRepr};
use wsec::wire::{Header, HeaderRepr};

fuzz_target!(|data: &[u8]| {
    for h in [Header::new_checked(data), Header::new_checked_pre_ht(data)].into_iter().flatten() {
        let _ = (h.addr2(), h.addr3(), h.addr4(), h.qos_control(), h.ht_control(), h.da(), h.sa());
        let _ = h.payload();
        if let Ok(r) = HeaderRepr::parse(&h) {
            if !h.is_pre_ht() {
                let v = r.to_vec().expect("a parsed header emits");
                assert_eq!(&v[..], &data[..v.len()]);
            }
        }
    }
    if let Ok(r) = CcmpHeaderRepr::parse(data) {
        let mut o = [0u8; 8];
        r.emit(&mut o).unwrap();
        assert_eq!(CcmpHeaderRepr::parse(&o).unwrap(), r);
    }
    if let Ok(r) = TkipHeaderRepr::parse(data) {
        let mut o = [0u8; 8];
        r.emit(&mut o).unwrap();
        assert_eq!(TkipHeaderRepr::parse(&o).unwrap(), r);
    }
    if let Ok(r) = WepHeaderRepr::parse(data) {
        let mut o = [0u8; 4];
        r.emit(&mut o).unwrap();
        assert_eq!(WepHeaderRepr::parse(&o).unwrap(), r);
    }
    if let Ok((r, mic)) = MmeRepr::parse(data) {
        let mut o = vec![0u8; r.buffer_len()];
        r.emit(&mut o, mic).unwrap();
        assert_eq!(&o[..], &data[..o.len()]);
    }
    if let Ok(s) = Snap::new_checked(data) {
        let _ = (s.oui(), s.ethertype(), s.payload());
    }
    // HT Capabilities / HT Operation / WMM bodies: parse -> emit gives the same octets.
    if let Ok(r) = HtCapabilitiesRepr::parse(&HtCapabilities::new_unchecked(data)) {
        let mut o = [0u8; HtCapabilitiesRepr::BODY_LEN];
        r.emit(&mut HtCapabilities::new_unchecked(&mut o[..]));
        assert_eq!(&o[..], &data[..o.len()]);
        assert!([3839, 7935].contains(&r.max_amsdu_len()));
    }
    if let Ok(r) = HtOperationRepr::parse(&HtOperation::new_unchecked(data)) {
        let mut o = [0u8; HtOperationRepr::BODY_LEN];
        r.emit(&mut HtOperation::new_unchecked(&mut o[..]));
        assert_eq!(&o[..], &data[..o.len()]);
    }
    if let Ok(w) = Wmm::new_checked(data) {
        let _ = (w.subtype(), w.qos_info());
        if let Ok(r) = WmmParamRepr::parse(&w) {
            let mut o = [0u8; WmmParamRepr::BODY_LEN];
            r.emit(&mut Wmm::new_unchecked(&mut o[..]));
            assert_eq!(WmmParamRepr::parse(&Wmm::new_checked(&o[..]).unwrap()).unwrap(), r);
        }
        if let Ok(r) = WmmInfoRepr::parse(&w) {
            let mut o = [0u8; WmmInfoRepr::BODY_LEN];
            r.emit(&mut Wmm::new_unchecked(&mut o[..]));
            assert_eq!(&o[..], &data[..o.len()]);
        }
    }
    let _ = wsec::wire::ht::parse_ht_capab(&String::from_utf8_lossy(data));
});
