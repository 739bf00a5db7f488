//! A pending node: an operator's inputs and attributes checked against its schema,
//! then added (the arenas rolled back on failure).

use super::*;

pub(super) enum Pending {
    Value(AttrValue),
    Ref(String),
    Body(Body),
    Bodies(Vec<Body>),
}

/// How many outputs the caller asks for.
#[derive(Copy, Clone)]
enum Want {
    One,
    All,
    N(usize),
}

/// A node about to be added: set inputs and attributes, then `out`, `outs` or
/// `outs_n`.
#[must_use = "a call adds nothing until out(), outs() or outs_n()"]
pub struct Call {
    pub(super) b: Builder,
    pub(super) domain: String,
    pub(super) op: String,
    pub(super) version: Option<i64>,
    pub(super) func: Option<Func>,
    pub(super) inputs: Vec<Option<Var>>,
    pub(super) attrs: Vec<(String, Pending)>,
}

impl Call {
    /// Sets input `k` (0-based), e.g. an optional one.
    pub fn input(mut self, k: usize, v: &Var) -> Self {
        if self.inputs.len() <= k {
            self.inputs.resize(k + 1, None);
        }
        self.inputs[k] = Some(*v);
        self
    }

    /// Appends inputs (a variadic parameter).
    pub fn inputs(mut self, vs: &[&Var]) -> Self {
        self.inputs.extend(vs.iter().map(|v| Some(**v)));
        self
    }

    /// Sets an attribute to a value.
    pub fn attr(mut self, name: &str, value: AttrValue) -> Self {
        self.attrs.retain(|(n, _)| n != name);
        self.attrs.push((name.to_string(), Pending::Value(value)));
        self
    }

    /// Sets an attribute to a reference to attribute `parameter` of the function
    /// whose body is being built.
    pub fn attr_ref(mut self, name: &str, parameter: &str) -> Self {
        self.attrs.retain(|(n, _)| n != name);
        self.attrs
            .push((name.to_string(), Pending::Ref(parameter.to_string())));
        self
    }

    /// Sets a GRAPH attribute.
    pub fn graph(mut self, name: &str, body: Body) -> Self {
        self.attrs.retain(|(n, _)| n != name);
        self.attrs.push((name.to_string(), Pending::Body(body)));
        self
    }

    /// Sets a GRAPHS attribute.
    pub fn graphs(mut self, name: &str, bodies: Vec<Body>) -> Self {
        self.attrs.retain(|(n, _)| n != name);
        self.attrs.push((name.to_string(), Pending::Bodies(bodies)));
        self
    }

    /// Adds the node; its first output (the others are left unused).
    pub fn out(self) -> Result<Var> {
        Ok(self.finish(Want::One)?.remove(0))
    }

    /// Adds the node with every output it declares (for If, Loop and Scan: as many as
    /// the body gives; for Split: as `num_outputs` or `split` says).
    pub fn outs(self) -> Result<Vec<Var>> {
        self.finish(Want::All)
    }

    /// Adds the node with `n` outputs.
    pub fn outs_n(self, n: usize) -> Result<Vec<Var>> {
        self.finish(Want::N(n))
    }

    fn label(&self) -> String {
        let key = if self.domain.is_empty() {
            self.op.clone()
        } else {
            format!("{}.{}", self.domain, self.op)
        };
        match self.version {
            Some(v) if self.func.is_none() => format!("{key} (opset {v})"),
            _ => key,
        }
    }

    fn finish(self, want: Want) -> Result<Vec<Var>> {
        let b = self.b.clone();
        let mark = b.0.borrow().mark();
        let result = self.add(want);
        if result.is_err() {
            b.0.borrow_mut().rollback(mark);
        }
        result
    }

