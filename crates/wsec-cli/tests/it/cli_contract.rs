//! The command line's contract (docs/cli.md): a damaged capture is exit 3 with
//! the error on standard error; every input read whole stops at its size limit with a
//! one-line error (an endless `/dev/zero` or FIFO fails fast, in bounded memory); model
//! resource requests are range-checked; keys can come from files or standard input.
//!
//! Every run here has a 1 GiB address-space limit and a time limit, so a regression (an
//! unbounded read) fails the test instead of exhausting the machine.
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn testdata(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(p)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wsec-contract-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// What standard input the run gets.
enum In<'a> {
    Null,
    Bytes(&'a [u8]),
    /// `/dev/zero`: an endless stream.
    Zero,
}

struct Run {
    code: Option<i32>,
    signal: Option<i32>,
    out: String,
    err: String,
}

/// Runs wsec with `args` under a 1 GiB address-space limit; fails the test after 60 s.
fn wsec(args: &[&str], input: In) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wsec"));
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(match input {
        In::Null => Stdio::null(),
        In::Bytes(_) => Stdio::piped(),
        In::Zero => Stdio::from(std::fs::File::open("/dev/zero").unwrap()),
    });
    // SAFETY: between fork and exec the child only calls setrlimit, which is
    // async-signal-safe, on a struct on its own stack.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("run wsec");
    if let In::Bytes(b) = input {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b).unwrap();
    }
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            r.read_to_end(&mut s).unwrap();
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let (o, e) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("wsec {args:?} ran longer than 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run { code: status.code(), signal: status.signal(), out: o.join().unwrap(), err: e.join().unwrap() }
}

/// A failure as the contract says: the exit code, no signal, one line on standard error
/// naming `want`.
fn assert_fails(r: &Run, code: i32, want: &str, what: &str) {
    assert_eq!(r.signal, None, "{what}: killed by a signal; stderr: {}", r.err);
    assert_eq!(r.code, Some(code), "{what}: stderr: {}", r.err);
    assert_eq!(r.err.lines().count(), 1, "{what}: one line on stderr, got {:?}", r.err);
    assert!(r.err.starts_with("wsec: ") && r.err.contains(want), "{what}: {:?} lacks {want:?}", r.err);
}

/// A truncated capture is exit 3 (not an exit 0 with the damage only inside the summary on
/// standard output): the error on standard error, the output holds the frames read before
/// the damage, and the JSON summary keeps `capture_errors`.
#[test]
fn damaged_capture_is_exit_3_with_the_error_on_stderr() {
    let whole = std::fs::read(testdata("captures/aircrack/wep_64_ptw.cap")).unwrap();
    let cut = tmp("cut.cap");
    std::fs::write(&cut, &whole[..whole.len() / 2 + 7]).unwrap();
    let out = tmp("cut-dec.pcap");
    let args = ["decrypt", cut.to_str().unwrap(), "-o", out.to_str().unwrap(), "--wep-key", "1f1f1f1f1f", "--json"];
    let r = wsec(&args, In::Null);
    assert_fails(&r, 3, "damaged capture", "truncated capture");
    let j: serde_json::Value = serde_json::from_str(&r.out).expect("the JSON summary on stdout");
    assert_eq!(j["capture_errors"].as_array().map(|a| a.len()), Some(1), "{j}");
    let written = j["frames_written"].as_u64().unwrap();
    assert!(written > 1000, "{j}");
    let read_back = wsec::capture::CaptureReader::open(&out).unwrap().filter(|p| p.is_ok()).count() as u64;
    assert_eq!(read_back, written, "the partial output is a whole capture of the frames read");
    assert!(wsec::capture::CaptureReader::open(&out).unwrap().all(|p| p.is_ok()), "and reads to its end without an error");
    // The whole capture: exit 0 and nothing on stderr.
    let r = wsec(
        &[
            "decrypt",
            testdata("captures/aircrack/wep_64_ptw.cap").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--wep-key",
            "1f1f1f1f1f",
        ],
        In::Null,
    );
    assert_eq!((r.code, r.err.as_str()), (Some(0), ""), "whole capture");
}

