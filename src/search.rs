//! Tool search: the tokenizer, the BM25 index, the catalog and the ranking
//! behind `search_tools`, with the reference's results bit for bit.
//!
//! That is [`Ranking::Reference`], the default. [`Ranking::Fielded`]
//! (`search: { ranking: 'fielded' }`) ranks differently, for better results
//! on real questions: BM25F over names, descriptions and parameters, with
//! identifier splitting, stems, prefixes and CJK n-grams (see [`fielded`] and
//! [`Analyzer`]). Everything around the ranking (lookups, the walk, the
//! filter hook, formatting) is the same for both.
//!
//! Strings are JavaScript strings (UTF-16 units, see [`crate::js`]); numbers
//! coming from options are JS numbers (`f64`), so NaN, fractions and
//! infinities behave as they do in the reference.
//!
//! # API
//!
//! Building (linear in the catalog's text; the BM25 index of a large catalog
//! is built on its own thread, and the first search waits for it):
//! - [`Catalog::new`]`(text, Vec<`[`EntrySpans`]`>) -> Result<Catalog, `[`CatalogError`]`>`:
//!   one UTF-16 buffer plus, per record entry in `Object.keys` order, the
//!   [`Span`]s of its key, optional `id` (`''` included), and description.
//! - [`Catalog::with_ranking`]`(text, entries, `[`Ranking`]`, Option<`[`ParamTable`]`>)`:
//!   another ranking, with the entries' parameters for one that reads them.
//! - [`Catalog::builder`]`()` -> [`CatalogBuilder`] with `push` / `push_str` /
//!   `push_with_parameters` / `ranking` / `build`.
//! - [`table::read_table`]`(text_len, &[i32]) -> Result<Vec<EntrySpans>, `[`table::TableError`]`>`:
//!   the spans of a tool table as JavaScript writes it.
//!
//! Lookups (entry indices are positions in record order):
//! - `len()` (distinct indexed names), `is_empty()`, `entry_count()`.
//! - `key(entry)`, `id(entry)`, `name(entry)` (`id || key`), `description(entry)`.
//! - `find_by_id(name)`, `find_by_key(name)`,
//!   `find_for_dynamic_name(name, has_filter)`, `find_doc(name)`,
//!   `suggestion_candidates(tool_name)` (and [`suggestion_matcher`] for keys
//!   read apart from a catalog).
//! - `doc_name(doc)`, `doc_entry(doc)`, `doc_lower_name(doc)`.
//!
//! Searching:
//! - [`Catalog::rank`]`(query, limit) -> Vec<`[`Candidate`]`>`: boosted, sorted.
//! - [`SearchWalk`]: `new(catalog, query, &`[`SearchOptions`]`)`,
//!   `next_pending(catalog) -> Option<`[`Pending`]`>`, `resolve(allowed)`,
//!   `finish(catalog) -> Vec<`[`SearchHit`]`>`; for a filter hook in between.
//! - [`Catalog::search`]`(query, &SearchOptions) -> Vec<SearchHit>`: no hook.
//!
//! Reusing tools' analyses across catalogs ([`pool`]):
//! - [`ToolPool::new`]`(Ranking)`, `add(id, description, parameters) -> Slot`,
//!   `analyse(slot, id, description, parameters)` (again, a held slot), `release(slot)`,
//!   `note_selection(slots)`, `sweep(kept) -> Vec<Slot>`,
//!   `catalog(&[`[`PoolEntry`]`]) -> Result<Catalog, `[`PoolError`]`>`.
//! - [`truncate_description`], [`tokenize()`], [`Bm25Builder`] / [`Bm25Index`] for the pieces.

mod analyze;
mod bm25;
mod candidate;
mod catalog;
pub mod embedding;
pub mod fielded;
mod hash;
pub mod hybrid;
mod params;
pub mod pattern;
pub mod pool;
mod rank;
mod span;
pub mod table;
mod tokenize;

pub use analyze::{Analyzer, AnalyzerConfig, Term, TermKind};
pub use bm25::{idf, term_score, Bm25Builder, Bm25Index, DocId, Scored, B, K1};
pub use catalog::{suggestion_matcher, Catalog, CatalogBuilder, CatalogError, Ranking};
pub use embedding::BuiltinModel;
pub use fielded::{FieldedConfig, FieldedIndex};
pub(crate) use hash::hash_units;
pub use hybrid::{HybridConfig, VectorSource};
pub use params::ParamTable;
pub use pattern::{Pattern, PatternError, PatternTexts};
pub use pool::{IdKey, PoolEntry, PoolError, PoolSlot, Slot, ToolPool};
pub use rank::{
    truncate_description, Candidate, Pending, SearchHit, SearchOptions, SearchWalk, EXACT_NAME_BOOST,
    MAX_DESCRIPTION_LEN, PARTIAL_NAME_BOOST, TRUNCATED_DESCRIPTION_LEN,
};
pub use span::{EntrySpans, Span};
pub use tokenize::{for_each_token, is_separator, tokenize, MIN_TOKEN_LEN};

