//! A JavaScript string taken as owned UTF-16, in one copy.
//!
//! napi-rs's `Utf16String` zero-fills its buffer before V8 writes into it and
//! does not hand the vector over; catalogs cross as one string of megabytes,
//! so this reads it straight into a vector we keep.

use napi::bindgen_prelude::*;
use napi::sys;

pub struct Utf16Text(pub Vec<u16>);

impl TypeName for Utf16Text {
    fn type_name() -> &'static str {
        "String(utf16)"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ValidateNapiValue for Utf16Text {}

impl FromNapiValue for Utf16Text {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        let mut len = 0;
        // SAFETY: a null buffer asks V8 for the length only.
        check_status!(unsafe { sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut len) })?;
        // Room for the terminating NUL V8 writes.
        let mut units: Vec<u16> = Vec::with_capacity(len + 1);
        let mut written = 0;
        // SAFETY: the buffer has `len + 1` units of capacity, V8 writes at most
        // that many and reports how many it wrote, and only those become part
        // of the vector.
        unsafe {
            check_status!(sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), len + 1, &mut written))?;
            units.set_len(written.min(len));
        }
        Ok(Utf16Text(units))
    }
}
