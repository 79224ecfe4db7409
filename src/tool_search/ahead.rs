//! Asking the hook about several tools at once, deciding in order
//! (`filterConcurrency`).
//!
//! Every operation that consults the host goes down a list in order: the
//! ranked candidates of a search, the names of a load or of the loaded
//! tools, the keys of the injected catalog, the suggestions. Each item is
//! decided at once ([`Decision::Now`]: no hook, or nothing found) or by a
//! question to the host ([`Decision::Asking`]). [`Ahead`] keeps up to the
//! host's [`concurrency`](super::ToolFilter::concurrency) items in flight,
//! the next ones of the list, so their questions are out together, and
//! gives the items back in the list's order as their answers come: an
//! answer that comes early waits for those before it. The operation decides
//! as it did one at a time (the same tools, in the same order, the same
//! text); it only asks ahead, so a walk that stops early (a search at
//! `topK`, the suggestions at three) may have asked about a few items it
//! never needed, never more than `concurrency - 1`. Those questions are
//! withdrawn when the `Ahead` is dropped (see the [`Relay`](super::operation::Relay)):
//! one not yet handed to the host never is.
//!
//! With a concurrency of 1 (the default, and every host but the relay)
//! each item is asked for only once the one before it is decided: exactly
//! the order of a loop that awaits each in turn.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

/// How an item of an operation's list is decided.
pub enum Decision<T, F> {
    /// At once, without asking.
    Now(T),
    /// By the host's answer, which this future waits for.
    Asking(F),
}

/// An item in flight, and its decision so far.
enum InFlight<F: Future> {
    Asking(Pin<Box<F>>),
    Decided(F::Output),
}

/// Up to `room` items of a list in flight (see the module docs).
pub struct Ahead<I, F: Future> {
    room: usize,
    queue: VecDeque<(I, InFlight<F>)>,
    /// How many at the front of `queue` have been polled (asked) already.
    polled: usize,
}

impl<I, F: Future> Ahead<I, F> {
    /// Keeps up to `room` items in flight (at least one).
    pub fn new(room: usize) -> Ahead<I, F> {
        Ahead { room: room.max(1), queue: VecDeque::new(), polled: 0 }
    }

    /// The next item of the list and its decision, in the list's order;
    /// `None` once the list is over. `more` gives the items after those
    /// already taken from it (`None` at its end); it is called to fill the
    /// room left, and not after the list's end is reached in this call.
    pub async fn next(
        &mut self,
        mut more: impl FnMut() -> Option<(I, Decision<F::Output, F>)>,
    ) -> Option<(I, F::Output)> {
        if self.room == 1 && self.queue.is_empty() {
            // One at a time: the question is asked once the item before is decided.
            let (item, decision) = more()?;
            return Some((item, decide(decision).await));
        }
        while self.queue.len() < self.room {
            let Some((item, decision)) = more() else { break };
            let in_flight = match decision {
                Decision::Now(output) => InFlight::Decided(output),
                Decision::Asking(future) => InFlight::Asking(Box::pin(future)),
            };
            self.queue.push_back((item, in_flight));
        }
        poll_fn(|context| {
            // The new items ask their questions, in the list's order; the
            // others are polled again only once at the front.
            for (_, in_flight) in self.queue.iter_mut().skip(self.polled) {
                if let InFlight::Asking(future) = in_flight {
                    if let Poll::Ready(output) = future.as_mut().poll(context) {
                        *in_flight = InFlight::Decided(output);
                    }
                }
            }
            self.polled = self.queue.len();
            let Some((_, front)) = self.queue.front_mut() else { return Poll::Ready(None) };
            if let InFlight::Asking(future) = front {
                match future.as_mut().poll(context) {
                    Poll::Ready(output) => *front = InFlight::Decided(output),
                    Poll::Pending => return Poll::Pending,
                }
            }
            match self.queue.pop_front() {
                Some((item, InFlight::Decided(output))) => {
                    self.polled -= 1;
                    Poll::Ready(Some((item, output)))
                }
                // The front was just decided.
                _ => Poll::Ready(None),
            }
        })
        .await
    }
}

