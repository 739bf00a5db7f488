//! `build`: keep what the outputs need, import only the domains used, the lowest IR
//! version, export and import, check.

use super::*;

/// [`Builder::build`]'s work, on a copy of the builder's model.
pub(super) fn build_model(
    st: &State,
    inputs: &[(&str, &Var)],
    outputs: &[(&str, &Var)],
) -> Result<Model> {
    let mut m = st.model.clone();
    let main = m.graph.ok_or_else(|| usage("no main graph"))?;
    // Inputs: builder inputs of the main graph, renamed.
    let declared: Vec<ValueId> = m
        .graph(main)
        .inputs
        .iter()
        .filter_map(|i| i.value)
        .collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut input_ids = Vec::new();
    for (name, v) in inputs {
        if !declared.contains(&v.value) {
            return Err(usage(format!(
                "build: input {name:?} is not a graph input declared with Builder::input"
            )));
        }
        if !taken.insert(name.to_string()) || input_ids.contains(&v.value) {
            return Err(usage(format!("build: input {name:?} is given twice")));
        }
        input_ids.push(v.value);
    }
    // Outputs: each a node output of the main graph, used once; else an Identity.
    let mut output_ids: Vec<ValueId> = Vec::new();
    let default_version = st.versions.get("").copied();
    for (name, v) in outputs {
        if !taken.insert(name.to_string()) {
            return Err(usage(format!("build: the name {name:?} is given twice")));
        }
        let own = matches!(m.value(v.value).def, ValueDef::Node(n) if m.node(n).graph == main);
        let v = if own && !output_ids.contains(&v.value) {
            v.value
        } else {
            if default_version.is_none() {
                return Err(usage(
                    "build: an output that is not a node output needs an Identity: choose the default domain's opset first",
                ));
            }
            let out = m.values.push(Value {
                name: name.to_string(),
                graph: main,
                def: ValueDef::Undefined,
            });
            let n = m.nodes.push(Node {
                graph: main,
                op_type: Some("Identity".into()),
                domain: None,
                overload: None,
                name: None,
                inputs: vec![Some(v.value)],
                outputs: vec![Some(out)],
                attributes: Vec::new(),
                doc_string: None,
                metadata_props: Vec::new(),
                device_configurations: Vec::new(),
            });
            m.values[out].def = ValueDef::Node(n);
            m.graphs[main].nodes.push(n);
            out
        };
        output_ids.push(v);
    }
    // Names: a value given a build name gives up its own; another value holding that
    // name is renamed out of the way.
    let wanted: HashMap<ValueId, &str> = input_ids
        .iter()
        .zip(inputs)
        .map(|(&v, (n, _))| (v, *n))
        .chain(output_ids.iter().zip(outputs).map(|(&v, (n, _))| (v, *n)))
        .collect();
    let mut names = crate::ir::Names::taking(
        m.values
            .iter()
            .map(|(_, v)| v.name.as_str())
            .chain(wanted.values().copied()),
    );
    let ids: Vec<ValueId> = m.values.iter().map(|(id, _)| id).collect();
    for id in ids {
        let name = m.values[id].name.clone();
        if !wanted.contains_key(&id) && wanted.values().any(|w| *w == name) {
            m.values[id].name = names.fresh(&name);
        }
    }
    for (&v, name) in &wanted {
        m.values[v].name = name.to_string();
    }
    // Keep what the outputs need.
    let mut need: HashSet<ValueId> = output_ids.iter().copied().collect();
    let mut keep_nodes: HashSet<NodeId> = HashSet::new();
    let mut stack: Vec<ValueId> = output_ids.clone();
    let mut called: Vec<FunctionId> = Vec::new();
    let index = crate::ir::FunctionIndex::new(&m);
    while let Some(v) = stack.pop() {
        let ValueDef::Node(n) = m.value(v).def else {
            continue;
        };
        if !keep_nodes.insert(n) {
            continue;
        }
        // The node, and everything its subgraphs read.
        let mut nodes = vec![n];
        while let Some(k) = nodes.pop() {
            let node = m.node(k);
            for i in node.inputs.iter().flatten() {
                if need.insert(*i) {
                    stack.push(*i);
                }
            }
            if let Some(f) = index.callee(&m, k)
                && !called.contains(&f)
            {
                called.push(f);
            }
            for g in node.subgraphs() {
                nodes.extend(m.graph(g).nodes.iter().copied());
            }
        }
    }
    for &v in &need {
        if matches!(m.value(v).def, ValueDef::Input)
            && m.value(v).graph == main
            && !input_ids.contains(&v)
        {
            return Err(usage(format!(
                "build: the outputs need input {:?}, which is not among build's inputs",
                m.value(v).name
            )));
        }
    }
    // Functions called from called functions.
    let mut k = 0;
    while k < called.len() {
        let body = m.function(called[k]).body;
        for f in index.callees_under(&m, body) {
            if !called.contains(&f) {
                called.push(f);
            }
        }
        k += 1;
    }
    let order: Vec<FunctionId> = m
        .functions
        .iter()
        .copied()
        .filter(|f| called.contains(f))
        .collect();
    m.functions = order;
    let outputs_info: Vec<ValueInfo> = output_ids
        .iter()
        .map(|&v| ValueInfo {
            value: Some(v),
            ty: if v.index() < st.model.values.len() {
                st.inferred.get(v)
            } else {
                // An Identity added above: its input's type.
                match m.value(v).def {
                    ValueDef::Node(n) => m
                        .node(n)
                        .inputs
                        .first()
                        .copied()
                        .flatten()
                        .and_then(|i| st.inferred.get(i)),
                    _ => None,
                }
            },
            ..ValueInfo::default()
        })
        .collect();
    let main_graph = &mut m.graphs[main];
    main_graph.nodes.retain(|n| keep_nodes.contains(n));
    main_graph
        .initializers
        .retain(|i| i.value.is_some_and(|v| need.contains(&v)));
    let mut new_inputs = Vec::new();
    for v in &input_ids {
        if let Some(info) = main_graph.inputs.iter().find(|i| i.value == Some(*v)) {
            new_inputs.push(info.clone());
        }
    }
    main_graph.inputs = new_inputs;
    main_graph.outputs = outputs_info;
    // Opset imports: the domains used.
    let domains_of = |m: &Model, root: GraphId| {
        m.nodes_under(root)
            .map(|n| m.node(n).domain().to_string())
            .collect::<HashSet<String>>()
    };
    let imports = |used: &HashSet<String>| -> Vec<OpsetId> {
        st.versions
            .iter()
            .filter(|(d, _)| used.contains(d.as_str()))
            .map(|(d, v)| OpsetId {
                domain: Some(d.clone()),
                version: Some(*v),
            })
            .collect()
    };
    let mut all_used = domains_of(&m, main);
    for &f in &m.functions.clone() {
        let used = domains_of(&m, m.function(f).body);
        m.function_arena[f].opset_import = imports(&used);
        all_used.extend(used);
    }
    m.opset_import = imports(&all_used);
    // The lowest IR version that allows all this.
    let opset = m.opset_version("").unwrap_or(1);
    let mut ir = ir_version_for(opset);
    let functions: Vec<&Function> = m.functions.iter().map(|&f| m.function(f)).collect();
    if !functions.is_empty() {
        ir = ir.max(8);
    }
    if functions.iter().any(|f| !f.attribute_proto.is_empty()) {
        ir = ir.max(9);
    }
    if functions
        .iter()
        .any(|f| f.overload.as_deref().is_some_and(|o| !o.is_empty()))
    {
        ir = ir.max(10);
    }
    m.ir_version = Some(ir);
    m.producer_name = Some("graft".into());
    // As a file would give it: only what is reachable, ids compact.
    let bytes = crate::export(&m, &crate::ExportOptions::default())
        .map_err(|e| usage(format!("build: export failed: {e}")))?;
    let model = crate::import(Bytes::from(bytes))
        .map_err(|e| usage(format!("build: the exported model does not import: {e}")))?
        .model;
    let errors: Vec<String> = crate::check::check(&model)
        .into_iter()
        .filter(|d| d.severity == crate::Severity::Error)
        .map(|d| format!("{} [{}] at {}", d.message, d.code, d.location))
        .collect();
    if !errors.is_empty() {
        return Err(BuildError::Check(errors.join("\n")));
    }
    Ok(model)
}

/// The lowest IR version that allows opset `v` of the default domain (onnx's version
/// table).
pub fn ir_version_for(opset: i64) -> i64 {
    match opset {
        ..=8 => 3,
        9 => 4,
        10 => 5,
        11 => 6,
        12..=14 => 7,
        15..=18 => 8,
        19..=20 => 9,
        21..=22 => 10,
        23 => 11,
        24 => 12,
        25..=27 => 13,
        _ => 14,
    }
}
