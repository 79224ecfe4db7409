//! Entry points called as plain Node-API callbacks, without the machinery
//! napi-rs's `#[napi]` wraps around every call.
//!
//! The prompt filter is called on every model call, with a prompt of often
//! a hundred messages or fewer, where a call's own work is a few
//! microseconds. A `#[napi]` function spends about a microsecond before its
//! body runs (borrow scopes pushed to and popped from thread-local storage,
//! and an `Either` argument formatting an error message for each variant its
//! value is not), and right after a full garbage collection, when all of
//! that code is out of the CPU's caches, several times as much. These entry
//! points read their arguments with one `napi_get_cb_info` and a Node-API
//! call or a few each, catch panics as `#[napi(catch_unwind)]` does, and
//! throw errors as napi-rs throws them. This module is the machinery
//! ([`enter`], [`Args`]); the crate root exports the callbacks.

use napi::bindgen_prelude::*;
use napi::{sys, JsError};

use crate::buffers::{read_view, Int32In, Int32Out};

/// The arguments of one call, as `napi_get_cb_info` gave them (missing ones
/// are `undefined`).
pub struct Args<const N: usize> {
    env: sys::napi_env,
    values: [sys::napi_value; N],
}

/// Runs `body` on the arguments of a call and hands its answer back to
/// JavaScript; an `Err` or a panic is thrown as a JavaScript `Error`.
///
/// # Safety
/// `env` and `info` must be those Node-API passed to the callback.
pub unsafe fn enter<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(&Args<N>) -> Result<sys::napi_value>,
) -> sys::napi_value {
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller vouches for `env` and `info`.
        let args = unsafe { Args::read(env, info)? };
        body(&args)
    }))
    .map_err(panic_to_error)
    .and_then(|answer| answer);
    match answer {
        Ok(value) => value,
        Err(error) => {
            // SAFETY: `env` is the callback's; nothing is pending (every
            // Node-API call above that failed was turned into `error`).
            unsafe { JsError::from(error).throw_into(env) };
            std::ptr::null_mut()
        }
    }
}

impl<const N: usize> Args<N> {
    /// # Safety
    /// `env` and `info` must be those Node-API passed to the callback.
    unsafe fn read(env: sys::napi_env, info: sys::napi_callback_info) -> Result<Self> {
        let mut values = [std::ptr::null_mut(); N];
        let mut count = N;
        // SAFETY: `values` has room for `count` values; `this` and `data` are not asked for.
        check_status!(unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                &mut count,
                values.as_mut_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        })?;
        Ok(Args { env, values })
    }

    fn kind(&self, index: usize) -> Result<ValueType> {
        let mut kind = 0;
        // SAFETY: the value is an argument of this call, in its `env`.
        check_status!(unsafe { sys::napi_typeof(self.env, self.values[index], &mut kind) })?;
        Ok(ValueType::from(kind))
    }

    fn f64(&self, index: usize) -> Result<f64> {
        let mut value = 0.0;
        // SAFETY: the value is an argument of this call, in its `env`; one
        // that is not a number gives an error status.
        let status = unsafe { sys::napi_get_value_double(self.env, self.values[index], &mut value) };
        check_status!(status, "argument {index}: expected a number")?;
        Ok(value)
    }

    /// `true` or `false`; anything else is an error.
    pub fn bool(&self, index: usize) -> Result<bool> {
        let mut value = false;
        // SAFETY: the value is an argument of this call, in its `env`; one
        // that is not a boolean gives an error status.
        let status = unsafe { sys::napi_get_value_bool(self.env, self.values[index], &mut value) };
        check_status!(status, "argument {index}: expected a boolean")?;
        Ok(value)
    }

    /// A number as an unsigned 32-bit integer (JavaScript's `ToUint32` of it).
    pub fn u32(&self, index: usize) -> Result<u32> {
        let mut value = 0;
        // SAFETY: the value is an argument of this call, in its `env`; one
        // that is not a number gives an error status.
        let status = unsafe { sys::napi_get_value_uint32(self.env, self.values[index], &mut value) };
        check_status!(status, "argument {index}: expected a number")?;
        Ok(value)
    }

    /// Whether the argument is `undefined` or `null`.
    fn is_nullish(&self, index: usize) -> Result<bool> {
        Ok(matches!(self.kind(index)?, ValueType::Undefined | ValueType::Null))
    }

    /// [`Self::u32`], or `None` for `undefined` or `null`.
    pub fn u32_or_nullish(&self, index: usize) -> Result<Option<u32>> {
        if self.is_nullish(index)? {
            return Ok(None);
        }
        self.u32(index).map(Some)
    }

    /// A number, or `None` for `undefined`.
    pub fn f64_or_undefined(&self, index: usize) -> Result<Option<f64>> {
        match self.kind(index)? {
            ValueType::Undefined => Ok(None),
            _ => self.f64(index).map(Some),
        }
    }

    pub fn int32_in(&self, index: usize) -> Result<Int32In<'_>> {
        // SAFETY: the value is an argument of this call, borrowed for it.
        unsafe { read_view(self.env, self.values[index]) }.map(Int32In::from)
    }

    /// [`Self::int32_in`], or `None` for `undefined` or `null`.
    pub fn int32_in_or_nullish(&self, index: usize) -> Result<Option<Int32In<'_>>> {
        if self.is_nullish(index)? {
            return Ok(None);
        }
        self.int32_in(index).map(Some)
    }

    pub fn int32_out(&self, index: usize) -> Result<Int32Out<'_>> {
        // SAFETY: the value is an argument of this call, borrowed for it.
        unsafe { read_view(self.env, self.values[index]) }.map(Int32Out::from)
    }

    /// `value` as a JavaScript number.
    pub fn int32(&self, value: i32) -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        // SAFETY: `env` is the call's.
        check_status!(unsafe { sys::napi_create_int32(self.env, value, &mut out) })?;
        Ok(out)
    }
}
