//! RSN key hierarchy against `../shared/vectors.md` section 6 and independent peers:
//! passphrase -> PSK (6.1, RFC 6070, aircrack), PRF-SHA1 (6.2), PTK with PRF-SHA1 (6.3) and
//! KDF-SHA256 + KDK (6.4), PMKID, AES Key Wrap (6.5), RC4 Key Data, Key Data padding;
//! PBKDF2 cross-checked against RustCrypto `pbkdf2` and OpenSSL on random inputs, the
//! SHA-NI and portable backends and the batch API against each other.
use crate::common;
use common::{h, hx};
use hmac::{Hmac, Mac};
use rand::{Rng, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::Akm;
use wsec::rsn::kdf::{self, Ptk};
use wsec::rsn::keywrap;
use wsec::rsn::pbkdf2 as wp;
use wsec::Error;

fn arr<const N: usize>(s: &str) -> [u8; N] {
    h(s).try_into().expect("vector length")
}

/// The PBKDF2 kernels this CPU can run (the portable one always).
fn backends() -> Vec<wp::Backend> {
    wp::Backend::ALL.into_iter().filter(|b| b.is_supported()).collect()
}

// ---- 6.1 passphrase -> PSK ----

#[test]
fn passphrase_vectors_6_1() {
    let cases: [(&[u8], &[u8], &str); 3] = [
        (b"password", b"IEEE", "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e"),
        (b"ThisIsAPassword", b"ThisIsASSID", "0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af"),
        (
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
            "becb93866bb8c3832cb777c2f559807c8c59afcb6eae734885001300a981cc62",
        ),
    ];
    for (p, ssid, want) in cases {
        assert_eq!(hx(&wp::psk_from_passphrase(p, ssid).unwrap()), want);
        assert_eq!(hx(&wp::psk_from_passphrase_portable(p, ssid).unwrap()), want);
        let mut raw = [0u8; 32];
        wp::pbkdf2_hmac_sha1(p, ssid, 4096, &mut raw).unwrap();
        assert_eq!(hx(&raw), want);
    }
    let batch: Vec<&[u8]> = cases.iter().map(|c| c.0).collect();
    // Same SSID for the batch: only the first case's.
    let got = wp::psk_batch(&batch[..1], cases[0].1);
    assert_eq!(hx(got[0].as_ref().unwrap()), cases[0].2);
}

/// aircrack-ng `test-calc-pmk.c`: a 13-octet key given in hex, SSID "T3st1ng". The key is
/// not printable ASCII, so it is not a J.4.1 passphrase: the raw PBKDF2 takes it, the
/// passphrase API refuses it.
#[test]
fn aircrack_calc_pmk_raw_key() {
    let key = h("6e9c7a919fb8ae93c1ab803c09");
    assert_eq!(key.len(), 13);
    let mut out = [0u8; 32];
    wp::pbkdf2_hmac_sha1(&key, b"T3st1ng", 4096, &mut out).unwrap();
    assert_eq!(hx(&out), "1d4df55dd8d913f5540d053cdb578353d06c0fb3507110ee48dace2b60f6d0d4");
    wp::pbkdf2_hmac_sha1_portable(&key, b"T3st1ng", 4096, &mut out).unwrap();
    assert_eq!(hx(&out), "1d4df55dd8d913f5540d053cdb578353d06c0fb3507110ee48dace2b60f6d0d4");
    assert!(matches!(wp::psk_from_passphrase(&key, b"T3st1ng"), Err(Error::Malformed(_))));
}

/// The 6.3 note: that PMK is PBKDF2("12345678", "Harkonen") [DERIVED].
#[test]
fn harkonen_pmk() {
    assert_eq!(
        hx(&wp::psk_from_passphrase(b"12345678", b"Harkonen").unwrap()),
        "ee51883793a6f68e9615fe73c80a3aa6f2dd0ea537bce627b929183cc6e57925"
    );
}

#[test]
fn rfc6070_pbkdf2_sha1() {
    let cases: [(&[u8], &[u8], u32, &str); 5] = [
        (b"password", b"salt", 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"),
        (b"password", b"salt", 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
        (b"password", b"salt", 4096, "4b007901b765489abead49d926f721d065a429c1"),
        (b"passwordPASSWORDpassword", b"saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"),
        (b"pass\0word", b"sa\0lt", 4096, "56fa6aa75548099dcc37d7f03425e0c3"),
    ];
    for (p, s, c, want) in cases {
        let mut out = vec![0u8; want.len() / 2];
        wp::pbkdf2_hmac_sha1(p, s, c, &mut out).unwrap();
        assert_eq!(hx(&out), want, "c={c}");
        for be in backends() {
            out.fill(0);
            wp::pbkdf2_hmac_sha1_with(be, p, s, c, &mut out).unwrap();
            assert_eq!(hx(&out), want, "{} c={c}", be.name());
        }
    }
}

#[test]
fn pbkdf2_edge_cases() {
    let mut out = [0u8; 20];
    assert!(matches!(wp::pbkdf2_hmac_sha1(b"p", b"s", 0, &mut out), Err(Error::Malformed(_))));
    let mut empty = [0u8; 0];
    wp::pbkdf2_hmac_sha1(b"p", b"s", 3, &mut empty).unwrap();
    // A password longer than the SHA-1 block is hashed first (HMAC's rule).
    let long = [0x61u8; 200];
    let mut a = [0u8; 45];
    let mut b = [0u8; 45];
    wp::pbkdf2_hmac_sha1(&long, b"salt", 7, &mut a).unwrap();
    pbkdf2::pbkdf2_hmac::<sha1::Sha1>(&long, b"salt", 7, &mut b);
    assert_eq!(a, b);
}

#[test]
fn passphrase_rules() {
    let ssid = b"IEEE";
    for (p, ok) in [
        (&b"1234567"[..], false),
        (&b"12345678"[..], true),
        (&[b'x'; 63][..], true),
        (&[b'x'; 64][..], false),
        (&b""[..], false),
        (&b"passw\xc3\xb6rd"[..], false),
        (&b"pass\x7fword"[..], false),
        (&b"pass\tword"[..], false),
        (&b"   ~~~   "[..], true),
    ] {
        let r = wp::psk_from_passphrase(p, ssid);
        assert_eq!(r.is_ok(), ok, "{p:?}");
        assert_eq!(wp::check_passphrase(p).is_ok(), ok, "{p:?}");
        if !ok {
            assert!(matches!(r, Err(Error::Malformed(_))));
        }
    }
    assert_eq!(wp::psk_from_passphrase(b"1234567", ssid).unwrap_err(), Error::Malformed("passphrase must be 8..63 characters"));
    assert_eq!(wp::psk_from_passphrase(&[b'x'; 64], ssid).unwrap_err(), Error::Malformed("passphrase must be 8..63 characters"));
    assert_eq!(
        wp::psk_from_passphrase("passwörd".as_bytes(), ssid).unwrap_err(),
        Error::Malformed("passphrase must be printable ASCII (0x20..0x7e)")
    );
    // SSID 0..=32 octets.
    assert!(wp::psk_from_passphrase(b"password", b"").is_ok());
    assert!(wp::psk_from_passphrase(b"password", &[0u8; 32]).is_ok());
    assert!(matches!(wp::psk_from_passphrase(b"password", &[0u8; 33]), Err(Error::Malformed(_))));
}

fn random_passphrase(rng: &mut impl Rng) -> Vec<u8> {
    let len = rng.gen_range(8..=63);
    (0..len).map(|_| rng.gen_range(32..=126u8)).collect()
}

#[test]
fn batch_equals_single() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_0001);
    // 19 passphrases: two full groups of 4 on SHA-NI, plus a tail, with bad ones mixed in.
    let mut ps: Vec<Vec<u8>> = (0..19).map(|_| random_passphrase(&mut rng)).collect();
    ps[3] = b"short".to_vec();
    ps[10] = vec![b'a'; 64];
    ps[11] = b"bad\x01passphrase".to_vec();
    let ssid: Vec<u8> = (0..rng.gen_range(0..=32)).map(|_| rng.gen()).collect();
    let refs: Vec<&[u8]> = ps.iter().map(|p| p.as_slice()).collect();
    let batch = wp::psk_batch(&refs, &ssid);
    let batch_portable = wp::psk_batch_portable(&refs, &ssid);
    assert_eq!(batch.len(), ps.len());
    for (i, p) in ps.iter().enumerate() {
        let single = wp::psk_from_passphrase(p, &ssid);
        assert_eq!(batch[i], single, "passphrase {i}");
        assert_eq!(batch_portable[i], single, "portable passphrase {i}");
        if let Ok(psk) = single {
            let mut rc = [0u8; 32];
            pbkdf2::pbkdf2_hmac::<sha1::Sha1>(p, &ssid, 4096, &mut rc);
            assert_eq!(psk, rc);
        }
    }
    assert!(batch[3].is_err() && batch[10].is_err() && batch[11].is_err());
    // Every batch size from 0 to 9 (tails of every length).
    for n in 0..=9 {
        let got = wp::psk_batch(&refs[12..12 + n.min(7)], b"ssid");
        for (k, r) in got.iter().enumerate() {
            assert_eq!(*r, wp::psk_from_passphrase(refs[12 + k], b"ssid"));
        }
    }
    // Every kernel, with batch sizes that exercise the AVX-512 grouping (2 x 16 lanes) and
    // the SHA-NI remainder: 34 valid (chains 32 + 32 + 4), 20 (32 + 8), 11 (16 + 6).
    let mut many: Vec<Vec<u8>> = (0..37).map(|_| random_passphrase(&mut rng)).collect();
    many[0] = b"bad".to_vec();
    many[17] = vec![b'z'; 70];
    many[36] = b"bad\x7f\x7f\x7f\x7f\x7f".to_vec();
    let refs: Vec<&[u8]> = many.iter().map(|p| p.as_slice()).collect();
    let want: Vec<_> = refs.iter().map(|p| wp::psk_from_passphrase(p, b"batch")).collect();
    for be in backends() {
        for n in [37usize, 22, 12] {
            assert_eq!(wp::psk_batch_with(be, &refs[..n], b"batch"), want[..n], "{} n={n}", be.name());
        }
    }
    // Every batch plan (SHA-NI with 2, 4 and 8 chains in lockstep among them), and the one
    // psk_batch measured fastest here.
    let plans = wp::batch_plans();
    assert!(plans.contains(&wp::batch_plan()), "{:?} not among {:?}", wp::batch_plan(), plans);
    if wp::Backend::ShaNi.is_supported() {
        assert_eq!(plans.iter().filter(|p| p.backend == wp::Backend::ShaNi).count(), 3);
    }
    for plan in plans {
        assert_eq!(wp::psk_batch_plan(plan, &refs, b"batch"), want, "{}", plan.name());
    }
    for be in wp::Backend::ALL.into_iter().filter(|b| !b.is_supported()) {
        assert!(wp::psk_batch_with(be, &refs[..2], b"x").iter().all(|r| matches!(r, Err(Error::Unsupported(_)))));
        assert!(matches!(wp::psk_from_passphrase_with(be, b"password", b"x"), Err(Error::Unsupported(_))));
    }
    // An over-long SSID fails every entry.
    assert!(wp::psk_batch(&refs[..2], &[0u8; 33]).iter().all(|r| r.is_err()));
}

#[test]
fn pbkdf2_crosscheck_random() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_0002);
    for case in 0..300 {
        let plen = rng.gen_range(1..=64 + 40 * (case % 3 == 0) as usize);
        let pass: Vec<u8> = (0..plen).map(|_| rng.gen()).collect();
        let slen = rng.gen_range(0..=64);
        let salt: Vec<u8> = (0..slen).map(|_| rng.gen()).collect();
        let iters = rng.gen_range(1..50u32);
        // Up to 10 blocks: more chains than the SHA-NI kernel runs at once.
        let olen = if case % 10 == 0 { rng.gen_range(600..=800) } else { rng.gen_range(1..=200) };
        let mut ours = vec![0u8; olen];
        let mut portable = vec![0u8; olen];
        let mut rc = vec![0u8; olen];
        let mut ossl = vec![0u8; olen];
        wp::pbkdf2_hmac_sha1(&pass, &salt, iters, &mut ours).unwrap();
        wp::pbkdf2_hmac_sha1_portable(&pass, &salt, iters, &mut portable).unwrap();
        pbkdf2::pbkdf2_hmac::<sha1::Sha1>(&pass, &salt, iters, &mut rc);
        openssl::pkcs5::pbkdf2_hmac(&pass, &salt, iters as usize, openssl::hash::MessageDigest::sha1(), &mut ossl).unwrap();
        assert_eq!(ours, rc, "case {case}: plen {plen} slen {slen} iters {iters} olen {olen}");
        assert_eq!(ours, ossl, "case {case} vs OpenSSL");
        assert_eq!(portable, rc, "case {case} portable");
        for be in backends() {
            let mut other = vec![0u8; olen];
            wp::pbkdf2_hmac_sha1_with(be, &pass, &salt, iters, &mut other).unwrap();
            assert_eq!(other, rc, "case {case} {}", be.name());
        }
    }
}

