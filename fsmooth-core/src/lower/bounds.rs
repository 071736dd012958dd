//! Range proofs: which indexes are below their array's length and which subtractions cannot
//! underflow, over every value the enclosing loops' indexes take. A proven index is a plain
//! load; others are checked.

use crate::front::ast::{BinOp, MathFn};
use crate::front::size::{Atom, Size, names_nonneg};
use crate::lower::dps::Dps;
use crate::middle::cse::key;
use crate::middle::ir::{Core, Kind, Pin, Type, VarId};

/// The range a loop index lies in where a condition is known: `floor <= i < bound`.
#[derive(Clone, Debug)]
pub struct Guard {
    /// The least value (0 for a loop's own range).
    pub floor: Size,
    /// The exclusive upper bound.
    pub bound: Size,
}

/// Whether sizes `a` and `b` are equal for every value of the names in them.
fn equal(a: &Size, b: &Size) -> bool {
    names_nonneg(&Size::minus(a.clone(), b.clone()))
        && names_nonneg(&Size::minus(b.clone(), a.clone()))
}

/// The loop index `e` reads, when it is one (`i`, not `i + 1`).
fn index_var(e: &Core) -> Option<VarId> {
    match (&e.kind, &e.sym) {
        (Kind::Var(_), Some(Size::Loop(v))) => Some(*v),
        _ => None,
    }
}

