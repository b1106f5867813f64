//! The wireless medium.
