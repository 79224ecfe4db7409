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

use std::collections::VecDeque;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;

use crate::js::JsString;

use super::lookup::reads;
use super::{Answer, Ask, Found, Phase, ToolFilter, Verdict};
use crate::protocol::tool_search::operation as code;

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
            Ask::Resolve { lookup, found } => {
                let (tool, found_code) = match found {
                    Found::ByKey(tool) => (*tool, code::ask::BY_KEY),
                    Found::ById(tool) => (*tool, code::ask::BY_ID),
                    Found::Missing(_) => (0, code::ask::MISSING),
                };
                let reads =
                    reads(*lookup, found).iter().rev().fold(0, |reads, &read| (reads << code::ask::READ_BITS) | read);
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
    Tick,
}

impl Question {
    /// Its code (see [`code`]); `None` for a tool too large to encode.
    fn code(&self) -> Option<i32> {
        match self {
            Question::Ask(ask) => ask.code(),
            Question::Tick => Some(code::TICK),
        }
    }
}

/// A question's number within its operation, from 0, in the order asked.
pub type Ticket = i32;

/// Where a question stands.
enum Stage {
    /// Asked by the operation, not yet handed to the host.
    Waiting(Question),
    /// Handed to the host, which has not answered yet.
    Out(Question),
    /// Answered, the answer not yet taken by the operation.
    Answered(Answer),
    /// Done with: its answer taken, or withdrawn before it was handed out.
    Settled,
    /// Withdrawn while out: its answer, when it comes, is dropped.
    Abandoned,
}

/// The host's side of an operation: its questions by ticket.
///
/// Tickets are handed out in the order asked, so the questions still
/// waiting are those from `next_out` on; a question's stage is found by its
/// ticket in O(1), and settled ones leave from the front.
#[derive(Default)]
struct Exchange {
    /// The stages of tickets `first..`.
    stages: VecDeque<Stage>,
    first: Ticket,
    /// The first ticket not handed out yet.
    next_out: Ticket,
    /// Questions waiting or out (not withdrawn): what the operation waits on.
    open: usize,
}

impl Exchange {
    fn stage(&mut self, ticket: Ticket) -> Option<&mut Stage> {
        let at = usize::try_from(ticket.checked_sub(self.first)?).ok()?;
        self.stages.get_mut(at)
    }

    /// Files a question; it waits to be handed out.
    fn ask(&mut self, question: Question) -> Ticket {
        let ticket = self.first + self.stages.len() as Ticket;
        self.stages.push_back(Stage::Waiting(question));
        self.open += 1;
        ticket
    }

    /// The answer to `ticket`, if it came (taken: the question is settled).
    fn take_answer(&mut self, ticket: Ticket) -> Option<Answer> {
        let stage = self.stage(ticket)?;
        let Stage::Answered(answer) = *stage else { return None };
        *stage = Stage::Settled;
        self.retire();
        Some(answer)
    }

    /// The operation no longer wants the answer to `ticket`: a question not
    /// handed out yet never will be.
    fn withdraw(&mut self, ticket: Ticket) {
        let Some(stage) = self.stage(ticket) else { return };
        let next = match stage {
            Stage::Waiting(_) | Stage::Answered(..) | Stage::Settled => Stage::Settled,
            Stage::Out(_) | Stage::Abandoned => Stage::Abandoned,
        };
        let was_open = matches!(stage, Stage::Waiting(_) | Stage::Out(_));
        *stage = next;
        if was_open {
            self.open -= 1;
        }
        self.retire();
    }

    /// The host's answer (a [`code`]) to `ticket`; ignored unless the
    /// question is out.
    fn answer(&mut self, ticket: Ticket, answer: i32) {
        let Some(stage) = self.stage(ticket) else { return };
        match stage {
            Stage::Out(_) => {
                *stage = Stage::Answered(Answer::from_code(answer));
                self.open -= 1;
            }
            Stage::Abandoned => *stage = Stage::Settled,
            Stage::Waiting(_) | Stage::Answered(..) | Stage::Settled => return,
        }
        self.retire();
    }