#[test]
fn all_backends_agree_on_psk() {
    eprintln!("pbkdf2 backend: {}", wp::backend().name());
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_0003);
    for _ in 0..6 {
        let p = random_passphrase(&mut rng);
        let ssid: Vec<u8> = (0..rng.gen_range(0..=32)).map(|_| rng.gen()).collect();
        assert_eq!(wp::psk_from_passphrase(&p, &ssid), wp::psk_from_passphrase_portable(&p, &ssid));
    }
}

// ---- 6.2 PRF-SHA1 ----

#[test]
fn prf_512_vectors_6_2() {
    let cases: [(Vec<u8>, Vec<u8>, &str); 3] = [
        (
            h("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
            b"Hi There".to_vec(),
            "bcd4c650b30b9684951829e0d75f9d54b862175ed9f00606e17d8da35402ffee\
             75df78c3d31e0f889f012120c0862beb67753e7439ae242edb8373698356cf5a",
        ),
        (
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "51f4de5b33f249adf81aeb713a3c20f4fe631446fabdfa58244759ae58ef9009\
             a99abf4eac2ca5fa87e692c440eb40023e7babb206d61de7b92f41529092b8fc",
        ),
        (
            h("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
            vec![0xdd; 50],
            "e1ac546ec4cb636f9976487be5c86be17a0252ca5d8d8df12cfb0473525249ce\
             9dd8d177ead710bc9b590547239107aef7b4abd43d87f0a68f1cbd9e2b6f7607",
        ),
    ];
    for (k, b, want) in &cases {
        let want = h(want);
        assert_eq!(kdf::prf_512(k, b"prefix", b).to_vec(), want);
        // Shorter PRFs are prefixes (the length is not an input of PRF-SHA1).
        assert_eq!(kdf::prf_128(k, b"prefix", b).to_vec(), want[..16]);
        assert_eq!(kdf::prf_192(k, b"prefix", b).to_vec(), want[..24]);
        assert_eq!(kdf::prf_256(k, b"prefix", b).to_vec(), want[..32]);
        assert_eq!(kdf::prf_384(k, b"prefix", b).to_vec(), want[..48]);
        assert_eq!(kdf::prf_704(k, b"prefix", b)[..64].to_vec(), want);
        let mut odd = [0u8; 33];
        kdf::prf_sha1(k, b"prefix", b, &mut odd).unwrap();
        assert_eq!(odd.to_vec(), want[..33]);
    }
    let mut too_long = vec![0u8; kdf::MAX_PRF_SHA1_LEN + 1];
    assert_eq!(kdf::prf_sha1(b"k", b"a", b"b", &mut too_long), Err(Error::Oversize));
}

// ---- 6.3 PTK with PRF-SHA1 ----

const AA_63: &str = "00146c7e4080";
const SPA_63: &str = "001346fe320c";
const ANONCE_63: &str = "225854b0444de3af06d1492b852984f04cf6274c0e3218b8681756864db7a055";
const SNONCE_63: &str = "59168bc3a5df18d71efb6423f340088dab9e1ba2bbc58659e07b3764b0de8570";
const EAPOL_63: &str = "0103007502010a0010000000000000000159168bc3a5df18d71efb6423f34008\
                        8dab9e1ba2bbc58659e07b3764b0de8570000000000000000000000000000000\
                        0000000000000000000000000000000000000000000000000000000000000000\
                        00001630140100000fac040100000fac040100000fac020100";

#[test]
fn ptk_prf_sha1_6_3() {
    let pmk = h("ee51883793a6f68e9615fe73c80a3aa6f2dd0ea537bce627b929183cc6e57925");
    let (aa, spa) = (arr::<6>(AA_63), arr::<6>(SPA_63));
    let (an, sn) = (arr::<32>(ANONCE_63), arr::<32>(SNONCE_63));
    let eptk = h("ea0e404633c802450302868ccaa749de5cba5abcb267e2de1d5e21e57accd507\
                  9b31e9ff220e132ae4f6ed9ef1acc88545825fc32ee55961395ae43734d6c107\
                  98ef5afe42c07426471868a577d4d17e");
    // The 80-octet PRF output aircrack derives.
    let ctx = kdf::ptk_context(&aa, &spa, &an, &sn);
    assert_eq!(ctx, kdf::ptk_context(&spa, &aa, &sn, &an), "min/max ordering");
    let mut raw = [0u8; 80];
    kdf::prf_sha1(&pmk, b"Pairwise key expansion", &ctx, &mut raw).unwrap();
    assert_eq!(raw.to_vec(), eptk);

    let ptk = kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 0).unwrap();
    assert_eq!(hx(ptk.kck()), "ea0e404633c802450302868ccaa749de");
    assert_eq!(hx(ptk.kek()), "5cba5abcb267e2de1d5e21e57accd507");
    assert_eq!(hx(ptk.tk()), "9b31e9ff220e132ae4f6ed9ef1acc885");
    assert!(ptk.kdk().is_empty());
    assert!(!ptk.tk_is_zero());
    // The roles swapped give the same PTK.
    let swapped = kdf::derive_ptk(Akm::Psk, &pmk, &spa, &aa, &sn, &an, CipherSuite::Ccmp128, 0).unwrap();
    assert_eq!(swapped.tk(), ptk.tk());
    // TKIP: a 32-octet TK, still a prefix of the same PRF output (PRF-512).
    let tkip = kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Tkip, 0).unwrap();
    assert_eq!(tkip.tk().to_vec(), eptk[32..64]);
    // With PRF-SHA1 a KDK only appends octets.
    let kdk = kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 32).unwrap();
    assert_eq!(kdk.kck(), ptk.kck());
    assert_eq!(kdk.tk(), ptk.tk());
    assert_eq!(kdk.kdk().to_vec(), eptk[48..80]);
    // Debug shows no key octets.
    let dbg = format!("{ptk:?}");
    assert!(!dbg.contains("ea0e") && dbg.contains("16 octets"), "{dbg}");

    // EAPOL-Key msg 2/4, descriptor version 2: MIC = HMAC-SHA1-128(KCK).
    let mut mac = <Hmac<sha1::Sha1> as Mac>::new_from_slice(ptk.kck()).unwrap();
    mac.update(&h(EAPOL_63));
    assert_eq!(hx(&mac.finalize().into_bytes()[..16]), "d5355382b8a9b806dcaf99cdaf564eb6");
}

