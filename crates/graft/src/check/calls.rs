//! Calls of model-local functions: arity, attributes passed, and the references in the
//! body that the call binds (semantics.md §2).

use std::collections::HashSet;

use super::{Checker, nodes_under};
use crate::diag::Location;
use crate::ir::{AttrKind, FunctionId, GraphId, NodeId};
use crate::schema;

impl Checker<'_> {
    pub(super) fn call(&mut self, g: GraphId, n: NodeId, callee: FunctionId) {
        let model = self.model;
        let node = model.node(n);
        let function = model.function(callee);
        let body = model.graph(function.body);
        let key = function.key();
        let at = Location::node(g, n);
        if node.inputs.len() > body.inputs.len() {
            self.error(
                "check.call-arity",
                format!(
                    "{key} takes {} inputs, the call passes {}",
                    body.inputs.len(),
                    node.inputs.len()
                ),
                at.clone(),
            );
        }
        if node.outputs.len() > body.outputs.len() {
            self.error(
                "check.call-arity",
                format!(
                    "{key} has {} outputs, the call names {}",
                    body.outputs.len(),
                    node.outputs.len()
                ),
                at.clone(),
            );
        }

        self.omitted_inputs(g, n, callee);
        self.captured_graphs(g, n);

        let declared: HashSet<&str> = function
            .attribute
            .iter()
            .map(String::as_str)
            .chain(function.attribute_proto.iter().map(|a| a.name()))
            .collect();
        // References in the body (at any depth): (referenced name, its type, the node
        // and attribute that hold it).
        let mut references = Vec::new();
        for b in nodes_under(model, function.body) {
            for a in &model.node(b).attributes {
                if let AttrKind::Ref { name, ty } = &a.kind {
                    references.push((name.as_str(), *ty, b, a.name()));
                }
            }
        }
        for a in &node.attributes {
            let at = at.clone().with(format!("attribute {:?}", a.name()));
            if !declared.contains(a.name()) {
                self.error(
                    "check.call-undeclared-attribute",
                    format!("{key} declares no attribute {:?}", a.name()),
                    at,
                );
                continue;
            }
            let given = match &a.kind {
                AttrKind::Value(v) => v.attr_type(),
                AttrKind::Ref { ty, .. } => *ty,
                AttrKind::Raw(_) => continue,
            };
            if let Some((_, ty, _, _)) = references.iter().find(|r| r.0 == a.name() && r.1 != given)
            {
                self.error(
                    "check.call-attribute-type",
                    format!(
                        "attribute {:?} is {} at the call, but {key} uses it as {}",
                        a.name(),
                        given.name(),
                        ty.name()
                    ),
                    at,
                );
            }
        }

        // A reference left unbound is dropped, so the op's own default applies; an op
        // that requires the attribute then has none.
        for (name, _, b, attribute) in references {
            let bound = node.attributes.iter().any(|a| a.name() == name)
                || function.attribute_proto.iter().any(|a| a.name() == name);
            if bound {
                continue;
            }
            let body_node = model.node(b);
            let version = function
                .opset_import
                .iter()
                .find(|o| o.normalized_domain() == body_node.domain())
                .and_then(|o| o.version);
            let required = version
                .and_then(|v| schema::lookup(body_node.domain(), body_node.op_type(), v))
                .is_some_and(|s| {
                    s.attributes
                        .iter()
                        .any(|d| d.name == attribute && d.required)
                });
            if required {
                self.error(
                    "check.call-missing-required-attribute",
                    format!(
                        "the call does not set {name:?}, which {key} has no default for, and {} in its body requires {attribute:?}",
                        body_node.op_type()
                    ),
                    at.clone().with(format!("attribute {name:?}")),
                );
            }
        }
    }
}

impl Checker<'_> {
    /// A call that omits an input (`""` or a missing trailing one) whose formal the body
    /// uses where an op requires a value (semantics.md case 50).
    fn omitted_inputs(&mut self, g: GraphId, n: NodeId, callee: FunctionId) {
        let model = self.model;
        let node = model.node(n);
        let function = model.function(callee);
        let body = model.graph(function.body);
        for (k, formal) in body.inputs.iter().enumerate() {
            if node.inputs.get(k).copied().flatten().is_some() {
                continue;
            }
            let Some(formal) = formal.value else { continue };
            for b in nodes_under(model, function.body) {
                let body_node = model.node(b);
                let version = function
                    .opset_import
                    .iter()
                    .find(|o| o.normalized_domain() == body_node.domain())
                    .and_then(|o| o.version);
                let Some(schema) = version
                    .and_then(|v| schema::lookup(body_node.domain(), body_node.op_type(), v))
                else {
                    continue;
                };
                for (slot, input) in body_node.inputs.iter().enumerate() {
                    let required = schema
                        .inputs
                        .get(slot)
                        .or(schema.inputs.last())
                        .is_some_and(|p| p.option == schema::ParamOption::Single);
                    if *input == Some(formal) && required {
                        self.error(
                            "check.call-required-input-missing",
                            format!(
                                "the call omits input {k} ({:?}) of {}, which {} in its body requires",
                                model.value(formal).name,
                                function.key(),
                                body_node.op_type()
                            ),
                            Location::node(g, n).with(format!("input {k}")),
                        );
                        return;
                    }
                }
            }
        }
    }

    /// A GRAPH attribute passed to a function whose graph reads names of the caller's
    /// scope: a function body cannot see them (semantics.md case 53).
    fn captured_graphs(&mut self, g: GraphId, n: NodeId) {
        let model = self.model;
        for a in &model.node(n).attributes {
            for graph in a.graphs() {
                let inside: HashSet<GraphId> = {
                    let mut set = HashSet::new();
                    let mut stack = vec![graph];
                    while let Some(x) = stack.pop() {
                        set.insert(x);
                        for &m in &model.graph(x).nodes {
                            for attr in &model.node(m).attributes {
                                stack.extend(attr.graphs());
                            }
                        }
                    }
                    set
                };
                let free = nodes_under(model, graph)
                    .into_iter()
                    .flat_map(|m| model.node(m).inputs.iter().flatten().copied())
                    .find(|&v| {
                        let value = model.value(v);
                        value.def != crate::ir::ValueDef::Undefined
                            && !inside.contains(&value.graph)
                    });
                if let Some(v) = free {
                    self.error(
                        "check.call-graph-captures",
                        format!(
                            "graph attribute {:?} reads {:?} from the caller's scope, which the function body cannot see",
                            a.name(),
                            model.value(v).name
                        ),
                        Location::node(g, n).with(format!("attribute {:?}", a.name())),
                    );
                }
            }
        }
    }
}
