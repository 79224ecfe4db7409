//! The `'fielded'` ranking: BM25F over a tool's name, description,
//! parameter names and parameter descriptions.
//!
//! Each field is analyzed with [`Analyzer`] (identifier splitting, stemming,
//! prefixes, CJK n-grams). A term's frequency in a document is the weighted
//! sum of its length-normalised frequencies in the fields (BM25F, as in
//! Robertson and Zaragoza, "The Probabilistic Relevance Framework"):
//!
//! ```text
//! tf'(t, d)   = sum over fields f of  w_f * tf_f(t, d) / (1 - b_f + b_f * len_f(d) / avglen_f)
//! score(q, d) = sum over distinct query terms t of  q_t * idf(t) * tf'(t, d) / (k1 + tf'(t, d))
//! idf(t)      = min(ln((N - df + 0.5) / (df + 0.5) + 1), idf_cap * idf of a term of one document)
//! ```
//!
//! where `q_t` is 1 for a word as written, and less for a stem or a prefix
//! (a near match counts, an exact one counts more). Since the weights and the
//! average lengths are known once every tool is in, `tf'` is computed per
//! posting when the index is built, and a query only adds. Building is linear
//! in the text (the stemmer runs once per distinct word); a query reads the
//! postings of its terms and keeps the best `limit` documents.

use crate::js::js_slice_bounds;

use super::analyze::{Analyzer, AnalyzerConfig, TermKind};

type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// The fields of a tool document, in the order of [`FieldedConfig::weights`].
pub const FIELD_COUNT: usize = 4;
pub const NAME: usize = 0;
pub const DESCRIPTION: usize = 1;
pub const PARAMETER_NAMES: usize = 2;
pub const PARAMETER_DESCRIPTIONS: usize = 3;

/// Everything that shapes the `'fielded'` ranking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldedConfig {
    /// How tools' texts are read.
    pub analyzer: AnalyzerConfig,
    /// How queries are read (as tools' texts, and compounds joined).
    pub query_analyzer: AnalyzerConfig,
    /// Whether a query's whole identifier or joined compound also matches
    /// the same letters as a tool's word, and a query's word a tool's whole
    /// identifier (`"to-do"` meets `todo`, `todo` meets `to_do`).
    pub whole_meets_word: bool,
    /// Term-frequency saturation.
    pub k1: f64,
    /// Per field (name, description, parameter names, parameter
    /// descriptions): how much an occurrence there counts.
    pub weights: [f64; FIELD_COUNT],
    /// Per field: length normalisation.
    pub b: [f64; FIELD_COUNT],
    /// The largest IDF a term can have, as a share of the IDF of a term that
    /// only one tool has: a word that only a handful of tools mention (a
    /// unit, a city in an example) counts no more than this. 1: no cap.
    pub idf_cap: f64,
    /// How much a query word's stem counts, against the word as written.
    pub stem_weight: f64,
    /// How much a query word's prefix counts, against the word as written.
    pub prefix_weight: f64,
    /// How much a query's joined compound, or a match across words and
    /// whole identifiers, counts against the word as written.
    pub compound_weight: f64,
}

impl FieldedConfig {
    /// The `'fielded'` ranking as shipped.
    pub const DEFAULT: FieldedConfig = FieldedConfig {
        analyzer: AnalyzerConfig::FULL,
        query_analyzer: AnalyzerConfig::QUERY,
        whole_meets_word: true,
        k1: 1.2,
        weights: [3.0, 1.0, 1.0, 0.5],
        b: [0.5, 0.75, 0.75, 0.75],
        idf_cap: 0.75,
        stem_weight: 0.5,
        prefix_weight: 0.5,
        compound_weight: 0.25,
    };

    /// How much a query term of this kind counts.
    fn query_weight(&self, kind: TermKind) -> f64 {
        match kind {
            TermKind::Word | TermKind::Whole | TermKind::Cjk => 1.0,
            TermKind::Stem => self.stem_weight,
            TermKind::Prefix => self.prefix_weight,
            TermKind::Joined => self.compound_weight,
        }
    }
}

