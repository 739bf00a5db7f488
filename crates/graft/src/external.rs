//! External data: tensors whose bytes live in another file, named relative to the
//! model. The core never opens files; the CLI or the app attaches a data file with
//! [`Model::attach_external`] (its bytes) or [`Model::attach_external_source`] (a
//! source that reads a range when asked: the app's engine keeps the browser's file
//! handle and reads only the tensors an export or a comparison needs), and the
//! references stay as they are until an export asks to embed them.

use std::rc::Rc;

use bytes::Bytes;

pub use crate::ir::{DataFile, ReadAhead, ReadRange, Unread};
use crate::ir::{ExternalRef, Model, Tensor};

/// The `raw_data` bytes of `tensor`, read from `model`'s own file when the importer
/// left them there; an error when that read fails (or the model has no such file).
pub fn raw(model: &Model, tensor: &Tensor) -> Result<Option<Bytes>, String> {
    let Some(unread) = tensor.unread else {
        return Ok(tensor.raw_data.clone());
    };
    let file = model
        .file
        .as_ref()
        .ok_or("the model's file, which holds this tensor's bytes, is not open")?;
    let end = unread
        .offset
        .checked_add(unread.len)
        .filter(|&end| end <= file.len())
        .ok_or("the tensor's bytes run past the end of the model's file")?;
    file.read(unread.offset, end).map(Some)
}

/// Every tensor payload of `model` left in its file, read in a few big reads (payloads
/// that lie near one another, as an exporter writes them, are read together: a read's
/// latency in a browser is worth about a megabyte), by offset. For an export, which
/// needs them all; an error when a read fails.
pub(crate) fn read_unread(model: &Model) -> Result<crate::hash::FxMap<u64, Bytes>, String> {
    let mut ranges: Vec<Unread> = Vec::new();
    let mut add = |t: &Tensor| ranges.extend(t.unread);
    for (_, init) in model.all_initializers() {
        add(&init.tensor);
    }
    for (_, node) in model.nodes.iter() {
        for attribute in &node.attributes {
            match &attribute.kind {
                crate::ir::AttrKind::Value(crate::ir::AttrValue::Tensor(t)) => add(t),
                crate::ir::AttrKind::Value(crate::ir::AttrValue::Tensors(ts)) => {
                    ts.iter().for_each(&mut add)
                }
                crate::ir::AttrKind::Raw(raw) => {
                    raw.t.iter().chain(&raw.tensors).for_each(&mut add)
                }
                _ => {}
            }
        }
    }
    let mut out = crate::hash::FxMap::default();
    let Some(file) = model.file.as_ref() else {
        return Ok(out);
    };
    ranges.sort_by_key(|u| u.offset);
    const NEAR: u64 = 1 << 20;
    const SPAN: u64 = 16 << 20;
    let mut i = 0;
    while i < ranges.len() {
        let start = ranges[i].offset;
        let mut end = start.saturating_add(ranges[i].len);
        let mut j = i + 1;
        while j < ranges.len()
            && ranges[j].offset <= end.saturating_add(NEAR)
            && ranges[j].offset.saturating_add(ranges[j].len) - start <= SPAN
        {
            end = end.max(ranges[j].offset + ranges[j].len);
            j += 1;
        }
        if end > file.len() {
            return Err("a tensor's bytes run past the end of the model's file".into());
        }
        let span = file.read(start, end)?;
        for u in &ranges[i..j] {
            let at = (u.offset - start) as usize;
            out.insert(u.offset, span.slice(at..at + u.len as usize));
        }
        i = j;
    }
    Ok(out)
}

impl Model {
    /// Makes the bytes of the data file `location` available to this model.
    pub fn attach_external(&mut self, location: impl Into<String>, data: Bytes) {
        self.external_files
            .insert(location.into(), DataFile::Bytes(data));
    }

    /// Makes the data file `location` available through `source`, read a tensor at a
    /// time when its bytes are needed.
    pub fn attach_external_source(
        &mut self,
        location: impl Into<String>,
        source: Rc<dyn ReadRange>,
    ) {
        self.external_files
            .insert(location.into(), DataFile::Source(source));
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

/// The attached file of an external tensor and the range its bytes take there, or why
/// there is none: the file is missing, or the range runs past its end.
fn locate<'m>(
    model: &'m Model,
    tensor: &Tensor,
    ext: &ExternalRef,
) -> Result<(&'m DataFile, u64, u64), String> {
    let file = model.external_files.get(&ext.location).ok_or_else(|| {
        format!(
            "data file {:?} is missing: it was not found beside the model or given with it (open the model together with its data file)",
            ext.location
        )
    })?;
    let length = ext.length.unwrap_or_else(|| tensor.payload_bytes());
    let end = ext
        .offset
        .checked_add(length)
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
    Ok((file, ext.offset, end))
}

/// The bytes of an external tensor, from the attached data file.
pub(crate) fn resolve(model: &Model, tensor: &Tensor, ext: &ExternalRef) -> Result<Bytes, String> {
    let (file, start, end) = locate(model, tensor, ext)?;
    file.read(start, end)
}

/// Whether an external tensor's bytes are there to read (its file attached, its range
/// inside it), without reading them.
pub(crate) fn check(model: &Model, tensor: &Tensor, ext: &ExternalRef) -> Result<(), String> {
    locate(model, tensor, ext).map(drop)
}
