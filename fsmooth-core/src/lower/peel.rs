//! Peeling the ends of a `build` whose element tests its index against constants and sizes:
//! a stencil's fixed border (`if i == 0 || i == n - 1 { .. } else { .. }`) or clamped one
//! (`i.max(1) - 1`, `(i + 1).min(n - 1)`, `clamp`, which the checker writes as `if`s). The
//! index range is split into the first steps, an interior where every such test is known, and
//! the last steps. The interior runs with the tests decided: no branch, its loads proven over
//! the whole interior, so they are streams and the loop can vectorise. An element that is an
//! array (an image row) is peeled the same way, its rows written whole at the ends.

use crate::front::ast::BinOp;
use crate::front::size::{Size, names_nonneg};
use crate::lir::{Ex, St, Wrap, plus, wadd};
use crate::lower::bounds::Guard;
use crate::lower::dps::{Dps, Loc, View, fill};
use crate::middle::ir::{Core, Kind, Type, VarId, usize_sym};
use crate::middle::simplify::subst_index;
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::HashMap;

/// Steps peeled at either end at most: enough for a 9-point stencil's border.
const MAX_PEEL: usize = 4;

/// The longest fixed count not peeled (a Jacobian's 2 x 15 block, a one-hot row).
pub(super) const SHORT: u64 = 32;

/// The interior of a peeled loop: `c0 <= i < n - k`.
struct Interior {
    /// Steps before it.
    c0: usize,
    /// Steps after it.
    k: usize,
    /// The element with every test of the index decided for the interior.
    inside: Core,
}

/// What deciding the tests of one interior found.
#[derive(Default)]
pub(super) struct Decisions {
    /// `if`s replaced by the branch they take.
    pub(super) decided: usize,
    /// `if`s testing the index that the interior does not decide.
    stuck: usize,
    /// Symbolic values of the `usize` `let`s seen, once known.
    lets: HashMap<VarId, Size>,
    /// The tests `bool` `let`s hold (`let t = 1 < a; if t { a } else { 1 }`, as common
    /// subexpressions leave a `max`).
    tests: HashMap<VarId, Core>,
    /// The counts of the loops inside the element around the node being decided.
    inner: Vec<(VarId, Size)>,
}

