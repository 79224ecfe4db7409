//! The resumable operation: how an operation that consults the `filter` hook
//! runs on the JavaScript thread.
//!
//! The hook is the user's JavaScript function and may answer with a promise.
//! An operation that asks it (`search_tools`, `load_tool`, the active tools,
//! the injected catalog) is a Rust future whose [`ToolFilter`] is a
//! [`Relay`]: asking the relay parks the question (which tool) and suspends
//! the future. The binding hands the operation to JavaScript, which drives it:
//!
//! ```text
//! verdict = NO_VERDICT
//! for (tool = operation.resume(verdict); tool !== DONE; tool = operation.resume(verdict))
//!   verdict = ask the hook about tool, in operation.phase   // awaited only if it returns a promise
//! operation.<kind>Output()
//! ```
//!
//! Each [`resume`](Operation::resume) hands over the verdict on the last
//! question and polls the future until it asks again or ends. So a
//! synchronous hook sees exactly the reference's calls, in the same order,
//! with one native call per question; no Rust lock is held while the hook
//! runs; and an operation whose hook never settles holds up no other.
//!
//! A threadsafe function (a tokio task calling back into JavaScript) was
//! measured first: two thread hops per question cost 5–15 µs where this costs
//! well under one, which made a filtered search slower than the reference.
//!
//! Every question of one operation is in the same [`Phase`], declared when it
//! starts (`search_tools` and the catalog ask in `'search'`, `load_tool` in
//! `'load'`, the active tools in `'active'`), so the driver reads the phase
//! once rather than with every question.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;

use super::{Phase, ToolFilter, ToolRef, Verdict};

/// The numbers [`Operation::resume`] takes and gives.
pub mod code {
    /// What `resume` returns once the operation has ended (tool refs are `>= 0`).
    pub const DONE: i32 = -1;
    /// The verdict `resume` is given before the first question.
    pub const NO_VERDICT: i32 = -2;
    /// The hook allowed the tool.
    pub const ALLOWED: i32 = 1;
    /// The hook denied the tool.
    pub const DENIED: i32 = 0;
    /// The hook threw or its promise rejected.
    pub const FAILED: i32 = -1;
}

impl Verdict {
    /// The verdict a code of [`code`] stands for; anything unknown fails.
    pub fn from_code(verdict: i32) -> Verdict {
        match verdict {
            code::ALLOWED => Verdict::Allowed,
            code::DENIED => Verdict::Denied,
            _ => Verdict::Failed,
        }
    }
}

/// The hook's side of an operation: the question it waits on, and the
/// answer once JavaScript has given it.
#[derive(Default)]
struct Exchange {
    question: Option<ToolRef>,
    answer: Option<Verdict>,
}

/// The [`ToolFilter`] of an operation: asking parks the question and
/// suspends the operation until [`Operation::resume`] brings the answer.
#[derive(Clone)]
pub struct Relay {
    exchange: Arc<Mutex<Exchange>>,
    phase: Phase,
}

impl ToolFilter for Relay {
    fn check(&self, tool: ToolRef, phase: Phase) -> impl Future<Output = Verdict> {
        // An operation only asks in its own phase (see the module docs); a
        // question in another would reach the hook with the wrong phase, so
        // it is denied without asking.
        debug_assert_eq!(phase, self.phase, "an operation asked outside its phase");
        let in_phase = phase == self.phase;
        let exchange = self.exchange.clone();
        let mut asked = false;
        std::future::poll_fn(move |_| {
            if !in_phase {
                return Poll::Ready(Verdict::Failed);
            }
            let mut exchange = exchange.lock();
            if asked {
                if let Some(verdict) = exchange.answer.take() {
                    return Poll::Ready(verdict);
                }
            } else {
                exchange.question = Some(tool);
                asked = true;
            }
            Poll::Pending
        })
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
        let relay = Relay { exchange: Arc::default(), phase };
        Operation { running: Some(Box::pin(run(relay.clone()))), relay, outcome: None }
    }

    /// The phase of every question this operation asks.
    pub fn phase(&self) -> Phase {
        self.relay.phase
    }

    /// Hands over the verdict on the last question (a [`code`]; ignored
    /// when no question is pending) and runs on. Returns the tool of the
    /// next question, or [`code::DONE`] once the outcome is ready. A panic
    /// inside the operation is caught: the operation is dropped and the error
    /// returned, and every later call returns `DONE`.
    pub fn resume(&mut self, verdict: i32) -> Result<i32, OperationError> {
        {
            let mut exchange = self.relay.exchange.lock();
            if exchange.question.take().is_some() {
                exchange.answer = Some(Verdict::from_code(verdict));
            }
        }
        let Some(running) = self.running.as_mut() else { return Ok(code::DONE) };
        let mut context = Context::from_waker(Waker::noop());
        let polled = catch_unwind(AssertUnwindSafe(|| running.as_mut().poll(&mut context)));
        match polled {
            Ok(Poll::Ready(outcome)) => {
                self.running = None;
                self.outcome = Some(outcome);
                Ok(code::DONE)
            }
            Ok(Poll::Pending) => match self.relay.exchange.lock().question {
                Some(tool) => Ok(tool),
                None => {
                    self.running = None;
                    Err(OperationError::Stalled)
                }
            },
            Err(_) => {
                // Dropping a future that panicked may panic again; that too
                // must not unwind into the host.
                let running = self.running.take();
                let _ = catch_unwind(AssertUnwindSafe(move || drop(running)));
                Err(OperationError::Panicked)
            }
        }
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

    /// Asks about tools 3, 5 and 8 and returns the allowed ones.
    async fn ask_three(relay: Relay) -> Vec<ToolRef> {
        let mut allowed = Vec::new();
        for tool in [3, 5, 8] {
            if relay.check(tool, Phase::Load).await.allows() {
                allowed.push(tool);
            }
        }
        allowed
    }

    #[test]
    fn resume_asks_one_question_at_a_time_and_ends_with_the_outcome() {
        let mut operation = Operation::start(Phase::Load, ask_three);
        assert_eq!(operation.phase(), Phase::Load);
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(3));
        assert_eq!(operation.take_outcome(), None);
        assert_eq!(operation.resume(code::ALLOWED), Ok(5));
        assert_eq!(operation.resume(code::FAILED), Ok(8));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(vec![3, 8]));
        assert_eq!(operation.take_outcome(), None);
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
    }

    #[test]
    fn unknown_verdicts_fail_and_the_first_verdict_is_ignored() {
        let mut operation = Operation::start(Phase::Load, ask_three);
        assert_eq!(operation.resume(code::ALLOWED), Ok(3), "no question pending yet: nothing to answer");
        assert_eq!(operation.resume(7), Ok(5));
        assert_eq!(operation.resume(code::DENIED), Ok(8));
        assert_eq!(operation.resume(code::ALLOWED), Ok(code::DONE));
        assert_eq!(operation.take_outcome(), Some(vec![8]));
    }

    #[test]
    fn a_panic_inside_the_operation_is_caught_and_ends_it() {
        let mut operation = Operation::start(Phase::Search, |relay: Relay| async move {
            let verdict = relay.check(1, Phase::Search).await;
            if verdict == Verdict::Denied {
                panic!("deliberate");
            }
            verdict
        });
        assert_eq!(operation.resume(code::NO_VERDICT), Ok(1));
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
