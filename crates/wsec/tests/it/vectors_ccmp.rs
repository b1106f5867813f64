//! CCMP-128/256 vectors of ../shared/vectors.md sections 1.1-1.4 and 2.1, both ways,
//! including the Order-bit caveat of the P802.11i/D7.0 MPDUs under both rules.
use crate::common;
use common::{h, hx};
use wsec::cipher::ccmp::Ccmp;
use wsec::cipher::kernel::CcmKey;
use wsec::cipher::{AadOptions, CipherSuite, OrderRule, Protection};
use wsec::Error;

struct V {
    tk: &'static str,
    pn: u64,
    key_id: u8,
    header: &'static str,
    plaintext: &'static str,
    encrypted: &'static str,
    /// (AAD, MIC) under the current rule where it differs from D7.0 [DERIVED in vectors.md].
    current: Option<(&'static str, &'static str)>,
    nonce: &'static str,
}

const D7: [V; 8] = [
    V {
        tk: "c97c1f67ce371185514a8a19f2bdd52f",
        pn: 0xB5039776E70C,
        key_id: 0,
        header: "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033",
        plaintext: "f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        encrypted:
            "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623",
        current: None,
        nonce: "005030f1844408b5039776e70c",
    },
    V {
        tk: "8f7a053fa577a5597529272097a603d5",
        pn: 0x31F3CBBA97EA,
        key_id: 2,
        header: "38c06a51ea100c846850eec1762c88deaf2ee9f46a07e0cc",
        plaintext: "83a0634b5ed7627eb9df225e05740342de194117",
        encrypted:
            "38c06a51ea100c846850eec1762c88deaf2ee9f46a07e0ccea9700a0bacbf331814b6965d05bf2b2ed38d4beb069fe82714a610b542fbf8da06aa4ae",
        current: None,
        nonce: "00eec1762c88de31f3cbba97ea",
    },
    V {
        tk: "40cfb7a62e88013bd6d3affcc191041e",
        pn: 0x2FDCA0F3A5AE,
        key_id: 2,
        header: "b8c8dc61d9577df763c8b6a88adf3691dc4a8bca94dd60822085",
        plaintext: "2c1bd036831c95496c5f4dbf3d559e72de802a18",
        encrypted:
            "b8c8dc61d9577df763c8b6a88adf3691dc4a8bca94dd60822085aea500a0f3a0dc2f89d8580340b626a0b6d4d013bf18f291b89646c8fd1f1f61a9fb4bb3",
        current: Some(("8840d9577df763c8b6a88adf3691dc4a8bca94dd00000000", "d826963604e20bed")),
        nonce: "00b6a88adf36912fdca0f3a5ae",
    },
    V {
        tk: "8c89a2ebc96c7602707fcf24b32d3833",
        pn: 0xF670A55A0FE3,
        key_id: 0,
        header: "a8ca3a11712a9ddf11db8ef82273470159140dd646a2c02f67a5",
        plaintext: "4fad2b1c290fa5ebd872fbc3f3a074898f8b2fbb",
        encrypted:
            "a8ca3a11712a9ddf11db8ef82273470159140dd646a2c02f67a5e30f00205aa570f69d59b15f371448c230f4d739052e13ab3b1a7b1031fc88004f35ee3d",
        current: Some(("8842712a9ddf11db8ef82273470159140dd646a200000700", "12baa8a27eb81754")),
        nonce: "078ef822734701f670a55a0fe3",
    },
    V {
        tk: "a574d5143bb25efddeff30122fdfd066",
        pn: 0xA7FFE03C0E37,
        key_id: 2,
        header: "88da184145dec69a7480f351946bc96be276fbe6c12780f24b19",
        plaintext: "28969b954f263a8018a9ef70a8b051462481922e",
        encrypted:
            "88da184145dec69a7480f351946bc96be276fbe6c12780f24b19370e00a03ce0ffa7eb4ae4956a801da9624b7e0c18b23e615ec03af6ce0c3be197d305eb",
        current: Some(("884245dec69a7480f351946bc96be276fbe6c12700000b00", "4ebcd0e777653ef8")),
        nonce: "0bf351946bc96ba7ffe03c0e37",
    },
    V {
        tk: "f71eea4e1f58804b9717230ad0614641",
        pn: 0x6B81ECA48989,
        key_id: 1,
        header: "8852e11f5af28430fdabbff943b9f9a6ab1d98c7fe7350713d6a",
        plaintext: "abfda22d3a0bfc9cc1fc079363c2fca143e6eb1d",
        encrypted:
            "8852e11f5af28430fdabbff943b9f9a6ab1d98c7fe7350713d6a89890060a4ec816b9a709b60a39d40b1dfb612e18b5f114badb6cc86309a8d5c466bbb71",
        current: None,
        nonce: "0dbff943b9f9a66b81eca48989",
    },
    V {
        tk: "1bdb34980e038124a1db1a892bec366a",
        pn: 0x5EEC4073E723,
        key_id: 3,
        header: "187981469b50f4fd56f6efec9520169183570c4ccdee20a0",
        plaintext: "98beca86f4b38da20cfdf24724c58eb835665339",
        encrypted:
            "187981469b50f4fd56f6efec9520169183570c4ccdee20a023e700e07340ec5e12c537ebf3ab584ef1fef9a1f3547a8c13b3225a2d0957ecfabe95b9",
        current: None,
        nonce: "00efec952016915eec4073e723",
    },
    V {
        tk: "6eac1bf54bd54edb2321754303024c71",
        pn: 0xCEFD996ECCDD,
        key_id: 2,
        header: "b8d94c72552d5f72bb70ca3f3aae60c48ba9b5f82c2f50eb2a55",
        plaintext: "57cb5c0e5fcd885e9a4239e9b9cad60d64375979",
        encrypted:
            "b8d94c72552d5f72bb70ca3f3aae60c48ba9b5f82c2f50eb2a55ddcc00a06e99fdce4bf281ef8ec7739f91591b97a87dc14b3fa174626dba8ef7f08087dd",
        current: Some(("8841552d5f72bb70ca3f3aae60c48ba9b5f82c2f00000a00", "bc0a1e09e90c97f2")),
        nonce: "0aca3f3aae60c4cefd996eccdd",
    },
];

