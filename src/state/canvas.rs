//! The canvas: opening and closing groups, expand-all in pieces that can be cancelled, and the drawn graph (SVG, overview, size).

use super::*;

impl Session {
    /// Expands or collapses a group of the graph and lays out again (one group and
    /// its ancestors: small enough to do at once).
    pub fn toggle(&mut self, item: ItemId) -> bool {
        if self.work.is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let Some(scene) = open.scene.as_mut() else {
            return false;
        };
        let changed = scene.toggle(open.doc.model(), item)
            && scene.layout(open.doc.model(), &mut || false).is_ok();
        if changed {
            self.mirror_toggle(true, item);
        }
        changed
    }

    /// Expands every group (`depth` levels) or collapses all (`depth` 0). The layout
    /// is started, not finished: go on with [`Session::work_step`].
    pub fn expand_to_depth(&mut self, depth: usize) -> Option<u64> {
        let what = if depth == 0 {
            "Collapsing"
        } else {
            "Expanding"
        };
        self.start_work(what, |scene, model| {
            if depth == 0 {
                scene.collapse_all();
            } else {
                scene.expand_to_depth(model, depth, EXPAND_LIMIT);
            }
        })
    }

    /// Opens (`deeper`) or closes one level of groups; continued like
    /// [`Session::expand_to_depth`].
    pub fn step_level(&mut self, deeper: bool) -> Option<u64> {
        let what = if deeper {
            "Opening a level"
        } else {
            "Closing a level"
        };
        self.start_work(what, |scene, model| {
            if deeper {
                scene.expand_one_level(model);
            } else {
                scene.collapse_one_level(model);
            }
        })
    }

    /// Applies `change` to the scene and starts laying it out. Returns the run's
    /// number, or `None` when there is nothing to do or another run is going on.
    pub(super) fn start_work(
        &mut self,
        what: &'static str,
        change: impl FnOnce(&mut Scene, &Model),
    ) -> Option<u64> {
        if self.work.is_some() {
            return None;
        }
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        let before = scene.snapshot();
        change(scene, open.doc.model());
        self.runs += 1;
        self.work = Some(Work {
            run: self.runs,
            what,
            before,
            total: 0,
            remaining: 0,
        });
        Some(self.runs)
    }

    /// Lays out the next piece of run `run` until `pause` says stop.
    pub fn work_step(&mut self, run: u64, pause: &mut dyn FnMut() -> bool) -> Step {
        let Some(work) = self.work.as_mut().filter(|w| w.run == run) else {
            return Step::Gone;
        };
        let Some((model, scene)) = self
            .open
            .as_mut()
            .and_then(|o| o.scene.as_mut().map(|s| (o.doc.model(), s)))
        else {
            self.work = None;
            return Step::Gone;
        };
        match scene.layout_some(model, pause, &mut || false) {
            Ok(Progress::Pending { remaining }) => {
                work.total = work.total.max(remaining + 1);
                work.remaining = remaining;
                Step::More
            }
            Ok(Progress::Done) => {
                self.work = None;
                Step::Finished
            }
            Err(_) => {
                self.cancel_work();
                Step::Gone
            }
        }
    }

    /// Stops the running layout and puts the graph back as it was before it.
    pub fn cancel_work(&mut self) {
        let Some(work) = self.work.take() else {
            return;
        };
        if let Some(scene) = self.open.as_mut().and_then(|o| o.scene.as_mut()) {
            scene.restore(work.before);
        }
    }

    pub fn work(&self) -> Option<WorkStatus> {
        self.work.as_ref().map(|w| WorkStatus {
            run: w.run,
            what: w.what,
            done: w.total.saturating_sub(w.remaining),
            total: w.total,
        })
    }

    /// Opens what is needed for `item` to be drawn; returns its box.
    pub fn reveal(&mut self, item: ItemId) -> Option<Rect> {
        if self.work.is_some() {
            return None;
        }
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        if scene.reveal(open.doc.model(), item) {
            scene.layout(open.doc.model(), &mut || false).ok()?;
        }
        scene.rect(item)
    }

    /// The SVG elements of the graph inside `view` (layout coordinates) at `zoom`
    /// (screen pixels per layout unit).
    pub fn graph_svg(&self, view: Rect, detail: Detail, selected: &[ItemId]) -> String {
        let Some(open) = self.open.as_ref() else {
            return String::new();
        };
        let Some(scene) = open.scene.as_ref() else {
            return String::new();
        };
        svg::region(scene, open.doc.model(), view, detail, selected, &|item| {
            if self.is_new(item) {
                Some(svg::Mark::class("g-new"))
            } else if item.problem.is_some()
                || matches!(item.kind, ItemKind::Node { node, .. } if open.problem_nodes.contains_key(&node))
            {
                Some(svg::Mark::class("g-bad"))
            } else {
                self.compare_mark(item).or_else(|| self.overlay_mark(item))
            }
        })
    }

    /// The minimap picture and how many items are drawn in all.
    pub fn graph_overview(&self) -> Option<(String, usize)> {
        let scene = self.open.as_ref()?.scene.as_ref()?;
        Some((
            svg::overview(scene, MINIMAP_DEPTH, MINIMAP_SIDE as f32),
            scene.placed.len(),
        ))
    }

    /// Width and height of the laid-out graph.
    pub fn graph_size(&self) -> Option<(f32, f32)> {
        let scene = self.open.as_ref()?.scene.as_ref()?;
        Some((scene.width, scene.height))
    }

    /// The whole graph as it is drawn (expanded groups open) as an SVG document.
    pub fn graph_document(&self) -> Option<(String, String)> {
        let open = self.open.as_ref()?;
        let scene = open.scene.as_ref()?;
        let stem = open.name.strip_suffix(".onnx").unwrap_or(&open.name);
        Some((
            format!("{stem}.svg"),
            svg::document(scene, open.doc.model()),
        ))
    }
}
