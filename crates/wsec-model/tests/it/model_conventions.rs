//! The conventions where simulators and real networks differ (docs/model.md section 1a),
//! each checked against durations computed here from the standard: what a failed exchange
//! costs (EIFS, ACKTimeout, DIFS), and the EDCA categories' AIFS and windows.
use wsec_model::config::{CollisionIfs, PhySpec};
use wsec_model::edca::Access;
use wsec_model::phy::{Phy, PhyKind, US};
use wsec_model::{replicate, run_once, saturation_spec, Costs};

fn ofdm(bytes: f64, mbps: f64, ext: f64) -> f64 {
    20.0 + 4.0 * ((16.0 + 8.0 * bytes + 6.0) / (4.0 * mbps)).ceil() + ext
}

#[test]
fn eifs_and_ack_timeout_durations() {
    // EIFS's ACK: 1 Mb/s DSSS at 2.4 GHz (192 + 112 µs), 6 Mb/s OFDM at 5 GHz (20 + 4 x 6).
    let g = Phy::new(PhyKind::G, 54.0).unwrap();
    let a = Phy::new(PhyKind::A, 54.0).unwrap();
    let b = Phy::new(PhyKind::B, 11.0).unwrap();
    assert_eq!(g.eifs_ack_time(), 304 * US);
    assert_eq!(a.eifs_ack_time(), 44 * US);
    assert_eq!(g.eifs(), (10 + 304 + 28) * US);
    // ACKTimeout = SIFS + slot + preamble and PHY header of the response.
    assert_eq!(g.ack_timeout(), (10 + 9 + 20) * US);
    assert_eq!(a.ack_timeout(), (16 + 9 + 20) * US);
    assert_eq!(b.ack_timeout(), (10 + 20 + 192) * US);
}

/// Two saturated stations with CW fixed at 0 collide on every attempt; with no retry limit
/// each attempt starts one "failure cycle" after the last, and the cycle is what the
/// convention says: DATA + ACKTimeout + DIFS (standard, ns-3), DATA + EIFS (the colliders
/// deferring like third parties), DATA + DIFS (Bianchi).
#[test]
fn a_collision_costs_what_the_convention_says() {
    let data = ofdm(1536.0, 54.0, 6.0); // 1472 + 8 + 20 + 8 + 28 octets at 54 Mb/s
    assert_eq!(data, 254.0);
    for (label, eifs, ack_timeout, coll, cycle) in [
        ("ACKTimeout + DIFS", true, true, CollisionIfs::Difs, data + 39.0 + 28.0),
        ("ACKTimeout + DIFS, observers EIFS", true, true, CollisionIfs::Eifs, data + 39.0 + 28.0),
        ("EIFS", true, false, CollisionIfs::Eifs, data + 342.0),
        ("DIFS (Bianchi)", false, true, CollisionIfs::Eifs, data + 28.0),
    ] {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, cw_min: Some(0), cw_max: Some(0), ..Default::default() };
        let mut spec = saturation_spec(phy, 2, 1472, false, 1.0, 1);
        spec.run.warmup_s = 0.0;
        spec.mac.beacons = false;
        spec.mac.retries = false;
        spec.mac.eifs = eifs;
        spec.mac.ack_timeout = ack_timeout;
        spec.mac.collision_ifs = coll;
        let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
        let sta = r.nodes.iter().find(|n| n.name == "sta1").unwrap();
        // First attempt at DIFS (28 µs), then one per cycle, up to 1 s.
        let expect = ((1e6 - 28.0) / cycle).floor() + 1.0;
        println!("{label}: cycle {cycle} µs, {} attempts (expected {expect})", sta.tx_attempts);
        assert_eq!(sta.tx_success, 0);
        assert!((sta.tx_attempts as f64 - expect).abs() <= 1.0, "{label}: {} attempts, expected {expect}", sta.tx_attempts);
    }
}

/// Without EIFS after collisions (ns-3's equal-power collisions) ten saturated stations
/// carry more than with it, and the ACKTimeout is cheaper than EIFS for the colliders.
#[test]
fn eifs_after_collisions_lowers_saturation_throughput() {
    let run = |coll: CollisionIfs, ack_timeout: bool| {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
        let mut spec = saturation_spec(phy, 10, 1472, false, 5.0, 1);
        spec.mac.collision_ifs = coll;
        spec.mac.ack_timeout = ack_timeout;
        replicate(&spec, &Costs::shipped(), 2).unwrap().throughput_mbps.mean
    };
    let difs = run(CollisionIfs::Difs, true);
    let eifs = run(CollisionIfs::Eifs, true);
    let all_eifs = run(CollisionIfs::Eifs, false);
    println!("10 stations: DIFS {difs:.3}, EIFS for observers {eifs:.3}, EIFS for all {all_eifs:.3} Mb/s");
    assert!(difs > eifs * 1.03 && eifs > all_eifs, "{difs} {eifs} {all_eifs}");
}

