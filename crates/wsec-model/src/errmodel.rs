//! The channel's error model: the probability that a data frame sent at a given rate and
//! length is received in error at a given signal-to-noise ratio (`phy.snr_db`), so rate
//! control has something to adapt to.
//!
//! The curves are those of ns-3's default OFDM error model (`NistErrorRateModel`, after
//! Pursley and Taipale; the model of ns-3 3.37's YansWifiPhy): the uncoded bit error rate of
//! the subcarrier modulation on an AWGN channel,
//!
//! | modulation | BER |
//! |---|---|
//! | BPSK | ½ erfc(√γ) |
//! | QPSK | ½ erfc(√(γ/2)) |
//! | 16-QAM | ¾ · ½ erfc(√(γ/10)) |
//! | 64-QAM | 7/12 · ½ erfc(√(γ/42)) |
//!
//! then the union bound of the IEEE 802.11 K = 7 convolutional code (17.3.5.6) with hard
//! decisions: with D = √(4p(1-p)), the first event error probability is
//! Σ_d c_d D^d / (2b) over the code's distance spectrum c_d (rate 1/2: free distance 10;
//! the punctured rates 2/3, 3/4 and 5/6: the spectra of Haccoun and Bégin, IEEE Trans.
//! Commun. 37(11), 1989), capped at 1, and a chunk of n bits survives with (1 - Pe)^n.
//! A frame is received when its PHY header (L-SIG, 24 bits of BPSK ½; HT-SIG, 48 more for
//! HT) and its PSDU survive. The control responses (ACK, CTS at a basic rate no higher than
//! the data rate) are taken as received; the 802.11b DSSS/CCK rates have no curve here.
//! Checked against ns-3's own values (`tests/it/model_errmodel.rs`).
use crate::error::{Error, Result};
use crate::phy::PhyKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modulation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
}

/// Modulation and the code rate's puncturing index b (1 = ½, 2 = ⅔, 3 = ¾, 5 = ⅚) of an
/// OFDM (Table 17-4) or HT (Table 19-27, one stream; 65 Mb/s is MCS 7 with the 800 ns GI
/// and MCS 6 with the 400 ns GI) rate in kb/s.
fn mode(kind: PhyKind, short_gi: bool, rate_kbps: u32) -> Option<(Modulation, u32)> {
    use Modulation::*;
    match kind {
        PhyKind::A | PhyKind::G => match rate_kbps {
            6000 => Some((Bpsk, 1)),
            9000 => Some((Bpsk, 3)),
            12000 => Some((Qpsk, 1)),
            18000 => Some((Qpsk, 3)),
            24000 => Some((Qam16, 1)),
            36000 => Some((Qam16, 3)),
            48000 => Some((Qam64, 2)),
            54000 => Some((Qam64, 3)),
            _ => None,
        },
        PhyKind::N => {
            let rates: [u32; 8] = if short_gi {
                [7200, 14400, 21700, 28900, 43300, 57800, 65000, 72200]
            } else {
                [6500, 13000, 19500, 26000, 39000, 52000, 58500, 65000]
            };
            let mcs = rates.iter().position(|&r| r == rate_kbps)?;
            Some([(Bpsk, 1), (Qpsk, 1), (Qpsk, 3), (Qam16, 1), (Qam16, 3), (Qam64, 2), (Qam64, 3), (Qam64, 5)][mcs])
        }
        PhyKind::Fhss | PhyKind::B => None,
    }
}

fn uncoded_ber(m: Modulation, snr: f64) -> f64 {
    let q = |x: f64| 0.5 * libm::erfc(x.sqrt());
    match m {
        Modulation::Bpsk => q(snr),
        Modulation::Qpsk => q(snr / 2.0),
        Modulation::Qam16 => 0.75 * q(snr / 10.0),
        Modulation::Qam64 => 7.0 / 12.0 * q(snr / 42.0),
    }
}