/// Every file or stream read whole has a size limit; `/dev/zero` (and a
/// FIFO that never ends) fails at it, fast and in bounded memory (the 1 GiB address-space
/// limit of these runs), with a one-line error.
#[test]
fn endless_inputs_stop_at_their_limit() {
    let cap = testdata("captures/aircrack/wep_64_ptw.cap");
    let cap = cap.to_str().unwrap();
    let out = tmp("zero-dec.pcap");
    let out = out.to_str().unwrap();
    let ccmp = ["--cipher", "ccmp"];
    let key = "c97c1f67ce371185514a8a19f2bdd52f";
    let (n1, n2) = ("00".repeat(32), "11".repeat(32));
    let cases: Vec<(Vec<&str>, In, i32)> = vec![
        (vec!["decrypt", cap, "-o", out, "--keys", "/dev/zero"], In::Null, 2),
        (vec!["decrypt", cap, "-o", out, "--keys", "-"], In::Zero, 2),
        (vec!["decrypt", cap, "-o", out, "--pmk-file", "/dev/zero"], In::Null, 2),
        (vec!["decrypt", cap, "-o", out, "--ssid", "x", "--passphrase-file", "-"], In::Zero, 2),
        (vec!["ap", "-c", "/dev/zero"], In::Null, 2),
        (vec!["sta", "-c", "/dev/zero"], In::Null, 2),
        ([&["unprotect"][..], &ccmp, &["--key", key, "-"]].concat(), In::Zero, 2),
        ([&["protect"][..], &ccmp, &["--key", key, "--pn", "1", "-"]].concat(), In::Zero, 2),
        ([&["unprotect"][..], &ccmp, &["--key-file", "/dev/zero", "00"]].concat(), In::Null, 2),
        (
            vec!["ptk", "--pmk-file", "-", "--aa", "02:00:00:00:00:01", "--spa", "02:00:00:00:00:02", "--anonce", &n1, "--snonce", &n2],
            In::Zero,
            2,
        ),
        (vec!["passphrase", "ssid"], In::Zero, 2),
        (vec!["model", "run", "/dev/zero"], In::Null, 2),
    ];
    for (args, input, code) in cases {
        let t0 = Instant::now();
        let r = wsec(&args, input);
        assert_fails(&r, code, "limit", &format!("{args:?}"));
        assert!(t0.elapsed() < Duration::from_secs(30), "{args:?} took {:?}", t0.elapsed());
    }
    // A FIFO whose writer never stops.
    let fifo = tmp("endless.fifo");
    let _ = std::fs::remove_file(&fifo);
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let f2 = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(&f2).unwrap();
        let block = [b'#'; 65536];
        while w.write_all(&block).is_ok() {}
    });
    let r = wsec(&["ap", "-c", fifo.to_str().unwrap()], In::Null);
    assert_fails(&r, 2, "limit", "ap -c FIFO");
    writer.join().unwrap();
}

/// Every resource request is range-checked, the error naming the limit: `wsec model
/// saturation --stations 100000000` would otherwise abort on a 27 GB allocation.
#[test]
fn model_resource_requests_are_limited() {
    let sat = ["model", "saturation", "--phy", "g", "--rate", "54"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&sat[..], &["--stations", "100000000"]].concat(), "--stations 100000000 exceeds the limit of 2007"),
        ([&sat[..], &["--stations", "2", "--duration", "1e9"]].concat(), "--duration"),
        ([&sat[..], &["--stations", "2", "--replications", "100000000"]].concat(), "--replications"),
        ([&sat[..], &["--stations", "2", "--ampdu", "100000"]].concat(), "--ampdu"),
        (
            vec!["model", "run", "../../scenarios/saturation_g54.toml", "--set", "topology.stations=100000000"],
            "topology.stations = 100000000 exceeds the limit of 2007",
        ),
        (vec!["model", "run", "../../scenarios/saturation_g54.toml", "--set", "run.duration_s=1e9"], "run.duration_s"),
        (vec!["model", "run", "../../scenarios/saturation_g54.toml", "--replications", "100000000"], "replications"),
        (vec!["model", "sweep", "../../scenarios/saturation_g54.toml", "--param", "topology.stations=1:1e15:1"], "limit of 10000"),
    ];
    for (args, want) in cases {
        let r = wsec(&args, In::Null);
        assert_fails(&r, 2, want, &format!("{args:?}"));
        assert!(r.err.contains("limit"), "{args:?}: {}", r.err);
    }
}

