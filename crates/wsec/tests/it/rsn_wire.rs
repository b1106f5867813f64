//! EAPOL-Key frames, their MIC, Key Data KDEs and the RSN/WPA elements on real bytes:
//! ../shared/vectors.md section 6.3 (aircrack-ng `test-calc-ptk.c` / `test-calc-mic.c`),
//! round trips, negotiation, every truncation, and random inputs.
use crate::common;
use common::{h, hx};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::rsn::akm::{Akm, KeyDescriptorVersion};
use wsec::rsn::eapol::{self, DescriptorType, EapolKey, EapolKeyRepr, KeyInfo};
use wsec::rsn::ie::{self, negotiate, negotiate_wpa, MfpPolicy, Prefs, RsnCapabilities, RsnElementRepr, Suite, WpaElementRepr};
use wsec::rsn::kde::{self, GtkKde, IgtkKde, KeyDataBuilder, KeyDataItem};
use wsec::Error;

/// vectors.md 6.3: EAPOL-Key message 2/4, 121 octets, Key MIC field zero.
const MSG2: &str = "0103007502010a0010000000000000000159168bc3a5df18d71efb6423f34008
                    8dab9e1ba2bbc58659e07b3764b0de8570000000000000000000000000000000
                    0000000000000000000000000000000000000000000000000000000000000000
                    00001630140100000fac040100000fac040100000fac020100";
const SNONCE: &str = "59168bc3a5df18d71efb6423f340088dab9e1ba2bbc58659e07b3764b0de8570";
const RSNE_MSG2: &str = "30140100000fac040100000fac040100000fac020100";
/// KCK of the 6.3 PTK (`test-calc-ptk.c`).
const KCK_PTK: &str = "ea0e404633c802450302868ccaa749de";
const MIC_PTK: &str = "d5355382b8a9b806dcaf99cdaf564eb6";
/// `test-calc-mic.c`: PMK and the PTK it derives (same addresses, nonces and frame).
const PMK_MIC: &str = "6fe857c0b742dfc2da8a1fe8b1b4b4628d9fbbb060826b83cb43b64b13e103e8";
const PTK_MIC: &str = "9a75ef0bde7c209ccae13f54b1b33ea3fa0166166e30811f1baaff8d1c1ac163
                       82a49b50b86088c5cb793b542661a28a64693c72b86673e0a82d48c74768cbf9
                       a1bf86cc30b9d63de8825925ec1f4d3f";

fn psk_sha1() -> (KeyDescriptorVersion, Akm) {
    (KeyDescriptorVersion::HmacSha1Aes, Akm::Psk)
}

#[test]
fn msg2_parse_fields_and_emit_identical() {
    let f = h(MSG2);
    assert_eq!(f.len(), 121);
    let v = EapolKey::new_checked(&f[..], 16).unwrap();
    assert_eq!(v.protocol_version(), 1);
    assert_eq!(v.packet_type(), 3);
    assert_eq!(v.body_len(), 117);
    assert_eq!(v.descriptor_type(), DescriptorType::Rsn);
    let ki = v.key_info();
    assert_eq!(ki, KeyInfo(0x010a));
    assert_eq!(ki.key_descriptor_version().unwrap(), KeyDescriptorVersion::HmacSha1Aes);
    assert!(ki.key_type() && ki.key_mic());
    assert!(!ki.key_ack() && !ki.install() && !ki.secure() && !ki.error() && !ki.request());
    assert!(!ki.encrypted_key_data() && !ki.smk_message());
    assert_eq!(v.key_length(), 16);
    assert_eq!(v.replay_counter(), 1);
    assert_eq!(hx(v.key_nonce()), SNONCE);
    assert_eq!(v.key_iv(), &[0u8; 16]);
    assert_eq!(v.key_rsc(), 0);
    assert_eq!(v.key_mic(), &[0u8; 16]);
    assert_eq!(v.key_data_len(), 22);
    assert_eq!(hx(v.key_data()), RSNE_MSG2);
    assert_eq!(v.frame(), &f[..]);
    assert!(v.padding().is_empty());

    let r = EapolKeyRepr::parse(&f, 16).unwrap();
    assert_eq!(r, EapolKeyRepr::from_view(&v));
    assert_eq!(r.replay_counter, 1);
    assert_eq!(hx(&r.key_nonce), SNONCE);
    assert_eq!(r.buffer_len(), 121);
    assert_eq!(hx(&r.to_bytes().unwrap()), hx(&f));
    // emit leaves octets beyond buffer_len alone
    let mut big = vec![0xeeu8; 130];
    r.emit(&mut big).unwrap();
    assert_eq!(&big[..121], &f[..]);
    assert_eq!(&big[121..], &[0xee; 9]);
    assert_eq!(r.emit(&mut [0u8; 120]), Err(Error::Truncated));

    // Key Data: one RSN element, which round-trips.
    let items = kde::parse(&r.key_data).unwrap();
    assert_eq!(items, vec![KeyDataItem::Rsn(&r.key_data[..])]);
    let rsne = RsnElementRepr::parse(&r.key_data).unwrap();
    assert_eq!(rsne.version, 1);
    assert_eq!(rsne.group_cipher.and_then(Suite::cipher), Some(CipherSuite::Ccmp128));
    assert_eq!(rsne.pairwise, vec![Suite::from_cipher(CipherSuite::Ccmp128)]);
    assert_eq!(rsne.akms, vec![Suite::from_akm(Akm::Psk)]);
    assert_eq!(rsne.capabilities, Some(RsnCapabilities(0x0001)));
    assert!(rsne.capabilities.unwrap().preauth());
    assert!(rsne.pmkids.is_empty() && rsne.group_mgmt_cipher.is_none());
    assert_eq!(hx(&rsne.to_bytes().unwrap()), RSNE_MSG2);
}

#[test]
fn msg2_mic_hmac_sha1_128() {
    let f = h(MSG2);
    let kck = h(KCK_PTK);
    let (kdv, akm) = psk_sha1();
    assert_eq!(hx(&eapol::compute_mic(kdv, akm, &kck, &f).unwrap()), MIC_PTK);
    assert_eq!(eapol::mic_len(kdv, akm), 16);

    let mut signed = f.clone();
    eapol::write_mic(kdv, akm, &kck, &mut signed).unwrap();
    assert_eq!(hx(&signed[81..97]), MIC_PTK);
    eapol::verify_mic(kdv, akm, &kck, &signed).unwrap();
    EapolKey::new_checked(&signed[..], 16).unwrap().verify_mic(kdv, akm, &kck).unwrap();
    // the unsigned frame (MIC zero) does not verify
    assert_eq!(eapol::verify_mic(kdv, akm, &kck, &f), Err(Error::MicFailure));
    // padding after the body is neither covered nor an error
    let mut padded = signed.clone();
    padded.extend_from_slice(&[0u8; 11]);
    eapol::verify_mic(kdv, akm, &kck, &padded).unwrap();
    // any flipped bit of the frame, the MIC or the key is caught
    for i in 0..signed.len() {
        if (2..4).contains(&i) || (97..99).contains(&i) {
            continue; // length fields: a flip makes the frame unparseable instead
        }
        let mut bad = signed.clone();
        bad[i] ^= 0x10;
        let r = eapol::verify_mic(kdv, akm, &kck, &bad);
        assert!(r.is_err(), "flip at {i}");
        if i != 1 && i != 4 {
            assert_eq!(r, Err(Error::MicFailure), "flip at {i}");
        }
    }
    let mut kck2 = kck.clone();
    kck2[15] ^= 1;
    assert_eq!(eapol::verify_mic(kdv, akm, &kck2, &signed), Err(Error::MicFailure));
    // through the view, in place
    let mut buf = f.clone();
    let mut v = EapolKey::new_checked(&mut buf[..], 16).unwrap();
    v.write_mic(kdv, akm, &kck).unwrap();
    assert_eq!(hx(v.key_mic()), MIC_PTK);
    // through the repr
    let r = EapolKeyRepr::parse(&f, 16).unwrap();
    assert_eq!(r.to_bytes_with_mic(kdv, akm, &kck).unwrap(), signed);
}

