//! Shared pieces of the native test harness.
pub mod corpus;
pub mod e2e;
pub mod serve;
pub mod webdriver;
