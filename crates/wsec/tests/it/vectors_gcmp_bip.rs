//! GCMP-128/256 and BIP vectors of ../shared/vectors.md sections 2.2-2.4 and 3, both ways.
use crate::common;
use common::{h, hx};
use wsec::cipher::bip::Bip;
use wsec::cipher::gcmp::Gcmp;
use wsec::cipher::{CipherSuite, Protection};
use wsec::Error;

fn both_ways(p: &dyn Protection, plain: &[u8], pn: u64, key_id: u8, expect: &[u8]) {
    let mut out = Vec::new();
    p.encapsulate(plain, pn, key_id, &mut out).unwrap();
    assert_eq!(hx(&out), hx(expect), "protect");
    let mut back = Vec::new();
    let info = p.decapsulate(expect, &mut back).unwrap();
    assert_eq!(info.pn, pn);
    assert_eq!(info.key_id, key_id);
    assert_eq!(hx(&back), hx(plain), "unprotect");
}

#[test]
fn gcmp_128_mpdu2_80211ad_m11_1() {
    let tk = h("c97c1f67ce371185514a8a19f2bdd52f");
    let hdr = h("88480b000fd2e128a57c5030f18444085030f184440880330300");
    let pt = h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627");
    let mut plain = hdr.clone();
    plain.extend_from_slice(&pt);
    plain[1] &= !0x40; // the input MPDU is unprotected; the vector header has Protected set
    let mut expect = hdr.clone();
    expect.extend(h("082b00205f5f8900"));
    expect.extend(h("60e9700cc4d40ac6d288b201c38f5bf08b807442640a1596e5dbdad41d1f3623f45d7a12db7afb23"));
    expect.extend(h("def619c2a374b6df66ffa53b6c69d79e"));
    let mut back_plain = plain.clone();
    back_plain[1] &= !0x40;
    both_ways(&Gcmp::new(&tk).unwrap(), &plain, 0x00895f5f2b08, 0, &expect);
}

