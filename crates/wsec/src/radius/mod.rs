//! RADIUS for an IEEE 802.1X authenticator: the packet format and attributes (RFC 2865,
//! 2866, 2869, 3579, 3580), the authenticators, Message-Authenticator, User-Password hiding
//! and the MS-MPPE key encryption that carries the MSK (RFC 2548), and a sans-IO client with
//! retransmission and failover.
//!
//! - [`packet`]: the zero-copy view, the attribute walk, the builder; attribute numbers.
//! - [`auth`]: the integrity and hiding functions keyed by the shared secret.
//! - [`client`]: the client an access point runs (hostapd's `radius_client.c` behaviour).
//! - [`tls`]: RADIUS over TLS (RadSec, RFC 6614): the TLS session and the stream framer.
pub mod auth;
pub mod client;
pub mod packet;
pub mod tls;

pub use client::{Client, ClientConfig, Kind, Request, Response, Server};
pub use packet::{attr, Code, Packet};
