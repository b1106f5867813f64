//! Traffic sources, TCP, scenario files, cost files: each against an independent
//! expectation (offered load, every byte delivered, NewReno recovering from losses, the
//! shipped scenarios parsing and running, the hardware report format of hw/run).
use wsec_model::config::{FlowSpec, PhySpec, TrafficKind};
use wsec_model::costs::{Costs, Location};
use wsec_model::tcp::{Seg, TcpParams, TcpReceiver, TcpSender};
use wsec_model::{run_once, ModelSpec, Scenario};

fn spec_with(flow: FlowSpec) -> ModelSpec {
    let mut s = ModelSpec { phy: PhySpec { standard: "g".into(), rate_mbps: 54.0, ..Default::default() }, ..Default::default() };
    s.topology.stations = 2;
    s.flows = vec![flow];
    s.run.duration_s = 12.0;
    s.run.warmup_s = 2.0;
    s
}

#[test]
fn light_cbr_poisson_and_video_deliver_their_offered_rate() {
    for (traffic, rate) in [(TrafficKind::Cbr, 3.0), (TrafficKind::Poisson, 3.0), (TrafficKind::Video, 6.0)] {
        let f = FlowSpec { src: "sta1".into(), dst: "wired".into(), traffic, payload: 1000, rate_mbps: rate, ..Default::default() };
        let r = run_once(&spec_with(f), &Costs::shipped(), 7).unwrap();
        let fl = &r.flows[0];
        println!(
            "{traffic:?}: {:.3} Mb/s (offered {rate}), loss {:.2}%, delay {:.3} ms, jitter {:.3} ms",
            fl.throughput_mbps, fl.loss_pct, fl.delay_mean_ms, fl.jitter_ms
        );
        // Poisson and VBR video fluctuate around their mean over 10 s.
        let tol = if traffic == TrafficKind::Cbr { 0.01 } else { 0.06 };
        assert!((fl.throughput_mbps - rate).abs() / rate < tol);
        assert!(fl.loss_pct < 0.5);
    }
}

#[test]
fn video_bursts_raise_delay_over_cbr_at_the_same_rate() {
    let mk = |traffic| FlowSpec { src: "sta1".into(), dst: "sta2".into(), traffic, payload: 1316, rate_mbps: 8.0, ..Default::default() };
    let cbr = run_once(&spec_with(mk(TrafficKind::Cbr)), &Costs::shipped(), 3).unwrap().flows[0].clone();
    let vid = run_once(&spec_with(mk(TrafficKind::Video)), &Costs::shipped(), 3).unwrap().flows[0].clone();
    println!(
        "cbr delay {:.3} ms p95 {:.3}; video delay {:.3} ms p95 {:.3}",
        cbr.delay_mean_ms, cbr.delay_p95_ms, vid.delay_mean_ms, vid.delay_p95_ms
    );
    assert!(vid.delay_p95_ms > 5.0 * cbr.delay_p95_ms);
}

#[test]
fn tcp_file_transfer_delivers_every_byte_and_ack_clocks() {
    let f = FlowSpec { src: "sta1".into(), dst: "wired".into(), traffic: TrafficKind::File, file_bytes: 5_000_000, ..Default::default() };
    let mut s = spec_with(f);
    s.run.duration_s = 60.0;
    s.run.warmup_s = 0.0;
    let r = run_once(&s, &Costs::shipped(), 1).unwrap();
    let fl = &r.flows[0];
    let t = fl.completion_s.expect("transfer finishes");
    println!("5 MB over 802.11g: {t:.3} s ({:.2} Mb/s), {} retransmits", 40.0 / t, fl.retransmits);
    assert!(t > 40.0 / 30.0 && t < 40.0 / 10.0, "{t}");
    assert_eq!(fl.retransmits, 0);
}

#[test]
fn tcp_survives_a_lossy_link_with_fast_retransmit() {
    // A retry limit of 1 with 10% frame errors drops 10% of the frames (data and ACKs) at
    // the MAC, which TCP must repair.
    let f = FlowSpec { src: "sta1".into(), dst: "wired".into(), traffic: TrafficKind::File, file_bytes: 2_000_000, ..Default::default() };
    let mut s = spec_with(f);
    s.mac.frame_error_rate = 0.1;
    s.mac.short_retry_limit = 1;
    s.run.duration_s = 300.0;
    s.run.warmup_s = 0.0;
    let r = run_once(&s, &Costs::shipped(), 5).unwrap();
    let fl = &r.flows[0];
    println!("lossy: {:?} s, {} retransmits, {} timeouts, {} drops", fl.completion_s, fl.retransmits, fl.timeouts, fl.drops);
    assert!(fl.completion_s.is_some());
    // About 10% of ~1400 segments are lost; most are repaired by fast retransmit.
    assert!(fl.retransmits > 50);
    assert!(fl.drops > 50);
    assert!(fl.timeouts < fl.retransmits / 2);
}

