//! The A-MSDU codec (`wire::amsdu`, IEEE 802.11-2020 9.3.2.2) on A-MSDUs laid out octet by
//! octet from 9.3.2.2.2, cross-checked with tshark's dissection, and the receive rules of
//! `node::amsdu` (the FragAttacks A-MSDU cases). No capture in testdata/ or
//! /work/shared/captures holds an A-MSDU (`tshark -Y wlan.qos.amsdupresent==1` finds none),
//! so tshark reads the hand-built ones instead.
use crate::common::h;
use crate::peers;
use rand::{Rng, SeedableRng};
use wsec::cipher::CipherSuite;
use wsec::node::amsdu::{self, reason, AmsduRx, Link};
use wsec::wire::amsdu::{self as wa, Amsdu, MsduRef, SubframeRepr};
use wsec::wire::mac::{MacAddr, Mpdu};
use wsec::wire::EtherType;
use wsec::Error;

const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x11]);
const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const FAR: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x99]);
const OTHER: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x12]);

/// Two subframes: DA 02:..:99, SA 02:..:11, Length 12 (LLC/SNAP with EtherType 88-B5, the
/// local experimental type tshark shows as data, and "ping"): 26 octets, 2 of padding;
/// then to broadcast, Length 11 ("arp"), last, unpadded. 53 octets.
const TWO: &str = "020000000099 020000000011 000c aaaa0300000088b5 70696e67 0000
                   ffffffffffff 020000000011 000b aaaa0300000088b5 617270";

/// Three subframes: Length 13 ("hello", 27 octets + 1 of padding), Length 11 ("arp",
/// 25 + 3), Length 12 ("abcd", 26, last: none of the 2 it would need). 82 octets.
const THREE: &str = "020000000099 020000000011 000d aaaa0300000088b5 68656c6c6f 00
                     020000000012 020000000011 000b aaaa0300000088b5 617270 000000
                     ffffffffffff 020000000011 000c aaaa0300000088b5 61626364";

fn llc(payload: &[u8]) -> Vec<u8> {
    let mut v = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0xb5];
    v.extend_from_slice(payload);
    v
}

/// A subframe read: DA, SA, Length, MSDU.
type Sub = (MacAddr, MacAddr, u16, Vec<u8>);

/// Every subframe, or the walk's error.
fn walk(body: &[u8]) -> Result<Vec<Sub>, Error> {
    let a = Amsdu::new_checked(body)?;
    Ok(a.subframes().map(|s| s.unwrap()).map(|s| (s.da(), s.sa(), s.length(), s.msdu().to_vec())).collect())
}

#[test]
fn two_subframes_padding_between_none_after() {
    let b = h(TWO);
    assert_eq!(b.len(), 53);
    let subs = walk(&b).unwrap();
    assert_eq!(subs, vec![(FAR, STA, 12, llc(b"ping")), (MacAddr::BROADCAST, STA, 11, llc(b"arp"))]);
    assert_eq!(Amsdu::new_checked(&b[..]).unwrap().count(), 2);
}

#[test]
fn three_subframes_each_padding_length() {
    let b = h(THREE);
    assert_eq!(b.len(), 82);
    let subs = walk(&b).unwrap();
    assert_eq!(subs, vec![(FAR, STA, 13, llc(b"hello")), (OTHER, STA, 11, llc(b"arp")), (MacAddr::BROADCAST, STA, 12, llc(b"abcd"))]);
    // The views borrow the body: the second MSDU starts at 28 + 14.
    let a = Amsdu::new_checked(&b[..]).unwrap();
    let second = a.subframes().nth(1).unwrap().unwrap().into_msdu();
    assert_eq!(second.as_ptr(), b[42..].as_ptr());
}

#[test]
fn last_subframe_padded_like_the_others_is_taken() {
    // Linux takes up to the padding after the last MSDU (some transmitters pad it): the
    // two-subframe A-MSDU with its last subframe's 3 octets, of any value.
    let mut b = h(TWO);
    b.extend([0xa5, 0x5a, 0xff]);
    assert_eq!(walk(&b).unwrap().len(), 2);
    // Non-zero padding between subframes: 9.3.2.2.2 gives it no value.
    let mut c = h(TWO);
    c[26] = 0xee;
    c[27] = 0x01;
    assert_eq!(walk(&c).unwrap(), walk(&h(TWO)).unwrap());
}

