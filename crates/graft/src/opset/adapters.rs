//! One adapter per schema change of a default-domain operator, keyed by the operator and
//! the `since_version` of the newer schema. A change the table does not list is
//! accepted only when the registry shows it widened the schema (see [`widens`]).

use super::ConvertError;
use super::edit::{Ctx, attribute, floats, int64s};
use crate::ir::{AttrKind, AttrValue, NodeId};
use crate::schema::{self, OpSchema, ParamOption};

/// A rewrite of the node `ctx.node`; returns whether it changed anything.
type Adapt = fn(&mut Ctx) -> Result<bool, ConvertError>;

enum Rule {
    /// Hand-written rewrites up and (when supported) down.
    Rewrite { up: Adapt, down: Option<Adapt> },
    /// Attributes (and trailing optional inputs/outputs) added with defaults that keep
    /// the old behaviour: nothing to do going up; going down they must be absent or at
    /// their default.
    Added(&'static [&'static str]),
    /// The operator was deprecated in favour of another with the same signature.
    Rename(&'static str),
}

struct Step {
    op: &'static str,
    version: i64,
    rule: Rule,
}

const fn rewrite(op: &'static str, version: i64, up: Adapt, down: Option<Adapt>) -> Step {
    Step {
        op,
        version,
        rule: Rule::Rewrite { up, down },
    }
}

