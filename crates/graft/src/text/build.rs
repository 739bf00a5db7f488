//! Parsed text → IR, in the order `codec/import.rs` builds it, resolving names with
//! the same `ir::Resolver` and giving the same diagnostics: functions first (each body sees only itself), then the main
//! graph, then training graphs (which see the main graph). In each graph: inputs,
//! initializers (one named like an input is that input's default), sparse
//! initializers, every node's outputs, then each node's attributes (subgraphs) and
//! inputs, then outputs and value_info. Undefined names and duplicate definitions are
//! diagnostics, as on import.

use super::ast::*;
use crate::diag::Diagnostic;
use crate::ir::*;

pub(super) struct Builder {
    pub model: Model,
    scopes: Resolver,
    pending: Vec<Found>,
}

impl Builder {
    pub fn new(model: Model) -> Self {
        Self {
            model,
            scopes: Resolver::default(),
            pending: Vec::new(),
        }
    }

    pub fn finish(self) -> (Model, Vec<Diagnostic>) {
        let Builder { model, pending, .. } = self;
        let diagnostics = pending
            .into_iter()
            .map(|(severity, code, message, location)| {
                Diagnostic::new(severity, code, message, location.describe(&model))
            })
            .collect();
        (model, diagnostics)
    }

    pub fn model(&mut self, ast: AstModel<'_>) {
        for f in ast.functions {
            let id = self.function(f);
            self.model.functions.push(id);
        }
        if let Some(g) = ast.graph {
            let id = self.graph(g, GraphOwner::Model);
            self.model.graph = Some(id);
        }
        for (i, t) in ast.training_info.into_iter().enumerate() {
            let saved = self.scopes.enter_training();
            let info = TrainingInfo {
                initialization: t
                    .initialization
                    .map(|g| self.graph(g, GraphOwner::Training(i))),
                algorithm: t.algorithm.map(|g| self.graph(g, GraphOwner::Training(i))),
                initialization_binding: t.initialization_binding,
                update_binding: t.update_binding,
            };
            self.scopes.restore(saved);
            self.model.training_info.push(info);
        }
        self.model.configuration = ast.configuration;
    }

    pub fn function(&mut self, f: AstFunction<'_>) -> FunctionId {
        let id = FunctionId::from_index(self.model.function_arena.len());
        let body = self.model.graphs.push(Graph::new(GraphOwner::Function(id)));
        let mut nodes = f.nodes;
        let ids = self.push_nodes(body, &mut nodes);
        let saved = self.scopes.enter_function();
        for name in &f.inputs {
            let value = self.define(body, name, ValueDef::Input);
            self.model.graphs[body].inputs.push(ValueInfo {
                value: Some(value),
                ..ValueInfo::default()
            });
        }
        self.nodes(body, ids, nodes);
        for name in &f.outputs {
            let value = self.resolve(body, name, "function output");
            self.model.graphs[body].outputs.push(ValueInfo {
                value: Some(value),
                ..ValueInfo::default()
            });
        }
        let value_info = self.resolve_infos(body, f.value_info, "value_info");
        self.model.graphs[body].value_info = value_info;
        let attribute_proto = f
            .attribute_proto
            .into_iter()
            .map(|a| self.attribute(a, GraphOwner::Function(id), body, None))
            .collect();
        self.scopes.restore(saved);
        self.model.function_arena.push(Function {
            name: f.name,
            domain: f.domain,
            overload: f.overload,
            body,
            attribute: f.attribute,
            attribute_proto,
            doc_string: f.doc_string,
            opset_import: f.opset_import,
            metadata_props: f.metadata_props,
        })
    }

    pub fn graph(&mut self, g: AstGraph<'_>, owner: GraphOwner) -> GraphId {
        let AstGraph {
            name,
            doc_string,
            inputs,
            outputs,
            value_info,
            initializers,
            sparse_initializers,
            mut nodes,
            quantization_annotation,
            metadata_props,
        } = g;
        let mut graph = Graph::new(owner);
        graph.name = name;
        graph.doc_string = doc_string;
        graph.quantization_annotation = quantization_annotation;
        graph.metadata_props = metadata_props;
        let id = self.model.graphs.push(graph);
        let ids = self.push_nodes(id, &mut nodes);
        self.scopes.enter_graph();
        let mut graph_inputs = Vec::with_capacity(inputs.len());
        for AstInfo { name, mut info } in inputs {
            info.value = name.map(|n| self.define(id, &n, ValueDef::Input));
            graph_inputs.push(info);
        }
        let mut graph_initializers = Vec::with_capacity(initializers.len());
        for (name, tensor) in initializers {
            let value = name.map(|n| self.define_initializer(id, &n));
            graph_initializers.push(Initializer { value, tensor });
        }
        let mut graph_sparse = Vec::with_capacity(sparse_initializers.len());
        for (name, tensor) in sparse_initializers {
            let value = name.map(|n| self.define_initializer(id, &n));
            graph_sparse.push(SparseInitializer { value, tensor });
        }
        {
            let g = &mut self.model.graphs[id];
            g.inputs = graph_inputs;
            g.initializers = graph_initializers;
            g.sparse_initializers = graph_sparse;
        }
        self.nodes(id, ids, nodes);
        let outputs = self.resolve_infos(id, outputs, "graph output");
        let value_info = self.resolve_infos(id, value_info, "value_info");
        let g = &mut self.model.graphs[id];
        g.outputs = outputs;
        g.value_info = value_info;
        self.scopes.leave_graph(owner);
        id
    }

