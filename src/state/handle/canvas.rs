//! The canvas's requests: open and close groups, find and reveal items, the region
//! drawn, the view as a link, and the drawing exported.

use super::*;

impl AppState {
    pub fn toggle(self, item: ItemId) {
        self.send(Request::Toggle(item));
    }

    /// Expands every group `depth` levels deep; 0 collapses everything. Laid out in
    /// pieces in the engine; `done` runs when the new layout is here (not after
    /// Cancel), and must ask for a drawing (the canvas's fit does): the update that
    /// ends the expand leaves its drawing out. Publishes `expand_ms`, from the request
    /// to the frame painted with the drawing after it.
    pub fn expand_to_depth(self, depth: usize, done: impl FnOnce() + 'static) {
        let seq = self.send_timed("expand_ms", Request::ExpandToDepth(depth));
        LINK.with(|l| l.borrow_mut().waiting.done.insert(seq, Box::new(done)));
    }

    /// Opens (`deeper`) or closes one level of groups, in pieces like
    /// [`AppState::expand_to_depth`].
    pub fn step_level(self, deeper: bool) {
        self.send_timed("expand_ms", Request::StepLevel(deeper));
    }

    /// Cancel: the graph goes back to how it was before the running expand.
    pub fn cancel_work(self) {
        self.send(Request::CancelWork);
    }

    /// Opens what is needed for `item` to be drawn; `then` hears its box.
    pub fn reveal(self, item: ItemId, then: impl FnOnce(Rect) + 'static) {
        self.ask(Request::Reveal(item), move |a| {
            if let Answer::Rect(Some((x, y, w, h))) = a {
                then(Rect { x, y, w, h });
            }
        });
    }

    pub fn search(self, query: String, then: impl FnOnce(Vec<SearchHit>) + 'static) {
        self.ask(Request::Search(query), move |a| {
            if let Answer::Hits(hits) = a {
                then(hits);
            }
        });
    }

    pub fn call_sites(self, index: usize, then: impl FnOnce(Vec<SearchHit>) + 'static) {
        self.ask(Request::CallSites(index), move |a| {
            if let Answer::Hits(hits) = a {
                then(hits);
            }
        });
    }

    /// The drawing of the part on screen (tracked).
    pub fn svg(self) -> String {
        self.svg.get()
    }

    /// Tells the engine which part of the graph the page shows.
    pub fn set_viewport(self, region: Rect, detail: Detail, opened: u64) {
        self.send(Request::Viewport(Viewport {
            x: region.x,
            y: region.y,
            w: region.w,
            h: region.h,
            detail,
            opened,
        }));
    }

    /// The view as a URL fragment: the bundled example (when one is open), the open
    /// groups, the selection and the camera (`x,y,zoom`); empty for a model opened
    /// from a file (its address would not bring it back). Tracked.
    pub fn view_fragment(self, camera: (f64, f64, f64)) -> String {
        let from_url = platform::query_parameter("model").is_some();
        let example = self.example.get();
        let mut parts = Vec::new();
        match example {
            Some(file) => parts.push(format!("example={file}")),
            // A file from this machine cannot be shared by its address.
            None if !from_url => return String::new(),
            None => {}
        }
        self.scene.with(|s| {
            if !s.open_paths.is_empty() {
                parts.push(format!("open={}", s.open_paths.join("_")));
            }
            if let Some(path) = &s.selected_path {
                parts.push(format!("sel={path}"));
            }
        });
        parts.push(format!(
            "cam={:.1},{:.1},{:.3}",
            camera.0, camera.1, camera.2
        ));
        parts.join("&")
    }

    /// Restores the open groups and the selection a fragment names (see
    /// [`AppState::view_fragment`]); returns its camera.
    pub fn restore_fragment(self, fragment: &str) -> Option<(f64, f64, f64)> {
        let field = |key: &str| {
            fragment
                .split('&')
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        let open: Vec<String> = field("open")
            .map(|o| o.split('_').map(str::to_string).collect())
            .unwrap_or_default();
        let seq = self.send(Request::RestoreView(open, field("sel")));
        LINK.with(|l| l.borrow_mut().selected_at = seq);
        let cam = field("cam")?;
        let mut it = cam.split(',').map(|x| x.parse::<f64>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    }

    /// The minimap picture and how many items are drawn in all (tracked).
    pub fn graph_overview(self) -> Option<(String, usize)> {
        self.scene.with(|s| s.overview.clone())
    }

    /// Width and height of the laid-out graph (tracked).
    pub fn graph_size(self) -> Option<(f32, f32)> {
        self.scene.with(|s| s.size)
    }

    pub fn export_png(self) {
        self.send(Request::ExportPng);
    }

    pub fn export_svg(self) {
        self.send(Request::ExportSvg);
    }
}
