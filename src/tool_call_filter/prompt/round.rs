//! One round of the binding's call: its input buffer read ([`Input::read`])
//! and the answer written back in the layout the protocol declares
//! ([`Input::answer_into`]).

use super::super::tape::TapeError;
use super::super::{Exclude, FilterError};
use super::{answer, filter_into, input, Answer, Decision, PlanSink, PromptOptions, Round};
use crate::releases::PreservedResults;

/// One round's input, read from the binding's buffer (see [`input`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Input<'a> {
    pub preserve_model_output: bool,
    pub preserved_results: PreservedResults,
    pub exclude: Exclude,
    pub tape: &'a [i32],
    pub history: Option<&'a [i32]>,
    pub outputs: Option<&'a [i32]>,
    /// Whether `outputs` are those of every `OWN_OUTPUT` result ([`input::OUTPUTS_AHEAD`]).
    pub outputs_ahead: bool,
}

impl<'a> Input<'a> {
    /// Reads a buffer whose head accounts for the parts that follow it.
    pub fn read(buffer: &'a [i32]) -> Result<Input<'a>, TapeError> {
        let head = buffer.get(..input::HEAD).ok_or(TapeError { position: 0 })?;
        let flags = head[input::FLAGS];
        if flags & !(input::PRESERVE_MODEL_OUTPUT | input::EVERY_RESULT | input::OUTPUTS_AHEAD) != 0 {
            return Err(TapeError { position: input::FLAGS });
        }
        let exclude = match head[input::EXCLUDE_LENGTH] {
            input::ABSENT => None,
            length => Some(u32::try_from(length).map_err(|_| TapeError { position: input::EXCLUDE_LENGTH })?),
        };
        let mut rest = &buffer[input::HEAD..];
        // Each part as long as its length says, or absent.
        let mut take = |at: usize| -> Result<Option<&'a [i32]>, TapeError> {
            let length = head[at];
            if length == input::ABSENT {
                return Ok(None);
            }
            let length = usize::try_from(length).ok().filter(|&n| n <= rest.len()).ok_or(TapeError { position: at })?;
            let (part, tail) = rest.split_at(length);
            rest = tail;
            Ok(Some(part))
        };
        let tape = take(input::TAPE_LENGTH)?.ok_or(TapeError { position: input::TAPE_LENGTH })?;
        let history = take(input::HISTORY_LENGTH)?;
        let outputs = take(input::OUTPUTS_LENGTH)?;
        Ok(Input {
            preserve_model_output: flags & input::PRESERVE_MODEL_OUTPUT != 0,
            preserved_results: if flags & input::EVERY_RESULT != 0 {
                PreservedResults::Every
            } else {
                PreservedResults::WithOwnModelOutput
            },
            exclude: Exclude::for_list(exclude),
            tape,
            history,
            outputs,
            outputs_ahead: flags & input::OUTPUTS_AHEAD != 0,
        })
    }

    /// The options, with `filterAfterToolSteps` as the processor reads it.
    pub fn options(&self, filter_after_tool_steps: Option<f64>) -> PromptOptions {
        PromptOptions {
            preserve_model_output: self.preserve_model_output,
            filter_after_tool_steps,
            preserved_results: self.preserved_results,
        }
    }

    /// The prompt to filter and what is known of it.
    pub fn round(&self) -> Round<'a> {
        Round {
            exclude: self.exclude,
            tape: self.tape,
            history: self.history,
            outputs: self.outputs,
            outputs_ahead: self.outputs_ahead,
        }
    }

    /// Filters the round into `out` as the protocol's `prompt_answer` lays
    /// the binding's answer out: whether to record the history, the kind of
    /// answer, then the plan (written in place) or what to ask for.
    pub fn answer_into<S: PlanSink>(
        &self,
        filter_after_tool_steps: Option<f64>,
        out: &mut S,
    ) -> Result<(), FilterError> {
        let start = out.len();
        out.extend_from_slice(&[0; answer::HEAD]);
        let options = self.options(filter_after_tool_steps);
        let Decision { record_history, answer: outcome } = filter_into(&options, self.round(), &mut *out)?;
        let kind = match outcome {
            Answer::Changed(_) => answer::CHANGED,
            Answer::Unchanged => answer::UNCHANGED,
            Answer::NeedsOutputs(parts) => {
                out.truncate(start + answer::HEAD);
                out.push(parts.len() as i32);
                for (message, part) in parts {
                    out.extend_from_slice(&[message as i32, part as i32]);
                }
                answer::NEEDS_OUTPUTS
            }
            Answer::NeedsJson(asks) => {
                out.truncate(start + answer::HEAD);
                out.push(asks.len() as i32);
                for ask in &asks.0 {
                    out.extend_from_slice(&ask.encode());
                }
                answer::NEEDS_JSON
            }
        };
        out.set(start + answer::RECORD_HISTORY, i32::from(record_history));
        out.set(start + answer::KIND, kind);
        Ok(())
    }
}
