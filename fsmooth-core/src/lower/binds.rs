//! `binds`: translating `let v = a` ([`Dps::bind`]): a Rust local for a scalar, a view for
//! an array (its offset's checked parts computed once where it is bound, when a loop reads
//! it), or the buffer of an array it is written over.

use crate::lir::{Base, Ex, St, rewrite_ex, same};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::storage::{Holds, Taken};
use crate::middle::ir::{Core, Kind, VarId};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::HashSet;

impl Dps<'_> {
    /// Bind `v` to the value of `a`: a Rust local for scalars, a view for arrays (an
    /// allocation in the frame unless `a` is already a view). Returns the statements.
    pub(super) fn bind(&mut self, v: VarId, a: &Core) -> Vec<St> {
        if a.ty.is_tuple() {
            return self.bind_tuple(v, a);
        }
        self.note(v, a);
        if let Some(w) = self.over(v, a) {
            // Written over the array it replaces, which nothing reads afterwards.
            if let (Base::Scratch(_), Some(x)) = (&w.base, self.overwrites.get(&v)) {
                self.frame.taken.push(Taken {
                    what: v,
                    from: *x,
                    span: a.span,
                });
            }
            let depth = self.frame.depth();
            let code = self.write(a, &w);
            self.frame.truncate(depth);
            self.env.insert(v, Loc::View(w));
            return code;
        }
        if a.ty.is_arr() {
            let (mut pre, mut w) = self.view_holding(a, Some(Holds::Let(v)));
            if self.loop_read.contains(&v) {
                self.bind_checked_parts(&mut w, &mut pre);
            }
            self.env.insert(v, Loc::View(w));
            pre
        } else {
            let val = self.scalar(a);
            let id = self.local(v);
            self.env.insert(v, Loc::Scalar(id.clone()));
            self.number_let(&id);
            vec![St::Let {
                id,
                mutable: false,
                usize_ty: false,
                val,
            }]
        }
    }

    /// Number the `let` of `id` in order ([`Dps::lets`]): a loop's streams may start at an
    /// offset reading it when it came before the loop. Numbered anew when bound again (code
    /// written twice, a peeled element's): the binding in scope is the latest.
    fn number_let(&mut self, id: &Ident) {
        let n = self.lets_bound;
        self.lets_bound += 1;
        self.lets.insert(id.to_string(), n);
    }

    /// The parts of view `w`'s offset that compute with checks (a row at `(j + p) % n`),
    /// bound by `let`s appended to `pre`: computed once, where the program binds the row,
    /// where otherwise every load of the view, in the loops after it too, computed them (and
    /// their checks) at every step. The offset keeps its form (`t * 11 + 3`), by which loads
    /// of constant elements find their row: each row of [`Dps::blocks`] holding such a part
    /// is registered again with its local.
    fn bind_checked_parts(&mut self, w: &mut View, pre: &mut Vec<St>) {
        let Some(off) = w.off.as_mut() else {
            return;
        };
        let mut bound: Vec<(Ex, Ident)> = Vec::new();
        rewrite_ex(off, &mut |e| {
            if !matches!(e, Ex::Checked(..) | Ex::Check(..)) {
                return false;
            }
            let tmp = format_ident!("__lo{}", self.slices);
            self.slices += 1;
            pre.push(St::let_usize(&tmp, e.clone()));
            bound.push((e.clone(), tmp.clone()));
            *e = Ex::Var(tmp);
            true
        });
        for (was, tmp) in bound {
            self.number_let(&tmp);
            let now = Ex::Var(tmp);
            let again: Vec<(Base, Ex, usize)> = self
                .blocks
                .iter()
                .filter_map(|(b, o, width)| replaced(o, &was, &now).map(|o| (b.clone(), o, *width)))
                .collect();
            self.blocks.extend(again);
        }
    }

    /// The place of the array that `let v = a` may be written over ([`Dps::overwrites`]):
    /// a buffer of the frame or a local array, with `a`'s dimensions. Not a destination a
    /// chain wrote `x` in ([`Dps::in_destination`]): other arrays of the chain take it in
    /// turn there, each while the one before is dead by the chain's own plan, which the
    /// array written over `x` would outlive.
    fn over(&self, v: VarId, a: &Core) -> Option<View> {
        let x = self.overwrites.get(&v)?;
        if self.in_destination.contains(x) {
            return None;
        }
        match self.env.get(x) {
            Some(Loc::View(w)) if matches!(w.base, Base::Scratch(_) | Base::Local(_)) => {
                Some(View {
                    dims: a.ty.dims().to_vec(),
                    ..w.clone()
                })
            }
            _ => None,
        }
    }
}

/// `e` with each occurrence of `was` made `now`, when it has one.
fn replaced(e: &Ex, was: &Ex, now: &Ex) -> Option<Ex> {
    let mut out = e.clone();
    let mut hit = false;
    rewrite_ex(&mut out, &mut |x| {
        let here = same(x, was);
        if here {
            *x = now.clone();
            hit = true;
        }
        here
    });
    hit.then_some(out)
}

/// The array `let`s of `e` whose body reads them inside a loop (a `build`'s, a fold's or a
/// scan's step, an `iterate`'s parts).
pub(super) fn read_in_loops(e: &Core) -> HashSet<VarId> {
    fn under_loop(e: &Core, v: VarId, inside: bool) -> bool {
        match &e.kind {
            Kind::Var(x) => inside && *x == v,
            Kind::Build(_, _, body) => under_loop(body, v, true),
            Kind::Ifold(n, init, _, _, body) => {
                under_loop(n, v, inside) || under_loop(init, v, inside) || under_loop(body, v, true)
            }
            Kind::Scan(_, init, _, _, body) => {
                under_loop(init, v, inside) || under_loop(body, v, true)
            }
            Kind::Iterate(..) => e.children().any(|c| under_loop(c, v, true)),
            _ => e.children().any(|c| under_loop(c, v, inside)),
        }
    }
    fn walk(e: &Core, out: &mut HashSet<VarId>) {
        if let Kind::Let(v, a, b) = &e.kind
            && a.ty.is_arr()
            && under_loop(b, *v, false)
        {
            out.insert(*v);
        }
        for c in e.children() {
            walk(c, out);
        }
    }
    let mut out = HashSet::new();
    walk(e, &mut out);
    out
}