#[cfg(test)]
mod tests {
    //! Search tests. `tests/oracle.rs` holds cases generated from the reference
    //! package itself; the ones here pin specific behaviours by hand.

    use super::*;
    use crate::js::JsString;

    #[rustfmt::skip]
    mod oracle;

    /// Test strings: Rust literals, where the six characters `\uXXXX` stand for
    /// one UTF-16 unit (the only way to write a lone surrogate).
    pub(super) fn js(s: &str) -> Vec<u16> {
        let units: Vec<u16> = s.encode_utf16().collect();
        let mut out = Vec::with_capacity(units.len());
        let mut i = 0;
        while i < units.len() {
            if units[i] == u16::from(b'\\') && units.get(i + 1) == Some(&u16::from(b'u')) && i + 6 <= units.len() {
                let hex = String::from_utf16(&units[i + 2..i + 6]).unwrap();
                out.push(u16::from_str_radix(&hex, 16).unwrap());
                i += 6;
            } else {
                out.push(units[i]);
                i += 1;
            }
        }
        out
    }

    pub(super) fn catalog(entries: &[(&str, Option<&str>, &str)]) -> Catalog {
        let mut builder = Catalog::builder();
        for &(key, id, description) in entries {
            builder.push(&js(key), id.map(js).as_deref(), &js(description));
        }
        builder.build().unwrap()
    }