    /// The oldest question out (abandoned or not): the one a one-at-a-time
    /// host answers.
    fn oldest_out(&self) -> Option<Ticket> {
        let out = self.stages.iter().take((self.next_out - self.first).max(0) as usize);
        out.zip(self.first..).find(|(stage, _)| matches!(stage, Stage::Out(_) | Stage::Abandoned)).map(|(_, t)| t)
    }

    /// Answers as failed, here, the waiting questions no code can carry;
    /// whether there were any.
    fn fail_unencodable(&mut self) -> bool {
        let from = (self.next_out - self.first).max(0) as usize;
        let mut failed = 0;
        for stage in self.stages.iter_mut().skip(from) {
            if matches!(stage, Stage::Waiting(question) if question.code().is_none()) {
                *stage = Stage::Answered(Answer::verdict(Verdict::Failed));
                failed += 1;
            }
        }
        self.open -= failed;
        failed > 0
    }

    /// Hands out up to `room` waiting questions, in order: their tickets
    /// and codes.
    fn hand_out(&mut self, room: usize, out: &mut Vec<(Ticket, i32)>) {
        while out.len() < room {
            let ticket = self.next_out;
            let Some(stage) = self.stage(ticket) else { break };
            match std::mem::replace(stage, Stage::Settled) {
                Stage::Waiting(question) => {
                    // `fail_unencodable` answered those without a code.
                    out.push((ticket, question.code().unwrap_or(code::DONE)));
                    *stage = Stage::Out(question);
                }
                other => *stage = other,
            }
            self.next_out += 1;
        }
    }

    /// Lets the settled questions at the front go.
    fn retire(&mut self) {
        while let Some(Stage::Settled) = self.stages.front() {
            self.stages.pop_front();
            self.first += 1;
        }
        self.next_out = self.next_out.max(self.first);
    }

    /// The name a question out is about, when the tables found no tool for it.
    fn missing_name(&mut self, ticket: Ticket) -> Option<JsString> {
        match self.stage(ticket)? {
            Stage::Out(Question::Ask(ask)) => ask.missing_name().cloned(),
            _ => None,
        }
    }
}

/// The [`ToolFilter`] of an operation: asking files the question and
/// suspends the operation until the host answers it (see [`Operation`]).
#[derive(Clone)]
pub struct Relay {
    exchange: Arc<Mutex<Exchange>>,
    phase: Phase,
    concurrency: usize,
    awaits: bool,
}

/// A question asked through a [`Relay`]: filed when first polled, ready
/// once answered. Dropped before that, it is withdrawn.
struct Asking {
    exchange: Arc<Mutex<Exchange>>,
    question: Option<Question>,
    ticket: Option<Ticket>,
}

impl Future for Asking {
    type Output = Answer;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Answer> {
        let this = &mut *self;
        let mut exchange = this.exchange.lock();
        if let Some(question) = this.question.take() {
            this.ticket = Some(exchange.ask(question));
            return Poll::Pending;
        }
        let Some(ticket) = this.ticket else { return Poll::Ready(Answer::verdict(Verdict::Failed)) };
        match exchange.take_answer(ticket) {
            Some(answer) => {
                this.ticket = None;
                Poll::Ready(answer)
            }
            None => Poll::Pending,
        }
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        if let Some(ticket) = self.ticket.take() {
            self.exchange.lock().withdraw(ticket);
        }
    }
}

impl Relay {
    fn asking(&self, question: Question) -> Asking {
        Asking { exchange: self.exchange.clone(), question: Some(question), ticket: None }
    }
}

impl ToolFilter for Relay {
    fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer> {
        // An operation only asks in its own phase (see the module docs); a
        // question in another would reach the hook with the wrong phase, so
        // it is refused without asking.
        debug_assert_eq!(phase, self.phase, "an operation asked outside its phase");
        let asking = (phase == self.phase).then(|| self.asking(Question::Ask(ask)));
        async move {
            match asking {
                Some(asking) => asking.await,
                None => Answer::verdict(Verdict::Failed),
            }
        }
    }

    fn concurrency(&self) -> usize {
        self.concurrency
    }

    fn awaits(&self) -> bool {
        self.awaits
    }

