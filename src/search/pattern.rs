//! `search: { syntax: 'regex' }`: `search_tools`' query as a regular
//! expression, matched against each tool's name, description, parameter
//! names and parameter descriptions. This package's own; the reference has
//! only words.
//!
//! The pattern is compiled by Rust's `regex` crate, which matches in time
//! linear in the text whatever the pattern (no backtracking: `(a+)+$` costs
//! what `a+$` costs), within the protocol's
//! [`pattern`](crate::protocol::tool_search::pattern) limits: its length, the
//! size of its compiled program and of the lazy DFA's cache, and how deeply
//! it nests. It is case-insensitive unless it says otherwise (`(?-i)`), and
//! Unicode-aware. A pattern that does not compile is no error: it is a
//! [`PatternError`], which `search_tools` puts in its answer's message.
//!
//! # Which tools, in which order
//!
//! Each live document (a name a later tool took over is no document, as in
//! the index) is tried field by field: its name (`id || key`), its
//! description, each parameter's name and each parameter's description, each
//! text on its own (so `^` and `$` are the start and end of a name, a
//! description or one parameter's name). Its score is the sum of the weights
//! of the fields that match (a parameter field counts once, however many
//! parameters match): the name 3, the description 1, a parameter's name 1, a
//! parameter's description 0.5. The name outweighs the other three together,
//! so every tool whose name matches comes before every tool whose name does
//! not; among equal scores, the catalog's order (`Object.keys` order, a
//! re-added name at the place of its last tool). The candidates then go
//! through the same walk as words ([`super::SearchWalk`]): `minScore`, the
//! tools found by id, the filter hook, `topK`.
//!
//! The texts are matched as UTF-8, made once per catalog from its UTF-16
//! (a lone surrogate becomes U+FFFD, in the pattern too).

use std::fmt;
use std::ops::Range;

use regex::{Regex, RegexBuilder};

use super::bm25::DocId;
use super::candidate::Candidate;
use crate::protocol::tool_search::pattern::{
    DESCRIPTION_WEIGHT, DFA_SIZE_LIMIT, MAX_LENGTH, NAME_WEIGHT, NEST_LIMIT, PARAMETER_DESCRIPTION_WEIGHT,
    PARAMETER_NAME_WEIGHT, SIZE_LIMIT,
};

/// A compiled `search_tools` pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    regex: Regex,
}

/// Why a pattern was not compiled; its `Display` says what is wrong with
/// it, for the model to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// Longer than [`MAX_LENGTH`] UTF-16 units.
    TooLong,
    /// Not a regular expression: what the parser said, and the character
    /// (counted from 1) where it found it.
    Syntax { what: String, at: usize },
    /// Its compiled program would exceed [`SIZE_LIMIT`].
    TooLarge,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::TooLong => write!(f, "it is longer than {MAX_LENGTH} characters"),
            PatternError::Syntax { what, at } => write!(f, "{what} (at character {at})"),
            PatternError::TooLarge => f.write_str("it is too large once compiled; use a shorter or simpler pattern"),
        }
    }
}

impl std::error::Error for PatternError {}

impl Pattern {
    /// Compiles `query` (UTF-16, as JavaScript gave it).
    pub fn new(query: &[u16]) -> Result<Pattern, PatternError> {
        if query.len() > MAX_LENGTH {
            return Err(PatternError::TooLong);
        }
        let pattern = String::from_utf16_lossy(query);
        // Parsed first, for a message that says where it is wrong: the
        // crate's own error draws the pattern over several lines.
        let parsed =
            regex_syntax::ParserBuilder::new().case_insensitive(true).nest_limit(NEST_LIMIT).build().parse(&pattern);
        if let Err(error) = parsed {
            let (what, span) = match &error {
                regex_syntax::Error::Parse(error) => (error.kind().to_string(), *error.span()),
                regex_syntax::Error::Translate(error) => (error.kind().to_string(), *error.span()),
                other => (other.to_string(), regex_syntax::ast::Span::splat(regex_syntax::ast::Position::new(0, 1, 1))),
            };
            let at = pattern.get(..span.start.offset).map_or(0, |before| before.chars().count()) + 1;
            return Err(PatternError::Syntax { what, at });
        }
        let regex = RegexBuilder::new(&pattern)
            .case_insensitive(true)
            .nest_limit(NEST_LIMIT)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()
            .map_err(|error| match error {
                regex::Error::CompiledTooBig(_) => PatternError::TooLarge,
                other => PatternError::Syntax { what: other.to_string(), at: 1 },
            })?;
        Ok(Pattern { regex })
    }

