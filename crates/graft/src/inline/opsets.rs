//! Opset imports of the result: one entry per domain, `ai.onnx` written `""`, the
//! guest's domains added, conflicts resolved or reported.

use super::InlineError;
use crate::ir::{OpsetId, normalize_domain};

/// Opset imports with `ai.onnx` written `""` and one entry per domain (the first).
pub(super) fn normalized(list: &[OpsetId]) -> Vec<OpsetId> {
    let mut out: Vec<OpsetId> = Vec::with_capacity(list.len());
    for o in list {
        let domain = o.normalized_domain();
        if out.iter().any(|e| e.normalized_domain() == domain) {
            continue;
        }
        out.push(OpsetId {
            domain: Some(domain.to_string()),
            version: o.version,
        });
    }
    out
}

/// The opset imports of the result: the host's, normalized, plus the guest's domains
/// it lacks; conflicting versions are resolved by the user's pick or are an error.
pub(super) fn merge_opsets(
    host: &[OpsetId],
    guest: &[OpsetId],
    extra: &[OpsetId],
    picks: &[(String, i64)],
) -> Result<Vec<OpsetId>, InlineError> {
    let mut out = normalized(host);
    for g in guest {
        let domain = g.normalized_domain();
        match out.iter_mut().find(|e| e.normalized_domain() == domain) {
            None => out.push(g.clone()),
            Some(h) if domain.is_empty() => reconcile_default_opset(h.version, g.version)?,
            Some(h) => {
                if let (Some(hv), Some(gv)) = (h.version, g.version)
                    && hv != gv
                {
                    match picks.iter().find(|(d, _)| normalize_domain(d) == domain) {
                        Some((_, v)) => h.version = Some(*v),
                        None => {
                            return Err(InlineError::DomainConflict {
                                domain: domain.to_string(),
                                host: hv,
                                guest: gv,
                            });
                        }
                    }
                }
            }
        }
    }
    for e in extra {
        if !out
            .iter()
            .any(|o| o.normalized_domain() == e.normalized_domain())
        {
            out.push(e.clone());
        }
    }
    Ok(out)
}

/// The default domain's version: `inline_model` converts the older side first, so
/// here host and guest agree; a difference is reported, never merged silently.
fn reconcile_default_opset(host: Option<i64>, guest: Option<i64>) -> Result<(), InlineError> {
    match (host, guest) {
        (Some(host), Some(guest)) if host != guest => {
            Err(InlineError::OpsetMismatch { guest, host })
        }
        _ => Ok(()),
    }
}
