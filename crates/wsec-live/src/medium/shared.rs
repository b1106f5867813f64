//! One radio for several BSSs (hostapd's `bss=` sections): the medium is opened once and
//! each BSS's run loop gets a [`Port`] to it, one end of a `SOCK_SEQPACKET` socket pair
//! whose other end the [`Relay`] serves. Every frame the radio receives goes to every BSS
//! (each core keeps what is addressed to its BSSID or to all, as the BSSs of one card
//! share its receiver); every frame a BSS sends goes to the radio. A BSS whose socket is
//! full misses the frame, as a card's overrun would; those are counted.
use super::Medium;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// Frames moved per side and loop turn (the run loops' batch).
const BATCH: usize = 64;
/// Room in each direction of a port: a few hundred full-size frames.
const PORT_BUF: libc::c_int = 4 << 20;
/// The largest frame a port carries (radiotap + the largest MPDU + FCS, with room).
const MAX_FRAME: usize = 8192;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// A BSS's side of the shared radio.
pub struct Port {
    fd: OwnedFd,
    /// The radio's [`Medium::max_mpdu`].
    max_mpdu: usize,
}

/// The radio's side: the medium and the other end of each port.
pub struct Relay {
    medium: Box<dyn Medium>,
    ports: Vec<Option<OwnedFd>>,
    /// Frames a full port did not take, per port.
    pub overruns: Vec<u64>,
}

/// The medium split into `n` ports and the relay that serves them.
pub fn split(medium: Box<dyn Medium>, n: usize) -> io::Result<(Relay, Vec<Port>)> {
    let (mut ours, mut theirs) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let mut sv = [0 as libc::c_int; 2];
        // SAFETY: sv is a valid array of two ints for socketpair(2) to fill.
        cvt(unsafe {
            libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0, sv.as_mut_ptr())
        })?;
        // SAFETY: both descriptors are fresh and owned by nothing else.
        let (a, b) = unsafe { (OwnedFd::from_raw_fd(sv[0]), OwnedFd::from_raw_fd(sv[1])) };
        for fd in [&a, &b] {
            for opt in [libc::SO_SNDBUF, libc::SO_RCVBUF] {
                let p = &PORT_BUF as *const libc::c_int as *const libc::c_void;
                // SAFETY: an int option of the right length on our socket; failure keeps
                // the default size, which only means more overruns.
                unsafe { libc::setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, opt, p, std::mem::size_of::<libc::c_int>() as u32) };
            }
        }
        ours.push(Some(a));
        theirs.push(Port { fd: b, max_mpdu: medium.max_mpdu() });
    }
    Ok((Relay { medium, overruns: vec![0; n], ports: ours }, theirs))
}

/// send(2) of one datagram without blocking: Ok(false) if the socket is full.
fn put(fd: RawFd, data: &[u8]) -> io::Result<bool> {
    // SAFETY: data is a valid buffer of its length.
    let r = unsafe { libc::send(fd, data.as_ptr() as *const libc::c_void, data.len(), libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL) };
    if r >= 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock => Ok(false),
        _ => Err(e),
    }
}

/// recv(2) of one datagram without blocking: Ok(None) if none waits, Ok(Some(0)) when the
/// other end is closed.
fn take(fd: RawFd, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
    buf.resize(MAX_FRAME, 0);
    // SAFETY: buf is a valid, writable buffer of its length.
    let r = unsafe { libc::recv(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len(), libc::MSG_DONTWAIT) };
    if r >= 0 {
        buf.truncate(r as usize);
        return Ok(Some(r as usize));
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock => Ok(None),
        _ => Err(e),
    }
}