fn plain_mpdu(v: &V) -> Vec<u8> {
    let mut p = h(v.header);
    p[1] &= !0x40;
    p.extend(h(v.plaintext));
    p
}

fn both_ways(c: &Ccmp, plain: &[u8], pn: u64, key_id: u8, expect: &[u8]) {
    let mut out = Vec::new();
    c.encapsulate(plain, pn, key_id, &mut out).unwrap();
    assert_eq!(hx(&out), hx(expect), "protect");
    let mut back = Vec::new();
    let info = c.decapsulate(expect, &mut back).unwrap();
    assert_eq!((info.pn, info.key_id), (pn, key_id));
    assert_eq!(hx(&back), hx(plain), "unprotect");
}

/// All eight P802.11i/D7.0 MPDUs reproduce byte for byte under the 2003 rule.
#[test]
fn d7_mpdus_under_2003_rule() {
    let opts = AadOptions { order_rule: OrderRule::Draft2003, spp_amsdu: false };
    for v in &D7 {
        let c = Ccmp::with_options(&h(v.tk), opts).unwrap();
        both_ways(&c, &plain_mpdu(v), v.pn, v.key_id, &h(v.encrypted));
    }
}

/// Under the current rule, MPDUs 1, 2, 6 and 7 are unchanged.
#[test]
fn d7_mpdus_1_2_6_7_under_current_rule() {
    for v in D7.iter().filter(|v| v.current.is_none()) {
        let c = Ccmp::new(&h(v.tk)).unwrap();
        both_ways(&c, &plain_mpdu(v), v.pn, v.key_id, &h(v.encrypted));
    }
}

/// MPDUs 3, 4, 5 and 8 (QoS, Order = 1): under the current rule the AAD masks Order, giving
/// the derived MIC with the same ciphertext. Under the current standard the same octets
/// would also announce an HT Control field, so an HT receiver cannot verify the D7.0 frames.
#[test]
fn d7_order_bit_caveat_current_rule() {
    for v in D7.iter().filter(|v| v.current.is_some()) {
        let (aad_cur, mic_cur) = v.current.unwrap();
        let hdr = h(v.header);
        let hd = wsec::wire::Header::new_checked_pre_ht(&hdr[..]).unwrap();
        let aad = wsec::cipher::aad::build_aad(&hd, AadOptions::default()).unwrap();
        assert_eq!(hx(aad.as_bytes()), aad_cur);
        let nonce = wsec::cipher::aad::ccm_nonce(&hd, v.pn).unwrap();
        assert_eq!(hx(&nonce), v.nonce);
        let key = CcmKey::new(&h(v.tk)).unwrap();
        let mut data = h(v.plaintext);
        let mut mic = [0u8; 8];
        key.seal_in_place(&nonce, aad.as_bytes(), &mut data, &mut mic).unwrap();
        let enc = h(v.encrypted);
        let ct = &enc[hdr.len() + 8..enc.len() - 8];
        assert_eq!(hx(&data), hx(ct), "same ciphertext under both rules");
        assert_eq!(hx(&mic), mic_cur, "current-rule MIC");
        // An HT receiver under the current rule rejects the D7.0 frame.
        let c = Ccmp::new(&h(v.tk)).unwrap();
        assert!(c.decapsulate(&enc, &mut Vec::new()).is_err());
    }
}