/// aircrack `test-calc-mic.c`: other PMK, same addresses, nonces and EAPOL frame.
#[test]
fn ptk_aircrack_calc_mic() {
    let pmk = h("6fe857c0b742dfc2da8a1fe8b1b4b4628d9fbbb060826b83cb43b64b13e103e8");
    let (aa, spa) = (arr::<6>(AA_63), arr::<6>(SPA_63));
    let (an, sn) = (arr::<32>(ANONCE_63), arr::<32>(SNONCE_63));
    let want = h("9a75ef0bde7c209ccae13f54b1b33ea3fa0166166e30811f1baaff8d1c1ac163\
                  82a49b50b86088c5cb793b542661a28a64693c72b86673e0a82d48c74768cbf9\
                  a1bf86cc30b9d63de8825925ec1f4d3f");
    let ptk = kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Tkip, 16).unwrap();
    let mut all = Vec::new();
    for part in [ptk.kck(), ptk.kek(), ptk.tk(), ptk.kdk()] {
        all.extend_from_slice(part);
    }
    assert_eq!(all, want);
    let mut v2 = <Hmac<sha1::Sha1> as Mac>::new_from_slice(ptk.kck()).unwrap();
    v2.update(&h(EAPOL_63));
    assert_eq!(hx(&v2.finalize().into_bytes()), "6f0489cf7406acf0ae8fcb32bce57c37793a2361");
    let mut v1 = <Hmac<md5::Md5> as Mac>::new_from_slice(ptk.kck()).unwrap();
    v1.update(&h(EAPOL_63));
    assert_eq!(hx(&v1.finalize().into_bytes()), "9cc3faa0c685961d8406bb657745135d");
}

