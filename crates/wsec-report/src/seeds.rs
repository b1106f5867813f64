//! The seed papers' figures, transcribed into `data/seeds.json` (with the table or figure
//! and the line of the seed text each comes from).
use serde_json::Value;

pub const SEEDS_JSON: &str = include_str!("../data/seeds.json");

pub struct Seeds(Value);

/// A paper figure: its value and its digits as printed.
pub type Printed = (f64, String);

fn printed_of(v: &Value) -> Option<Printed> {
    match v {
        Value::Number(n) => n.as_f64().map(|x| (x, crate::printed(x))),
        Value::String(s) => s.trim_end_matches('%').parse::<f64>().ok().map(|x| (x, s.trim_end_matches('%').to_string())),
        _ => None,
    }
}

impl Seeds {
    pub fn load() -> crate::Result<Seeds> {
        serde_json::from_str(SEEDS_JSON).map(Seeds).map_err(|e| crate::Error::Input(format!("data/seeds.json: {e}")))
    }

    /// The value at a `/`-separated path ("seed000/table1/i5").
    pub fn at(&self, path: &str) -> &Value {
        self.0.pointer(&format!("/{path}")).unwrap_or(&Value::Null)
    }

    pub fn num(&self, path: &str) -> Option<f64> {
        self.printed(path).map(|p| p.0)
    }

    /// Element `i` of a numeric array.
    pub fn nth(&self, path: &str, i: usize) -> Option<f64> {
        self.nth_printed(path, i).map(|p| p.0)
    }

    /// The figure at `path` with the paper's digits (a number, or a string such as "96.40"
    /// or "4.08%").
    pub fn printed(&self, path: &str) -> Option<Printed> {
        printed_of(self.at(path))
    }

    pub fn nth_printed(&self, path: &str, i: usize) -> Option<Printed> {
        self.at(path).get(i).and_then(printed_of)
    }

    pub fn text(&self, path: &str) -> String {
        self.at(path).as_str().unwrap_or("").to_string()
    }

    /// The seed text's file name ("000_c7c8ff673782f344.txt").
    pub fn file(&self, seed: &str) -> String {
        self.text(&format!("{seed}/file"))
    }

    /// The line of the seed text where `item` starts.
    pub fn line(&self, seed: &str, item: &str) -> u32 {
        self.at(&format!("{seed}/{item}/line")).as_u64().unwrap_or(1) as u32
    }

    /// "Table I, ... (000_c7c8ff673782f344.txt, line 242); Hayajneh et al., ..." for a
    /// table's reference line.
    pub fn reference(&self, seed: &str, item: &str) -> String {
        format!(
            "{} ({}, line {}); {}",
            self.text(&format!("{seed}/{item}/ref")),
            self.file(seed),
            self.line(seed, item),
            self.text(&format!("{seed}/paper"))
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcription_matches_the_seed_text() {
        // Spot checks against the numbers as printed in the papers (seed 000 Tables I, II,
        // V; seed 003 Table 3; seed 001 Table 1), so a typo in data/seeds.json fails here.
        let s = Seeds::load().unwrap();
        assert_eq!(s.at("seed000/table1/i5"), &serde_json::json!([40, 29, 24, 22]));
        assert_eq!(s.at("seed000/table2/i5"), &serde_json::json!([47, 35, 28, 25]));
        assert_eq!(s.num("seed000/table5/parallel_nj"), Some(96.0));
        assert_eq!(s.nth("seed003/table3/mbps", 1), Some(1029.48));
        assert_eq!(s.at("seed001/table1/rows/0/gbps").as_f64(), Some(1.631));
        assert!(s.reference("seed000", "table1").contains("000_c7c8ff673782f344.txt, line 242"));
        assert!(!s.reference("seed000", "table1").contains("/work"), "cited by file name, not a machine's path");
    }

    #[test]
    fn printed_keeps_the_papers_digits() {
        let s = Seeds::load().unwrap();
        assert_eq!(s.printed("seed001/table1/rows/3/mhz"), Some((96.4, "96.40".into())));
        assert_eq!(s.printed("seed001/table1/rows/0/mhz"), Some((127.43, "127.43".into())));
        assert_eq!(s.nth_printed("seed002/table1/dropped_tcp", 1), Some((4.08, "4.08".into())));
        assert_eq!(s.nth_printed("seed003/table3/mhz", 1), Some((56.3, "56.30".into())));
        assert_eq!(s.printed("seed000/table1/nothing"), None);
    }
}
