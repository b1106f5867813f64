//! `wsec model` end to end: the saturation line, a scenario run and a sweep (table, JSON,
//! CSV, SVG), the cost file writer, and clear errors.
use std::process::Command;

fn wsec(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run wsec");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).to_string(), String::from_utf8_lossy(&o.stderr).to_string())
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wsec-model-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn saturation_json_has_throughput_and_ci() {
    let args = ["model", "saturation", "--phy", "g", "--rate", "54", "--stations", "5", "--payload", "1472", "--duration", "3"];
    let args = [&args[..], &["--seed", "7", "--replications", "4", "--json"]].concat();
    let (rc, out, err) = wsec(&args);
    assert_eq!(rc, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = v["throughput_mbps"].as_f64().unwrap();
    let ci = v["ci95"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    // Five saturated 802.11g stations at 54 Mb/s carry 25-31 Mb/s of UDP payload.
    assert!(t > 25.0 && t < 31.0, "{t}");
    assert!(lo < t && t < hi && hi - lo < 1.0, "{lo} {t} {hi}");
    assert_eq!(v["runs_mbps"].as_array().unwrap().len(), 4);
    assert_eq!(v["per_station_mbps"].as_array().unwrap().len(), 5);
    // Same seed, same numbers.
    let (_, again, _) = wsec(&args);
    let w: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(v["runs_mbps"], w["runs_mbps"]);
}

#[test]
fn run_and_sweep_write_table_json_csv_and_svg() {
    let sc = "../../scenarios/seed002_table1_wireless_to_wired.toml";
    let (rc, out, err) = wsec(&["model", "run", sc, "--set", "run.duration_s=3", "--set", "run.warmup_s=0.5", "--replications", "2"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("TCP WPA-PSK") && out.contains("throughput_mbps=8.571"), "{out}");
    let csv = tmp("sweep.csv");
    let svg = tmp("sweep.svg");
    let (rc, out, err) = wsec(&[
        "model",
        "sweep",
        "../../scenarios/saturation_g54.toml",
        "--param",
        "topology.stations=1,4",
        "--set",
        "run.duration_s=2",
        "--replications",
        "2",
        "--json",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4); // 2 cases x 2 points
    assert_eq!(cases[0]["point"], "topology.stations=1");
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.starts_with("case,point,flow,") && csv.contains("topology.stations=4"));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("saturation-g54"));
}

#[test]
fn costs_writes_a_loadable_file_with_sources() {
    let out = tmp("costs.json");
    let (rc, text, err) = wsec(&["model", "costs", "--no-host", "-o", out.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    assert!(text.contains("wrote"));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["format"], "wsec-model-costs/1");
    for loc in ["host", "ap_cpu", "card", "ap_hw_engine"] {
        assert!(!v["locations"][loc]["source"].as_str().unwrap().is_empty(), "{loc}");
    }
    // The file drives a run.
    let (rc, _, err) = wsec(&[
        "model",
        "run",
        "../../scenarios/seed002_table3_adhoc.toml",
        "--costs",
        out.to_str().unwrap(),
        "--set",
        "run.duration_s=2",
        "--set",
        "run.warmup_s=0.5",
        "--replications",
        "1",
    ]);
    assert_eq!(rc, 0, "{err}");
}

#[test]
fn bad_model_input_gives_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["model", "saturation", "--phy", "q", "--rate", "54", "--stations", "2"], "unknown PHY"),
        (&["model", "saturation", "--phy", "g", "--rate", "55", "--stations", "2"], "OFDM offers"),
        (&["model", "sweep", "../../scenarios/saturation_g54.toml", "--param", "x"], "PATH=VALUES"),
        (&["model", "run", "../../scenarios/saturation_g54.toml", "--set", "mac.bogus=1"], "bogus"),
        (&["model", "run", "../../scenarios/saturation_g54.toml", "--plot", "x.pdf"], ".svg or .png"),
    ];
    for (args, want) in cases {
        let (rc, _, err) = wsec(args);
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    // A missing scenario is a missing input (exit 1, docs/cli.md), named.
    let (rc, _, err) = wsec(&["model", "run", "no-such.toml"]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("no-such.toml"), "{err}");
}
