//! The processors' protocols as JavaScript reads them: each declared once
//! in the core (see the core's `protocol` module), and made here into one
//! exported function per processor that returns every code, layout, limit
//! and shared string as nested objects, typed in `binding.d.ts`; and
//! `cappedEcho`, the one rule for how much of a value our texts echo.

// The objects' fields are the core's constants, named as they are there;
// napi-rs names them in camelCase for JavaScript.
#![allow(non_snake_case)]

use napi_derive::napi;

/// The binding's half of a declaration (see the core's `protocol` module):
/// a `#[napi(object)]` per module, its fields the module's constants and
/// submodules, and the exported function that returns the whole.
macro_rules! export {
    ([$($path:tt)*] $(#$attr:tt)* pub fn $export:ident() -> $js:ident { $($body:tt)* }) => {
        $crate::protocol::export!(@object [$($path)*] [$(#$attr)*] $js [] [] $($body)*);

        $(#$attr)*
        #[napi(catch_unwind)]
        pub fn $export() -> $js {
            $js::value()
        }
    };
    // A module: a field holding its object, which is made after this one.
    (@object [$($path:tt)*] $attrs:tt $js:ident [$($fields:tt)*] [$($objects:tt)*]
        $(#$attr:tt)* pub mod $name:ident: $object:ident { $($body:tt)* } $($rest:tt)*) => {
        $crate::protocol::export!(@object [$($path)*] $attrs $js
            [$($fields)* [[$(#$attr)*] $name [$object] [$object::value()]]]
            [$($objects)* [[$($path)* :: $name] [$(#$attr)*] $object [] [] $($body)*]]
            $($rest)*);
    };
    // Constants, by type.
    (@object [$($path:tt)*] $attrs:tt $js:ident [$($fields:tt)*] $objects:tt
        $(#$attr:tt)* pub const $name:ident: usize = $value:expr; $($rest:tt)*) => {
        $crate::protocol::export!(@object [$($path)*] $attrs $js
            // The core checks that it fits.
            [$($fields)* [[$(#$attr)*] $name [u32] [$($path)*::$name as u32]]]
            $objects $($rest)*);
    };
    (@object [$($path:tt)*] $attrs:tt $js:ident [$($fields:tt)*] $objects:tt
        $(#$attr:tt)* pub const $name:ident: &str = $value:expr; $($rest:tt)*) => {
        $crate::protocol::export!(@object [$($path)*] $attrs $js
            [$($fields)* [[$(#$attr)*] $name [&'static str] [$($path)*::$name]]]
            $objects $($rest)*);
    };
    (@object [$($path:tt)*] $attrs:tt $js:ident [$($fields:tt)*] $objects:tt
        $(#$attr:tt)* pub const $name:ident: &[&str] = $value:expr; $($rest:tt)*) => {
        $crate::protocol::export!(@object [$($path)*] $attrs $js
            [$($fields)* [[$(#$attr)*] $name [Vec<&'static str>] [$($path)*::$name.to_vec()]]]
            $objects $($rest)*);
    };
    (@object [$($path:tt)*] $attrs:tt $js:ident [$($fields:tt)*] $objects:tt
        $(#$attr:tt)* pub const $name:ident: $ty:ident = $value:expr; $($rest:tt)*) => {
        $crate::protocol::export!(@object [$($path)*] $attrs $js
            [$($fields)* [[$(#$attr)*] $name [$ty] [$($path)*::$name]]]
            $objects $($rest)*);
    };
    // The module read: its object, then its submodules'.
    (@object $path:tt [$($attrs:tt)*] $js:ident
        [$([[$($field_attrs:tt)*] $field:ident [$($ty:tt)*] [$($value:tt)*]])*]
        [$([$($object:tt)*])*]) => {
        $($attrs)*
        #[napi(object, object_from_js = false)]
        pub struct $js {
            $($($field_attrs)* pub $field: $($ty)*,)*
        }

        impl $js {
            fn value() -> $js {
                $js { $($field: $($value)*,)* }
            }
        }

        $($crate::protocol::export!(@object $($object)*);)*
    };
}

pub(crate) use export;

mastra_native_processors::tool_search_protocol!(crate::protocol::export);
mastra_native_processors::tool_call_filter_protocol!(crate::protocol::export);

/// `text` as this package's own texts echo a value of the user's or the
/// model's (the core's `protocol::tool_search::echo`): whole if it is short,
/// else cut and marked. For the wrapper's warnings, which quote a user's
/// embedding model's name and errors.
#[napi(catch_unwind)]
pub fn capped_echo(text: crate::utf16::Utf16Text) -> napi::bindgen_prelude::Utf16String {
    napi::bindgen_prelude::Utf16String::from(
        mastra_native_processors::protocol::tool_search::echo(&text.0).into_owned(),
    )
}