/// Keys can be passed without the process list: --key-file,
/// --passphrase-file, --pmk-file (a file or '-' for standard input), and --help says why.
#[test]
fn keys_from_files_and_standard_input() {
    let key = "c97c1f67ce371185514a8a19f2bdd52f";
    let prot = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623";
    let plain = "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050";
    let kf = tmp("tk.hex");
    std::fs::write(&kf, format!("{key}\n")).unwrap();
    let r = wsec(&["unprotect", "--cipher", "ccmp", "--key-file", kf.to_str().unwrap(), prot], In::Null);
    assert_eq!((r.code, r.out.trim()), (Some(0), plain), "{}", r.err);
    let r = wsec(&["unprotect", "--cipher", "ccmp", "--key-file", "-", prot], In::Bytes(format!("{key}\r\n").as_bytes()));
    assert_eq!((r.code, r.out.trim()), (Some(0), plain), "{}", r.err);
    // Standard input feeds one option only; a key file of two lines is refused.
    let r = wsec(&["unprotect", "--cipher", "ccmp", "--key-file", "-", "-"], In::Bytes(b""));
    assert_fails(&r, 2, "standard input", "two '-'");
    std::fs::write(&kf, format!("{key}\n{key}\n")).unwrap();
    let r = wsec(&["unprotect", "--cipher", "ccmp", "--key-file", kf.to_str().unwrap(), prot], In::Null);
    assert_fails(&r, 2, "one line", "two-line key file");
    assert!(!r.err.contains(key), "the key is not echoed: {}", r.err);

    // decrypt: a passphrase from a file and from standard input decrypt what --passphrase does.
    let cap = testdata("captures/aircrack/wpa2-psk-linksys.cap");
    let out = tmp("wpa2.pcap");
    let decrypted = |r: &Run| -> u64 {
        assert_eq!(r.code, Some(0), "{}", r.err);
        serde_json::from_str::<serde_json::Value>(&r.out).unwrap()["decrypted"].as_u64().unwrap()
    };
    let base = ["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json", "--ssid", "linksys"];
    let want = decrypted(&wsec(&[&base[..], &["--passphrase", "dictionary"]].concat(), In::Null));
    assert!(want > 0);
    let pf = tmp("pass.txt");
    std::fs::write(&pf, "dictionary\n").unwrap();
    assert_eq!(decrypted(&wsec(&[&base[..], &["--passphrase-file", pf.to_str().unwrap()]].concat(), In::Null)), want);
    assert_eq!(decrypted(&wsec(&[&base[..], &["--passphrase-file", "-"]].concat(), In::Bytes(b"dictionary\n"))), want);
    // The PMK of that passphrase, from a file.
    let pmk = wsec::rsn::pbkdf2::psk_from_passphrase(b"dictionary", b"linksys").unwrap();
    let pmkf = tmp("pmk.hex");
    std::fs::write(&pmkf, hex::encode(pmk)).unwrap();
    let r =
        wsec(&["decrypt", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json", "--pmk-file", pmkf.to_str().unwrap()], In::Null);
    assert_eq!(decrypted(&r), want);
    // ptk --pmk-file gives what --pmk gives.
    let ptk = |src: &[&str], input| {
        let n1 = "00".repeat(32);
        let n2 = "11".repeat(32);
        let args =
            [&["ptk"][..], src, &["--aa", "02:00:00:00:00:01", "--spa", "02:00:00:00:00:02", "--anonce", &n1, "--snonce", &n2]].concat();
        let r = wsec(&args, input);
        assert_eq!(r.code, Some(0), "{}", r.err);
        r.out
    };
    let hex_pmk = hex::encode(pmk);
    assert_eq!(ptk(&["--pmk-file", "-"], In::Bytes(format!("{hex_pmk}\n").as_bytes())), ptk(&["--pmk", &hex_pmk], In::Null));
    // --help says where keys are visible.
    for args in [&["--help"][..], &["decrypt", "--help"], &["unprotect", "--help"]] {
        let r = wsec(args, In::Null);
        assert!(r.out.contains("process list"), "{args:?}: {}", r.out);
    }
}
