//! Inlining an external model (the guest) into a model (the host), semantics.md §4.
//!
//! [`inline_model`] validates everything first and only then touches the host: on an
//! error the host is exactly as it was. It never clones the host: the guest's graphs,
//! nodes, values and functions are staged with the ids they will have at the end of
//! the host's arenas, then appended. Tensor payloads (`raw_data`) are `Bytes`
//! handles; external data is sliced out of the guest's attached file, never copied.
//!
//! Two modes:
//!
//! - [`Mode::Nodes`]: the guest's main graph is copied into the target graph (its
//!   nodes appended at the end of the target's node list, so every host value is
//!   defined before them). Every guest value of the main graph and its subgraphs, at
//!   any depth, is renamed `<prefix>/<name>` (then `_2`, `_3`... until free), checked
//!   against every value name of the target's whole scope tree (the outermost graph
//!   of the target and everything nested in it) and the names made so far, so guest
//!   shadowing (a subgraph input reusing an outer name) disappears. References are
//!   ids, so uses at any depth follow. Node names become `<prefix>/<name>`, unique
//!   among the host's node names; unnamed nodes stay unnamed.
//! - [`Mode::Function`]: the guest's main graph becomes one model-local function with a
//!   free id and the guest's own `opset_import`; its value names stay as they are (a
//!   body is its own scope). Guest initializers become renamed host initializers passed
//!   to extra trailing formal inputs (weights stay initializers, never Constants); one
//!   call node goes into the target. The host imports the function's domain (version
//!   1). A function output that is an input, or an output listed twice, goes through an
//!   `Identity` inside the body. From IR 10 the types the guest stated for its inputs
//!   and outputs stay in the function's `value_info`.
//!
//! Inputs: a bound guest input reads the host value at every use; the types are
//! checked first (element type, rank, fixed dims; unknown and symbolic parts are
//! compatible), and a value of an enclosing graph must be defined before the node that
//! holds the target. An unbound guest input becomes a new host graph input
//! `<prefix>/<name>`, with its same-named initializer as default (IR >= 4). In an IR
//! <= 3 guest an input with an initializer is a weight: a plain initializer. An unused
//! guest input left unbound still becomes a graph input (the guest's signature is kept
//! whole; bind it to drop it).
//!
//! Outputs: every guest output maps to a host value ([`InlineReport::outputs`]). An
//! exposed output becomes a host graph output, named `<prefix>/<name>` or as asked; a
//! pass-through (output that is an input), an initializer, an output listed twice, or
//! a value already exposed goes through an `Identity`.
//!
//! Targets: the main graph; a function body (initializers become `Constant` nodes,
//! unbound inputs without default are an error, exposing appends function outputs); a
//! subgraph of If/Loop/Scan (the op fixes its arity: unbound inputs without default and
//! exposing are errors; initializers are fine).
//!
//! Model-level merging:
//!
//! - Opsets: `ai.onnx` is written `""` and each domain has one entry; a domain the host
//!   lacks is added; a different version of a non-default domain is an error unless
//!   [`InlineOptions::domain_versions`] picks one. When the default-domain versions
//!   differ, the older side (guest or host, with every subgraph and function body) is
//!   converted to the newer version first by `crate::opset`, on a copy; an op without
//!   an adapter is [`InlineError::Convert`] naming it, and nothing changes. Inlining into
//!   a function body also extends that function's `opset_import`.
//! - IR version: the higher of the two, at least 10 when any function has an overload.
//! - Functions: a guest function whose printed text equals the host function with the
//!   same id (and whose guest callees are deduplicated too) is deduplicated; a
//!   different one gets a fresh name (`F_2`, valid at every IR version, unlike an
//!   overload), and every call to it in the guest (main graph, subgraphs, other
//!   functions) is rewritten.
//! - Symbolic dims of the guest become `<prefix>_<dim>` (made an identifier, fresh
//!   among the host's dims) so they never unify with the host's.
//! - Guest model metadata: keys the host lacks are added, a key with a different value
//!   is added as `<prefix>/<key>`, and the model doc string as `<prefix>/doc_string`
//!   (the main graph's metadata and doc string likewise go to the target graph). In
//!   function mode they become the function's doc string and metadata. Producer
//!   fields, training info and model device configurations of the guest are not
//!   brought along.
//!
//! Not done yet: tensor names inside node sharding specs are not renamed; in function
//! mode the guest main graph's quantization annotations are dropped (a function has no
//! place for them); a symbolic dim that appears only inside a TYPE_PROTO attribute
//! keeps its name; guest dims are never unified with the dims of bound host values.

