//! How numbers read on screen.

/// `1234567` → `1,234,567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1536` → `1.5 KiB`; below 1 KiB the exact count of bytes.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A value for reading: 4 significant digits, exponent form for the very large and
/// the very small (`0.0001234` → `1.234e-4`).
pub fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let magnitude = v.abs().log10().floor();
    if !(-3.0..6.0).contains(&magnitude) {
        return format!("{v:.3e}");
    }
    let decimals = (3.0 - magnitude).max(0.0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_and_bytes() {
        assert_eq!(super::count(0), "0");
        assert_eq!(super::count(999), "999");
        assert_eq!(super::count(1000), "1,000");
        assert_eq!(super::count(1234567), "1,234,567");
        assert_eq!(super::bytes(12), "12 B");
        assert_eq!(super::bytes(1536), "1.5 KiB");
        assert_eq!(super::bytes(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(super::number(0.0), "0");
        assert_eq!(super::number(1.0), "1");
        assert_eq!(super::number(-2.5), "-2.5");
        assert_eq!(super::number(0.123456), "0.1235");
        assert_eq!(super::number(1234.5678), "1235");
        assert_eq!(super::number(0.0001234), "1.234e-4");
        assert_eq!(super::number(12345678.0), "1.235e7");
    }
}
