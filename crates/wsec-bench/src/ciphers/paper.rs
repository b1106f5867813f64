//! What seed 004 (Salama, Abdual Kader, Hadhoud, "Wireless Network Security Still Has no
//! Clothes", IAJIT 2010/2011) set up and found, as data the benchmark compares against.
//!
//! Setting (section 4): two laptops with Windows XP, the .NET environment, files of text
//! (.DOC, 321 KB to 7.139 MB), audio (.WAV, 33 KB to 8,262 KB) and images (.GIF/.JPG, 28 KB
//! to 131 KB); AES-256, DES-64, RC2-64, RC6-256, Blowfish-256, 3DES-192; throughput
//! (equation 1: plaintext bytes / encryption time), energy per byte (equation 7) and battery
//! share. The figures themselves (6 to 17) are plots without printed values; the text gives
//! the ranking and a few ratios, collected here.
use super::data::DataType;
use super::impls::{Algorithm, Spec};

/// KB as the paper's file sizes use it (Windows Explorer's kilobyte).
pub const KB: usize = 1024;

/// The paper's size range per data type, in KB (section 4).
pub fn size_range_kb(d: DataType) -> (usize, usize) {
    match d {
        DataType::Text => (321, 7139),
        DataType::Audio => (33, 8262),
        DataType::Image => (28, 131),
    }
}

/// File sizes the benchmark runs per data type: `points` sizes spaced evenly on a log scale
/// between the paper's end points (the paper's intermediate sizes are not given), in octets
/// (rounded to even, whole KB).
pub fn file_sizes(d: DataType, points: usize) -> Vec<usize> {
    let (lo, hi) = size_range_kb(d);
    if points <= 1 {
        return vec![lo * KB];
    }
    let r = (hi as f64 / lo as f64).powf(1.0 / (points - 1) as f64);
    (0..points).map(|i| (lo as f64 * r.powi(i as i32)).round() as usize * KB).collect()
}

/// Packet sizes for the per-packet runs (the 64-1500 octet range of seed 002's and the
/// WLAN's frames).
pub const PACKET_SIZES: [usize; 6] = [64, 128, 256, 512, 1024, 1500];

/// The paper's ranking, fastest / least energy first (section 6: "Blowfish has better
/// performance than other encryption algorithms, followed by RC6"; AES "is faster than 3DES,
/// DES, and RC2"; "DES encrypts and decrypts data faster than 3DES and RC2. 3DES is faster
/// than RC2"), the same for encryption and decryption, text and audio.
pub const RANKING: [Algorithm; 6] =
    [Algorithm::Blowfish, Algorithm::Rc6, Algorithm::Aes, Algorithm::Des, Algorithm::TripleDes, Algorithm::Rc2];

/// The six ciphers in the paper's setting (its key sizes).
pub const SPECS: [Spec; 6] = Spec::PAPER;

/// A ratio the paper states: cipher's energy as a fraction of AES's.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub alg: Algorithm,
    pub data: DataType,
    pub encrypt: bool,
    /// Energy of `alg` / energy of AES.
    pub value: f64,
    pub source: &'static str,
}

/// The ratios of sections 5.1.4 (text) and 5.2.4 (the "video" files, which are the .WAV
/// audio files): "Blowfish requires approximately 16% of the power which is consumed for AES
/// and 34% in case of decryption", "RC6 requires approximately 58% ... and 87% in case of
/// decryption"; for .WAV: 24% / 16% and 51% / 93%.
pub const RATIOS: [Ratio; 8] = [
    Ratio { alg: Algorithm::Blowfish, data: DataType::Text, encrypt: true, value: 0.16, source: "5.1.4" },
    Ratio { alg: Algorithm::Blowfish, data: DataType::Text, encrypt: false, value: 0.34, source: "5.1.4" },
    Ratio { alg: Algorithm::Rc6, data: DataType::Text, encrypt: true, value: 0.58, source: "5.1.4" },
    Ratio { alg: Algorithm::Rc6, data: DataType::Text, encrypt: false, value: 0.87, source: "5.1.4" },
    Ratio { alg: Algorithm::Blowfish, data: DataType::Audio, encrypt: true, value: 0.24, source: "5.2.4" },
    Ratio { alg: Algorithm::Blowfish, data: DataType::Audio, encrypt: false, value: 0.16, source: "5.2.4" },
    Ratio { alg: Algorithm::Rc6, data: DataType::Audio, encrypt: true, value: 0.51, source: "5.2.4" },
    Ratio { alg: Algorithm::Rc6, data: DataType::Audio, encrypt: false, value: 0.93, source: "5.2.4" },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_span_the_papers_range() {
        let t = file_sizes(DataType::Text, 5);
        assert_eq!(t.first(), Some(&(321 * KB)));
        assert_eq!(t.last(), Some(&(7139 * KB)));
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(file_sizes(DataType::Audio, 1), vec![33 * KB]);
        assert_eq!(file_sizes(DataType::Image, 2), vec![28 * KB, 131 * KB]);
    }
}
