//! The Rust halves of `ToolCallFilter`: [`plan_message_list`] for
//! hosts whose filter rewrites the message list, [`filter_prompt`] for
//! hosts whose filter rewrites the provider prompt.

use mastra_native_processors::tool_call_filter::message_list::{self, StepHistory, TapePlan};
use mastra_native_processors::tool_call_filter::options::FilterOptions;
use mastra_native_processors::tool_call_filter::prompt;
use mastra_native_processors::tool_call_filter::refusal::refusal;
use mastra_native_processors::tool_call_filter::{CallId, CallIdSet, Exclude, FilterError};
use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;

use crate::buffers::{Int32In, Int32Out};
use crate::given::{given, given_list};
use crate::raw;

/// Why a history was refused, for the wrapper to throw as a `TypeError`.
fn type_error(error: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, format!("ToolCallFilter: {error}"))
}

/// The mode (the protocol's `exclude`) for an `exclude` list of this
/// length (`undefined` for no list).
#[napi(catch_unwind)]
pub fn exclude_mode(list_length: Option<u32>) -> i32 {
    Exclude::for_list(list_length).code()
}

/// How many messages one message-list history tape may hold in this mode
/// (the protocol's `exclude`); `undefined` for the whole history (see the
/// core's `message_list::run_length`). It depends on the mode alone, so the
/// wrapper asks once per mode.
#[napi(catch_unwind)]
pub fn message_list_run_length(mode: i32) -> Result<Option<u32>> {
    let exclude = Exclude::from_code(mode).ok_or_else(|| type_error(format!("no exclude mode {mode}")))?;
    Ok(message_list::run_length(exclude).map(|length| length as u32))
}

/// The constructor's options as both stages read them (see the core's
/// `options::FilterOptions`); the `exclude` list stays the wrapper's.
#[napi(object, object_from_js = false)]
pub struct ToolCallFilterOptions {
    /// `exclude` is a list, read live on every call.
    pub excludes_listed: bool,
    /// `exclude` is a list behind a Proxy (see `given_list`): every read of
    /// it is seen, so the wrapper reads it as the reference does, asking its
    /// `includes` of each name where the reference asks.
    pub exclude_is_proxy: bool,
    pub preserve_model_output: bool,
    /// `filterAfterToolSteps` as both stages read it (`null` keeps no
    /// step): how many recent steps keep their calls, `undefined` where
    /// steps are not filtered. The wrapper hands it back on every call.
    pub keep_steps: Option<f64>,
    /// Whether `keepSteps` keeps the calls of any step (false where steps
    /// are not filtered): where none is kept, every result an exclusion
    /// removes goes, as without the option.
    pub keeps_any_step: bool,
    /// Whether the message-list stage's `processInputStep` filters at all.
    pub message_list_filters_steps: bool,
    /// Whether the prompt stage reads and records the request's history.
    pub prompt_filter_uses_history: bool,
}

/// Checks the options the wrapper read (`exclude`, `filterAfterToolSteps`,
/// `preserveModelOutput`, in the reference's order) once, throwing a
/// `TypeError` naming the first of the wrong kind.
#[napi(catch_unwind)]
pub fn check_tool_call_filter_options(
    env: Env,
    exclude: Unknown,
    filter_after_tool_steps: Unknown,
    preserve_model_output: Unknown,
) -> Result<ToolCallFilterOptions> {
    let ((exclude, exclude_is_proxy), steps, preserve) =
        (given_list(&env, exclude)?, given(Some(filter_after_tool_steps))?, given(Some(preserve_model_output))?);
    match FilterOptions::check(&exclude, &steps, &preserve) {
        Ok(options) => Ok(ToolCallFilterOptions {
            excludes_listed: options.excludes_listed,
            exclude_is_proxy,
            preserve_model_output: options.preserve_model_output,
            keep_steps: options.keep_steps(),
            keeps_any_step: options.keeps_any_step(),
            message_list_filters_steps: options.message_list_filters_steps(),
            prompt_filter_uses_history: options.prompt_filter_uses_history(),
        }),
        Err(refused) => Err(throw_type_error(&env, refused.message())),
    }
}