#[test]
fn gcmp_256_p80211ac_d7_m11_1() {
    let tk = h("c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f");
    let hdr = h("88480b000fd2e128a57c5030f18444085030f184440880330300");
    let mut plain = hdr.clone();
    plain[1] &= !0x40;
    plain.extend(h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627"));
    let expect = h("88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f
        8900658343c8b14447d9211defd46ad89c710c6fc33333236e3997b9176a5a8b
        e779b21266555e70ad79114316859095473d5b1bd596b3dea3bf");
    let g = Gcmp::new(&tk).unwrap();
    assert_eq!(g.suite(), CipherSuite::Gcmp256);
    both_ways(&g, &plain, 0x00895f5f2b08, 0, &expect);
}

/// GCMP MPDU #1 (802.11ad M.11.1): hostap's AAD keeps Protected = 0 (vectors.md 2.2). The raw
/// GCM entry point reproduces the stored MIC; the MPDU path (Protected forced to 1, as the
/// standard says) gives the derived MIC 600bc105....
#[test]
fn gcmp_128_mpdu1_80211ad_raw_and_standard() {
    let tk = h("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    let ct = h("5f5578c18f137ad279bf3f2b24c7bd8f277a1be6770da1d98b70c6d28ae01c55
        9ecba6a01db067c5a27e4db08cdadc7752ad637eaf0a18ed13fbaa143bafef18
        f8fbce4c65e86bd02a87b601b7eab93f2bbc874c8a710580f502341a6a533931
        43de4c9ec6a286f125718378aedc84eba2b30f5c28bb5d75c6b025466d0651c7
        22dc71151f212d6887828a0382e9288a7f43d52b7d25086157646954bb43b57e
        a587a025f40ce74511e4dd2285b40ba3f3b96262cbc28c6aa7be443e7b41e1eb
        ff524857a6816897750115b0231ab7c28472c06dd0b49be9f369a8c39ccd0db7
        983510e1ae8f05d77545e0235cdbd612f3150754cee5ce6a1225d99525026f74");
    let g = Gcmp::new(&tk).unwrap();
    let nonce: [u8; 12] = h("ffffffffffff000000000001").try_into().unwrap();
    let mut data = vec![0u8; 256];
    let tag = g.seal_raw(&nonce, &h("2002000000000000ffffffffffffffffffffffff0000"), &mut data).unwrap();
    assert_eq!(hx(&data), hx(&ct));
    assert_eq!(hx(&tag), "80cb0662ea71abfd9f04c7f872f58090");

    let mut plain = h("20020000000000000000ffffffffffffffffffffffff0000");
    plain.extend(vec![0u8; 256]);
    let mut out = Vec::new();
    g.encapsulate(&plain, 1, 0, &mut out).unwrap();
    assert_eq!(hx(&out[24..32]), "0100002000000000");
    assert_eq!(hx(&out[32..32 + 256]), hx(&ct));
    assert_eq!(hx(&out[32 + 256..]), "600bc1059972d2b52d5beef61d25485c");
}

const DEAUTH: &str = "c0000000ffffffffffff02000000000002000000000009000200";
const IGTK: &str = "4ea9543e09cf2b1eca66ffc58bdecbcf";

#[test]
fn bip_cmac_128_m9_1() {
    let b = Bip::new(CipherSuite::BipCmac128, &h(IGTK)).unwrap();
    let expect = h("c0000000ffffffffffff020000000000020000000000090002004c10040004000000000048dfbfa7b8278872");
    both_ways(&b, &h(DEAUTH), 4, 4, &expect);
}

#[test]
fn bip_gmac_128_m9_1() {
    let b = Bip::new(CipherSuite::BipGmac128, &h(IGTK)).unwrap();
    let expect = h("c0000000ffffffffffff020000000000020000000000090002004c1804000400
        000000003ed862fb0f3338dd3386c897e2ed053d");
    both_ways(&b, &h(DEAUTH), 4, 4, &expect);
}

#[test]
fn bip_gmac_256_m9_1() {
    let key = h("4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f");
    let b = Bip::new(CipherSuite::BipGmac256, &key).unwrap();
    let expect = h("c0000000ffffffffffff020000000000020000000000090002004c1804000400
        0000000023be59dcc7022ee383627ebb1017ddfc");
    both_ways(&b, &h(DEAUTH), 4, 4, &expect);
}

/// BIP-CMAC-256 has no vector in vectors.md: check it against OpenSSL's CMAC computed over
/// the AAD and body built here independently.
#[test]
fn bip_cmac_256_against_openssl() {
    use openssl::pkey::PKey;
    use openssl::sign::Signer;
    let key = h("4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f");
    let b = Bip::new(CipherSuite::BipCmac256, &key).unwrap();
    let mut frame = h(DEAUTH);
    frame[1] |= 0x08 | 0x10 | 0x20; // Retry, PwrMgt, MoreData: masked out of the AAD
    let mut out = Vec::new();
    b.encapsulate(&frame, 0x0102_0304_0506, 5, &mut out).unwrap();
    let mut input = vec![0xc0, 0x00];
    input.extend_from_slice(&frame[4..22]);
    input.extend_from_slice(&frame[24..]);
    input.extend(h("4c18050006050403020100000000000000000000000000000000"));
    let pkey = PKey::cmac(&openssl::symm::Cipher::aes_256_cbc(), &key).unwrap();
    let mut s = Signer::new_without_digest(&pkey).unwrap();
    s.update(&input).unwrap();
    let mac = s.sign_to_vec().unwrap();
    assert_eq!(hx(&out[out.len() - 16..]), hx(&mac));
    let mut back = Vec::new();
    assert_eq!(b.decapsulate(&out, &mut back).unwrap().key_id, 5);
    assert_eq!(back, frame);
}

#[test]
fn bip_rejects_tampering_and_missing_mme() {
    let b = Bip::new(CipherSuite::BipCmac128, &h(IGTK)).unwrap();
    let good = h("c0000000ffffffffffff020000000000020000000000090002004c10040004000000000048dfbfa7b8278872");
    let mut out = Vec::new();
    // Every bit the MIC covers: FC except Retry/PwrMgt/MoreData, A1-A3, body, MME.
    for byte in 0..good.len() {
        for bit in 0..8 {
            let mut f = good.clone();
            f[byte] ^= 1 << bit;
            let r = b.decapsulate(&f, &mut out);
            let unprotected = (byte == 1 && [3, 4, 5].contains(&bit)) // Retry, PwrMgt, MoreData
                || (2..4).contains(&byte) // Duration
                || (22..24).contains(&byte); // Sequence Control
            if byte == 0 && bit < 2 {
                // protocol version: the frame no longer parses.
                assert!(r.is_err());
            } else if byte == 0 && (2..4).contains(&bit) {
                assert!(r.is_err(), "type change must fail");
            } else if unprotected {
                assert!(r.is_ok(), "byte {byte} bit {bit} is not covered by BIP");
            } else {
                assert!(r.is_err(), "byte {byte} bit {bit} flip accepted");
            }
        }
    }
    for n in 0..good.len() {
        assert!(b.decapsulate(&good[..n], &mut out).is_err());
    }
    assert_eq!(b.decapsulate(&h(DEAUTH), &mut out), Err(Error::MmeMissing));
    assert!(Bip::new(CipherSuite::BipCmac128, &[0u8; 15]).is_err());
    assert!(Bip::new(CipherSuite::Ccmp128, &[0u8; 16]).is_err());
}

/// S1G Beacon BIP-GMAC vectors of P802.11REVme/D4.0 J.9.2 (hostap's stored `res[]`),
/// vectors.md 3.4, both ways: (suite key, key ID, BCE, frame, protected).
#[test]
fn bip_gmac_s1g_beacon_vectors() {
    let k128 = IGTK.to_string();
    let k256 = "4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f".to_string();
    let f1 = "1c4000000200000000000000000000d5080000000012345678";
    let f1k7 = "1c4000000200000000000000000000d5088000000012345678";
    let f2 = "1c47000002000000000000000000000000000000000000";
    let cases: [(CipherSuite, &String, u8, bool, &str, &str); 8] = [
        (
            CipherSuite::BipGmac128,
            &k128,
            6,
            false,
            f1,
            "1c4000000200000000000000000000d50800000000123456784c180600040000000000a5b242c1c11eab10c5a4e8b953661938",
        ),
        (
            CipherSuite::BipGmac128,
            &k128,
            7,
            false,
            f2,
            "1c470000020000000000000000000000000000000000004c18070004000000000039d00cc2eed74c2ab741ccf8089b5b08",
        ),
        (
            CipherSuite::BipGmac128,
            &k128,
            6,
            true,
            f1,
            "1c4000000200000000000000000000d50800000000123456788c10a25b7e6776f01157a4fb4a2d66d01766",
        ),
        (CipherSuite::BipGmac128, &k128, 7, true, f2, "1c470000020000000000000000000000000000000000008c1086ddb6c05621309d3ebd2596675bddc3"),
        (
            CipherSuite::BipGmac256,
            &k256,
            7,
            false,
            f1k7,
            "1c4000000200000000000000000000d50880000000123456784c18070004000000000033a26fc67ebffda0ac9b29aa70da3f51",
        ),
        (
            CipherSuite::BipGmac256,
            &k256,
            6,
            false,
            f2,
            "1c470000020000000000000000000000000000000000004c1806000400000000000a5fa0f471df739e614dcf5dbb36f965",
        ),
        (
            CipherSuite::BipGmac256,
            &k256,
            7,
            true,
            f1k7,
            "1c4000000200000000000000000000d50880000000123456788c10f87622803d9c228acb3c558a332e9413",
        ),
        (CipherSuite::BipGmac256, &k256, 6, true, f2, "1c470000020000000000000000000000000000000000008c103c8049be8c23341f5c2f9cd603e37a5b"),
    ];
    for (i, (suite, key, key_id, bce, frame, expect)) in cases.iter().enumerate() {
        let b = Bip::new(*suite, &h(key)).unwrap();
        let mut out = Vec::new();
        b.protect_s1g_beacon(&h(frame), 4, *key_id, *bce, &mut out).unwrap();
        assert_eq!(hx(&out), *expect, "case {i}");
        let mut back = Vec::new();
        let info = b.verify_s1g_beacon(&h(expect), bce.then_some((4, *key_id)), &mut back).unwrap();
        assert_eq!(hx(&back), *frame, "case {i}");
        assert_eq!((info.pn, info.key_id), (4, *key_id), "case {i}");
        // Tampering with the covered body or SA fails; Duration and Timestamp are not covered.
        let mut t = h(expect);
        t[5] ^= 1;
        assert_eq!(b.verify_s1g_beacon(&t, bce.then_some((4, *key_id)), &mut back), Err(Error::MicFailure));
        let mut t = h(expect);
        t[2] ^= 1;
        t[11] ^= 1;
        assert!(b.verify_s1g_beacon(&t, bce.then_some((4, *key_id)), &mut back).is_ok(), "case {i}");
        if *bce {
            // With BCE the BIPN is not on the air: the wrong expected BIPN fails.
            assert_eq!(b.verify_s1g_beacon(&h(expect), Some((5, *key_id)), &mut back), Err(Error::MicFailure));
        }
    }
}

/// BIP-CMAC-128 on the J.9.2 S1G Beacon (hostap stores no output): checked against
/// OpenSSL's CMAC over AAD || body built here (FC, SA, Change Sequence; TSF Completion of
/// the Compatibility element masked; MME with the MIC zeroed).
#[test]
fn bip_cmac_s1g_beacon_against_openssl() {
    use openssl::pkey::PKey;
    use openssl::sign::Signer;
    let b = Bip::new(CipherSuite::BipCmac128, &h(IGTK)).unwrap();
    let frame = h("1c4000000200000000000000000000d5088000000012345678");
    let mut out = Vec::new();
    b.protect_s1g_beacon(&frame, 4, 7, false, &mut out).unwrap();
    let mut input = h("1c40 020000000000 00"); // FC, SA, Change Sequence
    input.extend(h("d508 8000 0000 00000000")); // Compatibility element, TSF Completion masked
    input.extend(h("4c10 0700 040000000000 0000000000000000")); // MME, MIC zeroed
    let pkey = PKey::cmac(&openssl::symm::Cipher::aes_128_cbc(), &h(IGTK)).unwrap();
    let mut s = Signer::new_without_digest(&pkey).unwrap();
    s.update(&input).unwrap();
    let mac = s.sign_to_vec().unwrap();
    assert_eq!(hx(&out[..frame.len() + 10]), hx(&frame) + "4c100700040000000000");
    assert_eq!(hx(&out[out.len() - 8..]), hx(&mac[..8]));
    let mut back = Vec::new();
    assert_eq!(b.verify_s1g_beacon(&out, None, &mut back).unwrap().key_id, 7);
    assert_eq!(back, frame);
}
