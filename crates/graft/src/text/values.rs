//! Numbers as text, and tensor data between its typed fields and `raw_data`.
//!
//! Floats print in the shortest form that reads back to the same bits; the two NaNs
//! onnx.parser can write (`nan`, `-nan`) are the only NaNs text can hold. Raw data
//! prints as the values ONNX's typed fields would hold (float16 as its 16-bit pattern,
//! 4-bit types as packed bytes, as the `int32_data` field stores them), so a parser
//! that knows no extensions still reads the right numbers.

use std::fmt::Write as _;

use crate::ir::{Tensor, dtype};

/// The typed field a data type's values go to, as onnx.parser fills it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Field {
    Int32,
    Int64,
    Uint64,
    Float,
    Double,
    String,
}

/// The standard field of a data type (`None`: onnx.parser cannot read values of it).
pub(super) fn field(data_type: i32) -> Option<Field> {
    Some(match data_type {
        dtype::INT64 => Field::Int64,
        dtype::UINT32 | dtype::UINT64 => Field::Uint64,
        dtype::FLOAT | dtype::COMPLEX64 => Field::Float,
        dtype::DOUBLE | dtype::COMPLEX128 => Field::Double,
        dtype::STRING => Field::String,
        2..=6 | 9 | 10 | 16..=28 => Field::Int32,
        _ => return None,
    })
}

/// How one value of a data type sits in `raw_data`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Unit {
    U8,
    I8,
    U16,
    I16,
    I32,
    I64,
    U32,
    U64,
    F32,
    F64,
}

impl Unit {
    fn size(self) -> usize {
        match self {
            Unit::U8 | Unit::I8 => 1,
            Unit::U16 | Unit::I16 => 2,
            Unit::I32 | Unit::U32 | Unit::F32 => 4,
            Unit::I64 | Unit::U64 | Unit::F64 => 8,
        }
    }
}

/// The raw encoding of a data type's values, when text can write them one by one.
/// Sub-byte types are one packed byte per value, as `int32_data` holds them.
pub(super) fn unit(data_type: i32) -> Option<Unit> {
    Some(match data_type {
        dtype::FLOAT | dtype::COMPLEX64 => Unit::F32,
        dtype::DOUBLE | dtype::COMPLEX128 => Unit::F64,
        dtype::INT8 => Unit::I8,
        dtype::INT16 => Unit::I16,
        dtype::INT32 => Unit::I32,
        dtype::INT64 => Unit::I64,
        dtype::UINT16 | dtype::FLOAT16 | dtype::BFLOAT16 => Unit::U16,
        dtype::UINT32 => Unit::U32,
        dtype::UINT64 => Unit::U64,
        // uint8, bool, float8 variants, 4-bit and 2-bit types (packed bytes).
        2 | 9 | 17..=26 => Unit::U8,
        _ => return None,
    })
}

/// The NaNs that text can write: `nan` and `-nan` as onnx.parser reads them.
pub(super) fn f32_printable(v: f32) -> bool {
    !v.is_nan() || matches!(v.to_bits(), 0x7fc0_0000 | 0xffc0_0000)
}

pub(super) fn f64_printable(v: f64) -> bool {
    !v.is_nan() || matches!(v.to_bits(), 0x7ff8_0000_0000_0000 | 0xfff8_0000_0000_0000)
}

/// Writes a float so that it reads back as the same bits and, when `literal`, so that
/// it lexes as a float (with a `.` or exponent) rather than an int.
pub(super) fn write_f32(out: &mut String, v: f32, literal: bool) {
    if v.is_nan() {
        out.push_str(if v.is_sign_negative() { "-nan" } else { "nan" });
    } else if v.is_infinite() {
        out.push_str(if v < 0.0 { "-inf" } else { "inf" });
    } else {
        let at = out.len();
        let _ = write!(out, "{v:?}");
        if !literal && out.ends_with(".0") && out.len() - at > 2 {
            out.truncate(out.len() - 2);
        }
    }
}

pub(super) fn write_f64(out: &mut String, v: f64, literal: bool) {
    if v.is_nan() {
        out.push_str(if v.is_sign_negative() { "-nan" } else { "nan" });
    } else if v.is_infinite() {
        out.push_str(if v < 0.0 { "-inf" } else { "inf" });
    } else {
        let at = out.len();
        let _ = write!(out, "{v:?}");
        if !literal && out.ends_with(".0") && out.len() - at > 2 {
            out.truncate(out.len() - 2);
        }
    }
}

