//! The `fsmooth!` proc macro. All the work happens in `fsmooth-core`; this crate only moves
//! tokens across the proc-macro boundary.

use proc_macro::TokenStream;

/// The macro itself is defined in `fsmooth-macros`, a thin shim over the compiler
/// (`fsmooth-core`); use it through the `fsmooth` crate, which documents it.
#[proc_macro]
pub fn fsmooth(input: TokenStream) -> TokenStream {
    fsmooth_core::expand(input.into()).into()
}
