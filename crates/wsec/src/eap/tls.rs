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

pub use super::ttls::{ttls_avp, ttls_pap};

/// TLS keying material by label (RFC 5705, no context) and length.
pub type Export<'a> = dyn FnMut(&[u8], usize) -> Result<Zeroizing<Vec<u8>>> + 'a;

/// What runs inside the tunnel once the handshake is done: EAP-TTLS's phase 2 AVPs
/// ([`super::ttls`]), PEAP's phase 2 EAP ([`super::peap`]).
pub trait Tunnel: Send {
    /// The handshake is done. `keys`: the method's 128 octets of TLS keying material;
    /// `export`: TLS keying material by label (RFC 5705, no context) and length. Returns the
    /// application data to send (empty: nothing).
    fn established(&mut self, keys: &[u8], export: &mut Export<'_>) -> Result<Zeroizing<Vec<u8>>>;
    /// The application data of one server message (all its records). Returns what to send.
    fn received(&mut self, data: &[u8]) -> Result<Zeroizing<Vec<u8>>>;
    /// Whether the inner authentication finished, and how.
    fn outcome(&self) -> TunnelOutcome;
    /// The MSK | EMSK when it is not the TLS-derived one (PEAP's compound session key).
    fn key(&self) -> Option<Zeroizing<Vec<u8>>> {
        None
    }
    /// An error code the inner method received (MS-CHAPv2's E=), once.
    fn take_error(&mut self) -> Option<(u32, String)> {
        None
    }
    /// PEAP: whether the crypto binding was validated and answered.
    fn crypto_binding_used(&self) -> bool {
        false
    }
}

/// A tunnel's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TunnelOutcome {
    Running,
    Success,
    /// Why (never a key).
    Failure(String),
}

/// Where the method is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsState {
    /// Waiting for EAP-TLS/Start.
    Idle,
    /// The handshake, or (TTLS, PEAP) the inner method in the tunnel, is under way.
    Handshaking,
    /// The handshake is done and the keys exported (TLS 1.3: the success indication came).
    Done,
    /// TLS failed: the alert went to the server, which ends with EAP-Failure. The text
    /// says why (never a key).
    Failed(String),
}

