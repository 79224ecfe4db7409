use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use super::*;
use crate::search::{Ranking, SearchOptions, Slot};

/// Runs a future that never waits (every hook here answers at once).
fn ready<T>(future: impl Future<Output = T>) -> T {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("future waited"),
    }
}

fn js(s: &str) -> JsString {
    JsString::from(s)
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// A hook that records its calls and denies the tools listed.
struct Recorder {
    denied: Vec<ToolRef>,
    failing: Vec<ToolRef>,
    calls: RefCell<Vec<(ToolRef, Phase)>>,
}

impl Recorder {
    fn denying(denied: &[ToolRef]) -> Recorder {
        Recorder { denied: denied.to_vec(), failing: Vec::new(), calls: RefCell::default() }
    }
}

impl ToolFilter for Recorder {
    /// A hook over a record that is still what the tables say: a tool they
    /// do not find is not there, and the hook is not asked about it.
    fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer> {
        let tool = match ask {
            Ask::Tool(tool) => Some(tool),
            Ask::Resolve { found, .. } => found.tool(),
        };
        let Some(tool) = tool else { return std::future::ready(Answer::DENIED) };
        self.calls.borrow_mut().push((tool, phase));
        std::future::ready(Answer::verdict(if self.failing.contains(&tool) {
            Verdict::Failed
        } else if self.denied.contains(&tool) {
            Verdict::Denied
        } else {
            Verdict::Allowed
        }))
    }
}

/// A host over a record that changed since construction: it records every
/// question; the tools the tables found are still there unless `gone`, names
/// they miss resolve through `record` (name -> tool), and the hook allows
/// every tool but those in `denied`.
struct ChangedRecord {
    record: Vec<(&'static str, ToolRef)>,
    gone: Vec<ToolRef>,
    denied: Vec<ToolRef>,
    asked: RefCell<Vec<(Ask, Phase)>>,
    /// The record's keys now, for the suggestions.
    keys: Option<LiveKeys>,
    /// The names given for tools allowed (see `ToolFilter::take_name`).
    renamed: Vec<(ToolRef, Option<&'static str>)>,
    name: RefCell<Option<Option<JsString>>>,
}

impl ChangedRecord {
    fn new(record: &[(&'static str, ToolRef)]) -> ChangedRecord {
        ChangedRecord {
            record: record.to_vec(),
            gone: Vec::new(),
            denied: Vec::new(),
            asked: RefCell::default(),
            keys: None,
            renamed: Vec::new(),
            name: RefCell::default(),
        }
    }
}

impl ToolFilter for ChangedRecord {
    fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer> {
        self.asked.borrow_mut().push((ask.clone(), phase));
        let answer = match ask {
            Ask::Tool(tool) if self.denied.contains(&tool) => Answer::DENIED,
            Ask::Tool(_) => Answer::ALLOWED,
            Ask::Resolve { found: Found::Missing(name), .. } => {
                match self.record.iter().find(|(n, _)| *n == name.to_string_lossy()) {
                    Some(&(_, tool)) if !self.denied.contains(&tool) => {
                        Answer { verdict: Verdict::Allowed, tool: Some(tool) }
                    }
                    _ => Answer::DENIED,
                }
            }
            Ask::Resolve { found, .. } => match found.tool() {
                Some(tool) if !self.gone.contains(&tool) && !self.denied.contains(&tool) => {
                    let renamed = self.renamed.iter().find(|(renamed, _)| *renamed == tool);
                    *self.name.borrow_mut() = renamed.map(|(_, name)| name.map(JsString::from));
                    Answer::ALLOWED
                }
                _ => Answer::DENIED,
            },
        };
        std::future::ready(answer)
    }

    fn live_keys(&self) -> impl Future<Output = Option<LiveKeys>> {
        std::future::ready(self.keys.clone())
    }

    fn take_name(&self) -> Option<Option<JsString>> {
        self.name.borrow_mut().take()
    }
}

fn options(has_filter: bool) -> ToolSearchOptions {
    ToolSearchOptions {
        search: SearchOptions { top_k: 5.0, min_score: 0.0, has_filter },
        auto_load: false,
        include_resolved_tools: false,
        storage: Storage::InMemory,
        ttl_ms: 3_600_000.0,
        inject_catalog: false,
        ranking: Ranking::Reference,
        syntax: Syntax::Words,
        filter_concurrency: 1,
    }
}

/// A tool's key, id and description as UTF-16.
type OwnedEntry = (Vec<u16>, Option<Vec<u16>>, Vec<u16>);

struct Tools(Vec<OwnedEntry>);

impl Tools {
    fn new(tools: &[(&str, Option<&str>, &str)]) -> Tools {
        Tools(tools.iter().map(|(k, id, d)| (units(k), id.map(units), units(d))).collect())
    }

    fn entries(&self) -> Vec<ToolEntry<'_>> {
        self.0.iter().map(|(key, id, description)| ToolEntry { key, id: id.as_deref(), description }).collect()
    }
}

fn weather_tools() -> Tools {
    Tools::new(&[
        ("weather", Some("getWeather"), "Get the weather forecast for a city"),
        ("email", Some("sendEmail"), "Send an email to a recipient"),
        ("issue", Some("createIssue"), "Create a GitHub issue"),
    ])
}

fn step(search: &ToolSearch, thread: Option<&str>) -> Step {
    let catalog = Arc::new(search.step_catalog(&[], &[]).unwrap());
    let loaded = search.loaded_names(thread.map(units).as_deref(), None, 1000.0);
    Step::new(catalog, thread.map(js), loaded)
}

fn names(outcome: &SearchOutcome) -> Vec<String> {
    outcome.results.iter().map(|r| r.name.to_string_lossy()).collect()
}

#[test]
fn search_finds_by_description_and_name() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, None);
    let outcome = ready(search.search(&step, &units("weather"), &NoFilter, 1000.0));
    assert_eq!(names(&outcome), ["getWeather"]);
    assert_eq!(
        outcome.message.to_string_lossy(),
        "Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available."
    );
    let none = ready(search.search(&step, &units("zebra"), &NoFilter, 1000.0));
    assert!(none.results.is_empty());
    assert_eq!(none.message.to_string_lossy(), "No tools found matching \"zebra\". Try different keywords.");
}

#[test]
fn load_then_load_again_reports_already_loaded() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let first = step(&search, Some("t1"));
    let outcome = ready(search.load(&first, Some(&units("weather")), None, &NoFilter, 1000.0));
    assert_eq!(
        outcome,
        LoadOutcome::Single {
            success: true,
            message: js("Tool \"weather\" loaded successfully. It will be available on your next turn."),
            tool_name: js("weather"),
        }
    );
    // The next step of the same thread starts with it loaded; another thread does not.
    let second = step(&search, Some("t1"));
    assert_eq!(second.loaded.lock().iter().map(|n| n.to_string_lossy()).collect::<Vec<_>>(), ["weather"]);
    assert!(step(&search, Some("t2")).loaded.lock().is_empty());
    let again = ready(search.load(&second, Some(&units("weather")), None, &NoFilter, 1000.0));
    assert_eq!(
        again,
        LoadOutcome::Single {
            success: true,
            message: js("Tool \"weather\" is already loaded and available."),
            tool_name: js("weather"),
        }
    );
    assert_eq!(search.state_stats(5000.0), StoreStats { thread_count: 2, oldest_access_ms: Some(1000.0) });
}

#[test]
fn load_suggests_near_names() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, None);
    let outcome = ready(search.load(&step, Some(&units("Weathe")), None, &NoFilter, 1000.0));
    assert_eq!(
        outcome,
        LoadOutcome::Single {
            success: false,
            message: js("Tool \"Weathe\" not found. Did you mean: weather?"),
            tool_name: js("Weathe"),
        }
    );
}

