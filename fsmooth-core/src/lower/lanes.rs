//! Reassociated sums (`#![fsmooth(reassociate = true)]`): a float sum-fold whose step holds
//! no loop adds its terms in lanes ([`St::Lanes`]) instead of one chain of additions.

use crate::front::ast::BinOp;
use crate::lir::{self, Ex, Node, Scalar, St, Stream};
use crate::lower::dps::Dps;
use crate::lower::parallel::adds_to;
use crate::middle::ir::{Core, Kind, Type};
use proc_macro2::Ident;

impl Dps<'_> {
    /// The loop of the scalar `ifold` `e` (translated: its count `n`, index `var`, sum
    /// `acc`, `streams` and one `step`) as a sum in lanes, when [`Dps::lane_type`] has one, its
    /// streams are element streams, its count is not a constant below [`lir::LANES`] and the
    /// step holds no loop (which would be written out once per lane). The loop in order
    /// otherwise.
    pub(super) fn sum_loop(
        &self,
        e: &Core,
        acc: Ident,
        var: Ident,
        n: Ex,
        streams: Vec<Stream>,
        step: Vec<St>,
    ) -> St {
        let few = matches!(n, Ex::Usize(c) if c < lir::LANES);
        match self.lane_type(e) {
            Some(elem) if !few && streams.iter().all(|s| s.width.is_none()) && !has_loop(&step) => {
                let mut body = step;
                if let Some(St::Assign(_, sum)) = body.first_mut() {
                    fuse_product(sum, &acc);
                }
                St::Lanes {
                    acc,
                    elem,
                    var,
                    n,
                    streams,
                    body,
                }
            }
            _ => St::For {
                var,
                n,
                streams,
                body: step,
            },
        }
    }

    /// The type of the lanes the `ifold` `e` may add in, as far as is known before its step
    /// is translated: when the option is on, `e` adds a float term per step ([`adds_to`]),
    /// and its count is not an enclosing loop's index (a triangle's rows, `ifold(j, ..)`,
    /// are short on average: GMM's took 10-15% more instructions in lanes;
    /// docs/BENCHMARKS.md).
    pub(super) fn lane_type(&self, e: &Core) -> Option<Scalar> {
        let Kind::Ifold(n, _, acc, _, body) = &e.kind else {
            return None;
        };
        let triangle = matches!(n.kind, Kind::Var(v) if self.loops.iter().any(|c| c.var == v));
        if !self.reassociate || triangle {
            return None;
        }
        adds_to(body, *acc)?;
        match e.ty {
            Type::F64 => Some(Scalar::F64),
            Type::F32 => Some(Scalar::F32),
            _ => None,
        }
    }
}

/// A step's `acc + x * y` (or `x * y + acc`, after `let`s) as `fused(x, y, acc)`: one
/// fused multiply-add where the target has FMA ([`Ex::Fused`]).
fn fuse_product(sum: &mut Ex, acc: &Ident) {
    let is_acc = |e: &Ex| matches!(e, Ex::Var(v) if v == acc);
    match sum {
        Ex::Block(_, tail) => fuse_product(tail, acc),
        Ex::Bin(BinOp::Add, a, b) if is_acc(a) || is_acc(b) => {
            *sum = fused(std::mem::replace(sum, Ex::Usize(0)));
        }
        _ => {}
    }
}

/// `a + x * y` (or `x * y + a`) as `fused(x, y, a)`; any other expression as it is.
pub(super) fn fused(sum: Ex) -> Ex {
    match sum {
        Ex::Bin(BinOp::Add, a, b) => match (*a, *b) {
            (Ex::Bin(BinOp::Mul, x, y), a) | (a, Ex::Bin(BinOp::Mul, x, y)) => {
                Ex::Fused(vec![*x, *y, a])
            }
            (a, b) => Ex::Bin(BinOp::Add, Box::new(a), Box::new(b)),
        },
        e => e,
    }
}

/// Whether a loop of any kind is anywhere under `sts`.
fn has_loop(sts: &[St]) -> bool {
    let mut hit = false;
    lir::walk_sts(sts, &mut |n| {
        hit |= matches!(
            n,
            Node::St(
                St::For { .. }
                    | St::Fill { .. }
                    | St::Lanes { .. }
                    | St::ParSum { .. }
                    | St::ParRows { .. }
                    | St::Copy { .. }
                    | St::AddWithin { .. }
            )
        );
    });
    hit
}
