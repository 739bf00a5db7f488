//! Tokens of the ONNX text format, as `onnx/defs/parser.cc` reads them.
//!
//! The lexer follows onnx's character rules: identifiers are `[A-Za-z_][A-Za-z0-9_]*`,
//! numbers start with a digit (`12`, `1.5`, `1.`, `2e-3`; the sign is a separate `-`
//! token), strings are double-quoted with `\` taking the next character literally, and
//! `#` starts a comment that runs to the end of the line.
//!
//! Graft's extensions live on lines that start with `#@` (see the module docs): with
//! extensions on, `#@` is skipped and the rest of its line is lexed as usual, every
//! token marked `hidden`; onnx.parser, and Graft with extensions off, read the whole
//! line as a comment. Strings on `#@` lines use Graft's escapes (`\n`, `\t`, `\r`,
//! `\\`, `\"`, `\xHH`) and must end on their line.

use std::borrow::Cow;

/// What a token is; its text is `src[start..end]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Tk {
    Ident,
    /// Digits only.
    Int,
    /// Digits with a decimal point or an exponent.
    Float,
    /// A string literal (the span includes the quotes); `escaped` when it holds a `\`.
    Str {
        escaped: bool,
    },
    Punct(u8),
    Eof,
}

#[derive(Copy, Clone, Debug)]
pub(super) struct Token {
    pub kind: Tk,
    pub start: usize,
    pub end: usize,
    /// On a `#@` line.
    pub hidden: bool,
}

impl Token {
    pub fn is(&self, c: u8) -> bool {
        self.kind == Tk::Punct(c)
    }
}

/// A lexical error at a byte offset.
#[derive(Debug)]
pub(super) struct LexError {
    pub pos: usize,
    pub message: String,
}

pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    /// Graft's `#@` extension lines are read (otherwise they are comments).
    extensions: bool,
    /// Tokens that start before this offset are on a `#@` line.
    hidden_end: usize,
}