    fn tick(&self) -> impl Future<Output = ()> {
        let asked = self.awaits.then(|| self.asking(Question::Tick));
        async move {
            if let Some(asked) = asked {
                // A tick's answer means nothing: it is only a turn.
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
    /// The operation suspended without a question left to answer, so
    /// nothing could ever resume it; it was dropped.
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

/// An operation that consults the hook, suspended at its questions.
pub struct Operation<T> {
    running: Option<Running<T>>,
    relay: Relay,
    outcome: Option<T>,
    /// The questions the last run handed out, `(ticket, code)`: one buffer
    /// for the operation, so that a host asking one at a time
    /// ([`resume`](Self::resume), once a question) allocates nothing.
    handed: Vec<(Ticket, i32)>,
}

impl<T> Operation<T> {
    /// Starts an operation that asks in `phase`, up to `concurrency`
    /// questions at once (at least one): `run` gets the relay to ask through
    /// and gives the future. Nothing runs before the first
    /// [`resume`](Self::resume) or [`exchange`](Self::exchange).
    pub fn start<F>(phase: Phase, concurrency: usize, run: impl FnOnce(Relay) -> F) -> Operation<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        Operation::start_with(phase, concurrency, false, run)
    }

    /// [`start`](Self::start)s an operation that, when `awaits`, awaits as
    /// the reference does (see the module docs): it asks about every tool it
    /// finds, and asks [`code::TICK`] where the reference awaits. A tick is a
    /// question like any other, with its ticket.
    pub fn start_with<F>(phase: Phase, concurrency: usize, awaits: bool, run: impl FnOnce(Relay) -> F) -> Operation<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        let relay = Relay { exchange: Arc::default(), phase, concurrency: concurrency.max(1), awaits };
        Operation { running: Some(Box::pin(run(relay.clone()))), relay, outcome: None, handed: Vec::new() }
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

    /// Hands over the answer to the question out (a [`code`]; ignored when
    /// none is) and runs on. Returns the next question, or [`code::DONE`]
    /// once the outcome is ready: one question at a time, for a host that
    /// asks one at a time. A panic inside the operation is caught: the
    /// operation is dropped and the error returned, and every later call
    /// returns `DONE`.
    pub fn resume(&mut self, answer: i32) -> Result<i32, OperationError> {
        {
            let mut exchange = self.relay.exchange.lock();
            if let Some(ticket) = exchange.oldest_out() {
                exchange.answer(ticket, answer);
            }
        }
        if !self.run(1)? {
            return Ok(code::DONE);
        }
        self.handed.first().map(|&(_, question)| question).ok_or(OperationError::Stalled)
    }

    /// Hands over answers as `(ticket, code)` (each ignored unless its
    /// question is out) and runs on, deciding in the order asked. Returns
    /// `None` once the outcome is ready, else the questions to hand to the
    /// host now, up to `room` (none: the host still has some to answer;
    /// `room` of them: call again, without answers, for more). A panic
    /// is caught as by [`resume`](Self::resume).
    pub fn exchange(
        &mut self,
        answers: impl IntoIterator<Item = (Ticket, i32)>,
        room: usize,
    ) -> Result<Option<Vec<(Ticket, i32)>>, OperationError> {
        {
            let mut exchange = self.relay.exchange.lock();
            for (ticket, answer) in answers {
                exchange.answer(ticket, answer);
            }
        }
        Ok(self.run(room.max(1))?.then(|| self.handed.clone()))
    }

    /// Polls the operation until it ends (`false`) or waits on the host
    /// (`true`), and hands out up to `room` of the questions waiting, into
    /// `handed`.
    fn run(&mut self, room: usize) -> Result<bool, OperationError> {
        self.handed.clear();
        let Some(running) = self.running.as_mut() else { return Ok(false) };
        let mut context = Context::from_waker(Waker::noop());
        loop {
            match catch_unwind(AssertUnwindSafe(|| running.as_mut().poll(&mut context))) {
                Ok(Poll::Ready(outcome)) => {
                    self.running = None;
                    self.outcome = Some(outcome);
                    return Ok(false);
                }
                Ok(Poll::Pending) => {}
                Err(_) => {
                    // Dropping a future that panicked may panic again; that too
                    // must not unwind into the host.
                    let running = self.running.take();
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(running)));
                    return Err(OperationError::Panicked);
                }
            }
            let mut exchange = self.relay.exchange.lock();
            // A question no code can carry is answered as failed, here.
            if exchange.fail_unencodable() {
                continue;
            }
            if exchange.open == 0 {
                drop(exchange);
                self.running = None;
                return Err(OperationError::Stalled);
            }
            exchange.hand_out(room, &mut self.handed);
            return Ok(true);
        }
    }

    /// The name the question out is about (the oldest, for a host that
    /// answers one at a time), when the tables found no tool for it.
    pub fn question_name(&self) -> Option<JsString> {
        let mut exchange = self.relay.exchange.lock();
        let ticket = exchange.oldest_out()?;
        exchange.missing_name(ticket)
    }

    /// The name question `ticket` is about, while it is out, when the
    /// tables found no tool for it.
    pub fn question_name_of(&self, ticket: Ticket) -> Option<JsString> {
        self.relay.exchange.lock().missing_name(ticket)
    }

    /// The outcome, once the operation has ended (taken: a second call
    /// gives `None`).
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
    use crate::tool_search::{Lookup, ToolRef};

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
        let mut operation = Operation::start(Phase::Load, 1, ask_three);
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
        let mut operation = Operation::start(Phase::Load, 1, ask_three);
        assert_eq!(operation.resume(code::ALLOWED), Ok(tool(3)), "no question pending yet: nothing to answer");
        assert_eq!(operation.resume(-7), Ok(tool(5)));
        assert_eq!(operation.resume(code::DENIED), Ok(tool(8)));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(vec![8]));
    }

    #[test]
    fn resolve_questions_carry_the_lookup_what_was_found_and_the_answer_may_name_another_tool() {
        let mut operation = Operation::start(Phase::Active, 1, |relay: Relay| async move {
            let mut answers = Vec::new();
            for (lookup, found) in [
                (Lookup::KeyFirst, Found::ByKey(7)),
                (Lookup::IdFirst, Found::ById(2)),
                (Lookup::KeyFirst, Found::ById(0)),
                (Lookup::KeyFirst, Found::Missing(JsString::from("gone"))),
            ] {
                answers.push(relay.check(Ask::Resolve { lookup, found }, Phase::Active).await);
            }
            answers
        });
        use code::ask::{BY_ID, BY_KEY, FOUND_BITS, MISSING, OWN_KEY, READ_BITS, STANDING};
        let kind = |found: i32, reads: &[i32]| {
            reads.iter().enumerate().fold(found, |kind, (i, read)| kind | read << (FOUND_BITS + i as u32 * READ_BITS))
        };
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(7) | kind(BY_KEY, &[OWN_KEY])));
        assert_eq!(operation.question_name(), None);
        assert_eq!(operation.resume(code::ALLOWED), Ok(tool(2) | kind(BY_ID, &[STANDING, OWN_KEY])));
        assert_eq!(operation.resume(code::ALLOWED_AS + 40), Ok(kind(BY_ID, &[OWN_KEY, STANDING])));
        assert_eq!(operation.resume(code::DENIED), Ok(kind(MISSING, &[OWN_KEY])));
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
    fn an_operation_that_awaits_as_the_reference_asks_ticks_and_one_that_does_not_goes_on() {
        let run = |relay: Relay| async move {
            relay.tick().await;
            let answer = relay.check(Ask::Tool(4), Phase::Load).await;
            relay.tick().await;
            answer
        };
        let mut operation = Operation::start_with(Phase::Load, 1, true, run);
        assert!(operation.awaits());
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::TICK));
        assert_eq!(operation.resume(code::DENIED), Ok(tool(4)), "a tick's answer is ignored");
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::TICK));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Answer::ALLOWED));
        let mut operation = Operation::start(Phase::Load, 1, run);
        assert!(!operation.awaits());
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(4)));
        assert_eq!(operation.resume(code::DENIED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Answer::DENIED));
    }

    #[test]
    fn a_question_too_large_to_encode_is_answered_as_failed_without_asking() {
        let mut operation = Operation::start(Phase::Search, 1, |relay: Relay| async move {
            relay.check(Ask::Tool(i32::MAX), Phase::Search).await
        });
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(Answer::verdict(Verdict::Failed)));
    }

    #[test]
    fn a_panic_inside_the_operation_is_caught_and_ends_it() {
        let mut operation = Operation::start(Phase::Search, 1, |relay: Relay| async move {
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
        let mut operation: Operation<()> = Operation::start(Phase::Active, 1, |_relay| std::future::pending());
        assert_eq!(operation.resume(code::NO_VERDICT), Err(OperationError::Stalled));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(code::DONE));
    }

    #[test]
    fn an_operation_that_suspends_while_its_questions_are_out_waits_for_them() {
        let mut operation = Operation::start(Phase::Load, 4, |relay: Relay| async move {
            let ahead = relay.check(Ask::Tool(1), Phase::Load);
            ahead.await
        });
        assert_eq!(operation.exchange([], 4), Ok(Some(vec![(0, tool(1))])));
        assert_eq!(operation.exchange([], 4), Ok(Some(vec![])), "out with the host: nothing new");
        assert_eq!(operation.exchange([(0, code::DENIED)], 4), Ok(None));
        assert_eq!(operation.take_outcome(), Some(Answer::DENIED));
    }

    /// Asks about tools `0..n` through [`Ahead`](super::super::ahead::Ahead),
    /// as the operations do, taking allowed ones until `stop` of them.
    async fn walk(relay: Relay, n: i32, stop: usize) -> Vec<ToolRef> {
        use super::super::ahead::{Ahead, Decision};
        let mut ahead = Ahead::new(relay.concurrency());
        let mut tools = 0..n;
        let mut allowed = Vec::new();
        loop {
            let next = ahead
                .next(|| {
                    let tool = tools.next()?;
                    let asking = relay.check(Ask::Tool(tool), Phase::Search);
                    Some((tool, Decision::Asking(async { asking.await.verdict.allows() })))
                })
                .await;
            let Some((tool, allows)) = next else { break };
            if allows {
                allowed.push(tool);
                if allowed.len() == stop {
                    break;
                }
            }
        }
        allowed
    }

    #[test]
    fn exchange_hands_out_several_questions_and_takes_answers_in_any_order() {
        let mut operation = Operation::start(Phase::Search, 3, |relay| walk(relay, 8, 2));
        assert_eq!(operation.exchange([], 16), Ok(Some(vec![(0, tool(0)), (1, tool(1)), (2, tool(2))])));
        // Answers out of order wait for the one before them; unknown
        // tickets, tickets not out and repeated answers are ignored.
        assert_eq!(
            operation.exchange([(2, code::ALLOWED), (7, code::ALLOWED), (-1, code::ALLOWED)], 16),
            Ok(Some(vec![]))
        );
        assert_eq!(operation.exchange([(1, code::DENIED), (2, code::DENIED)], 16), Ok(Some(vec![])));
        // The first decides: 0 denied, 1 denied, 2 allowed; 3, 4 and 5 asked.
        assert_eq!(
            operation.exchange([(0, code::FAILED)], 16),
            Ok(Some(vec![(3, tool(3)), (4, tool(4)), (5, tool(5))]))
        );
        // Room for one question a call: the rest come with the next calls.
        let mut operation2 = Operation::start(Phase::Search, 3, |relay| walk(relay, 8, 2));
        assert_eq!(operation2.exchange([], 1), Ok(Some(vec![(0, tool(0))])));
        assert_eq!(operation2.exchange([], 1), Ok(Some(vec![(1, tool(1))])));
        assert_eq!(operation2.exchange([(0, code::ALLOWED)], 1), Ok(Some(vec![(2, tool(2))])));
        assert_eq!(operation2.exchange([], 1), Ok(Some(vec![(3, tool(3))])));
        // 4 allowed: the second allowed tool ends the walk, 3 and 5 still out.
        assert_eq!(operation.exchange([(4, code::ALLOWED), (3, code::ALLOWED)], 16), Ok(None));
        assert_eq!(operation.take_outcome(), Some(vec![2, 3]));
        // Late answers to questions withdrawn are dropped.
        assert_eq!(operation.exchange([(5, code::ALLOWED)], 16), Ok(None));
    }

    #[test]
    fn questions_withdrawn_before_they_are_handed_out_are_never_asked() {
        let mut operation = Operation::start(Phase::Search, 4, |relay| walk(relay, 10, 1));
        assert_eq!(operation.exchange([], 2), Ok(Some(vec![(0, tool(0)), (1, tool(1))])));
        // Tool 0 allowed ends the walk: 2 and 3, filed but not handed out, are withdrawn.
        assert_eq!(operation.exchange([(0, code::ALLOWED)], 2), Ok(None));
        assert_eq!(operation.take_outcome(), Some(vec![0]));
    }

    #[test]
    fn resume_drives_an_operation_that_asks_ahead_one_question_at_a_time() {
        let mut operation = Operation::start(Phase::Search, 3, |relay| walk(relay, 5, 2));
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(tool(0)));
        assert_eq!(operation.resume(code::DENIED), Ok(tool(1)));
        assert_eq!(operation.resume(code::ALLOWED), Ok(tool(2)));
        assert_eq!(operation.resume(code::DENIED), Ok(tool(3)));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(vec![1, 3]));
    }

    #[test]
    fn ticks_have_tickets_and_answers_go_to_their_own_questions_when_several_are_out() {
        // Two questions out at once, answered in reverse order; the
        // operation decides in the order asked, then ticks.
        let mut operation = Operation::start_with(Phase::Search, 2, true, |relay: Relay| async move {
            use super::super::ahead::{Ahead, Decision};
            let mut ahead = Ahead::new(relay.concurrency());
            let mut tools = [1, 2].into_iter();
            let mut decided = Vec::new();
            loop {
                let next = ahead
                    .next(|| {
                        let tool = tools.next()?;
                        let asking = relay.check(Ask::Tool(tool), Phase::Search);
                        Some((tool, Decision::Asking(async move { asking.await.verdict.allows() })))
                    })
                    .await;
                let Some((tool, allowed)) = next else { break };
                decided.push((tool, allowed));
            }
            relay.tick().await;
            decided
        });
        assert_eq!(operation.exchange([], 8), Ok(Some(vec![(0, tool(1)), (1, tool(2))])));
        assert_eq!(operation.exchange([(1, code::DENIED)], 8), Ok(Some(vec![])));
        assert_eq!(operation.exchange([(0, code::ALLOWED)], 8), Ok(Some(vec![(2, code::TICK)])), "a tick has a ticket");
        assert_eq!(operation.exchange([(2, code::NO_VERDICT)], 8), Ok(None));
        assert_eq!(operation.take_outcome(), Some(vec![(1, true), (2, false)]));
    }

    #[test]
    fn names_of_missing_tools_are_read_by_ticket() {
        let mut operation = Operation::start(Phase::Load, 2, |relay: Relay| async move {
            use super::super::ahead::{Ahead, Decision};
            let mut ahead = Ahead::new(relay.concurrency());
            let mut names = ["x", "y"].into_iter();
            let mut answers = Vec::new();
            loop {
                let next = ahead
                    .next(|| {
                        let found = Found::Missing(JsString::from(names.next()?));
                        Some((
                            (),
                            Decision::Asking(
                                relay.check(Ask::Resolve { lookup: Lookup::KeyFirst, found }, Phase::Load),
                            ),
                        ))
                    })
                    .await;
                let Some(((), answer)) = next else { break };
                answers.push(Some(answer));
            }
            answers
        });
        let asked = operation.exchange([], 8).unwrap().unwrap();
        assert_eq!(asked.len(), 2);
        assert_eq!(operation.question_name_of(0), Some(JsString::from("x")));
        assert_eq!(operation.question_name_of(1), Some(JsString::from("y")));
        assert_eq!(operation.question_name_of(2), None);
        assert_eq!(operation.question_name(), Some(JsString::from("x")), "the oldest out");
        assert_eq!(operation.exchange([(1, code::ALLOWED_AS + 4)], 8), Ok(Some(vec![])));
        assert_eq!(operation.question_name_of(1), None, "answered");
        assert_eq!(operation.exchange([(0, code::DENIED)], 8), Ok(None));
        assert_eq!(
            operation.take_outcome(),
            Some(vec![Some(Answer::DENIED), Some(Answer { verdict: Verdict::Allowed, tool: Some(4) })])
        );
    }

    #[test]
    fn without_questions_it_completes_at_once() {
        assert_eq!(complete_now(async { 5 }), Some(5));
        assert_eq!(complete_now(std::future::pending::<()>()), None);
    }
}
