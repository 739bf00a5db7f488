//! `cargo xtask ops [--check]`: the builder's operator sets, generated from the schema
//! registry (`graft::schema`), one module per opset in [`OPSETS`]:
//! `crates/graft/src/builder/opsetNN.rs`. They are committed; `--check` (run by
//! `cargo xtask test`) fails when they are stale.

use std::fmt::Write as _;
use std::path::Path;

use graft::builder::{is_keyword, snake_case};
use graft::ir::AttrType;
use graft::schema::{self, OpSchema, ParamOption};

/// The opsets of the default domain that get an operator set.
pub const OPSETS: &[i64] = &[18, 21, 23];

pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let mut stale = Vec::new();
    for &v in OPSETS {
        let path = format!("crates/graft/src/builder/opset{v}.rs");
        let text = crate::codegen::rustfmt(&generate(v))?;
        let full = root.join(&path);
        let current = std::fs::read_to_string(&full).unwrap_or_default();
        if current == text {
            continue;
        }
        if check {
            stale.push(path);
        } else {
            std::fs::write(&full, text).map_err(|e| format!("{}: {e}", full.display()))?;
            println!("wrote {path}");
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "generated operator sets are stale: {}; run `cargo xtask ops`",
            stale.join(", ")
        ))
    }
}

/// A Rust identifier for a schema name.
fn ident(name: &str) -> String {
    let mut s: String = snake_case(name)
        .trim_end_matches('_')
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if is_keyword(&s) {
        s.push('_');
    }
    s
}

/// The first sentence of a schema's documentation, safe in a doc comment.
fn summary(doc: &str) -> String {
    let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat
        .find(". ")
        .map_or(flat.len(), |k| k + 1)
        .min(flat.len());
    let mut s: String = flat[..end].chars().take(300).collect();
    if s.matches('`').count() % 2 == 1 {
        s = s.replace('`', "");
    }
    s.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
        .replace('<', "\\<")
        .replace('>', "\\>")
        .replace('*', "\\*")
}

/// The Rust parameter type of an attribute setter and how it becomes a `Call`.
fn attr_setter(ty: AttrType, name: &str) -> (&'static str, String) {
    let n = format!("{name:?}");
    match ty {
        AttrType::Float => ("f32", format!("attr({n}, AttrValue::Float(v))")),
        AttrType::Int => ("i64", format!("attr({n}, AttrValue::Int(v))")),
        AttrType::String => ("&str", format!("attr({n}, super::string(v))")),
        AttrType::Tensor => (
            "Tensor",
            format!("attr({n}, AttrValue::Tensor(Box::new(v)))"),
        ),
        AttrType::Graph => ("Body", format!("graph({n}, v)")),
        AttrType::SparseTensor => (
            "SparseTensor",
            format!("attr({n}, AttrValue::SparseTensor(Box::new(v)))"),
        ),
        AttrType::TypeProto => ("Type", format!("attr({n}, AttrValue::TypeProto(v))")),
        AttrType::Floats => (
            "&[f32]",
            format!("attr({n}, AttrValue::Floats(v.to_vec()))"),
        ),
        AttrType::Ints => ("&[i64]", format!("attr({n}, AttrValue::Ints(v.to_vec()))")),
        AttrType::Strings => (
            "&[&str]",
            format!(
                "attr({n}, AttrValue::Strings(v.iter().map(|s| bytes::Bytes::copy_from_slice(s.as_bytes())).collect()))"
            ),
        ),
        AttrType::Tensors => ("Vec<Tensor>", format!("attr({n}, AttrValue::Tensors(v))")),
        AttrType::Graphs => ("Vec<Body>", format!("graphs({n}, v)")),
        AttrType::SparseTensors => (
            "Vec<SparseTensor>",
            format!("attr({n}, AttrValue::SparseTensors(v))"),
        ),
        AttrType::TypeProtos => ("Vec<Type>", format!("attr({n}, AttrValue::TypeProtos(v))")),
    }
}

fn default_text(a: &schema::AttributeSchema) -> String {
    match &a.default {
        Some(d) => {
            let t = format!("{d:?}");
            let t = t
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .trim_start_matches('(')
                .trim_end_matches(')');
            format!(", default `{t}`")
        }
        None if a.required => ", required".into(),
        None => String::new(),
    }
}

/// An operator needs a pending-node type when it has attributes, optional inputs or
/// more than one (or an optional) output.
fn needs_struct(s: &OpSchema) -> bool {
    !s.attributes.is_empty()
        || s.inputs.iter().any(|p| p.option == ParamOption::Optional)
        || s.max_outputs != 1
        || s.min_outputs != 1
}

