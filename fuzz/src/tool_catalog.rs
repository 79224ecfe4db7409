//! Target `tool_catalog`: the tool table (`Catalog::new`,
//! `ToolSearch::from_table`), its lookups, `Catalog::rank`, `SearchWalk`,
//! `Catalog::search` and `tokenize`, on arbitrary UTF-16 (lone surrogates,
//! case mappings that change lengths, JavaScript whitespace).
//!
//! Structured inputs are tables as the binding sends them: entries' key, id
//! and description back to back in one text, an id that is the key itself
//! or a string of its own (names repeat on purpose); raw inputs have spans
//! anywhere. A table is accepted exactly when its spans fit. Lookups are
//! compared with linear scans, tokens with a naive split, the BM25 candidates
//! with the documents that share a token with the query, and the walk's
//! answers with what `searchTools` may return.

use std::collections::HashSet;

use mastra_native_processors::js::{contains_units, js_slice_bounds, round_score, to_lower_utf16};
use mastra_native_processors::search::{
    is_separator, tokenize, truncate_description, Catalog, EntrySpans, PoolEntry, Ranking, SearchOptions, SearchWalk,
    Span, ToolPool, MIN_TOKEN_LEN,
};
use mastra_native_processors::tool_search::{Storage, Syntax, ToolSearch, ToolSearchOptions};

use crate::gen::{flag, int, js_number, one_in, pick, size, U};

/// Words that make documents and queries meet, with the case mappings that
/// are easy to get wrong.
const WORDS: &[&str] = &[
    "weather",
    "Weather",
    "GET_WEATHER",
    "get",
    "send-email",
    "email",
    "db",
    "x",
    "İstanbul",
    "ΟΔΟΣ",
    "σ",
    "Σ",
    "straße",
    "ﬁle",
    "search_tools",
    "load_tool",
    "😀",
    "a/b",
    "ǅ",
];

/// Single units: separators, JavaScript-only whitespace, lone surrogates,
/// characters whose lowercase is longer or context-dependent.
const UNITS: &[u16] = &[
    0x20, 0x2D, 0x5F, 0x2E, 0x2C, 0x3A, 0x3B, 0x21, 0x3F, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x27, 0x22, 0x09, 0x0A,
    0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0xFEFF, 0x3000, 0x85, 0x180E, 0x130, 0x3A3, 0x345, 0x1E9E, 0x41, 0x61, 0x5A,
    0x30, 0x00, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFF,
];

pub fn units(u: &mut U<'_>, max_pieces: usize) -> Vec<u16> {
    let mut out = Vec::new();
    for _ in 0..size(u, 0, max_pieces) {
        match int(u, 0, 5) {
            0 | 1 => out.extend(pick(u, WORDS).encode_utf16()),
            2 | 3 => out.push(pick(u, UNITS)),
            4 => out.push(u.arbitrary().unwrap_or(0)),
            _ => out.push(0x20),
        }
    }
    out
}

/// A tool table as the binding sends it: one text, and per entry a row
/// `key_len, id, description_len`, where `id` is -1 (no string id), -2 (the
/// key is the id) or the length of an id of its own; the strings lie back to
/// back in that order. Names repeat on purpose.
pub fn gen_rows(u: &mut U<'_>) -> (Vec<u16>, Vec<i32>) {
    let count = if one_in(u, 64) { size(u, 200, 300) } else { size(u, 0, 12) };
    let mut text: Vec<u16> = Vec::new();
    let mut rows: Vec<i32> = Vec::new();
    let mut names: Vec<Vec<u16>> = Vec::new();
    // Reuse an earlier key or id now and then: repeated keys, ids and names
    // are where lookups and retired documents get interesting.
    let piece = |u: &mut U<'_>, names: &[Vec<u16>]| {
        if !names.is_empty() && one_in(u, 3) {
            names[size(u, 0, names.len() - 1)].clone()
        } else {
            units(u, 3)
        }
    };
    for _ in 0..count {
        let key = piece(u, &names);
        text.extend_from_slice(&key);
        rows.push(key.len() as i32);
        match int(u, 0, 3) {
            0 => rows.push(-1),
            1 => rows.push(-2),
            _ => {
                let id = piece(u, &names);
                text.extend_from_slice(&id);
                rows.push(id.len() as i32);
                names.push(id);
            }
        }
        names.push(key);
        let description = units(u, 8);
        text.extend_from_slice(&description);
        rows.push(description.len() as i32);
    }
    (text, rows)
}