impl Default for FieldedConfig {
    fn default() -> FieldedConfig {
        FieldedConfig::DEFAULT
    }
}

/// The text of one tool, field by field: its name, its description, and its
/// parameters' `(name, description)`.
pub struct FieldTexts<'a> {
    pub name: &'a [u16],
    pub description: &'a [u16],
    pub parameters: &'a [(&'a [u16], &'a [u16])],
}

#[derive(Clone, Copy)]
struct Posting {
    doc: u32,
    /// `tf'`, the weighted, length-normalised term frequency.
    tf: f32,
}

/// Interned terms: `kind tag + text` to term number.
#[derive(Default)]
struct Terms {
    numbers: HashMap<String, u32>,
    key: String,
}

impl Terms {
    fn key(&mut self, kind: TermKind, text: &str) -> &str {
        self.key.clear();
        self.key.push(match kind {
            TermKind::Word => 'w',
            TermKind::Stem => 's',
            TermKind::Prefix => 'p',
            TermKind::Whole => 'i',
            TermKind::Cjk => 'c',
            // Never indexed: looked up as words and wholes.
            TermKind::Joined => 'j',
        });
        self.key.push_str(text);
        &self.key
    }

    fn intern(&mut self, kind: TermKind, text: &str) -> u32 {
        let next = self.numbers.len() as u32;
        self.key(kind, text);
        *self.numbers.entry_ref(self.key.as_str()).or_insert(next)
    }

    /// Interns a key as [`key`](Self::key) makes them.
    fn intern_key(&mut self, key: &str) -> u32 {
        let next = self.numbers.len() as u32;
        *self.numbers.entry_ref(key).or_insert(next)
    }
}

/// One document's distinct terms and their per-field counts, while it is added.
#[derive(Default)]
struct DocTerms {
    counts: Vec<(u32, [u16; FIELD_COUNT])>,
    /// Each term's position in `counts` (stale entries are checked against it).
    slot: Vec<u32>,
    lens: [u32; FIELD_COUNT],
}

impl DocTerms {
    fn clear(&mut self) {
        self.counts.clear();
        self.lens = [0; FIELD_COUNT];
    }

    fn count(&mut self, term: u32, field: usize) {
        self.lens[field] += 1;
        if term as usize >= self.slot.len() {
            self.slot.resize(term as usize + 1, u32::MAX);
        }
        let slot = self.slot[term as usize] as usize;
        match self.counts.get_mut(slot) {
            Some((t, counts)) if *t == term => counts[field] = counts[field].saturating_add(1),
            _ => {
                self.slot[term as usize] = self.counts.len() as u32;
                let mut counts = [0u16; FIELD_COUNT];
                counts[field] = 1;
                self.counts.push((term, counts));
            }
        }
    }
}

/// Collects documents; [`finish`](Self::finish) turns them into an index.
pub struct FieldedBuilder {
    config: FieldedConfig,
    /// Two analyzers: one reads a field into tokens while the other expands
    /// words it has not seen yet.
    tokenizer: Analyzer,
    expander: Analyzer,
    terms: Terms,
    /// Each word seen so far, with its terms as `expanded[start..end]`, so
    /// each distinct word is stemmed and interned once.
    words: HashMap<String, (u32, u32)>,
    expanded: Vec<u32>,
    /// (term, doc, per-field counts), in document order.
    pairs: Vec<(u32, u32, [u16; FIELD_COUNT])>,
    field_len: Vec<[u32; FIELD_COUNT]>,
    live: Vec<bool>,
    doc: DocTerms,
}

impl FieldedBuilder {
    pub fn new(config: FieldedConfig) -> FieldedBuilder {
        FieldedBuilder {
            config,
            tokenizer: Analyzer::new(config.analyzer),
            expander: Analyzer::new(config.analyzer),
            words: HashMap::default(),
            expanded: Vec::new(),
            terms: Terms::default(),
            pairs: Vec::new(),
            field_len: Vec::new(),
            live: Vec::new(),
            doc: DocTerms::default(),
        }
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.field_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.field_len.is_empty()
    }

