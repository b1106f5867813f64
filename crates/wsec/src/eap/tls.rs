//! EAP-TLS, the peer side (RFC 5216 with TLS 1.2, RFC 9190 with TLS 1.3), on rustls.
//!
//! ```text
//! Type-Data: Flags (1: L 0x80 length included, M 0x40 more fragments, S 0x20 start)
//!            | TLS Message Length (4, BE, when L) | TLS data
//! ```
//!
//! The TLS records travel in EAP-Responses of at most `fragment_size` octets of TLS data
//! (wpa_supplicant's `fragment_size`, 1398 by default); a fragment is acknowledged by an
//! EAP-TLS message without data (RFC 5216 2.1.5). The keys: with TLS 1.2 the MSK and EMSK
//! are TLS-PRF(master secret, "client EAP encryption", client.random | server.random), 128
//! octets (RFC 5216 2.3), which is the TLS exporter without context (RFC 5705); with TLS
//! 1.3 they are TLS-Exporter("EXPORTER_EAP_TLS_Key_Material", 0x0D, 128) (RFC 9190 2.3),
//! and the method ends only after the server's protected success indication, one octet
//! 0x00 of application data (RFC 9190 2.5).
//!
//! The server's certificate must chain to `ca_cert` and, when set, carry the name of
//! `domain_match` (a dNSName equal to it) or end with `domain_suffix_match` (a dNSName equal
//! to it or ending in "." and it); without a subjectAltName dNSName the subject's CN is
//! used (as wpa_supplicant does). Without `ca_cert` the method refuses to start unless
//! [`TlsConfig::insecure_no_server_validation`] is set, explicitly.
use super::packet::method;
use crate::error::{Error, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConnection, DigitallySignedStruct, SignatureScheme};
use std::io::Read;
use std::sync::Arc;
use zeroize::Zeroizing;

/// Flags of the EAP-TLS header (RFC 5216 3.1).
pub const FLAG_LENGTH: u8 = 0x80;
pub const FLAG_MORE: u8 = 0x40;
pub const FLAG_START: u8 = 0x20;
/// The largest TLS message reassembled from fragments (a certificate chain fits easily).
pub const MAX_TLS_MESSAGE: usize = 64 * 1024;

/// The TLS versions the peer offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TlsVersions {
    /// TLS 1.2 and 1.3 (the server picks).
    #[default]
    Both,
    /// TLS 1.2 only (wpa_supplicant `phase1="tls_disable_tlsv1_3=1"`).
    Tls12,
    /// TLS 1.3 only.
    Tls13,
}

/// What the peer needs: who it trusts, who it is.
#[derive(Clone)]
pub struct TlsConfig {
    /// The CAs the server's certificate must chain to (`ca_cert`).
    pub ca_certs: Vec<CertificateDer<'static>>,
    /// The server's name exactly (`domain_match`).
    pub domain_match: Option<String>,
    /// A suffix of the server's name on a label boundary (`domain_suffix_match`).
    pub domain_suffix_match: Option<String>,
    /// The client certificate chain and key (`client_cert`, `private_key`).
    pub client_cert: Option<(Vec<CertificateDer<'static>>, Arc<PrivateKeyDer<'static>>)>,
    pub versions: TlsVersions,
    /// TLS data per EAP-Response (`fragment_size`).
    pub fragment_size: usize,
    /// WPA3-Enterprise 192-bit mode: TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 (TLS 1.2) or
    /// TLS_AES_256_GCM_SHA384 (1.3) with P-384 only (WPA3 Specification 3.5).
    pub suite_b_192: bool,
    /// Run without validating the server at all: only when the user said so.
    pub insecure_no_server_validation: bool,
    /// The server certificate's stapled OCSP status (`ocsp=`).
    pub ocsp: super::ocsp::OcspPolicy,
}

impl Default for TlsConfig {
    fn default() -> TlsConfig {
        TlsConfig {
            ca_certs: Vec::new(),
            domain_match: None,
            domain_suffix_match: None,
            client_cert: None,
            versions: TlsVersions::Both,
            fragment_size: 1398,
            suite_b_192: false,
            insecure_no_server_validation: false,
            ocsp: super::ocsp::OcspPolicy::Off,
        }
    }
}

