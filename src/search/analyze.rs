//! Text analysis for the `'fielded'` ranking: text and identifiers to terms.
//!
//! The reference tokenizer lowercases first and splits on a fixed set of
//! separators, so `getCurrentWeather` stays one token, and a Chinese question
//! without spaces is one huge token. This analyzer:
//!
//! - splits on anything that is not a letter or digit (Unicode classes), and
//!   between scripts (Latin inside Chinese text becomes its own word);
//! - reads an identifier (`get_current_weather`, `ChaFod`, `requests.get`,
//!   `HTTPServer2`) as its pieces (`get`, `current`, `weather`; `cha`, `fod`;
//!   `http`, `server`), splitting at `_`, `.`, `-`, lower-to-upper case changes,
//!   the last capital of a run of capitals before a lowercase letter, and
//!   letter/digit changes, and also keeps the whole, lowercased with its
//!   connectors dropped (`getcurrentweather`), so naming a tool exactly, in any
//!   of its spellings, matches that tool's name;
//! - stems pieces with the Snowball English stemmer (`forecasts` and
//!   `forecasting` both become `forecast`);
//! - reads CJK text (Han, kana, Hangul) as single characters and overlapping
//!   pairs of characters, the usual way to index text that has no spaces;
//! - drops one-letter Latin pieces, as the reference drops one-unit tokens.
//!
//! Terms come out as [`Term`]s; the index and the query use the same analyzer.

use rust_stemmers::{Algorithm, Stemmer};

/// What a term is, which decides how it is normalised and matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TermKind {
    /// A word or an identifier piece, lowercased (and stemmed, unless the
    /// stem is a term of its own).
    Word,
    /// A word's stem, when words are also kept as they are.
    Stem,
    /// A whole identifier of two or more pieces, lowercased, connectors dropped.
    Whole,
    /// One CJK character, or two adjacent ones.
    Cjk,
    /// The first letters of a long word, unstemmed (matches across related
    /// languages: `temperatura` and `temperature`).
    Prefix,
    /// Two adjacent words joined (`"to do"` as `todo`): a query's guess at
    /// a compound, matched against words and whole identifiers.
    Joined,
}

/// One term: its kind and its text. Terms of different kinds never match.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    pub kind: TermKind,
    pub text: String,
}

impl Term {
    pub fn word(text: &str) -> Term {
        Term { kind: TermKind::Word, text: text.into() }
    }

    pub fn whole(text: &str) -> Term {
        Term { kind: TermKind::Whole, text: text.into() }
    }
}

/// Switches for the analysis steps (all on for the `'fielded'` ranking; the
/// ablation turns them off one at a time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalyzerConfig {
    /// Split identifiers at case changes and letter/digit changes (`_`, `.`
    /// and `-` always split, as they do in the reference).
    pub split_case: bool,
    /// Also emit a split identifier whole.
    pub keep_whole: bool,
    /// Stem words with the Snowball English stemmer.
    pub stem: bool,
    /// With `stem`, keep each word as it is too, the stem as a [`TermKind::Stem`].
    pub keep_unstemmed: bool,
    /// Index CJK characters as unigrams and bigrams (otherwise a CJK run is
    /// one word, like any other letters).
    pub cjk_ngrams: bool,
    /// Drop the most common English function words.
    pub stopwords: bool,
    /// Also drop conversational filler ("me", "can", "would", "want",
    /// "please", ...; see `is_filler`), words a question is wrapped in
    /// rather than what it asks for, as whole words and as identifier pieces
    /// (the `me` of `help_me`).
    pub filler: bool,
    /// After two words separated only by spaces, also emit them joined as a
    /// [`TermKind::Joined`] (`"to do"` as `todo`, `"log in"` as `login`), so
    /// a query's compound meets a tool's single word or identifier.
    pub join_words: bool,
    /// Also emit a [`TermKind::Prefix`] of this many letters for longer words (0: none).
    pub prefix_len: u8,
}

