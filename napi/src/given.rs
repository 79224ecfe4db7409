//! JavaScript values classified for the core (its `given::Given`), the one
//! way both processors' bindings read a value they may have to refuse.

use mastra_native_processors::given::Given;
use mastra_native_processors::js::JsString;
use napi::bindgen_prelude::*;
use napi::{check_status, sys};

use crate::utf16::Utf16Text;

/// Classifies a JavaScript value for the core (`None` is `undefined`).
pub fn given(value: Option<Unknown<'_>>) -> Result<Given> {
    let Some(value) = value else { return Ok(Given::Undefined) };
    Ok(match value.get_type()? {
        ValueType::Undefined => Given::Undefined,
        ValueType::Null => Given::Null,
        // SAFETY: the value was just found to be a boolean.
        ValueType::Boolean => Given::Boolean(unsafe { value.cast::<bool>() }?),
        // SAFETY: the value was just found to be a number.
        ValueType::Number => Given::Number(unsafe { value.cast::<f64>() }?),
        // SAFETY: the value was just found to be a string.
        ValueType::String => Given::String(JsString::from(unsafe { value.cast::<Utf16Text>() }?.0)),
        ValueType::Object | ValueType::External => Given::Object { is_array: value.is_array()? },
        ValueType::Function => Given::Function,
        ValueType::Symbol => Given::Other { type_of: "symbol", truthy: true },
        ValueType::BigInt => Given::Other { type_of: "bigint", truthy: truthy(&value)? },
        _ => Given::Other { type_of: "unknown", truthy: truthy(&value)? },
    })
}

/// Classifies a value as [`given`] does, but an object is an array where
/// `Array.isArray` says so, as the reference asks of a list option: a Proxy
/// around an array is one (`napi_is_array` is V8's `IsArray`, false for a
/// Proxy), and a revoked Proxy throws the `TypeError` `Array.isArray` throws.
/// Also says whether the list is such a Proxy, whose every read is seen.
pub fn given_list(env: &Env, value: Unknown<'_>) -> Result<(Given, bool)> {
    let classified = given(Some(value))?;
    if classified != (Given::Object { is_array: false }) {
        return Ok((classified, false));
    }
    let raw = value.value();
    let mut global = std::ptr::null_mut();
    let mut array = std::ptr::null_mut();
    let mut is_array = std::ptr::null_mut();
    let mut answer = std::ptr::null_mut();
    let mut proxied = false;
    // SAFETY: `raw` is a live value of `env`, and each out-pointer is valid;
    // the property names are NUL-terminated.
    unsafe {
        check_status!(sys::napi_get_global(env.raw(), &mut global))?;
        check_status!(sys::napi_get_named_property(env.raw(), global, c"Array".as_ptr(), &mut array))?;
        check_status!(sys::napi_get_named_property(env.raw(), array, c"isArray".as_ptr(), &mut is_array))?;
        check_status!(sys::napi_call_function(env.raw(), array, is_array, 1, &raw.value, &mut answer))?;
        check_status!(sys::napi_get_value_bool(env.raw(), answer, &mut proxied))?;
    }
    Ok((Given::Object { is_array: proxied }, proxied))
}

/// `!!value`, as JavaScript decides it.
fn truthy(value: &Unknown<'_>) -> Result<bool> {
    let raw = value.value();
    let mut coerced = std::ptr::null_mut();
    let mut truthy = false;
    // SAFETY: `raw` is a live value of its env, and each out-pointer is valid.
    unsafe {
        check_status!(sys::napi_coerce_to_bool(raw.env, raw.value, &mut coerced))?;
        check_status!(sys::napi_get_value_bool(raw.env, coerced, &mut truthy))?;
    }
    Ok(truthy)
}