#[test]
fn multi_load_lists_each_kind() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, None);
    let requested = [js("email"), js("nope"), js("email"), js("sendEmail")];
    let outcome = ready(search.load(&step, Some(&units("weather")), Some(&requested), &NoFilter, 1000.0));
    assert_eq!(
        outcome,
        LoadOutcome::Multi {
            success: false,
            message: js("Loaded: email, sendEmail, weather — available on your next turn | Not found: nope"),
            loaded_count: 3,
            loaded: Some(vec![js("email"), js("sendEmail"), js("weather")]),
            not_found: Some(vec![js("nope")]),
            already_loaded: None,
        }
    );
    assert_eq!(
        ready(search.load(&step, None, Some(&[]), &NoFilter, 1000.0)),
        LoadOutcome::Invalid { message: js("toolNames array must not be empty.") }
    );
    assert_eq!(
        ready(search.load(&step, Some(&[]), None, &NoFilter, 1000.0)),
        LoadOutcome::Invalid { message: js("You must provide either toolName (string) or toolNames (array) to load.") }
    );
}

#[test]
fn the_hook_decides_per_phase_and_a_failure_denies() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
    let step = step(&search, None);
    let hook = Recorder { denied: vec![1], failing: vec![2], calls: RefCell::default() };
    let outcome = ready(search.search(&step, &units("send email create issue weather"), &hook, 1000.0));
    assert_eq!(names(&outcome), ["getWeather"]);
    let load = ready(search.load(&step, None, Some(&[js("sendEmail"), js("weather")]), &hook, 1000.0));
    assert!(matches!(load, LoadOutcome::Multi { loaded_count: 1, .. }));
    let phases: Vec<Phase> = hook.calls.borrow().iter().map(|(_, p)| *p).collect();
    assert_eq!(phases, [Phase::Search, Phase::Search, Phase::Search, Phase::Load, Phase::Load]);

    let active = ready(search.active_tools(&step.catalog, &step.loaded.lock(), &Recorder::denying(&[0])));
    assert!(active.is_empty());
}

