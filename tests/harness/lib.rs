//! Shared pieces of the native test harness.
pub mod corpus;
