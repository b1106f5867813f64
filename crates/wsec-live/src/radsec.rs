//! The RadSec connections of `wsec ap` (RFC 6614): one TCP+TLS connection per RadSec server
//! and kind (authentication, accounting: as hostapd keeps `auth_tls_conn` and
//! `acct_tls_conn`), nonblocking, polled with the run loop's other descriptors. The TLS and
//! the framing are [`wsec::radius::tls::Conn`]'s; this does the socket I/O, the connect
//! and handshake deadline, and the reconnection back-off.
//!
//! A connection is made when there is a packet for it; packets wait (at most
//! [`QUEUE_MAX`]) until the handshake is done. When it fails or closes (refused, the
//! server's certificate not valid, a bogus Length on the stream, the server gone), the
//! queue is dropped and [`Happening::Down`] says why: the RADIUS client then moves to the
//! next server or sends again ([`wsec::radius::Client::transport_down`]), and a new
//! connection to this server waits 1 s, then 2, 4 ... up to [`BACKOFF_MAX_NS`] after
//! each failure in a row.
use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::Arc;
use wsec::radius::tls::{rustls, Conn, RadsecTls};
use wsec::radius::Kind;

/// Packets waiting for a connection at most (the oldest dropped beyond).
pub const QUEUE_MAX: usize = 64;
/// The connect and the TLS handshake together within this long.
pub const HANDSHAKE_NS: u64 = 5_000_000_000;
pub const BACKOFF_MIN_NS: u64 = 1_000_000_000;
pub const BACKOFF_MAX_NS: u64 = 60_000_000_000;

/// How to reach one RadSec server.
#[derive(Clone)]
pub struct Target {
    pub config: Arc<rustls::ClientConfig>,
    pub name: rustls::pki_types::ServerName<'static>,
}

impl Target {
    /// From the certificates and the name (the server's address if none).
    pub fn new(tls: &RadsecTls, name: Option<&str>, addr: SocketAddr) -> wsec::Result<Target> {
        Ok(Target { config: tls.client_config()?, name: wsec::radius::tls::server_name(name, addr.ip())? })
    }
}

/// What [`Radsec::poll`] found.
#[derive(Debug)]
pub enum Happening {
    /// A RADIUS packet from the server of this kind.
    Packet { kind: Kind, from: SocketAddr, data: Vec<u8> },
    /// The handshake is done.
    Up { kind: Kind, addr: SocketAddr, version: &'static str },
    /// The connection failed or closed; why, for the log.
    Down { kind: Kind, addr: SocketAddr, why: String },
}

enum State {
    Idle,
    Connecting { sock: TcpStream, since: u64 },
    Open { sock: TcpStream, conn: Box<Conn>, since: u64 },
}

struct Link {
    target: Target,
    state: State,
    queue: VecDeque<Vec<u8>>,
    /// Ciphertext not yet written.
    wbuf: Vec<u8>,
    backoff: u64,
    retry_at: u64,
}

/// The connections, by kind and server address.
#[derive(Default)]
pub struct Radsec {
    links: HashMap<(Kind, SocketAddr), Link>,
    /// The network namespace the AP started in (its sockets are made there, as the UDP
    /// RADIUS socket is, when the run loop has moved into the TAP's).
    home: Option<std::fs::File>,
}

/// A socket made in the namespace `home` (this thread goes there and back).
fn socket_in(home: Option<&std::fs::File>, family: libc::c_int) -> std::io::Result<RawFd> {
    let mk = || {
        // SAFETY: plain socket(2).
        let fd = unsafe { libc::socket(family, libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(fd)
        }
    };
    let Some(home) = home else { return mk() };
    let here = std::fs::File::open("/proc/thread-self/ns/net")?;
    // SAFETY: setns(2) on namespace descriptors we hold; this thread only.
    if unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let r = mk();
    // SAFETY: as above, back to where the thread was.
    if unsafe { libc::setns(here.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    r
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Auth => "authentication",
        Kind::Acct => "accounting",
    }
}

/// A nonblocking TCP connect (its outcome is seen when the socket becomes writable).
fn connect_nonblocking(home: Option<&std::fs::File>, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let (family, sa, len) = match addr {
        SocketAddr::V4(a) => {
            // SAFETY: sockaddr_in is plain data; zero is a valid value.
            let mut s: libc::sockaddr_in = unsafe { core::mem::zeroed() };
            s.sin_family = libc::AF_INET as libc::sa_family_t;
            s.sin_port = a.port().to_be();
            s.sin_addr = libc::in_addr { s_addr: u32::from_ne_bytes(a.ip().octets()) };
            // SAFETY: sockaddr_storage is plain data; zero is a valid value.
            let mut st: libc::sockaddr_storage = unsafe { core::mem::zeroed() };
            // SAFETY: sockaddr_storage is larger than sockaddr_in.
            unsafe { core::ptr::write(&mut st as *mut _ as *mut libc::sockaddr_in, s) };
            (libc::AF_INET, st, core::mem::size_of::<libc::sockaddr_in>())
        }
        SocketAddr::V6(a) => {
            // SAFETY: as above, for sockaddr_in6.
            let mut s: libc::sockaddr_in6 = unsafe { core::mem::zeroed() };
            s.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            s.sin6_port = a.port().to_be();
            s.sin6_addr = libc::in6_addr { s6_addr: a.ip().octets() };
            s.sin6_scope_id = a.scope_id();
            // SAFETY: sockaddr_storage is plain data; zero is a valid value.
            let mut st: libc::sockaddr_storage = unsafe { core::mem::zeroed() };
            // SAFETY: sockaddr_storage is larger than sockaddr_in6.
            unsafe { core::ptr::write(&mut st as *mut _ as *mut libc::sockaddr_in6, s) };
            (libc::AF_INET6, st, core::mem::size_of::<libc::sockaddr_in6>())
        }
    };
    let fd = socket_in(home, family)?;
    // SAFETY: fd is a fresh socket we own.
    let sock = unsafe { TcpStream::from_raw_fd(fd) };
    // SAFETY: sa holds a valid address of `len` octets.
    let r = unsafe { libc::connect(fd, &sa as *const _ as *const libc::sockaddr, len as libc::socklen_t) };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(e);
        }
    }
    Ok(sock)
}

impl Radsec {
    pub fn new() -> Radsec {
        Radsec::default()
    }

