//! `wsec air`: the embedded wireless medium, a hub on loopback UDP.
//!
//! Each node sends every frame (radiotap + MPDU + FCS) as one datagram to the hub; the
//! hub repeats it to every other node it has heard from in the last [`CLIENT_TIMEOUT`]
//! (a node registers by sending anything, and keeps itself registered with an empty
//! datagram each second). Each copy is lost with probability `loss` (the hub is where
//! loss is emulated: netem is not available everywhere). Every frame sent on the air is
//! recorded once in the pcap (link type 127, radiotap), before loss.
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wsec::capture::radio::LINKTYPE_RADIOTAP;
use wsec::capture::writer::CaptureWriter;
use wsec::capture::Packet;

/// A node not heard from for this long is forgotten.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest datagram the hub carries (radiotap + the largest MPDU + FCS fits).
pub const MAX_FRAME: usize = 16 * 1024;

/// What the hub counted.
#[derive(Debug, Default, Clone, Copy)]
pub struct HubStats {
    pub frames: u64,
    pub octets: u64,
    pub copies: u64,
    pub lost: u64,
    pub clients: usize,
}

pub struct AirHub {
    sock: UdpSocket,
    clients: HashMap<SocketAddr, Instant>,
    loss: f64,
    rng: u64,
    // Unbuffered: every record is in the file when written, so a killed hub leaves a
    // readable capture.
    pcap: Option<CaptureWriter<std::fs::File>>,
    pub stats: HubStats,
}

impl AirHub {
    /// Binds the hub (`127.0.0.1:0` picks a free port; see [`AirHub::local_addr`]).
    pub fn bind(addr: &str, loss: f64, seed: u64, pcap: Option<&std::path::Path>) -> io::Result<AirHub> {
        if !(0.0..1.0).contains(&loss) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "loss must be in [0, 1)"));
        }
        let sock = UdpSocket::bind(addr)?;
        sock.set_read_timeout(Some(Duration::from_millis(200)))?;
        let pcap = match pcap {
            Some(p) => Some(CaptureWriter::pcap(std::fs::File::create(p)?, LINKTYPE_RADIOTAP, true)?),
            None => None,
        };
        Ok(AirHub { sock, clients: HashMap::new(), loss, rng: seed | 1, pcap, stats: HubStats::default() })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    /// xorshift64*: a seeded, reproducible loss pattern.
    fn uniform(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Runs until `stop` is set; then flushes the capture.
    pub fn run(&mut self, stop: &AtomicBool) -> io::Result<HubStats> {
        let mut buf = vec![0u8; MAX_FRAME];
        let mut last_flush = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let (n, from) = match self.sock.recv_from(&mut buf) {
                Ok(x) => x,
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted) => {
                    self.housekeeping(&mut last_flush)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let now = Instant::now();
            self.clients.insert(from, now);
            if n == 0 {
                continue; // registration / keep-alive
            }
            self.stats.frames += 1;
            self.stats.octets += n as u64;
            if let Some(w) = &mut self.pcap {
                let ts_ns = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
                w.write(&Packet { linktype: LINKTYPE_RADIOTAP, ts_ns, data: buf[..n].to_vec() })?;
            }
            let targets: Vec<SocketAddr> = self.clients.keys().copied().filter(|a| *a != from).collect();
            for t in targets {
                if self.loss > 0.0 && self.uniform() < self.loss {
                    self.stats.lost += 1;
                    continue;
                }
                self.stats.copies += 1;
                // A full socket buffer at a receiver is a lost frame, as on the air.
                let _ = self.sock.send_to(&buf[..n], t);
            }
            if now.duration_since(last_flush) > Duration::from_secs(1) {
                self.housekeeping(&mut last_flush)?;
            }
        }
        if let Some(w) = self.pcap.take() {
            let mut b = w.finish()?;
            io::Write::flush(&mut b)?;
        }
        self.stats.clients = self.clients.len();
        Ok(self.stats)
    }

    fn housekeeping(&mut self, last_flush: &mut Instant) -> io::Result<()> {
        let now = Instant::now();
        self.clients.retain(|_, t| now.duration_since(*t) < CLIENT_TIMEOUT);
        *last_flush = now;
        Ok(())
    }
}

/// A node's connection to the hub.
pub struct AirClient {
    sock: UdpSocket,
    channel: u8,
}

impl AirClient {
    pub fn connect(hub: &str, channel: u8) -> io::Result<AirClient> {
        let sock = UdpSocket::bind("127.0.0.1:0")?;
        sock.connect(hub)?;
        sock.set_nonblocking(true)?;
        // Room for bursts: the hub does not wait for slow receivers.
        set_bufs(&sock, 4 << 20);
        sock.send(&[])?;
        Ok(AirClient { sock, channel })
    }
}

fn set_bufs(sock: &UdpSocket, bytes: i32) {
    for opt in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: setsockopt with a valid fd and a pointer to an i32 of the given size.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                &bytes as *const i32 as *const libc::c_void,
                core::mem::size_of::<i32>() as libc::socklen_t,
            );
        }
    }
}

impl super::Medium for AirClient {
    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        match self.sock.send(&super::encap(mpdu, self.channel)) {
            Ok(_) => Ok(()),
            // A full socket buffer or a hub that is (re)starting: the frame is lost.
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::ConnectionRefused) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        buf.resize(MAX_FRAME, 0);
        loop {
            match self.sock.recv(buf) {
                Ok(n) => {
                    buf.truncate(n);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn fd(&self) -> std::os::fd::RawFd {
        self.sock.as_raw_fd()
    }

    fn tick(&mut self) -> io::Result<()> {
        match self.sock.send(&[]) {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::ConnectionRefused) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Starts a hub on a thread (tests and `wsec demo`); returns its address and a handle
/// that stops it.
pub fn spawn(loss: f64, seed: u64, pcap: Option<std::path::PathBuf>) -> io::Result<(SocketAddr, HubHandle)> {
    let mut hub = AirHub::bind("127.0.0.1:0", loss, seed, pcap.as_deref())?;
    let addr = hub.local_addr()?;
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let join = std::thread::spawn(move || hub.run(&s2));
    Ok((addr, HubHandle { stop, join: Some(join) }))
}

pub struct HubHandle {
    stop: std::sync::Arc<AtomicBool>,
    join: Option<std::thread::JoinHandle<io::Result<HubStats>>>,
}

impl HubHandle {
    pub fn stop(mut self) -> io::Result<HubStats> {
        self.stop.store(true, Ordering::Relaxed);
        match self.join.take().map(|j| j.join()) {
            Some(Ok(r)) => r,
            _ => Err(io::Error::other("air hub thread panicked")),
        }
    }
}

impl Drop for HubHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}
