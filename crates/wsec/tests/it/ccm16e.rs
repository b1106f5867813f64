//! IEEE 802.16e AES-CCM (`wsec::cipher::ccm16e`). No public 802.16e vector exists
//! (vectors.md section 8), so: the CCM core against RFC 3610 packet vectors #1 and #2
//! (vectors.md section 7), the no-AAD CCM with the 802.16e nonce against the RustCrypto
//! `ccm` crate and against a block-by-block CCM written here from the `aes` crate, and the
//! MAC PDU framing (EC, EKS, LEN, HCS, PN, ICV, CRC-32) field by field.
use crate::common;
use aes::cipher::BlockEncrypt;
use aes::Aes128;
use ccm::aead::generic_array::GenericArray;
use ccm::aead::{AeadInPlace, KeyInit};
use ccm::consts::{U13, U8};
use ccm::Ccm;
use common::{h, hx};
use rand::{Rng, RngCore, SeedableRng};
use wsec::cipher::ccm16e::{self, Ccm16e, Gmh, B0_FLAGS};
use wsec::cipher::kernel::CcmKey;
use wsec::Error;

#[test]
fn rfc3610_packet_vectors_1_and_2_on_the_core() {
    let key = CcmKey::new(&h("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf")).unwrap();
    for (nonce, plain, expect) in [
        (
            "00000003020100a0a1a2a3a4a5",
            "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
            "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0",
        ),
        (
            "00000004030201a0a1a2a3a4a5",
            "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "72c91a36e135f8cf291ca894085c87e3cc15c439c9e43a3ba091d56e10400916",
        ),
    ] {
        let n: [u8; 13] = h(nonce).try_into().unwrap();
        let mut d = h(plain);
        let mut tag = [0u8; 8];
        key.seal_in_place(&n, &h("0001020304050607"), &mut d, &mut tag).unwrap();
        d.extend_from_slice(&tag);
        assert_eq!(hx(&d), expect);
    }
}

#[test]
fn hcs_and_crc32_check_values() {
    // Catalogue check values of "123456789": CRC-8 (poly 07) and CRC-32/BZIP2.
    assert_eq!(ccm16e::hcs(b"123456789"), 0xf4);
    assert_eq!(ccm16e::crc32(b"123456789"), 0xfc89_1918);
}

#[test]
fn nonce_layout() {
    let n = ccm16e::nonce(&[0x40, 0x10, 0x2a, 0x12, 0x34], 0x0102_0304);
    assert_eq!(hx(&n), "40102a12340000000004030201");
}

/// CCM with no AAD written out block by block from the `aes` crate (SP 800-38C A.2, 6.1).
fn ccm_by_hand(key: &[u8], nonce: &[u8; 13], p: &[u8]) -> (Vec<u8>, [u8; 8]) {
    let aes = Aes128::new_from_slice(key).unwrap();
    let enc = |b: [u8; 16]| {
        let mut g = GenericArray::from(b);
        aes.encrypt_block(&mut g);
        <[u8; 16]>::from(g)
    };
    let mut b0 = [0u8; 16];
    b0[0] = 0x19; // Adata 0, M' = 3, L' = 1
    b0[1..14].copy_from_slice(nonce);
    b0[14..].copy_from_slice(&(p.len() as u16).to_be_bytes());
    let mut y = enc(b0);
    for chunk in p.chunks(16) {
        for (i, b) in chunk.iter().enumerate() {
            y[i] ^= b;
        }
        y = enc(y);
    }
    let ctr = |i: u16| {
        let mut a = [0u8; 16];
        a[0] = 0x01;
        a[1..14].copy_from_slice(nonce);
        a[14..].copy_from_slice(&i.to_be_bytes());
        enc(a)
    };
    let mut c = p.to_vec();
    for (j, chunk) in c.chunks_mut(16).enumerate() {
        let s = ctr(j as u16 + 1);
        for (i, b) in chunk.iter_mut().enumerate() {
            *b ^= s[i];
        }
    }
    let s0 = ctr(0);
    let mut t = [0u8; 8];
    for i in 0..8 {
        t[i] = y[i] ^ s0[i];
    }
    (c, t)
}