/// The message of the `TypeError` for `value` given as `what` (the
/// protocol's `refused`), item `index` of it where that says: the wrapper
/// found it of the wrong kind where the reference would throw or misbehave,
/// and throws it where it found it.
#[napi(catch_unwind)]
pub fn tool_call_filter_refusal(what: i32, value: Unknown, index: Option<u32>) -> Result<String> {
    let message = refusal(what, &given(Some(value))?, index.unwrap_or(0))
        .ok_or_else(|| Error::new(Status::GenericFailure, format!("ToolCallFilter: no refusal {what}")))?;
    Ok(format!("ToolCallFilter: {message}"))
}

/// The pending `TypeError` with this message.
fn throw_type_error(env: &Env, message: String) -> Error {
    match env.throw_type_error(&format!("ToolCallFilter: {message}"), None) {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(error) => error,
    }
}

/// Plans a history tape (see the core's `message_list`) into `out`:
/// `planMessageList(preserveModelOutput, keepSteps, excludeLength, tape,
/// preserve, firstMessage, out)`, with the filter's options as checked
/// (`keepSteps` as [`check_tool_call_filter_options`] gave it; `excludeLength`
/// and `preserve`, the ids the steps keep, may be `undefined`). Returns the
/// plan's length. The tape's first message is message `firstMessage` of the
/// history, which errors name. A negative answer `-n` means the model
/// outputs' text may need JSON: `out` holds `n` values of JSON asks (the
/// core's `tape::JsonAsks`), to be filled in before asking again. Borrowing the caller's buffers keeps the call free of
/// allocations JavaScript would collect. A plain Node-API callback (see
/// [`crate::raw`]): called for every run of a history, on every step, and
/// right after a full collection napi-rs's own argument handling cost several
/// times the plan.
pub unsafe extern "C" fn plan_message_list(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: Node-API calls this with its `env` and `info`.
    unsafe {
        raw::enter::<7>(env, info, |args| {
            let options = message_list::MessageListOptions {
                preserve_model_output: args.bool(0)?,
                filter_after_tool_steps: args.f64_or_undefined(1)?,
            };
            let exclude = Exclude::for_list(args.u32_or_nullish(2)?);
            let tape = args.int32_in(3)?;
            let preserve = args.int32_in_or_nullish(4)?;
            let first_message = args.u32(5)?;
            let mut out = args.int32_out(6)?;
            let preserve_ids: CallIdSet =
                preserve.as_ref().map(Int32In::as_slice).unwrap_or_default().iter().copied().collect();
            let (answer, sign) = match message_list::plan_tape(&options, exclude, tape.as_slice(), &preserve_ids)
                .map_err(|error| type_error(error.from_message(first_message as usize)))?
            {
                TapePlan::Ready(plan) => (plan, 1),
                TapePlan::NeedsJson(asks) => (asks.encode(), -1),
            };
            out.write(&[&answer], &[Some(&tape), preserve.as_ref()])?;
            args.int32(sign * answer.len() as i32)
        })
    }
}

/// The kept `content.toolInvocations` of the messages a run's plan rebuilt:
/// `planLegacyLists(excludeLength, plan, excludedFrom, excludedTo, legacy,
/// legacyLength, preserve, firstMessage, out)`, where `plan[excludedFrom..
/// excludedTo]` are the excluded calls' ids the run's plan ended with (none
/// without an exclude list), `legacy[..legacyLength]` the lists the binding
/// read of the rebuilt messages (see the core's `message_list::plan_legacy`)
/// and `preserve` the ids the steps keep (may be `undefined`). Writes, per
/// list, the kept count and positions into `out` and returns their length,
/// or minus the length it needs. A plain Node-API callback (see
/// [`crate::raw`]), as [`plan_message_list`] is, and given whole buffers and
/// lengths rather than views, which JavaScript would allocate. The binding
/// looks legacy entries up in the plan's verdicts and asks this only of a
/// run with a `null` entry, which it refuses as the reference throws.
pub unsafe extern "C" fn plan_legacy_lists(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: Node-API calls this with its `env` and `info`.
    unsafe {
        raw::enter::<9>(env, info, |args| {
            let exclude = Exclude::for_list(args.u32_or_nullish(0)?);
            let plan = args.int32_in(1)?;
            let excluded = args.u32(2)? as usize..args.u32(3)? as usize;
            let legacy = args.int32_in(4)?;
            let legacy_length = args.u32(5)? as usize;
            let preserve = args.int32_in_or_nullish(6)?;
            let first_message = args.u32(7)?;
            let mut out = args.int32_out(8)?;
            let mut answer = out.counted(&[Some(&plan), Some(&legacy), preserve.as_ref()])?;
            let out_of_range = || Error::new(Status::InvalidArg, "ToolCallFilter: a range past its buffer");
            let excluded_ids = plan.as_slice().get(excluded).ok_or_else(out_of_range)?;
            let lists = legacy.as_slice().get(..legacy_length).ok_or_else(out_of_range)?;
            let preserve = preserve.as_ref().map(Int32In::as_slice).unwrap_or_default();
            let run = message_list::LegacyRun { exclude, excluded_ids, legacy: lists, preserve };
            message_list::plan_legacy_into(run, &mut answer)
                .map_err(|error| type_error(error.from_message(first_message as usize)))?;
            args.int32(answer.finish())
        })
    }
}

