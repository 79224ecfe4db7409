//! Target `fielded_search`: the `'fielded'` and `'hybrid'` rankings
//! (`search.ranking`; `'hybrid'` with the built-in model's file). It
//! feeds `search::table::read_parameters`, the reader of the parameter table
//! that crosses beside a tool table, and fielded catalogs (the analyzer's
//! identifier splitting, stems, prefixes and CJK n-grams included) over
//! arbitrary UTF-16 names, descriptions, parameters and queries.
//!
//! Parameter tables written as the binding writes them read back exactly;
//! raw ones give a table that accounts for the text, or an error. The
//! ranking differs from the reference's, but keeps its contract: candidates
//! are live documents, once each, best first, and a limit keeps the head;
//! walks and hits respect `minScore`, `topK` and the hook's verdicts; a
//! merged step catalog gives each entry the parameters of the tool it refers to.

use mastra_native_processors::js::js_slice_bounds;
use mastra_native_processors::search::table::read_parameters;
use std::path::Path;

use mastra_native_processors::search::{BuiltinModel, Catalog, Ranking, SearchOptions, Span};
use mastra_native_processors::tool_search::{Storage, Syntax, ToolEntry, ToolSearch, ToolSearchOptions};

use crate::gen::{flag, int, js_number, one_in, pick, raw_tape, size, U};
use crate::tool_catalog::{check_candidates, check_walk, gen_rows, spans_of_rows, units};

/// Words the analyzer takes apart: identifiers in every case style, words
/// that share stems or prefixes, CJK runs, stop words.
const WORDS: &[&str] = &[
    "getCurrentWeather",
    "get_current_weather",
    "requests.get",
    "HTTPServer",
    "ChaFod",
    "x2y",
    "changes",
    "changing",
    "temperatura",
    "temperature",
    "查询北京的天气",
    "城市名称",
    "ツール",
    "the",
    "of",
    "İstanbul",
];

/// Text for a field: the analyzer's words, or `tool_catalog`'s units.
fn field_text(u: &mut U<'_>, max_pieces: usize) -> Vec<u16> {
    let mut out = Vec::new();
    for _ in 0..size(u, 0, max_pieces) {
        if flag(u) {
            out.extend(pick(u, WORDS).encode_utf16());
        } else {
            out.extend(units(u, 2));
        }
        if flag(u) {
            out.push(0x20);
        }
    }
    out
}

/// Each tool's parameters as `(name, description)`.
type Parameters = Vec<Vec<(Vec<u16>, Vec<u16>)>>;

/// A parameter table for `tools` tools as the binding writes it, and what it holds.
fn gen_parameters(u: &mut U<'_>, tools: usize) -> (Vec<u16>, Vec<i32>, Parameters) {
    let mut text = Vec::new();
    let mut table = Vec::new();
    let mut parameters = Vec::with_capacity(tools);
    for _ in 0..tools {
        let count = if one_in(u, 16) { size(u, 4, 12) } else { size(u, 0, 3) };
        table.push(count as i32);
        let mut own = Vec::with_capacity(count);
        for _ in 0..count {
            let (name, description) = (field_text(u, 2), field_text(u, 6));
            table.extend([name.len() as i32, description.len() as i32]);
            text.extend_from_slice(&name);
            text.extend_from_slice(&description);
            own.push((name, description));
        }
        parameters.push(own);
    }
    (text, table, parameters)
}