    /// Adds the next document (documents are numbered from 0 in add order).
    /// A document added with `live == false` takes its number but is not
    /// indexed (a tool whose name a later tool took over).
    pub fn add(&mut self, fields: &FieldTexts<'_>, live: bool) {
        let doc = self.field_len.len() as u32;
        self.doc.clear();
        if live {
            self.add_field(NAME, fields.name);
            self.add_field(DESCRIPTION, fields.description);
            for &(name, description) in fields.parameters {
                self.add_field(PARAMETER_NAMES, name);
                self.add_field(PARAMETER_DESCRIPTIONS, description);
            }
        }
        self.pairs.extend(self.doc.counts.iter().map(|&(term, counts)| (term, doc, counts)));
        self.field_len.push(self.doc.lens);
        self.live.push(live);
    }

    fn add_field(&mut self, field: usize, text: &[u16]) {
        let FieldedBuilder { tokenizer, expander, terms, doc, words, expanded, .. } = self;
        tokenizer.tokens(text, |kind, token| {
            if kind != TermKind::Word {
                doc.count(terms.intern(kind, token), field);
                return;
            }
            let (start, end) = match words.get(token) {
                Some(&range) => range,
                None => {
                    let start = expanded.len() as u32;
                    expander.expand(token, |kind, term| expanded.push(terms.intern(kind, term)));
                    let range = (start, expanded.len() as u32);
                    words.insert(token.to_owned(), range);
                    range
                }
            };
            for &term in &expanded[start as usize..end as usize] {
                doc.count(term, field);
            }
        });
    }

    /// Appends the documents of `other`, in order, after this builder's, as
    /// though they had been added here. Term numbers differ from a single
    /// builder's, but nothing depends on them (postings are grouped by term
    /// and keep document order), so the finished index answers the same.
    pub fn append(&mut self, other: FieldedBuilder) {
        let offset = self.field_len.len() as u32;
        let mut renumber = vec![0u32; other.terms.numbers.len()];
        for (key, &term) in &other.terms.numbers {
            renumber[term as usize] = self.terms.intern_key(key);
        }
        self.pairs
            .extend(other.pairs.into_iter().map(|(term, doc, counts)| (renumber[term as usize], doc + offset, counts)));
        self.field_len.extend(other.field_len);
        self.live.extend(other.live);
    }

    /// Lays out the postings by term, each with its `tf'`.
    pub fn finish(self) -> FieldedIndex {
        let FieldedBuilder { config, terms, pairs, field_len, live, .. } = self;
        let live_docs = live.iter().filter(|&&l| l).count();
        let mut avg = [0f64; FIELD_COUNT];
        for (lens, _) in field_len.iter().zip(&live).filter(|(_, &l)| l) {
            for f in 0..FIELD_COUNT {
                avg[f] += f64::from(lens[f]);
            }
        }
        for a in &mut avg {
            // A field empty everywhere has no occurrences to normalise.
            *a = if *a == 0.0 { 1.0 } else { *a / live_docs as f64 };
        }

        let term_count = terms.numbers.len();
        let mut offsets = vec![0u32; term_count + 1];
        for &(term, _, _) in &pairs {
            offsets[term as usize + 1] += 1;
        }
        for i in 0..term_count {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut postings = vec![Posting { doc: 0, tf: 0.0 }; pairs.len()];
        for &(term, doc, counts) in &pairs {
            let lens = &field_len[doc as usize];
            let mut tf = 0.0;
            for f in 0..FIELD_COUNT {
                if counts[f] > 0 {
                    let norm = 1.0 - config.b[f] + config.b[f] * f64::from(lens[f]) / avg[f];
                    tf += config.weights[f] * f64::from(counts[f]) / norm;
                }
            }
            let at = &mut next[term as usize];
            postings[*at as usize] = Posting { doc, tf: tf as f32 };
            *at += 1;
        }

        let n = live_docs as f64;
        let idf_of = |df: f64| ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
        let cap = config.idf_cap * idf_of(1.0);
        let idf = (0..term_count).map(|t| idf_of(f64::from(offsets[t + 1] - offsets[t])).min(cap) as f32).collect();
        FieldedIndex { config, terms: terms.numbers, offsets, postings, idf, doc_count: field_len.len(), live_docs }
    }
}

/// A built `'fielded'` index. Immutable.
pub struct FieldedIndex {
    config: FieldedConfig,
    terms: HashMap<String, u32>,
    /// Term `t`'s postings are `postings[offsets[t]..offsets[t + 1]]`, in document order.
    offsets: Vec<u32>,
    postings: Vec<Posting>,
    idf: Vec<f32>,
    doc_count: usize,
    live_docs: usize,
}

/// A scored document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldedHit {
    pub doc: u32,
    pub score: f64,
}

