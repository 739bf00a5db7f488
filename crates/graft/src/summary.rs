//! The model summary shown by `graft info` and the app's summary panel.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::ir::{GraphOwner, Model, ValueInfo};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpsetEntry {
    pub domain: String,
    pub version: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoEntry {
    pub name: String,
    /// The type in ONNX text spelling, e.g. `float[N,3,224,224]`; `?` when untyped.
    pub r#type: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub ir_version: Option<i64>,
    pub opset_import: Vec<OpsetEntry>,
    pub producer_name: String,
    pub producer_version: String,
    pub model_version: Option<i64>,
    pub domain: String,
    pub doc_string: String,
    pub metadata: Vec<(String, String)>,
    pub inputs: Vec<IoEntry>,
    pub outputs: Vec<IoEntry>,
    /// Every node in the model: main graph, subgraphs at any depth, function bodies
    /// (not what an edit removed and keeps in the arenas for its undo).
    pub nodes_total: usize,
    pub nodes_main: usize,
    /// Model-local functions (each (domain, name, overload) counts once).
    pub functions: usize,
    /// Functions with a non-empty overload id.
    pub overloads: usize,
    pub initializers: usize,
    /// Bytes of initializer payload, embedded or external.
    pub initializer_bytes: u64,
    pub external_tensors: usize,
    /// Bytes that live in external-data files.
    pub external_bytes: u64,
    /// Files external tensors refer to, and whether each was supplied.
    pub external_files: Vec<(String, bool)>,
    /// How deep GRAPH attributes nest (0: no subgraphs).
    pub max_subgraph_depth: usize,
    pub diagnostics: Vec<Diagnostic>,
}

impl Summary {
    pub fn of(model: &Model, diagnostics: &[Diagnostic]) -> Self {
        let io = |infos: &[ValueInfo]| {
            infos
                .iter()
                .map(|vi| IoEntry {
                    name: vi
                        .value
                        .map(|v| model.value(v).name.clone())
                        .unwrap_or_default(),
                    r#type: vi
                        .ty
                        .as_ref()
                        .map_or_else(|| "?".to_string(), |t| t.to_string()),
                })
                .collect()
        };
        let main = model.graph.map(|g| model.graph(g));
        let mut initializers = 0;
        let mut initializer_bytes = 0;
        let mut external_tensors = 0;
        let mut external_bytes = 0;
        // The graphs and nodes in the model: an edit leaves what it removes in the
        // arenas (for its undo), and that is not counted.
        let live = || model.scope_trees(model.all_roots().collect::<Vec<_>>());
        for graph in live().map(|g| model.graph(g)) {
            let sparse = graph
                .sparse_initializers
                .iter()
                .filter_map(|s| s.tensor.values.as_ref());
            for tensor in graph.initializers.iter().map(|i| &i.tensor).chain(sparse) {
                initializers += 1;
                let bytes = tensor.payload_bytes();
                initializer_bytes += bytes;
                if tensor.is_external() {
                    external_tensors += 1;
                    external_bytes += bytes;
                }
            }
        }
        let max_subgraph_depth = model
            .graphs
            .iter()
            .filter(|(_, g)| matches!(g.owner, GraphOwner::Node(_)))
            .map(|(id, _)| model.depth(id))
            .max()
            .unwrap_or(0);
        Summary {
            ir_version: model.ir_version,
            opset_import: model
                .opset_import
                .iter()
                .map(|o| OpsetEntry {
                    domain: o.domain.clone().unwrap_or_default(),
                    version: o.version,
                })
                .collect(),
            producer_name: model.producer_name.clone().unwrap_or_default(),
            producer_version: model.producer_version.clone().unwrap_or_default(),
            model_version: model.model_version,
            domain: model.domain.clone().unwrap_or_default(),
            doc_string: model.doc_string.clone().unwrap_or_default(),
            metadata: model
                .metadata_props
                .iter()
                .map(|p| (p.key().to_string(), p.value().to_string()))
                .collect(),
            inputs: main.map(|g| io(&g.inputs)).unwrap_or_default(),
            outputs: main.map(|g| io(&g.outputs)).unwrap_or_default(),
            nodes_total: live().map(|g| model.graph(g).nodes.len()).sum(),
            nodes_main: main.map_or(0, |g| g.nodes.len()),
            functions: model.functions.len(),
            overloads: model
                .functions
                .iter()
                .filter(|&&f| {
                    !model
                        .function(f)
                        .overload
                        .as_deref()
                        .unwrap_or("")
                        .is_empty()
                })
                .count(),
            initializers,
            initializer_bytes,
            external_tensors,
            external_bytes,
            external_files: model
                .external_locations()
                .into_iter()
                .map(|l| {
                    let present = model.external_files.contains_key(&l);
                    (l, present)
                })
                .collect(),
            max_subgraph_depth,
            diagnostics: diagnostics.to_vec(),
        }
    }
}
