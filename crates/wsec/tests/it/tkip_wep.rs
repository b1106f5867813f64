//! TKIP, Michael and WEP against the vectors of /work/shared/vectors.md sections 4 and 5,
//! both ways, plus negative tests (bit flips, truncation, wrong keys, forged fragments).
use crate::common;

use common::{h, hx};
use rand::{Rng, RngCore, SeedableRng};
use wsec::cipher::michael::{michael, michael_msdu, Michael};
use wsec::cipher::tkip::{phase1, phase2, MichaelDirection, TkipKey};
use wsec::cipher::wep::{wep_open, wep_seal, WepKey};
use wsec::cipher::{CipherSuite, Protection, RxInfo, MAX_MPDU_BODY};
use wsec::Error;

// ---------------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------------

// vectors.md 4.1: IEEE 802.11-2012 M.6.3.
const TKIP_TK: &str = "12345678901234567890123456789012";
const TKIP_MIC_A2S: &str = "3456789012345678"; // tk[16..24]
const TKIP_MIC_S2A: &str = "9012345678901234"; // tk[24..32]
const TKIP_HDR: &str = "08422c00020304050608020304050607020304050607d002";
const TKIP_MSDU: &str = "aaaa03000000080045000054000040004001a555c0a80a02c0a80a0108003ab0
                         00000000cd4c05000000000008090a0b0c0d0e0f101112131415161718191a1b
                         1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637";
const TKIP_TTAK: &str = "bb58071f9e93b438254b";
const TKIP_P2KEY: &str = "0020014cfe67bed27c867b1bf8028b1c";
const TKIP_MIC: &str = "6881a3f3d648d03c";
const TKIP_ENC: &str = "08422c00020304050608020304050607020304050607d0020020012000000000
                        c00e14fce7cfabc77547e666e57c0dac704a1e358a88c11c8e2e282e3801027a
                        4656055ee93e9c254702e9735805ddb5769ba73f1ebb56e844ef912285d3dd6e
                        541e823873558adba079068abd7f7f50959675acc4b4de9aa99c05f289a7c52f
                        ee5bfc14f6f8e5f8";

// vectors.md 5: P802.11i/D7.0 I.7.2 WEP-40.
const WEP_KEY: &str = "3031323334";
const WEP_IV: u64 = 0xfb029e;
const WEP_KEY_ID: u8 = 2;
const WEP_HDR: &str = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033";
const WEP_DATA: &str = "aaaa0300000008004500004e661a00008011be640a0001220affffff00890089
                        003a000080a601100001000000000000204543454a4548454346434550464545
                        49454646434341434143414341434141410000200001";
const WEP_ENC: &str = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033fb029e80f69c5806
                       bd6ce84626bcbefb9474650aad1f7909b0f64d5f58a503a258b7ed22eb0ea649
                       30d3a056a55742fcce141d485f8aa836dea18df42c5380805ad0c61a5d6f58f4
                       1040b24b7d1a693856ed0d4398e7aee3bf0e2a2ca8f7";

/// The 32-octet TKIP key of M.6.3: TK || Michael A→S || Michael S→A.
fn tkip_key_bytes() -> Vec<u8> {
    [h(TKIP_TK), h(TKIP_MIC_A2S), h(TKIP_MIC_S2A)].concat()
}

fn tkip_key() -> TkipKey {
    TkipKey::new(&tkip_key_bytes()).unwrap()
}

/// A header as given (Protected set) with the Protected bit cleared.
fn unprotected(hdr: &str) -> Vec<u8> {
    let mut v = h(hdr);
    v[1] &= !0x40;
    v
}

fn tkip_plain_mpdu() -> Vec<u8> {
    [unprotected(TKIP_HDR), h(TKIP_MSDU)].concat()
}

fn wep_plain_mpdu() -> Vec<u8> {
    [unprotected(WEP_HDR), h(WEP_DATA)].concat()
}

fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
    v.try_into().unwrap()
}

// ---------------------------------------------------------------------------------------
// Michael (vectors.md 4.2)
// ---------------------------------------------------------------------------------------

#[test]
fn michael_chained_vectors() {
    let chain: [(&str, &str); 6] = [
        ("", "82925c1ca1d130b8"),
        ("M", "434721ca40639b3f"),
        ("Mi", "e8f9becae97e5d29"),
        ("Mic", "90038fc6cf13c1db"),
        ("Mich", "d55e100510128986"),
        ("Michael", "0a942b124ecaa546"),
    ];
    let mut key = [0u8; 8];
    for (msg, mic) in chain {
        assert_eq!(hx(&michael(&key, msg.as_bytes())), mic, "one-shot {msg:?}");
        // Streaming, one octet at a time.
        let mut m = Michael::new(&key);
        for b in msg.as_bytes() {
            m.update(std::slice::from_ref(b));
        }
        assert_eq!(hx(&m.finalize()), mic, "streaming {msg:?}");
        key = arr(&h(mic));
    }
}

