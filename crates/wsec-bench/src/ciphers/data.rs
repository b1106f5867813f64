//! The benchmark's input files: text, WAV audio and PNG images, generated (deterministically)
//! at the sizes the paper used, so that the data type's effect, if any, can be seen.
//!
//! Seed 004 encrypted .DOC text files (321 KB to 7,139 KB), .WAV audio (33 KB to 8,262 KB)
//! and .GIF/.JPG images (28 KB to 131 KB). The files here are real files of those kinds:
//! - text: English prose (sentences of common words with Zipf-like frequencies,
//!   punctuation and paragraphs), ASCII;
//! - audio: a RIFF/WAVE file, 16-bit PCM stereo at 44.1 kHz: a chord sequence with
//!   vibrato and a little noise, the size made exact with a standard `JUNK` chunk;
//! - image: a PNG (RGB, 8 bits), a photograph-like scene (gradients, soft shapes, sensor
//!   noise) compressed with zlib, the size made exact with a `tEXt` comment chunk. Like
//!   the paper's GIF/JPEG files, its bytes are compressed, i.e. close to random.
//!
//! A block cipher's time does not depend on the bytes it encrypts (the table-free AES
//! implementations are constant-time by design; table-based DES/Blowfish/RC2 look up
//! tables that fit in L1); the three kinds show whether that holds in practice.
//! `wsec bench ciphers --write-inputs DIR` saves them for inspection.
use serde::Serialize;

/// The kinds of input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DataType {
    Text,
    Audio,
    Image,
}

impl DataType {
    pub const ALL: [DataType; 3] = [DataType::Text, DataType::Audio, DataType::Image];

    pub fn as_str(self) -> &'static str {
        match self {
            DataType::Text => "text",
            DataType::Audio => "audio",
            DataType::Image => "image",
        }
    }

    /// File extension of the generated file.
    pub fn extension(self) -> &'static str {
        match self {
            DataType::Text => "txt",
            DataType::Audio => "wav",
            DataType::Image => "png",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" | "doc" => Some(DataType::Text),
            "audio" | "wav" => Some(DataType::Audio),
            "image" | "png" | "img" => Some(DataType::Image),
            _ => None,
        }
    }

    /// A file of this kind of exactly `len` octets (audio: `len` rounded down to even, as
    /// RIFF chunks are word-aligned; at least 64 octets for audio and 128 for images).
    pub fn generate(self, len: usize, seed: u64) -> Vec<u8> {
        match self {
            DataType::Text => text(len, seed),
            DataType::Audio => wav(len, seed),
            DataType::Image => png(len, seed),
        }
    }
}

/// SplitMix64: a small, good, deterministic generator (no need for `rand` here).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, n).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The most common English words, most frequent first.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by",
    "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had",
    "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been", "if",
    "more", "when", "will", "would", "who", "so", "no", "she", "other", "its", "may", "these", "what",
    "them", "than", "some", "him", "time", "into", "only", "do", "could", "new", "about", "two",
    "first", "then", "also", "any", "like", "our", "over", "such", "very", "most", "made", "after",
    "where", "out", "people", "work", "many", "system", "through", "network", "between", "should",
    "each", "because", "well", "must", "used", "power", "data", "before", "energy", "however", "same",
    "wireless", "station", "access", "point", "security", "key", "battery", "device", "frame",
    "encryption", "algorithm", "performance", "signal", "laptop", "measured", "results", "standard",
    "protocol", "packet", "throughput", "channel", "receiver", "sender", "radio", "report", "study",
    "value", "number", "result", "level", "during", "while", "under", "without", "against", "small",
    "large", "long", "high", "low", "every", "several", "within", "whether", "different", "important",
];

/// English-like prose, exactly `len` ASCII octets.
fn text(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed ^ 0x7e47);
    let mut out = Vec::with_capacity(len + 64);
    let mut sentences_in_paragraph = 0;
    while out.len() < len {
        let words = 6 + rng.below(15);
        for w in 0..words {
            // Zipf-like: index = floor(N^u) - 1 favours the first words strongly.
            let u = rng.unit();
            let i = ((WORDS.len() as f64).powf(u) as usize).saturating_sub(1).min(WORDS.len() - 1);
            let word = WORDS[i];
            if w == 0 {
                out.push(word.as_bytes()[0].to_ascii_uppercase());
                out.extend_from_slice(&word.as_bytes()[1..]);
            } else {
                out.extend_from_slice(word.as_bytes());
            }
            if w + 1 < words {
                if rng.below(9) == 0 {
                    out.push(b',');
                }
                out.push(b' ');
            }
        }
        out.push(match rng.below(12) {
            0 => b'?',
            1 => b'!',
            _ => b'.',
        });
        sentences_in_paragraph += 1;
        if sentences_in_paragraph >= 3 + rng.below(5) {
            out.extend_from_slice(b"\n\n");
            sentences_in_paragraph = 0;
        } else {
            out.push(b' ');
        }
    }
    out.truncate(len);
    out
}

