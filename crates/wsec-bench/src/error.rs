//! Why a benchmark did not run or stopped: its setup (options, what the machine offers,
//! files), the check that every implementation agrees before anything is timed, or a tool
//! it drives. Protocol refusals stay [`wsec::Error`]s, the model's [`wsec_model::Error`]s.
use std::fmt;
use std::path::PathBuf;

/// Result of a benchmark.
pub type Result<T> = core::result::Result<T, Error>;

#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    Io { path: PathBuf, source: std::io::Error },
    /// An option out of range, or something the machine lacks (a constant-rate TSC, a
    /// RAPL package zone, a TrueType font, valgrind, the ipsec-mb manager).
    Setup(String),
    /// Implementations disagree (or one fails) on the check made before timing; the
    /// benchmark refuses to time code that is not correct.
    Verify(String),
    /// A measurement gave no usable result (e.g. no total in callgrind's output).
    Measure(String),
    /// A chart could not be drawn or written to `path`.
    Plot { path: PathBuf, what: String },
    /// wsec's protocol core refused (a key, a frame).
    Core(wsec::Error),
    /// The model's cost file or hardware report.
    Model(wsec_model::Error),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Setup(s) | Error::Verify(s) | Error::Measure(s) => f.write_str(s),
            Error::Plot { path, what } => write!(f, "{}: {what}", path.display()),
            Error::Core(e) => write!(f, "{e}"),
            Error::Model(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Core(e) => Some(e),
            Error::Model(e) => Some(e),
            Error::Setup(_) | Error::Verify(_) | Error::Measure(_) | Error::Plot { .. } => None,
        }
    }
}

impl From<wsec::Error> for Error {
    fn from(e: wsec::Error) -> Error {
        Error::Core(e)
    }
}

impl From<wsec_model::Error> for Error {
    fn from(e: wsec_model::Error) -> Error {
        Error::Model(e)
    }
}
