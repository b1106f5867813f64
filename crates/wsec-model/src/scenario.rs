//! Scenario files, replications and sweeps.
//!
//! A scenario is a TOML file: the model's tables (`[phy]`, `[mac]`, `[topology]`,
//! `[security]`, `[headers]`, `[[flows]]`, `[run]`, see [`super::config`]) plus `name`,
//! `description`, `reference` (the paper's table or figure) and `[[case]]` entries. Each
//! case has a `name`, overrides of any key (`security.mode = "wep-40"`), and optionally a
//! `paper` table with the paper's figures for that case, printed beside the model's.
//! Replications of every case run in parallel on all cores (rayon); replication `r` uses
//! seed `run.seed + r`.
use super::config::{limits, FlowSpec, ModelSpec, PhySpec, TopologyKind, TrafficKind};
use super::costs::Costs;
use super::error::{Error, Result};
use super::sim::{run_once, RunResult};
use super::stats::Estimate;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// A parsed scenario file.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub reference: String,
    base: toml::Table,
    pub cases: Vec<Case>,
}

#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    overrides: toml::Table,
    /// The paper's figures for this case (metric name -> value).
    pub paper: BTreeMap<String, f64>,
}

/// Mean and CI of one metric of one flow over the replications.
#[derive(Debug, Clone, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub traffic: String,
    pub metrics: BTreeMap<String, Estimate>,
}

/// The replications of one configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub throughput_mbps: Estimate,
    pub flows: Vec<FlowSummary>,
    pub nodes: Vec<BTreeMap<String, serde_json::Value>>,
    pub runs: Vec<RunResult>,
}

/// The result of one case (and sweep value).
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub case: String,
    /// `param=value` when part of a sweep.
    pub point: Option<String>,
    pub summary: Summary,
    pub paper: BTreeMap<String, f64>,
}

fn merge(dst: &mut toml::Table, src: &toml::Table) {
    for (k, v) in src {
        match (dst.get_mut(k), v) {
            (Some(toml::Value::Table(d)), toml::Value::Table(s)) => merge(d, s),
            _ => {
                dst.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Sets `a.b.c = value` in `t` (value parsed as TOML, else taken as a string).
pub fn set_path(t: &mut toml::Table, path: &str, value: &str) -> Result<()> {
    let v: toml::Value = match toml::from_str::<toml::Table>(&format!("x = {value}")) {
        Ok(mut tt) => tt.remove("x").unwrap(),
        Err(_) => toml::Value::String(value.to_string()),
    };
    let parts: Vec<&str> = path.split('.').collect();
    let mut cur = t;
    for (i, p) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            cur.insert(p.to_string(), v);
            return Ok(());
        }
        // flows.N.key addresses the N-th flow (0-based).
        if *p == "flows" {
            let idx: usize =
                parts.get(i + 1).and_then(|s| s.parse().ok()).ok_or_else(|| Error::Spec("flows.<index>.<key>: index missing".into()))?;
            let arr = cur.get_mut("flows").and_then(|v| v.as_array_mut()).ok_or_else(|| Error::Spec("no [[flows]] to set".into()))?;
            let len = arr.len();
            let f = arr.get_mut(idx).and_then(|v| v.as_table_mut()).ok_or_else(|| Error::Spec(format!("flows has {len} entries")))?;
            return set_path(f, &parts[i + 2..].join("."), value);
        }
        cur = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()))
            .as_table_mut()
            .ok_or_else(|| Error::Spec(format!("{path}: '{p}' is not a table")))?;
    }
    Ok(())
}

impl Scenario {
    pub fn parse(text: &str) -> Result<Scenario> {
        let mut t: toml::Table = toml::from_str(text)?;
        let take_str = |t: &mut toml::Table, k: &str| t.remove(k).and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        let name = take_str(&mut t, "name");
        let description = take_str(&mut t, "description");
        let reference = take_str(&mut t, "reference");
        let mut cases = Vec::new();
        if let Some(v) = t.remove("case") {
            let arr = v.as_array().ok_or_else(|| Error::Scenario("case must be an array of tables ([[case]])".into()))?.clone();
            for (i, c) in arr.into_iter().enumerate() {
                let mut c = match c {
                    toml::Value::Table(c) => c,
                    _ => return Err(Error::Scenario(format!("case {} is not a table", i + 1))),
                };
                let name = c.remove("name").and_then(|v| v.as_str().map(String::from)).unwrap_or_else(|| format!("case{}", i + 1));
                let mut paper = BTreeMap::new();
                if let Some(p) = c.remove("paper") {
                    for (k, v) in p.as_table().ok_or_else(|| Error::Scenario("paper must be a table".into()))? {
                        let x = v
                            .as_float()
                            .or_else(|| v.as_integer().map(|i| i as f64))
                            .ok_or_else(|| Error::Scenario(format!("paper.{k} is not a number")))?;
                        paper.insert(k.clone(), x);
                    }
                }
                cases.push(Case { name, overrides: c, paper });
            }
        }
        if cases.is_empty() {
            cases.push(Case { name: "base".into(), overrides: Default::default(), paper: Default::default() });
        }
        let sc = Scenario { name, description, reference, base: t, cases };
        for c in &sc.cases {
            sc.spec(c, &[]).map_err(|e| Error::InCase { case: c.name.clone(), source: Box::new(e) })?;
        }
        Ok(sc)
    }

