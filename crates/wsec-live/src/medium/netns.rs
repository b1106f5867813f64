//! Network namespaces (`ip netns` names under /var/run/netns): a node's TAP device is
//! created inside one while its medium socket stays where it was opened, and tests and
//! `wsec demo` run traffic inside them from a thread.
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// Moves the calling thread into the named network namespace (setns(2), CLONE_NEWNET).
/// Sockets opened before keep their namespace.
pub fn enter(name: &str) -> io::Result<()> {
    let f = File::open(format!("/var/run/netns/{name}")).map_err(|e| io::Error::new(e.kind(), format!("network namespace {name}: {e}")))?;
    // SAFETY: setns with a valid namespace fd.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Runs `f` on a new thread inside the namespace `name` and returns its result.
pub fn run_in<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> io::Result<std::thread::JoinHandle<io::Result<T>>> {
    let name = name.to_string();
    Ok(std::thread::spawn(move || {
        enter(&name)?;
        Ok(f())
    }))
}

/// Whether the process runs as root (namespaces, TAP devices and packet sockets need it).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
