//! Management frames, elements, status and reason codes (IEEE 802.11-2020 9.3.3, 9.4.1,
//! 9.4.2) on real bytes: frames from the captures in testdata/captures (hex below, with the
//! field values tshark 4.0 dissects from them), every management frame of every capture,
//! hand-laid frames where no capture has one, every truncation and random inputs.
use crate::common;
use common::h;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use wsec::capture::{radio, CaptureReader};
use wsec::rsn::ie::RsnElementRepr;
use wsec::wire::element::{self, id};
use wsec::wire::mac::mgmt_subtype;
use wsec::wire::mgmt::{
    ActionCategory, AssocRequestRepr, AssocResponseRepr, AuthAlgorithm, AuthRepr, BeaconRepr, BodyRepr, Capability, DeauthRepr, Frame,
    MgmtRepr, ReasonCode, SaQueryRepr, StatusCode,
};
use wsec::wire::{MacAddr, SeqControl};
use wsec::Error;

/// aircrack-ng wep.shared.key.authentication.cap, frame 1: Beacon of SSID "teddy".
const BEACON_TEDDY: &str = "80000000ffffffffffff00146c7e408000146c7e4080903d8181ed32000000006400110400057465646479010882848b960c1830480301090504000100002a010032041224606cdd0c00037f020101000002a30000";
/// Same file, frames 2, 4, 6 and 8: shared key authentication, frames 1 to 4 (3 is WEP).
const AUTH_1: &str = "b0003a0100146c7e4080000fb588ac8200146c7e40806001010001000000";
const AUTH_2: &str = "b0003a01000fb588ac8200146c7e408000146c7e4080404201000200000010809a989f9d9c92919796948b89888e8d838280878584bab9b8bebdb3b2b0b7b5b4aaa9afaeaca3a1a0a6a5dbdad8dfdedcd3d1d0d6d5cbcac8cfcdccc2c1c7c6c4fbf9f8fffdf3f2f0f7f6f4ebe9e8eeede3e2e0e7e5e41a191f1e1c1311101715140a090f0e0c03010006053b3a383f3d3c32313736342b2a282f2d2c22212726";
const AUTH_3_WEP: &str = "b0483a0100146c7e4080000fb588ac8200146c7e40807001a03177006867275fa16b98097f780cb29c5d4c15ab4fd378d5d0860306c35742428322baa6edfe04a8d802df88bd8e62cbf026ca4910ced2a7cee2fa3e1de32b3a2c0be51b2526c2a32fa80d2eb9d24bb62f3ffbb1fbefedad77a8478dbc4eee53f8923398617e8c8d262a9195da29eae5e17807b2309656479fa93d151449337a2252d3bdfc12e843a048b1364e8d2d";
const AUTH_4: &str = "b0003a01000fb588ac8200146c7e408000146c7e40806042010004000000";
/// Same file, frames 10 and 12: Association Request and Response.
const ASSOC_REQ: &str = "00003a0100146c7e4080000fb588ac8200146c7e408080013104640000057465646479010882848b0c129618242102002532043048606c";
const ASSOC_RESP: &str =
    "10003a01000fb588ac8200146c7e408000146c7e408070421104000001c0010882848b960c18304832041224606cdd0c00037f020101000002a30000";
