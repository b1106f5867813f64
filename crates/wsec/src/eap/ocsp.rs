//! OCSP stapling for the EAP server's certificate (wpa_supplicant `ocsp=`): the TLS client
//! asks for the certificate status (RFC 6066 8, status_request; rustls always does) and the
//! server staples an OCSP response (RFC 6960) its CA signed. A certificate the response
//! says is revoked is refused, whatever the policy; `ocsp=2` also refuses a server that
//! staples nothing or a response that does not verify. Checked here:
//!
//! - responseStatus successful, a BasicOCSPResponse (RFC 6960 4.2.1);
//! - its signature by the issuer of the server's certificate, or by a responder
//!   certificate in the response that the issuer signed for id-kp-OCSPSigning (4.2.2.2);
//! - a SingleResponse whose CertID (SHA-1 or SHA-256 of the issuer's name and key, the
//!   serial number) is the server certificate's;
//! - thisUpdate not in the future and nextUpdate, when present, not past (5 minutes of
//!   clock skew either way, as OpenSSL's OCSP_check_validity).
use const_oid::db::rfc5912::{ECDSA_WITH_SHA_256, ECDSA_WITH_SHA_384, SHA_256_WITH_RSA_ENCRYPTION, SHA_384_WITH_RSA_ENCRYPTION};
use const_oid::db::rfc5912::{ID_KP_OCSP_SIGNING, ID_SHA_1, ID_SHA_256};
use der::{Decode, Encode};
use rustls::pki_types::{CertificateDer, SignatureVerificationAlgorithm, UnixTime};
use sha2::Digest;
use x509_cert::Certificate;
use x509_ocsp::{BasicOcspResponse, CertStatus, OcspResponse, OcspResponseStatus, ResponderId, SingleResponse};

/// wpa_supplicant's `ocsp` network setting (0, 1, 2; 3, every certificate of the chain,
/// is not supported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OcspPolicy {
    /// 0: the stapled response is ignored.
    #[default]
    Off,
    /// 1: a stapled response is checked; none is accepted.
    Try,
    /// 2: a valid response saying "good" is required.
    Require,
}

/// Why the server's certificate status did not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OcspError {
    /// The response says the certificate is revoked.
    Revoked,
    /// The response says it does not know the certificate.
    Unknown,
    /// No response was stapled (with [`OcspPolicy::Require`]).
    Missing,
    /// The response is malformed, unsigned by the issuer, stale or for another certificate.
    Invalid(&'static str),
}

const SKEW_S: u64 = 300;

/// Checks the stapled `response` for `ee`, whose issuer certificate is `issuer`, at `now`.
pub fn check(
    policy: OcspPolicy,
    ee: &CertificateDer<'_>,
    issuer: Option<&CertificateDer<'_>>,
    response: &[u8],
    now: UnixTime,
) -> Result<(), OcspError> {
    if policy == OcspPolicy::Off {
        return Ok(());
    }
    if response.is_empty() {
        return if policy == OcspPolicy::Require { Err(OcspError::Missing) } else { Ok(()) };
    }
    let issuer = issuer.ok_or(OcspError::Invalid("the issuer of the server's certificate is unknown"))?;
    let ee_c = Certificate::from_der(ee).map_err(|_| OcspError::Invalid("server certificate"))?;
    let is_c = Certificate::from_der(issuer).map_err(|_| OcspError::Invalid("issuer certificate"))?;
    let r = OcspResponse::from_der(response).map_err(|_| OcspError::Invalid("malformed OCSP response"))?;
    if r.response_status != OcspResponseStatus::Successful {
        return Err(OcspError::Invalid("OCSP response status is not successful"));
    }
    let rb = r.response_bytes.ok_or(OcspError::Invalid("OCSP response without responseBytes"))?;
    if rb.response_type != const_oid::db::rfc6960::ID_PKIX_OCSP_BASIC {
        return Err(OcspError::Invalid("OCSP response is not a basic response"));
    }
    let basic = BasicOcspResponse::from_der(rb.response.as_bytes()).map_err(|_| OcspError::Invalid("malformed BasicOCSPResponse"))?;
    verify_signature(&basic, &is_c, issuer)?;
    let single = basic
        .tbs_response_data
        .responses
        .iter()
        .find(|s| cert_id_matches(s, &ee_c, &is_c))
        .ok_or(OcspError::Invalid("no response for the server's certificate"))?;
    let t = now.as_secs();
    let this = single.this_update.0.to_unix_duration().as_secs();
    if this > t + SKEW_S {
        return Err(OcspError::Invalid("OCSP response not yet valid (thisUpdate)"));
    }
    if let Some(next) = &single.next_update {
        if next.0.to_unix_duration().as_secs() + SKEW_S < t {
            return Err(OcspError::Invalid("OCSP response expired (nextUpdate)"));
        }
    }
    match single.cert_status {
        CertStatus::Good(_) => Ok(()),
        CertStatus::Revoked(_) => Err(OcspError::Revoked),
        CertStatus::Unknown(_) => Err(OcspError::Unknown),
    }
}