// ---------------------------------------------------------------------------------------
// TKIP M.6.3 (vectors.md 4.1), both ways
// ---------------------------------------------------------------------------------------

#[test]
fn tkip_m63_key_mixing() {
    let tk: [u8; 16] = arr(&h(TKIP_TK));
    let ta = [0x02, 0x03, 0x04, 0x05, 0x06, 0x07];
    let ttak = phase1(&tk, &ta, 0);
    let ttak_le: Vec<u8> = ttak.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(hx(&ttak_le), TKIP_TTAK);
    assert_eq!(hx(&phase2(&tk, &ttak, 1)), TKIP_P2KEY);
    assert_eq!(hx(&tkip_key().per_packet_key(&ta, 1)[..]), TKIP_P2KEY);
}

#[test]
fn tkip_m63_michael() {
    // FromDS: DA = A1, SA = A3, Michael key tk[16..24].
    let da = [0x02, 0x03, 0x04, 0x05, 0x06, 0x08];
    let sa = [0x02, 0x03, 0x04, 0x05, 0x06, 0x07];
    let key: [u8; 8] = arr(&h(TKIP_MIC_A2S));
    assert_eq!(hx(&michael_msdu(&key, &da, &sa, 0, &h(TKIP_MSDU))), TKIP_MIC);
    let k = tkip_key();
    let dir = MichaelDirection::AuthenticatorToSupplicant;
    assert_eq!(hx(&k.msdu_mic(&da, &sa, 0, &h(TKIP_MSDU), dir)), TKIP_MIC);
    let with_mic = [h(TKIP_MSDU), h(TKIP_MIC)].concat();
    assert_eq!(k.verify_msdu_mic(&da, &sa, 0, &with_mic, dir), Ok(92));
    // The other Michael key does not verify it.
    assert_eq!(k.verify_msdu_mic(&da, &sa, 0, &with_mic, MichaelDirection::SupplicantToAuthenticator), Err(Error::MicFailure));
    assert_eq!(k.verify_msdu_mic(&da, &sa, 0, &with_mic[..7], dir), Err(Error::Truncated));
}

#[test]
fn tkip_m63_encapsulate() {
    let k = tkip_key();
    assert_eq!(k.suite(), CipherSuite::Tkip);
    let plain = tkip_plain_mpdu();
    let mut out = Vec::new();
    k.encapsulate(&plain, 1, 0, &mut out).unwrap();
    assert_eq!(hx(&out), hx(&h(TKIP_ENC)));
    // Explicit direction, same result.
    let mut out2 = Vec::new();
    k.encapsulate_dir(&plain, 1, 0, MichaelDirection::AuthenticatorToSupplicant, &mut out2).unwrap();
    assert_eq!(out2, out);
    // encapsulate_msdu with room for everything: one fragment, byte-identical.
    let frames =
        k.encapsulate_msdu(&unprotected(TKIP_HDR), &h(TKIP_MSDU), 1, 0, 2304, MichaelDirection::AuthenticatorToSupplicant).unwrap();
    assert_eq!(frames, vec![out.clone()]);
    // Fields of the output: IV/Ext IV header, encrypted ICV at the end.
    assert_eq!(hx(&out[24..32]), "0020012000000000");
    assert_eq!(out.len(), 24 + 8 + 92 + 8 + 4);
}

#[test]
fn tkip_m63_decapsulate() {
    let k = tkip_key();
    let enc = h(TKIP_ENC);
    let mut out = Vec::new();
    let info = k.decapsulate(&enc, &mut out).unwrap();
    assert_eq!(info, RxInfo { pn: 1, key_id: 0 });
    assert_eq!(hx(&out), hx(&tkip_plain_mpdu()));
    assert_eq!(TkipKey::peek(&enc).unwrap(), info);
    // Fragment path: ICV only; plaintext still carries the Michael MIC.
    let (frag, finfo) = k.decapsulate_fragment(&enc).unwrap();
    assert_eq!(finfo, info);
    assert_eq!(hx(&frag), hx(&[tkip_plain_mpdu(), h(TKIP_MIC)].concat()));
    let da = [0x02, 0x03, 0x04, 0x05, 0x06, 0x08];
    let sa = [0x02, 0x03, 0x04, 0x05, 0x06, 0x07];
    let n = k.verify_msdu_mic(&da, &sa, 0, &frag[24..], MichaelDirection::AuthenticatorToSupplicant).unwrap();
    assert_eq!(&frag[24..24 + n], &h(TKIP_MSDU)[..]);
}

