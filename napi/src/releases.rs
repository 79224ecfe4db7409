//! Which `@mastra/core` release the package stands in for, and its rules.

use std::path::Path;

use mastra_native_processors::releases::fingerprint::{Manifest, PROCESSOR_SOURCES};
use mastra_native_processors::releases::{
    self, known, FilterStage, PreservedResults, Recognised, Serve, FORCE_HOST_PROCESSORS, FORCE_VARIABLE,
};
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

/// The rules of the known `@mastra/core` release with this version; an
/// `Error` when its processors are not known.
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

/// The accepted `@mastra/core` releases, as an npm range.
#[napi(catch_unwind)]
pub fn mastra_peer_range() -> String {
    releases::peer_range()
}

/// What the package serves beside the installed `@mastra/core`.
#[napi(object)]
pub struct HostServing {
    /// `'native'` or `'fallback'` (the host's own processors).
    pub implementation: String,
    /// With `'native'`: the tested release whose rules apply.
    pub rules_of: Option<String>,
    /// With `'native'`: `'version'` (the table knows it) or `'sources'`
    /// (its processors' sources are a tested release's).
    pub recognised_by: Option<String>,
    /// With `'fallback'`: why, in one sentence.
    pub reason: Option<String>,
    /// With `'fallback'`: what may bring native speed back, if anything.
    pub remedy: Option<String>,
}

/// What to serve beside the `@mastra/core` whose `package.json` is at this
/// path. Reads the host's sources only for a release the table does not
/// know; [`FORCE_VARIABLE`] set to [`FORCE_HOST_PROCESSORS`] serves the
/// host's own processors. An `Error` for a host older than the first
/// supported release.
#[napi(catch_unwind)]
pub fn serve_host(package_json: String) -> Result<HostServing> {
    let forced = std::env::var(FORCE_VARIABLE).ok();
    let served = releases::serve(Path::new(&package_json), forced.as_deref())
        .map_err(|error| Error::new(Status::GenericFailure, error.to_string()))?;
    Ok(match served {
        Serve::Native { rules_of, recognised } => HostServing {
            implementation: "native".into(),
            rules_of: Some(rules_of.to_string()),
            recognised_by: Some(match recognised {
                Recognised::ByVersion => "version".into(),
                Recognised::BySources => "sources".into(),
            }),
            reason: None,
            remedy: None,
        },
        Serve::HostProcessors(reason) => HostServing {
            implementation: "fallback".into(),
            rules_of: None,
            recognised_by: None,
            reason: Some(reason.to_string()),
            remedy: reason.remedy().map(str::to_owned),
        },
    })
}

/// The environment variable and value that make the package serve the
/// host's own processors.
#[napi(object)]
pub struct ForceHostProcessors {
    pub variable: String,
    pub value: String,
}

#[napi(catch_unwind)]
pub fn force_host_processors() -> ForceHostProcessors {
    ForceHostProcessors { variable: FORCE_VARIABLE.into(), value: FORCE_HOST_PROCESSORS.into() }
}

/// A release whose processors the package knows.
#[napi(object)]
pub struct KnownMastraRelease {
    pub version: String,
    /// Whether `npm test` compares ours with this release's own processors.
    pub tested: bool,
    /// The tested release whose rules it follows (itself when tested).
    pub rules_of: String,
    /// SHA-256 of each of `processorSources()`, in that order.
    pub digests: Vec<String>,
}

/// Every release whose processors the package knows, oldest first.
#[napi(catch_unwind)]
pub fn known_mastra_releases() -> Vec<KnownMastraRelease> {
    known::KNOWN_RELEASES
        .iter()
        .map(|known| KnownMastraRelease {
            version: known.release.to_string(),
            tested: known.tested,
            rules_of: known.rules_of().to_string(),
            digests: known.sources.iter().map(|digest| (*digest).to_owned()).collect(),
        })
        .collect()
}

/// The sources whose digests make a release's processors' fingerprint.
#[napi(catch_unwind)]
pub fn processor_sources() -> Vec<String> {
    PROCESSOR_SOURCES.iter().map(|source| (*source).to_owned()).collect()
}

/// The fingerprint of an installed `@mastra/core` (its `package.json` path).
#[napi(object)]
pub struct ProcessorsFingerprint {
    pub version: String,
    /// SHA-256 of each of `processorSources()`; empty when unreadable.
    pub digests: Vec<String>,
    /// Why the sources could not be read, if they could not.
    pub unreadable: Option<String>,
}

/// Reads the fingerprint of an installed `@mastra/core`'s processors, as the
/// import does for a release the table does not know (`npm run check-release`).
#[napi(catch_unwind)]
pub fn processors_fingerprint(package_json: String) -> Result<ProcessorsFingerprint> {
    let manifest = Manifest::read(Path::new(&package_json)).map_err(|error| Error::new(Status::InvalidArg, error))?;
    let (digests, unreadable) = match manifest.fingerprint() {
        Ok(fingerprint) => (fingerprint.digests().to_vec(), None),
        Err(why) => (Vec::new(), Some(why.to_string())),
    };
    Ok(ProcessorsFingerprint { version: manifest.version, digests, unreadable })
}