#[test]
fn truncated_overlong_and_garbage_are_errors() {
    let b = h(TWO);
    // Empty; a header cut short; the first MSDU cut short.
    assert_eq!(walk(&[]), Err(Error::Truncated));
    assert_eq!(walk(&b[..13]), Err(Error::Truncated));
    assert_eq!(walk(&b[..20]), Err(Error::Truncated));
    // The second subframe's header cut short (after the first's padding), and its MSDU.
    assert_eq!(walk(&b[..29]), Err(Error::Truncated));
    assert_eq!(walk(&b[..52]), Err(Error::Truncated));
    // A Length beyond the body.
    let mut l = b.clone();
    l[12..14].copy_from_slice(&40u16.to_be_bytes());
    assert_eq!(walk(&l), Err(Error::Truncated));
    // Octets after the last subframe that are more than its padding and less than a
    // subframe header (Wireshark shows these as nothing; Linux purges the A-MSDU).
    let mut t = b.clone();
    t.extend([0; 4]);
    assert_eq!(walk(&t), Err(Error::Truncated));
    t.extend([0; 9]);
    assert_eq!(walk(&t), Err(Error::Truncated));
    // 14 zero octets more: an empty third subframe, which is well formed.
    let mut z = b.clone();
    z.extend([0; 3 + 14]);
    assert_eq!(walk(&z).unwrap().len(), 3);
    // An MSDU over 2304 octets.
    let mut o = vec![0u8; 14 + 2305];
    o[12..14].copy_from_slice(&2305u16.to_be_bytes());
    assert_eq!(walk(&o), Err(Error::Oversize));
    // The unchecked view reports the same error from its iterator and then stops.
    let u = Amsdu::new_unchecked(&l[..]);
    let items: Vec<_> = u.subframes().collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().err(), Some(&Error::Truncated));
}

#[test]
fn random_bytes_never_panic_and_agree_with_the_subframe_views() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x2405);
    for _ in 0..20_000 {
        let n = rng.gen_range(0..120);
        let mut b: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        // Small lengths half the time, so that some inputs are well formed.
        if b.len() >= 14 && rng.gen_bool(0.5) {
            let l = rng.gen_range(0..b.len() as u16);
            b[12..14].copy_from_slice(&l.to_be_bytes());
        }
        let checked = Amsdu::new_checked(&b[..]);
        let items: Vec<_> = Amsdu::new_unchecked(&b[..]).into_subframes().collect();
        assert_eq!(checked.is_ok(), items.iter().all(|i| i.is_ok()));
        // Each subframe starts where the previous one and its padding (9.3.2.2.2) ended.
        let mut at = 0;
        for s in items.iter().flatten() {
            let len = 14 + u16::from_be_bytes([b[at + 12], b[at + 13]]) as usize;
            assert_eq!((s.clone().into_inner().as_ptr(), s.total_len()), (b[at..].as_ptr(), len));
            at += len + (4 - len % 4) % 4;
        }
        if checked.is_ok() {
            // The last subframe ends the body, or its padding does.
            assert!(at >= b.len() && at - b.len() < 4, "{} {at}", b.len());
        }
    }
}

#[test]
fn emitter_writes_the_hand_built_bytes() {
    let (ping, arp, hello, abcd) = (llc(b"ping"), llc(b"arp"), llc(b"hello"), llc(b"abcd"));
    let two = [MsduRef { da: FAR, sa: STA, msdu: &ping }, MsduRef { da: MacAddr::BROADCAST, sa: STA, msdu: &arp }];
    let mut buf = [0x77u8; 64];
    assert_eq!(wa::emit(&two, 3839, &mut buf), Ok((2, 53)));
    assert_eq!(&buf[..53], &h(TWO)[..]);
    assert!(buf[53..].iter().all(|&b| b == 0x77), "nothing written past the A-MSDU");
    let three = [
        MsduRef { da: FAR, sa: STA, msdu: &hello },
        MsduRef { da: OTHER, sa: STA, msdu: &arp },
        MsduRef { da: MacAddr::BROADCAST, sa: STA, msdu: &abcd },
    ];
    let mut v = vec![0xee];
    assert_eq!(wa::push(&three, 7935, &mut v), Ok(3));
    assert_eq!(&v[1..], &h(THREE)[..]);
    // A buffer one octet short: an error, nothing written.
    let mut short = [0x77u8; 52];
    assert_eq!(wa::emit(&two, 3839, &mut short), Err(Error::Truncated));
    assert!(short.iter().all(|&b| b == 0x77));
    // The header alone, from its repr.
    let mut hdr = [0u8; 14];
    SubframeRepr { da: FAR, sa: STA, length: 12 }.emit(&mut hdr).unwrap();
    assert_eq!(&hdr[..], &h(TWO)[..14]);
}