/// Writes an integer (faster than `write!` on the hot path of tensor data).
pub(super) fn write_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    write_u64(out, v.unsigned_abs());
}

pub(super) fn write_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // The buffer holds ASCII digits only.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

/// A float literal's value: `digits` is an int or float token, or `inf`/`nan`/
/// `infinity` in any case. Overflow to infinity is an error, as in onnx.
pub(super) fn parse_f32(negative: bool, text: &str) -> Option<f32> {
    let v = match special(text) {
        Some(Special::Nan) => f32::NAN,
        Some(Special::Inf) => f32::INFINITY,
        None => {
            let v: f32 = text.parse().ok()?;
            if v.is_infinite() {
                return None;
            }
            v
        }
    };
    Some(if negative { -v } else { v })
}

pub(super) fn parse_f64(negative: bool, text: &str) -> Option<f64> {
    let v = match special(text) {
        Some(Special::Nan) => f64::NAN,
        Some(Special::Inf) => f64::INFINITY,
        None => {
            let v: f64 = text.parse().ok()?;
            if v.is_infinite() {
                return None;
            }
            v
        }
    };
    Some(if negative { -v } else { v })
}

enum Special {
    Nan,
    Inf,
}

fn special(text: &str) -> Option<Special> {
    if text.eq_ignore_ascii_case("nan") {
        Some(Special::Nan)
    } else if text.eq_ignore_ascii_case("inf") || text.eq_ignore_ascii_case("infinity") {
        Some(Special::Inf)
    } else {
        None
    }
}

/// Whether an identifier is one of the float words (`inf`, `nan`, `infinity`).
pub(super) fn is_float_word(text: &str) -> bool {
    special(text).is_some()
}

/// `std::stoll`: digits with an optional sign, in range.
pub(super) fn parse_i64(negative: bool, digits: &str) -> Option<i64> {
    let magnitude: u64 = digits.parse().ok()?;
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// `std::stoull`: a minus sign wraps around, as in C.
pub(super) fn parse_u64(negative: bool, digits: &str) -> Option<u64> {
    let magnitude: u64 = digits.parse().ok()?;
    Some(if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    })
}

/// Moves the values of the tensor's standard field into `raw_data`.
pub(super) fn encode_raw(t: &mut Tensor) -> Result<(), String> {
    let data_type = t.data_type();
    let unit = unit(data_type).ok_or_else(|| {
        format!(
            "values of type {} cannot be stored as raw_data",
            dtype::name(data_type).unwrap_or("?")
        )
    })?;
    let range = |v: i64, lo: i64, hi: i64| {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(format!(
                "{v} does not fit in {} raw data",
                dtype::name(data_type).unwrap_or("?")
            ))
        }
    };
    let mut raw = Vec::new();
    match unit {
        Unit::U8 | Unit::I8 | Unit::U16 | Unit::I16 | Unit::I32 => {
            raw.reserve(t.int32_data.len() * unit.size());
            for &v in &t.int32_data {
                let v64 = i64::from(v);
                match unit {
                    Unit::U8 => {
                        range(v64, 0, 255)?;
                        raw.push(v as u8);
                    }
                    Unit::I8 => {
                        range(v64, -128, 127)?;
                        raw.push(v as i8 as u8);
                    }
                    Unit::U16 => {
                        range(v64, 0, 65535)?;
                        raw.extend_from_slice(&(v as u16).to_le_bytes());
                    }
                    Unit::I16 => {
                        range(v64, -32768, 32767)?;
                        raw.extend_from_slice(&(v as i16).to_le_bytes());
                    }
                    _ => raw.extend_from_slice(&v.to_le_bytes()),
                }
            }
            t.int32_data = Vec::new();
        }
        Unit::I64 => {
            raw.reserve(t.int64_data.len() * 8);
            for &v in &t.int64_data {
                raw.extend_from_slice(&v.to_le_bytes());
            }
            t.int64_data = Vec::new();
        }
        Unit::U32 | Unit::U64 => {
            raw.reserve(t.uint64_data.len() * unit.size());
            for &v in &t.uint64_data {
                if unit == Unit::U32 {
                    let v = u32::try_from(v).map_err(|_| format!("{v} does not fit in uint32"))?;
                    raw.extend_from_slice(&v.to_le_bytes());
                } else {
                    raw.extend_from_slice(&v.to_le_bytes());
                }
            }
            t.uint64_data = Vec::new();
        }
        Unit::F32 => {
            raw.reserve(t.float_data.len() * 4);
            for &v in &t.float_data {
                raw.extend_from_slice(&v.to_le_bytes());
            }
            t.float_data = Vec::new();
        }
        Unit::F64 => {
            raw.reserve(t.double_data.len() * 8);
            for &v in &t.double_data {
                raw.extend_from_slice(&v.to_le_bytes());
            }
            t.double_data = Vec::new();
        }
    }
    t.raw_data = Some(bytes::Bytes::from(raw));
    Ok(())
}

