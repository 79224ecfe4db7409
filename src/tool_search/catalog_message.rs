//! The system message that lists a step's catalog (`injectCatalog`): each
//! key of the catalog's tables, as the hook (if any) allows it.

use crate::js::JsString;

use super::admission::Admitting;
use super::ahead::{Ahead, Decision};
use super::step_catalog::listed;
use super::{messages, Lookup, Phase, StepCatalog, ToolFilter, ToolSearch};

impl ToolSearch {
    /// The system message that lists a step's catalog (`injectCatalog`), or
    /// `None` when the option is off or nothing is listed.
    ///
    /// Each key of the catalog's tables, in `Object.keys` order, resolves to
    /// a tool as `load_tool` resolves a name (key first; id first with a
    /// filter hook), which the hook may hide (phase `'search'`). A line shows
    /// the tool's `id || key`, as the tables hold it, and the description
    /// indexed under that name, truncated as in search results. With a hook,
    /// each key is resolved when it is listed (in the caller's record, for a
    /// live catalog: see [`lookup`](super::lookup)), as the reference does. Without one, the
    /// message depends on the catalog alone, so a caller may keep it for as
    /// long as it keeps the catalog.
    pub async fn catalog_message(&self, catalog: &StepCatalog, filter: &impl ToolFilter) -> Option<JsString> {
        if !self.options.inject_catalog {
            return None;
        }
        let index = &*catalog.catalog;
        let has_filter = self.has_filter();
        let admitting = Admitting { live: catalog.live, lookup: Lookup::IdFirst, phase: Phase::Search };
        let mut lines = Vec::new();
        let mut ahead = Ahead::new(filter.concurrency());
        let mut entries = 0..index.entry_count();
        loop {
            let next = ahead
                .next(|| loop {
                    let entry = entries.next()?;
                    let key = index.key(entry);
                    if !has_filter {
                        let Some(tool) = index.find_for_dynamic_name(key, false) else { continue };
                        return Some((key, Decision::Now(Some(index.id(tool)))));
                    }
                    let (found, entry) = listed(catalog, key);
                    let name = entry.and_then(|entry| index.id(entry));
                    let admission = self.admission(filter, found, admitting);
                    let decision = match admission {
                        Decision::Now(tool) => Decision::Now(tool.map(|_| name)),
                        Decision::Asking(asking) => Decision::Asking(async move { asking.await.map(|_| name) }),
                    };
                    return Some((key, decision));
                })
                .await;
            let Some((key, listed_as)) = next else { break };
            let Some(id) = listed_as else { continue };
            let name = id.filter(|id| !id.is_empty()).unwrap_or(key);
            // The description is the one indexed under that name, which a
            // later tool of the same name may have replaced.
            let description = index.find_doc(name).map_or(&[][..], |doc| index.description(index.doc_entry(doc)));
            messages::push_catalog_line(&mut lines, name, description);
        }
        (!lines.is_empty()).then(|| messages::catalog(self.options.auto_load, self.options.syntax, &lines))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_search::testing::*;
    use crate::tool_search::{NoFilter, ToolSearchOptions};

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
        let message = ready(search.catalog_message(&step.catalog, &NoFilter)).unwrap();
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
        let message = ready(filtered.catalog_message(&step.catalog, &hook)).unwrap();
        assert_eq!(
            message.to_string_lossy(),
            format!("{}\n\nAvailable tools:\n- `bare`\n- `getWeather`: Replaced", messages::CATALOG_HEADER)
        );
        assert_eq!(
            *hook.calls.borrow(),
            [(0, Phase::Search), (1, Phase::Search), (2, Phase::Search), (3, Phase::Search)]
        );
    }

    #[test]
    fn a_catalog_key_resolves_like_a_loaded_name() {
        // The key `getWeather` is also the first tool's id: without a hook the
        // key wins, with one the id does (and the hook is asked about that tool).
        let tools = Tools::new(&[("weather", Some("getWeather"), "Weather"), ("getWeather", Some("other"), "Other")]);
        let plain =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(false) }, &tools.entries()).unwrap();
        let message = ready(plain.catalog_message(&step(&plain, None).catalog, &NoFilter)).unwrap();
        assert!(message.to_string_lossy().ends_with("\n- `getWeather`: Weather\n- `other`: Other"), "{message}");
        let hooked =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
        let hook = Recorder::denying(&[]);
        let message = ready(hooked.catalog_message(&step(&hooked, None).catalog, &hook)).unwrap();
        assert!(message.to_string_lossy().ends_with("\n- `getWeather`: Weather\n- `getWeather`: Weather"), "{message}");
        assert_eq!(*hook.calls.borrow(), [(0, Phase::Search), (0, Phase::Search)]);
    }

    #[test]
    fn the_catalog_is_not_injected_when_off_empty_or_before_the_host_has_the_option() {
        let tools = weather_tools();
        let off = ToolSearch::new(options(false), &tools.entries()).unwrap();
        assert_eq!(ready(off.catalog_message(&step(&off, None).catalog, &NoFilter)), None);
        let empty = ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(false) }, &[]).unwrap();
        assert_eq!(ready(empty.catalog_message(&step(&empty, None).catalog, &NoFilter)), None);
        let requested = ToolSearchOptions { inject_catalog: true, ..options(false) };
        let old_host = crate::releases::behaviours("1.66.0").unwrap();
        assert!(!requested.for_host(&old_host).inject_catalog);
        assert!(requested.for_host(&crate::releases::behaviours("1.67.0").unwrap()).inject_catalog);
        let auto = ToolSearch::new(ToolSearchOptions { auto_load: true, ..requested }, &tools.entries()).unwrap();
        let message = ready(auto.catalog_message(&step(&auto, None).catalog, &NoFilter)).unwrap();
        assert!(message.to_string_lossy().starts_with(messages::CATALOG_HEADER_AUTO_LOAD));
    }
}