#[test]
fn auto_load_activates_results() {
    let tools = weather_tools();
    let search = ToolSearch::new(ToolSearchOptions { auto_load: true, ..options(false) }, &tools.entries()).unwrap();
    let step = step(&search, Some("t"));
    let outcome = ready(search.search(&step, &units("email"), &NoFilter, 1000.0));
    assert_eq!(
        outcome.message.to_string_lossy(),
        "Found and loaded 1 tool(s): sendEmail. They are available on your next turn — call them directly."
    );
    let again = ready(search.search(&step, &units("email"), &NoFilter, 1000.0));
    assert!(again.message.to_string_lossy().ends_with(" Some were already loaded."));
    let next = super::tests::step(&search, Some("t"));
    let active = ready(search.active_tools(&next.catalog, &next.loaded.lock(), &NoFilter));
    assert_eq!(active, vec![(js("sendEmail"), 1)]);
}

#[test]
fn resolved_tools_merge_like_an_object_spread() {
    let tools = weather_tools();
    let search =
        ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
            .unwrap();
    let resolved = Tools::new(&[
        ("search_tools", Some("search_tools"), "meta"),
        ("email", Some("mail"), "Resolved mail tool"),
        ("7", None, "array index key"),
        ("memory", None, "Remember things"),
    ]);
    let catalog = search.step_catalog(&tools.entries(), &resolved.entries()).unwrap();
    assert!(!catalog.live, "a step's merged record is its own copy");
    assert_eq!(catalog.visible, Some(vec![0]));
    // Resolved tool `i` is `3 + i`: the constructor had three tools.
    assert_eq!(catalog.sources, Some(vec![5, 0, 4, 2, 6]));
    let keys: Vec<String> =
        (0..catalog.catalog.entry_count()).map(|i| String::from_utf16_lossy(catalog.catalog.key(i))).collect();
    assert_eq!(keys, ["7", "weather", "email", "issue", "memory"]);

    // Only meta-tools resolved: the static catalog serves.
    let meta_only = Tools::new(&[("load_tool", Some("load_tool"), "meta")]);
    let catalog = search.step_catalog(&tools.entries(), &meta_only.entries()).unwrap();
    assert!(catalog.sources.is_none() && catalog.live);
    assert_eq!(catalog.visible, Some(vec![0]));
}

/// [`weather_tools`] as the binding hands them over.
fn weather_table() -> (Vec<u16>, Vec<EntrySpans>) {
    let mut builder = Catalog::builder();
    for entry in weather_tools().entries() {
        builder.push(entry.key, entry.id, entry.description);
    }
    builder.into_parts()
}

#[test]
fn fielded_ranking_searches_static_and_resolved_parameters() {
    let (text, entries) = weather_table();
    let weather_params = || {
        let mut params = ParamTable::new();
        params.push([(&units("city")[..], &units("The city, e.g. Lisbon")[..])]);
        params.push([(&units("recipient")[..], &units("Who receives it")[..])]);
        params.push([]);
        params
    };
    let options = ToolSearchOptions { include_resolved_tools: true, ranking: Ranking::FIELDED, ..options(false) };
    let search = ToolSearch::from_table_with_parameters(options, text, entries, Some(weather_params())).unwrap();
    // Static: a parameter's description is searched.
    let outcome = ready(search.search(&step(&search, None), &units("Lisbon"), &NoFilter, 1000.0));
    assert_eq!(names(&outcome), ["getWeather"]);

    // Resolved tools bring their own parameters, and the record's tools
    // theirs as they are now, except where a resolved tool replaces one.
    let resolved = Tools::new(&[("email", Some("mail"), "Resolved mail tool"), ("memory", None, "Remember")]);
    let mut resolved_params = ParamTable::new();
    resolved_params.push([(&units("attachment")[..], &units("A file")[..])]);
    resolved_params.push([(&units("fact")[..], &units("What to remember about Lisbon")[..])]);
    let record = weather_tools();
    let record_params = weather_params();
    let catalog = search
        .step_catalog_with_parameters(
            &record.entries(),
            &resolved.entries(),
            Some(&record_params),
            Some(&resolved_params),
        )
        .unwrap();
    // Resolved tool `i` is tool `3 + i`: `email` replaced static tool 1 in place.
    assert_eq!(catalog.sources, Some(vec![0, 3, 2, 4]));
    let step = Step::new(Arc::new(catalog), None, NameSet::new());
    let outcome = ready(search.search(&step, &units("Lisbon"), &NoFilter, 1000.0));
    // `memory` has no id, so it is indexed but never returned.
    assert_eq!(names(&outcome), ["getWeather"]);
    assert_eq!(names(&ready(search.search(&step, &units("attachment"), &NoFilter, 1000.0))), ["mail"]);
    assert!(ready(search.search(&step, &units("recipient"), &NoFilter, 1000.0)).results.is_empty());
    // Without parameters for the resolved tools, they are searched by name and description.
    let catalog = search
        .step_catalog_with_parameters(&record.entries(), &resolved.entries(), Some(&record_params), None)
        .unwrap();
    let step = Step::new(Arc::new(catalog), None, NameSet::new());
    assert!(ready(search.search(&step, &units("attachment"), &NoFilter, 1000.0)).results.is_empty());
    assert_eq!(names(&ready(search.search(&step, &units("city"), &NoFilter, 1000.0))), ["getWeather"]);
}