impl Dps<'_> {
    /// Translate with `f` where condition `c` is known to be `holds` (a branch of an `if`):
    /// the loop indexes `c` compares with sizes get the narrower range it implies, so that
    /// `a[i - 1]` and `a[i + 1]` in the `else` of `if i == 0 || i == n - 1` are proven.
    pub(super) fn guarded<T>(
        &mut self,
        c: &Core,
        holds: bool,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let mut facts = Vec::new();
        self.facts(c, holds, &mut facts);
        let saved: Vec<(VarId, Option<Guard>)> = facts
            .iter()
            .map(|(v, _)| (*v, self.guards.get(v).cloned()))
            .collect();
        for (v, g) in facts {
            self.guards.insert(v, g);
        }
        let known = self.below.len();
        self.below_facts(c, holds);
        let narrows = usize::from(!saved.is_empty() || self.below.len() > known);
        self.narrowing += narrows;
        let out = f(self);
        self.narrowing -= narrows;
        self.below.truncate(known);
        for (v, g) in saved.into_iter().rev() {
            match g {
                Some(g) => self.guards.insert(v, g),
                None => self.guards.remove(&v),
            };
        }
        out
    }

    /// `f` as if no branch had narrowed any range (for what serves a whole loop).
    pub(super) fn unguarded<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::take(&mut self.guards);
        let below = std::mem::take(&mut self.below);
        let out = f(self);
        self.guards = saved;
        self.below = below;
        out
    }

    /// Whether the view of array expression `a` holds wherever it is read, as the ranges
    /// and bounds now known allow: every row index and slice start in it is in range
    /// ([`Dps::valid_below`]), and every variable it reads was bound to a view where no
    /// branch had narrowed anything (else the view's offset may hold only in that branch).
    /// A materialised array's place is in the frame: it holds. (Called in
    /// [`Dps::unguarded`], for a stream's start, which is computed before its loop.)
    pub(super) fn view_everywhere(&self, a: &Core) -> bool {
        match &a.kind {
            Kind::Var(v) => !self.narrowed_lets.contains(v),
            Kind::Index(b, i) if a.ty.is_arr() => {
                let dim = b.ty.dims()[0].clone();
                self.valid_below(i, &Size::Lit(1), &dim, 0) && self.view_everywhere(b)
            }
            Kind::Slice(b, lo) => {
                let (len, dim) = (a.ty.dims()[0].clone(), b.ty.dims()[0].clone());
                self.valid_below(lo, &len, &dim, 0) && self.view_everywhere(b)
            }
            Kind::Reshape(b) | Kind::Proj(b, _) => self.view_everywhere(b),
            _ => true,
        }
    }

    /// Index `i` plus `extra` is at most `dim` as the code computes it, for every value the
    /// loop indexes take: [`Dps::proven_below`] with the least value too (`i - 1`, proven
    /// where `i >= 1`, wraps at `i = 0`; a polynomial computed in wrapping arithmetic is
    /// right whenever its value is in range). Not an index array's element, whose column
    /// would then be checked at entry where no read may need it.
    fn valid_below(&self, i: &Core, extra: &Size, dim: &Size, depth: usize) -> bool {
        if depth > 8 {
            return false;
        }
        if let Some(s) = &i.sym {
            return self.proven(&i.sym, extra, dim)
                && self
                    .extreme(s, false)
                    .is_some_and(|min| self.nonneg_here(&min));
        }
        let ok = |x: &Core| self.valid_below(x, extra, dim, depth + 1);
        match &i.kind {
            Kind::Math(MathFn::Min, xs) => xs.iter().any(ok),
            Kind::CheckIndex(_, len) => extra.as_const() == Some(1) && len.same(dim),
            Kind::Math(MathFn::Max, xs) => !xs.is_empty() && xs.iter().all(ok),
            Kind::Math(MathFn::Clamp, xs) => match xs.as_slice() {
                [x, lo, hi] => ok(hi) || (ok(x) && ok(lo)),
                _ => false,
            },
            Kind::Var(v) => self.capped.get(v).is_some_and(ok),
            _ => false,
        }
    }

    /// Whether a branch has narrowed a range or bounded a value here ([`Dps::guarded`],
    /// [`Dps::knowing_below`]).
    pub(super) fn narrowed(&self) -> bool {
        !self.guards.is_empty() || !self.below.is_empty()
    }

    /// Translate with `f` where `x < dim` is known (the row update's `if r < m`, around the
    /// new row: `h[r] + 1` there reads `h`'s element `r` unchecked).
    pub(super) fn knowing_below<T>(
        &mut self,
        x: &Core,
        dim: &Size,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let known = self.below.len();
        self.below.push((key(x), dim.clone()));
        self.narrowing += 1;
        let out = f(self);
        self.narrowing -= 1;
        self.below.truncate(known);
        out
    }

    /// The bounds that `c` being `holds` puts on `usize` values other than a loop index
    /// (those narrow the index's range, [`Dps::facts`]), pushed on [`Dps::below`]: `x < e`
    /// true (or `x >= e` false) bounds `x` by `e`, `x <= e` and `x == e` by `e + 1`, for any `x` (a `let`
    /// bound bin, a clamp written inline), `e` a size. Sound because the language is pure:
    /// wherever the branch runs, `x` written again is the value the condition compared (and
    /// computed without an error there, so written again it needs no checked arithmetic).
    fn below_facts(&mut self, c: &Core, holds: bool) {
        match &c.kind {
            Kind::Not(x) => self.below_facts(x, !holds),
            Kind::Bin(BinOp::And, x, y, _) if holds => {
                self.below_facts(x, true);
                self.below_facts(y, true);
            }
            Kind::Bin(BinOp::Or, x, y, _) if !holds => {
                self.below_facts(x, false);
                self.below_facts(y, false);
            }
            Kind::Bin(op, x, y, _) if x.ty == Type::Usize && op.is_cmp() => {
                for (x, e, op) in [(x, y, *op), (y, x, flipped(*op))] {
                    let (Some(e), None) = (&e.sym, index_var(x)) else {
                        continue;
                    };
                    let bound = match (op, holds) {
                        (BinOp::Lt, true) | (BinOp::Ge, false) => e.clone(),
                        // (`x == e`: a row chosen by a constant, `if 0 == x[i] { h[x[i]] }`
                        // once a literal-count `build` is written out.)
                        (BinOp::Le | BinOp::Eq, true) | (BinOp::Gt | BinOp::Ne, false) => {
                            Size::plus(e.clone(), Size::Lit(1))
                        }
                        _ => continue,
                    };
                    self.below.push((key(x), bound));
                }
            }
            _ => {}
        }
    }

    /// The largest value size `s` can take here, where an enclosing test bounds it by a
    /// literal ([`Dps::below_facts`]: `if m <= 16`).
    pub(super) fn size_at_most(&self, s: &Size) -> Option<u64> {
        let k = key(&Core::size(
            s.clone(),
            crate::front::ast::Sp::from(proc_macro2::Span::call_site()),
        ));
        self.below
            .iter()
            .filter(|(x, _)| *x == k)
            .filter_map(|(_, b)| b.as_const())
            .min()
            .map(|b| b.saturating_sub(1))
    }

    /// `i` is known below `dim` where it is used: an enclosing branch compared it
    /// ([`Dps::below_facts`], [`Dps::knowing_below`]) with a bound at most `dim` over every
    /// value the loop indexes take.
    fn known_below(&self, i: &Core, dim: &Size) -> bool {
        if self.below.is_empty() {
            return false;
        }
        let k = key(i);
        self.below.iter().any(|(x, b)| {
            *x == k
                && self
                    .extreme(b, true)
                    .is_some_and(|max| names_nonneg(&Size::minus(dim.clone(), max)))
        })
    }

    /// The range of loop index `v` here: its guard's, else `0..` its loop's bound.
    fn range(&self, v: VarId) -> Option<Guard> {
        if let Some(g) = self.guards.get(&v) {
            return Some(g.clone());
        }
        self.bounds.get(&v).map(|b| Guard {
            floor: Size::Lit(0),
            bound: b.clone(),
        })
    }

    /// The narrowed ranges that `c` being `holds` implies, pushed on `out` (later ones refine
    /// earlier ones of the same index). Only comparisons of a loop index with a size count:
    /// `i == 0` false raises its floor to 1, `i == bound - 1` false lowers its bound by one,
    /// `i < e` true makes `e` its bound and `i >= e` its floor, where that is narrower.
    fn facts(&self, c: &Core, holds: bool, out: &mut Vec<(VarId, Guard)>) {
        let current = |v: VarId, out: &Vec<(VarId, Guard)>| {
            out.iter()
                .rev()
                .find(|(w, _)| *w == v)
                .map(|(_, g)| g.clone())
                .or_else(|| self.range(v))
        };
        match &c.kind {
            Kind::Not(x) => self.facts(x, !holds, out),
            Kind::Bin(BinOp::And, x, y, _) if holds => {
                self.facts(x, true, out);
                self.facts(y, true, out);
            }
            Kind::Bin(BinOp::Or, x, y, _) if !holds => {
                self.facts(x, false, out);
                self.facts(y, false, out);
            }
            Kind::Bin(op, x, y, _) if x.ty == Type::Usize && op.is_cmp() => {
                // `e op i` as `i op' e`.
                let (v, e, op) = match (index_var(x), index_var(y)) {
                    (Some(v), _) => (v, y, *op),
                    (None, Some(v)) => (v, x, flipped(*op)),
                    _ => return,
                };
                let (Some(e), Some(mut g)) = (e.sym.clone(), current(v, out)) else {
                    return;
                };
                let one = || Size::Lit(1);
                // What the comparison says, as `i < below` or `i >= at_least`.
                let (below, at_least) = match (op, holds) {
                    (BinOp::Eq, false) | (BinOp::Ne, true) => {
                        if equal(&e, &g.floor) {
                            (None, Some(Size::plus(e, one())))
                        } else if equal(&e, &Size::minus(g.bound.clone(), one())) {
                            (Some(e), None)
                        } else {
                            (None, None)
                        }
                    }
                    (BinOp::Lt, true) | (BinOp::Ge, false) => (Some(e), None),
                    (BinOp::Le, true) | (BinOp::Gt, false) => (Some(Size::plus(e, one())), None),
                    (BinOp::Ge, true) | (BinOp::Lt, false) => (None, Some(e)),
                    (BinOp::Gt, true) | (BinOp::Le, false) => (None, Some(Size::plus(e, one()))),
                    _ => (None, None),
                };
                let mut changed = false;
                if let Some(b) = below
                    && names_nonneg(&Size::minus(g.bound.clone(), b.clone()))
                {
                    g.bound = b;
                    changed = true;
                }
                if let Some(f) = at_least
                    && names_nonneg(&Size::minus(f.clone(), g.floor.clone()))
                {
                    g.floor = f;
                    changed = true;
                }
                if changed {
                    out.push((v, g));
                }
            }
            _ => {}
        }
    }

    /// Is index `i` below `dim` without a check where it is used: proven from its symbolic
    /// value over the loop bounds, through `min`, `max` or `clamp` of proven operands
    /// (`(i + 1).min(n - 1)`), or an element of an index array parameter whose column is
    /// then checked once at entry ([`Dps::gathered`]).
    pub(super) fn in_bounds(&mut self, i: &Core, dim: &Size) -> bool {
        self.proven(&i.sym, &Size::Lit(1), dim) || self.bounded(i, dim, 0) || self.gathered(i, dim)
    }

    /// Is index `i` below `dim` by its symbolic value or its `min`/`max`/`clamp` operands
    /// alone: [`Dps::in_bounds`] without index-array elements, whose proof adds a check at
    /// entry (an error where no element is read is not the code's to add).
    pub(super) fn proven_below(&self, i: &Core, dim: &Size) -> bool {
        self.proven(&i.sym, &Size::Lit(1), dim) || self.bounded(i, dim, 0)
    }

    /// `i`, a `min`, `max` or `clamp` of `usize` values (or a variable bound to one), is
    /// below `dim` because its operands are: `min` of any, `max` of all, `clamp` of its
    /// upper bound (`x.max(lo).min(hi)` is at most `hi`) or of the other two.
    fn bounded(&self, i: &Core, dim: &Size, depth: usize) -> bool {
        if depth > 8 || i.ty != Type::Usize {
            return false;
        }
        if self.known_below(i, dim) {
            return true;
        }
        let ok =
            |x: &Core| self.proven(&x.sym, &Size::Lit(1), dim) || self.bounded(x, dim, depth + 1);
        match &i.kind {
            Kind::Math(MathFn::Min, xs) => xs.iter().any(ok),
            // Below `len`, or the step has failed already.
            Kind::CheckIndex(_, len) => len.same(dim),
            Kind::Math(MathFn::Max, xs) => !xs.is_empty() && xs.iter().all(ok),
            Kind::Math(MathFn::Clamp, xs) => match xs.as_slice() {
                [x, lo, hi] => ok(hi) || (ok(x) && ok(lo)),
                _ => false,
            },
            Kind::Var(v) => self
                .capped
                .get(v)
                .is_some_and(|e| self.bounded(e, dim, depth + 1)),
            _ => false,
        }
    }

    /// Can `idx` (of symbolic value `sym`) be proven below `dim`, given the loop bounds?
    pub(super) fn proven(&self, sym: &Option<Size>, extra: &Size, dim: &Size) -> bool {
        let Some(s) = sym else { return false };
        // `a % b` is at most `b - 1` (a zero `b` fails in the `%` itself): `cams[i % n]`.
        if let Size::Rem(_, b) = s {
            let max = Size::minus((**b).clone(), Size::Lit(1));
            if names_nonneg(&Size::minus(dim.clone(), Size::plus(max, extra.clone()))) {
                return true;
            }
        }
        // max(idx) + extra <= dim, over every value the loop indexes take.
        let Some(max) = self.extreme(s, true) else {
            return false;
        };
        names_nonneg(&Size::minus(dim.clone(), Size::plus(max, extra.clone())))
    }

    /// `a - b` cannot underflow, over every value the loop indexes take.
    pub(super) fn no_underflow(&self, a: &Core, b: &Core) -> bool {
        let (Some(x), Some(y)) = (&a.sym, &b.sym) else {
            return false;
        };
        self.extreme(&Size::minus(x.clone(), y.clone()), false)
            .is_some_and(|min| self.nonneg_here(&min))
    }

    /// `e` (a `usize` value) is at most a size name read from an array parameter's length,
    /// so below 2^63 (a slice holds at most `isize::MAX` bytes): `(i + 1) as f64` in a loop
    /// over `0..n`, `n = x.len()`, converts as a signed integer ([`crate::lir::Ex::IndexTo`]).
    pub(super) fn below_a_length(&self, e: &Core) -> bool {
        self.kernel.pins.iter().any(|p| match p {
            Pin::FromLen { name, .. } | Pin::Linear { name, .. } => {
                self.proven(&e.sym, &Size::Lit(0), &Size::Name(name.clone()))
            }
            Pin::Param(_) => false,
        })
    }

    /// `e` (a `usize` value) is at most a loop's bound (a count, so a `usize`) wherever it is
    /// computed, so it cannot overflow (a peeled interior's `i = j + 1`, below `n`; `i + 1`
    /// in a loop over `0..n`, at most `n`; `2 * m` in a loop over `0..2 * m + k`, whose
    /// count was computed, checked, at entry).
    pub(super) fn below_a_loop_bound(&self, e: &Core) -> bool {
        if e.sym.is_none() {
            return false;
        }
        let mut tried: Vec<&Size> = Vec::new();
        self.bounds.values().any(|b| {
            if tried.iter().any(|t| t.same(b)) {
                return false;
            }
            tried.push(b);
            self.proven(&e.sym, &Size::Lit(0), b)
        })
    }

    /// `s` is at least zero where the code runs: for all values of the names, or because an
    /// enclosing loop runs (its range is not empty: `bound - floor - 1 >= 0`), so `n - 1`
    /// inside a loop over `0..n` cannot underflow.
    fn nonneg_here(&self, s: &Size) -> bool {
        if names_nonneg(s) {
            return true;
        }
        self.loops
            .iter()
            .filter_map(|c| self.range(c.var))
            .any(|g| {
                let width = Size::minus(Size::minus(g.bound, g.floor), Size::Lit(1));
                names_nonneg(&Size::minus(s.clone(), width))
            })
    }

    /// `s` at its largest (`upper`) or smallest over the loop indexes in it: innermost index
    /// first, each replaced by `bound - 1` or `0` as the sign of its coefficient says (a
    /// bound may mention an outer index, which is then replaced in turn). `None` when a
    /// sign is mixed, an index appears squared, or a needed bound is unknown.
    pub(super) fn extreme(&self, s: &Size, upper: bool) -> Option<Size> {
        self.extreme_in(s, upper, &[], 0)
    }

    /// [`Dps::extreme`] where `s` also reads the indexes of loops not yet entered, with their
    /// counts (`inner`, outermost first).
    pub(super) fn extreme_within(
        &self,
        s: &Size,
        upper: bool,
        inner: &[(VarId, Size)],
    ) -> Option<Size> {
        self.extreme_in(s, upper, inner, 0)
    }

    /// [`Dps::extreme`] with some loop bounds replaced or added (`over`, innermost last). An index that appears
    /// squared, or with mixed signs, is handled when `s` is monotone in it: when the forward
    /// difference `s(v + 1) - s(v)` keeps one sign over `0 <= v < bound - 1`, the extreme
    /// is at an end. That proves the triangle index `c * (2 * d - c - 1) / 2` of a packed
    /// lower-triangular matrix.
    fn extreme_in(
        &self,
        s: &Size,
        upper: bool,
        over: &[(VarId, Size)],
        depth: usize,
    ) -> Option<Size> {
        let bound = |v: VarId| {
            over.iter()
                .rev()
                .find(|(w, _)| *w == v)
                .map(|(_, b)| b.clone())
                .or_else(|| self.range(v).map(|g| g.bound))
        };
        let floor = |v: VarId| {
            self.guards
                .get(&v)
                .map_or(Size::Lit(0), |g| g.floor.clone())
        };
        // Innermost by nesting (an inlined helper's loop may have the smaller id); a loop of
        // `over` is inside every entered one.
        let nesting = |v: VarId| {
            over.iter()
                .rposition(|(w, _)| *w == v)
                .map(|p| self.loops.len() + p)
                .or_else(|| self.loops.iter().rposition(|c| c.var == v))
        };
        let mut s = s.clone();
        for _ in 0..32 {
            let p = s.poly();
            let Some(v) = p
                .coeffs()
                .flat_map(|(m, _)| m.iter())
                .filter_map(|a| match a {
                    Atom::Loop(v) => Some(*v),
                    _ => None,
                })
                .max_by_key(|v| (nesting(*v), *v))
            else {
                return Some(s);
            };
            let b = bound(v)?;
            let last = Size::minus(b.clone(), Size::Lit(1));
            let mut sign = 0i8;
            for (m, c) in p.coeffs() {
                let deg = m.iter().filter(|a| **a == Atom::Loop(v)).count();
                if deg == 0 {
                    continue;
                }
                let sg = if c > 0.0 { 1 } else { -1 };
                if deg > 1 || c == 0.0 || (sign != 0 && sign != sg) {
                    sign = 0;
                    break;
                }
                sign = sg;
            }
            if sign == 0 {
                // Not linear with one sign: try monotonicity.
                if depth >= 3 {
                    return None;
                }
                let next = Size::plus(Size::Loop(v), Size::Lit(1));
                let diff = Size::minus(crate::middle::ir::subst_loop(&s, v, &next), s.clone());
                let mut o = over.to_vec();
                o.push((v, last.clone()));
                let rising = self
                    .extreme_in(&diff, false, &o, depth + 1)
                    .is_some_and(|m| names_nonneg(&m));
                let falling = !rising
                    && self
                        .extreme_in(&diff, true, &o, depth + 1)
                        .is_some_and(|m| names_nonneg(&Size::minus(Size::Lit(0), m)));
                if !rising && !falling {
                    return None;
                }
                sign = if rising { 1 } else { -1 };
            }
            let to_max = (sign > 0) == upper;
            let pick = if to_max { last } else { floor(v) };
            s = crate::middle::ir::subst_loop(&s, v, &pick);
        }
        None
    }
}

/// True when every division in `s` is exact for all natural values of the names and loop
/// indexes it reads, so that its value is its polynomial (a packed triangle's `c * (2 * d - c
/// - 1) / 2`: one of `c` and `2d - c - 1` is even). Remainders never are.
pub(crate) fn divisions_exact(s: &Size) -> bool {
    match s {
        Size::Lit(_) | Size::Name(_) | Size::Loop(_) => true,
        Size::Add(a, b) | Size::Sub(a, b) | Size::Mul(a, b) => {
            divisions_exact(a) && divisions_exact(b)
        }
        Size::Div(a, b) => match b.as_const() {
            Some(k) if k > 0 => divisions_exact(a) && a.poly().quotient(i128::from(k)).is_some(),
            _ => false,
        },
        Size::Rem(..) => false,
    }
}

/// The comparison `b op' a` that says what `a op b` says.
fn flipped(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}
