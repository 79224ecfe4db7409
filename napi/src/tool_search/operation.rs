//! `NativeOperation`: a `search_tools`, `load_tool`, active-tools or
//! catalog operation that consults the filter hook, which JavaScript drives.

use mastra_native_processors::js::JsString;
use mastra_native_processors::tool_search::operation::Operation;
use mastra_native_processors::tool_search::{LoadOutcome, Phase, SearchOutcome, ToolRef, ToolSearch};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::answers::{active_tools, load_result, utf16, ActiveTools, LoadToolResult, SearchToolsOutput};
use super::flat::{self, Checks};
use super::internal_error;
use crate::buffers::{Int32In, Int32Out};

/// What an operation ends with.
pub(super) enum Outcome {
    Catalog(Option<JsString>),
    Search(SearchOutcome),
    Load(LoadOutcome),
    Active(Vec<(JsString, ToolRef)>),
}

/// A `search_tools`, `load_tool`, active-tools or catalog operation that
/// consults the filter hook: the core's resumable `Operation` (its module
/// docs describe how JavaScript drives it).
#[napi]
pub struct NativeOperation {
    inner: Operation<Outcome>,
}

impl NativeOperation {
    /// An operation asking in `phase`, awaiting as the reference does when
    /// `awaits` (see the core's `operation`), up to `filterConcurrency`
    /// questions at once.
    pub(super) fn start<F>(
        search: &ToolSearch,
        phase: Phase,
        awaits: bool,
        run: impl FnOnce(mastra_native_processors::tool_search::operation::Relay) -> F,
    ) -> Self
    where
        F: std::future::Future<Output = Outcome> + Send + 'static,
    {
        let concurrency = usize::try_from(search.options().filter_concurrency).unwrap_or(usize::MAX);
        NativeOperation { inner: Operation::start_with(phase, concurrency, awaits, run) }
    }

    fn outcome(&mut self) -> Result<Outcome> {
        self.inner.take_outcome().ok_or_else(|| internal_error("the operation has no outcome (yet)"))
    }
}

#[napi]
impl NativeOperation {
    /// The `phase` of every question this operation asks.
    #[napi(getter, catch_unwind)]
    pub fn phase(&self) -> &'static str {
        self.inner.phase().name()
    }

    /// Whether the operation runs in time with the reference: its driver
    /// awaits every answer that is a promise (its stand-in for the
    /// reference's `isToolAllowed`, which it gives for every tool asked
    /// about, hook or not) and every `tick` (see the core's `operation`).
    #[napi(getter, catch_unwind)]
    pub fn awaits_as_reference(&self) -> bool {
        self.inner.awaits()
    }

    /// Hands over the verdict on the last question and runs on; returns the
    /// tool of the next question, or the `done` code.
    #[napi(catch_unwind)]
    pub fn resume(&mut self, verdict: i32) -> Result<i32> {
        self.inner.resume(verdict).map_err(internal_error)
    }

    /// For a hook asked about several tools at once (`filterConcurrency`):
    /// hands over `count` answers from `answers` and runs on, deciding in
    /// the order asked; writes the questions to ask now into `questions`
    /// and returns how many, or the `done` code. The layout is the
    /// protocol's `operation.batch`: `[ticket, code]` per answer and per
    /// question. None written: the hook still has some to answer; the
    /// buffer filled: call again, without answers, for more.
    #[napi(catch_unwind)]
    pub fn exchange(&mut self, answers: Int32In, count: u32, mut questions: Int32Out) -> Result<i32> {
        use mastra_native_processors::protocol::tool_search::operation::batch::{CODE, ENTRY_WORDS, TICKET};
        let given = answers.as_slice().chunks_exact(ENTRY_WORDS).take(count as usize);
        let room = questions.len() / ENTRY_WORDS;
        let asked =
            self.inner.exchange(given.map(|answer| (answer[TICKET], answer[CODE])), room).map_err(internal_error)?;
        let Some(asked) = asked else { return Ok(mastra_native_processors::protocol::tool_search::operation::DONE) };
        let mut words = vec![0; asked.len() * ENTRY_WORDS];
        for (entry, (ticket, question)) in words.chunks_exact_mut(ENTRY_WORDS).zip(&asked) {
            entry[TICKET] = *ticket;
            entry[CODE] = *question;
        }
        questions.write(&[&words], &[Some(&answers)])?;
        Ok(asked.len() as i32)
    }

    /// The name question `ticket` is about, while the hook has it, when the
    /// tables found no tool for it (else `null`).
    #[napi(catch_unwind)]
    pub fn question_name_of(&self, ticket: i32) -> Option<Utf16String> {
        self.inner.question_name_of(ticket).map(utf16)
    }

    /// The name the pending question is about, when the tables found no
    /// tool for it (else `null`).
    #[napi(getter, catch_unwind)]
    pub fn question_name(&self) -> Option<Utf16String> {
        self.inner.question_name().map(utf16)
    }

    #[napi(catch_unwind)]
    pub fn catalog_output(&mut self) -> Result<Option<Utf16String>> {
        match self.outcome()? {
            Outcome::Catalog(message) => Ok(message.map(utf16)),
            _ => Err(internal_error("not a catalog operation")),
        }
    }

    /// `search_tools`' answer, laid out in `out` after no checks (see
    /// [`flat`]) and its text returned, or as an object when it does not fit.
    #[napi(catch_unwind)]
    pub fn search_output(&mut self, mut out: Int32Out) -> Result<Either<Utf16String, SearchToolsOutput>> {
        match self.outcome()? {
            Outcome::Search(outcome) => flat::search_answer(outcome, Checks::none(), &mut out),
            _ => Err(internal_error("not a search operation")),
        }
    }

    #[napi(catch_unwind)]
    pub fn load_output(&mut self) -> Result<LoadToolResult> {
        match self.outcome()? {
            Outcome::Load(outcome) => Ok(load_result(outcome)),
            _ => Err(internal_error("not a load operation")),
        }
    }

    #[napi(catch_unwind)]
    pub fn active_output(&mut self) -> Result<ActiveTools> {
        match self.outcome()? {
            Outcome::Active(tools) => Ok(active_tools(tools, Checks::none())),
            _ => Err(internal_error("not an active-tools operation")),
        }
    }
}
