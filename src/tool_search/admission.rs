//! Whether a tool that the catalog's tables found for a name is one a step
//! may use (`ToolSearch::admission`): decided at once, or put to the host
//! (the `filter` hook, and the caller's record where [`lookup`](super::lookup)'s
//! rule reads it); how a name is looked up with and without a hook; and
//! which operations must ask the host as they go, or await as the reference
//! does.

use std::future::Future;

use super::ahead::Decision;
use super::lookup::reads;
use super::{Ask, Found, Lookup, Phase, ToolFilter, ToolRef, ToolSearch};

/// How an operation admits what it finds, the same for every item of its
/// list: over a `live` catalog (the caller's record, see
/// [`StepCatalog::live`](super::StepCatalog::live)) or a step's own, each
/// name looked up by `lookup`, the hook asked in `phase`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Admitting {
    pub(super) live: bool,
    pub(super) lookup: Lookup,
    pub(super) phase: Phase,
}

impl ToolSearch {
    /// Whether the user gave a `filter` hook.
    pub(super) fn has_filter(&self) -> bool {
        self.options.search.has_filter
    }

    /// How a name the model typed (or a loaded name) is looked up: key first
    /// without a hook, id first with one, as `findToolForDynamicName`.
    pub(super) fn dynamic_lookup(&self) -> Lookup {
        if self.has_filter() {
            Lookup::IdFirst
        } else {
            Lookup::KeyFirst
        }
    }

    /// Whether an operation (named by its phase) must ask the host as it
    /// goes (a resumable [`Operation`](super::operation::Operation)), rather than trust the
    /// catalog's tables with [`VerifyAfter`](super::VerifyAfter) and have
    /// the host check its resolutions after: with a hook, which must be
    /// asked anyway, and when
    /// the operation changes loaded state, as it then
    /// [awaits as the reference](Self::awaits_as_reference) (and could not
    /// simply be run again should a check fail).
    pub fn asks_as_it_goes(&self, operation: Phase) -> bool {
        self.has_filter() || self.awaits_as_reference(operation)
    }

    /// Whether an operation (named by its phase) changes loaded state, and so
    /// runs in time with the reference (see [`operation`](super::operation)): `load_tool`, and
    /// `search_tools` in `autoLoad` mode.
    pub fn awaits_as_reference(&self, operation: Phase) -> bool {
        match operation {
            Phase::Search => self.options.auto_load,
            Phase::Load => true,
            Phase::Active => false,
        }
    }

