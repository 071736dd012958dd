//! The fsmooth compiler as an ordinary library.
//!
//! [`pipeline`] lists every pass in order; the modules are its phases:
//! [`front`] (Rust tokens to typed core kernels), [`middle`] (core-to-core passes),
//! [`lower`] (destination-passing translation and storage into the loop IR, [`lir`]) and
//! [`emit`] (the loop IR printed as Rust). The reference interpreter and the loop-IR
//! executor that test it live in the `fsmooth-eval` crate.

pub mod emit;
pub mod front;
pub mod lir;
pub mod lower;
pub mod middle;
pub mod pipeline;

use proc_macro2::TokenStream;

/// Expand the tokens of a `fsmooth! { .. }` block into Rust.
///
/// Never panics: every problem becomes a spanned `compile_error!`, and after an error each
/// kernel's signature is still emitted (with a body that is never reached) so that the
/// user's calls resolve and only the real errors are shown.
pub fn expand(tokens: TokenStream) -> TokenStream {
    pipeline::compile(tokens)
}

/// Compile the tokens of a block up to the loop IR, without printing Rust: each public
/// kernel after the middle of the pipeline, with its plan ([`pipeline::lower`]). For testing
/// the translation with the executor; errors are the diagnostics' messages.
pub fn plan_block(
    tokens: TokenStream,
) -> Result<Vec<(middle::ir::Kernel, lower::Planned)>, String> {
    pipeline::plan_block(tokens)
}
