//! `wsec bench ccmp --quick --json`: the records have the documented fields, every
//! implementation was verified before timing (the command aborts otherwise), and the
//! tables' rows exist. No timing is asserted.
use std::process::Command;

#[test]
fn bench_ccmp_json_has_the_documented_records() {
    let out = Command::new(env!("CARGO_BIN_EXE_wsec"))
        .args(["bench", "ccmp", "--quick", "--json", "--sizes", "64,1500"])
        .output()
        .expect("run wsec");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["cpu"].as_str().is_some_and(|s| !s.is_empty()));
    let recs = v["records"].as_array().expect("records");
    for r in recs {
        for k in ["impl", "op", "frame_bytes", "lanes", "frames_in_flight", "ns_per_frame", "ticks_per_byte"] {
            assert!(!r[k].is_null(), "record lacks {k}: {r}");
        }
        assert!(["mic", "ctr", "encap", "decap"].contains(&r["op"].as_str().unwrap()));
        assert!(r["ns_per_frame"].as_f64().unwrap() > 0.0);
    }
    let has = |imp: &str, op: &str, size: u64, lanes: u64| {
        recs.iter().any(|r| r["impl"] == imp && r["op"] == op && r["frame_bytes"] == size && r["lanes"] == lanes)
    };
    for k in [1, 2, 4, 8] {
        assert!(has("wsec", "mic", 1500, k), "Table I row {k}");
        assert!(has("wsec", "ctr", 1500, k), "Table II row {k}");
    }
    for imp in ["wsec", "wsec-mb", "openssl", "rustcrypto-ccm"] {
        assert!(has(imp, "encap", 64, 1) && has(imp, "decap", 1500, 1), "{imp}");
    }
}

#[test]
fn bench_ccmp_refuses_bad_sizes() {
    let out = Command::new(env!("CARGO_BIN_EXE_wsec")).args(["bench", "ccmp", "--sizes", "0"]).output().expect("run wsec");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bench_relay_json_checks_the_relay_and_reports_rates() {
    let out = Command::new(env!("CARGO_BIN_EXE_wsec"))
        .args(["bench", "relay", "--frames", "300", "--reps", "1", "--json"])
        .output()
        .expect("run wsec");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let recs = v["records"].as_array().expect("records");
    let modes: Vec<&str> = recs.iter().map(|r| r["mode"].as_str().unwrap()).collect();
    assert_eq!(modes, ["one at a time", "multi-buffer batches", "one engine, crypto on all cores", "one engine per core"]);
    let cores = v["cores"].as_u64().unwrap();
    assert_eq!(recs[2]["threads"].as_u64(), Some(cores), "the AP engine's pool has a thread per core");
    for r in recs {
        assert!(r["frames_per_s"].as_f64().unwrap() > 0.0 && r["gbps_per_core"].as_f64().unwrap() > 0.0, "{r}");
    }
}
