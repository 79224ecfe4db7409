//! The tool-search tokenizer.
//!
//! Mirrors the reference's tool-search options: lowercase with JS
//! `toLowerCase`, split on `/[\s\-_.,;:!?()[\]{}'"]+/`, keep tokens whose
//! UTF-16 length is at least 2. No stopwords, and punctuation outside the
//! separator class (`/`, `@`, `#`, ...) stays inside tokens.
//!
//! Lowercasing comes first because it can change lengths (`'İ'` becomes two
//! units), which decides whether a one-letter token survives.

use crate::js::{is_js_whitespace, to_lower_utf16_into, JsString};

/// Tokens shorter than this (in UTF-16 units) are dropped.
pub const MIN_TOKEN_LEN: usize = 2;

/// ASCII members of the separator class, besides whitespace.
const ASCII_SEPARATORS: &[u8] = b"-_.,;:!?()[]{}'\"";

/// True when a UTF-16 unit belongs to the separator class.
pub fn is_separator(u: u16) -> bool {
    (SEPARATOR_BITS[usize::from(u >> 6)] >> (u & 63)) & 1 == 1
}

/// One bit per UTF-16 unit (8 KiB): a branch-free separator test.
static SEPARATOR_BITS: [u64; 1024] = {
    let mut bits = [0u64; 1024];
    let mut i = 0;
    while i < ASCII_SEPARATORS.len() {
        let u = ASCII_SEPARATORS[i] as usize;
        bits[u >> 6] |= 1 << (u & 63);
        i += 1;
    }
    let mut u = 0usize;
    while u <= 0xFFFF {
        if is_js_whitespace(u as u16) {
            bits[u >> 6] |= 1 << (u & 63);
        }
        u += 1;
    }
    bits
};

/// Calls `emit` with each kept token of text that is already lowercased.
///
/// This is the hot loop of index building. Branching on every unit costs a
/// misprediction at nearly every token edge, so units are classified 64 at a
/// time into a separator bitmask, and token edges are found with bit scans:
/// a few predictable branches per token instead.
pub fn for_each_token<'a>(lowered: &'a [u16], mut emit: impl FnMut(&'a [u16])) {
    const NONE: usize = usize::MAX;
    let mut emit_if_kept = |start: usize, end: usize| {
        if end - start >= MIN_TOKEN_LEN {
            emit(&lowered[start..end]);
        }
    };
    // Start of the token being read, possibly begun in an earlier chunk.
    let mut start = NONE;
    for (chunk_index, chunk) in lowered.chunks(64).enumerate() {
        let base = chunk_index * 64;
        let mut separators = 0u64;
        for (bit, &u) in chunk.iter().enumerate() {
            separators |= u64::from(is_separator(u)) << bit;
        }
        if chunk.len() < 64 {
            // Past the end counts as a separator, so the last token closes.
            separators |= !0u64 << chunk.len();
        }
        let mut bit = 0u32;
        while bit < 64 {
            // Looking for a token's first unit, or for the separator after it.
            let wanted = if start == NONE { !separators } else { separators };
            let rest = wanted >> bit;
            if rest == 0 {
                break;
            }
            bit += rest.trailing_zeros();
            let at = base + bit as usize;
            if start == NONE {
                start = at;
            } else {
                emit_if_kept(start, at);
                start = NONE;
            }
        }
    }
    if start != NONE {
        emit_if_kept(start, lowered.len());
    }
}