mod candidates;
mod names;
mod opsets;
mod plan;
mod types;

pub use candidates::{Candidate, binding_candidates, guest_inputs, guest_outputs};

use crate::ir::{FunctionKey, GraphId, Model, NodeId};

/// How the guest lands in the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The guest's nodes are copied into the target graph.
    #[default]
    Nodes,
    /// The guest becomes a local function `domain.name` and one call node.
    Function { domain: String, name: String },
}

/// What to inline and how.
#[derive(Clone, Debug, Default)]
pub struct InlineOptions {
    /// Guest input name -> name of a host value visible in the target graph.
    pub bindings: Vec<(String, String)>,
    /// Guest outputs to make host graph outputs, each with an optional name.
    pub expose: Vec<(String, Option<String>)>,
    /// Make every guest output a host graph output (in order).
    pub expose_all: bool,
    /// Prefix of the new names; default: the guest graph's name, else `guest`.
    pub prefix: Option<String>,
    /// Graph to inline into; `None` is the main graph.
    pub target: Option<GraphId>,
    pub mode: Mode,
    /// The user's pick of version for a non-default domain both models import.
    pub domain_versions: Vec<(String, i64)>,
}

/// What inlining added, for highlighting and reporting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineReport {
    /// Nodes added to the target graph (not counting nodes inside their subgraphs).
    pub nodes: Vec<NodeId>,
    /// Each guest output (in order) with the name of the host value it became.
    pub outputs: Vec<(String, String)>,
    /// New graph inputs (or function inputs): the guest input, the new input's name.
    pub inputs_added: Vec<(String, String)>,
    /// New graph outputs (or function outputs), by name.
    pub outputs_added: Vec<String>,
    /// New initializers (dense and sparse), by name.
    pub initializers_added: Vec<String>,
    /// Guest functions added to the host, with their final ids.
    pub functions_added: Vec<FunctionKey>,
    /// Guest functions that clashed with a different host function: old id, new id.
    pub functions_renamed: Vec<(FunctionKey, FunctionKey)>,
    /// Guest functions identical to the host's and not added again.
    pub functions_deduplicated: Vec<FunctionKey>,
    /// Guest symbolic dims: old name, new name.
    pub dims_renamed: Vec<(String, String)>,
    /// In function mode, the function the guest became.
    pub function: Option<FunctionKey>,
    /// Opset conversions done first (default-domain versions differed), one line each.
    pub converted: Vec<String>,
}

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum InlineError {
    #[error("the {0} model has no main graph")]
    NoGraph(&'static str),
    #[error("the guest has no input {name:?} (its inputs: {known})")]
    UnknownGuestInput { name: String, known: String },
    #[error("the guest has no output {name:?} (its outputs: {known})")]
    UnknownGuestOutput { name: String, known: String },
    #[error("guest input {0:?} is bound twice")]
    DuplicateBinding(String),
    #[error(
        "no host value {name:?} is visible in the target graph (binding guest input {input:?})"
    )]
    HostValueNotFound { input: String, name: String },
    #[error(
        "host value {name:?} is defined after the node that holds the target graph (binding guest input {input:?})"
    )]
    DefinedLater { input: String, name: String },
    #[error("guest input {input:?} has type {guest} but host value {value:?} has type {host}")]
    TypeMismatch {
        input: String,
        value: String,
        guest: String,
        host: String,
    },
    #[error("the guest imports the default domain at version {guest} and the host at {host}")]
    OpsetMismatch { guest: i64, host: i64 },
    #[error("cannot convert the {side} from opset {from} to {to}: {error}")]
    Convert {
        side: &'static str,
        from: i64,
        to: i64,
        error: crate::opset::ConvertError,
    },
    #[error(
        "domain {domain:?} is imported at version {host} by the host and {guest} by the guest; pick one"
    )]
    DomainConflict {
        domain: String,
        host: i64,
        guest: i64,
    },
    #[error("guest tensor {tensor:?} lives in external data that is not available: {reason}")]
    MissingExternalData { tensor: String, reason: String },
    #[error("cannot inline into this graph: {0}")]
    UnsupportedTarget(String),
    #[error("guest input {0:?} must be bound: the target graph cannot take new inputs")]
    UnboundInput(String),
    #[error("the target graph cannot take new outputs (exposing {0:?})")]
    CannotExpose(String),
    #[error("the name {0:?} is already used in the target scope")]
    NameTaken(String),
    #[error("an exposed output needs a name; \"\" means an absent value in ONNX")]
    EmptyName,
}

