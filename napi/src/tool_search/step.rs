//! `NativeStep`: one `processInputStep`'s half in Rust, whose calls answer
//! at once or start a [`NativeOperation`] for the wrapper to drive.

use std::sync::Arc;

use mastra_native_processors::js::JsString;
use mastra_native_processors::tool_search::request::{load_tool_name, search_query};
use mastra_native_processors::tool_search::{
    CatalogCell, LoadInput, LoadedNames, NoFilter, Phase, SearchQuery, Step, ToolSearch, VerifyAfter,
};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::answers::{active_tools, utf16, ActiveTools, SearchToolsOutput};
use super::flat::{self, Checks};
use super::operation::{NativeOperation, Outcome};
use super::step_catalog::built;
// For the docs, which JavaScript's types repeat: a link without a path.
#[cfg(doc)]
use super::step_catalog::NativeStepCatalog;
use super::{read_tool_names, run_now, type_error};
use crate::buffers::Int32Out;
use crate::given::given;

/// One `processInputStep`'s half in Rust. Its catalog is kept apart, as the
/// wrapper may let go of it between calls (see [`NativeStepCatalog`]); each
/// call makes the core's [`Step`] of it.
#[napi]
pub struct NativeStep {
    pub(super) search: Arc<ToolSearch>,
    pub(super) catalog: Arc<CatalogCell>,
    pub(super) thread: Option<JsString>,
    pub(super) loaded: LoadedNames,
}

impl NativeStep {
    fn step(&self) -> Result<Step> {
        let (thread, loaded) = (self.thread.clone(), self.loaded.clone());
        Ok(Step { catalog: built(&self.catalog)?, thread, loaded })
    }

    /// `search_tools` as an operation (see [`search_operation`](Self::search_operation)),
    /// with the question's vector when the user's embedding model made one.
    fn start_search(&self, query: JsString, now: f64, query_vector: Option<Vec<f32>>) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        let awaits = search.awaits_as_reference(Phase::Search);
        Ok(NativeOperation::start(&self.search, Phase::Search, awaits, move |hook| async move {
            Outcome::Search(
                search
                    .search_with_vector(
                        &step,
                        SearchQuery { text: &query, vector: query_vector.as_deref() },
                        &hook,
                        now,
                    )
                    .await,
            )
        }))
    }
}

#[napi]
impl NativeStep {
    /// `search_tools`: the operation to drive when it must ask as it goes
    /// (the core's `ToolSearch::asks_as_it_goes`); else the search made at
    /// once, trusting the catalog's tables: the resolutions made go to `out`
    /// as checks (see [`flat`]), for the wrapper to check against the
    /// caller's record, which may have changed since (it runs
    /// [`search_operation`](Self::search_operation) instead should any not
    /// hold); then the answer, laid out after them and its text returned, or
    /// as an object when it does not fit.
    ///
    /// Positional: `env` is napi-rs's, the four others the JavaScript
    /// call's arguments (named, napi-rs would read each by name, as
    /// [`NativeToolSearch::begin_step`](crate::tool_search::NativeToolSearch::begin_step)'s note measures).
    #[napi(catch_unwind)]
    pub fn search(
        &self,
        env: Env,
        query: Unknown,
        now: f64,
        mut out: Int32Out,
        query_vector: Option<Float32Array>,
    ) -> Result<Either3<Utf16String, SearchToolsOutput, NativeOperation>> {
        let query = search_query(given(Some(query))?).map_err(|refusal| type_error(&env, refusal))?;
        let step = self.step()?;
        if self.search.asks_as_it_goes(Phase::Search) {
            return Ok(Either3::C(self.start_search(query, now, query_vector.map(|v| v.to_vec()))?));
        }
        let trusted = VerifyAfter::default();
        let outcome = run_now(self.search.search_with_vector(
            &step,
            SearchQuery { text: &query, vector: query_vector.as_deref() },
            &trusted,
            now,
        ))?;
        Ok(match flat::search_answer(outcome, Checks::of_search(trusted)?, &mut out)? {
            Either::A(text) => Either3::A(text),
            Either::B(output) => Either3::B(output),
        })
    }

