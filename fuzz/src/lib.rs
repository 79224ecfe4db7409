//! What the fuzz targets share: input generators, small oracles and the
//! invariant checks the binding relies on.
//!
//! Every target is `fuzz_targets/<name>.rs`, one line calling
//! `mnp_fuzz::<name>::run(data)`. A `run` reads the fuzzer's bytes through
//! [`arbitrary::Unstructured`]: most inputs build a *structured* tape that
//! follows the parser's grammar the way the binding writes it (so the fuzzer
//! gets past the parser into the decisions), the rest a raw tape of
//! arbitrary values. Either way the parser must not panic, hang or allocate
//! without bound, and whatever it answers must be something the binding can
//! apply; a broken invariant panics, which libFuzzer reports as a crash.

pub mod fielded_search;
pub mod gen;
pub mod message_facts;
pub mod message_list_tape;
pub mod model_output;
pub mod prompt_tape;
pub mod releases;
pub mod search_table;
pub mod source_map;
pub mod tool_catalog;
