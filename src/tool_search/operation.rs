//! The resumable operation: how an operation that consults the host (the
//! `filter` hook, and the caller's tools record) runs on the JavaScript
//! thread.
//!
//! The hook is the user's JavaScript function and may answer with a promise,
//! and the record is a JavaScript object. An operation that asks about them
//! (`search_tools`, `load_tool`, the active tools, the injected catalog) is
//! a Rust future whose [`ToolFilter`] is a [`Relay`]: asking the relay parks
//! the question and suspends the future. The binding hands the operation to
//! JavaScript, which drives it:
//!
//! ```text
//! answer = NO_VERDICT
//! for (question = operation.resume(answer); question !== DONE; question = operation.resume(answer))
//!   answer = answer the question, in operation.phase   // awaited only if the hook returns a promise
//! operation.<kind>Output()
//! ```
//!
//! Each [`resume`](Operation::resume) hands over the answer to the last
//! question and polls the future until it asks again or ends. So a
//! synchronous hook sees exactly the reference's calls, in the same order,
//! with one native call per question; no Rust lock is held while the hook
//! runs; and an operation whose hook never settles holds up no other.
//!
//! A threadsafe function (a tokio task calling back into JavaScript) was
//! measured first: two thread hops per question cost 5–15 µs where this costs
//! well under one, which made a filtered search slower than the reference.
//!
//! An operation that changes loaded state (`load_tool`, an auto-loading
//! `search_tools`) runs in time with the reference, whose code awaits the
//! hook's verdict on every tool it finds (hook or not: `await
//! isToolAllowed(...)`) and records a load in the store before an `await`
//! and in the step's loaded names after it: such an operation
//! [awaits as the reference](Relay::awaits) does. It asks about every tool
//! it finds, with or without a hook, and asks [`code::TICK`] where the
//! reference awaits a value that is no promise; its driver is an async loop
//! that awaits each answer that is a promise (JavaScript's own stand-in for
//! `isToolAllowed`) and each tick, so that two such calls started at once
//! interleave as the reference's do, and each sees the other's loads when
//! the reference's would. Other operations change nothing, and run to their
//! end without yielding unless the hook answers with a promise.
//!
//! Every question of one operation is in the same [`Phase`], declared when it
//! starts (`search_tools` and the catalog ask in `'search'`, `load_tool` in
//! `'load'`, the active tools in `'active'`), so the driver reads the phase
//! once rather than with every question. The questions and answers are
//! numbers (the protocol's [`operation`](crate::protocol::tool_search::operation)).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;

use crate::js::JsString;

use super::{Answer, Ask, Found, LiveRecord, Lookup, Phase, ToolFilter, Verdict};
use crate::protocol::tool_search::operation as code;

/// The reads that find, in the record a name is looked up in (the caller's
/// own, kept by the reference and read live: `live`; or a step's copy of
/// it merged with its resolved tools, whose keys and tools stay what they
/// were and whose tools' ids are read live), the tool the reference would
/// find for a name looked up with `lookup`, where the tables (the record as
/// it was read) found `found`: what `findToolForDynamicName` or
/// `findToolById` would find, read in O(1) where the tool the tables found
/// still answers to the name, by a scan where it does not. None: the tables
/// are the answer (a step's copy, looked up by a key it has).
///
/// The reference reads every tool's id at every lookup; these do not, and
/// so miss one case: a tool that took the name as its id after the tables
/// were made (put under another key, or its id changed in place) while the
/// tool they found still answers to it (the first tool with that id,
/// standing under its key with it; a key's own tool, looked up with a hook
/// by a name no tool had as its id; a tool indexed under its key for lack of
/// an id). The reference would find whichever comes first in key order.
pub fn reads(lookup: Lookup, found: &Found, live: bool) -> &'static [i32] {
    use code::ask::{FIRST_BY_ID, OWN_KEY, STANDING};
    match (lookup, found, live) {
        (_, Found::Unnamed(_), _) => &[STANDING],
        (Lookup::KeyFirst, Found::ById(_), true) => &[OWN_KEY, STANDING, FIRST_BY_ID],
        (Lookup::KeyFirst, _, true) | (Lookup::IdFirst, Found::ByKey(_), true) => &[OWN_KEY, FIRST_BY_ID],
        (Lookup::IdFirst, Found::ById(_), _) => &[STANDING, FIRST_BY_ID, OWN_KEY],
        (Lookup::IdFirst, Found::Missing(_), true) => &[FIRST_BY_ID, OWN_KEY],
        (Lookup::IdOnly | Lookup::KeyFirst, Found::ById(_), _) => &[STANDING, FIRST_BY_ID],
        (_, Found::Missing(_), _) => &[FIRST_BY_ID],
        // A step's copy has the key, and keeps its tool.
        (_, Found::ByKey(_), false) => &[],
        (Lookup::IdOnly, Found::ByKey(_), true) => &[FIRST_BY_ID],
    }
}