/// aircrack-ng wpa3-psk.pcap, frames 2, 3 and 5: wildcard Probe Request, Probe Response of
/// an SAE network, SAE Commit.
const PROBE_REQ: &str = "40000000ffffffffffff020000000100ffffffffffff00000000010802040b160c12182432043048606c0301012d1a7e101bffff0000000000000000000001000000000000000000007f080400000000000040";
const PROBE_RESP_SAE: &str = "50003a010200000001000200000000000200000000000000000000000000000064001104000c575041332d4e6574776f726b010882848b960c1218240301012a010432043048606c30140100000fac040100000fac040100000fac08c0003b0251007f080400000000000040";
const AUTH_SAE_COMMIT: &str = "b0003a01020000000000020000000100020000000000b00003000100000013008080dbcb2b1f75d49e64a12e85cdfa3a325c2631f630cb49988487c0c41c39e56a2ed8799140e2637b7e0fcf0ac8cf755b27b18071fa776388f9ad63b489683d71f020c4a83cf6b8a46df7f124803725c0e24dda0347f2e2b11e7b892460586f";
/// aircrack-ng n-02.cap, frames 117 and 120: Reassociation Request and Response (MFP).
const REASSOC_REQ: &str = "20003c00b0b98a568dea2cf0a2ddbcd0b0b98a568dea009311011400b0b98a568deb00054e6568656201088c129824b048606c21020213240a24043404640c9504a50130140100000fac040100000fac040100000fac068c002d1a630017ff000000000000000000000000000000000000000000007f080400000000000040bf0c3250800ffeff0000feff0000dd0b0017f20a00010400000000dd09001018020100100000dd070050f202000100";
const REASSOC_RESP: &str = "30003c002cf0a2ddbcd0b0b98a568deab0b98a568dea90041101000001c001088c129824b048606c2d1aef091bffffffff000000000000000001000000000000000000003d1640070400000000000000000000000000000000000000bf0cfa198833aaff0000aaff0000c005013a00fcff7f080400000000000040dd180050f2020101800003a4000027a4000042435e0062322f00";
/// Mathy Vanhoef's wnm_sleep_test-wpa2-psk_12345678.pcapng, frames 37, 39, 21 and 23:
/// Deauthentication (individual and broadcast), HT and WNM Action frames.
const DEAUTH: &str = "c0003a01020000000300020000000000020000000300b0050300";
const DEAUTH_BCAST: &str = "c0000000ffffffffffff02000000030002000000030010120300";
const ACTION_HT: &str = "d0003a01020000000000020000000300020000000300e011070100";
const ACTION_WNM: &str = "d0003a0102000000030002000000000002000000030090050a10015d0400000000";
/// aircrack-ng wep_64_ptw.cap, frame 14489: Disassociation.
const DISASSOC: &str = "a000d500000d54a1a04c0012bf1232290012bf123229604c0700";

fn body(mpdu: &[u8]) -> &[u8] {
    Frame::new_checked(mpdu).unwrap().body()
}

#[test]
fn beacon_and_probe_response() {
    let f = h(BEACON_TEDDY);
    let m = MgmtRepr::parse(&f).unwrap();
    // tshark: DA broadcast, SA = BSSID = 00:14:6c:7e:40:80, sequence 979.
    assert_eq!(m.da, MacAddr::BROADCAST);
    assert_eq!(m.sa, "00:14:6c:7e:40:80".parse().unwrap());
    assert_eq!(m.bssid, m.sa);
    assert_eq!(m.seq_control.sequence(), 0x3d9);
    let BodyRepr::Beacon(b) = m.body else { panic!("{m:?}") };
    // tshark: timestamp 854425985, interval 100, capabilities 0x0411.
    assert_eq!(b.timestamp, 854_425_985);
    assert_eq!(b.beacon_interval, 100);
    assert_eq!(b.capability, Capability(0x0411));
    assert!(b.capability.has(Capability::ESS) && b.capability.has(Capability::PRIVACY) && b.capability.has(Capability::SHORT_SLOT_TIME));
    assert!(!b.capability.has(Capability::SHORT_PREAMBLE) && !b.capability.has(Capability::IBSS));
    let ids: Vec<u8> = b.elements().map(|e| e.unwrap().id).collect();
    assert_eq!(
        ids,
        [id::SSID, id::SUPPORTED_RATES, id::DSSS_PARAMETER_SET, id::TIM, id::ERP, id::EXTENDED_SUPPORTED_RATES, id::VENDOR_SPECIFIC]
    );
    assert_eq!(element::find(b.elements, id::SSID).unwrap().unwrap().body, b"teddy");
    assert_eq!(element::find(b.elements, id::DSSS_PARAMETER_SET).unwrap().unwrap().body, [9]);
    // The whole frame re-emits octet for octet (Duration 0 in a Beacon).
    assert_eq!(m.to_vec().unwrap(), f);

    let f = h(PROBE_RESP_SAE);
    let m = MgmtRepr::parse(&f).unwrap();
    let BodyRepr::ProbeResponse(b) = m.body else { panic!("{m:?}") };
    // tshark: timestamp 0, interval 100, capabilities 0x0411, SSID WPA3-Network, RSN AKM 8
    // (SAE), RSN capabilities 0x00c0 (MFPR, MFPC).
    assert_eq!((b.timestamp, b.beacon_interval, b.capability), (0, 100, Capability(0x0411)));
    assert_eq!(element::find(b.elements, id::SSID).unwrap().unwrap().body, b"WPA3-Network");
    let lens: Vec<usize> = b.elements().map(|e| e.unwrap().body.len()).collect();
    assert_eq!(lens, [12, 8, 1, 1, 4, 20, 2, 8]);
    let rsne = RsnElementRepr::parse(element::find(b.elements, id::RSN).unwrap().unwrap().bytes).unwrap();
    assert_eq!(rsne.akms[0].suite_type, 8);
    assert_eq!(rsne.capabilities.unwrap().0, 0x00c0);
    let mut out = vec![0u8; m.buffer_len()];
    m.emit(&mut out).unwrap();
    assert_eq!(out[4..], f[4..], "all but Frame Control flags and Duration");
    assert_eq!(BeaconRepr::parse(&body(&f)[..11]), Err(Error::Truncated));
}

