//! `rsn::rrb` offline: hostapd 2.10's own frames (recorded by `rrb_hostapd` into
//! tests/data/rrb/hostapd-2.10.txt) decoded, rebuilt octet for octet and replayed through
//! our key holder; then what must be refused (a flipped bit anywhere under the SIV, a
//! wrong key, replayed and old sequence numbers, unknown peers, a RESP nobody asked for,
//! truncated TLVs, expired keys) and two of our key holders talking to each other.
use crate::rrb_hostapd::{
    hex_decode, key_holder, pmk_r0, HOSTAPD, HOSTAPD_R0KH_ID, KEY_R0, KEY_R1, SEED, SPA, UNKNOWN_PMK_R0_NAME, WSEC, WSEC_R0KH_ID,
};
use wsec::error::Error;
use wsec::rsn::akm::Akm;
use wsec::rsn::ft::derive_pmk_r1;
use wsec::rsn::rrb::msg::{suite_to_pairwise, AuthFields};
use wsec::rsn::rrb::wire::{parse_tlvs, FtAction, OverDs, OverDsType};
use wsec::rsn::rrb::{KeyHolder, KhFrame, Msg, PacketType, PmkR0Entry, RemoteR0kh, RemoteR1kh, RkhKey, RrbEvent, RrbOutput, Session};
use wsec::wire::mac::MacAddr;
use zeroize::Zeroizing;

const CAPTURE: &str = include_str!("../data/rrb/hostapd-2.10.txt");

/// (time, frame) of every key-holder frame hostapd sent in the recorded run.
fn hostapd_frames() -> Vec<(u64, Vec<u8>)> {
    CAPTURE
        .lines()
        .filter_map(|l| l.strip_prefix("rx "))
        .map(|l| {
            let mut it = l.split_whitespace();
            (it.next().unwrap().parse().unwrap(), hex_decode(it.next().unwrap()))
        })
        .collect()
}

fn lines(prefix: &str) -> Vec<Vec<u8>> {
    CAPTURE.lines().filter_map(|l| l.strip_prefix(prefix)).map(hex_decode).collect()
}

/// The key a frame between hostapd and us is under: KEY_R1 when hostapd is the R0KH
/// (R0KH-ID hostapd's), KEY_R0 when we are.
fn key_of(f: &KhFrame) -> RkhKey {
    let a = AuthFields::parse(f.auth).unwrap();
    RkhKey::from_hex(if a.r0kh_id == HOSTAPD_R0KH_ID { KEY_R1 } else { KEY_R0 }).unwrap()
}

#[test]
fn hostapd_frames_decode_and_rebuild_octet_for_octet() {
    let hf = hostapd_frames();
    assert!(hf.len() >= 6, "{} frames", hf.len());
    let mut kinds = Vec::new();
    for (_, raw) in &hf {
        let f = KhFrame::parse(raw).unwrap();
        assert_eq!((f.src, f.dst), (HOSTAPD, WSEC));
        let key = key_of(&f);
        let m = Msg::open(&f, &key).unwrap();
        // AES-SIV is deterministic: the same values, our TLV order and padding, the same octets.
        assert_eq!(m.emit(f.dst, f.src, &key).unwrap(), *raw, "{m:?}");
        kinds.push(m.packet_type());
        match m {
            Msg::Pull(p) => {
                assert_eq!((&p.r0kh_id[..], p.r1kh_id, p.s1kh_id), (WSEC_R0KH_ID, HOSTAPD, SPA[1]));
                assert_eq!(p.pmk_r0_name, pmk_r0(SPA[1]).name);
            }
            Msg::Resp(r) => {
                assert_eq!((&r.r0kh_id[..], r.r1kh_id, r.s1kh_id, r.session), (HOSTAPD_R0KH_ID, WSEC, SPA[0], None));
            }
            _ => {}
        }
    }
    for k in [PacketType::SeqReq, PacketType::SeqResp, PacketType::Pull, PacketType::Resp] {
        assert!(kinds.contains(&k), "{k:?} in {kinds:?}");
    }
    // Ours, as hostapd took them, rebuild too (and our RESP holds the PMK-R1 hostapd selected).
    for raw in lines("out ") {
        let f = KhFrame::parse(&raw).unwrap();
        let key = key_of(&f);
        let m = Msg::open(&f, &key).unwrap();
        assert_eq!(m.emit(f.dst, f.src, &key).unwrap(), raw);
        if let Msg::Resp(r) = m {
            let s = r.session.expect("our RESP carries the key");
            let want = derive_pmk_r1(Akm::FtPsk, &pmk_r0(SPA[1]), HOSTAPD.0, SPA[1].0).unwrap();
            assert_eq!((&s.pmk_r1[..], s.pmk_r1_name), (&want.key[..], want.name));
        }
    }
}

