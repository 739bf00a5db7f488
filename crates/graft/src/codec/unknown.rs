//! The unknown-field scan: prost skips fields its schema lacks, so after a successful
//! decode one pass over the wire format finds every field that onnx.proto (as vendored)
//! does not declare, e.g. a field from a newer ONNX. They are reported; export refuses
//! to drop them silently.

use super::known_fields::{MESSAGES, MODEL_PROTO};
use crate::ir::UnknownField;

pub(crate) struct MessageFields {
    pub name: &'static str,
    pub fields: &'static [(u32, Option<u16>)],
}

/// Scans an encoded `ModelProto`. The input has already decoded, so it is well formed;
/// any inconsistency simply ends the scan of that message.
pub(crate) fn scan(buf: &[u8]) -> Vec<UnknownField> {
    let mut found = Vec::new();
    // Explicit stack of (position, end, message type): no recursion on input depth.
    let mut stack: Vec<(usize, usize, u16)> = vec![(0, buf.len(), MODEL_PROTO)];
    while let Some((pos, end, msg)) = stack.pop() {
        let Some(fields) = MESSAGES.get(usize::from(msg)) else {
            continue;
        };
        let mut pos = pos;
        while pos < end {
            let Some((tag, next)) = varint(buf, pos, end) else {
                break;
            };
            pos = next;
            let number = u32::try_from(tag >> 3).unwrap_or(u32::MAX);
            let wire_type = (tag & 7) as u8;
            let known = fields
                .fields
                .binary_search_by_key(&number, |&(n, _)| n)
                .ok()
                .map(|i| fields.fields[i].1);
            let Some(after) = skip(buf, pos, end, wire_type, number) else {
                break;
            };
            match known {
                None => found.push(UnknownField {
                    message: fields.name,
                    field: number,
                    wire_type,
                }),
                Some(Some(nested)) if wire_type == 2 => {
                    // Length-delimited payload of a nested message.
                    if let Some((_, start)) = varint(buf, pos, end) {
                        stack.push((start, after, nested));
                    }
                }
                Some(_) => {}
            }
            pos = after;
        }
    }
    found
}

fn varint(buf: &[u8], mut pos: usize, end: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        if pos >= end {
            return None;
        }
        let byte = buf[pos];
        pos += 1;
        value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Some((value, pos));
        }
    }
    None
}

/// The position after a field's payload.
fn skip(buf: &[u8], pos: usize, end: usize, wire_type: u8, number: u32) -> Option<usize> {
    match wire_type {
        0 => varint(buf, pos, end).map(|(_, p)| p),
        1 => (pos + 8 <= end).then_some(pos + 8),
        5 => (pos + 4 <= end).then_some(pos + 4),
        2 => {
            let (len, start) = varint(buf, pos, end)?;
            let len = usize::try_from(len).ok()?;
            let after = start.checked_add(len)?;
            (after <= end).then_some(after)
        }
        3 => {
            // A group: skip fields until the matching end-group tag.
            let mut pos = pos;
            loop {
                let (tag, next) = varint(buf, pos, end)?;
                let (n, wt) = (u32::try_from(tag >> 3).ok()?, (tag & 7) as u8);
                if wt == 4 {
                    return (n == number).then_some(next);
                }
                pos = skip(buf, next, end, wt, n)?;
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_field_from_the_future_in_a_nested_message() {
        // ModelProto { graph (7) { node (1) { op_type (4) = "Relu", field 99 = 1 } } }
        let node = [0x22, 4, b'R', b'e', b'l', b'u', 0x98, 0x06, 1];
        let mut graph = vec![0x0a, node.len() as u8];
        graph.extend_from_slice(&node);
        let mut model = vec![0x08, 10, 0x3a, graph.len() as u8];
        model.extend_from_slice(&graph);
        let found = scan(&model);
        assert_eq!(
            found,
            vec![UnknownField {
                message: "NodeProto",
                field: 99,
                wire_type: 0
            }]
        );
    }

    #[test]
    fn a_known_model_has_no_unknown_fields() {
        let model = [0x08, 10, 0x12, 3, b'a', b'b', b'c'];
        assert!(scan(&model).is_empty());
    }
}
