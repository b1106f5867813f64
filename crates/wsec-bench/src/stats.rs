//! Medians of repeated runs and their spread.
//!
//! A benchmark on a shared machine sees other work as noise that only ever adds time, so
//! each figure is the median of several runs (robust to a few slow ones), and the spread
//! says how far the runs were apart: `min..max` and the relative spread `(max - min) /
//! median`. Quartiles are kept for plots and for readers who prefer an IQR.
//!
//! Noise is judged, not printed and ignored: a figure whose middle half of runs spreads
//! wider than [`NOISY_IQR`] of its median is *noisy* (another process took the CPU for
//! part of the runs), and a goal judged on it is [`Verdict::Inconclusive`]. The IQR and not
//! `min..max`: the median already ignores a few slow runs; what makes it unreliable is
//! that the runs around it disagree. Benchmarks rerun noisy rounds ([`quietest`]) before
//! they give up.
use serde::Serialize;
use std::fmt;

/// `(q3 - q1) / median` above which a figure is noisy (10 %: the goals judged here differ
/// from their thresholds by more than that only when the result is clear anyway).
pub const NOISY_IQR: f64 = 0.10;

/// Rounds a benchmark runs at most while its figures stay noisy.
pub const MAX_ROUNDS: usize = 3;

/// Summary of repeated measurements of one quantity.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// First and third quartile (linear interpolation between order statistics).
    pub q1: f64,
    pub q3: f64,
}

impl Summary {
    /// The summary of `samples`; `None` when it is empty or holds a NaN.
    pub fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() || samples.iter().any(|x| x.is_nan()) {
            return None;
        }
        let mut v = samples.to_vec();
        v.sort_by(f64::total_cmp);
        Some(Summary {
            n: v.len(),
            median: quantile(&v, 0.5),
            min: v[0],
            max: v[v.len() - 1],
            q1: quantile(&v, 0.25),
            q3: quantile(&v, 0.75),
        })
    }

    /// `(max - min) / median`: 0.05 means the runs lay within 5 % of the median's size.
    /// 0 when the median is 0.
    pub fn rel_spread(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.max - self.min) / self.median.abs()
        }
    }
}

impl Summary {
    /// `(q3 - q1) / median` (0 when the median is 0).
    pub fn rel_iqr(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.q3 - self.q1) / self.median.abs()
        }
    }

    /// Whether the runs disagree too much for the median to be trusted ([`NOISY_IQR`]).
    pub fn is_noisy(&self) -> bool {
        self.rel_iqr() > NOISY_IQR
    }
}

/// A ratio of two measured quantities, with the range the runs allow: `lo..hi` from the
/// quartiles (numerator's q1 over denominator's q3, and the other way round).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ratio {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    /// The larger relative IQR of the two quantities.
    pub noise: f64,
}

impl Ratio {
    /// `num / den` for quantities where larger is better (rates).
    pub fn of_rates(num: &Summary, den: &Summary) -> Ratio {
        Ratio { median: num.median / den.median, lo: num.q1 / den.q3, hi: num.q3 / den.q1, noise: num.rel_iqr().max(den.rel_iqr()) }
    }

    /// How many times faster `ours` is than `base`, both times (smaller is better).
    pub fn speedup(base: &Summary, ours: &Summary) -> Ratio {
        Ratio { median: base.median / ours.median, lo: base.q1 / ours.q3, hi: base.q3 / ours.q1, noise: base.rel_iqr().max(ours.rel_iqr()) }
    }

    pub fn is_noisy(&self) -> bool {
        self.noise > NOISY_IQR
    }

    /// Judges `ratio >= goal`: met or not met only when neither quantity is noisy and the
    /// whole `lo..hi` range lies on one side of the goal.
    pub fn at_least(&self, goal: f64) -> Verdict {
        if self.is_noisy() {
            Verdict::Inconclusive(format!("noisy: runs spread {:.0}% (IQR) > {:.0}%", 100.0 * self.noise, 100.0 * NOISY_IQR))
        } else if self.lo >= goal {
            Verdict::Met
        } else if self.hi < goal {
            Verdict::NotMet
        } else {
            Verdict::Inconclusive(format!("the runs allow {:.2}x..{:.2}x, either side of {goal}x", self.lo, self.hi))
        }
    }

    /// `1.23x`, or `1.23x (noisy)`.
    pub fn show(&self) -> String {
        if self.is_noisy() {
            format!("{:.2}x (noisy)", self.median)
        } else {
            format!("{:.2}x", self.median)
        }
    }
}