#[test]
fn the_reference_ranking_ignores_parameters() {
    let (text, entries) = weather_table();
    let mut params = ParamTable::new();
    for _ in 0..3 {
        params.push([(&units("lisbon")[..], &units("Lisbon")[..])]);
    }
    let search = ToolSearch::from_table_with_parameters(options(false), text, entries, Some(params)).unwrap();
    assert!(ready(search.search(&step(&search, None), &units("Lisbon"), &NoFilter, 1000.0)).results.is_empty());
}

#[test]
fn a_large_catalog_indexes_in_the_background_and_searches_the_same() {
    let owned: Vec<(String, String, String)> = (0..1000)
        .map(|i| (format!("key{i}"), format!("tool_{i}"), format!("Does thing number {i} for the weather desk")))
        .collect();
    let tools =
        Tools::new(&owned.iter().map(|(k, id, d)| (k.as_str(), Some(id.as_str()), d.as_str())).collect::<Vec<_>>());
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, None);
    let outcome = ready(search.search(&step, &units("tool_999 weather"), &NoFilter, 0.0));
    assert_eq!(names(&outcome)[0], "tool_999");
    assert_eq!(step.catalog.catalog.entry_count(), 1000);
}

#[test]
fn the_injected_catalog_lists_each_key_with_its_name_and_indexed_description() {
    let long = "d".repeat(151);
    let tools = Tools::new(&[
        ("weather", Some("getWeather"), "Get the weather"),
        ("bare", None, ""),
        ("long", Some("longOne"), &long),
        // Same name as the first tool: both lines show the later description.
        ("again", Some("getWeather"), "Replaced"),
    ]);
    let inject = ToolSearchOptions { inject_catalog: true, ..options(false) };
    let search = ToolSearch::new(inject, &tools.entries()).unwrap();
    let step = step(&search, None);
    let message = ready(search.catalog_message(&step.catalog, None, &NoFilter)).unwrap();
    let expected = format!(
        "{}\n\nAvailable tools:\n- `getWeather`: Replaced\n- `bare`\n- `longOne`: {}...\n- `getWeather`: Replaced",
        messages::CATALOG_HEADER,
        "d".repeat(147)
    );
    assert_eq!(message.to_string_lossy(), expected);

    // The hook is asked about every tool, in key order, and may hide some.
    let filtered =
        ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
    let hook = Recorder::denying(&[0, 2]);
    let message = ready(filtered.catalog_message(&step.catalog, None, &hook)).unwrap();
    assert_eq!(
        message.to_string_lossy(),
        format!("{}\n\nAvailable tools:\n- `bare`\n- `getWeather`: Replaced", messages::CATALOG_HEADER)
    );
    assert_eq!(*hook.calls.borrow(), [(0, Phase::Search), (1, Phase::Search), (2, Phase::Search), (3, Phase::Search)]);
}

#[test]
fn a_catalog_key_resolves_like_a_loaded_name() {
    // The key `getWeather` is also the first tool's id: without a hook the
    // key wins, with one the id does (and the hook is asked about that tool).
    let tools = Tools::new(&[("weather", Some("getWeather"), "Weather"), ("getWeather", Some("other"), "Other")]);
    let plain =
        ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(false) }, &tools.entries()).unwrap();
    let message = ready(plain.catalog_message(&step(&plain, None).catalog, None, &NoFilter)).unwrap();
    assert!(message.to_string_lossy().ends_with("\n- `getWeather`: Weather\n- `other`: Other"), "{message}");
    let hooked =
        ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
    let hook = Recorder::denying(&[]);
    let message = ready(hooked.catalog_message(&step(&hooked, None).catalog, None, &hook)).unwrap();
    assert!(message.to_string_lossy().ends_with("\n- `getWeather`: Weather\n- `getWeather`: Weather"), "{message}");
    assert_eq!(*hook.calls.borrow(), [(0, Phase::Search), (0, Phase::Search)]);
}

#[test]
fn the_catalog_is_not_injected_when_off_empty_or_before_the_host_has_the_option() {
    let tools = weather_tools();
    let off = ToolSearch::new(options(false), &tools.entries()).unwrap();
    assert_eq!(ready(off.catalog_message(&step(&off, None).catalog, None, &NoFilter)), None);
    let empty = ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(false) }, &[]).unwrap();
    assert_eq!(ready(empty.catalog_message(&step(&empty, None).catalog, None, &NoFilter)), None);
    let requested = ToolSearchOptions { inject_catalog: true, ..options(false) };
    let old_host = crate::releases::behaviours("1.66.0").unwrap();
    assert!(!requested.for_host(&old_host).inject_catalog);
    assert!(requested.for_host(&crate::releases::behaviours("1.67.0").unwrap()).inject_catalog);
    let auto = ToolSearch::new(ToolSearchOptions { auto_load: true, ..requested }, &tools.entries()).unwrap();
    let message = ready(auto.catalog_message(&step(&auto, None).catalog, None, &NoFilter)).unwrap();
    assert!(message.to_string_lossy().starts_with(messages::CATALOG_HEADER_AUTO_LOAD));
}