impl AnalyzerConfig {
    /// Every step off: words split and lowercased as the reference's tokenizer
    /// does, nothing more.
    pub const NONE: AnalyzerConfig = AnalyzerConfig {
        split_case: false,
        keep_whole: false,
        stem: false,
        keep_unstemmed: false,
        cjk_ngrams: false,
        stopwords: false,
        filler: false,
        join_words: false,
        prefix_len: 0,
    };

    /// Every step on, as the `'fielded'` ranking ships.
    pub const FULL: AnalyzerConfig = AnalyzerConfig {
        split_case: true,
        keep_whole: true,
        stem: true,
        keep_unstemmed: true,
        cjk_ngrams: true,
        stopwords: true,
        filler: true,
        join_words: false,
        prefix_len: 5,
    };

    /// [`FULL`](Self::FULL) for queries: compounds joined too.
    pub const QUERY: AnalyzerConfig = AnalyzerConfig { join_words: true, ..AnalyzerConfig::FULL };
}

/// Lucene's English stop words.
fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "but"
            | "by"
            | "for"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "no"
            | "not"
            | "of"
            | "on"
            | "or"
            | "such"
            | "that"
            | "the"
            | "their"
            | "then"
            | "there"
            | "these"
            | "they"
            | "this"
            | "to"
            | "was"
            | "will"
            | "with"
    )
}

/// Words people wrap a request in, which say nothing about the tool they
/// want: pronouns, auxiliaries and modals, wanting and asking, politeness,
/// and a few vague words, as the analyzer sees them (lowercased, split at
/// apostrophes: "don't" is `don` and a dropped `t`). Measured on the live
/// questions of the dev data (`examples/rank_eval.rs`): each group lifts
/// 'fielded' there and leaves the tidy questions as they were.
pub fn is_filler(word: &str) -> bool {
    matches!(
        word,
        // Pronouns and determiners.
        "me" | "my" | "mine" | "myself" | "you" | "your" | "yours" | "yourself" | "we" | "us" | "our" | "ours"
            | "he" | "him" | "his" | "she" | "her" | "hers" | "its" | "them" | "what" | "which" | "who"
            | "whom" | "whose" | "some" | "any" | "other" | "another" | "one"
            // Auxiliaries and modals, with the pieces of their contractions.
            | "am" | "been" | "being" | "do" | "does" | "did" | "doing" | "don" | "doesn" | "didn" | "has"
            | "have" | "had" | "having" | "can" | "could" | "would" | "should" | "shall" | "may" | "might"
            | "must" | "ll" | "ve" | "re"
            // Wanting, asking and politeness.
            | "want" | "wants" | "wanted" | "need" | "needs" | "needed" | "like" | "looking" | "wish"
            | "trying" | "please" | "kindly" | "thanks" | "thank" | "hi" | "hello" | "hey" | "tell" | "let"
            | "also" | "just" | "so" | "about" | "here" | "now" | "very" | "really"
    )
}

/// Characters that join the pieces of one identifier.
fn is_connector(c: char) -> bool {
    matches!(c, '_' | '.' | '-')
}

/// Scripts written without spaces between words, indexed by character.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF       // Hangul Jamo
        | 0x2E80..=0x2FDF     // CJK radicals, Kangxi radicals
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3100..=0x312F     // Bopomofo
        | 0x3130..=0x318F     // Hangul compatibility Jamo
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xA960..=0xA97F     // Hangul Jamo extended A
        | 0xAC00..=0xD7FF     // Hangul syllables, Jamo extended B
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9D     // halfwidth Katakana
        | 0x20000..=0x3FFFF // CJK extensions B and later
    )
}

/// Letters and digits outside CJK: what words are made of.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    c.is_alphanumeric() && !is_cjk(c)
}

