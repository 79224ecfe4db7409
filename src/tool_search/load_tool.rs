//! `load_tool`: the names the model asked for, each looked up as a name
//! the model typed is and admitted (see [`admission`](super::admission)),
//! then recorded as loaded; and the "did you mean" suggestions for a name
//! not found.

use crate::js::JsString;
use crate::search::suggestion_matcher;
use crate::stores::NameSet;

use super::admission::Admitting;
use super::ahead::Ahead;
use super::{messages, LoadInput, LoadOutcome, Lookup, Phase, Step, ToolFilter, ToolSearch};

impl ToolSearch {
    /// `load_tool`; in time with the reference when the host
    /// [`awaits`](ToolFilter::awaits), as [`search`](Self::search).
    pub async fn load(&self, step: &Step, input: LoadInput<'_>, filter: &impl ToolFilter, now_ms: f64) -> LoadOutcome {
        let LoadInput { tool_name, tool_names } = input;
        // An empty `toolName` counts as absent, as it is falsy in JavaScript.
        let tool_name = tool_name.filter(|name| !name.is_empty());
        let to_load: Vec<JsString> = match (tool_names, tool_name) {
            (Some([]), None) => return LoadOutcome::Invalid { message: messages::EMPTY_TOOL_NAMES.into() },
            (Some(names @ [_, ..]), extra) => {
                let mut unique = NameSet::new();
                unique.extend(names.iter().cloned());
                unique.extend(extra.map(JsString::from));
                unique.into_iter().collect()
            }
            (_, Some(name)) => vec![JsString::from(name)],
            (_, None) => return LoadOutcome::Invalid { message: messages::NOTHING_TO_LOAD.into() },
        };

        let lookup = self.dynamic_lookup();
        let admitting = Admitting { live: step.catalog.live, lookup, phase: Phase::Load };
        let mut not_found = Vec::new();
        let mut already_loaded = Vec::new();
        let mut loaded: Vec<JsString> = Vec::new();
        let mut ahead = Ahead::new(filter.concurrency());
        let mut names = to_load.iter();
        loop {
            let next = ahead
                .next(|| {
                    let name = names.next()?;
                    let found = step.catalog.find(name.units(), lookup);
                    Some((name, self.admission(filter, found, admitting)))
                })
                .await;
            let Some((name, admitted)) = next else { break };
            if admitted.is_none() {
                not_found.push(name.clone());
                continue;
            }
            // `to_load` holds each name once, so a name is never in `loaded`
            // yet (asking would cost the square of the names).
            if step.loaded.lock().contains(name) {
                already_loaded.push(name.clone());
                continue;
            }
            loaded.push(name.clone());
        }

        // The reference records the loads in its store, awaits that, and
        // only then in the step's loaded names.
        self.add_loaded(&loaded, step.thread(), now_ms);
        filter.tick().await;
        step.loaded.lock().extend(loaded.iter().cloned());

        if to_load.len() == 1 && tool_names.is_none() {
            let name = &to_load[0];
            if !not_found.is_empty() {
                let suggestions = self.suggestions(step, name.units(), filter).await;
                return LoadOutcome::Single {
                    success: false,
                    message: messages::not_found(name, &suggestions),
                    tool_name: name.clone(),
                };
            }
            if let Some(name) = already_loaded.first() {
                return LoadOutcome::Single {
                    success: true,
                    message: messages::already_loaded(name),
                    tool_name: name.clone(),
                };
            }
            return LoadOutcome::Single {
                success: true,
                message: messages::loaded_one(&loaded[0]),
                tool_name: loaded[0].clone(),
            };
        }

        LoadOutcome::Multi {
            success: not_found.is_empty(),
            message: messages::loaded_many(&loaded, &already_loaded, &not_found),
            loaded_count: loaded.len(),
            loaded: (!loaded.is_empty()).then_some(loaded),
            not_found: (!not_found.is_empty()).then_some(not_found),
            already_loaded: (!already_loaded.is_empty()).then_some(already_loaded),
        }
    }