impl core::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TlsConfig")
            .field("ca_certs", &self.ca_certs.len())
            .field("domain_match", &self.domain_match)
            .field("domain_suffix_match", &self.domain_suffix_match)
            .field("client_cert", &self.client_cert.is_some())
            .field("versions", &self.versions)
            .field("fragment_size", &self.fragment_size)
            .field("suite_b_192", &self.suite_b_192)
            .finish()
    }
}

/// Reads PEM certificates (`ca_cert`, `client_cert`).
pub fn certs_from_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>> {
    use rustls::pki_types::pem::PemObject;
    let v: std::result::Result<Vec<_>, _> = CertificateDer::pem_slice_iter(pem).collect();
    let v = v.map_err(|_| Error::Malformed("PEM certificate"))?;
    if v.is_empty() {
        return Err(Error::Malformed("no certificate in the PEM file"));
    }
    Ok(v)
}

/// Reads a PEM private key (PKCS#8, SEC1 or PKCS#1: `private_key`).
pub fn key_from_pem(pem: &[u8]) -> Result<PrivateKeyDer<'static>> {
    use rustls::pki_types::pem::PemObject;
    PrivateKeyDer::from_pem_slice(pem).map_err(|_| Error::Malformed("PEM private key (PKCS#8, SEC1 or PKCS#1)"))
}

fn provider(suite_b: bool) -> CryptoProvider {
    let mut p = rustls::crypto::ring::default_provider();
    if suite_b {
        p.cipher_suites.retain(|s| {
            matches!(
                s.suite(),
                rustls::CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 | rustls::CipherSuite::TLS13_AES_256_GCM_SHA384
            )
        });
        p.kx_groups.retain(|g| g.name() == rustls::NamedGroup::secp384r1);
    }
    p
}

/// The dNSName subjectAltNames of a certificate, or its subject CN when it has none.
pub fn server_names(cert: &[u8]) -> Result<Vec<String>> {
    use x509_cert::der::{Decode, Encode};
    let c = x509_cert::Certificate::from_der(cert).map_err(|_| Error::Malformed("server certificate DER"))?;
    let mut names = Vec::new();
    for e in c.tbs_certificate.extensions.iter().flatten() {
        if e.extn_id == x509_cert::der::oid::db::rfc5280::ID_CE_SUBJECT_ALT_NAME {
            let san =
                x509_cert::ext::pkix::SubjectAltName::from_der(e.extn_value.as_bytes()).map_err(|_| Error::Malformed("subjectAltName"))?;
            for n in san.0 {
                if let x509_cert::ext::pkix::name::GeneralName::DnsName(d) = n {
                    names.push(d.as_str().to_string());
                }
            }
        }
    }
    if names.is_empty() {
        for rdn in c.tbs_certificate.subject.0.iter() {
            for atv in rdn.0.iter() {
                if atv.oid == x509_cert::der::oid::db::rfc4519::CN {
                    let v = atv.value.to_der().map_err(|_| Error::Malformed("subject CN"))?;
                    // The CN's string types (UTF8String, PrintableString, IA5String) all hold
                    // the text after a short tag and length.
                    if let Ok(s) = x509_cert::der::asn1::Utf8StringRef::from_der(&v) {
                        names.push(s.as_str().to_string());
                    } else if let Ok(s) = x509_cert::der::asn1::PrintableStringRef::from_der(&v) {
                        names.push(s.as_str().to_string());
                    } else if let Ok(s) = x509_cert::der::asn1::Ia5StringRef::from_der(&v) {
                        names.push(s.as_str().to_string());
                    }
                }
            }
        }
    }
    Ok(names)
}

