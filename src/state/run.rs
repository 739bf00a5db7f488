//! Running the open model: the inputs a run gets (seeded random ones with the
//! symbolic dimensions the user gave, an `.npy` file, or the last run's), the plan the
//! engine hands to onnxruntime-web, and what came out, summed up for the Run tab. The
//! session keeps the user's choices across edits (they are about the inputs, which
//! edits seldom change) and the last run with the model state it ran on. The graph
//! coloured by the last run's values is `run/overlay.rs`.

use std::collections::BTreeMap;

use graft::ir::Tensor;
use graft::values::{self, InputSpec, Stats};
use serde::{Deserialize, Serialize};

use super::*;

/// The most matched nodes whose values a comparison run compares (and the most
/// nodes the colouring exposes).
const MAX_COMPARED_NODES: usize = 5_000;

mod compare;
mod overlay;
pub use compare::RunComparison;
use overlay::Overlay;
pub use overlay::{Colouring, HEAT_CLASSES, OverlayLegend};

/// What the user chose for the next run, and the last run.
#[derive(Default, Debug)]
pub(super) struct Runs {
    /// The model (`Session::opened`) the inputs and the last run are of: another
    /// model opened clears them (the sizes and the seed stay).
    opened: u64,
    /// Whether the bundled example's inputs were given (once per open).
    example_given: bool,
    /// Sizes of symbolic dimensions, by symbol.
    sizes: BTreeMap<String, i64>,
    seed: u64,
    /// Inputs given as arrays (a file, an example's input, the last run's), by name.
    given: BTreeMap<String, Given>,
    /// Inputs the user filled with one value (`Some`) or set back to random (`None`),
    /// by name; any other input not given is filled with what its name makes obvious
    /// (`values::default_fill`), else random.
    fills: BTreeMap<String, Option<f64>>,
    running: bool,
    error: Option<String>,
    /// The error a run gave that names a node, with the node's name: the Run tab links
    /// to it while that error shows.
    failed_at: Option<(String, String)>,
    last: Option<Record>,
    /// The last comparison run, with the model state it ran on.
    compared: Option<((u64, u64), RunComparison)>,
    /// The graph coloured by a statistic of each node's outputs.
    overlay: Option<Overlay>,
    /// Counts the changes to all of the above (every change goes through
    /// `Session::runs`), so the engine builds the Run tab's view only when it changed.
    version: u64,
}

#[derive(Debug)]
struct Given {
    /// Where it came from, as the Run tab says it ("silero_input.npy").
    label: String,
    tensor: Tensor,
}

/// A finished run: the model state it ran on, its inputs and outputs.
#[derive(Debug)]
struct Record {
    stamp: (u64, u64),
    ms: f64,
    runtime: String,
    inputs: Vec<(String, Tensor)>,
    outputs: Vec<(String, Tensor, Result<Stats, String>)>,
}

/// What the engine hands onnxruntime-web: the model's bytes (with `key` naming the
/// model state, so a second run reuses the session), the inputs, the outputs to read.
pub struct RunPlan {
    /// The model state planned: (`opened`, `serial`).
    pub stamp: (u64, u64),
    pub key: String,
    pub model: Vec<u8>,
    pub inputs: Vec<(String, Tensor)>,
    pub outputs: Vec<String>,
}

/// Tensors by name: what a run gives.
pub type Named = Vec<(String, Tensor)>;

/// What a run gave: its time in milliseconds, the runtime's version, the outputs.
pub type Ran = (f64, String, Named);

/// Each node with the names its outputs have in a run's copy of the model.
pub type NodeOutputs = Vec<(NodeId, Vec<String>)>;

/// A node's outputs on the last run's inputs, each by name with its numbers (or why
/// not), or why none can be shown.
pub type ValuesShown = Result<Vec<(String, Result<Stats, String>)>, String>;

