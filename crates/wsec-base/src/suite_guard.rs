//! The suite table is the only place suite facts are spelled: this test reads the
//! workspace's library and benchmark sources (not its tests) and fails on
//! - a `match` arm or `|` pattern naming [`CipherSuite`] variants (a per-suite rule that a
//!   new suite would have to join),
//! - a list of two or more suites written out (a default list, a class of suites),
//! - a string literal that is a hostapd or Wireshark name of a suite,
//!
//! outside the table ([`crate::suite`]), the cipher modules (`wsec/src/cipher/`) and the
//! kernels. A comparison with one suite (`c == CipherSuite::Tkip`: a rule of that suite
//! alone) is allowed: a new suite does not change it.
use crate::suite::SUITES;
use std::path::{Path, PathBuf};

/// Files (paths relative to `crates/`) where a check does not apply, and why.
const EXCEPTIONS: &[(&str, Check, &str)] = &[
    // The lab writes hostapd.conf / wpa_supplicant.conf text for the programs it starts.
    ("wsec-cli/src/lab.rs", Check::Names, "configuration text for the lab's hostapd and wpa_supplicant"),
    // A chosen set of suites to time, and the peer implementations (RustCrypto, OpenSSL)
    // of CCMP-128 and GCMP-128.
    ("wsec-bench/benches/frames.rs", Check::Rules, "the suites timed and the peers of two of them"),
    // The report's rows of `wsec demo` modes, labelled as the seed papers label them.
    ("wsec-report/src/collect.rs", Check::Names, "labels of the demo modes in the report"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Rules,
    Names,
}

/// Where suite facts may be spelled.
fn exempt(rel: &str) -> bool {
    rel == "wsec-base/src/suite.rs"
        || rel == "wsec-base/src/suite_guard.rs"
        || rel.starts_with("wsec/src/cipher/")
        || rel.split('/').any(|c| c.contains("kernel"))
}

/// The source: comments and string contents blanked (newlines kept, so offsets keep their
/// lines), and the string literals with their offsets.
struct Lexed {
    code: Vec<char>,
    strings: Vec<(usize, String)>,
}

fn lex(src: &str) -> Lexed {
    let s: Vec<char> = src.chars().collect();
    let mut code = s.clone();
    let mut strings = Vec::new();
    let blank = |code: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut code[from..to.min(s.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = s[i..].iter().position(|&c| c == '\n').map_or(s.len(), |p| i + p);
            blank(&mut code, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < s.len() && depth > 0 {
                if s[j] == '/' && s.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if s[j] == '*' && s.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut code, i, j);
            i = j;
        } else if c == 'r' && raw_string_at(&s, i) {
            // Raw string r"..." / r#"..."# (or br"...").
            let mut j = i + 1;
            let mut hashes = 0;
            while s.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            let start = j + 1;
            let mut k = start;
            let end = loop {
                if k >= s.len() {
                    break s.len();
                }
                if s[k] == '"' && (0..hashes).all(|h| s.get(k + 1 + h) == Some(&'#')) {
                    break k;
                }
                k += 1;
            };
            strings.push((i, s[start..end].iter().collect()));
            blank(&mut code, start, end);
            i = end + 1 + hashes;
        } else if c == '"' {
            let start = i + 1;
            let mut k = start;
            let mut text = String::new();
            while k < s.len() && s[k] != '"' {
                if s[k] == '\\' {
                    k += 1;
                    text.push(match s.get(k) {
                        Some('n') => '\n',
                        Some(&o) => o,
                        None => break,
                    });
                } else {
                    text.push(s[k]);
                }
                k += 1;
            }
            strings.push((i, text));
            blank(&mut code, start, k);
            i = k + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                let from = (i + 3).min(s.len());
                let end = s[from..].iter().position(|&c| c == '\'').map_or(s.len(), |p| from + p);
                blank(&mut code, i + 1, end);
                i = end + 1;
            } else if s.get(i + 2) == Some(&'\'') {
                blank(&mut code, i + 1, i + 2);
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    Lexed { code, strings }
}

/// `r` at `i` opens a raw string: not inside an identifier (a `b` prefix aside), then
/// `#`s and a quote.
fn raw_string_at(s: &[char], i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map(|p| s[p]);
    let prefix_ok = match before(1) {
        Some('b') => !is_ident(before(2)),
        p => !is_ident(p),
    };
    let mut j = i + 1;
    while s.get(j) == Some(&'#') {
        j += 1;
    }
    prefix_ok && s.get(j) == Some(&'"')
}

fn is_ident(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn starts_with(code: &[char], at: usize, pat: &str) -> bool {
    pat.chars().enumerate().all(|(k, p)| code.get(at + k) == Some(&p))
}

fn skip_ws(code: &[char], mut at: usize) -> usize {
    while code.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

/// Offsets covered by `#[cfg(test)]` items (their attribute to the end of the item), and
/// the file modules such an item declares (`#[cfg(test)] mod x;`).
fn test_items(code: &[char]) -> (Vec<(usize, usize)>, Vec<String>) {
    let (mut spans, mut mods) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < code.len() {
        if !starts_with(code, i, "#[cfg(test)]") {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + "#[cfg(test)]".len();
        // The item ends at its first `;` outside braces, or at the brace closing its body.
        let (mut depth, mut end) = (0usize, code.len());
        let item_start = skip_ws(code, j);
        while j < code.len() {
            match code[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    let item: String = code[item_start..j].iter().collect();
                    if let Some(name) = item.trim().strip_prefix("mod ") {
                        mods.push(name.trim().to_string());
                    }
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        spans.push((start, end));
        i = end;
    }
    (spans, mods)
}

fn line_of(code: &[char], at: usize) -> usize {
    1 + code[..at].iter().filter(|&&c| c == '\n').count()
}

/// Per-suite rules written outside the table: `CipherSuite::X =>`, `| CipherSuite::X`,
/// `CipherSuite::X |`, and `CipherSuite::X, CipherSuite::Y`.
fn rule_findings(code: &[char], tests: &[(usize, usize)]) -> Vec<(usize, &'static str)> {
    const P: &str = "CipherSuite::";
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if !starts_with(code, i, P) || is_ident(i.checked_sub(1).map(|p| code[p])) {
            i += 1;
            continue;
        }
        let v = i + P.len();
        let mut e = v;
        while is_ident(code.get(e).copied()) {
            e += 1;
        }
        let variant = code.get(v).is_some_and(|c| c.is_ascii_uppercase()) && code[v..e].iter().any(|c| c.is_ascii_lowercase());
        if !variant || tests.iter().any(|&(a, b)| (a..b).contains(&i)) {
            i = e;
            continue;
        }
        let after = skip_ws(code, e);
        let mut before = i;
        while before > 0 && code[before - 1].is_whitespace() {
            before -= 1;
        }
        let prev_bar = before > 0 && code[before - 1] == '|' && (before < 2 || code[before - 2] != '|');
        let next_bar = code.get(after) == Some(&'|') && code.get(after + 1) != Some(&'|');
        // After `==`, `!=`, `<`, `>` the path is an operand (say of an arm's guard), not a pattern.
        let operand = before > 0 && matches!(code[before - 1], '=' | '<' | '>');
        if starts_with(code, after, "=>") && !operand {
            out.push((i, "a match arm on a suite"));
        } else if prev_bar || next_bar {
            out.push((i, "a pattern of several suites"));
        } else if code.get(after) == Some(&',') && starts_with(code, skip_ws(code, after + 1), P) {
            out.push((i, "a list of suites"));
        }
        i = e;
    }
    out
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn suite_facts_live_in_the_table() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crates/");
    let names: Vec<&str> = SUITES.iter().flat_map(|r| r.hostapd_conf.iter().copied().chain([r.hostapd_txt]).chain(r.wireshark)).collect();
    let mut files = Vec::new();
    let mut krates: Vec<PathBuf> = std::fs::read_dir(crates).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
    krates.sort();
    for k in krates {
        for d in ["src", "benches"] {
            sources(&k.join(d), &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} source files under {}", files.len(), crates.display());
    // Files that are test modules (`#[cfg(test)] mod x;`).
    let mut test_files: Vec<PathBuf> = Vec::new();
    let mut lexed = Vec::new();
    for f in &files {
        let l = lex(&std::fs::read_to_string(f).unwrap());
        let (spans, mods) = test_items(&l.code);
        let stem = f.file_stem().unwrap().to_string_lossy();
        let dir = if stem == "lib" || stem == "mod" || stem == "main" { f.parent().unwrap().to_path_buf() } else { f.with_extension("") };
        for m in mods {
            test_files.push(dir.join(format!("{m}.rs")));
            test_files.push(dir.join(&m).join("mod.rs"));
        }
        lexed.push((f, l, spans));
    }
    let mut bad = std::collections::BTreeSet::new();
    for (f, l, spans) in &lexed {
        let rel = f.strip_prefix(crates).unwrap().to_string_lossy().replace('\\', "/");
        if exempt(&rel) || test_files.contains(f) {
            continue;
        }
        let excepted = |c: Check| EXCEPTIONS.iter().any(|&(p, k, _)| p == rel && k == c);
        if !excepted(Check::Rules) {
            for (at, what) in rule_findings(&l.code, spans) {
                bad.insert(format!("crates/{rel}:{}: {what}; read it from the suite table", line_of(&l.code, at)));
            }
        }
        if !excepted(Check::Names) {
            for (at, s) in &l.strings {
                if names.contains(&s.as_str()) && !spans.iter().any(|&(a, b)| (a..b).contains(at)) {
                    bad.insert(format!("crates/{rel}:{}: the suite name {s:?}; read it from the suite table", line_of(&l.code, *at)));
                }
            }
        }
    }
    assert!(bad.is_empty(), "suite facts outside crates/wsec-base/src/suite.rs:\n{}", bad.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
fn the_guard_sees_what_it_looks_for() {
    let l = lex(concat!(
        "fn f(c: CipherSuite) -> u8 {\n",
        "    // CipherSuite::Tkip => 1 in a comment\n",
        "    let s = \"CipherSuite::Ccmp128 =>\";\n",
        "    let q = '\"';\n",
        "    if c == CipherSuite::Tkip { return 0; }\n",
        "    match Some(c) { Some(x) if x != CipherSuite::Tkip => {} _ => {} }\n",
        "    match c { CipherSuite::Wep40 | CipherSuite::Wep104 => 1, CipherSuite::Ccmp128 => 2, _ => 3 }\n",
        "}\n",
        "const L: [CipherSuite; 2] = [CipherSuite::Ccmp128, CipherSuite::Gcmp128];\n",
        "fn g() -> &'static str { \"CCMP-256\" }\n",
        "#[cfg(test)]\nmod tests { const M: [CipherSuite; 2] = [CipherSuite::Tkip, CipherSuite::Wep40]; }\n",
        "#[cfg(test)]\nmod more;\n",
    ));
    let (spans, mods) = test_items(&l.code);
    let lines: Vec<(usize, &str)> = rule_findings(&l.code, &spans).into_iter().map(|(at, w)| (line_of(&l.code, at), w)).collect();
    assert_eq!(
        lines,
        [(7, "a pattern of several suites"), (7, "a match arm on a suite"), (7, "a match arm on a suite"), (9, "a list of suites")]
    );
    assert_eq!(mods, ["more"]);
    assert!(l.strings.iter().any(|(at, s)| s == "CCMP-256" && line_of(&l.code, *at) == 10));
    assert!(l.strings.iter().any(|(_, s)| s == "CipherSuite::Ccmp128 =>"));
}