#[test]
fn probe_request() {
    let f = h(PROBE_REQ);
    let m = MgmtRepr::parse(&f).unwrap();
    let BodyRepr::ProbeRequest(p) = m.body else { panic!("{m:?}") };
    // tshark: wildcard SSID (length 0), tags 0,1,50,3,45,127 of lengths 0,8,4,1,26,8.
    let e: Vec<(u8, usize)> = p.elements().map(|e| e.unwrap()).map(|e| (e.id, e.body.len())).collect();
    assert_eq!(e, [(0, 0), (1, 8), (50, 4), (3, 1), (45, 26), (127, 8)]);
    assert_eq!((m.da, m.bssid), (MacAddr::BROADCAST, MacAddr::BROADCAST));
    assert_eq!(m.to_vec().unwrap(), f);
}

#[test]
fn shared_key_authentication() {
    let ap: MacAddr = "00:14:6c:7e:40:80".parse().unwrap();
    let sta: MacAddr = "00:0f:b5:88:ac:82".parse().unwrap();
    // tshark: algorithm 1, sequence 1, 2, 4, status 0; frame 2 carries tag 16 of length 128.
    let f1 = h(AUTH_1);
    let m1 = MgmtRepr::parse(&f1).unwrap();
    assert_eq!((m1.da, m1.sa, m1.bssid), (ap, sta, ap));
    assert_eq!(m1.body, BodyRepr::Auth(AuthRepr::new(AuthAlgorithm::SHARED_KEY, 1, StatusCode::SUCCESS)));
    let f2 = h(AUTH_2);
    let BodyRepr::Auth(a2) = MgmtRepr::parse(&f2).unwrap().body else { panic!() };
    assert_eq!((a2.algorithm, a2.transaction, a2.status), (AuthAlgorithm::SHARED_KEY, 2, StatusCode::SUCCESS));
    let c = a2.challenge.unwrap();
    assert_eq!(c.len(), 128);
    assert_eq!(c, &f2[32..]);
    let mut b = vec![0u8; a2.buffer_len()];
    a2.emit(&mut b).unwrap();
    assert_eq!(b, body(&f2));
    let f4 = h(AUTH_4);
    let BodyRepr::Auth(a4) = MgmtRepr::parse(&f4).unwrap().body else { panic!() };
    assert_eq!(a4, AuthRepr::new(AuthAlgorithm::SHARED_KEY, 4, StatusCode::SUCCESS));
    // Frame 3 is WEP-encrypted: its body is no Authentication body until it is opened.
    let f3 = h(AUTH_3_WEP);
    assert!(Frame::new_checked(&f3[..]).unwrap().frame_control().protected());
    assert!(matches!(MgmtRepr::parse(&f3), Err(Error::Unsupported(_))));
    // A challenge element cut short is an error; the fixed fields alone are not enough.
    assert_eq!(AuthRepr::parse(&body(&f2)[..100]), Err(Error::Truncated));
    assert_eq!(AuthRepr::parse(&body(&f2)[..5]), Err(Error::Truncated));
}