/// Reads [`gen_rows`]' rows into spans as the binding does (`read_spans` in
/// `napi/src/tool_search.rs`); `None` where they are malformed or do not
/// cover the text exactly.
pub fn spans_of_rows(text_len: usize, rows: &[i32]) -> Option<Vec<EntrySpans>> {
    if !rows.len().is_multiple_of(3) {
        return None;
    }
    let mut at = 0u32;
    let mut take = |len: i32| {
        let span = Span::new(at, at.checked_add(u32::try_from(len).ok()?)?);
        at = span.end;
        Some(span)
    };
    let mut entries = Vec::with_capacity(rows.len() / 3);
    for row in rows.chunks_exact(3) {
        let key = take(row[0])?;
        let id = match row[1] {
            -1 => None,
            -2 => Some(key),
            len => Some(take(len)?),
        };
        entries.push(EntrySpans { key, id, description: take(row[2])? });
    }
    (at as usize == text_len).then_some(entries)
}

/// A table with spans anywhere.
fn raw_table(u: &mut U<'_>) -> (Vec<u16>, Vec<EntrySpans>) {
    let text = units(u, 16);
    let len = text.len() as u32;
    let span = |u: &mut U<'_>| {
        if one_in(u, 16) {
            Span::new(u.arbitrary().unwrap_or(0), u.arbitrary().unwrap_or(0))
        } else {
            Span::new(u.int_in_range(0..=len + 2).unwrap_or(0), u.int_in_range(0..=len + 2).unwrap_or(0))
        }
    };
    let entries = (0..size(u, 0, 8))
        .map(|_| {
            let key = span(u);
            let id = if flag(u) { Some(span(u)) } else { None };
            EntrySpans { key, id, description: span(u) }
        })
        .collect();
    (text, entries)
}

fn fits(span: Span, len: usize) -> bool {
    span.start <= span.end && span.end as usize <= len
}

fn slice(text: &[u16], span: Span) -> &[u16] {
    &text[span.start as usize..span.end as usize]
}