/// Lowercases `text` and returns its tokens in order, repeats included.
pub fn tokenize(text: &[u16]) -> Vec<JsString> {
    let mut lowered = Vec::new();
    to_lower_utf16_into(text, &mut lowered);
    let mut tokens = Vec::new();
    for_each_token(&lowered, |t| tokens.push(JsString::from(t)));
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        let units: Vec<u16> = s.encode_utf16().collect();
        tokenize(&units).iter().map(|t| t.to_string_lossy()).collect()
    }

    #[test]
    fn separator_class_is_exactly_the_js_regex() {
        // Every unit u for which /[\s\-_.,;:!?()[\]{}'"]/.test(String.fromCharCode(u)).
        let js: &[u16] = &[
            0x0009, 0x000A, 0x000B, 0x000C, 0x000D, 0x0020, 0x0021, 0x0022, 0x0027, 0x0028, 0x0029, 0x002C, 0x002D,
            0x002E, 0x003A, 0x003B, 0x003F, 0x005B, 0x005D, 0x005F, 0x007B, 0x007D, 0x00A0, 0x1680, 0x2000, 0x2001,
            0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F,
            0x3000, 0xFEFF,
        ];
        for u in 0..=0xFFFF {
            assert_eq!(is_separator(u), js.contains(&u), "unit {u:#06x}");
        }
    }

    #[test]
    fn splits_on_the_separator_class() {
        // "Get_Weather-API (v2.0): fetch {city}'s \"forecast\"!?"
        //   .toLowerCase().split(/[\s\-_.,;:!?()[\]{}'"]+/).filter(t => t.length >= 2)
        assert_eq!(
            toks("Get_Weather-API (v2.0): fetch {city}'s \"forecast\"!?"),
            ["get", "weather", "api", "v2", "fetch", "city", "forecast"]
        );
    }

    #[test]
    fn keeps_other_punctuation_and_repeats() {
        assert_eq!(toks("a/b c@d #tag tag tag x"), ["a/b", "c@d", "#tag", "tag", "tag"]);
        assert_eq!(toks("  ,,leading and trailing..  "), ["leading", "and", "trailing"]);
        assert_eq!(toks(""), Vec::<String>::new());
        assert_eq!(toks("a b c"), Vec::<String>::new());
    }

    #[test]
    fn js_whitespace_not_rust_whitespace() {
        // U+FEFF is \s in JS; U+0085 is not, so it stays inside the token.
        assert_eq!(toks("alpha\u{FEFF}beta"), ["alpha", "beta"]);
        assert_eq!(toks("alpha\u{85}beta"), ["alpha\u{85}beta"]);
        assert_eq!(toks("x\u{3000}yz\u{2028}zz\u{180E}q"), ["yz", "zz\u{180E}q"]);
    }

    #[test]
    fn length_is_counted_after_lowercasing_in_utf16_units() {
        // 'İ'.toLowerCase() is 'i\u0307' (length 2), so it survives the filter.
        assert_eq!(toks("İ a"), ["i\u{307}"]);
        // One emoji is two UTF-16 units: '😀'.length === 2.
        assert_eq!(toks("😀 é"), ["😀"]);
        // A lone surrogate is one unit and stays in the token unchanged.
        let mut units: Vec<u16> = "Ab ".encode_utf16().collect();
        units.extend([0xD800, 0x0041]);
        let got = tokenize(&units);
        assert_eq!(got, vec![JsString::from("ab"), JsString::from(vec![0xD800, 0x61])]);
    }

    #[test]
    fn tokens_across_chunk_edges() {
        // Tokens straddling, starting at and ending at 64-unit chunk edges.
        for width in [62usize, 63, 64, 65, 127, 128, 129] {
            let text = format!("{} bb {}", "a".repeat(width), "c".repeat(width));
            let want = vec!["a".repeat(width), "bb".to_string(), "c".repeat(width)];
            assert_eq!(toks(&text), want, "width {width}");
            let text = format!("{}x {}", " ".repeat(width), "d".repeat(width));
            assert_eq!(toks(&text), vec!["d".repeat(width)], "width {width}");
        }
        assert_eq!(toks(&" ".repeat(64)), Vec::<String>::new());
        assert_eq!(toks(&"z".repeat(64)), vec!["z".repeat(64)]);
    }

    #[test]
    fn final_sigma_inside_tokens() {
        // 'ΟΔΟΣ-ΟΔΟΣ'.toLowerCase() === 'οδος-οδος' ('-' is not case-ignorable).
        assert_eq!(toks("ΟΔΟΣ-ΟΔΟΣ"), ["οδος", "οδος"]);
        // '.' is case-ignorable: 'ΟΔΟΣ.ΟΔΟΣ'.toLowerCase() === 'οδοσ.οδος'.
        assert_eq!(toks("ΟΔΟΣ.ΟΔΟΣ"), ["οδοσ", "οδος"]);
    }
}
