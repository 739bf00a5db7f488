//! What a guest input can be bound to: the host values of the main graph whose stated
//! type the input accepts (the app's binding picker).

use crate::hash::FxMap;
use crate::ir::{Model, Type, ValueDef, ValueId};

use super::types::{compatible, host_type};

/// A host value a guest input may read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    pub name: String,
    /// The host's stated type, printed; `None` when the host states none.
    pub ty: Option<String>,
}

/// The guest's main-graph inputs with their printed types, in order.
pub fn guest_inputs(guest: &Model) -> Vec<(String, Option<String>)> {
    io_of(guest, true)
}

/// The guest's main-graph outputs with their printed types, in order.
pub fn guest_outputs(guest: &Model) -> Vec<(String, Option<String>)> {
    io_of(guest, false)
}

fn io_of(model: &Model, inputs: bool) -> Vec<(String, Option<String>)> {
    let Some(g) = model.graph else {
        return Vec::new();
    };
    let graph = model.graph(g);
    let list = if inputs {
        &graph.inputs
    } else {
        &graph.outputs
    };
    list.iter()
        .filter_map(|vi| {
            let v = vi.value?;
            Some((
                model.value(v).name.clone(),
                vi.ty.as_ref().map(|t| t.to_string()),
            ))
        })
        .collect()
}

/// Host values of the main graph (inputs, initializers, node outputs, in that order)
/// that guest input `input` may be bound to: every value whose stated type the input
/// accepts, and values with no stated type (nothing rules them out). Empty when the
/// guest has no such input.
pub fn binding_candidates(host: &Model, guest: &Model, input: &str) -> Vec<Candidate> {
    let Some(wanted) = guest_input_type(guest, input) else {
        return Vec::new();
    };
    let Some(main) = host.graph else {
        return Vec::new();
    };
    let graph = host.graph(main);
    // Stated types in one pass (host_type scans per value).
    let mut stated: FxMap<ValueId, Type> = FxMap::default();
    for vi in graph
        .inputs
        .iter()
        .chain(&graph.outputs)
        .chain(&graph.value_info)
    {
        if let (Some(v), Some(t)) = (vi.value, &vi.ty) {
            stated.entry(v).or_insert_with(|| t.clone());
        }
    }
    let mut order: Vec<ValueId> = Vec::new();
    order.extend(graph.inputs.iter().filter_map(|vi| vi.value));
    order.extend(graph.initializers.iter().filter_map(|i| i.value));
    for &n in &graph.nodes {
        order.extend(host.node(n).outputs.iter().flatten().copied());
    }
    let mut seen: std::collections::HashSet<ValueId, crate::hash::FxBuild> = Default::default();
    let mut out = Vec::new();
    for v in order {
        if !seen.insert(v) || host.value(v).def == ValueDef::Undefined {
            continue;
        }
        let ty = match stated.get(&v) {
            Some(t) => Some(t.clone()),
            None if host.value(v).def == ValueDef::Initializer => host_type(host, v),
            None => None,
        };
        let fits = match (&wanted, &ty) {
            (Some(w), Some(t)) => compatible(w, t),
            _ => true,
        };
        if fits {
            out.push(Candidate {
                name: host.value(v).name.clone(),
                ty: ty.map(|t| t.to_string()),
            });
        }
    }
    out
}

/// `None`: no such input; `Some(None)`: the input has no stated type.
fn guest_input_type(guest: &Model, input: &str) -> Option<Option<Type>> {
    let graph = guest.graph(guest.graph?);
    graph
        .inputs
        .iter()
        .find(|vi| vi.value.is_some_and(|v| guest.value(v).name == input))
        .map(|vi| vi.ty.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::text::parse_model(text).expect("parses").model
    }

    #[test]
    fn candidates_are_the_type_compatible_host_values() {
        let host = model(
            "<ir_version: 10, opset_import: [\"\": 17]>\nh (float[4] x, int64[4] i) => (float[4] y) {\n  t = Relu(x)\n  n = Shape(x)\n  y = Neg(t)\n}\n",
        );
        let guest = model(
            "<ir_version: 10, opset_import: [\"\": 17]>\ng (float[4] a, b) => (float[4] c) {\n  c = Add(a, b)\n}\n",
        );
        let names = |input: &str| -> Vec<String> {
            binding_candidates(&host, &guest, input)
                .into_iter()
                .map(|c| c.name)
                .collect()
        };
        // x is float[4]; i is int64 (ruled out); t, n, y have no stated type except y.
        assert_eq!(names("a"), ["x", "t", "n", "y"]);
        assert_eq!(
            names("b"),
            ["x", "i", "t", "n", "y"],
            "an untyped input takes anything"
        );
        assert!(names("zzz").is_empty());
        assert_eq!(
            guest_inputs(&guest),
            [
                ("a".to_string(), Some("float[4]".to_string())),
                ("b".to_string(), None)
            ]
        );
        assert_eq!(guest_outputs(&guest).len(), 1);
    }
}
