//! The tool-search core on synthetic catalogs of 1,000, 10,000 and 100,000
//! tools, shaped like `catalogTools` in `benches/bench.mjs`: ids
//! `tool_<i>_<word>`, 92 to 120 character descriptions drawn from the same
//! words, and the same queries in rotation.
//!
//!   cargo bench -p mastra-native-processors
//!   cargo bench -p mastra-native-processors -- search     (only benches whose path contains "search")
//!   cargo bench -p mastra-native-processors -- pool_step  (step catalogs from a ToolPool)

use divan::{black_box, Bencher};
use mastra_native_processors::js::to_lower_utf16;
use mastra_native_processors::search::{
    for_each_token, tokenize, Catalog, EntrySpans, Pattern, PoolEntry, Ranking, SearchOptions, Slot, Span, ToolPool,
};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

const WORDS: &str = "search database query records send email message weather forecast city github issue pull request \
    repository create update delete list fetch calendar event schedule meeting invoice payment customer \
    order shipping inventory product translate text language document file upload download image resize \
    convert pdf report analytics metrics dashboard user account profile permission slack channel notify \
    alert ticket support summarize news stock price currency exchange map route location timezone contact \
    crm lead deal spreadsheet row column sql vector embedding index cache log error deploy build pipeline \
    secret token webhook subscribe";

const QUERIES: [&str; 6] = [
    "weather forecast",
    "send email message",
    "github issue",
    "database query records",
    "invoice payment customer",
    "quantum flux",
];

/// A small deterministic generator (xorshift64*), so every run indexes the same text.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// The text and spans of `n` tools, as the binding hands them to the core.
fn tool_table(n: usize) -> (Vec<u16>, Vec<EntrySpans>) {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut builder = Catalog::builder();
    for i in 0..n {
        let id = format!("tool_{i}_{}", words[rng.below(words.len())]);
        let target = 92 + rng.below(29);
        let first = words[rng.below(words.len())];
        let mut description = first[..1].to_uppercase() + &first[1..];
        loop {
            let word = words[rng.below(words.len())];
            let separator = if rng.below(10) == 0 { ", " } else { " " };
            if description.len() + separator.len() + word.len() + 1 > target {
                break;
            }
            description.push_str(separator);
            description.push_str(word);
        }
        description.push('.');
        builder.push_str(&id, Some(&id), &description);
    }
    builder.into_parts()
}

fn catalog(n: usize, ranking: Ranking) -> Catalog {
    let (text, entries) = tool_table(n);
    let catalog = Catalog::with_ranking(text, entries, ranking, None).expect("a valid table");
    // Wait for the index, built on a thread of its own.
    black_box(catalog.len());
    catalog
}

/// Lowercasing and splitting every tool's text, as index building does.
#[divan::bench(args = SIZES)]
fn tokenize_catalog(bencher: Bencher, n: usize) {
    let (text, _) = tool_table(n);
    bencher.counter(divan::counter::ItemsCount::new(n)).bench(|| {
        let lowered = to_lower_utf16(black_box(&text));
        let mut tokens = 0usize;
        for_each_token(&lowered, |_| tokens += 1);
        tokens
    });
}

/// One query through the public tokenizer (allocating its tokens).
#[divan::bench]
fn tokenize_query() -> usize {
    let query: Vec<u16> = "Find the Weather-forecast for a city, then send_email".encode_utf16().collect();
    tokenize(black_box(&query)).len()
}

/// Building a catalog's lookups and BM25 index from its table (what the
/// first search waits for).
#[divan::bench(args = SIZES, sample_count = 20)]
fn build_index(bencher: Bencher, n: usize) {
    let table = tool_table(n);
    bencher.with_inputs(|| table.clone()).bench_values(|(text, entries)| {
        let catalog = Catalog::new(text, entries).expect("a valid table");
        black_box(catalog.len());
        catalog
    });
}

