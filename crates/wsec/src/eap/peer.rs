//! The EAP peer (RFC 3748 4, 5; RFC 4137's peer state machine reduced to what a station
//! needs): it answers Identity with `identity` (or `anonymous_identity` for the outer
//! identity), Notification with an empty Notification, a method it does not run with a Nak
//! naming the one it does, repeats its last Response to a retransmitted Request (same
//! Identifier, RFC 3748 4.1), runs the method, and takes EAP-Success only once the method
//! has finished (an early Success is a failure, as wpa_supplicant treats it).
use super::mschapv2::Password;
use super::packet::{emit, method, Code, Packet};
use super::peap::{CryptoBinding, Peap};
use super::tls::{EapTls, TlsConfig, TlsState, TlsVersions, Tunnel};
use super::ttls::{TtlsAvps, TtlsMschapv2};
use crate::error::{Error, Result};
use zeroize::Zeroizing;

/// EAP-TTLS's inner authentication (wpa_supplicant `phase2="auth=..."`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TtlsInner {
    /// PAP (RFC 5281 11.2.5): the password itself goes through the tunnel.
    Pap,
    /// MS-CHAP-V2 (RFC 5281 11.2.4): the server proves it knows the password too.
    Mschapv2,
}

/// The method the peer runs and its settings.
#[derive(Clone)]
pub enum MethodConfig {
    Tls(TlsConfig),
    /// EAP-TTLS (RFC 5281; wpa_supplicant `eap=TTLS phase2="auth=PAP"` or `"auth=MSCHAPV2"`):
    /// the identity and this password go through the tunnel.
    Ttls {
        tls: TlsConfig,
        inner: TtlsInner,
        password: Password,
    },
    /// PEAPv0 with EAP-MSCHAPv2 inside (wpa_supplicant `eap=PEAP phase1="peapver=0"
    /// phase2="auth=MSCHAPV2"`). TLS 1.2 only unless `allow_tls13` (wpa_supplicant 2.10
    /// disables TLS 1.3 for PEAP unless `phase1="tls_disable_tlsv1_3=0"`).
    Peap {
        tls: TlsConfig,
        password: Password,
        crypto_binding: CryptoBinding,
        allow_tls13: bool,
    },
}

impl core::fmt::Debug for MethodConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MethodConfig::Tls(t) => write!(f, "Tls({t:?})"),
            MethodConfig::Ttls { tls, inner, .. } => write!(f, "Ttls({tls:?}, {inner:?}, password: <hidden>)"),
            MethodConfig::Peap { tls, crypto_binding, .. } => write!(f, "Peap({tls:?}, {crypto_binding:?}, password: <hidden>)"),
        }
    }
}

impl MethodConfig {
    /// EAP-TTLS with PAP and a clear-text password (the former `TtlsPap`).
    pub fn ttls_pap(tls: TlsConfig, password: Zeroizing<Vec<u8>>) -> MethodConfig {
        MethodConfig::Ttls { tls, inner: TtlsInner::Pap, password: Password::Clear(password) }
    }

    /// PEAPv0/EAP-MSCHAPv2 with wpa_supplicant's defaults (optional crypto binding, TLS 1.2).
    pub fn peap(tls: TlsConfig, password: Password) -> MethodConfig {
        MethodConfig::Peap { tls, password, crypto_binding: CryptoBinding::Optional, allow_tls13: false }
    }

    pub fn typ(&self) -> u8 {
        match self {
            MethodConfig::Tls(_) => method::TLS,
            MethodConfig::Ttls { .. } => method::TTLS,
            MethodConfig::Peap { .. } => method::PEAP,
        }
    }
    /// The TLS settings (server validation, client certificate, versions).
    pub fn tls(&self) -> &TlsConfig {
        match self {
            MethodConfig::Tls(t) | MethodConfig::Ttls { tls: t, .. } | MethodConfig::Peap { tls: t, .. } => t,
        }
    }
    pub fn tls_mut(&mut self) -> &mut TlsConfig {
        match self {
            MethodConfig::Tls(t) | MethodConfig::Ttls { tls: t, .. } | MethodConfig::Peap { tls: t, .. } => t,
        }
    }