    /// Whether the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// A catalog's texts as a pattern reads them: per live document, in
/// catalog order, its fields in UTF-8 (see
/// [`Catalog::pattern_texts`](super::Catalog::pattern_texts)).
#[derive(Debug, Default)]
pub struct PatternTexts {
    text: String,
    docs: Vec<DocTexts>,
    /// Every document's parameters, `(name, description)`, end to end.
    parameters: Vec<(Range<u32>, Range<u32>)>,
}

#[derive(Debug)]
struct DocTexts {
    doc: DocId,
    name: Range<u32>,
    description: Range<u32>,
    /// Its entries in `parameters`.
    parameters: Range<u32>,
}

impl PatternTexts {
    /// Adds a document's texts, after those of the documents before it in
    /// catalog order (see [`Catalog::pattern_texts`](super::Catalog::pattern_texts)).
    pub(super) fn push_doc<'a>(
        &mut self,
        doc: DocId,
        name: &[u16],
        description: &[u16],
        parameters: impl Iterator<Item = (&'a [u16], &'a [u16])>,
    ) {
        let name = self.push(name);
        let description = self.push(description);
        let first = self.parameters.len() as u32;
        for (parameter, parameter_description) in parameters {
            let parameter = self.push(parameter);
            let parameter_description = self.push(parameter_description);
            self.parameters.push((parameter, parameter_description));
        }
        let parameters = first..self.parameters.len() as u32;
        self.docs.push(DocTexts { doc, name, description, parameters });
    }

    fn push(&mut self, units: &[u16]) -> Range<u32> {
        let start = self.text.len() as u32;
        self.text.extend(char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));
        start..self.text.len() as u32
    }

    fn get(&self, range: &Range<u32>) -> &str {
        &self.text[range.start as usize..range.end as usize]
    }

    /// The documents `pattern` matches, scored and ordered as the module
    /// says: best first, ties in catalog order.
    pub fn candidates(&self, pattern: &Pattern) -> Vec<Candidate> {
        let mut candidates: Vec<Candidate> = self
            .docs
            .iter()
            .filter_map(|doc| {
                let parameters = &self.parameters[doc.parameters.start as usize..doc.parameters.end as usize];
                let weigh = |matched: bool, weight: f64| if matched { weight } else { 0.0 };
                let score = weigh(pattern.is_match(self.get(&doc.name)), NAME_WEIGHT)
                    + weigh(pattern.is_match(self.get(&doc.description)), DESCRIPTION_WEIGHT)
                    + weigh(parameters.iter().any(|(name, _)| pattern.is_match(self.get(name))), PARAMETER_NAME_WEIGHT)
                    + weigh(
                        parameters.iter().any(|(_, description)| pattern.is_match(self.get(description))),
                        PARAMETER_DESCRIPTION_WEIGHT,
                    );
                (score > 0.0).then_some(Candidate { doc: doc.doc, score })
            })
            .collect();
        // Stable: equal scores keep the catalog's order.
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
        candidates
    }
}

#[cfg(test)]
mod tests {
    //! The regex syntax's matching and order (`super`).

    use super::*;
    use crate::search::Catalog;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// A tool as the tests write it: its id (and key), description and parameters.
    type Tool<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

