//! What the processor's tests share: hosts that record what they are asked
//! ([`Recorder`], [`ChangedRecord`]), the options and tools most of them
//! start from, and a way to run an operation that never waits ([`ready`]).

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use crate::js::JsString;
use crate::search::{Ranking, SearchOptions};

use super::{
    Answer, Ask, Found, LoadInput, Lookup, Phase, SearchOutcome, Step, Storage, Syntax, ToolEntry, ToolFilter, ToolRef,
    ToolSearch, ToolSearchOptions, Verdict,
};

/// Runs a future that never waits (every hook here answers at once).
pub(super) fn ready<T>(future: impl Future<Output = T>) -> T {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("future waited"),
    }
}

pub(super) fn js(s: &str) -> JsString {
    JsString::from(s)
}

pub(super) fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// A hook that records its calls and denies the tools listed.
pub(super) struct Recorder {
    pub(super) denied: Vec<ToolRef>,
    pub(super) failing: Vec<ToolRef>,
    pub(super) calls: RefCell<Vec<(ToolRef, Phase)>>,
}

impl Recorder {
    pub(super) fn denying(denied: &[ToolRef]) -> Recorder {
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
pub(super) struct ChangedRecord {
    pub(super) record: Vec<(&'static str, ToolRef)>,
    pub(super) gone: Vec<ToolRef>,
    pub(super) denied: Vec<ToolRef>,
    pub(super) asked: RefCell<Vec<(Ask, Phase)>>,
}

impl ChangedRecord {
    pub(super) fn new(record: &[(&'static str, ToolRef)]) -> ChangedRecord {
        ChangedRecord { record: record.to_vec(), gone: Vec::new(), denied: Vec::new(), asked: RefCell::default() }
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
                Some(tool) if !self.gone.contains(&tool) && !self.denied.contains(&tool) => Answer::ALLOWED,
                _ => Answer::DENIED,
            },
        };
        std::future::ready(answer)
    }
}

pub(super) fn options(has_filter: bool) -> ToolSearchOptions {
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
pub(super) type OwnedEntry = (Vec<u16>, Option<Vec<u16>>, Vec<u16>);

pub(super) struct Tools(pub(super) Vec<OwnedEntry>);

impl Tools {
    pub(super) fn new(tools: &[(&str, Option<&str>, &str)]) -> Tools {
        Tools(tools.iter().map(|(k, id, d)| (units(k), id.map(units), units(d))).collect())
    }

    pub(super) fn entries(&self) -> Vec<ToolEntry<'_>> {
        self.0.iter().map(|(key, id, description)| ToolEntry { key, id: id.as_deref(), description }).collect()
    }
}

pub(super) fn weather_tools() -> Tools {
    Tools::new(&[
        ("weather", Some("getWeather"), "Get the weather forecast for a city"),
        ("email", Some("sendEmail"), "Send an email to a recipient"),
        ("issue", Some("createIssue"), "Create a GitHub issue"),
    ])
}

pub(super) fn step(search: &ToolSearch, thread: Option<&str>) -> Step {
    let catalog = Arc::new(search.step_catalog(&[], &[]).unwrap());
    let loaded = search.loaded_names(thread.map(units).as_deref(), None, 1000.0);
    Step::new(catalog, thread.map(js), loaded)
}

/// `load_tool`'s input `{ toolName }`.
pub(super) fn tool_name(name: &[u16]) -> LoadInput<'_> {
    LoadInput { tool_name: Some(name), tool_names: None }
}

/// `load_tool`'s input `{ toolNames }`.
pub(super) fn tool_names(names: &[JsString]) -> LoadInput<'_> {
    LoadInput { tool_name: None, tool_names: Some(names) }
}

pub(super) fn names(outcome: &SearchOutcome) -> Vec<String> {
    outcome.results.iter().map(|r| r.name.to_string_lossy()).collect()
}

/// The resolutions put to the host, as (lookup, what the tables found).
pub(super) fn resolutions(asked: &RefCell<Vec<(Ask, Phase)>>) -> Vec<(Lookup, Found, Phase)> {
    asked
        .borrow()
        .iter()
        .filter_map(|(ask, phase)| match ask {
            Ask::Resolve { lookup, found, .. } => Some((*lookup, found.clone(), *phase)),
            Ask::Tool(_) => None,
        })
        .collect()
}

/// A resolution in the caller's record.
pub(super) fn resolve(lookup: Lookup, found: Found) -> Ask {
    Ask::Resolve { lookup, found }
}
