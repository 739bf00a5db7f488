//! Diagnostics: what the importer (and later the checker) found, with a stable code and
//! a place a person can go to.

use serde::{Deserialize, Serialize};

use crate::ir::{GraphId, GraphOwner, Model, NodeId};

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// Where a diagnostic points: a graph (a function body is a graph), a node in it, and
/// an attribute, input or field of that node or graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    pub graph: Option<GraphId>,
    pub node: Option<NodeId>,
    /// An attribute, input or field within the node or graph, e.g. `input 2`.
    pub detail: Option<String>,
}

impl Location {
    pub fn graph(graph: GraphId) -> Self {
        Self {
            graph: Some(graph),
            ..Self::default()
        }
    }

    pub fn node(graph: GraphId, node: NodeId) -> Self {
        Self {
            graph: Some(graph),
            node: Some(node),
            detail: None,
        }
    }

    pub fn with(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable identifier, e.g. `import.undefined-name`.
    #[serde(deserialize_with = "crate::interned::deserialize")]
    pub code: crate::interned::Static,
    pub message: String,
    /// The location written out as a path, e.g. `graph "main" > node "Conv_0" (Conv)`.
    pub location: String,
    /// The same location as ids, for jumping to it.
    #[serde(skip)]
    pub at: Location,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
        location: String,
    ) -> Self {
        Self {
            severity,
            code,
            message: message.into(),
            location,
            at: Location::default(),
        }
    }

    /// A diagnostic at a place in `model`.
    pub fn at(
        model: &Model,
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
        at: Location,
    ) -> Self {
        Self {
            severity,
            code,
            message: message.into(),
            location: at.describe(model),
            at,
        }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{severity}[{}]: {}", self.code, self.message)?;
        if !self.location.is_empty() {
            write!(f, " (at {})", self.location)?;
        }
        Ok(())
    }
}

impl Location {
    /// Writes the location as a path from the model down.
    pub fn describe(&self, model: &Model) -> String {
        let mut parts = Vec::new();
        let graph = self
            .graph
            .or_else(|| self.node.and_then(|n| model.nodes.get(n)).map(|n| n.graph));
        if let Some(graph) = graph {
            parts.extend(graph_path(model, graph));
        }
        if let Some(node) = self.node.and_then(|n| model.nodes.get(n)) {
            parts.push(describe_node(node));
        }
        if let Some(detail) = &self.detail {
            parts.push(detail.clone());
        }
        parts.join(" > ")
    }
}

fn describe_node(node: &crate::ir::Node) -> String {
    if node.name().is_empty() {
        format!("node ({})", node.op_type())
    } else {
        format!("node {:?} ({})", node.name(), node.op_type())
    }
}

/// The chain of graphs and nodes from the outermost scope to `graph`.
fn graph_path(model: &Model, graph: GraphId) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = graph;
    loop {
        let g = &model.graphs[current];
        match g.owner {
            GraphOwner::Node(node) => {
                let n = &model.nodes[node];
                parts.push(format!(
                    "{} body {:?}",
                    describe_node(n),
                    g.name.as_deref().unwrap_or("")
                ));
                current = n.graph;
            }
            GraphOwner::Model => {
                parts.push(format!("graph {:?}", g.name.as_deref().unwrap_or("")));
                break;
            }
            GraphOwner::Function(f) => {
                parts.push(format!("function {}", model.function_arena[f].key()));
                break;
            }
            GraphOwner::Training(i) => {
                parts.push(format!(
                    "training_info[{i}] graph {:?}",
                    g.name.as_deref().unwrap_or("")
                ));
                break;
            }
        }
    }
    parts.reverse();
    parts
}