/// First-event error probability of the convolutional code after Viterbi decoding with
/// hard decisions, union bound over the first ten terms of the distance spectrum.
fn coded_pe(p: f64, b: u32) -> f64 {
    let d = (4.0 * p * (1.0 - p)).sqrt();
    // (first distance, weights c_d for consecutive distances; rate 1/2 steps by 2)
    let (d0, step, c): (i32, i32, &[f64]) = match b {
        1 => (10, 2, &[36.0, 211.0, 1404.0, 11633.0, 77433.0, 502690.0, 3322763.0, 21292910.0, 134365911.0]),
        2 => (6, 1, &[3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0]),
        3 => (5, 1, &[42.0, 201.0, 1492.0, 10469.0, 62935.0, 379644.0, 2253373.0, 13073811.0, 75152755.0, 428005675.0]),
        _ => (4, 1, &[92.0, 528.0, 8694.0, 79453.0, 792114.0, 7375573.0, 67884974.0, 610875423.0, 5427275376.0, 47664215639.0]),
    };
    let sum: f64 = c.iter().enumerate().map(|(i, w)| w * d.powi(d0 + step * i as i32)).sum();
    // Rate 1/2 has no puncturing period: its bound is halved, the others' divided by 2b.
    let pe = if b == 1 { 0.5 * sum } else { sum / (2.0 * b as f64) };
    pe.min(1.0)
}

/// Probability that `bits` bits sent at `rate_kbps` survive at `snr_db`.
fn chunk_success(kind: PhyKind, short_gi: bool, rate_kbps: u32, snr_db: f64, bits: u64) -> Result<f64> {
    let (m, b) = mode(kind, short_gi, rate_kbps)
        .ok_or_else(|| Error::Spec(format!("phy.snr_db: no error curve for {rate_kbps} kb/s on this PHY (OFDM and HT only)")))?;
    let snr = 10f64.powf(snr_db / 10.0);
    let p = uncoded_ber(m, snr);
    if p == 0.0 {
        return Ok(1.0);
    }
    Ok((1.0 - coded_pe(p, b)).powf(bits as f64))
}

/// The probability that a PPDU carrying `psdu_bytes` at `rate_kbps` is received in error at
/// `snr_db` (PHY header and PSDU; module text).
pub fn frame_error_rate(kind: PhyKind, short_gi: bool, rate_kbps: u32, psdu_bytes: usize, snr_db: f64) -> Result<f64> {
    if !snr_db.is_finite() || !(-20.0..=100.0).contains(&snr_db) {
        return Err(Error::Spec(format!("phy.snr_db = {snr_db} is outside -20..=100 dB")));
    }
    let header_bits = if kind == PhyKind::N { 24 + 48 } else { 24 };
    let header_rate = if kind == PhyKind::N { 6500 } else { 6000 };
    // PSDU plus the SERVICE field and tail (17.3.5.2, 17.3.5.3).
    let data_bits = 8 * psdu_bytes as u64 + 16 + 6;
    let ok = chunk_success(kind, false, header_rate, snr_db, header_bits)? * chunk_success(kind, short_gi, rate_kbps, snr_db, data_bits)?;
    Ok(1.0 - ok)
}

/// Exposed for the test against ns-3's values: the chunk success rate of `bits` bits.
pub fn chunk_success_rate(kind: PhyKind, short_gi: bool, rate_kbps: u32, snr_db: f64, bits: u64) -> Result<f64> {
    chunk_success(kind, short_gi, rate_kbps, snr_db, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand_and_monotone() {
        // BPSK at 0 dB: ½ erfc(1) = 0.0786496 (tables of erfc).
        assert!((uncoded_ber(Modulation::Bpsk, 1.0) - 0.078_649_6).abs() < 1e-6);
        // Higher rates need more SNR; more bits fail more often.
        let f = |r, db, n| frame_error_rate(PhyKind::A, false, r, n, db).unwrap();
        assert!(f(6000, 10.0, 1500) < 1e-6);
        assert!(f(54000, 10.0, 1500) > 0.999);
        assert!(f(54000, 24.0, 100) <= f(54000, 24.0, 1500));
        assert!(f(54000, 22.0, 1500) >= f(54000, 25.0, 1500));
        assert!(frame_error_rate(PhyKind::B, false, 11000, 1500, 20.0).is_err());
        assert!(frame_error_rate(PhyKind::A, false, 54000, 1500, f64::NAN).is_err());
        // 65 Mb/s: MCS 7 (5/6) with the long GI needs more SNR than MCS 6 (3/4) with the short.
        assert!(
            frame_error_rate(PhyKind::N, false, 65000, 1500, 22.0).unwrap()
                > frame_error_rate(PhyKind::N, true, 65000, 1500, 22.0).unwrap()
        );
    }
}