/// wpa_supplicant's `domain_match` (exact) and `domain_suffix_match` (label suffix),
/// case-insensitive.
pub fn name_matches(names: &[String], exact: Option<&str>, suffix: Option<&str>) -> bool {
    let norm = |s: &str| s.trim_end_matches('.').to_ascii_lowercase();
    let ok_exact = exact.is_none_or(|e| names.iter().any(|n| norm(n) == norm(e)));
    let ok_suffix = suffix.is_none_or(|s| {
        let s = norm(s);
        names.iter().any(|n| {
            let n = norm(n);
            n == s || n.ends_with(&format!(".{s}"))
        })
    });
    ok_exact && ok_suffix
}

#[derive(Debug)]
struct EapServerVerifier {
    roots: Vec<rustls::pki_types::TrustAnchor<'static>>,
    /// The CA certificates themselves: the issuer an OCSP response is checked against.
    ca_certs: Vec<CertificateDer<'static>>,
    ocsp: super::ocsp::OcspPolicy,
    domain_match: Option<String>,
    domain_suffix_match: Option<String>,
    provider: Arc<CryptoProvider>,
    insecure: bool,
}

fn pki_error(e: webpki::Error) -> rustls::Error {
    let c = match e {
        webpki::Error::UnknownIssuer => CertificateError::UnknownIssuer,
        webpki::Error::CertExpired { .. } => CertificateError::Expired,
        webpki::Error::CertNotValidYet { .. } => CertificateError::NotValidYet,
        webpki::Error::CertRevoked => CertificateError::Revoked,
        webpki::Error::InvalidSignatureForPublicKey => CertificateError::BadSignature,
        _ => CertificateError::BadEncoding,
    };
    rustls::Error::InvalidCertificate(c)
}

/// Why an OCSP check failed, as the TLS error's source.
#[derive(Debug)]
struct OcspFailure(&'static str);

impl core::fmt::Display for OcspFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "OCSP: {}", self.0)
    }
}

impl std::error::Error for OcspFailure {}

/// The certificate among `candidates` whose subject is `ee`'s issuer.
fn issuer_of<'a>(ee: &CertificateDer<'_>, candidates: impl Iterator<Item = &'a CertificateDer<'a>>) -> Option<&'a CertificateDer<'a>> {
    use der::Decode;
    let want = x509_cert::Certificate::from_der(ee).ok()?.tbs_certificate.issuer;
    candidates.into_iter().find(|c| x509_cert::Certificate::from_der(c).is_ok_and(|c| c.tbs_certificate.subject == want))
}

impl ServerCertVerifier for EapServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        if self.insecure {
            return Ok(ServerCertVerified::assertion());
        }
        let ee = webpki::EndEntityCert::try_from(end_entity).map_err(pki_error)?;
        ee.verify_for_usage(
            self.provider.signature_verification_algorithms.all,
            &self.roots,
            intermediates,
            now,
            webpki::KeyUsage::server_auth(),
            None,
            None,
        )
        .map_err(pki_error)?;
        let names = server_names(end_entity).map_err(|_| rustls::Error::InvalidCertificate(CertificateError::BadEncoding))?;
        if !name_matches(&names, self.domain_match.as_deref(), self.domain_suffix_match.as_deref()) {
            return Err(rustls::Error::InvalidCertificate(CertificateError::NotValidForName));
        }
        let issuer = issuer_of(end_entity, intermediates.iter().chain(self.ca_certs.iter()));
        super::ocsp::check(self.ocsp, end_entity, issuer, ocsp, now).map_err(|e| {
            rustls::Error::InvalidCertificate(match e {
                super::ocsp::OcspError::Revoked => CertificateError::Revoked,
                super::ocsp::OcspError::Unknown => CertificateError::UnknownRevocationStatus,
                super::ocsp::OcspError::Missing => {
                    CertificateError::Other(rustls::OtherError(Arc::new(OcspFailure("no OCSP response stapled"))))
                }
                super::ocsp::OcspError::Invalid(why) => CertificateError::Other(rustls::OtherError(Arc::new(OcspFailure(why)))),
            })
        })?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// The rustls client configuration of a [`TlsConfig`]; refuses a configuration without