#[test]
fn max_length_packing_counts() {
    // 1500-octet MSDUs: subframes of 1514 octets, 2 of padding between them, so k of them
    // take 1514 k + 2 (k - 1) octets: 3030, 4546, ..., 7578 (5), 9094 (6), 10610 (7), 12126.
    let m = vec![0x42u8; 1500];
    let msdus = vec![MsduRef { da: FAR, sa: STA, msdu: &m }; 10];
    let ht = wa::HT_MAX_AMSDU_LEN;
    let vht = wa::VHT_MAX_MPDU_LEN;
    assert_eq!((ht, vht), ([3839, 7935], [3895, 7991, 11454]));
    assert_eq!(wa::packing(&msdus, ht[0]), Ok((2, 3030)));
    assert_eq!(wa::packing(&msdus, ht[1]), Ok((5, 7578)));
    assert_eq!(wa::packing(&msdus, vht[2]), Ok((7, 10610)));
    // The limit is inclusive; one octet less leaves the last one out.
    assert_eq!(wa::packing(&msdus, 3030), Ok((2, 3030)));
    assert_eq!(wa::packing(&msdus, 3029), Ok((1, 1514)));
    assert_eq!(wa::packing(&msdus, 1513), Ok((0, 0)));
    // A 10-octet MSDU after two: 3030 + 2 of padding + 24 = 3056.
    let small = vec![0u8; 10];
    let tail = [msdus[0], msdus[0], MsduRef { da: FAR, sa: STA, msdu: &small }];
    assert_eq!(wa::packing(&tail, 3056), Ok((3, 3056)));
    assert_eq!(wa::packing(&tail, 3055), Ok((2, 3030)));
    // In order: the small one after a third that does not fit is not taken either.
    let order = [msdus[0], msdus[0], msdus[0], MsduRef { da: FAR, sa: STA, msdu: &small }];
    assert_eq!(wa::packing(&order, 3100), Ok((2, 3030)));
    let mut v = Vec::new();
    assert_eq!(wa::push(&msdus, ht[1], &mut v), Ok(5));
    assert_eq!(v.len(), 7578);
    assert_eq!(Amsdu::new_checked(&v[..]).unwrap().count(), 5);
    assert_eq!(wa::push(&msdus, 100, &mut v), Ok(0));
    assert_eq!(v.len(), 7578);
}

/// A subframe as tshark shows it: DA, SA, A-MSDU Length, LLC Type.
type TsSub = (String, String, u16, String);

/// tshark's subframes in `-V` text: (DA, SA, A-MSDU Length, LLC Type as 0x....), and whether
/// it called the frame malformed. Frames are separated by their "Frame N:" lines.
fn tshark_subframes(text: &str) -> Vec<(Vec<TsSub>, bool)> {
    let mut out: Vec<(Vec<TsSub>, bool)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let val = |p: &str| t.strip_prefix(p).map(|v| v.trim().to_string());
        if t.starts_with("Frame ") && t.contains("bytes on wire") {
            out.push((Vec::new(), false));
        } else if t.starts_with("A-MSDU Subframe #") {
            out.last_mut().unwrap().0.push(Default::default());
        } else if let Some(v) = val("Destination address:") {
            if let Some(s) = out.last_mut().unwrap().0.last_mut() {
                s.0 = v;
            }
        } else if let Some(v) = val("Source address:") {
            if let Some(s) = out.last_mut().unwrap().0.last_mut() {
                s.1 = v;
            }
        } else if let Some(v) = val("A-MSDU Length:") {
            out.last_mut().unwrap().0.last_mut().unwrap().2 = v.parse().unwrap();
        } else if let Some(v) = val("Type:") {
            // "Type: Local Experimental Ethertype 1 (0x88b5)": the value in parentheses.
            if let (Some(s), Some(i)) = (out.last_mut().unwrap().0.last_mut(), v.rfind("(0x")) {
                s.3 = v[i + 1..].trim_end_matches(')').to_string();
            }
        } else if t.starts_with("[Malformed Packet") {
            out.last_mut().unwrap().1 = true;
        }
    }
    out
}