/// The analyzer. Cheap to create; holds a stemmer and scratch buffers.
pub struct Analyzer {
    config: AnalyzerConfig,
    stemmer: Stemmer,
    scratch: Scratch,
}

/// Buffers reused from one text to the next.
#[derive(Default)]
struct Scratch {
    chars: Vec<char>,
    whole: String,
    piece: String,
    /// The last one-piece word and where it ended, for `join_words`.
    last_word: String,
    last_word_end: usize,
}

impl Analyzer {
    pub fn new(config: AnalyzerConfig) -> Analyzer {
        Analyzer { config, stemmer: Stemmer::create(Algorithm::English), scratch: Scratch::default() }
    }

    pub fn config(&self) -> AnalyzerConfig {
        self.config
    }

    /// Calls `emit` with every term of `text` (UTF-16; a lone surrogate
    /// separates like punctuation), in order, repeats included.
    pub fn analyze(&mut self, text: &[u16], mut emit: impl FnMut(TermKind, &str)) {
        let Analyzer { config, stemmer, scratch } = self;
        scratch.tokens(config, text, |kind, token| match kind {
            TermKind::Word => expand(config, stemmer, token, &mut emit),
            _ => emit(kind, token),
        });
    }

    /// Calls `emit` with every token of `text`: words as written (lowercased,
    /// unstemmed), whole identifiers and CJK n-grams. [`expand`](Self::expand)
    /// turns a word into its terms; an index can remember those per word.
    pub fn tokens(&mut self, text: &[u16], emit: impl FnMut(TermKind, &str)) {
        self.scratch.tokens(&self.config, text, emit);
    }

    /// The terms of one word as [`tokens`](Self::tokens) gave it: the word
    /// (stemmed, unless stems are terms of their own), its stem, and its
    /// prefix, as the config says.
    pub fn expand(&self, word: &str, mut emit: impl FnMut(TermKind, &str)) {
        expand(&self.config, &self.stemmer, word, &mut emit);
    }

    /// Every term of `text`.
    pub fn terms(&mut self, text: &[u16]) -> Vec<Term> {
        let mut terms = Vec::new();
        self.analyze(text, |kind, text| terms.push(Term { kind, text: text.to_owned() }));
        terms
    }
}

fn expand(config: &AnalyzerConfig, stemmer: &Stemmer, word: &str, emit: &mut impl FnMut(TermKind, &str)) {
    if !config.stem {
        emit(TermKind::Word, word);
    } else if config.keep_unstemmed {
        emit(TermKind::Word, word);
        emit(TermKind::Stem, &stemmer.stem(word));
    } else {
        emit(TermKind::Word, &stemmer.stem(word));
    }
    let prefix_len = usize::from(config.prefix_len);
    if prefix_len > 0 {
        if let Some((end, _)) = word.char_indices().nth(prefix_len) {
            emit(TermKind::Prefix, &word[..end]);
        }
    }
}