// ---------------------------------------------------------------------------------------
// TKIP negative tests
// ---------------------------------------------------------------------------------------

#[test]
fn tkip_every_bit_flip_in_body_icv_mic_is_rejected() {
    let k = tkip_key();
    let enc = h(TKIP_ENC);
    let mut out = Vec::new();
    // Encrypted MSDU || MIC || ICV: octets 32.. (after MAC header and TKIP header).
    for i in 32..enc.len() {
        for bit in 0..8 {
            let mut f = enc.clone();
            f[i] ^= 1 << bit;
            let e = k.decapsulate(&f, &mut out).unwrap_err();
            assert!(matches!(e, Error::IcvFailure | Error::MicFailure), "octet {i} bit {bit}: {e:?}");
            assert!(out.is_empty());
        }
    }
    // The TKIP header's TSC octets feed the key mixing: a flip there breaks the ICV.
    for i in [24usize, 26, 28, 29, 30, 31] {
        let mut f = enc.clone();
        f[i] ^= 0x01;
        assert_eq!(k.decapsulate(&f, &mut out), Err(Error::IcvFailure), "TKIP header octet {i}");
    }
    // Ext IV cleared.
    let mut f = enc.clone();
    f[27] &= !0x20;
    assert_eq!(k.decapsulate(&f, &mut out), Err(Error::ExtIvMissing));
    // DA (A1) and SA (A3) are covered by Michael only: the ICV checks, Michael fails.
    for i in (4..10).chain(16..22) {
        let mut f = enc.clone();
        f[i] ^= 0x80;
        assert_eq!(k.decapsulate(&f, &mut out), Err(Error::MicFailure), "address octet {i}");
    }
    // TA (A2) feeds phase 1: the ICV fails.
    for i in 10..16 {
        let mut f = enc.clone();
        f[i] ^= 0x80;
        assert_eq!(k.decapsulate(&f, &mut out), Err(Error::IcvFailure), "TA octet {i}");
    }
}

#[test]
fn tkip_truncated_inputs_are_errors() {
    let k = tkip_key();
    let enc = h(TKIP_ENC);
    let mut out = Vec::new();
    for n in 0..enc.len() {
        assert!(k.decapsulate(&enc[..n], &mut out).is_err(), "decapsulate len {n}");
        assert!(out.is_empty());
        assert!(k.decapsulate_fragment(&enc[..n]).is_err(), "decapsulate_fragment len {n}");
        let _ = TkipKey::peek(&enc[..n]);
    }
    // Too short for TKIP header + ICV (+ MIC): Truncated specifically.
    for n in 24..24 + 8 + 4 {
        assert_eq!(k.decapsulate_fragment(&enc[..n]).unwrap_err(), Error::Truncated, "len {n}");
    }
    for n in 24..24 + 8 + 8 + 4 {
        assert_eq!(k.decapsulate(&enc[..n], &mut out).unwrap_err(), Error::Truncated, "len {n}");
    }
    // Any prefix of the plaintext: encapsulate errs (header cut) or succeeds; never panics.
    let plain = tkip_plain_mpdu();
    for n in 0..plain.len() {
        let r = k.encapsulate(&plain[..n], 1, 0, &mut out);
        assert_eq!(r.is_ok(), n >= 24, "encapsulate len {n}");
        if r.is_ok() {
            let mut back = Vec::new();
            k.decapsulate(&out, &mut back).unwrap();
            assert_eq!(back, &plain[..n]);
        }
    }
}

#[test]
fn tkip_wrong_keys() {
    let enc = h(TKIP_ENC);
    let mut out = Vec::new();
    // Wrong TK: ICV failure.
    let mut kb = tkip_key_bytes();
    kb[0] ^= 1;
    assert_eq!(TkipKey::new(&kb).unwrap().decapsulate(&enc, &mut out), Err(Error::IcvFailure));
    // Right TK, wrong Michael key: MIC failure (the countermeasure case).
    let mut kb = tkip_key_bytes();
    kb[16] ^= 1;
    assert_eq!(TkipKey::new(&kb).unwrap().decapsulate(&enc, &mut out), Err(Error::MicFailure));
    // The other Michael key is not used for FromDS frames.
    let mut kb = tkip_key_bytes();
    kb[24] ^= 1;
    assert!(TkipKey::new(&kb).unwrap().decapsulate(&enc, &mut out).is_ok());
    // Wrong direction: MIC failure.
    assert_eq!(tkip_key().decapsulate_dir(&enc, MichaelDirection::SupplicantToAuthenticator, &mut out), Err(Error::MicFailure));
    assert!(out.is_empty());
    for n in [0, 16, 31, 33, 48] {
        assert_eq!(TkipKey::new(&vec![0; n]).unwrap_err(), Error::BadKeyLength);
    }
}

