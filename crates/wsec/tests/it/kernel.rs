//! Tests of the fused AES-CCM kernel (`wsec::cipher::kernel`): published vectors (RFC 3610,
//! IEEE 802.11 CCMP), a randomised cross-check against RustCrypto's `ccm` on every backend
//! this CPU can run, tamper tests and argument checks. No expected value here comes from
//! the code under test.
use aes::{Aes128, Aes256};
use ccm::aead::generic_array::GenericArray;
use ccm::aead::{AeadInPlace, KeyInit};
use ccm::consts::{U10, U12, U13, U14, U16, U4, U6, U8};
use ccm::Ccm;
use rand::{Rng, RngCore, SeedableRng};
use wsec::cipher::kernel::{backend, CcmKey};
use wsec::Error;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

fn nonce13(s: &str) -> [u8; 13] {
    h(s).try_into().unwrap()
}

/// Every way to get a key: the dispatched one, the forced portable one, and each backend
/// the CPU can run by name.
fn all_keys(key: &[u8]) -> Vec<(String, CcmKey)> {
    let mut v =
        vec![("dispatched".to_string(), CcmKey::new(key).unwrap()), ("new_portable".to_string(), CcmKey::new_portable(key).unwrap())];
    for b in CcmKey::available_backends() {
        v.push((b.to_string(), CcmKey::new_with_backend(key, b).unwrap()));
    }
    v
}

/// Seal and open one known-answer vector on every backend.
fn kat(key: &str, nonce: &str, aad: &str, pt: &str, ct_tag: &str, m: usize) {
    let (key, nonce, aad, pt, ct_tag) = (h(key), nonce13(nonce), h(aad), h(pt), h(ct_tag));
    let (ct, tag) = ct_tag.split_at(ct_tag.len() - m);
    for (name, k) in all_keys(&key) {
        let mut data = pt.clone();
        let mut t = vec![0u8; m];
        k.seal_in_place(&nonce, &aad, &mut data, &mut t).unwrap();
        assert_eq!(hex::encode(&data), hex::encode(ct), "ciphertext on {name}");
        assert_eq!(hex::encode(&t), hex::encode(tag), "tag on {name}");
        k.open_in_place(&nonce, &aad, &mut data, tag).unwrap();
        assert_eq!(data, pt, "decryption on {name}");
    }
}

const RFC_KEY: &str = "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf";

#[test]
fn rfc3610_packet_vector_1() {
    kat(
        RFC_KEY,
        "00000003020100a0a1a2a3a4a5",
        "0001020304050607",
        "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
        "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0",
        8,
    );
}

#[test]
fn rfc3610_packet_vector_2() {
    kat(
        RFC_KEY,
        "00000004030201a0a1a2a3a4a5",
        "0001020304050607",
        "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "72c91a36e135f8cf291ca894085c87e3cc15c439c9e43a3ba091d56e10400916",
        8,
    );
}

/// IEEE 802.11 CCMP test vector (MPDU 1), at the CCM level.
#[test]
fn ccmp128_mpdu1() {
    kat(
        "c97c1f67ce371185514a8a19f2bdd52f",
        "005030f1844408b5039776e70c",
        "08400fd2e128a57c5030f1844408abaea5b8fcba0000",
        "f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        "f3d0a2fe9a3dbf2342a643e43246e80c3c04d019 7845ce0b16f97623",
        8,
    );
}

/// CCMP-256 (M = 16) on the same nonce, AAD and plaintext.
#[test]
fn ccmp256_mpdu1() {
    kat(
        "c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f",
        "005030f1844408b5039776e70c",
        "08400fd2e128a57c5030f1844408abaea5b8fcba0000",
        "f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        "6d155d8832668256d6a92b78e11d8e54495dd174 80aa56c9492e882b97642f80d50fe97b",
        16,
    );
}

