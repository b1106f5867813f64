//! Enhanced CCMP (docs/eccmp.md): checked against a second, deliberately simple
//! implementation written here from the doc (one AES block at a time with the `aes` crate,
//! AAD built from the standard's text by `common::frames`), against RustCrypto `ccm` for
//! k = 1, against the repository's byte-layout vectors, and under attack: the literal
//! "split the chain and XOR" MIC is forged by swapping two lanes, ECCMP's is not.
use crate::common;
use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use aes::{Aes128, Aes256};
use ccm::aead::AeadInPlace;
use ccm::consts::{U13, U8};
use ccm::Ccm;
use common::frames::{independent_aad, random_mpdu};
use common::{h, hx};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use wsec::cipher::eccmp::Eccmp;
use wsec::cipher::kernel::CcmKey;
use wsec::cipher::{new_protection, AadOptions, CipherSuite, Protection};
use wsec::rsn::ie::{negotiate, Prefs, RsnElementRepr, Suite};
use wsec::Error;

// ---------- the simple implementation, from docs/eccmp.md ----------

fn e(k: &Aes128, b: [u8; 16]) -> [u8; 16] {
    let mut g = GenericArray::from(b);
    k.encrypt_block(&mut g);
    g.into()
}

fn xor16(a: [u8; 16], b: &[u8]) -> [u8; 16] {
    let mut o = a;
    for (o, b) in o.iter_mut().zip(b) {
        *o ^= b;
    }
    o
}

/// Formatted stream X_0 .. X_{n-1} (B0, AAD blocks, payload blocks) and A (AAD block count).
fn stream(nonce: &[u8; 13], aad: &[u8], p: &[u8]) -> (Vec<[u8; 16]>, usize) {
    let mut b0 = [0u8; 16];
    b0[0] = if aad.is_empty() { 0x19 } else { 0x59 };
    b0[1..14].copy_from_slice(nonce);
    b0[14] = (p.len() >> 8) as u8;
    b0[15] = p.len() as u8;
    let mut x = vec![b0];
    let mut a = Vec::new();
    if !aad.is_empty() {
        a.push((aad.len() >> 8) as u8);
        a.push(aad.len() as u8);
        a.extend_from_slice(aad);
    }
    let blocks = |v: &[u8], x: &mut Vec<[u8; 16]>| {
        for c in v.chunks(16) {
            let mut b = [0u8; 16];
            b[..c.len()].copy_from_slice(c);
            x.push(b);
        }
    };
    blocks(&a, &mut x);
    let na = x.len() - 1;
    blocks(p, &mut x);
    (x, na)
}

/// T (before masking) of ECCMP-k, k = 1 meaning CCM's CBC-MAC; `literal` drops the domain
/// blocks D_l (the forgeable "split and XOR" reading of the paper).
fn simple_t(k: &Aes128, lanes: usize, nonce: &[u8; 13], aad: &[u8], p: &[u8], literal: bool) -> [u8; 16] {
    let (x, na) = stream(nonce, aad, p);
    let mut t = [0u8; 16];
    for l in 0..lanes {
        let mut y = [0u8; 16];
        if lanes > 1 && !literal {
            let log2 = match lanes {
                2 => 1u8,
                4 => 2,
                _ => 3,
            };
            let mut d = [0u8; 16];
            d[0] = 0x80 | ((l as u8) << 4) | ((log2 - 1) << 2) | na as u8;
            d[1..14].copy_from_slice(nonce);
            d[14] = (p.len() >> 8) as u8;
            d[15] = p.len() as u8;
            y = e(k, d);
        }
        let mut j = l;
        while j < x.len() {
            y = e(k, xor16(y, &x[j]));
            j += lanes;
        }
        t = xor16(t, &y);
    }
    t
}