    fn catalog(tools: &[Tool<'_>]) -> Catalog {
        let mut builder = Catalog::builder();
        for (id, description, parameters) in tools {
            let parameters: Vec<(Vec<u16>, Vec<u16>)> = parameters.iter().map(|(n, d)| (u(n), u(d))).collect();
            builder.push_with_parameters(
                &u(id),
                Some(&u(id)),
                &u(description),
                parameters.iter().map(|(n, d)| (&n[..], &d[..])),
            );
        }
        builder.keep_parameters(true);
        builder.build().unwrap()
    }

    fn names(catalog: &Catalog, pattern: &str) -> Vec<(String, f64)> {
        let pattern = Pattern::new(&u(pattern)).unwrap();
        catalog
            .pattern_texts()
            .candidates(&pattern)
            .into_iter()
            .map(|c| (String::from_utf16_lossy(catalog.doc_name(c.doc)), c.score))
            .collect()
    }

    fn tools() -> Catalog {
        catalog(&[
            ("send_email", "Send an email to a recipient", &[("to", "Recipient address"), ("subject", "")]),
            ("get_weather", "Get the weather forecast for a city", &[("city", "The city, e.g. Paris")]),
            ("read_inbox", "List the messages of an email inbox", &[]),
            ("convert_units", "Convert between units", &[("unit", "celsius or fahrenheit"), ("value", "")]),
            ("weather_alerts", "Severe storm alerts", &[("region", "")]),
        ])
    }

    #[test]
    fn each_field_adds_its_weight_and_names_come_first() {
        let tools = tools();
        // Name and description; description alone; name alone.
        assert_eq!(names(&tools, "weather"), [("get_weather".into(), 4.0), ("weather_alerts".into(), 3.0)]);
        assert_eq!(
            names(&tools, "email"),
            [("send_email".into(), 4.0), ("read_inbox".into(), 1.0)],
            "the description's match counts too"
        );
        // A parameter's name, a parameter's description.
        assert_eq!(names(&tools, "^city$"), [("get_weather".into(), 1.0)]);
        assert_eq!(names(&tools, "fahrenheit"), [("convert_units".into(), 0.5)]);
        assert_eq!(names(&tools, "paris"), [("get_weather".into(), 0.5)]);
        // Anchors hold within each text.
        assert_eq!(names(&tools, "^get_"), [("get_weather".into(), 3.0)]);
        assert_eq!(names(&tools, "alerts$"), [("weather_alerts".into(), 4.0)]);
        // Every field: best first, equal scores in the catalog's order.
        assert_eq!(
            names(&tools, "e"),
            [
                ("send_email".into(), 5.5),
                ("convert_units".into(), 5.5),
                ("weather_alerts".into(), 5.0),
                ("get_weather".into(), 4.5),
                ("read_inbox".into(), 4.0),
            ]
        );
        assert_eq!(names(&tools, "no such thing"), []);
    }

    #[test]
    fn case_insensitive_unless_the_pattern_says_otherwise() {
        let tools = tools();
        assert_eq!(names(&tools, "SEND"), [("send_email".into(), 4.0)]);
        assert_eq!(names(&tools, "(?-i)SEND"), []);
        assert_eq!(names(&tools, "(?-i)Send"), [("send_email".into(), 1.0)]);
    }

    #[test]
    fn a_name_taken_over_by_a_later_tool_is_matched_once_at_its_place() {
        let tools = catalog(&[("a_tool", "first", &[]), ("b_tool", "second", &[]), ("a_tool", "third", &[])]);
        assert_eq!(names(&tools, "tool"), [("b_tool".into(), 3.0), ("a_tool".into(), 3.0)]);
        assert_eq!(names(&tools, "first"), []);
        assert_eq!(names(&tools, "third"), [("a_tool".into(), 1.0)]);
    }

    #[test]
    fn malformed_patterns_say_what_is_wrong_and_where() {
        let error = |p: &str| Pattern::new(&u(p)).unwrap_err().to_string();
        assert_eq!(error("(weather"), "unclosed group (at character 1)");
        assert_eq!(error("get_[a-"), "unclosed character class (at character 5)");
        assert_eq!(error("*weather"), "repetition operator missing expression (at character 1)");
        assert_eq!(error("a{2,1}"), "invalid repetition count range, the start must be <= the end (at character 2)");
        assert_eq!(error("é("), "unclosed group (at character 2)", "characters are counted, not bytes");
        let nested = format!("{}a{}", "(".repeat(70), ")".repeat(70));
        assert_eq!(error(&nested), "exceed the maximum number of nested parentheses/brackets (64) (at character 65)");
        assert_eq!(error(&"a".repeat(MAX_LENGTH + 1)), format!("it is longer than {MAX_LENGTH} characters"));
        assert_eq!(error(r"\w{1000}{1000}"), "it is too large once compiled; use a shorter or simpler pattern");
        assert!(Pattern::new(&u(&"a".repeat(MAX_LENGTH))).is_ok());
    }

    #[test]
    fn hostile_patterns_compile_and_match_as_any_other() {
        // What makes a backtracking matcher take exponential time: a long
        // run that almost matches.
        let almost = format!("{}b", "a".repeat(64));
        let tools = catalog(&[(&almost, "", &[]), ("aaaa", "", &[])]);
        assert_eq!(names(&tools, "(a+)+$"), [("aaaa".into(), 3.0)]);
        assert_eq!(names(&tools, "^(a+)+c$"), []);
        assert_eq!(names(&tools, "(a|aa)*c"), []);
        assert_eq!(names(&tools, "(a*)*b"), [(almost.clone(), 3.0)]);
        assert_eq!(names(&tools, "(.*a){12}x"), []);
    }

    #[test]
    fn lone_surrogates_are_replacement_characters_on_both_sides() {
        let mut builder = Catalog::builder();
        builder.push(&u("odd"), Some(&u("odd")), &[0x61, 0xD800, 0x62]);
        let tools = builder.build().unwrap();
        let pattern = Pattern::new(&[0x61, 0xDC00]).unwrap();
        let found: Vec<f64> = tools.pattern_texts().candidates(&pattern).iter().map(|c| c.score).collect();
        assert_eq!(found, [1.0]);
    }
}
