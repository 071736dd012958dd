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
pub mod choices;
pub mod cse;
pub mod dead_states;
pub mod elements;
pub mod equal;
pub mod flat_states;
pub mod forward;
pub mod fuse;
pub mod hoist;
pub mod interchange;
pub mod ir;
pub mod placed;
pub mod print;
pub mod pull;
pub mod reuse;
pub mod reverse;
pub mod row_views;
pub mod scan_outputs;
pub mod share;
pub mod siblings;
pub mod simplify;
pub mod state_parts;
pub mod tuples;
pub mod unroll;
pub mod validate;
pub mod views;

use crate::front::ast::Options;
use ir::Core;

/// The canonical form of an expression (LANGUAGE.md section 13): tuples taken apart, copies
/// propagated, a loop index known equal to another read as it ([`equal`]), `build`s fused
/// into their readers (`sum(build(n, f))`, `sum(map(v, f))` and `ifold(n, 0.0, |acc, i| acc +
/// f(i))` become one sum-fold), constants folded, `let`s read once put back where they are
/// read (a closure's parameters), rows read along a loop bound as views before it
/// ([`row_views`]). The checker brings a differentiated function to it before `vjp` and `grad` sweep it, so that reverse
/// mode meets one spelling of each meaning (what it keeps does not depend on how a sum is
/// written); the middle ([`crate::pipeline::middle`]) starts with the same passes.
pub fn normalise(e: &mut Core, names: &mut Vec<String>, options: Options) {
    tuples::split(e, names);
    simplify::propagate(e);
    simplify::inline_single_loads(e);
    equal::substitute(e);
    if options.fusion {
        // Without the layout views' rules: a sweep over `pad`, `slide` or `concat` fused
        // into their readers' branches computed indexes outside the views (3 of 3,000
        // generated gradients); the middle fuses the views after the sweep, as before.
        fuse::fuse(e, names, false);
    }
    if options.fusion && !options.reassociate {
        // Folds side by side swept as the one fold they become: the sweep's code then does
        // not depend on which of the two spellings the function had.
        siblings::siblings(e, names);
    }
    // One `let` per value (`dot(t[k], t[k])`'s two rows of one array are one): the sweep
    // then adds one adjoint per row, where two of one row would each update the array.
    cse::cse(e);
    simplify::fold(e);
    simplify::propagate(e);
    simplify::inline_single_uses(e);
    row_views::bind(e, names);
}
