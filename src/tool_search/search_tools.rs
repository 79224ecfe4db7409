//! `search_tools`: the step's catalog searched for the model's question,
//! each candidate admitted in rank order (see [`admission`](super::admission)),
//! the results activated in `autoLoad` mode.

use crate::js::JsString;
use crate::search::{Pattern, SearchWalk};

use super::admission::Admitting;
use super::ahead::Ahead;
use super::{messages, Found, Lookup, Phase, SearchOutcome, SearchQuery, Step, Syntax, ToolFilter, ToolSearch};

impl ToolSearch {
    /// `search_tools`. Activates the results in `autoLoad` mode.
    ///
    /// In time with the reference when the host [`awaits`](ToolFilter::awaits)
    /// (see [`operation`](super::operation)): each candidate the record
    /// gives is asked about (`await isToolAllowed`), the search's end
    /// awaited once (`await searchTools`), and an activation recorded in the
    /// store, awaited once, then in the step's loaded names.
    pub async fn search(&self, step: &Step, query: &[u16], filter: &impl ToolFilter, now_ms: f64) -> SearchOutcome {
        self.search_with_vector(step, SearchQuery { text: query, vector: None }, filter, now_ms).await
    }

    /// [`search`](Self::search), with the question's vector for the
    /// `'hybrid'` ranking when the user's embedding model made the tools'
    /// (see [`set_tool_vectors`](Self::set_tool_vectors)).
    pub async fn search_with_vector(
        &self,
        step: &Step,
        query: SearchQuery<'_>,
        filter: &impl ToolFilter,
        now_ms: f64,
    ) -> SearchOutcome {
        let SearchQuery { text: query, vector: query_vector } = query;
        let catalog = &step.catalog.catalog;
        let mut walk = match self.options.syntax {
            Syntax::Words => SearchWalk::with_vector(catalog, query, query_vector, &self.options.search),
            Syntax::Regex => match Pattern::new(query) {
                Ok(pattern) => {
                    SearchWalk::from_candidates(catalog.pattern_texts().candidates(&pattern), &self.options.search)
                }
                Err(error) => {
                    return SearchOutcome { results: Vec::new(), message: messages::invalid_pattern(query, &error) }
                }
            },
        };
        // The hook is asked down the ranked list, several at once if the
        // host allows (see `ahead`), and the walk decides in rank order. A
        // name no entry carries as its id is passed over, as the reference's
        // `findToolById` finds nothing for it.
        let admitting = Admitting { live: step.catalog.live, lookup: Lookup::IdOnly, phase: Phase::Search };
        let mut ahead = Ahead::new(filter.concurrency());
        loop {
            let next = ahead
                .next(|| {
                    let pending = walk.next_ahead(catalog)?;
                    let found = Found::ById(step.catalog.source(pending.entry));
                    Some((pending, self.admission(filter, found, admitting)))
                })
                .await;
            let Some((pending, admitted)) = next else { break };
            walk.decide(pending, admitted.is_some());
            if walk.is_done() {
                break;
            }
        }
        drop(ahead);
        filter.tick().await;
        let results = walk.finish(catalog);
        if results.is_empty() {
            return SearchOutcome { message: messages::no_tools_found(query, self.options.syntax), results };
        }
        if !self.options.auto_load {
            return SearchOutcome { message: messages::found(results.len()), results };
        }

        let newly_loaded: Vec<JsString> = {
            let loaded = step.loaded.lock();
            results.iter().filter(|r| !loaded.contains(&r.name)).map(|r| r.name.clone()).collect()
        };
        self.add_loaded(&newly_loaded, step.thread(), now_ms);
        filter.tick().await;
        step.loaded.lock().extend(newly_loaded.iter().cloned());
        let message = messages::found_and_loaded(&results, newly_loaded.len() < results.len());
        SearchOutcome { results, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_search::testing::{self, *};
    use crate::tool_search::{NoFilter, ToolSearchOptions, VerifyAfter};

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
    fn auto_load_activates_results() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { auto_load: true, ..options(false) }, &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        let outcome = ready(search.search(&step, &units("email"), &NoFilter, 1000.0));
        assert_eq!(
            outcome.message.to_string_lossy(),
            "Found and loaded 1 tool(s): sendEmail. They are available on your next turn — call them directly."
        );
        let again = ready(search.search(&step, &units("email"), &NoFilter, 1000.0));
        assert!(again.message.to_string_lossy().ends_with(" Some were already loaded."));
        let next = testing::step(&search, Some("t"));
        let active = ready(search.active_tools(&next.catalog, &next.loaded.lock(), &NoFilter));
        assert_eq!(active, vec![(js("sendEmail"), 1)]);
    }

    #[test]
    fn a_tool_indexed_under_its_key_for_lack_of_an_id_is_never_a_result_as_the_reference_finds_it_by_id() {
        let tools = Tools::new(&[("frob", None, "Frobnicate the widget"), ("other", Some("other"), "Another widget")]);
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, None);
        // Trusting the tables: passed over, and nothing to check of it.
        let host = VerifyAfter::default();
        let outcome = ready(search.search(&step, &units("frobnicate widget"), &host, 1000.0));
        assert_eq!(names(&outcome), ["other"]);
        assert_eq!(host.into_resolutions(), [resolve(Lookup::IdOnly, Found::ById(1))]);
        // A host asked as it goes is not asked about it either, whatever its record now gives.
        let host = ChangedRecord::new(&[("frob", 0)]);
        let outcome = ready(search.search(&step, &units("frobnicate widget"), &host, 1000.0));
        assert_eq!(names(&outcome), ["other"]);
        assert_eq!(resolutions(&host.asked), [(Lookup::IdOnly, Found::ById(1), Phase::Search)]);
    }
}
