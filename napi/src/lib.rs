//! Node-API bindings of `mastra-native-processors`.
//!
//! Thin on purpose: each class converts its options once, accepts the flat
//! encodings that the JavaScript halves in `lib/` produce, and hands back
//! answers for them to apply. Every decision, code and default lives in the
//! core crate; every entry point catches panics, so none can abort Node.

mod buffers;
mod diagnostics;
mod given;
mod protocol;
mod raw;
mod releases;
mod tool_call_filter;
mod tool_search;
mod utf16;

use napi::bindgen_prelude::*;
use napi::Callback;
use napi_derive::napi;

/// The plain Node-API callbacks the addon exports (see [`raw`]), by their
/// JavaScript names.
const PLAIN_CALLBACKS: [(&str, Callback); 4] = [
    ("filterPrompt", tool_call_filter::filter_prompt),
    ("planMessageList", tool_call_filter::plan_message_list),
    ("planLegacyLists", tool_call_filter::plan_legacy_lists),
    ("__panicInPlainCallbackForTesting", diagnostics::panic_in_plain_callback),
];

/// Adds [`PLAIN_CALLBACKS`] to the exports, as the addon loads.
#[napi(module_exports)]
fn export_plain_callbacks(mut exports: Object, env: Env) -> Result<()> {
    for (name, callback) in PLAIN_CALLBACKS {
        exports.set_named_property(name, env.create_function::<(), ()>(name, callback)?)?;
    }
    Ok(())
}
