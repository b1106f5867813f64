//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub fn h(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(s).expect("test vector hex")
}

pub fn hx(b: &[u8]) -> String {
    hex::encode(b)
}
