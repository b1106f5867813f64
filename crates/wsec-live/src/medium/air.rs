//! `wsec air`: the embedded wireless medium, a hub on loopback UDP.
//!
//! Each node sends every frame (radiotap + MPDU + FCS) as one datagram to the hub; the
//! hub repeats it to every other node it has heard from in the last [`CLIENT_TIMEOUT`]
//! (a node registers by sending anything, and keeps itself registered with an empty
//! datagram each second). Each copy is lost with probability `loss` (the hub is where
//! loss is emulated: netem is not available everywhere). Every frame sent on the air is
//! recorded once in the pcap (link type 127, radiotap), before loss, by a writer thread
//! with buffered writes (the hub never waits for the disk per frame; the file is readable
//! up to the last [`super::shm::PCAP_FLUSH`] if the hub is killed).
//!
//! Datagrams are lost only where the sockets' queues overflow: the hub's receive queue and
//! each node's are sized for TAP-offload bursts (a 64 KiB TCP segment is some 43 frames
//! from each sender at once), beyond `rmem_max` when run as root.
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A node not heard from for this long is forgotten.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest datagram the hub carries (radiotap + the largest MPDU + FCS fits).
pub const MAX_FRAME: usize = 16 * 1024;
/// The hub's socket queues: every node's bursts land in one receive queue.
const HUB_BUF: i32 = 32 << 20;
/// A node's socket queues.
const NODE_BUF: i32 = 8 << 20;
/// Frames handed to the capture writer at once (or sooner, when the air goes quiet).
const PCAP_BATCH: usize = 128;

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
    pcap: Option<std::fs::File>,
    pub stats: HubStats,
}

impl AirHub {
    /// Binds the hub (`127.0.0.1:0` picks a free port; see [`AirHub::local_addr`]).
    pub fn bind(addr: &str, loss: f64, seed: u64, pcap: Option<&std::path::Path>) -> io::Result<AirHub> {
        if !(0.0..1.0).contains(&loss) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "loss must be in [0, 1)"));
        }
        let sock = UdpSocket::bind(addr)?;
        sock.set_read_timeout(Some(Duration::from_millis(50)))?;
        set_bufs(&sock, HUB_BUF);
        let pcap = pcap.map(std::fs::File::create).transpose()?;
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

    /// Runs until `stop` is set; the capture is complete when this returns.
    pub fn run(&mut self, stop: &AtomicBool) -> io::Result<HubStats> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<super::shm::Batch>(64);
        let writer = self.pcap.take().map(|f| std::thread::spawn(move || super::shm::write_pcap(f, rx)));
        let mut queue = writer.is_some().then_some(tx);
        let mut batch: super::shm::Batch = Vec::new();
        let r = self.relay(stop, &mut queue, &mut batch);
        if let Some(q) = queue.take() {
            if !batch.is_empty() {
                let _ = q.send(std::mem::take(&mut batch));
            }
        }
        if let Some(w) = writer {
            w.join().map_err(|_| io::Error::other("capture writer panicked"))??;
        }
        r?;
        self.stats.clients = self.clients.len();
        Ok(self.stats)
    }

    fn relay(
        &mut self,
        stop: &AtomicBool,
        queue: &mut Option<std::sync::mpsc::SyncSender<super::shm::Batch>>,
        batch: &mut super::shm::Batch,
    ) -> io::Result<()> {
        let mut buf = vec![0u8; MAX_FRAME];
        let mut last_flush = Instant::now();
        // A failed writer ends the recording (its error comes at the join).
        let hand_over = |queue: &mut Option<std::sync::mpsc::SyncSender<super::shm::Batch>>, batch: &mut super::shm::Batch| {
            if !batch.is_empty() && queue.as_ref().is_some_and(|q| q.send(std::mem::take(batch)).is_err()) {
                *queue = None;
            }
        };
        while !stop.load(Ordering::Relaxed) {
            let (n, from) = match self.sock.recv_from(&mut buf) {
                Ok(x) => x,
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted) => {
                    hand_over(queue, batch);
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
            if queue.is_some() {
                let ts_ns = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
                batch.push((ts_ns, buf[..n].to_vec()));
                if batch.len() >= PCAP_BATCH {
                    hand_over(queue, batch);
                }
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
            if now.duration_since(last_flush) > Duration::from_millis(100) {
                hand_over(queue, batch);
                self.housekeeping(&mut last_flush)?;
            }
        }
        Ok(())
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
        set_bufs(&sock, NODE_BUF);
        sock.send(&[])?;
        Ok(AirClient { sock, channel })
    }
}

/// Both queues of `sock` at `bytes`: FORCE as root (beyond `rmem_max`/`wmem_max`), the
/// plain option (capped there) otherwise.
fn set_bufs(sock: &UdpSocket, bytes: i32) {
    for (opt, force) in [(libc::SO_RCVBUF, libc::SO_RCVBUFFORCE), (libc::SO_SNDBUF, libc::SO_SNDBUFFORCE)] {
        let p = &bytes as *const i32 as *const libc::c_void;
        let l = core::mem::size_of::<i32>() as libc::socklen_t;
        // SAFETY: setsockopt with a valid fd and a pointer to an i32 of the given size.
        if unsafe { libc::setsockopt(sock.as_raw_fd(), libc::SOL_SOCKET, force, p, l) } < 0 {
            // SAFETY: as above.
            unsafe { libc::setsockopt(sock.as_raw_fd(), libc::SOL_SOCKET, opt, p, l) };
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
