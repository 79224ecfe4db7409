//! The decisions of `ToolCallFilter`: which tool calls and results leave a
//! message history, which messages are dropped, and which tool-producing steps
//! are still recent enough to keep.
//!
//! Messages never cross into Rust as objects. The binding walks them once in
//! JavaScript and hands over a flat tape of integers (see [`tape`]) that records
//! only what a decision depends on: the shape of each message, each tool part's
//! state, whether its tool name is excluded, an interned tool-call id, and the
//! structure of any model output. The answer is a flat plan (see [`plan`]) that
//! the binding applies to the original objects, so payloads never leave
//! JavaScript and nothing is copied that is not rewritten.

pub mod tape;

use std::collections::HashSet;

use crate::js::js_slice_bounds;
use tape::{model_output_text, History, LegacyInvocation, Message, NodeError, Part, Tape, TapeError, TopLevelText};

/// Which tool calls the filter removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclude {
    /// No `exclude` option: every tool call and result goes.
    All,
    /// A non-empty `exclude` list: calls of those tools, and their results.
    Listed,
    /// `exclude: []`: the history passes through untouched.
    Nothing,
}

/// The constructor options, converted once at the edge.
#[derive(Clone, Copy, Debug)]
pub struct FilterOptions {
    pub exclude: Exclude,
    pub preserve_model_output: bool,
    /// `filterAfterToolSteps` as JavaScript gave it; `None` disables step filtering.
    pub filter_after_tool_steps: Option<f64>,
}

/// An interned tool-call id. The binding maps each distinct JavaScript value
/// (by `SameValueZero`, the way a `Set` does) to one of these; falsy ids are
/// never interned because the reference never records them.
pub type CallId = i32;

/// Why a history cannot be filtered. The reference throws a `TypeError` in the
/// same places.
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
                write!(f, "providerMetadata.mastra.modelOutput in message {message} contains itself or nests too deep")
            }
        }
    }
}

impl std::error::Error for FilterError {}

/// What to do with one message, as the binding reads it back.
pub mod plan {
    /// Leave the message object as it is.
    pub const KEEP: i32 = 0;
    /// Remove the message from the history.
    pub const DROP: i32 = 1;
    /// Rebuild the message: one part action per part, then the legacy list.
    pub const REWRITE: i32 = 2;

    /// Keep the part object as it is.
    pub const PART_KEEP: i32 = 0;
    /// Remove the part.
    pub const PART_DROP: i32 = 1;
    /// Replace the part with `{ type: 'text', text }`, where text is
    /// `"<toolName> result:\n"` followed by the listed strings joined by newlines.
    /// Followed by the string count and the string indexes.
    pub const PART_MODEL_OUTPUT: i32 = 2;
}

/// Step history kept between agent-loop steps (the reference keeps it in
/// `args.state`; the binding moves it in and out as interned ids).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct StepHistory {
    /// Every tool-call id seen in a response so far, first sighting first.
    pub seen: Vec<CallId>,
    /// For each step, the ids that first appeared in it.
    pub steps: Vec<Vec<CallId>>,
}

impl StepHistory {
    /// Records this step's response ids and returns the ids whose calls and
    /// results stay: those of the last `filterAfterToolSteps` tool-producing steps.
    pub fn advance(&mut self, response_ids: &[CallId], keep_steps: f64) -> HashSet<CallId> {
        let mut seen: HashSet<CallId> = self.seen.iter().copied().collect();
        let mut deduped_seen = Vec::with_capacity(seen.len());
        let mut first = HashSet::with_capacity(self.seen.len());
        for &id in &self.seen {
            if first.insert(id) {
                deduped_seen.push(id);
            }
        }

        let mut fresh = Vec::new();
        let mut in_response = HashSet::new();
        for &id in response_ids {
            if in_response.insert(id) && !seen.contains(&id) {
                fresh.push(id);
            }
        }
        for &id in &fresh {
            seen.insert(id);
            deduped_seen.push(id);
        }
        self.seen = deduped_seen;
        self.steps.push(fresh);

        // `Math.max(0, n)`, and a count of zero keeps nothing; anything else is
        // `slice(-count)`, NaN and fractions included.
        let count = if keep_steps.is_nan() { f64::NAN } else { keep_steps.max(0.0) };
        if count == 0.0 {
            return HashSet::new();
        }
        let (start, end) = js_slice_bounds(self.steps.len(), -count, None);
        self.steps[start..end].iter().flatten().copied().collect()
    }
}

/// The tool-call ids of every tool part in a history, first sighting first,
/// skipping parts without a (truthy) id.
pub fn tool_call_ids(history: &History) -> Result<Vec<CallId>, FilterError> {
    let mut ids = Vec::new();
    let mut seen = HashSet::new();
    for (index, message) in history.messages.iter().enumerate() {
        if *message == Message::Hole {
            return Err(FilterError::MissingMessage { message: index });
        }
        if let Message::WithParts { parts, .. } = message {
            for part in history.parts(*parts) {
                if let Part::Tool { call_id: Some(id), .. } = part {
                    if seen.insert(*id) {
                        ids.push(*id);
                    }
                }
            }
        }
    }
    Ok(ids)
}