/// server validation unless it is explicitly insecure.
pub fn client_config(cfg: &TlsConfig) -> Result<Arc<rustls::ClientConfig>> {
    if cfg.ca_certs.is_empty() && !cfg.insecure_no_server_validation {
        return Err(Error::Unsupported(
            "EAP-TLS without ca_cert: the server would not be validated (set it, or ask for no validation explicitly)",
        ));
    }
    if cfg.fragment_size < 64 || cfg.fragment_size > 16384 {
        return Err(Error::Malformed("fragment_size outside 64..16384"));
    }
    let provider = Arc::new(provider(cfg.suite_b_192));
    let mut roots = rustls::RootCertStore::empty();
    for c in &cfg.ca_certs {
        roots.add(c.clone()).map_err(|_| Error::Malformed("ca_cert is not a usable CA certificate"))?;
    }
    let versions: &[&rustls::SupportedProtocolVersion] = match cfg.versions {
        TlsVersions::Both => &[&rustls::version::TLS13, &rustls::version::TLS12],
        TlsVersions::Tls12 => &[&rustls::version::TLS12],
        TlsVersions::Tls13 => &[&rustls::version::TLS13],
    };
    let verifier = Arc::new(EapServerVerifier {
        roots: roots.roots,
        ca_certs: cfg.ca_certs.clone(),
        ocsp: cfg.ocsp,
        domain_match: cfg.domain_match.clone(),
        domain_suffix_match: cfg.domain_suffix_match.clone(),
        provider: provider.clone(),
        insecure: cfg.insecure_no_server_validation,
    });
    let b = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .map_err(|_| Error::Unsupported("TLS versions with this cipher suite set"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut c = match &cfg.client_cert {
        Some((chain, key)) => b
            .with_client_auth_cert(chain.clone(), key.clone_key())
            .map_err(|_| Error::Malformed("client_cert and private_key do not match or are unusable"))?,
        None => b.with_no_client_auth(),
    };
    // EAP has no server name to indicate.
    c.enable_sni = false;
    Ok(Arc::new(c))
}

/// A Diameter AVP as EAP-TTLS carries it (RFC 5281 10.1): Code (4) | Flags (1; M 0x40) |
/// Length (3, header and data) | Data | padding to 4 octets.
pub fn ttls_avp(code: u32, data: &[u8], out: &mut Vec<u8>) {
    let len = 8 + data.len();
    out.extend_from_slice(&code.to_be_bytes());
    out.push(0x40);
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.extend_from_slice(data);
    out.resize(out.len() + (4 - len % 4) % 4, 0);
}

/// TTLS phase 2 PAP (RFC 5281 11.2.5): User-Name (1) and User-Password (2), the password
/// padded with zeros to a multiple of 16 octets.
pub fn ttls_pap(user: &[u8], password: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::new());
    ttls_avp(1, user, &mut out);
    let mut pw = Zeroizing::new(password.to_vec());
    pw.resize(password.len().div_ceil(16).max(1) * 16, 0);
    ttls_avp(2, &pw, &mut out);
    out
}

/// Where the method is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsState {
    /// Waiting for EAP-TLS/Start.
    Idle,
    Handshaking,
    /// The handshake is done and the keys exported (TLS 1.3: the success indication came).
    Done,
    /// TLS failed: the alert went to the server, which ends with EAP-Failure. The text
    /// says why (never a key).
    Failed(String),
}

/// One EAP-TLS or EAP-TTLS run (the TLS part is the same; TTLS sends its phase 2 AVPs
/// through the tunnel once the handshake is done, and labels its keys otherwise).
pub struct EapTls {
    /// The EAP type: 13 (TLS) or 21 (TTLS).
    method: u8,
    /// TTLS phase 2: the AVPs to send through the tunnel, and whether they went.
    phase2: Option<Zeroizing<Vec<u8>>>,
    phase2_sent: bool,
    config: Arc<rustls::ClientConfig>,
    fragment_size: usize,
    conn: Option<ClientConnection>,
    rx: Vec<u8>,
    rx_total: Option<usize>,
    tx: Vec<u8>,
    tx_off: usize,
    state: TlsState,
    keys: Option<Zeroizing<Vec<u8>>>,
    version: Option<rustls::ProtocolVersion>,
}

