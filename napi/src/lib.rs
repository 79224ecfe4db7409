//! Node-API bindings of `mastra-native-processors`.
//!
//! Thin on purpose: each class converts its options once, accepts the flat
//! encodings that the JavaScript halves in `lib/` produce, and hands back
//! answers for them to apply. Every decision, code and default lives in the
//! core crate; every entry point catches panics, so none can abort Node.

mod buffers;
mod diagnostics;
mod protocol;
mod raw;
mod releases;
mod tool_call_filter;
mod tool_search;
mod utf16;
