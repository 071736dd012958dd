//! Counters cannot overflow: the `+ 1` of a count kept in a fold's state needs no check.
//!
//! An `ifold` (or `scan`) over `n` steps whose `usize` state (a scalar, or an array of any
//! rank) starts with every element the literal 0, and whose step gives every element a new
//! value that is at most an element of the old state plus the literal 1 (`c + 1`, `if .. {
//! c + 1 } else { c }`, the histogram's `build(b, |j| if j == bin { h[bin] + 1 } else {
//! h[j] })`), holds after `k` steps no element above `k`: by induction, 0 at the start, and
//! a step adds at most 1 to the largest. In step `k` (at most `n - 1`, and `n` is a `usize`)
//! an element of the old state plus 1 is then at most `n <= usize::MAX`: that addition cannot
//! overflow, wherever in the step it is written, so it is emitted unchecked (`wrapping_add`,
//! as the proven offset arithmetic is). [`plan`] finds the states (and the step's `let`s bound
//! to at most an element of one), [`Dps::counts_up`] the additions.
//!
//! A step adding 2, or 1 twice to one element, a state starting at 1 or at an argument, or
//! the sum of two elements is not a counter: those additions stay checked (LANGUAGE.md makes
//! `usize` overflow an error).

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lower::dps::Dps;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use std::collections::{HashMap, HashSet};

/// How far a `usize` value (every element of an array value) of a counter's step may exceed
/// the number of steps done so far, `k`: [`AT_MOST_K`] or [`AT_MOST_K_PLUS_ONE`].
type Excess = u8;

/// At most `k`: an element of the old state, the literal 0.
const AT_MOST_K: Excess = 0;

/// At most `k + 1`: one of those plus the literal 1, the literal 1.
const AT_MOST_K_PLUS_ONE: Excess = 1;

/// The variables of `body` whose value (every element of it) is at most the number of steps
/// a counter fold has done: each counter's state (see the module's doc) and the `let`s of its
/// step bound to an element of it (or to another such variable, or to 0).
pub(super) fn plan(body: &Core) -> HashSet<VarId> {
    let mut out = HashSet::new();
    walk(body, &mut out);
    out
}

fn walk(e: &Core, out: &mut HashSet<VarId>) {
    let fold = match &e.kind {
        Kind::Ifold(_, init, acc, _, step) | Kind::Scan(_, init, acc, _, step) => {
            Some((init, *acc, step))
        }
        _ => None,
    };
    if let Some((init, acc, step)) = fold
        && counts(&e.ty, init, acc, step)
    {
        let mut known = HashMap::from([(acc, AT_MOST_K)]);
        lets(step, &mut known);
        out.extend(
            known
                .into_iter()
                .filter(|&(_, x)| x == AT_MOST_K)
                .map(|(v, _)| v),
        );
    }
    for c in e.children() {
        walk(c, out);
    }
}

/// The fold of type `ty` (a `scan`'s is its states' array: only the element type matters)
/// from `init` by `step` over state `acc` is a counter: `usize` elements, all 0 at first,
/// and each step's new value at most an old element plus 1.
fn counts(ty: &Type, init: &Core, acc: VarId, step: &Core) -> bool {
    let usize_elems = match ty {
        Type::Usize => true,
        Type::Arr(s, _) => *s == Scalar::Usize,
        _ => false,
    };
    usize_elems
        && excess(init, &mut HashMap::new()) == Some(AT_MOST_K)
        && excess(step, &mut HashMap::from([(acc, AT_MOST_K)]))
            .is_some_and(|x| x <= AT_MOST_K_PLUS_ONE)
}

/// How far every element of `e` may exceed `k`, given the variables `known` to be bounded
/// (the state, and the `let`s met on the way, which this adds): `None` when unbounded.
fn excess(e: &Core, known: &mut HashMap<VarId, Excess>) -> Option<Excess> {
    match &e.kind {
        Kind::Size(Size::Lit(0)) => Some(AT_MOST_K),
        Kind::Size(Size::Lit(1)) => Some(AT_MOST_K_PLUS_ONE),
        Kind::Var(v) => known.get(v).copied(),
        // An element (or a row) of a bounded array, at any index.
        Kind::Index(a, _) => excess(a, known),
        Kind::Bin(BinOp::Add, a, b, _) if e.ty == Type::Usize => {
            let plus_one = |x: &Core, y: &Core, known: &mut HashMap<VarId, Excess>| {
                is_one(y) && excess(x, known) == Some(AT_MOST_K)
            };
            (plus_one(a, b, known) || plus_one(b, a, known)).then_some(AT_MOST_K_PLUS_ONE)
        }
        Kind::If(_, a, b) => Some(excess(a, known)?.max(excess(b, known)?)),
        Kind::Let(v, a, b) => {
            if let Some(x) = excess(a, known) {
                known.insert(*v, x);
            }
            excess(b, known)
        }
        Kind::Build(_, _, elem) => excess(elem, known),
        Kind::Array(items) => items
            .iter()
            .try_fold(AT_MOST_K, |m, x| Some(m.max(excess(x, known)?))),
        _ => None,
    }
}

/// Every `let` of `e` whose value is bounded, into `known` (those a new value does not
/// pass through too: a bin's `let x = h[r];` before a test).
fn lets(e: &Core, known: &mut HashMap<VarId, Excess>) {
    if let Kind::Let(v, a, b) = &e.kind {
        lets(a, known);
        if let Some(x) = excess(a, known) {
            known.insert(*v, x);
        }
        lets(b, known);
        return;
    }
    for c in e.children() {
        lets(c, known);
    }
}

/// The `usize` literal 1.
fn is_one(e: &Core) -> bool {
    matches!(e.kind, Kind::Size(Size::Lit(1)))
}

impl Dps<'_> {
    /// `a + b` is an element of a counter's state (or a variable bound to at most one) plus
    /// the literal 1: it cannot overflow (see the module's doc).
    pub(super) fn counts_up(&self, a: &Core, b: &Core) -> bool {
        let counted = |x: &Core| x.ty == Type::Usize && self.at_most_steps(x);
        (is_one(b) && counted(a)) || (is_one(a) && counted(b))
    }

    /// `x` is a variable [`plan`] found, or an element of one.
    fn at_most_steps(&self, x: &Core) -> bool {
        match &x.kind {
            Kind::Var(v) => self.counters.contains(v),
            Kind::Index(a, _) => self.at_most_steps(a),
            _ => false,
        }
    }
}