const fn added(op: &'static str, version: i64, attrs: &'static [&'static str]) -> Step {
    Step {
        op,
        version,
        rule: Rule::Added(attrs),
    }
}

const STEPS: &[Step] = &[
    added("ArgMax", 12, &["select_last_index"]),
    added("ArgMin", 12, &["select_last_index"]),
    added("AveragePool", 10, &["ceil_mode"]),
    added("AveragePool", 19, &["dilations"]),
    rewrite("BatchNormalization", 7, remove_is_test, None),
    rewrite("BatchNormalization", 9, batchnorm_9, None),
    rewrite("BatchNormalization", 14, batchnorm_14, None),
    added("Cast", 19, &["saturate"]),
    // round_mode applies only to float8e8m0, which opset 24 introduces.
    added("Cast", 24, &["round_mode"]),
    added("CastLike", 19, &["saturate"]),
    added("CastLike", 24, &["round_mode"]),
    rewrite("Clip", 11, clip_up, Some(clip_down)),
    added("Constant", 11, &["sparse_value"]),
    added(
        "Constant",
        12,
        &[
            "value_float",
            "value_floats",
            "value_int",
            "value_ints",
            "value_string",
            "value_strings",
        ],
    ),
    added("DepthToSpace", 11, &["mode"]),
    rewrite("DFT", 20, dft_20, None),
    added("DequantizeLinear", 13, &["axis"]),
    added("DequantizeLinear", 21, &["block_size"]),
    added("DequantizeLinear", 23, &["output_dtype"]),
    rewrite("Dropout", 7, remove_is_test, None),
    rewrite("Dropout", 10, dropout_10, None),
    rewrite("Dropout", 12, dropout_12, Some(dropout_12_down)),
    // Erf 13 lists float types only; every model of ours uses it on floats.
    added("Erf", 13, &[]),
    added("GRU", 14, &["layout"]),
    added("GatherND", 12, &["batch_dims"]),
    rewrite("GridSample", 20, gridsample_up, Some(gridsample_down)),
    rewrite("Hardmax", 13, softmax_up, Some(softmax_down)),
    added("LSTM", 14, &["layout"]),
    rewrite("LogSoftmax", 13, softmax_up, Some(softmax_down)),
    added("LpPool", 18, &["ceil_mode", "dilations"]),
    added("MaxPool", 8, &["storage_order"]),
    added("MaxPool", 10, &["ceil_mode", "dilations"]),
    rewrite("Pad", 11, pad_up, Some(pad_down)),
    added("Pad", 18, &[]),
    added("QuantizeLinear", 13, &["axis"]),
    added("QuantizeLinear", 19, &["saturate"]),
    added("QuantizeLinear", 21, &["block_size", "output_dtype"]),
    added("QuantizeLinear", 23, &["precision"]),
    added("RNN", 14, &["layout"]),
    rewrite("ReduceL1", 18, axes_up, Some(axes_down)),
    rewrite("ReduceL2", 18, axes_up, Some(axes_down)),
    rewrite("ReduceLogSum", 18, axes_up, Some(axes_down)),
    rewrite("ReduceLogSumExp", 18, axes_up, Some(axes_down)),
    rewrite("ReduceMax", 18, axes_up, Some(axes_down)),
    rewrite("ReduceMean", 18, axes_up, Some(axes_down)),
    rewrite("ReduceMin", 18, axes_up, Some(axes_down)),
    rewrite("ReduceProd", 18, axes_up, Some(axes_down)),
    rewrite("ReduceSum", 13, axes_up, Some(axes_down)),
    rewrite("ReduceSumSquare", 18, axes_up, Some(axes_down)),
    added("Reshape", 14, &["allowzero"]),
    rewrite("Resize", 11, resize_11, None),
    rewrite("Resize", 13, resize_13, None),
    added(
        "Resize",
        18,
        &["antialias", "axes", "keep_aspect_ratio_policy"],
    ),
    rewrite("RoiAlign", 16, roialign_up, Some(roialign_down)),
    Step {
        op: "Scatter",
        version: 11,
        rule: Rule::Rename("ScatterElements"),
    },
    added("ScatterElements", 16, &["reduction"]),
    added("ScatterND", 16, &["reduction"]),
    added("Shape", 15, &["end", "start"]),
    rewrite("Slice", 10, slice_up, Some(slice_down)),
    rewrite("Softmax", 13, softmax_up, Some(softmax_down)),
    rewrite("Split", 13, split_up, Some(split_down)),
    rewrite("Split", 18, split_18_up, Some(split_18_down)),
    rewrite("Squeeze", 13, axes_up, Some(axes_down)),
    rewrite("TopK", 10, topk_up, Some(topk_down)),
    added("TopK", 11, &["largest", "sorted"]),
    rewrite("Unsqueeze", 13, axes_up, Some(axes_down)),
    rewrite("Upsample", 9, upsample_9, None),
    Step {
        op: "Upsample",
        version: 10,
        rule: Rule::Rename("Resize"),
    },
];

/// How the schema change of `op` at `version` (from the schema in force at
/// `version - 1`) is handled.
enum Found {
    Listed(&'static Rule),
    /// Not listed: the newer schema only widened the older one.
    Widened,
}

fn find(op: &str, version: i64) -> Option<Found> {
    if let Some(step) = STEPS.iter().find(|s| s.op == op && s.version == version) {
        return Some(Found::Listed(&step.rule));
    }
    let older = schema::lookup("", op, version - 1)?;
    let newer = schema::lookup("", op, version)?;
    (newer.since_version == version && widens(older, newer)).then_some(Found::Widened)
}

/// Whether there is an adapter for the change of `op` at `version` (for tests and
/// tools that list coverage).
pub fn has_adapter(op: &str, version: i64) -> bool {
    find(op, version).is_some()
}

/// The newer schema accepts everything the older one did and means the same by it:
/// not deprecated, the same inputs and outputs (an input may become optional), each
/// allowing at least the older types, and the same attributes with the same defaults.
fn widens(older: &OpSchema, newer: &OpSchema) -> bool {
    let types = |s: &OpSchema, type_str: &str| -> Vec<String> {
        s.type_constraint(type_str)
            .map_or_else(|| vec![type_str.to_string()], |c| c.allowed.clone())
    };
    let params = |a: &[schema::FormalParameter], b: &[schema::FormalParameter]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(p, q)| {
                p.name == q.name
                    && (p.option == q.option
                        || (p.option == ParamOption::Single && q.option == ParamOption::Optional))
                    && {
                        let wide = types(newer, &q.type_str);
                        types(older, &p.type_str).iter().all(|t| wide.contains(t))
                    }
            })
    };
    !newer.deprecated
        && params(&older.inputs, &newer.inputs)
        && params(&older.outputs, &newer.outputs)
        && newer.min_inputs <= older.min_inputs
        && older.attributes.len() == newer.attributes.len()
        && older
            .attributes
            .iter()
            .zip(&newer.attributes)
            .all(|(a, b)| {
                a.name == b.name
                    && a.ty == b.ty
                    && a.required == b.required
                    && a.default == b.default
            })
}

