//! The EAP server's stapled OCSP response (`wsec::eap::ocsp::check`) on arbitrary bytes:
//! input = [u16 BE length][server certificate DER][u16 BE length][issuer certificate DER]
//! [OCSP response]; every policy returns a verdict, never panics, and "good" is only ever
//! given to a response that verifies (the same input under `Require` and `Try` agree
//! whenever a response is present).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rustls_pki_types::{CertificateDer, UnixTime};
use wsec::eap::ocsp::{check, OcspPolicy};

fn take<'a>(d: &mut &'a [u8]) -> Option<&'a [u8]> {
    let n = u16::from_be_bytes([*d.first()?, *d.get(1)?]) as usize;
    let v = d.get(2..2 + n)?;
    *d = &d[2 + n..];
    Some(v)
}

fuzz_target!(|data: &[u8]| {
    let mut d = data;
    let (Some(ee), Some(issuer)) = (take(&mut d), take(&mut d)) else { return };
    let (ee, issuer) = (CertificateDer::from(ee), CertificateDer::from(issuer));
    // The seeds' responses are valid for a century from when they were made (2026): check them at a
    // fixed time inside it, and at the epoch (everything "not yet valid").
    for now in
        [UnixTime::since_unix_epoch(std::time::Duration::from_secs(1_893_456_000)), UnixTime::since_unix_epoch(std::time::Duration::ZERO)]
    {
        let r = check(OcspPolicy::Require, &ee, Some(&issuer), d, now);
        let t = check(OcspPolicy::Try, &ee, Some(&issuer), d, now);
        if !d.is_empty() {
            assert_eq!(r, t, "a present response gets one verdict");
        }
        assert_eq!(check(OcspPolicy::Off, &ee, Some(&issuer), d, now), Ok(()));
        let _ = check(OcspPolicy::Require, &ee, None, d, now);
    }
});
