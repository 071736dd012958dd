//! The fsmooth compiler as an ordinary library, plus a reference interpreter.
//!
//! The passes follow the DPS paper (Shaikhha et al., FHPC 2017), one module each:
//! [`parse`] → [`check`] (names, types and the shape translation) → [`lower`] (inline
//! helpers and closures into one core expression per kernel) → [`anf`] → [`fuse`] →
//! [`simplify`] → [`dps`] → [`storage`] → [`codegen`].

pub mod ast;
pub mod check;
pub mod diag;
pub mod ir;
pub mod parse;
pub mod size;

use proc_macro2::TokenStream;

/// Expand the tokens of a `fsmooth! { .. }` block into Rust.
pub fn expand(tokens: TokenStream) -> TokenStream {
    let mut diags = diag::Diags::default();
    let _ = parse::parse(tokens, &mut diags);
    diags.to_compile_errors()
}
