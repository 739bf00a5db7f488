//! The builders' text parses and checks for every case of [`cases`]; refusals say why.
//! `dump_cases` (ignored) writes the cases for `tests/interop/standard_numerics.py`.

use bytes::Bytes;

use super::{CallSite, context_dependent_body};
use crate::Severity;
use crate::ir::{AttrKind, AttrValue, Attribute};

const F32: i32 = 1;
const I32: i32 = 6;
const I64: i32 = 7;
const F64: i32 = 11;
const F16: i32 = 10;
const BOOL: i32 = 9;

/// One call site: the op at an opset, its attributes, and per input position the
/// element type (`None`: omitted).
struct Case {
    name: String,
    op: &'static str,
    opset: i64,
    attrs: Vec<(&'static str, AttrValue)>,
    inputs: Vec<Option<i32>>,
    outputs: usize,
}

impl Case {
    fn new(op: &'static str, opset: i64, inputs: &[Option<i32>], outputs: usize) -> Self {
        let types: Vec<String> = inputs
            .iter()
            .map(|t| t.map_or_else(|| "none".to_string(), |t| t.to_string()))
            .collect();
        Case {
            name: format!("{op}_{opset}_t{}", types.join("_")),
            op,
            opset,
            attrs: Vec::new(),
            inputs: inputs.to_vec(),
            outputs,
        }
    }

    fn attr(mut self, name: &'static str, value: AttrValue) -> Self {
        self.name.push('_');
        self.name.push_str(name);
        self.name.push('_');
        let v = match &value {
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(f) => format!("{f:?}"),
            AttrValue::String(s) => String::from_utf8_lossy(s).into_owned(),
            AttrValue::Ints(v) => v.iter().map(i64::to_string).collect::<Vec<_>>().join("_"),
            _ => "x".into(),
        };
        self.name.extend(
            v.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { 'm' }),
        );
        self.attrs.push((name, value));
        self
    }

    fn attributes(&self) -> Vec<Attribute> {
        self.attrs
            .iter()
            .map(|(name, value)| Attribute {
                name: Some((*name).to_string()),
                doc_string: None,
                kind: AttrKind::Value(value.clone()),
            })
            .collect()
    }

    fn build(&self) -> Option<Result<String, String>> {
        let attributes = self.attributes();
        let site = CallSite {
            op: self.op,
            opset: self.opset,
            attributes: &attributes,
            inputs: self.inputs.iter().map(|t| t.map(Some)).collect(),
        };
        context_dependent_body(&site)
    }
}

fn int(v: i64) -> AttrValue {
    AttrValue::Int(v)
}

fn float(v: f32) -> AttrValue {
    AttrValue::Float(v)
}

fn string(v: &str) -> AttrValue {
    AttrValue::String(Bytes::copy_from_slice(v.as_bytes()))
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::Ints(v.to_vec())
}