    /// Reads and parses a scenario file (at most [`wsec_base::input::limits::MODEL_FILE`] octets).
    pub fn load(path: &std::path::Path) -> Result<Scenario> {
        let text = super::costs::read_model_file(path)?;
        Scenario::parse(&text).map_err(Error::in_file(path))
    }

    /// The model spec of `case` with `params` (`path`, `value`) applied on top.
    pub fn spec(&self, case: &Case, params: &[(String, String)]) -> Result<ModelSpec> {
        let mut t = self.base.clone();
        merge(&mut t, &case.overrides);
        for (p, v) in params {
            set_path(&mut t, p, v)?;
        }
        let spec: ModelSpec = toml::Value::Table(t).try_into()?;
        spec.check_limits()?;
        spec.phy.build()?;
        spec.security.suite()?;
        Ok(spec)
    }

    /// Runs every case (each at every point of `sweep`, if given) with all replications in
    /// parallel. `progress` is called after each finished replication.
    pub fn run(
        &self,
        costs: &Costs,
        params: &[(String, String)],
        sweep: Option<(&str, &[String])>,
        replications: Option<usize>,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<CaseResult>> {
        let mut points: Vec<(usize, Option<String>, ModelSpec)> = Vec::new();
        for (ci, c) in self.cases.iter().enumerate() {
            match sweep {
                None => points.push((ci, None, self.spec(c, params)?)),
                Some((path, values)) => {
                    for v in values {
                        let mut ps = params.to_vec();
                        ps.push((path.to_string(), v.clone()));
                        points.push((ci, Some(format!("{path}={v}")), self.spec(c, &ps)?));
                    }
                }
            }
        }
        if let Some(r) = replications.filter(|&r| r > limits::REPLICATIONS) {
            return Err(Error::Spec(format!("replications = {r} exceeds the limit of {}", limits::REPLICATIONS)));
        }
        let n_jobs: usize = points.iter().map(|(_, _, s)| replications.unwrap_or(s.run.replications).max(1)).sum();
        if n_jobs > limits::JOBS {
            return Err(Error::Spec(format!("{n_jobs} runs (cases x sweep points x replications) exceed the limit of {}", limits::JOBS)));
        }
        let jobs: Vec<(usize, u64)> = points
            .iter()
            .enumerate()
            .flat_map(|(pi, (_, _, s))| {
                let r = replications.unwrap_or(s.run.replications).max(1);
                (0..r as u64).map(move |k| (pi, s.run.seed + k))
            })
            .collect();
        let runs: Vec<(usize, Result<RunResult>)> = jobs
            .par_iter()
            .map(|&(pi, seed)| {
                let r = run_once(&points[pi].2, costs, seed);
                progress();
                (pi, r)
            })
            .collect();
        let mut by_point: Vec<Vec<RunResult>> = vec![Vec::new(); points.len()];
        for (pi, r) in runs {
            by_point[pi].push(r?);
        }
        Ok(points
            .into_iter()
            .zip(by_point)
            .map(|((ci, point, _), runs)| CaseResult {
                case: self.cases[ci].name.clone(),
                point,
                summary: summarize(runs),
                paper: self.cases[ci].paper.clone(),
            })
            .collect())
    }

    /// Number of replications the run will make (for a progress bar).
    pub fn jobs(&self, params: &[(String, String)], sweep_len: usize, replications: Option<usize>) -> usize {
        self.cases
            .iter()
            .map(|c| self.spec(c, params).map(|s| replications.unwrap_or(s.run.replications).max(1)).unwrap_or(1) * sweep_len.max(1))
            .sum()
    }
}

/// Runs `replications` of `spec` in parallel (seeds `run.seed`, `run.seed + 1`, ...).
pub fn replicate(spec: &ModelSpec, costs: &Costs, replications: usize) -> Result<Summary> {
    if replications > limits::REPLICATIONS {
        return Err(Error::Spec(format!("replications = {replications} exceeds the limit of {}", limits::REPLICATIONS)));
    }
    spec.check_limits()?;
    let runs: Result<Vec<RunResult>> =
        (0..replications.max(1) as u64).into_par_iter().map(|k| run_once(spec, costs, spec.run.seed + k)).collect();
    Ok(summarize(runs?))
}

/// Means and confidence intervals over the runs.
pub fn summarize(runs: Vec<RunResult>) -> Summary {
    let est = |f: &dyn Fn(&RunResult) -> f64| Estimate::of(&runs.iter().map(f).filter(|x| x.is_finite()).collect::<Vec<_>>());
    let throughput_mbps = est(&|r| r.aggregate_throughput_mbps);
    let mut flows = Vec::new();
    if let Some(first) = runs.first() {
        for (i, f) in first.flows.iter().enumerate() {
            let mut metrics = BTreeMap::new();
            let mut add = |k: &str, g: &dyn Fn(&super::sim::FlowResult) -> Option<f64>| {
                let xs: Vec<f64> = runs.iter().filter_map(|r| g(&r.flows[i])).filter(|x| x.is_finite()).collect();
                if !xs.is_empty() {
                    metrics.insert(k.to_string(), Estimate::of(&xs));
                }
            };
            add("throughput_mbps", &|f| Some(f.throughput_mbps));
            add("loss_pct", &|f| Some(f.loss_pct));
            add("delay_mean_ms", &|f| Some(f.delay_mean_ms));
            add("delay_p95_ms", &|f| Some(f.delay_p95_ms));
            add("jitter_ms", &|f| Some(f.jitter_ms));
            add("ipdv_mean_ms", &|f| Some(f.ipdv_mean_ms));
            add("retransmits", &|f| Some(f.retransmits as f64));
            add("drops", &|f| Some(f.drops as f64));
            add("completion_s", &|f| f.completion_s);
            flows.push(FlowSummary { name: f.name.clone(), src: f.src.clone(), dst: f.dst.clone(), traffic: f.traffic.clone(), metrics });
        }
    }
    if flows.len() > 1 {
        let mut metrics = BTreeMap::new();
        metrics.insert("throughput_mbps".to_string(), throughput_mbps);
        flows.push(FlowSummary { name: "total".into(), src: "-".into(), dst: "-".into(), traffic: "all".into(), metrics });
    }
    let mut nodes = Vec::new();
    if let Some(first) = runs.first() {
        for (i, n) in first.nodes.iter().enumerate() {
            let mut m = BTreeMap::new();
            m.insert("name".to_string(), serde_json::Value::String(n.name.clone()));
            let keys = [
                "tx_attempts",
                "tx_success",
                "collisions",
                "frame_errors",
                "retry_drops",
                "queue_drops",
                "crypto_drops",
                "ethernet_drops",
                "crypto_utilisation",
                "mean_rate_mbps",
            ];
            for k in keys {
                let xs: Vec<f64> = runs.iter().map(|r| serde_json::to_value(&r.nodes[i]).unwrap()[k].as_f64().unwrap_or(0.0)).collect();
                m.insert(k.to_string(), serde_json::to_value(Estimate::of(&xs)).unwrap());
            }
            nodes.push(m);
        }
    }
    Summary { throughput_mbps, flows, nodes, runs }
}

/// The classic saturation case: `stations` stations, each always with a `payload`-octet
/// UDP datagram for the AP, no wired host.
pub fn saturation_spec(phy: PhySpec, stations: usize, payload: usize, rts: bool, duration_s: f64, seed: u64) -> ModelSpec {
    let mut s = ModelSpec { phy, ..Default::default() };
    s.topology.kind = TopologyKind::Infrastructure;
    s.topology.stations = stations;
    s.topology.wired_host = false;
    s.mac.rts_threshold = if rts { Some(0) } else { None };
    s.run.duration_s = duration_s;
    s.run.warmup_s = (duration_s * 0.1).min(1.0);
    s.run.drain_s = 0.0;
    s.run.seed = seed;
    s.flows = (1..=stations)
        .map(|i| FlowSpec { src: format!("sta{i}"), dst: "ap".into(), traffic: TrafficKind::Saturated, payload, ..Default::default() })
        .collect();
    s
}
