//! Retrieval quality of the core's rankings on a tool-retrieval data file, and
//! what each piece of the `'fielded'` ranking buys (an ablation).
//!
//!   cargo run --release --example rank_eval -- [data.json] [key=value ...]
//!
//! The data is `{ source, tools: { name: { description, parameters: { name:
//! description } } }, cases: [{ id, query, relevant }] }` (by default
//! data/tool-retrieval-dev.json in this repository). Every tool goes into one catalog
//! as the JavaScript side would send it (name, description, parameter names and
//! descriptions), each query is searched whole with topK 5, and hit@1, hit@5
//! and MRR@5 are printed for the non-live and the live questions apart: for
//! the reference ranking, `'fielded'` and `'hybrid'` (with the model package's
//! file, or `MODEL=<file>`), `'hybrid'` with other fusion weights, `'fielded'`
//! without each of its techniques, and `'fielded'` built up one technique at
//! a time.
//!
//! `key=value` arguments print one row instead, for `'fielded'` with changed
//! settings (keys: k1, w.name, w.desc, w.pname, w.pdesc, b.name, b.desc,
//! b.pname, b.pdesc, idf_cap, stem_weight, prefix_weight, compound_weight,
//! prefix_len, stem, keep_unstemmed, split_case, keep_whole, stopwords,
//! filler, filler.docs, join_words, whole_meets_word, cjk), or for
//! `'hybrid'` when one of them is semantic_weight or semantic_floor. Environment:
//! `SHOW_MISSES=1` lists the questions whose first result is not relevant
//! (`=live` or `=tidy`: that half's questions with no relevant result in the
//! first five),
//! `QUERY=...` prints one query's results, `SCALE=n` copies the catalog
//! (names suffixed) up to n tools to time queries on a large catalog, `HOOK=1`
//! ranks as with a filter hook (every candidate ranked; all allowed).

use std::time::Instant;

use mastra_native_processors::search::{
    AnalyzerConfig, BuiltinModel, Catalog, FieldedConfig, HybridConfig, Ranking, SearchOptions,
};

/// (name, description, [(parameter, description)])
type Tool = (String, String, Vec<(String, String)>);

struct Data {
    tools: Vec<Tool>,
    /// (query, relevant tools, whether it is a live case: a question real users sent)
    cases: Vec<(String, Vec<String>, bool)>,
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
            let live = c["id"].as_str().unwrap_or("").starts_with("live_");
            (c["query"].as_str().unwrap().to_owned(), relevant, live)
        })
        .collect();
    Data { tools, cases, source: json["source"].as_str().unwrap_or("").to_owned() }
}

fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// hit@1, hit@5 and MRR@5 over a set of cases.
#[derive(Default)]
struct Quality {
    cases: usize,
    hit1: usize,
    hit5: usize,
    reciprocal: f64,
}

impl Quality {
    fn add(&mut self, rank: Option<usize>) {
        self.cases += 1;
        if let Some(rank) = rank {
            self.hit5 += 1;
            self.hit1 += usize::from(rank == 0);
            self.reciprocal += 1.0 / (rank + 1) as f64;
        }
    }

    fn show(&self) -> String {
        let n = self.cases.max(1) as f64;
        format!(
            "{:>5.1}%  {:>5.1}%  {:>6.3}",
            self.hit1 as f64 * 100.0 / n,
            self.hit5 as f64 * 100.0 / n,
            self.reciprocal / n
        )
    }
}