#[test]
fn hostapd_ft_responses_over_the_ds() {
    let (tx, rx) = (lines("ds-tx "), lines("ds-rx "));
    assert_eq!((tx.len(), rx.len()), (2, 2));
    for (req, resp) in tx.iter().zip(&rx) {
        let q = OverDs::parse(req).unwrap();
        let r = OverDs::parse(resp).unwrap();
        assert_eq!((r.packet_type, r.ap_address, r.dst), (OverDsType::Response, HOSTAPD, WSEC));
        assert_eq!(r.emit().unwrap(), *resp);
        let qa = FtAction::parse(&q.action).unwrap();
        let ra = FtAction::parse(&r.action).unwrap();
        assert_eq!((ra.action, ra.sta, ra.target_ap, ra.status), (FtAction::RESPONSE, qa.sta, HOSTAPD, Some(0)));
        assert_eq!(ra.emit(), r.action);
        // hostapd's RSNE names the PMKR0Name asked for; its FTE echoes the SNonce.
        assert!(ra.ies.windows(16).any(|w| w == pmk_r0(qa.sta).name));
        assert!(ra.ies.windows(32).any(|w| w == crate::rrb_hostapd::SNONCE));
    }
}

/// The recorded run again, offline: the same calls and hostapd's frames at their times
/// make our key holder (same seed) send the same octets and report the same events.
#[test]
fn replay_hostapd_capture() {
    let mut kh = key_holder();
    let mut rng = wsec::rng::seeded(SEED);
    let mut out = RrbOutput::default();
    let (mut frames, mut events) = (Vec::new(), Vec::new());
    for l in CAPTURE.lines() {
        let (op, rest) = l.split_once(' ').unwrap_or((l, ""));
        let num = || rest.split_whitespace().next().unwrap().parse::<u64>().unwrap();
        match op {
            "pull" => kh.r1.pull(SPA[0], HOSTAPD_R0KH_ID, UNKNOWN_PMK_R0_NAME, num(), &mut rng, &mut out).unwrap(),
            "push" => assert_eq!(kh.r0.push(SPA[2], num(), &mut rng, &mut out).unwrap(), 1),
            "rx" => kh.handle(&hex_decode(rest.split_whitespace().nth(1).unwrap()), num(), &mut rng, &mut out),
            "poll" => kh.poll(num(), &mut rng, &mut out),
            _ => continue,
        }
        frames.append(&mut out.frames);
        events.extend(out.events.drain(..).map(|e| e.to_string()));
    }
    assert_eq!(frames, lines("out "));
    let want: Vec<String> = CAPTURE.lines().filter_map(|l| l.strip_prefix("ev ")).map(str::to_string).collect();
    assert_eq!(events, want);
    assert!(kh.drops().is_empty(), "{:?}", kh.drops());
}

fn first(kind: PacketType) -> Vec<u8> {
    hostapd_frames().into_iter().map(|(_, f)| f).find(|f| KhFrame::parse(f).unwrap().packet_type == kind).unwrap()
}

