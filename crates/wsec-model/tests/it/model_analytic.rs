//! Exact analytic checks of the DCF simulation where no contention makes the answer
//! closed-form, plus determinism, security overhead and crypto-stage checks. Frame
//! durations are computed here from the standard's formulas.
use wsec_model::config::{FlowSpec, PhySpec, TrafficKind};
use wsec_model::costs::{Linear, LocationCosts, SuiteCost};
use wsec_model::{replicate, run_once, saturation_spec, Costs, ModelSpec};

fn plain(mut spec: ModelSpec) -> ModelSpec {
    spec.mac.beacons = false;
    spec
}

fn ofdm(bytes: f64, mbps: f64, ext: f64) -> f64 {
    20.0 + 4.0 * ((16.0 + 8.0 * bytes + 6.0) / (4.0 * mbps)).ceil() + ext
}

/// One saturated station, CW fixed at 0: every exchange is DIFS + DATA + SIFS + ACK, so
/// the payload delivered by time T is an exact count.
#[test]
fn single_station_without_backoff_is_exact() {
    let mpdu: f64 = 28.0 + 8.0 + 28.0 + 1000.0;
    // (standard, rate, slot, sifs, data µs, ack µs)
    let cases: Vec<(&str, f64, f64, f64, f64, f64)> = vec![
        // 802.11b long preamble: 192 + ceil(8L/11); ACK at 2 Mb/s (hostapd's and ns-3's
        // basic rate set for 802.11b is {1, 2}).
        ("b", 11.0, 20.0, 10.0, 192.0 + (8.0 * mpdu / 11.0).ceil(), 192.0 + 56.0),
        ("b", 2.0, 20.0, 10.0, 192.0 + (8.0 * mpdu / 2.0).ceil(), 192.0 + 56.0),
        ("a", 54.0, 9.0, 16.0, ofdm(mpdu, 54.0, 0.0), ofdm(14.0, 24.0, 0.0)),
        ("a", 6.0, 9.0, 16.0, ofdm(mpdu, 6.0, 0.0), ofdm(14.0, 6.0, 0.0)),
        ("g", 54.0, 9.0, 10.0, ofdm(mpdu, 54.0, 6.0), ofdm(14.0, 24.0, 6.0)),
        ("g", 18.0, 9.0, 10.0, ofdm(mpdu, 18.0, 6.0), ofdm(14.0, 12.0, 6.0)),
        // HT-mixed MCS 7, 800 ns GI, 2.4 GHz: 36 µs preamble, N_DBPS 260, +6 µs; ACK
        // (legacy) at 24 Mb/s (MCS 7's non-HT reference rate 54 -> highest mandatory 24).
        // QoS Data header (26 + 4 octets) for HT.
        ("n", 65.0, 9.0, 10.0, 36.0 + 4.0 * ((16.0 + 8.0 * (mpdu + 2.0) + 6.0) / 260.0).ceil() + 6.0, ofdm(14.0, 24.0, 6.0)),
    ];
    for (std, rate, slot, sifs, data, ack) in cases {
        let phy = PhySpec { standard: std.into(), rate_mbps: rate, cw_min: Some(0), cw_max: Some(0), ..Default::default() };
        let mut spec = plain(saturation_spec(phy, 1, 1000, false, 2.0, 1));
        spec.run.warmup_s = 0.0;
        // The DCF (DIFS) for every PHY here; EDCA's AIFS has its own check
        // (tests/model_conventions.rs).
        spec.mac.access = Some(wsec_model::edca::Access::Dcf);
        let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
        let difs = sifs + 2.0 * slot;
        let cycle = difs + data + sifs + ack;
        // k-th data frame ends at DIFS + k * cycle + DATA; count those by T = 2 s.
        let t = 2e6;
        let n = ((t - difs - data) / cycle).floor() + 1.0;
        let expect = n * 1000.0 * 8.0 / 2.0 / 1e6;
        let got = r.aggregate_throughput_mbps;
        println!("{std} {rate} Mb/s: exact {expect:.6} Mb/s, model {got:.6} Mb/s");
        assert!((got - expect).abs() < 1e-9, "{std} {rate}: exact {expect} vs model {got}");
    }
}

