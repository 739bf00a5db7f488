//! Inlining another model into the open one: the draft the dialog edits, its live
//! preview, Apply (one undoable step) and Cancel.
//!
//! While the dialog is open the preview *is* the open model: the canvas, search and
//! properties work on it unchanged. The preview is the host with the guest inlined in
//! place, and each change of a choice undoes that inline (it only appended to the
//! host, so undoing truncates) and inlines again: the host is never copied. An
//! inline that fails shows its error in the dialog and keeps the last good preview
//! (inlined again, the same as before) or the host itself on the canvas.

use std::collections::HashSet;
use std::sync::Arc;

use graft::Model;
use graft::hash::FxBuild;
use graft::inline::{Candidate, InlineOptions, InlineUndo, Mode};
use graft::ir::NodeId;
use graft::view::{Item, ItemKind};

use graft::host::{Command, Host, Lent};

use super::{LoadedFile, OpenModel, Session, load_model, open_model};

/// What the page shows of an open model, apart from its document.
#[derive(Debug)]
pub(super) struct Shown {
    name: String,
    origin: super::Origin,
    scene: Option<graft::view::Scene>,
    problem_nodes: graft::hash::FxMap<NodeId, ()>,
}

impl Shown {
    fn split(open: OpenModel) -> (Host, Shown) {
        let OpenModel {
            name,
            origin,
            doc,
            scene,
            problem_nodes,
        } = open;
        let shown = Shown {
            name,
            origin,
            scene,
            problem_nodes,
        };
        (doc, shown)
    }

    fn join(self, doc: Host) -> OpenModel {
        OpenModel {
            name: self.name,
            origin: self.origin,
            doc,
            scene: self.scene,
            problem_nodes: self.problem_nodes,
        }
    }
}

/// The host model out of the open one (the preview undone), for a preview to change.
struct Taken {
    model: Model,
    /// The options of the preview that was shown.
    previous: Option<InlineOptions>,
    /// The open document, its model lent out, and the view it was shown in.
    open: (Lent, Shown),
    /// While a preview was shown: the host's document and view ([`Draft::host`]).
    host: Option<(Lent, Shown)>,
}

impl Taken {
    /// The host's document with its model back, and the view it was shown in.
    fn host(self) -> (Host, Shown, Option<InlineOptions>) {
        let (lent, view) = self.host.unwrap_or(self.open);
        (lent.give_back(self.model), view, self.previous)
    }
}

/// An inline being set up.
#[derive(Debug)]
pub(super) struct Draft {
    guest_name: String,
    guest: std::rc::Rc<Model>,
    /// Guest inputs and outputs with their printed types.
    inputs: Vec<(String, Option<String>)>,
    outputs: Vec<(String, Option<String>)>,
    /// Per guest input: the host value it reads, or `None` for a new graph input.
    bindings: Vec<Option<String>>,
    /// Per guest output: whether it becomes a host graph output.
    exposed: Vec<bool>,
    prefix: String,
    /// `Some("domain.name")`: import the guest as that local function.
    as_function: Option<String>,
    /// While a preview is shown: the host's document, its model lent out (it is the
    /// open one, with the preview undone), and its view as it was before the dialog
    /// opened. `None`: the open model is the host itself.
    host: Option<(Lent, Shown)>,
    host_name: String,
    /// The inline the open model shows, and what undoes it.
    shown: Option<(InlineOptions, InlineUndo)>,
    /// Per guest input, the host values it may read (worked out on the host).
    candidates: Vec<Vec<Candidate>>,
    error: Option<String>,
    /// Nodes the preview added (highlighted), and the prefix their names start with.
    added: HashSet<NodeId, FxBuild>,
}

/// What the dialog shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InlineView {
    pub guest: String,
    pub host: String,
    /// Name, type, binding.
    pub inputs: Vec<(String, Option<String>, Option<String>)>,
    /// Name, type, exposed.
    pub outputs: Vec<(String, Option<String>, bool)>,
    pub prefix: String,
    pub as_function: Option<String>,
    pub error: Option<String>,
    /// How many nodes the preview adds to the main graph.
    pub added: usize,
}

impl Draft {
    /// The host's document while a preview is shown.
    pub(super) fn lent_host(&self) -> Option<&Host> {
        self.host.as_ref().map(|(lent, _)| lent.host())
    }

