//! Which `@mastra/core` release the package stands in for, and its rules.

use mastra_native_processors::releases::{self, FilterStage, PreservedResults};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Where the host's `ToolCallFilter` works.
#[napi(string_enum = "camelCase")]
pub enum ToolCallFilterStage {
    /// `processInput` / `processInputStep` on the message list.
    MessageList,
    /// `processLLMRequest` on the provider prompt.
    Prompt,
}

/// Which removed results the prompt filter's `preserveModelOutput` turns into text.
#[napi(string_enum = "camelCase")]
pub enum PreservedResultsRule {
    Every,
    WithOwnModelOutput,
}

/// The rules of one release's processors.
#[napi(object)]
pub struct ReleaseBehaviours {
    pub tool_call_filter_stage: ToolCallFilterStage,
    pub preserved_results: PreservedResultsRule,
    pub inject_catalog: bool,
}

/// The rules of the `@mastra/core` release with this version; an `Error`
/// naming the supported range when it is not supported.
#[napi(catch_unwind)]
pub fn release_behaviours(version: String) -> Result<ReleaseBehaviours> {
    let behaviours =
        releases::behaviours(&version).map_err(|error| Error::new(Status::GenericFailure, error.to_string()))?;
    Ok(ReleaseBehaviours {
        tool_call_filter_stage: match behaviours.filter_stage {
            FilterStage::MessageList => ToolCallFilterStage::MessageList,
            FilterStage::Prompt => ToolCallFilterStage::Prompt,
        },
        preserved_results: match behaviours.preserved_results {
            PreservedResults::Every => PreservedResultsRule::Every,
            PreservedResults::WithOwnModelOutput => PreservedResultsRule::WithOwnModelOutput,
        },
        inject_catalog: behaviours.inject_catalog,
    })
}

/// The supported `@mastra/core` releases, as an npm range.
#[napi(catch_unwind)]
pub fn supported_mastra_range() -> String {
    releases::supported_range()
}
