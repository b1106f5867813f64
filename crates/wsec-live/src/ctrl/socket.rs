//! The control socket itself, as hostapd's and wpa_supplicant's UNIX control interface
//! (`hostapd/ctrl_iface.c`, `wpa_supplicant/ctrl_iface_unix.c`, the client side
//! `src/common/wpa_ctrl.c`), written from their documented behaviour:
//!
//! - a UNIX *datagram* socket bound to `DIR/IFNAME`; `DIR` is created with mode 0770 and,
//!   with `ctrl_interface_group` (or wpa_supplicant's `DIR=... GROUP=...`), given to that
//!   group; the socket file gets mode 0770 and the same group: the file permissions are
//!   the access rule (a client must be able to write to the socket);
//! - one request per datagram (at most [`REQUEST_MAX`] octets), one reply per request, sent
//!   to the address the client bound (`/tmp/wpa_ctrl_PID-N` for `wpa_ctrl_open`);
//! - `ATTACH` makes the sender a monitor: every event is sent to it as `<LEVEL>TEXT`
//!   (`<3>` is MSG_INFO) until `DETACH`, or until sends to it keep failing (a client that
//!   went away: hostapd drops a monitor after repeated errors);
//! - a socket file left by a process that died is replaced; one a live process answers on
//!   is an error ("ctrl_iface exists and seems to be in use").
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};

/// The largest request read (hostapd and wpa_supplicant read into a 4096-octet buffer; a
/// longer datagram is truncated there, refused here).
pub const REQUEST_MAX: usize = 4096;
/// The largest reply sent (hostapd's reply buffer; `wpa_ctrl_request` callers use 4096 or
/// less, so longer replies would be cut at the client).
pub const REPLY_MAX: usize = 4096;
/// Monitors kept at most (each `ATTACH` from a new address adds one).
pub const MONITORS_MAX: usize = 64;
/// Consecutive failed sends after which a monitor is dropped (hostapd: 10 errors).
const MONITOR_ERRORS_MAX: u32 = 10;
/// MSG_INFO, the level of every event sent here (`wpa_debug.h`: MSG_INFO = 3).
pub const MSG_INFO: u8 = 3;

/// Where the socket goes and who may use it: `ctrl_interface` and `ctrl_interface_group`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtrlSpec {
    pub dir: PathBuf,
    /// A group name or number; the directory and socket are given to it.
    pub group: Option<String>,
}

impl CtrlSpec {
    /// `ctrl_interface` as hostapd and wpa_supplicant read it: a directory, or
    /// wpa_supplicant's `DIR=/path GROUP=name` form (its GROUP wins over
    /// `ctrl_interface_group`).
    pub fn parse(ctrl_interface: &str, group: Option<&str>) -> Result<CtrlSpec, String> {
        let v = ctrl_interface.trim();
        let (dir, g) = if let Some(rest) = v.strip_prefix("DIR=") {
            match rest.split_once(" GROUP=") {
                Some((d, g)) => (d.trim(), Some(g.trim().to_string())),
                None => (rest.trim(), None),
            }
        } else {
            (v, None)
        };
        if dir.is_empty() || !dir.starts_with('/') {
            return Err("ctrl_interface must be an absolute directory (or DIR=/path GROUP=name)".into());
        }
        if dir.len() > 80 {
            return Err("ctrl_interface directory too long for a UNIX socket path".into());
        }
        let group = g.or(group.map(str::to_string)).filter(|g| !g.is_empty());
        Ok(CtrlSpec { dir: PathBuf::from(dir), group })
    }
}

struct Monitor {
    addr: PathBuf,
    level: u8,
    errors: u32,
}

/// One control socket and its attached monitors.
pub struct CtrlSocket {
    sock: UnixDatagram,
    path: PathBuf,
    monitors: Vec<Monitor>,
    buf: Vec<u8>,
}

/// The group id of a group name or number.
fn group_id(g: &str) -> io::Result<libc::gid_t> {
    if let Ok(n) = g.parse::<libc::gid_t>() {
        return Ok(n);
    }
    let name = std::ffi::CString::new(g).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "group name with a NUL"))?;
    let mut grp: libc::group = unsafe_zeroed_group();
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut res: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call: `name` a NUL-terminated string, `grp` a
    // group struct, `buf` a writable buffer of the length given, `res` an out pointer.
    let rc = unsafe { libc::getgrnam_r(name.as_ptr(), &mut grp, buf.as_mut_ptr(), buf.len(), &mut res) };
    if rc != 0 || res.is_null() {
        return Err(io::Error::new(io::ErrorKind::NotFound, format!("ctrl_interface_group {g}: no such group")));
    }
    Ok(grp.gr_gid)
}

