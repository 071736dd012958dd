//! Range proofs: which indexes are below their array's length and which subtractions cannot
//! underflow, over every value the enclosing loops' indexes take. A proven index is a plain
//! load; others are checked.

use crate::front::ast::MathFn;
use crate::front::size::{Atom, Size, names_nonneg};
use crate::lower::dps::Dps;
use crate::middle::ir::{Core, Kind, Type, VarId};

impl Dps<'_> {
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
        let ok =
            |x: &Core| self.proven(&x.sym, &Size::Lit(1), dim) || self.bounded(x, dim, depth + 1);
        match &i.kind {
            Kind::Math(MathFn::Min, xs) => xs.iter().any(ok),
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
            .is_some_and(|min| names_nonneg(&min))
    }

    /// `s` at its largest (`upper`) or smallest over the loop indexes in it: innermost index
    /// first, each replaced by `bound - 1` or `0` as the sign of its coefficient says (a
    /// bound may mention an outer index, which is then replaced in turn). `None` when a
    /// sign is mixed, an index appears squared, or a needed bound is unknown.
    fn extreme(&self, s: &Size, upper: bool) -> Option<Size> {
        self.extreme_in(s, upper, &[], 0)
    }

    /// [`Dps::extreme`] with some loop bounds replaced (`over`). An index that appears
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
                .map(|(_, b)| b)
                .or_else(|| self.bounds.get(&v))
                .cloned()
        };
        // Innermost by nesting (an inlined helper's loop may have the smaller id).
        let nesting = |v: VarId| self.loops.iter().rposition(|c| c.var == v);
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
            let pick = if to_max { last } else { Size::Lit(0) };
            s = crate::middle::ir::subst_loop(&s, v, &pick);
        }
        None
    }
}

/// True when every division in `s` is exact for all natural values of the names and loop
/// indexes it reads, so that its value is its polynomial (a packed triangle's `c * (2 * d - c
/// - 1) / 2`: one of `c` and `2d - c - 1` is even). Remainders never are.
pub(super) fn divisions_exact(s: &Size) -> bool {
    match s {
        Size::Lit(_) | Size::Name(_) | Size::Loop(_) => true,
        Size::Add(a, b) | Size::Sub(a, b) | Size::Mul(a, b) => {
            divisions_exact(a) && divisions_exact(b)
        }
        Size::Div(a, b) => {
            b.as_const().is_some_and(|k| k > 0) && divisions_exact(a) && integer_valued(s, 0)
        }
        Size::Rem(..) => false,
    }
}

/// True when the polynomial of `s` is an integer at every natural point: its coefficients
/// are, or, for a variable `x` of a fractional term, both `s` at `x = 0` and the forward
/// difference `s(x + 1) - s(x)` (of lower degree in `x`) are (then `s(x)` is `s(0)` plus
/// the differences below `x`).
fn integer_valued(s: &Size, depth: usize) -> bool {
    let p = s.poly();
    let mut var = None;
    for (m, c) in p.coeffs() {
        if c.fract() == 0.0 {
            continue;
        }
        match m.first() {
            Some(Atom::Opaque(_)) | None => return false,
            Some(a) => var = Some(a.clone()),
        }
    }
    let Some(x) = var else { return true };
    if depth >= 6 {
        return false;
    }
    let at = |by: Size| match &x {
        Atom::Loop(v) => crate::middle::ir::subst_loop(s, *v, &by),
        Atom::Name(n) => s.subst(&|k| (k == n).then(|| by.clone())),
        Atom::Opaque(_) => s.clone(),
    };
    let here = match &x {
        Atom::Loop(v) => Size::Loop(*v),
        Atom::Name(n) => Size::Name(n.clone()),
        Atom::Opaque(_) => return false,
    };
    let next = at(Size::plus(here, Size::Lit(1)));
    integer_valued(&at(Size::Lit(0)), depth + 1)
        && integer_valued(&Size::minus(next, s.clone()), depth + 1)
}
