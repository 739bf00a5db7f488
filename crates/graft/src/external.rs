//! External data: tensors whose bytes live in another file, named relative to the
//! model. The core never opens files; the CLI or the app attaches a data file with
//! [`Model::attach_external`] (its bytes) or [`Model::attach_external_source`] (a
//! source that reads a range when asked: the app's engine keeps the browser's file
//! handle and reads only the tensors an export or a comparison needs), and the
//! references stay as they are until an export asks to embed them.

use std::rc::Rc;

use bytes::Bytes;

use crate::ir::{ExternalRef, Model, Tensor};

/// Reads ranges of a data file that is not in memory.
pub trait ReadRange {
    /// The file's length in bytes.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes `start..end` (within `len`), or why they cannot be read.
    fn read(&self, start: u64, end: u64) -> Result<Bytes, String>;
}

/// A source read ahead: a read of a few bytes reads [`ReadAhead::CHUNK`] and keeps
/// them, so that reading tensors one after another (a comparison fingerprinting every
/// tensor of a model left in its file) costs a read per chunk, not per tensor: in a
/// browser a read's latency is worth about a megabyte of reading.
pub struct ReadAhead {
    source: Rc<dyn ReadRange>,
    /// The last chunk read and where it starts.
    chunk: std::cell::RefCell<(u64, Bytes)>,
}

impl ReadAhead {
    pub const CHUNK: u64 = 4 << 20;

    pub fn new(source: Rc<dyn ReadRange>) -> Self {
        Self {
            source,
            chunk: std::cell::RefCell::new((0, Bytes::new())),
        }
    }
}

impl ReadRange for ReadAhead {
    fn len(&self) -> u64 {
        self.source.len()
    }

    fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        let mut chunk = self.chunk.borrow_mut();
        let (at, bytes) = &*chunk;
        if start >= *at && end <= at + bytes.len() as u64 {
            return Ok(bytes.slice((start - at) as usize..(end - at) as usize));
        }
        if end - start >= Self::CHUNK {
            return self.source.read(start, end);
        }
        let to = start.saturating_add(Self::CHUNK).min(self.len()).max(end);
        let read = self.source.read(start, to)?;
        if (read.len() as u64) < end - start {
            return Err("the file is shorter than it was".into());
        }
        let out = read.slice(..(end - start) as usize);
        *chunk = (start, read);
        Ok(out)
    }
}

/// A tensor's `raw_data` left in the model's own file ([`Model::file`]): the importer
/// reads a model through a [`ReadRange`] ([`crate::codec::import_from`]) and keeps big
/// payloads as ranges, read only when an export, a run, a comparison or the values
/// panel needs the bytes. The tensor is the same as one holding those bytes in
/// `raw_data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unread {
    pub offset: u64,
    pub len: u64,
}

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

/// An attached data file.
#[derive(Clone)]
pub enum DataFile {
    Bytes(Bytes),
    Source(Rc<dyn ReadRange>),
}

impl DataFile {
    pub fn len(&self) -> u64 {
        match self {
            DataFile::Bytes(b) => b.len() as u64,
            DataFile::Source(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        match self {
            DataFile::Bytes(b) => {
                let at = |v: u64| usize::try_from(v).map_err(|_| "offset too large".to_string());
                Ok(b.slice(at(start)?..at(end)?))
            }
            DataFile::Source(s) => s.read(start, end),
        }
    }
}

impl std::fmt::Debug for DataFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataFile::Bytes(b) => write!(f, "DataFile::Bytes({} bytes)", b.len()),
            DataFile::Source(s) => write!(f, "DataFile::Source({} bytes)", s.len()),
        }
    }
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
            "data file {:?} is missing (not beside the model, or not supplied with it)",
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