impl Medium for Port {
    fn max_mpdu(&self) -> usize {
        self.max_mpdu
    }

    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        // A full relay loses the frame as a busy radio would; the cores retransmit what
        // matters.
        put(self.fd.as_raw_fd(), mpdu).map(drop)
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        match take(self.fd.as_raw_fd(), buf)? {
            Some(0) => Err(io::Error::new(io::ErrorKind::BrokenPipe, "the radio's relay stopped")),
            Some(_) => Ok(true),
            None => Ok(false),
        }
    }

    fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl Relay {
    /// Serves the ports until every one of them is closed (each BSS has left, its last
    /// frames sent); returns the medium's own report.
    pub fn run(mut self) -> io::Result<String> {
        let mut buf = Vec::with_capacity(MAX_FRAME);
        let mut last_tick = Instant::now();
        while self.ports.iter().any(Option::is_some) {
            let mut fds = vec![libc::pollfd { fd: self.medium.fd(), events: libc::POLLIN, revents: 0 }];
            fds.extend(self.ports.iter().map(|p| libc::pollfd {
                fd: p.as_ref().map_or(-1, |p| p.as_raw_fd()),
                events: libc::POLLIN,
                revents: 0,
            }));
            let timeout = if self.medium.prepare_wait()? { 0 } else { 500 };
            // SAFETY: fds is a valid array of pollfd of its length (negative fds ignored).
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
            for _ in 0..BATCH {
                if !self.medium.recv(&mut buf)? {
                    break;
                }
                for (i, p) in self.ports.iter().enumerate() {
                    if let Some(p) = p {
                        if !put(p.as_raw_fd(), &buf).unwrap_or(false) {
                            self.overruns[i] += 1;
                        }
                    }
                }
            }
            for p in self.ports.iter_mut() {
                for _ in 0..BATCH {
                    let Some(fd) = p.as_ref().map(|p| p.as_raw_fd()) else { break };
                    match take(fd, &mut buf) {
                        Ok(Some(0)) | Err(_) => *p = None,
                        Ok(Some(_)) => self.medium.send(&buf)?,
                        Ok(None) => break,
                    }
                }
            }
            self.medium.flush()?;
            if last_tick.elapsed() > Duration::from_secs(1) {
                last_tick = Instant::now();
                self.medium.tick()?;
            }
        }
        Ok(self.medium.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A medium that records what it is given and hands out a queue of frames.
    struct Fake {
        fd: OwnedFd,
        sent: Arc<Mutex<Vec<Vec<u8>>>>,
        inbox: Vec<Vec<u8>>,
    }

    impl Medium for Fake {
        fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
            self.sent.lock().unwrap().push(mpdu.to_vec());
            Ok(())
        }
        fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
            match self.inbox.pop() {
                Some(f) => {
                    *buf = f;
                    Ok(true)
                }
                None => Ok(false),
            }
        }
        fn fd(&self) -> RawFd {
            self.fd.as_raw_fd()
        }
    }

    fn wait_recv(p: &mut Port) -> Vec<u8> {
        let mut b = Vec::new();
        for _ in 0..500 {
            if p.recv(&mut b).unwrap() {
                return b;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("no frame reached the port");
    }

    #[test]
    fn every_port_hears_the_radio_and_reaches_it() {
        // An eventfd that is always readable stands in for the radio's descriptor.
        // SAFETY: eventfd(2) returns a fresh descriptor we own.
        let efd = unsafe { OwnedFd::from_raw_fd(libc::eventfd(1, libc::EFD_CLOEXEC)) };
        let sent = Arc::new(Mutex::new(Vec::new()));
        let fake = Fake { fd: efd, sent: sent.clone(), inbox: vec![b"beacon of a peer".to_vec()] };
        let (relay, mut ports) = split(Box::new(fake), 3).unwrap();
        // The BSSs on a thread of their own; the relay (whose medium need not be Send) here.
        let bsses = std::thread::spawn(move || {
            for p in ports.iter_mut() {
                assert_eq!(wait_recv(p), b"beacon of a peer");
            }
            ports[1].send(b"from the second BSS").unwrap();
            ports[2].send(b"from the third BSS").unwrap();
            // The relay serves the last BSS after the others have left.
            let last = ports.remove(0);
            drop(ports);
            std::thread::sleep(Duration::from_millis(100));
            drop(last);
        });
        let t0 = Instant::now();
        relay.run().unwrap();
        assert!(t0.elapsed() >= Duration::from_millis(100), "the relay stopped while a BSS was still on the radio");
        bsses.join().unwrap();
        let mut got = sent.lock().unwrap().clone();
        got.sort();
        assert_eq!(got, vec![b"from the second BSS".to_vec(), b"from the third BSS".to_vec()]);
    }
}
