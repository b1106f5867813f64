//! RADIUS over TLS (RadSec, RFC 6614; RFC 7360 for the DTLS sibling), the client side,
//! sans-IO: the TLS session ([`Conn`], on rustls) and the stream framer ([`Framer`]) that
//! cuts RADIUS packets out of the byte stream by their Length field.
//!
//! What RFC 6614 asks of a client and what this does:
//! - TCP port 2083 ([`PORT`]); TLS 1.2 or 1.3 (RFC 6614 2.3 names TLS 1.1 as the floor;
//!   rustls has nothing older than 1.2);
//! - mutual authentication with certificates (2.3 item 1: "peers MUST mutually
//!   authenticate"): a [`RadsecTls`] without a client certificate is refused, and the
//!   server's certificate must chain to the configured CAs and carry the configured name
//!   (a dNSName, or the server's address as an iPAddress subjectAltName; 2.3 item 2);
//! - the RADIUS shared secret is "radsec" ([`DEFAULT_SECRET`], 2.3 item 4) unless
//!   configured otherwise;
//! - packets are delimited by the RADIUS Length field (RFC 6613 2.6.1); a Length below 20
//!   or above the limit is a framing error after which the stream cannot be resynchronised:
//!   the connection must be closed (RFC 6613 2.6.4, "the connection MUST be closed").
//!
//! Retransmission and failover over this transport are the client's ([`super::client`]):
//! no RADIUS-level retransmission on a live connection (RFC 6613 2.6.2, RFC 5080 2.2.1), a
//! request re-sent only on a new connection.
use super::packet::{HEADER_LEN, MAX_LEN};
use crate::error::{Error, Result};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use std::io::{Read, Write};
use std::sync::Arc;

/// The TLS library, for the runtime's types ([`rustls::ClientConfig`], [`ServerName`]).
pub use rustls;

/// The RadSec port (RFC 6614 2.1).
pub const PORT: u16 = 2083;
/// The shared secret of RadSec (RFC 6614 2.3 item 4).
pub const DEFAULT_SECRET: &[u8] = b"radsec";

/// Cuts RADIUS packets out of a byte stream by their Length field, bounded by `max` octets
/// per packet (RFC 2865's 4096 by default; RFC 7930 allows up to 65535 on TCP).
#[derive(Debug, Clone)]
pub struct Framer {
    buf: Vec<u8>,
    max: usize,
    broken: bool,
}

impl Default for Framer {
    fn default() -> Framer {
        Framer::new(MAX_LEN)
    }
}

impl Framer {
    pub fn new(max: usize) -> Framer {
        Framer { buf: Vec::new(), max: max.clamp(HEADER_LEN, 65535), broken: false }
    }

    /// Octets received and not yet a whole packet.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Appends stream data.
    pub fn push(&mut self, data: &[u8]) {
        if !self.broken {
            self.buf.extend_from_slice(data);
        }
    }

    /// The next whole packet, `None` while more octets are needed, `Err` if the Length
    /// field is out of bounds (the stream cannot be resynchronised: close it; every later
    /// call returns the error again).
    pub fn next_packet(&mut self) -> Result<Option<Vec<u8>>> {
        if self.broken {
            return Err(Error::Malformed("RadSec stream: a RADIUS Length out of bounds earlier"));
        }
        if self.buf.len() < 4 {
            return Ok(None);
        }
        let len = u16::from_be_bytes([self.buf[2], self.buf[3]]) as usize;
        if len < HEADER_LEN || len > self.max {
            self.broken = true;
            self.buf.clear();
            return Err(Error::Malformed("RadSec stream: RADIUS Length below 20 or above the limit"));
        }
        if self.buf.len() < len {
            return Ok(None);
        }
        let rest = self.buf.split_off(len);
        Ok(Some(std::mem::replace(&mut self.buf, rest)))
    }
}

/// Who the client is and whom it trusts (hostapd's `auth_server_ca_cert`,
/// `auth_server_client_cert`, `auth_server_private_key`; the name wsec's
/// `auth_server_domain_match`, else the server's address).
#[derive(Clone)]
pub struct RadsecTls {
    pub ca_certs: Vec<CertificateDer<'static>>,
    pub client_chain: Vec<CertificateDer<'static>>,
    pub client_key: Arc<PrivateKeyDer<'static>>,
}