impl FieldedIndex {
    /// Number of live documents.
    pub fn len(&self) -> usize {
        self.live_docs
    }

    pub fn is_empty(&self) -> bool {
        self.live_docs == 0
    }

    pub fn config(&self) -> &FieldedConfig {
        &self.config
    }

    /// The distinct terms of `query` that the index knows, in first-seen
    /// order, each with its query weight.
    fn query_terms(&self, query: &[u16]) -> Vec<(u32, f32)> {
        let mut analyzer = Analyzer::new(self.config.query_analyzer);
        let mut lookup = Terms { numbers: HashMap::default(), key: String::new() };
        let mut terms: Vec<(u32, f32)> = Vec::new();
        let compound = self.config.compound_weight as f32;
        analyzer.analyze(query, |kind, text| {
            let mut add = |kind: TermKind, weight: f32| {
                if weight <= 0.0 {
                    return;
                }
                if let Some(&term) = self.terms.get(lookup.key(kind, text)) {
                    if !terms.iter().any(|&(t, _)| t == term) {
                        terms.push((term, weight));
                    }
                }
            };
            match kind {
                TermKind::Joined => {
                    add(TermKind::Word, compound);
                    add(TermKind::Whole, compound);
                }
                TermKind::Whole if self.config.whole_meets_word => {
                    add(TermKind::Whole, 1.0);
                    add(TermKind::Word, compound);
                }
                TermKind::Word if self.config.whole_meets_word => {
                    add(TermKind::Word, 1.0);
                    add(TermKind::Whole, compound);
                }
                _ => add(kind, self.config.query_weight(kind) as f32),
            }
        });
        terms
    }

    /// Number of documents, live or not (the length of a dense score array).
    pub fn doc_count(&self) -> usize {
        self.doc_count
    }

    /// Adds every document's score for `query` into `score` (one slot per
    /// document, zeros to start) and lists the documents that share a term
    /// with it in `touched`, each once.
    pub fn score_into(&self, query: &[u16], score: &mut [f32], touched: &mut Vec<u32>) {
        let terms = self.query_terms(query);
        let k1 = self.config.k1 as f32;
        let mut seen = vec![false; if terms.is_empty() { 0 } else { self.doc_count }];
        for &(term, weight) in &terms {
            let idf = self.idf[term as usize] * weight;
            let postings =
                &self.postings[self.offsets[term as usize] as usize..self.offsets[term as usize + 1] as usize];
            for p in postings {
                let doc = p.doc as usize;
                if !seen[doc] {
                    seen[doc] = true;
                    touched.push(p.doc);
                }
                score[doc] += idf * p.tf / (k1 + p.tf);
            }
        }
    }

    /// The documents that share a term with `query`, best first (equal
    /// scores in document order), cut to `limit` with `Array.prototype.slice`
    /// semantics.
    pub fn search(&self, query: &[u16], limit: f64) -> Vec<FieldedHit> {
        let mut score = vec![0f32; self.doc_count];
        let mut touched: Vec<u32> = Vec::new();
        self.score_into(query, &mut score, &mut touched);
        best_first(touched.into_iter().map(|doc| (doc, score[doc as usize])), limit)
    }
}