#[test]
fn any_flipped_bit_under_the_siv_and_a_wrong_key_are_refused() {
    let raw = first(PacketType::Resp);
    let key = key_of(&KhFrame::parse(&raw).unwrap());
    // Every octet from the source address on is covered: the source (associated data), the
    // type octet, the authenticated TLVs and the SIV output; only dst and the OUI are not.
    for i in 6..raw.len() {
        if (12..19).contains(&i) {
            continue;
        }
        let mut b = raw.clone();
        b[i] ^= 0x01;
        let r = KhFrame::parse(&b).and_then(|f| Msg::open(&f, &key));
        assert!(r.is_err(), "flip in octet {i} went through");
    }
    let f = KhFrame::parse(&raw).unwrap();
    assert_eq!(Msg::open(&f, &RkhKey::from_bytes([0x11; 32])), Err(Error::MicFailure));
    // The type octet is associated data: the same payload as another type does not open.
    let mut b = raw.clone();
    b[19] = PacketType::Push as u8;
    assert_eq!(KhFrame::parse(&b).unwrap().open(&key).err(), Some(Error::MicFailure));

    // Through the key holder: a RESP for our pending PULL with one bit changed in the SIV
    // output is dropped with its reason, and the PULL stays pending.
    let mut kh = key_holder();
    let mut rng = wsec::rng::seeded(SEED);
    let mut out = RrbOutput::default();
    kh.r1.pull(SPA[0], HOSTAPD_R0KH_ID, UNKNOWN_PMK_R0_NAME, 1, &mut rng, &mut out).unwrap();
    let mut b = raw.clone();
    *b.last_mut().unwrap() ^= 0x80;
    out.clear();
    kh.handle(&b, 2, &mut rng, &mut out);
    assert_eq!(
        out.events,
        [RrbEvent::Dropped {
            from: HOSTAPD,
            packet_type: Some(PacketType::Resp),
            reason: "AES-SIV check failed (wrong key or changed octets)"
        }]
    );
    assert!(out.frames.is_empty());
    assert!(kh.r1.is_pulling(SPA[0], &UNKNOWN_PMK_R0_NAME));
}

#[test]
fn truncated_and_malformed_input_is_refused_without_panic() {
    let raw = first(PacketType::SeqResp);
    for n in 0..raw.len() {
        let _ = KhFrame::parse(&raw[..n]).and_then(|f| Msg::open(&f, &key_of(&KhFrame::parse(&raw).unwrap())));
    }
    assert_eq!(KhFrame::parse(&raw[..20]), Err(Error::Truncated));
    // The authenticated length past the frame.
    let mut b = raw.clone();
    b[20] = 0xff;
    assert_eq!(KhFrame::parse(&b), Err(Error::Malformed("RRB authenticated length past the frame")));
    // A TLV whose length runs past the list, and a header cut short.
    assert_eq!(parse_tlvs(&[2, 0, 16, 0, 1, 2, 3]), Err(Error::Malformed("RRB TLV runs past the list")));
    assert_eq!(parse_tlvs(&[2, 0, 0]), Err(Error::Malformed("RRB TLV header cut short")));
    // Wrong lengths and repeats of the fields that pick the key.
    assert!(AuthFields::parse(&[5, 0, 5, 0, 1, 2, 3, 4, 5, 4, 0, 1, 0, b'x']).is_err(), "R1KH-ID of 5");
    assert!(AuthFields::parse(&[4, 0, 1, 0, b'x', 4, 0, 1, 0, b'y', 5, 0, 6, 0, 1, 2, 3, 4, 5, 6]).is_err(), "R0KH-ID twice");
    assert!(AuthFields::parse(&[4, 0, 0, 0, 5, 0, 6, 0, 1, 2, 3, 4, 5, 6]).is_err(), "empty R0KH-ID");
    // Not ours at all, and too long.
    let mut b = raw.clone();
    b[14] = 0x01;
    assert!(matches!(KhFrame::parse(&b), Err(Error::Unsupported(_))));
    let mut b = raw.clone();
    b.resize(1515, 0);
    assert_eq!(KhFrame::parse(&b), Err(Error::Oversize));
    assert!(OverDs::parse(&b).is_err());
}

/// A sealed message with given TLVs, for cases hostapd never sends.
fn sealed(ty: PacketType, auth: &[(u16, &[u8])], plain: &[(u16, &[u8])], key: &RkhKey) -> Vec<u8> {
    let put = |l: &[(u16, &[u8])]| {
        let mut v = Vec::new();
        for (t, d) in l {
            wsec::rsn::rrb::wire::put_tlv(&mut v, *t, d).unwrap();
        }
        v
    };
    wsec::rsn::rrb::wire::seal(WSEC, HOSTAPD, ty, key, put(auth), &put(plain)).unwrap()
}