impl Verdict {
    /// The verdict a code of [`code`] stands for; anything unknown fails.
    pub fn from_code(verdict: i32) -> Verdict {
        Answer::from_code(verdict).verdict
    }
}

impl Answer {
    /// The answer a code of [`code`] stands for; anything unknown fails.
    pub fn from_code(answer: i32) -> Answer {
        match answer {
            code::ALLOWED => Answer::ALLOWED,
            code::DENIED => Answer::DENIED,
            tool if tool >= code::ALLOWED_AS => {
                Answer { verdict: Verdict::Allowed, tool: Some(tool - code::ALLOWED_AS) }
            }
            _ => Answer::verdict(Verdict::Failed),
        }
    }
}

impl Ask {
    /// The question's code (see [`code`]); `None` when its tool is too large
    /// to encode, which no record JavaScript can hold reaches.
    pub fn code(&self) -> Option<i32> {
        let (tool, kind) = match self {
            Ask::Tool(tool) => (*tool, code::ask::TOOL),
            Ask::Resolve { lookup, found, live } => {
                let (tool, found_code) = match found {
                    Found::ByKey(tool) => (*tool, code::ask::BY_KEY),
                    Found::ById(tool) => (*tool, code::ask::BY_ID),
                    Found::Unnamed(tool) => (*tool, code::ask::UNNAMED),
                    Found::Missing(_) => (0, code::ask::MISSING),
                };
                let reads = reads(*lookup, found, *live)
                    .iter()
                    .rev()
                    .fold(0, |reads, &read| (reads << code::ask::READ_BITS) | read);
                (tool, found_code | (reads << code::ask::FOUND_BITS))
            }
        };
        if tool < 0 {
            return None;
        }
        tool.checked_mul(1 << code::ask::KIND_BITS).map(|shifted| shifted | kind)
    }

    /// The name a question is about, when the tables found nothing.
    pub fn missing_name(&self) -> Option<&JsString> {
        match self {
            Ask::Resolve { found: Found::Missing(name), .. } => Some(name),
            _ => None,
        }
    }
}

/// What an operation waits on.
enum Question {
    Ask(Ask),
    Record,
    Tick,
}

/// The host's side of an operation: the question it waits on, and the
/// answer once JavaScript has given it.
#[derive(Default)]
struct Exchange {
    question: Option<Question>,
    answer: Option<Answer>,
    record: Option<Arc<LiveRecord>>,
    /// The name given with the last answer (see [`ToolFilter::take_name`]).
    name: Option<Option<JsString>>,
}

/// The [`ToolFilter`] of an operation: asking parks the question and
/// suspends the operation until [`Operation::resume`] brings the answer.
#[derive(Clone)]
pub struct Relay {
    exchange: Arc<Mutex<Exchange>>,
    phase: Phase,
    awaits: bool,
}

impl Relay {
    /// Parks `question` and waits for the answer (`answer` takes it).
    fn ask<T>(&self, question: Question, answer: impl Fn(&mut Exchange) -> T) -> impl Future<Output = T> {
        let exchange = self.exchange.clone();
        let mut question = Some(question);
        std::future::poll_fn(move |_| {
            let mut exchange = exchange.lock();
            match question.take() {
                Some(question) => {
                    exchange.question = Some(question);
                    exchange.name = None;
                    Poll::Pending
                }
                None if exchange.question.is_none() => Poll::Ready(answer(&mut exchange)),
                None => Poll::Pending,
            }
        })
    }
}