/// One step of a node's walk from version to version.
struct Walk {
    /// `since_version` of the newer schema of the step.
    version: i64,
    up: bool,
}

/// The next step for a node of `op` at version `v` on its way to `to`.
fn next(op: &str, v: i64, to: i64) -> Option<Walk> {
    if to > v {
        schema::history("", op)
            .iter()
            .map(|s| s.since_version)
            .find(|&s| s > v && s <= to)
            .map(|version| Walk { version, up: true })
    } else {
        let current = schema::lookup("", op, v)?.since_version;
        (current > to).then_some(Walk {
            version: current,
            up: false,
        })
    }
}

fn no_adapter(op: &str, walk: &Walk) -> ConvertError {
    let (from, to) = if walk.up {
        (walk.version - 1, walk.version)
    } else {
        (walk.version, walk.version - 1)
    };
    ConvertError::NoAdapter {
        op: op.to_string(),
        from,
        to,
    }
}

/// Checks that every step of a node of `op` from `from` to `to` has an adapter.
pub(crate) fn plan(op: &str, from: i64, to: i64) -> Result<(), ConvertError> {
    let mut op = op.to_string();
    let mut v = from;
    if schema::lookup("", &op, from).is_none() {
        // Not a standard op at this version (a local function, or an error the checker
        // reports): nothing to convert.
        return Ok(());
    }
    while let Some(walk) = next(&op, v, to) {
        match find(&op, walk.version) {
            None => return Err(no_adapter(&op, &walk)),
            Some(Found::Listed(Rule::Rewrite { down: None, .. })) if !walk.up => {
                return Err(no_adapter(&op, &walk));
            }
            Some(Found::Listed(Rule::Rename(_))) if !walk.up => {
                return Err(no_adapter(&op, &walk));
            }
            Some(Found::Listed(Rule::Rename(new))) => op = (*new).to_string(),
            Some(_) => {}
        }
        if schema::lookup("", &op, walk.version - 1).is_none() && !walk.up {
            return Err(no_adapter(&op, &walk));
        }
        v = if walk.up {
            walk.version
        } else {
            walk.version - 1
        };
    }
    Ok(())
}

/// Converts the node `n` from `from` to `to`; returns whether it changed.
pub(crate) fn apply(ctx: &mut Ctx, n: NodeId, from: i64, to: i64) -> Result<bool, ConvertError> {
    plan(ctx.model.node(n).op_type(), from, to)?;
    if schema::lookup("", ctx.model.node(n).op_type(), from).is_none() {
        return Ok(false);
    }
    let mut v = from;
    let mut changed = false;
    loop {
        let op = ctx.model.node(n).op_type().to_string();
        let Some(walk) = next(&op, v, to) else { break };
        let found = find(&op, walk.version).ok_or_else(|| no_adapter(&op, &walk))?;
        // An adapter that reads attributes cannot see through a reference to a
        // function attribute (`@name`, bound per call): it would take the reference
        // for an absent attribute and change the numbers. Only renames and widenings
        // going up read nothing.
        let reads_attributes = !matches!(
            (&found, walk.up),
            (Found::Listed(Rule::Rename(_)), true)
                | (Found::Listed(Rule::Added(_)) | Found::Widened, true)
        );
        if reads_attributes
            && let Some(a) = ctx
                .model
                .node(n)
                .attributes
                .iter()
                .find(|a| !matches!(a.kind, AttrKind::Value(_)))
        {
            return Err(ctx.fail(format!(
                "attribute {} refers to a function attribute or is malformed; specialize the call (or inline it) first",
                a.name()
            )));
        }
        changed |= match (found, walk.up) {
            (Found::Listed(Rule::Rewrite { up, .. }), true) => up(ctx)?,
            (
                Found::Listed(Rule::Rewrite {
                    down: Some(down), ..
                }),
                false,
            ) => down(ctx)?,
            (Found::Listed(Rule::Rename(new)), true) => {
                ctx.node_mut().op_type = Some((*new).to_string());
                true
            }
            (Found::Listed(Rule::Added(_)) | Found::Widened, true) => false,
            (Found::Listed(Rule::Added(attrs)), false) => {
                added_down(ctx, &op, walk.version, attrs)?
            }
            (Found::Widened, false) => added_down(ctx, &op, walk.version, &[])?,
            _ => return Err(no_adapter(&op, &walk)),
        };
        v = if walk.up {
            walk.version
        } else {
            walk.version - 1
        };
    }
    Ok(changed)
}