/// RustCrypto reference: returns ciphertext || tag.
fn reference(key: &[u8], nonce: &[u8; 13], aad: &[u8], pt: &[u8], m: usize) -> Vec<u8> {
    macro_rules! with {
        ($aes:ty, $m:ty) => {{
            let c = Ccm::<$aes, $m, U13>::new(GenericArray::from_slice(key));
            let mut buf = pt.to_vec();
            let tag = c.encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, &mut buf).unwrap();
            buf.extend_from_slice(&tag);
            buf
        }};
    }
    macro_rules! by_m {
        ($aes:ty) => {
            match m {
                4 => with!($aes, U4),
                6 => with!($aes, U6),
                8 => with!($aes, U8),
                10 => with!($aes, U10),
                12 => with!($aes, U12),
                14 => with!($aes, U14),
                16 => with!($aes, U16),
                _ => unreachable!(),
            }
        };
    }
    match key.len() {
        16 => by_m!(Aes128),
        32 => by_m!(Aes256),
        _ => unreachable!(),
    }
}

/// Seal and open one random message on every key in `keys` against the reference.
fn cross_check(keys: &[(String, CcmKey)], key: &[u8], nonce: &[u8; 13], aad: &[u8], pt: &[u8], m: usize) {
    let expect = reference(key, nonce, aad, pt, m);
    let (ct, tag) = expect.split_at(pt.len());
    for (name, k) in keys {
        let mut data = pt.to_vec();
        let mut t = vec![0u8; m];
        k.seal_in_place(nonce, aad, &mut data, &mut t).unwrap();
        assert!(data == ct && t == tag, "seal mismatch on {name}: key {} bits, len {}, aad {}, M {m}", key.len() * 8, pt.len(), aad.len());
        k.open_in_place(nonce, aad, &mut data, tag).unwrap_or_else(|e| {
            panic!("open failed on {name}: {e:?}, key {} bits, len {}, aad {}, M {m}", key.len() * 8, pt.len(), aad.len())
        });
        assert!(data == pt, "open mismatch on {name}: len {}, aad {}, M {m}", pt.len(), aad.len());
    }
}

fn random_lengths_check(key_len: usize, m: usize, seed: u64) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut key = vec![0u8; key_len];
    rng.fill_bytes(&mut key);
    let keys = all_keys(&key);
    let mut lens: Vec<usize> = (0..=2400).collect();
    lens.extend([4095, 4096, 4097, 16384, 16383, 65535, 65534, 65520, 65521]);
    for len in lens {
        let mut nonce = [0u8; 13];
        rng.fill_bytes(&mut nonce);
        // Cover every AAD length 0..=32 systematically, plus random larger ones now and then.
        let aad_len = if len % 97 == 5 { rng.gen_range(33..600) } else { (len * 7 + seed as usize) % 33 };
        let mut aad = vec![0u8; aad_len];
        rng.fill_bytes(&mut aad);
        let mut pt = vec![0u8; len];
        rng.fill_bytes(&mut pt);
        cross_check(&keys, &key, &nonce, &aad, &pt, m);
    }
}

#[test]
fn random_vs_rustcrypto_aes128_m8() {
    random_lengths_check(16, 8, 1);
}

#[test]
fn random_vs_rustcrypto_aes128_m16() {
    random_lengths_check(16, 16, 2);
}

#[test]
fn random_vs_rustcrypto_aes256_m8() {
    random_lengths_check(32, 8, 3);
}

#[test]
fn random_vs_rustcrypto_aes256_m16() {
    random_lengths_check(32, 16, 4);
}

/// Every AAD length 0..=300 (covers 14/15/16/30/31/32 boundaries of the AAD formatting) with
/// a few payload sizes, and the other tag lengths RFC 3610 allows.
#[test]
fn aad_lengths_and_tag_lengths() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for key_len in [16, 32] {
        let mut key = vec![0u8; key_len];
        rng.fill_bytes(&mut key);
        let keys = all_keys(&key);
        for aad_len in 0..=300 {
            for len in [0usize, 1, 15, 16, 17, 64] {
                let m = [4, 6, 8, 10, 12, 14, 16][(aad_len + len) % 7];
                let mut nonce = [0u8; 13];
                rng.fill_bytes(&mut nonce);
                let mut aad = vec![0u8; aad_len];
                rng.fill_bytes(&mut aad);
                let mut pt = vec![0u8; len];
                rng.fill_bytes(&mut pt);
                cross_check(&keys, &key, &nonce, &aad, &pt, m);
            }
        }
        // The largest AAD accepted.
        let aad = vec![0xa5u8; 0xFEFF];
        cross_check(&keys, &key, &[7u8; 13], &aad, &[1, 2, 3], 8);
    }
}