// ---- 6.4 PTK with KDF-SHA256 and a KDK ----

#[test]
fn ptk_sae_kdf_sha256_kdk_6_4() {
    let pmk = h("def43e5567e01ca6649265f19a290eeff8bd888f6c1d9cc9d10f04bd378f3cad");
    let aa = arr::<6>("c0ffd4a8dbc1");
    let spa = arr::<6>("00904c01c107");
    let an = arr::<32>("be7a1ca284347b5bd67dbd2dfdb4d99f1afae0b88ba18e008718417e4b27ef5f");
    let sn = arr::<32>("404b012ffb43ed0fb43ea1f287c91f2506d21b4a92d74b5ea50c943350ce8671");
    let ptk = kdf::derive_ptk(Akm::Sae, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 32).unwrap();
    assert_eq!(hx(ptk.kck()), "cd7b9e7555362df0b63568484a8112f5");
    assert_eq!(hx(ptk.kek()), "99cad3588da0f1e63fd190191039bb4b");
    assert_eq!(hx(ptk.tk()), "9e2e9377e7532e737a1bc250fe194a03");
    assert_eq!(hx(ptk.kdk()), "6c7fb97ceb55b01acff00f070942bdf5291feb4bee38e0365b25a250bb2ac9ff");
    // Length (640 bits) is hashed: without the KDK every key differs.
    let no_kdk = kdf::derive_ptk(Akm::Sae, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 0).unwrap();
    assert_ne!(no_kdk.kck(), ptk.kck());
    assert_ne!(no_kdk.tk(), ptk.tk());
    // The raw KDF, independently: HMAC-SHA256(PMK, LE16(i) || label || context || LE16(640)).
    let ctx = kdf::ptk_context(&aa, &spa, &an, &sn);
    let mut indep = Vec::new();
    for i in 1u16..=3 {
        let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&pmk).unwrap();
        m.update(&i.to_le_bytes());
        m.update(b"Pairwise key expansion");
        m.update(&ctx);
        m.update(&640u16.to_le_bytes());
        indep.extend_from_slice(&m.finalize().into_bytes());
    }
    let mut raw = [0u8; 80];
    kdf::kdf_sha256(&pmk, b"Pairwise key expansion", &ctx, &mut raw).unwrap();
    assert_eq!(raw.to_vec(), indep[..80]);
    assert_eq!(raw[64..].to_vec(), h("6c7fb97ceb55b01acff00f070942bdf5291feb4bee38e0365b25a250bb2ac9ff")[16..]);
    // PSK-SHA256 uses the same KDF: same result with the same PMK.
    let psk256 = kdf::derive_ptk(Akm::PskSha256, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 32).unwrap();
    assert_eq!(psk256.tk(), ptk.tk());
}