/// [`build_index`] with the `'fielded'` ranking.
#[divan::bench(args = SIZES, sample_count = 10)]
fn build_index_fielded(bencher: Bencher, n: usize) {
    let table = tool_table(n);
    bencher.with_inputs(|| table.clone()).bench_values(|(text, entries)| {
        let catalog = Catalog::with_ranking(text, entries, Ranking::FIELDED, None).expect("a valid table");
        black_box(catalog.len());
        catalog
    });
}

fn bench_search(bencher: Bencher, n: usize, ranking: Ranking) {
    let catalog = catalog(n, ranking);
    let queries: Vec<Vec<u16>> = QUERIES.iter().map(|q| q.encode_utf16().collect()).collect();
    let options = SearchOptions::default();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % queries.len();
        catalog.search(black_box(&queries[next]), &options)
    });
}

/// `search_tools` without a hook (`topK` 5), the queries in rotation.
#[divan::bench(args = SIZES)]
fn search_reference(bencher: Bencher, n: usize) {
    bench_search(bencher, n, Ranking::Reference);
}

/// [`search_reference`] with the `'fielded'` ranking.
#[divan::bench(args = SIZES)]
fn search_fielded(bencher: Bencher, n: usize) {
    bench_search(bencher, n, Ranking::FIELDED);
}

/// `search: { syntax: 'regex' }`'s patterns, as `npm run bench`'s regex rows
/// rotate them (`PATTERNS` in `benches/bench.mjs`).
const PATTERNS: [&str; 6] = [
    "weather|forecast",
    "send.*(email|message)",
    r"^tool_1\d*_",
    "invoice|payment|customer",
    r"(\w+\s?)+!$",
    "quantum.?flux",
];

/// A `search_tools` pattern compiled and tried against every tool's texts
/// (the candidates before the walk), the patterns in rotation. Most of the
/// time is the matching: a case-insensitive pattern over the 92 to 120
/// character descriptions, which the lazy DFA (`regex`'s `perf-dfa`) scans.
#[divan::bench(args = SIZES)]
fn search_pattern(bencher: Bencher, n: usize) {
    let catalog = catalog(n, Ranking::Reference);
    let patterns: Vec<Vec<u16>> = PATTERNS.iter().map(|p| p.encode_utf16().collect()).collect();
    // The texts are made once per catalog, on the first pattern search.
    black_box(catalog.pattern_texts());
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % patterns.len();
        let pattern = Pattern::new(black_box(&patterns[next])).expect("the patterns compile");
        catalog.pattern_texts().candidates(&pattern)
    });
}

/// A step catalog of a random selection of about 90% of a [`ToolPool`]'s
/// tools, in random order, then one search: the bench row "random selection
/// of a pool each step" without JavaScript. Sixteen selections in rotation.
/// Each catalog is dropped at once here; in Node a step's catalog lives on
/// until its wrappers' finalizers run, which needs a turn of the event loop.
#[divan::bench(args = SIZES, sample_count = 20)]
fn pool_step_catalog(bencher: Bencher, n: usize) {
    let (text, entries) = tool_table(n);
    let span = |s: Span| &text[s.start as usize..s.end as usize];
    let mut pool = ToolPool::new(Ranking::Reference);
    // Added in order to an empty pool: entry `i` takes slot `i`.
    for entry in &entries {
        let id = entry.id.map(span);
        pool.add(id, span(entry.description), None::<[(&[u16], &[u16]); 0]>).expect("a slot");
    }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let selections: Vec<Vec<Slot>> = (0..16)
        .map(|_| {
            let mut picked: Vec<Slot> = (0..n as Slot).filter(|_| rng.below(10) != 0).collect();
            for i in (1..picked.len()).rev() {
                picked.swap(i, rng.below(i + 1));
            }
            picked
        })
        .collect();
    let query: Vec<u16> = QUERIES[0].encode_utf16().collect();
    let options = SearchOptions::default();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % selections.len();
        let selection: Vec<PoolEntry<'_>> =
            selections[next].iter().map(|&slot| PoolEntry { slot, key: None }).collect();
        let catalog = pool.catalog(&selection).expect("a catalog");
        catalog.search(black_box(&query), &options)
    });
}