/// `(document, score)` pairs (positive, finite scores) best first, equal
/// scores in document order, cut to `limit` with `Array.prototype.slice`
/// semantics.
pub fn best_first(scored: impl Iterator<Item = (u32, f32)>, limit: f64) -> Vec<FieldedHit> {
    // Sorting keys: best score first, then document order. Scores are
    // finite and positive, so their bits order like the numbers; packing
    // score and document into one integer makes the order total (so the
    // best `end` selected and then sorted are exactly the head of a full
    // sort) and cheap to compare.
    let mut keys: Vec<u64> = scored.map(|(doc, score)| (u64::from(!score.to_bits()) << 32) | u64::from(doc)).collect();
    let (_, end) = js_slice_bounds(keys.len(), 0.0, Some(limit));
    if end > 0 && end < keys.len() {
        keys.select_nth_unstable(end - 1);
    }
    keys.truncate(end);
    keys.sort_unstable();
    keys.into_iter()
        .map(|key| FieldedHit { doc: key as u32, score: f64::from(f32::from_bits(!((key >> 32) as u32))) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// Words only: no stems, prefixes, stop words or whole identifiers, so
    /// the terms are plain to see.
    fn plain() -> FieldedConfig {
        let words = AnalyzerConfig { split_case: true, cjk_ngrams: true, ..AnalyzerConfig::NONE };
        FieldedConfig {
            analyzer: words,
            query_analyzer: words,
            whole_meets_word: false,
            idf_cap: 1.0,
            ..FieldedConfig::DEFAULT
        }
    }

    /// (name, description, [(parameter, description)], live)
    type Doc<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], bool);

    fn index(config: FieldedConfig, docs: &[Doc<'_>]) -> FieldedIndex {
        builder(config, docs).finish()
    }

    fn builder(config: FieldedConfig, docs: &[Doc<'_>]) -> FieldedBuilder {
        let mut builder = FieldedBuilder::new(config);
        for &(name, description, params, live) in docs {
            let params: Vec<(Vec<u16>, Vec<u16>)> = params.iter().map(|(n, d)| (u(n), u(d))).collect();
            let params: Vec<(&[u16], &[u16])> = params.iter().map(|(n, d)| (&n[..], &d[..])).collect();
            builder.add(&FieldTexts { name: &u(name), description: &u(description), parameters: &params }, live);
        }
        builder
    }

    fn search(index: &FieldedIndex, query: &str, limit: f64) -> Vec<(u32, f64)> {
        index.search(&u(query), limit).into_iter().map(|h| (h.doc, h.score)).collect()
    }

    /// One term's score, computed as the index does (f32).
    fn term(idf: f64, weight: f64, tf: f64) -> f32 {
        let (idf, tf) = (idf as f32 * weight as f32, tf as f32);
        idf * tf / (1.2f32 + tf)
    }

    const WEATHER: Doc<'static> =
        ("get_weather", "Current weather for a city", &[("city", "The city"), ("unit", "celsius or fahrenheit")], true);
    const CONVERT: Doc<'static> = ("convertTemperature", "Convert fahrenheit to celsius", &[], true);

    #[test]
    fn field_weights_and_lengths_make_the_term_frequency() {
        let index = index(plain(), &[WEATHER, CONVERT]);
        assert_eq!(index.len(), 2);
        // Field lengths (name, description, parameter names, parameter descriptions),
        // one-letter words dropped: weather (2, 4, 2, 5), convert (2, 4, 0, 0);
        // averages (2, 4, 1, 2.5). "weather": once in doc 0's name and description.
        let tf = 3.0 / (0.5 + 0.5 * 2.0 / 2.0) + 1.0 / (0.25 + 0.75 * 4.0 / 4.0);
        assert_eq!(tf, 4.0);
        let idf = ((2.0 - 1.0 + 0.5) / 1.5 + 1.0f64).ln();
        assert_eq!(search(&index, "weather", 10.0), vec![(0, f64::from(term(idf, 1.0, tf)))]);
        // "fahrenheit": doc 0 in a parameter description, doc 1 in its description;
        // both documents have it, so df = 2.
        let idf2 = ((2.0 - 2.0 + 0.5) / 2.5 + 1.0f64).ln();
        let tf0 = 0.5 / (0.25 + 0.75 * 5.0 / 2.5);
        let tf1 = 1.0 / (0.25 + 0.75 * 4.0 / 4.0);
        let got = search(&index, "Fahrenheit", 10.0);
        assert_eq!(got, vec![(1, f64::from(term(idf2, 1.0, tf1))), (0, f64::from(term(idf2, 1.0, tf0)))]);
        // Scores add over distinct query terms; a repeated term counts once.
        let both = search(&index, "weather fahrenheit weather", 10.0);
        assert_eq!(both[0], (0, f64::from(term(idf, 1.0, tf) + term(idf2, 1.0, tf0))));
        assert_eq!(search(&index, "nothing here", 10.0), vec![]);
    }

    #[test]
    fn stems_and_prefixes_count_at_their_weights() {
        let config = FieldedConfig { idf_cap: 1.0, ..FieldedConfig::DEFAULT };
        let index = index(config, &[("forecast", "", &[], true), ("email", "", &[], true)]);
        // "forecasts": the word does not match, its stem and prefix do.
        let got = search(&index, "forecasts", 10.0);
        assert_eq!(got.len(), 1);
        let idf = ((2.0 - 1.0 + 0.5) / 1.5 + 1.0f64).ln();
        // Name field only. Lengths: forecast 3 (word, stem, prefix), email 2 (word, stem; no
        // prefix of a 5-letter word); average 2.5.
        let tf = 3.0 / (0.5 + 0.5 * 3.0 / 2.5);
        assert_eq!(got[0], (0, f64::from(term(idf, 0.5, tf) + term(idf, 0.5, tf))));
        // The word as written matches all three.
        let exact = search(&index, "forecast", 10.0);
        assert_eq!(exact[0], (0, f64::from(term(idf, 1.0, tf) + term(idf, 0.5, tf) + term(idf, 0.5, tf))));
    }

    #[test]
    fn rare_terms_are_capped() {
        let docs: Vec<Doc<'_>> = vec![
            ("a1", "common rare", &[], true),
            ("a2", "common", &[], true),
            ("a3", "common", &[], true),
            ("a4", "other", &[], true),
        ];
        let uncapped = index(plain(), &docs);
        let capped = index(FieldedConfig { idf_cap: 0.75, ..plain() }, &docs);
        let idf = |df: f64| ((4.0 - df + 0.5) / (df + 0.5) + 1.0f64).ln();
        // Description lengths 2, 1, 1, 1: average 1.25.
        let tf = 1.0 / (0.25 + 0.75 * 2.0 / 1.25);
        assert_eq!(search(&uncapped, "rare", 10.0), vec![(0, f64::from(term(idf(1.0), 1.0, tf)))]);
        assert_eq!(search(&capped, "rare", 10.0), vec![(0, f64::from(term(0.75 * idf(1.0), 1.0, tf)))]);
        // Below the cap, nothing changes.
        assert!(idf(3.0) < 0.75 * idf(1.0));
        assert_eq!(search(&capped, "common", 10.0), search(&uncapped, "common", 10.0));
    }

    #[test]
    fn results_are_best_first_ties_in_document_order_cut_like_slice() {
        let docs: Vec<Doc<'_>> = vec![
            ("x", "alpha", &[], true),
            ("y", "alpha beta", &[], true),
            ("z", "alpha", &[], true),
            ("w", "beta", &[], true),
        ];
        let index = index(plain(), &docs);
        let order =
            |query: &str, limit: f64| search(&index, query, limit).into_iter().map(|(d, _)| d).collect::<Vec<_>>();
        // y has both; beta (2 documents) is rarer than alpha (3), so w is next.
        assert_eq!(order("alpha beta", 10.0), [1, 3, 0, 2]);
        // x and z tie on "alpha" (same length): document order.
        assert_eq!(order("alpha", 10.0), [0, 2, 1]);
        assert_eq!(order("alpha beta", 2.0), [1, 3]);
        assert_eq!(order("alpha beta", 3.0), [1, 3, 0]);
        assert_eq!(order("alpha beta", 0.0), Vec::<u32>::new());
        // slice(0, -1) drops the last; slice(0, NaN) keeps nothing; 2.5 truncates to 2.
        assert_eq!(order("alpha beta", -1.0), [1, 3, 0]);
        assert_eq!(order("alpha beta", f64::NAN), Vec::<u32>::new());
        assert_eq!(order("alpha beta", 2.5), [1, 3]);
        assert_eq!(order("alpha beta", f64::INFINITY), [1, 3, 0, 2]);
    }

    #[test]
    fn documents_that_are_not_live_keep_their_number_and_nothing_else() {
        let docs: Vec<Doc<'_>> =
            vec![("dup", "first weather", &[], false), ("other", "weather", &[], true), ("dup", "second", &[], true)];
        let index = index(plain(), &docs);
        assert_eq!(index.len(), 2);
        assert_eq!(search(&index, "first", 10.0), vec![]);
        assert_eq!(search(&index, "weather", 10.0).len(), 1);
        assert_eq!(search(&index, "second", 10.0)[0].0, 2);
        // N counts live documents only: "weather" is in 1 of 2.
        let alone = self::index(plain(), &[("other", "weather", &[], true), ("dup", "second", &[], true)]);
        assert_eq!(search(&index, "weather", 10.0)[0].1, search(&alone, "weather", 10.0)[0].1);
    }

    #[test]
    fn filler_finds_nothing_and_compounds_meet_words_at_their_weight() {
        let docs: Vec<Doc<'_>> = vec![
            ("help_me", "Answers anything", &[], true),
            ("todo", "Manages a list", &[], true),
            ("to_do_items", "Items", &[], true),
            ("order_food", "Orders a meal", &[], true),
        ];
        let index = index(FieldedConfig::DEFAULT, &docs);
        let order = |query: &str| search(&index, query, 10.0).into_iter().map(|(d, _)| d).collect::<Vec<_>>();
        // "me" and "can" are filler: the food order only.
        assert_eq!(order("Can you order me food"), [3]);
        // "to-do" (a whole identifier in the query) meets the word `todo`; "to do"
        // (joined) does too, and a word meets a whole identifier (`todoitems`).
        assert_eq!(order("my to-do list"), [1]);
        assert_eq!(order("to do items"), [2, 1]);
        assert_eq!(order("todoitems"), [2]);
        // At the compound weight: "todo" matches the name `todo` as a word (1) and its
        // stem (0.5), a joined "to do" as a word at a quarter.
        let (word, joined) = (search(&index, "todo", 10.0)[0], search(&index, "to do", 10.0)[0]);
        assert_eq!(joined.0, 1);
        assert!((joined.1 / word.1 - 0.25 / 1.5).abs() < 1e-6, "{joined:?} {word:?}");
        let apart =
            FieldedConfig { whole_meets_word: false, query_analyzer: AnalyzerConfig::FULL, ..FieldedConfig::DEFAULT };
        let apart = self::index(apart, &docs);
        assert_eq!(search(&apart, "to-do to do todoitems", 10.0), vec![]);
    }

    #[test]
    fn appended_builders_answer_like_one() {
        let docs: Vec<Doc<'_>> = vec![
            WEATHER,
            CONVERT,
            ("requests.get", "Sends a GET request to the url", &[("url", "The URL"), ("headers", "")], true),
            ("ChaFod", "Changes the food item", &[("foodItem", "The food")], true),
            ("gone", "weather request", &[], false),
            ("天气查询", "查询城市天气 weather", &[], true),
        ];
        let whole = index(FieldedConfig::DEFAULT, &docs);
        let mut first = builder(FieldedConfig::DEFAULT, &docs[..2]);
        first.append(builder(FieldedConfig::DEFAULT, &docs[2..]));
        assert_eq!(first.len(), docs.len());
        let halves = first.finish();
        for query in ["weather in Boston in fahrenheit", "get the url", "ChaFod food", "北京天气", "gone"] {
            let (a, b) = (search(&whole, query, 10.0), search(&halves, query, 10.0));
            assert_eq!(a, b, "{query}");
        }
        assert_eq!(search(&whole, "北京天气", 10.0)[0].0, 5);
    }
}