#[test]
fn newreno_partial_ack_and_delayed_ack_rules() {
    let p = TcpParams { init_cwnd: 10, ..Default::default() };
    let mut tx = TcpSender::new(p.clone(), None);
    let mut out: Vec<Seg> = Vec::new();
    tx.send_more(0, &mut out);
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|s| s.len == 1460 && !s.retx));
    // Segment 0 lost: the receiver sees 1..10 and duplicate-ACKs 0 each time.
    let mut rx = TcpReceiver::new(&p);
    let mut acks = Vec::new();
    for s in &out[1..] {
        let o = rx.on_segment(1_000_000, s.seq, s.len);
        assert_eq!(o.delivered, 0);
        acks.push(o.ack_now.expect("out of order: immediate ACK"));
    }
    assert!(acks.iter().all(|&a| a == 0));
    let mut sent = Vec::new();
    for (i, &a) in acks.iter().enumerate() {
        tx.on_ack(2_000_000 + i as u64, a, &mut sent);
        if i == 2 {
            assert_eq!(sent[0], Seg { seq: 0, len: 1460, retx: true }, "fast retransmit on the third duplicate");
        }
    }
    assert_eq!(tx.fast_retransmits, 1);
    // The retransmission fills the hole: everything delivered, ACK at once.
    let o = rx.on_segment(3_000_000, 0, 1460);
    assert_eq!(o.delivered, 14600);
    assert_eq!(o.ack_now, Some(14600));
    // In-order data: the second segment is ACKed, the first waits for the timer.
    let a = rx.on_segment(4_000_000, 14600, 1460);
    assert!(a.ack_now.is_none() && a.arm_delack.is_some());
    let b = rx.on_segment(4_000_100, 16060, 1460);
    assert_eq!(b.ack_now, Some(17520));
}

#[test]
fn shipped_scenarios_parse_and_run_briefly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("toml") {
            continue;
        }
        let sc = Scenario::load(&p).unwrap();
        assert!(!sc.reference.is_empty(), "{}: reference missing", p.display());
        let params = vec![("run.duration_s".to_string(), "3".to_string()), ("run.warmup_s".to_string(), "0.5".to_string())];
        let res = sc.run(&Costs::shipped(), &params, None, Some(1), &|| {}).unwrap();
        assert_eq!(res.len(), sc.cases.len());
        for r in &res {
            assert!(r.summary.runs[0].events > 100, "{} {}: nothing happened", p.display(), r.case);
        }
        n += 1;
    }
    assert!(n >= 6);
}

#[test]
fn scenario_errors_are_clear() {
    let bad = "name = 'x'\n[phy]\nstandard = 'q'\n";
    let e = Scenario::parse(bad).unwrap_err();
    assert!(matches!(&e, wsec_model::Error::InCase { source, .. } if matches!(**source, wsec_model::Error::Spec(_))), "{e:?}");
    assert!(e.to_string().contains("unknown PHY"), "{e}");
    let typo = "name = 'x'\n[mac]\nqueue_limt = 3\n";
    assert!(Scenario::parse(typo).unwrap_err().to_string().contains("queue_limt"));
    let node = "name = 'x'\n[[flows]]\nsrc = 'sta9'\ndst = 'ap'\n";
    let sc = Scenario::parse(node).unwrap();
    let e = sc.run(&Costs::shipped(), &[], None, Some(1), &|| {}).unwrap_err();
    assert!(matches!(e, wsec_model::Error::Spec(_)), "{e:?}");
    assert!(e.to_string().contains("sta9"), "{e}");
}