/// An attacker who knows the RC4 keystream of an MPDU (here: computes it from the TK) but
/// not the Michael key edits the plaintext, fixes the ICV and re-encrypts. TKIP must report
/// that as a Michael MIC failure, not an ICV failure.
#[test]
fn tkip_forged_mpdu_with_valid_icv_is_mic_failure() {
    let k = tkip_key();
    let mut f = h(TKIP_ENC);
    let ta = [0x02, 0x03, 0x04, 0x05, 0x06, 0x07];
    let seed = k.per_packet_key(&ta, 1);
    let n = wep_open(&seed[..], &mut f[32..]).unwrap();
    assert_eq!(n, 92 + 8);
    f[32 + 40] ^= 0xff; // change an IP payload octet
    wep_seal(&seed[..], &mut f[32..]).unwrap();
    let mut out = Vec::new();
    assert_eq!(k.decapsulate(&f, &mut out), Err(Error::MicFailure));
    // The ICV alone is fine.
    assert!(k.decapsulate_fragment(&f).is_ok());
}

#[test]
fn tkip_frame_rules() {
    let k = tkip_key();
    let plain = tkip_plain_mpdu();
    let mut out = Vec::new();
    // Protected set on encapsulate / clear on decapsulate.
    assert_eq!(k.encapsulate(&h(TKIP_ENC), 2, 0, &mut out), Err(Error::AlreadyProtected));
    assert_eq!(k.decapsulate(&plain, &mut out), Err(Error::NotProtected));
    assert_eq!(k.decapsulate_fragment(&plain).unwrap_err(), Error::NotProtected);
    // Management (Authentication) and control frames: unsupported for TKIP.
    let mut auth = plain.clone();
    auth[0] = 0xb0;
    auth[1] = 0x00;
    assert!(matches!(k.encapsulate(&auth, 1, 0, &mut out), Err(Error::Unsupported(_))));
    let ack = [0xd4u8, 0, 0, 0, 1, 2, 3, 4, 5, 6];
    assert!(matches!(k.encapsulate(&ack, 1, 0, &mut out), Err(Error::Unsupported(_))));
    // Null data.
    let mut null = unprotected(TKIP_HDR);
    null[0] = 0x48;
    assert!(matches!(k.encapsulate(&null, 1, 0, &mut out), Err(Error::Unsupported(_))));
    // TSC over 48 bits, Key ID over 3.
    assert!(matches!(k.encapsulate(&plain, 1 << 48, 0, &mut out), Err(Error::Malformed(_))));
    assert!(matches!(k.encapsulate(&plain, 1, 4, &mut out), Err(Error::Malformed(_))));
    assert!(out.is_empty());
    // Oversize body.
    let big = [unprotected(TKIP_HDR), vec![0u8; MAX_MPDU_BODY + 1]].concat();
    assert_eq!(k.encapsulate(&big, 1, 0, &mut out), Err(Error::Oversize));
    let ok = [unprotected(TKIP_HDR), vec![0u8; MAX_MPDU_BODY]].concat();
    k.encapsulate(&ok, 1, 0, &mut out).unwrap();
    let mut back = Vec::new();
    k.decapsulate(&out, &mut back).unwrap();
    assert_eq!(back, ok);
    // A fragment given to the single-MPDU paths.
    let mut mf = plain.clone();
    mf[1] |= 0x04;
    assert!(matches!(k.encapsulate(&mf, 1, 0, &mut out), Err(Error::Fragment(_))));
    let mut fragno = plain.clone();
    fragno[22] |= 1;
    assert!(matches!(k.encapsulate(&fragno, 1, 0, &mut out), Err(Error::Fragment(_))));
    // Key ID and TSC reported.
    k.encapsulate(&plain, 0x0102_0304_0506, 3, &mut out).unwrap();
    let info = k.decapsulate(&out, &mut back).unwrap();
    assert_eq!(info, RxInfo { pn: 0x0102_0304_0506, key_id: 3 });
    assert_eq!(back, plain);
}

// ---------------------------------------------------------------------------------------
// TKIP fragmentation and reassembly by hand
// ---------------------------------------------------------------------------------------

/// QoS data header, To DS (STA → AP): TA = SA = A2, BSSID = A1, DA = A3; TID 5.
fn qos_tods_header(seq: u16) -> Vec<u8> {
    let mut v = vec![0x88, 0x01, 0, 0];
    v.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x55]); // A1 BSSID
    v.extend_from_slice(&[0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee]); // A2 TA = SA
    v.extend_from_slice(&[0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb]); // A3 DA
    v.extend_from_slice(&(seq << 4).to_le_bytes());
    v.extend_from_slice(&[0x05, 0x00]); // QoS Control: TID 5
    v
}