#[test]
fn sealed_but_malformed_contents_are_refused() {
    use wsec::rsn::rrb::wire::tlv;
    let key = RkhKey::from_hex(KEY_R0).unwrap();
    let seq = wsec::rsn::rrb::wire::Seq { dom: 1, seq: 2, ts: 3 }.to_bytes();
    let ids: [(u16, &[u8]); 2] = [(tlv::R0KH_ID, WSEC_R0KH_ID), (tlv::R1KH_ID, &HOSTAPD.0)];
    let auth: Vec<(u16, &[u8])> = [(tlv::NONCE, &[1u8; 16][..]), (tlv::SEQ, &seq[..])].into_iter().chain(ids).collect();
    let open = |f: &[u8]| Msg::open(&KhFrame::parse(f).unwrap(), &key);
    // A PULL without S1KH-ID, with a 15-octet PMKR0Name, with S1KH-ID twice.
    let name = [9u8; 16];
    let cases: [&[(u16, &[u8])]; 3] = [
        &[(tlv::PMK_R0_NAME, &name)],
        &[(tlv::PMK_R0_NAME, &name[..15]), (tlv::S1KH_ID, &SPA[0].0)],
        &[(tlv::PMK_R0_NAME, &name), (tlv::S1KH_ID, &SPA[0].0), (tlv::S1KH_ID, &SPA[1].0)],
    ];
    for plain in cases {
        assert!(matches!(open(&sealed(PacketType::Pull, &auth, plain, &key)), Err(Error::Malformed(_))), "{plain:?}");
    }
    // A RESP whose session has a PMK-R1 of 31 octets, or a VLAN ID 0.
    let r1 = [7u8; 32];
    let base: Vec<(u16, &[u8])> = vec![(tlv::S1KH_ID, &SPA[0].0), (tlv::PMK_R1_NAME, &name), (tlv::PAIRWISE, &[0x10, 0])];
    let mut short = base.clone();
    short.push((tlv::PMK_R1, &r1[..31]));
    let mut vlan0 = base.clone();
    vlan0.extend([(tlv::PMK_R1, &r1[..]), (tlv::VLAN_TAGGED, &[5, 0, 0, 0][..])]);
    for plain in [short, vlan0] {
        assert!(matches!(open(&sealed(PacketType::Resp, &auth, &plain, &key)), Err(Error::Malformed(_))));
    }
    // Unknown TLV types are skipped, as hostapd skips them.
    let ok: Vec<(u16, &[u8])> = vec![(tlv::PMK_R0_NAME, &name), (0x7777, b"future"), (tlv::S1KH_ID, &SPA[0].0)];
    assert!(matches!(open(&sealed(PacketType::Pull, &auth, &ok, &key)), Ok(Msg::Pull(_))));
}

/// Two of our key holders: A (R0KH "a.r0kh" at 02::a0) and B (R1KH 02::b0).
fn pair(wildcard_r1: bool) -> (KeyHolder, KeyHolder) {
    let (a_addr, b_addr) = (MacAddr([2, 0, 0, 0, 0, 0xa0]), MacAddr([2, 0, 0, 0, 0, 0xb0]));
    let key = RkhKey::from_bytes([0x42; 32]);
    let mut a = KeyHolder::new(a_addr, b"a.r0kh", a_addr).unwrap();
    let mut b = KeyHolder::new(b_addr, b"b.r0kh", b_addr).unwrap();
    if wildcard_r1 {
        a.r0.add_r1kh(RemoteR1kh::parse(&format!("00:00:00:00:00:00 00:00:00:00:00:00 {}", "42".repeat(32))).unwrap());
    } else {
        a.r0.add_r1kh(RemoteR1kh { addr: b_addr, r1kh_id: b_addr, key: key.clone() });
    }
    b.r1.add_r0kh(RemoteR0kh { addr: a_addr, r0kh_id: b"a.r0kh".to_vec(), key });
    (a, b)
}

fn entry(spa: MacAddr, expires_at_ns: Option<u64>) -> PmkR0Entry {
    let r0 = wsec::rsn::ft::derive_pmk_r0(Akm::FtPsk, &[0x33; 32], b"ssid", [1, 2], b"a.r0kh", spa.0).unwrap();
    PmkR0Entry {
        akm: Akm::FtPsk,
        pmk_r0: r0,
        spa,
        pairwise: suite_to_pairwise(wsec::cipher::CipherSuite::Gcmp256).unwrap(),
        expires_at_ns,
        session_timeout_at_ns: Some(3600 * 1_000_000_000),
        identity: b"alice".to_vec(),
        radius_cui: b"cui-1".to_vec(),
        vlan_untagged: 10,
        vlan_tagged: vec![20, 30],
    }
}

