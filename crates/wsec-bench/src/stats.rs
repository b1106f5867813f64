//! Medians of repeated runs and their spread.
//!
//! A benchmark on a shared machine sees other work as noise that only ever adds time, so
//! each figure is the median of several runs (robust to a few slow ones), and the spread
//! says how far the runs were apart: `min..max` and the relative spread `(max - min) /
//! median`. Quartiles are kept for plots and for readers who prefer an IQR.
use serde::Serialize;

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
}