/// Going down over added attributes and trailing optional inputs/outputs: each must be
/// absent or at the newer schema's default.
fn added_down(ctx: &mut Ctx, op: &str, version: i64, attrs: &[&str]) -> Result<bool, ConvertError> {
    let (Some(newer), Some(older)) = (
        schema::lookup("", op, version),
        schema::lookup("", op, version - 1),
    ) else {
        return Err(ctx.fail("no older schema"));
    };
    let mut changed = false;
    for &name in attrs {
        let Some(given) = ctx.attr(name) else {
            continue;
        };
        let default = newer.attribute(name).and_then(|a| a.default.as_ref());
        if given.value().is_none() || given.value() != default {
            return Err(ctx.fail(format!(
                "attribute {name} does not exist before opset {version}"
            )));
        }
        ctx.remove_attr(name);
        changed = true;
    }
    // Inputs the older schema requires (Gemm's C before opset 11).
    let present = ctx.node().inputs.iter().take_while(|i| i.is_some()).count();
    if present < older.min_inputs {
        return Err(ctx.fail(format!(
            "opset {} requires {} inputs and it has {present}",
            version - 1,
            older.min_inputs
        )));
    }
    if ctx.node().inputs.len() > older.max_inputs {
        if ctx
            .node()
            .inputs
            .iter()
            .skip(older.max_inputs)
            .any(Option::is_some)
        {
            return Err(ctx.fail(format!(
                "it has more inputs than opset {} allows",
                version - 1
            )));
        }
        ctx.truncate_inputs(older.max_inputs);
        changed = true;
    }
    if ctx.node().outputs.len() > older.max_outputs {
        let extra: Vec<_> = ctx
            .node()
            .outputs
            .iter()
            .skip(older.max_outputs)
            .flatten()
            .copied()
            .collect();
        if extra.iter().any(|&v| ctx.is_used(v)) {
            return Err(ctx.fail(format!(
                "it has more outputs than opset {} allows",
                version - 1
            )));
        }
        ctx.node_mut().outputs.truncate(older.max_outputs);
        changed = true;
    }
    Ok(changed)
}

// ---- attributes that became inputs ----

/// `axes` attribute → input 1 (Squeeze/Unsqueeze 13, ReduceSum 13, the other Reduce
/// ops 18). An empty list means the same as none.
fn axes_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    match ctx.take_ints("axes")? {
        Some(axes) if !axes.is_empty() => {
            let c = ctx.add_const("axes", int64s(axes));
            ctx.set_input(1, Some(c));
            Ok(true)
        }
        Some(_) => Ok(true),
        None => Ok(false),
    }
}

/// Constant `axes` input → attribute. `noop_with_empty_axes = 1` has no older form
/// unless axes are given.
fn axes_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let axes = ctx.const_ints_input(1, "axes")?;
    let noop = ctx.int_attr("noop_with_empty_axes").unwrap_or(0);
    if noop != 0 && axes.as_ref().is_none_or(Vec::is_empty) {
        return Err(ctx.fail("noop_with_empty_axes = 1 without axes has no older form"));
    }
    let mut changed = ctx.attr("noop_with_empty_axes").is_some();
    ctx.remove_attr("noop_with_empty_axes");
    if let Some(axes) = axes {
        ctx.set_input(1, None);
        ctx.set_attr("axes", AttrValue::Ints(axes));
        changed = true;
    }
    Ok(changed)
}

