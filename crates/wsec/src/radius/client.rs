//! The RADIUS client of an authenticator, sans-IO: requests in, datagrams and events out,
//! the time handed in (nanoseconds, as the node cores take it).
//!
//! What it does, as RFC 2865 2.4-2.5, RFC 5080 2.2 and hostapd's `radius_client.c` do:
//! - one Identifier space per kind (authentication, accounting: two sockets), identifiers
//!   unique among the requests pending to a server;
//! - every Access-Request carries a Message-Authenticator, and an Access-Accept, -Reject or
//!   -Challenge without a valid one is discarded (RFC 3579 3.2; the BlastRADIUS defence,
//!   CVE-2024-3596, as hostapd 2.11 does), as is any response whose Response Authenticator
//!   does not verify, that answers no pending request, or that comes from another address;
//! - retransmission of the same packet (same Identifier and Authenticator) after
//!   `first_wait`, doubling up to `max_wait`; after `num_failover` retransmissions the
//!   client moves to the next server of the list, rebuilding every pending request for it
//!   (new Identifier and Authenticator, hidden and signed with that server's secret); a
//!   request is given up after `max_failover` such moves;
//! - back to the first server after `retry_primary` (hostapd `radius_retry_primary_interval`).
//! - at most `max_pending` requests wait; a new one beyond that drops the oldest.
//!
//! A server over TLS (RadSec, RFC 6614; [`Server::tls`]) is a reliable transport: the
//! timers still count towards failover and giving up, but nothing is retransmitted on the
//! connection (RFC 6613 2.6.2: "clients MUST NOT retransmit" over the same connection; RFC
//! 5080 2.2.1). When the connection drops or cannot be made ([`Client::transport_down`]),
//! the client moves to the next server at once (each pending request counting one move
//! towards `max_failover`), or, with one server, sends its requests again on the new
//! connection the runtime makes.
use super::auth;
use super::packet::{attr, Builder, Code, Packet};
use crate::error::{Error, Result};
use crate::rng::array;
use rand_core::CryptoRngCore;
use std::net::SocketAddr;
use zeroize::Zeroizing;

/// One RADIUS server: its address and the shared secret.
#[derive(Clone)]
pub struct Server {
    pub addr: SocketAddr,
    pub secret: Zeroizing<Vec<u8>>,
    /// RADIUS over TLS (RadSec, hostapd `auth_server_type=TLS`) rather than UDP.
    pub tls: bool,
}

impl Server {
    /// A RADIUS/UDP server.
    pub fn udp(addr: SocketAddr, secret: &[u8]) -> Server {
        Server { addr, secret: Zeroizing::new(secret.to_vec()), tls: false }
    }
    /// A RADIUS/TLS server (its TLS settings are the runtime's).
    pub fn tls(addr: SocketAddr, secret: &[u8]) -> Server {
        Server { addr, secret: Zeroizing::new(secret.to_vec()), tls: true }
    }
}

impl core::fmt::Debug for Server {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Server {{ addr: {}, secret: <{} octets>, tls: {} }}", self.addr, self.secret.len(), self.tls)
    }
}

/// Authentication (port 1812) or accounting (1813).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Auth,
    Acct,
}

/// The client's servers and timers (hostapd's defaults).
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub auth_servers: Vec<Server>,
    pub acct_servers: Vec<Server>,
    /// First retransmission after this long (ns; hostapd RADIUS_CLIENT_FIRST_WAIT, 3 s).
    pub first_wait_ns: u64,
    /// The longest wait between retransmissions (ns; RADIUS_CLIENT_MAX_WAIT, 120 s).
    pub max_wait_ns: u64,
    /// Retransmissions to one server before moving to the next (RADIUS_CLIENT_NUM_FAILOVER, 4).
    pub num_failover: u32,
    /// Moves to another server before a request is given up (RADIUS_CLIENT_MAX_FAILOVER, 3).
    pub max_failover: u32,
    /// Requests waiting at most (RADIUS_CLIENT_MAX_ENTRIES, 30).
    pub max_pending: usize,
    /// Back to the first server this long after leaving it (ns; hostapd
    /// `radius_retry_primary_interval`); 0: stay.
    pub retry_primary_ns: u64,
    /// Discard Access-Accept/-Reject/-Challenge without a Message-Authenticator.
    pub require_message_authenticator: bool,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            auth_servers: Vec::new(),
            acct_servers: Vec::new(),
            first_wait_ns: 3_000_000_000,
            max_wait_ns: 120_000_000_000,
            num_failover: 4,
            max_failover: 3,
            max_pending: 30,
            retry_primary_ns: 0,
            require_message_authenticator: true,
        }
    }
}

