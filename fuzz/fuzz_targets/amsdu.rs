//! A-MSDUs (`wire::amsdu`) and the cores' receive rules (`node::amsdu`) on arbitrary bytes:
//! no panic. The whole input as an A-MSDU body: the checked walk agrees with the unchecked
//! iterator, and a well-formed body re-emits to the same subframes (padding zeroed, a
//! padded last subframe unpadded). The input as [flags][MPDU], the MPDU both the received
//! header and the plaintext, the flags the policy, pairwise cipher, SPP and "allowed": no
//! MSDU given out is EAPOL, and every MSDU lies inside the MPDU. Seeds:
//! fuzz/corpus/amsdu/seed-* (`fuzz/make-seeds --amsdu`: A-MSDUs laid out from 9.3.2.2.2,
//! the FragAttacks frames, refused variants).
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::CipherSuite;
use wsec::node::amsdu::{self, AmsduRx, Link};
use wsec::wire::amsdu::{push, Amsdu, MsduRef};
use wsec::wire::mac::{MacAddr, Mpdu};
use wsec::wire::EtherType;

type Sub = (MacAddr, MacAddr, Vec<u8>);

fn subframes(body: &[u8]) -> Vec<Sub> {
    Amsdu::new_unchecked(body).into_subframes().map_while(Result::ok).map(|s| (s.da(), s.sa(), s.msdu().to_vec())).collect()
}

fuzz_target!(|data: &[u8]| {
    let checked = Amsdu::new_checked(data);
    let items: Vec<_> = Amsdu::new_unchecked(data).into_subframes().collect();
    assert_eq!(checked.is_ok(), items.iter().all(|r| r.is_ok()));
    if checked.is_ok() {
        let subs = subframes(data);
        let refs: Vec<MsduRef> = subs.iter().map(|(da, sa, m)| MsduRef { da: *da, sa: *sa, msdu: m }).collect();
        let mut v = Vec::new();
        assert_eq!(push(&refs, usize::MAX, &mut v), Ok(refs.len()));
        assert!(v.len() <= data.len() && data.len() - v.len() < 4);
        assert_eq!(subframes(&v), subs);
    }

    let Some((&flags, mpdu)) = data.split_first() else { return };
    let Ok(m) = Mpdu::new_checked(mpdu) else { return };
    let _ = amsdu::present(&m, mpdu);
    let policy = [AmsduRx::Refuse, AmsduRx::SppOnly, AmsduRx::Mitigated, AmsduRx::Mitigated][flags as usize & 3];
    let pairwise = [None, Some(CipherSuite::Ccmp128), Some(CipherSuite::Gcmp256), Some(CipherSuite::Tkip)][(flags as usize >> 2) & 3];
    let link = Link { pairwise, spp: flags & 0x10 != 0, allowed: flags & 0x20 == 0, open: flags & 0x40 != 0 };
    if let Ok(msdus) = amsdu::deaggregate(&m, mpdu, policy, link) {
        let range = mpdu.as_ptr_range();
        for msdu in msdus.flatten() {
            assert_ne!(msdu.ethertype, EtherType::EAPOL);
            let p = msdu.payload.as_ptr_range();
            assert!(range.start <= p.start && p.end <= range.end);
        }
    }
});