    fn add(self, want: Want) -> Result<Vec<Var>> {
        let label = self.label();
        let err = |message: String| BuildError::Op {
            op: label.clone(),
            message,
        };
        let b = self.b.clone();
        // Inputs: this builder's, in scope.
        {
            let st = b.0.borrow();
            for (k, v) in self.inputs.iter().enumerate() {
                if let Some(v) = v {
                    st.check_var(v, &format!("{label}: input {k}"))?;
                }
            }
        }
        let Call {
            domain,
            op,
            version,
            func,
            inputs,
            attrs,
            ..
        } = self;
        // What is called, and how many outputs it has.
        let (overload, schema, fixed_outputs) = match func {
            Some(func) => {
                let (overload, outputs) = b.resolve_call(&func, &inputs, &attrs, &label)?;
                (overload, None, Some(outputs))
            }
            None => {
                let st = b.0.borrow();
                let known = schema::domains().any(|d| d == domain);
                let version = version.unwrap_or(1);
                if let Some(&v) = st.versions.get(&domain)
                    && v != version
                {
                    return Err(err(format!(
                        "the builder uses opset {v} of domain {domain:?}, this operator set {version}"
                    )));
                }
                let schema = if known {
                    Some(schema::lookup(&domain, &op, version).ok_or_else(|| {
                        err(format!(
                            "no operator {op} in domain {:?} at opset {version}",
                            domain
                        ))
                    })?)
                } else {
                    None
                };
                (None, schema, None)
            }
        };
        if let Some(s) = schema {
            let mut st = b.0.borrow_mut();
            st.refresh(&[]);
            check_node(&st, s, &inputs, &attrs).map_err(&err)?;
        }
        // The node, without outputs yet.
        let n = {
            let mut st = b.0.borrow_mut();
            if func.is_none() {
                let v = version.unwrap_or(1);
                st.versions.entry(domain.clone()).or_insert(v);
                st.sync_opsets();
            }
            let g = st.current();
            let n = st.model.nodes.push(Node {
                graph: g,
                op_type: Some(op.clone()),
                domain: (!domain.is_empty()).then(|| domain.clone()),
                overload: None,
                name: None,
                inputs: trim(inputs.iter().map(|v| v.map(|v| v.value)).collect()),
                outputs: Vec::new(),
                attributes: Vec::new(),
                doc_string: None,
                metadata_props: Vec::new(),
                device_configurations: Vec::new(),
            });
            st.model.graphs[g].nodes.push(n);
            if let Some(o) = &overload {
                st.model.nodes[n].overload = Some(o.clone());
                // An overload is called with its binding baked in.
            }
            n
        };
        // Attributes, bodies built in place.
        let mut built = Vec::new();
        let fn_call = func.is_some();
        for (name, pending) in attrs {
            let kind = match pending {
                Pending::Value(v) => AttrKind::Value(v),
                Pending::Ref(r) => {
                    let ty = b.ref_type(schema, &name, &r).map_err(&err)?;
                    AttrKind::Ref { name: r, ty }
                }
                Pending::Body(body) => AttrKind::Value(AttrValue::Graph(b.body(n, body)?)),
                Pending::Bodies(bodies) => {
                    let mut gs = Vec::new();
                    for body in bodies {
                        gs.push(b.body(n, body)?);
                    }
                    AttrKind::Value(AttrValue::Graphs(gs))
                }
            };
            // A call of an overload takes no attributes: they are bound in its body.
            if fn_call && overload.is_some() {
                continue;
            }
            built.push(Attribute {
                name: Some(name),
                doc_string: None,
                kind,
            });
        }
        let mut st = b.0.borrow_mut();
        built.sort_by(|a, b| a.name().cmp(b.name()));
        st.model.nodes[n].attributes = built;
        // Outputs.
        let count = match (fixed_outputs, schema) {
            (Some(k), _) => match want {
                Want::One if k >= 1 => 1,
                Want::N(m) if m <= k => m,
                Want::All => k,
                _ => return Err(err(format!("the function has {k} outputs"))),
            },
            (None, Some(s)) => output_count(&st.model, n, s, want).map_err(&err)?,
            (None, None) => match want {
                Want::One => 1,
                Want::N(m) => m,
                Want::All => {
                    return Err(err(
                        "an operator the registry does not know: give the output count with outs_n"
                            .into(),
                    ));
                }
            },
        };
        let snake = crate::ir::snake_case(&op);
        st.counter += 1;
        let c = st.counter;
        let g = st.current();
        let mut outs = Vec::new();
        for k in 0..count {
            let base = match schema.and_then(|s| s.outputs.get(k)) {
                Some(p) if count > 1 => format!("{snake}_{c}_{}", p.name),
                _ if count > 1 => format!("{snake}_{c}_{k}"),
                _ => format!("{snake}_{c}"),
            };
            let name = st.fresh(&base);
            let v = st.model.values.push(Value {
                name,
                graph: g,
                def: ValueDef::Node(n),
            });
            outs.push(v);
        }
        st.model.nodes[n].outputs = outs.iter().map(|&v| Some(v)).collect();
        st.refresh(&[n]);
        Ok(outs.into_iter().map(|v| st.var(v)).collect())
    }
}

