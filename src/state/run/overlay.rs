//! The graph coloured by a statistic of each node's outputs on the last run's inputs
//! (its largest |value|, its NaN and Inf count), or by a Model Explorer node-data
//! file; saved as one.

use super::*;

/// What the graph is coloured by: a statistic of each node's outputs on the last
/// run's inputs.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colouring {
    /// The largest absolute value among its outputs (on a log scale).
    MaxAbs,
    /// How many NaN and infinite elements its outputs hold.
    NonFinite,
    /// Per-node data read from a Model Explorer node-data file (a linear scale).
    Imported,
}

impl Colouring {
    pub fn label(self) -> &'static str {
        match self {
            Colouring::MaxAbs => "max |x|",
            Colouring::NonFinite => "NaN and Inf count",
            Colouring::Imported => "imported node data",
        }
    }
}

/// How many colours the overlay has (`g-heat-0`, the lowest, to `g-heat-7`).
pub const HEAT_CLASSES: [&str; 8] = [
    "g-heat-0", "g-heat-1", "g-heat-2", "g-heat-3", "g-heat-4", "g-heat-5", "g-heat-6", "g-heat-7",
];

/// How many decades below the largest value the max |x| colours span.
const LOG_DECADES: i32 = 4;

/// The graph's colouring: each main-graph node's statistic, and the range.
#[derive(Debug)]
pub(super) struct Overlay {
    stamp: (u64, u64),
    by: Colouring,
    /// What the values are, for the legend and an exported file's `name`.
    label: String,
    values: FxMap<NodeId, f64>,
    lo: f64,
    hi: f64,
}

impl Overlay {
    /// Its legend, while it is of the model state `stamp`.
    pub(super) fn legend(&self, stamp: (u64, u64)) -> Option<OverlayLegend> {
        (self.stamp == stamp).then(|| OverlayLegend {
            by: self.by,
            label: self.label.clone(),
            lo: self.lo,
            hi: self.hi,
            nodes: self.values.len(),
        })
    }

    fn new(stamp: (u64, u64), by: Colouring, label: String, values: FxMap<NodeId, f64>) -> Self {
        let lo = values.values().copied().fold(f64::INFINITY, f64::min);
        let hi = values.values().copied().fold(f64::NEG_INFINITY, f64::max);
        Overlay {
            stamp,
            by,
            label,
            values,
            lo: if lo.is_finite() { lo } else { 0.0 },
            hi: if hi.is_finite() { hi } else { 0.0 },
        }
    }
}

/// The id Model Explorer's ONNX adapter (model-explorer-onnx 0.4.2) gives the
/// `index`-th node of a graph: its name, or `<node_INDEX>` when it has none.
fn me_node_id(model: &graft::Model, node: NodeId, index: usize) -> String {
    let name = model.node(node).name();
    if name.is_empty() {
        format!("<node_{index}>")
    } else {
        name.to_string()
    }
}

/// The colours of [`HEAT_CLASSES`] (as `src/run/run.css` draws them), for an exported
/// node-data file's gradient.
const HEAT_COLOURS: [&str; 8] = [
    "#dbeafe", "#bfdbfe", "#bbf7d0", "#fef08a", "#fde047", "#fdba74", "#f87171", "#dc2626",
];

/// The overlay's legend, for the page.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct OverlayLegend {
    pub by: Colouring,
    pub label: String,
    pub lo: f64,
    pub hi: f64,
    pub nodes: usize,
}