    /// The inline the dialog's choices describe.
    fn options(&self) -> InlineOptions {
        InlineOptions {
            bindings: self
                .inputs
                .iter()
                .zip(&self.bindings)
                .filter_map(|((input, _), bound)| Some((input.clone(), bound.clone()?)))
                .collect(),
            expose: self
                .outputs
                .iter()
                .zip(&self.exposed)
                .filter(|(_, on)| **on)
                .map(|((output, _), _)| (output.clone(), None))
                .collect(),
            expose_all: false,
            prefix: Some(self.prefix.clone()),
            target: None,
            mode: match self.as_function.as_deref().and_then(|f| f.rsplit_once('.')) {
                Some((domain, name)) => Mode::Function {
                    domain: domain.to_string(),
                    name: name.to_string(),
                },
                None => Mode::Nodes,
            },
            domain_versions: Vec::new(),
        }
    }
}

impl Session {
    /// Opens the inline dialog for the model among `files` (with its external data).
    pub fn begin_inline(&mut self, files: Vec<LoadedFile>) -> Result<(), String> {
        if self.draft.is_some() || self.work.is_some() {
            return Err("Finish the running inline or expand first.".into());
        }
        if self.open.is_none() {
            return Err("Open a model to inline into first.".into());
        }
        let (guest_name, guest, _) = load_model(files, Vec::new())?;
        if guest.graph.is_none() {
            return Err(format!("{guest_name} has no graph to inline."));
        }
        let inputs = graft::inline::guest_inputs(&guest);
        let outputs = graft::inline::guest_outputs(&guest);
        let prefix = guest
            .graph
            .and_then(|g| guest.graph(g).name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| guest_name.trim_end_matches(".onnx").to_string());
        let Some(host) = self.open.as_ref() else {
            return Err("Open a model to inline into first.".into());
        };
        let candidates = inputs
            .iter()
            .map(|(input, _)| graft::inline::binding_candidates(host.doc.model(), &guest, input))
            .collect();
        self.draft = Some(Draft {
            guest_name,
            bindings: vec![None; inputs.len()],
            exposed: vec![true; outputs.len()],
            inputs,
            outputs,
            guest: std::rc::Rc::new(guest),
            prefix,
            as_function: None,
            host: None,
            host_name: host.name.clone(),
            shown: None,
            candidates,
            error: None,
            added: HashSet::default(),
        });
        self.preview();
        Ok(())
    }

    /// The host model, out of the open one (the preview undone).
    fn take_host(&mut self) -> Option<Taken> {
        let draft = self.draft.as_mut()?;
        let (doc, shown) = Shown::split(self.open.take()?);
        let (mut model, lent) = doc.lend();
        let previous = draft.shown.take().map(|(options, undo)| {
            undo.undo(&mut model);
            options
        });
        Some(Taken {
            model,
            previous,
            open: (lent, shown),
            host: draft.host.take(),
        })
    }

    /// Inlines the draft's guest into the host, in place, and shows the result.
    fn preview(&mut self) {
        let Some(draft) = self.draft.as_mut() else {
            return;
        };
        if let Some(f) = draft.as_function.as_deref()
            && !f.contains('.')
        {
            draft.error = Some(format!("{f:?}: name the function DOMAIN.NAME"));
            return;
        }
        let options = draft.options();
        let Some(Taken {
            mut model,
            previous,
            open,
            host,
        }) = self.take_host()
        else {
            return;
        };
        let Some(draft) = self.draft.as_mut() else {
            return;
        };
        match graft::inline::inline_model_undoable(&mut model, &draft.guest, &options) {
            Ok((report, undo)) => {
                draft.error = None;
                draft.added = report.nodes.iter().copied().collect();
                draft.shown = Some((options, undo));
                // The host's document and view are kept for Apply and Cancel; a
                // preview's are dropped.
                let (lent, view) = host.unwrap_or(open);
                let imported = lent.host().imported().clone();
                let checked = graft::check::Checked::new(&model);
                let inferred = Arc::new(graft::infer::infer(&model));
                let doc = Host::from_parts(model, imported, checked, inferred);
                self.open = Some(open_model(view.name.clone(), view.origin, doc));
                draft.host = Some((lent, view));
            }
            Err(e) => {
                draft.error = Some(e.to_string());
                // The last good preview again (it inlined before, so it does now), in
                // the view it was shown in; else the host.
                let again = previous.and_then(|options| {
                    let inlined =
                        graft::inline::inline_model_undoable(&mut model, &draft.guest, &options);
                    inlined.ok().map(|(_, undo)| (options, undo))
                });
                let (lent, view) = match (again, host) {
                    (Some(again), host) => {
                        draft.shown = Some(again);
                        draft.host = host;
                        open
                    }
                    (None, Some(host)) => {
                        draft.added.clear();
                        host
                    }
                    (None, None) => {
                        draft.added.clear();
                        open
                    }
                };
                self.open = Some(view.join(lent.give_back(model)));
            }
        }
    }