/// A request as its sender builds it: the attributes in order, without authenticators
/// (the client adds the Message-Authenticator to an Access-Request) and the User-Password
/// in the clear (hidden per server).
#[derive(Clone)]
pub struct Request {
    pub code: Code,
    pub attrs: Vec<(u8, Vec<u8>)>,
    pub password: Option<Zeroizing<Vec<u8>>>,
}

impl Request {
    pub fn new(code: Code) -> Request {
        Request { code, attrs: Vec::new(), password: None }
    }
    pub fn push(&mut self, typ: u8, value: &[u8]) -> &mut Request {
        self.attrs.push((typ, value.to_vec()));
        self
    }
    pub fn push_u32(&mut self, typ: u8, v: u32) -> &mut Request {
        self.push(typ, &v.to_be_bytes())
    }
    /// A long value over several attributes (EAP-Message, RFC 3579 3.1).
    pub fn push_split(&mut self, typ: u8, value: &[u8]) -> &mut Request {
        if value.is_empty() {
            return self.push(typ, value);
        }
        for c in value.chunks(super::packet::MAX_VALUE_LEN) {
            self.push(typ, c);
        }
        self
    }

    fn build(&self, id: u8, rng: &mut dyn CryptoRngCore, secret: &[u8]) -> Result<(Vec<u8>, [u8; 16])> {
        let ra: [u8; 16] = if self.code == Code::AccountingRequest { [0; 16] } else { array(rng) };
        let mut b = Builder::new(self.code, id, ra);
        if let Some(pw) = &self.password {
            b.add(attr::USER_PASSWORD, &auth::hide_password(pw, &ra, secret)?)?;
        }
        for (t, v) in &self.attrs {
            b.add(*t, v)?;
        }
        if self.code == Code::AccessRequest {
            b.add_message_authenticator()?;
        }
        let mut p = b.finish();
        auth::sign_request(&mut p, secret)?;
        let mut a = [0u8; 16];
        a.copy_from_slice(&p[4..20]);
        Ok((p, a))
    }
}

/// A datagram to send.
#[derive(Debug, Clone)]
pub struct Transmit {
    pub kind: Kind,
    pub to: SocketAddr,
    pub data: Vec<u8>,
    /// To a RadSec server: on its TLS connection, not the UDP socket.
    pub tls: bool,
}

/// A response that answered a pending request and verified.
#[derive(Clone)]
pub struct Response {
    /// The sender's tag given to [`Client::send`].
    pub tag: u64,
    pub code: Code,
    pub packet: Vec<u8>,
    pub server: SocketAddr,
    /// Time from the first transmission of the request.
    pub rtt_ns: u64,
    /// MS-MPPE-Recv-Key | MS-MPPE-Send-Key decrypted (RFC 2548; the MSK's first 64 octets,
    /// RFC 3748 7.10 / RFC 5216 2.3) when an Access-Accept carries both.
    pub msk: Option<Zeroizing<Vec<u8>>>,
}

impl core::fmt::Debug for Response {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Response {{ tag: {}, code: {:?}, server: {}, msk: {} }}", self.tag, self.code, self.server, self.msk.is_some())
    }
}

/// What a timer expiry did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The client moved from one server to another (no answer, or back to the primary).
    Failover { kind: Kind, from: SocketAddr, to: SocketAddr },
    /// No server answered a request: its sender must give up (EAP-Failure, reason code).
    GaveUp { kind: Kind, tag: u64 },
}

struct Pending {
    tag: u64,
    kind: Kind,
    req: Request,
    server: usize,
    id: u8,
    authenticator: [u8; 16],
    packet: Vec<u8>,
    retransmissions: u32,
    failovers: u32,
    wait: u64,
    next_at: u64,
    first_at: u64,
}

struct Side {
    servers: Vec<Server>,
    active: usize,
    left_primary_at: Option<u64>,
    next_id: u8,
}

/// Counters a status line reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub requests: u64,
    pub retransmissions: u64,
    pub failovers: u64,
    pub responses: u64,
    pub discarded: u64,
    pub gave_up: u64,
}

/// The sans-IO RADIUS client.
pub struct Client {
    cfg: ClientConfig,
    auth: Side,
    acct: Side,
    pending: Vec<Pending>,
    out: std::collections::VecDeque<Transmit>,
    stats: ClientStats,
}

