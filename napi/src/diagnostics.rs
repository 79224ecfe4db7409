//! A way to prove, from JavaScript, that a panic behind the boundary becomes
//! an `Error` and never aborts Node: every `#[napi]` entry point is declared
//! with `catch_unwind` and every plain callback runs through
//! [`crate::raw::enter`], and these two panic on purpose
//! (`__test__/boundary.test.mjs`).

use napi::sys;
use napi_derive::napi;

use crate::raw;

/// Panics with `message`; the caller gets an `Error` carrying it.
#[napi(js_name = "__panicForTesting", catch_unwind)]
pub fn panic_for_testing(message: String) {
    panic!("{message}");
}

/// The message [`panic_in_plain_callback`] panics with.
pub const PLAIN_CALLBACK_PANIC: &str = "a deliberate panic in a plain callback";

/// `__panicInPlainCallbackForTesting()`: panics inside [`raw::enter`].
pub unsafe extern "C" fn panic_in_plain_callback(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: Node-API calls this with its `env` and `info`.
    unsafe { raw::enter::<0>(env, info, |_| panic!("{PLAIN_CALLBACK_PANIC}")) }
}
