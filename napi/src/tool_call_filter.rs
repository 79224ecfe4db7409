//! `NativeToolCallFilter`: the Rust half of `ToolCallFilter`.

use std::collections::HashSet;

use mastra_core_logic::tool_call_filter::{self as core, CallId, Exclude, FilterOptions, StepHistory, TapePlan};
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

    /// Plans a history (see the core's tape and plan formats) into `out`,
    /// which must be at least as long as the tape (a plan never is longer),
    /// and returns the plan's length. A negative answer `-n` means the tape
    /// left `n` array JSON slots uncomputed that are needed: their positions
    /// are in `out`, to be filled before asking again. Borrowing the caller's
    /// buffers keeps the call free of allocations JavaScript would collect.
    #[napi]
    pub fn plan(
        &self,
        tape: Int32ArraySlice,
        preserve: Option<Int32ArraySlice>,
        mut out: Int32ArraySlice,
    ) -> Result<i32> {
        let preserve: HashSet<CallId> = preserve.as_deref().unwrap_or_default().iter().copied().collect();
        let (answer, sign) = match core::plan_tape(&self.options, &tape, &preserve).map_err(type_error)? {
            TapePlan::Ready(plan) => (plan, 1),
            TapePlan::NeedsJson(slots) => (slots.into_iter().map(|slot| slot as i32).collect(), -1),
        };
        // SAFETY: JavaScript is blocked in this call, and `out` is a buffer the
        // wrapper owns and does not share with the tape.
        let out = unsafe { out.as_mut() };
        let target = out.get_mut(..answer.len()).ok_or_else(|| type_error("plan buffer too small"))?;
        target.copy_from_slice(&answer);
        Ok(sign * answer.len() as i32)
    }

    /// One agent-loop step: takes the history so far (`seen` ids, and the
    /// steps as `[count, ids...]*`) and the response tape, and answers
    /// `[seen_count, seen..., step_count, step..., preserve_count, preserve...]`.
    #[napi]
    pub fn advance_steps(
        &self,
        seen: Int32ArraySlice,
        steps: Int32ArraySlice,
        response_tape: Int32ArraySlice,
    ) -> Result<Int32Array> {
        let Some(keep_steps) = self.options.filter_after_tool_steps else {
            return Err(type_error("step filtering is off"));
        };
        let mut history = StepHistory { seen: seen.to_vec(), steps: unpack_steps(&steps).map_err(type_error)? };
        let response = core::tape::Tape::new(&response_tape).history().map_err(type_error)?;
        let preserve = history.advance(&core::tool_call_ids(&response).map_err(type_error)?, keep_steps);

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
