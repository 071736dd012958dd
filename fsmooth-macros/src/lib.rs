//! The `fsmooth!` proc macro. All the work happens in `fsmooth-core`; this crate only moves
//! tokens across the proc-macro boundary.

use proc_macro::TokenStream;

/// Compiles a block of fsmooth kernels into allocation-free Rust (see the `fsmooth` crate).
#[proc_macro]
pub fn fsmooth(input: TokenStream) -> TokenStream {
    fsmooth_core::expand(input.into()).into()
}
