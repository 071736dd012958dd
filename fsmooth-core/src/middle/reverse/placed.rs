//! A sum's contributions added to it ([`Reverse::accumulated`]): a sum from zero continued
//! from the sum, and contributions placed at one index of an array's adjoint (a one-hot element or row, an
//! element within a row: a mesh edge's two ends `x[e[j][0]]`, `x[e[j][1]]`), added where they
//! lie: those at one index in one update of that row, each element of it alone, and the
//! updates of different indexes one after the other (two indexes may be equal at run time).
//! The lowering runs such a chain of updates in place (`lower/accumulate.rs`): O(row) a step,
//! where one sum of the placed arrays was O(array).

use super::terms::placed;
use super::{Lets, Reverse, at, index, pick};
use crate::front::ast::{BinOp, Sp};
use crate::middle::forward::{bin, is_zero, wrap};
use crate::middle::ir::{Core, Kind, Type, fresh};

impl Reverse<'_> {
    /// `sum` plus the contributions `cs` (bound in `lets`). A contribution that is a sum
    /// over steps starting from zero continues from the sum so far instead (`acc +
    /// ifold(m, 0, f)` is `ifold(m, acc, f)`, up to rounding), so nested sums all add into
    /// one array, in place ([`crate::lower`]'s accumulation). A carried fold's sweep is not
    /// such a sum: its state is transformed by the steps ([`CARRIED`]).
    pub(super) fn accumulated(
        &mut self,
        sum: Core,
        cs: Vec<Core>,
        ty: &Type,
        span: Sp,
        lets: &mut Lets,
    ) -> Core {
        let from_zero = |rev: &Self, c: &Core, lets: &Lets| {
            let Kind::Var(x) = c.kind else { return None };
            let k = lets.iter().position(|(v, _)| *v == x)?;
            let used = lets.iter().any(|(_, value)| value.mentions(x));
            (rev.is_sum_from_zero(x, &lets[k].1) && !used).then_some(k)
        };
        let (folds, others): (Vec<Core>, Vec<Core>) = cs
            .into_iter()
            .filter(|c| !is_zero(c))
            .partition(|c| from_zero(self, c, lets).is_some());
        let (hots, dense): (Vec<Core>, Vec<Core>) = others
            .into_iter()
            .partition(|c| placed_in(c, ty, lets).is_some());
        let mut running = sum;
        if !dense.is_empty() {
            let rest = self.total(dense, ty, span, lets);
            let rest = self.atom(rest, "adj", lets);
            running = self.total(vec![running, rest], ty, span, lets);
        }
        // Each element or row placed at one index (`v[e[j][0]]`, `v[e[j][1]]`: a mesh edge's
        // ends) added where it lies, one update of one row after the other: O(row) each
        // where one sum of the placed arrays would be O(array) (the lowering updates a
        // chain of rows in place, `lower/accumulate.rs`).
        // Contributions at one index (the same expression) go to that row in one update.
        let mut groups: Vec<(String, Vec<Core>)> = Vec::new();
        for c in hots {
            let Some((e, _)) = placed_in(&c, ty, lets) else {
                continue;
            };
            let key = crate::middle::cse::key(e);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, cs)) => cs.push(c),
                None => groups.push((key, vec![c])),
            }
        }
        for (_, cs) in groups {
            let prev = self.atom(running, "adj", lets);
            running = self.add_placed(prev, &cs, ty, lets);
        }
        for f in folds {
            let Some(k) = from_zero(self, &f, lets) else {
                continue;
            };
            let (_, fold) = lets.remove(k);
            let Kind::Ifold(m, _, acc, i, body) = fold.kind else {
                continue;
            };
            running = Core::new(
                Kind::Ifold(m, Box::new(running), acc, i, body),
                ty.clone(),
                span,
            );
        }
        running
    }

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