/// `text.toLowerCase().split(/[\s\-_.,;:!?()[\]{}'"]+/).filter(t => t.length >= 2)`, naively.
fn naive_tokens(text: &[u16]) -> Vec<Vec<u16>> {
    to_lower_utf16(text)
        .split(|&unit| is_separator(unit))
        .filter(|token| token.len() >= MIN_TOKEN_LEN)
        .map(<[u16]>::to_vec)
        .collect()
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let structured = !one_in(&mut u, 8);
    let (text, entries) = if structured {
        let (text, rows) = gen_rows(&mut u);
        let entries = spans_of_rows(text.len(), &rows).expect("the rows the binding writes read back");
        (text, entries)
    } else {
        raw_table(&mut u)
    };
    let valid = entries
        .iter()
        .all(|e| [Some(e.key), e.id, Some(e.description)].into_iter().flatten().all(|s| fits(s, text.len())));
    if structured {
        assert!(valid, "a table the binding builds has spans that do not fit");
    }

    let search = SearchOptions { top_k: js_number(&mut u), min_score: js_number(&mut u), has_filter: flag(&mut u) };
    let options = ToolSearchOptions {
        search,
        auto_load: flag(&mut u),
        include_resolved_tools: flag(&mut u),
        storage: if flag(&mut u) { Storage::InMemory } else { Storage::Context },
        ttl_ms: js_number(&mut u),
        inject_catalog: flag(&mut u),
        // The `'fielded'` ranking has a target of its own (`fielded_search`);
        // the oracles here are the reference's.
        ranking: Ranking::Reference,
        // The oracles here are for words asked one at a time; patterns and
        // asking ahead are tested in `search::pattern`, `tool_search::ahead`
        // and `tool_search::concurrency_tests` (no fuzz target yet).
        syntax: Syntax::Words,
        filter_concurrency: 1,
    };
    match ToolSearch::from_table(options, text.clone(), entries.clone()) {
        Ok(tool_search) => {
            assert!(valid, "ToolSearch took spans that do not fit");
            let _ = tool_search.sweep_interval_ms();
            // Wait for a large catalog's index thread: one still running
            // after the input is done reads as a leak to LeakSanitizer.
            let step = tool_search.step_catalog(&[], &[]).expect("the static catalog");
            assert_eq!(step.catalog.entry_count(), entries.len());
            let _ = step.catalog.len();
        }
        Err(_) => assert!(!valid, "ToolSearch refused a table that fits"),
    }
    let catalog = match Catalog::new(text.clone(), entries.clone()) {
        Ok(catalog) => catalog,
        Err(error) => {
            assert!(!valid, "a table that fits was refused: {error}");
            return;
        }
    };
    assert!(valid, "a catalog took spans that do not fit");
    check_lookups(&catalog, &text, &entries);
    let pooled = pooled_catalog(&mut u, &text, &entries);

    for _ in 0..size(&mut u, 1, 3) {
        let query = if !text.is_empty() && one_in(&mut u, 3) {
            let start = size(&mut u, 0, text.len());
            let end = size(&mut u, start, text.len());
            text[start..end].to_vec()
        } else {
            units(&mut u, 6)
        };
        assert_eq!(
            tokenize(&query).iter().map(|t| t.units().to_vec()).collect::<Vec<_>>(),
            naive_tokens(&query),
            "tokens of {:?}",
            String::from_utf16_lossy(&query)
        );
        check_rank(&catalog, &text, &entries, &query, js_number(&mut u));
        check_same_ranking(&pooled, &catalog, &query);
        check_walk(&mut u, &catalog, &query, &search);
    }
}

/// The same entries made into a catalog from a [`ToolPool`]: each entry's id
/// and description analysed into a slot (in another order, some slots
/// added first with other text and analysed again, some released and filled
/// again), and the catalog laid out from the kept analyses.
fn pooled_catalog(u: &mut U<'_>, text: &[u16], entries: &[EntrySpans]) -> Catalog {
    let mut pool = ToolPool::new(Ranking::Reference);
    let none = None::<[(&[u16], &[u16]); 0]>;
    let count = entries.len() as u32;
    // Slot of entry `e`: reversed, so slots and entries differ.
    let slot = |e: usize| count - 1 - e as u32;
    let stale: Vec<u16> = units(u, 4);
    // Added in order to an empty pool: slot `s` is the one given `s`th.
    for s in 0..count {
        let given = if flag(u) {
            pool.add(Some(&stale), &stale, none)
        } else {
            let e = (count - 1 - s) as usize;
            pool.add(entries[e].id.map(|id| slice(text, id)), slice(text, entries[e].description), none)
        };
        assert_eq!(given, Ok(s), "a new pool gives its slots in order");
    }
    for (e, entry) in entries.iter().enumerate() {
        let (id, description) = (entry.id.map(|id| slice(text, id)), slice(text, entry.description));
        if flag(u) {
            // Emptied, then filled again: the last emptied slot is the one given.
            pool.release(slot(e)).expect("a slot in use");
            assert_eq!(pool.add(id, description, none), Ok(slot(e)), "the slot just emptied");
        } else {
            pool.analyse(slot(e), id, description, none).expect("a slot in use");
        }
    }
    assert_eq!(pool.len(), entries.len());
    let selection: Vec<PoolEntry<'_>> =
        (0..entries.len()).map(|e| PoolEntry { slot: slot(e), key: Some(slice(text, entries[e].key)) }).collect();
    let pooled = pool.catalog(&selection).expect("a catalog of tools in the pool");
    check_lookups(&pooled, text, entries);
    pooled
}