/// Flip every bit of tag, ciphertext and AAD: each must give MicFailure and leave the
/// ciphertext exactly as it was given.
#[test]
fn tamper_every_bit() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for key_len in [16, 32] {
        let mut key = vec![0u8; key_len];
        rng.fill_bytes(&mut key);
        for (name, k) in all_keys(&key) {
            for (len, aad_len, m) in [(0usize, 22usize, 8usize), (1, 0, 16), (15, 30, 8), (16, 24, 16), (33, 22, 8), (100, 28, 16)] {
                let mut nonce = [0u8; 13];
                rng.fill_bytes(&mut nonce);
                let mut aad = vec![0u8; aad_len];
                rng.fill_bytes(&mut aad);
                let mut pt = vec![0u8; len];
                rng.fill_bytes(&mut pt);
                let expect = reference(&key, &nonce, &aad, &pt, m);
                let (ct, tag) = expect.split_at(len);
                let open = |aad: &[u8], ct_in: &[u8], tag: &[u8]| {
                    let mut d = ct_in.to_vec();
                    let r = k.open_in_place(&nonce, aad, &mut d, tag);
                    assert_eq!(r, Err(Error::MicFailure), "{name}: tampered input accepted");
                    assert_eq!(d, ct_in, "{name}: ciphertext not restored after MIC failure");
                };
                for bit in 0..m * 8 {
                    let mut t = tag.to_vec();
                    t[bit / 8] ^= 1 << (bit % 8);
                    open(&aad, ct, &t);
                }
                for bit in 0..len * 8 {
                    let mut c = ct.to_vec();
                    c[bit / 8] ^= 1 << (bit % 8);
                    open(&aad, &c, tag);
                }
                for bit in 0..aad_len * 8 {
                    let mut a = aad.clone();
                    a[bit / 8] ^= 1 << (bit % 8);
                    open(&a, ct, tag);
                }
                // Wrong nonce, truncated/extended AAD.
                let mut n2 = nonce;
                n2[12] ^= 0x80;
                let mut d = ct.to_vec();
                assert_eq!(k.open_in_place(&n2, &aad, &mut d, tag), Err(Error::MicFailure));
                assert_eq!(d, ct);
                if aad_len > 0 {
                    open(&aad[..aad_len - 1], ct, tag);
                }
                let mut a = aad.clone();
                a.push(0);
                open(&a, ct, tag);
                // And the untampered message still opens.
                let mut d = ct.to_vec();
                k.open_in_place(&nonce, &aad, &mut d, tag).unwrap();
                assert_eq!(d, pt);
            }
        }
    }
}

/// A large message with a bad tag is restored too (exercises the wide keystream path).
#[test]
fn tamper_large_restores() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let key: [u8; 16] = rng.gen();
    for len in [63usize, 64, 65, 127, 128, 129, 1500, 16384, 65535] {
        let mut pt = vec![0u8; len];
        rng.fill_bytes(&mut pt);
        let nonce: [u8; 13] = rng.gen();
        let expect = reference(&key, &nonce, b"aad", &pt, 8);
        let (ct, tag) = expect.split_at(len);
        let mut bad = tag.to_vec();
        bad[3] ^= 0x10;
        for (name, k) in all_keys(&key) {
            let mut d = ct.to_vec();
            assert_eq!(k.open_in_place(&nonce, b"aad", &mut d, &bad), Err(Error::MicFailure), "{name}");
            assert!(d == ct, "{name}: not restored at len {len}");
        }
    }
}