/// One saturated station under each EDCA category: AIFS = SIFS + AIFSN slots, a mean
/// backoff of CWmin/2 slots (Table 9-155: BE 15, VI 7, VO 3) and, per access, the k frames
/// that fit in the TXOP limit (VI 3.008 ms, VO 1.504 ms: k exchanges of DATA + SIFS + ACK
/// separated by SIFS, 10.23.2.9), closed form; and with the limit set to 0 by hostapd's
/// `wmm_ac_*_txop_limit`, one frame per access.
#[test]
fn edca_categories_single_station_closed_form() {
    let data = ofdm(1538.0, 54.0, 6.0); // QoS Data header: 26 + 4 octets
    let ack = ofdm(14.0, 24.0, 6.0);
    let exchange = data + 10.0 + ack;
    for (ac, aifsn, cw, txop, name) in [
        (Access::Be, 3.0, 15.0, 0.0, "be"),
        (Access::Vi, 2.0, 7.0, 3008.0, "vi"),
        (Access::Vo, 2.0, 3.0, 1504.0, "vo"),
        (Access::Bk, 7.0, 15.0, 0.0, "bk"),
        (Access::Vi, 2.0, 7.0, 0.0, "vi"),
        (Access::Vo, 2.0, 3.0, 0.0, "vo"),
    ] {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
        let mut spec = saturation_spec(phy, 1, 1472, false, 10.0, 1);
        spec.mac.beacons = false;
        spec.mac.access = Some(ac);
        spec.mac.header_bytes = Some(30);
        if txop == 0.0 {
            spec.mac.edca.insert(format!("wmm_ac_{name}_txop_limit"), 0.0);
        }
        let s = replicate(&spec, &Costs::shipped(), 2).unwrap();
        // Frames per TXOP: the largest k with k exchanges + (k - 1) SIFS within the limit.
        let mut k = 1.0;
        while (k + 1.0) * exchange + k * 10.0 <= txop {
            k += 1.0;
        }
        let expect = k * 1472.0 * 8.0 / (10.0 + aifsn * 9.0 + cw / 2.0 * 9.0 + k * exchange + (k - 1.0) * 10.0);
        let err = (s.throughput_mbps.mean - expect) / expect;
        println!(
            "{ac:?} TXOP {txop} µs ({k} frames): closed form {expect:.4} Mb/s, model {:.4} ± {:.4}",
            s.throughput_mbps.mean, s.throughput_mbps.ci95
        );
        assert!(err.abs() < 0.004, "{ac:?} TXOP {txop}: {expect} vs {}", s.throughput_mbps.mean);
    }
}

/// Two categories in one node (10.23.2.4): when both backoffs end in the same slot only the
/// higher one transmits, so the node never collides with itself on the air; the lower one
/// counts an internal collision and backs off. A VI and a BE flow on one saturated station:
/// internal collisions happen, on-air collisions do not, and VI (AIFSN 2, CW 7, TXOP) gets
/// more than BE (AIFSN 3, CW 15).
#[test]
fn internal_collision_inside_one_station() {
    use wsec_model::config::{FlowSpec, TrafficKind};
    let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
    let mut spec = saturation_spec(phy, 1, 1472, false, 5.0, 1);
    spec.mac.beacons = false;
    let flow = |ac| FlowSpec {
        src: "sta1".into(),
        dst: "ap".into(),
        traffic: TrafficKind::Saturated,
        payload: 1472,
        ac: Some(ac),
        ..Default::default()
    };
    spec.flows = vec![flow(Access::Vi), flow(Access::Be)];
    let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
    let sta = r.nodes.iter().find(|n| n.name == "sta1").unwrap();
    let (vi, be) = (r.flows[0].throughput_mbps, r.flows[1].throughput_mbps);
    println!("VI {vi:.3} Mb/s, BE {be:.3} Mb/s, internal collisions {}, on-air collisions {}", sta.internal_collisions, sta.collisions);
    assert!(sta.internal_collisions > 50, "{}", sta.internal_collisions);
    assert_eq!(sta.collisions, 0);
    assert!(vi > 3.0 * be && be > 0.1, "VI {vi} BE {be}");
    // A flow naming DCF, or tagged flows in a network set to the DCF, are refused.
    let mut bad = spec.clone();
    bad.mac.access = Some(Access::Dcf);
    assert!(run_once(&bad, &Costs::shipped(), 1).is_err());
    let mut bad = spec.clone();
    bad.flows[0].ac = Some(Access::Dcf);
    assert!(run_once(&bad, &Costs::shipped(), 1).is_err());
}