#[test]
fn sae_authentication_is_not_a_challenge() {
    let f = h(AUTH_SAE_COMMIT);
    let BodyRepr::Auth(a) = MgmtRepr::parse(&f).unwrap().body else { panic!() };
    // tshark: algorithm 3 (SAE), sequence 1, status 0; the rest is the SAE commit.
    assert_eq!(a, AuthRepr::new(AuthAlgorithm::SAE, 1, StatusCode::SUCCESS));
}

#[test]
fn association_and_reassociation() {
    let f = h(ASSOC_REQ);
    let m = MgmtRepr::parse(&f).unwrap();
    let BodyRepr::AssocRequest(r) = m.body else { panic!("{m:?}") };
    // tshark: capabilities 0x0431, listen interval 0x0064, SSID teddy, tags 0,1,33,50.
    assert_eq!((r.capability, r.listen_interval, r.current_ap), (Capability(0x0431), 100, None));
    assert_eq!(element::find(r.elements, id::SSID).unwrap().unwrap().body, b"teddy");
    assert_eq!(r.elements().map(|e| e.unwrap().id).collect::<Vec<_>>(), [0, 1, id::POWER_CAPABILITY, 50]);
    assert_eq!(r.subtype(), mgmt_subtype::ASSOC_REQ);
    assert_eq!(&m.to_vec().unwrap()[4..], &f[4..]);

    let f = h(ASSOC_RESP);
    let BodyRepr::AssocResponse(r) = MgmtRepr::parse(&f).unwrap().body else { panic!() };
    // tshark: capabilities 0x0411, status 0, AID 1 (0xc001 on the wire).
    assert_eq!((r.capability, r.status, r.aid), (Capability(0x0411), StatusCode::SUCCESS, 1));
    assert!(r.status.is_success());
    let mut b = vec![0u8; r.buffer_len()];
    r.emit(&mut b).unwrap();
    assert_eq!(b, body(&f));

    let f = h(REASSOC_REQ);
    let m = MgmtRepr::parse(&f).unwrap();
    let BodyRepr::AssocRequest(r) = m.body else { panic!("{m:?}") };
    // tshark: capabilities 0x0111, listen interval 0x0014, current AP b0:b9:8a:56:8d:eb,
    // SSID Neheb, tag lengths 5,8,2,10,20,26,8,12,11,9,7.
    assert_eq!((r.capability, r.listen_interval), (Capability(0x0111), 0x14));
    assert_eq!(r.current_ap, Some("b0:b9:8a:56:8d:eb".parse().unwrap()));
    assert_eq!(r.subtype(), mgmt_subtype::REASSOC_REQ);
    assert_eq!(r.elements().map(|e| e.unwrap().body.len()).collect::<Vec<_>>(), [5, 8, 2, 10, 20, 26, 8, 12, 11, 9, 7]);
    assert_eq!(element::find(r.elements, id::SSID).unwrap().unwrap().body, b"Neheb");
    assert!(RsnElementRepr::parse(element::find(r.elements, id::RSN).unwrap().unwrap().bytes).is_ok());
    assert_eq!(&m.to_vec().unwrap()[4..], &f[4..]);
    assert_eq!(AssocRequestRepr::parse(&body(&f)[..9], true), Err(Error::Truncated));
    assert_eq!(AssocRequestRepr::parse(&body(&f)[..3], false), Err(Error::Truncated));

    let f = h(REASSOC_RESP);
    let BodyRepr::ReassocResponse(r) = MgmtRepr::parse(&f).unwrap().body else { panic!() };
    assert_eq!((r.status, r.aid), (StatusCode::SUCCESS, 1));
    assert_eq!(r.elements().map(|e| e.unwrap().body.len()).collect::<Vec<_>>(), [8, 26, 22, 12, 5, 8, 24]);
    assert_eq!(AssocResponseRepr::parse(&body(&f)[..5]), Err(Error::Truncated));
}

