//! Text measurement without a DOM: advance widths of a common sans-serif face.
//!
//! The table holds the advance widths (in 1/1000 em) of printable ASCII in the
//! metrics shared by Helvetica and Arial, so a label measured here matches what a
//! browser draws with `font-family: Helvetica, Arial, sans-serif` to within a few
//! percent. Other characters get a sensible average: wide East Asian characters a
//! full em, combining marks nothing, everything else the width of a lowercase `n`.

/// Advance widths of ASCII 0x20 (space) ..= 0x7E (`~`), in 1/1000 em.
const ASCII: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, // space ! " # $ % & '
    333, 333, 389, 584, 278, 333, 278, 278, // ( ) * + , - . /
    556, 556, 556, 556, 556, 556, 556, 556, // 0-7
    556, 556, 278, 278, 584, 584, 584, 556, // 8 9 : ; < = > ?
    1015, 667, 667, 722, 722, 667, 611, 778, // @ A-G
    722, 278, 500, 667, 556, 833, 722, 778, // H-O
    667, 778, 722, 667, 611, 722, 667, 944, // P-W
    667, 667, 611, 278, 278, 278, 469, 556, // X Y Z [ \ ] ^ _
    333, 556, 556, 500, 556, 556, 278, 556, // ` a-g
    556, 222, 222, 500, 222, 833, 556, 556, // h-o
    556, 556, 333, 500, 278, 556, 500, 722, // p-w
    500, 500, 500, 334, 260, 334, 584, // x y z { | } ~
];

/// Width of a character that is not in the table (the width of `n`).
const AVERAGE: u16 = 556;

fn advance(c: char) -> u16 {
    let u = c as u32;
    match u {
        0x20..=0x7E => ASCII[(u - 0x20) as usize],
        // A tab as four spaces; other control characters draw nothing.
        0x09 => 4 * 278,
        0x00..=0x1F | 0x7F..=0x9F => 0,
        // Non-breaking space.
        0xA0 => 278,
        // Combining diacritical marks and zero-width characters.
        0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F => 0,
        // Hangul Jamo, CJK, Hangul syllables, compatibility ideographs, full-width forms.
        0x1100..=0x115F
        | 0x2E80..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x20000..=0x3FFFD => 1000,
        _ => AVERAGE,
    }
}

/// Width in pixels of `s` drawn in a Helvetica/Arial-like sans-serif at `font_px`.
///
/// No kerning and no DOM: a sum of per-character advance widths. A non-finite or
/// negative font size measures as zero.
pub fn text_width(s: &str, font_px: f32) -> f32 {
    if !font_px.is_finite() || font_px <= 0.0 {
        return 0.0;
    }
    let units: u64 = s.chars().map(|c| advance(c) as u64).sum();
    units as f32 * font_px / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(text_width("", 12.0), 0.0);
        // Ten digits are ten times one digit.
        let one = text_width("0", 10.0);
        assert!((one - 5.56).abs() < 1e-4);
        assert!((text_width("0123456789", 10.0) - 55.6).abs() < 1e-3);
        assert!(text_width("MatMul", 12.0) > text_width("Add", 12.0));
        assert!(text_width("W", 12.0) > text_width("i", 12.0));
        assert_eq!(text_width("中文", 10.0), 20.0);
        assert_eq!(text_width("x", f32::NAN), 0.0);
        assert_eq!(text_width("x", -1.0), 0.0);
        assert!((text_width("é", 10.0) - 5.56).abs() < 1e-4);
    }
}
