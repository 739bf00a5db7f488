//! Bodies of If/Loop/Scan and functions, static or built per call into overloads.

use super::call::Pending;
use super::*;

impl Builder {
    /// Builds `body` as a subgraph of node `n`.
    pub(super) fn body(&self, n: NodeId, body: Body) -> Result<GraphId> {
        let mut types = Vec::new();
        for (name, t) in &body.inputs {
            types.push((name.clone(), parse_type(t)?));
        }
        let (g, ins) = {
            let mut st = self.0.borrow_mut();
            let g = st.model.graphs.push(Graph::new(GraphOwner::Node(n)));
            let label = format!("body_{}", st.counter + 1);
            st.model.graphs[g].name = Some(st.fresh(&label));
            let mut ins = Vec::new();
            for (name, ty) in types {
                let name = st.fresh(&name);
                let v = st.model.values.push(Value {
                    name,
                    graph: g,
                    def: ValueDef::Input,
                });
                st.model.graphs[g].inputs.push(ValueInfo {
                    value: Some(v),
                    ty: Some(ty),
                    ..ValueInfo::default()
                });
                ins.push(st.var(v));
            }
            st.scopes.push(Scope {
                graph: g,
                function: None,
            });
            st.stale = true;
            (g, ins)
        };
        let outs = (body.build)(&ins);
        let result = self.close_graph(g, outs);
        self.0.borrow_mut().scopes.pop();
        result?;
        Ok(g)
    }

    /// Sets the outputs of the graph on top of the scope stack (an output that is not
    /// a node output of it goes through an Identity).
    fn close_graph(&self, g: GraphId, outs: Result<Vec<Var>>) -> Result<()> {
        let outs = outs?;
        let mut vals = Vec::new();
        for v in &outs {
            self.0.borrow().check_var(v, "a body output")?;
            let st = self.0.borrow();
            let own = matches!(st.model.value(v.value).def, ValueDef::Node(n) if st.model.node(n).graph == g)
                && !vals.contains(&v.value);
            drop(st);
            if own {
                vals.push(v.value);
            } else {
                let version = self.0.borrow().versions.get("").copied().ok_or_else(|| {
                    usage("a body output that is not computed in the body needs an Identity: choose the default domain's opset first")
                })?;
                let id = self.op("", "Identity", version, &[Some(v)]).out()?;
                vals.push(id.value);
            }
        }
        let mut st = self.0.borrow_mut();
        st.refresh(&[]);
        let infos = vals
            .iter()
            .map(|&v| ValueInfo {
                value: Some(v),
                ty: st.inferred.get(v),
                ..ValueInfo::default()
            })
            .collect();
        st.model.graphs[g].outputs = infos;
        Ok(())
    }

    /// The type of the attribute `name` of the node being added, for a reference.
    pub(super) fn ref_type(
        &self,
        schema: Option<&OpSchema>,
        name: &str,
        parameter: &str,
    ) -> std::result::Result<AttrType, String> {
        let st = self.0.borrow();
        let Some(f) = st.scopes.last().and_then(|s| s.function) else {
            return Err(format!(
                "attribute {name:?} refers to {parameter:?}, but no function body is being built"
            ));
        };
        let func = st.model.function(f);
        let declared = func.attribute.iter().any(|a| a == parameter)
            || func.attribute_proto.iter().any(|a| a.name() == parameter);
        if !declared {
            return Err(format!(
                "attribute {name:?} refers to {parameter:?}, which the function does not declare"
            ));
        }
        if let Some(t) = func
            .attribute_proto
            .iter()
            .find(|a| a.name() == parameter)
            .and_then(|a| a.value())
        {
            return Ok(t.attr_type());
        }
        schema
            .and_then(|s| s.attribute(name))
            .map(|a| a.ty)
            .ok_or_else(|| {
                format!("the type of attribute {name:?} is unknown: give {parameter:?} a default")
            })
    }