fn simple_ctr(k: &Aes128, nonce: &[u8; 13], data: &mut [u8]) {
    for (i, c) in data.chunks_mut(16).enumerate() {
        let mut a = [0u8; 16];
        a[0] = 1;
        a[1..14].copy_from_slice(nonce);
        a[14] = ((i + 1) >> 8) as u8;
        a[15] = (i + 1) as u8;
        let s = e(k, a);
        for (d, s) in c.iter_mut().zip(&s) {
            *d ^= s;
        }
    }
}

fn simple_s0(k: &Aes128, nonce: &[u8; 13]) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 1;
    a[1..14].copy_from_slice(nonce);
    e(k, a)
}

/// Seal: ciphertext || 8-octet MIC.
fn simple_seal(tk: &[u8], lanes: usize, nonce: &[u8; 13], aad: &[u8], p: &[u8], literal: bool) -> Vec<u8> {
    let k = Aes128::new(GenericArray::from_slice(tk));
    let t = simple_t(&k, lanes, nonce, aad, p, literal);
    let mic = xor16(t, &simple_s0(&k, nonce));
    let mut c = p.to_vec();
    simple_ctr(&k, nonce, &mut c);
    c.extend_from_slice(&mic[..8]);
    c
}

fn simple_open(tk: &[u8], lanes: usize, nonce: &[u8; 13], aad: &[u8], cm: &[u8], literal: bool) -> Option<Vec<u8>> {
    let (c, mic) = cm.split_at(cm.len() - 8);
    let k = Aes128::new(GenericArray::from_slice(tk));
    let mut p = c.to_vec();
    simple_ctr(&k, nonce, &mut p);
    let t = xor16(simple_t(&k, lanes, nonce, aad, &p, literal), &simple_s0(&k, nonce));
    (t[..8] == *mic).then_some(p)
}