/// WAV sample rate and format (16-bit PCM stereo).
pub const WAV_RATE: u32 = 44_100;
const WAV_CHANNELS: u16 = 2;
const WAV_BITS: u16 = 16;
/// Octets before the samples: RIFF header (12), `fmt ` chunk (8 + 16), `JUNK` chunk
/// header (8), `data` chunk header (8).
const WAV_OVERHEAD: usize = 12 + 24 + 8 + 8;

/// A RIFF/WAVE file of `len & !1` octets (at least 64).
fn wav(len: usize, seed: u64) -> Vec<u8> {
    let len = len.max(64) & !1;
    let frame = (WAV_CHANNELS * WAV_BITS / 8) as usize;
    let data_len = (len - WAV_OVERHEAD) / frame * frame;
    let junk_len = len - WAV_OVERHEAD - data_len; // 0 or 2, even
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&((len - 8) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(b"fmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&WAV_CHANNELS.to_le_bytes());
    out.extend_from_slice(&WAV_RATE.to_le_bytes());
    out.extend_from_slice(&(WAV_RATE * frame as u32).to_le_bytes());
    out.extend_from_slice(&(frame as u16).to_le_bytes());
    out.extend_from_slice(&WAV_BITS.to_le_bytes());
    // JUNK: the RIFF way to pad (readers skip it).
    out.extend_from_slice(b"JUNK");
    out.extend_from_slice(&(junk_len as u32).to_le_bytes());
    out.resize(out.len() + junk_len, 0);
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data_len as u32).to_le_bytes());

    // A chord sequence (A minor, F, C, G; half a second each) with vibrato and noise.
    #[rustfmt::skip]
    const CHORDS: [[f64; 3]; 4] = [[220.00, 261.63, 329.63], [174.61, 220.00, 261.63], [261.63, 329.63, 392.00], [196.00, 246.94, 293.66]];
    let mut rng = Rng(seed ^ 0xa0d1);
    let tau = std::f64::consts::TAU;
    let mut phase = [0.0f64; 3];
    for n in 0..data_len / frame {
        let t = n as f64 / WAV_RATE as f64;
        let chord = &CHORDS[((t * 2.0) as usize) % CHORDS.len()];
        let vibrato = 1.0 + 0.003 * (tau * 5.0 * t).sin();
        let mut s = 0.0;
        for (k, f) in chord.iter().enumerate() {
            phase[k] = (phase[k] + tau * f * vibrato / WAV_RATE as f64) % tau;
            s += phase[k].sin() / 3.0;
        }
        // A beat envelope at 2 Hz and -40 dB of noise.
        let env = 0.6 + 0.4 * (1.0 - (t * 2.0).fract()).powi(2);
        let noise = (rng.unit() - 0.5) * 0.02;
        let left = ((s * env + noise) * 0.7 * 32767.0) as i16;
        let right = ((s * env * 0.9 - noise) * 0.7 * 32767.0) as i16;
        out.extend_from_slice(&left.to_le_bytes());
        out.extend_from_slice(&right.to_le_bytes());
    }
    debug_assert_eq!(out.len(), len);
    out
}

/// PNG chunk: length, type, data, CRC-32 over type and data (PNG spec 5.3).
fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
}

/// Octets of a PNG around its IDAT data: signature (8), IHDR (25), IDAT framing (12),
/// IEND (12).
const PNG_OVERHEAD: usize = 8 + 25 + 12 + 12;
/// A `tEXt` chunk with keyword "Comment" and its NUL costs this much before its text.
const PNG_TEXT_OVERHEAD: usize = 12 + 8;

/// The zlib stream of a w x h photograph-like RGB image (filter type 0 on every row).
fn png_idat(w: usize, h: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed ^ 0x1a6e);
    // A few soft blobs over a sky-to-ground gradient.
    let blobs: Vec<(f64, f64, f64, [f64; 3])> = (0..6)
        .map(|_| {
            (
                rng.unit() * w as f64,
                rng.unit() * h as f64,
                (0.1 + 0.3 * rng.unit()) * w.max(h) as f64,
                [rng.unit() * 255.0, rng.unit() * 255.0, rng.unit() * 255.0],
            )
        })
        .collect();
    let mut raw = Vec::with_capacity(h * (1 + 3 * w));
    for y in 0..h {
        raw.push(0); // filter: None
        let fy = y as f64 / h.max(1) as f64;
        for x in 0..w {
            let fx = x as f64 / w.max(1) as f64;
            let mut c = [90.0 + 120.0 * (1.0 - fy), 140.0 + 60.0 * (1.0 - fy), 200.0 * (1.0 - fy) + 40.0 * fx];
            for (bx, by, r, col) in &blobs {
                let d2 = ((x as f64 - bx).powi(2) + (y as f64 - by).powi(2)) / (r * r);
                let a = (-d2 * 2.0).exp();
                for k in 0..3 {
                    c[k] = c[k] * (1.0 - a) + col[k] * a;
                }
            }
            for v in c {
                // Sensor noise of a few levels, as in any photograph.
                let n = (rng.below(13) as f64) - 6.0;
                raw.push((v + n).clamp(0.0, 255.0) as u8);
            }
        }
    }
    miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6)
}