/// One EAP-TLS, EAP-TTLS or PEAP run: the TLS part is the same; TTLS and PEAP run a
/// [`Tunnel`] through it once the handshake is done, and label their keys otherwise.
pub struct EapTls {
    /// The EAP type: 13 (TLS), 21 (TTLS) or 25 (PEAP).
    method: u8,
    /// TTLS / PEAP phase 2, and whether it was told the handshake is done.
    tunnel: Option<Box<dyn Tunnel>>,
    established: bool,
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
        Self::tunneled(cfg, method::TLS, None)
    }

    /// EAP-TTLS (RFC 5281) with `phase2`, the AVPs the tunnel carries (e.g. [`ttls_pap`]).
    pub fn ttls(cfg: &TlsConfig, phase2: Zeroizing<Vec<u8>>) -> Result<EapTls> {
        Self::tunneled(cfg, method::TTLS, Some(Box::new(super::ttls::TtlsAvps::new(phase2))))
    }

    /// A TLS-based method of EAP type `method` with `tunnel` inside (none: EAP-TLS).
    pub fn tunneled(cfg: &TlsConfig, method: u8, tunnel: Option<Box<dyn Tunnel>>) -> Result<EapTls> {
        Ok(EapTls {
            method,
            tunnel,
            established: false,
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

    /// An error code the inner method received, once (MS-CHAPv2's E=691).
    pub fn take_error(&mut self) -> Option<(u32, String)> {
        self.tunnel.as_mut().and_then(|t| t.take_error())
    }

    /// PEAP: the crypto binding was validated and answered (the MSK is the compound key).
    pub fn crypto_binding_used(&self) -> bool {
        self.tunnel.as_ref().is_some_and(|t| t.crypto_binding_used())
    }

    pub fn state(&self) -> &TlsState {
        &self.state
    }

    /// MSK (64) | EMSK (64) once [`TlsState::Done`] (PEAP with crypto binding: the
    /// compound session key's 64 octets, no EMSK; PEAP over TLS 1.3: the MSK only).
    pub fn key_material(&self) -> Option<Zeroizing<Vec<u8>>> {
        if self.state != TlsState::Done {
            return None;
        }
        if let Some(k) = self.tunnel.as_ref().and_then(|t| t.key()) {
            return Some(k);
        }
        self.keys.clone()
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

    /// The handshake just completed: the method's keys (TLS 1.2: RFC 5216 2.3's "client EAP
    /// encryption", RFC 5281 8's "ttls keying material", PEAPv0's "client EAP encryption";
    /// TLS 1.3: RFC 9190 2.3 / RFC 9427 2.1, the exporter with the Type as context), then the
    /// tunnel's first words.
    fn establish(&mut self) -> Result<()> {
        let Some(c) = self.conn.as_mut() else { return Ok(()) };
        self.established = true;
        self.version = c.protocol_version();
        let tls13 = self.version == Some(rustls::ProtocolVersion::TLSv1_3);
        let km = if tls13 && self.method == method::PEAP {
            // hostapd's PEAP server (2.10) exports 64 octets (its TK, and its MSK without
            // crypto binding); TLS 1.3's exporter output depends on the length asked for.
            c.export_keying_material(Zeroizing::new(vec![0u8; 64]), b"EXPORTER_EAP_TLS_Key_Material", Some(&[self.method]))
        } else if tls13 {
            c.export_keying_material(Zeroizing::new(vec![0u8; 128]), b"EXPORTER_EAP_TLS_Key_Material", Some(&[self.method]))
        } else if self.method == method::TTLS {
            c.export_keying_material(Zeroizing::new(vec![0u8; 128]), b"ttls keying material", None)
        } else {
            c.export_keying_material(Zeroizing::new(vec![0u8; 128]), b"client EAP encryption", None)
        }
        .map_err(|_| Error::Malformed("TLS key export failed"))?;
        if let Some(t) = self.tunnel.as_mut() {
            let conn: &ClientConnection = c;
            let mut export = |label: &[u8], n: usize| {
                conn.export_keying_material(Zeroizing::new(vec![0u8; n]), label, None)
                    .map_err(|_| Error::Malformed("TLS key export failed"))
            };
            let out = t.established(&km, &mut export)?;
            if !out.is_empty() {
                std::io::Write::write_all(&mut c.writer(), &out).map_err(|_| Error::Malformed("tunnel data could not be written"))?;
            }
        }
        self.keys = Some(km);
        Ok(())
    }

    /// One EAP-Request/TLS's Type-Data in, the EAP-Response/TLS's Type-Data out.
    pub fn process(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let (&flags, mut rest) = data.split_first().ok_or(Error::Truncated)?;
        if flags & FLAG_START != 0 {
            if self.established && self.tunnel.is_some() {
                // The inner method's state belongs to the first tunnel.
                return Err(Error::Malformed("a new Start after the tunnel was up"));
            }
            // A new conversation (a server may restart one).
            let mut conn = ClientConnection::new(self.config.clone(), ServerName::try_from("eap.invalid").expect("a valid DNS name"))
                .map_err(|_| Error::Malformed("TLS client could not start"))?;
            self.tx.clear();
            self.tx_off = 0;
            self.rx.clear();
            self.rx_total = None;
            self.keys = None;
            self.established = false;
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
        // The application data of the message (bounded by the message, at most 64 KiB).
        let mut app = Zeroizing::new(Vec::new());
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
                    let n = st.plaintext_bytes_to_read();
                    if n > 0 {
                        let at = app.len();
                        app.resize(at + n, 0);
                        let got = conn.reader().read(&mut app[at..]).unwrap_or(0);
                        app.truncate(at + got);
                    }
                }
                Err(e) => {
                    failure = Some(e.to_string());
                    break;
                }
            }
        }
        if failure.is_none() && !conn.is_handshaking() {
            if !self.established {
                self.establish()?;
            }
            // TTLS / PEAP phase 2: what the server sent through the tunnel, and the answer.
            if let (Some(t), false) = (self.tunnel.as_mut(), app.is_empty()) {
                let out = t.received(&app)?;
                if !out.is_empty() {
                    let c = self.conn.as_mut().expect("checked above");
                    std::io::Write::write_all(&mut c.writer(), &out).map_err(|_| Error::Malformed("tunnel data could not be written"))?;
                }
            }
        }
        self.flush_tls();
        if let Some(why) = failure {
            self.state = TlsState::Failed(why);
        } else if self.established && self.state == TlsState::Handshaking {
            let tls13 = self.version == Some(rustls::ProtocolVersion::TLSv1_3);
            match self.tunnel.as_ref().map(|t| t.outcome()) {
                // TLS 1.3 EAP-TLS ends with the server's success indication (RFC 9190 2.5).
                None if !tls13 || app[..] == [0] => self.state = TlsState::Done,
                None => {}
                Some(TunnelOutcome::Success) => self.state = TlsState::Done,
                Some(TunnelOutcome::Failure(why)) => self.state = TlsState::Failed(why),
                Some(TunnelOutcome::Running) => {}
            }
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
