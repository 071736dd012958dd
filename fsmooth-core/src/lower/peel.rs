//! Peeling the ends of a `build` whose element branches on its index against constants and
//! sizes (a stencil's fixed border: `if i == 0 || i == n - 1 { .. } else { .. }`; a border
//! written with `clamp` or `min`/`max` is not an `if`, and is not peeled):
//! the index range is split into the first steps, an interior where the condition is known,
//! and the last steps. The interior runs the one branch with nothing to test, its loads
//! proven over the whole interior, so they are streams and the loop can vectorise.

use crate::front::ast::BinOp;
use crate::front::size::{Size, names_nonneg};
use crate::lir::{Ex, St, Wrap, plus, wadd};
use crate::lower::dps::{Dps, Loc, View, fill};
use crate::middle::ir::{Core, Kind, Type, VarId};
use crate::middle::simplify::subst_index;
use proc_macro2::Ident;
use quote::format_ident;

/// The interior of a peeled loop: `c0 <= i < n - k`.
struct Interior<'a> {
    /// Steps before it.
    c0: usize,
    /// Steps after it.
    k: usize,
    /// The branch it runs.
    branch: &'a Core,
}

impl Dps<'_> {
    /// `build(n, |i| if c { a } else { b })` into `dest` as three loops: the first `c0` steps
    /// and the last `k` with the whole element, the interior `c0..n - k` with the branch `c`
    /// decides there, when `c` compares `i` with sizes only and its value on that interior is
    /// known. `None` otherwise, or when there is nothing to peel.
    pub(super) fn peeled(
        &mut self,
        n: &Size,
        i: VarId,
        body: &Core,
        dest: &View,
    ) -> Option<Vec<St>> {
        let Kind::If(c, a, b) = &body.kind else {
            return None;
        };
        if !body.ty.is_float() {
            return None;
        }
        // The condition is tested inside the loop over i, which then runs: `n - 1` there
        // cannot underflow.
        let iv = self.local(i);
        self.enter_plain_loop(i, &iv);
        let inside = [(false, &**b), (true, &**a)]
            .into_iter()
            .find_map(|(holds, branch)| self.interior(c, holds, i, n, branch));
        self.loops.pop();
        let inside = inside?;
        let Interior { c0, k, branch } = inside;
        let nt = self.sizes.get(n);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        self.bounds.insert(i, n.clone());
        let id = |s: &str| format_ident!("__{}_{}", s, i);
        let (lo, mid, rest) = (id("lo"), id("mid"), id("rest"));
        let (c0e, edges) = (Ex::Usize(c0), Ex::Usize(c0 + k));
        let mut code = vec![
            // lo = min(c0, n); mid = n - c0 - k, or 0 when n is shorter.
            let_usize(
                &lo,
                Ex::If(
                    Box::new(Ex::Bin(
                        BinOp::Lt,
                        Box::new(nt.clone()),
                        Box::new(c0e.clone()),
                    )),
                    Box::new(nt.clone()),
                    Box::new(c0e.clone()),
                ),
            ),
            let_usize(
                &mid,
                Ex::If(
                    Box::new(Ex::Bin(
                        BinOp::Ge,
                        Box::new(nt.clone()),
                        Box::new(edges.clone()),
                    )),
                    Box::new(Ex::Wrap(Wrap::Sub, Box::new(nt.clone()), Box::new(edges))),
                    Box::new(Ex::Usize(0)),
                ),
            ),
        ];
        // The first steps, whole.
        code.push(self.whole_steps(i, &iv, body, dest, Ex::Usize(0), Ex::Var(lo.clone())));
        // The interior: step j is i = j + c0, the branch alone.
        let j = self.fresh_index();
        let jv = format_ident!("j_{}", j);
        self.env.insert(j, Loc::Scalar(jv.clone()));
        self.bounds
            .insert(j, Size::minus(n.clone(), Size::Lit((c0 + k) as u64)));
        let mut at = Core::new(Kind::Var(j), Type::Usize, branch.span);
        at.sym = Some(Size::Loop(j));
        let shifted = Core::usize_bin(
            BinOp::Add,
            at,
            Core::size(Size::Lit(c0 as u64), branch.span),
            "i",
            branch.span,
        );
        let step = subst_index(i, &shifted, branch.clone(), branch.span);
        let depth = self.frame.depth();
        self.enter_loop(j, &jv);
        let mut v = self.scalar(&step);
        self.frame.truncate(depth);
        let streams = self.leave_loop_ex(&mut v, Some(&dest.base));
        let inner = View {
            base: dest.base.clone(),
            off: Some(plus(&dest.off, c0e)),
            dims: dest.dims.clone(),
        };
        if self.reads(&v, &dest.base) {
            let at = plus(&inner.off, Ex::Var(jv.clone()));
            code.push(St::For {
                var: jv,
                n: Ex::Var(mid.clone()),
                streams,
                body: vec![St::Store(dest.base.clone(), at, v)],
            });
        } else {
            code.push(fill(
                &inner,
                &jv,
                &Ex::Var(mid.clone()),
                streams,
                vec![St::Slot(v)],
            ));
        }
        // The last steps, whole: from lo + mid to n.
        let from = wadd(Ex::Var(lo), Ex::Var(mid));
        code.push(let_usize(&rest, from));
        code.push(self.whole_steps(i, &iv, body, dest, Ex::Var(rest.clone()), nt));
        Some(vec![St::Block(code)])
    }

    /// The interior where `c` is `holds` for every index in it, `c` being made of comparisons
    /// of `i` alone (under `||` when false, `&&` when true, and `!`), which narrow `i` to
    /// `c0 <= i < n - k` with constants `c0` and `k`.
    fn interior<'a>(
        &self,
        c: &Core,
        holds: bool,
        i: VarId,
        n: &Size,
        branch: &'a Core,
    ) -> Option<Interior<'a>> {
        if !self.only_index_tests(c, holds, i) {
            return None;
        }
        let g = self.narrowed(c, holds, i)?;
        let c0 = usize::try_from(g.floor.as_const()?).ok()?;
        let k = Size::minus(n.clone(), g.bound.clone());
        let k = usize::try_from(k.as_const()?).ok()?;
        if c0 + k == 0 || !names_nonneg(&Size::minus(n.clone(), g.bound)) {
            return None;
        }
        Some(Interior { c0, k, branch })
    }

    /// Steps `from..to` of the build, the whole element each.
    fn whole_steps(
        &mut self,
        i: VarId,
        iv: &Ident,
        body: &Core,
        dest: &View,
        from: Ex,
        to: Ex,
    ) -> St {
        let t = format_ident!("__t_{}", i);
        let depth = self.frame.depth();
        self.enter_plain_loop(i, iv);
        let v = self.scalar(body);
        self.loops.pop();
        self.frame.truncate(depth);
        let index = wadd(from.clone(), Ex::Var(t.clone()));
        St::For {
            var: t,
            n: Ex::Wrap(Wrap::Sub, Box::new(to), Box::new(from)),
            streams: Vec::new(),
            body: vec![
                let_usize(iv, index),
                St::Store(dest.base.clone(), plus(&dest.off, Ex::Var(iv.clone())), v),
            ],
        }
    }
}