/// The outcome of a benchmark goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Met,
    NotMet,
    /// Noise or overlap: no verdict from these runs (the reason).
    Inconclusive(String),
}

impl Verdict {
    /// `met`, `not met` or `inconclusive`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::NotMet => "not met",
            Verdict::Inconclusive(_) => "inconclusive",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Inconclusive(why) => write!(f, "inconclusive ({why})"),
            v => f.write_str(v.word()),
        }
    }
}

/// Runs `round` (one interleaved set of runs, returning each implementation's samples) up
/// to `max_rounds` times while any implementation's figure is noisy, and keeps the round
/// whose noisiest figure is the least noisy. Returns the samples and how many rounds ran.
pub fn quietest(max_rounds: usize, mut round: impl FnMut() -> Vec<Vec<f64>>) -> (Vec<Vec<f64>>, usize) {
    let noise = |r: &[Vec<f64>]| r.iter().filter_map(|v| Summary::of(v)).map(|s| s.rel_iqr()).fold(0.0, f64::max);
    let mut best = round();
    let mut rounds = 1;
    while rounds < max_rounds.max(1) && noise(&best) > NOISY_IQR {
        let next = round();
        rounds += 1;
        if noise(&next) < noise(&best) {
            best = next;
        }
    }
    (best, rounds)
}

/// Median of `samples` (`None` when empty or holding a NaN).
pub fn median(samples: &[f64]) -> Option<f64> {
    Summary::of(samples).map(|s| s.median)
}

/// Quantile `q` in [0, 1] of sorted `v` (non-empty), interpolating linearly.
fn quantile(v: &[f64], q: f64) -> f64 {
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_and_even_counts() {
        let s = Summary::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.q1, s.q3), (3.0, 1.0, 5.0, 2.0, 4.0));
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.median, s.q1, s.q3), (2.5, 1.75, 3.25));
        assert!((s.rel_spread() - 3.0 / 2.5).abs() < 1e-12);
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn verdicts_need_quiet_runs_on_one_side_of_the_goal() {
        let quiet_fast = Summary::of(&[200.0, 201.0, 202.0, 203.0, 204.0]).unwrap();
        let quiet_slow = Summary::of(&[100.0, 100.5, 101.0, 101.5, 102.0]).unwrap();
        // Rates: about 2x, clearly above 1.5 and clearly below 2.5.
        let r = Ratio::of_rates(&quiet_fast, &quiet_slow);
        assert_eq!(r.at_least(1.5), Verdict::Met);
        assert_eq!(r.at_least(2.5), Verdict::NotMet);
        // The goal inside the runs' range: no verdict.
        assert!(matches!(r.at_least(2.0), Verdict::Inconclusive(_)), "{:?}", r);
        // One noisy figure (middle half spread ~50%): no verdict, however far the median.
        let noisy = Summary::of(&[100.0, 150.0, 200.0, 250.0, 400.0]).unwrap();
        assert!(noisy.is_noisy() && !quiet_slow.is_noisy());
        let r = Ratio::of_rates(&noisy, &quiet_slow);
        assert!(matches!(r.at_least(1.0), Verdict::Inconclusive(ref w) if w.contains("noisy")));
        assert!(r.show().ends_with("(noisy)"));
        // Times: base 2x slower than ours is a 2x speed-up.
        let s = Ratio::speedup(&quiet_fast, &quiet_slow);
        assert!((s.median - 2.0).abs() < 0.01 && s.at_least(1.5) == Verdict::Met);
        assert_eq!(Verdict::NotMet.to_string(), "not met");
    }

    #[test]
    fn quietest_reruns_noisy_rounds_and_keeps_the_quietest() {
        let rounds = [vec![vec![1.0, 2.0, 3.0, 9.0]], vec![vec![1.0, 1.01, 1.02, 1.03]], vec![vec![5.0, 1.0, 9.0]]];
        let mut i = 0;
        let (best, n) = quietest(3, || {
            i += 1;
            rounds[i - 1].clone()
        });
        // The second round is quiet: no third.
        assert_eq!((n, best[0][1]), (2, 1.01));
        let mut j = 0;
        let (best, n) = quietest(2, || {
            j += 1;
            vec![vec![1.0, 3.0 + j as f64, 9.0]]
        });
        assert_eq!((n, best[0][1]), (2, 5.0));
    }
}