impl Session {
    /// The plan for colouring the graph: the last run's inputs, every main-graph node's
    /// outputs exposed (at most [`MAX_COMPARED_NODES`] nodes); each node with its
    /// outputs' names.
    pub fn plan_overlay(&self) -> Result<(RunPlan, NodeOutputs), String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let last =
            self.last_run("Run the model first: the colours are of the last run's values.")?;
        let main = open.doc.model().graph.ok_or("The model has no graph.")?;
        let nodes: Vec<NodeId> = open
            .model()
            .graph(main)
            .nodes
            .iter()
            .copied()
            .take(MAX_COMPARED_NODES)
            .collect();
        let mut copy = open.doc.model().clone();
        let shown = graft::values::expose(&mut copy, &nodes);
        let named: Vec<(NodeId, Vec<String>)> = nodes
            .into_iter()
            .zip(shown)
            .map(|(n, outs)| (n, outs.into_iter().map(|(_, name)| name).collect()))
            .collect();
        let mut outputs: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for name in named.iter().flat_map(|(_, names)| names) {
            if seen.insert(name.clone()) {
                outputs.push(name.clone());
            }
        }
        let (opened, serial) = self.stamp();
        Ok((
            RunPlan {
                stamp: (opened, serial),
                key: format!("overlay:{opened}:{serial}"),
                model: runtime_bytes(&copy)?,
                inputs: last.inputs.clone(),
                outputs,
            },
            named,
        ))
    }

    /// Colours the graph by `by` from what the overlay run gave.
    pub fn finish_overlay(
        &mut self,
        by: Colouring,
        stamp: (u64, u64),
        nodes: NodeOutputs,
        result: Result<Named, String>,
    ) {
        if stamp != self.stamp() {
            return;
        }
        let runs = self.runs();
        runs.running = false;
        let got = match result {
            Ok(got) => got,
            Err(message) => {
                runs.error = Some(format!("The run for the colours failed: {message}"));
                return;
            }
        };
        let stats: FxMap<&str, Stats> = got
            .iter()
            .filter_map(|(n, t)| Some((n.as_str(), values::stats(t).ok()?)))
            .collect();
        let mut shown = FxMap::default();
        for (node, names) in nodes {
            let of: Vec<&Stats> = names.iter().filter_map(|n| stats.get(n.as_str())).collect();
            if of.is_empty() {
                continue;
            }
            let v = match by {
                Colouring::MaxAbs => of
                    .iter()
                    .filter_map(|s| s.max_abs())
                    .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
                Colouring::NonFinite | Colouring::Imported => {
                    Some(of.iter().map(|s| (s.nan + s.inf) as f64).sum())
                }
            };
            if let Some(v) = v {
                shown.insert(node, v);
            }
        }
        runs.error = None;
        runs.overlay = Some(Overlay::new(stamp, by, by.label().to_string(), shown));
    }

    /// The graph's colouring as a Model Explorer node-data file: the main graph's
    /// entry (by its name), each node's value under the id Model Explorer's ONNX adapter
    /// gives the node ([`me_node_id`]), and a gradient of the overlay's colours. Its
    /// file name.
    pub fn node_data_json(&self) -> Result<(String, String), String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let runs = &self.model_runs;
        let o = runs
            .overlay
            .as_ref()
            .filter(|o| runs.opened == self.opened && o.stamp == self.stamp())
            .ok_or("Colour the graph first: the file holds the colours' values.")?;
        let model = open.doc.model();
        let main = model.graph.ok_or("The model has no graph.")?;
        let mut results = serde_json::Map::new();
        for (i, &n) in model.graph(main).nodes.iter().enumerate() {
            if let Some(v) = o.values.get(&n) {
                results.insert(me_node_id(model, n, i), serde_json::json!({ "value": v }));
            }
        }
        let gradient: Vec<serde_json::Value> = HEAT_COLOURS
            .iter()
            .enumerate()
            .map(|(k, c)| {
                serde_json::json!({
                    "stop": k as f64 / (HEAT_COLOURS.len() - 1) as f64,
                    "bgColor": c,
                })
            })
            .collect();
        let graph = model.graph(main).name.clone().unwrap_or_default();
        let file = serde_json::json!({
            graph: { "name": o.label, "results": results, "gradient": gradient }
        });
        let base = open.name.trim_end_matches(".onnx");
        Ok((
            format!("{base}.node-data.json"),
            serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?,
        ))
    }

    /// Colours the graph by a Model Explorer node-data file named `label`: the entry
    /// of the main graph (by its name, else the only one), each result matched to the
    /// node of that id ([`me_node_id`]), else of that output name. A file that matches
    /// no node is refused, and the graph keeps its colours.
    pub fn load_node_data(&mut self, label: &str, text: &str) -> Result<(), String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let file: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{label}: not JSON ({e})"))?;
        let graphs = file
            .as_object()
            .ok_or_else(|| format!("{label}: not a Model Explorer node-data file"))?;
        let model = open.doc.model();
        let main = model.graph.ok_or("The model has no graph.")?;
        let name = model.graph(main).name.clone().unwrap_or_default();
        let entry = graphs
            .get(&name)
            .or_else(|| {
                (graphs.len() == 1)
                    .then(|| graphs.values().next())
                    .flatten()
            })
            .ok_or_else(|| format!("{label}: no entry for the graph {name:?}"))?;
        let results = entry["results"]
            .as_object()
            .ok_or_else(|| format!("{label}: the entry has no results"))?;
        let mut by_key: FxMap<String, NodeId> = FxMap::default();
        for (i, &n) in model.graph(main).nodes.iter().enumerate() {
            for out in model.node(n).outputs.iter().flatten() {
                by_key.insert(model.value(*out).name.clone(), n);
            }
            by_key.insert(me_node_id(model, n, i), n);
        }
        let mut values = FxMap::default();
        for (key, result) in results {
            if let (Some(&n), Some(v)) = (by_key.get(key), result["value"].as_f64()) {
                values.insert(n, v);
            }
        }
        if values.is_empty() {
            return Err(format!(
                "{label}: none of its {} results names a node of the main graph",
                results.len()
            ));
        }
        let shown = entry["name"]
            .as_str()
            .map_or_else(|| label.to_string(), str::to_string);
        let stamp = self.stamp();
        self.runs().overlay = Some(Overlay::new(stamp, Colouring::Imported, shown, values));
        Ok(())
    }

    pub fn clear_overlay(&mut self) {
        self.runs().overlay = None;
    }

    /// The colour class of a node of the drawing, while the graph is coloured.
    pub(in crate::state) fn overlay_mark(&self, item: &graft::view::Item) -> Option<svg::Mark> {
        let ItemKind::Node { node, .. } = item.kind else {
            return None;
        };
        let runs = &self.model_runs;
        let o = runs
            .overlay
            .as_ref()
            .filter(|o| runs.opened == self.opened && o.stamp == self.stamp())?;
        let v = *o.values.get(&node)?;
        let top = HEAT_CLASSES.len() - 1;
        let k = match o.by {
            Colouring::NonFinite => {
                if v > 0.0 {
                    top
                } else {
                    0
                }
            }
            Colouring::Imported => {
                if o.hi > o.lo {
                    (((v - o.lo) / (o.hi - o.lo)) * top as f64).round() as usize
                } else {
                    0
                }
            }
            Colouring::MaxAbs => {
                // Log scale over at most LOG_DECADES decades below the largest (a node
                // of zeros or booleans would otherwise squeeze every other colour into
                // the top few).
                let floor = (o.hi / 10f64.powi(LOG_DECADES))
                    .max(o.lo)
                    .max(f64::MIN_POSITIVE);
                let scale = |x: f64| x.max(floor).log10();
                let (a, b) = (scale(o.lo), scale(o.hi));
                if b > a {
                    (((scale(v) - a) / (b - a)) * top as f64).round() as usize
                } else {
                    0
                }
            }
        };
        Some(svg::Mark::class(HEAT_CLASSES[k.min(top)]))
    }
}
