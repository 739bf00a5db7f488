//! The protobuf wire format, read directly: the importer decodes straight into the IR,
//! names stay borrowed from the input until a value needs its own, and tensor payloads
//! are `Bytes` slices of the input.

use bytes::Bytes;

/// Protobuf decoders (Python's and prost) stop at 100 nested messages; so does Graft,
/// which also bounds the importer's recursion.
pub(super) const MAX_DEPTH: u32 = 100;

#[derive(Debug)]
pub(super) enum DecodeError {
    /// The bytes are not a well-formed protobuf of the expected shape.
    Malformed(String),
    /// A well-formed protobuf with neither a graph nor functions: not a model.
    NotAModel,
}

fn malformed(message: impl Into<String>) -> DecodeError {
    DecodeError::Malformed(message.into())
}

pub(super) type Result<T> = std::result::Result<T, DecodeError>;

/// One field's payload.
#[derive(Copy, Clone, Debug)]
pub(super) enum Wire {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    /// A length-delimited payload: the byte range in the input.
    Len(usize, usize),
    /// A (deprecated) group; never valid in onnx.proto, skipped as unknown.
    Group,
}

impl Wire {
    pub fn wire_type(self) -> u8 {
        match self {
            Wire::Varint(_) => 0,
            Wire::Fixed64(_) => 1,
            Wire::Len(..) => 2,
            Wire::Group => 3,
            Wire::Fixed32(_) => 5,
        }
    }
}

/// The input buffer: bytes to slice payloads from.
pub(super) struct Input<'a> {
    pub bytes: &'a Bytes,
}

impl<'a> Input<'a> {
    pub fn data(&self) -> &'a [u8] {
        self.bytes.as_ref()
    }

    pub fn str(&self, start: usize, end: usize, what: &str) -> Result<&'a str> {
        std::str::from_utf8(&self.data()[start..end])
            .map_err(|_| malformed(format!("{what} is not valid UTF-8")))
    }

    pub fn string(&self, start: usize, end: usize, what: &str) -> Result<String> {
        self.str(start, end, what).map(str::to_owned)
    }

    pub fn bytes(&self, start: usize, end: usize) -> Bytes {
        self.bytes.slice(start..end)
    }

    pub fn fields(&self, start: usize, end: usize) -> Fields<'a> {
        Fields {
            data: self.data(),
            pos: start,
            end,
        }
    }
}

/// The fields of one message, in order.
pub(super) struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl Fields<'_> {
    #[inline]
    fn varint(&mut self) -> Result<u64> {
        // Tags and most lengths fit in one byte.
        if self.pos < self.end
            && let Some(&byte) = self.data.get(self.pos)
            && byte < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(byte));
        }
        self.varint_slow()
    }

    #[cold]
    fn varint_slow(&mut self) -> Result<u64> {
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let byte = *self
                .data
                .get(self.pos)
                .filter(|_| self.pos < self.end)
                .ok_or_else(|| malformed("truncated varint"))?;
            self.pos += 1;
            if shift == 63 && byte > 1 {
                return Err(malformed("varint overflows 64 bits"));
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
            if shift > 63 {
                return Err(malformed("varint longer than 10 bytes"));
            }
        }
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.pos + N;
        if end > self.end {
            return Err(malformed("truncated fixed-size field"));
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.data[self.pos..end]);
        self.pos = end;
        Ok(out)
    }

    /// The next field, or `None` at the end of the message.
    pub fn next_field(&mut self) -> Result<Option<(u32, Wire)>> {
        if self.pos >= self.end {
            return Ok(None);
        }
        let tag = self.varint()?;
        let number = u32::try_from(tag >> 3)
            .ok()
            .filter(|&n| n > 0 && n < (1 << 29))
            .ok_or_else(|| malformed(format!("invalid field number {}", tag >> 3)))?;
        let wire = match tag & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Fixed64(u64::from_le_bytes(self.fixed::<8>()?)),
            2 => {
                let len = self.varint()?;
                let start = self.pos;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|len| start.checked_add(len))
                    .filter(|&end| end <= self.end)
                    .ok_or_else(|| {
                        malformed(format!(
                            "field {number} declares {len} bytes, more than the {} left",
                            self.end - start
                        ))
                    })?;
                self.pos = end;
                Wire::Len(start, end)
            }
            3 => {
                self.skip_group(number)?;
                Wire::Group
            }
            5 => Wire::Fixed32(u32::from_le_bytes(self.fixed::<4>()?)),
            other => return Err(malformed(format!("invalid wire type {other}"))),
        };
        Ok(Some((number, wire)))
    }

    fn skip_group(&mut self, number: u32) -> Result<()> {
        // Iterative: groups nest, but only a counter is needed to find the end.
        let mut open = vec![number];
        while let Some(&current) = open.last() {
            if self.pos >= self.end {
                return Err(malformed("unterminated group"));
            }
            let tag = self.varint()?;
            let n = u32::try_from(tag >> 3).unwrap_or(0);
            match tag & 7 {
                0 => {
                    self.varint()?;
                }
                1 => {
                    self.fixed::<8>()?;
                }
                2 => {
                    let len = usize::try_from(self.varint()?).unwrap_or(usize::MAX);
                    self.pos = self
                        .pos
                        .checked_add(len)
                        .filter(|&e| e <= self.end)
                        .ok_or_else(|| malformed("truncated group"))?;
                }
                3 => open.push(n),
                4 if n == current => {
                    open.pop();
                }
                5 => {
                    self.fixed::<4>()?;
                }
                _ => return Err(malformed("malformed group")),
            }
        }
        Ok(())
    }
}

/// Appends a repeated varint field, packed or not.
pub(super) fn push_varints<T>(
    input: &Input<'_>,
    wire: Wire,
    out: &mut Vec<T>,
    convert: impl Fn(u64) -> T,
) -> Result<bool> {
    match wire {
        Wire::Varint(v) => out.push(convert(v)),
        Wire::Len(start, end) => {
            let mut packed = input.fields(start, end);
            while packed.pos < packed.end {
                out.push(convert(packed.varint()?));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Appends a repeated 32-bit fixed field (float), packed or not.
pub(super) fn push_fixed32(input: &Input<'_>, wire: Wire, out: &mut Vec<f32>) -> Result<bool> {
    match wire {
        Wire::Fixed32(v) => out.push(f32::from_bits(v)),
        Wire::Len(start, end) => {
            let data = &input.data()[start..end];
            if !data.len().is_multiple_of(4) {
                return Err(malformed("packed float field is not a multiple of 4 bytes"));
            }
            out.reserve(data.len() / 4);
            out.extend(
                data.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Appends a repeated 64-bit fixed field (double), packed or not.
pub(super) fn push_fixed64(input: &Input<'_>, wire: Wire, out: &mut Vec<f64>) -> Result<bool> {
    match wire {
        Wire::Fixed64(v) => out.push(f64::from_bits(v)),
        Wire::Len(start, end) => {
            let data = &input.data()[start..end];
            if !data.len().is_multiple_of(8) {
                return Err(malformed(
                    "packed double field is not a multiple of 8 bytes",
                ));
            }
            out.reserve(data.len() / 8);
            out.extend(data.chunks_exact(8).map(|c| {
                let mut b = [0u8; 8];
                b.copy_from_slice(c);
                f64::from_le_bytes(b)
            }));
        }
        _ => return Ok(false),
    }
    Ok(true)
}
