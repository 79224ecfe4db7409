//! The pure logic behind `mastra-native-processors`.
//!
//! Nothing here knows about Node-API: the `napi/` crate translates JavaScript
//! values into these types and back, and every decision is made here, where
//! `cargo test` can reach it without Node.
//!
//! # Who decides what
//!
//! Rust decides. Options and their defaults, which values are refused and
//! how a refusal reads ([`given::Given::describe`],
//! [`tool_call_filter::refusal::refusal`]), threads,
//! catalogs, search, loads, loaded state, which tools a step hands out, every
//! string a model reads, the result shapes, the processors' ids and names,
//! how a name resolves in the caller's record (which reads, in which order),
//! whether an operation asks the hook as it goes or trusts its tables and is
//! checked after, which slot of the tool pool a tool takes and which are let
//! go of: all of it is here. Every code, layout, limit and shared string of a
//! boundary is declared once, in the processor's `protocol` module (see
//! [`protocol`]), and exported to JavaScript from that declaration.
//!
//! JavaScript (`lib/`) reads JavaScript objects (tools records, options,
//! request contexts, messages, prompts), calls the user's hooks and
//! `createTool`/zod, and applies Rust's answers to the objects. It keeps the
//! rules only JavaScript can keep, about object identity and lifetime, with
//! their constants beside them: which tool object holds which pool slot (a
//! `WeakMap`, a `FinalizationRegistry`), how many step catalogs stay built
//! within one turn of the event loop, the message lists remembered from step
//! to step and how much of them is checked again. Where it finds a value it
//! cannot read as Rust needs it, it hands the value to Rust to be refused.

pub mod given;
pub mod js;
pub mod protocol;
pub mod releases;
pub mod search;
pub mod stores;
pub mod tool_call_filter;
pub mod tool_search;

#[cfg(test)]
mod test_rng;