/// Decrypts every fragment, checks the fragment fields, concatenates the bodies.
fn reassemble(k: &TkipKey, frames: &[Vec<u8>], first_tsc: u64, seq: u16) -> Result<Vec<u8>, Error> {
    let mut msdu_mic = Vec::new();
    let mut hdr0 = None;
    for (i, f) in frames.iter().enumerate() {
        let (p, info) = k.decapsulate_fragment(f)?;
        assert_eq!(info.pn, first_tsc + i as u64, "consecutive TSCs");
        assert_eq!(info.key_id, 1);
        let sc = u16::from_le_bytes([p[22], p[23]]);
        assert_eq!(sc & 0xf, i as u16, "fragment number");
        assert_eq!(sc >> 4, seq, "sequence number");
        assert_eq!(p[1] & 0x04 != 0, i + 1 < frames.len(), "More Fragments");
        assert_eq!(p[1] & 0x40, 0, "Protected cleared");
        hdr0.get_or_insert_with(|| p[..26].to_vec());
        msdu_mic.extend_from_slice(&p[26..]);
    }
    let hdr0 = hdr0.unwrap();
    let da: [u8; 6] = arr(&hdr0[16..22]);
    let sa: [u8; 6] = arr(&hdr0[10..16]);
    let tid = hdr0[24] & 0x0f;
    let n = k.verify_msdu_mic(&da, &sa, tid, &msdu_mic, MichaelDirection::SupplicantToAuthenticator)?;
    msdu_mic.truncate(n);
    Ok(msdu_mic)
}

#[test]
fn tkip_fragment_round_trip() {
    let k = tkip_key();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7469_6b70);
    let dir = MichaelDirection::SupplicantToAuthenticator;
    for (msdu_len, max_body) in [(100usize, 37usize), (100, 36), (100, 54), (100, 104), (100, 105), (1500, 400), (0, 3), (7, 1)] {
        let mut msdu = vec![0u8; msdu_len];
        rng.fill_bytes(&mut msdu);
        let hdr = qos_tods_header(0x123);
        let first_tsc = 0x0000_0001_fffe; // crosses an IV16 → IV32 boundary
        let frames = k.encapsulate_msdu(&hdr, &msdu, first_tsc, 1, max_body, dir);
        let nfrag = (msdu_len + 8).div_ceil(max_body);
        if nfrag > 16 {
            assert!(matches!(frames, Err(Error::Fragment(_))), "{msdu_len}/{max_body}");
            continue;
        }
        let frames = frames.unwrap();
        assert_eq!(frames.len(), nfrag, "{msdu_len}/{max_body}");
        for (i, f) in frames.iter().enumerate() {
            let body = (msdu_len + 8 - i * max_body).min(max_body);
            assert_eq!(f.len(), 26 + 8 + body + 4);
            // The single-MPDU path refuses fragments.
            if nfrag > 1 {
                assert!(matches!(k.decapsulate(f, &mut Vec::new()), Err(Error::Fragment(_))));
            }
        }
        assert_eq!(reassemble(&k, &frames, first_tsc, 0x123).unwrap(), msdu, "{msdu_len}/{max_body}");
        if nfrag == 1 {
            // Unfragmented: the Protection path agrees.
            let mut out = Vec::new();
            k.encapsulate_dir(&[hdr.clone(), msdu.clone()].concat(), first_tsc, 1, dir, &mut out).unwrap();
            assert_eq!(out, frames[0]);
            let mut back = Vec::new();
            k.decapsulate(&frames[0], &mut back).unwrap();
            assert_eq!(back, [hdr, msdu].concat());
        }
    }
}

#[test]
fn tkip_fragment_errors() {
    let k = tkip_key();
    let dir = MichaelDirection::SupplicantToAuthenticator;
    let hdr = qos_tods_header(1);
    assert!(matches!(k.encapsulate_msdu(&hdr, &[0; 100], 0, 1, 0, dir), Err(Error::Malformed(_))));
    // 108 octets in 6-octet pieces = 18 fragments > 16.
    assert!(matches!(k.encapsulate_msdu(&hdr, &[0; 100], 0, 1, 6, dir), Err(Error::Fragment(_))));
    // 108 octets in 7-octet pieces = 16 fragments: fine.
    assert_eq!(k.encapsulate_msdu(&hdr, &[0; 100], 0, 1, 7, dir).unwrap().len(), 16);
    // No overflow on a huge limit.
    assert_eq!(k.encapsulate_msdu(&hdr, &[0; 10], 0, 1, usize::MAX, dir).unwrap().len(), 1);
    // TSC space runs out within the MSDU.
    let max = (1u64 << 48) - 1;
    assert_eq!(k.encapsulate_msdu(&hdr, &[0; 100], max, 1, 50, dir), Err(Error::PnExhausted));
    assert_eq!(k.encapsulate_msdu(&hdr, &[0; 100], max, 1, 200, dir).unwrap().len(), 1);
    // Template must be exactly a header, unprotected, of a data frame.
    assert!(matches!(k.encapsulate_msdu(&[hdr.clone(), vec![0]].concat(), &[0; 10], 0, 1, 50, dir), Err(Error::Malformed(_))));
    assert!(k.encapsulate_msdu(&hdr[..20], &[0; 10], 0, 1, 50, dir).is_err());
    let mut p = hdr.clone();
    p[1] |= 0x40;
    assert_eq!(k.encapsulate_msdu(&p, &[0; 10], 0, 1, 50, dir), Err(Error::AlreadyProtected));
    assert_eq!(k.encapsulate_msdu(&hdr, &vec![0; MAX_MPDU_BODY + 1], 0, 1, 4000, dir), Err(Error::Oversize));
}

