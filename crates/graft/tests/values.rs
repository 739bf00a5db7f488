//! `graft::values`: the inputs a run needs (ONNX text in, specs out), seeded random
//! inputs, statistics of a tensor, and `.npy` both ways.

use std::collections::BTreeMap;

use bytes::Bytes;
use graft::edit::npy_tensor;
use graft::ir::{Tensor, dtype};
use graft::values::{
    DimSpec, HISTOGRAM_BINS, InputSpec, default_fill, filled_tensor, input_specs,
    max_abs_difference, npy_bytes, numbers, parse_fill, random_tensor, resolve_dims, stats,
};

fn parse(text: &str) -> graft::Model {
    graft::text::parse_model(text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .model
}

fn floats(dims: &[i64], values: &[f32]) -> Tensor {
    Tensor {
        dims: dims.to_vec(),
        data_type: Some(dtype::FLOAT),
        raw_data: Some(Bytes::from(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<_>>(),
        )),
        ..Tensor::default()
    }
}

#[test]
fn the_inputs_a_run_needs_leave_out_initialized_inputs_and_name_symbols() {
    let model = parse(
        r#"<ir_version: 8, opset_import: ["" : 18]>
        g (float[N, 3] x, int64 sr, float[2] w, float[-1, 4] z, int64[] s) => (float[N, 3] y)
        <float[2] w = {1.0, 2.0}>
        { y = Identity (x) }"#,
    );
    let specs = input_specs(&model).unwrap();
    assert_eq!(
        specs,
        vec![
            InputSpec {
                name: "x".into(),
                data_type: dtype::FLOAT,
                dims: Some(vec![DimSpec::Symbol("N".into()), DimSpec::Fixed(3)]),
            },
            InputSpec {
                name: "sr".into(),
                data_type: dtype::INT64,
                dims: Some(vec![]),
            },
            InputSpec {
                name: "z".into(),
                data_type: dtype::FLOAT,
                dims: Some(vec![DimSpec::Unknown("z[0]".into()), DimSpec::Fixed(4)]),
            },
            InputSpec {
                name: "s".into(),
                data_type: dtype::INT64,
                dims: None,
            },
        ]
    );
    let sizes = BTreeMap::from([("N".to_string(), 5)]);
    assert_eq!(resolve_dims(&specs[0], &sizes).unwrap(), vec![5, 3]);
    // A size not given is 1; a negative size is refused, naming the input.
    assert_eq!(resolve_dims(&specs[2], &sizes).unwrap(), vec![1, 4]);
    let bad = BTreeMap::from([("N".to_string(), -2)]);
    let e = resolve_dims(&specs[0], &bad).unwrap_err();
    assert!(e.contains("\"x\"") && e.contains("N"), "{e}");
    // No declared shape: nothing to fill in; a file it must be.
    let e = resolve_dims(&specs[3], &sizes).unwrap_err();
    assert!(e.contains("\"s\"") && e.contains(".npy"), "{e}");
    assert_eq!(resolve_dims(&specs[1], &sizes).unwrap(), Vec::<i64>::new());
}

#[test]
fn an_input_without_a_type_or_of_a_sequence_type_is_refused_by_name() {
    let model = parse(
        r#"<ir_version: 8, opset_import: ["" : 18]>
        g (seq(float[3]) s) => (seq(float[3]) t) { t = Identity (s) }"#,
    );
    let e = input_specs(&model).unwrap_err();
    assert!(e.contains("\"s\"") && e.contains("not a tensor"), "{e}");
}

#[test]
fn random_inputs_are_seeded_typed_and_bounded() {
    let a = random_tensor(dtype::FLOAT, &[2, 3], 7).unwrap();
    let b = random_tensor(dtype::FLOAT, &[2, 3], 7).unwrap();
    let c = random_tensor(dtype::FLOAT, &[2, 3], 8).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a.raw_data.as_ref().unwrap().len(), 24);
    let big = random_tensor(dtype::FLOAT, &[100_000], 1).unwrap();
    let s = stats(&big).unwrap();
    assert!(s.mean.unwrap().abs() < 0.02, "{s:?}");
    assert!((s.std.unwrap() - 1.0).abs() < 0.02, "{s:?}");
    let ints = numbers(&random_tensor(dtype::INT64, &[1000], 3).unwrap()).unwrap();
    assert!(
        ints.iter()
            .all(|v| (0.0..10.0).contains(v) && v.fract() == 0.0)
    );
    let bools = numbers(&random_tensor(dtype::BOOL, &[1000], 3).unwrap()).unwrap();
    assert!(bools.iter().all(|v| *v == 0.0 || *v == 1.0));
    assert!(bools.contains(&0.0) && bools.contains(&1.0));
    // Half precision: values near the float ones.
    let h = numbers(&random_tensor(dtype::FLOAT16, &[50], 9).unwrap()).unwrap();
    let f = numbers(&random_tensor(dtype::FLOAT, &[50], 9).unwrap()).unwrap();
    for (x, y) in h.iter().zip(&f) {
        assert!((x - y).abs() <= y.abs() * 1e-3 + 1e-4, "{x} {y}");
    }
    let e = random_tensor(dtype::STRING, &[2], 1).unwrap_err();
    assert!(e.contains("string") && e.contains(".npy"), "{e}");
    let e = random_tensor(dtype::FLOAT, &[1 << 20, 1 << 20], 1).unwrap_err();
    assert!(e.contains("too large"), "{e}");
}