/// PRF-SHA1 (12.7.1.2), written here independently of `rsn::kdf`.
fn prf_sha1(k: &[u8], label: &[u8], data: &[u8], len: usize) -> Vec<u8> {
    use hmac::{Hmac, Mac};
    let mut out = Vec::new();
    for i in 0u8.. {
        if out.len() >= len {
            break;
        }
        let mut m = <Hmac<sha1::Sha1> as Mac>::new_from_slice(k).unwrap();
        m.update(label);
        m.update(&[0]);
        m.update(data);
        m.update(&[i]);
        out.extend_from_slice(&m.finalize().into_bytes());
    }
    out.truncate(len);
    out
}

#[test]
fn aircrack_calc_mic_v1_and_v2() {
    // test-calc-mic.c: the PTK comes from its own PMK with the 6.3 addresses and nonces.
    let aa = h("00146c7e4080");
    let spa = h("001346fe320c");
    let anonce = h("225854b0444de3af06d1492b852984f04cf6274c0e3218b8681756864db7a055");
    let snonce = h(SNONCE);
    let mut data = Vec::new();
    let (a1, a2) = if aa < spa { (&aa, &spa) } else { (&spa, &aa) };
    let (n1, n2) = if anonce < snonce { (&anonce, &snonce) } else { (&snonce, &anonce) };
    for x in [a1, a2, n1, n2] {
        data.extend_from_slice(x);
    }
    let ptk = prf_sha1(&h(PMK_MIC), b"Pairwise key expansion", &data, 80);
    assert_eq!(hx(&ptk), hx(&h(PTK_MIC)));
    let kck = &ptk[..16];
    let f = h(MSG2);
    // calc_mic with wpa.keyver = 2 prints the whole HMAC-SHA1 (20 octets); the MIC is its
    // first 16. The frame's own Key Information (version 2) plays no part.
    let v2 = eapol::compute_mic(KeyDescriptorVersion::HmacSha1Aes, Akm::Psk, kck, &f).unwrap();
    assert_eq!(hx(&v2), "6f0489cf7406acf0ae8fcb32bce57c37");
    assert!("6f0489cf7406acf0ae8fcb32bce57c37793a2361".starts_with(&hx(&v2)));
    // wpa.keyver = 1: HMAC-MD5 over the same 121 octets (aircrack's 20-octet buffer keeps
    // 4 stale octets after the 16-octet MD5 MIC).
    let v1 = eapol::compute_mic(KeyDescriptorVersion::HmacMd5Rc4, Akm::Psk, kck, &f).unwrap();
    assert_eq!(hx(&v1), "9cc3faa0c685961d8406bb657745135d");
    // and the v1 MIC verifies when placed in the frame
    let mut g = f.clone();
    g[81..97].copy_from_slice(&v1);
    eapol::verify_mic(KeyDescriptorVersion::HmacMd5Rc4, Akm::Psk, kck, &g).unwrap();
}

#[test]
fn mic_algorithms_against_openssl() {
    use openssl::hash::MessageDigest;
    use openssl::pkey::PKey;
    use openssl::sign::Signer;
    let f = h(MSG2);
    let mut f24 = EapolKeyRepr::parse(&f, 16).unwrap();
    f24.key_mic = vec![0; 24];
    let f24 = f24.to_bytes().unwrap();
    let mut f32_ = EapolKeyRepr::parse(&f, 16).unwrap();
    f32_.key_mic = vec![0; 32];
    let f32_ = f32_.to_bytes().unwrap();
    let k16: Vec<u8> = (0u8..16).collect();
    let k24: Vec<u8> = (0u8..24).collect();
    let k32: Vec<u8> = (0u8..32).collect();
    let hmac = |md: MessageDigest, k: &[u8], m: &[u8]| {
        let key = PKey::hmac(k).unwrap();
        let mut s = Signer::new(md, &key).unwrap();
        s.update(m).unwrap();
        s.sign_to_vec().unwrap()
    };
    let cmac = |k: &[u8], m: &[u8]| {
        let key = PKey::cmac(&openssl::symm::Cipher::aes_128_cbc(), k).unwrap();
        let mut s = Signer::new_without_digest(&key).unwrap();
        s.update(m).unwrap();
        s.sign_to_vec().unwrap()
    };
    use KeyDescriptorVersion::*;
    type Case<'a> = (KeyDescriptorVersion, Akm, &'a [u8], &'a [u8], Vec<u8>);
    let cases: Vec<Case> = vec![
        (HmacMd5Rc4, Akm::Psk, &k16, &f, hmac(MessageDigest::md5(), &k16, &f)),
        (HmacSha1Aes, Akm::Psk, &k16, &f, hmac(MessageDigest::sha1(), &k16, &f)[..16].to_vec()),
        (AesCmacAes, Akm::PskSha256, &k16, &f, cmac(&k16, &f)),
        (AesCmacAes, Akm::FtPsk, &k16, &f, cmac(&k16, &f)),
        (AkmDefined, Akm::Sae, &k16, &f, cmac(&k16, &f)),
        (AkmDefined, Akm::FtSae, &k16, &f, cmac(&k16, &f)),
        (AkmDefined, Akm::SuiteB, &k16, &f, hmac(MessageDigest::sha256(), &k16, &f)[..16].to_vec()),
        (AkmDefined, Akm::Owe, &k16, &f, hmac(MessageDigest::sha256(), &k16, &f)[..16].to_vec()),
        (AkmDefined, Akm::SaeExtKey, &k16, &f, hmac(MessageDigest::sha256(), &k16, &f)[..16].to_vec()),
        (AkmDefined, Akm::SuiteB192, &k24, &f24, hmac(MessageDigest::sha384(), &k24, &f24)[..24].to_vec()),
        (AkmDefined, Akm::FtIeee8021xSha384, &k24, &f24, hmac(MessageDigest::sha384(), &k24, &f24)[..24].to_vec()),
        // OWE with groups 20 and 21 (hostapd wpa_eapol_key_mic: HMAC-SHA384/512 by KCK length).
        (AkmDefined, Akm::OweSha384, &k24, &f24, hmac(MessageDigest::sha384(), &k24, &f24)[..24].to_vec()),
        (AkmDefined, Akm::OweSha512, &k32, &f32_, hmac(MessageDigest::sha512(), &k32, &f32_)[..32].to_vec()),
    ];
    for (kdv, akm, k, frame, want) in cases {
        let got = eapol::compute_mic(kdv, akm, k, frame).unwrap();
        assert_eq!(hx(&got), hx(&want), "{kdv:?} {akm}");
        assert_eq!(got.len(), eapol::mic_len(kdv, akm));
        let mut signed = frame.to_vec();
        eapol::write_mic(kdv, akm, k, &mut signed).unwrap();
        eapol::verify_mic(kdv, akm, k, &signed).unwrap();
        assert_eq!(&signed[81..81 + got.len()], &got[..]);
        // the key descriptor version that the AKM and pairwise cipher imply gives this MIC
        if akm.key_descriptor_version(CipherSuite::Ccmp128) == kdv {
            assert_eq!(eapol::mic_len(kdv, akm), akm.mic_len());
        }
    }
    // a 24-octet MIC frame is not a 16-octet one
    assert!(eapol::verify_mic(KeyDescriptorVersion::AkmDefined, Akm::SuiteB192, &k24, &f).is_err());
    // wrong KCK lengths
    assert_eq!(eapol::compute_mic(AkmDefined, Akm::SuiteB192, &k16, &f24), Err(Error::BadKeyLength));
    assert_eq!(eapol::compute_mic(AesCmacAes, Akm::PskSha256, &k24, &f), Err(Error::BadKeyLength));
    // AKM-defined MIC for an AKM that names a version
    for a in [Akm::Psk, Akm::Ieee8021x, Akm::PskSha256, Akm::FtPsk, Akm::FtIeee8021x, Akm::Ieee8021xSha256] {
        assert!(matches!(eapol::compute_mic(AkmDefined, a, &k16, &f), Err(Error::Unsupported(_))));
    }
}

