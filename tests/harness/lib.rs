//! Shared pieces of the native test harness.
