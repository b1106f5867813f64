//! Summary statistics: mean, percentiles, and Student-t confidence intervals over
//! independent replications.
use serde::Serialize;

/// A mean with the half-width of its 95% confidence interval (Student t over the
/// replications; 0 when there is only one).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub ci95: f64,
    pub n: usize,
}

impl Estimate {
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len();
        if n == 0 {
            return Estimate { mean: f64::NAN, ci95: f64::NAN, n };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate { mean, ci95: 0.0, n };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        Estimate { mean, ci95: t975(n - 1) * (var / n as f64).sqrt(), n }
    }
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom.
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        31..=60 => 2.042 - (df as f64 - 30.0) * (2.042 - 2.000) / 30.0,
        61..=120 => 2.000 - (df as f64 - 60.0) * (2.000 - 1.980) / 60.0,
        _ => 1.960,
    }
}

/// The `q`-quantile (0..=1) by linear interpolation between order statistics; sorts `xs`.
pub fn quantile(xs: &mut [f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let pos = q.clamp(0.0, 1.0) * (xs.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

/// RFC 3550 section 6.4.1 interarrival jitter: J += (|D(i-1,i)| - J) / 16, with D the
/// difference of the transit times of consecutive packets (in arrival order). Also the mean
/// of |D(i-1,i)| over all packets, which is what ns-3's FlowMonitor reports as
/// `jitterSum / (rxPackets - 1)` (flow-monitor.h: "Jitter{P_N} = |Delay{P_N} -
/// Delay{P_{N-1}}|"): J is a 1/16 exponential average of the same samples, so its value at
/// the end of a run weighs only the last few dozen packets; the mean is the stable figure.
#[derive(Debug, Clone, Default)]
pub struct Rfc3550Jitter {
    last_transit: Option<f64>,
    pub jitter: f64,
    abs_sum: f64,
    abs_n: u64,
}

impl Rfc3550Jitter {
    pub fn update(&mut self, transit: f64) {
        if let Some(prev) = self.last_transit {
            let d = (transit - prev).abs();
            self.jitter += (d - self.jitter) / 16.0;
            self.abs_sum += d;
            self.abs_n += 1;
        }
        self.last_transit = Some(transit);
    }

    /// Mean |D(i-1,i)| (NaN before two packets).
    pub fn mean_abs(&self) -> f64 {
        if self.abs_n == 0 {
            f64::NAN
        } else {
            self.abs_sum / self.abs_n as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_and_mean_abs_by_hand() {
        // Transits 1, 3, 2, 2 ms: |D| = 2, 1, 0. J = 2/16, then + (1 - J)/16, then + (0 - J)/16.
        let mut j = Rfc3550Jitter::default();
        assert!(j.mean_abs().is_nan());
        for t in [1.0, 3.0, 2.0, 2.0] {
            j.update(t);
        }
        let j1 = 2.0 / 16.0;
        let j2 = j1 + (1.0 - j1) / 16.0;
        let j3 = j2 - j2 / 16.0;
        assert!((j.jitter - j3).abs() < 1e-12, "{}", j.jitter);
        assert!((j.mean_abs() - 1.0).abs() < 1e-12, "{}", j.mean_abs());
    }
}