impl Client {
    pub fn new(cfg: ClientConfig) -> Result<Client> {
        if cfg.first_wait_ns == 0 || cfg.max_wait_ns < cfg.first_wait_ns || cfg.max_pending == 0 || cfg.max_pending > 255 {
            return Err(Error::Malformed("RADIUS client timers or queue size"));
        }
        let side = |s: &Vec<Server>| Side { servers: s.clone(), active: 0, left_primary_at: None, next_id: 0 };
        Ok(Client {
            auth: side(&cfg.auth_servers),
            acct: side(&cfg.acct_servers),
            cfg,
            pending: Vec::new(),
            out: Default::default(),
            stats: ClientStats::default(),
        })
    }

    fn side(&mut self, k: Kind) -> &mut Side {
        match k {
            Kind::Auth => &mut self.auth,
            Kind::Acct => &mut self.acct,
        }
    }

    /// The server requests of this kind go to now.
    pub fn active_server(&self, k: Kind) -> Option<SocketAddr> {
        let s = match k {
            Kind::Auth => &self.auth,
            Kind::Acct => &self.acct,
        };
        s.servers.get(s.active).map(|s| s.addr)
    }

    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    /// Requests waiting for an answer.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    fn free_id(&mut self, k: Kind) -> Result<u8> {
        for _ in 0..256 {
            let side = self.side(k);
            let id = side.next_id;
            side.next_id = side.next_id.wrapping_add(1);
            let active = self.side(k).active;
            if !self.pending.iter().any(|p| p.kind == k && p.server == active && p.id == id) {
                return Ok(id);
            }
        }
        Err(Error::Malformed("no free RADIUS Identifier"))
    }

    /// Queues a request (its first transmission is in [`Client::poll_transmit`]). `tag`
    /// names it in the response or the give-up event (a station's number, say).
    pub fn send(&mut self, now: u64, kind: Kind, tag: u64, req: Request, rng: &mut dyn CryptoRngCore) -> Result<()> {
        let expect = if kind == Kind::Acct { Code::AccountingRequest } else { Code::AccessRequest };
        if req.code != expect {
            return Err(Error::Malformed("RADIUS request code does not match its kind"));
        }
        if self.side(kind).servers.is_empty() {
            return Err(Error::Unsupported("no RADIUS server configured for this kind"));
        }
        if self.pending.len() >= self.cfg.max_pending {
            let old = self.pending.remove(0);
            self.stats.gave_up += 1;
            let _ = old;
        }
        let id = self.free_id(kind)?;
        let server = self.side(kind).active;
        let (packet, authenticator) = req.build(id, rng, &self.side(kind).servers[server].secret)?;
        let (to, tls) = (self.side(kind).servers[server].addr, self.side(kind).servers[server].tls);
        self.out.push_back(Transmit { kind, to, data: packet.clone(), tls });
        self.pending.push(Pending {
            tag,
            kind,
            req,
            server,
            id,
            authenticator,
            packet,
            retransmissions: 0,
            failovers: 0,
            wait: self.cfg.first_wait_ns,
            next_at: now.saturating_add(self.cfg.first_wait_ns),
            first_at: now,
        });
        self.stats.requests += 1;
        Ok(())
    }

    /// Forgets the requests sent with `tag` (the station left): their answers are discarded.
    pub fn cancel(&mut self, tag: u64) {
        self.pending.retain(|p| p.tag != tag);
    }

    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.pop_front()
    }

    /// The next time [`Client::handle_timeout`] must run.
    pub fn poll_timeout(&self) -> Option<u64> {
        let mut t = self.pending.iter().map(|p| p.next_at).min();
        for s in [&self.auth, &self.acct] {
            if let (Some(at), true) = (s.left_primary_at, self.cfg.retry_primary_ns > 0) {
                let back = at.saturating_add(self.cfg.retry_primary_ns);
                t = Some(t.map_or(back, |t| t.min(back)));
            }
        }
        t
    }

    /// A datagram received on the socket of `kind` from `from`. `Err` says why it was
    /// silently discarded (for a log line; RFC 2865 3: no answer is sent).
    pub fn handle_datagram(&mut self, now: u64, kind: Kind, from: SocketAddr, data: &[u8]) -> Result<Response> {
        let r = self.match_response(now, kind, from, data);
        match &r {
            Ok(_) => self.stats.responses += 1,
            Err(_) => self.stats.discarded += 1,
        }
        r
    }

    fn match_response(&mut self, now: u64, kind: Kind, from: SocketAddr, data: &[u8]) -> Result<Response> {
        let pk = Packet::new_checked(data)?;
        let code = pk.code();
        let ok_code = match kind {
            Kind::Auth => matches!(code, Code::AccessAccept | Code::AccessReject | Code::AccessChallenge),
            Kind::Acct => code == Code::AccountingResponse,
        };
        if !ok_code {
            return Err(Error::Malformed("RADIUS code not a response of this kind"));
        }
        let side = match kind {
            Kind::Auth => &self.auth,
            Kind::Acct => &self.acct,
        };
        let i = self
            .pending
            .iter()
            .position(|p| p.kind == kind && p.id == pk.identifier() && side.servers[p.server].addr == from)
            .ok_or(Error::Malformed("RADIUS response answers no pending request (Identifier or source)"))?;
        let p = &self.pending[i];
        let secret = &side.servers[p.server].secret;
        let v = auth::verify_response(pk.as_bytes(), &p.authenticator, secret)?;
        if kind == Kind::Auth && self.cfg.require_message_authenticator && !v.message_authenticator {
            return Err(Error::Malformed("RADIUS response without Message-Authenticator (required: CVE-2024-3596)"));
        }
        if pk.count(attr::EAP_MESSAGE) > 0 && !v.message_authenticator {
            return Err(Error::Malformed("RADIUS EAP-Message without Message-Authenticator (RFC 3579 3.2)"));
        }
        let msk = if code == Code::AccessAccept {
            let recv = pk.find_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_RECV_KEY);
            let send = pk.find_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_SEND_KEY);
            match (recv, send) {
                (Some(r), Some(s)) => {
                    let mut k = auth::mppe_decrypt(r, &p.authenticator, secret)?;
                    k.extend_from_slice(&auth::mppe_decrypt(s, &p.authenticator, secret)?);
                    Some(k)
                }
                _ => None,
            }
        } else {
            None
        };
        let p = self.pending.remove(i);
        Ok(Response { tag: p.tag, code, packet: pk.as_bytes().to_vec(), server: from, rtt_ns: now.saturating_sub(p.first_at), msk })
    }

    fn move_server(&mut self, now: u64, kind: Kind, to: usize, rng: &mut dyn CryptoRngCore, events: &mut Vec<Event>) {
        let side = self.side(kind);
        let from = side.active;
        if from == to {
            return;
        }
        side.active = to;
        side.left_primary_at = if to == 0 { None } else { Some(now) };
        let (fa, ta, tls) = (side.servers[from].addr, side.servers[to].addr, side.servers[to].tls);
        events.push(Event::Failover { kind, from: fa, to: ta });
        self.stats.failovers += 1;
        // Every request of this kind goes to the new server, rebuilt for its secret.
        let idx: Vec<usize> = (0..self.pending.len()).filter(|&i| self.pending[i].kind == kind && self.pending[i].server != to).collect();
        for i in idx {
            let id = match self.free_id(kind) {
                Ok(id) => id,
                Err(_) => continue,
            };
            let secret = self.side(kind).servers[to].secret.clone();
            let p = &mut self.pending[i];
            let Ok((packet, a)) = p.req.build(id, rng, &secret) else { continue };
            p.server = to;
            p.id = id;
            p.authenticator = a;
            p.packet = packet;
            p.retransmissions = 0;
            p.wait = self.cfg.first_wait_ns;
            p.next_at = now.saturating_add(p.wait);
            self.out.push_back(Transmit { kind, to: ta, data: p.packet.clone(), tls });
        }
    }

    /// The TLS connection of `kind` to `addr` closed, failed (refused, the server's
    /// certificate not valid, a framing error) or could not be made. Every request pending
    /// on it counts one move towards `max_failover` (given up past it); if `addr` is the
    /// active server and there is another, the client moves to it (the requests rebuilt
    /// and sent there), else the requests are sent again on the next connection to it
    /// (the runtime's, after its back-off). A UDP server's address does nothing.
    pub fn transport_down(&mut self, now: u64, kind: Kind, addr: SocketAddr, rng: &mut dyn CryptoRngCore) -> Vec<Event> {
        let mut events = Vec::new();
        let Some(down) = self.side(kind).servers.iter().position(|s| s.addr == addr && s.tls) else { return events };
        // An idle connection closed (the server's idle timeout): nothing lost, no move.
        if !self.pending.iter().any(|p| p.kind == kind && p.server == down) {
            return events;
        }
        let max_failover = self.cfg.max_failover;
        let mut i = 0;
        while i < self.pending.len() {
            let p = &mut self.pending[i];
            if p.kind == kind && p.server == down {
                p.failovers += 1;
                if p.failovers >= max_failover {
                    let p = self.pending.remove(i);
                    self.stats.gave_up += 1;
                    events.push(Event::GaveUp { kind, tag: p.tag });
                    continue;
                }
            }
            i += 1;
        }
        let n = self.side(kind).servers.len();
        if self.side(kind).active == down && n > 1 {
            self.move_server(now, kind, (down + 1) % n, rng, &mut events);
            return events;
        }
        // Sent again, as they were, on the next connection to the server.
        for p in self.pending.iter_mut().filter(|p| p.kind == kind && p.server == down) {
            p.retransmissions = 0;
            p.wait = self.cfg.first_wait_ns;
            p.next_at = now.saturating_add(p.wait);
            self.out.push_back(Transmit { kind, to: addr, data: p.packet.clone(), tls: true });
        }
        events
    }

    /// Retransmissions, moves to the next server, give-ups, the return to the primary.
    pub fn handle_timeout(&mut self, now: u64, rng: &mut dyn CryptoRngCore) -> Vec<Event> {
        let mut events = Vec::new();
        for kind in [Kind::Auth, Kind::Acct] {
            let s = self.side(kind);
            if let Some(at) = s.left_primary_at {
                if self.cfg.retry_primary_ns > 0 && now >= at.saturating_add(self.cfg.retry_primary_ns) {
                    self.move_server(now, kind, 0, rng, &mut events);
                }
            }
        }
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].next_at > now {
                i += 1;
                continue;
            }
            let kind = self.pending[i].kind;
            if self.pending[i].retransmissions >= self.cfg.num_failover {
                self.pending[i].failovers += 1;
                if self.pending[i].failovers >= self.cfg.max_failover {
                    let p = self.pending.remove(i);
                    self.stats.gave_up += 1;
                    events.push(Event::GaveUp { kind, tag: p.tag });
                    continue;
                }
                let n = self.side(kind).servers.len();
                let next = (self.pending[i].server + 1) % n;
                if next == self.side(kind).active && next != self.pending[i].server {
                    // Another request already moved the client: follow it.
                } else if next != self.pending[i].server {
                    self.move_server(now, kind, next, rng, &mut events);
                    i += 1;
                    continue;
                }
                // One server only (or following a move): start over on it.
                let secret = self.side(kind).servers[next].secret.clone();
                let (to, tls) = (self.side(kind).servers[next].addr, self.side(kind).servers[next].tls);
                let id = match self.free_id(kind) {
                    Ok(id) => id,
                    Err(_) => {
                        i += 1;
                        continue;
                    }
                };
                let p = &mut self.pending[i];
                if let Ok((packet, a)) = p.req.build(id, rng, &secret) {
                    p.server = next;
                    p.id = id;
                    p.authenticator = a;
                    p.packet = packet;
                }
                p.retransmissions = 0;
                p.wait = self.cfg.first_wait_ns;
                p.next_at = now.saturating_add(p.wait);
                // Over TLS the connection is reliable: nothing again on it (RFC 6613 2.6.2).
                if !tls {
                    self.out.push_back(Transmit { kind, to, data: p.packet.clone(), tls });
                }
                i += 1;
                continue;
            }
            let (to, tls) = {
                let p = &self.pending[i];
                let s = match kind {
                    Kind::Auth => &self.auth.servers[p.server],
                    Kind::Acct => &self.acct.servers[p.server],
                };
                (s.addr, s.tls)
            };
            let max_wait = self.cfg.max_wait_ns;
            let p = &mut self.pending[i];
            p.retransmissions += 1;
            p.wait = p.wait.saturating_mul(2).min(max_wait);
            p.next_at = now.saturating_add(p.wait);
            // Over TLS the timer only counts towards failover (RFC 6613 2.6.2).
            if !tls {
                self.out.push_back(Transmit { kind, to, data: p.packet.clone(), tls });
                self.stats.retransmissions += 1;
            }
            i += 1;
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radius::packet::Builder;

    fn server(port: u16, secret: &[u8]) -> Server {
        Server::udp(SocketAddr::from(([127, 0, 0, 1], port)), secret)
    }

    fn cfg() -> ClientConfig {
        ClientConfig {
            auth_servers: vec![server(1812, b"one"), server(1912, b"two")],
            acct_servers: vec![server(1813, b"one")],
            first_wait_ns: 1_000_000,
            max_wait_ns: 8_000_000,
            num_failover: 2,
            max_failover: 3,
            ..Default::default()
        }
    }

    fn access(user: &[u8]) -> Request {
        let mut r = Request::new(Code::AccessRequest);
        r.push(attr::USER_NAME, user);
        r.push_split(attr::EAP_MESSAGE, &[2, 0, 0, 5, 1]);
        r
    }

    /// A server's answer to `req`, signed with `secret`, with or without Message-Authenticator.
    fn answer(req: &[u8], code: Code, secret: &[u8], ma: bool, msk: Option<&[u8; 64]>) -> Vec<u8> {
        let rq = Packet::new_checked(req).unwrap();
        let ra = rq.authenticator();
        let mut b = Builder::new(code, rq.identifier(), [0; 16]);
        if ma {
            b.add_message_authenticator().unwrap();
        }
        if let Some(k) = msk {
            b.add_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_RECV_KEY, &auth::mppe_encrypt(&k[..32], [1, 2], &ra, secret).unwrap())
                .unwrap();
            b.add_vendor(attr::VENDOR_MICROSOFT, attr::MS_MPPE_SEND_KEY, &auth::mppe_encrypt(&k[32..], [3, 4], &ra, secret).unwrap())
                .unwrap();
        }
        let mut p = b.finish();
        auth::sign_response(&mut p, &ra, secret).unwrap();
        p
    }

    #[test]
    fn accept_with_msk() {
        let mut rng = crate::rng::seeded(1);
        let mut c = Client::new(cfg()).unwrap();
        c.send(0, Kind::Auth, 42, access(b"alice"), &mut rng).unwrap();
        let t = c.poll_transmit().unwrap();
        assert_eq!(t.to, cfg().auth_servers[0].addr);
        let msk = [0x5au8; 64];
        let resp = answer(&t.data, Code::AccessAccept, b"one", true, Some(&msk));
        let r = c.handle_datagram(1500, Kind::Auth, t.to, &resp).unwrap();
        assert_eq!((r.tag, r.code, r.rtt_ns), (42, Code::AccessAccept, 1500));
        assert_eq!(&r.msk.unwrap()[..], &msk[..]);
        assert_eq!(c.pending(), 0);
        // The same answer again answers nothing.
        assert!(c.handle_datagram(1600, Kind::Auth, t.to, &resp).is_err());
        assert_eq!(c.stats().discarded, 1);
    }

    #[test]
    fn discards_what_it_must() {
        let mut rng = crate::rng::seeded(2);
        let mut c = Client::new(cfg()).unwrap();
        c.send(0, Kind::Auth, 1, access(b"bob"), &mut rng).unwrap();
        let t = c.poll_transmit().unwrap();
        assert!(auth::verify_request(&t.data, b"one").unwrap().message_authenticator);
        // No Message-Authenticator: refused (BlastRADIUS).
        let e = c.handle_datagram(1, Kind::Auth, t.to, &answer(&t.data, Code::AccessAccept, b"one", false, None)).unwrap_err();
        assert!(e.to_string().contains("Message-Authenticator"), "{e}");
        // Signed with another secret.
        let e = c.handle_datagram(1, Kind::Auth, t.to, &answer(&t.data, Code::AccessAccept, b"ONE", true, None)).unwrap_err();
        assert!(e.to_string().contains("Response Authenticator"), "{e}");
        // From another address.
        let good = answer(&t.data, Code::AccessReject, b"one", true, None);
        assert!(c.handle_datagram(1, Kind::Auth, SocketAddr::from(([127, 0, 0, 2], 1812)), &good).is_err());
        // An accounting code on the authentication socket.
        assert!(c.handle_datagram(1, Kind::Acct, t.to, &good).is_err());
        // Truncated and garbage.
        assert!(c.handle_datagram(1, Kind::Auth, t.to, &good[..19]).is_err());
        assert!(c.handle_datagram(1, Kind::Auth, t.to, &[0xff; 64]).is_err());
        assert_eq!(c.pending(), 1, "nothing answered the request");
        assert_eq!(c.handle_datagram(2, Kind::Auth, t.to, &good).unwrap().code, Code::AccessReject);
        assert_eq!(c.stats().discarded, 6);
    }

    #[test]
    fn retransmits_then_fails_over_then_gives_up() {
        let mut rng = crate::rng::seeded(3);
        let mut c = Client::new(cfg()).unwrap();
        c.send(0, Kind::Auth, 7, access(b"carol"), &mut rng).unwrap();
        let first = c.poll_transmit().unwrap();
        assert_eq!(c.poll_timeout(), Some(1_000_000));
        // Retransmissions are the same packet, after 1 s and then 2 s.
        assert!(c.handle_timeout(999_999, &mut rng).is_empty());
        assert!(c.poll_transmit().is_none());
        c.handle_timeout(1_000_000, &mut rng);
        assert_eq!(c.poll_transmit().unwrap().data, first.data);
        assert_eq!(c.poll_timeout(), Some(3_000_000));
        c.handle_timeout(3_000_000, &mut rng);
        assert_eq!(c.poll_transmit().unwrap().data, first.data);
        // After num_failover = 2 retransmissions: the second server, the request rebuilt.
        let ev = c.handle_timeout(7_000_000, &mut rng);
        assert_eq!(ev, vec![Event::Failover { kind: Kind::Auth, from: first.to, to: cfg().auth_servers[1].addr }]);
        let moved = c.poll_transmit().unwrap();
        assert_eq!(moved.to, cfg().auth_servers[1].addr);
        assert!(auth::verify_request(&moved.data, b"two").is_ok());
        assert!(auth::verify_request(&moved.data, b"one").is_err());
        assert_eq!(c.active_server(Kind::Auth), Some(moved.to));
        // The first server's late answer is discarded; the second's accepted.
        assert!(c.handle_datagram(7_000_001, Kind::Auth, first.to, &answer(&first.data, Code::AccessAccept, b"one", true, None)).is_err());
        let r =
            c.handle_datagram(7_500_000, Kind::Auth, moved.to, &answer(&moved.data, Code::AccessChallenge, b"two", true, None)).unwrap();
        assert_eq!((r.tag, r.code, r.rtt_ns), (7, Code::AccessChallenge, 7_500_000));

        // Nobody answers: moves between the servers, then gives up.
        c.send(10_000_000, Kind::Auth, 8, access(b"dave"), &mut rng).unwrap();
        let mut now;
        let mut events = Vec::new();
        for _ in 0..100 {
            while c.poll_transmit().is_some() {}
            match c.poll_timeout() {
                Some(t) => now = t,
                None => break,
            }
            events.extend(c.handle_timeout(now, &mut rng));
        }
        assert_eq!(events.last(), Some(&Event::GaveUp { kind: Kind::Auth, tag: 8 }));
        assert_eq!(events.iter().filter(|e| matches!(e, Event::Failover { .. })).count(), 2);
        assert_eq!(c.pending(), 0);
    }

    #[test]
    fn back_to_primary() {
        let mut rng = crate::rng::seeded(4);
        let mut cf = cfg();
        cf.retry_primary_ns = 30_000_000;
        let mut c = Client::new(cf).unwrap();
        c.send(0, Kind::Auth, 1, access(b"e"), &mut rng).unwrap();
        for t in [1_000_000, 3_000_000, 7_000_000] {
            c.handle_timeout(t, &mut rng);
        }
        assert_eq!(c.active_server(Kind::Auth), Some(cfg().auth_servers[1].addr));
        c.cancel(1);
        assert_eq!(c.poll_timeout(), Some(37_000_000));
        let ev = c.handle_timeout(37_000_000, &mut rng);
        assert!(matches!(ev[..], [Event::Failover { .. }]));
        assert_eq!(c.active_server(Kind::Auth), Some(cfg().auth_servers[0].addr));
        assert_eq!(c.poll_timeout(), None);
    }

    #[test]
    fn accounting_and_identifiers() {
        let mut rng = crate::rng::seeded(5);
        let mut c = Client::new(cfg()).unwrap();
        assert!(c.send(0, Kind::Acct, 1, access(b"x"), &mut rng).is_err(), "an Access-Request on the accounting side");
        let mut ids = std::collections::BTreeSet::new();
        for i in 0..20 {
            let mut r = Request::new(Code::AccountingRequest);
            r.push_u32(attr::ACCT_STATUS_TYPE, 1).push(attr::ACCT_SESSION_ID, format!("{i:016X}").as_bytes());
            c.send(0, Kind::Acct, i, r, &mut rng).unwrap();
            let t = c.poll_transmit().unwrap();
            assert!(auth::verify_request(&t.data, b"one").is_ok());
            ids.insert(t.data[1]);
            let a = answer(&t.data, Code::AccountingResponse, b"one", false, None);
            if i % 2 == 0 {
                assert_eq!(c.handle_datagram(1, Kind::Acct, t.to, &a).unwrap().tag, i);
            }
        }
        assert_eq!(ids.len(), 20, "identifiers unique while pending");
        assert_eq!(c.pending(), 10);
    }

    #[test]
    fn queue_is_bounded() {
        let mut rng = crate::rng::seeded(6);
        let mut cf = cfg();
        cf.max_pending = 3;
        let mut c = Client::new(cf).unwrap();
        for i in 0..5 {
            c.send(0, Kind::Auth, i, access(b"q"), &mut rng).unwrap();
        }
        assert_eq!(c.pending(), 3);
        assert!(Client::new(ClientConfig { max_pending: 0, ..cfg() }).is_err());
    }

    fn tls_cfg() -> ClientConfig {
        let tls = |port| Server::tls(SocketAddr::from(([127, 0, 0, 1], port)), b"radsec");
        ClientConfig { auth_servers: vec![tls(2083), tls(2183)], ..cfg() }
    }

    #[test]
    fn tls_no_retransmission_on_a_live_connection() {
        let mut rng = crate::rng::seeded(7);
        let mut c = Client::new(tls_cfg()).unwrap();
        c.send(0, Kind::Auth, 9, access(b"t"), &mut rng).unwrap();
        let t = c.poll_transmit().unwrap();
        assert!(t.tls && t.to.port() == 2083);
        assert!(auth::verify_request(&t.data, b"radsec").is_ok());
        // The timers run (1 ms, 2 ms) but nothing goes again on the connection.
        c.handle_timeout(1_000_000, &mut rng);
        c.handle_timeout(3_000_000, &mut rng);
        assert!(c.poll_transmit().is_none());
        assert_eq!(c.stats().retransmissions, 0);
        // Past num_failover timeouts: the next server, on a new connection.
        let ev = c.handle_timeout(7_000_000, &mut rng);
        assert!(matches!(ev[..], [Event::Failover { .. }]), "{ev:?}");
        let m = c.poll_transmit().unwrap();
        assert_eq!((m.tls, m.to.port()), (true, 2183));
    }

    #[test]
    fn tls_transport_down_fails_over_or_resends_then_gives_up() {
        let mut rng = crate::rng::seeded(8);
        let mut c = Client::new(tls_cfg()).unwrap();
        c.send(0, Kind::Auth, 1, access(b"u"), &mut rng).unwrap();
        let first = c.poll_transmit().unwrap();
        // A UDP address or a server that is not in the list: nothing.
        assert!(c.transport_down(1, Kind::Auth, SocketAddr::from(([127, 0, 0, 1], 1812)), &mut rng).is_empty());
        // The connection to the first drops: at once to the second, the request rebuilt.
        let ev = c.transport_down(10, Kind::Auth, first.to, &mut rng);
        assert_eq!(ev, vec![Event::Failover { kind: Kind::Auth, from: first.to, to: tls_cfg().auth_servers[1].addr }]);
        let moved = c.poll_transmit().unwrap();
        assert_eq!(moved.to.port(), 2183);
        assert_ne!(moved.data, first.data);
        // The second drops too: back to the first; the third drop is max_failover = 3.
        assert!(matches!(c.transport_down(20, Kind::Auth, moved.to, &mut rng)[..], [Event::Failover { .. }]));
        assert_eq!(c.poll_transmit().unwrap().to, first.to);
        assert_eq!(c.transport_down(30, Kind::Auth, first.to, &mut rng)[0], Event::GaveUp { kind: Kind::Auth, tag: 1 });
        assert_eq!(c.pending(), 0);

        // One server: the request goes again, as it was, on the next connection.
        let mut one = tls_cfg();
        one.auth_servers.truncate(1);
        let mut c = Client::new(one).unwrap();
        c.send(0, Kind::Auth, 2, access(b"v"), &mut rng).unwrap();
        let t = c.poll_transmit().unwrap();
        assert!(c.transport_down(5, Kind::Auth, t.to, &mut rng).is_empty());
        assert_eq!(c.poll_transmit().unwrap().data, t.data);
        assert_eq!(c.pending(), 1);
    }
}
