//! What an edit log carries as text: base64; and `.npy` arrays, read into tensors and
//! written from them (one table of NumPy's element types for both).

use bytes::Bytes;

use crate::ir::{Tensor, dtype};

/// Standard base64, padded or not, as an edit log carries a file.
const BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

/// Standard base64 (with or without padding; whitespace ignored).
pub(super) fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let clean: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    BASE64.decode(clean).map_err(|e| e.to_string())
}

/// Standard base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    BASE64.encode(bytes)
}

/// NumPy's element types (`descr`) with the ONNX type and the size of an element.
const DESCRS: [(&str, i32, usize); 12] = [
    ("<f4", dtype::FLOAT, 4),
    ("<f8", dtype::DOUBLE, 8),
    ("<f2", dtype::FLOAT16, 2),
    ("<i8", dtype::INT64, 8),
    ("<i4", dtype::INT32, 4),
    ("<i2", dtype::INT16, 2),
    ("|i1", dtype::INT8, 1),
    ("<u8", dtype::UINT64, 8),
    ("<u4", dtype::UINT32, 4),
    ("<u2", dtype::UINT16, 2),
    ("|u1", dtype::UINT8, 1),
    ("|b1", dtype::BOOL, 1),
];

/// A tensor from a NumPy `.npy` file (C order, little-endian or byte-sized types).
pub fn npy_tensor(bytes: &[u8]) -> Result<Tensor, String> {
    let rest = bytes
        .strip_prefix(b"\x93NUMPY")
        .ok_or("not a .npy file (no \\x93NUMPY magic)")?;
    let (&major, rest) = rest.split_first().ok_or("truncated header")?;
    let (_, rest) = rest.split_first().ok_or("truncated header")?;
    let (len, rest) = match major {
        1 => {
            let (l, r) = rest.split_at_checked(2).ok_or("truncated header")?;
            (usize::from(u16::from_le_bytes([l[0], l[1]])), r)
        }
        2 | 3 => {
            let (l, r) = rest.split_at_checked(4).ok_or("truncated header")?;
            (u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize, r)
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let (header, data) = rest.split_at_checked(len).ok_or("truncated header")?;
    let header = std::str::from_utf8(header).map_err(|_| "the header is not text")?;
    let field = |key: &str| -> Option<&str> {
        let at = header.find(&format!("'{key}'"))?;
        let after = header[at + key.len() + 2..]
            .trim_start()
            .strip_prefix(':')?;
        Some(after.trim_start())
    };
    let descr = field("descr").ok_or("no descr in the header")?;
    let descr = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or("descr is not a string")?;
    if field("fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err("Fortran-ordered arrays are not supported; save with C order".into());
    }
    let shape = field("shape").ok_or("no shape in the header")?;
    let shape = shape
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("shape is not a tuple")?;
    let dims: Vec<i64> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<i64>().map_err(|_| format!("shape entry {s:?}")))
        .collect::<Result<_, _>>()?;
    let &(_, data_type, size) = DESCRS
        .iter()
        .find(|(d, _, _)| *d == descr)
        .ok_or_else(|| format!("element type {descr:?} is not supported"))?;
    let count = dims.iter().try_fold(1usize, |acc, &d| {
        usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    });
    let expected = count
        .and_then(|c| c.checked_mul(size))
        .ok_or("the shape is too large")?;
    if data.len() != expected {
        return Err(format!(
            "the data holds {} bytes, the shape needs {expected}",
            data.len()
        ));
    }
    Ok(Tensor {
        dims,
        data_type: Some(data_type),
        raw_data: Some(Bytes::copy_from_slice(data)),
        ..Tensor::default()
    })
}

/// A `.npy` file (version 1.0, C order) holding `t`.
pub fn npy_bytes(t: &Tensor) -> Result<Vec<u8>, String> {
    let descr = DESCRS
        .iter()
        .find(|(_, ty, _)| *ty == t.data_type())
        .map(|(d, _, _)| *d)
        .ok_or_else(|| {
            format!(
                "{} cannot be saved as .npy",
                dtype::name(t.data_type()).unwrap_or("?")
            )
        })?;
    let raw = t
        .raw_data
        .as_ref()
        .ok_or("the tensor's values are not in raw_data")?;
    let shape = match t.dims.as_slice() {
        [one] => format!("({one},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header + newline, padded to 64 bytes.
    let total = (10 + header.len() + 1).div_ceil(64) * 64;
    while 10 + header.len() + 1 < total {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend_from_slice(raw);
    Ok(out)
}