    /// Binds guest input `index` to a host value (`None`: a new graph input).
    pub fn inline_bind(&mut self, index: usize, value: Option<String>) {
        if let Some(slot) = self.draft.as_mut().and_then(|d| d.bindings.get_mut(index)) {
            *slot = value.filter(|v| !v.is_empty());
            self.preview();
        }
    }

    pub fn inline_expose(&mut self, index: usize, exposed: bool) {
        if let Some(slot) = self.draft.as_mut().and_then(|d| d.exposed.get_mut(index)) {
            *slot = exposed;
            self.preview();
        }
    }

    pub fn inline_prefix(&mut self, prefix: String) {
        if let Some(d) = self.draft.as_mut() {
            d.prefix = prefix;
            self.preview();
        }
    }

    /// `Some("domain.name")`: import the guest as a local function; `None`: copy its
    /// nodes.
    pub fn inline_as_function(&mut self, function: Option<String>) {
        if let Some(d) = self.draft.as_mut() {
            d.as_function = function;
            self.preview();
        }
    }

    /// Applies the inline to the host as one edit (undoable, in the log); the canvas
    /// keeps what the preview showed. Refused (the dialog stays) while the choices
    /// give an error.
    pub fn apply_inline(&mut self) -> Result<(), String> {
        let Some(draft) = self.draft.as_ref() else {
            return Err("No inline is being set up.".into());
        };
        if let Some(e) = &draft.error {
            return Err(e.clone());
        }
        let change = graft::edit::Change::InlineModel {
            guest: draft.guest.clone(),
            options: draft.options(),
        };
        let Some(Taken {
            model,
            previous,
            open: (open, view),
            host,
        }) = self.take_host()
        else {
            return Err("No inline is being set up.".into());
        };
        let Some(mut draft) = self.draft.take() else {
            return Err("No inline is being set up.".into());
        };
        // The page's items are the preview's.
        let from = open.host().serial();
        let (host, host_view, preview) = match host {
            Some((host, host_view)) => (host, Some(host_view), Some(open)),
            None => (open, None, None),
        };
        let mut doc = host.give_back(model);
        let on = doc.serial();
        match doc.apply(Command::Change { change, on }) {
            Ok(applied) => {
                // The preview on the canvas is what the edit gave: its groups stay
                // open.
                self.open = Some(view.join(doc));
                self.show_edited(from, &applied.touched, None);
                Ok(())
            }
            Err(e) => {
                // Back as it was: the preview inlined again.
                let (mut model, host) = doc.lend();
                let again = previous.and_then(|options| {
                    let inlined =
                        graft::inline::inline_model_undoable(&mut model, &draft.guest, &options);
                    inlined.ok().map(|(_, undo)| (options, undo))
                });
                self.open = Some(match (again, preview, host_view) {
                    (Some(again), Some(preview), Some(host_view)) => {
                        draft.shown = Some(again);
                        draft.host = Some((host, host_view));
                        view.join(preview.give_back(model))
                    }
                    (_, _, Some(host_view)) => host_view.join(host.give_back(model)),
                    (_, _, None) => view.join(host.give_back(model)),
                });
                self.draft = Some(draft);
                Err(e.to_string())
            }
        }
    }

    /// Closes the dialog; the host comes back as it was.
    pub fn cancel_inline(&mut self) {
        let Some(taken) = self.take_host() else {
            self.draft = None;
            return;
        };
        self.draft = None;
        let (doc, view, _) = taken.host();
        self.open = Some(view.join(doc));
    }

    pub fn inline_view(&self) -> Option<InlineView> {
        let d = self.draft.as_ref()?;
        Some(InlineView {
            guest: d.guest_name.clone(),
            host: d.host_name.clone(),
            inputs: d
                .inputs
                .iter()
                .zip(&d.bindings)
                .map(|((n, t), b)| (n.clone(), t.clone(), b.clone()))
                .collect(),
            outputs: d
                .outputs
                .iter()
                .zip(&d.exposed)
                .map(|((n, t), e)| (n.clone(), t.clone(), *e))
                .collect(),
            prefix: d.prefix.clone(),
            as_function: d.as_function.clone(),
            error: d.error.clone(),
            added: d.added.len(),
        })
    }