impl ToolFilter for Relay {
    fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer> {
        // An operation only asks in its own phase (see the module docs); a
        // question in another would reach the hook with the wrong phase, so
        // it is refused without asking.
        debug_assert_eq!(phase, self.phase, "an operation asked outside its phase");
        let in_phase = phase == self.phase;
        let asked = in_phase.then(|| self.ask(Question::Ask(ask), |exchange| exchange.answer.take()));
        async move {
            match asked {
                Some(asked) => asked.await.unwrap_or(Answer::verdict(Verdict::Failed)),
                None => Answer::verdict(Verdict::Failed),
            }
        }
    }

    fn live_record(&self) -> impl Future<Output = Option<Arc<LiveRecord>>> {
        self.ask(Question::Record, |exchange| exchange.record.take())
    }

    fn awaits(&self) -> bool {
        self.awaits
    }

    fn take_name(&self) -> Option<Option<JsString>> {
        self.exchange.lock().name.take()
    }

    fn tick(&self) -> impl Future<Output = ()> {
        let asked = self.awaits.then(|| self.ask(Question::Tick, |_| ()));
        async move {
            if let Some(asked) = asked {
                asked.await;
            }
        }
    }
}

/// Why an operation ended without an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperationError {
    /// The operation panicked; it was dropped where it stood.
    Panicked,
    /// The operation suspended without asking the hook anything, so nothing
    /// could ever resume it; it was dropped.
    Stalled,
}

impl std::fmt::Display for OperationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OperationError::Panicked => "the operation failed unexpectedly and was abandoned",
            OperationError::Stalled => "the operation stopped without a question and was abandoned",
        })
    }
}

impl std::error::Error for OperationError {}

type Running<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// An operation that consults the hook, suspended at each question.
pub struct Operation<T> {
    running: Option<Running<T>>,
    relay: Relay,
    outcome: Option<T>,
}

impl<T> Operation<T> {
    /// Starts an operation that asks in `phase`: `run` gets the relay to ask
    /// through and gives the future. Nothing runs before the first
    /// [`resume`](Self::resume).
    pub fn start<F>(phase: Phase, run: impl FnOnce(Relay) -> F) -> Operation<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        Operation::start_with(phase, false, run)
    }

    /// [`start`](Self::start)s an operation that, when `awaits`, awaits as
    /// the reference does (see the module docs): it asks about every tool it
    /// finds, and asks [`code::TICK`] where the reference awaits.
    pub fn start_with<F>(phase: Phase, awaits: bool, run: impl FnOnce(Relay) -> F) -> Operation<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        let relay = Relay { exchange: Arc::default(), phase, awaits };
        Operation { running: Some(Box::pin(run(relay.clone()))), relay, outcome: None }
    }

    /// The phase of every question this operation asks.
    pub fn phase(&self) -> Phase {
        self.relay.phase
    }

    /// Whether the operation awaits as the reference does, so that its
    /// driver must await every answer that is a promise, and every tick.
    pub fn awaits(&self) -> bool {
        self.relay.awaits
    }

    /// Hands over the answer to the last question (a [`code`]; ignored
    /// when no question is pending) and runs on. Returns the next question,
    /// or [`code::DONE`] once the outcome is ready. A panic inside the
    /// operation is caught: the operation is dropped and the error returned,
    /// and every later call returns `DONE`.
    pub fn resume(&mut self, answer: i32) -> Result<i32, OperationError> {
        {
            let mut exchange = self.relay.exchange.lock();
            match exchange.question.take() {
                Some(Question::Ask(_)) => exchange.answer = Some(Answer::from_code(answer)),
                Some(Question::Record | Question::Tick) | None => {}
            }
        }
        let Some(running) = self.running.as_mut() else { return Ok(code::DONE) };
        let mut context = Context::from_waker(Waker::noop());
        loop {
            let polled = catch_unwind(AssertUnwindSafe(|| running.as_mut().poll(&mut context)));
            let question = match polled {
                Ok(Poll::Ready(outcome)) => {
                    self.running = None;
                    self.outcome = Some(outcome);
                    return Ok(code::DONE);
                }
                Ok(Poll::Pending) => match &self.relay.exchange.lock().question {
                    Some(Question::Ask(ask)) => ask.code(),
                    Some(Question::Record) => Some(code::NEED_RECORD),
                    Some(Question::Tick) => Some(code::TICK),
                    None => {
                        self.running = None;
                        return Err(OperationError::Stalled);
                    }
                },
                Err(_) => {
                    // Dropping a future that panicked may panic again; that too
                    // must not unwind into the host.
                    let running = self.running.take();
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(running)));
                    return Err(OperationError::Panicked);
                }
            };
            match question {
                Some(question) => return Ok(question),
                // A question no code can carry: answered as failed, here.
                None => {
                    let mut exchange = self.relay.exchange.lock();
                    exchange.question = None;
                    exchange.answer = Some(Answer::verdict(Verdict::Failed));
                }
            }
        }
    }

    /// The name the pending question is about, when the tables found no
    /// tool for it.
    pub fn question_name(&self) -> Option<JsString> {
        match &self.relay.exchange.lock().question {
            Some(Question::Ask(ask)) => ask.missing_name().cloned(),
            _ => None,
        }
    }

    /// Hands over the caller's record, as [`code::NEED_RECORD`] asks; the
    /// next [`resume`](Self::resume) gives it to the operation.
    pub fn provide_record(&mut self, record: Arc<LiveRecord>) {
        self.relay.exchange.lock().record = Some(record);
    }

    /// Hands over, with the answer the next [`resume`](Self::resume) brings,
    /// the name of the tool it names (`None`: it has no id), when it is not
    /// what the tables say (see [`ToolFilter::take_name`]).
    pub fn provide_name(&mut self, name: Option<JsString>) {
        self.relay.exchange.lock().name = Some(name);
    }

    /// The outcome, once [`resume`](Self::resume) has returned `DONE`
    /// (taken: a second call gives `None`).
    pub fn take_outcome(&mut self) -> Option<T> {
        self.outcome.take()
    }
}