fn pn_be(pn: u64) -> [u8; 6] {
    let b = pn.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// The protected MPDU, built from the standard's CCMP framing (12.5.3.2) and the simple MIC.
fn simple_mpdu(tk: &[u8], lanes: usize, pn: u64, key_id: u8, f: &[u8]) -> Vec<u8> {
    let (aad, flags, hl) = independent_aad(f);
    let mut nonce = [0u8; 13];
    nonce[0] = flags;
    nonce[1..7].copy_from_slice(&f[10..16]);
    nonce[7..].copy_from_slice(&pn_be(pn));
    let mut out = f[..hl].to_vec();
    out[1] |= 0x40;
    let p = pn.to_le_bytes();
    out.extend_from_slice(&[p[0], p[1], 0, 0x20 | (key_id << 6), p[2], p[3], p[4], p[5]]);
    out.extend(simple_seal(tk, lanes, &nonce, &aad, &f[hl..], false));
    out
}

// ---------- tests ----------

#[test]
fn eccmp_mpdus_match_the_simple_implementation() {
    let mut rng = StdRng::seed_from_u64(0xecc3_0001);
    for i in 0..1500 {
        let f = random_mpdu(&mut rng);
        let lanes = [2, 4, 8][i % 3];
        let mut tk = [0u8; 16];
        rng.fill_bytes(&mut tk);
        let pn = rng.gen::<u64>() & 0xffff_ffff_ffff;
        let key_id = rng.gen_range(0..4u8);
        let expect = simple_mpdu(&tk, lanes, pn, key_id, &f);
        let ec = Eccmp::new(&tk, lanes).unwrap();
        let mut out = Vec::new();
        ec.encapsulate(&f, pn, key_id, &mut out).unwrap();
        assert_eq!(hx(&out), hx(&expect), "frame {i}, {lanes} lanes");
        let mut back = Vec::new();
        let info = ec.decapsulate(&out, &mut back).unwrap();
        assert_eq!(back, f);
        assert_eq!(info.pn, pn);
        // Another lane count, or plain CCMP, refuses the frame.
        let other = Eccmp::new(&tk, [4, 8, 2][i % 3]).unwrap();
        assert_eq!(other.decapsulate(&out, &mut back), Err(Error::MicFailure));
        let ccmp = new_protection(CipherSuite::Ccmp128, &tk, AadOptions::default()).unwrap();
        assert_eq!(ccmp.decapsulate(&out, &mut back), Err(Error::MicFailure));
    }
}

#[test]
fn kernel_backends_match_the_simple_implementation() {
    let mut rng = StdRng::seed_from_u64(0xecc3_0002);
    for i in 0..2000 {
        let mut tk = [0u8; 16];
        rng.fill_bytes(&mut tk);
        let mut nonce = [0u8; 13];
        rng.fill_bytes(&mut nonce);
        let aad_len = rng.gen_range(0..=46);
        let mut aad = vec![0u8; aad_len];
        rng.fill_bytes(&mut aad);
        let len = if i % 10 == 0 { rng.gen_range(0..40) } else { rng.gen_range(0..=2400) };
        let mut p = vec![0u8; len];
        rng.fill_bytes(&mut p);
        let lanes = [1, 2, 4, 8][i % 4];
        let expect = simple_seal(&tk, lanes, &nonce, &aad, &p, false);
        for backend in CcmKey::available_backends() {
            let key = CcmKey::new_with_backend(&tk, backend).unwrap();
            let mut d = p.clone();
            let mut tag = [0u8; 8];
            key.seal_lanes(lanes, &nonce, &aad, &mut d, &mut tag).unwrap();
            assert_eq!(d, expect[..len], "{backend} {lanes} lanes len {len}");
            assert_eq!(tag, expect[len..], "{backend} {lanes} lanes len {len} tag");
            key.open_lanes(lanes, &nonce, &aad, &mut d, &tag).unwrap();
            assert_eq!(d, p);
            // A flipped ciphertext bit is refused and the ciphertext kept.
            if len > 0 {
                let mut c = expect[..len].to_vec();
                let bit = rng.gen_range(0..8 * len);
                c[bit / 8] ^= 1 << (bit % 8);
                let before = c.clone();
                assert_eq!(key.open_lanes(lanes, &nonce, &aad, &mut c, &tag), Err(Error::MicFailure));
                assert_eq!(c, before);
            }
        }
    }
}

#[test]
fn one_lane_is_standard_ccm() {
    let mut rng = StdRng::seed_from_u64(0xecc3_0003);
    for _ in 0..500 {
        let mut tk = [0u8; 16];
        rng.fill_bytes(&mut tk);
        let mut nonce = [0u8; 13];
        rng.fill_bytes(&mut nonce);
        let mut aad = vec![0u8; rng.gen_range(0..=46)];
        rng.fill_bytes(&mut aad);
        let mut p = vec![0u8; rng.gen_range(0..=2304)];
        rng.fill_bytes(&mut p);
        let rc = Ccm::<Aes128, U8, U13>::new_from_slice(&tk).unwrap();
        let mut rc_ct = p.clone();
        let rc_tag = rc.encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut rc_ct).unwrap();
        for backend in CcmKey::available_backends() {
            let key = CcmKey::new_with_backend(&tk, backend).unwrap();
            let mut d = p.clone();
            let mut tag = [0u8; 8];
            key.seal_lanes(1, &nonce, &aad, &mut d, &mut tag).unwrap();
            assert_eq!(d, rc_ct);
            assert_eq!(tag[..], rc_tag[..]);
            // The lane MAC with k = 1, masked with E(A_0), is CCM's tag too.
            let t = key.lane_mac(1, 8, &nonce, &aad, &p).unwrap();
            let k = Aes128::new(GenericArray::from_slice(&tk));
            assert_eq!(xor16(t, &simple_s0(&k, &nonce))[..8], rc_tag[..], "{backend}");
        }
    }
}

