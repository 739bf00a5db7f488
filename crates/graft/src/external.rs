//! External data: tensors whose bytes live in another file, named relative to the
//! model. The core never opens files; the CLI or the app attaches the bytes of a data
//! file with [`Model::attach_external`], and the references stay as they are until an
//! export asks to embed them.

use bytes::Bytes;

use crate::ir::{ExternalRef, Model, Tensor};

impl Model {
    /// Makes the bytes of the data file `location` available to this model.
    pub fn attach_external(&mut self, location: impl Into<String>, data: Bytes) {
        self.external_files.insert(location.into(), data);
    }

    /// Every external reference of every tensor in the model (initializers of all
    /// graphs, sparse initializers and tensor attributes are all counted by the
    /// summary; this lists initializers, which is where exporters put them).
    pub fn external_locations(&self) -> std::collections::BTreeSet<String> {
        self.all_initializers()
            .filter_map(|(_, i)| i.tensor.external_ref())
            .map(|e| e.location)
            .collect()
    }
}

/// The bytes of an external tensor, from the attached data file.
pub(crate) fn resolve(model: &Model, tensor: &Tensor, ext: &ExternalRef) -> Result<Bytes, String> {
    let file = model.external_files.get(&ext.location).ok_or_else(|| {
        format!(
            "data file {:?} is missing (not beside the model, or not supplied with it)",
            ext.location
        )
    })?;
    let expected = tensor.payload_bytes();
    let length = ext.length.unwrap_or(expected);
    let start = usize::try_from(ext.offset).map_err(|_| "offset too large".to_string())?;
    let len = usize::try_from(length).map_err(|_| "length too large".to_string())?;
    let end = start
        .checked_add(len)
        .filter(|&end| end <= file.len())
        .ok_or_else(|| {
            format!(
                "range {}..{} is outside {:?} ({} bytes)",
                ext.offset,
                u128::from(ext.offset) + u128::from(length),
                ext.location,
                file.len()
            )
        })?;
    Ok(file.slice(start..end))
}
