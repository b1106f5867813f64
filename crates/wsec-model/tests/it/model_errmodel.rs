//! The error model against ns-3 3.37's NistErrorRateModel: chunk success rates for every
//! OFDM and HT rate at 0-30 dB and 8, 1000 and 12000 bits, as ns-3 computed them
//! (tests/data/ns3-nist-chunk-success.json, printed by scripts/ns3/nist-chunk-rates.cc
//! linked against Debian's libns3-dev 3.37-2).
use wsec_model::errmodel::chunk_success_rate;
use wsec_model::phy::PhyKind;

#[test]
fn chunk_success_matches_ns3() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ns3-nist-chunk-success.json")).unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(rows.len(), 16 * 31 * 3);
    let mut worst = 0.0f64;
    let mut transitions = 0;
    for r in &rows {
        let mode = r["mode"].as_str().unwrap();
        let (kind, rate) = if let Some(x) = mode.strip_prefix("ofdm") {
            (PhyKind::A, x.parse::<u32>().unwrap() * 1000)
        } else {
            let mcs: usize = mode.strip_prefix("ht").unwrap().parse().unwrap();
            (PhyKind::N, [6500, 13000, 19500, 26000, 39000, 52000, 58500, 65000][mcs])
        };
        let (db, bits, want) = (r["snr_db"].as_f64().unwrap(), r["bits"].as_u64().unwrap(), r["success"].as_f64().unwrap());
        let got = chunk_success_rate(kind, false, rate, db, bits).unwrap();
        if want > 0.01 && want < 0.99 {
            transitions += 1;
        }
        worst = worst.max((got - want).abs());
        assert!((got - want).abs() < 1e-6, "{mode} {db} dB {bits} bits: {got} vs ns-3 {want}");
    }
    println!("{} points, {transitions} in a transition, worst |difference| {worst:e}", rows.len());
    assert!(transitions > 20, "the vectors must cover the curves' slopes, not only 0 and 1");
}
