//! BERT's uncased tokenizer, ids only: the `BertNormalizer`,
//! `BertPreTokenizer` and `WordPiece` steps of a Hugging Face `tokenizer.json`
//! such as the one the built-in model ships with (`bge-base-en-v1.5`'s
//! vocabulary), producing the same token ids.
//!
//! 1. Normalise: drop NUL, U+FFFD and control characters; turn whitespace
//!    into spaces; put spaces around CJK ideographs; decompose (NFD) and drop
//!    non-spacing marks (accents); lowercase.
//! 2. Pre-tokenise: split at whitespace, and around every punctuation
//!    character (ASCII punctuation and Unicode's P categories).
//! 3. WordPiece: each word is the longest vocabulary token that starts it,
//!    then the longest `##` continuation that starts the rest, and so on; a
//!    word that cannot be covered so, or longer than 100 characters, is the
//!    unknown token.

use unicode_normalization::char::decompose_canonical;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::search::hash::hash_bytes;

type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// Longer words are the unknown token (the vocabulary's `max_input_chars_per_word`).
pub const MAX_WORD_CHARS: usize = 100;

/// The prefix of a vocabulary token that continues a word.
const CONTINUATION: &str = "##";

/// A WordPiece vocabulary and the BERT steps around it.
pub struct WordPiece {
    /// Tokens that start a word.
    starts: HashMap<Box<str>, u32>,
    /// Tokens that continue one, without their `##`.
    continuations: HashMap<Box<str>, u32>,
    unknown: Option<u32>,
    /// The longest token's length in bytes: no longer piece is looked up.
    longest: usize,
}

/// What tokenizing keeps from one text to the next: the normalised text,
/// and each word met so far with its token ids (texts of one catalog repeat
/// most of their words, and a word's pieces cost several lookups in a large
/// table, each likely a cache miss).
#[derive(Default)]
pub struct TokenScratch {
    normalized: String,
    /// A word's 64-bit hash to its ids, `ids[start..end]`. Keyed by the hash
    /// alone, so a lookup reads no key text (another cache miss); two of a
    /// catalog's hundred thousand words share a hash with odds of about 1 in
    /// 10^9, and would then share their ids.
    words: HashMap<u64, (u32, u32)>,
    ids: Vec<u32>,
}

/// A word's hash for [`TokenScratch`].
fn word_hash(word: &str) -> u64 {
    hash_bytes(word.as_bytes())
}

impl WordPiece {
    /// A vocabulary from its tokens in id order; `unknown` names the token
    /// a word becomes when the vocabulary cannot spell it (`[UNK]`).
    pub fn new<'a>(tokens: impl IntoIterator<Item = &'a str>, unknown: &str) -> WordPiece {
        let mut starts = HashMap::default();
        let mut continuations = HashMap::default();
        let mut unknown_id = None;
        let mut longest = 0;
        for (id, token) in tokens.into_iter().enumerate() {
            let id = id as u32;
            longest = longest.max(token.len());
            if token == unknown {
                unknown_id = Some(id);
            }
            // The first of a repeated token keeps its id, as a JSON vocabulary's would not
            // repeat; a vocabulary file may.
            match token.strip_prefix(CONTINUATION) {
                Some(rest) if !rest.is_empty() => continuations.entry(rest.into()).or_insert(id),
                _ => starts.entry(token.into()).or_insert(id),
            };
        }
        WordPiece { starts, continuations, unknown: unknown_id, longest }
    }

    /// The id of the unknown token, if the vocabulary has one.
    pub fn unknown(&self) -> Option<u32> {
        self.unknown
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.starts.len() + self.continuations.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `emit` with the id of every token of `text`, in order (the
    /// unknown token included).
    pub fn ids(&self, text: &str, scratch: &mut TokenScratch, mut emit: impl FnMut(u32)) {
        let TokenScratch { normalized, words, ids } = scratch;
        normalized.clear();
        normalize(text, normalized);
        for word in pre_tokenize(normalized) {
            let (start, end) = *words.entry(word_hash(word)).or_insert_with(|| {
                let start = ids.len() as u32;
                self.word(word, &mut |id| ids.push(id));
                (start, ids.len() as u32)
            });
            for &id in &ids[start as usize..end as usize] {
                emit(id);
            }
        }
    }

    /// The tokens of one pre-tokenised word.
    fn word(&self, word: &str, emit: &mut impl FnMut(u32)) {
        let unknown = |emit: &mut dyn FnMut(u32)| {
            if let Some(id) = self.unknown {
                emit(id);
            }
        };
        if word.chars().nth(MAX_WORD_CHARS).is_some() {
            return unknown(emit);
        }
        // Greedy longest match first: a word of a few characters tries a few
        // prefixes; the pieces are only emitted once the whole word is covered.
        let mut pieces: [u32; 32] = [0; 32];
        let mut count = 0;
        let mut overflow: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < word.len() {
            let rest = &word[start..];
            let vocabulary = if start == 0 { &self.starts } else { &self.continuations };
            let mut found = None;
            let mut end = rest.len().min(self.longest);
            while end > 0 {
                if rest.is_char_boundary(end) {
                    if let Some(&id) = vocabulary.get(&rest[..end]) {
                        found = Some((id, end));
                        break;
                    }
                }
                end -= 1;
            }
            let Some((id, len)) = found else {
                return unknown(emit);
            };
            if count < pieces.len() {
                pieces[count] = id;
            } else {
                overflow.push(id);
            }
            count += 1;
            start += len;
        }
        for &id in pieces[..count.min(pieces.len())].iter().chain(&overflow) {
            emit(id);
        }
    }
}

/// BERT's normalisation (clean, CJK spacing, accents stripped, lowercase),
/// appended to `out`.
pub fn normalize(text: &str, out: &mut String) {
    for c in text.chars() {
        if c.is_ascii() {
            match c {
                '\t' | '\n' | '\r' | ' ' => out.push(' '),
                '\0'..='\x1f' | '\x7f' => {}
                _ => out.push(c.to_ascii_lowercase()),
            }
            continue;
        }
        if c == '\u{FFFD}' || is_control(c) {
            continue;
        }
        if c.general_category() == GeneralCategory::SpaceSeparator {
            out.push(' ');
        } else if is_cjk_ideograph(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            decompose_canonical(c, |part| {
                if part.general_category() != GeneralCategory::NonspacingMark {
                    out.extend(part.to_lowercase());
                }
            });
        }
    }
}

/// BERT's control characters: Unicode's C categories, but for tab, newline
/// and carriage return (which are whitespace).
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.general_category_group() == GeneralCategoryGroup::Other
}