/// Every case the numerics script runs: each builder at each of its body opsets, over
/// attribute values, omitted inputs and element types.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let t = Some;
    // Clip-13: which bounds are passed, over types.
    for ty in [F32, F64, I32, I64, F16] {
        for (min, max) in [(true, true), (true, false), (false, true), (false, false)] {
            let mut inputs = vec![t(ty), min.then_some(ty), max.then_some(ty)];
            while inputs.last() == Some(&None) {
                inputs.pop();
            }
            out.push(Case::new("Clip", 13, &inputs, 1));
        }
    }
    // Softmax-13 and LogSoftmax-13 at the opsets of their two bodies (and one above).
    for op in ["Softmax", "LogSoftmax"] {
        for opset in [13, 18] {
            out.push(Case::new(op, opset, &[t(F32)], 1));
            for axis in [-1, 0, 1, 2, -3] {
                out.push(Case::new(op, opset, &[t(F32)], 1).attr("axis", int(axis)));
            }
            out.push(Case::new(op, opset, &[t(F64)], 1).attr("axis", int(1)));
        }
        out.push(Case::new(op, 21, &[t(F32)], 1).attr("axis", int(0)));
    }
    // LayerNormalization-17 at 17 and 18.
    for opset in [17, 18] {
        for ty in [F32, F64, F16] {
            out.push(Case::new(
                "LayerNormalization",
                opset,
                &[t(ty), t(ty), t(ty)],
                3,
            ));
        }
        for axis in [-2, 0, 1, 2, -3] {
            out.push(
                Case::new("LayerNormalization", opset, &[t(F32), t(F32), t(F32)], 3)
                    .attr("axis", int(axis)),
            );
        }
        out.push(
            Case::new("LayerNormalization", opset, &[t(F32), t(F32)], 3)
                .attr("axis", int(1))
                .attr("epsilon", float(1e-2)),
        );
        out.push(
            Case::new("LayerNormalization", opset, &[t(F16), t(F16)], 1).attr("stash_type", int(1)),
        );
    }
    out.push(Case::new(
        "LayerNormalization",
        21,
        &[t(F32), t(F32), t(F32)],
        3,
    ));
    // GroupNormalization-18 and -21.
    for (opset, stashes) in [(18, &[None][..]), (21, &[None, Some(1), Some(11)][..])] {
        for ty in [F32, F64, F16] {
            for &stash in stashes {
                for groups in [1, 2, 4] {
                    let mut c = Case::new("GroupNormalization", opset, &[t(ty), t(ty), t(ty)], 1)
                        .attr("num_groups", int(groups));
                    if let Some(s) = stash {
                        c = c.attr("stash_type", int(s));
                    }
                    out.push(c);
                }
            }
        }
        out.push(
            Case::new("GroupNormalization", opset, &[t(F32), t(F32), t(F32)], 1)
                .attr("num_groups", int(2))
                .attr("epsilon", float(0.1)),
        );
    }
    // RMSNormalization-23.
    for ty in [F32, F64, F16] {
        for stash in [1, 11] {
            out.push(
                Case::new("RMSNormalization", 23, &[t(ty), t(ty)], 1)
                    .attr("stash_type", int(stash)),
            );
        }
    }
    for axis in [0, 1, 2, -2, -3] {
        out.push(
            Case::new("RMSNormalization", 23, &[t(F32), t(F32)], 1)
                .attr("axis", int(axis))
                .attr("epsilon", float(1e-3)),
        );
    }
    // Gelu-20.
    for ty in [F32, F64, F16] {
        out.push(Case::new("Gelu", 20, &[t(ty)], 1));
        out.push(Case::new("Gelu", 20, &[t(ty)], 1).attr("approximate", string("tanh")));
        out.push(Case::new("Gelu", 20, &[t(ty)], 1).attr("approximate", string("none")));
    }
    // Celu-12.
    out.push(Case::new("Celu", 12, &[t(F32)], 1));
    for alpha in [2.0, 0.5, 1.7] {
        out.push(Case::new("Celu", 12, &[t(F32)], 1).attr("alpha", float(alpha)));
    }
    // CastLike at each of its versions.
    for opset in [15, 19, 21, 23, 24, 25] {
        for to in [F32, F64, F16, I32, I64, BOOL] {
            out.push(Case::new("CastLike", opset, &[t(F32), t(to)], 1));
        }
        if opset >= 19 {
            out.push(Case::new("CastLike", opset, &[t(F32), t(F16)], 1).attr("saturate", int(0)));
        }
    }
    out.push(Case::new("CastLike", 25, &[t(F32), t(I32)], 1).attr("round_mode", string("down")));
    // Range-27.
    for ty in [F32, F64, I32, I64] {
        out.push(Case::new("Range", 27, &[t(ty), t(ty), t(ty)], 1));
    }
    out.push(Case::new("Range", 27, &[t(F16), t(F16), t(F16)], 1));
    out.push(Case::new("Range", 27, &[t(F16), t(F16), t(F16)], 1).attr("stash_type", int(11)));
    out.push(Case::new("Range", 27, &[t(F32), t(F32), t(F32)], 1).attr("stash_type", int(10)));
    // DepthToSpace-28 and SpaceToDepth-28.
    for op in ["DepthToSpace", "SpaceToDepth"] {
        for ty in [F32, I64] {
            for block in [2, 3] {
                out.push(Case::new(op, 28, &[t(ty)], 1).attr("blocksize", int(block)));
                for mode in ["DCR", "CRD"] {
                    out.push(
                        Case::new(op, 28, &[t(ty)], 1)
                            .attr("blocksize", int(block))
                            .attr("mode", string(mode)),
                    );
                }
            }
        }
    }
    // CenterCropPad-18.
    out.push(Case::new("CenterCropPad", 18, &[t(F32), t(I64)], 1));
    for axes in [&[1, -1][..], &[0], &[2, 0]] {
        out.push(Case::new("CenterCropPad", 18, &[t(F32), t(I64)], 1).attr("axes", ints(axes)));
    }
    out
}

