//! The verdict per paper: its headline claims, wsec's figure for each, and whether wsec
//! reproduces them, computed from the tables' rows (so a verdict moves with the figures).
use crate::html::num;
use crate::{Row, Spread, Table};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub seed: String,
    pub claim: String,
    pub paper: String,
    pub ours: String,
    /// `reproduced`, `direction only`, `not reproduced` or `not comparable`.
    pub verdict: String,
    /// `measured` (a benchmark or the live system), `predicted` (the model or the Verilog,
    /// nothing fitted to this claim), `fitted` (the model's card speed is calibrated on this
    /// very figure, so agreement is by construction) or `none`.
    pub basis: String,
    /// The table the figures come from.
    pub table: String,
    /// The rows of `table` the figures come from (the page links ours to their command).
    pub rows: Vec<String>,
    /// Ours is a smoke figure of a quick run.
    pub smoke: bool,
}

/// How a claim is judged.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// An effect beyond `neutral` (1 for a speed-up, 0 for a loss): reproduced when ours
    /// lies on the paper's side of `neutral` (its whole spread) and its excess over
    /// `neutral` is within `tol` of the paper's; direction only when only the side agrees.
    Effect { neutral: f64, tol: f64 },
    /// An upper bound ("only about 20 %", "tens of microseconds"): reproduced when ours is at
    /// most the paper's figure times (1 + `tol`).
    AtMost { tol: f64 },
}

/// The verdict of paper figure `p` against ours `o` with spread `lo..hi`.
pub fn grade(rule: Rule, p: f64, o: f64, lo: f64, hi: f64) -> &'static str {
    match rule {
        Rule::Effect { neutral, tol } => {
            let side = (p - neutral).signum();
            let same_side =
                side != 0.0 && (lo - neutral).signum() == side && (hi - neutral).signum() == side && (o - neutral).signum() == side;
            if !same_side {
                "not reproduced"
            } else if ((o - neutral) / (p - neutral) - 1.0).abs() <= tol {
                "reproduced"
            } else {
                "direction only"
            }
        }
        Rule::AtMost { tol } => {
            if o <= p * (1.0 + tol) {
                "reproduced"
            } else {
                "not reproduced"
            }
        }
    }
}

struct Ctx<'a> {
    tables: &'a [Table],
    out: Vec<Verdict>,
}

