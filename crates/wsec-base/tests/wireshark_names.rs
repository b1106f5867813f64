//! The suite table's Wireshark names are the ones the installed Wireshark prints: its
//! `wlan.rsn.pcs.type` value strings (`tshark -G values`, the dissector's
//! `ieee80211_rsn_cipher_vals`), for every suite in the 00-0F-AC OUI.
use std::process::Command;
use wsec_base::suite::SUITES;

#[test]
fn wireshark_names_match_tsharks_value_strings() {
    let out = Command::new("tshark").args(["-G", "values"]).output().expect("tshark is needed for this test (scripts/setup installs it)");
    assert!(out.status.success(), "tshark -G values failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let vals: Vec<(u8, &str)> = text
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            (f.next() == Some("V") && f.next() == Some("wlan.rsn.pcs.type")).then_some(())?;
            Some((f.next()?.parse().ok()?, f.next()?))
        })
        .collect();
    assert!(vals.len() >= 13, "tshark listed {} wlan.rsn.pcs.type values", vals.len());
    let mut checked = 0;
    for row in SUITES.iter() {
        let Some(name) = row.wireshark else { continue };
        let ty = row.suite_type;
        let theirs = vals.iter().find(|(v, _)| *v == ty).map(|(_, n)| *n);
        assert_eq!(theirs, Some(name), "{:?} (suite type {ty})", row.suite);
        checked += 1;
    }
    assert_eq!(checked, 11, "every IEEE 802.11 suite of the table was compared");
}
