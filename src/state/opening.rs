//! Opening a model: tickets for loads (only the latest lands), the error banner, and export.

use super::*;

impl Session {
    /// Starts a load; a later `begin` makes this one stale.
    pub fn begin(&mut self, what: impl Into<String>) -> Ticket {
        self.issued += 1;
        let ticket = Ticket(self.issued);
        self.pending = Some(Pending {
            ticket,
            what: what.into(),
        });
        ticket
    }

    /// Ends a load with the files it read (or why it could not read them). The model
    /// among them replaces the open one; if it does not open, the open model stays and
    /// the error is shown. A stale load changes nothing. (The tests' way: the app
    /// runs the stages a turn apart and ends with `finish_open`.)
    #[cfg(test)]
    pub fn finish(
        &mut self,
        ticket: Ticket,
        files: Result<Vec<LoadedFile>, String>,
        origin: Origin,
    ) {
        if self.is_current(ticket) {
            self.finish_open(ticket, files.and_then(|files| open_files(files, origin)));
        }
    }

    /// Whether `ticket` is the load in progress (not replaced by a later one, not
    /// cancelled).
    pub fn is_current(&self, ticket: Ticket) -> bool {
        self.pending.as_ref().is_some_and(|p| p.ticket == ticket)
    }

    /// Shows how far the load `ticket` has come; false when it is no longer current.
    pub fn progress(&mut self, ticket: Ticket, what: String) -> bool {
        match self.pending.as_mut() {
            Some(p) if p.ticket == ticket => {
                p.what = what;
                true
            }
            _ => false,
        }
    }

    /// Stops the load in progress: the model that was open stays, unchanged.
    pub fn cancel_open(&mut self) {
        self.pending = None;
    }

    /// Ends the load `ticket` with the model it opened, or why it did not: the model
    /// replaces the open one, or the open one stays and the error shows. A stale load
    /// changes nothing.
    pub fn finish_open(&mut self, ticket: Ticket, opened: Result<OpenModel, String>) {
        if !self.is_current(ticket) {
            return;
        }
        self.pending = None;
        match opened {
            Ok(open) => {
                self.open = Some(open);
                self.error = None;
                self.work = None;
                self.draft = None;
                self.kept.clear();
                self.compare = None;
                self.moves = None;
                self.opened += 1;
            }
            Err(message) => self.error = Some(message),
        }
    }

    pub fn set_error(&mut self, message: String) {
        self.error = Some(message);
    }

    pub fn dismiss_error(&mut self) {
        self.error = None;
    }

    /// The open model encoded as one file (its external data embedded).
    pub fn encoded(&self) -> Result<Vec<u8>, String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let options = ExportOptions {
            embed_external: !open.doc.model().external_locations().is_empty(),
            ..ExportOptions::default()
        };
        graft::export(open.doc.model(), &options).map_err(|e| e.to_string())
    }

    /// The open model encoded by the core, and the file name to save it under. A
    /// download is one file, so external data is embedded (from the data files
    /// dropped with the model); without them the export says which is missing.
    pub fn export(&self) -> Result<(String, Vec<u8>), String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let bytes = self
            .encoded()
            .map_err(|e| format!("Export of {} failed: {e}", open.name))?;
        let name = if open.name.is_empty() {
            DEFAULT_FILE_NAME.to_string()
        } else {
            open.name.clone()
        };
        Ok((name, bytes))
    }
}
