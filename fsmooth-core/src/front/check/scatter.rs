//! `scatter_add(m, n, |i| (k, v))` and `reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`
//! (LANGUAGE.md section 15), checked and written as the in-place row update they are: an
//! `ifold` over the `n` steps whose state is the `m` elements, each step reading element
//! `k` checked (an index past the end is `Error::Index`) and replacing that element alone,
//!
//! ```text
//! let z = ne;                     // a zero is written in place instead
//! ifold(n, build(m, |_| z), |h, i| {
//!     let (k, v) = step(i);
//!     let k = check_index(k, m);   // `Kind::CheckIndex`
//!     let old = h[k];
//!     build(m, |j| if j == k { old op v } else { h[j] })
//! })
//! ```
//!
//! which the lowering's update of one row in place compiles to one pass with no copy
//! (LANGUAGE.md section 13). Derivatives see that form; the reverse sweep of an operation
//! other than addition is refused ([`Elab::scatter_ops`]).

use super::elab::{Bind, Elab, Elaborated, Env, mismatch};
use super::infer::Want;
use super::scalars::convert_help;
use crate::front::ast::{BinOp, Expr, ExprKind, Name, Scatter, Sp};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};

impl Elab<'_> {
    /// A scatter call (`e`'s kind is [`ExprKind::Scatter`]).
    #[inline(never)]
    pub(super) fn e_scatter(&mut self, e: &Expr, env: &Env, want: &Want) -> Elaborated {
        let ExprKind::Scatter(sc) = &e.kind else {
            return Err(());
        };
        let form = if sc.op.is_some() {
            "reduce_by_index"
        } else {
            "scatter_add"
        };
        if let Some(call) = self.shadowed(e, form, env) {
            let closure = |ps: Vec<Name>, b: &Expr| Expr {
                kind: ExprKind::Closure(ps, Box::new(b.clone())),
                span: b.span,
            };
            let mut args = vec![sc.m.clone()];
            if let (Some(ne), Some((a, b, op))) = (&sc.ne, &sc.op) {
                args.push(ne.clone());
                args.push(closure(vec![a.clone(), b.clone()], op));
            }
            args.push(sc.n.clone());
            args.push(closure(vec![sc.i.clone()], &sc.body));
            return self.call(&call, &args, e, env, want);
        }
        let sp = e.span;
        let Scatter {
            m,
            ne,
            op,
            n,
            i,
            body,
        } = &**sc;
        let m = self.size_expr(m, env, &format!("`{form}`'s length"));
        let n = self.usize_expr(n, env, &format!("`{form}`'s step count"));
        let iid = self.fresh(&i.text);
        let mut senv = env.clone();
        senv.push((
            i.text.clone(),
            Bind::Val(iid, Type::Usize, Some(Size::Loop(iid))),
        ));
        let step = self.expr_want(body, &senv, &Want::Tuple(vec![Want::Any, want.elem()]));
        let (m, n, step) = (m?, n?, step?);
        let elem = match &step.ty {
            Type::Tuple(ts) if ts.len() == 2 && ts[0] == Type::Usize && ts[1] != Type::Bool => {
                ts[1].clone()
            }
            other => {
                self.err(
                    step.span,
                    format!(
                        "`{form}`'s step gives the pair `(k, v)`: the index `k` of the element it goes to (a `usize`) and the value `v` (a scalar or a row), found `{other}`"
                    ),
                );
                return Err(());
            }
        };
        let Some(ty) = Type::array_of(&elem, m.clone()) else {
            self.err(
                step.span,
                format!(
                    "`{form}`'s value `v` is a scalar or a row (an array), found `{elem}`\n  help: for several values, one `{form}` each (their elements go to the same indexes)"
                ),
            );
            return Err(());
        };
        let (hid, tid, kid, vid, oid, jid) = (
            self.fresh("h"),
            self.fresh("kv"),
            self.fresh("k"),
            self.fresh("v"),
            self.fresh("old"),
            self.fresh("j"),
        );
        let var = |id: VarId, ty: &Type| Core::new(Kind::Var(id), ty.clone(), sp);
        // Each element's start, and the new element: `old op v`.
        let (start, new) = match (ne, op) {
            (Some(ne_expr), Some((a, b, op))) => {
                let ne = self.expr_want(ne_expr, env, &Want::of(&elem))?;
                if !ne.ty.same(&elem) {
                    self.err(
                        ne.span,
                        format!(
                            "mismatched {}: `reduce_by_index`'s start `ne` is `{}`, but the steps give values of `{elem}`{}",
                            mismatch(&ne.ty, &elem),
                            ne.ty,
                            convert_help(ne_expr, &ne.ty, &elem)
                        ),
                    );
                    return Err(());
                }
                let mut openv = env.clone();
                for (name, id) in [(a, oid), (b, vid)] {
                    let bind = if self.pattern_fits(name, &elem) {
                        Bind::Val(id, elem.clone(), None)
                    } else {
                        Bind::Failed
                    };
                    openv.push((name.text.clone(), bind));
                }
                let new = self.expr_want(op, &openv, &Want::of(&elem))?;
                if !new.ty.same(&elem) {
                    self.err(
                        new.span,
                        format!(
                            "mismatched {}: `reduce_by_index`'s operation gives `{}`, but it combines values of `{elem}`",
                            mismatch(&new.ty, &elem),
                            new.ty
                        ),
                    );
                    return Err(());
                }
                if !is_addition(&new, oid, vid) {
                    self.scatter_ops.push((hid, sp));
                }
                (ne, new)
            }
            _ => (
                zero(&elem, &mut self.names, sp),
                added(var(oid, &elem), var(vid, &elem), &elem, &mut self.names, sp),
            ),
        };
        // Every element starts at `ne`: a zero written in place, another start computed once.
        let zid = self.fresh("ne");
        let uid = self.fresh("_");
        let first = if ne.is_none() || constant_row(&start) {
            start.clone()
        } else {
            var(zid, &elem)
        };
        let init = Core::new(Kind::Build(m.clone(), uid, Box::new(first)), ty.clone(), sp);
        let k = Core::new(Kind::Proj(Box::new(var(tid, &step.ty)), 0), Type::Usize, sp);
        let k = Core::new(Kind::CheckIndex(Box::new(k), m.clone()), Type::Usize, sp);
        let v = Core::new(
            Kind::Proj(Box::new(var(tid, &step.ty)), 1),
            elem.clone(),
            sp,
        );
        let old = Core::new(
            Kind::Index(Box::new(var(hid, &ty)), Box::new(var(kid, &Type::Usize))),
            elem.clone(),
            sp,
        );
        let mut j = var(jid, &Type::Usize);
        j.sym = Some(Size::Loop(jid));
        let hit = Core::new(
            Kind::Bin(
                BinOp::Eq,
                Box::new(j.clone()),
                Box::new(var(kid, &Type::Usize)),
                String::new(),
            ),
            Type::Bool,
            sp,
        );
        let keep = Core::new(
            Kind::Index(Box::new(var(hid, &ty)), Box::new(j)),
            elem.clone(),
            sp,
        );
        let row = Core::new(
            Kind::Build(
                m,
                jid,
                Box::new(Core::new(
                    Kind::If(Box::new(hit), Box::new(new), Box::new(keep)),
                    elem.clone(),
                    sp,
                )),
            ),
            ty.clone(),
            sp,
        );
        let lets = [(tid, step), (kid, k), (vid, v), (oid, old)];
        let body = lets.into_iter().rev().fold(row, |b, (x, val)| {
            let t = b.ty.clone();
            Core::new(Kind::Let(x, Box::new(val), Box::new(b)), t, sp)
        });
        let fold = Core::new(
            Kind::Ifold(Box::new(n), Box::new(init), hid, iid, Box::new(body)),
            ty.clone(),
            sp,
        );
        if ne.is_none() || constant_row(&start) {
            return Ok(fold);
        }
        Ok(Core::new(
            Kind::Let(zid, Box::new(start), Box::new(fold)),
            ty,
            sp,
        ))
    }
}

