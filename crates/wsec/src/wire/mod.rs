//! Frame formats.