#[test]
fn statistics_count_nan_and_inf_apart_and_bin_the_finite_values() {
    let t = floats(&[2, 3], &[1.0, -3.0, f32::NAN, f32::INFINITY, 2.0, 4.0]);
    let s = stats(&t).unwrap();
    assert_eq!(s.count, 6);
    assert_eq!((s.nan, s.inf), (1, 1));
    assert_eq!((s.min, s.max), (Some(-3.0), Some(4.0)));
    assert_eq!(s.mean, Some(1.0));
    assert!((s.std.unwrap() - 2.5495097567963922).abs() < 1e-12);
    assert_eq!(s.histogram.len(), HISTOGRAM_BINS);
    assert_eq!(s.histogram.iter().sum::<u64>(), 4);
    assert_eq!(s.histogram[0], 1);
    assert_eq!(s.histogram[HISTOGRAM_BINS - 1], 1);
    assert_eq!(s.max_abs(), Some(4.0));
    let heat = s.heat.unwrap();
    assert_eq!(
        (heat.rows, heat.cols, heat.row_step, heat.col_step),
        (2, 3, 1, 1)
    );
    assert_eq!(heat.values.len(), 6);
    // All equal: one bin. Nothing finite: no min, no bins.
    let same = stats(&floats(&[3], &[2.0, 2.0, 2.0])).unwrap();
    assert_eq!(same.histogram, vec![3]);
    let none = stats(&floats(&[1], &[f32::NAN])).unwrap();
    assert_eq!((none.min, none.mean, none.histogram.len()), (None, None, 0));
    // A tensor whose bytes do not match its shape is refused.
    let e = stats(&floats(&[4], &[1.0])).unwrap_err();
    assert!(e.contains("needs 4"), "{e}");
}

#[test]
fn a_large_slice_is_sampled_into_the_heat_map() {
    let values: Vec<f32> = (0..100 * 200).map(|i| i as f32).collect();
    let s = stats(&floats(&[1, 100, 200], &values)).unwrap();
    let heat = s.heat.unwrap();
    // Each axis has its own step: 100 rows in blocks of 3, 200 columns in blocks of
    // 5; a cell shows its block's largest value.
    assert_eq!((heat.row_step, heat.col_step), (3, 5));
    assert_eq!((heat.rows, heat.cols), (34, 40));
    assert_eq!(heat.values[0], 2.0 * 200.0 + 4.0);
    assert_eq!(heat.values[1], 2.0 * 200.0 + 9.0);
    assert_eq!(heat.values[40], 5.0 * 200.0 + 4.0);
    // The last block of rows holds the 100th alone.
    assert_eq!(heat.values[33 * 40], 99.0 * 200.0 + 4.0);
}

#[test]
fn a_wide_slice_keeps_its_rows_in_the_heat_map() {
    // rapidocr rec's [1, 40, 6625]: every row, every 139th column; not a strip.
    let values: Vec<f32> = (0..40 * 6625).map(|i| (i % 7) as f32).collect();
    let heat = stats(&floats(&[1, 40, 6625], &values))
        .unwrap()
        .heat
        .unwrap();
    assert_eq!((heat.rows, heat.row_step), (40, 1));
    assert_eq!((heat.cols, heat.col_step), (48, 139));
    assert_eq!(heat.values.len(), 40 * 48);
    // A peak between sampled columns shows (a softmax's winning class).
    let mut values = vec![0.0f32; 40 * 6625];
    values[3 * 6625 + 4000] = 0.9;
    values[5 * 6625 + 17] = -2.0;
    values[6 * 6625 + 18] = f32::NAN;
    let heat = stats(&floats(&[40, 6625], &values)).unwrap().heat.unwrap();
    assert_eq!(heat.values[3 * 48 + 4000 / 139], 0.9f32 as f64);
    assert_eq!(heat.values[5 * 48], -2.0);
    assert!(heat.values[6 * 48].is_nan());
}

