//! Reading a model through a [`ReadRange`] without reading its weights: the wire
//! format is walked a window at a time, and every main-graph initializer's `raw_data`
//! of at least a given size is skipped, not read. What is read is a smaller model (each
//! skipped payload written as an empty `raw_data`, the lengths around it rewritten)
//! and the list of what was skipped, by initializer and range; [`fill`] then puts the
//! ranges on the imported tensors (`Tensor::unread`).
//!
//! Anything the walk does not expect (a second main graph, a tensor with two
//! `raw_data` fields, groups, a malformed length) makes it give up with
//! [`Skim::Unusual`]; the caller then reads the whole file and imports it as before, so
//! such a file decodes, or fails, exactly as it would have.

use bytes::Bytes;

use crate::external::{ReadRange, Unread};
use crate::ir::Model;

/// A payload left unread: the main graph's `initializer`-th initializer's `raw_data`.
#[derive(Debug)]
pub(super) struct Hole {
    pub initializer: usize,
    pub unread: Unread,
}

/// Why a walk stopped.
#[derive(Debug)]
pub(super) enum Skim {
    /// The source could not be read.
    Read(String),
    /// The file is not laid out as the walk expects: import it whole.
    Unusual,
}

type Result<T> = std::result::Result<T, Skim>;

/// How much of the file is read at a time: little after a skipped payload (the next
/// tensor's header is a few dozen bytes), doubling while the reads follow one
/// another, up to [`WINDOW`]; the first read of a file is 1 MiB.
const FIRST_WINDOW: u64 = 256;
const WINDOW: u64 = 8 << 20;
/// Payloads shorter than this are read through, not jumped over, when the reads
/// follow one another.
const JUMP: u64 = 1 << 20;

/// The model without the payloads of at least `min` bytes, and where those are.
pub(super) fn skim(source: &dyn ReadRange, min: u64) -> Result<(Vec<u8>, Vec<Hole>)> {
    let mut reader = Reader {
        source,
        len: source.len(),
        window: Bytes::new(),
        at: 0,
        size: 512 << 10,
    };
    let mut out = Vec::new();
    let mut holes = Vec::new();
    let mut graphs = 0;
    let mut pos = 0;
    while pos < reader.len {
        let field = reader.field(&mut pos, reader.len)?;
        if field.number == 7 && field.delimited {
            graphs += 1;
            if graphs > 1 {
                return Err(Skim::Unusual);
            }
            let body = graph(&mut reader, field.body, field.end, min, &mut holes)?;
            write_delimited(&mut out, 7, &body);
        } else {
            reader.copy(field.start, field.end, &mut out)?;
        }
    }
    Ok((out, holes))
}

/// Puts each hole's range on its initializer, whose `raw_data` the import of the
/// skimmed model left empty. False when the model does not match the holes.
pub(super) fn fill(model: &mut Model, holes: &[Hole]) -> bool {
    let Some(graph) = model.graph else {
        return holes.is_empty();
    };
    let initializers = &mut model.graphs[graph].initializers;
    for hole in holes {
        let Some(init) = initializers.get_mut(hole.initializer) else {
            return false;
        };
        let tensor = &mut init.tensor;
        if tensor.raw_data.as_ref().is_none_or(|r| !r.is_empty()) || tensor.unread.is_some() {
            return false;
        }
        tensor.raw_data = None;
        tensor.unread = Some(hole.unread);
    }
    true
}

/// The main graph's fields, each copied but the initializers, which are skimmed.
fn graph(
    reader: &mut Reader,
    mut pos: u64,
    end: u64,
    min: u64,
    holes: &mut Vec<Hole>,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut initializer = 0;
    while pos < end {
        let field = reader.field(&mut pos, end)?;
        if field.number == 5 && field.delimited {
            let body = tensor(reader, &field, min, initializer, holes)?;
            write_delimited(&mut out, 5, &body);
            initializer += 1;
        } else {
            reader.copy(field.start, field.end, &mut out)?;
        }
    }
    Ok(out)
}