#[test]
fn parallel_ctr_equals_sequential_ctr() {
    let mut rng = StdRng::seed_from_u64(0xecc3_0004);
    for i in 0..600 {
        let long = i % 3 == 0;
        let mut tk = vec![0u8; if long { 32 } else { 16 }];
        rng.fill_bytes(&mut tk);
        let mut nonce = [0u8; 13];
        rng.fill_bytes(&mut nonce);
        let mut p = vec![0u8; rng.gen_range(0..=5000)];
        rng.fill_bytes(&mut p);
        // Sequential CTR, one block at a time, from the `aes` crate.
        let mut expect = p.clone();
        for (n, c) in expect.chunks_mut(16).enumerate() {
            let mut a = [0u8; 16];
            a[0] = 1;
            a[1..14].copy_from_slice(&nonce);
            a[14] = ((n + 1) >> 8) as u8;
            a[15] = (n + 1) as u8;
            let mut g = GenericArray::from(a);
            if long {
                Aes256::new(GenericArray::from_slice(&tk)).encrypt_block(&mut g);
            } else {
                Aes128::new(GenericArray::from_slice(&tk)).encrypt_block(&mut g);
            }
            for (d, s) in c.iter_mut().zip(g.iter()) {
                *d ^= s;
            }
        }
        for backend in CcmKey::available_backends() {
            let key = CcmKey::new_with_backend(&tk, backend).unwrap();
            for w in [1, 2, 4, 8, 16, 32] {
                let mut d = p.clone();
                key.ctr_xor_width(w, &nonce, &mut d).unwrap();
                assert_eq!(d, expect, "{backend} width {w} len {}", p.len());
            }
        }
    }
}

/// The attack of docs/eccmp.md: with known plaintext, swap the contents of two
/// payload-only lanes (k = 8: lanes 3 and 4; k = 4 has one such lane, so swap two blocks
/// inside it... which changes its CBC-MAC; use k = 8) and keep PN and MIC.
#[test]
fn literal_split_is_forgeable_and_eccmp_is_not() {
    let tk = h("c97c1f67ce371185514a8a19f2bdd52f");
    let nonce: [u8; 13] = h("005030f1844408b5039776e70c").try_into().unwrap();
    let aad = h("08400fd2e128a57c5030f1844408abaea5b8fcba0000"); // 22 octets, A = 2
                                                                 // A 1500-octet payload the attacker knows (e.g. a file being downloaded).
    let p: Vec<u8> = (0..1500u32).map(|i| (i * 7 + 3) as u8).collect();
    let lanes = 8;
    // Stream index j = 3 + payload block; lane = j mod 8. Lanes 3 and 4 hold payload
    // blocks 0, 8, 16, ... and 1, 9, 17, ...: equal counts as long as both are full.
    let (x, na) = stream(&nonce, &aad, &p);
    assert_eq!(na, 2);
    let swap_lanes = |q: &[u8]| -> Vec<u8> {
        let mut q = q.to_vec();
        let mut j = 3;
        while j + 1 < x.len() && 16 * (j + 1 - 3) + 16 <= q.len() {
            let (a, b) = (16 * (j - 3), 16 * (j + 1 - 3));
            for t in 0..16 {
                q.swap(a + t, b + t);
            }
            j += lanes;
        }
        q
    };
    let forged_p = swap_lanes(&p);
    assert_ne!(forged_p, p);

    for literal in [true, false] {
        let sealed = simple_seal(&tk, lanes, &nonce, &aad, &p, literal);
        // The attacker: keystream = C ^ P (known plaintext); new C' = P' ^ keystream; same MIC.
        let c = &sealed[..p.len()];
        let mut forged: Vec<u8> = forged_p.iter().zip(c).zip(&p).map(|((a, c), p)| a ^ c ^ p).collect();
        forged.extend_from_slice(&sealed[p.len()..]);
        let opened = simple_open(&tk, lanes, &nonce, &aad, &forged, literal);
        if literal {
            assert_eq!(opened.as_deref(), Some(&forged_p[..]), "the literal construction accepts the forgery");
        } else {
            assert!(opened.is_none(), "ECCMP's domain-separated lanes refuse it");
        }
    }
    // And the library (ECCMP-8) refuses it too.
    let key = CcmKey::new(&tk).unwrap();
    let mut d = p.clone();
    let mut tag = [0u8; 8];
    key.seal_lanes(lanes, &nonce, &aad, &mut d, &mut tag).unwrap();
    let mut forged: Vec<u8> = forged_p.iter().zip(&d).zip(&p).map(|((a, c), p)| a ^ c ^ p).collect();
    assert_eq!(key.open_lanes(lanes, &nonce, &aad, &mut forged, &tag), Err(Error::MicFailure));
}

