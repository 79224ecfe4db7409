//! One `processInputStep` as the operations see it ([`Step`]: its catalog,
//! its thread, and the loaded names its calls share), and what its
//! meta-tool calls take and give: `search_tools` ([`SearchQuery`],
//! [`SearchOutcome`]) and `load_tool` ([`LoadInput`], [`LoadOutcome`]).

use std::sync::Arc;

use parking_lot::Mutex;

use crate::js::JsString;
use crate::search::SearchHit;
use crate::stores::NameSet;

use super::StepCatalog;

/// One `processInputStep`: its catalog, thread and the loaded names as of its
/// start, which its own `search_tools` and `load_tool` calls add to.
pub struct Step {
    pub catalog: Arc<StepCatalog>,
    pub thread: Option<JsString>,
    /// Shared, so that a binding that keeps the step's catalog apart (in a
    /// [`CatalogCell`](super::CatalogCell)) can make the step anew for each
    /// call without losing what earlier calls loaded.
    pub loaded: LoadedNames,
}

/// A step's loaded names, shared by its calls.
pub type LoadedNames = Arc<Mutex<NameSet>>;

/// `names`, to share.
pub fn loaded_names(names: NameSet) -> LoadedNames {
    Arc::new(Mutex::new(names))
}

impl Step {
    pub fn new(catalog: Arc<StepCatalog>, thread: Option<JsString>, loaded: NameSet) -> Step {
        Step { catalog, thread, loaded: loaded_names(loaded) }
    }

    pub(super) fn thread(&self) -> Option<&[u16]> {
        self.thread.as_ref().map(JsString::units)
    }
}

/// The question of a `search_tools` call: its `query` (words, or a pattern
/// with `search: { syntax: 'regex' }`), and with the user's embedding model
/// the query's vector.
#[derive(Clone, Copy, Debug)]
pub struct SearchQuery<'q> {
    pub text: &'q [u16],
    pub vector: Option<&'q [f32]>,
}

/// What `search_tools` returns.
#[derive(Debug, PartialEq)]
pub struct SearchOutcome {
    pub results: Vec<SearchHit>,
    pub message: JsString,
}

/// What a `load_tool` call asks for: its `toolName` and its `toolNames`, as
/// the binding read them (see [`request`](super::request)).
#[derive(Clone, Copy, Debug)]
pub struct LoadInput<'a> {
    pub tool_name: Option<&'a [u16]>,
    pub tool_names: Option<&'a [JsString]>,
}

/// What `load_tool` returns, in its three shapes.
#[derive(Debug, PartialEq)]
pub enum LoadOutcome {
    /// `{ success: false, message }`: nothing usable was asked for.
    Invalid { message: JsString },
    /// `{ success, message, toolName }`: the single-`toolName` form.
    Single { success: bool, message: JsString, tool_name: JsString },
    /// `{ success, message, loadedCount, loaded, notFound, alreadyLoaded }`,
    /// the lists `undefined` when empty.
    Multi {
        success: bool,
        message: JsString,
        loaded_count: usize,
        loaded: Option<Vec<JsString>>,
        not_found: Option<Vec<JsString>>,
        already_loaded: Option<Vec<JsString>>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_search::testing::*;
    use crate::tool_search::{CatalogCell, LoadOutcome, NoFilter, ToolSearch, ToolSearchOptions};

    #[test]
    fn a_catalog_cell_is_let_go_of_and_restored_while_its_steps_share_their_loaded_names() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        let resolved =
            Tools::new(&[("email", Some("mail"), "Resolved mail tool"), ("memory", None, "Remember things")]);
        let make = || search.step_catalog(&tools.entries(), &resolved.entries()).unwrap();
        let cell = CatalogCell::new(Arc::new(make()));
        let loaded = loaded_names(NameSet::new());
        let step = |cell: &CatalogCell| Step { catalog: cell.get().unwrap(), thread: None, loaded: loaded.clone() };

        let before = step(&cell);
        let first = ready(search.load(&before, tool_name(&units("mail")), &NoFilter, 0.0));
        cell.let_go();
        assert!(cell.get().is_none());
        // A call under way keeps its own catalog.
        assert_eq!(before.catalog.catalog.entry_count(), 4);

        cell.restore(make());
        let after = step(&cell);
        let again = ready(search.load(&after, tool_name(&units("mail")), &NoFilter, 0.0));
        assert!(matches!(first, LoadOutcome::Single { success: true, .. }), "{first:?}");
        let LoadOutcome::Single { message, .. } = again else { panic!("{again:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"mail\" is already loaded and available.");
        let query = units("mail email memory");
        assert_eq!(
            ready(search.search(&after, &query, &NoFilter, 0.0)),
            ready(search.search(&before, &query, &NoFilter, 0.0))
        );
    }
}