/// The CertID of RFC 6960 4.1.1 for `ee` issued by `issuer`, under SHA-1 or SHA-256.
fn cert_id_matches(s: &SingleResponse, ee: &Certificate, issuer: &Certificate) -> bool {
    let Ok(name) = issuer.tbs_certificate.subject.to_der() else { return false };
    let key = issuer.tbs_certificate.subject_public_key_info.subject_public_key.raw_bytes();
    let (n, k) = match s.cert_id.hash_algorithm.oid {
        ID_SHA_1 => (sha1::Sha1::digest(&name).to_vec(), sha1::Sha1::digest(key).to_vec()),
        ID_SHA_256 => (sha2::Sha256::digest(&name).to_vec(), sha2::Sha256::digest(key).to_vec()),
        _ => return false,
    };
    s.cert_id.issuer_name_hash.as_bytes() == &n[..]
        && s.cert_id.issuer_key_hash.as_bytes() == &k[..]
        && s.cert_id.serial_number == ee.tbs_certificate.serial_number
}

/// Does `responder` name `c` (by its subject, or by the SHA-1 of its key, 4.2.1)?
fn names(responder: &ResponderId, c: &Certificate) -> bool {
    match responder {
        ResponderId::ByName(n) => *n == c.tbs_certificate.subject,
        ResponderId::ByKey(h) => {
            h.as_bytes() == &sha1::Sha1::digest(c.tbs_certificate.subject_public_key_info.subject_public_key.raw_bytes())[..]
        }
    }
}

/// The response's signature by the issuer, or by a delegated responder certificate the
/// issuer signed with id-kp-OCSPSigning (RFC 6960 4.2.2.2).
fn verify_signature(basic: &BasicOcspResponse, issuer: &Certificate, issuer_der: &CertificateDer<'_>) -> Result<(), OcspError> {
    let tbs = basic.tbs_response_data.to_der().map_err(|_| OcspError::Invalid("ResponseData"))?;
    let sig = basic.signature.as_bytes().ok_or(OcspError::Invalid("signature is not whole octets"))?;
    let alg = basic.signature_algorithm.oid;
    let responder = &basic.tbs_response_data.responder_id;
    if names(responder, issuer) {
        return verify(issuer_der, alg, &tbs, sig);
    }
    for c in basic.certs.iter().flatten() {
        if !names(responder, c) || c.tbs_certificate.issuer != issuer.tbs_certificate.subject {
            continue;
        }
        let der = c.to_der().map_err(|_| OcspError::Invalid("responder certificate"))?;
        // The issuer signed the responder's certificate, for OCSP signing.
        let ctbs = c.tbs_certificate.to_der().map_err(|_| OcspError::Invalid("responder certificate"))?;
        let csig = c.signature.as_bytes().ok_or(OcspError::Invalid("responder certificate signature"))?;
        verify(issuer_der, c.signature_algorithm.oid, &ctbs, csig)?;
        let eku = c
            .tbs_certificate
            .extensions
            .iter()
            .flatten()
            .find(|e| e.extn_id == const_oid::db::rfc5280::ID_CE_EXT_KEY_USAGE)
            .and_then(|e| x509_cert::ext::pkix::ExtendedKeyUsage::from_der(e.extn_value.as_bytes()).ok());
        if !eku.is_some_and(|u| u.0.contains(&ID_KP_OCSP_SIGNING)) {
            return Err(OcspError::Invalid("responder certificate lacks id-kp-OCSPSigning"));
        }
        return verify(&CertificateDer::from(der), alg, &tbs, sig);
    }
    Err(OcspError::Invalid("OCSP response not signed by the issuer or its responder"))
}

/// `sig` over `msg` by the key of `signer` with the algorithm `alg` names.
fn verify(signer: &CertificateDer<'_>, alg: const_oid::ObjectIdentifier, msg: &[u8], sig: &[u8]) -> Result<(), OcspError> {
    use webpki::ring as w;
    let algs: &[&dyn SignatureVerificationAlgorithm] = match alg {
        ECDSA_WITH_SHA_256 => &[w::ECDSA_P256_SHA256, w::ECDSA_P384_SHA256],
        ECDSA_WITH_SHA_384 => &[w::ECDSA_P256_SHA384, w::ECDSA_P384_SHA384],
        SHA_256_WITH_RSA_ENCRYPTION => &[w::RSA_PKCS1_2048_8192_SHA256],
        SHA_384_WITH_RSA_ENCRYPTION => &[w::RSA_PKCS1_2048_8192_SHA384],
        _ => return Err(OcspError::Invalid("OCSP signature algorithm not supported")),
    };
    let ee = webpki::EndEntityCert::try_from(signer).map_err(|_| OcspError::Invalid("signer certificate"))?;
    if algs.iter().any(|a| ee.verify_signature(*a, msg, sig).is_ok()) {
        Ok(())
    } else {
        Err(OcspError::Invalid("OCSP response signature does not verify"))
    }
}
