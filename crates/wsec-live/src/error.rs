//! Errors of the live system: setting it up (configuration files, the medium, the TAP,
//! namespaces, the lab) and running it (I/O on the medium or the TAP). Protocol refusals
//! stay [`wsec::Error`]s, carried in [`Error::Core`].
use std::fmt;
use std::io;

/// Result of a live-system operation.
pub type Result<T> = core::result::Result<T, Error>;

#[derive(Debug)]
pub enum Error {
    /// An operating-system call on a named object failed (`what`: "medium air:127.0.0.1:7411",
    /// "TAP wsec0", "config ap.conf", ...).
    Io { what: String, source: io::Error },
    /// A configuration file was refused (`what` names the file).
    Config { what: String, source: crate::conf::ConfError },
    /// The protocol core refused to start (a key or setting it cannot use).
    Core { what: &'static str, source: wsec::Error },
    /// Setting up the lab or the host side failed (a command that exited non-zero, a node
    /// that did not come up in time).
    Setup(String),
}

impl Error {
    pub fn io(what: impl Into<String>, source: io::Error) -> Error {
        Error::Io { what: what.into(), source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::Config { what, source } => write!(f, "{what}: {source}"),
            Error::Core { what, source } => write!(f, "{what}: {source}"),
            Error::Setup(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Config { source, .. } => Some(source),
            Error::Core { source, .. } => Some(source),
            Error::Setup(_) => None,
        }
    }
}
