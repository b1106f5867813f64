//! A raw packet socket (AF_PACKET, SOCK_RAW, all protocols) bound to a named interface:
//! what a monitor-mode Wi-Fi interface with injection is driven through (frames are
//! radiotap + 802.11 both ways). The tests use one end of a veth pair per node.
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub struct PacketSocket {
    fd: OwnedFd,
    channel: u8,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl PacketSocket {
    /// Opens the socket on `ifname` (which must exist and be up), non-blocking and
    /// promiscuous (a medium delivers every frame; the cores filter by address).
    pub fn open(ifname: &str, channel: u8) -> io::Result<PacketSocket> {
        let name = CString::new(ifname).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name"))?;
        // SAFETY: plain libc calls with valid arguments; the fd is owned right away.
        let fd = unsafe {
            let raw = cvt(libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                (libc::ETH_P_ALL as u16).to_be() as i32,
            ))?;
            OwnedFd::from_raw_fd(raw)
        };
        // SAFETY: name is a valid C string.
        let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("no interface {ifname}")));
        }
        // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { core::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex as i32;
        // SAFETY: pointer and length describe sll.
        cvt(unsafe {
            libc::bind(fd.as_raw_fd(), &sll as *const _ as *const libc::sockaddr, core::mem::size_of::<libc::sockaddr_ll>() as u32)
        })?;
        // SAFETY: packet_mreq is plain data.
        let mut mr: libc::packet_mreq = unsafe { core::mem::zeroed() };
        mr.mr_ifindex = ifindex as i32;
        mr.mr_type = libc::PACKET_MR_PROMISC as u16;
        // SAFETY: pointer and length describe mr.
        cvt(unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_ADD_MEMBERSHIP,
                &mr as *const _ as *const libc::c_void,
                core::mem::size_of::<libc::packet_mreq>() as u32,
            )
        })?;
        Ok(PacketSocket { fd, channel })
    }
}

impl PacketSocket {
    /// Sends one frame as it is (link-layer header included).
    pub fn send_raw(&mut self, f: &[u8]) -> io::Result<()> {
        // SAFETY: the buffer is valid for its length.
        let r = unsafe { libc::send(self.fd.as_raw_fd(), f.as_ptr() as *const libc::c_void, f.len(), 0) };
        if r < 0 {
            let e = io::Error::last_os_error();
            // A full queue loses the frame, as a busy radio would.
            if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::ENOBUFS)) {
                return Ok(());
            }
            return Err(e);
        }
        Ok(())
    }

    /// The next frame received on the interface (not the ones this host sent), if any.
    pub fn recv_raw(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        buf.resize(super::air::MAX_FRAME, 0);
        loop {
            // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
            let mut from: libc::sockaddr_ll = unsafe { core::mem::zeroed() };
            let mut flen = core::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            // SAFETY: the buffer and the address are valid for their lengths.
            let r = unsafe {
                libc::recvfrom(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    0,
                    &mut from as *mut _ as *mut libc::sockaddr,
                    &mut flen,
                )
            };
            if r >= 0 {
                // An AF_PACKET socket also sees what this host sends on the interface;
                // a radio does not hear its own transmissions.
                if from.sll_pkttype == libc::PACKET_OUTGOING {
                    continue;
                }
                buf.truncate(r as usize);
                return Ok(true);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => return Ok(false),
                io::ErrorKind::Interrupted => continue,
                _ => return Err(e),
            }
        }
    }
}

impl super::Medium for PacketSocket {
    fn send(&mut self, mpdu: &[u8]) -> io::Result<()> {
        let f = super::encap(mpdu, self.channel);
        self.send_raw(&f)
    }

    fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        self.recv_raw(buf)
    }

    fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