#[test]
fn the_heat_scale_ignores_outliers_and_centres_zero_on_white() {
    // 0..99 with one huge outlier: the scale ends near the 98th percentile, and the
    // outlier is drawn in the end colour.
    let mut values: Vec<f32> = (0..100).map(|i| i as f32).collect();
    values[99] = 1e6;
    let heat = stats(&floats(&[10, 10], &values)).unwrap().heat.unwrap();
    assert_eq!((heat.lo, heat.hi), (2.0, 97.0));
    assert!(heat.clipped);
    // One sign: white (0.5) to red (1).
    assert_eq!(heat.shade(2.0), Some(0.5));
    assert_eq!(heat.shade(1e6), Some(1.0));
    assert_eq!(heat.shade(f64::NAN), None);
    // Both signs: symmetric about zero, which is white.
    let mixed: Vec<f32> = (0..100).map(|i| i as f32 - 30.0).collect();
    let heat = stats(&floats(&[10, 10], &mixed)).unwrap().heat.unwrap();
    assert_eq!((heat.lo, heat.hi), (-67.0, 67.0));
    assert_eq!(heat.shade(0.0), Some(0.5));
    assert!(heat.shade(-30.0).unwrap() < 0.5);
    // All negative: blue (0) to white (0.5).
    let negative: Vec<f32> = (0..100).map(|i| -(i as f32) - 1.0).collect();
    let heat = stats(&floats(&[10, 10], &negative)).unwrap().heat.unwrap();
    assert!(heat.hi < 0.0);
    assert_eq!(heat.shade(heat.hi), Some(0.5));
    assert_eq!(heat.shade(heat.lo), Some(0.0));
}

#[test]
fn an_input_is_filled_with_a_typed_value() {
    let t = filled_tensor(dtype::INT64, &[], 16000.0).unwrap();
    assert_eq!(t.dims, Vec::<i64>::new());
    assert_eq!(numbers(&t).unwrap(), vec![16000.0]);
    let t = filled_tensor(dtype::FLOAT, &[2, 3], 0.5).unwrap();
    assert_eq!(numbers(&t).unwrap(), vec![0.5; 6]);
    let t = filled_tensor(dtype::BOOL, &[2], 1.0).unwrap();
    assert_eq!(numbers(&t).unwrap(), vec![1.0, 1.0]);
    assert!(filled_tensor(dtype::STRING, &[1], 0.0).is_err());
    assert!(
        filled_tensor(dtype::FLOAT, &[1 << 40], 0.0)
            .unwrap_err()
            .contains("too large")
    );
    // What a user types, for the input's type.
    assert_eq!(parse_fill(" 16000 ", dtype::INT64), Ok(16000.0));
    assert_eq!(parse_fill("-1.5e3", dtype::FLOAT), Ok(-1500.0));
    assert_eq!(parse_fill("true", dtype::BOOL), Ok(1.0));
    let e = parse_fill("1.5", dtype::INT64).unwrap_err();
    assert_eq!(e, "`1.5` is not a whole number, as int64 needs");
    assert_eq!(
        parse_fill("300", dtype::UINT8).unwrap_err(),
        "`300` is out of uint8's range, 0 to 255"
    );
    assert_eq!(
        parse_fill("abc", dtype::FLOAT).unwrap_err(),
        "`abc` is not a number"
    );
    assert!(
        parse_fill("2", dtype::BOOL)
            .unwrap_err()
            .contains("not a bool")
    );
}

#[test]
fn an_inputs_name_gives_its_obvious_value() {
    // silero_vad's inputs: `sr` (int64) is a sample rate, `state` starts at zero, and
    // `input` says nothing.
    assert_eq!(default_fill("sr", dtype::INT64).map(|d| d.0), Some(16000.0));
    assert_eq!(default_fill("state", dtype::FLOAT).map(|d| d.0), Some(0.0));
    assert_eq!(default_fill("input", dtype::FLOAT), None);
    assert_eq!(
        default_fill("attention_mask", dtype::INT64).map(|d| d.0),
        Some(1.0)
    );
    assert_eq!(
        default_fill("token_type_ids", dtype::INT64).map(|d| d.0),
        Some(0.0)
    );
    assert_eq!(
        default_fill("past_key_values.0.key", dtype::FLOAT).map(|d| d.0),
        Some(0.0)
    );
    // The type has to fit: a float `sr` or an int `state` is left random.
    assert_eq!(default_fill("sr", dtype::FLOAT), None);
    assert_eq!(default_fill("state", dtype::INT64), None);
    assert_eq!(default_fill("input_ids", dtype::INT64), None);
    assert!(
        default_fill("sr", dtype::INT64)
            .unwrap()
            .1
            .contains("sample rate")
    );
}

