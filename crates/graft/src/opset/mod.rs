//! Default-domain opset conversion (the "version converter").
//!
//! Every node of the default domain (main graph, subgraphs at any depth, training
//! graphs, every function body) is walked from its version to the target one schema
//! change at a time. Each change of an operator's schema between the two versions
//! needs an adapter: one written for that change in `adapters.rs`, or none when the
//! registry shows that the newer schema only widened what the older one accepted (more
//! types, a required input made optional, same attributes and defaults). An operator
//! whose schema did not change needs nothing.
//!
//! Conversion is all or nothing: every node is checked for an adapter first, and the
//! rewrite runs on a copy that replaces the model only when every adapter succeeded.
//! Function bodies convert from the function's own `opset_import` and are never
//! dropped.

mod adapters;
pub(crate) mod edit;

use std::collections::BTreeMap;

use crate::ir::{GraphId, GraphOwner, Model, NodeId, OpsetId};
use crate::schema;

pub use adapters::has_adapter;

/// What a conversion changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// Nodes an adapter rewrote (inputs, attributes, op type), keyed by the op type
    /// they had before. Nodes whose ops needed no change or only a compatible version
    /// bump are not listed.
    pub changed: BTreeMap<String, Vec<NodeId>>,
    /// Nodes the adapters added (Constant, Flatten, Shape, Reshape, Cast…).
    pub added: Vec<NodeId>,
    /// Initializers the adapters added to the main graph.
    pub initializers: usize,
}

impl ConvertReport {
    /// How many nodes were rewritten.
    pub fn changed_count(&self) -> usize {
        self.changed.values().map(Vec::len).sum()
    }

    fn merge(&mut self, other: ConvertReport) {
        for (op, nodes) in other.changed {
            self.changed.entry(op).or_default().extend(nodes);
        }
        self.added.extend(other.added);
        self.initializers += other.initializers;
    }
}

impl std::fmt::Display for ConvertReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.changed.is_empty() {
            return f.write_str("no node needed rewriting");
        }
        let ops: Vec<String> = self
            .changed
            .iter()
            .map(|(op, nodes)| format!("{op} {}", nodes.len()))
            .collect();
        write!(
            f,
            "rewrote {} nodes ({}), added {} nodes and {} initializers",
            self.changed_count(),
            ops.join(", "),
            self.added.len(),
            self.initializers
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("the model imports no version of the default domain")]
    NoDefaultOpset,
    #[error("opset {target} of the default domain does not exist (this ONNX knows 1 to {last})")]
    Target { target: i64, last: i64 },
    #[error("no adapter converts {op} from opset {from} to {to}")]
    NoAdapter { op: String, from: i64, to: i64 },
    #[error("cannot convert {op} node {node:?}: {reason}")]
    Unsupported {
        op: String,
        node: String,
        reason: String,
    },
}

/// Converts every default-domain node of the model to opset `target` and sets the
/// `opset_import` entries of the model and of every function that imports the default
/// domain. On error the model is left exactly as it was.
pub fn convert(model: &mut Model, target: i64) -> Result<ConvertReport, ConvertError> {
    let last = schema::opset_range("").map_or(0, |(_, last)| last);
    if target < 1 || target > last {
        return Err(ConvertError::Target { target, last });
    }
    let from = model
        .opset_version("")
        .ok_or(ConvertError::NoDefaultOpset)?;
    let mut jobs: Vec<(Vec<GraphId>, i64)> = Vec::new();
    let mut main: Vec<GraphId> = model.graph.into_iter().collect();
    for info in &model.training_info {
        main.extend(info.initialization);
        main.extend(info.algorithm);
    }
    jobs.push((main, from));
    for &f in &model.functions {
        let function = model.function(f);
        let version = function
            .opset_import
            .iter()
            .find(|o| o.normalized_domain().is_empty())
            .and_then(|o| o.version);
        if let Some(version) = version {
            jobs.push((vec![function.body], version));
        }
    }
    for (roots, from) in &jobs {
        validate(model, roots, *from, target)?;
    }
    let mut work = model.clone();
    let mut report = ConvertReport::default();
    for (roots, from) in &jobs {
        report.merge(run(&mut work, roots, *from, target)?);
    }
    set_default_version(&mut work.opset_import, target);
    for &f in &work.functions.clone() {
        set_default_version(&mut work.function_arena[f].opset_import, target);
    }
    *model = work;
    Ok(report)
}

/// The same for one graph scope tree or function body (for the inline pass): converts
/// every node of the default domain in `roots` and their subgraphs from version `from`
/// to `to`. `opset_import` entries are left to the caller. On error the model is left
/// exactly as it was.
pub fn convert_graphs(
    model: &mut Model,
    roots: &[GraphId],
    from: i64,
    to: i64,
) -> Result<ConvertReport, ConvertError> {
    let last = schema::opset_range("").map_or(0, |(_, last)| last);
    if to < 1 || to > last {
        return Err(ConvertError::Target { target: to, last });
    }
    if roots.iter().any(|&g| model.graphs.get(g).is_none()) {
        return Ok(ConvertReport::default());
    }
    validate(model, roots, from, to)?;
    let mut work = model.clone();
    let report = run(&mut work, roots, from, to)?;
    *model = work;
    Ok(report)
}

fn set_default_version(imports: &mut [OpsetId], target: i64) {
    for o in imports.iter_mut() {
        if o.normalized_domain().is_empty() {
            o.version = Some(target);
        }
    }
}

/// Fails with `NoAdapter` for the first default-domain node that has a schema change
/// between `from` and `to` no adapter covers. Changes nothing.
fn validate(model: &Model, roots: &[GraphId], from: i64, to: i64) -> Result<(), ConvertError> {
    for g in model.scope_trees(roots.iter().copied()) {
        for &n in &model.graph(g).nodes {
            let node = model.node(n);
            if node.domain().is_empty() {
                adapters::plan(node.op_type(), from, to)?;
            }
        }
    }
    Ok(())
}

fn run(
    model: &mut Model,
    roots: &[GraphId],
    from: i64,
    to: i64,
) -> Result<ConvertReport, ConvertError> {
    let mut ctx = edit::Ctx::new(model, to);
    for g in ctx
        .model
        .scope_trees(roots.iter().copied())
        .collect::<Vec<_>>()
    {
        let nodes = ctx.model.graph(g).nodes.clone();
        let mut out = Vec::with_capacity(nodes.len());
        for n in nodes {
            ctx.begin(n);
            if ctx.model.node(n).domain().is_empty() {
                let op = ctx.model.node(n).op_type().to_string();
                if adapters::apply(&mut ctx, n, from, to)? {
                    ctx.report.changed.entry(op).or_default().push(n);
                }
            }
            out.append(&mut ctx.before);
            out.push(n);
            out.append(&mut ctx.after);
        }
        ctx.model.graphs[g].nodes = out;
    }
    ctx.remove_unused_constants();
    Ok(ctx.report)
}

/// Whether a graph is the main graph (where new constants become initializers).
fn is_main(model: &Model, graph: GraphId) -> bool {
    model.graph(graph).owner == GraphOwner::Model
}
