//! Attribute values that must lie in a range set by an input's rank: `axis`, `axes`
//! and `perm`. onnx's full check finds these through shape inference (and
//! onnxruntime refuses the model); Graft reports them as `infer.attribute-range`
//! errors once the rank is known.

use super::Cx;

/// How an op's attribute depends on the rank `r` of its first input.
#[derive(Copy, Clone)]
enum Rule {
    /// `axis` in `[-r, r - 1]`.
    Axis,
    /// `axis` in `[-r, r]` (Flatten).
    AxisOrEnd,
    /// each of `axes` in `[-r, r - 1]`, when `axes` is an attribute.
    Axes,
    /// each of `axes` in `[-(r + k), r + k - 1]`, `k` the number of axes (Unsqueeze).
    NewAxes,
    /// `axis` in `[-r - 1, r]` (OneHot: an axis of the output).
    NewAxis,
    /// `axis` in `[-r, r - 2]` and not -1 (DFT before opset 20: the last axis holds
    /// the real and imaginary parts).
    SignalAxis,
    /// `perm` a permutation of `0..r`.
    Perm,
}

fn rule(op: &str) -> Option<Rule> {
    Some(match op {
        "Softmax" | "LogSoftmax" | "Hardmax" | "Concat" | "Gather" | "GatherElements"
        | "ScatterElements" | "Split" | "ArgMax" | "ArgMin" | "TopK" | "LayerNormalization"
        | "LpNormalization" | "Compress" | "SplitToSequence" | "Unique" => Rule::Axis,
        "OneHot" => Rule::NewAxis,
        "DFT" => Rule::SignalAxis,
        "Flatten" => Rule::AxisOrEnd,
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" | "Squeeze" => {
            Rule::Axes
        }
        "Unsqueeze" => Rule::NewAxes,
        "Transpose" => Rule::Perm,
        _ => return None,
    })
}

impl Cx<'_, '_> {
    /// The first attribute of this node out of its range, said in the user's terms.
    pub(super) fn attribute_range(&self) -> Option<String> {
        let op = self.node.op_type();
        let rule = rule(op)?;
        let r = i64::try_from(self.shape(0)?.len()).ok()?;
        let bounded = |name: &str, v: i64, lo: i64, hi: i64| {
            (v < lo || v > hi).then(|| {
                format!(
                    "{name} = {v} is out of range for {op}: its input has rank {r}, so {name} must be in [{lo}, {hi}]"
                )
            })
        };
        match rule {
            Rule::Axis | Rule::AxisOrEnd | Rule::NewAxis => {
                let v = self.ai("axis")?;
                let (lo, hi) = match rule {
                    Rule::AxisOrEnd => (-r, r),
                    Rule::NewAxis => (-r - 1, r),
                    _ => (-r, r - 1),
                };
                bounded("axis", v, lo, hi)
            }
            Rule::SignalAxis => {
                let v = self.ai("axis")?;
                bounded("axis", v, -r, r - 2).or_else(|| {
                    (v == -1).then(|| {
                        "axis = -1 is not allowed for DFT: the last axis holds the real and imaginary parts"
                            .to_string()
                    })
                })
            }
            Rule::Axes | Rule::NewAxes => {
                let axes = self.ais("axes")?;
                let out = if matches!(rule, Rule::NewAxes) {
                    r + i64::try_from(axes.len()).ok()?
                } else {
                    r
                };
                axes.iter().find_map(|&a| bounded("axes", a, -out, out - 1))
            }
            Rule::Perm => {
                let perm = self.ais("perm")?;
                let mut seen = vec![false; usize::try_from(r).ok()?];
                let fits = perm.len() == seen.len()
                    && perm.iter().all(|&p| {
                        usize::try_from(p)
                            .ok()
                            .and_then(|p| seen.get_mut(p))
                            .is_some_and(|s| !std::mem::replace(s, true))
                    });
                (!fits).then(|| {
                    format!(
                        "perm = {perm:?} is not a permutation of 0..{r} for Transpose: its input has rank {r}"
                    )
                })
            }
        }
    }
}