fn split_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let Some(split) = ctx.take_ints("split")? else {
        return Ok(false);
    };
    let c = ctx.add_const("split", int64s(split));
    ctx.set_input(1, Some(c));
    Ok(true)
}

fn split_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let Some(split) = ctx.const_ints_input(1, "split")? else {
        return Ok(false);
    };
    ctx.set_input(1, None);
    ctx.set_attr("split", AttrValue::Ints(split));
    Ok(true)
}

/// Split 18 wants `num_outputs` when `split` is not given.
fn split_18_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if ctx.input(1).is_some() || ctx.attr("num_outputs").is_some() {
        return Ok(false);
    }
    let n = ctx.node().outputs.len() as i64;
    ctx.set_attr("num_outputs", AttrValue::Int(n));
    Ok(true)
}

/// An uneven `num_outputs` split (the last part smaller) is an error at run time
/// before 18; an even one means the same.
fn split_18_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let had = ctx.attr("num_outputs").is_some();
    ctx.remove_attr("num_outputs");
    Ok(had)
}

fn topk_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let Some(AttrValue::Int(k)) = ctx.take_attr("k")? else {
        return Err(ctx.fail("attribute k is missing or not an int"));
    };
    let c = ctx.add_const("k", int64s(vec![k]));
    ctx.set_input(1, Some(c));
    Ok(true)
}

fn topk_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let Some(&[k]) = ctx.const_ints_input(1, "k")?.as_deref() else {
        return Err(ctx.fail("k is not one constant integer"));
    };
    ctx.set_input(1, None);
    ctx.set_attr("k", AttrValue::Int(k));
    Ok(true)
}

/// Slice 10: `starts`, `ends`, `axes` attributes → inputs 1, 2, 3.
fn slice_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let starts = ctx.take_ints("starts")?;
    let ends = ctx.take_ints("ends")?;
    let axes = ctx.take_ints("axes")?;
    let (Some(starts), Some(ends)) = (starts, ends) else {
        return Err(ctx.fail("starts or ends is missing"));
    };
    let s = ctx.add_const("starts", int64s(starts));
    let e = ctx.add_const("ends", int64s(ends));
    ctx.set_input(1, Some(s));
    ctx.set_input(2, Some(e));
    if let Some(axes) = axes {
        let a = ctx.add_const("axes", int64s(axes));
        ctx.set_input(3, Some(a));
    }
    Ok(true)
}

fn slice_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if let Some(steps) = ctx.const_ints_input(4, "steps")?
        && steps.iter().any(|&s| s != 1)
    {
        return Err(ctx.fail("steps other than 1 have no older form"));
    }
    let starts = ctx.const_ints_input(1, "starts")?;
    let ends = ctx.const_ints_input(2, "ends")?;
    let axes = ctx.const_ints_input(3, "axes")?;
    let (Some(starts), Some(ends)) = (starts, ends) else {
        return Err(ctx.fail("starts or ends is missing"));
    };
    ctx.truncate_inputs(1);
    ctx.set_attr("starts", AttrValue::Ints(starts));
    ctx.set_attr("ends", AttrValue::Ints(ends));
    if let Some(axes) = axes {
        ctx.set_attr("axes", AttrValue::Ints(axes));
    }
    Ok(true)
}

/// Pad 11: `pads` → input 1, `value` → input 2 (of the data's type; 0 is the default).
fn pad_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let Some(pads) = ctx.take_ints("pads")? else {
        return Err(ctx.fail("attribute pads is missing"));
    };
    let value = ctx.take_float("value")?;
    let p = ctx.add_const("pads", int64s(pads));
    ctx.set_input(1, Some(p));
    if let Some(value) = value.filter(|&v| v != 0.0) {
        let Some(x) = ctx.input(0) else {
            return Err(ctx.fail("the data input is missing"));
        };
        let c = ctx.typed_scalar("value", value, x)?;
        ctx.set_input(2, Some(c));
    }
    Ok(true)
}