#[test]
fn deauthentication_and_disassociation() {
    // tshark: reason 3 from 02:00:00:00:00:00 to 02:00:00:00:03:00, sequence 91; then
    // broadcast from the AP, sequence 289.
    let f = h(DEAUTH);
    let m = MgmtRepr::parse(&f).unwrap();
    assert_eq!(m.body, BodyRepr::Deauth(DeauthRepr { reason: ReasonCode::DEAUTH_LEAVING }));
    assert_eq!((m.da, m.sa, m.seq_control.sequence()), (MacAddr([2, 0, 0, 0, 3, 0]), MacAddr([2, 0, 0, 0, 0, 0]), 91));
    assert!(Frame::new_checked(&f[..]).unwrap().is_robust());
    let f = h(DEAUTH_BCAST);
    let m = MgmtRepr::parse(&f).unwrap();
    assert_eq!((m.da, m.seq_control.sequence()), (MacAddr::BROADCAST, 289));
    assert_eq!(m.to_vec().unwrap(), f, "Duration 0");
    // tshark: reason 7 (class 3 frame from a nonassociated STA).
    let f = h(DISASSOC);
    let m = MgmtRepr::parse(&f).unwrap();
    assert_eq!(m.body, BodyRepr::Disassoc(DeauthRepr { reason: ReasonCode::CLASS3_FROM_NONASSOC }));
    assert_eq!(ReasonCode::CLASS3_FROM_NONASSOC.to_string(), "7");
    assert_eq!(DeauthRepr::parse(&[3]), Err(Error::Truncated));
}

#[test]
fn action_frames_and_robustness() {
    // tshark: category 7 (HT), not robust; category 10 (WNM) action 16, robust.
    let ht = h(ACTION_HT);
    let m = MgmtRepr::parse(&ht).unwrap();
    let BodyRepr::Action(a) = m.body else { panic!("{m:?}") };
    assert_eq!(a.category, ActionCategory::HT);
    assert!(!Frame::new_checked(&ht[..]).unwrap().is_robust());
    let wnm = h(ACTION_WNM);
    let BodyRepr::Action(a) = MgmtRepr::parse(&wnm).unwrap().body else { panic!() };
    assert_eq!((a.category, a.details[0]), (ActionCategory::WNM, 16));
    assert!(Frame::new_checked(&wnm[..]).unwrap().is_robust());
    assert_eq!(&MgmtRepr::parse(&wnm).unwrap().to_vec().unwrap()[4..], &wnm[4..]);
    // Table 9-51: Public, HT, Self-protected, Unprotected DMG, VHT, Unprotected S1G and
    // Vendor-specific are the categories that are not robust here.
    let not_robust: Vec<u8> = (0..=255u8).filter(|&c| !ActionCategory(c).is_robust()).collect();
    assert_eq!(not_robust, [4, 7, 15, 20, 21, 22, 127]);
}

#[test]
fn sa_query() {
    // 9.6.9.2/9.6.9.3 laid out by hand: an Action frame, Category 8, Action 0 (request) or 1
    // (response), Transaction Identifier 0x1234 (octets 12 34).
    let req = h("d0000000020000000001020000000011020000000001a000 08 00 1234");
    let m = MgmtRepr::parse(&req).unwrap();
    assert_eq!(m.body, BodyRepr::SaQuery(SaQueryRepr { request: true, transaction_id: [0x12, 0x34] }));
    assert_eq!(m.seq_control, SeqControl::new(10, 0));
    assert_eq!(m.to_vec().unwrap(), req);
    assert!(Frame::new_checked(&req[..]).unwrap().is_robust());
    let resp = SaQueryRepr { request: false, transaction_id: [0x12, 0x34] };
    let mut b = [0u8; 4];
    resp.emit(&mut b).unwrap();
    assert_eq!(b, [8, 1, 0x12, 0x34]);
    assert!(matches!(SaQueryRepr::parse(&[8, 2, 0x12, 0x34]), Err(Error::Malformed(_))));
    assert_eq!(SaQueryRepr::parse(&[8, 0, 0x12]), Err(Error::Truncated));
    assert!(matches!(SaQueryRepr::parse(&[7, 0, 0x12, 0x34]), Err(Error::Malformed(_))));
    // An SA Query frame cut short is an error, not an Action frame of category 8.
    assert_eq!(MgmtRepr::parse(&req[..req.len() - 1]), Err(Error::Truncated));
}

