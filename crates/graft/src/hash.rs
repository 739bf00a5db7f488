//! Hashing for the core's maps keyed by names and ids: rustc-hash's FxHash, small and
//! fast on short keys. Names come from the model, and a hash-flooding attack on one's
//! own model is not a threat here.

pub use rustc_hash::FxHasher;

pub type FxBuild = rustc_hash::FxBuildHasher;
pub type FxMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub type FxSet<T> = std::collections::HashSet<T, FxBuild>;