#[test]
fn eapol_padding_and_length_rules() {
    let f = h(MSG2);
    // trailing padding: accepted, not part of the frame, not emitted
    let mut p = f.clone();
    p.extend_from_slice(&[0u8; 17]);
    let v = EapolKey::new_checked(&p[..], 16).unwrap();
    assert_eq!(v.frame(), &f[..]);
    assert_eq!(v.padding().len(), 17);
    assert_eq!(EapolKeyRepr::parse(&p, 16).unwrap().to_bytes().unwrap(), f);
    // Packet Body Length beyond the buffer
    let mut b = f.clone();
    b[3] += 1;
    assert_eq!(EapolKeyRepr::parse(&b, 16), Err(Error::Truncated));
    // Packet Body Length shorter than the Key Data: Key Data overruns the body
    let mut b = f.clone();
    b[3] -= 1;
    assert_eq!(EapolKeyRepr::parse(&b, 16), Err(Error::Oversize));
    // Key Data Length beyond the body
    let mut b = f.clone();
    b[98] += 1;
    assert_eq!(EapolKeyRepr::parse(&b, 16), Err(Error::Oversize));
    b[97] = 0xff;
    assert_eq!(EapolKeyRepr::parse(&b, 16), Err(Error::Oversize));
    // Key Data Length short of the body
    let mut b = f.clone();
    b[98] -= 1;
    assert!(matches!(EapolKeyRepr::parse(&b, 16), Err(Error::Malformed(_))));
    // the body length covers the padding: not EAPOL-Key-shaped
    let mut b = p.clone();
    b[3] += 17;
    assert!(matches!(EapolKeyRepr::parse(&b, 16), Err(Error::Malformed(_))));
    // Body shorter than the fixed fields
    let mut b = f.clone();
    b[2] = 0;
    b[3] = 94;
    assert_eq!(EapolKeyRepr::parse(&b, 16), Err(Error::Truncated));
    // descriptor types
    for (d, ok) in [(2u8, true), (254, true), (1, false), (0, false), (255, false)] {
        let mut b = f.clone();
        b[4] = d;
        assert_eq!(EapolKeyRepr::parse(&b, 16).is_ok(), ok, "descriptor {d}");
        if !ok {
            assert!(matches!(EapolKeyRepr::parse(&b, 16), Err(Error::Unsupported(_))));
        }
    }
    // other EAPOL packet types (EAP-Packet 0, Start 1, Logoff 2)
    for t in [0u8, 1, 2, 4] {
        let mut b = f.clone();
        b[1] = t;
        assert!(matches!(EapolKeyRepr::parse(&b, 16), Err(Error::Unsupported(_))));
    }
    // MIC lengths: 24 and 32 (OWE group 21) do not fit this frame; other lengths are refused
    assert!(EapolKeyRepr::parse(&f, 24).is_err());
    assert!(EapolKeyRepr::parse(&f, 32).is_err());
    for ml in [0usize, 8, 20, 40] {
        assert!(matches!(EapolKeyRepr::parse(&f, ml), Err(Error::Unsupported(_))));
    }
}