/// Drops trailing omitted inputs.
fn trim(mut inputs: Vec<Option<ValueId>>) -> Vec<Option<ValueId>> {
    while inputs.last() == Some(&None) {
        inputs.pop();
    }
    inputs
}

/// The type as the schema's type constraints spell it: `tensor(float)`,
/// `seq(tensor(int64))`.
fn constraint_text(t: &Type) -> Option<String> {
    let elem = |e: Option<i32>| dtype::name(e.unwrap_or(0));
    Some(match t.value.as_ref()? {
        TypeValue::Tensor(tt) => format!("tensor({})", elem(tt.elem_type)?),
        TypeValue::SparseTensor(tt) => format!("sparse_tensor({})", elem(tt.elem_type)?),
        TypeValue::Sequence(inner) => format!("seq({})", constraint_text(inner.as_deref()?)?),
        TypeValue::Optional(inner) => format!("optional({})", constraint_text(inner.as_deref()?)?),
        TypeValue::Map {
            key_type,
            value_type,
        } => format!(
            "map({},{})",
            elem(*key_type)?,
            constraint_text(value_type.as_deref()?)?
        ),
        TypeValue::Opaque { .. } => return None,
    })
}

fn formal(params: &[schema::FormalParameter], k: usize) -> Option<&schema::FormalParameter> {
    params.get(k).or_else(|| {
        params
            .last()
            .filter(|p| p.option == ParamOption::Variadic && k >= params.len())
    })
}

