//! The decisions of `ToolCallFilter`: which tool calls and results leave
//! what the model is sent, and what is left in their place.
//!
//! Mastra's filter has worked at two stages (see [`crate::releases`]):
//! - [`message_list`]: up to 1.59 it rewrites the stored message list in
//!   `processInput` and `processInputStep`, keeping the calls of recent
//!   agent-loop steps in `args.state`;
//! - [`prompt`]: from 1.60 it rewrites only the provider prompt of each
//!   model call in `processLLMRequest`, and never touches the message list.
//!
//! Both read a flat tape the binding writes in one walk over the JavaScript
//! objects ([`tape`]) and answer with a plan of [`plan`] codes that the
//! binding applies to the original objects. What they share lives here: the
//! exclude modes, interned call ids, the recent-steps window and the errors.

pub mod message_list;
pub mod options;
pub mod prompt;
pub mod refusal;
pub mod tape;

use crate::js::js_slice_bounds;
use crate::protocol::tool_call_filter::exclude;
use tape::TapeError;

/// Which tool calls the filter removes, decided per call from the live
/// `exclude` option (the reference keeps the caller's array and reads it each
/// time, so names pushed into it later count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclude {
    /// No `exclude` option: every tool call and result.
    All = exclude::ALL as isize,
    /// A non-empty `exclude` list: calls of those tools, and their results.
    Listed = exclude::LISTED as isize,
    /// An empty list: nothing; the history passes through untouched.
    Nothing = exclude::NOTHING as isize,
}

impl Exclude {
    /// The mode for an `exclude` list of this length, or for none.
    pub fn for_list(length: Option<u32>) -> Exclude {
        match length {
            None => Exclude::All,
            Some(0) => Exclude::Nothing,
            Some(_) => Exclude::Listed,
        }
    }

    /// The mode of a protocol code (`exclude`), as the binding hands it back.
    pub fn from_code(code: i32) -> Option<Exclude> {
        match code {
            exclude::ALL => Some(Exclude::All),
            exclude::LISTED => Some(Exclude::Listed),
            exclude::NOTHING => Some(Exclude::Nothing),
            _ => None,
        }
    }