impl Scratch {
    fn tokens(&mut self, config: &AnalyzerConfig, text: &[u16], mut emit: impl FnMut(TermKind, &str)) {
        let mut chars = std::mem::take(&mut self.chars);
        chars.clear();
        chars.extend(char::decode_utf16(text.iter().copied()).map(|c| c.unwrap_or('\u{FFFD}')));
        self.last_word.clear();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if is_word_char(c) {
                // An identifier: word characters joined by single connectors.
                let start = i;
                let mut end = i + 1;
                loop {
                    while end < chars.len() && is_word_char(chars[end]) {
                        end += 1;
                    }
                    if end + 1 < chars.len() && is_connector(chars[end]) && is_word_char(chars[end + 1]) {
                        end += 1;
                    } else {
                        break;
                    }
                }
                let pieces = self.identifier(config, &chars[start..end], &mut emit);
                if config.join_words {
                    self.join(&chars, start, end, pieces, &mut emit);
                }
                i = end;
            } else if is_cjk(c) {
                let start = i;
                while i < chars.len() && is_cjk(chars[i]) {
                    i += 1;
                }
                let run = &chars[start..i];
                self.piece.clear();
                if config.cjk_ngrams {
                    for (k, &a) in run.iter().enumerate() {
                        self.piece.clear();
                        self.piece.push(a);
                        emit(TermKind::Cjk, &self.piece);
                        if let Some(&b) = run.get(k + 1) {
                            self.piece.push(b);
                            emit(TermKind::Cjk, &self.piece);
                        }
                    }
                } else {
                    // Without n-grams, a CJK run is one word.
                    self.piece.extend(run.iter());
                    emit(TermKind::Word, &self.piece);
                }
            } else {
                i += 1;
            }
        }
        self.chars = chars;
    }

    /// With `join_words`: after a one-piece word of two letters or more at
    /// `chars[start..end]` (its lowercased text in `whole`), emits it joined
    /// to the word before when only spaces lie between them.
    /// Positional: a step of the tokenizer's loop, once per identifier of
    /// every text analysed; its values are that loop's own locals.
    fn join(&mut self, chars: &[char], start: usize, end: usize, pieces: usize, emit: &mut impl FnMut(TermKind, &str)) {
        let word = pieces == 1 && end - start >= 2;
        let adjacent = !self.last_word.is_empty()
            && self.last_word_end < start
            && chars[self.last_word_end..start].iter().all(|c| c.is_whitespace());
        if word && adjacent {
            let joined_len = self.last_word.len();
            self.last_word.push_str(&self.whole);
            emit(TermKind::Joined, &self.last_word);
            self.last_word.truncate(joined_len);
        }
        self.last_word.clear();
        if word {
            self.last_word.push_str(&self.whole);
            self.last_word_end = end;
        }
    }

    /// Emits the pieces of one identifier, then the whole when it has more
    /// than one piece; returns how many pieces it has (its lowercased text
    /// without connectors is left in `whole`).
    fn identifier(&mut self, config: &AnalyzerConfig, chars: &[char], emit: &mut impl FnMut(TermKind, &str)) -> usize {
        let mut pieces = 0usize;
        self.whole.clear();
        let mut start = 0;
        for end in 1..=chars.len() {
            if end < chars.len() && !boundary(config, chars, end) {
                continue;
            }
            let piece = &chars[start..end];
            start = end;
            if piece.iter().all(|&c| is_connector(c)) {
                continue;
            }
            self.piece.clear();
            for &c in piece.iter().filter(|&&c| !is_connector(c)) {
                if c.is_ascii() {
                    self.piece.push(c.to_ascii_lowercase());
                } else {
                    self.piece.extend(c.to_lowercase());
                }
            }
            self.whole.push_str(&self.piece);
            pieces += 1;
            if self.piece.chars().nth(1).is_some()
                && !(config.stopwords && is_stopword(&self.piece))
                && !(config.filler && is_filler(&self.piece))
            {
                emit(TermKind::Word, &self.piece);
            }
        }
        if pieces > 1 && config.keep_whole {
            emit(TermKind::Whole, &self.whole);
        }
        pieces
    }
}

