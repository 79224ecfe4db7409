//! The processors' boundaries: every code, layout, limit and string that
//! both halves of a processor use, written once, in a module per processor
//! ([`tool_search`], [`tool_call_filter`]). The modules import nothing, so
//! every module of the core can read them.
//!
//! A processor's module holds its declaration in an exported
//! `macro_rules!` that hands it, as tokens, to whichever macro it is given:
//! `declare!` makes the core's constants of it, and the binding's
//! `export!` makes the objects JavaScript reads (their types in
//! `binding.d.ts`, their docs these docs). Neither side transcribes the
//! other, so no table can drift.
//!
//! A declaration reads:
//!
//! ```text
//! [$crate::path::to::protocol]
//! #[doc = "Docs, for Rust and for JavaScript."]
//! pub fn export_name() -> JsTypeName {
//!     #[doc = "Docs, one attribute a line."]
//!     pub mod section: SectionTypeName {
//!         #[doc = "Docs."]
//!         pub const NAME: i32 = 1;
//!     }
//!     pub const OTHER: &str = "text";
//! }
//! ```
//!
//! `pub mod` nests (a nested object in JavaScript, its field the module's
//! name), and a constant is an `i32`, `u32`, `usize` (a `u32` in
//! JavaScript, checked to fit), `f64`, `bool`, `&str` or `&[&str]`. Field
//! names become camelCase in JavaScript (`ALLOWED_AS` is `allowedAs`).
//! Docs are `#[doc]` attributes rather than `///` comments: a comment in a
//! macro's body reaches napi-rs as a raw string, which it would print into
//! `binding.d.ts` with its `r"`.

pub mod tool_call_filter;
pub mod tool_search;

/// The core's half of a declaration: its modules and constants, under the
/// module that holds the declaration. The export's name and type are the
/// binding's.
macro_rules! declare {
    ([$($path:tt)*] $(#$attr:tt)* pub fn $export:ident() -> $js:ident { $($body:tt)* }) => {
        $crate::protocol::declare!(@items $($body)*);
    };
    (@items) => {};
    (@items $(#$attr:tt)* pub mod $name:ident: $js:ident { $($body:tt)* } $($rest:tt)*) => {
        $(#$attr)*
        pub mod $name {
            $crate::protocol::declare!(@items $($body)*);
        }
        $crate::protocol::declare!(@items $($rest)*);
    };
    (@items $(#$attr:tt)* pub const $name:ident: usize = $value:expr; $($rest:tt)*) => {
        $(#$attr)*
        pub const $name: usize = $value;
        const _: () = assert!($name <= u32::MAX as usize, "JavaScript reads it as a u32");
        $crate::protocol::declare!(@items $($rest)*);
    };
    (@items $(#$attr:tt)* pub const $name:ident: $ty:ty = $value:expr; $($rest:tt)*) => {
        $(#$attr)*
        pub const $name: $ty = $value;
        $crate::protocol::declare!(@items $($rest)*);
    };
}

pub(crate) use declare;