async fn decide<T, F: Future<Output = T>>(decision: Decision<T, F>) -> T {
    match decision {
        Decision::Now(output) => output,
        Decision::Asking(future) => future.await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::pin::pin;
    use std::rc::Rc;
    use std::task::{Context, Waker};

    /// A question whose answer the test gives: `answers[i]` once set.
    struct Question {
        i: usize,
        answers: Rc<RefCell<Vec<Option<bool>>>>,
        asked: Rc<RefCell<Vec<usize>>>,
        first_poll: bool,
    }

    impl Future for Question {
        type Output = bool;
        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<bool> {
            if self.first_poll {
                self.first_poll = false;
                let i = self.i;
                self.asked.borrow_mut().push(i);
            }
            match self.answers.borrow()[self.i] {
                Some(answer) => Poll::Ready(answer),
                None => Poll::Pending,
            }
        }
    }

    /// Walks items `0..n` (item 3 decided at once, as false) with `room`,
    /// taking decided items until `stop` of them were true: what it took,
    /// in order, at each poll, and which questions were asked.
    struct Walk {
        answers: Rc<RefCell<Vec<Option<bool>>>>,
        asked: Rc<RefCell<Vec<usize>>>,
        taken: Rc<RefCell<Vec<(usize, bool)>>>,
    }

    fn walk(n: usize, room: usize, stop: usize) -> (Walk, impl Future<Output = ()>) {
        let answers = Rc::new(RefCell::new(vec![None; n]));
        let asked = Rc::new(RefCell::new(Vec::new()));
        let taken = Rc::new(RefCell::new(Vec::new()));
        let state = Walk { answers: answers.clone(), asked: asked.clone(), taken: taken.clone() };
        let future = async move {
            let mut ahead = Ahead::new(room);
            let mut items = 0..n;
            let mut allowed = 0;
            loop {
                let next = ahead
                    .next(|| {
                        let i = items.next()?;
                        if i == 3 {
                            return Some((i, Decision::Now(false)));
                        }
                        let question = Question { i, answers: answers.clone(), asked: asked.clone(), first_poll: true };
                        Some((i, Decision::Asking(question)))
                    })
                    .await;
                let Some((i, answer)) = next else { break };
                taken.borrow_mut().push((i, answer));
                allowed += usize::from(answer);
                if allowed == stop {
                    break;
                }
            }
        };
        (state, future)
    }

    fn poll(future: Pin<&mut impl Future<Output = ()>>) -> bool {
        future.poll(&mut Context::from_waker(Waker::noop())).is_ready()
    }

    #[test]
    fn one_at_a_time_asks_each_once_the_one_before_is_decided() {
        let (state, future) = walk(6, 1, 2);
        let mut future = pin!(future);
        assert!(!poll(future.as_mut()));
        assert_eq!(*state.asked.borrow(), [0]);
        state.answers.borrow_mut()[0] = Some(false);
        assert!(!poll(future.as_mut()));
        assert_eq!(*state.asked.borrow(), [0, 1]);
        state.answers.borrow_mut()[1] = Some(true);
        state.answers.borrow_mut()[2] = Some(false);
        assert!(!poll(future.as_mut()));
        assert_eq!(*state.asked.borrow(), [0, 1, 2, 4], "3 was decided without asking");
        state.answers.borrow_mut()[4] = Some(true);
        assert!(poll(future.as_mut()));
        assert_eq!(*state.taken.borrow(), [(0, false), (1, true), (2, false), (3, false), (4, true)]);
        assert_eq!(*state.asked.borrow(), [0, 1, 2, 4], "5 was never asked");
    }

    #[test]
    fn several_at_once_are_asked_together_and_taken_in_order() {
        let (state, future) = walk(8, 3, 2);
        let mut future = pin!(future);
        assert!(!poll(future.as_mut()));
        assert_eq!(*state.asked.borrow(), [0, 1, 2]);
        // Answers that come early wait for the one before them.
        state.answers.borrow_mut()[2] = Some(true);
        state.answers.borrow_mut()[1] = Some(false);
        assert!(!poll(future.as_mut()));
        assert!(state.taken.borrow().is_empty());
        state.answers.borrow_mut()[0] = Some(false);
        assert!(!poll(future.as_mut()));
        // 0, 1 and 2 taken; 3 (decided at once), 4 and 5 filled in behind them.
        assert_eq!(*state.taken.borrow(), [(0, false), (1, false), (2, true), (3, false)]);
        assert_eq!(*state.asked.borrow(), [0, 1, 2, 4, 5, 6]);
        state.answers.borrow_mut()[4] = Some(true);
        assert!(poll(future.as_mut()));
        assert_eq!(*state.taken.borrow(), [(0, false), (1, false), (2, true), (3, false), (4, true)]);
        assert_eq!(*state.asked.borrow(), [0, 1, 2, 4, 5, 6], "asked ahead: 5 and 6, never more than room - 1");
    }

    #[test]
    fn the_list_ends_with_the_last_decision() {
        let (state, future) = walk(3, 8, 9);
        let mut future = pin!(future);
        assert!(!poll(future.as_mut()));
        assert_eq!(*state.asked.borrow(), [0, 1, 2]);
        *state.answers.borrow_mut() = vec![Some(true), Some(false), Some(true)];
        assert!(poll(future.as_mut()));
        assert_eq!(*state.taken.borrow(), [(0, true), (1, false), (2, true)]);
    }
}