fn owned<'a>(pairs: impl Iterator<Item = (&'a [u16], &'a [u16])>) -> Vec<(Vec<u16>, Vec<u16>)> {
    pairs.map(|(name, description)| (name.to_vec(), description.to_vec())).collect()
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);

    // Raw parameter tables: an error, or a table that accounts for the text.
    let (raw, raw_len, raw_tools) = (raw_tape(&mut u, 24), size(&mut u, 0, 32), size(&mut u, 0, 4));
    if let Ok(table) = read_parameters(vec![0x61; raw_len], &raw, raw_tools) {
        assert_eq!(table.len(), raw_tools);
        let read: usize = (0..raw_tools).flat_map(|t| table.entry(t)).map(|(n, d)| n.len() + d.len()).sum();
        assert_eq!(read, raw_len, "a raw table accepted without accounting for its text");
    }

    let (text, rows) = gen_rows(&mut u);
    let entries = spans_of_rows(text.len(), &rows).expect("the rows the binding writes read back");
    let (params_text, params_table, expected) = gen_parameters(&mut u, entries.len());
    let params = read_parameters(params_text, &params_table, entries.len()).expect("the table the binding writes");
    for (entry, want) in expected.iter().enumerate() {
        assert_eq!(&owned(params.entry(entry)), want, "the parameters of tool {entry}");
    }

    // 'hybrid' keeps the same contract, its similarities from the built-in
    // model (the model package's file), which tokenizes the same arbitrary text.
    BuiltinModel::locate(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/potion-base-8m/potion-base-8m.m2v"
    )));
    let ranking = if flag(&mut u) { Ranking::HYBRID } else { Ranking::FIELDED };
    let catalog = Catalog::with_ranking(text.clone(), entries.clone(), ranking, Some(params.clone()))
        .expect("a table the binding writes");
    let search = SearchOptions { top_k: js_number(&mut u), min_score: js_number(&mut u), has_filter: flag(&mut u) };
    for _ in 0..size(&mut u, 1, 3) {
        let query = if !text.is_empty() && one_in(&mut u, 3) {
            let start = size(&mut u, 0, text.len());
            text[start..size(&mut u, start, text.len())].to_vec()
        } else {
            field_text(&mut u, 6)
        };
        let everything = catalog.rank(&query, f64::INFINITY);
        check_candidates(&catalog, &everything);
        assert!(everything.iter().all(|c| c.score.is_finite() && c.score > 0.0), "scores {everything:?}");
        let limit = js_number(&mut u);
        let (_, end) = js_slice_bounds(everything.len(), 0.0, Some(limit));
        assert_eq!(catalog.rank(&query, limit), everything[..end], "a limit of {limit} keeps the head");
        check_walk(&mut u, &catalog, &query, &search);
    }

    // A step's own tools, merged with the constructor's record (as it was
    // then), keep their own parameters, and the record's tools theirs.
    let options = ToolSearchOptions {
        search,
        auto_load: false,
        include_resolved_tools: true,
        storage: Storage::InMemory,
        ttl_ms: 0.0,
        inject_catalog: false,
        ranking,
        syntax: Syntax::Words,
        filter_concurrency: 1,
    };
    let static_count = entries.len();
    let (record_text, record_spans) = (text.clone(), entries.clone());
    let tool_search = ToolSearch::from_table_with_parameters(options, text, entries, Some(params.clone()))
        .expect("a table that fits");
    let record_piece = |span: Span| &record_text[span.start as usize..span.end as usize];
    let record: Vec<ToolEntry<'_>> = record_spans
        .iter()
        .map(|e| ToolEntry {
            key: record_piece(e.key),
            id: e.id.map(record_piece),
            description: record_piece(e.description),
        })
        .collect();
    let (resolved_text, resolved_rows) = gen_rows(&mut u);
    let resolved_spans = spans_of_rows(resolved_text.len(), &resolved_rows).expect("the rows the binding writes");
    let piece = |span: Span| &resolved_text[span.start as usize..span.end as usize];
    let resolved: Vec<ToolEntry<'_>> = resolved_spans
        .iter()
        .map(|e| ToolEntry { key: piece(e.key), id: e.id.map(piece), description: piece(e.description) })
        .collect();
    let (text, table, _) = gen_parameters(&mut u, resolved.len());
    let resolved_params = read_parameters(text, &table, resolved.len()).expect("the table the binding writes");
    let step = tool_search
        .step_catalog_with_parameters(&record, &resolved, Some(&params), Some(&resolved_params))
        .expect("a merged catalog");
    for entry in 0..step.catalog.entry_count() {
        let source = usize::try_from(step.source(entry)).expect("a tool ref is never negative");
        let want = match source.checked_sub(static_count) {
            None => owned(params.entry(source)),
            Some(i) => {
                assert!(i < resolved.len(), "entry {entry} refers to tool {source}");
                owned(resolved_params.entry(i))
            }
        };
        assert_eq!(owned(step.catalog.parameters(entry)), want, "the parameters of entry {entry}");
    }
    let query = field_text(&mut u, 4);
    check_candidates(&step.catalog, &step.catalog.rank(&query, f64::from(int(&mut u, -1, 8))));
}