/// The resolutions put to the host, as (lookup, what the tables found).
fn resolutions(asked: &RefCell<Vec<(Ask, Phase)>>) -> Vec<(Lookup, Found, Phase)> {
    asked
        .borrow()
        .iter()
        .filter_map(|(ask, phase)| match ask {
            Ask::Resolve { lookup, found, .. } => Some((*lookup, found.clone(), *phase)),
            Ask::Tool(_) => None,
        })
        .collect()
}

#[test]
fn over_the_constructor_record_every_resolution_is_put_to_the_host() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, Some("t"));
    // A tool the caller added since (tool 3, beyond the tables) loads by its
    // key and by its id; what the tables found is confirmed as found.
    let host = ChangedRecord::new(&[("translator", 3), ("translate_text", 3)]);
    let names = [js("translator"), js("weather"), js("translate_text"), js("nope")];
    let outcome = ready(search.load(&step, None, Some(&names), &host, 1000.0));
    let LoadOutcome::Multi { loaded, not_found, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(not_found, Some(vec![js("nope")]));
    assert_eq!(loaded, Some(vec![js("translator"), js("weather"), js("translate_text")]));
    assert_eq!(
        resolutions(&host.asked),
        [
            (Lookup::KeyFirst, Found::Missing(js("translator")), Phase::Load),
            (Lookup::KeyFirst, Found::ByKey(0), Phase::Load),
            (Lookup::KeyFirst, Found::Missing(js("translate_text")), Phase::Load),
            (Lookup::KeyFirst, Found::Missing(js("nope")), Phase::Load),
        ]
    );
    // The active tools are the tools the record gives now.
    let next = super::tests::step(&search, Some("t"));
    let active = ready(search.active_tools(&next.catalog, &next.loaded.lock(), &host));
    assert_eq!(active, [(js("translator"), 3), (js("weather"), 0), (js("translate_text"), 3)]);
    // Search resolves by id only, and only what the (stale) index finds.
    let mut host = ChangedRecord::new(&[]);
    host.gone = vec![1];
    let found = ready(search.search(&next, &units("email"), &host, 1000.0));
    assert!(found.results.is_empty(), "the record no longer holds sendEmail");
    assert_eq!(resolutions(&host.asked), [(Lookup::IdOnly, Found::ById(1), Phase::Search)]);
}

#[test]
fn with_a_hook_names_resolve_id_first_and_the_hook_is_asked_by_the_host() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
    let step = step(&search, Some("t"));
    let host = ChangedRecord::new(&[]);
    ready(search.load(&step, None, Some(&[js("getWeather"), js("email")]), &host, 1000.0));
    assert_eq!(
        resolutions(&host.asked),
        [(Lookup::IdFirst, Found::ById(0), Phase::Load), (Lookup::IdFirst, Found::ByKey(1), Phase::Load)]
    );
    assert!(host.asked.borrow().iter().all(|(ask, _)| matches!(ask, Ask::Resolve { .. })));
}

#[test]
fn trusting_the_tables_records_each_resolution_for_a_later_check() {
    let tools = weather_tools();
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, Some("t"));
    let host = VerifyAfter::default();
    let outcome = ready(search.search(&step, &units("weather email"), &host, 1000.0));
    assert_eq!(names(&outcome), ["sendEmail", "getWeather"]);
    assert_eq!(
        host.into_resolutions(),
        [resolve(Lookup::IdOnly, Found::ById(1)), resolve(Lookup::IdOnly, Found::ById(0))]
    );
    let loaded: NameSet = [js("weather"), js("gone")].into_iter().collect();
    let host = VerifyAfter::default();
    let active = ready(search.active_tools(&step.catalog, &loaded, &host));
    assert_eq!(active, [(js("weather"), 0)]);
    assert_eq!(
        host.into_resolutions(),
        [resolve(Lookup::KeyFirst, Found::ByKey(0)), resolve(Lookup::KeyFirst, Found::Missing(js("gone")))]
    );
}

/// A resolution in the caller's record.
fn resolve(lookup: Lookup, found: Found) -> Ask {
    Ask::Resolve { lookup, found, live: true }
}

