//! Splitting a `build`'s index range where the tests of its element change value: `if i < 4
//! { xn[i] } else { pn[..][..] }` over 20 steps, `if i < m { .. } else { .. }` over `m + m`.
//! The points are read off the tests themselves (each comparison of `i` plus a constant with
//! a size flips at one point, an equality at two); when every point lies between 0 and the
//! count and the points are in one order for every value of the names, the build runs as
//! one loop per range with every test the range decides replaced by its branch
//! ([`Dps::decide`]), the loads proven over the range, so they are streams. Ends within a
//! few steps of 0 or the count are [`crate::lower::peel`]'s.

use crate::front::ast::BinOp;
use crate::front::size::{Atom, Size, names_nonneg};
use crate::lir::St;
use crate::lower::bounds::Guard;
use crate::lower::dps::{Dps, View};
use crate::lower::peel::{Decisions, SHORT, tests_index};
use crate::middle::ir::{Core, Kind, Type, VarId};

/// The most ranges a build is split into.
const MAX_RANGES: usize = 6;

/// The most ranges of a build of a short fixed count (at most 32 steps, which LLVM may write
/// out and decide the tests itself): two (a Kalman prediction packed by `i < 4` in 20
/// steps, 622 -> 561 instructions). With up to six, BA's Jacobian by `jvp` columns ran
/// 8.6% faster but by `vjp` rows 8.3% slower (a reverse sweep's adjoint of a camera tested
/// in five ranges of 11 steps); no rule telling the two apart yet.
const MAX_SHORT_RANGES: usize = 2;

impl Dps<'_> {
    /// `build(n, |i| body)` into `dest` as one loop per range between the points where a
    /// test of `i` in `body` changes value. `None` when no test gives such a point, the
    /// points cannot be ordered, or no range decides a test.
    pub(super) fn split(
        &mut self,
        n: &Size,
        i: VarId,
        body: &Core,
        dest: &View,
    ) -> Option<Vec<St>> {
        if !(body.ty.is_float() || body.ty.is_arr()) || !tests_index(body, i) {
            return None;
        }
        let mut found = Vec::new();
        points(body, i, &mut found);
        // Strictly inside `0..n` for every value of the names, each once, in order.
        let mut cuts: Vec<Size> = Vec::new();
        for p in found {
            let within = names_nonneg(&p) && names_nonneg(&Size::minus(n.clone(), p.clone()));
            let trivial = p.as_const() == Some(0) || p.same(n);
            if !within || trivial || cuts.iter().any(|c| c.same(&p)) {
                continue;
            }
            let at = cuts
                .iter()
                .position(|c| names_nonneg(&Size::minus(c.clone(), p.clone())));
            cuts.insert(at.unwrap_or(cuts.len()), p);
        }
        let ordered = cuts
            .windows(2)
            .all(|w| names_nonneg(&Size::minus(w[1].clone(), w[0].clone())));
        let most = match n.as_const() {
            Some(c) if c <= SHORT => MAX_SHORT_RANGES,
            _ => MAX_RANGES,
        };
        if cuts.is_empty() || !ordered || cuts.len() + 1 > most {
            return None;
        }
        let mut ends = vec![Size::Lit(0)];
        ends.extend(cuts);
        ends.push(n.clone());
        // Each range's element, its tests decided.
        let saved = self.guards.get(&i).cloned();
        let iv = self.local(i);
        self.enter_plain_loop(i, &iv);
        let mut ranges = Vec::new();
        let mut decided = 0;
        for w in ends.windows(2) {
            let guard = Guard {
                floor: w[0].clone(),
                bound: w[1].clone(),
            };
            self.guards.insert(i, guard);
            let mut inside = body.clone();
            let mut d = Decisions::default();
            self.decide(&mut inside, i, &mut d);
            decided += d.decided;
            ranges.push((w[0].clone(), w[1].clone(), inside));
        }
        self.loops.pop();
        match saved {
            Some(g) => self.guards.insert(i, g),
            None => self.guards.remove(&i),
        };
        if decided == 0 {
            return None;
        }
        let mut code = Vec::new();
        for (lo, hi, inside) in ranges {
            let count = Size::minus(hi, lo.clone());
            let count_ex = self.sizes.get(&count);
            code.push(self.decided_steps(i, inside, &lo, count_ex, count, dest));
        }
        Some(vec![St::Block(code)])
    }
}

/// The points where a comparison of `i` in `e` changes value: `i + a < e` at `e - a`, `i +
/// a <= e` at `e - a + 1`, `i == e` at `e` and `e + 1` (and so on turned around), for a
/// compared difference that is `i` or `-i` plus terms free of every loop.
fn points(e: &Core, i: VarId, out: &mut Vec<Size>) {
    if let Kind::Bin(op, x, y, _) = &e.kind
        && op.is_cmp()
        && x.ty == Type::Usize
        && let (Some(xs), Some(ys)) = (&x.sym, &y.sym)
    {
        let d = Size::minus(xs.clone(), ys.clone());
        let p = d.poly();
        let mut sign = 0i32;
        let mut free = true;
        for (m, c) in p.coeffs() {
            if m[..] == [Atom::Loop(i)] && (c == 1.0 || c == -1.0) {
                sign = if c > 0.0 { 1 } else { -1 };
            } else if m
                .iter()
                .any(|a| matches!(a, Atom::Loop(_) | Atom::Opaque(_)))
            {
                free = false;
            }
        }
        if sign != 0 && free {
            // d = sign * i + r: r as a size.
            let r = if sign > 0 {
                Size::minus(d, Size::Loop(i))
            } else {
                Size::plus(d, Size::Loop(i))
            };
            let r = r.poly().to_size();
            if let Some(r) = r {
                // The flip points: `-r` and `-r + 1` for `+i`, `r` and `r + 1` for `-i`.
                let at = if sign > 0 {
                    Size::minus(Size::Lit(0), r)
                } else {
                    r
                };
                let next = Size::plus(at.clone(), Size::Lit(1));
                let flips: Vec<Size> = match (op, sign > 0) {
                    (BinOp::Lt | BinOp::Ge, true) | (BinOp::Le | BinOp::Gt, false) => vec![at],
                    (BinOp::Le | BinOp::Gt, true) | (BinOp::Lt | BinOp::Ge, false) => vec![next],
                    _ => vec![at, next],
                };
                for f in flips {
                    if let Some(s) = f.poly().to_size() {
                        out.push(s);
                    }
                }
            }
        }
    }
    for c in e.children() {
        points(c, i, out);
    }
}