/// Carries frames between two holders, `to_b` first, until both are quiet; returns the
/// events of `a`, then of `b`.
fn settle(a: &mut KeyHolder, b: &mut KeyHolder, mut to_b: Vec<Vec<u8>>, now: u64) -> (Vec<RrbEvent>, Vec<RrbEvent>) {
    let mut rng = wsec::rng::seeded(3);
    let (mut ea, mut eb) = (Vec::new(), Vec::new());
    let mut to_a = Vec::new();
    for _ in 0..20 {
        for f in std::mem::take(&mut to_b) {
            let mut o = RrbOutput::default();
            b.handle(&f, now, &mut rng, &mut o);
            to_a.extend(o.frames);
            eb.extend(o.events);
        }
        for f in std::mem::take(&mut to_a) {
            let mut o = RrbOutput::default();
            a.handle(&f, now, &mut rng, &mut o);
            to_b.extend(o.frames);
            ea.extend(o.events);
        }
        if to_a.is_empty() && to_b.is_empty() {
            break;
        }
    }
    (ea, eb)
}

#[test]
fn pull_and_push_between_our_key_holders_and_what_they_refuse() {
    let (mut a, mut b) = pair(false);
    let now = 5_000_000_000;
    let spa = SPA[0];
    a.r0.store(entry(spa, Some(now + 100_000_000_000)));
    let name = entry(spa, None).pmk_r0.name;
    let mut rng = wsec::rng::seeded(4);
    let mut out = RrbOutput::default();
    b.r1.pull(spa, b"a.r0kh", name, now, &mut rng, &mut out).unwrap();
    // B sends SEQ_REQ and PULL; A defers the PULL behind its own SEQ_REQ, then answers.
    let (eb, ea) = settle(&mut b, &mut a, out.frames.clone(), now);
    assert!(ea.iter().any(|e| matches!(e, RrbEvent::PullAnswered { found: true, .. })), "{ea:?}");
    let want = derive_pmk_r1(Akm::FtPsk, &entry(spa, None).pmk_r0, b.r1.r1kh_id().0, spa.0).unwrap();
    assert!(eb.contains(&RrbEvent::PmkR1Stored { spa, pmk_r1_name: want.name, r0kh_id: b"a.r0kh".to_vec(), pushed: false }), "{eb:?}");
    let e = b.r1.get(spa, &want.name, now).unwrap();
    assert_eq!(&e.session.pmk_r1[..], &want.key[..]);
    assert_eq!((e.session.expires_in, e.session.session_timeout), (100, 3600 - 5));
    assert_eq!(
        (&e.session.identity[..], &e.session.radius_cui[..], e.session.vlan_untagged, &e.session.vlan_tagged[..]),
        (&b"alice"[..], &b"cui-1"[..], 10, &[20, 30][..])
    );
    assert_eq!(e.session.pairwise, 0x100);
    // The entry expires with the R0KH's lifetime.
    assert!(b.r1.get(spa, &want.name, now + 100_000_000_001).is_none());
    assert!(a.drops().is_empty() && b.drops().is_empty(), "{:?} {:?}", a.drops(), b.drops());

    // PUSH, then the same PUSH again: replayed.
    let spa2 = SPA[1];
    a.r0.store(entry(spa2, None));
    let mut out = RrbOutput::default();
    assert_eq!(a.r0.push(spa2, now, &mut rng, &mut out).unwrap(), 1);
    let push = out.frames[0].clone();
    let (_, eb) = settle(&mut a, &mut b, vec![push.clone()], now);
    assert!(eb.iter().any(|e| matches!(e, RrbEvent::PmkR1Stored { pushed: true, .. })), "{eb:?}");
    let mut o = RrbOutput::default();
    b.handle(&push, now, &mut rng, &mut o);
    assert_eq!(o.events, [RrbEvent::Dropped { from: a.addr(), packet_type: Some(PacketType::Push), reason: "replayed sequence number" }]);

    // An old sequence number: 20 more PUSHes move the window past the first.
    let mut later = Vec::new();
    for _ in 0..20 {
        let mut o = RrbOutput::default();
        a.r0.push(spa2, now, &mut rng, &mut o).unwrap();
        later.push(o.frames.remove(0));
    }
    let first_late = later.remove(0);
    let (_, eb) = settle(&mut a, &mut b, later, now);
    assert!(eb.iter().all(|e| matches!(e, RrbEvent::PmkR1Stored { .. })), "{eb:?}");
    let mut o = RrbOutput::default();
    b.handle(&first_late, now, &mut rng, &mut o);
    assert_eq!(o.events, [RrbEvent::Dropped { from: a.addr(), packet_type: Some(PacketType::Push), reason: "old sequence number" }]);

    // A RESP nobody asked for (the nonce of a finished PULL).
    let resp = {
        let (mut a2, mut b2) = pair(false);
        a2.r0.store(entry(spa, None));
        let mut o = RrbOutput::default();
        b2.r1.pull(spa, b"a.r0kh", name, now, &mut rng, &mut o).unwrap();
        let mut frames = o.frames;
        let mut resp = None;
        for _ in 0..10 {
            let mut next = Vec::new();
            for f in frames {
                let mut o = RrbOutput::default();
                if KhFrame::parse(&f).unwrap().packet_type == PacketType::Resp {
                    resp = Some(f.clone());
                }
                let to_a = KhFrame::parse(&f).unwrap().dst == a2.addr();
                if to_a {
                    a2.handle(&f, now, &mut rng, &mut o)
                } else {
                    b2.handle(&f, now, &mut rng, &mut o)
                }
                next.extend(o.frames);
            }
            frames = next;
        }
        resp.unwrap()
    };
    let mut o = RrbOutput::default();
    b.handle(&resp, now, &mut rng, &mut o);
    assert_eq!(
        o.events,
        [RrbEvent::Dropped { from: a.addr(), packet_type: Some(PacketType::Resp), reason: "RESP nonce matches no pending PULL" }]
    );
}

