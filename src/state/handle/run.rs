//! The Run tab's requests: runs, inputs, the colouring, a node's values.

use super::*;

impl AppState {
    /// Runs the open model in onnxruntime-web (loaded on the first run), with the
    /// inputs `given` fetched from their URLs first (`?input=NAME:URL`); `then` hears
    /// the outcome, with the outputs' elements when `data`. Publishes `run_ms`, from
    /// the request to the frame painted with the outputs.
    pub fn run_model(
        self,
        given: Vec<(String, String)>,
        data: bool,
        then: impl FnOnce(RunOutcome) + 'static,
    ) {
        let example = self
            .example
            .get_untracked()
            .and_then(example)
            .map(|e| {
                let stem = e.file.trim_end_matches(".onnx");
                e.inputs
                    .iter()
                    .map(|input| {
                        let url = format!("{EXAMPLES_URL}/inputs/{stem}/{input}.npy");
                        (input.to_string(), platform::absolute_url(&url))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let request = Request::Run {
            given,
            example,
            data,
            bridge: platform::absolute_url(RUNTIME_BRIDGE),
            ort: platform::absolute_url(ORT_DIR),
        };
        let seq = self.send_timed("run_ms", request);
        LINK.with(|l| {
            l.borrow_mut().waiting.answers.insert(
                seq,
                Box::new(move |a| {
                    if let Answer::Run(outcome) = a {
                        then(outcome);
                    }
                }),
            )
        });
    }

    /// What `item` (a node) computes on the last run's inputs; `then` hears each
    /// output's name and numbers, or why there are none.
    pub fn probe(self, item: ItemId, then: impl FnOnce(super::run::ValuesShown) + 'static) {
        let request = Request::Probe {
            item,
            bridge: platform::absolute_url(RUNTIME_BRIDGE),
            ort: platform::absolute_url(ORT_DIR),
        };
        self.ask(request, move |a| {
            if let Answer::Values(v) = a {
                then(v);
            }
        });
    }

    /// Runs the open model and the one it is compared with on the same inputs.
    pub fn run_compare(self) {
        self.send_timed(
            "run_compare_ms",
            Request::RunCompare {
                bridge: platform::absolute_url(RUNTIME_BRIDGE),
                ort: platform::absolute_url(ORT_DIR),
            },
        );
    }

    /// Colours the graph by a statistic of each node's outputs (`None`: no colours).
    pub fn colour(self, by: Option<Colouring>) {
        self.send(Request::Colour {
            by,
            bridge: platform::absolute_url(RUNTIME_BRIDGE),
            ort: platform::absolute_url(ORT_DIR),
        });
    }

    /// Saves the graph's colouring as a Model Explorer node-data file.
    pub fn export_node_data(self) {
        self.send(Request::ExportNodeData);
    }

    /// Colours the graph by the Model Explorer node-data file in `files`.
    pub fn import_node_data(self, files: PickedFiles) {
        self.send_with(Request::ImportNodeData, Some(files));
    }

    /// Sets the size of a symbolic dimension for the next runs; remembered across
    /// visits, for every model that names the symbol.
    pub fn set_run_size(self, symbol: String, size: i64) {
        let mut sizes = remembered_sizes();
        sizes.insert(symbol.clone(), size);
        if let Ok(json) = serde_json::to_string(&sizes) {
            platform::remember(RUN_SIZES_KEY, &json);
        }
        self.send(Request::SetRunSize(symbol, size));
    }

    pub fn set_run_seed(self, seed: u64) {
        self.send(Request::SetRunSeed(seed));
    }

    /// Gives input `name` the `.npy` file in `files`.
    pub fn give_run_input(self, name: String, files: PickedFiles) {
        self.send_with(Request::GiveRunInput(name), Some(files));
    }

    pub fn clear_run_input(self, name: String) {
        self.send(Request::ClearRunInput(name));
    }

    /// Shows the node named `name` on the Graph tab (a link from a run's error):
    /// the node of that name anywhere a group expands, the first found.
    pub fn show_node(self, name: String) {
        let goto = self.goto;
        self.search(name.clone(), move |hits| {
            if let Some(hit) = hits.iter().find(|h| h.subtitle == name) {
                goto.set(Some(hit.item));
            }
        });
    }

    /// Fills input `name` with the value `text` names; "" gives it its default.
    pub fn set_run_fill(self, name: String, text: String) {
        self.send(Request::SetRunFill(name, text));
    }

    pub fn reuse_run_inputs(self) {
        self.send(Request::ReuseRunInputs);
    }
}