    /// Makes the sockets in the namespace of `ns` (`/proc/self/ns/net` opened before the
    /// run loop entered another).
    pub fn set_home_netns(&mut self, ns: std::fs::File) {
        self.home = Some(ns);
    }

    /// A server of `kind` at `addr` reached over TLS.
    pub fn add(&mut self, kind: Kind, addr: SocketAddr, target: Target) {
        self.links
            .insert((kind, addr), Link { target, state: State::Idle, queue: VecDeque::new(), wbuf: Vec::new(), backoff: 0, retry_at: 0 });
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Whether the connection of `kind` to `addr` is up.
    pub fn is_up(&self, kind: Kind, addr: SocketAddr) -> bool {
        self.links.get(&(kind, addr)).is_some_and(|l| matches!(&l.state, State::Open { conn, .. } if conn.is_up()))
    }

    /// A RADIUS packet for the server: on its connection, made now if there is none (and
    /// the back-off allows). `Err`: no such RadSec server.
    pub fn send(&mut self, kind: Kind, to: SocketAddr, data: Vec<u8>) -> Result<(), String> {
        let l = self.links.get_mut(&(kind, to)).ok_or_else(|| format!("no RadSec settings for {} server {to}", kind_name(kind)))?;
        if l.queue.len() >= QUEUE_MAX {
            l.queue.pop_front();
        }
        l.queue.push_back(data);
        Ok(())
    }

    /// The descriptors to poll and their events.
    pub fn pollfds(&self) -> Vec<libc::pollfd> {
        let mut v = Vec::new();
        for l in self.links.values() {
            match &l.state {
                State::Idle => {}
                State::Connecting { sock, .. } => v.push(libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLOUT, revents: 0 }),
                State::Open { sock, .. } => {
                    let out = if l.wbuf.is_empty() { 0 } else { libc::POLLOUT };
                    v.push(libc::pollfd { fd: sock.as_raw_fd() as RawFd, events: libc::POLLIN | out, revents: 0 })
                }
            }
        }
        v
    }

    /// The next time [`Radsec::poll`] has something to do without I/O (a handshake
    /// deadline, a reconnection after the back-off).
    pub fn next_timeout(&self) -> Option<u64> {
        self.links
            .values()
            .filter_map(|l| match &l.state {
                State::Idle if !l.queue.is_empty() => Some(l.retry_at),
                State::Connecting { since, .. } => Some(since + HANDSHAKE_NS),
                State::Open { conn, since, .. } if !conn.is_up() => Some(since + HANDSHAKE_NS),
                _ => None,
            })
            .min()
    }