    /// The TLS settings the method runs with: PEAP without `allow_tls13` offers TLS 1.2 only.
    pub fn effective_tls(&self) -> Result<TlsConfig> {
        let mut t = self.tls().clone();
        match self {
            MethodConfig::Peap { allow_tls13: false, .. } => match t.versions {
                TlsVersions::Tls13 => {
                    return Err(Error::Unsupported("PEAP over TLS 1.3 only: TLS 1.3 for PEAP must be asked for (tls_disable_tlsv1_3=0)"))
                }
                _ => t.versions = TlsVersions::Tls12,
            },
            MethodConfig::Ttls { inner: TtlsInner::Pap, password, .. } if password.clear().is_none() => {
                return Err(Error::Unsupported("TTLS/PAP needs the password itself, not its hash"))
            }
            _ => {}
        }
        Ok(t)
    }
}

/// The peer's settings (wpa_supplicant's network block keys).
#[derive(Clone)]
pub struct PeerConfig {
    pub identity: Vec<u8>,
    pub anonymous_identity: Option<Vec<u8>>,
    pub method: MethodConfig,
}

impl core::fmt::Debug for PeerConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PeerConfig {{ identity: {:?}, method: {:?} }}", String::from_utf8_lossy(&self.identity), self.method)
    }
}

/// What happened, in the words of wpa_supplicant's control interface events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerEvent {
    /// CTRL-EVENT-EAP-STARTED: the first Request of a conversation.
    Started,
    /// CTRL-EVENT-EAP-PROPOSED-METHOD: the server proposed a method (Nak'ed if not ours).
    ProposedMethod(u8),
    /// CTRL-EVENT-EAP-METHOD: the method runs.
    Method(u8),
    /// CTRL-EVENT-EAP-NOTIFICATION.
    Notification(String),
    /// The inner method's error code and message (MS-CHAPv2's E=691: authentication
    /// failure), as wpa_supplicant logs "EAP-MSCHAPV2: failure message".
    ErrorCode(u32, String),
    /// CTRL-EVENT-EAP-SUCCESS: the MSK is ready.
    Success,
    /// CTRL-EVENT-EAP-FAILURE, with why.
    Failure(String),
}

/// Where the conversation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerState {
    Idle,
    Identity,
    Method,
    Success,
    Failure,
}

impl PeerState {
    /// wpa_supplicant's `EAP state=` words.
    pub fn name(self) -> &'static str {
        match self {
            PeerState::Idle => "IDLE",
            PeerState::Identity => "IDENTITY",
            PeerState::Method => "METHOD",
            PeerState::Success => "SUCCESS",
            PeerState::Failure => "FAILURE",
        }
    }
}

/// An EAP peer.
pub struct Peer {
    cfg: PeerConfig,
    state: PeerState,
    tls: Option<EapTls>,
    last: Option<(u8, Vec<u8>)>,
    events: std::collections::VecDeque<PeerEvent>,
    msk: Option<Zeroizing<Vec<u8>>>,
    /// Where MS-CHAPv2's peer challenge comes from (none: the TLS provider's, the OS's).
    rng: Option<crate::rng::BoxRng>,
}

impl Peer {
    /// A peer whose random octets (MS-CHAPv2's peer challenge) come from the TLS provider
    /// (ring: the OS), as the TLS randoms do.
    pub fn new(cfg: PeerConfig) -> Result<Peer> {
        // Check the method's configuration now: a bad ca_cert is an error at start, not mid-way.
        super::tls::client_config(&cfg.method.effective_tls()?)?;
        if let MethodConfig::Ttls { inner: TtlsInner::Mschapv2, password, .. } | MethodConfig::Peap { password, .. } = &cfg.method {
            password.nt_hash()?;
        }
        Ok(Peer { cfg, state: PeerState::Idle, tls: None, last: None, events: Default::default(), msk: None, rng: None })
    }

    /// A peer whose random octets come from `rng` (a node's, or a seeded one in a test).
    pub fn with_rng(cfg: PeerConfig, rng: crate::rng::BoxRng) -> Result<Peer> {
        Ok(Peer { rng: Some(rng), ..Peer::new(cfg)? })
    }

