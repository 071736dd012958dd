//! Choices of whole arrays (`if c { a } else { b }` of arrays) taken element by element:
//! a fold step choosing its new state whole becomes the `build` of the choice, and an
//! element of a choice of rows is that element of the row chosen. The rules are fusion's
//! (`middle/fuse.rs`); these are their tests and rewrites.

use crate::middle::ir::{Core, Kind, VarId, new_var};

/// Whether `a`, a branch of an array `if` read at an index, is a value whose element is
/// read as cheaply as the whole: a variable, a `build`, a row or slice of one, an array
/// literal, another such choice, or one of those after scalar `let`s.
pub(super) fn chooses_rows(a: &Core) -> bool {
    match &a.kind {
        Kind::Var(_) | Kind::Build(..) | Kind::Array(_) => true,
        Kind::Index(x, _) | Kind::Slice(x, _) => chooses_rows(x),
        Kind::If(_, x, y) => chooses_rows(x) && chooses_rows(y),
        Kind::Let(_, v, b) => !v.ty.is_arr() && chooses_rows(b),
        _ => false,
    }
}

/// Whether `e`, a branch of an array `if`, is chosen whole at no cost: a variable, a `build`,
/// or a row of a variable (`x[0]`), each of which an index reads element by element.
fn chosen_whole(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) | Kind::Build(..) => true,
        Kind::Index(a, _) => e.ty.is_arr() && chosen_whole(a) && !matches!(a.kind, Kind::Build(..)),
        _ => false,
    }
}

/// Whether `e` is [`chosen_whole`] after `let`s of scalars (`let s = 1.0 - alpha;
/// build(..)`), which the element of the choice computes again (once per element).
fn chosen_after_scalars(e: &Core) -> bool {
    match &e.kind {
        Kind::Let(_, v, b) => !v.ty.is_arr() && !v.ty.is_tuple() && chosen_after_scalars(b),
        _ => chosen_whole(e),
    }
}

/// Element `j` of `e` ([`chosen_after_scalars`]): the index at the end of its `let`s.
fn element_at(e: Core, j: VarId) -> Core {
    let (ty, span) = (e.ty.clone(), e.span);
    match e.kind {
        Kind::Let(x, v, b) => {
            let b = element_at(*b, j);
            Core::new(Kind::Let(x, v, Box::new(b)), ty.elem(), span)
        }
        kind => {
            let whole = Core { kind, ..e };
            Core::new(
                Kind::Index(Box::new(whole), Box::new(Core::index_var(j, span))),
                ty.elem(),
                span,
            )
        }
    }
}

/// The new state `tail` of a fold's step (or each component of a tuple of them) that is an
/// `if` between one-dimensional arrays chosen whole ([`chosen_after_scalars`]), written as
/// the `build` of the choice of their elements; true when one was.
pub(super) fn choices_by_element(tail: &mut Core, like: VarId, names: &mut Vec<String>) -> bool {
    match &mut tail.kind {
        Kind::Tuple(xs) => {
            let mut changed = false;
            for x in xs {
                changed |= choices_by_element(x.tail_mut(), like, names);
            }
            changed
        }
        Kind::If(c, a, b)
            if tail.ty.dims().len() == 1 && chosen_after_scalars(a) && chosen_after_scalars(b) =>
        {
            let (ty, span) = (tail.ty.clone(), tail.span);
            let n = ty.dims()[0].clone();
            let j = new_var(names, like);
            let (c, a, b) = (c.take(), element_at(a.take(), j), element_at(b.take(), j));
            let choice = Core::new(
                Kind::If(Box::new(c), Box::new(a), Box::new(b)),
                ty.elem(),
                span,
            );
            *tail = Core::new(Kind::Build(n, j, Box::new(choice)), ty, span);
            true
        }
        _ => false,
    }
}