/// One agent-loop step, with the filter's `keepSteps` (see
/// [`check_tool_call_filter_options`]):
/// takes the history so far (`seen` ids, and the steps as `[count, ids...]*`)
/// and the response tape, and writes
/// `[seen_count, seen..., step_count, step..., preserve_count, preserve...]`
/// into `out`; returns its length, or minus the length it needs when `out`
/// is too short. Into the caller's buffer, as the plans are: an answer
/// array made here would be memory outside the JavaScript heap, with a
/// finalizer, for every step.
///
/// Positional: its parameters are the JavaScript call's arguments, once a
/// step; named, napi-rs would read each by name (as `begin_step`'s note
/// measures).
#[napi(catch_unwind)]
pub fn advance_message_list_steps(
    keep_steps: Option<f64>,
    seen: Int32In,
    steps: Int32In,
    response_tape: Int32In,
    mut out: Int32Out,
) -> Result<i32> {
    let keep_steps = keep_steps.ok_or_else(|| type_error(FilterError::StepsOff))?;
    let mut history =
        StepHistory { seen: seen.as_slice().to_vec(), steps: unpack_steps(steps.as_slice()).map_err(type_error)? };
    let response = message_list::History::read(response_tape.as_slice()).map_err(type_error)?;
    let preserve = history.advance(&message_list::tool_call_ids(&response).map_err(type_error)?, keep_steps);

    let step = history.steps.last().map(Vec::as_slice).unwrap_or_default();
    let preserve: Vec<CallId> = preserve.into_iter().collect();
    let counts = [history.seen.len() as i32, step.len() as i32, preserve.len() as i32];
    let pieces: [&[i32]; 6] = [&counts[..1], &history.seen, &counts[1..2], step, &counts[2..], &preserve];
    let length: usize = pieces.iter().map(|piece| piece.len()).sum();
    if length > out.len() {
        return Ok(-(length as i32));
    }
    out.write(&pieces, &[Some(&seen), Some(&steps), Some(&response_tape)])?;
    Ok(length as i32)
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

/// Filters one prompt: `filterPrompt(input, out, keepSteps)`,
/// where `input` holds the round's flags, the prompt tape, the history table
/// and the outputs tape as the core's `prompt::input` lays them out, and
/// `keepSteps` is as [`check_tool_call_filter_options`] gave it. A plain
/// Node-API callback (see [`crate::raw`]): it is called on every model call. The history table
/// holds, per interned call id, 1 when the request's recorded history has
/// it, and is absent when nothing is recorded yet; the outputs tape holds
/// the outputs an earlier answer asked for, given with the same prompt tape
/// and history. Writes the answer the core lays out (`Input::answer_into`)
/// into `out`, the plan in place, and returns its length, or, when `out` is
/// too short, minus the length it needs (the wrapper grows it and asks again).
pub unsafe extern "C" fn filter_prompt(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: Node-API calls this with its `env` and `info`.
    unsafe {
        raw::enter::<3>(env, info, |args| {
            let input = args.int32_in(0)?;
            let mut out = args.int32_out(1)?;
            let steps = args.f64_or_undefined(2)?;
            let round = prompt::Input::read(input.as_slice()).map_err(type_error)?;
            let mut answer = out.counted(&[Some(&input)])?;
            round.answer_into(steps, &mut answer).map_err(type_error)?;
            args.int32(answer.finish())
        })
    }
}