    /// The host values guest input `index` may read, for the binding picker.
    pub fn inline_candidates(&self, index: usize) -> Vec<Candidate> {
        let Some(d) = self.draft.as_ref() else {
            return Vec::new();
        };
        d.candidates.get(index).cloned().unwrap_or_default()
    }

    /// Whether the canvas should highlight `item` as added by the preview: a node it
    /// added, or the namespace group its prefixed names make.
    pub fn is_new(&self, item: &Item) -> bool {
        let Some(d) = self.draft.as_ref() else {
            return false;
        };
        match &item.kind {
            ItemKind::Node { node, .. } => d.added.contains(node),
            ItemKind::Namespace { path, .. } => {
                path == &d.prefix
                    || path
                        .strip_prefix(&d.prefix)
                        .is_some_and(|r| r.starts_with('/'))
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{example_file, open};
    use super::*;

    fn nodes(s: &Session) -> usize {
        s.open().map_or(0, |o| o.doc.model().nodes.len())
    }

    #[test]
    fn preview_apply_undo_and_errors_that_change_nothing() {
        let mut session = Session::default();
        open(&mut session, vec![example_file("mlp.onnx")]);
        let host_nodes = nodes(&session);
        let host_text = graft::text::print_model(session.open().unwrap().model());

        session
            .begin_inline(vec![example_file("mlp.onnx")])
            .unwrap();
        let view = session.inline_view().unwrap();
        assert_eq!(view.prefix, "mlp");
        assert_eq!(
            view.inputs,
            [("x".to_string(), Some("float[batch,4]".to_string()), None)]
        );
        assert_eq!(view.error, None);
        assert_eq!(view.added, host_nodes, "unbound: the whole guest is added");
        assert_eq!(
            nodes(&session),
            2 * host_nodes,
            "the preview is what is open"
        );
        // The binding picker offers x (float[batch,4]) but not the 4x16 weight.
        let names: Vec<String> = session
            .inline_candidates(0)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert!(names.contains(&"x".to_string()), "{names:?}");
        assert!(!names.contains(&"layer0.weight".to_string()), "{names:?}");

        // A binding of the wrong type: an error, Apply refused, the preview unchanged.
        session.inline_bind(0, Some("layer0.weight".into()));
        let error = session.inline_view().unwrap().error.unwrap();
        assert!(error.contains("layer0.weight"), "{error}");
        assert!(session.apply_inline().is_err());
        assert!(session.inline_view().is_some(), "the dialog stays");
        assert_eq!(
            nodes(&session),
            2 * host_nodes,
            "the last good preview stays"
        );
        assert_eq!(session.inline_view().unwrap().added, host_nodes);
        // Each change inlines again in place: nothing piles up in the arenas.
        for prefix in ["a", "b", "c"] {
            session.inline_prefix(prefix.into());
            assert_eq!(nodes(&session), 2 * host_nodes, "{prefix}");
        }
        session.inline_prefix("mlp".into());

        session.inline_bind(0, Some("x".into()));
        assert_eq!(session.inline_view().unwrap().error, None);
        let scene = session.open().and_then(|o| o.scene.as_ref()).unwrap();
        let marked = scene
            .view
            .items
            .iter()
            .filter(|i| session.is_new(i))
            .count();
        assert_eq!(marked, host_nodes, "the added nodes are highlighted");
        session.apply_inline().unwrap();
        assert!(session.inline_view().is_none());
        let model = session.open().unwrap().model();
        let outputs: Vec<&str> = model
            .graph(model.graph.unwrap())
            .outputs
            .iter()
            .map(|o| model.value(o.value.unwrap()).name.as_str())
            .collect();
        assert_eq!(outputs, ["probs", "mlp/probs"]);
        assert!(session.can_undo());

        assert!(session.undo());
        assert_eq!(
            graft::text::print_model(session.open().unwrap().model()),
            host_text
        );
        assert!(!session.can_undo());

        // Cancel puts the host back too.
        session
            .begin_inline(vec![example_file("mlp.onnx")])
            .unwrap();
        session.cancel_inline();
        assert_eq!(
            graft::text::print_model(session.open().unwrap().model()),
            host_text
        );
    }
}