impl Ctx<'_> {
    fn row(&self, table: &str, label: &str) -> Option<&Row> {
        self.tables.iter().find(|t| t.id == table)?.rows.iter().find(|r| r.label == label)
    }

    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, seed: &str, table: &str, claim: &str, paper: String, ours: String, verdict: &str, basis: &str) {
        self.out.push(Verdict {
            seed: seed.into(),
            claim: claim.into(),
            paper,
            ours,
            verdict: verdict.into(),
            basis: basis.into(),
            table: table.into(),
            rows: Vec::new(),
            smoke: false,
        });
    }

    /// Names the rows the last verdict's figures come from.
    fn cite_rows(&mut self, rows: &[&Row]) {
        if let Some(v) = self.out.last_mut() {
            v.rows = rows.iter().map(|r| r.label.clone()).collect();
            v.smoke = rows.iter().any(|r| r.smoke && r.ours.is_some());
        }
    }

    /// A claim on one row's paper and ours figures.
    fn on_row(&mut self, seed: &str, table: &str, label: &str, claim: &str, rule: Rule, basis: &str) {
        let Some(r) = self.row(table, label).cloned() else {
            self.push(seed, table, claim, "-".into(), format!("no row '{label}'"), "not comparable", "none");
            return;
        };
        let paper = match (&r.paper_text, &r.derived) {
            (Some(t), Some(how)) => format!("{t} {} (derived: {how})", r.unit),
            (Some(t), None) => format!("{t} {}", r.unit),
            _ => "-".into(),
        };
        match (r.paper, r.ours) {
            (Some(p), Some(o)) => {
                let (lo, hi) = r.spread.as_ref().map_or((o, o), |s| (s.lo, s.hi));
                let ours = format!("{} {} ({})", num(o), r.unit, r.spread.as_ref().map_or("no spread".into(), |s| s.text()));
                self.push(seed, table, claim, paper, ours, grade(rule, p, o, lo, hi), basis);
            }
            _ => self.push(seed, table, claim, paper, "no figure".into(), "not comparable", "none"),
        }
        self.cite_rows(&[&r]);
    }

    /// A claim on the quotient of two rows' figures (`a / b`), paper and ours.
    #[allow(clippy::too_many_arguments)]
    fn on_quotient(&mut self, seed: &str, table: &str, a: &str, b: &str, claim: &str, rule: Rule, basis: &str) {
        let (ra, rb) = (self.row(table, a).cloned(), self.row(table, b).cloned());
        let q =
            |f: fn(&Row) -> Option<f64>| ra.as_ref().and_then(f).zip(rb.as_ref().and_then(f)).filter(|x| x.1 != 0.0).map(|(x, y)| x / y);
        match (q(|r| r.paper), q(|r| r.ours)) {
            (Some(p), Some(o)) => {
                let spread = match (ra.as_ref().and_then(|r| r.spread.clone()), rb.as_ref().and_then(|r| r.spread.clone())) {
                    (Some(x), Some(y)) if y.lo > 0.0 => Some(Spread::combine(&x, &y, |u, v| u / v)),
                    _ => None,
                };
                let (lo, hi) = spread.as_ref().map_or((o, o), |s| (s.lo, s.hi));
                let ours = format!("{}x ({})", num(o), spread.as_ref().map_or("no spread".into(), |s| s.text()));
                let paper = format!("{}x (derived: {a} / {b})", crate::derived_text(p));
                self.push(seed, table, claim, paper, ours, grade(rule, p, o, lo, hi), basis);
            }
            _ => self.push(seed, table, claim, "-".into(), "no figure".into(), "not comparable", "none"),
        }
        let rows: Vec<&Row> = ra.iter().chain(rb.iter()).collect();
        self.cite_rows(&rows);
    }
}