    /// The tool `found` stands for, if there is one the hook (if any) allows
    /// in the operation's phase: decided at once, or by asking the host.
    /// Over a live catalog (the caller's record) the host resolves the name
    /// with the reads [`reads`] lists; over a step's own, the tables are the
    /// answer, and the hook alone is asked, if there is one or the host
    /// awaits as the reference does.
    pub(super) fn admission<'f>(
        &self,
        filter: &'f impl ToolFilter,
        found: Found,
        how: Admitting,
    ) -> Decision<Option<ToolRef>, impl Future<Output = Option<ToolRef>> + 'f> {
        let Admitting { live, lookup, phase } = how;
        let (ask, fallback, resolves) = if live && !reads(lookup, &found).is_empty() {
            let tables = found.tool();
            (Ask::Resolve { lookup, found }, tables, true)
        } else {
            match found.tool() {
                None => return Decision::Now(None),
                Some(tool) if !self.has_filter() && !filter.awaits() => return Decision::Now(Some(tool)),
                Some(tool) => (Ask::Tool(tool), Some(tool), false),
            }
        };
        let asking = filter.check(ask, phase);
        Decision::Asking(async move {
            let answer = asking.await;
            match (answer.verdict.allows(), resolves) {
                (false, _) => None,
                (true, true) => answer.tool.or(fallback),
                (true, false) => fallback,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::future::Future;
    use std::sync::Arc;

    use super::*;
    use crate::stores::NameSet;
    use crate::tool_search::testing::{self, *};
    use crate::tool_search::{messages, Answer, LoadOutcome, Step, ToolSearchOptions, VerifyAfter};

    #[test]
    fn the_hook_decides_per_phase_and_a_failure_denies() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
        let step = step(&search, None);
        let hook = Recorder { denied: vec![1], failing: vec![2], calls: RefCell::default() };
        let outcome = ready(search.search(&step, &units("send email create issue weather"), &hook, 1000.0));
        assert_eq!(names(&outcome), ["getWeather"]);
        let load = ready(search.load(&step, tool_names(&[js("sendEmail"), js("weather")]), &hook, 1000.0));
        assert!(matches!(load, LoadOutcome::Multi { loaded_count: 1, .. }));
        let phases: Vec<Phase> = hook.calls.borrow().iter().map(|(_, p)| *p).collect();
        assert_eq!(phases, [Phase::Search, Phase::Search, Phase::Search, Phase::Load, Phase::Load]);

        let active = ready(search.active_tools(&step.catalog, &step.loaded.lock(), &Recorder::denying(&[0])));
        assert!(active.is_empty());
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
        let outcome = ready(search.load(&step, tool_names(&names), &host, 1000.0));
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
        let next = testing::step(&search, Some("t"));
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
        ready(search.load(&step, tool_names(&[js("getWeather"), js("email")]), &host, 1000.0));
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

    #[test]
    fn a_step_s_own_catalog_is_its_tables_and_only_the_hook_is_asked() {
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
        // The step read its tools at its start: with a hook, names resolve id
        // first in its tables, and the hook alone is asked about what they find.
        let (search, step) = merged(true);
        let host = ChangedRecord::new(&[("nope", 9)]);
        let outcome = ready(search.load(&step, tool_names(&[js("remember"), js("nope"), js("memory")]), &host, 1000.0));
        let LoadOutcome::Multi { loaded, not_found, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!((loaded, not_found), (Some(vec![js("remember"), js("memory")]), Some(vec![js("nope")])));
        assert_eq!(*host.asked.borrow(), [(Ask::Tool(3), Phase::Load), (Ask::Tool(3), Phase::Load)]);
        // Without one, the tables are the answer: nothing is asked.
        let (search, step) = merged(false);
        let host = ChangedRecord::new(&[]);
        ready(search.load(&step, tool_names(&[js("memory"), js("remember")]), &host, 1000.0));
        assert_eq!(*host.asked.borrow(), []);
    }

    #[test]
    fn the_catalog_and_suggestions_list_the_tables_keys_each_resolved_in_the_record_now() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        // `sendEmail` (tool 1) is gone from the record, `createIssue` denied:
        // each key of the tables is resolved as it is listed, and named as the
        // tables name its tool.
        let mut host = ChangedRecord::new(&[("translate", 12)]);
        host.gone = vec![1];
        host.denied = vec![2];
        let message = ready(search.catalog_message(&step.catalog, &host)).unwrap();
        assert_eq!(
            message.to_string_lossy(),
            format!(
                "{}\n\nAvailable tools:\n- `getWeather`: Get the weather forecast for a city",
                messages::CATALOG_HEADER
            )
        );
        assert_eq!(
            resolutions(&host.asked),
            [0, 1, 2].map(|tool| (Lookup::IdFirst, Found::ByKey(tool), Phase::Search))
        );
        // A key added since (`translate`) is found by its name; the
        // suggestions are the tables' keys that match, each looked up as
        // `load_tool` looks up a name, so a key deleted since is not suggested
        // with a hook (its tool is not found), nor one added since.
        let outcome = ready(search.load(&step, tool_name(&units("translate")), &host, 1000.0));
        assert!(matches!(outcome, LoadOutcome::Single { success: true, .. }), "{outcome:?}");
        host.asked.borrow_mut().clear();
        let outcome = ready(search.load(&step, tool_name(&units("e")), &host, 1000.0));
        let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"e\" not found. Did you mean: weather?");
        assert_eq!(
            resolutions(&host.asked),
            [
                (Lookup::IdFirst, Found::Missing(js("e")), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(0), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(1), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(2), Phase::Load),
            ]
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
        let outcome = ready(search.load(&step, tool_names(&[js("memory"), js("weather"), js("nope")]), &host, 1000.0));
        assert!(matches!(outcome, LoadOutcome::Multi { loaded_count: 2, .. }), "{outcome:?}");
        // A key of the step's copy is its tool, asked about as the reference's
        // `await isToolAllowed` asks even without a hook; a name its tables
        // lack is not found, without asking; the loads are in the store before
        // the tick and in the step's loaded names after it.
        assert_eq!(*host.events.borrow(), ["Tool(3)", "Tool(0)", "tick: step 0, store 2"]);
        assert_eq!(step.loaded.lock().len(), 2);

        // An auto-loading search: each candidate asked about, the search's end
        // awaited, then the activation recorded as a load is.
        let search =
            ToolSearch::new(ToolSearchOptions { auto_load: true, ..options(false) }, &tools.entries()).unwrap();
        let step = testing::step(&search, Some("t"));
        let host = Ticking { search: &search, step: &step, events: RefCell::default() };
        let outcome = ready(search.search(&step, &units("weather email"), &host, 1000.0));
        assert_eq!(names(&outcome), ["sendEmail", "getWeather"]);
        assert_eq!(
            *host.events.borrow(),
            [
                "Resolve { lookup: IdOnly, found: ById(1) }",
                "Resolve { lookup: IdOnly, found: ById(0) }",
                "tick: step 0, store 0",
                "tick: step 0, store 2",
            ]
        );
        assert_eq!(step.loaded.lock().len(), 2);
    }
}