/// The text parses with no error and declares every formal of the schema.
fn parses(name: &str, text: &str) {
    let mut imported = match crate::text::parse_function(text) {
        Ok(i) => i,
        Err(e) => panic!("{name}: {e}\n{text}"),
    };
    let errors: Vec<_> = imported
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{text}");
    let model = &mut imported.model;
    assert_eq!(model.functions.len(), 1, "{name}");
    // The checker on the function (in a model of the current IR; there is no graph).
    model.ir_version = Some(10);
    let checked: Vec<_> = crate::check::check(model)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .filter(|d| d.code != "check.graph-missing")
        .collect();
    assert!(checked.is_empty(), "{name}: {checked:?}\n{text}");
}

#[test]
fn every_case_builds_and_parses() {
    let cases = cases();
    assert!(cases.len() > 150, "{}", cases.len());
    for case in &cases {
        let text = match case.build() {
            Some(Ok(text)) => text,
            other => panic!("{}: {other:?}", case.name),
        };
        parses(&case.name, &text);
    }
}

#[test]
fn case_names_are_unique() {
    let mut names: Vec<String> = cases().into_iter().map(|c| c.name).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}

fn build(op: &'static str, opset: i64, inputs: &[Input]) -> Option<Result<String, String>> {
    build_with(op, opset, inputs, &[])
}

