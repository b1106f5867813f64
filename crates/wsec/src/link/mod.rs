//! Security associations.