struct Score {
    /// The non-live cases and the live ones.
    tidy: Quality,
    live: Quality,
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
    let (mut tidy, mut live) = (Quality::default(), Quality::default());
    let started = Instant::now();
    for (query, relevant, is_live) in &data.cases {
        let hits = catalog.search(&u(query), &options);
        let rank = hits.iter().take(5).position(|h| relevant.iter().any(|r| h.name.to_string_lossy() == *r));
        // SHOW_MISSES=1: every case whose first result is not relevant; =live or =tidy:
        // that half's cases with no relevant result in the first five.
        let show = match std::env::var("SHOW_MISSES").as_deref() {
            Ok("live") => *is_live && rank.is_none(),
            Ok("tidy") => !*is_live && rank.is_none(),
            Ok(_) => rank != Some(0),
            Err(_) => false,
        };
        if show {
            let got: Vec<String> =
                hits.iter().map(|h| format!("{}({:.2})", h.name.to_string_lossy(), h.score)).collect();
            println!("MISS rank={rank:?}\n  q: {query}\n  want: {relevant:?}\n  got: {}", got.join(", "));
        }
        if *is_live { &mut live } else { &mut tidy }.add(rank);
    }
    let n = data.cases.len() as f64;
    Score { tidy, live, query_us: started.elapsed().as_secs_f64() * 1e6 / n, build_ms }
}