fn pad_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if ctx.input(3).is_some() {
        return Err(ctx.fail("the axes input has no older form"));
    }
    let Some(pads) = ctx.const_ints_input(1, "pads")? else {
        return Err(ctx.fail("pads is missing"));
    };
    let value = match ctx.const_floats_input(2, "constant_value")? {
        None => None,
        Some(v) => match v.as_slice() {
            &[v] => Some(v),
            _ => return Err(ctx.fail("constant_value is not one number")),
        },
    };
    ctx.truncate_inputs(1);
    ctx.set_attr("pads", AttrValue::Ints(pads));
    if let Some(v) = value {
        ctx.set_attr("value", AttrValue::Float(v));
    }
    Ok(true)
}

/// Clip 11: `min`/`max` attributes → inputs of the data's type.
fn clip_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let min = ctx.take_float("min")?;
    let max = ctx.take_float("max")?;
    if min.is_none() && max.is_none() {
        return Ok(false);
    }
    let Some(x) = ctx.input(0) else {
        return Err(ctx.fail("the input is missing"));
    };
    if let Some(min) = min {
        let c = ctx.typed_scalar("min", min, x)?;
        ctx.set_input(1, Some(c));
    }
    if let Some(max) = max {
        let c = ctx.typed_scalar("max", max, x)?;
        ctx.set_input(2, Some(c));
    }
    Ok(true)
}

fn clip_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let one = |ctx: &Ctx, i: usize, what: &str| -> Result<Option<f32>, ConvertError> {
        match ctx.const_floats_input(i, what)? {
            None => Ok(None),
            Some(v) => match v.as_slice() {
                &[v] => Ok(Some(v)),
                _ => Err(ctx.fail(format!("{what} is not one number"))),
            },
        }
    };
    let min = one(ctx, 1, "min")?;
    let max = one(ctx, 2, "max")?;
    if min.is_none() && max.is_none() {
        return Ok(false);
    }
    ctx.truncate_inputs(1);
    if let Some(min) = min {
        ctx.set_attr("min", AttrValue::Float(min));
    }
    if let Some(max) = max {
        ctx.set_attr("max", AttrValue::Float(max));
    }
    Ok(true)
}

/// DFT 20: the `axis` attribute (default 1) → a scalar input (whose default is -2).
fn dft_20(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let axis = match ctx.take_attr("axis")? {
        None => 1,
        Some(AttrValue::Int(a)) => a,
        Some(_) => return Err(ctx.fail("attribute axis is not an int")),
    };
    let mut t = int64s(vec![axis]);
    t.dims.clear();
    let c = ctx.add_const("axis", t);
    ctx.set_input(2, Some(c));
    Ok(true)
}

/// Dropout 12: `ratio` → input 1 (a float; its type is independent of the data's).
fn dropout_12(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let Some(ratio) = ctx.take_float("ratio")? else {
        return Ok(false);
    };
    let c = ctx.add_const("ratio", floats(Vec::new(), vec![ratio]));
    ctx.set_input(1, Some(c));
    Ok(true)
}

fn dropout_12_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if ctx.input(2).is_some() {
        return Err(ctx.fail("training_mode has no older form"));
    }
    let ratio = match ctx.const_floats_input(1, "ratio")? {
        None => None,
        Some(v) => match v.as_slice() {
            &[v] => Some(v),
            _ => return Err(ctx.fail("ratio is not one number")),
        },
    };
    let Some(ratio) = ratio else {
        return Ok(false);
    };
    ctx.truncate_inputs(1);
    ctx.set_attr("ratio", AttrValue::Float(ratio));
    Ok(true)
}

/// Dropout 10: the mask output became bool; a mask something reads cannot follow.
fn dropout_10(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    match ctx.node().outputs.get(1).copied().flatten() {
        Some(mask) if ctx.is_used(mask) => {
            Err(ctx.fail("its mask output, which becomes bool at opset 10, is used"))
        }
        _ => Ok(false),
    }
}

/// Dropout and BatchNormalization 7 drop `is_test` (they are inference-only).
fn remove_is_test(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let had = ctx.attr("is_test").is_some();
    ctx.remove_attr("is_test");
    Ok(had)
}

