//! Node-API bindings of `mastra-native-processors`.
//!
//! Thin on purpose: each class converts its options once, accepts the flat
//! encodings that the JavaScript wrappers in `lib/` produce, and hands back
//! plans for them to apply. Every decision lives in the core crate.

mod tool_call_filter;
mod tool_search;
mod utf16;
