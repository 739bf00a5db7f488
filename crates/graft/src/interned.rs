//! Reading back the `&'static str` fields of the view-models (a diagnostic's code, an
//! attribute's source) when they cross a message boundary as JSON: the app's engine
//! runs in a Web Worker and sends them to the page. These strings come from a small
//! fixed set (the checker's codes, a few labels), so each distinct one is kept once
//! for the life of the program and every later read of it shares that copy.

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde::{Deserialize, Deserializer};

/// A `&'static str` field read back with [`deserialize`]. Spelled through this alias
/// because serde's derive borrows a field written `&str` from the input, which a
/// `'static` one cannot be.
pub type Static = &'static str;

/// Every string interned so far.
static INTERNED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());

/// The one `'static` copy of `text`.
pub fn intern(text: &str) -> &'static str {
    let mut set = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&kept) = set.get(text) {
        return kept;
    }
    let kept: &'static str = Box::leak(text.to_owned().into_boxed_str());
    set.insert(kept);
    kept
}

/// `#[serde(deserialize_with)]` for a `&'static str` field.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let text = String::deserialize(d)?;
    Ok(intern(&text))
}

/// `#[serde(deserialize_with)]` for a list of (name, value, static label) rows.
pub fn triples<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<(String, String, &'static str)>, D::Error> {
    let rows = Vec::<(String, String, String)>::deserialize(d)?;
    Ok(rows
        .into_iter()
        .map(|(a, b, c)| (a, b, intern(&c)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_kept_once() {
        let a = intern("check.some-code");
        let b = intern(&String::from("check.some-code"));
        assert_eq!(a, "check.some-code");
        assert!(std::ptr::eq(a, b));
    }
}
