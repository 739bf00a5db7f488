//! Context-dependent function bodies of standard operators: what onnx builds per call
//! site (`OpSchema::get_context_dependent_function`) from the call's attributes, which
//! inputs it passes and their element types. Each builder writes the body as ONNX
//! function text, which [`crate::text::parse_function`] reads.

#![allow(dead_code)] // wired up by `standard.rs`

use crate::ir::Attribute;

/// What a builder may look at: the call, as the caller's scope sees it.
pub(crate) struct CallSite<'a> {
    /// The operator (default domain).
    pub op: &'a str,
    /// The version of the default domain the call's scope imports.
    pub opset: i64,
    /// The call's attributes (values; a reference to an enclosing function's attribute
    /// has been refused before a builder runs).
    pub attributes: &'a [Attribute],
    /// Per input position: `None` when the call omits it, else its element type
    /// (`TensorProto.DataType` number) when the model states it.
    pub inputs: Vec<Option<Option<i32>>>,
    /// Per output position: whether the call names it.
    pub outputs: Vec<bool>,
}

/// The body of `site.op` at this call site, as function text, when a builder knows the
/// operator; `Some(Err(reason))` when it does but cannot build for this call (e.g. an
/// input type it needs is not stated).
pub(crate) fn context_dependent_body(site: &CallSite<'_>) -> Option<Result<String, String>> {
    let _ = site;
    None
}