/// Punctuation as BERT splits it: ASCII punctuation (`$`, `+`, `^`, ... too)
/// and Unicode's P categories.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || (!c.is_ascii() && c.general_category_group() == GeneralCategoryGroup::Punctuation)
}

/// The CJK ideographs BERT puts spaces around (its `_is_chinese_char`).
fn is_cjk_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F
    )
}

/// The words of normalised text: split at whitespace, each punctuation
/// character a word of its own.
fn pre_tokenize(text: &str) -> impl Iterator<Item = &str> {
    text.split(char::is_whitespace).flat_map(|chunk| {
        let mut rest = chunk;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let mut chars = rest.char_indices();
            let (_, first) = chars.next()?;
            let end = if is_punctuation(first) {
                first.len_utf8()
            } else {
                chars.find(|&(_, c)| is_punctuation(c)).map_or(rest.len(), |(at, _)| at)
            };
            let (word, after) = rest.split_at(end);
            rest = after;
            Some(word)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> WordPiece {
        let tokens = [
            "[PAD]", "[UNK]", "the", "weather", "in", "sao", "paulo", "##s", "un", "##aff", "##able", "?", ",", "'",
            "中", "文", "run", "##ning", "a",
        ];
        WordPiece::new(tokens, "[UNK]")
    }

    fn ids(text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        vocabulary().ids(text, &mut TokenScratch::default(), |id| out.push(id));
        out
    }

    #[test]
    fn normalises_as_bert_does() {
        let mut out = String::new();
        normalize("Héllo\tWORLD\u{0}\u{200B} São 中文, İ\u{A0}x", &mut out);
        // Accents go (İ is I and a dot above), NUL and the zero-width space (a
        // format character) go, the no-break space is a space, ideographs are spaced.
        assert_eq!(out, "hello world sao  中  文 , i x");
    }

    #[test]
    fn words_split_at_spaces_and_around_punctuation() {
        let words: Vec<&str> = pre_tokenize("what's  the $5 «weather»?").collect();
        assert_eq!(words, ["what", "'", "s", "the", "$", "5", "«", "weather", "»", "?"]);
    }

    #[test]
    fn words_are_the_longest_pieces_or_unknown() {
        assert_eq!(ids("The weather in São Paulo?"), [2, 3, 4, 5, 6, 11]);
        assert_eq!(ids("unaffable runs running"), [8, 9, 10, 16, 7, 16, 17]);
        // A word the pieces cannot cover is one unknown token, whatever it began with.
        assert_eq!(ids("runx 中文"), [1, 14, 15]);
        let long = "a".repeat(MAX_WORD_CHARS + 1);
        assert_eq!(ids(&long), [1]);
        assert_eq!(ids(&"a".repeat(3)), [1]);
        assert_eq!(ids(""), Vec::<u32>::new());
    }
}