/// Both catalogs rank `query` alike, bit for bit.
fn check_same_ranking(pooled: &Catalog, catalog: &Catalog, query: &[u16]) {
    let bits =
        |c: &Catalog| c.rank(query, f64::INFINITY).iter().map(|c| (c.doc, c.score.to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(pooled), bits(catalog), "a catalog from the pool ranks as one from the text");
}

/// Every lookup against a linear scan.
fn check_lookups(catalog: &Catalog, text: &[u16], entries: &[EntrySpans]) {
    let key = |e: usize| slice(text, entries[e].key);
    let id = |e: usize| entries[e].id.map(|span| slice(text, span));
    let name = |e: usize| id(e).filter(|id| !id.is_empty()).unwrap_or(key(e));
    let n = entries.len();
    assert_eq!(catalog.entry_count(), n);
    let distinct: HashSet<&[u16]> = (0..n).map(name).collect();
    assert_eq!(catalog.len(), distinct.len(), "one document per distinct name");
    assert_eq!(catalog.is_empty(), distinct.is_empty());

    // Quadratic scans: look closely at the first entries only.
    #[allow(clippy::needless_range_loop)]
    for e in 0..n.min(40) {
        assert_eq!(catalog.key(e), key(e));
        assert_eq!(catalog.id(e), id(e));
        assert_eq!(catalog.name(e), name(e));
        assert_eq!(catalog.description(e), slice(text, entries[e].description));

        let last_key = (0..n).rev().find(|&f| key(f) == key(e));
        assert_eq!(catalog.find_by_key(key(e)), last_key, "find_by_key");
        let first_id = |wanted: &[u16]| (0..n).find(|&f| id(f) == Some(wanted));
        assert_eq!(catalog.find_by_id(key(e)), first_id(key(e)), "find_by_id of a key");
        if let Some(own) = id(e) {
            assert_eq!(catalog.find_by_id(own), first_id(own), "find_by_id");
            assert_eq!(catalog.find_for_dynamic_name(own, true), first_id(own).or(catalog.find_by_key(own)));
        }
        assert_eq!(catalog.find_for_dynamic_name(key(e), false), last_key.or(first_id(key(e))));

        let doc = catalog.find_doc(name(e)).expect("every name has a document");
        assert_eq!(Some(catalog.doc_entry(doc)), (0..n).rev().find(|&f| name(f) == name(e)), "the last entry wins");
        assert_eq!(catalog.doc_name(doc), name(e));
        assert_eq!(catalog.doc_lower_name(doc), &to_lower_utf16(name(e))[..]);
    }

    let probe = if n == 0 { &[][..] } else { key(n / 2) };
    let wanted = to_lower_utf16(probe);
    let expected: Vec<usize> = (0..n)
        .filter(|&e| {
            let lower = to_lower_utf16(key(e));
            contains_units(&lower, &wanted) || contains_units(&wanted, &lower)
        })
        .collect();
    assert_eq!(catalog.suggestion_candidates(probe), expected, "suggestion candidates");
}

/// The ranked candidates are live documents, each once, best first; without
/// a limit they are exactly the documents sharing a token with the query.
fn check_rank(catalog: &Catalog, text: &[u16], entries: &[EntrySpans], query: &[u16], limit: f64) {
    let everything = catalog.rank(query, f64::INFINITY);
    check_candidates(catalog, &everything);
    let terms: HashSet<Vec<u16>> = naive_tokens(query).into_iter().collect();
    let mut expected: Vec<u32> = Vec::new();
    for doc in 0..entries.len() as u32 {
        let name = catalog.name(doc as usize);
        if catalog.find_doc(name) != Some(doc) {
            continue;
        }
        let description = slice(text, entries[doc as usize].description);
        if naive_tokens(name).iter().chain(&naive_tokens(description)).any(|t| terms.contains(t)) {
            expected.push(doc);
        }
    }
    let mut found: Vec<u32> = everything.iter().map(|c| c.doc).collect();
    found.sort_unstable();
    assert_eq!(found, expected, "the documents that share a token with the query");

    let limited = catalog.rank(query, limit);
    check_candidates(catalog, &limited);
    let (_, end) = js_slice_bounds(everything.len(), 0.0, Some(limit));
    assert_eq!(limited.len(), end, "a limit of {limit}");
    let all: HashSet<u32> = found.into_iter().collect();
    assert!(limited.iter().all(|c| all.contains(&c.doc)));
}

pub fn check_candidates(catalog: &Catalog, candidates: &[mastra_native_processors::search::Candidate]) {
    let mut seen = HashSet::new();
    for candidate in candidates {
        assert!(seen.insert(candidate.doc), "document {} ranked twice", candidate.doc);
        assert_eq!(catalog.find_doc(catalog.doc_name(candidate.doc)), Some(candidate.doc), "a retired document");
        assert!(candidate.score >= 0.0, "score {}", candidate.score);
    }
    assert!(candidates.windows(2).all(|w| w[0].score >= w[1].score), "candidates out of order");
    assert!(candidates.len() <= catalog.len());
}

/// The hook's walk with arbitrary verdicts, and `search` with none.
pub fn check_walk(u: &mut U<'_>, catalog: &Catalog, query: &[u16], options: &SearchOptions) {
    let mut walk = SearchWalk::new(catalog, query, options);
    let candidates = walk.candidates().to_vec();
    assert_eq!(candidates, catalog.rank(query, options.bm25_limit(catalog)), "the walk's candidates");
    let mut accepted = Vec::new();
    let mut steps = 0;
    while let Some(pending) = walk.next_pending(catalog) {
        steps += 1;
        assert!(steps <= candidates.len(), "the walk asks about more than its candidates");
        assert_eq!(Some(pending.entry), catalog.find_by_id(catalog.doc_name(pending.doc)), "the tool asked about");
        // `score <= minScore` skips; a NaN minScore skips nothing.
        let skipped = pending.score <= options.min_score;
        assert!(!skipped, "a score of {} passed {}", pending.score, options.min_score);
        assert!(candidates.iter().any(|c| c.doc == pending.doc && c.score == pending.score));
        match int(u, 0, 3) {
            // Never resolved: counts as rejected.
            0 => {}
            1 => walk.resolve(false),
            _ => {
                walk.resolve(true);
                accepted.push(pending.doc);
            }
        }
    }
    assert_eq!(walk.next_pending(catalog), None, "a finished walk stays finished");
    let hits = walk.finish(catalog);
    let (_, end) = js_slice_bounds(accepted.len(), 0.0, Some(options.top_k));
    assert_eq!(
        hits.iter().map(|h| h.doc).collect::<Vec<_>>(),
        accepted[..end],
        "the hits are the accepted, cut to topK"
    );
    for hit in &hits {
        assert_eq!(hit.name.units(), catalog.doc_name(hit.doc));
        let description = catalog.description(catalog.doc_entry(hit.doc));
        assert_eq!(hit.description, truncate_description(description));
        assert!(hit.description.len() <= 150);
        let score = candidates.iter().find(|c| c.doc == hit.doc).map(|c| round_score(c.score));
        assert_eq!(score.map(f64::to_bits), Some(hit.score.to_bits()), "the hit's score");
    }

    let all_allowed = catalog.search(query, options);
    let mut walk = SearchWalk::new(catalog, query, options);
    while walk.next_pending(catalog).is_some() {
        walk.resolve(true);
    }
    assert_eq!(all_allowed, walk.finish(catalog), "search is the walk with every tool allowed");
}