    /// Everything that can move without blocking: connects, handshakes, reads, writes,
    /// deadlines, reconnections.
    pub fn poll(&mut self, now: u64) -> Vec<Happening> {
        let mut out = Vec::new();
        for (&(kind, addr), l) in self.links.iter_mut() {
            if let Err(why) = l.step(now, kind, addr, self.home.as_ref(), &mut out) {
                l.state = State::Idle;
                l.queue.clear();
                l.wbuf.clear();
                l.backoff = (l.backoff * 2).clamp(BACKOFF_MIN_NS, BACKOFF_MAX_NS);
                l.retry_at = now.saturating_add(l.backoff);
                out.push(Happening::Down { kind, addr, why });
            }
        }
        out
    }
}

impl Link {
    fn step(
        &mut self,
        now: u64,
        kind: Kind,
        addr: SocketAddr,
        home: Option<&std::fs::File>,
        out: &mut Vec<Happening>,
    ) -> Result<(), String> {
        let k = kind_name(kind);
        if matches!(self.state, State::Idle) {
            if self.queue.is_empty() || now < self.retry_at {
                return Ok(());
            }
            let sock = connect_nonblocking(home, addr).map_err(|e| format!("RadSec {k} server {addr}: connect: {e}"))?;
            self.state = State::Connecting { sock, since: now };
        }
        if let State::Connecting { sock, since } = &self.state {
            let mut p = libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLOUT, revents: 0 };
            // SAFETY: one valid pollfd, no wait.
            unsafe { libc::poll(&mut p, 1, 0) };
            if p.revents == 0 {
                if now >= since + HANDSHAKE_NS {
                    return Err(format!("RadSec {k} server {addr}: connect timed out"));
                }
                return Ok(());
            }
            if let Some(e) = sock.take_error().map_err(|e| format!("RadSec {k} server {addr}: {e}"))? {
                return Err(format!("RadSec {k} server {addr}: connect: {e}"));
            }
            let since = *since;
            let conn =
                Conn::new(self.target.config.clone(), self.target.name.clone()).map_err(|e| format!("RadSec {k} server {addr}: {e}"))?;
            let State::Connecting { sock, .. } = std::mem::replace(&mut self.state, State::Idle) else { unreachable!() };
            let _ = sock.set_nodelay(true);
            self.state = State::Open { sock, conn: Box::new(conn), since };
        }
        let State::Open { sock, conn, since } = &mut self.state else { return Ok(()) };
        // Read what there is.
        let mut buf = [0u8; 16 * 1024];
        for _ in 0..64 {
            match sock.read(&mut buf) {
                Ok(0) => {
                    conn.eof();
                    break;
                }
                Ok(n) => {
                    let was_up = conn.is_up();
                    let packets = conn.receive(&buf[..n]).map_err(|e| format!("RadSec {k} server {addr}: {e}"))?;
                    if !was_up && conn.is_up() {
                        self.backoff = 0;
                        out.push(Happening::Up { kind, addr, version: conn.version().unwrap_or("TLS") });
                    }
                    for data in packets {
                        out.push(Happening::Packet { kind, from: addr, data });
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("RadSec {k} server {addr}: read: {e}")),
            }
        }
        if conn.is_closed() {
            return Err(format!(
                "RadSec {k} server {addr}: connection closed by the server{}",
                if conn.is_up() { "" } else { " during the handshake" }
            ));
        }
        if !conn.is_up() && now >= *since + HANDSHAKE_NS {
            return Err(format!("RadSec {k} server {addr}: TLS handshake timed out"));
        }
        if conn.is_up() {
            while let Some(p) = self.queue.pop_front() {
                conn.send(&p).map_err(|e| format!("RadSec {k} server {addr}: {e}"))?;
            }
        }
        self.wbuf.extend_from_slice(&conn.take_tls());
        while !self.wbuf.is_empty() {
            match sock.write(&self.wbuf) {
                Ok(0) => return Err(format!("RadSec {k} server {addr}: write: connection closed")),
                Ok(n) => {
                    self.wbuf.drain(..n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("RadSec {k} server {addr}: write: {e}")),
            }
        }
        Ok(())
    }
}