impl Dps<'_> {
    /// `build(n, |i| e)` into `dest` as three loops: the first `c0` steps and the last `k`
    /// with the whole element, the interior `c0..n - k` with every test of `i` in `e`
    /// decided. `None` when `e` tests `i` in a way no interior decides, or tests nothing.
    pub(super) fn peeled(
        &mut self,
        n: &Size,
        i: VarId,
        body: &Core,
        dest: &View,
    ) -> Option<Vec<St>> {
        // A short loop of fixed count is written out by LLVM, its tests then constants.
        let short = n.as_const().is_some_and(|c| c <= SHORT);
        if short || !(body.ty.is_float() || body.ty.is_arr()) || !tests_index(body, i) {
            return None;
        }
        // The tests are decided inside the loop over i, which then runs: `n - 1` there
        // cannot underflow.
        let iv = self.local(i);
        self.enter_plain_loop(i, &iv);
        let inside = self.interior(n, i, body);
        self.loops.pop();
        let Interior { c0, k, inside } = inside?;
        let nt = self.sizes.get(n);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        self.bounds.insert(i, n.clone());
        let id = |s: &str| format_ident!("__{}_{}", s, i);
        let (lo, mid, rest) = (id("lo"), id("mid"), id("rest"));
        let (c0e, edges) = (Ex::Usize(c0), Ex::Usize(c0 + k));
        let mut code = vec![
            // lo = min(c0, n); mid = n - c0 - k, or 0 when n is shorter.
            St::let_usize(
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
            St::let_usize(
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
        // The interior: step j is i = j + c0, the tests decided.
        let bound = Size::minus(n.clone(), Size::Lit((c0 + k) as u64));
        let start = Size::Lit(c0 as u64);
        code.push(self.decided_steps(i, inside, &start, Ex::Var(mid.clone()), bound, dest));
        // The last steps, whole: from lo + mid to n.
        let from = wadd(Ex::Var(lo), Ex::Var(mid));
        code.push(St::let_usize(&rest, from));
        code.push(self.whole_steps(i, &iv, body, dest, Ex::Var(rest.clone()), nt));
        Some(vec![St::Block(code)])
    }

    /// Steps `lo..lo + count` of a build (`count` of symbolic value `bound`) with the element
    /// `inside` whose tests are decided there: step j is `i = j + lo`, its loads proven over
    /// the whole range, so they are streams.
    pub(super) fn decided_steps(
        &mut self,
        i: VarId,
        inside: Core,
        lo: &Size,
        count: Ex,
        bound: Size,
        dest: &View,
    ) -> St {
        let j = self.fresh_index();
        let jv = format_ident!("j_{}", j);
        self.env.insert(j, Loc::Scalar(jv.clone()));
        self.bounds.insert(j, bound);
        let mut at = Core::new(Kind::Var(j), Type::Usize, inside.span);
        at.sym = Some(Size::Loop(j));
        let span = inside.span;
        let shifted = Core::usize_bin(BinOp::Add, at, Core::size(lo.clone(), span), "i", span);
        let step = subst_index(i, &shifted, inside, span);
        let lo_ex = self.sizes.get(lo);
        let depth = self.frame.depth();
        if step.ty.is_arr() {
            let row = self.row_of(dest, wadd(Ex::Var(jv.clone()), lo_ex));
            self.enter_plain_loop(j, &jv);
            let body = self.write(&step, &row);
            self.loops.pop();
            self.frame.truncate(depth);
            return St::For {
                var: jv,
                n: count,
                streams: Vec::new(),
                body,
            };
        }
        self.enter_loop(j, &jv);
        let mut v = self.scalar(&step);
        self.frame.truncate(depth);
        let streams = self.leave_loop_ex(&mut v, Some(&dest.base));
        crate::lir::drop_unread_lets_ex(&mut v);
        let inner = View {
            base: dest.base.clone(),
            off: Some(plus(&dest.off, lo_ex)),
            dims: dest.dims.clone(),
        };
        if self.reads(&v, &dest.base) {
            let at = plus(&inner.off, Ex::Var(jv.clone()));
            St::For {
                var: jv,
                n: count,
                streams,
                body: vec![St::Store(dest.base.clone(), at, v)],
            }
        } else {
            fill(&inner, &jv, &count, streams, vec![St::Slot(v)])
        }
    }

    /// The narrowest interior `c0 <= i < n - k` (fewest steps peeled, then fewest at the
    /// start) on which every `if` of `body` testing `i` is decided, with the element there.
    fn interior(&mut self, n: &Size, i: VarId, body: &Core) -> Option<Interior> {
        let ends = (1..=2 * MAX_PEEL).flat_map(|edges| {
            (edges.saturating_sub(MAX_PEEL)..=edges.min(MAX_PEEL)).map(move |c0| (c0, edges - c0))
        });
        self.first_interior(n, i, body, ends)
    }

    /// For a `scan`'s step, which runs in order: the fewest first steps `c0` (at most
    /// `MAX_PEEL`, none at the end) after which every `if` of `body` testing `i` is
    /// decided, with the step there (a seeded average's `if i == 0 { x[0] } else { .. }`).
    pub(super) fn leading_interior(
        &mut self,
        n: &Size,
        i: VarId,
        body: &Core,
    ) -> Option<(usize, Core)> {
        if n.as_const().is_some_and(|c| c <= SHORT) || !tests_index(body, i) {
            return None;
        }
        let iv = self.local(i);
        self.enter_plain_loop(i, &iv);
        let found = self.first_interior(n, i, body, (1..=MAX_PEEL).map(|c0| (c0, 0)));
        self.loops.pop();
        found.map(|x| (x.c0, x.inside))
    }

    /// The first interior of `ends` (steps peeled at the start and at the end) on which
    /// every `if` of `body` testing `i` is decided.
    fn first_interior(
        &mut self,
        n: &Size,
        i: VarId,
        body: &Core,
        ends: impl Iterator<Item = (usize, usize)>,
    ) -> Option<Interior> {
        let saved = self.guards.get(&i).cloned();
        let mut found = None;
        for (c0, k) in ends {
            let guard = Guard {
                floor: Size::Lit(c0 as u64),
                bound: Size::minus(n.clone(), Size::Lit(k as u64)),
            };
            self.guards.insert(i, guard);
            let mut inside = body.clone();
            let mut d = Decisions::default();
            self.decide(&mut inside, i, &mut d);
            if d.stuck == 0 && d.decided > 0 {
                found = Some(Interior { c0, k, inside });
                break;
            }
        }
        match saved {
            Some(g) => self.guards.insert(i, g),
            None => self.guards.remove(&i),
        };
        found
    }

    /// Replace each `if` of `e` whose test the current range of `i` decides by the branch it
    /// takes, counting those it does not decide, and give the `usize` values that become
    /// known on the way (`i.max(1) - 1` is `i - 1` once the `max` is decided) their symbolic
    /// values, so that the interior's indexes and subtractions are proven.
    pub(super) fn decide(&self, e: &mut Core, i: VarId, d: &mut Decisions) {
        match &mut e.kind {
            Kind::Let(v, a, b) => {
                self.decide(a, i, d);
                if let (Type::Usize, Some(s)) = (&a.ty, &a.sym) {
                    d.lets.insert(*v, s.clone());
                }
                if a.ty == Type::Bool {
                    d.tests.insert(*v, (**a).clone());
                }
                self.decide(b, i, d);
                if e.sym.is_none() {
                    e.sym = b.sym.clone();
                }
            }
            Kind::If(c, a, b) => {
                self.decide(c, i, d);
                let held = match &c.kind {
                    Kind::Var(v) => d.tests.get(v).cloned(),
                    _ => None,
                };
                let c = held.as_ref().unwrap_or(c);
                let ties = picks_operand(c, a, b);
                match self.decision(c, i, ties, &d.inner) {
                    Some(holds) => {
                        let mut taken = if holds { a.take() } else { b.take() };
                        self.decide(&mut taken, i, d);
                        *e = taken;
                        d.decided += 1;
                    }
                    None => {
                        if tests_index(c, i) {
                            d.stuck += 1;
                        }
                        self.decide(a, i, d);
                        self.decide(b, i, d);
                    }
                }
            }
            Kind::Build(n, v, body) => {
                d.inner.push((*v, n.clone()));
                self.decide(body, i, d);
                d.inner.pop();
            }
            Kind::Ifold(n, init, _, v, body) => {
                self.decide(n, i, d);
                self.decide(init, i, d);
                let count = n.sym.clone();
                if let Some(c) = &count {
                    d.inner.push((*v, c.clone()));
                }
                self.decide(body, i, d);
                if count.is_some() {
                    d.inner.pop();
                }
            }
            Kind::Var(v) => {
                if e.sym.is_none()
                    && let Some(s) = d.lets.get(v)
                {
                    e.sym = Some(s.clone());
                }
            }
            Kind::Bin(op, a, b, _) if e.ty == Type::Usize && op.is_arith() => {
                self.decide(a, i, d);
                self.decide(b, i, d);
                if e.sym.is_none() {
                    e.sym = usize_sym(*op, a.sym.as_ref(), b.sym.as_ref());
                }
            }
            _ => {
                for c in e.children_mut() {
                    self.decide(c, i, d);
                }
            }
        }
    }

    /// The value test `c` has for every `i` in its current range (and every value of the
    /// element's own loop indexes around it, `inner`), when that is one value:
    /// `!`, `&&` and `||` (in their order of evaluation) over comparisons of `usize` values
    /// that cannot fail. With `ties`, the `if` takes the same value either way where the
    /// two sides of its `<` are equal (a `min` or `max`), so `<` may be decided as `<=`.
    fn decision(&self, c: &Core, i: VarId, ties: bool, inner: &[(VarId, Size)]) -> Option<bool> {
        match &c.kind {
            Kind::Not(x) => self.decision(x, i, false, inner).map(|b| !b),
            Kind::Bin(BinOp::And, x, y, _) => match self.decision(x, i, false, inner)? {
                false => Some(false),
                true => self.decision(y, i, false, inner),
            },
            Kind::Bin(BinOp::Or, x, y, _) => match self.decision(x, i, false, inner)? {
                true => Some(true),
                false => self.decision(y, i, false, inner),
            },
            Kind::Bin(op, x, y, _) if op.is_cmp() && x.ty == Type::Usize => {
                let (Some(xs), Some(ys)) = (&x.sym, &y.sym) else {
                    return None;
                };
                if !(xs.mentions_loop(i) || ys.mentions_loop(i))
                    || !self.cannot_fail(x)
                    || !self.cannot_fail(y)
                {
                    return None;
                }
                // x - y over the range: at least `lo`, at most `hi`.
                let diff = Size::minus(xs.clone(), ys.clone());
                let lo = self.extreme_within(&diff, false, inner);
                let hi = self.extreme_within(&diff, true, inner);
                // `s >= k` for all values of the names.
                let at_least = |s: &Option<Size>, k: i64| {
                    s.as_ref().is_some_and(|s| {
                        names_nonneg(&if k >= 0 {
                            Size::minus(s.clone(), Size::Lit(k as u64))
                        } else {
                            Size::plus(s.clone(), Size::Lit(k.unsigned_abs()))
                        })
                    })
                };
                // `s <= k`: `-s >= -k`.
                let at_most = |s: &Option<Size>, k: i64| {
                    s.as_ref().is_some_and(|s| {
                        let neg = Size::minus(Size::Lit(0), s.clone());
                        at_least(&Some(neg), -k)
                    })
                };
                let (yes, no) = match op {
                    BinOp::Lt => (at_most(&hi, if ties { 0 } else { -1 }), at_least(&lo, 0)),
                    BinOp::Le => (at_most(&hi, 0), at_least(&lo, 1)),
                    BinOp::Gt => (at_least(&lo, 1), at_most(&hi, 0)),
                    BinOp::Ge => (at_least(&lo, 0), at_most(&hi, -1)),
                    BinOp::Eq => (
                        at_least(&lo, 0) && at_most(&hi, 0),
                        at_least(&lo, 1) || at_most(&hi, -1),
                    ),
                    BinOp::Ne => (
                        at_least(&lo, 1) || at_most(&hi, -1),
                        at_least(&lo, 0) && at_most(&hi, 0),
                    ),
                    _ => (false, false),
                };
                if yes {
                    Some(true)
                } else if no {
                    Some(false)
                } else {
                    None
                }
            }
            _ => None,
        }
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
        let mut code = vec![St::let_usize(iv, wadd(from.clone(), Ex::Var(t.clone())))];
        if body.ty.is_arr() {
            let row = self.row_of(dest, Ex::Var(iv.clone()));
            code.extend(self.write(body, &row));
        } else {
            let v = self.scalar(body);
            let at = plus(&dest.off, Ex::Var(iv.clone()));
            code.push(St::Store(dest.base.clone(), at, v));
        }
        self.loops.pop();
        self.frame.truncate(depth);
        St::For {
            var: t,
            n: Ex::Wrap(Wrap::Sub, Box::new(to), Box::new(from)),
            streams: Vec::new(),
            body: code,
        }
    }
}

impl Dps<'_> {
    /// A loop index of the translation's own (a peeled interior's), numbered past the
    /// kernel's variables.
    pub(super) fn fresh_index(&mut self) -> VarId {
        self.temps += 1;
        let past = self.kernel.var_names.len() + (1 << 20) + self.temps;
        VarId::try_from(past).unwrap_or(VarId::MAX)
    }

    /// A `usize` value computed without a check: a constant, a size, a variable, a
    /// subtraction of such that cannot underflow here, or a sum or product of such that is at
    /// most a loop's count (`i + 1 < n` in a loop over `0..n`), or a counter's `c + 1`
    /// ([`crate::lower::counters`]).
    pub(super) fn cannot_fail(&self, e: &Core) -> bool {
        match &e.kind {
            Kind::Size(_) | Kind::Var(_) => true,
            Kind::Bin(BinOp::Sub, a, b, _) => {
                self.cannot_fail(a) && self.cannot_fail(b) && self.no_underflow(a, b)
            }
            Kind::Bin(op @ (BinOp::Add | BinOp::Mul), a, b, _) => {
                self.cannot_fail(a)
                    && self.cannot_fail(b)
                    && (self.below_a_loop_bound(e) || (*op == BinOp::Add && self.counts_up(a, b)))
            }
            _ => false,
        }
    }
}

/// Whether `e` compares `i` (by its symbolic value) anywhere.
pub(super) fn tests_index(e: &Core, i: VarId) -> bool {
    if let Kind::Bin(op, x, y, _) = &e.kind
        && op.is_cmp()
        && x.ty == Type::Usize
        && [x, y]
            .iter()
            .any(|s| s.sym.as_ref().is_some_and(|s| s.mentions_loop(i)))
    {
        return true;
    }
    e.children().any(|c| tests_index(c, i))
}

/// Whether `if c { a } else { b }` picks one side of its comparison `p < q` (`{a, b}` is
/// `{p, q}`): then both branches give the same value where `p == q`.
fn picks_operand(c: &Core, a: &Core, b: &Core) -> bool {
    let Kind::Bin(BinOp::Lt, p, q, _) = &c.kind else {
        return false;
    };
    let same = |x: &Core, y: &Core| match (&x.kind, &y.kind) {
        (Kind::Var(u), Kind::Var(v)) => u == v,
        (Kind::Size(s), Kind::Size(t)) => s.same(t),
        _ => false,
    };
    (same(a, p) && same(b, q)) || (same(a, q) && same(b, p))
}
