//! The front end: Rust tokens to typed core kernels.
//!
//! [`parse`] reads the block's tokens into the [`ast`]; [`check`] resolves names, infers
//! types and shapes ([`size`]: shapes as polynomials) and inlines helpers and closures into
//! one core expression per kernel ([`crate::middle::ir`]). Every problem is a spanned
//! diagnostic ([`diag`]).

pub mod ast;
pub mod check;
pub mod diag;
pub mod imports;
pub mod parse;
pub mod size;
pub mod unused;