/// Whether `raw` can be written as values of `data_type` and read back to the same
/// bytes.
pub(super) fn raw_printable(data_type: i32, raw: &[u8]) -> bool {
    let Some(unit) = unit(data_type) else {
        return false;
    };
    if !raw.len().is_multiple_of(unit.size()) {
        return false;
    }
    match unit {
        Unit::F32 => raw
            .chunks_exact(4)
            .all(|c| f32_printable(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
        Unit::F64 => raw.chunks_exact(8).all(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64_printable(f64::from_le_bytes(b))
        }),
        _ => true,
    }
}

/// Writes raw data as comma-separated values (check [`raw_printable`] first).
pub(super) fn write_raw(out: &mut String, data_type: i32, raw: &[u8]) {
    let Some(unit) = unit(data_type) else {
        return;
    };
    let size = unit.size();
    for (i, c) in raw.chunks_exact(size).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(c);
        match unit {
            Unit::U8 => write_u64(out, u64::from(c[0])),
            Unit::I8 => write_i64(out, i64::from(c[0] as i8)),
            Unit::U16 => write_u64(out, u64::from(u16::from_le_bytes([b[0], b[1]]))),
            Unit::I16 => write_i64(out, i64::from(i16::from_le_bytes([b[0], b[1]]))),
            Unit::I32 => write_i64(out, i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            Unit::U32 => write_u64(out, u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            Unit::I64 => write_i64(out, i64::from_le_bytes(b)),
            Unit::U64 => write_u64(out, u64::from_le_bytes(b)),
            Unit::F32 => write_f32(out, f32::from_le_bytes([b[0], b[1], b[2], b[3]]), false),
            Unit::F64 => write_f64(out, f64::from_le_bytes(b), false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_shortest_and_read_back() {
        let mut s = String::new();
        for v in [1.0f32, 0.1, -0.0, 1e-7, 3.4028235e38, 1e-45] {
            s.clear();
            write_f32(&mut s, v, true);
            let (neg, text) = match s.strip_prefix('-') {
                Some(t) => (true, t),
                None => (false, s.as_str()),
            };
            assert_eq!(
                parse_f32(neg, text).map(f32::to_bits),
                Some(v.to_bits()),
                "{s}"
            );
        }
        s.clear();
        write_f32(&mut s, 1.0, false);
        assert_eq!(s, "1");
        assert!(parse_f32(false, "1e39").is_none());
        assert_eq!(parse_f32(true, "NaN").map(f32::to_bits), Some(0xffc0_0000));
        assert!(!f32_printable(f32::from_bits(0x7fc0_0001)));
    }

    #[test]
    fn ints_follow_c() {
        assert_eq!(parse_i64(true, "9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(false, "9223372036854775808"), None);
        assert_eq!(parse_u64(true, "1"), Some(u64::MAX));
        let mut s = String::new();
        write_i64(&mut s, i64::MIN);
        assert_eq!(s, "-9223372036854775808");
    }

    #[test]
    fn raw_round_trips() {
        let mut t = Tensor {
            data_type: Some(dtype::FLOAT16),
            int32_data: vec![0x3c00, 65535],
            ..Tensor::default()
        };
        encode_raw(&mut t).expect("encodes");
        let raw = t.raw_data.clone().unwrap_or_default();
        assert_eq!(&raw[..], &[0x00, 0x3c, 0xff, 0xff]);
        assert!(raw_printable(dtype::FLOAT16, &raw));
        let mut s = String::new();
        write_raw(&mut s, dtype::FLOAT16, &raw);
        assert_eq!(s, "15360, 65535");
        let mut bad = Tensor {
            data_type: Some(dtype::INT8),
            int32_data: vec![200],
            ..Tensor::default()
        };
        assert!(encode_raw(&mut bad).is_err());
        assert!(!raw_printable(dtype::FLOAT, &[0, 0, 0]));
    }
}