#[test]
fn npy_files_round_trip_through_the_reader() {
    for t in [
        floats(&[2, 2], &[1.0, 2.0, 3.0, 4.5]),
        floats(&[3], &[1.0, 2.0, 3.0]),
        random_tensor(dtype::INT64, &[], 1).unwrap(),
        random_tensor(dtype::BOOL, &[4, 1, 2], 1).unwrap(),
    ] {
        let bytes = npy_bytes(&t).unwrap();
        // NumPy pads the header so the data starts on a 64-byte boundary.
        let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header) % 64, 0);
        let back = npy_tensor(&bytes).unwrap();
        assert_eq!(back.dims, t.dims);
        assert_eq!(back.data_type, t.data_type);
        assert_eq!(back.raw_data, t.raw_data);
    }
}

#[test]
fn the_largest_difference_counts_nan_against_a_number_as_infinite() {
    let a = floats(&[3], &[1.0, 2.0, f32::NAN]);
    let b = floats(&[3], &[1.5, 2.0, f32::NAN]);
    assert_eq!(max_abs_difference(None, &a, None, &b).unwrap(), 0.5);
    let c = floats(&[3], &[1.0, 2.0, 3.0]);
    assert_eq!(
        max_abs_difference(None, &a, None, &c).unwrap(),
        f64::INFINITY
    );
    let e = max_abs_difference(None, &a, None, &floats(&[1, 3], &[1.0, 2.0, 3.0])).unwrap_err();
    assert!(e.contains("shapes differ"), "{e}");
}

const CALLS: &str = r#"<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (float[2] x, bool c) => (float[2] y, float[2] z) {
  a = Relu (x)
  y = local.Outer (a)
  z = If (c) <then_branch = t () => (float[2] o) { o = Neg (a) },
              else_branch = e () => (float[2] o) { o = Abs (a) }>
}
<domain: "local", opset_import: ["" : 18, "local" : 1]>
Outer (p) => (q) {
  h = Neg (p)
  q = local.Inner (h)
}
<domain: "local", opset_import: ["" : 18]>
Inner (u) => (v) {
  w = Sigmoid (u)
  v = Mul (w, u)
}"#;

fn node_named(model: &graft::Model, op: &str) -> graft::ir::NodeId {
    model
        .nodes
        .iter()
        .find(|(_, n)| n.op_type() == op)
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no {op}"))
}

#[test]
fn a_probe_inlines_the_calls_down_to_the_node_and_outputs_what_it_computes() {
    let model = parse(CALLS);
    let outer = node_named(&model, "Outer");
    let inner = node_named(&model, "Inner");
    let sigmoid = node_named(&model, "Sigmoid");
    let probe = graft::values::probe(&model, &[outer, inner], sigmoid).unwrap();
    let m = &probe.model;
    assert!(m.functions.is_empty(), "both calls are inlined");
    let g = m.graph(m.graph.unwrap());
    let names: Vec<&str> = g
        .outputs
        .iter()
        .map(|o| m.value(o.value.unwrap()).name.as_str())
        .collect();
    assert_eq!(probe.outputs.len(), 1);
    assert_eq!(names, ["y", "z", probe.outputs[0].1.as_str()]);
    // The probed value is the Sigmoid's output, now in the main graph.
    let v = g.outputs[2].value.unwrap();
    let producer = match m.value(v).def {
        graft::ir::ValueDef::Node(n) => n,
        ref other => panic!("{other:?}"),
    };
    assert_eq!(m.node(producer).op_type(), "Sigmoid");
    let errors: Vec<_> = graft::check::check(m)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The original is untouched; a main-graph node needs no inlining.
    assert_eq!(model.functions.len(), 2);
    let relu = graft::values::probe(&model, &[], node_named(&model, "Relu")).unwrap();
    assert_eq!(relu.model.functions.len(), 2);
    assert_eq!(relu.outputs, vec![(0, "a".to_string())]);
}

#[test]
fn a_probe_refuses_a_node_inside_an_if_branch_naming_it() {
    let model = parse(CALLS);
    let e = graft::values::probe(&model, &[], node_named(&model, "Abs"))
        .err()
        .unwrap();
    assert!(e.contains("Abs") && e.contains("If"), "{e}");
}