/// Decides, for every message, whether it stays, goes or is rebuilt. `tape`
/// is the tape `history` was read from (model outputs are read from it).
pub fn plan(
    options: &FilterOptions,
    tape: &[i32],
    history: &History,
    preserve: &HashSet<CallId>,
) -> Result<TapePlan, FilterError> {
    let messages = &history.messages;
    let mut planner =
        Planner { options, tape, history, preserve, excluded_ids: HashSet::new(), needed_json: Vec::new() };
    let mut out = Vec::with_capacity(messages.len() + 8);
    match options.exclude {
        Exclude::Nothing => out.resize(messages.len(), plan::KEEP),
        Exclude::All => {
            for (index, message) in messages.iter().enumerate() {
                planner.message(index, message, &mut out)?;
            }
        }
        Exclude::Listed => {
            // A result goes with its call even when the result part itself names
            // no excluded tool, so collect the excluded calls' ids first.
            for (index, message) in messages.iter().enumerate() {
                if *message == Message::Hole {
                    return Err(FilterError::MissingMessage { message: index });
                }
                if let Message::WithParts { parts, .. } = message {
                    for part in history.parts(*parts) {
                        if let Part::Tool { excluded: true, call_id: Some(id), .. } = part {
                            planner.excluded_ids.insert(*id);
                        }
                    }
                }
            }
            for (index, message) in messages.iter().enumerate() {
                planner.message(index, message, &mut out)?;
            }
        }
    }
    if !planner.needed_json.is_empty() {
        return Ok(TapePlan::NeedsJson(planner.needed_json));
    }
    Ok(TapePlan::Ready(out))
}

struct Planner<'a> {
    options: &'a FilterOptions,
    tape: &'a [i32],
    history: &'a History,
    preserve: &'a HashSet<CallId>,
    /// With an exclude list: the ids of calls to excluded tools.
    excluded_ids: HashSet<CallId>,
    needed_json: Vec<usize>,
}

impl Planner<'_> {
    fn message(&mut self, index: usize, message: &Message, out: &mut Vec<i32>) -> Result<(), FilterError> {
        let history = self.history;
        let &Message::WithParts { top_level_text, parts, legacy } = message else {
            out.push(if *message == Message::Hole { plan::DROP } else { plan::KEEP });
            return Ok(());
        };
        let parts = history.parts(parts);
        if !parts.iter().any(|part| matches!(part, Part::Tool { .. })) {
            out.push(plan::KEEP);
            return Ok(());
        }

        let listed = self.options.exclude == Exclude::Listed;
        let header = out.len();
        out.push(plan::REWRITE);
        let mut kept_parts = 0usize;
        for part in parts {
            let &Part::Tool { state, excluded, call_id, model_output } = part else {
                if *part == Part::Hole {
                    out.push(plan::PART_DROP);
                } else {
                    out.push(plan::PART_KEEP);
                    kept_parts += 1;
                }
                continue;
            };
            if call_id.is_some_and(|id| self.preserve.contains(&id)) {
                out.push(plan::PART_KEEP);
                kept_parts += 1;
                continue;
            }
            let goes = !listed
                || (state == tape::ToolState::Call && excluded)
                || (state == tape::ToolState::Result
                    && (excluded || call_id.is_some_and(|id| self.excluded_ids.contains(&id))));
            if !goes {
                out.push(plan::PART_KEEP);
                kept_parts += 1;
                continue;
            }
            let text_at = out.len();
            if let Some(position) =
                model_output.filter(|_| self.options.preserve_model_output && state == tape::ToolState::Result)
            {
                out.extend([plan::PART_MODEL_OUTPUT, 0]);
                model_output_text(self.tape, position, out, &mut self.needed_json).map_err(|error| match error {
                    NodeError::Tape(error) => FilterError::Tape(error),
                    NodeError::TooDeep => FilterError::ModelOutputTooDeep { message: index },
                })?;
                let strings = out.len() - text_at - 2;
                if strings > 0 {
                    out[text_at + 1] = strings as i32;
                    kept_parts += 1;
                    continue;
                }
                out.truncate(text_at);
            }
            out.push(plan::PART_DROP);
        }

        if kept_parts == 0 && top_level_text != TopLevelText::Text {
            out.truncate(header);
            out.push(plan::DROP);
            return Ok(());
        }

        match legacy {
            None => out.push(0),
            Some(invocations) => {
                let count_at = out.len();
                out.push(0);
                let mut kept = 0;
                for (position, invocation) in history.legacy(invocations).iter().enumerate() {
                    let (call_id, excluded) = match *invocation {
                        LegacyInvocation::Entry { call_id, excluded } => (call_id, excluded),
                        // `filter` skips the holes of a sparse array.
                        LegacyInvocation::Hole => continue,
                        LegacyInvocation::Null => return Err(FilterError::NullLegacyInvocation { message: index }),
                    };
                    let preserved = call_id.is_some_and(|id| self.preserve.contains(&id));
                    let stays = preserved
                        || (listed && !excluded && !call_id.is_some_and(|id| self.excluded_ids.contains(&id)));
                    if stays {
                        out.push(position as i32);
                        kept += 1;
                    }
                }
                out[count_at] = kept;
            }
        }

        // The reference trims `content.content` again at this point when filtering by
        // name, which throws for a truthy non-string.
        if listed && top_level_text == TopLevelText::NotAString {
            return Err(FilterError::NonStringTopLevelContent { message: index });
        }
        Ok(())
    }
}

/// What [`plan_tape`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum TapePlan {
    /// The plan, in the format of [`plan`].
    Ready(Vec<i32>),
    /// Array JSON that the text of some model output needs: the binding
    /// writes these tape slots and plans again.
    NeedsJson(Vec<usize>),
}

/// Parses a message tape and plans it in one go.
pub fn plan_tape(options: &FilterOptions, tape: &[i32], preserve: &HashSet<CallId>) -> Result<TapePlan, FilterError> {
    let history = Tape::new(tape).history()?;
    plan(options, tape, &history, preserve)
}

#[cfg(test)]
mod tests;