/// BatchNormalization 9 drops `spatial`; only its default (1) has a newer form.
fn batchnorm_9(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    match ctx.attr("spatial").map(|a| a.value()) {
        None => Ok(false),
        Some(Some(AttrValue::Int(1))) => {
            ctx.remove_attr("spatial");
            Ok(true)
        }
        Some(_) => Err(ctx.fail("spatial = 0 has no form in opset 9")),
    }
}

/// BatchNormalization 14: the training outputs are `running_mean`, `running_var` with
/// `training_mode = 1`; `saved_mean` and `saved_var` are gone.
fn batchnorm_14(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let outputs = ctx.node().outputs.clone();
    if outputs.iter().skip(1).all(Option::is_none) {
        let changed = outputs.len() > 1;
        ctx.node_mut().outputs.truncate(1);
        return Ok(changed);
    }
    if outputs.iter().skip(3).flatten().any(|&v| ctx.is_used(v)) {
        return Err(ctx.fail("saved_mean and saved_var are gone in opset 14"));
    }
    ctx.node_mut().outputs.truncate(3);
    ctx.set_attr("training_mode", AttrValue::Int(1));
    Ok(true)
}

// ---- Softmax, LogSoftmax, Hardmax 13 ----

/// Before 13 the input is coerced to 2-D at `axis` (default 1); from 13 the op runs
/// along `axis` alone (default -1). The same when `axis` is the last axis; otherwise
/// Flatten at `axis`, the op on the last axis, Reshape back to the input's shape.
fn softmax_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let axis = ctx.int_attr("axis").unwrap_or(1);
    let Some(x) = ctx.input(0) else {
        return Err(ctx.fail("the input is missing"));
    };
    let rank = ctx.rank(x).and_then(|r| i64::try_from(r).ok());
    if let Some(rank) = rank {
        let a = if axis < 0 { axis + rank } else { axis };
        if a == rank - 1 {
            ctx.set_attr("axis", AttrValue::Int(-1));
            return Ok(true);
        }
    }
    let Some(y) = ctx.node().outputs.first().copied().flatten() else {
        return Err(ctx.fail("the output is missing"));
    };
    let shape = ctx.add_before("Shape", vec![Some(x)], Vec::new(), "shape");
    let flat = ctx.add_before(
        "Flatten",
        vec![Some(x)],
        vec![attribute("axis", AttrValue::Int(axis))],
        "2d",
    );
    ctx.set_input(0, Some(flat));
    ctx.set_attr("axis", AttrValue::Int(-1));
    let name = ctx.fresh(&format!("{}_2d_out", ctx.model.value(y).name));
    let graph = ctx.graph();
    let y2 = ctx.model.values.push(crate::ir::Value {
        name,
        graph,
        def: crate::ir::ValueDef::Node(ctx.node),
    });
    if let Some(slot) = ctx.node_mut().outputs.first_mut() {
        *slot = Some(y2);
    }
    let (reshape, _) = ctx.add_node(
        "Reshape",
        vec![Some(y2), Some(shape)],
        Vec::new(),
        &[],
        false,
    );
    // The Reshape produces the original output value, so readers and graph outputs
    // stay as they were.
    ctx.model.nodes[reshape].outputs = vec![Some(y)];
    ctx.model.values[y].def = crate::ir::ValueDef::Node(reshape);
    Ok(true)
}

/// Going down only the last axis has the same meaning.
fn softmax_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let axis = ctx.int_attr("axis").unwrap_or(-1);
    let rank = ctx
        .input(0)
        .and_then(|x| ctx.rank(x))
        .and_then(|r| i64::try_from(r).ok());
    let last = axis == -1 || rank.is_some_and(|r| axis == r - 1);
    if !last {
        return Err(ctx.fail(
            "before opset 13 it coerces its input to 2-D; only the last axis (or a known rank) converts",
        ));
    }
    ctx.set_attr("axis", AttrValue::Int(axis));
    Ok(true)
}

// ---- Upsample, Resize ----