#[test]
fn ptk_sha384_and_errors() {
    let pmk48 = [7u8; 48];
    let (aa, spa, an, sn) = ([1u8; 6], [2u8; 6], [3u8; 32], [4u8; 32]);
    let p = kdf::derive_ptk(Akm::SuiteB192, &pmk48, &aa, &spa, &an, &sn, CipherSuite::Gcmp256, 0).unwrap();
    assert_eq!((p.kck().len(), p.kek().len(), p.tk().len()), (24, 32, 32));
    // KDF-SHA384 over 88 octets, independently.
    let ctx = kdf::ptk_context(&aa, &spa, &an, &sn);
    let mut indep = Vec::new();
    for i in 1u16..=2 {
        let mut m = <Hmac<sha2::Sha384> as Mac>::new_from_slice(&pmk48).unwrap();
        m.update(&i.to_le_bytes());
        m.update(b"Pairwise key expansion");
        m.update(&ctx);
        m.update(&(88u16 * 8).to_le_bytes());
        indep.extend_from_slice(&m.finalize().into_bytes());
    }
    let mut all = p.kck().to_vec();
    all.extend_from_slice(p.kek());
    all.extend_from_slice(p.tk());
    assert_eq!(all, indep[..88]);

    let pmk = [9u8; 32];
    assert_eq!(kdf::derive_ptk(Akm::SuiteB192, &pmk, &aa, &spa, &an, &sn, CipherSuite::Gcmp256, 0).unwrap_err(), Error::BadKeyLength);
    assert!(matches!(kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::BipCmac128, 0), Err(Error::Unsupported(_))));
    assert!(matches!(kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Wep104, 0), Err(Error::Unsupported(_))));
    assert!(matches!(kdf::derive_ptk(Akm::FtPsk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 0), Err(Error::Unsupported(_))));
    assert!(matches!(kdf::derive_ptk(Akm::Psk, &pmk, &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 65), Err(Error::Malformed(_))));
    assert_eq!(kdf::derive_ptk(Akm::Psk, &[], &aa, &spa, &an, &sn, CipherSuite::Ccmp128, 0).unwrap_err(), Error::BadKeyLength);
    let mut big = vec![0u8; kdf::MAX_KDF_LEN + 1];
    assert_eq!(kdf::kdf_sha256(&pmk, b"x", b"y", &mut big), Err(Error::Oversize));
    // Every AKM/cipher pair either derives or refuses; none panics.
    for akm in Akm::ALL {
        for c in CipherSuite::ALL {
            let pmk = vec![0x42u8; akm.pmk_len()];
            for kdk in [0, 32, 48, 64] {
                let _ = kdf::derive_ptk(akm, &pmk, &aa, &spa, &an, &sn, c, kdk);
            }
        }
    }
}