#[test]
fn a_merged_step_record_keeps_its_keys_and_tools_and_its_tools_ids_are_read_as_names_are_looked_up() {
    let tools = weather_tools();
    let resolved = Tools::new(&[("memory", Some("remember"), "Remember things")]);
    let merged = |has_filter| {
        let search = ToolSearch::new(
            ToolSearchOptions { include_resolved_tools: true, ..options(has_filter) },
            &tools.entries(),
        )
        .unwrap();
        let catalog = Arc::new(search.step_catalog(&tools.entries(), &resolved.entries()).unwrap());
        (search, Step::new(catalog, Some(js("t")), NameSet::new()))
    };
    let copied = |lookup, found| Ask::Resolve { lookup, found, live: false };
    // With a hook, names resolve id first: the tool found by id is read for
    // its id now, and a name no tool had may be one's id now.
    let (search, step) = merged(true);
    let host = ChangedRecord::new(&[]);
    ready(search.load(&step, None, Some(&[js("remember"), js("nope"), js("memory")]), &host, 1000.0));
    assert_eq!(
        *host.asked.borrow(),
        [
            (copied(Lookup::IdFirst, Found::ById(3)), Phase::Load),
            (copied(Lookup::IdFirst, Found::Missing(js("nope"))), Phase::Load),
            // A key of the copy: its tool, unless a tool took the name as its id.
            (Ask::Tool(3), Phase::Load),
        ]
    );
    // Without one, a key of the copy is its tool, asked about only by an
    // operation that awaits as the reference (no question here).
    let (search, step) = merged(false);
    let host = ChangedRecord::new(&[]);
    ready(search.load(&step, None, Some(&[js("memory"), js("remember")]), &host, 1000.0));
    assert_eq!(*host.asked.borrow(), [(copied(Lookup::KeyFirst, Found::ById(3)), Phase::Load)]);
}

#[test]
fn the_catalog_and_suggestions_of_a_changed_record_list_its_keys_now() {
    let tools = weather_tools();
    let search =
        ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
    let step = step(&search, Some("t"));
    // The record now: `weather` swapped for a tool with another id, `email`
    // deleted, `translate` added; its tools are the host's tools 10, 11, 12.
    let mut builder = Catalog::builder();
    builder.push_str("weather", Some("weather_now"), "");
    builder.push_str("issue", Some("createIssue"), "");
    builder.push_str("translate", Some("sendEmail"), "");
    let (text, entries) = builder.into_parts();
    let live = Arc::new(LiveRecord::new(text, entries, 10).unwrap());
    let mut host = ChangedRecord::new(&[]);
    host.denied = vec![11];
    host.keys = Some(LiveKeys(["weather", "issue", "translate"].map(js).to_vec()));
    let message = ready(search.catalog_message(&step.catalog, Some(&live), &host)).unwrap();
    // Names are the record's; descriptions those indexed under the name at construction.
    assert_eq!(
        message.to_string_lossy(),
        format!(
            "{}\n\nAvailable tools:\n- `weather_now`\n- `sendEmail`: Send an email to a recipient",
            messages::CATALOG_HEADER
        )
    );
    // Each key is looked up as it is listed (the hook may change the record).
    assert_eq!(resolutions(&host.asked), [10, 11, 12].map(|tool| (Lookup::IdFirst, Found::ByKey(tool), Phase::Search)));
    // A tool the host names otherwise once the hook answered (its id
    // changed, or none) is listed by that name.
    host.asked.borrow_mut().clear();
    host.renamed = vec![(10, None), (12, Some("createIssue"))];
    let message = ready(search.catalog_message(&step.catalog, Some(&live), &host)).unwrap();
    assert_eq!(
        message.to_string_lossy(),
        format!(
            "{}\n\nAvailable tools:\n- `weather`\n- `createIssue`: Create a GitHub issue",
            messages::CATALOG_HEADER
        )
    );
    host.renamed.clear();
    // Suggestions list the record's keys as they are now.
    let outcome = ready(search.load(&step, Some(&units("weathe")), None, &host, 1000.0));
    let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(message.to_string_lossy(), "Tool \"weathe\" not found. Did you mean: weather?");
}

#[test]
fn suggestions_read_the_record_s_keys_then_look_up_each_match_only() {
    let tools = Tools::new(&[
        ("weather", Some("getWeather"), "Get the weather forecast for a city"),
        ("email", Some("sendEmail"), "Send an email to a recipient"),
        ("weatherAlerts", None, "Severe weather alerts"),
        ("issue", Some("createIssue"), "Create a GitHub issue"),
    ]);
    let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
    let step = step(&search, Some("t"));
    // The record now: `weatherAlerts` gone, `weatherMap` (new: no table
    // knows it) and `getWeather` (a key that is a tool's id then) added.
    let mut host = ChangedRecord::new(&[("weatherMap", 20)]);
    host.keys = Some(LiveKeys(["weather", "email", "issue", "weatherMap", "getWeather"].map(js).to_vec()));
    host.denied = vec![0];
    let outcome = ready(search.load(&step, Some(&units("Weather")), None, &host, 1000.0));
    let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(message.to_string_lossy(), "Tool \"Weather\" not found. Did you mean: weatherMap?");
    // `load_tool`'s own lookup, then each key that matches, in the record's
    // order, looked up as `load_tool` looks up a name (id first), from what
    // the tables found for it: no other key, and no whole record, is read.
    assert_eq!(
        resolutions(&host.asked),
        [
            (Lookup::IdFirst, Found::Missing(js("Weather")), Phase::Load),
            (Lookup::IdFirst, Found::ByKey(0), Phase::Load),
            (Lookup::IdFirst, Found::Missing(js("weatherMap")), Phase::Load),
            (Lookup::IdFirst, Found::ById(0), Phase::Load),
        ]
    );
    // Without a hook the keys that match are the suggestions: nothing is looked up.
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = self::step(&search, Some("t"));
    host.asked.borrow_mut().clear();
    let outcome = ready(search.load(&step, Some(&units("Weather")), None, &host, 1000.0));
    let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(message.to_string_lossy(), "Tool \"Weather\" not found. Did you mean: weather, weatherMap, getWeather?");
    assert_eq!(resolutions(&host.asked), [(Lookup::KeyFirst, Found::Missing(js("Weather")), Phase::Load)]);
}

