//! `wsec decrypt`'s output file: the input is never the output, and
//! the output appears under its name only when the run succeeded.
use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(p)
}

fn wsec(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec")).args(args).output().expect("run wsec");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A private scratch directory holding a copy of the WPA2 capture.
fn scratch(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("wsec-decrypt-output-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cap = dir.join("in.cap");
    std::fs::copy(testdata("captures/aircrack/wpa2-psk-linksys.cap"), &cap).unwrap();
    (dir, cap)
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.contains(".tmp")).collect()
}

/// `wsec decrypt x.cap -o x.cap` truncated its input while reading it and exited 0. It is
/// refused (exit 2, the input untouched), also through a symbolic and a hard link.
#[test]
fn output_that_is_the_input_is_refused_and_the_input_kept() {
    let (dir, cap) = scratch("same");
    let before = std::fs::read(&cap).unwrap();
    let sym = dir.join("sym.cap");
    std::os::unix::fs::symlink(&cap, &sym).unwrap();
    let hard = dir.join("hard.cap");
    std::fs::hard_link(&cap, &hard).unwrap();
    for out in [&cap, &sym, &hard] {
        let (code, _, err) =
            wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--ssid", "linksys", "--passphrase", "dictionary"]);
        assert_eq!(code, 2, "{}: {err}", out.display());
        assert!(err.contains("the output is the input capture"), "{err}");
        assert_eq!(std::fs::read(&cap).unwrap(), before, "the input is unchanged");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A successful run renames its temporary file into place and leaves nothing else; a run
/// refused (a missing key file here) keeps an existing output and leaves no temporary file.
#[test]
fn output_appears_only_on_success() {
    let (dir, cap) = scratch("atomic");
    let out = dir.join("out.cap");
    let (code, _, err) =
        wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--ssid", "linksys", "--passphrase", "dictionary"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.metadata().unwrap().len() > 24, "a capture with packets");
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    let kept = std::fs::read(&out).unwrap();
    let (code, _, _) =
        wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--keys", dir.join("missing").to_str().unwrap()]);
    assert_ne!(code, 0);
    assert_eq!(std::fs::read(&out).unwrap(), kept);
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
}
