//! Running the operations of [`ToolSearch`](super::ToolSearch) on the
//! JavaScript thread.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Runs an operation that has nothing to wait for (no filter hook, so
/// [`NoFilter`](super::NoFilter) answers every question at once) to its end
/// in one poll; `None` if it waited after all.
pub fn complete_now<T>(future: impl Future<Output = T>) -> Option<T> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => Some(value),
        Poll::Pending => None,
    }
}