/// One saturated station with the standard backoff: throughput = payload / (DIFS + mean
/// backoff CWmin/2 slots + DATA + SIFS + ACK); the only randomness is the backoff.
#[test]
fn single_station_mean_backoff_matches_closed_form() {
    for (std, rate, slot, sifs, cwmin, data, ack) in [
        ("g", 54.0, 9.0, 10.0, 15.0, ofdm(1536.0, 54.0, 6.0), ofdm(14.0, 24.0, 6.0)),
        ("b", 11.0, 20.0, 10.0, 31.0, 192.0 + (8.0f64 * 1536.0 / 11.0).ceil(), 192.0 + 56.0),
    ] {
        let phy = PhySpec { standard: std.into(), rate_mbps: rate, ..Default::default() };
        let spec = plain(saturation_spec(phy, 1, 1472, false, 20.0, 3));
        let s = replicate(&spec, &Costs::shipped(), 2).unwrap();
        let expect = 1472.0 * 8.0 / (sifs + 2.0 * slot + cwmin / 2.0 * slot + data + sifs + ack);
        let err = (s.throughput_mbps.mean - expect) / expect;
        println!("{std}: closed form {expect:.4} Mb/s, model {:.4} ± {:.4}", s.throughput_mbps.mean, s.throughput_mbps.ci95);
        assert!(err.abs() < 0.003, "{std}: {expect} vs {}", s.throughput_mbps.mean);
    }
}

fn known_costs() -> Costs {
    let mut c = Costs::shipped();
    let lin = |a: f64, b: f64| Linear { a, b };
    let host = LocationCosts {
        source: "test".into(),
        suites: [("ccmp".to_string(), SuiteCost { encrypt: lin(3000.0, 2.0), decrypt: lin(4000.0, 3.0) })].into_iter().collect(),
        ..Default::default()
    };
    c.locations.insert("host".into(), host.clone());
    c.locations.insert("ap_cpu".into(), host);
    c
}

/// A lone low-rate CBR flow meets an idle medium: each packet waits for nothing, so its
/// delay is encryption + DATA + decryption exactly.
#[test]
fn lone_packet_delay_is_crypto_plus_airtime() {
    let mut spec = ModelSpec::default();
    spec.mac.beacons = false;
    spec.phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
    spec.topology.stations = 1;
    spec.topology.wired_host = false;
    spec.security.mode = "ccmp".into();
    spec.security.sta_crypto = "host".parse().unwrap();
    spec.security.ap_crypto = "ap_cpu".parse().unwrap();
    spec.flows = vec![FlowSpec {
        src: "sta1".into(),
        dst: "ap".into(),
        traffic: TrafficKind::Cbr,
        payload: 500,
        rate_mbps: 0.4,
        ..Default::default()
    }];
    spec.run.duration_s = 3.0;
    let r = run_once(&spec, &known_costs(), 9).unwrap();
    let body = 8.0 + 28.0 + 500.0;
    let mpdu = 28.0 + 16.0 + body;
    let expect_ms = (3000.0 + 2.0 * body + ofdm(mpdu, 54.0, 6.0) * 1e3 + 4000.0 + 3.0 * body) / 1e6;
    let f = &r.flows[0];
    println!("delay {:.6} ms (p95 {:.6}), expected {expect_ms:.6} ms, jitter {}", f.delay_mean_ms, f.delay_p95_ms, f.jitter_ms);
    assert!(f.received >= 150);
    assert!((f.delay_mean_ms - expect_ms).abs() < 1e-6);
    assert!((f.delay_p95_ms - expect_ms).abs() < 1e-6);
    assert!(f.jitter_ms.abs() < 1e-9);
    assert_eq!(f.loss_pct, 0.0);
}

/// A crypto stage slower than the air limits throughput to 1 / service time.
#[test]
fn slow_card_is_the_bottleneck() {
    let mut c = Costs::shipped();
    let slow = LocationCosts {
        source: "test".into(),
        suites: [("ccmp".to_string(), SuiteCost { encrypt: Linear { a: 1e6, b: 0.0 }, decrypt: Linear { a: 0.0, b: 0.0 } })]
            .into_iter()
            .collect(),
        ..Default::default()
    };
    c.locations.insert("card".into(), slow);
    c.locations.insert(
        "ap_cpu".into(),
        LocationCosts {
            source: "test".into(),
            suites: [("ccmp".to_string(), SuiteCost::default())].into_iter().collect(),
            ..Default::default()
        },
    );
    let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
    let mut spec = plain(saturation_spec(phy, 1, 1000, false, 5.0, 1));
    spec.security.mode = "ccmp".into();
    let r = run_once(&spec, &c, 1).unwrap();
    // 1 ms per frame: 1000 frames/s of 1000 octets = 8 Mb/s.
    println!("card-limited throughput {:.4} Mb/s", r.aggregate_throughput_mbps);
    assert!((r.aggregate_throughput_mbps - 8.0).abs() < 0.01);
}

