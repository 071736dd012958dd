//! The middle: passes from core IR ([`ir`]) to core IR, in the order
//! [`crate::pipeline::middle`] runs them.
//!
//! [`simplify`] (copy propagation, constant folding), [`cse`] (common subexpressions), [`fuse`] (loop
//! fusion), [`unroll`] (small fixed loops written out), [`hoist`] (costly invariant math out
//! of loops) and [`anf`] (A-normal form). [`print`](mod@print) shows a kernel in fsmooth's syntax;
//! [`validate`] checks what the passes assume of one. [`forward`] differentiates an
//! expression in forward mode (the checker calls it for `jvp`), [`reverse`] in reverse mode
//! (for `vjp` and `grad`).

pub mod anf;
pub mod cse;
pub mod forward;
pub mod fuse;
pub mod hoist;
pub mod ir;
pub mod print;
pub mod reverse;
pub mod simplify;
pub mod tuples;
pub mod unroll;
pub mod validate;
pub mod views;
