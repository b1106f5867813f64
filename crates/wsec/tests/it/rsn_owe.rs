//! OWE (RFC 8110) key derivation checked against an independent computation with OpenSSL:
//! OpenSSL makes both key pairs and the ECDH shared secret, and computes HKDF-Extract /
//! HKDF-Expand with its own HMAC and the PMKID with its own hash; wsec's `rsn::owe` must
//! give the same public keys, z, PMK and PMKID, for groups 19, 20 and 21.

use openssl::bn::{BigNum, BigNumContext};
use openssl::derive::Deriver;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::{hash, MessageDigest};
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::sign::Signer;
use wsec::rsn::owe::{dh_param_element, owe_pmk, parse_dh_param_element, OweKeyPair};
use wsec::rsn::sae::Group;

fn hmac(md: MessageDigest, key: &[u8], data: &[u8]) -> Vec<u8> {
    let k = PKey::hmac(key).unwrap();
    let mut s = Signer::new(md, &k).unwrap();
    s.update(data).unwrap();
    s.sign_to_vec().unwrap()
}

fn x_of(k: &EcKey<Private>, g: &EcGroup, len: usize) -> Vec<u8> {
    let (mut x, mut y, mut ctx) = (BigNum::new().unwrap(), BigNum::new().unwrap(), BigNumContext::new().unwrap());
    k.public_key().affine_coordinates(g, &mut x, &mut y, &mut ctx).unwrap();
    x.to_vec_padded(len as i32).unwrap()
}

#[test]
fn owe_pmk_and_pmkid_match_openssl() {
    for (group, nid, md) in [
        (Group::P256, Nid::X9_62_PRIME256V1, MessageDigest::sha256()),
        (Group::P384, Nid::SECP384R1, MessageDigest::sha384()),
        (Group::P521, Nid::SECP521R1, MessageDigest::sha512()),
    ] {
        for _ in 0..4 {
            let g = EcGroup::from_curve_name(nid).unwrap();
            let n = group.prime_len();
            let (ck, ak) = (EcKey::generate(&g).unwrap(), EcKey::generate(&g).unwrap());
            let client = OweKeyPair::from_secret(group, &ck.private_key().to_vec_padded(n as i32).unwrap()).unwrap();
            let ap = OweKeyPair::from_secret(group, &ak.private_key().to_vec_padded(n as i32).unwrap()).unwrap();
            let (c, a) = (x_of(&ck, &g, n), x_of(&ak, &g, n));
            assert_eq!(client.public(), &c[..], "client public key, group {}", group.id());
            assert_eq!(ap.public(), &a[..]);
            // z by OpenSSL's ECDH (the x coordinate, field-length).
            let (cp, ap_pub) =
                (PKey::from_ec_key(ck.clone()).unwrap(), PKey::from_ec_key(EcKey::from_public_key(&g, ak.public_key()).unwrap()).unwrap());
            let mut d = Deriver::new(&cp).unwrap();
            d.set_peer(&ap_pub).unwrap();
            let z = d.derive_to_vec().unwrap();
            assert_eq!(&client.shared(ap.public()).unwrap()[..], &z[..], "z, group {}", group.id());
            assert_eq!(&ap.shared(client.public()).unwrap()[..], &z[..]);
            // RFC 8110 4.4 by OpenSSL's HMAC and hash.
            let salt = [&c[..], &a[..], &group.id().to_le_bytes()].concat();
            let prk = hmac(md, &salt, &z);
            let pmk = hmac(md, &prk, b"OWE Key Generation\x01");
            let pmkid = &hash(md, &[&c[..], &a[..]].concat()).unwrap()[..16];
            let (ours, ours_id) = owe_pmk(group, &c, &a, &client.shared(ap.public()).unwrap());
            assert_eq!(hex::encode(&ours[..]), hex::encode(&pmk), "PMK, group {}", group.id());
            assert_eq!(&ours_id[..], pmkid);
            assert_eq!(ours.len(), md.size());
        }
    }
}

#[test]
fn owe_element_and_bad_keys() {
    let mut rng = {
        use rand_core::SeedableRng;
        rand_chacha::ChaCha20Rng::seed_from_u64(8110)
    };
    let k = OweKeyPair::generate(Group::P256, &mut rng);
    let e = dh_param_element(Group::P256, k.public());
    assert_eq!(&e[..5], &[255, 35, 32, 19, 0]);
    assert_eq!(parse_dh_param_element(&e).unwrap(), (19, k.public()));
    assert!(parse_dh_param_element(&e[..e.len() - 1]).is_err());
    // An x with no point on the curve (x^3 - 3x + b not a square) is refused.
    let mut bad = k.public().to_vec();
    let mut refused = 0;
    for i in 0..16u8 {
        bad[31] = i;
        if k.shared(&bad).is_err() {
            refused += 1;
        }
    }
    assert!(refused > 0, "about half of all x have no point");
    assert!(k.shared(&[0u8; 31]).is_err(), "short key");
}