/// The schema's checks at the call: arity, required inputs, attributes, input types.
fn check_node(
    st: &State,
    s: &OpSchema,
    inputs: &[Option<Var>],
    attrs: &[(String, Pending)],
) -> std::result::Result<(), String> {
    let present = inputs
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |k| k + 1);
    if present < s.min_inputs || present > s.max_inputs {
        let max = if s.max_inputs == schema::UNBOUNDED {
            "more".to_string()
        } else {
            s.max_inputs.to_string()
        };
        return Err(format!(
            "takes {} to {max} inputs, got {present}",
            s.min_inputs
        ));
    }
    for (k, p) in s.inputs.iter().enumerate() {
        if p.option == ParamOption::Single && inputs.get(k).is_none_or(Option::is_none) {
            return Err(format!("input {k} ({}) is required", p.name));
        }
    }
    for (name, pending) in attrs {
        let Some(a) = s.attribute(name) else {
            let known: Vec<&str> = s.attributes.iter().map(|a| a.name.as_str()).collect();
            return Err(format!(
                "{}-{} has no attribute {name:?} (it declares: {})",
                s.name,
                s.since_version,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        let given = match pending {
            Pending::Value(v) => Some(v.attr_type()),
            Pending::Ref(_) => None,
            Pending::Body(_) => Some(AttrType::Graph),
            Pending::Bodies(_) => Some(AttrType::Graphs),
        };
        if let Some(t) = given
            && t != a.ty
        {
            return Err(format!(
                "attribute {name:?} is {}, given {}",
                a.ty.name(),
                t.name()
            ));
        }
    }
    for a in &s.attributes {
        if a.required && !attrs.iter().any(|(n, _)| *n == a.name) {
            return Err(format!("attribute {:?} is required", a.name));
        }
    }
    // Element types against the type constraints.
    let mut bound: Vec<(&str, String, usize)> = Vec::new();
    for (k, v) in inputs.iter().enumerate() {
        let (Some(v), Some(p)) = (v, formal(&s.inputs, k)) else {
            continue;
        };
        let Some(t) = st.inferred.get(v.value).and_then(|t| constraint_text(&t)) else {
            continue;
        };
        let pname = if k >= s.inputs.len() {
            format!("{} #{k}", p.name)
        } else {
            p.name.clone()
        };
        match s.type_constraint(&p.type_str) {
            Some(tc) => {
                let allowed = |x: &String| x.replace(' ', "") == t;
                if !tc.allowed.iter().any(allowed) {
                    return Err(format!(
                        "input {pname} is {t}, but {} allows {}",
                        tc.name,
                        tc.allowed.join(", ")
                    ));
                }
                let homogeneous = k < s.inputs.len() || p.homogeneous;
                match bound.iter().find(|(n, _, _)| *n == p.type_str) {
                    Some((_, other, j)) if homogeneous && *other != t => {
                        let first = formal(&s.inputs, *j).map_or("?", |q| q.name.as_str());
                        return Err(format!(
                            "inputs {first} and {pname} share type {} but are {other} and {t}",
                            tc.name
                        ));
                    }
                    Some(_) => {}
                    None => bound.push((p.type_str.as_str(), t, k)),
                }
            }
            None => {
                if p.type_str.replace(' ', "") != t {
                    return Err(format!("input {pname} is {t}, but must be {}", p.type_str));
                }
            }
        }
    }
    Ok(())
}

/// How many outputs the new node `n` of schema `s` gets.
fn output_count(
    model: &Model,
    n: NodeId,
    s: &OpSchema,
    want: Want,
) -> std::result::Result<usize, String> {
    let variadic = s.max_outputs == schema::UNBOUNDED;
    let fits = |k: usize| k >= s.min_outputs && k <= s.max_outputs;
    match want {
        Want::One => {
            if s.min_outputs > 1 {
                Err(format!(
                    "has {} outputs; use outs() to get them all",
                    s.min_outputs
                ))
            } else {
                Ok(1)
            }
        }
        Want::N(k) if fits(k) => Ok(k),
        Want::N(k) => Err(format!(
            "takes {} to {} outputs, asked for {k}",
            s.min_outputs,
            if variadic {
                "more".to_string()
            } else {
                s.max_outputs.to_string()
            }
        )),
        Want::All if !variadic => Ok(s.outputs.len()),
        Want::All => {
            let node = model.node(n);
            let graph_outputs = |name: &str| {
                node.attributes
                    .iter()
                    .find(|a| a.name() == name)
                    .and_then(|a| match a.value() {
                        Some(AttrValue::Graph(g)) => Some(model.graph(*g).outputs.len()),
                        _ => None,
                    })
            };
            let count = match s.name.as_str() {
                "If" => graph_outputs("then_branch"),
                "Loop" => graph_outputs("body").map(|k| k.saturating_sub(1)),
                "Scan" => graph_outputs("body"),
                "Split" => node
                    .attributes
                    .iter()
                    .find_map(|a| match (a.name(), a.value()) {
                        ("num_outputs", Some(AttrValue::Int(k))) => usize::try_from(*k).ok(),
                        ("split", Some(AttrValue::Ints(v))) => Some(v.len()),
                        _ => None,
                    }),
                _ => None,
            };
            count
                .filter(|&k| fits(k))
                .ok_or_else(|| "has a variadic output; give the count with outs_n".to_string())
        }
    }
}
