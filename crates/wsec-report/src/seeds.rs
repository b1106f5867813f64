//! The seed papers' figures, transcribed into `data/seeds.json` (with the table or figure
//! and the line of the seed text each comes from).
use serde_json::Value;

pub const SEEDS_JSON: &str = include_str!("../data/seeds.json");

pub struct Seeds(Value);

impl Seeds {
    pub fn load() -> crate::Result<Seeds> {
        serde_json::from_str(SEEDS_JSON).map(Seeds).map_err(|e| crate::Error::Input(format!("data/seeds.json: {e}")))
    }

    /// The value at a `/`-separated path ("seed000/table1/i5").
    pub fn at(&self, path: &str) -> &Value {
        self.0.pointer(&format!("/{path}")).unwrap_or(&Value::Null)
    }

    pub fn num(&self, path: &str) -> Option<f64> {
        self.at(path).as_f64()
    }

    /// Element `i` of a numeric array.
    pub fn nth(&self, path: &str, i: usize) -> Option<f64> {
        self.at(path).get(i).and_then(Value::as_f64)
    }

    pub fn text(&self, path: &str) -> String {
        self.at(path).as_str().unwrap_or("").to_string()
    }

    /// "Table I, ... (line 242) — Hayajneh et al., ..." for a table's reference line.
    pub fn reference(&self, seed: &str, item: &str) -> String {
        format!(
            "{}; {} (/work/shared/seeds/{})",
            self.text(&format!("{seed}/{item}/ref")),
            self.text(&format!("{seed}/paper")),
            self.text(&format!("{seed}/file"))
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
        assert!(s.reference("seed000", "table1").contains("line 242"));
    }
}
