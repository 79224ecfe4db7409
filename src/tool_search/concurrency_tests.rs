//! `filterConcurrency`: every operation, driven through the batch exchange
//! with the host answering its questions in a scrambled order, decides as
//! it does one question at a time.

use std::sync::Arc;

use super::operation::Operation;
use super::*;
use crate::protocol::tool_search::operation as code;
use crate::search::{Ranking, SearchOptions};
use crate::test_rng::Rng;

const WORDS: &[&str] = &["weather", "email", "issue", "create", "send", "get", "city", "list", "file", "query"];

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn pick<'a>(rng: &mut Rng, list: &[&'a str]) -> &'a str {
    list[(rng.next() % list.len() as u64) as usize]
}

/// `count` tools with ids made of the words (some repeated, some keyed
/// apart from their id), and descriptions of a few words each.
fn tools(rng: &mut Rng, count: usize) -> Vec<Tool> {
    (0..count)
        .map(|i| {
            let id = format!("{}_{}", pick(rng, WORDS), rng.next() % (count as u64));
            let key = if rng.next().is_multiple_of(5) { format!("key{i}") } else { id.clone() };
            let description: Vec<&str> = (0..1 + rng.next() % 5).map(|_| pick(rng, WORDS)).collect();
            (units(&key), Some(units(&id)), units(&description.join(" ")))
        })
        .collect()
}

type Tool = (Vec<u16>, Option<Vec<u16>>, Vec<u16>);

fn entries(tools: &[Tool]) -> Vec<ToolEntry<'_>> {
    tools.iter().map(|(key, id, description)| ToolEntry { key, id: id.as_deref(), description }).collect()
}

/// The host's hook, per tool: allowed, denied, or failed (thrown).
fn verdicts(rng: &mut Rng, count: usize) -> Vec<i32> {
    (0..count + 8)
        .map(|_| [code::ALLOWED, code::ALLOWED, code::DENIED, code::FAILED][(rng.next() % 4) as usize])
        .collect()
}

/// The host's answer to a question, over a record still as the tables say:
/// a name they miss resolves to nothing.
fn answer(question: i32, verdicts: &[i32]) -> i32 {
    if question == code::NEED_KEYS {
        return code::NO_VERDICT;
    }
    let kind = question & ((1 << code::ask::KIND_BITS) - 1);
    let tool = (question >> code::ask::KIND_BITS) as usize;
    if kind != code::ask::TOOL && kind & ((1 << code::ask::FOUND_BITS) - 1) == code::ask::MISSING {
        return code::DENIED;
    }
    verdicts[tool]
}

/// Runs `operation` to its end: one question at a time through `resume`
/// (`scramble` is `None`), or through `exchange`, handing out a random
/// number of questions a call and answering a random few of those out, in
/// a random order. The questions asked go to `asked`.
fn drive<T>(mut operation: Operation<T>, scramble: Option<&mut Rng>, verdicts: &[i32], asked: &mut Vec<i32>) -> T {
    let Some(rng) = scramble else {
        let mut given = code::NO_VERDICT;
        loop {
            let question = operation.resume(given).unwrap();
            if question == code::DONE {
                return operation.take_outcome().unwrap();
            }
            asked.push(question);
            given = answer(question, verdicts);
        }
    };
    let mut out: Vec<(i32, i32)> = Vec::new();
    let mut given = Vec::new();
    loop {
        let room = 1 + (rng.next() % 5) as usize;
        let Some(questions) = operation.exchange(given.drain(..), room).unwrap() else {
            return operation.take_outcome().unwrap();
        };
        asked.extend(questions.iter().map(|&(_, question)| question));
        out.extend(questions);
        assert!(!out.is_empty(), "the operation waits on nothing");
        // Sometimes only more questions; else a few answers, in any order.
        if out.len() < room && rng.next().is_multiple_of(3) {
            continue;
        }
        for _ in 0..1 + rng.next() % out.len() as u64 {
            if out.is_empty() {
                break;
            }
            let (ticket, question) = out.swap_remove((rng.next() % out.len() as u64) as usize);
            given.push((ticket, answer(question, verdicts)));
        }
    }
}

/// What one run of operations ends with, and the questions each asked.
#[derive(Debug, PartialEq)]
struct Run {
    searches: Vec<SearchOutcome>,
    loads: Vec<LoadOutcome>,
    active: Vec<(JsString, ToolRef)>,
    catalog: Option<JsString>,
    asked: Vec<Vec<i32>>,
}

fn options(rng: &mut Rng, concurrency: u32, include_resolved_tools: bool) -> ToolSearchOptions {
    ToolSearchOptions {
        search: SearchOptions { top_k: (1 + rng.next() % 6) as f64, min_score: 0.0, has_filter: true },
        auto_load: rng.next().is_multiple_of(3),
        include_resolved_tools,
        storage: Storage::InMemory,
        ttl_ms: 0.0,
        inject_catalog: true,
        ranking: Ranking::Reference,
        syntax: if rng.next().is_multiple_of(2) { Syntax::Words } else { Syntax::Regex },
        filter_concurrency: concurrency,
    }
}