/// One fragment edited by an attacker who knows that fragment's keystream but not the
/// Michael key: every fragment's ICV checks, Michael over the reassembled MSDU fails.
#[test]
fn tkip_tampered_fragment_is_mic_failure() {
    let k = tkip_key();
    let dir = MichaelDirection::SupplicantToAuthenticator;
    let hdr = qos_tods_header(7);
    let msdu: Vec<u8> = (0..200u16).map(|i| i as u8).collect();
    let first_tsc = 42;
    let mut frames = k.encapsulate_msdu(&hdr, &msdu, first_tsc, 1, 64, dir).unwrap();
    assert_eq!(frames.len(), 4);
    assert_eq!(reassemble(&k, &frames, first_tsc, 7).unwrap(), msdu);

    // Tamper with fragment 1 (TSC 43): decrypt with its keystream, edit, fix ICV, re-encrypt.
    let ta: [u8; 6] = arr(&hdr[10..16]);
    let seed = k.per_packet_key(&ta, first_tsc + 1);
    let f = &mut frames[1];
    let body = 26 + 8;
    wep_open(&seed[..], &mut f[body..]).unwrap();
    f[body + 10] ^= 0x5a;
    wep_seal(&seed[..], &mut f[body..]).unwrap();

    for fr in &frames {
        assert!(k.decapsulate_fragment(fr).is_ok(), "ICV still checks");
    }
    assert_eq!(reassemble(&k, &frames, first_tsc, 7), Err(Error::MicFailure));

    // Tampering with the MIC octets in the last fragment: also MicFailure.
    let mut frames = k.encapsulate_msdu(&hdr, &msdu, first_tsc, 1, 64, dir).unwrap();
    let seed = k.per_packet_key(&ta, first_tsc + 3);
    let last = frames.last_mut().unwrap();
    wep_open(&seed[..], &mut last[body..]).unwrap();
    let mic_at = last.len() - 4 - 1;
    last[mic_at] ^= 1;
    wep_seal(&seed[..], &mut last[body..]).unwrap();
    assert_eq!(reassemble(&k, &frames, first_tsc, 7), Err(Error::MicFailure));

    // And a plain bit flip in a fragment (no ICV fix-up): ICV failure on that fragment.
    let mut frames = k.encapsulate_msdu(&hdr, &msdu, first_tsc, 1, 64, dir).unwrap();
    frames[2][40] ^= 4;
    assert_eq!(k.decapsulate_fragment(&frames[2]).unwrap_err(), Error::IcvFailure);
}

// ---------------------------------------------------------------------------------------
// WEP-40 vector (vectors.md 5), both ways
// ---------------------------------------------------------------------------------------

#[test]
fn wep40_vector_encapsulate() {
    let k = WepKey::new(&h(WEP_KEY)).unwrap();
    assert_eq!(k.suite(), CipherSuite::Wep40);
    let mut out = Vec::new();
    k.encapsulate(&wep_plain_mpdu(), WEP_IV, WEP_KEY_ID, &mut out).unwrap();
    assert_eq!(hx(&out), hx(&h(WEP_ENC)));
    assert_eq!(hx(&out[out.len() - 4..]), "2a2ca8f7");
}

#[test]
fn wep40_vector_decapsulate() {
    let k = WepKey::new(&h(WEP_KEY)).unwrap();
    let enc = h(WEP_ENC);
    let mut out = Vec::new();
    let info = k.decapsulate(&enc, &mut out).unwrap();
    assert_eq!(info, RxInfo { pn: WEP_IV, key_id: WEP_KEY_ID });
    assert_eq!(hx(&out), hx(&wep_plain_mpdu()));
    assert_eq!(WepKey::peek(&enc).unwrap(), info);
    // The plaintext ICV is the LE CRC-32 of the data.
    assert_eq!(hx(&wsec::cipher::wep::icv(&h(WEP_DATA))), "1bd0b604");
}