#[test]
fn unknown_peers_expired_keys_timeouts_and_the_wildcard() {
    let now = 1_000_000_000;
    let mut rng = wsec::rng::seeded(5);
    // Unknown R0KH-ID: nothing to pull from.
    let (_, mut b) = pair(false);
    let mut o = RrbOutput::default();
    assert!(b.r1.pull(SPA[0], b"nobody", [1; 16], now, &mut rng, &mut o).is_err());
    // An R1KH with no r1kh line at A: its PULL is dropped unread.
    let (mut a, _) = pair(false);
    let mut stranger = KeyHolder::new(MacAddr([2, 0, 0, 0, 0, 0xc0]), b"c.r0kh", MacAddr([2, 0, 0, 0, 0, 0xc0])).unwrap();
    stranger.r1.add_r0kh(RemoteR0kh { addr: a.addr(), r0kh_id: b"a.r0kh".to_vec(), key: RkhKey::from_bytes([0x42; 32]) });
    let mut o = RrbOutput::default();
    stranger.r1.pull(SPA[0], b"a.r0kh", [1; 16], now, &mut rng, &mut o).unwrap();
    let (_, ea) = settle(&mut stranger, &mut a, o.frames, now);
    assert!(ea.iter().all(|e| matches!(e, RrbEvent::Dropped { reason: "unknown R1KH (no r1kh line)", .. })) && !ea.is_empty(), "{ea:?}");
    // The same R1KH with the wildcard line at A: answered (after the SEQ_REQ round).
    let (mut aw, _) = pair(true);
    aw.r0.store(entry(SPA[0], None));
    let name = entry(SPA[0], None).pmk_r0.name;
    let mut o = RrbOutput::default();
    let mut s2 = KeyHolder::new(MacAddr([2, 0, 0, 0, 0, 0xc0]), b"c.r0kh", MacAddr([2, 0, 0, 0, 0, 0xc0])).unwrap();
    s2.r1.add_r0kh(RemoteR0kh { addr: aw.addr(), r0kh_id: b"a.r0kh".to_vec(), key: RkhKey::from_bytes([0x42; 32]) });
    s2.r1.pull(SPA[0], b"a.r0kh", name, now, &mut rng, &mut o).unwrap();
    let (es, ea) = settle(&mut s2, &mut aw, o.frames, now);
    assert!(ea.iter().any(|e| matches!(e, RrbEvent::PullAnswered { found: true, .. })), "{ea:?}");
    assert!(es.iter().any(|e| matches!(e, RrbEvent::PmkR1Stored { .. })), "{es:?}");

    // An expired PMK-R0 is not handed out: the PULL gets a NAK.
    let (mut a, mut b) = pair(false);
    a.r0.store(entry(SPA[0], Some(now - 1)));
    let mut o = RrbOutput::default();
    b.r1.pull(SPA[0], b"a.r0kh", name, now, &mut rng, &mut o).unwrap();
    let (eb, ea) = settle(&mut b, &mut a, o.frames, now);
    assert!(ea.iter().any(|e| matches!(e, RrbEvent::PullAnswered { found: false, .. })), "{ea:?}");
    assert!(eb.contains(&RrbEvent::PullRefused { spa: SPA[0], pmk_r0_name: name }), "{eb:?}");
    assert!(b.r1.is_empty());

    // No answer: four PULLs a second apart, then a timeout.
    let mut o = RrbOutput::default();
    b.r1.pull(SPA[1], b"a.r0kh", [3; 16], now, &mut rng, &mut o).unwrap();
    let mut pulls = o.frames.iter().filter(|f| KhFrame::parse(f).unwrap().packet_type == PacketType::Pull).count();
    let mut timed_out = false;
    for s in 1..=6u64 {
        let mut o = RrbOutput::default();
        b.poll(now + s * 1_000_000_000, &mut rng, &mut o);
        pulls += o.frames.len();
        timed_out |= o.events.contains(&RrbEvent::PullTimedOut { spa: SPA[1], pmk_r0_name: [3; 16] });
    }
    assert_eq!((pulls, timed_out), (4, true));
}

