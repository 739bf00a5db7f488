//! The files a model holds: its own file, read as needed, and the data files its
//! external tensors name (`crate::external` reads tensors from them). Types only, so
//! that the IR depends on nothing above it.

use std::rc::Rc;

use bytes::Bytes;

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

/// A tensor's `raw_data` left in the model's own file (`Model::file`): the importer
/// reads a model through a [`ReadRange`] ([`crate::codec::import_from`]) and keeps big
/// payloads as ranges, read only when an export, a run, a comparison or the values
/// panel needs the bytes. The tensor is the same as one holding those bytes in
/// `raw_data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unread {
    pub offset: u64,
    pub len: u64,
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

    pub(crate) fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
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