/// `crates/wsec/tests/data/eccmp_vectors.txt`: `suite tk pn key_id plaintext protected`
/// per line. Generated once by `wsec protect`; checked here by the simple implementation
/// (independent of the library) and by the library both ways.
#[test]
fn byte_layout_vectors() {
    let text = include_str!("../data/eccmp_vectors.txt");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let w: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(w.len(), 6, "{line}");
        let suite: CipherSuite = w[0].parse().unwrap();
        let lanes = suite.eccmp_lanes().unwrap_or(1);
        let tk = h(w[1]);
        let pn: u64 = w[2].parse().unwrap();
        let key_id: u8 = w[3].parse().unwrap();
        let f = h(w[4]);
        let expect = h(w[5]);
        assert_eq!(hx(&simple_mpdu(&tk, lanes, pn, key_id, &f)), hx(&expect), "simple implementation: {line}");
        let prot = new_protection(suite, &tk, AadOptions::default()).unwrap();
        let mut out = Vec::new();
        prot.encapsulate(&f, pn, key_id, &mut out).unwrap();
        assert_eq!(hx(&out), hx(&expect), "library: {line}");
        let mut back = Vec::new();
        prot.decapsulate(&expect, &mut back).unwrap();
        assert_eq!(back, f);
        n += 1;
    }
    assert!(n >= 12, "vectors file has {n} vectors");
}

#[test]
fn suite_selectors_and_negotiation() {
    for (c, t) in [(CipherSuite::Eccmp2, 2), (CipherSuite::Eccmp4, 4), (CipherSuite::Eccmp8, 8)] {
        assert_eq!(Suite::from_cipher(c).to_bytes(), [0x0a, 0x57, 0x53, t]);
        assert_eq!(Suite::from_bytes([0x0a, 0x57, 0x53, t]).cipher(), Some(c));
        assert_eq!(c.overhead(), 16);
        assert_eq!(c.key_len(), 16);
    }
    // The RSN OUI's types 2/4/8 stay TKIP/CCMP/GCMP.
    assert_eq!(Suite::from_bytes([0x00, 0x0f, 0xac, 4]).cipher(), Some(CipherSuite::Ccmp128));
    assert_eq!(Suite::from_bytes([0x0a, 0x57, 0x53, 3]).cipher(), None);

    // An AP offering ECCMP-8 before CCMP; the element round-trips through its bytes.
    let ap = RsnElementRepr {
        group_cipher: Some(Suite::from_cipher(CipherSuite::Ccmp128)),
        pairwise: vec![Suite::from_cipher(CipherSuite::Eccmp8), Suite::from_cipher(CipherSuite::Ccmp128)],
        akms: vec![Suite::rsn(2)],
        ..Default::default()
    };
    let mut buf = vec![0u8; ap.buffer_len()];
    ap.emit(&mut buf).unwrap();
    assert_eq!(hx(&buf[8..18]), "02000a575308000fac04", "pairwise count and list");
    let ap = RsnElementRepr::parse(&buf).unwrap();
    let mut sta = Prefs::wpa2_personal();
    sta.pairwise.insert(0, CipherSuite::Eccmp8);
    assert_eq!(negotiate(&ap, &sta).unwrap().pairwise, CipherSuite::Eccmp8);
    // A STA that does not know ECCMP still gets CCMP.
    let legacy = Prefs::wpa2_personal();
    assert_eq!(negotiate(&ap, &legacy).unwrap().pairwise, CipherSuite::Ccmp128);
    // ECCMP is never a group cipher.
    let bad = RsnElementRepr { group_cipher: Some(Suite::from_cipher(CipherSuite::Eccmp4)), ..ap.clone() };
    assert!(negotiate(&bad, &sta).is_err());
}