fn unsafe_zeroed_group() -> libc::group {
    // SAFETY: `struct group` is plain data (pointers and an integer); all-zero is a valid
    // value that getgrnam_r overwrites.
    unsafe { std::mem::zeroed() }
}

fn chown_group(p: &Path, gid: libc::gid_t) -> io::Result<()> {
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a NUL-terminated path; uid -1 leaves the owner unchanged.
    if unsafe { libc::chown(c.as_ptr(), u32::MAX, gid) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl CtrlSocket {
    /// Creates `spec.dir` (0770, the group's) and binds `spec.dir/ifname` (0770).
    pub fn open(spec: &CtrlSpec, ifname: &str) -> io::Result<CtrlSocket> {
        if ifname.is_empty() || ifname.contains('/') {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "interface name not usable as a socket name"));
        }
        let gid = spec.group.as_deref().map(group_id).transpose()?;
        match std::fs::create_dir(&spec.dir) {
            Ok(()) => std::fs::set_permissions(&spec.dir, std::fs::Permissions::from_mode(0o770))?,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        if let Some(g) = gid {
            chown_group(&spec.dir, g)?;
        }
        let path = spec.dir.join(ifname);
        let sock = match UnixDatagram::bind(&path) {
            Ok(s) => s,
            Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                // A live server answers a connect; a stale file refuses it (hostapd's test).
                let probe = UnixDatagram::unbound()?;
                if probe.connect(&path).is_ok() {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        format!("{} exists and seems to be in use (another hostapd/wsec?)", path.display()),
                    ));
                }
                std::fs::remove_file(&path)?;
                UnixDatagram::bind(&path)?
            }
            Err(e) => return Err(e),
        };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o770))?;
        if let Some(g) = gid {
            chown_group(&path, g)?;
        }
        sock.set_nonblocking(true)?;
        Ok(CtrlSocket { sock, path, monitors: Vec::new(), buf: vec![0; REQUEST_MAX + 1] })
    }

    pub fn fd(&self) -> i32 {
        self.sock.as_raw_fd()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next request waiting, with the path of its sender; `Ok(None)` when none is.
    /// Requests from unbound senders (no address to answer) and over-long ones are
    /// dropped; a request that is not UTF-8 is passed on lossily (it matches no command).
    pub fn recv(&mut self) -> io::Result<Option<(String, PathBuf)>> {
        loop {
            let (n, from) = match self.sock.recv_from(&mut self.buf) {
                Ok(x) => x,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let Some(p) = from.as_pathname() else { continue };
            if n > REQUEST_MAX {
                let _ = self.sock.send_to(b"FAIL\n", p);
                continue;
            }
            let text = String::from_utf8_lossy(&self.buf[..n]).trim_end_matches(['\n', '\0']).to_string();
            return Ok(Some((text, p.to_path_buf())));
        }
    }

    /// Sends `reply` to `to` (cut at [`REPLY_MAX`]); a client that left is not an error.
    pub fn reply(&self, to: &Path, reply: &str) {
        let b = reply.as_bytes();
        let _ = self.sock.send_to(&b[..b.len().min(REPLY_MAX)], to);
    }

    /// `ATTACH`: `to` receives events from now on (hostapd: "OK"; again from the same
    /// address resets its level).
    pub fn attach(&mut self, to: &Path) -> bool {
        if let Some(m) = self.monitors.iter_mut().find(|m| m.addr == to) {
            m.level = MSG_INFO;
            m.errors = 0;
            return true;
        }
        if self.monitors.len() >= MONITORS_MAX {
            return false;
        }
        self.monitors.push(Monitor { addr: to.to_path_buf(), level: MSG_INFO, errors: 0 });
        true
    }

    /// `DETACH`: false if `to` was not attached (hostapd answers "FAIL").
    pub fn detach(&mut self, to: &Path) -> bool {
        let n = self.monitors.len();
        self.monitors.retain(|m| m.addr != to);
        self.monitors.len() != n
    }

    /// `LEVEL n`: the lowest level `to` is sent (events here are all MSG_INFO).
    pub fn set_level(&mut self, to: &Path, level: u8) -> bool {
        match self.monitors.iter_mut().find(|m| m.addr == to) {
            Some(m) => {
                m.level = level;
                true
            }
            None => false,
        }
    }

    pub fn monitors(&self) -> usize {
        self.monitors.len()
    }

    /// Sends `<3>text` to every monitor whose level admits MSG_INFO; a monitor that
    /// failed [`MONITOR_ERRORS_MAX`] times in a row, or whose socket is gone, is dropped.
    pub fn event(&mut self, text: &str) {
        let msg = format!("<{MSG_INFO}>{text}");
        let b = &msg.as_bytes()[..msg.len().min(REPLY_MAX)];
        let sock = &self.sock;
        self.monitors.retain_mut(|m| {
            if m.level > MSG_INFO {
                return true;
            }
            match sock.send_to(b, &m.addr) {
                Ok(_) => {
                    m.errors = 0;
                    true
                }
                Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused) => false,
                Err(_) => {
                    m.errors += 1;
                    m.errors < MONITOR_ERRORS_MAX
                }
            }
        });
    }
}