#[test]
fn pooled_step_catalogs_merge_and_search_as_catalogs_from_the_text() {
    let tools = weather_tools();
    let search =
        ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
            .unwrap();
    // `None` as a slot: a key without a tool (a meta-tool's, as the binding sends it).
    let resolved: [(&str, Option<&str>, &str, bool); 8] = [
        ("search_tools", Some("search_tools"), "meta, keyed by its id", true),
        ("load_tool", None, "meta, no tool", false),
        ("email", Some("mail"), "Resolved mail tool", true),
        ("7", None, "array index key", true),
        ("12", Some("12"), "array index id", true),
        ("getWeather", Some("getWeather"), "Weather by the id of a record tool", true),
        ("issue", Some("issue"), "Resolved issue tool, keyed by its id", true),
        ("memory", None, "Remember things", true),
    ];
    let text_resolved = Tools::new(&resolved.map(|(key, id, description, _)| (key, id, description)));
    let by_text = search.step_catalog(&tools.entries(), &text_resolved.entries()).unwrap();

    // Every tool new to the pool (the record's, then the step's that hold
    // one): the pool gives them slots 0.. in order.
    let all: Vec<_> = tools.0.iter().chain(&text_resolved.0).collect();
    let has_tool = |i: usize| i < 3 || resolved[i - 3].3;
    let added: Vec<PoolTool<'_>> = (0..all.len())
        .filter(|&i| has_tool(i))
        .map(|i| PoolTool { slot: None, id: all[i].1.as_deref(), description: &all[i].2 })
        .collect();
    let rows: Vec<(PoolSlot, Option<&[u16]>)> = (0..all.len())
        .map(|i| {
            let (key, id, _) = all[i];
            let slot = if has_tool(i) { PoolSlot::New } else { PoolSlot::NoTool };
            (slot, (id.as_deref() != Some(&key[..]) || !has_tool(i)).then_some(&key[..]))
        })
        .collect();
    let step = PoolStep { added: &added, parameters: None, released: &[], rows: &rows, record_count: 3 };
    let (by_pool, changes) = search.pool_step_catalog(step).unwrap();
    assert_eq!(changes, PoolChanges { added: (0..added.len() as Slot).collect(), forgotten: vec![] });

    assert_eq!(by_pool.sources, by_text.sources);
    assert_eq!(by_pool.visible, by_text.visible);
    assert_eq!(by_pool.visible, Some(vec![0, 1]));
    assert_eq!((by_pool.live, by_text.live), (false, false));
    let (pooled, text) = (&by_pool.catalog, &by_text.catalog);
    assert_eq!(pooled.entry_count(), text.entry_count());
    for entry in 0..text.entry_count() {
        assert_eq!(pooled.key(entry), text.key(entry));
        assert_eq!(pooled.id(entry), text.id(entry));
        assert_eq!(pooled.description(entry), text.description(entry));
        assert_eq!(pooled.find_by_key(text.key(entry)), text.find_by_key(text.key(entry)));
        assert_eq!(pooled.find_doc(text.name(entry)), text.find_doc(text.name(entry)));
    }
    let keys: Vec<String> = (0..text.entry_count()).map(|i| String::from_utf16_lossy(pooled.key(i))).collect();
    assert_eq!(keys, ["7", "12", "weather", "email", "issue", "getWeather", "memory"]);
    let options = SearchOptions { top_k: 100.0, ..SearchOptions::default() };
    for query in ["weather", "resolved tool issue", "array index", "mail email"] {
        assert_eq!(pooled.search(&units(query), &options), text.search(&units(query), &options), "{query}");
    }
}

#[test]
fn a_catalog_cell_is_let_go_of_and_restored_while_its_steps_share_their_loaded_names() {
    let tools = weather_tools();
    let search =
        ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
            .unwrap();
    let resolved = Tools::new(&[("email", Some("mail"), "Resolved mail tool"), ("memory", None, "Remember things")]);
    let make = || search.step_catalog(&tools.entries(), &resolved.entries()).unwrap();
    let cell = CatalogCell::new(Arc::new(make()));
    let loaded = loaded_names(NameSet::new());
    let step = |cell: &CatalogCell| Step { catalog: cell.get().unwrap(), thread: None, loaded: loaded.clone() };

    let before = step(&cell);
    let first = ready(search.load(&before, Some(&units("mail")), None, &NoFilter, 0.0));
    cell.let_go();
    assert!(cell.get().is_none());
    // A call under way keeps its own catalog.
    assert_eq!(before.catalog.catalog.entry_count(), 4);

    cell.restore(make());
    let after = step(&cell);
    let again = ready(search.load(&after, Some(&units("mail")), None, &NoFilter, 0.0));
    assert!(matches!(first, LoadOutcome::Single { success: true, .. }), "{first:?}");
    let LoadOutcome::Single { message, .. } = again else { panic!("{again:?}") };
    assert_eq!(message.to_string_lossy(), "Tool \"mail\" is already loaded and available.");
    let query = units("mail email memory");
    assert_eq!(
        ready(search.search(&after, &query, &NoFilter, 0.0)),
        ready(search.search(&before, &query, &NoFilter, 0.0))
    );
}

