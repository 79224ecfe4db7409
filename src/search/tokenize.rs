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
    if u < 0x80 {
        ASCII_SEPARATOR_TABLE[u as usize]
    } else {
        is_js_whitespace(u)
    }
}

static ASCII_SEPARATOR_TABLE: [bool; 128] = {
    let mut table = [false; 128];
    let mut i = 0;
    while i < ASCII_SEPARATORS.len() {
        table[ASCII_SEPARATORS[i] as usize] = true;
        i += 1;
    }
    // ASCII whitespace in JS `\s`: \t \n \v \f \r and space.
    let mut ws = 0x09;
    while ws <= 0x0D {
        table[ws] = true;
        ws += 1;
    }
    table[0x20] = true;
    table
};

/// Calls `emit` with each kept token of text that is already lowercased.
pub fn for_each_token<'a>(lowered: &'a [u16], mut emit: impl FnMut(&'a [u16])) {
    let mut start = 0;
    for (i, &u) in lowered.iter().enumerate() {
        if is_separator(u) {
            if i - start >= MIN_TOKEN_LEN {
                emit(&lowered[start..i]);
            }
            start = i + 1;
        }
    }
    if lowered.len() - start >= MIN_TOKEN_LEN {
        emit(&lowered[start..]);
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
    fn final_sigma_inside_tokens() {
        // 'ΟΔΟΣ-ΟΔΟΣ'.toLowerCase() === 'οδος-οδος' ('-' is not case-ignorable).
        assert_eq!(toks("ΟΔΟΣ-ΟΔΟΣ"), ["οδος", "οδος"]);
        // '.' is case-ignorable: 'ΟΔΟΣ.ΟΔΟΣ'.toLowerCase() === 'οδοσ.οδος'.
        assert_eq!(toks("ΟΔΟΣ.ΟΔΟΣ"), ["οδοσ", "οδος"]);
    }
}
