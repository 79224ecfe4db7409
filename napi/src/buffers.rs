//! `Int32Array` arguments read and written in place.
//!
//! The wrappers hand over tapes and a reusable answer buffer without a copy.
//! Reading a view while JavaScript is blocked in the call is sound only if
//! no other thread can write to it, so views of a `SharedArrayBuffer` are
//! refused; writing the answer is sound only if the answer buffer shares no
//! memory with what is read, which [`Int32Out::write`] checks first.

use mastra_native_processors::tool_call_filter::prompt::PlanSink;
use napi::bindgen_prelude::*;
use napi::sys;

/// A borrowed `Int32Array`'s elements, as read on conversion.
pub struct View<'a> {
    data: std::ptr::NonNull<i32>,
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [i32]>,
}

impl View<'_> {
    fn as_slice(&self) -> &[i32] {
        // SAFETY: `data` points to `len` elements of a live, non-shared view
        // (see `read_view`), borrowed for the call.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr(), self.len) }
    }

    fn byte_range(&self) -> std::ops::Range<usize> {
        let range = self.as_slice().as_ptr_range();
        range.start as usize..range.end as usize
    }
}

/// An `Int32Array` that is not a view of a `SharedArrayBuffer`.
pub struct Int32In<'a>(View<'a>);

impl<'a> From<View<'a>> for Int32In<'a> {
    fn from(view: View<'a>) -> Self {
        Int32In(view)
    }
}

impl<'a> Int32In<'a> {
    pub fn as_slice(&self) -> &[i32] {
        self.0.as_slice()
    }

    fn byte_range(&self) -> std::ops::Range<usize> {
        self.0.byte_range()
    }
}

/// The buffer an answer is written into.
pub struct Int32Out<'a>(View<'a>);

impl<'a> From<View<'a>> for Int32Out<'a> {
    fn from(view: View<'a>) -> Self {
        Int32Out(view)
    }
}

impl Int32Out<'_> {
    pub fn len(&self) -> usize {
        self.0.len
    }

    /// Copies the pieces of an answer, one after another, to the start of
    /// the buffer, after checking that the buffer is long enough and overlaps
    /// none of `inputs` (those given).
    pub fn write(&mut self, pieces: &[&[i32]], inputs: &[Option<&Int32In<'_>>]) -> Result<()> {
        let mut answer = self.counted(inputs)?;
        for piece in pieces {
            answer.extend_from_slice(piece);
        }
        if answer.finish() < 0 {
            return Err(Error::new(Status::InvalidArg, "the answer buffer is too small"));
        }
        Ok(())
    }

    /// The buffer, to write an answer into in place, once it is checked to
    /// overlap none of `inputs` (those given).
    pub fn counted(&mut self, inputs: &[Option<&Int32In<'_>>]) -> Result<Counted<'_>> {
        let out = self.0.byte_range();
        if inputs.iter().flatten().any(|input| {
            let input = input.byte_range();
            !input.is_empty() && !out.is_empty() && input.start < out.end && out.start < input.end
        }) {
            return Err(Error::new(Status::InvalidArg, "the answer buffer shares memory with an input"));
        }
        // SAFETY: JavaScript is blocked in this call, the view is not shared
        // with another thread (refused on conversion), and no slice of the
        // inputs, the only other views borrowed here, overlaps it.
        let buffer = unsafe { std::slice::from_raw_parts_mut(self.0.data.as_ptr(), self.0.len) };
        Ok(Counted { buffer, len: 0 })
    }
}

/// An answer written into the caller's buffer as it is made. What does not
/// fit is counted and not written, so a caller whose buffer was too short
/// learns the length it needs.
pub struct Counted<'a> {
    buffer: &'a mut [i32],
    len: usize,
}

impl Counted<'_> {
    /// The answer's length, or minus that when it did not fit.
    pub fn finish(self) -> i32 {
        if self.len <= self.buffer.len() {
            self.len as i32
        } else {
            -(self.len as i32)
        }
    }
}

impl PlanSink for Counted<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, value: i32) {
        if let Some(slot) = self.buffer.get_mut(self.len) {
            *slot = value;
        }
        self.len += 1;
    }

    fn extend_from_slice(&mut self, values: &[i32]) {
        // Nothing is free once the answer has outgrown the buffer.
        if let Some(free) = self.buffer.get_mut(self.len..) {
            let room = free.len().min(values.len());
            free[..room].copy_from_slice(&values[..room]);
        }
        self.len += values.len();
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    fn set(&mut self, at: usize, value: i32) {
        // Only what was written, and fits.
        if at < self.len {
            if let Some(slot) = self.buffer.get_mut(at) {
                *slot = value;
            }
        }
    }
}

/// Both views convert alike: the `Int32Array` argument, refused when shared.
macro_rules! exclusive_view {
    ($view:ident) => {
        impl TypeName for $view<'_> {
            fn type_name() -> &'static str {
                "Int32Array"
            }

            fn value_type() -> ValueType {
                ValueType::Object
            }
        }

        impl ValidateNapiValue for $view<'_> {}

        impl FromNapiValue for $view<'_> {
            unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
                // SAFETY: `value` is the argument napi-rs is converting, in its `env`.
                Ok($view(unsafe { read_view(env, value)? }))
            }
        }
    };
}

exclusive_view!(Int32In);
exclusive_view!(Int32Out);

/// The elements of `value`, which must be an `Int32Array` over a plain
/// `ArrayBuffer` (`napi_is_arraybuffer` is false for a `SharedArrayBuffer`).
/// One `napi_get_typedarray_info` gives both the elements and the buffer, and
/// refuses (with `napi_invalid_arg`, nothing thrown) a value that is not a
/// typed array: the prompt filter calls this twice on every model call.
///
/// # Safety
/// `value` must be a live value of `env`; the view is borrowed for the call only.
pub unsafe fn read_view<'a>(env: sys::napi_env, value: sys::napi_value) -> Result<View<'a>> {
    let mut kind = 0;
    let mut len = 0;
    let mut data = std::ptr::null_mut();
    let mut buffer = std::ptr::null_mut();
    // SAFETY: the caller vouches for `env` and `value`; the byte offset's
    // out-pointer may be null.
    let status = unsafe {
        sys::napi_get_typedarray_info(env, value, &mut kind, &mut len, &mut data, &mut buffer, std::ptr::null_mut())
    };
    if status == sys::Status::napi_invalid_arg {
        return Err(Error::new(Status::InvalidArg, "expected an Int32Array"));
    }
    check_status!(status)?;
    if kind != sys::TypedarrayType::int32_array {
        return Err(Error::new(Status::InvalidArg, "expected an Int32Array"));
    }
    let mut plain = false;
    // SAFETY: `buffer` is the typed array's buffer, a live value of `env`.
    check_status!(unsafe { sys::napi_is_arraybuffer(env, buffer, &mut plain) })?;
    if !plain {
        return Err(Error::new(Status::InvalidArg, "views of a SharedArrayBuffer are not accepted"));
    }
    // An empty view may have no data pointer; a slice needs one all the same.
    let data = if len == 0 {
        std::ptr::NonNull::dangling()
    } else {
        std::ptr::NonNull::new(data.cast()).ok_or_else(|| Error::new(Status::InvalidArg, "expected an Int32Array"))?
    };
    Ok(View { data, len, _borrow: std::marker::PhantomData })
}
