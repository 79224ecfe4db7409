//! The pure logic behind `mastra-native-processors`.
//!
//! Nothing here knows about Node-API: the `napi/` crate translates JavaScript
//! values into these types and back, and every decision is made here, where
//! `cargo test` can reach it without Node.

pub mod js;
pub mod protocol;
pub mod releases;
pub mod search;
pub mod stores;
pub mod tool_call_filter;
pub mod tool_search;

#[cfg(test)]
mod test_rng;