fn generate(version: i64) -> String {
    let mut ops: Vec<&'static OpSchema> = schema::ops("")
        .filter_map(|op| schema::lookup("", op, version))
        .filter(|s| !s.deprecated)
        .collect();
    ops.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "//! The operators of the default domain at opset {version}: one constructor per\n\
         //! operator (deprecated ones left out), from the schema registry of onnx {}.\n\
         //! Generated by `cargo xtask ops`; do not edit. See [`super`].\n\
         #![allow(clippy::all, clippy::pedantic, unused_imports)]\n\n\
         use super::{{Body, Builder, Call, Result, Var}};\n\
         use crate::ir::{{AttrValue, SparseTensor, Tensor, Type}};\n",
        schema::onnx_version()
    );
    let _ = writeln!(
        w,
        "/// The standard operators at opset {version}.\n\
         #[derive(Clone)]\n\
         pub struct Ops(Builder);\n\n\
         impl Ops {{\n\
         /// The opset version of the default domain.\n\
         pub const VERSION: i64 = {version};\n\n\
         /// The operator set of `builder`, which uses opset {version} of the default domain\n\
         /// from now on (when it already uses another version, every call is an error).\n\
         pub fn new(builder: &Builder) -> Self {{\n\
         builder.use_opset(\"\", {version});\n\
         Ops(builder.clone())\n\
         }}\n\n\
         /// The builder this operator set adds nodes to.\n\
         pub fn builder(&self) -> &Builder {{\n&self.0\n}}\n\n\
         fn op(&self, op: &str, inputs: &[Option<&Var>]) -> Call {{\n\
         self.0.op(\"\", op, {version}, inputs)\n\
         }}"
    );
    let mut structs = String::new();
    for s in &ops {
        let method = snake_case(&s.name);
        let title = format!(
            "`{}`-{} (opset {version}). {}",
            s.name,
            s.since_version,
            summary(&s.doc)
        );
        // Positional parameters: required inputs, a variadic one as a slice.
        let mut params = Vec::new();
        let mut slots = Vec::new();
        let mut variadic = None;
        let mut used_names: Vec<String> = vec![
            "out".into(),
            "outs".into(),
            "outs_n".into(),
            "into_call".into(),
        ];
        for p in &s.inputs {
            let name = ident(&p.name);
            match p.option {
                ParamOption::Single => {
                    params.push(format!("{name}: &Var"));
                    slots.push(format!("Some({name})"));
                    used_names.push(name);
                }
                ParamOption::Optional => slots.push("None".into()),
                ParamOption::Variadic => {
                    params.push(format!("{name}: &[&Var]"));
                    variadic = Some(name.clone());
                    used_names.push(name);
                }
            }
        }
        // Trailing omitted inputs are not written (before a variadic one they hold
        // its position).
        while variadic.is_none() && slots.last().is_some_and(|x| x == "None") {
            slots.pop();
        }
        let args = if params.is_empty() {
            String::new()
        } else {
            format!(", {}", params.join(", "))
        };
        let call = match &variadic {
            Some(v) => format!("self.op({:?}, &[{}]).inputs({v})", s.name, slots.join(", ")),
            None => format!("self.op({:?}, &[{}])", s.name, slots.join(", ")),
        };
        let ty_name = {
            let mut t = String::new();
            for part in method.trim_end_matches('_').split('_') {
                let mut c = part.chars();
                if let Some(f) = c.next() {
                    t.push(f.to_ascii_uppercase());
                    t.extend(c);
                }
            }
            t
        };
        let _ = writeln!(w, "\n/// {title}");
        if needs_struct(s) {
            let _ = writeln!(
                w,
                "pub fn {method}(&self{args}) -> {ty_name} {{\n{ty_name}({call})\n}}"
            );
            // The pending node.
            let st = &mut structs;
            let _ = writeln!(
                st,
                "\n/// A pending `{}` node ([`Ops::{method}`]): set optional inputs and attributes, then\n\
                 /// `out()`, `outs()` or `outs_n(n)`.\n\
                 #[must_use = \"the node is added by out(), outs() or outs_n()\"]\n\
                 pub struct {ty_name}(Call);\n\nimpl {ty_name} {{",
                s.name
            );
            for (k, p) in s.inputs.iter().enumerate() {
                if p.option != ParamOption::Optional {
                    continue;
                }
                let mut name = ident(&p.name);
                if used_names.contains(&name) {
                    name.push_str("_input");
                }
                used_names.push(name.clone());
                let _ = writeln!(
                    st,
                    "/// Optional input {k}, `{}` ({}). {}\n\
                     pub fn {name}(self, v: &Var) -> Self {{\nSelf(self.0.input({k}, v))\n}}\n",
                    p.name,
                    p.type_str,
                    summary(&p.description)
                );
            }
            for a in &s.attributes {
                let mut name = ident(&a.name);
                if used_names.contains(&name) {
                    name.push_str("_attr");
                }
                used_names.push(name.clone());
                let (rust_ty, body) = attr_setter(a.ty, &a.name);
                let _ = writeln!(
                    st,
                    "/// Attribute `{}` ({}{}). {}\n\
                     pub fn {name}(self, v: {rust_ty}) -> Self {{\nSelf(self.0.{body})\n}}\n",
                    a.name,
                    a.ty.name(),
                    default_text(a),
                    summary(&a.description)
                );
            }
            let _ = writeln!(
                st,
                "/// Adds the node; its first output.\n\
                 pub fn out(self) -> Result<Var> {{\nself.0.out()\n}}\n\n\
                 /// Adds the node with every output it declares.\n\
                 pub fn outs(self) -> Result<Vec<Var>> {{\nself.0.outs()\n}}\n\n\
                 /// Adds the node with `n` outputs.\n\
                 pub fn outs_n(self, n: usize) -> Result<Vec<Var>> {{\nself.0.outs_n(n)\n}}\n\n\
                 /// The generic pending node (attribute references, any attribute).\n\
                 pub fn into_call(self) -> Call {{\nself.0\n}}\n}}"
            );
        } else {
            let _ = writeln!(
                w,
                "pub fn {method}(&self{args}) -> Result<Var> {{\n{call}.out()\n}}"
            );
        }
    }
    let _ = writeln!(w, "}}");
    out.push_str(&structs);
    out
}