#[test]
fn wrong_key_length() {
    for n in [0usize, 1, 15, 17, 24, 31, 33, 64] {
        let key = vec![0u8; n];
        assert_eq!(CcmKey::new(&key).unwrap_err(), Error::BadKeyLength, "len {n}");
        assert_eq!(CcmKey::new_portable(&key).unwrap_err(), Error::BadKeyLength, "len {n}");
        for b in CcmKey::available_backends() {
            assert_eq!(CcmKey::new_with_backend(&key, b).unwrap_err(), Error::BadKeyLength, "len {n} on {b}");
        }
    }
    assert!(CcmKey::new(&[0u8; 16]).is_ok());
    assert!(CcmKey::new(&[0u8; 32]).is_ok());
    assert!(CcmKey::new_with_backend(&[0u8; 16], "no-such-backend").is_err());
}

#[test]
fn oversize_and_bad_tag_length() {
    for (name, k) in all_keys(&[9u8; 16]) {
        let nonce = [1u8; 13];
        let mut big = vec![0u8; 65536];
        let mut tag = [0u8; 8];
        assert_eq!(k.seal_in_place(&nonce, b"", &mut big, &mut tag), Err(Error::Oversize), "{name}");
        assert!(big.iter().all(|&b| b == 0), "{name}: refused seal must not touch data");
        assert_eq!(k.open_in_place(&nonce, b"", &mut big, &tag), Err(Error::Oversize), "{name}");
        assert!(big.iter().all(|&b| b == 0), "{name}: refused open must not touch data");
        let aad = vec![0u8; 0xFF00];
        let mut d = [0u8; 4];
        assert_eq!(k.seal_in_place(&nonce, &aad, &mut d, &mut tag), Err(Error::Oversize), "{name}");
        assert_eq!(k.open_in_place(&nonce, &aad, &mut d, &tag), Err(Error::Oversize), "{name}");
        for m in [0usize, 2, 3, 5, 7, 9, 15, 17, 18, 32] {
            let mut t = vec![0u8; m];
            assert!(k.seal_in_place(&nonce, b"x", &mut d, &mut t).is_err(), "{name}: M = {m} accepted");
            assert!(k.open_in_place(&nonce, b"x", &mut d, &t).is_err(), "{name}: M = {m} accepted");
        }
        // 65535 is the largest payload with L = 2 and is accepted.
        let mut max = vec![0u8; 65535];
        assert!(k.seal_in_place(&nonce, b"", &mut max, &mut tag).is_ok(), "{name}");
    }
}

#[test]
fn debug_hides_key_and_backend_is_named() {
    let key = h(RFC_KEY);
    for (name, k) in all_keys(&key) {
        let s = format!("{k:?} {:#?}", k.clone());
        assert!(!s.to_lowercase().contains("c0c1c2"), "{name}: {s}");
        assert!(!s.contains("192"), "{name}: key octets printed: {s}");
        assert!(s.contains("CcmKey"), "{s}");
    }
    let b = backend();
    assert!(["avx512", "vaes256", "aesni", "portable"].contains(&b), "{b}");
    assert_eq!(CcmKey::new(&key).unwrap().backend_name(), b);
    assert_eq!(CcmKey::new_portable(&key).unwrap().backend_name(), "portable");
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse4.1") {
        assert_ne!(b, "portable", "AES-NI present but not used");
    }
}

/// Clones are independent of the original (dropping one leaves the other usable).
#[test]
fn clone_works_after_drop() {
    let key = h(RFC_KEY);
    for (_, k) in all_keys(&key) {
        let c = k.clone();
        drop(k);
        let mut d = h("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e");
        let mut t = [0u8; 8];
        c.seal_in_place(&nonce13("00000003020100a0a1a2a3a4a5"), &h("0001020304050607"), &mut d, &mut t).unwrap();
        assert_eq!(hex::encode([&d[..], &t[..]].concat()), "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0");
    }
}
