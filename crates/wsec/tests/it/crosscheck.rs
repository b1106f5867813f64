//! Cross-checks CCMP/GCMP against RustCrypto's `ccm` and `aes-gcm` on thousands of random
//! frames, with the AAD and nonce built here from the standard's text (12.5.3.3.3-4,
//! 12.5.5.3.3-4) independently of the library; and shows, bit by bit, which header bits
//! the MIC covers and which the standard leaves unprotected.
use crate::common;
use aes_gcm::aead::AeadInPlace;
use aes_gcm::{Aes128Gcm, Aes256Gcm, KeyInit};
use ccm::consts::{U13, U16, U8};
use ccm::Ccm;
use common::frames::{independent_aad, random_mpdu};
use rand::{Rng, SeedableRng};
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::gcmp::Gcmp;
use wsec::cipher::{AadOptions, Protection};

fn pn_be(pn: u64) -> [u8; 6] {
    let b = pn.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

#[test]
fn ccmp_gcmp_match_rustcrypto_on_random_frames() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0802_0011);
    for i in 0..3000 {
        let f = random_mpdu(&mut rng);
        let (aad, flags, hl) = independent_aad(&f);
        let pn = rng.gen::<u64>() & 0xffff_ffff_ffff;
        let key_id = rng.gen_range(0..4u8);
        let long = i % 2 == 1;
        let tk: Vec<u8> = (0..if long { 32 } else { 16 }).map(|_| rng.gen()).collect();
        let mut ccm_nonce = vec![flags];
        ccm_nonce.extend_from_slice(&f[10..16]);
        ccm_nonce.extend_from_slice(&pn_be(pn));
        let mut gcm_nonce = f[10..16].to_vec();
        gcm_nonce.extend_from_slice(&pn_be(pn));

        // Reference ciphertexts.
        let mut ccm_ct = f[hl..].to_vec();
        let ccm_tag = if long {
            let c = Ccm::<aes::Aes256, U16, U13>::new_from_slice(&tk).unwrap();
            c.encrypt_in_place_detached(ccm_nonce.as_slice().into(), &aad, &mut ccm_ct).unwrap().to_vec()
        } else {
            let c = Ccm::<aes::Aes128, U8, U13>::new_from_slice(&tk).unwrap();
            c.encrypt_in_place_detached(ccm_nonce.as_slice().into(), &aad, &mut ccm_ct).unwrap().to_vec()
        };
        let mut gcm_ct = f[hl..].to_vec();
        let gcm_tag = if long {
            Aes256Gcm::new_from_slice(&tk).unwrap().encrypt_in_place_detached(gcm_nonce.as_slice().into(), &aad, &mut gcm_ct)
        } else {
            Aes128Gcm::new_from_slice(&tk).unwrap().encrypt_in_place_detached(gcm_nonce.as_slice().into(), &aad, &mut gcm_ct)
        }
        .unwrap()
        .to_vec();

        let mut hdr_prot = f[..hl].to_vec();
        hdr_prot[1] |= 0x40;
        let mut sec = vec![pn as u8, (pn >> 8) as u8, 0, (key_id << 6) | 0x20];
        sec.extend((2..6).map(|i| (pn >> (8 * i)) as u8));
        for (prot, ct, tag) in [
            (&Ccmp::new(&tk).unwrap() as &dyn Protection, &ccm_ct, &ccm_tag),
            (&Gcmp::new(&tk).unwrap() as &dyn Protection, &gcm_ct, &gcm_tag),
        ] {
            let mut expect = hdr_prot.clone();
            expect.extend_from_slice(&sec);
            expect.extend_from_slice(ct);
            expect.extend_from_slice(tag);
            let mut out = Vec::new();
            prot.encapsulate(&f, pn, key_id, &mut out).unwrap();
            assert!(out == expect, "frame {i} {:?}: {} vs {}", prot.suite(), hex::encode(&out), hex::encode(&expect));
            let mut back = Vec::new();
            let info = prot.decapsulate(&expect, &mut back).unwrap();
            assert_eq!((info.pn, info.key_id), (pn, key_id));
            assert!(back == f, "frame {i} unprotect {:?}", prot.suite());
        }
    }
}

