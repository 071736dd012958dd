//! Contributions placed at one index of an array's adjoint (a one-hot element or row, an
//! element within a row: a mesh edge's two ends `x[e[j][0]]`, `x[e[j][1]]`), added where they
//! lie: those at one index in one update of that row, each element of it alone, and the
//! updates of different indexes one after the other (two indexes may be equal at run time).
//! The lowering runs such a chain of updates in place (`lower/accumulate.rs`): O(row) a step,
//! where one sum of the placed arrays was O(array).

use super::terms::placed;
use super::{Lets, Reverse, at, index, pick};
use crate::front::ast::BinOp;
use crate::middle::forward::{bin, wrap};
use crate::middle::ir::{Core, Kind, Type, fresh};

impl Reverse<'_> {
    /// `sum + c1 + c2 ..` for contributions `cs` placed at one index `e` of zeros
    /// ([`placed_in`]): `sum` with that row alone updated, `build(n, |p| if p == e {
    /// sum[p] + (v1 + v2 ..) } else { sum[p] })`, and so on down where the `v`s are placed
    /// in turn (elements `x[e][k]` of a row: each added to its element alone, no `+ 0.0`
    /// at the others, which IEEE arithmetic would keep).
    pub(super) fn add_placed(&mut self, sum: Core, cs: &[Core], ty: &Type, lets: &Lets) -> Core {
        let span = sum.span;
        let Some((e, _)) = cs.first().and_then(|c| placed_in(c, ty, lets)) else {
            return sum;
        };
        let e = fresh(e.clone(), self.names);
        let vs: Vec<Core> = cs
            .iter()
            .filter_map(|c| placed_in(c, ty, lets))
            .map(|(_, v)| fresh(v.clone(), self.names))
            .collect();
        let p = self.new_var("p");
        let own = at(sum, index(p, span));
        let added = self.add_to_row(own.clone(), vs, &ty.elem(), lets);
        let hit = bin(BinOp::Eq, index(p, span), e);
        Core::new(
            Kind::Build(ty.dims()[0].clone(), p, Box::new(pick(hit, added, own))),
            ty.clone(),
            span,
        )
    }

    /// `own + v1 + v2 ..` for a row `own` of type `ty`: where every `v` is placed at one
    /// index of the row, and those indexes are one expression or distinct literals, each
    /// element gets its own contributions alone (`build(n, |q| if q == 0 { own[q] + t0 }
    /// else if q == 1 { .. } else { own[q] })`); otherwise the sum.
    fn add_to_row(&mut self, own: Core, vs: Vec<Core>, ty: &Type, lets: &Lets) -> Core {
        let span = own.span;
        let placed: Option<Vec<(Core, Core)>> = match ty.is_arr() {
            true => vs
                .iter()
                .map(|v| placed_in(v, ty, lets).map(|(e, w)| (e.clone(), w.clone())))
                .collect(),
            false => None,
        };
        if let Some(placed) = placed {
            let mut groups: Vec<(String, Core, Vec<Core>)> = Vec::new();
            for (e, w) in placed {
                let key = crate::middle::cse::key(&e);
                match groups.iter_mut().find(|(k, ..)| *k == key) {
                    Some((.., ws)) => ws.push(w),
                    None => groups.push((key, e, vec![w])),
                }
            }
            let literal = |e: &Core| matches!(&e.kind, Kind::Size(n) if n.as_const().is_some());
            if groups.len() == 1 || groups.iter().all(|(_, e, _)| literal(e)) {
                let p = self.new_var("q");
                let mine = at(own, index(p, span));
                let mut row = mine.clone();
                for (_, e, ws) in groups.into_iter().rev() {
                    let ws = ws.into_iter().map(|w| fresh(w, self.names)).collect();
                    let added = self.add_to_row(mine.clone(), ws, &ty.elem(), lets);
                    let hit = bin(BinOp::Eq, index(p, span), fresh(e, self.names));
                    row = pick(hit, added, row);
                }
                return Core::new(
                    Kind::Build(ty.dims()[0].clone(), p, Box::new(row)),
                    ty.clone(),
                    span,
                );
            }
        }
        // `own + (v1 + v2 ..)`: one addition to the state's element, which the lowering
        // then makes in place.
        let mut inner = Vec::new();
        let more = self.total(vs, ty, span, &mut inner);
        let added = self.total(vec![own, more], ty, span, &mut inner);
        wrap(inner, added)
    }
}

/// `(e, v)` when contribution `c` to an array of type `ty` (or the value `lets` binds it to)
/// is `v` placed at index `e` of zeros ([`placed`]): an element, or a row.
pub(super) fn placed_in<'a>(
    c: &'a Core,
    ty: &Type,
    lets: &'a Lets,
) -> Option<(&'a Core, &'a Core)> {
    let value = match c.kind {
        Kind::Var(x) => &lets.iter().rev().find(|(v, _)| *v == x)?.1,
        _ => c,
    };
    let Kind::Build(n, ..) = &value.kind else {
        return None;
    };
    let (e, v) = placed(value)?;
    (value.ty.same(ty) && n.same(&ty.dims()[0]) && v.ty.scalar().is_some_and(|s| s.is_float()))
        .then_some((e, v))
}