/// Whether an identifier's piece ends before `chars[at]`.
fn boundary(config: &AnalyzerConfig, chars: &[char], at: usize) -> bool {
    let (prev, next) = (chars[at - 1], chars[at]);
    if is_connector(next) || is_connector(prev) {
        return true;
    }
    if !config.split_case {
        return false;
    }
    if prev.is_ascii() && next.is_ascii() {
        let (prev, next) = (prev as u8, next as u8);
        return prev.is_ascii_digit() != next.is_ascii_digit()
            || (prev.is_ascii_lowercase() && next.is_ascii_uppercase())
            || (prev.is_ascii_uppercase()
                && next.is_ascii_uppercase()
                && chars.get(at + 1).is_some_and(|c| c.is_lowercase()));
    }
    if prev.is_numeric() != next.is_numeric() {
        return true;
    }
    if prev.is_lowercase() && next.is_uppercase() {
        return true;
    }
    // `HTTPServer`: the last capital of a run starts the next piece.
    prev.is_uppercase() && next.is_uppercase() && chars.get(at + 1).is_some_and(|c| c.is_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(kind: TermKind, text: &str) -> String {
        match kind {
            TermKind::Word => text.to_owned(),
            TermKind::Stem => format!("/{text}"),
            TermKind::Prefix => format!("^{text}"),
            TermKind::Whole => format!("={text}"),
            TermKind::Cjk => format!("~{text}"),
            TermKind::Joined => format!("+{text}"),
        }
    }

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// Tokens (words as written, whole identifiers, CJK n-grams).
    fn tokens_with(config: AnalyzerConfig, s: &str) -> Vec<String> {
        let mut out = Vec::new();
        Analyzer::new(config).tokens(&units(s), |kind, t| out.push(show(kind, t)));
        out
    }

    fn tokens(s: &str) -> Vec<String> {
        tokens_with(AnalyzerConfig::FULL, s)
    }

    /// Every term, words expanded.
    fn terms_with(config: AnalyzerConfig, s: &str) -> Vec<String> {
        Analyzer::new(config).terms(&units(s)).into_iter().map(|t| show(t.kind, &t.text)).collect()
    }

    #[test]
    fn identifiers_split_into_pieces_and_keep_the_whole() {
        assert_eq!(tokens("get_current_weather"), ["get", "current", "weather", "=getcurrentweather"]);
        assert_eq!(tokens("getCurrentWeather"), ["get", "current", "weather", "=getcurrentweather"]);
        assert_eq!(tokens("ChaFod"), ["cha", "fod", "=chafod"]);
        assert_eq!(tokens("requests.get"), ["requests", "get", "=requestsget"]);
        assert_eq!(tokens("get-weather"), ["get", "weather", "=getweather"]);
        assert_eq!(
            tokens("HTTPServer2 parseJSONResponse"),
            ["http", "server", "=httpserver2", "parse", "json", "response", "=parsejsonresponse"]
        );
        assert_eq!(
            tokens("CustomDashboardsApi.get_custom_dashboards"),
            ["custom", "dashboards", "api", "get", "custom", "dashboards", "=customdashboardsapigetcustomdashboards"]
        );
        // One piece: nothing more to keep.
        assert_eq!(tokens("Weather"), ["weather"]);
    }

    #[test]
    fn words_split_on_anything_but_letters_and_digits() {
        // Stop words and one-letter pieces drop; numbers of two digits or more stay.
        assert_eq!(tokens("Weather in Boston, MA (in °F)?"), ["weather", "boston", "ma"]);
        assert_eq!(tokens("a x 5 10 v2 sha256 / a@b"), ["10", "=v2", "sha", "256", "=sha256"]);
        // Sentence punctuation ends an identifier; connectors at its edges are not in it.
        assert_eq!(tokens("forecasts. _Forecasting_ x.y"), ["forecasts", "forecasting", "=xy"]);
        // Letters beyond ASCII are letters; Unicode lowercasing.
        assert_eq!(tokens("Qual é a Temperatura em São Paulo?"), ["qual", "temperatura", "em", "são", "paulo"]);
        assert_eq!(tokens("ΟΔΟΣ Straße"), ["οδοσ", "straße"]);
    }

    #[test]
    fn cjk_text_becomes_unigrams_and_bigrams_and_latin_words_come_out() {
        assert_eq!(
            tokens("北京天气,fahrenheit"),
            ["~北", "~北京", "~京", "~京天", "~天", "~天气", "~气", "fahrenheit"]
        );
        assert_eq!(tokens("天气API查询"), ["~天", "~天气", "~气", "api", "~查", "~查询", "~询"]);
        assert_eq!(tokens("ツール"), ["~ツ", "~ツー", "~ー", "~ール", "~ル"]);
        let no_ngrams = AnalyzerConfig { cjk_ngrams: false, ..AnalyzerConfig::FULL };
        assert_eq!(tokens_with(no_ngrams, "北京天气 today"), ["北京天气", "today"]);
    }

    #[test]
    fn words_expand_into_word_stem_and_prefix() {
        let analyzer = Analyzer::new(AnalyzerConfig::FULL);
        let expand = |word: &str| {
            let mut out = Vec::new();
            analyzer.expand(word, |kind, t| out.push(show(kind, t)));
            out
        };
        assert_eq!(expand("forecasting"), ["forecasting", "/forecast", "^forec"]);
        assert_eq!(expand("weather"), ["weather", "/weather", "^weath"]);
        // A prefix only for words longer than it.
        assert_eq!(expand("books"), ["books", "/book"]);
        assert_eq!(expand("temperatura"), ["temperatura", "/temperatura", "^tempe"]);
        assert_eq!(expand("são"), ["são", "/são"]);
    }

    #[test]
    fn terms_are_tokens_with_words_expanded() {
        assert_eq!(
            terms_with(AnalyzerConfig::FULL, "getWeather forecasts"),
            ["get", "/get", "weather", "/weather", "^weath", "=getweather", "forecasts", "/forecast", "^forec"]
        );
    }

    #[test]
    fn each_step_can_be_turned_off() {
        let none = AnalyzerConfig::NONE;
        // `_` and `.` split as in the reference; case changes do not.
        assert_eq!(terms_with(none, "the getWeather get_weather"), ["the", "getweather", "get", "weather"]);
        assert_eq!(
            terms_with(AnalyzerConfig { keep_whole: true, ..none }, "get_weather"),
            ["get", "weather", "=getweather"]
        );
        // Stemmed words in place of the words.
        assert_eq!(terms_with(AnalyzerConfig { stem: true, ..none }, "forecasts"), ["forecast"]);
        assert_eq!(
            terms_with(AnalyzerConfig { stem: true, keep_unstemmed: true, ..none }, "forecasts"),
            ["forecasts", "/forecast"]
        );
        assert_eq!(terms_with(AnalyzerConfig { prefix_len: 3, ..none }, "forecasts"), ["forecasts", "^for"]);
    }

    #[test]
    fn conversational_filler_drops_as_words_and_as_identifier_pieces() {
        assert_eq!(tokens("Could you help me? I'd like to order one pizza, please"), ["help", "order", "pizza"]);
        // The `me` of `help_me` is no term of the tool's name; the whole still is.
        assert_eq!(tokens("help_me"), ["help", "=helpme"]);
        let no_filler = AnalyzerConfig { filler: false, ..AnalyzerConfig::FULL };
        assert_eq!(tokens_with(no_filler, "help_me can"), ["help", "me", "=helpme", "can"]);
    }

    #[test]
    fn query_words_with_only_spaces_between_are_joined() {
        let query = |s: &str| tokens_with(AnalyzerConfig::QUERY, s);
        // Stop words and filler join too: "to do" is `todo`.
        assert_eq!(query("my to do list"), ["+myto", "+todo", "list", "+dolist"]);
        // Only across spaces, and only one-piece words of two letters or more.
        assert_eq!(query("log in to my e-mail"), ["log", "+login", "+into", "+tomy", "mail", "=email"]);
        assert_eq!(query("weather, forecast x y"), ["weather", "forecast"]);
        // Tools' texts are not joined.
        assert_eq!(tokens("to do list"), ["list"]);
    }

    #[test]
    fn lone_surrogates_separate() {
        let mut text = units("ab");
        text.push(0xD800);
        text.extend(units("cd"));
        let mut out = Vec::new();
        Analyzer::new(AnalyzerConfig::FULL).tokens(&text, |kind, t| out.push(show(kind, t)));
        assert_eq!(out, ["ab", "cd"]);
    }
}