impl Drop for CtrlSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        // As hostapd at exit: the directory goes too when nothing else is in it.
        if let Some(d) = self.path.parent() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_forms() {
        let s = CtrlSpec::parse("/run/hostapd", Some("netdev")).unwrap();
        assert_eq!(s, CtrlSpec { dir: "/run/hostapd".into(), group: Some("netdev".into()) });
        let s = CtrlSpec::parse("DIR=/run/wpa_supplicant GROUP=adm", Some("netdev")).unwrap();
        assert_eq!(s, CtrlSpec { dir: "/run/wpa_supplicant".into(), group: Some("adm".into()) });
        let s = CtrlSpec::parse("DIR=/run/w", None).unwrap();
        assert_eq!(s, CtrlSpec { dir: "/run/w".into(), group: None });
        assert!(CtrlSpec::parse("relative", None).is_err());
        assert!(CtrlSpec::parse("", None).is_err());
    }

    #[test]
    fn request_reply_attach_event_and_permissions() {
        let dir = std::env::temp_dir().join(format!("wsec-ctrl-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = CtrlSpec::parse(dir.to_str().unwrap(), Some("0")).unwrap();
        let mut s = CtrlSocket::open(&spec, "wtest0").unwrap();
        use std::os::unix::fs::MetadataExt;
        let md = std::fs::metadata(&dir).unwrap();
        assert_eq!(md.mode() & 0o777, 0o770);
        let md = std::fs::metadata(s.path()).unwrap();
        assert_eq!(md.mode() & 0o777, 0o770);
        assert_eq!(md.gid(), 0);
        // A second server on the same path is refused while the first lives.
        assert!(CtrlSocket::open(&spec, "wtest0").is_err());
        let cpath = dir.join("client");
        let c = UnixDatagram::bind(&cpath).unwrap();
        c.set_read_timeout(Some(std::time::Duration::from_secs(2))).unwrap();
        c.send_to(b"PING", s.path()).unwrap();
        let (req, from) = s.recv().unwrap().expect("request");
        assert_eq!((req.as_str(), from.as_path()), ("PING", cpath.as_path()));
        s.reply(&from, "PONG\n");
        let mut b = [0u8; 64];
        let n = c.recv(&mut b).unwrap();
        assert_eq!(&b[..n], b"PONG\n");
        assert!(s.attach(&from));
        s.event("AP-STA-CONNECTED 02:00:00:00:00:11");
        let n = c.recv(&mut b).unwrap();
        assert_eq!(&b[..n], b"<3>AP-STA-CONNECTED 02:00:00:00:00:11");
        assert!(s.detach(&from));
        assert!(!s.detach(&from));
        // An over-long request gets FAIL and is not passed on.
        c.send_to(&vec![b'A'; REQUEST_MAX + 1], s.path()).unwrap();
        assert!(s.recv().unwrap().is_none());
        let n = c.recv(&mut b).unwrap();
        assert_eq!(&b[..n], b"FAIL\n");
        // A monitor whose socket is gone is dropped at the next event.
        assert!(s.attach(&from));
        drop(c);
        std::fs::remove_file(&cpath).unwrap();
        s.event("X");
        assert_eq!(s.monitors(), 0);
        let p = s.path().to_path_buf();
        drop(s);
        assert!(!p.exists(), "the socket file is removed at exit");
        assert!(!dir.exists(), "and its directory, empty");
    }
}