#[test]
fn cost_file_round_trips_and_reads_the_hw_report() {
    let c = Costs::shipped();
    let again = Costs::from_json(&c.to_json()).unwrap();
    assert_eq!(c, again);
    // Every location has a source; the card's times derive from instructions / (MHz x IPC).
    for (k, l) in &c.locations {
        assert!(!l.source.is_empty(), "{k}");
    }
    let card = &c.locations["card"];
    let ins = card.instructions.as_ref().unwrap()["ccmp"].encrypt;
    let per_ns = card.clock_mhz.unwrap() * 1e-3 * card.ipc.unwrap();
    let t = c.frame_ns(Location::Card, wsec_base::CipherSuite::Ccmp128, true, 1500).unwrap();
    assert!((t - ins.at(1500) / per_ns).abs() < 1e-6);
    // The shipped AP engine is wsec's own Verilog: the committed hw/run report, read here
    // independently of the library's selection code.
    let shipped = &c.locations["ap_hw_engine"];
    assert!(shipped.source.contains("docs/results/hw-report.json"), "{}", shipped.source);
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/hw-report.json")).unwrap();
    let recs: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let best = recs
        .iter()
        .filter(|r| r["lanes"].as_f64() == Some(1.0) && !r["config"].as_str().unwrap().starts_with("ccm16e"))
        .filter(|r| r["fmax_mhz"].as_f64().is_some() && r["cycles_frame_1500"].as_f64().is_some())
        .max_by(|a, b| a["fmax_mhz"].as_f64().unwrap().total_cmp(&b["fmax_mhz"].as_f64().unwrap()))
        .expect("the committed report has a placed-and-routed 1-lane CCMP engine");
    let hw = shipped.hw.as_ref().unwrap();
    assert_eq!(hw.config, best["config"].as_str().unwrap());
    let frame_ns = best["cycles_frame_1500"].as_f64().unwrap() * 1e3 / best["fmax_mhz"].as_f64().unwrap();
    let t = c.frame_ns(Location::ApHwEngine, wsec_base::CipherSuite::Ccmp128, true, 1500).unwrap();
    let half_block_ns = best["cycles_per_block"].as_f64().unwrap() * 1e3 / best["fmax_mhz"].as_f64().unwrap();
    assert!((t - frame_ns).abs() <= half_block_ns, "{t} vs {frame_ns}");
    // A report in hw/run's format replaces the placeholder.
    let dir = std::env::temp_dir().join(format!("wsec-hw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rep = dir.join("report.json");
    std::fs::write(
        &rep,
        r#"[{"config":"aes-r1","target":"ice40","lanes":null,"rounds_per_clock":1,"sbox":"rom","luts":900,"ffs":300,"brams":8,"fmax_mhz":90.0,"cycles_per_block":10,"cycles_frame_1500":null,"gbps":1.1},
            {"config":"ccm-r1-k1-unrouted","target":null,"lanes":1,"rounds_per_clock":1,"sbox":"rom","luts":null,"ffs":null,"brams":null,"fmax_mhz":null,"cycles_per_block":10,"cycles_frame_1500":1000,"gbps":null},
            {"config":"ccm-r1-k1","target":"ice40","lanes":1,"rounds_per_clock":1,"sbox":"rom","luts":3000,"ffs":900,"brams":8,"fmax_mhz":50.0,"cycles_per_block":11,"cycles_frame_1500":1100,"gbps":0.58},
            {"config":"ccm-r1-k4","target":"ice40","lanes":4,"rounds_per_clock":1,"sbox":"rom","luts":9000,"ffs":2000,"brams":8,"fmax_mhz":45.0,"cycles_per_block":3,"cycles_frame_1500":400,"gbps":1.9}]"#,
    )
    .unwrap();
    let mut c2 = Costs::shipped();
    c2.apply_hw_report(&rep, None).unwrap();
    let hw = c2.locations["ap_hw_engine"].hw.clone().unwrap();
    assert_eq!(hw.config, "ccm-r1-k1");
    assert_eq!(hw.overhead_cycles, 1100.0 - 11.0 * 94.0);
    // 1500 octets: (overhead + 94 blocks x 11 cycles) / 50 MHz, within the half-block
    // linearisation.
    let t = c2.frame_ns(Location::ApHwEngine, wsec_base::CipherSuite::Ccmp128, true, 1500).unwrap();
    assert!((t - 1100.0 * 20.0).abs() <= 11.0 * 20.0, "{t}");
    c2.apply_hw_report(&rep, Some("ccm-r1-k4")).unwrap();
    let k4 = c2.locations["ap_hw_engine"].hw.clone().unwrap();
    assert_eq!(k4.fmax_mhz, 45.0);
    assert_eq!(k4.cycles_per_block, 0.75); // 3 cycles per 4 blocks
    assert!(c2.apply_hw_report(&rep, Some("aes-r1")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Random configurations: no panic, and the invariants every run must keep (nothing
/// delivered that was not sent, no more payload than the PHY rate, percentages in range).
#[test]
fn random_configurations_keep_invariants() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    let phys = [("b", 11.0), ("b", 1.0), ("a", 6.0), ("g", 54.0), ("g", 24.0), ("n", 65.0), ("n", 72.2), ("n", 6.5)];
    let modes = ["open", "wep-40", "wep-104", "tkip", "ccmp", "ccmp-256", "gcmp", "gcmp-256"];
    let kinds = [TrafficKind::Saturated, TrafficKind::Cbr, TrafficKind::Poisson, TrafficKind::Video, TrafficKind::Tcp, TrafficKind::File];
    for case in 0..300 {
        let (std, rate) = phys[rng.gen_range(0..phys.len())];
        let mut s = ModelSpec { phy: PhySpec { standard: std.into(), rate_mbps: rate, ..Default::default() }, ..Default::default() };
        s.topology.kind =
            if rng.gen_bool(0.3) { wsec_model::config::TopologyKind::Adhoc } else { wsec_model::config::TopologyKind::Infrastructure };
        s.topology.stations = rng.gen_range(1..6);
        s.topology.wired_host = rng.gen_bool(0.5);
        s.security.mode = modes[rng.gen_range(0..modes.len())].into();
        s.security.sta_crypto = [Location::Card, Location::Host][rng.gen_range(0..2)];
        s.mac.rts_threshold = if rng.gen_bool(0.3) { Some(rng.gen_range(0..2000)) } else { None };
        s.mac.queue_limit = rng.gen_range(1..200);
        s.mac.frame_error_rate = if rng.gen_bool(0.3) { rng.gen_range(0.0..0.5) } else { 0.0 };
        s.mac.eifs = rng.gen_bool(0.5);
        s.mac.retries = rng.gen_bool(0.8);
        if std == "n" && rng.gen_bool(0.5) {
            s.mac.ampdu_max = rng.gen_range(2..32);
        }
        let mut names: Vec<String> = (1..=s.topology.stations).map(|i| format!("sta{i}")).collect();
        if s.topology.kind == wsec_model::config::TopologyKind::Infrastructure {
            names.push("ap".into());
            if s.topology.wired_host {
                names.push("wired".into());
            }
        }
        for _ in 0..rng.gen_range(1..4) {
            let src = names[rng.gen_range(0..names.len())].clone();
            let mut dst = names[rng.gen_range(0..names.len())].clone();
            if dst == src {
                dst = names.iter().find(|n| **n != src).cloned().unwrap_or_default();
            }
            if dst.is_empty() {
                continue;
            }
            let traffic = kinds[rng.gen_range(0..kinds.len())];
            if traffic == TrafficKind::Saturated && !src.starts_with("sta") && src != "ap" {
                continue;
            }
            s.flows.push(FlowSpec {
                src,
                dst,
                traffic,
                payload: rng.gen_range(1..2000),
                rate_mbps: rng.gen_range(0.1..30.0),
                file_bytes: rng.gen_range(1..300_000),
                ..Default::default()
            });
        }
        s.run.duration_s = 1.5;
        s.run.warmup_s = 0.2;
        s.run.drain_s = 0.3;
        let r = match run_once(&s, &Costs::shipped(), case) {
            Ok(r) => r,
            Err(e) => panic!("case {case}: valid configuration refused: {e}\n{s:?}"),
        };
        let mut total = 0.0;
        for f in &r.flows {
            assert!(f.received <= f.sent || f.traffic == "tcp" || f.traffic == "file", "case {case}: {f:?}");
            assert!((0.0..=100.0).contains(&f.loss_pct), "case {case}: {f:?}");
            let cap = rate + 100.0 * s.topology.wired_host as u8 as f64;
            if f.traffic == "file" {
                // Measured over the transfer's own lifetime: bounded alone.
                assert!(f.throughput_mbps <= cap, "case {case}: {f:?}");
            } else {
                total += f.throughput_mbps;
            }
        }
        // Each flow's payload crosses the medium or the Ethernet link at least once, so the
        // sum over concurrent flows is bounded by the PHY rate plus the Ethernet rate.
        assert!(
            total <= rate + 100.0 * s.topology.wired_host as u8 as f64,
            "case {case}: {total} Mb/s on a {rate} Mb/s PHY\n{:?}\n{:?}",
            s.flows.iter().map(|f| (&f.src, &f.dst, f.traffic, f.file_bytes)).collect::<Vec<_>>(),
            r.flows
        );
    }
}