const PUNCT: &[u8] = b"<>()[]{},:=@.?-";

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, extensions: bool) -> Self {
        Self {
            src,
            pos: 0,
            extensions,
            hidden_end: 0,
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    /// Skips white space and comments; enters a hidden line at `#@`.
    fn skip_trivia(&mut self) {
        let b = self.bytes();
        loop {
            while self.pos < b.len() && is_space(b[self.pos]) {
                self.pos += 1;
            }
            if self.pos < b.len() && b[self.pos] == b'#' {
                let eol = b[self.pos..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |i| self.pos + i);
                if self.extensions && b.get(self.pos + 1) == Some(&b'@') {
                    self.hidden_end = eol;
                    self.pos += 2;
                } else {
                    self.pos = eol;
                }
                continue;
            }
            return;
        }
    }

    /// Whether the cursor is outside `#@` lines.
    pub fn visible(&self) -> bool {
        self.pos >= self.hidden_end
    }

    /// The fast path for tensor values: reads `[-]number` elements separated by `,`
    /// up to `}`, as the tokens would, and gives each to `f` (sign, digits, offset).
    /// It stops at anything else (a comment included) and says where.
    pub fn number_list(
        &mut self,
        mut f: impl FnMut(bool, &'a str, usize) -> Result<(), LexError>,
    ) -> Result<ListStop, LexError> {
        let b = self.bytes();
        let src = self.src;
        let skip = |mut p: usize| {
            while p < b.len() && matches!(b[p], b' ' | b'\t' | b'\n' | b'\r') {
                p += 1;
            }
            p
        };
        let mut p = skip(self.pos);
        if b.get(p) == Some(&b'}') {
            self.pos = p + 1;
            return Ok(ListStop::Closed);
        }
        loop {
            let element = p;
            let negative = b.get(p) == Some(&b'-');
            if negative {
                p = skip(p + 1);
            }
            if !b.get(p).is_some_and(u8::is_ascii_digit) {
                self.pos = element;
                return Ok(ListStop::BeforeElement);
            }
            let (end, _) = scan_number(b, p);
            if b.get(end)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
            {
                // `1x`: the token path gives the error.
                self.pos = element;
                return Ok(ListStop::BeforeElement);
            }
            f(negative, src.get(p..end).unwrap_or(""), p)?;
            p = skip(end);
            match b.get(p) {
                Some(b',') => p = skip(p + 1),
                Some(b'}') => {
                    self.pos = p + 1;
                    return Ok(ListStop::Closed);
                }
                _ => {
                    self.pos = p;
                    return Ok(ListStop::AfterElement);
                }
            }
        }
    }

    pub fn next(&mut self) -> Result<Token, LexError> {
        self.skip_trivia();
        let b = self.bytes();
        let start = self.pos;
        let hidden = start < self.hidden_end;
        let token = |kind, end| Token {
            kind,
            start,
            end,
            hidden,
        };
        let Some(&c) = b.get(start) else {
            return Ok(token(Tk::Eof, start));
        };
        if c.is_ascii_alphabetic() || c == b'_' {
            let mut end = start + 1;
            while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                end += 1;
            }
            self.pos = end;
            return Ok(token(Tk::Ident, end));
        }
        if c.is_ascii_digit() {
            let (end, float) = scan_number(b, start);
            self.pos = end;
            return Ok(token(if float { Tk::Float } else { Tk::Int }, end));
        }
        if c == b'"' {
            let mut end = start + 1;
            let mut escaped = false;
            loop {
                if hidden && end >= self.hidden_end {
                    return Err(LexError {
                        pos: start,
                        message: "a string on a `#@` line must end on that line (write a line break as \\n)".into(),
                    });
                }
                match b.get(end) {
                    None => {
                        return Err(LexError {
                            pos: start,
                            message: "this string is not closed: `\"` expected before the end of the text".into(),
                        });
                    }
                    Some(b'"') => break,
                    Some(b'\\') => {
                        escaped = true;
                        end += 2;
                    }
                    Some(_) => end += 1,
                }
            }
            self.pos = end + 1;
            return Ok(token(Tk::Str { escaped }, end + 1));
        }
        if PUNCT.contains(&c) {
            self.pos = start + 1;
            return Ok(token(Tk::Punct(c), start + 1));
        }
        let ch = self.src[start..].chars().next().unwrap_or('?');
        Err(LexError {
            pos: start,
            message: format!("unexpected character {ch:?}"),
        })
    }
}

/// Where a number that starts with a digit at `start` ends, and whether it is a float:
/// digits with at most one `.`, then an optional exponent `e[+-]digits`.
fn scan_number(b: &[u8], start: usize) -> (usize, bool) {
    let mut end = start + 1;
    let mut float = false;
    while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'.') {
        if b[end] == b'.' {
            if float {
                break;
            }
            float = true;
        }
        end += 1;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        float = true;
        end += 1;
        if end < b.len() && (b[end] == b'+' || b[end] == b'-') {
            end += 1;
        }
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    (end, float)
}

/// Where the fast path of [`Lexer::number_list`] stopped.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ListStop {
    /// After the closing `}`.
    Closed,
    /// Before an element it does not read (`nan`, a comment...): read it with tokens.
    BeforeElement,
    /// After an element, before something other than `,` or `}`.
    AfterElement,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The value of a string token written in ONNX syntax: `\` keeps the next character.
pub(super) fn onnx_string(text: &str, escaped: bool) -> Cow<'_, str> {
    let inner = &text[1..text.len() - 1];
    if !escaped {
        return Cow::Borrowed(inner);
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The bytes of a string token on a `#@` line (Graft's escapes), or what is wrong with
/// an escape and where (an offset within the token).
pub(super) fn graft_string(text: &str, escaped: bool) -> Result<Cow<'_, [u8]>, (usize, String)> {
    let inner = &text.as_bytes()[1..text.len() - 1];
    if !escaped {
        return Ok(Cow::Borrowed(inner));
    }
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let at = i + 1;
        let e = inner.get(i + 1).copied().unwrap_or(b' ');
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'\\' => out.push(b'\\'),
            b'"' => out.push(b'"'),
            b'x' => {
                let digit = |k: usize| {
                    inner
                        .get(k)
                        .and_then(|&d| char::from(d).to_digit(16))
                        .and_then(|d| u8::try_from(d).ok())
                };
                let hex = digit(i + 2).zip(digit(i + 3)).map(|(h, l)| h * 16 + l);
                match hex {
                    Some(v) => out.push(v),
                    None => return Err((at, "\\x needs two hex digits".into())),
                }
                i += 2;
            }
            _ => {
                return Err((
                    at,
                    "unknown escape: use \\n, \\t, \\r, \\\\, \\\" or \\xHH".into(),
                ));
            }
        }
        i += 2;
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str, ext: bool) -> Vec<(Tk, String, bool)> {
        let mut lexer = Lexer::new(src, ext);
        let mut out = Vec::new();
        loop {
            let t = lexer.next().expect("lexes");
            if t.kind == Tk::Eof {
                return out;
            }
            out.push((t.kind, src[t.start..t.end].to_string(), t.hidden));
        }
    }

    #[test]
    fn numbers_follow_onnx() {
        let k = kinds("1 1.5 1. 2e-3 1.2.3 7x", false);
        let texts: Vec<_> = k.iter().map(|t| (t.0, t.1.as_str())).collect();
        assert_eq!(
            texts,
            vec![
                (Tk::Int, "1"),
                (Tk::Float, "1.5"),
                (Tk::Float, "1."),
                (Tk::Float, "2e-3"),
                (Tk::Float, "1.2"),
                (Tk::Punct(b'.'), "."),
                (Tk::Int, "3"),
                (Tk::Int, "7"),
                (Tk::Ident, "x"),
            ]
        );
    }

    #[test]
    fn hidden_lines_only_with_extensions() {
        let src = "a # c\n#@ {b}\nc";
        assert_eq!(kinds(src, false).len(), 2);
        let k = kinds(src, true);
        assert_eq!(
            k.iter().map(|t| (t.1.as_str(), t.2)).collect::<Vec<_>>(),
            vec![
                ("a", false),
                ("{", true),
                ("b", true),
                ("}", true),
                ("c", false)
            ]
        );
    }

    #[test]
    fn strings() {
        assert_eq!(onnx_string(r#""a\"b\n""#, true), "a\"bn");
        assert_eq!(
            graft_string(r#""a\n\x00\"""#, true).ok().as_deref(),
            Some(&b"a\n\x00\""[..])
        );
        assert!(graft_string(r#""\q""#, true).is_err());
        let mut lexer = Lexer::new("#@ \"abc\n\"", true);
        assert!(lexer.next().is_err());
        let mut lexer = Lexer::new("\"abc", true);
        assert!(lexer.next().is_err());
    }
}
