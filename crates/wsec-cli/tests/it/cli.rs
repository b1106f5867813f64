//! End-to-end tests of `wsec protect` / `wsec unprotect` on the standard's vectors.
use std::process::Command;

fn wsec(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_wsec")).args(args).output().expect("run wsec");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).trim().to_string(),
        String::from_utf8_lossy(&o.stderr).trim().to_string(),
    )
}

struct Case {
    cipher: &'static str,
    key: &'static str,
    pn: &'static str,
    keyid: &'static str,
    plain: &'static str,
    prot: &'static str,
}

const CASES: &[Case] = &[
    // IEEE 802.11-2012 M.6.4 (CCMP MPDU 1)
    Case { cipher: "ccmp", key: "c97c1f67ce371185514a8a19f2bdd52f", pn: "0xB5039776E70C", keyid: "0",
        plain: "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        prot: "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623" },
    // P802.11ac/D7.0 M.6.4 CCMP-256
    Case { cipher: "ccmp-256", key: "c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f", pn: "199027030681356", keyid: "0",
        plain: "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
        prot: "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b56d155d8832668256d6a92b78e11d8e54495dd17480aa56c9492e882b97642f80d50fe97b" },
    // 802.11ad M.11.1 GCMP MPDU #2
    Case { cipher: "gcmp", key: "c97c1f67ce371185514a8a19f2bdd52f", pn: "0x00895f5f2b08", keyid: "0",
        plain: "88080b000fd2e128a57c5030f18444085030f184440880330300000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627",
        prot: "88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f890060e9700cc4d40ac6d288b201c38f5bf08b807442640a1596e5dbdad41d1f3623f45d7a12db7afb23def619c2a374b6df66ffa53b6c69d79e" },
    // P802.11ac/D7.0 M.11.1 GCMP-256
    Case { cipher: "gcmp-256", key: "c97c1f67ce371185514a8a19f2bdd52f000102030405060708090a0b0c0d0e0f", pn: "0x00895f5f2b08", keyid: "0",
        plain: "88080b000fd2e128a57c5030f18444085030f184440880330300000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627",
        prot: "88480b000fd2e128a57c5030f18444085030f184440880330300082b00205f5f8900658343c8b14447d9211defd46ad89c710c6fc33333236e3997b9176a5a8be779b21266555e70ad79114316859095473d5b1bd596b3dea3bf" },
    // IEEE 802.11-2012 M.9.1 BIP-CMAC-128
    Case { cipher: "bip-cmac", key: "4ea9543e09cf2b1eca66ffc58bdecbcf", pn: "4", keyid: "4",
        plain: "c0000000ffffffffffff02000000000002000000000009000200",
        prot: "c0000000ffffffffffff020000000000020000000000090002004c10040004000000000048dfbfa7b8278872" },
    // P802.11ac/D7.0 M.9.1 BIP-GMAC-128 / -256
    Case { cipher: "bip-gmac", key: "4ea9543e09cf2b1eca66ffc58bdecbcf", pn: "4", keyid: "4",
        plain: "c0000000ffffffffffff02000000000002000000000009000200",
        prot: "c0000000ffffffffffff020000000000020000000000090002004c1804000400000000003ed862fb0f3338dd3386c897e2ed053d" },
    Case { cipher: "bip-gmac-256", key: "4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f", pn: "4", keyid: "4",
        plain: "c0000000ffffffffffff02000000000002000000000009000200",
        prot: "c0000000ffffffffffff020000000000020000000000090002004c18040004000000000023be59dcc7022ee383627ebb1017ddfc" },
    // P802.11i/D7.0 I.7.2 WEP-40 (IV fb029e, key ID 2)
    Case { cipher: "wep", key: "3031323334", pn: "0xfb029e", keyid: "2",
        plain: "0808c32c0fd2e128a57c5030f1844408abaea5b8fcba8033aaaa0300000008004500004e661a00008011be640a0001220affffff00890089003a000080a601100001000000000000204543454a454845434643455046454549454646434341434143414341434141410000200001",
        prot: "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033fb029e80f69c5806bd6ce84626bcbefb9474650aad1f7909b0f64d5f58a503a258b7ed22eb0ea64930d3a056a55742fcce141d485f8aa836dea18df42c5380805ad0c61a5d6f58f41040b24b7d1a693856ed0d4398e7aee3bf0e2a2ca8f7" },
    // IEEE 802.11-2012 M.6.3 TKIP (From DS: Michael key tk[16..24])
    Case { cipher: "tkip", key: "1234567890123456789012345678901234567890123456789012345678901234", pn: "1", keyid: "0",
        plain: "08022c00020304050608020304050607020304050607d002aaaa03000000080045000054000040004001a555c0a80a02c0a80a0108003ab000000000cd4c05000000000008090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637",
        prot: "08422c00020304050608020304050607020304050607d0020020012000000000c00e14fce7cfabc77547e666e57c0dac704a1e358a88c11c8e2e282e3801027a4656055ee93e9c254702e9735805ddb5769ba73f1ebb56e844ef912285d3dd6e541e823873558adba079068abd7f7f50959675acc4b4de9aa99c05f289a7c52fee5bfc14f6f8e5f8" },
];

#[test]
fn protect_and_unprotect_vectors() {
    for c in CASES {
        let (code, out, err) = wsec(&["protect", "--cipher", c.cipher, "--key", c.key, "--pn", c.pn, "--keyid", c.keyid, c.plain]);
        assert_eq!(code, 0, "{}: {err}", c.cipher);
        assert_eq!(out, c.prot, "{} protect", c.cipher);
        let (code, out, err) = wsec(&["unprotect", "--cipher", c.cipher, "--key", c.key, c.prot]);
        assert_eq!(code, 0, "{}: {err}", c.cipher);
        assert_eq!(out, c.plain, "{} unprotect", c.cipher);
    }
}

#[test]
fn failures_are_one_line_and_nonzero() {
    let c = &CASES[0];
    let mut bad = c.prot.to_string();
    bad.replace_range(bad.len() - 2.., "00");
    let (code, out, err) = wsec(&["unprotect", "--cipher", "ccmp", "--key", c.key, &bad]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err, "wsec: MIC failure");
    let (code, _, err) = wsec(&["unprotect", "--cipher", "ccmp", "--key", c.key, &c.prot[..40]]);
    assert_eq!(code, 1);
    assert_eq!(err, "wsec: truncated frame");
    let (code, _, err) = wsec(&["unprotect", "--cipher", "ccmp", "--key", "0011", c.prot]);
    assert_eq!(code, 2);
    assert!(err.contains("16-octet key"), "{err}");
    let (code, _, err) = wsec(&["unprotect", "--cipher", "ccmp", "--key", c.key, "zz"]);
    assert_eq!(code, 2);
    assert!(err.contains("not valid hex"), "{err}");
    let (code, _, err) = wsec(&["unprotect", "--cipher", "ccmp", "--key", c.key, c.plain]);
    assert_eq!(code, 1);
    assert_eq!(err, "wsec: Protected Frame bit is not set");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn order_rule_flag() {
    // P802.11i/D7.0 MPDU 3 (QoS, Order = 1) verifies only under --order-rule 2003.
    let key = "40cfb7a62e88013bd6d3affcc191041e";
    let prot =
        "b8c8dc61d9577df763c8b6a88adf3691dc4a8bca94dd60822085aea500a0f3a0dc2f89d8580340b626a0b6d4d013bf18f291b89646c8fd1f1f61a9fb4bb3";
    let (code, out, _) = wsec(&["unprotect", "--cipher", "ccmp", "--key", key, "--order-rule", "2003", prot]);
    assert_eq!(code, 0);
    assert_eq!(out, "b888dc61d9577df763c8b6a88adf3691dc4a8bca94dd608220852c1bd036831c95496c5f4dbf3d559e72de802a18");
    let (code, _, _) = wsec(&["unprotect", "--cipher", "ccmp", "--key", key, prot]);
    assert_eq!(code, 1);
}

/// `wsec stream`: a stream on loopback arrives whole (no loss, no gap over two intervals
/// counted as one); a stream sent where nobody listens leaves the receiver with an error,
/// and a stream cut in the middle (the sender given fewer seconds than its peer expects is
/// not a loss: the count comes from the datagrams) is reported by what arrived.
#[test]
fn stream_counts_what_arrives() {
    let port = 20000 + (std::process::id() % 20000) as u16;
    let bind = format!("127.0.0.1:{port}");
    let rx = std::thread::spawn({
        let bind = bind.clone();
        move || wsec(&["stream", "recv", "--bind", &bind, "--seconds", "10", "--interval-ms", "5"])
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (code, out, err) = wsec(&["stream", "send", "--to", &bind, "--seconds", "1", "--interval-ms", "5"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "sent=200 send_errors=0 interval_ms=5");
    let (code, out, err) = rx.join().unwrap();
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("received=200 lost=0 total=200 duplicates=0 "), "{out}");
    let (code, _, err) = wsec(&["stream", "recv", "--bind", "127.0.0.1:9", "--seconds", "1"]);
    assert_ne!(code, 0);
    assert!(!err.is_empty());
    let (code, _, err) = wsec(&["stream", "send", "--to", &bind, "--seconds", "0"]);
    assert_eq!(code, 2, "an absurd duration is a usage error: {err}");
}