#[test]
fn ptk_split_and_zero_tk() {
    let raw = [0u8; 48];
    let p = Ptk::split(Akm::Psk, CipherSuite::Ccmp128, 0, &raw).unwrap();
    assert!(p.tk_is_zero());
    assert_eq!(Ptk::split(Akm::Psk, CipherSuite::Ccmp128, 0, &raw[..47]).unwrap_err(), Error::BadKeyLength);
}

// ---- PMKID and GTK ----

/// hashcat's example hash for mode 16800 (WPA-PMKID-PBKDF2):
/// `2582a8281bf9d4308d6f5731d0e61c61*4604ba734d4e*89acf0e761f4*ed487162465a774bfba60eb603a39f3a`,
/// password "hashcat!" (PMKID * AA * SPA * ESSID in hex).
#[test]
fn pmkid_hashcat_16800_and_hashes() {
    let pmk = wp::psk_from_passphrase(b"hashcat!", &h("ed487162465a774bfba60eb603a39f3a")).unwrap();
    let aa = arr::<6>("4604ba734d4e");
    let spa = arr::<6>("89acf0e761f4");
    assert_eq!(hx(&kdf::pmkid(Akm::Psk, &pmk, &aa, &spa)), "2582a8281bf9d4308d6f5731d0e61c61");
    let msg = [&b"PMK Name"[..], &aa, &spa].concat();
    let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&pmk).unwrap();
    m.update(&msg);
    assert_eq!(kdf::pmkid(Akm::PskSha256, &pmk, &aa, &spa).to_vec(), m.finalize().into_bytes()[..16]);
    let pmk48 = [5u8; 48];
    let mut m = <Hmac<sha2::Sha384> as Mac>::new_from_slice(&pmk48).unwrap();
    m.update(&msg);
    assert_eq!(kdf::pmkid(Akm::SuiteB192, &pmk48, &aa, &spa).to_vec(), m.finalize().into_bytes()[..16]);
}