impl EapTls {
    pub fn new(cfg: &TlsConfig) -> Result<EapTls> {
        Self::with_method(cfg, method::TLS, None)
    }

    /// EAP-TTLS (RFC 5281) with `phase2`, the AVPs the tunnel carries (e.g. [`ttls_pap`]).
    pub fn ttls(cfg: &TlsConfig, phase2: Zeroizing<Vec<u8>>) -> Result<EapTls> {
        Self::with_method(cfg, method::TTLS, Some(phase2))
    }

    fn with_method(cfg: &TlsConfig, method: u8, phase2: Option<Zeroizing<Vec<u8>>>) -> Result<EapTls> {
        Ok(EapTls {
            method,
            phase2,
            phase2_sent: false,
            config: client_config(cfg)?,
            fragment_size: cfg.fragment_size,
            conn: None,
            rx: Vec::new(),
            rx_total: None,
            tx: Vec::new(),
            tx_off: 0,
            state: TlsState::Idle,
            keys: None,
            version: None,
        })
    }

    pub fn state(&self) -> &TlsState {
        &self.state
    }

    /// MSK (64) | EMSK (64), once [`TlsState::Done`].
    pub fn key_material(&self) -> Option<&[u8]> {
        self.keys.as_deref().map(|k| &k[..])
    }

