//! What the engine sends back: requests from an earlier model state carried or
//! refused (`Engine::current`), and the update of every part that changed since it
//! was last sent.

use super::*;

/// What an edit by addresses made on an earlier state is told.
pub(crate) const MOVED: &str = "Not done: the edit was made on the model as it was \
                                before the last change, and what it names by position or \
                                name may have moved. Nothing was changed; try again.";

impl Engine {
    /// `request` as it applies to the open model, when it was made on the state
    /// `serial`; else what to answer instead. View items of an earlier state are
    /// carried through the last edit or undo (a selection is carried later, with the
    /// rest of the selection); an edit by node, value or function ids made before the
    /// ids were renumbered or cut back, or an edit by addresses made on any other
    /// state, is refused, said in the banner; a read of
    /// them gets an empty answer (the page asks again for the new state).
    pub(super) fn current(
        &mut self,
        serial: u64,
        request: Request,
    ) -> Result<Request, Option<Answer>> {
        let Some(open) = self.session.open() else {
            return Ok(request);
        };
        if serial == open.serial() {
            return Ok(request);
        }
        let stale = !open.doc.ids_hold(serial);
        let item = |i: ItemId| self.session.carry_item(serial, i).ok_or(None);
        match request.names() {
            Names::Nothing => Ok(request),
            Names::Items => match request {
                Request::Select(_) => Ok(request),
                Request::Toggle(i) => Ok(Request::Toggle(item(i)?)),
                Request::ShiftSelect(i) => Ok(Request::ShiftSelect(item(i)?)),
                Request::Reveal(i) => item(i)
                    .map(Request::Reveal)
                    .map_err(|_| Some(Answer::Rect(None))),
                Request::Probe {
                    item: i,
                    bridge,
                    ort,
                } => Ok(Request::Probe {
                    item: item(i).map_err(|_| Some(Answer::Values(Err(STALE.into()))))?,
                    bridge,
                    ort,
                }),
                other => Ok(other),
            },
            Names::ReadIds if stale => Err(Some(match request {
                Request::CallSites(_) => Answer::Hits(Vec::new()),
                Request::CheckCallAttribute(..) => Answer::Problem(None),
                Request::Text(_) => Answer::Text(None),
                _ => Answer::Item(None),
            })),
            // Any other state than the open one: an index may name another node now.
            Names::Addresses => {
                self.session.set_error(MOVED.to_string());
                Err(None)
            }
            Names::EditIds if stale => {
                self.session.set_error(STALE.to_string());
                Err(match request {
                    Request::ApplyText(..) => {
                        Some(Answer::Applied(Err(graft::host::EngineError::Stale)))
                    }
                    _ => None,
                })
            }
            Names::ReadIds | Names::EditIds => Ok(request),
        }
    }

    /// Carries the selection through the last edit or undo (or clears it when the
    /// model was replaced otherwise).
    pub(super) fn carry(&mut self) {
        let (serial, items) = self.session.carry(self.selection_of, &self.selection);
        if serial != self.selection_of {
            self.selection_of = serial;
            self.selection = items;
        }
    }

    /// Whether `part` (serialized) differs from what was last sent of it; records it.
    pub(super) fn changed(&mut self, part: &'static str, value: &impl serde::Serialize) -> bool {
        let mut h = std::hash::DefaultHasher::new();
        serde_json::to_string(value)
            .unwrap_or_default()
            .hash(&mut h);
        let hash = h.finish();
        self.sent.insert(part, hash) != Some(hash)
    }