/// IEEE 802.11-2012 M.9.2: CCMP on a unicast Deauthentication (management flag in nonce).
#[test]
fn ccmp_mgmt_m9_2() {
    let c = Ccmp::new(&h("66ed21042f9f26d7115706e40414cf2e")).unwrap();
    let plain = h("c000000002000000010002000000000002000000000060000200");
    let expect = h("c0400000020000000100020000000000020000000000600001000020000000001d07cafd0409bb8bafef");
    both_ways(&c, &plain, 1, 0, &expect);
}

/// aircrack-ng test-decrypt-ccmp.c: a captured ToDS frame.
#[test]
fn ccmp_aircrack_capture() {
    let c = Ccmp::new(&h("1d035e8beb4f83611dc93e2657cecf69")).unwrap();
    let mpdu = h("08410201000b86c2a4850013ce5598ef000f66e3e401202e0100002000000000
        95c31e2d0201589f4debe227c4e9c21db12c7a666a35808abe1e738dab1da36b
        a0f31681709a94f0b6532cd6935b141359");
    let mut out = Vec::new();
    let info = c.decapsulate(&mpdu, &mut out).unwrap();
    assert_eq!(info.pn, 1);
    assert_eq!(hx(&out[24..]), "aaaa030000000800450000216a1200000101f743ac100065ac10000108002667040003004448435043");
    assert_eq!(hx(&out[..2]), "0801");
    let mut again = Vec::new();
    c.encapsulate(&out, 1, 0, &mut again).unwrap();
    assert_eq!(again, mpdu);
}

/// IEEE P802.11ac/D7.0 M.6.4 CCMP-256.
#[test]
fn ccmp_256_vector() {
    let c = Ccmp::new(&h("c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f")).unwrap();
    assert_eq!(c.suite(), CipherSuite::Ccmp256);
    let mut plain = h("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050");
    plain[1] &= !0x40;
    let expect = h("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5
        6d155d8832668256d6a92b78e11d8e54495dd17480aa56c9492e882b97642f80d50fe97b");
    both_ways(&c, &plain, 0xb5039776e70c, 0, &expect);
}

#[test]
fn ccmp_errors() {
    let v = &D7[0];
    let c = Ccmp::new(&h(v.tk)).unwrap();
    let enc = h(v.encrypted);
    let mut out = Vec::new();
    assert_eq!(c.encapsulate(&enc, 1, 0, &mut out), Err(Error::AlreadyProtected));
    assert_eq!(c.decapsulate(&plain_mpdu(v), &mut out), Err(Error::NotProtected));
    for n in 0..enc.len() {
        let r = c.decapsulate(&enc[..n], &mut out);
        assert!(r.is_err(), "truncated to {n}");
        assert!(out.is_empty());
    }
    let mut no_ext = enc.clone();
    no_ext[24 + 3] &= !0x20;
    assert_eq!(c.decapsulate(&no_ext, &mut out), Err(Error::ExtIvMissing));
    let wrong = Ccmp::new(&[0u8; 16]).unwrap();
    assert_eq!(wrong.decapsulate(&enc, &mut out), Err(Error::MicFailure));
    assert_eq!(Ccmp::new(&[0u8; 15]).err(), Some(Error::BadKeyLength));
    let mut big = plain_mpdu(v);
    big.resize(24 + wsec::cipher::MAX_MPDU_BODY + 1, 0);
    assert_eq!(c.encapsulate(&big, 1, 0, &mut out), Err(Error::Oversize));
    // ACK frames and Null data carry nothing to protect.
    assert!(c.encapsulate(&[0xd4, 0, 0, 0, 1, 2, 3, 4, 5, 6], 1, 0, &mut out).is_err());
    let mut null = h(v.header);
    null.truncate(24);
    null[0] = 0x48;
    null[1] = 0;
    assert!(matches!(c.encapsulate(&null, 1, 0, &mut out), Err(Error::Unsupported(_))));
}