impl core::fmt::Debug for RadsecTls {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "RadsecTls {{ ca_certs: {}, client_chain: {}, client_key: <key> }}", self.ca_certs.len(), self.client_chain.len())
    }
}

impl RadsecTls {
    /// The rustls configuration: TLS 1.3 and 1.2, the server validated by webpki against
    /// `ca_certs` (chain, validity, serverAuth, the name given to [`Conn::new`]), the
    /// client certificate presented.
    pub fn client_config(&self) -> Result<Arc<rustls::ClientConfig>> {
        if self.ca_certs.is_empty() {
            return Err(Error::Unsupported("RadSec without a CA certificate: the server would not be validated"));
        }
        if self.client_chain.is_empty() {
            return Err(Error::Unsupported("RadSec without a client certificate (RFC 6614 2.3: mutual authentication)"));
        }
        let mut roots = rustls::RootCertStore::empty();
        for c in &self.ca_certs {
            roots.add(c.clone()).map_err(|_| Error::Malformed("RadSec CA certificate unusable"))?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let c = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|_| Error::Unsupported("TLS versions"))?
            .with_root_certificates(roots)
            .with_client_auth_cert(self.client_chain.clone(), self.client_key.clone_key())
            .map_err(|_| Error::Malformed("RadSec client certificate and private key do not match or are unusable"))?;
        Ok(Arc::new(c))
    }
}

/// The name the server's certificate must carry: `name` as a DNS name or an IP address,
/// else the address connected to.
pub fn server_name(name: Option<&str>, addr: std::net::IpAddr) -> Result<ServerName<'static>> {
    match name {
        Some(n) => ServerName::try_from(n.to_string()).map_err(|_| Error::Malformed("RadSec server name")),
        None => Ok(ServerName::IpAddress(addr.into())),
    }
}

/// One RadSec connection's TLS session and framing, sans-IO: ciphertext from the socket
/// in ([`Conn::receive`]), RADIUS packets out; packets in ([`Conn::send`]), ciphertext to
/// the socket out ([`Conn::take_tls`]).
pub struct Conn {
    tls: rustls::ClientConnection,
    framer: Framer,
    closed: bool,
}

impl Conn {
    pub fn new(config: Arc<rustls::ClientConfig>, name: ServerName<'static>) -> Result<Conn> {
        let tls = rustls::ClientConnection::new(config, name).map_err(|_| Error::Malformed("RadSec TLS session"))?;
        Ok(Conn { tls, framer: Framer::default(), closed: false })
    }

    /// The handshake is done (packets can go).
    pub fn is_up(&self) -> bool {
        !self.tls.is_handshaking()
    }