    fn random16(&mut self) -> Result<[u8; 16]> {
        let mut b = [0u8; 16];
        match self.rng.as_mut() {
            Some(r) => r.as_rngcore().fill_bytes(&mut b),
            None => rustls::crypto::ring::default_provider()
                .secure_random
                .fill(&mut b)
                .map_err(|_| Error::Unsupported("no randomness for the MS-CHAPv2 peer challenge"))?,
        }
        Ok(b)
    }

    /// The method as it starts: the TLS part and what runs in its tunnel.
    fn start_method(&mut self) -> Result<EapTls> {
        let tls = self.cfg.method.effective_tls()?;
        let id = self.cfg.identity.clone();
        let tunnel: Option<Box<dyn Tunnel>> = match &self.cfg.method {
            MethodConfig::Tls(_) => None,
            MethodConfig::Ttls { inner: TtlsInner::Pap, password, .. } => {
                let pw = password.clear().ok_or(Error::Unsupported("TTLS/PAP needs the password itself"))?;
                Some(Box::new(TtlsAvps::new(super::ttls::ttls_pap(&id, pw))))
            }
            MethodConfig::Ttls { inner: TtlsInner::Mschapv2, password, .. } => {
                let pw = password.clone();
                Some(Box::new(TtlsMschapv2::new(&id, &pw, self.random16()?)?))
            }
            MethodConfig::Peap { password, crypto_binding, .. } => {
                let (pw, cb) = (password.clone(), *crypto_binding);
                Some(Box::new(Peap::new(&id, &pw, self.random16()?, cb)?))
            }
        };
        EapTls::tunneled(&tls, self.cfg.method.typ(), tunnel)
    }

    /// PEAP: the server's crypto binding was validated and answered (the MSK is the
    /// compound session key).
    pub fn crypto_binding_used(&self) -> bool {
        self.tls.as_ref().is_some_and(|t| t.crypto_binding_used())
    }

    pub fn state(&self) -> PeerState {
        self.state
    }

    pub fn poll_event(&mut self) -> Option<PeerEvent> {
        self.events.pop_front()
    }

    /// The MSK (64 octets) after EAP-Success.
    pub fn msk(&self) -> Option<&[u8]> {
        self.msk.as_deref().map(|k| &k[..64.min(k.len())])
    }

    /// The TLS version and cipher suite the method negotiated.
    pub fn tls_info(&self) -> Option<(&'static str, String)> {
        let t = self.tls.as_ref()?;
        Some((t.version()?, t.cipher_suite()?))
    }

    /// Starts over (EAPOL-Start sent, or a new association).
    pub fn restart(&mut self) {
        self.state = PeerState::Idle;
        self.tls = None;
        self.last = None;
        self.msk = None;
    }

    fn fail(&mut self, why: String) {
        self.state = PeerState::Failure;
        self.events.push_back(PeerEvent::Failure(why));
    }