/// With free crypto, saturation throughput falls with the per-MPDU overhead:
/// open (0) > WEP (8) > CCMP (16) > TKIP (20) > GCMP (24) octets, by the airtime formula.
#[test]
fn security_overhead_orders_throughput() {
    let mut c = Costs::shipped();
    let free: LocationCosts = LocationCosts {
        source: "test".into(),
        suites: ["wep-40", "tkip", "ccmp", "gcmp"].iter().map(|s| (s.to_string(), SuiteCost::default())).collect(),
        ..Default::default()
    };
    c.locations.insert("card".into(), free.clone());
    c.locations.insert("ap_cpu".into(), free);
    let mut last = f64::INFINITY;
    for mode in ["open", "wep-40", "ccmp", "tkip", "gcmp"] {
        // 802.11b at 11 Mb/s: 8 octets are 5.8 µs of airtime, visible at any payload.
        let phy = PhySpec { standard: "b".into(), rate_mbps: 11.0, cw_min: Some(0), cw_max: Some(0), ..Default::default() };
        let mut spec = plain(saturation_spec(phy, 1, 1400, false, 2.0, 1));
        spec.security.mode = mode.into();
        let t = run_once(&spec, &c, 1).unwrap().aggregate_throughput_mbps;
        println!("{mode}: {t:.4} Mb/s");
        assert!(t < last, "{mode} should be slower than the mode before it");
        last = t;
    }
}

#[test]
fn same_seed_same_result_and_replications_agree() {
    let phy = PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() };
    let spec = saturation_spec(phy, 10, 1472, false, 3.0, 42);
    let c = Costs::shipped();
    let a = serde_json::to_string(&run_once(&spec, &c, 42).unwrap()).unwrap();
    let b = serde_json::to_string(&run_once(&spec, &c, 42).unwrap()).unwrap();
    assert_eq!(a, b);
    let d = serde_json::to_string(&run_once(&spec, &c, 43).unwrap()).unwrap();
    assert_ne!(a, d);
    // Two independent sets of replications: their confidence intervals overlap.
    let mut s1 = spec.clone();
    s1.run.seed = 100;
    let mut s2 = spec.clone();
    s2.run.seed = 200;
    let e1 = replicate(&s1, &c, 6).unwrap().throughput_mbps;
    let e2 = replicate(&s2, &c, 6).unwrap().throughput_mbps;
    println!("{e1:?} {e2:?}");
    assert!(e1.ci95 > 0.0 && e2.ci95 > 0.0);
    assert!((e1.mean - e2.mean).abs() <= e1.ci95 + e2.ci95);
}

/// 802.11n A-MPDU, one saturated station, CW 0: each exchange is DIFS + one PPDU of 16
/// MPDUs (4-octet delimiter each, padded to 4 octets) + SIFS + BlockAck (32 octets at 24
/// Mb/s), so the count is exact.
#[test]
fn ampdu_single_station_is_exact() {
    let phy = PhySpec { standard: "n".into(), rate_mbps: 65.0, cw_min: Some(0), cw_max: Some(0), ..Default::default() };
    let mut spec = plain(saturation_spec(phy, 1, 1472, false, 2.0, 1));
    spec.mac.ampdu_max = 16;
    spec.run.warmup_s = 0.0;
    // DIFS timing (the DCF); EDCA's AIFS is checked in tests/model_conventions.rs.
    spec.mac.access = Some(wsec_model::edca::Access::Dcf);
    let r = run_once(&spec, &Costs::shipped(), 1).unwrap();
    let mpdu: f64 = 30.0 + 8.0 + 28.0 + 1472.0; // QoS Data header + FCS
    let sub = ((mpdu + 4.0) / 4.0).ceil() * 4.0;
    let psdu = 16.0 * sub;
    let data = 36.0 + 4.0 * ((16.0 + 8.0 * psdu + 6.0) / 260.0).ceil() + 6.0;
    let ba = ofdm(32.0, 24.0, 6.0);
    let (sifs, difs) = (10.0, 28.0);
    let cycle = difs + data + sifs + ba;
    let n = ((2e6 - difs - data) / cycle).floor() + 1.0;
    let expect = n * 16.0 * 1472.0 * 8.0 / 2.0 / 1e6;
    println!("A-MPDU x16: exact {expect:.6} Mb/s, model {:.6}", r.aggregate_throughput_mbps);
    assert!((r.aggregate_throughput_mbps - expect).abs() < 1e-9);
}