/// A host that awaits as the reference: it records each question, and at
/// each tick what the step's loaded names and the store hold.
struct Ticking<'s> {
    search: &'s ToolSearch,
    step: &'s Step,
    events: RefCell<Vec<String>>,
}

impl ToolFilter for Ticking<'_> {
    fn check(&self, ask: Ask, _phase: Phase) -> impl Future<Output = Answer> {
        self.events.borrow_mut().push(format!("{ask:?}"));
        std::future::ready(if matches!(ask, Ask::Resolve { found: Found::Missing(_), .. }) {
            Answer::DENIED
        } else {
            Answer::ALLOWED
        })
    }

    fn awaits(&self) -> bool {
        true
    }

    fn tick(&self) -> impl Future<Output = ()> {
        let step = self.step.loaded.lock().len();
        let store = self.search.loaded_names(Some(&units("t")), None, 1000.0).len();
        self.events.borrow_mut().push(format!("tick: step {step}, store {store}"));
        std::future::ready(())
    }
}

#[test]
fn an_operation_that_awaits_as_the_reference_asks_about_every_tool_and_records_loads_around_a_tick() {
    let tools = weather_tools();
    let resolved = Tools::new(&[("memory", Some("remember"), "Remember things")]);
    let search =
        ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
            .unwrap();
    let catalog = Arc::new(search.step_catalog(&tools.entries(), &resolved.entries()).unwrap());
    let step = Step::new(catalog, Some(js("t")), NameSet::new());
    let host = Ticking { search: &search, step: &step, events: RefCell::default() };
    let outcome = ready(search.load(&step, None, Some(&[js("memory"), js("weather"), js("nope")]), &host, 1000.0));
    assert!(matches!(outcome, LoadOutcome::Multi { loaded_count: 2, .. }), "{outcome:?}");
    // A key of the step's copy is its tool, asked about as the reference's
    // `await isToolAllowed` asks even without a hook; the loads are in the
    // store before the tick and in the step's loaded names after it.
    assert_eq!(
        *host.events.borrow(),
        [
            "Tool(3)",
            "Tool(0)",
            "Resolve { lookup: KeyFirst, found: Missing(\"nope\"), live: false }",
            "tick: step 0, store 2",
        ]
    );
    assert_eq!(step.loaded.lock().len(), 2);

    // An auto-loading search: each candidate asked about, the search's end
    // awaited, then the activation recorded as a load is.
    let search = ToolSearch::new(ToolSearchOptions { auto_load: true, ..options(false) }, &tools.entries()).unwrap();
    let step = super::tests::step(&search, Some("t"));
    let host = Ticking { search: &search, step: &step, events: RefCell::default() };
    let outcome = ready(search.search(&step, &units("weather email"), &host, 1000.0));
    assert_eq!(names(&outcome), ["sendEmail", "getWeather"]);
    assert_eq!(
        *host.events.borrow(),
        [
            "Resolve { lookup: IdOnly, found: ById(1), live: true }",
            "Resolve { lookup: IdOnly, found: ById(0), live: true }",
            "tick: step 0, store 0",
            "tick: step 0, store 2",
        ]
    );
    assert_eq!(step.loaded.lock().len(), 2);
}

#[test]
fn a_tool_indexed_under_its_key_for_lack_of_an_id_is_found_only_if_the_record_now_gives_it_that_id() {
    let tools = Tools::new(&[("frob", None, "Frobnicate the widget"), ("other", Some("other"), "Another widget")]);
    let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
    let step = step(&search, None);
    // Trusting the tables: not found, and the resolution handed over to be checked.
    let host = VerifyAfter::default();
    let outcome = ready(search.search(&step, &units("frobnicate widget"), &host, 1000.0));
    assert_eq!(names(&outcome), ["other"]);
    assert_eq!(
        host.into_resolutions(),
        [resolve(Lookup::IdOnly, Found::Unnamed(0)), resolve(Lookup::IdOnly, Found::ById(1))]
    );
    // A host whose record gives it (the same tool, or another under its key).
    let host = ChangedRecord::new(&[]);
    let outcome = ready(search.search(&step, &units("frobnicate widget"), &host, 1000.0));
    assert_eq!(names(&outcome), ["frob", "other"]);
    let reads = |found| operation::reads(Lookup::IdOnly, &found, true);
    assert_eq!(reads(Found::Unnamed(0)), [crate::protocol::tool_search::operation::ask::STANDING]);
}