#[test]
fn wep_every_bit_flip_is_rejected_and_truncation_errs() {
    let k = WepKey::new(&h(WEP_KEY)).unwrap();
    let enc = h(WEP_ENC);
    let mut out = Vec::new();
    for i in 28..enc.len() {
        for bit in 0..8 {
            let mut f = enc.clone();
            f[i] ^= 1 << bit;
            assert_eq!(k.decapsulate(&f, &mut out), Err(Error::IcvFailure), "octet {i} bit {bit}");
            assert!(out.is_empty());
        }
    }
    // IV octets change the RC4 seed.
    for i in 24..27 {
        let mut f = enc.clone();
        f[i] ^= 1;
        assert_eq!(k.decapsulate(&f, &mut out), Err(Error::IcvFailure), "IV octet {i}");
    }
    for n in 0..enc.len() {
        assert!(k.decapsulate(&enc[..n], &mut out).is_err(), "len {n}");
        let _ = WepKey::peek(&enc[..n]);
    }
    for n in 24..24 + 8 {
        assert_eq!(k.decapsulate(&enc[..n], &mut out), Err(Error::Truncated), "len {n}");
    }
    // Wrong key.
    let mut wrong = h(WEP_KEY);
    wrong[4] ^= 1;
    assert_eq!(WepKey::new(&wrong).unwrap().decapsulate(&enc, &mut out), Err(Error::IcvFailure));
    assert_eq!(WepKey::new(&[0x30; 13]).unwrap().decapsulate(&enc, &mut out), Err(Error::IcvFailure));
}

#[test]
fn wep_frame_rules() {
    let k = WepKey::new(&h(WEP_KEY)).unwrap();
    let mut out = Vec::new();
    let plain = wep_plain_mpdu();
    assert_eq!(k.encapsulate(&h(WEP_ENC), 1, 0, &mut out), Err(Error::AlreadyProtected));
    assert_eq!(k.decapsulate(&plain, &mut out), Err(Error::NotProtected));
    assert!(matches!(k.encapsulate(&plain, 0x100_0000, 0, &mut out), Err(Error::Malformed(_))));
    assert!(matches!(k.encapsulate(&plain, 1, 4, &mut out), Err(Error::Malformed(_))));
    assert!(out.is_empty());
    k.encapsulate(&plain, 0xff_ffff, 3, &mut out).unwrap();
    assert_eq!(&out[24..28], &[0xff, 0xff, 0xff, 0xc0]);
    // Shared-key Authentication frame body (mgmt subtype 11): allowed.
    let auth = [vec![0xb0, 0x00], plain[2..].to_vec()].concat();
    k.encapsulate(&auth, 0x010203, 0, &mut out).unwrap();
    assert_eq!(out[1] & 0x40, 0x40);
    assert_eq!(&out[24..28], &[0x01, 0x02, 0x03, 0x00]);
    let mut back = Vec::new();
    assert_eq!(k.decapsulate(&out, &mut back).unwrap(), RxInfo { pn: 0x010203, key_id: 0 });
    assert_eq!(back, auth);
    // Other management frames (Beacon, Action), control, Null data: unsupported.
    for fc0 in [0x80u8, 0xd0, 0xd4, 0x48, 0xc8] {
        let mut f = plain.clone();
        f[0] = fc0;
        assert!(matches!(k.encapsulate(&f, 1, 0, &mut out), Err(Error::Unsupported(_))), "fc {fc0:02x}");
    }
    let big = [unprotected(WEP_HDR), vec![0u8; MAX_MPDU_BODY + 1]].concat();
    assert_eq!(k.encapsulate(&big, 1, 0, &mut out), Err(Error::Oversize));
    for n in [0, 4, 6, 12, 14, 15, 17, 32] {
        assert_eq!(WepKey::new(&vec![1; n]).unwrap_err(), Error::BadKeyLength, "{n}");
    }
}

// ---------------------------------------------------------------------------------------
// WEP-104 (and 16-octet "WEP-128"): cross-check against an independent RC4 + CRC-32
// ---------------------------------------------------------------------------------------

/// Independent reference, written from the algorithm descriptions and sharing no code with
/// the library: RC4 (KSA + PRGA) and a bitwise reflected CRC-32 (poly 0xEDB88320).
mod reference {
    pub fn rc4(key: &[u8], data: &mut [u8]) {
        let mut s: [u8; 256] = core::array::from_fn(|i| i as u8);
        let mut j: u8 = 0;
        for i in 0..256 {
            j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
            s.swap(i, j as usize);
        }
        let (mut i, mut j) = (0u8, 0u8);
        for b in data.iter_mut() {
            i = i.wrapping_add(1);
            j = j.wrapping_add(s[i as usize]);
            s.swap(i as usize, j as usize);
            *b ^= s[s[i as usize].wrapping_add(s[j as usize]) as usize];
        }
    }