    /// Its protocol code (`exclude`).
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// An interned tool-call id. The binding maps each distinct JavaScript value
/// (by `SameValueZero`, the way a `Set` does) to one of these; falsy ids are
/// never interned because the reference never removes their parts.
pub type CallId = i32;

/// A set of call ids. Ids are small integers the binding made, so a fast
/// hash serves where the standard one (SipHash) costs about as much per
/// lookup as the rest of a part's planning.
pub type CallIdSet = std::collections::HashSet<CallId, foldhash::fast::RandomState>;

/// `filterAfterToolSteps` as the processor reads it: `undefined` turns step
/// filtering off, and `null` keeps no steps (`Math.max(0, null)` is 0).
pub fn steps_option(given: Option<Option<f64>>) -> Option<f64> {
    given.map(|steps| steps.unwrap_or(0.0))
}

/// The last `filterAfterToolSteps` of a list of steps: `Math.max(0, n)`,
/// where a count of zero keeps nothing and anything else is `slice(-count)`
/// (NaN and fractions as JavaScript reads them).
pub fn recent_steps<T>(steps: &[T], keep_steps: f64) -> &[T] {
    &steps[recent_step_range(steps.len(), keep_steps)]
}

/// Which of `count` steps [`recent_steps`] keeps.
pub fn recent_step_range(count: usize, keep_steps: f64) -> std::ops::Range<usize> {
    if !keeps_any_step(keep_steps) {
        return 0..0;
    }
    let (start, end) = js_slice_bounds(count, -keep_steps, None);
    start..end
}

/// Whether `filterAfterToolSteps` keeps any step: `Math.max(0, n) === 0`
/// is false (NaN keeps them all).
pub fn keeps_any_step(keep_steps: f64) -> bool {
    keep_steps > 0.0 || keep_steps.is_nan()
}

/// The codes of a plan, the filter's answer for a history or prompt, read
/// by the binding message by message (declared in the protocol).
pub use crate::protocol::tool_call_filter::plan;

/// Why a history or prompt cannot be filtered. The reference throws a
/// `TypeError` in the same places (a `RangeError` for [`Self::ModelOutputTooDeep`]).
#[derive(Debug, PartialEq, Eq)]
pub enum FilterError {
    Tape(TapeError),
    /// A `content.toolInvocations` entry was `null` or `undefined`.
    NullLegacyInvocation {
        message: usize,
    },
    /// `content.content` was truthy but not a string where it had to be trimmed.
    NonStringTopLevelContent {
        message: usize,
    },
    /// A model output whose text was needed nests too deep or contains itself
    /// (the reference's recursion overflows the stack there).
    ModelOutputTooDeep {
        message: usize,
    },
    /// A hole in a sparse history where the reference walks it with `for...of`
    /// (the exclude-list pass, the step's response), which reads it as `undefined`.
    MissingMessage {
        message: usize,
    },
    /// Step filtering was asked of a filter built without `filterAfterToolSteps`.
    StepsOff,
    /// An assistant message's `content` is a string where the reference
    /// calls an array method on it.
    ContentNotAnArray {
        message: usize,
    },
}

impl From<TapeError> for FilterError {
    fn from(error: TapeError) -> Self {
        FilterError::Tape(error)
    }
}

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterError::Tape(error) => write!(f, "{error}"),
            FilterError::NullLegacyInvocation { message } => {
                write!(f, "message {message} has a null or undefined entry in content.toolInvocations")
            }
            FilterError::NonStringTopLevelContent { message } => {
                write!(f, "message {message} has a content.content that is not a string")
            }
            FilterError::MissingMessage { message } => write!(f, "message {message} is missing (a hole in the array)"),
            FilterError::ModelOutputTooDeep { message } => {
                write!(f, "the model output of a tool result in message {message} contains itself or nests too deep")
            }
            FilterError::StepsOff => write!(f, "step filtering is off"),
            FilterError::ContentNotAnArray { message } => write!(f, "the content of message {message} is not an array"),
        }
    }
}

impl FilterError {
    /// The same error for a tape whose first message is message `first` of
    /// the whole history (a history planned in runs, see
    /// [`message_list::run_length`]).
    pub fn from_message(self, first: usize) -> FilterError {
        let shift = |message: usize| message + first;
        match self {
            FilterError::NullLegacyInvocation { message } => {
                FilterError::NullLegacyInvocation { message: shift(message) }
            }
            FilterError::NonStringTopLevelContent { message } => {
                FilterError::NonStringTopLevelContent { message: shift(message) }
            }
            FilterError::ModelOutputTooDeep { message } => FilterError::ModelOutputTooDeep { message: shift(message) },
            FilterError::MissingMessage { message } => FilterError::MissingMessage { message: shift(message) },
            FilterError::ContentNotAnArray { message } => FilterError::ContentNotAnArray { message: shift(message) },
            FilterError::Tape(_) | FilterError::StepsOff => self,
        }
    }
}

impl std::error::Error for FilterError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exclude_mode_follows_the_list() {
        assert_eq!(Exclude::for_list(None), Exclude::All);
        assert_eq!(Exclude::for_list(Some(0)), Exclude::Nothing);
        assert_eq!(Exclude::for_list(Some(3)), Exclude::Listed);
    }

    #[test]
    fn recent_steps_reads_the_count_as_javascript_does() {
        let steps = [1, 2, 3, 4];
        assert_eq!(recent_steps(&steps, 2.0), &[3, 4]);
        assert_eq!(recent_steps(&steps, 0.0), &[] as &[i32]);
        assert_eq!(recent_steps(&steps, -3.0), &[] as &[i32]);
        // slice(-NaN) and slice(-0.5) keep every step; slice(-1.5) keeps one.
        assert_eq!(recent_steps(&steps, f64::NAN), &steps);
        assert_eq!(recent_steps(&steps, 0.5), &steps);
        assert_eq!(recent_steps(&steps, 1.5), &[4]);
        assert_eq!(recent_steps(&steps, f64::INFINITY), &steps);
        assert_eq!(recent_steps(&steps, 10.0), &steps);
    }
}