/// Searches, loads, the loaded tools and the injected catalog, each an
/// operation driven as `drive` says, over one processor (`seed` makes the
/// same tools, options and inputs for every concurrency).
fn run(seed: u64, concurrency: u32, scramble: Option<&mut Rng>) -> Run {
    let mut rng = Rng::new(seed);
    let include_resolved = rng.next().is_multiple_of(2);
    let options = options(&mut rng, concurrency, include_resolved);
    let count = 20 + (rng.next() % 40) as usize;
    let all = tools(&mut rng, count);
    let verdicts = verdicts(&mut rng, count);
    let split = count / 2;
    let search = Arc::new(ToolSearch::new(options, &entries(&all[..split])).unwrap());
    // With resolved tools, the step's catalog is its own record (no live lookups).
    let catalog = Arc::new(search.step_catalog(&entries(&all[..split]), &entries(&all[split..])).unwrap());
    let queries = match options.syntax {
        Syntax::Words => ["weather email", "create issue list", "get file query city", "send"],
        Syntax::Regex => ["weather|email", "^(create|list)", "e", "(a+)+$"],
    };
    let loads: Vec<Vec<JsString>> = vec![
        vec![JsString::from(&all[1].0[..])],
        vec![JsString::from("weath")],
        all.iter().step_by(3).map(|tool| JsString::from(&tool.0[..])).chain([JsString::from("nope")]).collect(),
    ];
    let mut scramble = scramble;
    let mut asked = Vec::new();
    let step =
        || Step::new(catalog.clone(), Some(JsString::from("t")), search.loaded_names(Some(&units("t")), None, 0.0));
    let mut searches = Vec::new();
    for query in queries {
        let (search, step, query) = (search.clone(), step(), JsString::from(query));
        let operation = Operation::start(Phase::Search, concurrency as usize, move |relay| async move {
            search.search(&step, query.units(), &relay, 0.0).await
        });
        let mut questions = Vec::new();
        searches.push(drive(operation, scramble.as_deref_mut(), &verdicts, &mut questions));
        asked.push(questions);
    }
    let mut load_outcomes = Vec::new();
    for names in loads {
        let (search, step) = (search.clone(), step());
        let operation = Operation::start(Phase::Load, concurrency as usize, move |relay| async move {
            match &names[..] {
                [one] => search.load(&step, Some(one.units()), None, &relay, 0.0).await,
                many => search.load(&step, None, Some(many), &relay, 0.0).await,
            }
        });
        let mut questions = Vec::new();
        load_outcomes.push(drive(operation, scramble.as_deref_mut(), &verdicts, &mut questions));
        asked.push(questions);
    }
    let active_step = step();
    let names = active_step.loaded.lock().clone();
    let searcher = search.clone();
    let active_catalog = active_step.catalog.clone();
    let operation = Operation::start(Phase::Active, concurrency as usize, move |relay| async move {
        searcher.active_tools(&active_catalog, &names, &relay).await
    });
    let mut questions = Vec::new();
    let active = drive(operation, scramble.as_deref_mut(), &verdicts, &mut questions);
    asked.push(questions);
    let searcher = search.clone();
    let operation = Operation::start(Phase::Search, concurrency as usize, move |relay| async move {
        searcher.catalog_message(&catalog, None, &relay).await
    });
    let mut questions = Vec::new();
    let catalog = drive(operation, scramble, &verdicts, &mut questions);
    asked.push(questions);
    Run { searches, loads: load_outcomes, active, catalog, asked }
}

#[test]
fn every_operation_decides_as_one_question_at_a_time_whatever_the_order_of_the_answers() {
    let (mut asked_ahead, mut questions) = (0, 0);
    for seed in 1..=60 {
        let one_at_a_time = run(seed, 1, None);
        assert!(one_at_a_time.asked.iter().any(|asked| !asked.is_empty()), "seed {seed}: the hook was asked");
        for concurrency in [1, 2, 3, 8, 64, u32::MAX] {
            let mut scramble = Rng::new(seed * 1000 + u64::from(concurrency.min(1000)));
            let ahead = run(seed, concurrency, Some(&mut scramble));
            let label = format!("seed {seed}, concurrency {concurrency}");
            assert_eq!(ahead.searches, one_at_a_time.searches, "{label}");
            assert_eq!(ahead.loads, one_at_a_time.loads, "{label}");
            assert_eq!((&ahead.active, &ahead.catalog), (&one_at_a_time.active, &one_at_a_time.catalog), "{label}");
            for (i, (asked, once)) in ahead.asked.iter().zip(&one_at_a_time.asked).enumerate() {
                // Everything one at a time asks is asked, in the same order
                // of tickets; a walk that stops early may ask ahead of it,
                // by at most concurrency - 1 questions per stop.
                assert_eq!(&asked[..once.len()], &once[..], "{label}, operation {i}");
                let stops = if i < 4 { 1 } else { 2 };
                let ahead_by = (concurrency as usize - 1).saturating_mul(stops);
                assert!(
                    asked.len() <= once.len() + ahead_by,
                    "{label}, operation {i}: {} for {}",
                    asked.len(),
                    once.len()
                );
                asked_ahead += asked.len() - once.len();
                questions += once.len();
            }
        }
    }
    // The cases ask the hook, and some searches stop before their list ends.
    assert!(questions > 10_000 && asked_ahead > 100, "{questions} questions, {asked_ahead} asked ahead");
}

#[test]
fn one_at_a_time_through_the_exchange_asks_exactly_what_resume_asks() {
    for seed in 1..=20 {
        let once = run(seed, 1, None);
        let mut scramble = Rng::new(seed);
        assert_eq!(run(seed, 1, Some(&mut scramble)), once, "seed {seed}");
    }
}