    /// For a call of a Rust-defined function: the overload to call (built now for a
    /// context-dependent function) and the output count.
    pub(super) fn resolve_call(
        &self,
        func: &Func,
        inputs: &[Option<Var>],
        attrs: &[(String, Pending)],
        label: &str,
    ) -> Result<(Option<String>, usize)> {
        let err = |message: String| BuildError::Op {
            op: label.to_string(),
            message,
        };
        let (sig, build) = {
            let st = self.0.borrow();
            if func.builder != st.id {
                return Err(usage(format!("{label}: a function of another builder")));
            }
            match st.functions.get(func.index) {
                Some(FnDef::Static(f)) => {
                    let f = st.model.function(*f);
                    let body = st.model.graph(f.body);
                    if inputs.len() > body.inputs.len() {
                        return Err(err(format!(
                            "takes {} inputs, got {}",
                            body.inputs.len(),
                            inputs.len()
                        )));
                    }
                    for (name, _) in attrs {
                        if !f.attribute.iter().any(|a| a == name)
                            && !f.attribute_proto.iter().any(|a| a.name() == name)
                        {
                            return Err(err(format!(
                                "the function declares no attribute {name:?}"
                            )));
                        }
                    }
                    for a in &f.attribute {
                        if !attrs.iter().any(|(n, _)| n == a) {
                            return Err(err(format!("attribute {a:?} is required")));
                        }
                    }
                    return Ok((None, body.outputs.len()));
                }
                Some(FnDef::Dynamic { sig, build, .. }) => (sig.clone(), build.clone()),
                None => return Err(usage(format!("{label}: unknown function"))),
            }
        };
        if inputs.len() > sig.inputs.len() {
            return Err(err(format!(
                "takes {} inputs, got {}",
                sig.inputs.len(),
                inputs.len()
            )));
        }
        // The binding: the call's values, then the defaults.
        let mut env: crate::specialize::Env = BTreeMap::new();
        for (name, pending) in attrs {
            if !sig.attributes.iter().any(|(a, _)| a == name) {
                return Err(err(format!("the function declares no attribute {name:?}")));
            }
            match pending {
                Pending::Value(v) => {
                    env.insert(name.clone(), v.clone());
                }
                _ => {
                    return Err(err(format!(
                        "attribute {name:?}: a context-dependent function takes values only"
                    )));
                }
            }
        }
        for (name, default) in &sig.attributes {
            if env.contains_key(name) {
                continue;
            }
            match default {
                Some(d) => {
                    env.insert(name.clone(), d.clone());
                }
                None => return Err(err(format!("attribute {name:?} is required"))),
            }
        }
        let (info, key) = {
            let mut st = self.0.borrow_mut();
            st.refresh(&[]);
            let input_types: Vec<Option<Type>> = inputs
                .iter()
                .map(|v| v.and_then(|v| st.inferred.get(v.value)))
                .collect();
            let attributes: Vec<(String, AttrValue)> =
                env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let printed = crate::text::print_attributes(
                &st.model,
                &attributes
                    .iter()
                    .map(|(k, v)| Attribute {
                        name: Some(k.clone()),
                        doc_string: None,
                        kind: AttrKind::Value(v.clone()),
                    })
                    .collect::<Vec<_>>(),
            );
            let types: Vec<String> = input_types
                .iter()
                .map(|t| t.as_ref().map_or("?".into(), ToString::to_string))
                .collect();
            let key = format!("{printed} | {}", types.join(", "));
            (
                CallInfo {
                    attributes,
                    input_types,
                },
                key,
            )
        };
        // Reuse an overload made for the same binding and input types.
        {
            let mut st = self.0.borrow_mut();
            let Some(FnDef::Dynamic { made, active, .. }) = st.functions.get_mut(func.index) else {
                return Err(usage("unknown function"));
            };
            if let Some((_, f)) = made.iter().find(|(k, _)| *k == key) {
                let f = *f;
                let overload = st.model.function(f).overload.clone();
                return Ok((overload, sig.outputs.len()));
            }
            if active.contains(&key) {
                return Err(err("calls itself with the same binding".into()));
            }
            active.push(key.clone());
        }
        let base = crate::specialize::overload_id(&self.0.borrow().model, "", &env);
        let result = (|| -> Result<FunctionId> {
            let (f, ins) = {
                let mut st = self.0.borrow_mut();
                let taken = |st: &State, o: &str| {
                    st.model.functions.iter().any(|&f| {
                        let func = st.model.function(f);
                        func.domain.as_deref() == Some(&sig.domain)
                            && func.name.as_deref() == Some(&sig.name)
                            && func.overload.as_deref() == Some(o)
                    })
                };
                let mut overload = base.clone();
                let mut k = 1;
                while taken(&st, &overload) {
                    k += 1;
                    overload = format!("{base}__t{k}");
                }
                let mut plain = sig.clone();
                plain.attributes.clear();
                st.open_function(&plain, Some(overload), &info.input_types)?
            };
            let outs = build(&info, &ins);
            let mut st = self.0.borrow_mut();
            let mut plain = sig.clone();
            plain.attributes.clear();
            st.close_function(f, &plain, outs)?;
            crate::specialize::record_binding(&mut st.model, f, &env);
            Ok(f)
        })();
        let mut st = self.0.borrow_mut();
        if let Some(FnDef::Dynamic { made, active, .. }) = st.functions.get_mut(func.index) {
            active.retain(|k| *k != key);
            if let Ok(f) = &result {
                made.push((key, *f));
            }
        }
        let f = result?;
        let overload = st.model.function(f).overload.clone();
        Ok((overload, sig.outputs.len()))
    }
}