#[test]
fn gtk_derivation() {
    let gmk = [0x11u8; 32];
    let aa = [0x02, 0, 0, 0, 0, 1];
    let gnonce = [0x22u8; 32];
    let gtk = kdf::derive_gtk(&gmk, &aa, &gnonce, 16).unwrap();
    let b = [&aa[..], &gnonce].concat();
    assert_eq!(gtk.to_vec(), kdf::prf_128(&gmk, b"Group key expansion", &b));
    assert_eq!(kdf::derive_gtk(&gmk, &aa, &gnonce, 32).unwrap()[..16], gtk[..]);
    assert!(kdf::derive_gtk(&gmk, &aa, &gnonce, 0).is_err());
    assert!(kdf::derive_gtk(&gmk, &aa, &gnonce, 65).is_err());
}

// ---- 6.5 AES Key Wrap ----

#[test]
fn key_wrap_rfc3394_6_5() {
    let kek128 = h("000102030405060708090a0b0c0d0e0f");
    let kek192 = h("000102030405060708090a0b0c0d0e0f1011121314151617");
    let kek256 = h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    let d128 = h("00112233445566778899aabbccddeeff");
    let d192 = h("00112233445566778899aabbccddeeff0001020304050607");
    let d256 = h("00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f");
    let cases = [
        ("4.1", &kek128, &d128, "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"),
        ("4.2", &kek192, &d128, "96778b25ae6ca435f92b5b97c050aed2468ab8a17ad84e5d"),
        ("4.3", &kek256, &d128, "64e8c3f9ce0f5ba263e9777905818a2a93c8191e7d6e8ae7"),
        ("4.4", &kek192, &d192, "031d33264e15d33268f24ec260743edce1c6c7ddee725a936ba814915c6762d2"),
        ("4.5", &kek256, &d192, "a8f9bc1612c68b3ff6e6f4fbe30e71e4769c8b80a32cb8958cd5d17d6b254da1"),
        ("4.6", &kek256, &d256, "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"),
    ];
    for (name, kek, data, wrapped) in cases {
        let w = keywrap::aes_key_wrap(kek, data).unwrap();
        assert_eq!(hx(&w), wrapped, "RFC 3394 {name} wrap");
        let u = keywrap::aes_key_unwrap(kek, &w).unwrap();
        assert_eq!(&u[..], &data[..], "RFC 3394 {name} unwrap");
        // Any single corrupted bit, or the wrong KEK, fails the integrity check.
        for bit in [0, 63, 64, w.len() * 8 - 1] {
            let mut bad = w.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                keywrap::aes_key_unwrap(kek, &bad).unwrap_err(),
                Error::Malformed("AES key unwrap integrity check failed"),
                "{name} bit {bit}"
            );
        }
        let mut wrong = kek.clone();
        wrong[0] ^= 0x80;
        assert!(keywrap::aes_key_unwrap(&wrong, &w).is_err());
    }
    // Lengths.
    assert_eq!(keywrap::aes_key_wrap(&[0u8; 15], &d128).unwrap_err(), Error::BadKeyLength);
    assert_eq!(keywrap::aes_key_unwrap(&[0u8; 20], &[0u8; 24]).unwrap_err(), Error::BadKeyLength);
    assert!(matches!(keywrap::aes_key_wrap(&kek128, &[0u8; 8]), Err(Error::Malformed(_))));
    assert!(matches!(keywrap::aes_key_wrap(&kek128, &[0u8; 20]), Err(Error::Malformed(_))));
    for n in [0usize, 8, 16, 23, 25] {
        assert!(matches!(keywrap::aes_key_unwrap(&kek128, &vec![0u8; n]), Err(Error::Malformed(_))), "{n}");
    }
}