/// Inlines `guest` into `host` as `opts` says. On error the host is unchanged.
///
/// When the two import different versions of the default domain, the result takes
/// the higher one: the older side is converted first (`crate::opset`, every graph and
/// function body), on a copy, so a node without an adapter is an error that names it
/// and changes nothing.
pub fn inline_model(
    host: &mut Model,
    guest: &Model,
    opts: &InlineOptions,
) -> Result<InlineReport, InlineError> {
    inline_model_undoable(host, guest, opts).map(|(report, _)| report)
}

/// [`inline_model`], and what undoes it: without copying the host (the inline only
/// appends to it), except when the host's opset is converted, which works on a copy
/// anyway (the undo then keeps the host as it was).
pub fn inline_model_undoable(
    host: &mut Model,
    guest: &Model,
    opts: &InlineOptions,
) -> Result<(InlineReport, InlineUndo), InlineError> {
    // The host side's version is the one in force where the guest lands: the
    // model's, or the enclosing function's own import when the target is (inside) a
    // function body.
    let function = opts
        .target
        .filter(|&t| host.graphs.get(t).is_some())
        .map(|t| host.scope_root(t))
        .and_then(|root| match host.graph(root).owner {
            crate::ir::GraphOwner::Function(f) => Some(f),
            _ => None,
        });
    let host_version = match function {
        Some(f) => host
            .function(f)
            .opset_import
            .iter()
            .find(|o| o.normalized_domain().is_empty())
            .and_then(|o| o.version)
            .or_else(|| host.opset_version("")),
        None => host.opset_version(""),
    };
    let in_place = |host: &mut Model, guest: &Model, converted: Vec<String>| {
        let staged = plan::plan(host, guest, opts)?;
        let (mut report, rewind) = staged.apply(host);
        report.converted = converted;
        Ok((report, InlineUndo(Undoing::Rewind(rewind))))
    };
    let (Some(h), Some(g)) = (host_version, guest.opset_version("")) else {
        return in_place(host, guest, Vec::new());
    };
    if h == g {
        return in_place(host, guest, Vec::new());
    }
    let target = h.max(g);
    let mut converted = Vec::new();
    let upgraded_guest;
    let guest = if g < target {
        let mut copy = guest.clone();
        let report =
            crate::opset::convert(&mut copy, target).map_err(|error| InlineError::Convert {
                side: "guest",
                from: g,
                to: target,
                error,
            })?;
        converted.push(format!(
            "guest converted from opset {g} to {target}: {report}"
        ));
        upgraded_guest = copy;
        &upgraded_guest
    } else {
        guest
    };
    if h < target {
        let mut work = host.clone();
        let failed = |error| InlineError::Convert {
            side: "host",
            from: h,
            to: target,
            error,
        };
        let report = match function {
            // Only the function the guest lands in moves to the newer version.
            Some(f) => {
                let body = work.function(f).body;
                let report =
                    crate::opset::convert_graphs(&mut work, &[body], h, target).map_err(failed)?;
                let imports = &mut work.function_arena[f].opset_import;
                match imports
                    .iter_mut()
                    .find(|o| o.normalized_domain().is_empty())
                {
                    Some(o) => o.version = Some(target),
                    None => imports.push(crate::ir::OpsetId {
                        domain: Some(String::new()),
                        version: Some(target),
                    }),
                }
                report
            }
            None => crate::opset::convert(&mut work, target).map_err(failed)?,
        };
        converted.push(format!(
            "host converted from opset {h} to {target}: {report}"
        ));
        let staged = plan::plan(&work, guest, opts)?;
        let (mut report, _) = staged.apply(&mut work);
        let before = std::mem::replace(host, work);
        report.converted = converted;
        return Ok((report, InlineUndo(Undoing::Whole(Box::new(before)))));
    }
    in_place(host, guest, converted)
}

/// What undoes an inline ([`inline_model_undoable`]).
#[derive(Clone, Debug)]
pub struct InlineUndo(Undoing);

#[derive(Clone, Debug)]
enum Undoing {
    Rewind(plan::Rewind),
    Whole(Box<Model>),
}

impl InlineUndo {
    /// Puts `host` back as it was before the inline; `host` must be as the inline
    /// left it.
    pub fn undo(self, host: &mut Model) {
        match self.0 {
            Undoing::Rewind(r) => r.undo(host),
            Undoing::Whole(before) => *host = *before,
        }
    }
}