#[test]
fn eapol_24_octet_mic_round_trip() {
    let mut r = EapolKeyRepr::new(
        DescriptorType::Rsn,
        KeyInfo(0).with_descriptor_version(KeyDescriptorVersion::AkmDefined).with(KeyInfo::KEY_ACK, true).with(KeyInfo::KEY_TYPE, true),
        24,
    );
    r.replay_counter = 0x0102_0304_0506_0708;
    r.key_nonce = [0x5a; 32];
    r.key_rsc = 0x0000_0a0b_0c0d_0e0f;
    r.key_data = h("dd14000fac040123456789abcdef0123456789abcdef");
    let b = r.to_bytes().unwrap();
    assert_eq!(b.len(), 4 + 77 + 24 + 2 + 22);
    assert_eq!(&b[9..17], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(&b[65..73], &[0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0, 0]);
    let back = EapolKeyRepr::parse(&b, 24).unwrap();
    assert_eq!(back, r);
    assert!(EapolKeyRepr::parse(&b, 16).is_err());
    let v = EapolKey::new_checked(&b[..], 24).unwrap();
    assert_eq!(v.key_rsc_bytes(), &[0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0, 0]);
    assert_eq!(v.key_info().descriptor_version(), 0);
    assert_eq!(kde::parse(v.key_data()).unwrap(), vec![KeyDataItem::Pmkid(h("0123456789abcdef0123456789abcdef").try_into().unwrap())]);
    // a WPA1 descriptor round-trips too
    let mut w = r.clone();
    w.descriptor_type = DescriptorType::Wpa;
    w.key_mic = vec![0; 16];
    w.key_info = KeyInfo(0x0089).with_key_index(2);
    let wb = w.to_bytes().unwrap();
    assert_eq!(wb[4], 254);
    let wr = EapolKeyRepr::parse(&wb, 16).unwrap();
    assert_eq!(wr, w);
    assert_eq!(wr.key_info.key_index(), 2);
    assert_eq!(wr.key_info.key_descriptor_version().unwrap(), KeyDescriptorVersion::HmacMd5Rc4);
    // emit refuses a MIC of another length
    let mut bad = r.clone();
    bad.key_mic = vec![0; 20];
    assert!(bad.to_bytes().is_err());
}

#[test]
fn key_info_bits() {
    let all = [
        (KeyInfo::KEY_TYPE, 3),
        (KeyInfo::INSTALL, 6),
        (KeyInfo::KEY_ACK, 7),
        (KeyInfo::KEY_MIC, 8),
        (KeyInfo::SECURE, 9),
        (KeyInfo::ERROR, 10),
        (KeyInfo::REQUEST, 11),
        (KeyInfo::ENCRYPTED_KEY_DATA, 12),
        (KeyInfo::SMK_MESSAGE, 13),
    ];
    for (bit, n) in all {
        assert_eq!(bit, 1 << n);
        let k = KeyInfo(0).with(bit, true);
        let got = [
            k.key_type(),
            k.install(),
            k.key_ack(),
            k.key_mic(),
            k.secure(),
            k.error(),
            k.request(),
            k.encrypted_key_data(),
            k.smk_message(),
        ];
        assert_eq!(got.iter().filter(|&&b| b).count(), 1);
        assert_eq!(k.with(bit, false), KeyInfo(0));
    }
    // message 3 of hostapd for CCMP/PSK: 0x13ca
    let m3 = KeyInfo(0x13ca);
    assert!(m3.key_type() && m3.install() && m3.key_ack() && m3.key_mic() && m3.secure() && m3.encrypted_key_data());
    assert_eq!(m3.descriptor_version(), 2);
    assert_eq!(KeyInfo(0x13cb).with_descriptor_version(KeyDescriptorVersion::HmacSha1Aes), m3);
    assert!(KeyInfo(7).key_descriptor_version().is_err());
}

/// Every prefix of `full` shorter than it is refused.
fn all_truncations_fail<T: core::fmt::Debug>(full: &[u8], parse: impl Fn(&[u8]) -> wsec::Result<T>) {
    assert!(parse(full).is_ok());
    for n in 0..full.len() {
        assert!(parse(&full[..n]).is_err(), "prefix of {n} octets of {} parsed", hx(full));
    }
}

#[test]
fn every_truncation_refused() {
    let f = h(MSG2);
    all_truncations_fail(&f, |b| EapolKeyRepr::parse(b, 16));
    all_truncations_fail(&f, |b| EapolKey::new_checked(b, 16).map(|v| v.frame_len()));
    let mut signed = f.clone();
    eapol::write_mic(KeyDescriptorVersion::HmacSha1Aes, Akm::Psk, &h(KCK_PTK), &mut signed).unwrap();
    all_truncations_fail(&signed, |b| eapol::verify_mic(KeyDescriptorVersion::HmacSha1Aes, Akm::Psk, &h(KCK_PTK), b));
    let r24 = {
        let mut r = EapolKeyRepr::parse(&f, 16).unwrap();
        r.key_mic = vec![0; 24];
        r.to_bytes().unwrap()
    };
    all_truncations_fail(&r24, |b| EapolKeyRepr::parse(b, 24));
    for e in [RSNE_MSG2, RSNE_FULL, "30020100", "30060100000fac04"] {
        all_truncations_fail(&h(e), RsnElementRepr::parse);
    }
    all_truncations_fail(&h(WPA_TKIP_PSK), WpaElementRepr::parse);
    all_truncations_fail(&h(WPA_CAPS), WpaElementRepr::parse);
}

/// An RSN element with every field: CCMP-128 group and pairwise, AKM SAE, capabilities
/// MFPR|MFPC (0x00c0), one PMKID, group management BIP-GMAC-256.
const RSNE_FULL: &str = "302a0100000fac040100000fac040100000fac08c000
                         0100000102030405060708090a0b0c0d0e0f000fac0c";
/// WPA1: multicast TKIP, unicast TKIP, AKM PSK.
const WPA_TKIP_PSK: &str = "dd160050f20101000050f20201000050f20201000050f202";
/// WPA1 with TKIP+CCMP unicast and a capabilities field.
const WPA_CAPS: &str = "dd1c0050f20101000050f20202000050f2040050f20201000050f2020000";

#[test]
fn rsn_element_round_trips() {
    let b = h(RSNE_FULL);
    let r = RsnElementRepr::parse(&b).unwrap();
    let caps = r.capabilities.unwrap();
    assert!(caps.mfpr() && caps.mfpc() && !caps.preauth());
    assert_eq!(caps, RsnCapabilities(0).with(RsnCapabilities::MFPC, true).with(RsnCapabilities::MFPR, true));
    assert_eq!(r.akms.iter().map(|s| s.akm()).collect::<Vec<_>>(), vec![Some(Akm::Sae)]);
    assert_eq!(r.pmkids, vec![<[u8; 16]>::try_from(h("000102030405060708090a0b0c0d0e0f")).unwrap()]);
    assert_eq!(r.group_mgmt_cipher.and_then(Suite::cipher), Some(CipherSuite::BipGmac256));
    assert_eq!(r.buffer_len(), b.len());
    assert_eq!(hx(&r.to_bytes().unwrap()), hx(&b));

    // an element may end after any complete field; every such ending round-trips. After
    // the RSN Capabilities (body octet 20) a field cut short is ignored (the RSNE is
    // extensible, 9.4.2.1; hostapd does the same), except a PMKID list shorter than its
    // count.
    let body_ends = [2usize, 6, 12, 18, 20, 38, 42];
    let ignored_tail = [(21usize, 20usize), (39, 38), (40, 38), (41, 38)];
    for len in 0..=42usize {
        let mut e = b[..2 + len].to_vec();
        e[1] = len as u8;
        let p = RsnElementRepr::parse(&e);
        if body_ends.contains(&len) {
            let p = p.unwrap_or_else(|err| panic!("length {len}: {err}"));
            assert_eq!(hx(&p.to_bytes().unwrap()), hx(&e), "length {len}");
        } else if let Some(&(_, end)) = ignored_tail.iter().find(|(l, _)| *l == len) {
            let p = p.unwrap_or_else(|err| panic!("length {len}: {err}"));
            let mut want = b[..2 + end].to_vec();
            want[1] = end as u8;
            assert_eq!(hx(&p.to_bytes().unwrap()), hx(&want), "length {len}");
        } else {
            assert_eq!(p, Err(Error::Truncated), "length {len}");
        }
    }
    // minimal elements
    let v = RsnElementRepr::parse(&h("30020100")).unwrap();
    assert_eq!(v, RsnElementRepr::default());
    let g = RsnElementRepr::parse(&h("30060100000fac04")).unwrap();
    assert_eq!(g.group_cipher, Some(Suite::rsn(4)));
    assert!(g.pairwise.is_empty() && g.akms.is_empty() && g.capabilities.is_none());
    assert_eq!(hx(&g.to_bytes().unwrap()), "30060100000fac04");
    // octets after the element are not read; octets after the last known field are ignored
    let mut more = h(RSNE_MSG2);
    more.extend_from_slice(&[0xdd, 0x05]);
    assert_eq!(RsnElementRepr::parse(&more).unwrap(), RsnElementRepr::parse(&h(RSNE_MSG2)).unwrap());
    let mut ext = h(RSNE_FULL);
    ext.extend_from_slice(&[1, 2, 3]);
    ext[1] += 3;
    assert_eq!(RsnElementRepr::parse(&ext).unwrap(), r);
    // unknown suites survive
    let odd = RsnElementRepr {
        group_cipher: Some(Suite::new([0x00, 0x10, 0x18], 7)),
        pairwise: vec![Suite::rsn(0), Suite::rsn(200)],
        akms: vec![Suite::rsn(99)],
        ..Default::default()
    };
    let ob = odd.to_bytes().unwrap();
    let back = RsnElementRepr::parse(&ob).unwrap();
    assert_eq!(back, odd);
    assert_eq!(back.pairwise[1].cipher(), None);
    assert_eq!(back.akms[0].akm(), None);
    // errors
    assert!(matches!(RsnElementRepr::parse(&h("dd020100")), Err(Error::Malformed(_))));
    assert!(matches!(RsnElementRepr::parse(&h("30020200")), Err(Error::Unsupported(_))));
    // a pairwise count larger than the list
    assert_eq!(RsnElementRepr::parse(&h("300c0100000fac040200000fac04")), Err(Error::Truncated));
    // an element body over 255 octets is refused
    let huge = RsnElementRepr { pmkids: vec![[0; 16]; 16], ..Default::default() };
    assert_eq!(huge.to_bytes(), Err(Error::Oversize));
    // absent earlier fields are emitted with their defaults
    let sparse = RsnElementRepr { group_mgmt_cipher: Some(Suite::rsn(6)), ..Default::default() };
    assert_eq!(hx(&sparse.to_bytes().unwrap()), "30120100000fac040000000000000000000fac06");
}

#[test]
fn rsn_capability_bits() {
    let named = [
        (RsnCapabilities::PREAUTH, 0),
        (RsnCapabilities::NO_PAIRWISE, 1),
        (RsnCapabilities::MFPR, 6),
        (RsnCapabilities::MFPC, 7),
        (RsnCapabilities::JOINT_MULTI_BAND_RSNA, 8),
        (RsnCapabilities::PEERKEY_ENABLED, 9),
        (RsnCapabilities::SPP_AMSDU_CAPABLE, 10),
        (RsnCapabilities::SPP_AMSDU_REQUIRED, 11),
        (RsnCapabilities::PBAC, 12),
        (RsnCapabilities::EXTENDED_KEY_ID, 13),
        (RsnCapabilities::OCVC, 14),
    ];
    for (bit, n) in named {
        assert_eq!(bit, 1 << n);
        let c = RsnCapabilities(bit);
        let got = [
            c.preauth(),
            c.no_pairwise(),
            c.mfpr(),
            c.mfpc(),
            c.joint_multi_band_rsna(),
            c.peerkey_enabled(),
            c.spp_amsdu_capable(),
            c.spp_amsdu_required(),
            c.pbac(),
            c.extended_key_id(),
            c.ocvc(),
        ];
        assert_eq!(got.iter().filter(|&&b| b).count(), 1, "bit {n}");
    }
    let c = RsnCapabilities(0).with_replay_counters(3, 2);
    assert_eq!(c.0, 0x002c);
    assert_eq!((c.ptksa_replay_counter(), c.gtksa_replay_counter()), (3, 2));
    assert_eq!(RsnCapabilities::replay_counters(3), 16);
    assert_eq!(RsnCapabilities::replay_counters(2), 4);
}

#[test]
fn wpa_element_round_trips() {
    let b = h(WPA_TKIP_PSK);
    assert!(ie::is_wpa_element(&b));
    let w = WpaElementRepr::parse(&b).unwrap();
    assert_eq!(w.version, 1);
    assert_eq!(w.group_cipher, Some(Suite::wpa(2)));
    assert_eq!(w.group_cipher.and_then(Suite::cipher), Some(CipherSuite::Tkip));
    assert_eq!(w.pairwise, vec![Suite::wpa(2)]);
    assert_eq!(w.akms[0].akm(), Some(Akm::Psk));
    assert_eq!(w.capabilities, None);
    assert_eq!(hx(&w.to_bytes().unwrap()), hx(&b));
    let c = h(WPA_CAPS);
    let wc = WpaElementRepr::parse(&c).unwrap();
    assert_eq!(wc.pairwise.iter().map(|s| s.cipher().unwrap()).collect::<Vec<_>>(), [CipherSuite::Ccmp128, CipherSuite::Tkip]);
    assert_eq!(wc.capabilities, Some(0));
    assert_eq!(hx(&wc.to_bytes().unwrap()), hx(&c));
    // minimal WPA element (version only)
    let m = WpaElementRepr::parse(&h("dd060050f2010100")).unwrap();
    assert_eq!(m, WpaElementRepr::default());
    assert_eq!(hx(&m.to_bytes().unwrap()), "dd060050f2010100");
    // errors: another vendor element, wrong version, not a vendor element
    assert!(matches!(WpaElementRepr::parse(&h("dd060050f2020100")), Err(Error::Malformed(_))));
    assert!(matches!(WpaElementRepr::parse(&h("dd060050f2010200")), Err(Error::Unsupported(_))));
    assert!(matches!(WpaElementRepr::parse(&h("30020100")), Err(Error::Malformed(_))));
    // WPA selectors name only WPA-era suites
    assert_eq!(Suite::wpa(8).cipher(), None);
    assert_eq!(Suite::wpa(6).akm(), None);
    assert_eq!(Suite::wpa_cipher(CipherSuite::Gcmp256), None);
    assert_eq!(Suite::wpa_akm(Akm::Sae), None);
}

#[test]
fn find_elements_in_a_beacon_body() {
    // Beacon body: fixed fields, SSID "wsec", Supported Rates, DS Parameter Set, RSN, WPA
    let mut body = h("0011223344556677" /* timestamp */);
    body.extend(h("6400" /* interval */));
    body.extend(h("1104" /* capability: ESS, privacy */));
    body.extend(h("000477736563"));
    body.extend(h("010882848b960c121824"));
    body.extend(h("030106"));
    body.extend(h(RSNE_FULL));
    body.extend(h(WPA_TKIP_PSK));
    let ies = &body[wsec::wire::mgmt::BeaconRepr::FIXED_LEN..];
    assert_eq!(hx(ie::find_rsn_element(ies).unwrap().unwrap()), hx(&h(RSNE_FULL)));
    assert_eq!(hx(ie::find_wpa_element(ies).unwrap().unwrap()), WPA_TKIP_PSK);
    let ids: Vec<u8> = wsec::wire::element::elements(ies).map(|e| e.unwrap().id).collect();
    assert_eq!(ids, [0, 1, 3, 48, 221]);
    // none present
    assert_eq!(ie::find_rsn_element(&h("000477736563")).unwrap(), None);
    // a truncated tail after the RSN element still finds it; before it, an error
    let cut = &ies[..ies.len() - 3];
    assert!(ie::find_rsn_element(cut).unwrap().is_some());
    assert_eq!(ie::find_wpa_element(cut), Err(Error::Truncated));
    assert_eq!(ie::find_rsn_element(&ies[..20]), Err(Error::Truncated));
}

fn ap(akms: &[Akm], pairwise: &[CipherSuite], group: CipherSuite, caps: u16) -> RsnElementRepr {
    RsnElementRepr {
        version: 1,
        group_cipher: Some(group.into()),
        pairwise: pairwise.iter().map(|&c| c.into()).collect(),
        akms: akms.iter().map(|&a| a.into()).collect(),
        capabilities: Some(RsnCapabilities(caps)),
        pmkids: vec![],
        group_mgmt_cipher: None,
    }
}

#[test]
fn negotiation() {
    use CipherSuite::*;
    const MFPC: u16 = RsnCapabilities::MFPC;
    const MFPR: u16 = RsnCapabilities::MFPR;
    // the 6.3 AP element: WPA2-PSK CCMP
    let wpa2 = RsnElementRepr::parse(&h(RSNE_MSG2)).unwrap();
    let n = negotiate(&wpa2, &Prefs::default()).unwrap();
    assert_eq!((n.akm, n.pairwise, n.group, n.group_mgmt, n.mfp), (Akm::Psk, Ccmp128, Ccmp128, None, false));
    assert_eq!(n.key_descriptor_version, KeyDescriptorVersion::HmacSha1Aes);
    assert_eq!((n.mic_len, n.descriptor_type), (16, DescriptorType::Rsn));
    assert!(n.amsdu_allowed && !n.spp_amsdu && !n.extended_key_id && !n.ocv);
    // the STA's own element for message 2 is the 6.3 one (less the AP's pre-auth bit)
    let mine = n.sta_rsn_element(&Prefs::default(), &[]);
    assert_eq!(hx(&mine.to_bytes().unwrap()), "30140100000fac040100000fac040100000fac020000");

    // WPA3-Personal AP (SAE, MFPR, default BIP-CMAC-128)
    let sae = RsnElementRepr::parse(&h("30140100000fac040100000fac040100000fac08c000")).unwrap();
    let n = negotiate(&sae, &Prefs::wpa3_personal()).unwrap();
    assert_eq!((n.akm, n.mfp, n.group_mgmt), (Akm::Sae, true, Some(BipCmac128)));
    assert_eq!((n.key_descriptor_version, n.mic_len), (KeyDescriptorVersion::AkmDefined, 16));
    let mine = n.sta_rsn_element(&Prefs::wpa3_personal(), &[]);
    assert_eq!(hx(&mine.to_bytes().unwrap()), "30140100000fac040100000fac040100000fac08c000");
    // the same AP and a WPA2-only STA: no common AKM
    assert_eq!(negotiate(&sae, &Prefs::wpa2_personal()), Err(Error::Unsupported("no common AKM suite")));
    // MFPR at the AP, STA not capable
    let no_mfp = Prefs { akms: vec![Akm::Sae], mfp: MfpPolicy::Disabled, ..Prefs::default() };
    assert!(matches!(negotiate(&sae, &no_mfp), Err(Error::Unsupported(m)) if m.contains("AP requires management frame protection")));

    // Transition mode: PSK + SAE, MFPC only
    let trans = ap(&[Akm::Psk, Akm::Sae], &[Ccmp128], Ccmp128, MFPC);
    let n = negotiate(&trans, &Prefs::wpa2_personal()).unwrap();
    assert_eq!((n.akm, n.mfp, n.sta_mfpr), (Akm::Psk, true, false));
    let n = negotiate(&trans, &Prefs::wpa3_personal()).unwrap();
    assert_eq!((n.akm, n.mfp, n.sta_mfpr), (Akm::Sae, true, true));
    let n = negotiate(&trans, &no_mfp).unwrap();
    assert_eq!((n.akm, n.mfp, n.group_mgmt), (Akm::Sae, false, None));
    // STA requires MFP, AP not capable
    let plain = ap(&[Akm::Sae], &[Ccmp128], Ccmp128, 0);
    assert!(matches!(negotiate(&plain, &Prefs::wpa3_personal()), Err(Error::Unsupported(m)) if m.contains("STA requires")));
    // MFPR without MFPC at the AP: an invalid element
    assert!(matches!(negotiate(&ap(&[Akm::Psk], &[Ccmp128], Ccmp128, MFPR), &Prefs::default()), Err(Error::Malformed(_))));

    // STA preference order among what the AP offers
    let multi = ap(&[Akm::Psk, Akm::PskSha256], &[Ccmp128, Gcmp256, Tkip], Ccmp128, 0);
    let n = negotiate(&multi, &Prefs::default()).unwrap();
    assert_eq!((n.akm, n.pairwise), (Akm::PskSha256, Gcmp256));
    assert_eq!(n.key_descriptor_version, KeyDescriptorVersion::AesCmacAes);
    let p = Prefs { pairwise: vec![Tkip, Ccmp128], akms: vec![Akm::Psk, Akm::PskSha256], ..Prefs::default() };
    let n = negotiate(&multi, &Prefs { mfp: MfpPolicy::Disabled, ..p.clone() }).unwrap();
    assert_eq!((n.akm, n.pairwise), (Akm::Psk, Tkip));
    assert_eq!(n.key_descriptor_version, KeyDescriptorVersion::HmacMd5Rc4);

    // no common pairwise cipher (AP TKIP only)
    let tkip = ap(&[Akm::Psk], &[Tkip], Tkip, 0);
    assert_eq!(negotiate(&tkip, &Prefs::default()), Err(Error::Unsupported("no common pairwise cipher suite")));
    // group cipher the STA refuses
    let p = Prefs { group: vec![Ccmp128], ..Prefs::default() };
    let mixed = ap(&[Akm::Psk], &[Ccmp128, Tkip], Tkip, 0);
    assert!(matches!(negotiate(&mixed, &p), Err(Error::Unsupported(m)) if m.contains("group data cipher")));
    assert_eq!(negotiate(&mixed, &Prefs::default()).unwrap().group, Tkip);
    // MFP with TKIP pairwise
    let tkip_mfp = ap(&[Akm::Psk], &[Tkip], Tkip, MFPC);
    let p = Prefs { pairwise: vec![Tkip], ..Prefs::default() };
    assert!(matches!(negotiate(&tkip_mfp, &p), Err(Error::Unsupported(m)) if m.contains("TKIP")));
    // group management cipher
    let mut gm = ap(&[Akm::Psk], &[Gcmp256], Gcmp256, MFPC);
    gm.group_mgmt_cipher = Some(BipGmac256.into());
    assert_eq!(negotiate(&gm, &Prefs::default()).unwrap().group_mgmt, Some(BipGmac256));
    let p = Prefs { group_mgmt: vec![BipCmac128], ..Prefs::default() };
    assert!(matches!(negotiate(&gm, &p), Err(Error::Unsupported(m)) if m.contains("group management")));
    let n = negotiate(&gm, &Prefs::default()).unwrap();
    let mine = n.sta_rsn_element(&Prefs::default(), &[[7; 16]]);
    assert_eq!(mine.group_mgmt_cipher, Some(BipGmac256.into()));
    assert_eq!(mine.pmkids, vec![[7; 16]]);
    assert_eq!(RsnElementRepr::parse(&mine.to_bytes().unwrap()).unwrap(), mine);

    // SPP A-MSDU, Extended Key ID, OCV
    let spp = RsnCapabilities::SPP_AMSDU_CAPABLE;
    let spp_req = RsnCapabilities::SPP_AMSDU_REQUIRED;
    let ext = RsnCapabilities::EXTENDED_KEY_ID;
    let ocvc = RsnCapabilities::OCVC;
    let a = ap(&[Akm::Psk], &[Ccmp128, Tkip], Ccmp128, spp | ext | ocvc | MFPC);
    let both = Prefs { spp_amsdu_capable: true, extended_key_id: true, ocvc: true, ..Prefs::default() };
    let n = negotiate(&a, &both).unwrap();
    assert!(n.spp_amsdu && n.amsdu_allowed && n.extended_key_id && n.ocv);
    let mine = n.sta_rsn_element(&both, &[]).capabilities.unwrap();
    assert!(mine.spp_amsdu_capable() && mine.extended_key_id() && mine.ocvc() && mine.mfpc() && !mine.mfpr());
    let n = negotiate(&a, &Prefs::default()).unwrap();
    assert!(!n.spp_amsdu && n.amsdu_allowed && !n.extended_key_id && !n.ocv);
    let req = ap(&[Akm::Psk], &[Ccmp128], Ccmp128, spp | spp_req);
    let n = negotiate(&req, &Prefs::default()).unwrap();
    assert!(!n.spp_amsdu && !n.amsdu_allowed);
    let tk = Prefs { pairwise: vec![Tkip], extended_key_id: true, mfp: MfpPolicy::Disabled, ..Prefs::default() };
    assert!(!negotiate(&a, &tk).unwrap().extended_key_id);

    // defaults of a minimal element: CCMP-128 and AKM 802.1X
    let min = RsnElementRepr::default();
    let eap = Prefs { akms: vec![Akm::Ieee8021x], ..Prefs::default() };
    let n = negotiate(&min, &eap).unwrap();
    assert_eq!((n.akm, n.pairwise, n.group), (Akm::Ieee8021x, Ccmp128, Ccmp128));
    assert_eq!(negotiate(&min, &Prefs::default()), Err(Error::Unsupported("no common AKM suite")));
    // Suite B 192: 24-octet MIC
    let sb = ap(&[Akm::SuiteB192], &[Gcmp256], Gcmp256, MFPC | MFPR);
    let mut sbg = sb.clone();
    sbg.group_mgmt_cipher = Some(BipGmac256.into());
    let p = Prefs { akms: vec![Akm::SuiteB192], mfp: MfpPolicy::Required, ..Prefs::default() };
    let n = negotiate(&sbg, &p).unwrap();
    assert_eq!((n.mic_len, n.key_descriptor_version), (24, KeyDescriptorVersion::AkmDefined));

    // WPA1
    let w = WpaElementRepr::parse(&h(WPA_CAPS)).unwrap();
    let p = Prefs { pairwise: vec![Tkip, Ccmp128], mfp: MfpPolicy::Disabled, ..Prefs::default() };
    let n = negotiate_wpa(&w, &p).unwrap();
    assert_eq!((n.descriptor_type, n.akm, n.pairwise, n.group), (DescriptorType::Wpa, Akm::Psk, Tkip, Tkip));
    assert_eq!(n.key_descriptor_version, KeyDescriptorVersion::HmacMd5Rc4);
    assert_eq!(n.sta_wpa_element().unwrap().to_bytes().unwrap(), h(WPA_TKIP_PSK));
    let n = negotiate_wpa(&w, &Prefs::default()).unwrap();
    assert_eq!((n.pairwise, n.key_descriptor_version), (Ccmp128, KeyDescriptorVersion::HmacSha1Aes));
    assert!(negotiate_wpa(&w, &Prefs::wpa3_personal()).is_err());
    assert_eq!(
        negotiate_wpa(&WpaElementRepr::parse(&h(WPA_TKIP_PSK)).unwrap(), &Prefs::default()),
        Err(Error::Unsupported("no common pairwise cipher suite"))
    );
}

/// A message-3-like Key Data: RSN element, GTK, IGTK, BIGTK, Key ID, MAC address, PMKID,
/// an OCI KDE (not interpreted), a vendor element.
fn msg3_items<'a>(rsne: &'a [u8], gtk: &'a [u8], igtk: &'a [u8], vendor: &'a [u8]) -> Vec<KeyDataItem<'a>> {
    vec![
        KeyDataItem::Rsn(rsne),
        KeyDataItem::Gtk(GtkKde { key_id: 2, tx: false, gtk }),
        KeyDataItem::Igtk(IgtkKde { key_id: 4, ipn: 0x0000_0000_0201, key: igtk }),
        KeyDataItem::Bigtk(IgtkKde { key_id: 6, ipn: 0xffff_ffff_ffff, key: igtk }),
        KeyDataItem::KeyId(1),
        KeyDataItem::MacAddress(wsec::wire::MacAddr([0, 0x13, 0x46, 0xfe, 0x32, 0x0c])),
        KeyDataItem::Pmkid([0xab; 16]),
        KeyDataItem::Kde { data_type: kde::data_type::OCI, data: &[0x51, 0x24, 0x00] },
        KeyDataItem::Element(vendor),
    ]
}

#[test]
fn kde_round_trips() {
    let rsne = h(RSNE_MSG2);
    let gtk = h("0102030405060708090a0b0c0d0e0f10");
    let igtk = h("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    let vendor = h("dd050050f20401");
    let items = msg3_items(&rsne, &gtk, &igtk, &vendor);
    let mut b = KeyDataBuilder::new();
    for it in &items {
        b.push(it).unwrap();
    }
    let plain = b.finish();
    // GTK KDE laid out as Figure 12-35: dd 16 000fac 01 | KeyID 2, Tx 0 | reserved | GTK
    let gtk_kde = h("dd16000fac010200").into_iter().chain(gtk.iter().copied()).collect::<Vec<u8>>();
    assert_eq!(&plain[rsne.len()..rsne.len() + 24], &gtk_kde[..]);
    // IGTK KDE: dd 1c 000fac 09 | 0400 | 010200000000 | IGTK
    let at = rsne.len() + 24;
    assert_eq!(hx(&plain[at..at + 14]), "dd1c000fac090400010200000000");
    assert_eq!(kde::parse(&plain).unwrap(), items);
    let items_back: Vec<KeyDataItem> = kde::iter(&plain).map(|r| r.unwrap()).collect();
    assert_eq!(items_back, items);
    // rebuild from the parsed items: byte-identical
    let mut b2 = KeyDataBuilder::new();
    for it in &items_back {
        b2.push(it).unwrap();
    }
    assert_eq!(b2.finish(), plain);
    // padded for AES Key Wrap: parses to the same items
    let mut padded = plain.clone();
    kde::pad_for_key_wrap(&mut padded);
    assert!(padded.len() & 7 == 0 && padded.len() >= 16 && padded.len() > plain.len());
    assert_eq!(padded[plain.len()], 0xdd);
    assert!(padded[plain.len() + 1..].iter().all(|&x| x == 0));
    assert_eq!(kde::parse(&padded).unwrap(), items);
    // short Key Data is padded to 16 octets
    let mut one = KeyDataBuilder::new();
    one.key_id(0).unwrap();
    let p = one.finish_padded();
    assert_eq!(hx(&p), "dd06000fac0a0000dd00000000000000");
    assert_eq!(kde::parse(&p).unwrap(), vec![KeyDataItem::KeyId(0)]);
    // WPA element in Key Data, and a whole-element builder entry
    let mut b3 = KeyDataBuilder::new();
    b3.element(&h(WPA_TKIP_PSK)).unwrap().element(&rsne).unwrap();
    let w = b3.finish();
    assert_eq!(kde::parse(&w).unwrap(), vec![KeyDataItem::Wpa(&w[..24]), KeyDataItem::Rsn(&w[24..])]);
    // builder refusals
    let mut bad = KeyDataBuilder::new();
    assert!(bad.element(&h("30030100")).is_err());
    assert!(bad.gtk(4, false, &gtk).is_err());
    assert!(bad.igtk(4, 1 << 48, &igtk).is_err());
    assert_eq!(bad.gtk(0, true, &[0; 250]).err(), Some(Error::Oversize));
    assert!(bad.push(&KeyDataItem::Rsn(&h(WPA_TKIP_PSK))).is_err());
    assert!(bad.is_empty());
}

/// The Transition Disable KDE as hostapd's `wpa_add_kde(.., WFA_KEY_DATA_TRANSITION_DISABLE,
/// &conf->transition_disable, 1, ..)` lays it out: dd 05 | 50 6f 9a | 20 | bitmap. A longer
/// one is read by its first octet (as wpa_supplicant); one with no bitmap is truncated; a
/// WFA vendor element of another type stays an element.
#[test]
fn transition_disable_kde() {
    let mut b = KeyDataBuilder::new();
    b.push(&KeyDataItem::TransitionDisable(0x09)).unwrap();
    let p = b.finish();
    assert_eq!(hx(&p), "dd05506f9a2009");
    assert_eq!(kde::parse(&p).unwrap(), vec![KeyDataItem::TransitionDisable(0x09)]);
    assert_eq!(kde::parse(&h("dd06506f9a200100")).unwrap(), vec![KeyDataItem::TransitionDisable(0x01)]);
    assert_eq!(kde::parse(&h("dd04506f9a20")), Err(Error::Truncated));
    let other = h("dd05506f9a1c00");
    assert_eq!(kde::parse(&other).unwrap(), vec![KeyDataItem::Element(&other)]);
}

#[test]
fn kde_truncations_and_errors() {
    let rsne = h(RSNE_MSG2);
    let gtk = h("0102030405060708090a0b0c0d0e0f10");
    let igtk = h("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    let vendor = h("dd050050f20401");
    let items = msg3_items(&rsne, &gtk, &igtk, &vendor);
    let mut b = KeyDataBuilder::new();
    let mut ends = vec![0usize];
    for it in &items {
        b.push(it).unwrap();
        ends.push(b.len());
    }
    let full = b.finish();
    // a prefix ending inside an item is refused; one ending between items parses to fewer
    for n in 0..full.len() {
        let r = kde::parse(&full[..n]);
        match ends.iter().position(|&e| e == n) {
            Some(k) => assert_eq!(r.unwrap().len(), k, "prefix {n}"),
            None => {
                // a cut that leaves exactly 0xdd at the end reads as padding
                if full[n - 1] == 0xdd && ends.contains(&(n - 1)) {
                    assert!(r.is_ok());
                } else {
                    assert!(r.is_err(), "prefix {n} parsed");
                }
            }
        }
    }
    // each KDE with its Length shortened below its data type's minimum
    for (kde_hex, min_len) in [
        ("dd16000fac0102000102030405060708090a0b0c0d0e0f10", 6usize), // GTK: flags + reserved
        ("dd0a000fac03001346fe320c", 10),                             // MAC address: exactly 6
        ("dd14000fac04abababababababababababababababab", 20),         // PMKID: exactly 16
        ("dd1c000fac090400010200000000a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", 12), // IGTK: 8 + key
        ("dd06000fac0a0100", 6),                                      // Key ID: 2
    ] {
        let k = h(kde_hex);
        assert!(kde::parse(&k).is_ok(), "{kde_hex}");
        for l in 3..min_len {
            let mut s = k[..2 + l].to_vec();
            s[1] = l as u8;
            assert!(kde::parse(&s).is_err(), "{kde_hex} with Length {l}");
        }
    }
    // fixed-size KDEs longer than their type allows
    assert!(matches!(kde::parse(&h("dd0b000fac03001346fe320c00")), Err(Error::Malformed(_))));
    // padding must be zeros
    assert!(matches!(kde::parse(&h("dd000001")), Err(Error::Malformed(_))));
    assert_eq!(kde::parse(&h("dd0000000000")).unwrap(), vec![]);
    // an element running past the end
    assert_eq!(kde::parse(&h("3014010000")), Err(Error::Truncated));
    assert_eq!(kde::parse(&h("30")), Err(Error::Truncated));
    // the iterator yields one error then stops
    let mut it = kde::iter(&[0x30, 0x05, 1]);
    assert_eq!(it.next(), Some(Err(Error::Truncated)));
    assert_eq!(it.next(), None);
    // an 00-0F-AC vendor element too short for a Data Type
    assert_eq!(kde::parse(&h("dd03000fac")), Err(Error::Truncated));
    // other vendor elements of any length pass through
    assert_eq!(kde::parse(&h("dd0100")).unwrap(), vec![KeyDataItem::Element(&[0xdd, 1, 0])]);
}

/// Parse, re-emit and re-parse: the two parses agree (and for EAPOL-Key frames the
/// re-emitted frame is the input's EAPOL frame, byte for byte).
fn check_stable(data: &[u8]) {
    for ml in [16usize, 24] {
        if let Ok(r) = EapolKeyRepr::parse(data, ml) {
            let b = r.to_bytes().unwrap();
            assert_eq!(&b[..], EapolKey::new_checked(data, ml).unwrap().frame());
            assert_eq!(EapolKeyRepr::parse(&b, ml).unwrap(), r);
        }
        let kdv = if ml == 16 { KeyDescriptorVersion::HmacSha1Aes } else { KeyDescriptorVersion::AkmDefined };
        let akm = if ml == 16 { Akm::Psk } else { Akm::SuiteB192 };
        let _ = eapol::verify_mic(kdv, akm, &vec![1u8; if ml == 16 { 16 } else { 24 }], data);
    }
    if let Ok(items) = kde::parse(data) {
        let mut b = KeyDataBuilder::new();
        for it in &items {
            b.push(it).unwrap();
        }
        let out = b.finish();
        assert_eq!(kde::parse(&out).unwrap(), items);
    }
    let _ = kde::iter(data).count();
    if let Ok(r) = RsnElementRepr::parse(data) {
        let b = r.to_bytes().unwrap();
        assert_eq!(RsnElementRepr::parse(&b).unwrap(), r);
        let _ = negotiate(&r, &Prefs::default());
        let _ = negotiate(&r, &Prefs::wpa3_personal());
    }
    if let Ok(w) = WpaElementRepr::parse(data) {
        let b = w.to_bytes().unwrap();
        assert_eq!(WpaElementRepr::parse(&b).unwrap(), w);
        let _ = negotiate_wpa(&w, &Prefs::default());
    }
    let _ = wsec::wire::element::elements(data).count();
    let _ = ie::find_rsn_element(data);
    let _ = ie::find_wpa_element(data);
}

#[test]
fn random_inputs_never_panic() {
    let mut rng = StdRng::seed_from_u64(0x6f0489cf);
    let seeds: Vec<Vec<u8>> = vec![h(MSG2), h(RSNE_MSG2), h(RSNE_FULL), h(WPA_TKIP_PSK), h(WPA_CAPS), {
        let rsne = h(RSNE_MSG2);
        let mut b = KeyDataBuilder::new();
        let g = [1u8; 16];
        for it in msg3_items(&rsne, &g, &g, &h("dd050050f20401")) {
            b.push(&it).unwrap();
        }
        b.finish_padded()
    }];
    let mut parsed = 0usize;
    // 20,000 inputs per parser: pure noise, and mutations of the valid inputs above
    for i in 0..20_000 {
        let len = rng.gen_range(0..300);
        let mut noise: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        // make noise EAPOL-Key-like half the time so that deeper checks are reached
        if i % 2 == 0 && noise.len() >= 5 {
            noise[1] = 3;
            noise[4] = if i % 4 == 0 { 2 } else { 254 };
            let bl = (noise.len() - 4) as u16;
            noise[2..4].copy_from_slice(&bl.to_be_bytes());
        }
        check_stable(&noise);
        let mut m = seeds[i % seeds.len()].clone();
        for _ in 0..rng.gen_range(1..4) {
            match rng.gen_range(0..4) {
                0 if !m.is_empty() => {
                    let j = rng.gen_range(0..m.len());
                    m[j] ^= 1 << rng.gen_range(0..8);
                }
                1 if !m.is_empty() => {
                    let j = rng.gen_range(0..m.len());
                    m[j] = rng.gen();
                }
                2 => m.truncate(rng.gen_range(0..=m.len())),
                _ => m.extend((0..rng.gen_range(0..8)).map(|_| rng.gen::<u8>())),
            }
        }
        check_stable(&m);
        parsed += usize::from(EapolKeyRepr::parse(&m, 16).is_ok() || RsnElementRepr::parse(&m).is_ok());
    }
    assert!(parsed > 100, "mutations should often stay parseable ({parsed})");
}