#[derive(Debug, PartialEq)]
enum Bit {
    /// The MIC covers it: flipping it makes decapsulation fail.
    Covered,
    /// The standard leaves it out of the AAD: flipping it still verifies.
    Unprotected,
}

/// The bits a QoS data frame's MIC leaves out: Duration (16), FC subtype b4-b5 (and b6
/// would make it a Null frame), Retry, PwrMgt, MoreData, the Sequence Number (12), the
/// QoS Control bits other than the TID (12), the whole HT Control field (32), and in the
/// CCMP/GCMP header the reserved octet and the Key ID octet but for Ext IV.
#[test]
fn single_bit_flips() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let tk = [0x42u8; 16];
    for prot in [&Ccmp::new(&tk).unwrap() as &dyn Protection, &Gcmp::new(&tk).unwrap() as &dyn Protection] {
        // QoS data, 4-address, Order (HT Control present): 36-octet header.
        let mut f = vec![0x88, 0x83];
        f.extend((0..34).map(|_| rng.gen::<u8>()));
        f.extend((0..40).map(|_| rng.gen::<u8>()));
        let mut p = Vec::new();
        prot.encapsulate(&f, 77, 1, &mut p).unwrap();
        let mut unprotected = Vec::new();
        let mut out = Vec::new();
        for byte in 0..p.len() {
            for bit in 0..8 {
                let mut g = p.clone();
                g[byte] ^= 1 << bit;
                let verdict = match prot.decapsulate(&g, &mut out) {
                    Ok(_) => Bit::Unprotected,
                    Err(_) => Bit::Covered,
                };
                if verdict == Bit::Unprotected {
                    unprotected.push((byte, bit));
                }
            }
        }
        let mut expect = vec![(0, 4), (0, 5)]; // subtype b4, b5 (CF-Ack, CF-Poll)
        expect.extend([(1, 3), (1, 4), (1, 5)]); // Retry, PwrMgt, MoreData
        expect.extend((2..4).flat_map(|b| (0..8).map(move |i| (b, i)))); // Duration
        expect.extend((4..8).map(|i| (22, i))); // Sequence Number low bits
        expect.extend((0..8).map(|i| (23, i))); // Sequence Number high bits
        expect.extend((4..8).map(|i| (30, i))); // QC b4-b7
        expect.extend((0..8).map(|i| (31, i))); // QC b8-b15
        expect.extend((32..36).flat_map(|b| (0..8).map(move |i| (b, i)))); // HT Control
                                                                           // Security header: the reserved octet, and in the Key ID octet the reserved bits and
                                                                           // the Key ID itself (selecting a wrong key is caught by the MIC one level up).
        expect.extend((0..8).map(|i| (38, i)));
        expect.extend([(39, 0), (39, 1), (39, 2), (39, 3), (39, 4), (39, 6), (39, 7)]);
        assert_eq!(unprotected, expect, "{:?}", prot.suite());
    }
}

/// With SPP A-MSDU negotiated, the A-MSDU Present bit (QC b7) is covered too.
#[test]
fn spp_amsdu_covers_qc_b7() {
    let opts = AadOptions { spp_amsdu: true, ..Default::default() };
    let c = Ccmp::with_options(&[1u8; 16], opts).unwrap();
    let mut f = vec![0x88, 0x00];
    f.extend([0u8; 24]);
    f.extend(b"payload");
    let mut p = Vec::new();
    c.encapsulate(&f, 1, 0, &mut p).unwrap();
    let mut g = p.clone();
    g[24] ^= 0x80;
    assert!(c.decapsulate(&g, &mut Vec::new()).is_err());
    let plain = Ccmp::new(&[1u8; 16]).unwrap();
    let mut p2 = Vec::new();
    plain.encapsulate(&f, 1, 0, &mut p2).unwrap();
    p2[24] ^= 0x80;
    assert!(plain.decapsulate(&p2, &mut Vec::new()).is_ok());
}