/// ARF: alone on a clean channel it stays on the top rung (the same throughput as a fixed
/// rate); with ten saturated stations it reads collisions as losses and steps down, which a
/// fixed rate does not; with 30% frame errors and one station it steps down too.
#[test]
fn arf_moves_only_on_failures() {
    use wsec_model::config::RateControl;
    let run = |n: usize, rc: RateControl, fer: f64| {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, rate_control: rc, ..Default::default() };
        let mut spec = saturation_spec(phy, n, 1472, false, 3.0, 1);
        spec.mac.beacons = false;
        spec.mac.frame_error_rate = fer;
        let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
        let rates: Vec<f64> = r.nodes.iter().filter(|x| x.name.starts_with("sta")).map(|x| x.mean_rate_mbps).collect();
        (r.aggregate_throughput_mbps, rates.iter().sum::<f64>() / rates.len() as f64)
    };
    let (fixed1, rate_fixed1) = run(1, RateControl::Fixed, 0.0);
    let (arf1, rate_arf1) = run(1, RateControl::Arf, 0.0);
    println!("1 station: fixed {fixed1:.3} Mb/s at {rate_fixed1}, ARF {arf1:.3} at {rate_arf1}");
    assert_eq!(rate_arf1, 54.0);
    assert_eq!(rate_fixed1, 54.0);
    assert!((arf1 - fixed1).abs() < 1e-9);
    let (fixed10, _) = run(10, RateControl::Fixed, 0.0);
    let (arf10, rate_arf10) = run(10, RateControl::Arf, 0.0);
    println!("10 stations: fixed {fixed10:.3} Mb/s, ARF {arf10:.3} at a mean {rate_arf10:.1} Mb/s");
    assert!(rate_arf10 < 50.0 && arf10 < fixed10, "{arf10} {fixed10} {rate_arf10}");
    let (_, rate_err) = run(1, RateControl::Arf, 0.3);
    println!("1 station, 30% frame errors: ARF at a mean {rate_err:.1} Mb/s");
    assert!(rate_err < 50.0);
}

/// A frame reaching an idle station on an idle medium: sent at once (`immediate`, the
/// standard when the medium has been idle for DIFS) or a DIFS after its arrival (`difs`,
/// ns-3's DCF); its delay is DATA or DIFS + DATA, exactly.
#[test]
fn access_on_arrival_delay_is_exact() {
    use wsec_model::config::{AccessOnArrival, FlowSpec, TrafficKind};
    for (mode, expect_us) in [(AccessOnArrival::Immediate, 254.0), (AccessOnArrival::Difs, 254.0 + 28.0)] {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
        let mut spec = saturation_spec(phy, 1, 1472, false, 2.0, 1);
        spec.mac.beacons = false;
        spec.mac.access_on_arrival = mode;
        // One 1472-octet datagram every 10 ms: the medium is always idle when it arrives.
        spec.flows = vec![FlowSpec {
            src: "sta1".into(),
            dst: "ap".into(),
            traffic: TrafficKind::Cbr,
            payload: 1472,
            rate_mbps: 1.1776,
            ..Default::default()
        }];
        let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
        let d = r.flows[0].delay_mean_ms * 1000.0;
        println!("{mode:?}: delay {d:.3} µs (expected {expect_us})");
        assert!((d - expect_us).abs() < 1e-6, "{mode:?}: {d} vs {expect_us}");
    }
}

/// `security.card_mips` rescales the card's crypto: a saturated CCMP station whose card is
/// the bottleneck carries twice as much at twice the speed, and the card-bound throughput
/// is payload / (encryption time at that speed).
#[test]
fn card_mips_scales_the_card_bottleneck() {
    let run = |mips: f64| {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
        let mut spec = saturation_spec(phy, 1, 1472, false, 3.0, 1);
        spec.mac.beacons = false;
        spec.security.mode = "ccmp".into();
        spec.security.card_mips = Some(mips);
        run_once(&spec, &Costs::shipped(), 1).unwrap().aggregate_throughput_mbps
    };
    let (slow, fast) = (run(5.0), run(10.0));
    let mut c = Costs::shipped();
    c.set_card_mips(5.0).unwrap();
    let enc_ns = c.frame_ns(wsec_model::Location::Card, wsec_base::CipherSuite::Ccmp128, true, 1472 + 8 + 20 + 8).unwrap();
    let expect = 1472.0 * 8.0 / enc_ns * 1e3; // Mb/s
    println!("card at 5 MIPS: {slow:.4} Mb/s (encryption-bound {expect:.4}), at 10 MIPS: {fast:.4}");
    assert!((fast / slow - 2.0).abs() < 0.02, "{slow} {fast}");
    assert!((slow - expect).abs() / expect < 0.01, "{slow} vs {expect}");
    assert!(Costs::shipped().set_card_mips(f64::NAN).is_err());
}