#[test]
fn b0_flags_constant() {
    // Adata = 0 (no AAD), M' = (M - 2) / 2 = 3, L' = L - 1 = 1 (SP 800-38C A.2.1).
    assert_eq!(B0_FLAGS, (3 << 3) | 1);
}

/// A plaintext generic MAC PDU with a valid HCS (and CRC-32 when `ci`).
fn plain_pdu(rng: &mut impl Rng, payload_len: usize, ci: bool) -> Vec<u8> {
    let len = 6 + payload_len + if ci { 4 } else { 0 };
    let cid: u16 = rng.gen();
    let mut pdu = vec![
        rng.gen::<u8>() & 0x3f, // HT = 0, EC = 0, Type random
        (rng.gen::<u8>() & 0x88) | if ci { 0x40 } else { 0 } | ((len >> 8) as u8 & 7),
        len as u8,
        (cid >> 8) as u8,
        cid as u8,
        0,
    ];
    pdu[5] = ccm16e::hcs(&pdu[..5]);
    let mut p = vec![0u8; payload_len];
    rng.fill_bytes(&mut p);
    pdu.extend_from_slice(&p);
    if ci {
        let c = ccm16e::crc32(&pdu);
        pdu.extend_from_slice(&c.to_be_bytes());
    }
    pdu
}

#[test]
fn encapsulation_against_two_independent_ccms() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    for trial in 0..300 {
        let mut tek = [0u8; 16];
        rng.fill_bytes(&mut tek);
        let ci = trial % 2 == 1;
        let plen = rng.gen_range(0..=2047 - 6 - 12 - 4);
        let pdu = plain_pdu(&mut rng, plen, ci);
        let pn: u32 = rng.gen_range(1..=u32::MAX);
        let eks = rng.gen_range(0..4u8);
        let c = Ccm16e::new(&tek).unwrap();
        let mut out = Vec::new();
        c.encapsulate(&pdu, pn, eks, &mut out).unwrap();

        // Header: EC set, EKS, LEN + 12, HCS over the new octets, the rest unchanged.
        let g = Gmh(out[..6].try_into().unwrap());
        assert!(g.ec() && !g.ht());
        assert_eq!(g.eks(), eks);
        assert_eq!(g.ci(), ci);
        assert_eq!(g.len(), pdu.len() + 12);
        assert_eq!(g.len(), out.len());
        assert!(g.hcs_ok());
        assert_eq!(out[0] & 0xbf, pdu[0] & 0xbf);
        assert_eq!(out[1] & 0xc8, pdu[1] & 0xc8);
        assert_eq!(&out[3..5], &pdu[3..5]);
        // PN in clear, little endian.
        assert_eq!(&out[6..10], &pn.to_le_bytes());

        // Ciphertext and ICV: the nonce rebuilt here from the transmitted header.
        let mut n = [0u8; 13];
        n[..5].copy_from_slice(&out[..5]);
        n[9..].copy_from_slice(&pn.to_le_bytes());
        let body = &pdu[6..pdu.len() - if ci { 4 } else { 0 }];
        let (hc, ht) = ccm_by_hand(&tek, &n, body);
        let rc = Ccm::<Aes128, U8, U13>::new(GenericArray::from_slice(&tek));
        let mut rb = body.to_vec();
        let rt = rc.encrypt_in_place_detached(GenericArray::from_slice(&n), &[], &mut rb).unwrap();
        assert_eq!(hc, rb);
        assert_eq!(&ht[..], &rt[..]);
        let ct_end = 10 + body.len();
        assert_eq!(&out[10..ct_end], &hc[..]);
        assert_eq!(&out[ct_end..ct_end + 8], &ht[..]);
        if ci {
            assert_eq!(out.len(), ct_end + 12);
            let crc = ccm16e::crc32(&out[..ct_end + 8]);
            assert_eq!(&out[ct_end + 8..], &crc.to_be_bytes());
        } else {
            assert_eq!(out.len(), ct_end + 8);
        }

        // And back.
        let mut back = Vec::new();
        let rx = c.decapsulate(&out, &mut back).unwrap();
        assert_eq!(rx.pn, pn);
        assert_eq!(rx.eks, eks);
        let mut expect = pdu.clone();
        expect[1] &= !0x30; // EKS cleared
        expect[5] = ccm16e::hcs(&expect[..5]);
        if ci {
            let e = expect.len() - 4;
            let crc = ccm16e::crc32(&expect[..e]);
            expect[e..].copy_from_slice(&crc.to_be_bytes());
        }
        assert_eq!(back, expect);
    }
}