    /// The update for what changed: every part the page shows, each only when it
    /// differs from what was sent (the document's parts only when `document`).
    pub(super) fn update(
        &mut self,
        answer: Option<(u64, Answer)>,
        document: bool,
    ) -> (Update, [Option<String>; 2]) {
        let mut u = Update {
            seq: self.seq,
            done: std::mem::take(&mut self.done),
            answer,
            timings: platform::take_timings(),
            ..Update::default()
        };
        let stamp = {
            let s = &self.session;
            s.open().map_or((0, 0), |o| (o.serial(), s.opened()))
        };
        let stamps = self.session.log_stamps();
        if stamps != self.log_sent {
            let keep = stamps
                .iter()
                .zip(&self.log_sent)
                .take_while(|(a, b)| a == b)
                .count();
            u.log = Some(LogChange {
                keep,
                add: self.session.log_from(keep),
            });
            self.log_sent = stamps;
        }
        if self.changed("stamp", &stamp) | document {
            let s = &self.session;
            let doc = Document {
                serial: stamp.0,
                opened: s.opened(),
                name: s.open().map(|o| o.name.clone()),
                example: match s.open().map(|o| o.origin) {
                    Some(Origin::Example(file)) => Some(file.to_string()),
                    _ => None,
                },
                summary: s.open().map(|o| (**o.summary()).clone()),
                functions: s.open().map_or_else(Vec::new, |o| {
                    let m = o.doc.model();
                    m.functions
                        .iter()
                        .map(|&f| m.function(f).key().to_string())
                        .collect()
                }),
                can_undo: s.can_undo(),
                can_redo: s.can_redo(),
                history: s.history(),
                problems: s.problems(),
                library: s.function_library(),
            };
            let palette = s.palette();
            let side = s.side_by_side();
            let compare = s.comparison();
            let draft = s.inline_view().map(|view| Draft {
                candidates: (0..view.inputs.len())
                    .map(|i| s.inline_candidates(i))
                    .collect(),
                view,
            });
            let (a, b, c, d, e) = (
                self.changed("document", &doc),
                self.changed("palette", &palette),
                self.changed("side", &side),
                self.changed("compare", &compare),
                self.changed("draft", &draft),
            );
            u.document = a.then_some(doc);
            u.palette = b.then_some(palette);
            u.side_by_side = c.then_some(side);
            u.compare = d.then_some(compare);
            u.draft = e.then_some(draft);
        }
        // The Run tab's view (statistics, histograms, a comparison's list) is built
        // only when what it depends on changed: not on every pan or zoom.
        let run_key = {
            let (version, stamp, with) = self.session.run_key();
            (version, stamp, with.map(str::to_string))
        };
        let run = self
            .changed("run-key", &run_key)
            .then(|| self.session.run_view());
        let s = &self.session;
        let messages = Messages {
            error: s.error().map(str::to_string),
            pending: s.pending().map(str::to_string),
            field: s.field_error.clone(),
        };
        let work = s.work();
        let nodes = s.selected_nodes(&self.selection).len();
        let selection = Selection {
            serial: self.selection_of,
            items: self.selection.clone(),
            nodes,
        };
        let properties = self.selection.last().and_then(|&item| s.properties(item));
        let scene = SceneInfo {
            size: s.graph_size(),
            overview: s.graph_overview(),
            open_paths: Some(s.expanded_paths())
                .filter(|p| p.len() <= LINK_GROUPS)
                .unwrap_or_default(),
            selected_path: self.selection.last().and_then(|&i| s.item_path(i)),
        };
        let drawings = match self.viewport {
            Some(v) if v.opened == s.opened() && s.work().is_none() => Some([
                s.graph_svg(v.rect(), v.detail, &self.selection),
                if s.side_by_side() {
                    s.other_svg(v.rect(), v.detail, &self.selection)
                } else {
                    String::new()
                },
            ]),
            _ => None,
        };
        if self.changed("messages", &messages) {
            u.messages = Some(messages);
        }
        if self.changed("work", &work) {
            u.work = Some(work);
        }
        if let Some(run) = run
            && self.changed("run", &run)
        {
            u.run = Some(run);
        }
        if self.changed("selection", &selection) {
            u.selection = Some(selection);
        }
        if self.changed("properties", &properties) {
            u.properties = Some(properties);
        }
        if self.changed("scene", &scene) {
            u.scene = Some(scene);
        }
        let mut svgs = [None, None];
        if let Some([main, other]) = drawings {
            let opened = self.session.opened();
            let drawn = self.changed("drawn", &opened);
            if self.changed("svg", &main) | drawn {
                svgs[0] = Some(main);
            }
            if self.changed("other", &other) | drawn {
                svgs[1] = Some(other);
            }
            if svgs.iter().any(Option::is_some) {
                u.drawn = Some(opened);
            }
        }
        (u, svgs)
    }
}