/// Rate control against an SNR (errmodel.rs): one saturated 802.11a station at 16 and 20
/// dB. ns-3 3.37 (scripts/model-ns3: ArfWifiManager, MinstrelWifiManager,
/// NistErrorRateModel, FixedRssLossModel) carried 15.506 / 21.050 Mb/s with ARF and 15.591
/// / 20.855 with Minstrel; the model must be within 10%, and a fixed 54 Mb/s must fail.
#[test]
fn arf_and_minstrel_against_ns3_at_fixed_snr() {
    use wsec_model::config::RateControl;
    let run = |rc: RateControl, snr: f64| {
        let phy = PhySpec { standard: "a".into(), rate_mbps: 54.0, rate_control: rc, snr_db: Some(snr), ..Default::default() };
        let mut spec = saturation_spec(phy, 1, 1472, false, 5.0, 1);
        spec.mac.collision_ifs = CollisionIfs::Difs;
        spec.mac.access_on_arrival = wsec_model::config::AccessOnArrival::Difs;
        replicate(&spec, &Costs::shipped(), 2).unwrap().throughput_mbps.mean
    };
    for (rc, snr, ns3) in [
        (RateControl::Arf, 16.0, 15.506),
        (RateControl::Arf, 20.0, 21.050),
        (RateControl::Minstrel, 16.0, 15.591),
        (RateControl::Minstrel, 20.0, 20.855),
    ] {
        let got = run(rc, snr);
        println!("{rc:?} at {snr} dB: model {got:.3} Mb/s, ns-3 {ns3}");
        assert!((got - ns3).abs() / ns3 < 0.10, "{rc:?} {snr} dB: {got} vs ns-3 {ns3}");
    }
    assert!(run(RateControl::Fixed, 16.0) < 0.1);
    // 802.11b has no curve: refused, not ignored.
    let phy = PhySpec { standard: "b".into(), rate_mbps: 11.0, snr_db: Some(20.0), ..Default::default() };
    assert!(run_once(&saturation_spec(phy, 1, 1472, false, 1.0, 1), &Costs::shipped(), 1).is_err());
}

/// Which frames a TXOP carries (`mac.txop_fill`, 10.23.2.9). One AC_VI station (TXOP
/// limit 3.008 ms), two flows of one datagram every 10 ms, the second 100 µs after the
/// first, i.e. during the first's DATA: with `each_ack` (ns-3 3.37 looks at its queue again
/// SIFS after the ACK) the second goes SIFS after the first's ACK, delay exactly
/// DATA + SIFS + ACK + SIFS + DATA - 100 µs; with `start` (only the frames queued when
/// the TXOP was won) it waits for its own access, at least AIFS[VI] more.
#[test]
fn txop_fill_takes_frames_that_arrive_during_the_txop() {
    use wsec_model::config::{FlowSpec, TrafficKind, TxopFill};
    let data = ofdm(1538.0, 54.0, 6.0); // QoS Data header: 26 + 4 octets
    let ack = ofdm(14.0, 24.0, 6.0);
    let joined = data + 10.0 + ack + 10.0 + data - 100.0;
    for fill in [TxopFill::EachAck, TxopFill::Start] {
        let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
        let mut spec = saturation_spec(phy, 1, 1472, false, 2.0, 1);
        spec.mac.beacons = false;
        spec.mac.access = Some(Access::Vi);
        spec.mac.header_bytes = Some(30);
        spec.mac.txop_fill = fill;
        let flow = |phase_s: f64| FlowSpec {
            src: "sta1".into(),
            dst: "ap".into(),
            traffic: TrafficKind::Cbr,
            payload: 1472,
            rate_mbps: 1.1776,
            phase_s: Some(phase_s),
            ..Default::default()
        };
        spec.flows = vec![flow(0.005), flow(0.005 + 100e-6)];
        let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
        let first = r.flows[0].delay_mean_ms * 1000.0;
        let second = r.flows[1].delay_mean_ms * 1000.0;
        println!("{fill:?}: first {first:.3} µs, second {second:.3} µs (joined: {joined})");
        assert!(r.flows[1].received > 100, "{fill:?}: the second flow delivered {}", r.flows[1].received);
        assert!((first - data).abs() < 1e-6, "{fill:?}: first {first} vs {data}");
        match fill {
            TxopFill::EachAck => assert!((second - joined).abs() < 1e-6, "each_ack: {second} vs {joined}"),
            TxopFill::Start => assert!(second >= joined + 28.0 - 10.0 - 1e-6, "start: {second} vs at least {}", joined + 18.0),
        }
    }
}