/// A PNG of exactly `len` octets (at least 128).
fn png(len: usize, seed: u64) -> Vec<u8> {
    let len = len.max(128);
    let budget = len - PNG_OVERHEAD - PNG_TEXT_OVERHEAD;
    // Find the largest 4:3 image whose compressed data fits the budget: the noise keeps the
    // ratio near 1.5-2 raw octets per compressed octet; correct the guess until it fits.
    let mut scale = 1.0;
    let mut best: Option<(usize, usize, Vec<u8>)> = None;
    for _ in 0..24 {
        let px = (budget as f64 * 1.6 * scale / 3.0).max(1.0);
        let w = ((px * 4.0 / 3.0).sqrt() as usize).max(1);
        let h = ((px / w as f64) as usize).max(1);
        let idat = png_idat(w, h, seed);
        let ratio = budget as f64 / idat.len() as f64;
        if idat.len() <= budget {
            let done = ratio <= 1.0 / 0.85 || (w == 1 && h == 1);
            if best.as_ref().is_none_or(|b| idat.len() > b.2.len()) {
                best = Some((w, h, idat));
            }
            if done {
                break;
            }
            scale *= ratio.min(1.5) * 0.99;
        } else {
            scale *= ratio * 0.97;
        }
    }
    let (w, h, idat) = best.unwrap_or_else(|| (1, 1, png_idat(1, 1, seed)));
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit, truecolour, deflate, adaptive, no interlace
    png_chunk(&mut out, b"IHDR", &ihdr);
    // Fill the rest with a comment so the file has exactly `len` octets.
    let fill = budget - idat.len();
    let mut text = b"Comment\0".to_vec();
    let words = b"wsec bench ciphers: generated test image. ";
    text.extend((0..fill).map(|i| words[i % words.len()]));
    png_chunk(&mut out, b"tEXt", &text);
    png_chunk(&mut out, b"IDAT", &idat);
    png_chunk(&mut out, b"IEND", &[]);
    debug_assert_eq!(out.len(), len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sizes_and_determinism() {
        for kind in DataType::ALL {
            for len in [128usize, 1000, 28 * 1024, 33 * 1024 + 2] {
                let a = kind.generate(len, 7);
                assert_eq!(a.len(), len, "{kind:?} {len}");
                assert_eq!(a, kind.generate(len, 7));
                assert_ne!(a, kind.generate(len, 8), "{kind:?}: seed has no effect");
            }
        }
        assert_eq!(DataType::Audio.generate(1001, 1).len(), 1000);
    }

    #[test]
    fn text_is_prose() {
        let t = DataType::Text.generate(20_000, 1);
        let s = std::str::from_utf8(&t).unwrap();
        assert!(s.starts_with(|c: char| c.is_ascii_uppercase()));
        assert!(s.contains(". ") && s.contains("\n\n") && s.contains(" the "));
        assert!(t.iter().all(|&b| b == b'\n' || (0x20..0x7f).contains(&b)));
    }

    #[test]
    fn wav_header_is_valid() {
        let w = DataType::Audio.generate(10_000, 1);
        assert_eq!(&w[0..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(w[4..8].try_into().unwrap()) as usize, w.len() - 8);
        assert_eq!(&w[8..16], b"WAVEfmt ");
        assert_eq!(u16::from_le_bytes([w[22], w[23]]), 2);
        assert_eq!(u32::from_le_bytes(w[24..28].try_into().unwrap()), 44_100);
        // Walk the chunks: they must end exactly at the end of the file.
        let mut at = 12;
        let mut data = 0;
        while at < w.len() {
            let n = u32::from_le_bytes(w[at + 4..at + 8].try_into().unwrap()) as usize;
            if &w[at..at + 4] == b"data" {
                data = n;
            }
            at += 8 + n + (n & 1);
        }
        assert_eq!(at, w.len());
        assert_eq!(data % 4, 0);
        assert!(data > 9_000);
    }

    #[test]
    fn png_decodes() {
        for len in [128usize, 5_000, 28 * 1024, 131 * 1024] {
            let p = DataType::Image.generate(len, 3);
            let dec = png::Decoder::new(std::io::Cursor::new(&p));
            let mut r = dec.read_info().expect("PNG header");
            let mut buf = vec![0; r.output_buffer_size()];
            let info = r.next_frame(&mut buf).expect("PNG image data");
            assert_eq!(info.color_type, png::ColorType::Rgb);
            assert!(info.width >= 1 && info.height >= 1);
            if len >= 28 * 1024 {
                // Mostly image, not comment.
                assert!(info.width as usize * info.height as usize * 3 > len, "{len}: {}x{}", info.width, info.height);
            }
        }
    }
}