    /// `search_tools` as an operation, asking the host about each candidate
    /// in rank order: when it must, or when the checks of
    /// [`search`](Self::search)'s answer do not hold.
    #[napi(catch_unwind)]
    pub fn search_operation(
        &self,
        env: Env,
        query: Unknown,
        now: f64,
        query_vector: Option<Float32Array>,
    ) -> Result<NativeOperation> {
        let query = search_query(given(Some(query))?).map_err(|refusal| type_error(&env, refusal))?;
        self.start_search(query, now, query_vector.map(|v| v.to_vec()))
    }

    /// `load_tool`: the operation to drive, asking the host about each name
    /// and suggestion, in time with the reference (see the core's
    /// `ToolSearch::awaits_as_reference`).
    #[napi(catch_unwind)]
    pub fn load(&self, env: Env, tool_name: Unknown, tool_names: Unknown, now: f64) -> Result<NativeOperation> {
        let tool_name = load_tool_name(given(Some(tool_name))?).map_err(|refusal| type_error(&env, refusal))?;
        let tool_names = read_tool_names(&env, tool_names)?;
        let (search, step) = (self.search.clone(), self.step()?);
        let awaits = search.awaits_as_reference(Phase::Load);
        Ok(NativeOperation::start(&self.search, Phase::Load, awaits, move |hook| async move {
            Outcome::Load(
                search
                    .load(
                        &step,
                        LoadInput { tool_name: tool_name.as_deref(), tool_names: tool_names.as_deref() },
                        &hook,
                        now,
                    )
                    .await,
            )
        }))
    }

    /// The loaded tools as of this step's start: `null` when nothing is
    /// loaded, which most steps find, for far less than an empty answer
    /// costs to make; the operation to drive when it must ask as it goes
    /// (with a hook); else the tools, trusting the catalog's tables, with the
    /// checks (see [`search`](Self::search)).
    #[napi(catch_unwind)]
    pub fn active(&self) -> Result<Option<Either<ActiveTools, NativeOperation>>> {
        let names = {
            let loaded = self.loaded.lock();
            if loaded.is_empty() {
                return Ok(None);
            }
            loaded.clone()
        };
        let catalog = built(&self.catalog)?;
        if self.search.asks_as_it_goes(Phase::Active) {
            return Ok(Some(Either::B(self.active_operation()?)));
        }
        let trusted = VerifyAfter::default();
        let tools = run_now(self.search.active_tools(&catalog, &names, &trusted))?;
        Ok(Some(Either::A(active_tools(tools, Checks::of(trusted)?))))
    }

    /// The loaded tools as an operation, asking the host about each
    /// (phase `'active'`): when the checks of [`active`](Self::active)'s
    /// answer do not hold.
    #[napi(catch_unwind)]
    pub fn active_operation(&self) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        Ok(NativeOperation::start(&self.search, Phase::Active, false, move |hook| async move {
            let names = step.loaded.lock().clone();
            Outcome::Active(search.active_tools(&step.catalog, &names, &hook).await)
        }))
    }

    /// The system message listing the step's catalog (`injectCatalog`), or
    /// `null` when there is none, or the operation to drive with a hook,
    /// which it asks about each tool (phase `'search'`). Without a hook the
    /// message depends on the catalog alone, so the wrapper may keep it with
    /// the catalog.
    #[napi(catch_unwind)]
    pub fn catalog_message(&self) -> Result<Either<Option<Utf16String>, NativeOperation>> {
        let (search, step) = (self.search.clone(), self.step()?);
        if !search.options().search.has_filter {
            let message = run_now(search.catalog_message(&step.catalog, &NoFilter))?;
            return Ok(Either::A(message.map(utf16)));
        }
        Ok(Either::B(NativeOperation::start(&self.search, Phase::Search, false, move |hook| async move {
            Outcome::Catalog(search.catalog_message(&step.catalog, &hook).await)
        })))
    }
}
