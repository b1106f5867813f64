//! Errors of the model's configuration: scenario files, cost files, hardware reports and
//! the parameters of a run. The simulation itself does not fail once a run is set up.
use std::fmt;
use std::path::PathBuf;

/// Result of configuring the model.
pub type Result<T> = core::result::Result<T, Error>;

#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A scenario, cost or hardware report file could not be read.
    Read { path: PathBuf, source: std::io::Error },
    /// TOML that does not parse, or a model table with an unknown key or a value of the
    /// wrong type (the message names the key and, for a file, line and column).
    Toml(toml::de::Error),
    /// A cost file or hardware report that is not the JSON expected; `origin` names it.
    Json { origin: String, source: serde_json::Error },
    /// A scenario file's own structure (`[[case]]`, `paper`) is wrong.
    Scenario(String),
    /// A parameter of the model is unknown or out of range (PHY and rate, MAC, topology,
    /// security mode, a flow, the run, a `--set` path).
    Spec(String),
    /// The costs cannot serve the run: a cost file of another format, or a location, suite,
    /// application cipher or hardware record it does not have.
    Costs(String),
    /// An error in a named file (its path first in the message).
    InFile { path: PathBuf, source: Box<Error> },
    /// An error in one case of a scenario.
    InCase { case: String, source: Box<Error> },
}

impl Error {
    pub(crate) fn in_file(path: &std::path::Path) -> impl FnOnce(Error) -> Error + '_ {
        move |e| Error::InFile { path: path.to_path_buf(), source: Box::new(e) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Toml(e) => write!(f, "{e}"),
            Error::Json { origin, source } => write!(f, "{origin}: {source}"),
            Error::Scenario(s) | Error::Spec(s) | Error::Costs(s) => f.write_str(s),
            Error::InFile { path, source } => write!(f, "{}: {source}", path.display()),
            Error::InCase { case, source } => write!(f, "case '{case}': {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } => Some(source),
            Error::Toml(e) => Some(e),
            Error::Json { source, .. } => Some(source),
            Error::InFile { source, .. } | Error::InCase { source, .. } => Some(source.as_ref()),
            Error::Scenario(_) | Error::Spec(_) | Error::Costs(_) => None,
        }
    }
}

impl From<toml::de::Error> for Error {
    fn from(e: toml::de::Error) -> Error {
        Error::Toml(e)
    }
}
