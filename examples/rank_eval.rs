//! Retrieval quality of the core's rankings on a tool-retrieval data file, and
//! what each piece of the `'fielded'` ranking buys (an ablation).
//!
//!   cargo run --release --example rank_eval -- [data.json] [key=value ...]
//!
//! The data is `{ source, tools: { name: { description, parameters: { name:
//! description } } }, cases: [{ id, query, relevant }] }` (by default
//! /work/shared/data/tool-retrieval-dev.json). Every tool goes into one catalog
//! as the JavaScript side would send it (name, description, parameter names and
//! descriptions), each query is searched whole with topK 5, and hit@1, hit@5
//! and MRR@5 are printed: for the reference ranking, for `'fielded'`, for
//! `'fielded'` without each of its techniques, and for `'fielded'` built up
//! one technique at a time.
//!
//! `key=value` arguments print one row instead, for `'fielded'` with changed
//! settings (keys: k1, w.name, w.desc, w.pname, w.pdesc, b.name, b.desc,
//! b.pname, b.pdesc, idf_cap, stem_weight, prefix_weight, prefix_len, stem,
//! keep_unstemmed, split_case, keep_whole, stopwords, cjk). Environment:
//! `SHOW_MISSES=1` lists the questions whose first result is not relevant,
//! `QUERY=...` prints one query's results, `SCALE=n` copies the catalog
//! (names suffixed) up to n tools to time queries on a large catalog, `HOOK=1`
//! ranks as with a filter hook (every candidate ranked; all allowed).

use std::time::Instant;

use mastra_native_processors::search::{AnalyzerConfig, Catalog, FieldedConfig, Ranking, SearchOptions};

/// (name, description, [(parameter, description)])
type Tool = (String, String, Vec<(String, String)>);

struct Data {
    tools: Vec<Tool>,
    cases: Vec<(String, Vec<String>)>,
    source: String,
}

fn load(path: &str) -> Data {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read data")).expect("json");
    let tools = json["tools"]
        .as_object()
        .expect("tools")
        .iter()
        .map(|(name, tool)| {
            let description = tool["description"].as_str().unwrap_or("").to_owned();
            let params = tool["parameters"]
                .as_object()
                .map(|p| p.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned())).collect())
                .unwrap_or_default();
            (name.clone(), description, params)
        })
        .collect();
    let cases = json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let relevant = c["relevant"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()).collect();
            (c["query"].as_str().unwrap().to_owned(), relevant)
        })
        .collect();
    Data { tools, cases, source: json["source"].as_str().unwrap_or("").to_owned() }
}

fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

struct Score {
    hit1: f64,
    hit5: f64,
    mrr5: f64,
    query_us: f64,
    build_ms: f64,
}

fn evaluate(data: &Data, ranking: Ranking, with_parameters: bool) -> Score {
    let mut builder = Catalog::builder();
    builder.ranking(ranking);
    for (name, description, params) in &data.tools {
        let params: Vec<(Vec<u16>, Vec<u16>)> =
            params.iter().filter(|_| with_parameters).map(|(n, d)| (u(n), u(d))).collect();
        builder.push_with_parameters(
            &u(name),
            Some(&u(name)),
            &u(description),
            params.iter().map(|(n, d)| (&n[..], &d[..])),
        );
    }
    // HOOK=1: rank as with a filter hook (every candidate, then the walk; all allowed).
    let options = SearchOptions { has_filter: std::env::var_os("HOOK").is_some(), ..SearchOptions::default() };
    let build_started = Instant::now();
    let catalog = builder.build().expect("catalog");
    // The first search waits for the index; time queries only.
    catalog.search(&[], &options);
    let build_ms = build_started.elapsed().as_secs_f64() * 1e3;
    if let Ok(query) = std::env::var("QUERY") {
        let hits = catalog.search(&u(&query), &options);
        let got: Vec<String> = hits.iter().map(|h| format!("{}({:.2})", h.name.to_string_lossy(), h.score)).collect();
        println!("{query}: {}", got.join(", "));
    }
    let (mut hit1, mut hit5, mut mrr) = (0usize, 0usize, 0f64);
    let started = Instant::now();
    for (query, relevant) in &data.cases {
        let hits = catalog.search(&u(query), &options);
        let rank = hits.iter().take(5).position(|h| relevant.iter().any(|r| h.name.to_string_lossy() == *r));
        if std::env::var_os("SHOW_MISSES").is_some() && rank != Some(0) {
            let got: Vec<String> =
                hits.iter().map(|h| format!("{}({:.2})", h.name.to_string_lossy(), h.score)).collect();
            println!("MISS rank={rank:?}\n  q: {query}\n  want: {relevant:?}\n  got: {}", got.join(", "));
        }
        if let Some(rank) = rank {
            hit5 += 1;
            hit1 += usize::from(rank == 0);
            mrr += 1.0 / (rank + 1) as f64;
        }
    }
    let n = data.cases.len() as f64;
    Score {
        hit1: hit1 as f64 / n,
        hit5: hit5 as f64 / n,
        mrr5: mrr / n,
        query_us: started.elapsed().as_secs_f64() * 1e6 / n,
        build_ms,
    }
}

