//! The comparison with another model and side by side.

use super::*;

impl AppState {
    /// Compares the open model with the one `step` edits in (0: as opened).
    /// Publishes `compare_ms`, from the choice to the marks painted.
    pub fn compare_with_step(self, step: usize) {
        self.send_timed("compare_ms", Request::CompareWithStep(step));
    }

    /// Compares the open model with a chosen file. Publishes `compare_ms`, from the
    /// choice to the marks painted (the file read, decoded and compared).
    pub fn compare_with_files(self, picked: PickedFiles) {
        if picked.is_empty() {
            return;
        }
        let started = platform::now_ms();
        let seq = self.send_with(Request::CompareWithFiles, Some(picked));
        LINK.with(|l| {
            l.borrow_mut()
                .waiting
                .timings
                .insert(seq, ("compare_ms", started))
        });
    }

    /// Shows the other model beside the open one (or stops).
    pub fn set_side_by_side(self, on: bool) {
        self.send(Request::SetSideBySide(on));
    }

    pub fn side_by_side(self) -> bool {
        self.side.get()
    }

    /// Expands or collapses a group of the other model's drawing.
    pub fn toggle_other(self, item: ItemId) {
        self.send(Request::ToggleOther(item));
    }

    /// Selects the open model's node matched with the other model's `item`.
    pub fn select_from_other(self, item: ItemId) {
        self.send(Request::SelectFromOther(item));
    }

    /// The other model's drawing, side by side (tracked).
    pub fn other_svg(self) -> String {
        self.other_svg.get()
    }

    pub fn close_compare(self) {
        self.send(Request::CloseCompare);
    }

    pub fn comparison(self) -> Option<crate::state::CompareView> {
        self.compare.get()
    }

    /// The item the `index`-th change of the comparison jumps to, for `then`.
    pub fn compare_item(self, index: usize, then: impl FnOnce(ItemId) + 'static) {
        self.ask(Request::CompareItem(index), move |a| {
            if let Answer::Item(Some(item)) = a {
                then(item);
            }
        });
    }

    /// How many edits are in force (the steps a comparison can go back to).
    pub fn steps(self) -> usize {
        self.document.with(|d| d.history.0.len())
    }
}