#[test]
fn key_wrap_with_padding_roundtrip() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_0004);
    let kek: [u8; 16] = rng.gen();
    for n in 0..70 {
        let mut kd: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let orig = kd.clone();
        keywrap::pad_key_data(&mut kd);
        assert!(kd.len() >= 16 && kd.len() & 7 == 0);
        assert_eq!(kd[..n], orig[..]);
        if kd.len() != n {
            assert_eq!(kd[n], 0xdd);
            assert!(kd[n + 1..].iter().all(|&b| b == 0));
            assert!(kd.len() - n <= 8 || kd.len() == 16);
        }
        let w = keywrap::aes_key_wrap(&kek, &kd).unwrap();
        assert_eq!(&keywrap::aes_key_unwrap(&kek, &w).unwrap()[..], &kd[..]);
    }
    // 22 octets (a GTK KDE for a 16-octet GTK) -> dd + 1 zero -> 24.
    let mut v = vec![0u8; 22];
    keywrap::pad_key_data(&mut v);
    assert_eq!(v.len(), 24);
    assert_eq!(v[22..], [0xdd, 0]);
}

// ---- RC4 Key Data (descriptor version 1) ----

/// A plain RC4, written from the algorithm's description.
fn rc4_ref(key: &[u8], skip: usize, data: &mut [u8]) {
    let mut s: Vec<u8> = (0..=255).collect();
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
        s.swap(i, j as usize);
    }
    let (mut i, mut j) = (0u8, 0u8);
    let mut next = || {
        i = i.wrapping_add(1);
        j = j.wrapping_add(s[i as usize]);
        s.swap(i as usize, j as usize);
        s[(s[i as usize].wrapping_add(s[j as usize])) as usize]
    };
    for _ in 0..skip {
        next();
    }
    for b in data {
        *b ^= next();
    }
}

#[test]
fn rc4_key_data_v1() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_0005);
    for n in [0usize, 1, 22, 100, 300] {
        let kek: [u8; 16] = rng.gen();
        let iv: [u8; 16] = rng.gen();
        let data: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let mut ours = data.clone();
        keywrap::rc4_key_data(&kek, &iv, &mut ours);
        let mut want = data.clone();
        rc4_ref(&[&iv[..], &kek[..]].concat(), 256, &mut want);
        assert_eq!(ours, want);
        keywrap::rc4_key_data(&kek, &iv, &mut ours);
        assert_eq!(ours, data);
    }
}
