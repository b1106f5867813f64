//! The SAE protocol instance state machine (IEEE 802.11-2020 12.4.8) for an infrastructure
//! BSS, sans-IO: frames in, frames and events out, time given by the caller in
//! milliseconds.
//!
//! The station starts (Nothing -> Committed by sending its Commit). The AP answers a Commit
//! with its own Commit only and its Confirm after the station's Confirm verified, as
//! hostapd does for infrastructure BSSs (`sae_sm_step`). Lost frames are covered by the
//! retransmission timer (dot11RSNASAERetransPeriod) and limited by dot11RSNASAESync;
//! reordered or repeated frames are absorbed: a Commit whose scalar matches the current one
//! is a retransmission, a Confirm must carry a larger Send-Confirm than the last one
//! accepted (12.4.8.6.6).

use super::exchange::{CommitError, Exchange, SaeKeys};
use super::group::Group;
use super::kdf::{hmac, SaeHash};
use super::msg::{anti_clogging_request, parse_anti_clogging_request, Commit, Confirm};
use super::status;
use crate::error::{Error, Result};
use rand_core::CryptoRngCore;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Which password element derivation to use, as hostapd's and wpa_supplicant's `sae_pwe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PweMethod {
    /// `sae_pwe=0`: hunting-and-pecking only.
    HuntingAndPecking,
    /// `sae_pwe=1`: hash-to-element only.
    HashToElement,
    /// `sae_pwe=2`: both (the station uses hash-to-element when the AP offers it).
    Both,
}

impl PweMethod {
    /// From the `sae_pwe` configuration value.
    pub fn from_conf(v: u8) -> Option<PweMethod> {
        match v {
            0 => Some(PweMethod::HuntingAndPecking),
            1 => Some(PweMethod::HashToElement),
            2 => Some(PweMethod::Both),
            _ => None,
        }
    }
    /// Whether a commit with this status code uses a method we accept (hostapd's
    /// `sae_status_success`).
    pub fn accepts(self, commit_status: u16) -> bool {
        match self {
            PweMethod::HuntingAndPecking => commit_status == status::SUCCESS,
            PweMethod::HashToElement => commit_status == status::SAE_HASH_TO_ELEMENT,
            PweMethod::Both => commit_status == status::SUCCESS || commit_status == status::SAE_HASH_TO_ELEMENT,
        }
    }
}

/// A password and its optional identifier. Wiped on drop; `Debug` does not show it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Credentials {
    pub password: Vec<u8>,
    pub identifier: Option<Vec<u8>>,
}

impl core::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Credentials { .. }")
    }
}

/// Settings of a protocol instance.
#[derive(Debug, Clone)]
pub struct SaeConfig {
    /// Groups in order of preference (`sae_groups`; hostapd's default is 19).
    pub groups: Vec<Group>,
    /// dot11RSNASAERetransPeriod in ms (hostapd: 40 ms on the AP; wpa_supplicant: 1 s).
    pub retrans_ms: u64,
    /// dot11RSNASAESync (hostapd's `sae_sync`, default 3).
    pub sync_limit: u16,
}

impl Default for SaeConfig {
    fn default() -> Self {
        SaeConfig { groups: vec![Group::P256], retrans_ms: 40, sync_limit: 3 }
    }
}

/// The side of the exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Ap,
    Sta,
}

/// 12.4.8.5 states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Nothing,
    Committed,
    Confirmed,
    Accepted,
    /// The instance ended without a key (the status says why).
    Failed(u16),
}

/// What the caller has to do.
#[derive(Debug)]
pub enum Output {
    /// Send an Authentication frame of algorithm 3.
    Send { transaction: u16, status: u16, body: Vec<u8> },
    /// The exchange completed: PMK and PMKID for the 4-way handshake.
    Accepted(SaeKeys),
    /// The exchange failed; the status is the one sent or received (15 for a wrong
    /// password, 77 when no group is shared), or 1 when the Sync limit was reached.
    Failed(u16),
}

/// Anti-clogging tokens of an AP (12.4.6): `HMAC-SHA-256(secret, peer address)`, so no
/// state is kept per requesting address.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct AntiClogging {
    secret: [u8; 32],
}

impl AntiClogging {
    pub fn new(rng: &mut dyn CryptoRngCore) -> AntiClogging {
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        AntiClogging { secret }
    }
    pub fn token(&self, peer: &[u8; 6]) -> Vec<u8> {
        hmac(SaeHash::Sha256, &self.secret, &[peer]).to_vec()
    }
    /// Constant-time check of a token.
    pub fn check(&self, peer: &[u8; 6], token: &[u8]) -> bool {
        let t = self.token(peer);
        t.len() == token.len() && bool::from(t.as_slice().ct_eq(token))
    }
}

/// How the PWE is obtained: hunting-and-pecking from the password, or hash-to-element from
/// the SSID and password (PT derived per group once and cached).
struct PweSource {
    ssid: Vec<u8>,
    creds: Credentials,
    pts: Vec<(Group, Zeroizing<Vec<u8>>)>,
}

impl PweSource {
    fn pwe(&mut self, group: Group, h2e: bool, own: &[u8; 6], peer: &[u8; 6], rng: &mut dyn CryptoRngCore) -> Result<Zeroizing<Vec<u8>>> {
        if !h2e {
            // Hunting-and-pecking appends the identifier to the password (12.4.4.2.2).
            let mut base = Zeroizing::new(self.creds.password.clone());
            if let Some(id) = &self.creds.identifier {
                base.extend_from_slice(id);
            }
            return group.pwe_hunting_and_pecking(own, peer, &base, rng);
        }
        if !self.pts.iter().any(|(g, _)| *g == group) {
            let pt = group.pt(&self.ssid, &self.creds.password, self.creds.identifier.as_deref())?;
            self.pts.push((group, pt));
        }
        let pt = &self.pts.iter().find(|(g, _)| *g == group).expect("just derived").1;
        group.pwe_from_pt(pt, own, peer)
    }
}

/// One SAE protocol instance with one peer.
pub struct Instance {
    role: Role,
    conf: SaeConfig,
    h2e: bool,
    own: [u8; 6],
    peer: [u8; 6],
    source: PweSource,
    state: State,
    ex: Option<Exchange>,
    group_idx: usize,
    rejected: Vec<u16>,
    token: Option<Vec<u8>>,
    sync: u16,
    /// Peer Send-Confirm last accepted (12.4.8.6.6).
    rc: Option<u16>,
    last_sent: Option<(u16, u16, Vec<u8>)>,
    deadline: Option<u64>,
}

impl Instance {
    /// A new instance. `h2e` selects the password element derivation of this exchange:
    /// the station decides it from the AP's RSNXE and its `sae_pwe`; the AP takes it from
    /// the status code of the first commit ([`Instance::ap_h2e_for`]).
    pub fn new(role: Role, conf: SaeConfig, h2e: bool, own: [u8; 6], peer: [u8; 6], ssid: &[u8], creds: Credentials) -> Result<Instance> {
        if conf.groups.is_empty() {
            return Err(Error::Malformed("SAE: no groups configured"));
        }
        if ssid.len() > 32 {
            return Err(Error::Malformed("SAE: SSID longer than 32 octets"));
        }
        Ok(Instance {
            role,
            conf,
            h2e,
            own,
            peer,
            source: PweSource { ssid: ssid.to_vec(), creds, pts: Vec::new() },
            state: State::Nothing,
            ex: None,
            group_idx: 0,
            rejected: Vec::new(),
            token: None,
            sync: 0,
            rc: None,
            last_sent: None,
            deadline: None,
        })
    }

    pub fn state(&self) -> State {
        self.state
    }
    /// The group in use.
    pub fn group(&self) -> Group {
        self.conf.groups[self.group_idx.min(self.conf.groups.len() - 1)]
    }
    /// When [`Instance::on_timeout`] is due, in the caller's milliseconds.
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }
    /// The exchange's crypto state, if a commit was made.
    pub fn exchange(&self) -> Option<&Exchange> {
        self.ex.as_ref()
    }

    fn commit_status(&self) -> u16 {
        if self.h2e {
            status::SAE_HASH_TO_ELEMENT
        } else {
            status::SUCCESS
        }
    }

    fn send(&mut self, now: u64, transaction: u16, status: u16, body: Vec<u8>, out: &mut Vec<Output>) {
        self.last_sent = Some((transaction, status, body.clone()));
        self.deadline = Some(now + self.conf.retrans_ms);
        out.push(Output::Send { transaction, status, body });
    }

    fn fail(&mut self, status: u16, out: &mut Vec<Output>) {
        self.state = State::Failed(status);
        self.deadline = None;
        self.ex = None;
        out.push(Output::Failed(status));
    }

    fn new_exchange(&mut self, group: Group, rng: &mut dyn CryptoRngCore) -> Result<()> {
        let pwe = self.source.pwe(group, self.h2e, &self.own, &self.peer, rng)?;
        let mut ex = Exchange::new(group, pwe, self.h2e, self.own, self.peer, rng)?;
        ex.own_rejected = self.rejected.clone();
        self.ex = Some(ex);
        Ok(())
    }

    fn commit_body(&self) -> Vec<u8> {
        let ex = self.ex.as_ref().expect("commit after exchange");
        ex.commit_msg(self.token.as_deref(), self.source.creds.identifier.as_deref()).to_bytes(self.h2e)
    }

    /// Station: start the exchange (Nothing -> Committed).
    pub fn start(&mut self, now: u64, rng: &mut dyn CryptoRngCore) -> Result<Vec<Output>> {
        let mut out = Vec::new();
        let group = self.group();
        self.new_exchange(group, rng)?;
        self.state = State::Committed;
        self.sync = 0;
        let body = self.commit_body();
        let st = self.commit_status();
        self.send(now, 1, st, body, &mut out);
        Ok(out)
    }

    /// Retransmission timer expired (12.4.8.6.1): send the last frame again while Sync
    /// stays within dot11RSNASAESync, else give up.
    pub fn on_timeout(&mut self, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if !matches!(self.state, State::Committed | State::Confirmed) {
            self.deadline = None;
            return out;
        }
        if self.sync >= self.conf.sync_limit {
            self.fail(status::UNSPECIFIED_FAILURE, &mut out);
            return out;
        }
        self.sync += 1;
        if let Some((t, s, mut body)) = self.last_sent.clone() {
            if t == 2 {
                // A resent Confirm carries a new Send-Confirm (12.4.8.6.5).
                if let Some(c) = self.ex.as_mut().and_then(Exchange::confirm) {
                    body = c.to_bytes();
                }
            }
            self.send(now, t, s, body, &mut out);
        }
        out
    }

    /// An Authentication frame of algorithm 3 from the peer.
    pub fn receive(
        &mut self,
        now: u64,
        transaction: u16,
        status_code: u16,
        body: &[u8],
        rng: &mut dyn CryptoRngCore,
        clogging: Option<&AntiClogging>,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        if matches!(self.state, State::Failed(_)) {
            return out;
        }
        match self.role {
            Role::Sta => self.sta_receive(now, transaction, status_code, body, rng, &mut out),
            Role::Ap => self.ap_receive(now, transaction, status_code, body, rng, clogging, &mut out),
        }
        out
    }

    fn sta_receive(&mut self, now: u64, transaction: u16, st: u16, body: &[u8], rng: &mut dyn CryptoRngCore, out: &mut Vec<Output>) {
        match (self.state, transaction) {
            (State::Committed, 1) => match st {
                status::ANTI_CLOGGING_TOKEN_REQUIRED => {
                    let Ok((group, token)) = parse_anti_clogging_request(body, self.h2e) else { return };
                    if group != self.group().id() || self.token.as_deref() == Some(&token[..]) {
                        return;
                    }
                    // Same commit values, now with the token (12.4.6).
                    self.token = Some(token);
                    let body = self.commit_body();
                    let s = self.commit_status();
                    self.send(now, 1, s, body, out);
                }
                status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED => {
                    if body.len() < 2 || u16::from_le_bytes([body[0], body[1]]) != self.group().id() {
                        return;
                    }
                    // Try the next group; the refused one is listed for downgrade
                    // protection (hash-to-element, 12.4.4.2.3).
                    self.rejected.push(self.group().id());
                    self.group_idx += 1;
                    if self.group_idx >= self.conf.groups.len() {
                        self.fail(st, out);
                        return;
                    }
                    self.token = None;
                    let group = self.group();
                    if self.new_exchange(group, rng).is_err() {
                        self.fail(status::UNSPECIFIED_FAILURE, out);
                        return;
                    }
                    let body = self.commit_body();
                    let s = self.commit_status();
                    self.send(now, 1, s, body, out);
                }
                s if s == self.commit_status() => {
                    let Ok(c) = Commit::parse(body, self.h2e) else { return };
                    let ex = self.ex.as_mut().expect("committed");
                    match ex.process_commit(&c) {
                        Ok(()) => {}
                        Err(CommitError::SilentlyDiscard) => return,
                        Err(CommitError::Status(_)) => return,
                    }
                    let Some(conf) = ex.confirm() else { return };
                    self.state = State::Confirmed;
                    self.sync = 0;
                    self.send(now, 2, status::SUCCESS, conf.to_bytes(), out);
                }
                s if s == status::SUCCESS || s == status::SAE_HASH_TO_ELEMENT => {}
                s => self.fail(s, out),
            },
            (State::Confirmed, 1) => {
                // The AP's Commit again: our Confirm was lost. Resend it (Sync-limited).
                let Ok(c) = Commit::parse(body, self.h2e) else { return };
                let ex = self.ex.as_mut().expect("confirmed");
                if ex.peer_scalar() != Some(&c.scalar[..]) {
                    return;
                }
                if self.sync >= self.conf.sync_limit {
                    self.fail(status::UNSPECIFIED_FAILURE, out);
                    return;
                }
                self.sync += 1;
                if let Some(conf) = ex.confirm() {
                    self.send(now, 2, status::SUCCESS, conf.to_bytes(), out);
                }
            }
            (State::Confirmed, 2) => {
                if st != status::SUCCESS {
                    self.fail(st, out);
                    return;
                }
                let ex = self.ex.as_ref().expect("confirmed");
                let Ok(c) = Confirm::parse(body, ex.hash().output_len()) else { return };
                if !ex.verify_confirm(&c) {
                    self.fail(status::CHALLENGE_FAIL, out);
                    return;
                }
                self.accept(c.send_confirm, out);
            }
            (State::Committed, 2) if st != status::SUCCESS => self.fail(st, out),
            _ => {}
        }
    }

    fn accept(&mut self, rc: u16, out: &mut Vec<Output>) {
        self.rc = Some(rc);
        self.state = State::Accepted;
        self.deadline = None;
        if let Some(k) = self.ex.as_ref().and_then(Exchange::keys) {
            out.push(Output::Accepted(k.clone()));
        }
    }

    /// Whether an AP instance in Nothing would take a commit with this status code (the
    /// station's choice of derivation) under `sae_pwe`.
    pub fn ap_h2e_for(method: PweMethod, commit_status: u16) -> Option<bool> {
        method.accepts(commit_status).then_some(commit_status == status::SAE_HASH_TO_ELEMENT)
    }

    #[allow(clippy::too_many_arguments)]
    fn ap_receive(
        &mut self,
        now: u64,
        transaction: u16,
        st: u16,
        body: &[u8],
        rng: &mut dyn CryptoRngCore,
        clogging: Option<&AntiClogging>,
        out: &mut Vec<Output>,
    ) {
        match (self.state, transaction) {
            (State::Nothing, 1) | (State::Accepted, 1) => {
                if st != self.commit_status() {
                    if self.state == State::Nothing {
                        out.push(Output::Send { transaction: 1, status: status::UNSPECIFIED_FAILURE, body: Vec::new() });
                    }
                    return;
                }
                let c = match Commit::parse(body, self.h2e) {
                    Ok(c) => c,
                    Err(code) => {
                        if self.state == State::Nothing {
                            let body = if code == status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED { body[..2].to_vec() } else { Vec::new() };
                            out.push(Output::Send { transaction: 1, status: code, body });
                        }
                        return;
                    }
                };
                if self.state == State::Accepted {
                    // A late copy of the accepted exchange's commit is dropped (12.4.8.6.6);
                    // a new scalar starts a new exchange.
                    if self.ex.as_ref().and_then(Exchange::peer_scalar) == Some(&c.scalar[..]) {
                        return;
                    }
                    self.state = State::Nothing;
                    self.rc = None;
                }
                let Some(gi) = self.conf.groups.iter().position(|g| g.id() == c.group) else {
                    out.push(Output::Send {
                        transaction: 1,
                        status: status::FINITE_CYCLIC_GROUP_NOT_SUPPORTED,
                        body: c.group.to_le_bytes().to_vec(),
                    });
                    return;
                };
                if let Some(ac) = clogging {
                    if !c.token.as_deref().is_some_and(|t| ac.check(&self.peer, t)) {
                        let body = anti_clogging_request(c.group, &ac.token(&self.peer), self.h2e);
                        out.push(Output::Send { transaction: 1, status: status::ANTI_CLOGGING_TOKEN_REQUIRED, body });
                        return;
                    }
                }
                if c.password_id != self.source.creds.identifier {
                    out.push(Output::Send { transaction: 1, status: status::UNKNOWN_PASSWORD_IDENTIFIER, body: Vec::new() });
                    return;
                }
                // Downgrade protection: a group the peer says was rejected must really be
                // one we do not offer (12.4.8.6.3).
                if self.h2e && c.rejected_groups.iter().any(|r| self.conf.groups.iter().any(|g| g.id() == *r)) {
                    self.fail(status::UNSPECIFIED_FAILURE, out);
                    return;
                }
                self.group_idx = gi;
                if self.new_exchange(self.conf.groups[gi], rng).is_err() {
                    self.fail(status::UNSPECIFIED_FAILURE, out);
                    return;
                }
                let ex = self.ex.as_mut().expect("just made");
                match ex.process_commit(&c) {
                    Ok(()) => {}
                    Err(CommitError::SilentlyDiscard) => {
                        self.ex = None;
                        return;
                    }
                    Err(CommitError::Status(code)) => {
                        self.ex = None;
                        out.push(Output::Send { transaction: 1, status: code, body: Vec::new() });
                        return;
                    }
                }
                self.state = State::Committed;
                self.sync = 0;
                let body = self.commit_body();
                let s = self.commit_status();
                self.send(now, 1, s, body, out);
            }
            (State::Committed, 1) => {
                // The station's commit again: ours was lost. Resend (Sync-limited).
                let Ok(c) = Commit::parse(body, self.h2e) else { return };
                if self.ex.as_ref().and_then(Exchange::peer_scalar) != Some(&c.scalar[..]) {
                    return;
                }
                if self.sync >= self.conf.sync_limit {
                    self.fail(status::UNSPECIFIED_FAILURE, out);
                    return;
                }
                self.sync += 1;
                if let Some((t, s, b)) = self.last_sent.clone() {
                    self.send(now, t, s, b, out);
                }
            }
            (State::Committed, 2) => {
                let ex = self.ex.as_ref().expect("committed");
                let Ok(c) = Confirm::parse(body, ex.hash().output_len()) else { return };
                if !ex.verify_confirm(&c) {
                    // hostapd answers a Confirm that does not verify with status 15.
                    out.push(Output::Send { transaction: 2, status: status::CHALLENGE_FAIL, body: Vec::new() });
                    self.fail(status::CHALLENGE_FAIL, out);
                    return;
                }
                let Some(conf) = self.ex.as_mut().and_then(Exchange::confirm) else { return };
                out.push(Output::Send { transaction: 2, status: status::SUCCESS, body: conf.to_bytes() });
                self.accept(c.send_confirm, out);
            }
            (State::Accepted, 2) => {
                // A retransmitted Confirm (ours was lost): only with a larger Send-Confirm,
                // and answered with our Confirm again.
                let ex = self.ex.as_ref().expect("accepted");
                let Ok(c) = Confirm::parse(body, ex.hash().output_len()) else { return };
                if self.rc.is_some_and(|rc| c.send_confirm <= rc) || !ex.verify_confirm(&c) {
                    return;
                }
                if self.sync >= self.conf.sync_limit {
                    return;
                }
                self.sync += 1;
                self.rc = Some(c.send_confirm);
                if let Some(conf) = ex.confirm_with(u16::MAX) {
                    out.push(Output::Send { transaction: 2, status: status::SUCCESS, body: conf.to_bytes() });
                }
            }
            _ => {}
        }
    }
}