/// A plaintext QoS Data MPDU To DS from STA through BSSID to FAR, A-MSDU Present, TID 0.
fn to_ds(body: &[u8]) -> Vec<u8> {
    let mut f = h("8801 0000 020000000001 020000000011 020000000099 1000 8000");
    f.extend_from_slice(body);
    f
}

#[test]
fn tshark_dissects_the_same_subframes() {
    let mut padded_last = h(THREE);
    padded_last.extend([0, 0]);
    let mut overlong = h(TWO);
    overlong[12..14].copy_from_slice(&60u16.to_be_bytes());
    let bodies = [h(TWO), h(THREE), padded_last, overlong];
    let text = peers::tshark_dissect(&bodies.iter().map(|b| to_ds(b)).collect::<Vec<_>>(), 105);
    let ts = tshark_subframes(&text);
    assert_eq!(ts.len(), bodies.len(), "{text}");
    for (b, (subs, malformed)) in bodies.iter().zip(&ts) {
        match Amsdu::new_checked(&b[..]) {
            Ok(a) => {
                assert!(!malformed, "tshark calls a frame malformed that wsec takes: {text}");
                let ours: Vec<TsSub> = a
                    .subframes()
                    .map(|s| s.unwrap())
                    .map(|s| {
                        let t = u16::from_be_bytes([s.msdu()[6], s.msdu()[7]]);
                        (s.da().to_string(), s.sa().to_string(), s.length(), format!("0x{t:04x}"))
                    })
                    .collect();
                assert_eq!(&ours, subs, "{text}");
            }
            Err(e) => {
                // The Length beyond the body. tshark shows the subframe all the same (its
                // data dissector takes what there is, no "Malformed"), but its own Length
                // says the MSDU does not fit.
                assert_eq!(e, Error::Truncated);
                assert_eq!(subs.len(), 1, "{text}");
                assert!(14 + subs[0].2 as usize > b.len(), "{text}");
            }
        }
    }
}

// --- The receive rules (node::amsdu) --------------------------------------------------

const CCMP: Link = Link { pairwise: Some(CipherSuite::Ccmp128), spp: false, allowed: true, open: false };
const OPEN: Link = Link { pairwise: None, spp: false, allowed: true, open: true };

/// A received QoS Data MPDU, Protected: To DS from STA to FAR (or From DS from BSSID to
/// STA), sequence 1 fragment `frag`, QoS Control `qc`, `more` fragments; the body is the
/// plaintext (the rules read only the header of the received MPDU).
fn rx(to_ds: bool, frag: u8, more: bool, qc: u8, body: &[u8]) -> Vec<u8> {
    let fc1 = if to_ds { 0x41 } else { 0x42 } | if more { 0x04 } else { 0 };
    let (a1, a2, a3) = if to_ds { (BSSID, STA, FAR) } else { (STA, BSSID, FAR) };
    let mut f = vec![0x88, fc1, 0, 0];
    f.extend(a1.0);
    f.extend(a2.0);
    f.extend(a3.0);
    f.extend((0x0010u16 | frag as u16).to_le_bytes());
    f.extend([qc, 0]);
    f.extend_from_slice(body);
    f
}

/// The MSDUs (DA, SA, EtherType, payload) or per-MSDU reasons, or the whole A-MSDU's.
type Outcome = Result<Vec<Result<(MacAddr, MacAddr, EtherType, Vec<u8>), &'static str>>, &'static str>;

fn rules(f: &[u8], policy: AmsduRx, link: Link) -> Outcome {
    let m = Mpdu::new_checked(f).unwrap();
    assert!(amsdu::present(&m, f));
    let msdus = amsdu::deaggregate(&m, f, policy, link)?;
    Ok(msdus.map(|r| r.map(|m| (m.da, m.sa, m.ethertype, m.payload.to_vec()))).collect())
}

#[test]
fn protected_amsdu_gives_its_msdus() {
    let f = rx(true, 0, false, 0x80, &h(THREE));
    let t = EtherType(0x88b5);
    let want = vec![
        Ok((FAR, STA, t, b"hello".to_vec())),
        Ok((OTHER, STA, t, b"arp".to_vec())),
        Ok((MacAddr::BROADCAST, STA, t, b"abcd".to_vec())),
    ];
    assert_eq!(rules(&f, AmsduRx::Mitigated, CCMP), Ok(want.clone()));
    // GCMP, and SPP A-MSDUs under the SPP-only policy.
    let gcmp = Link { pairwise: Some(CipherSuite::Gcmp256), ..CCMP };
    assert_eq!(rules(&f, AmsduRx::Mitigated, gcmp), Ok(want.clone()));
    assert_eq!(rules(&f, AmsduRx::SppOnly, Link { spp: true, ..CCMP }), Ok(want));
}