    /// Puts a graph's nodes in the arena (before any of its subgraphs, as the importer
    /// does); names and attributes come later.
    fn push_nodes(&mut self, graph: GraphId, nodes: &mut [AstNode<'_>]) -> Vec<NodeId> {
        self.model.nodes.reserve(nodes.len());
        self.model
            .values
            .reserve(nodes.iter().map(|n| n.outputs.len()).sum());
        nodes
            .iter_mut()
            .map(|n| {
                self.model.nodes.push(Node {
                    graph,
                    op_type: n.op_type.take(),
                    domain: n.domain.take(),
                    overload: n.overload.take(),
                    name: n.name.take(),
                    inputs: Vec::new(),
                    outputs: Vec::new(),
                    attributes: Vec::new(),
                    doc_string: n.doc_string.take(),
                    metadata_props: std::mem::take(&mut n.metadata_props),
                    device_configurations: std::mem::take(&mut n.device_configurations),
                })
            })
            .collect()
    }

    fn nodes(&mut self, graph: GraphId, ids: Vec<NodeId>, mut nodes: Vec<AstNode<'_>>) {
        self.scopes
            .reserve(nodes.iter().map(|n| n.outputs.len()).sum());
        for (&id, n) in ids.iter().zip(&nodes) {
            let outputs = n
                .outputs
                .iter()
                .map(|name| {
                    (!name.is_empty()).then(|| self.define(graph, name, ValueDef::Node(id)))
                })
                .collect();
            self.model.nodes[id].outputs = outputs;
        }
        for (&id, n) in ids.iter().zip(nodes.iter_mut()) {
            let attributes = std::mem::take(&mut n.attributes)
                .into_iter()
                .map(|a| self.attribute(a, GraphOwner::Node(id), graph, Some(id)))
                .collect();
            let inputs = n
                .inputs
                .iter()
                .map(|name| (!name.is_empty()).then(|| self.resolve(graph, name, "node input")))
                .collect();
            let node = &mut self.model.nodes[id];
            node.attributes = attributes;
            node.inputs = inputs;
        }
        self.model.graphs[graph].nodes = ids;
    }

    fn attribute(
        &mut self,
        mut a: AstAttr<'_>,
        owner: GraphOwner,
        graph: GraphId,
        node: Option<NodeId>,
    ) -> Attribute {
        let g = a.g.take().map(|g| self.graph(*g, owner));
        let graphs = std::mem::take(&mut a.graphs)
            .into_iter()
            .map(|g| self.graph(g, owner))
            .collect();
        self.finish_attribute(a, g, graphs, graph, node)
    }

    /// Classifies the fields of an attribute whose graphs are built. Kept out of
    /// `attribute` so that the frames of nested graphs stay small.
    #[inline(never)]
    fn finish_attribute(
        &mut self,
        a: AstAttr<'_>,
        g: Option<GraphId>,
        graphs: Vec<GraphId>,
        graph: GraphId,
        node: Option<NodeId>,
    ) -> Attribute {
        let raw = RawAttribute {
            ref_attr_name: a.ref_attr_name,
            r#type: a.r#type,
            f: a.f,
            i: a.i,
            s: a.s,
            t: a.t.map(|t| *t),
            g,
            sparse_tensor: a.sparse_tensor.map(|s| *s),
            tp: a.tp,
            floats: a.floats,
            ints: a.ints,
            strings: a.strings,
            tensors: a.tensors,
            graphs,
            sparse_tensors: a.sparse_tensors,
            type_protos: a.type_protos,
        };
        let kind = self.attribute_kind(a.name.as_deref(), raw, graph, node);
        Attribute {
            name: a.name,
            doc_string: a.doc_string,
            kind,
        }
    }
}

impl Resolving for Builder {
    fn resolving(&mut self) -> (&mut Arena<ValueId, Value>, &mut Resolver, &mut Vec<Found>) {
        (&mut self.model.values, &mut self.scopes, &mut self.pending)
    }
}