    /// An EAP packet from the authenticator; the Response to send, if any. Malformed
    /// packets are an `Err` (and discarded: RFC 3748 4 says silently).
    pub fn handle(&mut self, eap: &[u8]) -> Result<Option<Vec<u8>>> {
        let p = Packet::new_checked(eap)?;
        match p.code() {
            Code::Request => {}
            Code::Success => {
                let done = self.tls.as_ref().is_some_and(|t| *t.state() == TlsState::Done);
                if done && self.state == PeerState::Method {
                    self.msk = self.tls.as_ref().and_then(|t| t.key_material());
                    self.state = PeerState::Success;
                    self.events.push_back(PeerEvent::Success);
                } else if self.state != PeerState::Success {
                    self.fail("EAP-Success before the method completed".into());
                }
                return Ok(None);
            }
            Code::Failure => {
                if self.state != PeerState::Failure {
                    let why = match self.tls.as_ref().map(|t| t.state()) {
                        Some(TlsState::Failed(w)) => format!("EAP-Failure after the method failed: {w}"),
                        _ => "EAP-Failure".to_string(),
                    };
                    self.fail(why);
                }
                return Ok(None);
            }
            _ => return Err(Error::Malformed("EAP code a peer does not take")),
        }
        let id = p.identifier();
        if let Some((lid, resp)) = &self.last {
            if *lid == id && self.state != PeerState::Idle {
                return Ok(Some(resp.clone()));
            }
        }
        if self.state == PeerState::Idle || self.state == PeerState::Success || self.state == PeerState::Failure {
            self.restart();
            self.events.push_back(PeerEvent::Started);
        }
        let typ = p.typ().expect("a Request has a Type");
        let resp = match typ {
            method::IDENTITY => {
                self.state = PeerState::Identity;
                let who = self.cfg.anonymous_identity.as_ref().unwrap_or(&self.cfg.identity).clone();
                emit(Code::Response, id, method::IDENTITY, &who)?
            }
            method::NOTIFICATION => {
                self.events.push_back(PeerEvent::Notification(String::from_utf8_lossy(p.type_data()).into_owned()));
                emit(Code::Response, id, method::NOTIFICATION, &[])?
            }
            t if t == self.cfg.method.typ() => {
                if self.state != PeerState::Method {
                    self.events.push_back(PeerEvent::ProposedMethod(t));
                    self.events.push_back(PeerEvent::Method(t));
                    self.state = PeerState::Method;
                }
                if self.tls.is_none() {
                    self.tls = Some(self.start_method()?);
                }
                let tls = self.tls.as_mut().expect("set above");
                let r = tls.process(p.type_data());
                if let Some((code, text)) = tls.take_error() {
                    self.events.push_back(PeerEvent::ErrorCode(code, text));
                }
                let data = match r {
                    Ok(d) => d,
                    Err(e) => {
                        self.fail(format!("EAP-{}: {e}", method::name(t)));
                        return Err(e);
                    }
                };
                emit(Code::Response, id, t, &data)?
            }
            method::NAK | method::EXPANDED => return Err(Error::Malformed("EAP Request of a type a server does not send")),
            t => {
                self.events.push_back(PeerEvent::ProposedMethod(t));
                emit(Code::Response, id, method::NAK, &[self.cfg.method.typ()])?
            }
        };
        self.last = Some((id, resp.clone()));
        Ok(Some(resp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eap::packet::emit_result;

    fn peer() -> Peer {
        let t = TlsConfig { insecure_no_server_validation: true, ..Default::default() };
        Peer::new(PeerConfig { identity: b"alice".to_vec(), anonymous_identity: None, method: MethodConfig::Tls(t) }).unwrap()
    }

    #[test]
    fn identity_nak_retransmission_early_success() {
        let mut p = peer();
        let r = p.handle(&emit(Code::Request, 1, method::IDENTITY, &[]).unwrap()).unwrap().unwrap();
        assert_eq!(r, emit(Code::Response, 1, method::IDENTITY, b"alice").unwrap());
        assert_eq!(p.poll_event(), Some(PeerEvent::Started));
        // MD5 proposed: Nak with TLS.
        let r = p.handle(&emit(Code::Request, 2, method::MD5_CHALLENGE, &[16; 17]).unwrap()).unwrap().unwrap();
        assert_eq!(r, emit(Code::Response, 2, method::NAK, &[method::TLS]).unwrap());
        // The same Request again: the same Response.
        assert_eq!(p.handle(&emit(Code::Request, 2, method::MD5_CHALLENGE, &[16; 17]).unwrap()).unwrap().unwrap(), r);
        // TLS Start: a ClientHello.
        let r = p.handle(&emit(Code::Request, 3, method::TLS, &[0x20]).unwrap()).unwrap().unwrap();
        assert_eq!(r[4], method::TLS);
        assert_eq!(p.state(), PeerState::Method);
        // Success before the method ends is a failure, and no key.
        assert_eq!(p.handle(&emit_result(true, 3)).unwrap(), None);
        assert_eq!(p.state(), PeerState::Failure);
        assert!(p.msk().is_none());
        assert!(p.handle(&[3, 0, 0]).is_err());
        assert!(p.handle(&emit(Code::Response, 4, method::IDENTITY, &[]).unwrap()).is_err(), "a Response to a peer");
    }
}