/// CVE-2020-24588: A-MSDU Present set on a normal MSDU makes its LLC/SNAP header the first
/// subframe's DA (the `amsdu-inject` and `--amsdu-fake` frames of the FragAttacks tool).
#[test]
fn fragattacks_llc_snap_first_da_is_dropped() {
    // An MSDU (LLC/SNAP, IPv4, the injected subframe inside its payload) with the bit set.
    let mut inject = h("aaaa030000000800 4500002800220000 40060000 01020304 c0a80102");
    inject.extend(h(TWO));
    let f = rx(true, 0, false, 0x80, &inject);
    assert_eq!(rules(&f, AmsduRx::Mitigated, CCMP), Err(reason::LLC_DA));
    // As Linux, with SPP A-MSDUs too.
    assert_eq!(rules(&f, AmsduRx::SppOnly, Link { spp: true, ..CCMP }), Err(reason::LLC_DA));
    // The 802.1H header (AARP, IPX), which wsec takes MSDUs with too.
    let mut tunnel = inject.clone();
    tunnel[5] = 0xf8;
    assert_eq!(rules(&rx(true, 0, false, 0x80, &tunnel), AmsduRx::Mitigated, CCMP), Err(reason::LLC_DA));
    // A short body that starts so is dropped for the same reason, before the walk.
    assert_eq!(rules(&rx(true, 0, false, 0x80, &inject[..6]), AmsduRx::Mitigated, CCMP), Err(reason::LLC_DA));
    // Only the first subframe's DA is looked at (Linux 6.16): one further on is an MSDU.
    let mut later = h(TWO);
    later[28..34].copy_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
    let r = rules(&rx(true, 0, false, 0x80, &later), AmsduRx::Mitigated, CCMP).unwrap();
    assert_eq!(r[1].as_ref().unwrap().0, MacAddr([0xaa, 0xaa, 0x03, 0, 0, 0]));
}

#[test]
fn what_drops_a_whole_amsdu() {
    let body = h(TWO);
    let ok = rx(true, 0, false, 0x80, &body);
    assert!(rules(&ok, AmsduRx::Mitigated, CCMP).is_ok());
    // Unprotected (CVE-2020-26144's plaintext A-MSDU): the Protected bit clear.
    let mut plain = ok.clone();
    plain[1] &= !0x40;
    assert_eq!(rules(&plain, AmsduRx::Mitigated, CCMP), Err(reason::UNPROTECTED));
    // In an open BSS (no security at all) it is taken, as mac80211 takes it there; the
    // first-DA check still applies (below, `OPEN`).
    assert!(rules(&plain, AmsduRx::Mitigated, OPEN).is_ok());
    let mut llc = plain.clone();
    let at = llc.len() - body.len();
    llc[at..at + 6].copy_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
    assert_eq!(rules(&llc, AmsduRx::Mitigated, OPEN), Err(reason::LLC_DA));
    // Group-addressed Address 1.
    let mut group = ok.clone();
    group[4..10].copy_from_slice(&[0xff; 6]);
    assert_eq!(rules(&group, AmsduRx::Mitigated, CCMP), Err(reason::GROUP));
    // Four addresses (To DS and From DS): Address 4 then QoS Control at 30.
    let mut four = ok[..24].to_vec();
    four[1] |= 0x03;
    four.extend(OTHER.0);
    four.extend([0x80, 0]);
    four.extend(&body);
    assert_eq!(rules(&four, AmsduRx::Mitigated, CCMP), Err(reason::FOUR_ADDRESS));
    // Fragments: More Fragments, or a fragment number above 0 (the last fragment of a
    // reassembly, its plaintext headed by fragment 0's header).
    assert_eq!(rules(&rx(true, 0, true, 0x80, &body), AmsduRx::Mitigated, CCMP), Err(reason::FRAGMENTED));
    assert_eq!(rules(&rx(true, 1, false, 0x80, &body), AmsduRx::Mitigated, CCMP), Err(reason::FRAGMENTED));
    // Ciphers: WEP and TKIP (A-MSDUs are HT's), none negotiated.
    for c in [Some(CipherSuite::Tkip), Some(CipherSuite::Wep104), None] {
        assert_eq!(rules(&ok, AmsduRx::Mitigated, Link { pairwise: c, ..CCMP }), Err(reason::CIPHER));
    }
    // Policy: refuse all; SPP only on a non-SPP link; a link where SPP is required and not
    // had (9.4.2.24.4).
    assert_eq!(rules(&ok, AmsduRx::Refuse, CCMP), Err(reason::REFUSED));
    assert_eq!(rules(&ok, AmsduRx::Refuse, Link { spp: true, ..CCMP }), Err(reason::REFUSED));
    assert_eq!(rules(&ok, AmsduRx::SppOnly, CCMP), Err(reason::REFUSED));
    assert_eq!(rules(&ok, AmsduRx::Mitigated, Link { allowed: false, ..CCMP }), Err(reason::REFUSED));
    // A malformed walk: a Length beyond the body.
    let mut bad = body.clone();
    bad[12..14].copy_from_slice(&60u16.to_be_bytes());
    assert_eq!(rules(&rx(true, 0, false, 0x80, &bad), AmsduRx::Mitigated, CCMP), Err(reason::MALFORMED));
    assert_eq!(rules(&rx(true, 0, false, 0x80, &[]), AmsduRx::Mitigated, CCMP), Err(reason::MALFORMED));
}