#[test]
fn tampering_and_bad_input_are_refused() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let tek = [0x5au8; 16];
    let c = Ccm16e::new(&tek).unwrap();
    let pdu = plain_pdu(&mut rng, 100, false);
    let mut out = Vec::new();
    c.encapsulate(&pdu, 1, 1, &mut out).unwrap();
    let mut back = Vec::new();

    // Any flipped bit after the header (PN, ciphertext, ICV) fails the ICV.
    for i in 6..out.len() {
        let mut t = out.clone();
        t[i] ^= 0x01;
        assert_eq!(c.decapsulate(&t, &mut back), Err(Error::MicFailure), "octet {i}");
        assert!(back.is_empty());
    }
    // The header is bound through the nonce: change the CID (and fix the HCS) and it fails.
    let mut t = out.clone();
    t[4] ^= 1;
    t[5] = ccm16e::hcs(&t[..5]);
    assert_eq!(c.decapsulate(&t, &mut back), Err(Error::MicFailure));
    // A bad HCS is refused before any crypto.
    let mut t = out.clone();
    t[5] ^= 1;
    assert!(matches!(c.decapsulate(&t, &mut back), Err(Error::Malformed(_))));
    // CRC-32 mismatch with CI = 1.
    let pdu_ci = plain_pdu(&mut rng, 40, true);
    c.encapsulate(&pdu_ci, 9, 0, &mut out).unwrap();
    let n = out.len();
    out[n - 1] ^= 0x80;
    assert_eq!(c.decapsulate(&out, &mut back), Err(Error::IcvFailure));
    // Wrong key.
    c.encapsulate(&pdu, 2, 0, &mut out).unwrap();
    assert_eq!(Ccm16e::new(&[0u8; 16]).unwrap().decapsulate(&out, &mut back), Err(Error::MicFailure));

    // Input errors.
    assert_eq!(Ccm16e::new(&[0u8; 32]).err(), Some(Error::BadKeyLength));
    assert_eq!(c.encapsulate(&pdu[..3], 1, 0, &mut out), Err(Error::Truncated));
    assert!(matches!(c.encapsulate(&pdu, 0, 0, &mut out), Err(Error::Malformed(_))));
    assert!(matches!(c.encapsulate(&pdu, 1, 4, &mut out), Err(Error::Malformed(_))));
    assert!(matches!(c.encapsulate(&pdu[..pdu.len() - 1], 1, 0, &mut out), Err(Error::Malformed(_))));
    c.encapsulate(&pdu, 3, 0, &mut out).unwrap();
    let enc = out.clone();
    assert_eq!(c.encapsulate(&enc, 4, 0, &mut out), Err(Error::AlreadyProtected));
    assert_eq!(c.decapsulate(&pdu, &mut back), Err(Error::NotProtected));
    let big = plain_pdu(&mut rng, 2047 - 6 - 11, false);
    assert_eq!(c.encapsulate(&big, 1, 0, &mut out), Err(Error::Oversize));
    let fits = plain_pdu(&mut rng, 2047 - 6 - 12, false);
    c.encapsulate(&fits, 1, 0, &mut out).unwrap();
    assert_eq!(out.len(), 2047);
    // HT = 1 (signalling header) carries no payload.
    let mut sig = pdu.clone();
    sig[0] |= 0x80;
    sig[5] = ccm16e::hcs(&sig[..5]);
    assert!(matches!(c.encapsulate(&sig, 1, 0, &mut out), Err(Error::Unsupported(_))));
}