/// Changes the analysis of tools' texts and of queries alike.
fn both(config: &mut FieldedConfig, change: &dyn Fn(&mut AnalyzerConfig)) {
    change(&mut config.analyzer);
    change(&mut config.query_analyzer);
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
        "stem" => both(config, &|a| a.stem = b()),
        "split_case" => both(config, &|a| a.split_case = b()),
        "keep_whole" => both(config, &|a| a.keep_whole = b()),
        "cjk" => both(config, &|a| a.cjk_ngrams = b()),
        "stopwords" => both(config, &|a| a.stopwords = b()),
        "filler" => both(config, &|a| a.filler = b()),
        "filler.docs" => config.analyzer.filler = b(),
        "join_words" => config.query_analyzer.join_words = b(),
        "whole_meets_word" => config.whole_meets_word = b(),
        "compound_weight" => config.compound_weight = f(),
        "prefix_len" => both(config, &|a| a.prefix_len = value.parse().expect("number")),
        "prefix_weight" => config.prefix_weight = f(),
        "keep_unstemmed" => both(config, &|a| a.keep_unstemmed = b()),
        "stem_weight" => config.stem_weight = f(),
        _ => panic!("unknown key {key}"),
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let path = if args.first().is_some_and(|a| !a.contains('=')) {
        args.remove(0)
    } else {
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/tool-retrieval-dev.json").to_owned()
    };
    let mut data = load(&path);
    // The built-in model, as the model package ships it (MODEL=<file> for another).
    let model = std::env::var("MODEL").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/models/potion-base-2m/potion-base-2m.m2v").to_owned()
    });
    BuiltinModel::locate(std::path::Path::new(&model));
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
    let counts = |live: bool| data.cases.iter().filter(|c| c.2 == live).count();
    println!("{:<58}  {:^24}  {:^24}", "", format!("non-live ({})", counts(false)), format!("live ({})", counts(true)));
    println!(
        "{:<58}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}  {:>8}  {:>8}",
        "ranking", "hit@1", "hit@5", "MRR@5", "hit@1", "hit@5", "MRR@5", "µs/query", "build ms"
    );
    let row = |label: &str, ranking: Ranking, with_parameters: bool| {
        let s = evaluate(&data, ranking, with_parameters);
        println!("{label:<58}  {}  {}  {:>8.1}  {:>8.1}", s.tidy.show(), s.live.show(), s.query_us, s.build_ms);
    };
    if !args.is_empty() {
        let mut config = FieldedConfig::DEFAULT;
        let mut hybrid = None;
        for arg in &args {
            let (key, value) = arg.split_once('=').expect("key=value");
            let number = || value.parse::<f32>().expect("number");
            match key {
                "semantic_weight" => hybrid.get_or_insert(HybridConfig::DEFAULT).semantic_weight = number(),
                "semantic_floor" => hybrid.get_or_insert(HybridConfig::DEFAULT).semantic_floor = number(),
                _ => apply(&mut config, key, value),
            }
        }
        let ranking = match hybrid {
            Some(hybrid) => Ranking::Hybrid(HybridConfig { fielded: config, ..hybrid }),
            None => Ranking::Fielded(config),
        };
        row(&args.join(" "), ranking, true);
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
    row("hybrid (built-in model)", Ranking::HYBRID, true);

    println!("\nhybrid: what a similarity of 1 adds (semantic_weight), and the floor for a tool sharing no term");
    for weight in [4.0, 8.0, 10.0, 12.0, 14.0, 16.0, 20.0] {
        let config = HybridConfig { semantic_weight: weight, ..HybridConfig::DEFAULT };
        row(&format!("  weight {weight}, floor {}", config.semantic_floor), Ranking::Hybrid(config), true);
    }
    for floor in [0.0, 0.3, 0.5] {
        let config = HybridConfig { semantic_floor: floor, ..HybridConfig::DEFAULT };
        row(&format!("  weight {}, floor {floor}", config.semantic_weight), Ranking::Hybrid(config), true);
    }

    println!("\nfielded without one technique");
    let without = |change: &dyn Fn(&mut AnalyzerConfig)| with(&|c| both(c, change));
    row("  no parameter fields (name and description only)", Ranking::Fielded(full), false);
    row("  no field weights (all 1, b 0.75)", with(&|c| (c.weights, c.b) = ([1.0; 4], [0.75; 4])), true);
    row("  no case/digit splitting of identifiers", without(&|a| a.split_case = false), true);
    row("  no whole identifiers", without(&|a| a.keep_whole = false), true);
    row("  no stop words", without(&|a| a.stopwords = false), true);
    row("  no conversational filler words", without(&|a| a.filler = false), true);
    row("  filler dropped from queries only", with(&|c| c.analyzer.filler = false), true);
    row("  no joined query compounds", with(&|c| c.query_analyzer.join_words = false), true);
    row("  wholes and words never meet", with(&|c| c.whole_meets_word = false), true);
    row("  no stems", without(&|a| a.stem = false), true);
    row("  stems instead of words (no unstemmed terms)", without(&|a| a.keep_unstemmed = false), true);
    row("  no prefixes", without(&|a| a.prefix_len = 0), true);
    row("  no IDF cap", with(&|c| c.idf_cap = 1.0), true);
    row("  no CJK n-grams", without(&|a| a.cjk_ngrams = false), true);

    println!("\nfielded built up one technique at a time");
    let mut config = FieldedConfig {
        analyzer: AnalyzerConfig::NONE,
        query_analyzer: AnalyzerConfig::NONE,
        whole_meets_word: false,
        weights: [1.0; 4],
        b: [0.75; 4],
        idf_cap: 1.0,
        ..full
    };
    row("  BM25 (k1 1.2) over name and description", Ranking::Fielded(config), false);
    row("  + parameter names and descriptions", Ranking::Fielded(config), true);
    (config.weights, config.b) = (full.weights, full.b);
    row("  + field weights", Ranking::Fielded(config), true);
    both(&mut config, &|a| (a.split_case, a.keep_whole) = (true, true));
    row("  + identifier splitting, whole identifiers kept", Ranking::Fielded(config), true);
    both(&mut config, &|a| a.stopwords = true);
    row("  + stop words", Ranking::Fielded(config), true);
    both(&mut config, &|a| (a.stem, a.keep_unstemmed) = (true, true));
    row("  + stems (at half weight)", Ranking::Fielded(config), true);
    both(&mut config, &|a| a.prefix_len = full.analyzer.prefix_len);
    row("  + 5-letter prefixes (at half weight)", Ranking::Fielded(config), true);
    config.idf_cap = full.idf_cap;
    row("  + IDF cap", Ranking::Fielded(config), true);
    both(&mut config, &|a| a.cjk_ngrams = true);
    row("  + CJK n-grams", Ranking::Fielded(config), true);
    both(&mut config, &|a| a.filler = true);
    row("  + conversational filler words", Ranking::Fielded(config), true);
    config.query_analyzer.join_words = true;
    config.whole_meets_word = true;
    row("  + joined compounds, wholes meet words (= fielded)", Ranking::Fielded(config), true);
    assert_eq!(config, full);
}