/// A tensor's fields, its `raw_data` written empty when it is one field of at least
/// `min` bytes.
fn tensor(
    reader: &mut Reader,
    tensor: &Field,
    min: u64,
    initializer: usize,
    holes: &mut Vec<Hole>,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    // The payload skipped so far: where its empty `raw_data` is in `out`, and it.
    let mut skipped: Option<(usize, Field)> = None;
    let mut raws = 0;
    let mut pos = tensor.body;
    while pos < tensor.end {
        let field = reader.field(&mut pos, tensor.end)?;
        if field.number == 9 && field.delimited {
            raws += 1;
            if raws == 1 && field.end - field.body >= min {
                skipped = Some((out.len(), field));
                write_delimited(&mut out, 9, &[]);
                continue;
            }
        }
        reader.copy(field.start, field.end, &mut out)?;
    }
    match skipped {
        // A second `raw_data` replaces the first: the first is written back as it was.
        Some((at, field)) if raws > 1 => {
            let mut bytes = Vec::new();
            reader.copy(field.start, field.end, &mut bytes)?;
            out.splice(at..at + 2, bytes);
        }
        Some((_, field)) => holes.push(Hole {
            initializer,
            unread: Unread {
                offset: field.body,
                len: field.end - field.body,
            },
        }),
        None => {}
    }
    Ok(out)
}

/// A field: where it starts (its key), where its payload starts and where it ends.
struct Field {
    number: u64,
    delimited: bool,
    start: u64,
    body: u64,
    end: u64,
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn write_delimited(out: &mut Vec<u8>, number: u64, body: &[u8]) {
    write_varint(out, number << 3 | 2);
    write_varint(out, body.len() as u64);
    out.extend_from_slice(body);
}

/// The source, read a window at a time.
struct Reader<'a> {
    source: &'a dyn ReadRange,
    len: u64,
    window: Bytes,
    /// Where the window starts in the source.
    at: u64,
    /// The size of the last read.
    size: u64,
}

impl Reader<'_> {
    /// Makes the window hold `start..end` (within the source).
    fn hold(&mut self, start: u64, end: u64) -> Result<()> {
        let held = self.at + self.window.len() as u64;
        if start >= self.at && end <= held {
            return Ok(());
        }
        // Reading on from the window's end, through a gap shorter than `JUMP`, costs
        // less than a read of its own: a read has a latency (a few milliseconds in a
        // browser) worth about a megabyte of reading.
        let on = start >= self.at && start <= held.saturating_add(JUMP);
        let from = if on { held } else { start };
        self.size = if on {
            (self.size * 2).clamp(FIRST_WINDOW, WINDOW)
        } else {
            FIRST_WINDOW
        };
        let to = from.saturating_add(self.size).max(end).min(self.len);
        let read = self.source.read(from, to).map_err(Skim::Read)?;
        if (read.len() as u64) < to - from {
            return Err(Skim::Read("the file is shorter than it was".into()));
        }
        self.window = if start >= from {
            read.slice((start - from) as usize..)
        } else {
            // What the window already holds of `start..` is kept, not read again.
            let mut joined = self.window[(start - self.at) as usize..].to_vec();
            joined.extend_from_slice(&read);
            Bytes::from(joined)
        };
        self.at = start;
        Ok(())
    }

    fn byte(&mut self, pos: u64) -> Result<u8> {
        if pos >= self.len {
            return Err(Skim::Unusual);
        }
        self.hold(pos, pos + 1)?;
        Ok(self.window[(pos - self.at) as usize])
    }

    fn varint(&mut self, pos: &mut u64, end: u64) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            if *pos >= end {
                return Err(Skim::Unusual);
            }
            let byte = self.byte(*pos)?;
            *pos += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Skim::Unusual)
    }

    /// The field at `pos` (within `..end`); `pos` moves past it.
    fn field(&mut self, pos: &mut u64, end: u64) -> Result<Field> {
        let start = *pos;
        let key = self.varint(pos, end)?;
        let body = *pos;
        let delimited = key & 7 == 2;
        let field_end = match key & 7 {
            0 => {
                self.varint(pos, end)?;
                *pos
            }
            1 => body + 8,
            2 => {
                let len = self.varint(pos, end)?;
                pos.checked_add(len).ok_or(Skim::Unusual)?
            }
            5 => body + 4,
            _ => return Err(Skim::Unusual),
        };
        if field_end > end {
            return Err(Skim::Unusual);
        }
        let body = if delimited { *pos } else { body };
        *pos = field_end;
        Ok(Field {
            number: key >> 3,
            delimited,
            start,
            body,
            end: field_end,
        })
    }

    /// Appends the bytes `start..end` to `out`.
    fn copy(&mut self, start: u64, end: u64, out: &mut Vec<u8>) -> Result<()> {
        if end - start > WINDOW {
            let bytes = self.source.read(start, end).map_err(Skim::Read)?;
            if (bytes.len() as u64) < end - start {
                return Err(Skim::Read("the file is shorter than it was".into()));
            }
            out.extend_from_slice(&bytes);
            return Ok(());
        }
        self.hold(start, end)?;
        let from = (start - self.at) as usize;
        out.extend_from_slice(&self.window[from..from + (end - start) as usize]);
        Ok(())
    }
}
