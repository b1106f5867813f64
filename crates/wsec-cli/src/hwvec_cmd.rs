//! `wsec hw-vectors`: test vectors for the Verilog engines in `hw/` (the generator and the
//! file format are `wsec_bench::hw_vectors`); here its arguments and the output file.
use clap::{Args, ValueEnum};
use std::path::Path;
use wsec_bench::hw_vectors::{self, Generate, Suite};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
pub enum SuiteArg {
    Ccmp,
    #[value(name = "eccmp-1")]
    Eccmp1,
    #[value(name = "eccmp-2")]
    Eccmp2,
    #[value(name = "eccmp-4")]
    Eccmp4,
    #[value(name = "eccmp-8")]
    Eccmp8,
    Ccm16e,
    /// AES-128 blocks alone: lines `key plaintext ciphertext` (for tb_aes_block)
    Aes,
}

impl From<SuiteArg> for Suite {
    fn from(s: SuiteArg) -> Suite {
        match s {
            SuiteArg::Ccmp => Suite::Ccmp,
            SuiteArg::Eccmp1 => Suite::Eccmp1,
            SuiteArg::Eccmp2 => Suite::Eccmp2,
            SuiteArg::Eccmp4 => Suite::Eccmp4,
            SuiteArg::Eccmp8 => Suite::Eccmp8,
            SuiteArg::Ccm16e => Suite::Ccm16e,
            SuiteArg::Aes => Suite::Aes,
        }
    }
}

#[derive(Args)]
pub struct HwVecArgs {
    /// Which engine the vectors are for
    #[arg(long, value_enum)]
    suite: SuiteArg,
    /// Number of frames (the first is the IEEE CCMP vector for ccmp/eccmp-k)
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Seed of the random frames
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest frame body in octets (0-2304; 802.16e PDUs are capped by LEN at 2029); with
    /// --from, lines with longer bodies are skipped
    #[arg(long, default_value_t = 2304)]
    max_len: usize,
    /// Instead of generating frames, convert the lines of this suite from a vector file of
    /// `suite tk pn key_id plaintext_mpdu protected_mpdu` lines (such as
    /// crates/wsec/tests/data/eccmp_vectors.txt): the expected output is the file's
    /// protected MPDU, not recomputed
    #[arg(long)]
    from: Option<String>,
    /// Output file ('-' for standard output)
    #[arg(short = 'o', long, default_value = "-")]
    out: String,
}

pub fn run(a: HwVecArgs) -> Result<String, (u8, String)> {
    crate::inputs_exist(a.from.as_deref().map(Path::new))?;
    let suite = Suite::from(a.suite);
    let (text, count) = match &a.from {
        Some(path) => hw_vectors::convert(Path::new(path), suite, a.max_len).map_err(|e| (1, e.to_string()))?,
        None => {
            if a.max_len > 2304 {
                return Err((2, "--max-len is at most 2304 (the largest MSDU)".into()));
            }
            let g = Generate { suite, count: a.count, seed: a.seed, max_len: a.max_len };
            (hw_vectors::generate(&g).map_err(|e| (1, e.to_string()))?, a.count)
        }
    };
    if a.out == "-" {
        return Ok(text.trim_end().to_string());
    }
    std::fs::write(&a.out, &text).map_err(|e| (1, format!("{}: {e}", a.out)))?;
    Ok(match &a.from {
        Some(path) => format!("wrote {count} {:?} frames from {path} to {}", a.suite, a.out),
        None => format!("wrote {count} {:?} frames to {}", a.suite, a.out),
    })
}