fn apply(config: &mut FieldedConfig, key: &str, value: &str) {
    let f = || value.parse::<f64>().expect("number");
    let b = || value == "1" || value == "true";
    match key {
        "k1" => config.k1 = f(),
        "w.name" => config.weights[0] = f(),
        "w.desc" => config.weights[1] = f(),
        "w.pname" => config.weights[2] = f(),
        "w.pdesc" => config.weights[3] = f(),
        "b.name" => config.b[0] = f(),
        "b.desc" => config.b[1] = f(),
        "b.pname" => config.b[2] = f(),
        "b.pdesc" => config.b[3] = f(),
        "idf_cap" => config.idf_cap = f(),
        "stem" => config.analyzer.stem = b(),
        "split_case" => config.analyzer.split_case = b(),
        "keep_whole" => config.analyzer.keep_whole = b(),
        "cjk" => config.analyzer.cjk_ngrams = b(),
        "stopwords" => config.analyzer.stopwords = b(),
        "prefix_len" => config.analyzer.prefix_len = value.parse().expect("number"),
        "prefix_weight" => config.prefix_weight = f(),
        "keep_unstemmed" => config.analyzer.keep_unstemmed = b(),
        "stem_weight" => config.stem_weight = f(),
        _ => panic!("unknown key {key}"),
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let path = if args.first().is_some_and(|a| !a.contains('=')) {
        args.remove(0)
    } else {
        "/work/shared/data/tool-retrieval-dev.json".to_owned()
    };
    let mut data = load(&path);
    // SCALE=n: the catalog copied (names suffixed) until it has n tools, to time queries on a large catalog.
    if let Some(scale) = std::env::var("SCALE").ok().and_then(|s| s.parse::<usize>().ok()) {
        let original = data.tools.clone();
        let mut copy = 1;
        while data.tools.len() < scale {
            for (name, description, params) in &original {
                if data.tools.len() >= scale {
                    break;
                }
                data.tools.push((format!("{name}_v{copy}"), description.clone(), params.clone()));
            }
            copy += 1;
        }
    }
    println!(
        "data: {path}\nsource: {}\n{} tools, {} questions, topK 5\n",
        data.source,
        data.tools.len(),
        data.cases.len()
    );
    println!("{:<58}  {:>6}  {:>6}  {:>6}  {:>8}  {:>8}", "ranking", "hit@1", "hit@5", "MRR@5", "µs/query", "build ms");
    let row = |label: &str, ranking: Ranking, with_parameters: bool| {
        let s = evaluate(&data, ranking, with_parameters);
        println!(
            "{label:<58}  {:>5.1}%  {:>5.1}%  {:>6.3}  {:>8.1}  {:>8.1}",
            s.hit1 * 100.0,
            s.hit5 * 100.0,
            s.mrr5,
            s.query_us,
            s.build_ms
        );
    };
    if !args.is_empty() {
        let mut config = FieldedConfig::DEFAULT;
        for arg in &args {
            let (key, value) = arg.split_once('=').expect("key=value");
            apply(&mut config, key, value);
        }
        row(&args.join(" "), Ranking::Fielded(config), true);
        return;
    }
    let full = FieldedConfig::DEFAULT;
    let with = |change: &dyn Fn(&mut FieldedConfig)| {
        let mut config = full;
        change(&mut config);
        Ranking::Fielded(config)
    };
    row("reference (the core's, as @mastra/core)", Ranking::Reference, true);
    row("fielded", Ranking::Fielded(full), true);

    println!("\nfielded without one technique");
    row("  no parameter fields (name and description only)", Ranking::Fielded(full), false);
    row("  no field weights (all 1, b 0.75)", with(&|c| (c.weights, c.b) = ([1.0; 4], [0.75; 4])), true);
    row("  no case/digit splitting of identifiers", with(&|c| c.analyzer.split_case = false), true);
    row("  no whole identifiers", with(&|c| c.analyzer.keep_whole = false), true);
    row("  no stop words", with(&|c| c.analyzer.stopwords = false), true);
    row("  no stems", with(&|c| c.analyzer.stem = false), true);
    row("  stems instead of words (no unstemmed terms)", with(&|c| c.analyzer.keep_unstemmed = false), true);
    row("  no prefixes", with(&|c| c.analyzer.prefix_len = 0), true);
    row("  no IDF cap", with(&|c| c.idf_cap = 1.0), true);
    row("  no CJK n-grams", with(&|c| c.analyzer.cjk_ngrams = false), true);

    println!("\nfielded built up one technique at a time");
    let mut config =
        FieldedConfig { analyzer: AnalyzerConfig::NONE, weights: [1.0; 4], b: [0.75; 4], idf_cap: 1.0, ..full };
    row("  BM25 (k1 1.2) over name and description", Ranking::Fielded(config), false);
    row("  + parameter names and descriptions", Ranking::Fielded(config), true);
    (config.weights, config.b) = (full.weights, full.b);
    row("  + field weights", Ranking::Fielded(config), true);
    (config.analyzer.split_case, config.analyzer.keep_whole) = (true, true);
    row("  + identifier splitting, whole identifiers kept", Ranking::Fielded(config), true);
    config.analyzer.stopwords = true;
    row("  + stop words", Ranking::Fielded(config), true);
    (config.analyzer.stem, config.analyzer.keep_unstemmed) = (true, true);
    row("  + stems (at half weight)", Ranking::Fielded(config), true);
    config.analyzer.prefix_len = full.analyzer.prefix_len;
    row("  + 5-letter prefixes (at half weight)", Ranking::Fielded(config), true);
    config.idf_cap = full.idf_cap;
    row("  + IDF cap", Ranking::Fielded(config), true);
    config.analyzer.cjk_ngrams = true;
    row("  + CJK n-grams (= fielded)", Ranking::Fielded(config), true);
    assert_eq!(config, full);
}