fn let_usize(id: &Ident, val: Ex) -> St {
    St::Let {
        id: id.clone(),
        mutable: false,
        usize_ty: true,
        val,
    }
}

impl Dps<'_> {
    /// A loop index of the translation's own (a peeled interior's), numbered past the
    /// kernel's variables.
    fn fresh_index(&mut self) -> VarId {
        self.temps += 1;
        let past = self.kernel.var_names.len() + (1 << 20) + self.temps;
        VarId::try_from(past).unwrap_or(VarId::MAX)
    }

    /// Whether `c` is `holds` exactly where the comparisons in it put `i`: a tree of `!`,
    /// `||` (when false) and `&&` (when true) over comparisons of `i` with values free of `i`
    /// that cannot fail (the interior skips the test, so it must not be what fails).
    fn only_index_tests(&self, c: &Core, holds: bool, i: VarId) -> bool {
        match &c.kind {
            Kind::Not(x) => self.only_index_tests(x, !holds, i),
            Kind::Bin(BinOp::And, x, y, _) if holds => {
                self.only_index_tests(x, true, i) && self.only_index_tests(y, true, i)
            }
            Kind::Bin(BinOp::Or, x, y, _) if !holds => {
                self.only_index_tests(x, false, i) && self.only_index_tests(y, false, i)
            }
            Kind::Bin(op, x, y, _) if op.is_cmp() && x.ty == Type::Usize => {
                let is_i = |e: &Core| matches!(e.kind, Kind::Var(v) if v == i);
                (is_i(x) && self.cannot_fail(y)) || (is_i(y) && self.cannot_fail(x))
            }
            _ => false,
        }
    }

    /// A `usize` value computed without a check: a constant, a size, a variable, or a
    /// subtraction of such that cannot underflow here.
    fn cannot_fail(&self, e: &Core) -> bool {
        match &e.kind {
            Kind::Size(_) | Kind::Var(_) => true,
            Kind::Bin(BinOp::Sub, a, b, _) => {
                self.cannot_fail(a) && self.cannot_fail(b) && self.no_underflow(a, b)
            }
            _ => false,
        }
    }
}
