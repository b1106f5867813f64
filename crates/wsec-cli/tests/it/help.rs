//! Every subcommand's `--help` describes every option and positional:
//! the command tree is walked from `wsec --help` (the "Commands:" section of each level),
//! and each argument line of "Arguments:" and "Options:" must carry a description, on its
//! own line or on the next (clap's long format).
use std::process::Command;

fn help(path: &[String]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec")).args(path).arg("--help").output().expect("run wsec");
    assert!(o.status.success(), "wsec {path:?} --help: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("help is UTF-8")
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// The lines of the section headed `name:` (up to the next unindented line).
fn section<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| *l != format!("{name}:"));
    lines.next();
    lines.take_while(|l| l.is_empty() || l.starts_with(' ')).collect()
}

/// Arguments (options and positionals) of one help text that have no description.
fn undescribed(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for name in ["Arguments", "Options"] {
        let lines = section(text, name);
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            // An argument line: "  <X>", "  [X]", "  -o, --output <O>", "      --json".
            let is_arg = indent(l) <= 6 && (t.starts_with('-') || t.starts_with('<') || t.starts_with('['));
            if !is_arg {
                continue;
            }
            // Short format: the spec, two or more spaces, the description.
            let inline = t.split_once("  ").is_some_and(|(_, d)| !d.trim().is_empty());
            // Long format: the description on the next, more indented line (not a default
            // or the list of possible values, which clap adds on its own).
            let next = lines.get(i + 1).map(|n| (indent(n), n.trim())).unwrap_or((0, ""));
            let below = next.0 > 6
                && !next.1.is_empty()
                && !next.1.starts_with("[default")
                && !next.1.starts_with("[possible")
                && !next.1.starts_with("Possible values");
            if !inline && !below {
                bad.push(t.trim_end().to_string());
            }
        }
    }
    bad
}

/// Subcommands of one help text (without `help`), each with whether it has a description.
fn subcommands(text: &str) -> Vec<(String, bool)> {
    section(text, "Commands")
        .iter()
        .filter(|l| indent(l) == 2)
        .filter_map(|l| {
            let t = l.trim();
            let name = t.split_whitespace().next()?.to_string();
            (name != "help").then(|| (name.clone(), t.len() > name.len()))
        })
        .collect()
}

#[test]
fn every_argument_of_every_subcommand_is_described() {
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut seen = Vec::new();
    let mut problems = Vec::new();
    while let Some(path) = todo.pop() {
        let text = help(&path);
        for a in undescribed(&text) {
            problems.push(format!("wsec {}: {a}", path.join(" ")));
        }
        for (sub, described) in subcommands(&text) {
            if !described {
                problems.push(format!("wsec {} {sub}: no description", path.join(" ")));
            }
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
        seen.push(path.join(" "));
    }
    // The walk reached the whole tree, not just the top.
    for want in [
        "model saturation",
        "model run",
        "model sweep",
        "model costs",
        "bench ccmp",
        "bench ciphers",
        "bench relay",
        "ap",
        "sta",
        "inject",
        "stream send",
        "stream recv",
        "load",
        "air",
        "demo",
        "hw-vectors",
        "decrypt",
        "synth",
    ] {
        assert!(seen.iter().any(|s| s == want), "wsec {want} not reached: {seen:?}");
    }
    assert!(problems.is_empty(), "arguments without help text:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_finds_an_undescribed_argument() {
    // Both of clap's layouts, with and without descriptions.
    let short = "Options:\n      --phy <PHY>  PHY: b, a, g, n\n      --stations <STATIONS>\n      --json\n  -h, --help  Print help\n";
    assert_eq!(undescribed(short), ["--stations <STATIONS>", "--json"]);
    let long =
        "Arguments:\n  <SCENARIO>\n\nOptions:\n      --costs <COSTS>\n          Cost file\n\n      --seed <SEED>\n          [default: 1]\n";
    assert_eq!(undescribed(long), ["<SCENARIO>", "--seed <SEED>"]);
}

#[test]
fn the_tagline_says_what_wsec_is_and_demo_says_it_needs_root() {
    let top = help(&[]);
    for want in ["WLAN security system", "RSN", "capture", "live AP", "DCF", "benchmark", "Verilog"] {
        assert!(top.contains(want), "top-level help lacks {want:?}:\n{top}");
    }
    let demo = help(&["demo".to_string()]);
    assert!(demo.contains("root"), "demo --help does not say it needs root:\n{demo}");
}