/// Every backend this CPU has gives the same answer, value or refusal, for every lane count
/// and AAD length 0 to 100 (`lane_mac(1, ..)` with AAD over 46 octets is where the AES-NI
/// and portable backends can part: a panic on one, a value on the other).
#[test]
fn lane_mac_is_the_same_on_every_backend_including_refusals() {
    let key = [0x42u8; 16];
    let portable = CcmKey::new_portable(&key).unwrap();
    let detected = CcmKey::new(&key).unwrap();
    // The check must compare two different backends where the CPU has AES-NI.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("aes") {
        assert_ne!(detected.backend_name(), portable.backend_name(), "AES-NI present: the detected key must not be portable");
    }
    let nonce = [7u8; 13];
    let data: Vec<u8> = (0..100u8).collect();
    let mut refused = 0;
    for k in [1usize, 2, 4, 8] {
        for alen in 0..=100usize {
            let aad: Vec<u8> = (0..alen as u8).collect();
            let a = portable.lane_mac(k, 8, &nonce, &aad, &data);
            let b = detected.lane_mac(k, 8, &nonce, &aad, &data);
            assert_eq!(a, b, "k = {k}, AAD {alen} octets");
            if a.is_err() {
                assert!(alen > 46, "k = {k}, AAD {alen} octets refused");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 4 * 54, "AAD of 47 to 100 octets refused for every k");
}

/// The one-pass AVX-512 kernel (lanes 4 and 8, the 15- to 30-octet AADs of 802.11) against
/// the portable backend's two passes, at the lengths where its steps change shape (no
/// payload, a partial first block, one and several 64-octet steps, A-MSDU sizes, the
/// largest CCM payload), AES-128 and AES-256, tags of 8 and 16 octets; a tampered frame is
/// refused and keeps its ciphertext.
#[test]
fn one_pass_kernel_matches_portable_at_step_edges() {
    let mut rng = StdRng::seed_from_u64(0xecc3_0005);
    let backends = CcmKey::available_backends();
    for len in [0usize, 1, 15, 16, 17, 47, 48, 49, 63, 64, 65, 111, 112, 113, 127, 128, 129, 1500, 7935, 16384, 65535] {
        for (key_len, lanes, m, aad_len) in [(16, 4, 8, 22), (16, 8, 8, 30), (32, 4, 16, 24), (32, 8, 8, 15), (16, 4, 16, 28)] {
            let mut key = vec![0u8; key_len];
            rng.fill_bytes(&mut key);
            let mut nonce = [0u8; 13];
            rng.fill_bytes(&mut nonce);
            let mut aad = vec![0u8; aad_len];
            rng.fill_bytes(&mut aad);
            let mut p = vec![0u8; len];
            rng.fill_bytes(&mut p);
            let portable = CcmKey::new_portable(&key).unwrap();
            let (mut want, mut want_tag) = (p.clone(), vec![0u8; m]);
            portable.seal_lanes(lanes, &nonce, &aad, &mut want, &mut want_tag).unwrap();
            for b in &backends {
                let k = CcmKey::new_with_backend(&key, b).unwrap();
                let (mut d, mut tag) = (p.clone(), vec![0u8; m]);
                k.seal_lanes(lanes, &nonce, &aad, &mut d, &mut tag).unwrap();
                assert!(d == want && tag == want_tag, "{b}: seal, {lanes} lanes, len {len}, AES-{}", key_len * 8);
                k.open_lanes(lanes, &nonce, &aad, &mut d, &tag).unwrap();
                assert!(d == p, "{b}: open, {lanes} lanes, len {len}");
                let mut c = want.clone();
                let mut bad = want_tag.clone();
                bad[len % m] ^= 0x20;
                assert_eq!(k.open_lanes(lanes, &nonce, &aad, &mut c, &bad), Err(Error::MicFailure), "{b} len {len}");
                assert!(c == want, "{b}: a refused frame keeps its ciphertext, len {len}");
            }
        }
    }
}
