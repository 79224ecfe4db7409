//! A way to prove, from JavaScript, that a panic behind the boundary becomes
//! an `Error` and never aborts Node: every entry point is declared with
//! `catch_unwind`, and this one panics on purpose (`__test__/boundary.test.mjs`).

use napi_derive::napi;

/// Panics with `message`; the caller gets an `Error` carrying it.
#[napi(js_name = "__panicForTesting", catch_unwind)]
pub fn panic_for_testing(message: String) {
    panic!("{message}");
}