#[test]
fn not_management_frames() {
    // IEEE 802.11-2012 M.6.4 MPDU 1 (a data frame).
    let data = h("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033");
    assert!(matches!(Frame::new_checked(&data[..]), Err(Error::Malformed(_))));
    assert!(matches!(MgmtRepr::parse(&data), Err(Error::Malformed(_))));
    assert_eq!(MgmtRepr::parse(&h(DEAUTH)[..23]), Err(Error::Truncated));
}

/// Every truncation of every frame above: an error or a shorter frame, never a panic; and
/// whatever parses re-emits to a body that parses to the same thing.
#[test]
fn every_truncation() {
    for hex in [
        BEACON_TEDDY,
        AUTH_1,
        AUTH_2,
        AUTH_4,
        ASSOC_REQ,
        ASSOC_RESP,
        PROBE_REQ,
        PROBE_RESP_SAE,
        AUTH_SAE_COMMIT,
        REASSOC_REQ,
        REASSOC_RESP,
        DEAUTH,
        DEAUTH_BCAST,
        ACTION_HT,
        ACTION_WNM,
        DISASSOC,
    ] {
        let f = h(hex);
        for n in 0..=f.len() {
            stable(&f[..n]);
        }
    }
}

/// Parses `mpdu` as a management frame; whatever parses re-emits and parses back the same.
fn stable(mpdu: &[u8]) -> bool {
    let Ok(m) = MgmtRepr::parse(mpdu) else { return false };
    let v = m.to_vec().unwrap();
    assert_eq!(MgmtRepr::parse(&v).unwrap(), m, "{}", common::hx(mpdu));
    for e in element::elements(mpdu) {
        let _ = e.map(|e| e.ext_id());
    }
    true
}

#[test]
fn random_inputs_never_panic() {
    let mut rng = StdRng::seed_from_u64(0x9_3_3);
    let seeds: Vec<Vec<u8>> =
        [BEACON_TEDDY, AUTH_2, ASSOC_REQ, ASSOC_RESP, REASSOC_REQ, DEAUTH, ACTION_WNM, PROBE_REQ].iter().map(|x| h(x)).collect();
    let mut parsed = 0;
    for i in 0..20_000 {
        let mut m = seeds[i % seeds.len()].clone();
        for _ in 0..rng.gen_range(1..4) {
            match rng.gen_range(0..4) {
                0 if !m.is_empty() => {
                    let j = rng.gen_range(0..m.len());
                    m[j] ^= 1 << rng.gen_range(0..8);
                }
                1 if !m.is_empty() => {
                    let j = rng.gen_range(4..m.len().max(5)).min(m.len() - 1);
                    m[j] = rng.gen();
                }
                2 => m.truncate(rng.gen_range(0..=m.len())),
                _ => m.extend((0..rng.gen_range(0..8)).map(|_| rng.gen::<u8>())),
            }
        }
        parsed += usize::from(stable(&m));
    }
    assert!(parsed > 5_000, "mutations should often stay parseable ({parsed})");
}

/// Management frames of one subtype in a capture: (subtype, (all, unprotected)).
type Count = (u8, (usize, usize));