/// Runs an operation that has nothing to wait for (no hook, so
/// [`NoFilter`](super::NoFilter) answers every question at once) to its end
/// in one poll; `None` if it waited after all.
pub fn complete_now<T>(future: impl Future<Output = T>) -> Option<T> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => Some(value),
        Poll::Pending => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_search::ToolRef;

    /// Asks about tools 3, 5 and 8 and returns the allowed ones.
    async fn ask_three(relay: Relay) -> Vec<ToolRef> {
        let mut allowed = Vec::new();
        for tool in [3, 5, 8] {
            if relay.check(Ask::Tool(tool), Phase::Load).await.verdict.allows() {
                allowed.push(tool);
            }
        }
        allowed
    }

    fn tool(tool: i32) -> i32 {
        tool << code::ask::KIND_BITS
    }

    #[test]
    fn resume_asks_one_question_at_a_time_and_ends_with_the_outcome() {
        let mut operation = Operation::start(Phase::Load, ask_three);
        assert_eq!(operation.phase(), Phase::Load);
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(3)));
        assert_eq!(operation.take_outcome(), None);
        assert_eq!(operation.resume(code::ALLOWED), Ok(tool(5)));
        assert_eq!(operation.resume(code::FAILED), Ok(tool(8)));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(vec![3, 8]));
        assert_eq!(operation.take_outcome(), None);
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
    }

    #[test]
    fn unknown_answers_fail_and_the_first_answer_is_ignored() {
        let mut operation = Operation::start(Phase::Load, ask_three);
        assert_eq!(operation.resume(code::ALLOWED), Ok(tool(3)), "no question pending yet: nothing to answer");
        assert_eq!(operation.resume(-7), Ok(tool(5)));
        assert_eq!(operation.resume(code::DENIED), Ok(tool(8)));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(vec![8]));
    }

    #[test]
    fn resolve_questions_carry_the_lookup_what_was_found_and_the_answer_may_name_another_tool() {
        let mut operation = Operation::start(Phase::Active, |relay: Relay| async move {
            let mut answers = Vec::new();
            for (lookup, found) in [
                (Lookup::KeyFirst, Found::ByKey(7)),
                (Lookup::IdFirst, Found::ById(2)),
                (Lookup::IdOnly, Found::ById(0)),
                (Lookup::KeyFirst, Found::Missing(JsString::from("gone"))),
            ] {
                answers.push(relay.check(Ask::Resolve { lookup, found, live: true }, Phase::Active).await);
            }
            answers
        });
        use code::ask::{BY_ID, BY_KEY, FIRST_BY_ID, FOUND_BITS, MISSING, OWN_KEY, READ_BITS, STANDING};
        let kind = |found: i32, reads: &[i32]| {
            reads.iter().enumerate().fold(found, |kind, (i, read)| kind | read << (FOUND_BITS + i as u32 * READ_BITS))
        };
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(7) | kind(BY_KEY, &[OWN_KEY, FIRST_BY_ID])));
        assert_eq!(operation.question_name(), None);
        assert_eq!(operation.resume(code::ALLOWED), Ok(tool(2) | kind(BY_ID, &[STANDING, FIRST_BY_ID, OWN_KEY])));
        assert_eq!(operation.resume(code::ALLOWED_AS + 40), Ok(kind(BY_ID, &[STANDING, FIRST_BY_ID])));
        assert_eq!(operation.resume(code::DENIED), Ok(kind(MISSING, &[OWN_KEY, FIRST_BY_ID])));
        assert_eq!(operation.question_name(), Some(JsString::from("gone")));
        assert_eq!(operation.resume(code::ALLOWED_AS), Ok(code::DONE));
        assert_eq!(
            operation.take_outcome(),
            Some(vec![
                Answer::ALLOWED,
                Answer { verdict: Verdict::Allowed, tool: Some(40) },
                Answer::DENIED,
                Answer { verdict: Verdict::Allowed, tool: Some(0) },
            ])
        );
    }

    #[test]
    fn a_record_is_asked_for_and_handed_over() {
        let mut operation = Operation::start(Phase::Load, |relay: Relay| async move {
            relay.live_record().await.map(|record| (record.base, record.catalog.entry_count()))
        });
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::NEED_RECORD));
        let mut builder = crate::search::Catalog::builder();
        builder.push_str("a", None, "");
        let (text, entries) = builder.into_parts();
        operation.provide_record(Arc::new(LiveRecord::new(text, entries, 12).unwrap()));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Some((12, 1))));
        // Without a record the operation goes on without one.
        let mut operation =
            Operation::start(Phase::Load, |relay: Relay| async move { relay.live_record().await.is_none() });
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::NEED_RECORD));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(true));
    }

    #[test]
    fn an_operation_that_awaits_as_the_reference_asks_ticks_and_one_that_does_not_goes_on() {
        let run = |relay: Relay| async move {
            relay.tick().await;
            let answer = relay.check(Ask::Tool(4), Phase::Load).await;
            relay.tick().await;
            answer
        };
        let mut operation = Operation::start_with(Phase::Load, true, run);
        assert!(operation.awaits());
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::TICK));
        assert_eq!(operation.resume(code::DENIED), Ok(tool(4)), "a tick's answer is ignored");
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::TICK));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Answer::ALLOWED));
        let mut operation = Operation::start(Phase::Load, run);
        assert!(!operation.awaits());
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(4)));
        assert_eq!(operation.resume(code::DENIED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Answer::DENIED));
    }

    #[test]
    fn a_question_too_large_to_encode_is_answered_as_failed_without_asking() {
        let mut operation = Operation::start(Phase::Search, |relay: Relay| async move {
            relay.check(Ask::Tool(i32::MAX), Phase::Search).await
        });
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Answer::verdict(Verdict::Failed)));
    }

    #[test]
    fn a_panic_inside_the_operation_is_caught_and_ends_it() {
        let mut operation = Operation::start(Phase::Search, |relay: Relay| async move {
            let answer = relay.check(Ask::Tool(1), Phase::Search).await;
            if answer.verdict == Verdict::Denied {
                panic!("deliberate");
            }
            answer
        });
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(1)));
        assert_eq!(operation.resume(code::DENIED), Err(OperationError::Panicked));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), None);
    }

    #[test]
    fn an_operation_that_suspends_without_a_question_is_abandoned() {
        let mut operation: Operation<()> = Operation::start(Phase::Active, |_relay| std::future::pending());
        assert_eq!(operation.resume(code::NO_VERDICT), Err(OperationError::Stalled));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
    }

    #[test]
    fn without_questions_it_completes_at_once() {
        assert_eq!(complete_now(async { 5 }), Some(5));
        assert_eq!(complete_now(std::future::pending::<()>()), None);
    }
}