    /// Checks [`Catalog::rank`] names and exact score bits.
    pub(super) fn check_rank(c: &Catalog, query: &str, limit: f64, want: &[(&str, f64)]) {
        let got: Vec<(JsString, f64)> = c
            .rank(&js(query), limit)
            .into_iter()
            .map(|cand| (JsString::from(c.doc_name(cand.doc)), cand.score))
            .collect();
        let want: Vec<(JsString, f64)> = want.iter().map(|&(n, s)| (JsString::from(js(n)), s)).collect();
        assert_eq!(got.len(), want.len(), "rank({query:?}, {limit}): got {got:?}, want {want:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(
                g.0 == w.0 && g.1.to_bits() == w.1.to_bits(),
                "rank({query:?}, {limit}): got {got:?}, want {want:?}"
            );
        }
    }

    pub(super) struct Opts {
        options: SearchOptions,
        reject: Option<Vec<JsString>>,
    }

    /// Search options; `reject` (record keys) turns on a filter hook that
    /// denies those keys and allows everything else.
    pub(super) fn opts(top_k: f64, min_score: f64, reject: Option<&[&str]>) -> Opts {
        Opts {
            options: SearchOptions { top_k, min_score, has_filter: reject.is_some() },
            reject: reject.map(|keys| keys.iter().map(|k| JsString::from(js(k))).collect()),
        }
    }

    /// Checks a full search: the results, and the keys the hook was asked about
    /// in order.
    /// Positional: the generated oracle tests call it once a row, as a table.
    pub(super) fn check_search(c: &Catalog, query: &str, opts: Opts, want: &[(&str, &str, f64)], want_asked: &[&str]) {
        let mut asked: Vec<JsString> = Vec::new();
        let hits = match &opts.reject {
            None => c.search(&js(query), &opts.options),
            Some(reject) => {
                let mut walk = SearchWalk::new(c, &js(query), &opts.options);
                while let Some(pending) = walk.next_pending(c) {
                    let key = JsString::from(c.key(pending.entry));
                    walk.resolve(!reject.contains(&key));
                    asked.push(key);
                }
                walk.finish(c)
            }
        };
        let got: Vec<(JsString, JsString, u64)> =
            hits.into_iter().map(|h| (h.name, h.description, h.score.to_bits())).collect();
        let want: Vec<(JsString, JsString, u64)> =
            want.iter().map(|&(n, d, s)| (JsString::from(js(n)), JsString::from(js(d)), s.to_bits())).collect();
        let want_asked: Vec<JsString> = want_asked.iter().map(|k| JsString::from(js(k))).collect();
        assert_eq!(got, want, "search({query:?}, {:?})", opts.options);
        assert_eq!(asked, want_asked, "hook calls for search({query:?}, {:?})", opts.options);
    }

    #[test]
    fn replacement_moves_a_document_to_the_end() {
        // Equal documents tie; re-adding 'one' puts it after 'two' and 'three'.
        let c = catalog(&[
            ("k1", Some("one"), "same text"),
            ("k2", Some("two"), "same text"),
            ("k3", Some("three"), "same text"),
            ("k4", Some("one"), "same text"),
        ]);
        assert_eq!(c.len(), 3);
        let names: Vec<JsString> =
            c.rank(&js("same"), 10.0).iter().map(|h| JsString::from(c.doc_name(h.doc))).collect();
        assert_eq!(names, ["two", "three", "one"].map(JsString::from));
        // The hook sees the first entry with id 'one' ('k1'), the description is
        // the last one added.
        let hits = c.search(&js("one"), &SearchOptions::default());
        assert_eq!(hits[0].name, JsString::from("one"));
        assert_eq!(c.find_by_id(&js("one")), Some(0));
    }

    #[test]
    fn repeated_query_terms_count_twice() {
        let c = catalog(&[("a", Some("a1"), "weather report"), ("b", Some("b1"), "weather")]);
        let once = c.rank(&js("report"), 10.0);
        let twice = c.rank(&js("report report"), 10.0);
        assert_eq!(twice[0].score, once[0].score + once[0].score);
    }

    #[test]
    fn name_boost_uses_every_query_term() {
        // Name 'weather' equals one term (+5) and contains another (+2).
        let c = catalog(&[("w", Some("weather"), "")]);
        let base = c.index().score([&js("weather")[..], &js("eat")[..]]);
        let ranked = c.rank(&js("weather eat"), 10.0);
        assert_eq!(base.len(), 1); // 'eat' is not a document term
        assert_eq!(ranked[0].score, base[0].score + 5.0 + 2.0);
    }

    #[test]
    fn empty_catalog_and_empty_query() {
        let empty = Catalog::builder().build().unwrap();
        assert!(empty.is_empty());
        assert!(empty.rank(&js("anything"), 10.0).is_empty());
        assert!(empty.search(&js("anything"), &SearchOptions::default()).is_empty());
        let c = catalog(&[("a", Some("tool"), "text")]);
        assert!(c.rank(&js(""), 10.0).is_empty());
        assert!(c.rank(&js("a - b"), 10.0).is_empty());
    }

    #[test]
    fn id_less_tools_are_indexed_but_never_returned() {
        let c = catalog(&[("plain", None, "weather"), ("named", Some("named_tool"), "weather")]);
        assert_eq!(c.rank(&js("weather"), 10.0).len(), 2);
        let hits = c.search(&js("weather"), &SearchOptions::default());
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].name, JsString::from("named_tool"));
    }

    #[test]
    fn walk_without_resolve_counts_as_rejected() {
        let c = catalog(&[("a", Some("x1"), "common"), ("b", Some("x2"), "common")]);
        let options = SearchOptions { top_k: 5.0, min_score: 0.0, has_filter: true };
        let mut walk = SearchWalk::new(&c, &js("common"), &options);
        assert_eq!(walk.candidates().len(), 2);
        assert!(walk.next_pending(&c).is_some());
        let second = walk.next_pending(&c).unwrap();
        walk.resolve(true);
        assert!(walk.next_pending(&c).is_none());
        let hits = walk.finish(&c);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].doc, second.doc);
    }

    #[test]
    fn truncation_counts_utf16_units() {
        let short = js(&"d".repeat(150));
        assert_eq!(truncate_description(&short).units(), &short[..]);
        // 146 ASCII units, then an emoji whose high surrogate is unit 147:
        // slice(0, 147) keeps the high surrogate alone.
        let mut text = js(&"a".repeat(146));
        text.extend(js("😀 tail"));
        let cut = truncate_description(&text);
        assert_eq!(cut.len(), 150);
        assert_eq!(cut.units()[146], 0xD83D);
        assert_eq!(&cut.units()[147..], &js("...")[..]);
        let long = js(&"e".repeat(151));
        assert_eq!(truncate_description(&long).units(), &js(&format!("{}...", "e".repeat(147)))[..]);
    }

    #[test]
    fn arbitrary_text_and_queries_rank_without_panicking() {
        // Any UTF-16 at all, lone surrogates and separators included, with
        // limits and thresholds of every kind of JS number.
        let mut rng = crate::test_rng::Rng::new(0xD1B5_4A32_D192_ED03);
        let mut next = move || rng.next();
        let alphabet: Vec<u16> = [0x41, 0x61, 0x3A3, 0x130, 0x20, 0x5F, 0xD800, 0xDC00, 0xFEFF, 0x85, 0x2E, 0x1F600]
            .iter()
            .flat_map(|&c: &u32| char::from_u32(c).map_or(vec![c as u16], |c| c.encode_utf16(&mut [0; 2]).to_vec()))
            .collect();
        let mut text =
            |n: u64| -> Vec<u16> { (0..n).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect() };
        let numbers = [f64::NAN, -1.0, 0.0, 0.5, 2.5, 5.0, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1e300];
        for round in 0..300 {
            let mut builder = Catalog::builder();
            for _ in 0..(round % 17) {
                let (key, id, description) = (text(3), text(4), text(30));
                builder.push(&key, (round % 3 != 0).then_some(&id[..]), &description);
            }
            let catalog = builder.build().unwrap();
            for &top_k in &numbers {
                let options =
                    SearchOptions { top_k, min_score: numbers[round % numbers.len()], has_filter: round % 2 == 0 };
                let hits = catalog.search(&text(12), &options);
                assert!(hits.len() <= catalog.len());
                for hit in hits {
                    assert!(hit.description.len() <= 150);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------
    // The 'fielded' ranking through the catalog.

    /// A small catalog with the kinds of tools the reference ranking misses.
    /// (key, description, [(parameter, description)])
    type Tool = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

    const TOOLS: &[Tool] = &[
        (
            "fahrenheit_to_celsius",
            "Converts a temperature in fahrenheit to celsius.",
            &[("value", "Degrees fahrenheit")],
        ),
        (
            "get_current_weather",
            "Get the current weather in a given location.",
            &[
                ("location", "The city and state, e.g. San Francisco, CA"),
                ("unit", "The unit of temperature: celsius or fahrenheit"),
            ],
        ),
        (
            "ChaFod",
            "Changes the selection of food based on the customer's request.",
            &[("foodItem", "The name of the food item to order")],
        ),
        (
            "requests.get",
            "Sends a GET request to the specified URL.",
            &[("url", "The URL to send the request to"), ("headers", "HTTP headers")],
        ),
        ("sendEmail", "Send an email message to a recipient.", &[("to", "Recipient address"), ("subject", "")]),
        ("query_weather_cn", "查询指定城市的天气预报", &[("city", "城市名称")]),
    ];

    fn tools_catalog(ranking: Ranking) -> Catalog {
        let mut builder = Catalog::builder();
        builder.ranking(ranking);
        for &(key, description, params) in TOOLS {
            let params: Vec<(Vec<u16>, Vec<u16>)> = params.iter().map(|&(n, d)| (js(n), js(d))).collect();
            builder.push_with_parameters(
                &js(key),
                Some(&js(key)),
                &js(description),
                params.iter().map(|(n, d)| (&n[..], &d[..])),
            );
        }
        builder.build().unwrap()
    }

    fn names(c: &Catalog, query: &str) -> Vec<String> {
        c.search(&js(query), &SearchOptions::default()).into_iter().map(|h| h.name.to_string_lossy()).collect()
    }

    #[test]
    fn fielded_ranking_finds_what_the_reference_misses() {
        let reference = tools_catalog(Ranking::Reference);
        let fielded = tools_catalog(Ranking::FIELDED);
        let check = |query: &str, want_reference: &[&str], want_fielded: &[&str]| {
            assert_eq!(names(&reference, query), want_reference, "reference: {query}");
            assert_eq!(names(&fielded, query), want_fielded, "fielded: {query}");
        };
        check(
            "What's the weather like in Boston in fahrenheit?",
            &["get_current_weather", "fahrenheit_to_celsius", "query_weather_cn", "ChaFod", "requests.get"],
            &["get_current_weather", "fahrenheit_to_celsius", "query_weather_cn"],
        );
        // "change" and "changes" share a stem; the food item is a parameter.
        check("change the food item on my order", &["ChaFod", "get_current_weather", "requests.get"], &["ChaFod"]);
        // An identifier written another way is still that identifier.
        check("getCurrentWeather for Paris", &[], &["get_current_weather", "query_weather_cn", "requests.get"]);
        check(
            "call requests.get on https://example.com",
            &["requests.get", "get_current_weather", "ChaFod"],
            &["requests.get", "get_current_weather", "ChaFod"],
        );
        // Chinese text has no spaces: n-grams match inside it.
        check("查询北京的天气", &[], &["query_weather_cn"]);
        // A Portuguese word shares its first five letters with the English one.
        check("Qual é a temperatura em São Paulo?", &[], &["fahrenheit_to_celsius", "get_current_weather"]);
        check("mail my boss", &[], &[]);
    }

    #[test]
    fn fielded_ranking_reads_parameters_only_when_given_them() {
        let mut builder = Catalog::builder();
        builder.ranking(Ranking::FIELDED);
        builder.push_with_parameters(
            &js("a"),
            Some(&js("lookup")),
            &js("Looks something up"),
            [(&js("zipCode")[..], &js("A postal code")[..])],
        );
        builder.push(&js("b"), Some(&js("other")), &js("Something else"));
        let c = builder.build().unwrap();
        assert_eq!(c.parameters(0).count(), 1);
        assert_eq!(c.parameters(1).count(), 0);
        assert_eq!(names(&c, "what is the zip code"), ["lookup"]);
        assert_eq!(names(&c, "postal"), ["lookup"]);
        // The reference's catalog keeps no parameters and never matches them.
        let mut builder = Catalog::builder();
        builder.push_with_parameters(
            &js("a"),
            Some(&js("lookup")),
            &js("Looks something up"),
            [(&js("zipCode")[..], &js("A postal code")[..])],
        );
        let c = builder.build().unwrap();
        assert_eq!(c.parameters(0).count(), 0);
        assert_eq!(names(&c, "postal"), Vec::<String>::new());
    }

    #[test]
    fn fielded_catalog_keeps_the_lookups_and_the_walk() {
        // Same names as the reference: duplicates are one document with the last
        // description, id-less tools are never returned, topK and minScore apply.
        let mut builder = Catalog::builder();
        builder.ranking(Ranking::FIELDED);
        builder.push_str("k1", Some("dup"), "weather first");
        builder.push_str("plain", None, "weather without an id");
        builder.push_str("k2", Some("dup"), "weather second");
        builder.push_str("k3", Some("forecast"), "weather forecast");
        let c = builder.build().unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.ranking(), Ranking::FIELDED);
        assert_eq!(names(&c, "first"), Vec::<String>::new());
        let hits = c.search(&js("weather second"), &SearchOptions::default());
        assert_eq!(hits.iter().map(|h| h.name.to_string_lossy()).collect::<Vec<_>>(), ["dup", "forecast"]);
        assert_eq!(hits[0].description, JsString::from("weather second"));
        // Scores are rounded to cents, as the reference's are.
        assert_eq!(hits[0].score, (hits[0].score * 100.0).round() / 100.0);
        let one = c.search(&js("weather"), &SearchOptions { top_k: 1.0, ..SearchOptions::default() });
        assert_eq!(one.len(), 1);
        let above =
            c.search(&js("weather second"), &SearchOptions { min_score: hits[1].score, ..SearchOptions::default() });
        assert_eq!(above.len(), 1);
        // The hook is asked about the first entry with the name, in rank order.
        let mut walk =
            SearchWalk::new(&c, &js("weather second"), &SearchOptions { has_filter: true, ..SearchOptions::default() });
        let first = walk.next_pending(&c).unwrap();
        assert_eq!(first.entry, 0);
        walk.resolve(false);
        assert_eq!(walk.next_pending(&c).unwrap().entry, 3);
    }

    #[test]
    fn ranking_names_round_trip() {
        for ranking in Ranking::ALL {
            assert_eq!(Ranking::from_name(&js(ranking.name())), Some(ranking));
        }
        assert_eq!(Ranking::ALL.map(Ranking::name), ["reference", "fielded", "hybrid"]);
        assert_eq!(Ranking::from_name(&js("Fielded")), None);
        assert_eq!(Ranking::from_name(&js("")), None);
        assert!(!Ranking::Reference.reads_parameters());
        assert!(Ranking::FIELDED.reads_parameters());
        assert!(Ranking::HYBRID.reads_parameters());
    }

    #[test]
    fn parameter_lists_must_match_the_entries() {
        let mut builder = Catalog::builder();
        builder.push_str("a", None, "x");
        let (text, entries) = builder.into_parts();
        let mut params = ParamTable::new();
        params.push([]);
        params.push([]);
        let error = Catalog::with_ranking(text, entries, Ranking::FIELDED, Some(params));
        assert!(matches!(error, Err(CatalogError::ParameterCount { entries: 1, parameter_entries: 2 })));
    }
}
