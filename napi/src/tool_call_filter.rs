//! `NativeToolCallFilter`: the Rust half of `ToolCallFilter`.

use std::collections::HashSet;

use mastra_core_logic::tool_call_filter::{self as core, CallId, Exclude, FilterOptions, StepHistory};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Why a history was refused, for the wrapper to throw as a `TypeError`.
fn type_error(error: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, format!("ToolCallFilter: {error}"))
}

#[napi]
pub struct NativeToolCallFilter {
    options: FilterOptions,
}

#[napi]
impl NativeToolCallFilter {
    /// `exclude`: 0 every tool, 1 a non-empty list (names are matched in
    /// JavaScript), 2 an empty list. `filter_after_tool_steps` is `undefined` to
    /// leave agent-loop steps alone.
    #[napi(constructor)]
    pub fn new(exclude: u32, preserve_model_output: bool, filter_after_tool_steps: Option<f64>) -> Result<Self> {
        let exclude = match exclude {
            0 => Exclude::All,
            1 => Exclude::Listed,
            2 => Exclude::Nothing,
            other => return Err(type_error(format!("unknown exclude mode {other}"))),
        };
        Ok(Self { options: FilterOptions { exclude, preserve_model_output, filter_after_tool_steps } })
    }

    /// Whether `processInput` has to look at the messages at all.
    #[napi(getter)]
    pub fn reads_messages(&self) -> bool {
        self.options.exclude != Exclude::Nothing
    }

    /// Whether tool-call ids decide anything outside step filtering.
    #[napi(getter)]
    pub fn matches_by_call_id(&self) -> bool {
        self.options.exclude == Exclude::Listed
    }

    #[napi(getter)]
    pub fn preserves_model_output(&self) -> bool {
        self.options.preserve_model_output
    }

    #[napi(getter)]
    pub fn filters_steps(&self) -> bool {
        self.options.filter_after_tool_steps.is_some()
    }

    /// Plans a history (see the core's tape and plan formats).
    #[napi]
    pub fn plan(&self, tape: Int32Array, preserve: Option<Int32Array>) -> Result<Int32Array> {
        let preserve: HashSet<CallId> = preserve.as_deref().unwrap_or_default().iter().copied().collect();
        core::plan_tape(&self.options, &tape, &preserve).map(Int32Array::new).map_err(type_error)
    }

    /// One agent-loop step: takes the history so far (`seen` ids, and the
    /// steps as `[count, ids...]*`) and the response tape, and answers
    /// `[seen_count, seen..., step_count, step..., preserve_count, preserve...]`.
    #[napi]
    pub fn advance_steps(&self, seen: Int32Array, steps: Int32Array, response_tape: Int32Array) -> Result<Int32Array> {
        let Some(keep_steps) = self.options.filter_after_tool_steps else {
            return Err(type_error("step filtering is off"));
        };
        let mut history = StepHistory { seen: seen.to_vec(), steps: unpack_steps(&steps).map_err(type_error)? };
        let response = core::tape::Tape::new(&response_tape).messages().map_err(type_error)?;
        let preserve = history.advance(&core::tool_call_ids(&response), keep_steps);

        let step = history.steps.last().map(Vec::as_slice).unwrap_or_default();
        let mut out = Vec::with_capacity(history.seen.len() + step.len() + preserve.len() + 3);
        out.push(history.seen.len() as i32);
        out.extend_from_slice(&history.seen);
        out.push(step.len() as i32);
        out.extend_from_slice(step);
        out.push(preserve.len() as i32);
        out.extend(preserve);
        Ok(Int32Array::new(out))
    }
}

fn unpack_steps(packed: &[i32]) -> std::result::Result<Vec<Vec<CallId>>, &'static str> {
    let mut steps = Vec::new();
    let mut rest = packed;
    while let Some((&count, tail)) = rest.split_first() {
        let count = usize::try_from(count).ok().filter(|&n| n <= tail.len()).ok_or("malformed step history")?;
        steps.push(tail[..count].to_vec());
        rest = &tail[count..];
    }
    Ok(steps)
}