/// Every paper's headline claims, judged.
pub fn judge(tables: &[Table]) -> Vec<Verdict> {
    let mut c = Ctx { tables, out: Vec::new() };
    let speedup = Rule::Effect { neutral: 1.0, tol: 0.25 };
    let loss = Rule::Effect { neutral: 0.0, tol: 0.3 };
    // Seed 000.
    c.on_row(
        "000",
        "seed000-table1",
        "8 lanes: speed-up over standard",
        "Parallel lanes speed up CCMP's MIC (CBC-MAC): 8 lanes against the standard, i5",
        speedup,
        "measured",
    );
    c.on_row(
        "000",
        "seed000-table2",
        "8 lanes: speed-up over standard",
        "Parallel lanes speed up AES-CTR: 8 lanes against the standard, i5",
        speedup,
        "measured",
    );
    c.on_row(
        "000",
        "seed000-table1",
        "standard: time per frame",
        "The host CPU's MIC costs only tens of microseconds per frame (20-40 us), far below the card's milliseconds",
        Rule::AtMost { tol: 0.0 },
        "measured",
    );
    c.on_row(
        "000",
        "seed000-fig7",
        "WPA2, high rate: delay increase",
        "WPA2 almost doubles the delay of video over open (Fig. 7)",
        loss,
        "fitted",
    );
    c.on_row(
        "000",
        "seed000-fig7",
        "WPA2, high rate: jitter increase",
        "WPA2 almost doubles the jitter of video over open (Fig. 7)",
        loss,
        "fitted",
    );
    c.on_row(
        "000",
        "seed000-fig7",
        "Enhanced-WPA2, high rate: delay increase",
        "Enhanced-WPA2 adds only about 20 % delay over open (Fig. 7)",
        Rule::AtMost { tol: 0.25 },
        "predicted",
    );
    c.on_row(
        "000",
        "seed000-fig7",
        "Enhanced-WPA2, high rate: jitter increase",
        "Enhanced-WPA2 adds only about 20 % jitter over open (Fig. 7)",
        Rule::AtMost { tol: 0.25 },
        "predicted",
    );
    c.on_row(
        "000",
        "seed000-table4",
        "speed-up (ROM S-boxes)",
        "The parallel FPGA engine is 3.7x faster than the standard one (Table IV)",
        speedup,
        "predicted",
    );
    c.on_row(
        "000",
        "seed000-table3",
        "parallel / standard area (ROM S-boxes)",
        "The parallel engine costs 2.4x the standard's area (Table III)",
        speedup,
        "predicted",
    );
    c.push(
        "000",
        "seed000-table5",
        "The parallel engine uses less energy per frame (Table V: 96 against 233 nJ)",
        "96 nJ against 233 nJ".into(),
        "no figure (no open power model)".into(),
        "not comparable",
        "none",
    );
    // Seed 001.
    c.on_row(
        "001",
        "seed001-table1",
        "AESCCMP Virtex-4 xc4vfx12 (LUT4): throughput",
        "AESCCMP runs at about 1 Gb/s on a LUT4 FPGA (Virtex-4)",
        Rule::Effect { neutral: 0.0, tol: 0.25 },
        "predicted",
    );
    c.on_row(
        "001",
        "seed001-table1",
        "AESCCMP Virtex-4 xc4vfx12 (LUT4): LUTs",
        "AESCCMP fits in about 5500 LUT4s (Virtex-4)",
        Rule::AtMost { tol: 0.0 },
        "predicted",
    );
    c.on_quotient(
        "001",
        "seed001-table1",
        "AESCCM6 Spartan-3 xc3s1000 (LUT4): LUTs",
        "AESCCMP Spartan-3 xc3s1000 (LUT4): LUTs",
        "The 802.16e engine (AESCCM6) is slightly smaller than the 802.11i one (AESCCMP)",
        Rule::Effect { neutral: 1.0, tol: 0.5 },
        "predicted",
    );
    // Seed 002.
    c.on_row(
        "002",
        "seed002-table1",
        "TCP WPA-PSK: dropped %",
        "WPA-PSK costs TCP 12.54 % of the baseline, wireless to wired (Table 1)",
        loss,
        "fitted",
    );
    c.on_row(
        "002",
        "seed002-table1",
        "UDP WPA-PSK: dropped %",
        "WPA-PSK costs UDP 18.56 % of the baseline, wireless to wired (Table 1)",
        loss,
        "fitted",
    );
    c.on_row("002", "seed002-table1", "TCP WEP-128: dropped %", "WEP-128 costs TCP 7.14 %, less than WPA-PSK (Table 1)", loss, "predicted");
    c.on_row(
        "002",
        "seed002-table2",
        "TCP WPA-PSK: dropped %",
        "Wireless to wireless, WPA-PSK costs TCP 25.03 % (Table 2)",
        loss,
        "predicted",
    );
    c.on_row("002", "seed002-table3", "TCP WEP-128: dropped %", "Ad hoc, WEP-128 costs TCP 4.34 % (Table 3)", loss, "predicted");
    c.on_row(
        "002",
        "seed002-table1",
        "TCP baseline",
        "The 802.11g baseline carries 9800 kb/s of TCP, wireless to wired (Table 1)",
        Rule::Effect { neutral: 0.0, tol: 0.25 },
        "predicted",
    );
    // Seed 003.
    c.on_quotient(
        "003",
        "seed003-table3",
        "2 AES() x 5: throughput",
        "1 AES() x 10: throughput",
        "Two AES rounds per clock give the most throughput (Table 3: 1029.48 against 658.07 Mb/s)",
        Rule::Effect { neutral: 1.0, tol: 0.5 },
        "predicted",
    );
    c.on_quotient(
        "003",
        "seed003-table3",
        "10 AES() x 1: throughput",
        "1 AES() x 10: throughput",
        "Full unrolling loses throughput: 10 rounds per clock against 1 (Table 3)",
        Rule::Effect { neutral: 1.0, tol: 0.5 },
        "predicted",
    );
    let logic = c.row("seed003-table3", "1 AES() x 10: area").cloned();
    let ram = c.row("seed003-table4", "1 AES() x 10: area").cloned();
    let rom_saves = match (&logic, &ram) {
        (Some(a), Some(b)) => match (a.paper.zip(b.paper), a.ours.zip(b.ours)) {
            (Some((pl, pr)), Some((ol, or))) if pl > 0.0 && ol > 0.0 => Some((pr / pl, or / ol, a, b)),
            _ => None,
        },
        _ => None,
    };
    match rom_saves {
        Some((p, o, a, b)) => {
            let spread = match (&b.spread, &a.spread) {
                (Some(x), Some(y)) if y.lo > 0.0 => Some(Spread::combine(x, y, |u, v| u / v)),
                _ => None,
            };
            let (lo, hi) = spread.as_ref().map_or((o, o), |s| (s.lo, s.hi));
            let claim = "S-boxes in embedded RAM save area: 1 round per clock, RAM against logic (Tables 3, 4)";
            let printed = |r: &Row| r.paper_text.clone().unwrap_or_else(|| "-".into());
            c.push(
                "003",
                "seed003-table4",
                claim,
                format!("{}x (derived: Table 4's {} LE / Table 3's {} LE)", crate::derived_text(p), printed(b), printed(a)),
                format!("{}x ({})", num(o), spread.as_ref().map_or("no spread".into(), |s| s.text())),
                grade(Rule::Effect { neutral: 1.0, tol: 0.25 }, p, o, lo, hi),
                "predicted",
            );
            c.cite_rows(&[b]);
        }
        None => {
            c.push("003", "seed003-table4", "S-boxes in embedded RAM save area", "-".into(), "no figure".into(), "not comparable", "none")
        }
    }
    // Seed 004.
    c.on_row(
        "004",
        "seed004-throughput",
        "Blowfish-256, text, encrypt: rank",
        "Blowfish is the fastest of the six ciphers",
        Rule::AtMost { tol: 0.0 },
        "measured",
    );
    c.on_row(
        "004",
        "seed004-throughput",
        "AES-256, text, encrypt: rank",
        "AES ranks third, behind Blowfish and RC6",
        Rule::AtMost { tol: 0.0 },
        "measured",
    );
    let aes_rank_exact =
        c.row("seed004-throughput", "AES-256, text, encrypt: rank").and_then(|r| r.paper.zip(r.ours)).is_some_and(|(p, o)| p == o);
    if let Some(v) = c.out.last_mut() {
        // "Third" is a position, not a bound: only the same rank reproduces it.
        if !aes_rank_exact && v.verdict == "reproduced" {
            v.verdict = "not reproduced".into();
        }
    }
    c.on_row(
        "004",
        "seed004-energy",
        "Blowfish energy as % of AES-256's, text, encrypt",
        "Blowfish needs about 16 % of AES's energy (text, encrypt)",
        Rule::Effect { neutral: 100.0, tol: 0.3 },
        "measured",
    );
    c.on_quotient(
        "004",
        "seed004-table2",
        "adhoc_open AES",
        "adhoc_open none",
        "Encrypting with AES lengthens the ad hoc transfer of the text file (Table 2: 18.94 against 10.57 s)",
        Rule::Effect { neutral: 1.0, tol: 0.3 },
        "predicted",
    );
    c.on_quotient(
        "004",
        "seed004-table2",
        "adhoc_poor none",
        "adhoc_open none",
        "A poor signal lengthens the ad hoc transfer (Table 2: 17.35 against 10.57 s)",
        Rule::Effect { neutral: 1.0, tol: 0.3 },
        "predicted",
    );
    c.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_follow_side_and_size() {
        let s = Rule::Effect { neutral: 1.0, tol: 0.25 };
        assert_eq!(grade(s, 1.82, 1.9, 1.85, 1.95), "reproduced");
        assert_eq!(grade(s, 1.82, 3.0, 2.9, 3.1), "direction only");
        assert_eq!(grade(s, 1.88, 1.05, 0.98, 1.1), "not reproduced", "a spread across 1x is no speed-up");
        assert_eq!(grade(s, 1.88, 0.9, 0.85, 0.95), "not reproduced");
        let b = Rule::AtMost { tol: 0.25 };
        assert_eq!(grade(b, 20.0, 2.4, -1.0, 5.0), "reproduced");
        assert_eq!(grade(b, 20.0, 61.0, 50.0, 70.0), "not reproduced");
    }
}