#[test]
fn keys_of_r0kh_and_r1kh_lines() {
    // 64 hex digits are the key; 32 are hostapd's old 128-bit key, stretched with
    // HMAC-SHA256(old, "FT OLDKEY" 00 01) (checked against hostapd in rrb_hostapd).
    use hmac::{Hmac, Mac};
    let k = RkhKey::from_hex(KEY_R1).unwrap();
    assert_eq!(k.as_bytes()[..], hex_decode(KEY_R1)[..]);
    let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&hex_decode(KEY_R0)).unwrap();
    m.update(b"FT OLDKEY\0\x01");
    assert_eq!(RkhKey::from_hex(KEY_R0).unwrap().as_bytes()[..], m.finalize().into_bytes()[..]);
    for bad in ["", "00", &"0".repeat(48), &"g".repeat(64)] {
        assert!(RkhKey::from_hex(bad).is_err(), "{bad}");
    }
    assert_eq!(format!("{k:?}"), "RkhKey(..)");
    let r0 = RemoteR0kh::parse(&format!("02:00:00:00:02:00 wsec.r0kh {KEY_R1}")).unwrap();
    assert_eq!((r0.addr, &r0.r0kh_id[..], r0.is_wildcard()), (WSEC, WSEC_R0KH_ID, false));
    assert!(RemoteR0kh::parse(&format!("ff:ff:ff:ff:ff:ff * {KEY_R1}")).unwrap().is_wildcard());
    let r1 = RemoteR1kh::parse(&format!("02:00:00:00:02:00 02:00:00:00:02:00 {KEY_R0}")).unwrap();
    assert_eq!((r1.addr, r1.r1kh_id), (WSEC, WSEC));
    assert!(RemoteR1kh::parse("02:00:00:00:02:00 wsec.r0kh 00").is_err());
}

#[test]
fn session_secrets_stay_out_of_debug() {
    let s = Session {
        pmk_r1: Zeroizing::new(vec![0xab; 32]),
        pmk_r1_name: [1; 16],
        pairwise: 0x10,
        expires_in: 0,
        session_timeout: 0,
        identity: Vec::new(),
        radius_cui: Vec::new(),
        vlan_untagged: 0,
        vlan_tagged: Vec::new(),
    };
    assert!(!format!("{s:?}").contains("ab, ab") && !format!("{s:?}").contains("abab"), "{s:?}");
}