/// The Run tab's contents.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct RunView {
    pub inputs: Vec<RunInput>,
    /// The symbolic dimensions and their sizes.
    pub sizes: Vec<(String, i64)>,
    pub seed: u64,
    pub running: bool,
    pub error: Option<String>,
    /// The node `error` names (a run that failed inside it), to jump to.
    pub failed_at: Option<String>,
    /// Why the model's inputs cannot be listed (an input without a type…).
    pub problem: Option<String>,
    pub last: Option<RunResult>,
    /// Whether the model changed since the last run.
    pub stale: bool,
    pub has_previous: bool,
    /// What the open model is compared with (the Graph tab's Compare), if anything:
    /// a run of both can then be compared.
    pub compare_with: Option<String>,
    /// The last run of both, if the model has not changed since.
    pub comparison: Option<RunComparison>,
    /// The graph's colouring, while it is of the model as it stands.
    pub overlay: Option<OverlayLegend>,
}

/// One input as the Run tab lists it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RunInput {
    pub name: String,
    /// Its type as the model declares it (`float[N,3]`).
    pub declared: String,
    /// Where its array comes from: `None` for a seeded random one.
    pub given: Option<String>,
    /// The value every element is filled with (unless `given`): the user's, or the
    /// one its name makes obvious.
    pub fill: Option<String>,
    /// Why it is filled so when the user did not say (`values::default_fill`).
    pub why: Option<String>,
    /// The value its name makes obvious, while the user has set it aside (random, a
    /// typed value, a file): the Run tab offers it back.
    pub default: Option<String>,
}

/// The last run's outputs.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RunResult {
    pub ms: f64,
    pub runtime: String,
    pub outputs: Vec<(String, Result<Stats, String>)>,
}

/// A run's outcome for automation (`window.__graftRun`): each output with its numpy
/// type name, shape and elements (for outputs up to [`DATA_LIMIT`] elements).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum RunOutcome {
    Ok(Vec<OutputData>),
    Error(String),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct OutputData {
    pub name: String,
    pub dtype: String,
    pub shape: Vec<i64>,
    pub data: Option<Vec<f64>>,
}

/// The most elements an output's data carries in a [`RunOutcome`].
pub const DATA_LIMIT: u64 = 1_000_000;

/// The value input `spec` is filled with unless given an array: the user's, else the
/// one its name makes obvious (with why); `None` for random.
fn fill_of(runs: &Runs, spec: &InputSpec) -> Option<(f64, Option<&'static str>)> {
    match runs.fills.get(&spec.name) {
        Some(Some(v)) => Some((*v, None)),
        Some(None) => None,
        None => values::default_fill(&spec.name, spec.data_type).map(|(v, why)| (v, Some(why))),
    }
}

