//! The hostapd.conf / wpa_supplicant.conf readers (`wsec_live::conf::parse_ap`, `parse_sta`) on
//! arbitrary text: a configuration or an error naming a line of the text, never a panic;
//! what parses is within the documented ranges.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec_live::conf::{parse_ap, parse_sta, ConfError};

/// The errors a line without '=' can give: fixed texts, which a line may happen to be part
/// of (the line "(a line w" is part of the first one) without anything leaking.
const FIXED: [&str; 4] =
    ["expected key=value (a line without '=')", "nested network block", "} outside a network block", "only one network block is supported"];

fn check_err(e: &ConfError, text: &str) {
    assert!(e.line <= text.lines().count(), "line {} of {}", e.line, text.lines().count());
    // A line without '=' is never repeated in the error (it may be a secret).
    if e.line > 0 {
        let l = text.lines().nth(e.line - 1).unwrap().trim();
        if !l.contains('=') && l.len() >= 8 {
            assert!(!e.msg.contains(l) || FIXED.contains(&e.msg.as_str()), "{e}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse_ap(text) {
        Ok(f) => {
            assert!((1..=32).contains(&f.ap.ssid.len()));
            assert!((1..=14).contains(&f.ap.channel));
            assert!(f.ap.group_rekey_s <= i32::MAX as u64 && f.ap.ptk_rekey_s <= i32::MAX as u64);
            assert!((1..=i32::MAX as u64).contains(&f.ap.max_inactivity_s));
            assert!(f.ap.max_stations <= 2007);
            assert!(!f.ap.bssid.is_group());
        }
        Err(e) => check_err(&e, text),
    }
    match parse_sta(text) {
        Ok(f) => {
            assert!((1..=32).contains(&f.sta.ssid.len()));
            assert!(!f.sta.addr.is_group());
        }
        Err(e) => check_err(&e, text),
    }
});