    pub fn crc32(data: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ 0xedb8_8320 } else { c >> 1 };
            }
        }
        !c
    }

    /// header (Protected set) || IV0 IV1 IV2 KeyID<<6 || RC4(IV||key, body || LE32 CRC).
    pub fn wep_encapsulate(key: &[u8], hdr: &[u8], iv: [u8; 3], key_id: u8, body: &[u8]) -> Vec<u8> {
        let mut out = hdr.to_vec();
        out[1] |= 0x40;
        out.extend_from_slice(&[iv[0], iv[1], iv[2], key_id << 6]);
        let mut enc = body.to_vec();
        enc.extend_from_slice(&crc32(body).to_le_bytes());
        let seed: Vec<u8> = iv.iter().chain(key.iter()).copied().collect();
        rc4(&seed, &mut enc);
        out.extend_from_slice(&enc);
        out
    }
}

#[test]
fn reference_matches_wep40_vector() {
    // Sanity check of the reference itself against vectors.md 5.
    let enc = reference::wep_encapsulate(&h(WEP_KEY), &unprotected(WEP_HDR), [0xfb, 0x02, 0x9e], 2, &h(WEP_DATA));
    assert_eq!(hx(&enc), hx(&h(WEP_ENC)));
    assert_eq!(reference::crc32(b"123456789"), 0xcbf4_3926);
}

#[test]
fn wep104_and_wep128_cross_check_random_frames() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5745_5031_3034);
    for key_len in [13usize, 16, 5] {
        for _ in 0..200 {
            let mut key = vec![0u8; key_len];
            rng.fill_bytes(&mut key);
            let k = WepKey::new(&key).unwrap();
            assert_eq!(k.suite(), if key_len == 5 { CipherSuite::Wep40 } else { CipherSuite::Wep104 });
            // Random data header: random DS bits, QoS or not.
            let qos = rng.gen_bool(0.5);
            let ds: u8 = rng.gen_range(0..4);
            let mut hdr = vec![if qos { 0x88 } else { 0x08 }, ds];
            let hl = 24 + if ds == 3 { 6 } else { 0 } + if qos { 2 } else { 0 };
            hdr.resize(hl, 0);
            rng.fill_bytes(&mut hdr[2..]);
            let body_len = rng.gen_range(0..1600);
            let mut body = vec![0u8; body_len];
            rng.fill_bytes(&mut body);
            let ivn: u32 = rng.gen_range(0..=0xff_ffff);
            let iv = [(ivn >> 16) as u8, (ivn >> 8) as u8, ivn as u8];
            let key_id = rng.gen_range(0..4u8);

            let want = reference::wep_encapsulate(&key, &hdr, iv, key_id, &body);
            let plain = [hdr.clone(), body.clone()].concat();
            let mut got = Vec::new();
            k.encapsulate(&plain, ivn as u64, key_id, &mut got).unwrap();
            assert_eq!(got, want, "key_len {key_len} body {body_len}");
            let mut back = Vec::new();
            let info = k.decapsulate(&want, &mut back).unwrap();
            assert_eq!(info, RxInfo { pn: ivn as u64, key_id });
            assert_eq!(back, plain);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Robustness: random input never panics
// ---------------------------------------------------------------------------------------

#[test]
fn random_input_never_panics() {
    let tk = tkip_key();
    let wk = WepKey::new(&[1; 13]).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    let mut out = Vec::new();
    for _ in 0..20_000 {
        let len = rng.gen_range(0..80);
        let mut f = vec![0u8; len];
        rng.fill_bytes(&mut f);
        if len >= 2 && rng.gen_bool(0.7) {
            // Mostly protocol version 0 data/mgmt frames with Protected set.
            f[0] &= 0xfc;
            f[0] = (f[0] & !0x0c) | if rng.gen_bool(0.8) { 0x08 } else { 0x00 };
            f[1] |= 0x40;
        }
        let _ = tk.decapsulate(&f, &mut out);
        let _ = tk.decapsulate_fragment(&f);
        let _ = wk.decapsulate(&f, &mut out);
        let _ = tk.encapsulate(&f, 1, 0, &mut out);
        let _ = wk.encapsulate(&f, 1, 0, &mut out);
        let _ = tk.encapsulate_msdu(&f, &f, 1, 0, rng.gen_range(0..40), MichaelDirection::AuthenticatorToSupplicant);
        let _ = TkipKey::peek(&f);
        let _ = WepKey::peek(&f);
    }
}