/// Upsample 9: `scales` attribute → input 1.
fn upsample_9(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let scales = match ctx.take_attr("scales")? {
        Some(AttrValue::Floats(s)) => s,
        _ => return Err(ctx.fail("attribute scales is missing or not floats")),
    };
    let c = ctx.add_const("scales", floats(vec![scales.len() as i64], scales));
    ctx.set_input(1, Some(c));
    Ok(true)
}

/// Resize 11: (X, scales) → (X, roi, scales) with the coordinate transformation of
/// opset 10 (asymmetric; nearest rounds down).
fn resize_11(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    let nearest = ctx.string_attr("mode").is_none_or(|m| m == "nearest");
    // Resize-10 (and Upsample) in nearest mode pick the source pixel as onnxruntime
    // does: floor when an axis grows, ceil when it shrinks. Resize-11 has one rounding
    // for all axes: constant scales must not shrink some axes while growing others.
    // Scales computed at run time are taken to grow (what Upsample is for): floor.
    let rounding = if nearest {
        let scales = ctx
            .input(1)
            .and_then(|v| ctx.const_tensor(v))
            .and_then(super::edit::tensor_floats)
            .unwrap_or_default();
        let grows = scales.iter().any(|&s| s > 1.0);
        let shrinks = scales.iter().any(|&s| s < 1.0);
        match (grows, shrinks) {
            (true, true) => {
                return Err(ctx.fail(
                    "nearest mode with some axes growing and others shrinking has no single rounding in opset 11",
                ));
            }
            (false, true) => "ceil",
            _ => "floor",
        }
    } else {
        "floor"
    };
    let scales = ctx.input(1);
    let roi = if ctx.to >= 13 {
        None
    } else {
        Some(ctx.add_const("roi", floats(vec![0], Vec::new())))
    };
    ctx.truncate_inputs(1);
    ctx.set_input(1, roi);
    ctx.set_input(2, scales);
    ctx.set_attr(
        "coordinate_transformation_mode",
        AttrValue::String("asymmetric".into()),
    );
    if nearest {
        ctx.set_attr("nearest_mode", AttrValue::String(rounding.into()));
    }
    Ok(true)
}

/// Resize 13 dropped `tf_half_pixel_for_nn`.
fn resize_13(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if ctx.string_attr("coordinate_transformation_mode").as_deref() == Some("tf_half_pixel_for_nn")
    {
        return Err(
            ctx.fail("coordinate_transformation_mode tf_half_pixel_for_nn is gone in opset 13")
        );
    }
    Ok(false)
}

// ---- renamed attribute values and changed defaults ----

fn gridsample_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    rename_mode(ctx, &[("bilinear", "linear"), ("bicubic", "cubic")])
}

fn gridsample_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    rename_mode(ctx, &[("linear", "bilinear"), ("cubic", "bicubic")])
}

fn rename_mode(ctx: &mut Ctx, pairs: &[(&str, &str)]) -> Result<bool, ConvertError> {
    let Some(mode) = ctx.string_attr("mode") else {
        return Ok(false);
    };
    match pairs.iter().find(|(old, _)| *old == mode) {
        Some((_, new)) => {
            ctx.set_attr("mode", AttrValue::String(new.to_string().into()));
            Ok(true)
        }
        None => Ok(false),
    }
}

/// RoiAlign 16 added `coordinate_transformation_mode` with a default (half_pixel)
/// that is not the old behaviour (output_half_pixel).
fn roialign_up(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if ctx.attr("coordinate_transformation_mode").is_some() {
        return Ok(false);
    }
    ctx.set_attr(
        "coordinate_transformation_mode",
        AttrValue::String("output_half_pixel".into()),
    );
    Ok(true)
}

fn roialign_down(ctx: &mut Ctx) -> Result<bool, ConvertError> {
    if ctx.string_attr("coordinate_transformation_mode").as_deref() != Some("output_half_pixel") {
        return Err(
            ctx.fail("only coordinate_transformation_mode output_half_pixel has an older form")
        );
    }
    ctx.remove_attr("coordinate_transformation_mode");
    Ok(true)
}
