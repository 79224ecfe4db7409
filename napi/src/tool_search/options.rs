//! `NativeToolSearchOptions`: the constructor options as the wrapper read
//! them, checked and applied for the host release; and what the wrapper
//! needs to know about a processor, read once ([`ToolSearchSettings`]).

use mastra_native_processors::releases;
use mastra_native_processors::search::{HybridConfig, Ranking, VectorSource};
use mastra_native_processors::tool_search::options::GivenOptions;
use mastra_native_processors::tool_search::ToolSearchOptions;
use napi::bindgen_prelude::*;
use napi_derive::napi;

// For the docs, which JavaScript's types repeat: a link without a path.
#[cfg(doc)]
use super::locate_builtin_model;
use super::{internal_error, type_error};
use crate::given::given;

/// The constructor options as the wrapper read them from the options object
/// (`search: options.search`, `topK: options.search?.topK`, ...).
#[napi(object, object_to_js = false)]
pub struct ToolSearchOptionValues<'a> {
    pub search: Option<Unknown<'a>>,
    pub top_k: Option<Unknown<'a>>,
    pub min_score: Option<Unknown<'a>>,
    pub auto_load: Option<Unknown<'a>>,
    pub storage: Option<Unknown<'a>>,
    pub ttl: Option<Unknown<'a>>,
    pub filter: Option<Unknown<'a>>,
    pub include_resolved_tools: Option<Unknown<'a>>,
    pub inject_catalog: Option<Unknown<'a>>,
    pub ranking: Option<Unknown<'a>>,
    pub embedder: Option<Unknown<'a>>,
    pub embedder_do_embed: Option<Unknown<'a>>,
    pub model: Option<Unknown<'a>>,
    pub model_path: Option<Unknown<'a>>,
    pub syntax: Option<Unknown<'a>>,
    pub filter_concurrency: Option<Unknown<'a>>,
}

impl ToolSearchOptionValues<'_> {
    fn given(&self) -> Result<GivenOptions> {
        Ok(GivenOptions {
            search: given(self.search)?,
            top_k: given(self.top_k)?,
            min_score: given(self.min_score)?,
            auto_load: given(self.auto_load)?,
            storage: given(self.storage)?,
            ttl: given(self.ttl)?,
            filter: given(self.filter)?,
            include_resolved_tools: given(self.include_resolved_tools)?,
            inject_catalog: given(self.inject_catalog)?,
            ranking: given(self.ranking)?,
            embedder: given(self.embedder)?,
            embedder_do_embed: given(self.embedder_do_embed)?,
            model: given(self.model)?,
            model_path: given(self.model_path)?,
            syntax: given(self.syntax)?,
            filter_concurrency: given(self.filter_concurrency)?,
        })
    }
}

/// What the wrapper needs to know about a processor, read once.
#[napi(object)]
pub struct ToolSearchSettings {
    /// The system instruction each step adds.
    pub instruction: String,
    /// `search_tools`' description.
    pub search_description: String,
    /// The description of `search_tools`' `query`, for the syntax it takes.
    pub search_query_description: String,
    /// Whether `load_tool` is offered.
    pub offers_load_tool: bool,
    /// Whether the step's own tools are searchable (`includeResolvedTools`),
    /// so the wrapper hands them over.
    pub searches_step_tools: bool,
    /// Whether the store reads the messages (the wrapper then reports them).
    pub reads_messages: bool,
    /// Whether there is a filter hook to ask.
    pub has_filter: bool,
    /// Whether steps list the catalog (`injectCatalog`, as the host honours it).
    pub injects_catalog: bool,
    /// How often to sweep idle threads, or `null` for never.
    pub sweep_interval_ms: Option<f64>,
    /// Whether the user's embedding model makes the vectors (`'hybrid'`
    /// with `search.embedder`): the wrapper embeds `toolTexts()`, sets them
    /// with `setToolVectors`, and embeds each question.
    pub takes_vectors: bool,
    /// How many tools the hook may be asked about at once: 1 drives
    /// operations with `resume`, more with `exchange`.
    pub filter_concurrency: u32,
    /// Whether `search_tools` must ask as it goes (the core's
    /// `ToolSearch::asks_as_it_goes`): the wrapper then starts its
    /// operation (`searchOperation`) without trying `search` first.
    pub search_asks_as_it_goes: bool,
    /// Whether a `search_tools` operation awaits as the reference (the
    /// core's `ToolSearch::awaits_as_reference`), as its
    /// `awaitsAsReference` would say, known once for the processor.
    pub search_awaits_as_reference: bool,
}

/// The constructor options, applied for the host release. They are read
/// before the tools, so the wrapper knows whether to read the tools'
/// parameters too.
#[napi]
pub struct NativeToolSearchOptions {
    pub(super) options: ToolSearchOptions,
    /// `search.model.path`, where the built-in model was handed over.
    model_file: Option<String>,
}

#[napi]
impl NativeToolSearchOptions {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, values: ToolSearchOptionValues, host_release: String) -> Result<Self> {
        let host = releases::behaviours(&host_release).map_err(internal_error)?;
        let given = values.given()?;
        let options = ToolSearchOptions::from_given(&given, &host).map_err(|refusal| type_error(&env, refusal))?;
        let model_file = given.model_file(&options);
        Ok(Self { options, model_file })
    }

    /// Whether the catalogs keep the tools' parameters (for the ranking, or
    /// a `search_tools` pattern), which the wrapper then sends beside every
    /// tool table.
    #[napi(getter, catch_unwind)]
    pub fn reads_parameters(&self) -> bool {
        self.options.reads_parameters()
    }

    /// Whether the ranking embeds with the built-in model (`'hybrid'`
    /// without `search.embedder`): the wrapper then names its file with
    /// [`locate_builtin_model`] before the tools cross.
    #[napi(getter, catch_unwind)]
    pub fn uses_builtin_model(&self) -> bool {
        matches!(self.options.ranking, Ranking::Hybrid(HybridConfig { vectors: VectorSource::BuiltIn, .. }))
    }

    /// The built-in model's file as `search.model` handed it over (the model
    /// package's `path`), or `null`: the wrapper then finds the package.
    #[napi(getter, catch_unwind)]
    pub fn builtin_model_file(&self) -> Option<String> {
        self.model_file.clone()
    }
}