/// Every management frame of every capture: the unprotected ones parse (and re-emit their
/// body octet for octet where the Repr holds all of it); counts per subtype are tshark's.
#[test]
fn every_management_frame_of_the_captures() {
    let mut per_file: BTreeMap<String, BTreeMap<u8, (usize, usize)>> = BTreeMap::new();
    for (dir, name) in [
        ("aircrack", "wep.shared.key.authentication.cap"),
        ("aircrack", "wpa2-psk-linksys.cap"),
        ("aircrack", "n-02.cap"),
        ("aircrack", "wpa3-psk.pcap"),
        ("aircrack", "pmkid-not-recognized.cap"),
        ("vanhoef", "wnm_sleep_test-wpa2-psk_12345678.pcapng"),
    ] {
        let path = common::testdata_dir().join("captures").join(dir).join(name);
        let counts = per_file.entry(name.to_string()).or_default();
        for p in CaptureReader::open(&path).unwrap() {
            let Ok(p) = p else { break };
            let Ok(m) = radio::mpdu(p.linktype, &p.data) else { continue };
            let Ok(f) = Frame::new_checked(m.bytes) else { continue };
            let c = counts.entry(f.subtype()).or_default();
            c.0 += 1;
            if f.frame_control().protected() {
                continue;
            }
            let r = MgmtRepr::parse(m.bytes).unwrap_or_else(|e| panic!("{name}: {e}: {}", common::hx(m.bytes)));
            c.1 += 1;
            // Not kept: what follows the fixed fields of Authentication (SAE), Deauthentication,
            // Disassociation and SA Query; and the AID's two top bits, which some APs of
            // pmkid-not-recognized.cap leave clear (9.4.1.8 sets them; emit does).
            let aid_bits_clear = matches!(r.body, BodyRepr::AssocResponse(_) | BodyRepr::ReassocResponse(_)) && f.body()[5] & 0xc0 != 0xc0;
            let keeps_all = !aid_bits_clear
                && !matches!(r.body, BodyRepr::Auth(_) | BodyRepr::Deauth(_) | BodyRepr::Disassoc(_) | BodyRepr::SaQuery(_));
            if keeps_all {
                let mut b = vec![0u8; r.body.buffer_len()];
                r.body.emit(&mut b).unwrap();
                assert_eq!(b, f.body(), "{name}");
            }
            assert!(stable(m.bytes));
        }
    }
    // tshark -Y wlan.fc.type==0: (subtype, frames, of which unprotected).
    let want: BTreeMap<&str, Vec<Count>> = BTreeMap::from([
        ("wep.shared.key.authentication.cap", vec![(0, (1, 1)), (1, (1, 1)), (8, (1, 1)), (11, (4, 3))]),
        ("wpa2-psk-linksys.cap", vec![(0, (4, 4)), (1, (4, 4)), (4, (18, 18)), (5, (6, 6)), (8, (85, 85)), (11, (8, 8)), (12, (3, 3))]),
        (
            "n-02.cap",
            vec![
                (0, (1, 1)),
                (1, (1, 1)),
                (2, (1, 1)),
                (3, (1, 1)),
                (4, (9, 9)),
                (5, (9, 9)),
                (8, (1, 1)),
                (11, (4, 4)),
                (13, (25, 3)),
                (14, (1, 1)),
            ],
        ),
        ("wpa3-psk.pcap", vec![(0, (1, 1)), (1, (1, 1)), (4, (1, 1)), (5, (1, 1)), (8, (1, 1)), (11, (4, 4))]),
        (
            "pmkid-not-recognized.cap",
            vec![
                (0, (142, 142)),
                (1, (162, 162)),
                (4, (128, 128)),
                (5, (877, 877)),
                (8, (1, 1)),
                (10, (29, 27)),
                (11, (343, 343)),
                (12, (6153, 6152)),
                (13, (55, 18)),
            ],
        ),
        (
            "wnm_sleep_test-wpa2-psk_12345678.pcapng",
            vec![(0, (1, 1)), (1, (1, 1)), (4, (1, 1)), (5, (1, 1)), (8, (3, 3)), (11, (2, 2)), (12, (2, 2)), (13, (5, 5))],
        ),
    ]);
    for (name, w) in want {
        let got: Vec<Count> = per_file[name].iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(got, w, "{name}");
    }
}