/// The names of the main graph's outputs.
fn output_names(model: &graft::Model) -> Vec<String> {
    model
        .graph
        .map(|g| {
            model
                .graph(g)
                .outputs
                .iter()
                .filter_map(|o| o.value.map(|v| model.value(v).name.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// `model` as bytes for the runtime (data files embedded).
fn runtime_bytes(model: &graft::Model) -> Result<Vec<u8>, String> {
    let options = ExportOptions {
        embed_external: !model.external_locations().is_empty(),
        ..ExportOptions::default()
    };
    graft::export(model, &options).map_err(|e| e.to_string())
}

impl Session {
    fn stamp(&self) -> (u64, u64) {
        (self.opened, self.open.as_ref().map_or(0, |o| o.serial()))
    }

    /// The run settings, first cleared of another model's inputs and run.
    fn runs(&mut self) -> &mut Runs {
        if self.model_runs.opened != self.opened {
            self.model_runs = Runs {
                opened: self.opened,
                sizes: std::mem::take(&mut self.model_runs.sizes),
                seed: self.model_runs.seed,
                version: self.model_runs.version,
                ..Runs::default()
            };
        }
        self.model_runs.version += 1;
        &mut self.model_runs
    }

    /// What the Run tab's view depends on: the run state's version, the model state,
    /// and what the model is compared with. The view is the same while this is.
    pub fn run_key(&self) -> (u64, (u64, u64), Option<&str>) {
        (
            self.model_runs.version,
            self.stamp(),
            self.compare.as_ref().map(|c| c.label.as_str()),
        )
    }

    /// Whether the bundled example's inputs are still to be given (true once per
    /// open: the user may set them back to random afterwards).
    pub fn wants_example_inputs(&mut self) -> bool {
        !std::mem::replace(&mut self.runs().example_given, true)
    }

    fn input_specs(&self) -> Result<Vec<InputSpec>, String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        values::input_specs(open.doc.model())
    }

    /// The Run tab's contents (`None` when no model is open).
    pub fn run_view(&self) -> Option<RunView> {
        let open = self.open.as_ref()?;
        let fresh = Runs {
            sizes: self.model_runs.sizes.clone(),
            seed: self.model_runs.seed,
            ..Runs::default()
        };
        let r = if self.model_runs.opened == self.opened {
            &self.model_runs
        } else {
            &fresh
        };
        let (specs, problem) = match self.input_specs() {
            Ok(specs) => (specs, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let g = open.doc.model().graph.map(|g| open.doc.model().graph(g));
        let declared = |name: &str| {
            g.and_then(|g| {
                g.inputs.iter().find(|i| {
                    i.value
                        .is_some_and(|v| open.doc.model().value(v).name == name)
                })
            })
            .and_then(|i| i.ty.as_ref())
            .map_or("?".to_string(), ToString::to_string)
        };
        let mut sizes: Vec<(String, i64)> = Vec::new();
        for spec in &specs {
            if r.given.contains_key(&spec.name) {
                continue;
            }
            for d in spec.dims.iter().flatten() {
                if let Some(s) = d.symbol()
                    && !sizes.iter().any(|(k, _)| k == s)
                {
                    sizes.push((s.to_string(), r.sizes.get(s).copied().unwrap_or(1)));
                }
            }
        }
        Some(RunView {
            inputs: specs
                .iter()
                .map(|s| {
                    let (fill, why) = match fill_of(r, s) {
                        Some((v, why)) => (Some(v.to_string()), why),
                        None => (None, None),
                    };
                    let given = r.given.get(&s.name).map(|g| g.label.clone());
                    let default = values::default_fill(&s.name, s.data_type)
                        .filter(|_| why.is_none() || given.is_some())
                        .map(|(v, _)| v.to_string());
                    RunInput {
                        name: s.name.clone(),
                        declared: declared(&s.name),
                        given,
                        fill,
                        why: why.map(str::to_string),
                        default,
                    }
                })
                .collect(),
            sizes,
            seed: r.seed,
            running: r.running,
            error: r.error.clone(),
            failed_at: r
                .failed_at
                .as_ref()
                .filter(|(said, _)| r.error.as_ref() == Some(said))
                .map(|(_, node)| node.clone()),
            problem,
            last: r.last.as_ref().map(|l| RunResult {
                ms: l.ms,
                runtime: l.runtime.clone(),
                outputs: l
                    .outputs
                    .iter()
                    .map(|(n, _, s)| (n.clone(), s.clone()))
                    .collect(),
            }),
            stale: r.last.as_ref().is_some_and(|l| l.stamp != self.stamp()),
            has_previous: r.last.as_ref().is_some_and(|l| !l.inputs.is_empty()),
            compare_with: self.compare.as_ref().map(|c| c.label.clone()),
            comparison: r
                .compared
                .as_ref()
                .filter(|(stamp, c)| {
                    *stamp == self.stamp()
                        && self.compare.as_ref().is_some_and(|k| k.label == c.with)
                })
                .map(|(_, c)| c.clone()),
            overlay: r.overlay.as_ref().and_then(|o| o.legend(self.stamp())),
        })
    }

    pub fn set_run_size(&mut self, symbol: &str, size: i64) {
        self.runs().sizes.insert(symbol.to_string(), size);
    }

    pub fn set_run_seed(&mut self, seed: u64) {
        self.runs().seed = seed;
    }

    /// Gives input `name` the array in `bytes` (an `.npy` file named `label`); a file
    /// that is not an array of the input's element type is refused with the reason.
    pub fn give_run_input(&mut self, name: &str, label: &str, bytes: &[u8]) -> Result<(), String> {
        let tensor = graft::edit::npy_tensor(bytes).map_err(|e| format!("{label}: {e}"))?;
        let spec = self
            .input_specs()?
            .into_iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("The model has no input {name:?}."))?;
        if tensor.data_type() != spec.data_type {
            return Err(format!(
                "{label} holds {} values; input {name} takes {}.",
                graft::ir::dtype::name(tensor.data_type()).unwrap_or("?"),
                graft::ir::dtype::name(spec.data_type).unwrap_or("?")
            ));
        }
        self.runs().given.insert(
            name.to_string(),
            Given {
                label: label.to_string(),
                tensor,
            },
        );
        Ok(())
    }

    /// Input `name` goes back to a seeded random array.
    pub fn clear_run_input(&mut self, name: &str) {
        let runs = self.runs();
        runs.given.remove(name);
        runs.fills.insert(name.to_string(), None);
    }

    /// Fills input `name` with the value `text` names (its element type's), or, for
    /// an empty `text`, with what its name makes obvious, else random. A value the
    /// type cannot hold is refused and said on the Run tab.
    pub fn set_run_fill(&mut self, name: &str, text: &str) {
        let spec = self
            .input_specs()
            .ok()
            .and_then(|specs| specs.into_iter().find(|s| s.name == name));
        let runs = self.runs();
        let Some(spec) = spec else {
            runs.error = Some(format!("The model has no input {name:?}."));
            return;
        };
        if text.trim().is_empty() {
            runs.fills.remove(name);
            runs.given.remove(name);
            runs.error = None;
            return;
        }
        match values::parse_fill(text, spec.data_type) {
            Ok(v) => {
                runs.fills.insert(name.to_string(), Some(v));
                runs.given.remove(name);
                runs.error = None;
            }
            Err(e) => runs.error = Some(format!("Input {name}: {e}.")),
        }
    }

    /// Every input gets the array the last run gave it.
    pub fn reuse_run_inputs(&mut self) {
        let runs = self.runs();
        let Some(last) = &runs.last else { return };
        for (name, tensor) in &last.inputs {
            runs.given.insert(
                name.clone(),
                Given {
                    label: "the last run's".into(),
                    tensor: tensor.clone(),
                },
            );
        }
    }

    /// The plan for a run of the open model: its bytes and every input (given, else
    /// seeded random with the sizes chosen). A given array whose shape does not fit
    /// the declared one is refused here, naming the input and the dimension.
    pub fn plan_run(&mut self) -> Result<RunPlan, String> {
        self.runs();
        let planned = self.make_plan();
        let runs = self.runs();
        match &planned {
            Ok(_) => {
                runs.running = true;
                runs.error = None;
            }
            Err(e) => runs.error = Some(e.clone()),
        }
        planned
    }

    fn make_plan(&self) -> Result<RunPlan, String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let specs = self.input_specs()?;
        let mut inputs = Vec::with_capacity(specs.len());
        // Sizes bound by the given arrays take part in the random ones' shapes.
        let mut sizes = self.model_runs.sizes.clone();
        for spec in &specs {
            let Some(given) = self.model_runs.given.get(&spec.name) else {
                continue;
            };
            let dims = &given.tensor.dims;
            let Some(declared) = &spec.dims else { continue };
            if dims.len() != declared.len() {
                return Err(format!(
                    "Input {}: {} has {} dimensions; the model declares {}.",
                    spec.name,
                    given.label,
                    dims.len(),
                    declared.len()
                ));
            }
            for (k, (d, &n)) in declared.iter().zip(dims).enumerate() {
                match d {
                    values::DimSpec::Fixed(want) if *want != n => {
                        return Err(format!(
                            "Input {}: dimension {k} of {} is {n}; the model declares {want}.",
                            spec.name, given.label
                        ));
                    }
                    values::DimSpec::Symbol(s) => {
                        sizes.entry(s.clone()).or_insert(n);
                    }
                    _ => {}
                }
            }
        }
        for (k, spec) in specs.iter().enumerate() {
            let tensor = match self.model_runs.given.get(&spec.name) {
                Some(given) => given.tensor.clone(),
                None => {
                    let dims = values::resolve_dims(spec, &sizes)?;
                    match fill_of(&self.model_runs, spec) {
                        Some((v, _)) => values::filled_tensor(spec.data_type, &dims, v),
                        None => values::random_tensor(
                            spec.data_type,
                            &dims,
                            self.model_runs.seed.wrapping_add(k as u64),
                        ),
                    }
                    .map_err(|e| format!("Input {}: {e}", spec.name))?
                }
            };
            inputs.push((spec.name.clone(), tensor));
        }
        let outputs = output_names(open.doc.model());
        // The run is given the model as exported: what stops an export stops it.
        let model = self
            .encoded()
            .map_err(|e| format!("Cannot run {}: {e}", open.name))?;
        let (opened, serial) = self.stamp();
        Ok(RunPlan {
            stamp: (opened, serial),
            key: format!("{opened}:{serial}"),
            model,
            inputs,
            outputs,
        })
    }

    /// The last run, if it ran on the model as it stands; else `missing`.
    fn last_run(&self, missing: &str) -> Result<&Record, String> {
        let runs = &self.model_runs;
        runs.last
            .as_ref()
            .filter(|l| runs.opened == self.opened && l.stamp == self.stamp())
            .ok_or_else(|| missing.to_string())
    }

    /// The plan for showing what the item `item` (a node anywhere a call expands, or a
    /// value a node computes) computes on the last run's inputs: a copy of the model with the calls down to
    /// it inlined and its outputs made graph outputs (`graft::values::probe`). Also
    /// gives each output's index on the node with its name in the copy.
    pub fn plan_probe(&self, item: ItemId) -> Result<(RunPlan, Vec<(usize, String)>), String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let last = self.last_run("Run the model (the Run tab) to see the values computed here.")?;
        let scene = open.scene.as_ref().ok_or("The model has no graph.")?;
        let view = &scene.view;
        let it = view.item(item).ok_or("Nothing is selected.")?;
        // A value (a graph output, a value entering or leaving an open group): the node
        // that computes it, that output alone.
        let (node, only) = match it.kind {
            ItemKind::Node { node, .. } => (node, None),
            ItemKind::In { value } | ItemKind::Out { value } => {
                match open.doc.model().value(value).def {
                    graft::ir::ValueDef::Node(n) => {
                        (n, Some(open.doc.model().value(value).name.clone()))
                    }
                    _ => {
                        return Err(
                        "Select a node to see the values it computes (a graph input's values are \
                         the run's inputs)."
                            .into(),
                    );
                    }
                }
            }
            _ => return Err("Select a node to see the values it computes.".into()),
        };
        let mut calls = Vec::new();
        let mut up = it.parent;
        while let Some(p) = up.and_then(|p| view.item(p)) {
            match p.kind {
                ItemKind::Node {
                    node: call,
                    callee: Some(_),
                } => calls.push(call),
                ItemKind::Subgraph { .. } => {
                    return Err(format!(
                        "{} is inside an If, Loop or Scan body: onnxruntime gives no values from there.",
                        it.subtitle
                    ));
                }
                _ => {}
            }
            up = p.parent;
        }
        calls.reverse();
        let mut probe = graft::values::probe(open.doc.model(), &calls, node)?;
        if let Some(name) = only {
            // That output alone, by its index on the node (a copy inlined down to it
            // names it anew).
            let k = open
                .model()
                .node(node)
                .outputs
                .iter()
                .position(|o| o.is_some_and(|v| open.doc.model().value(v).name == name));
            probe.outputs.retain(|(j, _)| Some(*j) == k);
        }
        let model = runtime_bytes(&probe.model)?;
        let (opened, serial) = self.stamp();
        let plan = RunPlan {
            stamp: (opened, serial),
            key: format!("probe:{opened}:{serial}:{item}"),
            model,
            inputs: last.inputs.clone(),
            outputs: probe.outputs.iter().map(|(_, n)| n.clone()).collect(),
        };
        Ok((plan, probe.outputs))
    }

    /// Marks a run of a comparison or of the colours as started.
    pub fn start_extra_run(&mut self) {
        let runs = self.runs();
        runs.running = true;
        runs.error = None;
    }

    /// A run that could not start (an input file that did not arrive).
    pub fn fail_run(&mut self, message: String) {
        let runs = self.runs();
        runs.running = false;
        runs.error = Some(message);
    }

    /// What a run planned with `plan` gave: its outputs in `ms` milliseconds on
    /// onnxruntime-web `runtime`, or its error. The outcome for automation, with the
    /// elements of outputs up to [`DATA_LIMIT`] when `data` is asked for.
    pub fn finish_run(
        &mut self,
        plan: RunPlan,
        result: Result<Ran, String>,
        data: bool,
    ) -> RunOutcome {
        if plan.stamp.0 != self.opened {
            // Another model opened meanwhile: this run is of nothing shown.
            return RunOutcome::Error("another model was opened during the run".into());
        }
        let runs = self.runs();
        runs.running = false;
        match result {
            Err(message) => {
                let message = match ort_node_error(&message) {
                    Some((name, op, why)) => {
                        let said = format!("The run failed at node {name:?} ({op}): {why}");
                        runs.failed_at = Some((said.clone(), name));
                        said
                    }
                    None => format!("The run failed: {message}"),
                };
                runs.error = Some(message.clone());
                RunOutcome::Error(message)
            }
            Ok((ms, runtime, outputs)) => {
                runs.error = None;
                let outcome = outputs
                    .iter()
                    .map(|(name, t)| OutputData {
                        name: name.clone(),
                        dtype: values::numpy_name(t.data_type()).unwrap_or("?").to_string(),
                        shape: t.dims.clone(),
                        data: (data && t.element_count().is_some_and(|c| c <= DATA_LIMIT))
                            .then(|| values::numbers(t).ok())
                            .flatten(),
                    })
                    .collect();
                runs.last = Some(Record {
                    stamp: plan.stamp,
                    ms,
                    runtime,
                    inputs: plan.inputs,
                    outputs: outputs
                        .into_iter()
                        .map(|(n, t)| {
                            let s = values::stats(&t);
                            (n, t, s)
                        })
                        .collect(),
                });
                RunOutcome::Ok(outcome)
            }
        }
    }
}

/// onnxruntime's failure inside a node, in the user's terms: the node's name, its op
/// and what went wrong, from "… while running Pad node. Name:'/Pad' Status Message:
/// /src/…/pad.cc:342 Compute Pads must …" (the runtime's source path dropped).
pub(crate) fn ort_node_error(message: &str) -> Option<(String, String, String)> {
    let (_, rest) = message.split_once("while running ")?;
    let (op, rest) = rest.split_once(" node. Name:'")?;
    let (name, rest) = rest.split_once('\'')?;
    let why = rest
        .split_once("Status Message:")
        .map_or(rest, |(_, w)| w)
        .trim();
    // A leading "path/file.cc:123 Status ns::Class::Function" is the runtime's, not
    // the user's.
    let words: Vec<&str> = why.split(' ').collect();
    let start = if words
        .first()
        .is_some_and(|w| w.contains(".cc:") || w.contains(".h:"))
    {
        words
            .iter()
            .take(4)
            .rposition(|w| w.contains("::"))
            .map_or(1, |k| k + 1)
    } else {
        0
    };
    let why = words.get(start..).unwrap_or_default().join(" ");
    Some((name.to_string(), op.to_string(), why.trim().to_string()))
}