    /// "TLSv1.2" / "TLSv1.3" once negotiated.
    pub fn version(&self) -> Option<&'static str> {
        match self.version {
            Some(rustls::ProtocolVersion::TLSv1_2) => Some("TLSv1.2"),
            Some(rustls::ProtocolVersion::TLSv1_3) => Some("TLSv1.3"),
            _ => None,
        }
    }

    /// The negotiated cipher suite's name.
    pub fn cipher_suite(&self) -> Option<String> {
        self.conn.as_ref().and_then(|c| c.negotiated_cipher_suite()).map(|s| format!("{:?}", s.suite()))
    }

    /// The next fragment of `tx` as EAP-TLS Type-Data.
    fn next_fragment(&mut self) -> Vec<u8> {
        let rest = self.tx.len() - self.tx_off;
        let n = rest.min(self.fragment_size);
        let more = rest > n;
        let first = self.tx_off == 0;
        let mut d = Vec::with_capacity(n + 5);
        if first && more {
            d.push(FLAG_LENGTH | FLAG_MORE);
            d.extend_from_slice(&(self.tx.len() as u32).to_be_bytes());
        } else {
            d.push(if more { FLAG_MORE } else { 0 });
        }
        d.extend_from_slice(&self.tx[self.tx_off..self.tx_off + n]);
        self.tx_off += n;
        if !more {
            self.tx.clear();
            self.tx_off = 0;
        }
        d
    }

    fn flush_tls(&mut self) {
        if let Some(c) = self.conn.as_mut() {
            while c.wants_write() {
                if c.write_tls(&mut self.tx).is_err() {
                    break;
                }
            }
        }
    }

    fn finish_if_done(&mut self, got_indication: bool) -> Result<()> {
        let Some(c) = self.conn.as_ref() else { return Ok(()) };
        if c.is_handshaking() {
            return Ok(());
        }
        self.version = c.protocol_version();
        let tls13 = self.version == Some(rustls::ProtocolVersion::TLSv1_3);
        // TLS 1.3 EAP-TLS ends with the server's success indication (RFC 9190 2.5); TTLS
        // with its phase 2 sent (the server's EAP-Success says whether it passed).
        let done = if self.method == method::TTLS { self.phase2_sent } else { !tls13 || got_indication };
        if done && self.keys.is_none() {
            // TLS 1.2: RFC 5216 2.3's "client EAP encryption", RFC 5281 8's "ttls keying
            // material"; TLS 1.3: RFC 9190 2.3 / RFC 9427 2.1, the exporter with the Type.
            let km = if tls13 {
                c.export_keying_material(Zeroizing::new(vec![0u8; 128]), b"EXPORTER_EAP_TLS_Key_Material", Some(&[self.method]))
            } else if self.method == method::TTLS {
                c.export_keying_material(Zeroizing::new(vec![0u8; 128]), b"ttls keying material", None)
            } else {
                c.export_keying_material(Zeroizing::new(vec![0u8; 128]), b"client EAP encryption", None)
            }
            .map_err(|_| Error::Malformed("TLS key export failed"))?;
            self.keys = Some(km);
            self.state = TlsState::Done;
        }
        Ok(())
    }

    /// One EAP-Request/TLS's Type-Data in, the EAP-Response/TLS's Type-Data out.
    pub fn process(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let (&flags, mut rest) = data.split_first().ok_or(Error::Truncated)?;
        if flags & FLAG_START != 0 {
            self.phase2_sent = false;
            // A new conversation (a server may restart one).
            let mut conn = ClientConnection::new(self.config.clone(), ServerName::try_from("eap.invalid").expect("a valid DNS name"))
                .map_err(|_| Error::Malformed("TLS client could not start"))?;
            self.tx.clear();
            self.tx_off = 0;
            self.rx.clear();
            self.rx_total = None;
            self.keys = None;
            while conn.wants_write() {
                conn.write_tls(&mut self.tx).map_err(|_| Error::Malformed("TLS write"))?;
            }
            self.conn = Some(conn);
            self.state = TlsState::Handshaking;
            return Ok(self.next_fragment());
        }
        if self.conn.is_none() {
            return Err(Error::Malformed("EAP-TLS message before Start"));
        }
        if self.tx_off > 0 {
            // The server acknowledged our fragment: send the next.
            if !rest.is_empty() {
                return Err(Error::Malformed("EAP-TLS data while our fragments were pending"));
            }
            return Ok(self.next_fragment());
        }
        if flags & FLAG_LENGTH != 0 {
            if rest.len() < 4 {
                return Err(Error::Truncated);
            }
            let total = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            rest = &rest[4..];
            if total > MAX_TLS_MESSAGE {
                self.rx.clear();
                self.rx_total = None;
                return Err(Error::Oversize);
            }
            if self.rx.is_empty() {
                self.rx_total = Some(total);
            }
        }
        if self.rx.len() + rest.len() > MAX_TLS_MESSAGE || self.rx_total.is_some_and(|t| self.rx.len() + rest.len() > t) {
            // The message is dropped whole: the next one starts a new reassembly.
            self.rx.clear();
            self.rx_total = None;
            return Err(Error::Oversize);
        }
        self.rx.extend_from_slice(rest);
        if flags & FLAG_MORE != 0 {
            return Ok(vec![0]);
        }
        let msg = std::mem::take(&mut self.rx);
        self.rx_total = None;
        let conn = self.conn.as_mut().expect("checked above");
        let mut r = &msg[..];
        let mut got_indication = false;
        let mut failure = None;
        while !r.is_empty() {
            match conn.read_tls(&mut r) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => {
                    failure = Some("TLS read".to_string());
                    break;
                }
            }
            match conn.process_new_packets() {
                Ok(st) => {
                    if st.plaintext_bytes_to_read() > 0 {
                        let mut app = vec![0u8; st.plaintext_bytes_to_read()];
                        let _ = conn.reader().read(&mut app);
                        // RFC 9190 2.5: one octet 0x00 is the protected success indication.
                        got_indication |= app == [0];
                    }
                }
                Err(e) => {
                    failure = Some(e.to_string());
                    break;
                }
            }
        }
        // TTLS phase 2: once the tunnel is up, the AVPs go through it (RFC 5281 7.3).
        if failure.is_none() && !conn.is_handshaking() && !self.phase2_sent {
            if let Some(avps) = self.phase2.as_ref() {
                if std::io::Write::write_all(&mut conn.writer(), avps).is_err() {
                    failure = Some("TTLS phase 2 could not be written".into());
                }
                self.phase2_sent = true;
            }
        }
        self.flush_tls();
        if let Some(why) = failure {
            self.state = TlsState::Failed(why);
        } else {
            self.finish_if_done(got_indication)?;
        }
        if self.tx.is_empty() {
            return Ok(vec![0]);
        }
        Ok(self.next_fragment())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_as_wpa_supplicant() {
        let n = vec!["radius.example.com".to_string(), "Auth.Example.NET".to_string()];
        assert!(name_matches(&n, Some("radius.example.com"), None));
        assert!(name_matches(&n, Some("auth.example.net."), None));
        assert!(!name_matches(&n, Some("example.com"), None));
        assert!(name_matches(&n, None, Some("example.com")));
        assert!(name_matches(&n, None, Some("radius.example.com")));
        assert!(!name_matches(&n, None, Some("ample.com")), "suffix on a label boundary");
        assert!(!name_matches(&n, Some("radius.example.com"), Some("example.org")));
        assert!(name_matches(&n, None, None));
    }

    #[test]
    fn ttls_pap_avps() {
        // RFC 5281 10.1: User-Name "bob" (M flag, length 11, one octet of padding), then the
        // password padded to 16 octets (length 24).
        let a = ttls_pap(b"bob", b"secret");
        assert_eq!(&a[..12], &[0, 0, 0, 1, 0x40, 0, 0, 11, b'b', b'o', b'b', 0]);
        assert_eq!(&a[12..20], &[0, 0, 0, 2, 0x40, 0, 0, 24]);
        assert_eq!(&a[20..26], b"secret");
        assert_eq!(a.len(), 12 + 24);
        assert!(a[26..].iter().all(|&b| b == 0));
    }

    #[test]
    fn refuses_to_run_unvalidated() {
        let e = client_config(&TlsConfig::default()).unwrap_err();
        assert!(e.to_string().contains("ca_cert"), "{e}");
        let c = TlsConfig { insecure_no_server_validation: true, ..Default::default() };
        assert!(client_config(&c).is_ok());
        assert!(client_config(&TlsConfig { fragment_size: 10, ..c }).is_err());
    }

    #[test]
    fn fragments_and_acks() {
        let c = TlsConfig { insecure_no_server_validation: true, fragment_size: 100, ..Default::default() };
        let mut t = EapTls::new(&c).unwrap();
        assert!(t.process(&[0]).is_err(), "data before Start");
        let first = t.process(&[FLAG_START]).unwrap();
        assert_eq!(first[0], FLAG_LENGTH | FLAG_MORE);
        let total = u32::from_be_bytes([first[1], first[2], first[3], first[4]]) as usize;
        let mut got = first[5..].to_vec();
        assert_eq!(got.len(), 100);
        loop {
            let f = t.process(&[0]).unwrap();
            got.extend_from_slice(&f[1..]);
            if f[0] & FLAG_MORE == 0 {
                break;
            }
            assert_eq!(f.len(), 101);
        }
        assert_eq!(got.len(), total);
        assert_eq!(got[0], 22, "a TLS handshake record (ClientHello)");
        // A server message over the limit, and a fragment longer than its announced total.
        let mut big = vec![FLAG_LENGTH | FLAG_MORE];
        big.extend_from_slice(&(MAX_TLS_MESSAGE as u32 + 1).to_be_bytes());
        assert_eq!(t.process(&big).unwrap_err(), Error::Oversize);
        let mut short = vec![FLAG_LENGTH | FLAG_MORE];
        short.extend_from_slice(&3u32.to_be_bytes());
        short.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(t.process(&short).unwrap_err(), Error::Oversize);
        // Garbage as a server's TLS message: the method fails, with an alert to send.
        let out = t.process(&[0, 0x99, 0x03, 0x03, 0x00, 0x02, 0xff, 0xff]).unwrap();
        assert!(matches!(t.state(), TlsState::Failed(_)), "{:?}", t.state());
        assert!(out.len() > 1, "the alert goes to the server");
        assert!(t.key_material().is_none());
    }
}
