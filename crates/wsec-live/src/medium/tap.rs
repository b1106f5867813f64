//! A TAP device (Linux `/dev/net/tun`, IFF_TAP | IFF_NO_PI): the host side of a node.
//! The station's IP stack sends Ethernet frames into it; the core turns them into 802.11
//! data frames (LLC/SNAP) and back.
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use wsec::wire::mac::MacAddr;

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

pub struct Tap {
    file: File,
    name: String,
}

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

impl Tap {
    /// Creates (or attaches to) the TAP device `name`, non-blocking.
    pub fn create(name: &str) -> io::Result<Tap> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || CString::new(name).is_err() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad interface name {name:?}")));
        }
        let file = OpenOptions::new().read(true).write(true).custom_flags(libc::O_NONBLOCK).open("/dev/net/tun")?;
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads and writes an ifreq, which IfReq lays out.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tap { file, name: name.to_string() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets the MAC address and brings the device up (with iproute2's `ip`).
    pub fn configure(&self, mac: &MacAddr, mtu: u32) -> io::Result<()> {
        let m = mac.to_string();
        let st = std::process::Command::new("ip")
            .args(["link", "set", "dev", &self.name, "address", &m, "mtu", &mtu.to_string(), "up"])
            .status()?;
        if !st.success() {
            return Err(io::Error::other(format!("ip link set dev {} failed", self.name)));
        }
        Ok(())
    }

    /// One Ethernet frame, if one is waiting.
    pub fn recv(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        buf.resize(65_536, 0);
        match self.file.read(buf) {
            Ok(n) => {
                buf.truncate(n);
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub fn send(&mut self, eth: &[u8]) -> io::Result<()> {
        match self.file.write(eth) {
            Ok(_) => Ok(()),
            // The host is not reading fast enough: drop, as a NIC would.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}