    /// The server closed the TLS session (close_notify) or the stream ended.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The negotiated version, once up ("TLSv1.3").
    pub fn version(&self) -> Option<&'static str> {
        match self.tls.protocol_version()? {
            rustls::ProtocolVersion::TLSv1_2 => Some("TLSv1.2"),
            rustls::ProtocolVersion::TLSv1_3 => Some("TLSv1.3"),
            _ => None,
        }
    }

    /// Ciphertext from the socket; the RADIUS packets it completes. `Err`: a TLS failure
    /// (the server's certificate refused, a bad record) or a framing error, with the
    /// reason for the log; the connection must be closed.
    pub fn receive(&mut self, mut data: &[u8]) -> std::result::Result<Vec<Vec<u8>>, String> {
        let mut out = Vec::new();
        while !data.is_empty() {
            let n = self.tls.read_tls(&mut data).map_err(|e| format!("TLS read: {e}"))?;
            if n == 0 {
                break;
            }
            let st = self.tls.process_new_packets().map_err(|e| format!("TLS: {e}"))?;
            if st.peer_has_closed() {
                self.closed = true;
            }
            let mut plain = vec![0u8; st.plaintext_bytes_to_read()];
            if !plain.is_empty() {
                self.tls.reader().read_exact(&mut plain).map_err(|e| format!("TLS plaintext: {e}"))?;
                self.framer.push(&plain);
            }
            while let Some(p) = self.framer.next_packet().map_err(|e| e.to_string())? {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// The stream ended (a read of 0): the server went away.
    pub fn eof(&mut self) {
        self.closed = true;
    }

    /// A RADIUS packet to send (buffered in TLS until the handshake is done).
    pub fn send(&mut self, packet: &[u8]) -> Result<()> {
        self.tls.writer().write_all(packet).map_err(|_| Error::Malformed("RadSec TLS write"))
    }

    /// The ciphertext to write to the socket now (handshake or records).
    pub fn take_tls(&mut self) -> Vec<u8> {
        let mut v = Vec::new();
        while self.tls.wants_write() {
            if self.tls.write_tls(&mut v).is_err() {
                break;
            }
        }
        v
    }

    /// A close_notify to send before closing the socket.
    pub fn close(&mut self) -> Vec<u8> {
        self.tls.send_close_notify();
        self.take_tls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(code: u8, id: u8, len: usize) -> Vec<u8> {
        let mut p = vec![0u8; len];
        p[0] = code;
        p[1] = id;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        for (i, b) in p[4..].iter_mut().enumerate() {
            *b = i as u8;
        }
        p
    }

    #[test]
    fn split_and_coalesced_chunks() {
        let (a, b, c) = (pkt(2, 1, 20), pkt(11, 2, 300), pkt(5, 3, 4096));
        let stream: Vec<u8> = [a.clone(), b.clone(), c.clone()].concat();
        // Every split of the stream into two chunks, and one octet at a time.
        for cut in [0, 1, 3, 4, 19, 20, 21, 319, 320, 321, stream.len() - 1, stream.len()] {
            let mut f = Framer::default();
            let mut got = Vec::new();
            for chunk in [&stream[..cut], &stream[cut..]] {
                f.push(chunk);
                while let Some(p) = f.next_packet().unwrap() {
                    got.push(p);
                }
            }
            assert_eq!(got, vec![a.clone(), b.clone(), c.clone()], "cut at {cut}");
            assert_eq!(f.buffered(), 0);
        }
        let mut f = Framer::default();
        let mut got = Vec::new();
        for o in &stream {
            f.push(std::slice::from_ref(o));
            while let Some(p) = f.next_packet().unwrap() {
                got.push(p);
            }
        }
        assert_eq!(got.len(), 3);
        // A partial packet stays until the rest comes.
        let mut f = Framer::default();
        f.push(&b[..100]);
        assert_eq!(f.next_packet().unwrap(), None);
        assert_eq!(f.buffered(), 100);
    }

    #[test]
    fn bogus_length_breaks_the_stream() {
        for len in [0u16, 1, 19, 4097, 65535] {
            let mut f = Framer::default();
            f.push(&pkt(2, 1, 20));
            f.push(&[2, 2]);
            f.push(&len.to_be_bytes());
            f.push(&[0; 64]);
            assert!(f.next_packet().unwrap().is_some(), "the good packet before it");
            assert!(f.next_packet().is_err(), "Length {len}");
            // Broken for good: more data does not resynchronise.
            f.push(&pkt(2, 3, 20));
            assert!(f.next_packet().is_err());
            assert_eq!(f.buffered(), 0);
        }
        // A larger limit (RFC 7930) takes what the default refuses.
        let mut f = Framer::new(65535);
        f.push(&pkt(2, 1, 5000));
        assert_eq!(f.next_packet().unwrap().map(|p| p.len()), Some(5000));
    }

    #[test]
    fn refuses_without_ca_or_client_certificate() {
        let t = RadsecTls { ca_certs: vec![], client_chain: vec![], client_key: Arc::new(PrivateKeyDer::Pkcs8(vec![0u8; 8].into())) };
        assert!(t.client_config().is_err());
        assert!(matches!(server_name(None, [127, 0, 0, 1].into()).unwrap(), ServerName::IpAddress(_)));
        assert!(server_name(Some("radius.wsec.test"), [127, 0, 0, 1].into()).is_ok());
    }
}