    /// Keys of the catalog's tables that look like a name that was not
    /// found (a listing, as the injected catalog is: nothing of the record is
    /// read to make it). Without a hook, every match but the name itself,
    /// whose key was just read and found empty (the message shows three);
    /// with one, the first three allowed, each key looked up when it
    /// is asked about as `load_tool` looks up a name (id first), as the
    /// reference does (the hook may change the record): a tool is read only
    /// for a key that matches, up to the third allowed. Awaited at its end,
    /// as the reference's, when the host [`awaits`](ToolFilter::awaits).
    async fn suggestions(&self, step: &Step, tool_name: &[u16], filter: &impl ToolFilter) -> Vec<JsString> {
        let mut matches = suggestion_matcher(tool_name);
        let record = &step.catalog.catalog;
        let candidates: Vec<JsString> = (0..record.entry_count())
            .map(|entry| record.key(entry))
            .filter(|key| matches(key))
            .map(JsString::from)
            .collect();
        let mut allowed = Vec::new();
        if !self.has_filter() {
            // The name itself was just looked up by its key, in the record as
            // it is now, and not found: no key of the record is that name now.
            allowed = candidates.into_iter().filter(|key| key.units() != tool_name).collect();
        } else {
            let admitting = Admitting { live: step.catalog.live, lookup: Lookup::IdFirst, phase: Phase::Load };
            let mut ahead = Ahead::new(filter.concurrency());
            let mut candidates = candidates.into_iter();
            loop {
                let next = ahead
                    .next(|| {
                        let key = candidates.next()?;
                        let found = step.catalog.find(key.units(), Lookup::IdFirst);
                        let admission = self.admission(filter, found, admitting);
                        Some((key, admission))
                    })
                    .await;
                let Some((key, admitted)) = next else { break };
                if admitted.is_some() {
                    allowed.push(key);
                    if allowed.len() >= 3 {
                        break;
                    }
                }
            }
        }
        filter.tick().await;
        allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::StoreStats;
    use crate::tool_search::testing::{self, *};
    use crate::tool_search::{Found, NoFilter};

    #[test]
    fn load_then_load_again_reports_already_loaded() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let first = step(&search, Some("t1"));
        let outcome = ready(search.load(&first, tool_name(&units("weather")), &NoFilter, 1000.0));
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
        let again = ready(search.load(&second, tool_name(&units("weather")), &NoFilter, 1000.0));
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
        let outcome = ready(search.load(&step, tool_name(&units("Weathe")), &NoFilter, 1000.0));
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
        let outcome = ready(search.load(
            &step,
            LoadInput { tool_name: Some(&units("weather")), tool_names: Some(&requested) },
            &NoFilter,
            1000.0,
        ));
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
            ready(search.load(&step, tool_names(&[]), &NoFilter, 1000.0)),
            LoadOutcome::Invalid { message: js("toolNames array must not be empty.") }
        );
        assert_eq!(
            ready(search.load(&step, tool_name(&[]), &NoFilter, 1000.0)),
            LoadOutcome::Invalid {
                message: js("You must provide either toolName (string) or toolNames (array) to load.")
            }
        );
    }

    #[test]
    fn suggestions_look_up_each_matching_key_of_the_tables_only() {
        let tools = Tools::new(&[
            ("weather", Some("getWeather"), "Get the weather forecast for a city"),
            ("email", Some("sendEmail"), "Send an email to a recipient"),
            ("weatherAlerts", None, "Severe weather alerts"),
            ("issue", Some("createIssue"), "Create a GitHub issue"),
        ]);
        let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        let mut host = ChangedRecord::new(&[]);
        host.denied = vec![0];
        let outcome = ready(search.load(&step, tool_name(&units("Weather")), &host, 1000.0));
        let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"Weather\" not found. Did you mean: weatherAlerts?");
        // `load_tool`'s own lookup, then each key that matches, in the tables'
        // order, looked up as `load_tool` looks up a name (id first): no other
        // key is read.
        assert_eq!(
            resolutions(&host.asked),
            [
                (Lookup::IdFirst, Found::Missing(js("Weather")), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(0), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(2), Phase::Load),
            ]
        );
        // Without a hook the keys that match are the suggestions: nothing is looked up.
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = testing::step(&search, Some("t"));
        host.asked.borrow_mut().clear();
        let outcome = ready(search.load(&step, tool_name(&units("Weather")), &host, 1000.0));
        let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"Weather\" not found. Did you mean: weather, weatherAlerts?");
        assert_eq!(resolutions(&host.asked), [(Lookup::KeyFirst, Found::Missing(js("Weather")), Phase::Load)]);
    }
}