#[test]
fn bit_of_a_reassembled_first_fragment_counts() {
    // The received (last) fragment without the bit; the plaintext headed by fragment 0's
    // header with it: an A-MSDU all the same, and a fragmented one.
    let received = rx(true, 1, false, 0x00, &[]);
    let mut plain = rx(true, 0, false, 0x80, &h(TWO));
    plain[1] &= !0x40;
    let m = Mpdu::new_checked(&received).unwrap();
    assert!(amsdu::present(&m, &plain));
    assert_eq!(amsdu::deaggregate(&m, &plain, AmsduRx::Mitigated, CCMP).err(), Some(reason::FRAGMENTED));
    // Neither says so: not an A-MSDU.
    let mut normal = plain.clone();
    normal[24] = 0;
    assert!(!amsdu::present(&m, &normal));
}

#[test]
fn what_drops_one_msdu() {
    // To the AP: a subframe whose SA is not the transmitter, one without LLC/SNAP, one
    // carrying EAPOL; the others go through.
    let t = EtherType(0x88b5);
    let mut body = Vec::new();
    let msdus: [(MacAddr, MacAddr, Vec<u8>); 5] = [
        (FAR, STA, llc(b"one")),
        (FAR, OTHER, llc(b"spoofed")),
        (FAR, STA, b"\x42\x42\x03stp".to_vec()),
        (BSSID, STA, h("aaaa03000000888e 0103005f")),
        (FAR, STA, llc(b"two")),
    ];
    let refs: Vec<MsduRef> = msdus.iter().map(|(da, sa, m)| MsduRef { da: *da, sa: *sa, msdu: m }).collect();
    assert_eq!(wa::push(&refs, 3839, &mut body), Ok(5));
    let r = rules(&rx(true, 0, false, 0x80, &body), AmsduRx::Mitigated, CCMP).unwrap();
    assert_eq!(
        r,
        vec![
            Ok((FAR, STA, t, b"one".to_vec())),
            Err(reason::SA),
            Err(reason::MSDU),
            Err(reason::EAPOL),
            Ok((FAR, STA, t, b"two".to_vec()))
        ]
    );
    // From the AP: a unicast DA other than the receiver is dropped, a group DA is not.
    let refs = [
        MsduRef { da: STA, sa: FAR, msdu: &msdus[0].2 },
        MsduRef { da: OTHER, sa: FAR, msdu: &msdus[0].2 },
        MsduRef { da: MacAddr::BROADCAST, sa: FAR, msdu: &msdus[4].2 },
    ];
    let mut body = Vec::new();
    assert_eq!(wa::push(&refs, 3839, &mut body), Ok(3));
    let r = rules(&rx(false, 0, false, 0x80, &body), AmsduRx::Mitigated, CCMP).unwrap();
    assert_eq!(r, vec![Ok((STA, FAR, t, b"one".to_vec())), Err(reason::DA), Ok((MacAddr::BROADCAST, FAR, t, b"two".to_vec()))]);
}
