//! Reading a model through a [`ReadRange`] without keeping its weights: the wire
//! format is walked a window at a time, and every tensor `raw_data` of at least a
//! given size (initializers of every graph, tensors in node attributes, in function
//! bodies too) is skipped, not kept. What is kept is a smaller model, each skipped
//! payload written as a marker (the lengths around it rewritten), and the list of what
//! was skipped; [`fill`] then finds the markers in the imported tensors and puts the
//! ranges on them (`Tensor::unread`).
//!
//! Anything the walk does not expect (groups, a malformed length, nesting deeper than
//! the importer's limit) makes it give up with [`Skim::Unusual`], and so does a model
//! whose markers do not come back one each from its import; the caller then reads the
//! whole file and imports it as before, so such a file decodes, or fails, exactly as
//! it would have.

use bytes::Bytes;

use crate::external::{ReadRange, Unread};
use crate::ir::{AttrKind, AttrValue, Model, Tensor};

/// A payload left unread.
#[derive(Debug)]
pub(super) struct Hole {
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

/// What a skipped payload's `raw_data` is in the skimmed model: this, then the hole's
/// index (u32, little-endian).
const MARK: &[u8; 16] = b"\0graft-unread\0\0\0";

/// The messages the walk goes into: those on the way to a tensor.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Model,
    Graph,
    Node,
    Attribute,
    Function,
    Tensor,
}

impl Kind {
    /// The kind of message field `number` holds, when the walk goes into it.
    fn child(self, number: u64) -> Option<Kind> {
        Some(match (self, number) {
            (Kind::Model, 7) | (Kind::Attribute, 6 | 11) => Kind::Graph,
            (Kind::Model, 25) => Kind::Function,
            (Kind::Graph, 1) | (Kind::Function, 7) => Kind::Node,
            (Kind::Graph, 5) | (Kind::Attribute, 5 | 10) => Kind::Tensor,
            (Kind::Node, 5) => Kind::Attribute,
            _ => return None,
        })
    }
}

/// Protobuf decoders stop at 100 nested messages; so does the walk.
const MAX_DEPTH: u32 = 100;

/// The model without the payloads of at least `min` bytes, and where those are.
pub(super) fn skim(source: &dyn ReadRange, min: u64) -> Result<(Vec<u8>, Vec<Hole>)> {
    let len = source.len();
    let mut walk = Walk {
        reader: Reader {
            source,
            len,
            window: Bytes::new(),
            at: 0,
            size: 512 << 10,
        },
        min,
        holes: Vec::new(),
        out: Vec::new(),
    };
    walk.message(Kind::Model, 0, len, 0)?;
    Ok((walk.out, walk.holes))
}

/// Puts each hole's range on the tensor whose `raw_data` is its marker. False when
/// the markers do not come back one each (the model is then read whole).
pub(super) fn fill(model: &mut Model, holes: &[Hole]) -> bool {
    let mut used = vec![false; holes.len()];
    let mut take = |t: &mut Tensor| -> bool {
        let Some(raw) = &t.raw_data else {
            return true;
        };
        let Some(index) = raw
            .strip_prefix(MARK.as_slice())
            .and_then(|rest| <[u8; 4]>::try_from(rest).ok())
        else {
            return true;
        };
        let index = u32::from_le_bytes(index) as usize;
        match used.get_mut(index) {
            Some(seen @ false) => *seen = true,
            _ => return false,
        }
        t.raw_data = None;
        t.unread = Some(holes[index].unread);
        true
    };
    for graph in model.graphs.items_mut() {
        for init in &mut graph.initializers {
            if !take(&mut init.tensor) {
                return false;
            }
        }
    }
    for node in model.nodes.items_mut() {
        for attribute in &mut node.attributes {
            let tensors: Vec<&mut Tensor> = match &mut attribute.kind {
                AttrKind::Value(AttrValue::Tensor(t)) => vec![&mut **t],
                AttrKind::Value(AttrValue::Tensors(ts)) => ts.iter_mut().collect(),
                AttrKind::Raw(raw) => raw.t.iter_mut().chain(&mut raw.tensors).collect(),
                _ => Vec::new(),
            };
            for t in tensors {
                if !take(t) {
                    return false;
                }
            }
        }
    }
    used.iter().all(|&u| u)
}

struct Walk<'a> {
    reader: Reader<'a>,
    min: u64,
    holes: Vec<Hole>,
    /// The skimmed model, written as the walk goes: a message walked into has its
    /// length written afterwards in a varint padded to [`LENGTH`] bytes (protobuf
    /// reads padded varints), so that nothing is copied twice.
    out: Vec<u8>,
}

/// The bytes of a padded length: up to 2^35 - 1.
const LENGTH: usize = 5;

impl Walk<'_> {
    /// A message of `kind` at `pos..end`: its fields copied, those on the way to a
    /// tensor walked into.
    fn message(&mut self, kind: Kind, mut pos: u64, end: u64, depth: u32) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(Skim::Unusual);
        }
        if kind == Kind::Tensor {
            return self.tensor(pos, end);
        }
        while pos < end {
            let field = self.reader.field(&mut pos, end)?;
            // A message shorter than `min` holds no payload to skip: copied whole.
            let big = field.delimited && field.end - field.body >= self.min;
            match kind.child(field.number).filter(|_| big) {
                Some(child) => {
                    write_varint(&mut self.out, field.number << 3 | 2);
                    let at = self.out.len();
                    self.out.extend_from_slice(&[0; LENGTH]);
                    self.message(child, field.body, field.end, depth + 1)?;
                    let len = (self.out.len() - at - LENGTH) as u64;
                    if len >> (7 * LENGTH) != 0 {
                        return Err(Skim::Unusual);
                    }
                    for (i, byte) in self.out[at..at + LENGTH].iter_mut().enumerate() {
                        let more = if i + 1 < LENGTH { 0x80 } else { 0 };
                        *byte = ((len >> (7 * i)) & 0x7f) as u8 | more;
                    }
                }
                None => self.reader.copy(field.start, field.end, &mut self.out)?,
            }
        }
        Ok(())
    }

    /// A tensor's fields, its `raw_data` written as a marker when it is one field of
    /// at least `min` bytes.
    fn tensor(&mut self, mut pos: u64, end: u64) -> Result<()> {
        // The payload skipped so far: where its marker is in `out`, and it.
        let mut skipped: Option<(usize, Field)> = None;
        let mut raws = 0;
        while pos < end {
            let field = self.reader.field(&mut pos, end)?;
            if field.number == 9 && field.delimited {
                raws += 1;
                if raws == 1 && field.end - field.body >= self.min {
                    skipped = Some((self.out.len(), field));
                    let mut mark = MARK.to_vec();
                    mark.extend_from_slice(&(self.holes.len() as u32).to_le_bytes());
                    write_delimited(&mut self.out, 9, &mark);
                    continue;
                }
            }
            self.reader.copy(field.start, field.end, &mut self.out)?;
        }
        match skipped {
            // A second `raw_data` replaces the first: the first is written back as it was.
            Some((at, field)) if raws > 1 => {
                let mut bytes = Vec::new();
                self.reader.copy(field.start, field.end, &mut bytes)?;
                self.out.splice(at..at + 2 + MARK.len() + 4, bytes);
            }
            Some((_, field)) => self.holes.push(Hole {
                unread: Unread {
                    offset: field.body,
                    len: field.end - field.body,
                },
            }),
            None => {}
        }
        Ok(())
    }
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