/// True when `e` is a row of constants (`build(d, |_| 0.0)`, `[1.0, 1.0]`): a start each
/// element can compute where it is written, rather than a copy of a stored one.
fn constant_row(e: &Core) -> bool {
    match &e.kind {
        Kind::Build(_, _, body) => constant_row(body),
        Kind::Array(xs) => xs.iter().all(constant_row),
        Kind::Float(_) | Kind::Size(_) => true,
        Kind::Neg(x) => constant_row(x),
        _ => false,
    }
}

/// Zero of type `t`: `0.0`, `0`, or a row of them.
fn zero(t: &Type, names: &mut Vec<String>, sp: Sp) -> Core {
    match t {
        Type::Usize => Core::size(Size::Lit(0), sp),
        Type::Arr(_, d) => {
            names.push("_".into());
            let u = (names.len() - 1) as VarId;
            let row = zero(&t.elem(), names, sp);
            Core::new(Kind::Build(d[0].clone(), u, Box::new(row)), t.clone(), sp)
        }
        _ => Core::new(Kind::Float(0.0), t.clone(), sp),
    }
}

/// `a + b` of type `t`, rows element by element.
fn added(a: Core, b: Core, t: &Type, names: &mut Vec<String>, sp: Sp) -> Core {
    match t {
        Type::Usize => Core::usize_bin(BinOp::Add, a, b, "scatter_add's sum", sp),
        Type::Arr(_, d) => {
            names.push("e".into());
            let e = (names.len() - 1) as VarId;
            let mut ev = Core::new(Kind::Var(e), Type::Usize, sp);
            ev.sym = Some(Size::Loop(e));
            let row = t.elem();
            let at = |x: Core| {
                Core::new(
                    Kind::Index(Box::new(x), Box::new(ev.clone())),
                    row.clone(),
                    sp,
                )
            };
            let sum = added(at(a), at(b), &row, names, sp);
            Core::new(Kind::Build(d[0].clone(), e, Box::new(sum)), t.clone(), sp)
        }
        _ => Core::new(
            Kind::Bin(BinOp::Add, Box::new(a), Box::new(b), String::new()),
            t.clone(),
            sp,
        ),
    }
}

/// True when `op` is `a + b` (or `b + a`) of the element so far `a` and the value `b`, for
/// scalars: a `reduce_by_index` that is a `scatter_add`, which reverse mode takes.
fn is_addition(op: &Core, a: VarId, b: VarId) -> bool {
    let is = |c: &Core, v: VarId| matches!(c.kind, Kind::Var(x) if x == v);
    match &op.kind {
        Kind::Bin(BinOp::Add, x, y, _) => (is(x, a) && is(y, b)) || (is(x, b) && is(y, a)),
        _ => false,
    }
}