fn build_with(
    op: &'static str,
    opset: i64,
    inputs: &[Input],
    attrs: &[(&'static str, AttrValue)],
) -> Option<Result<String, String>> {
    let attributes: Vec<Attribute> = attrs
        .iter()
        .map(|(n, v)| Attribute {
            name: Some((*n).to_string()),
            doc_string: None,
            kind: AttrKind::Value(v.clone()),
        })
        .collect();
    context_dependent_body(&CallSite {
        op,
        opset,
        attributes: &attributes,
        inputs: inputs.to_vec(),
    })
}

fn ok(r: Option<Result<String, String>>) -> String {
    match r {
        Some(Ok(text)) => text,
        other => panic!("{other:?}"),
    }
}

fn err(r: Option<Result<String, String>>) -> String {
    match r {
        Some(Err(reason)) => reason,
        other => panic!("{other:?}"),
    }
}

/// A [`CallSite`] input: omitted, untyped, or of an element type.
type Input = Option<Option<i32>>;

const TYPED: Input = Some(Some(F32));
const UNTYPED: Input = Some(None);

#[test]
fn no_builder_without_a_context_dependent_body() {
    // No context-dependent body at these versions, or not an operator with one.
    assert!(build("Softmax", 12, &[TYPED]).is_none());
    assert!(build("Clip", 12, &[TYPED, TYPED, TYPED]).is_none());
    assert!(build("Relu", 21, &[TYPED]).is_none());
    assert!(build("NoSuchOp", 21, &[TYPED]).is_none());
    assert!(build("Range", 26, &[TYPED, TYPED, TYPED]).is_none());
    // A context-dependent body that no builder writes.
    assert!(build("RotaryEmbedding", 23, &[TYPED, TYPED, TYPED]).is_none());
}

#[test]
fn the_body_is_written_for_the_newest_body_opset_at_or_below_the_call() {
    let at = |op, opset, inputs: &[Input]| {
        let text = ok(build(op, opset, inputs));
        text.lines().next().unwrap_or_default().to_string()
    };
    assert!(at("Softmax", 13, &[TYPED]).contains("[\"\" : 13]"));
    assert!(at("Softmax", 17, &[TYPED]).contains("[\"\" : 13]"));
    assert!(at("Softmax", 18, &[TYPED]).contains("[\"\" : 18]"));
    assert!(at("Softmax", 24, &[TYPED]).contains("[\"\" : 18]"));
    assert!(at("CastLike", 22, &[TYPED, TYPED]).contains("[\"\" : 21]"));
}

#[test]
fn clip_uses_only_the_bounds_the_call_passes() {
    let both = ok(build("Clip", 13, &[TYPED, TYPED, TYPED]));
    assert!(both.contains("Less (input, min)") && both.contains("Less (max, raised)"));
    let min = ok(build("Clip", 13, &[TYPED, TYPED]));
    assert!(min.contains("min") && !min.contains("Less (max"));
    let max = ok(build("Clip", 13, &[TYPED, None, TYPED]));
    assert!(max.contains("Where (above, max, input)") && !max.contains("Less (input, min)"));
    let none = ok(build("Clip", 13, &[UNTYPED]));
    assert!(none.contains("output = Identity (input)"));
    // Every formal is declared whatever the call passes.
    assert!(none.contains("Clip (input, min, max) => (output)"));
}

#[test]
fn attribute_values_are_baked_in() {
    let text = ok(build_with("Softmax", 13, &[UNTYPED], &[("axis", int(2))]));
    assert!(text.contains("axes: ints = [2]"), "{text}");
    assert!(text.contains("int64[1] {2}"), "{text}");
    let text = ok(build_with(
        "LayerNormalization",
        18,
        &[TYPED, TYPED],
        &[("epsilon", float(0.25)), ("axis", int(1))],
    ));
    assert!(text.contains("float {0.25}"), "{text}");
    assert!(text.contains("Flatten <axis: int = 1> (X)"), "{text}");
    assert!(text.contains("shifted = Identity (scaled)"), "{text}");
    // Defaults from the schema.
    let text = ok(build("LayerNormalization", 17, &[TYPED, TYPED, TYPED]));
    assert!(text.contains("float {1e-5}"), "{text}");
    assert!(text.contains("Flatten <axis: int = -1> (X)"), "{text}");
    assert!(text.contains("<axis, epsilon, stash_type>"), "{text}");
    let text = ok(build("CastLike", 21, &[UNTYPED, Some(Some(I64))]));
    assert!(text.contains("Cast <to: int = 7> (input)"), "{text}");
    // saturate and round_mode where they apply: float8 targets, float8e8m0.
    let f8 = Some(Some(17));
    let text = ok(build("CastLike", 21, &[UNTYPED, f8]));
    assert!(
        text.contains("Cast <to: int = 17, saturate: int = 1> (input)"),
        "{text}"
    );
    let text = ok(build_with(
        "CastLike",
        19,
        &[UNTYPED, f8],
        &[("saturate", int(0))],
    ));
    assert!(
        text.contains("Cast <to: int = 17, saturate: int = 0> (input)"),
        "{text}"
    );
    parses("CastLike", &text);
    let e8m0 = Some(Some(24));
    let text = ok(build_with(
        "CastLike",
        25,
        &[UNTYPED, e8m0],
        &[("round_mode", string("down"))],
    ));
    assert!(
        text.contains("Cast <to: int = 24, saturate: int = 1, round_mode: string = \"down\">"),
        "{text}"
    );
    parses("CastLike", &text);
    let text = ok(build_with(
        "CastLike",
        25,
        &[UNTYPED, f8],
        &[("round_mode", string("down"))],
    ));
    assert!(
        text.contains("Cast <to: int = 17, saturate: int = 1> (input)"),
        "{text}"
    );
    let text = ok(build("CastLike", 15, &[UNTYPED, Some(Some(I64))]));
    assert!(text.contains("Cast <to: int = 7> (input)"), "{text}");
    let text = ok(build("Gelu", 20, &[UNTYPED]));
    assert!(text.contains("Erf") && !text.contains("Tanh"), "{text}");
}

#[test]
fn a_needed_element_type_the_model_does_not_state_is_an_error() {
    let cases: [(&'static str, i64, &[Input], &str); 6] = [
        ("LayerNormalization", 17, &[UNTYPED, TYPED], "input X"),
        (
            "GroupNormalization",
            21,
            &[UNTYPED, TYPED, TYPED],
            "input X",
        ),
        (
            "GroupNormalization",
            18,
            &[UNTYPED, TYPED, TYPED],
            "input X",
        ),
        ("RMSNormalization", 23, &[UNTYPED, TYPED], "input X"),
        ("CastLike", 19, &[TYPED, UNTYPED], "input target_type"),
        ("Range", 27, &[UNTYPED, TYPED, TYPED], "input start"),
    ];
    for (op, opset, inputs, what) in cases {
        let attrs = [("num_groups", int(1))];
        let attrs = if op == "GroupNormalization" {
            &attrs[..]
        } else {
            &[]
        };
        let reason = err(build_with(op, opset, inputs, attrs));
        assert!(reason.contains(what), "{op}: {reason}");
        assert!(
            reason.contains("the model does not state it"),
            "{op}: {reason}"
        );
    }
    // Builders that need no type do not ask for one.
    for (op, opset, n) in [
        ("Softmax", 13, 1),
        ("Clip", 13, 3),
        ("Gelu", 20, 1),
        ("Celu", 12, 1),
    ] {
        let inputs = vec![UNTYPED; n];
        parses(op, &ok(build(op, opset, &inputs)));
    }
    let d2s = ok(build_with(
        "DepthToSpace",
        28,
        &[UNTYPED],
        &[("blocksize", int(2))],
    ));
    parses("DepthToSpace", &d2s);
}

#[test]
fn what_onnx_refuses_is_refused_with_a_reason() {
    let r = err(build_with(
        "LayerNormalization",
        17,
        &[TYPED, TYPED],
        &[("stash_type", int(10))],
    ));
    assert!(r.contains("stash_type 10"), "{r}");
    let r = err(build_with(
        "GroupNormalization",
        21,
        &[TYPED, TYPED, TYPED],
        &[],
    ));
    assert!(r.contains("num_groups"), "{r}");
    let r = err(build_with(
        "GroupNormalization",
        21,
        &[TYPED, TYPED, TYPED],
        &[("num_groups", int(1)), ("stash_type", int(7))],
    ));
    assert!(r.contains("stash_type 7"), "{r}");
    let r = err(build_with(
        "RMSNormalization",
        23,
        &[TYPED, TYPED],
        &[("stash_type", int(6))],
    ));
    assert!(r.contains("stash_type 6"), "{r}");
    let half = Some(Some(F16));
    let r = err(build_with(
        "Range",
        27,
        &[half, half, half],
        &[("stash_type", int(10))],
    ));
    assert!(r.contains("stash_type 10"), "{r}");
    let r = err(build("DepthToSpace", 28, &[TYPED]));
    assert!(r.contains("blocksize"), "{r}");
    let r = err(build_with(
        "SpaceToDepth",
        28,
        &[TYPED],
        &[("blocksize", int(0))],
    ));
    assert!(r.contains("positive"), "{r}");
    let r = err(build_with(
        "DepthToSpace",
        28,
        &[TYPED],
        &[("blocksize", int(i64::MAX))],
    ));
    assert!(r.contains("too large"), "{r}");
    let r = err(build_with(
        "DepthToSpace",
        28,
        &[TYPED],
        &[("blocksize", int(2)), ("mode", string("XYZ"))],
    ));
    assert!(r.contains("mode"), "{r}");
    let r = err(build_with(
        "Gelu",
        20,
        &[TYPED],
        &[("approximate", string("erf"))],
    ));
    assert!(r.contains("approximate"), "{r}");
    let r = err(build_with(
        "Celu",
        12,
        &[TYPED],
        &[("alpha", float(f32::NAN))],
    ));
    assert!(r.contains("non-finite"), "{r}");
    let r = err(build_with("Softmax", 13, &[TYPED], &[("axis", float(1.0))]));
    assert!(r.contains("must be an int"), "{r}");
    let r = err(build("GroupNormalization", 18, &[TYPED, TYPED]));
    assert!(r.contains("num_groups") || r.contains("bias"), "{r}");
    let r = err(build_with("LayerNormalization", 17, &[TYPED], &[]));
    assert!(r.contains("input Scale"), "{r}");
    let e8m0 = Some(Some(24));
    let r = err(build_with(
        "CastLike",
        25,
        &[TYPED, e8m0],
        &[("round_mode", string("a\"b"))],
    ));
    assert!(r.contains("round_mode"), "{r}");
}

#[test]
fn an_attribute_reference_is_refused_not_followed() {
    let attributes = [Attribute {
        name: Some("axis".into()),
        doc_string: None,
        kind: AttrKind::Ref {
            name: "a".into(),
            ty: crate::ir::AttrType::Int,
        },
    }];
    let r = context_dependent_body(&CallSite {
        op: "Softmax",
        opset: 13,
        attributes: &attributes,
        inputs: vec![TYPED],
    });
    assert!(err(r).contains("not a value"));
}

/// Writes every case for `tests/interop/standard_numerics.py`: `NAME.onnxtxt` (the
/// body) and `cases.json` (the call: op, opset, attributes, input types, outputs) in
/// the directory `GRAFT_BUILDER_DUMP` names.
#[test]
#[ignore = "writes files; run by tests/interop/standard_numerics.py"]
fn dump_cases() {
    let Ok(dir) = std::env::var("GRAFT_BUILDER_DUMP") else {
        panic!("set GRAFT_BUILDER_DUMP to a directory");
    };
    let dir = std::path::PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    let mut manifest = String::from("[\n");
    let cases = cases();
    for (i, case) in cases.iter().enumerate() {
        let text = ok(case.build());
        let file = format!("{}.onnxtxt", case.name);
        if let Err(e) = std::fs::write(dir.join(&file), &text) {
            panic!("{file}: {e}");
        }
        let attrs: Vec<String> = case
            .attrs
            .iter()
            .map(|(name, value)| {
                let v = match value {
                    AttrValue::Int(i) => i.to_string(),
                    AttrValue::Float(f) => format!("{f:?}"),
                    AttrValue::String(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
                    AttrValue::Ints(v) => format!(
                        "[{}]",
                        v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                    ),
                    other => panic!("{other:?}"),
                };
                format!("\"{name}\": {v}")
            })
            .collect();
        let inputs: Vec<String> = case
            .inputs
            .iter()
            .map(|t| t.map_or_else(|| "null".into(), |t| t.to_string()))
            .collect();
        manifest.push_str(&format!(
            "  {{\"name\": \"{}\", \"op\": \"{}\", \"opset\": {}, \"attrs\": {{{}}}, \"inputs\": [{}], \"outputs\": {}, \"file\": \"{file}\"}}{}\n",
            case.name,
            case.op,
            case.opset,
            attrs.join(", "),
            inputs.join(", "),
            case.outputs,
            if i + 1 < cases.len() { "," } else { "" }
        ));
    }
    manifest.push_str("]\n");
    if let Err(e) = std::fs::write(dir.join("cases.json"), manifest) {
        panic!("cases.json: {e}");
    }
}
