//! The constructs of LANGUAGE.md sections 10 and 11, in typed programs only: gathers through
//! the index arrays `ix` and `jx`, usize arrays (locals and results: an argmax per row,
//! `x as usize` of a bounded float, neighbour indexes, usize scans), `min`, `max` and
//! `clamp` on usize, casts to the other float type and back, and the math methods of
//! version 2.

use super::state::Gen;
use super::ty::{D, T};

/// Methods of version 2 without arguments, chained where their domain needs it (an
/// argument of `asin` in [-1, 1], of `log2` not negative).
pub(super) const UNARY: [&str; 11] = [
    "atan()",
    "sinh()",
    "cosh()",
    "cbrt()",
    "signum()",
    "sin().asin()",
    "tanh().acos()",
    "abs().log2()",
    "abs().log10()",
    "tanh().exp2()",
    "atan().tan()",
];

impl Gen {
    /// A float scalar of the typed constructs; `e`: does an expected type flow in?
    pub(super) fn typed_scalar(&mut self, depth: usize, e: bool) -> String {
        match self.r.below(8) {
            0 => self.cast_round_trip(depth),
            1 => {
                let x = self.scalar(depth + 1);
                format!("({x}).{}", UNARY[self.r.below(UNARY.len())])
            }
            2 => {
                // The receiver's type flows into the arguments.
                let x = self.scalar(depth + 1);
                let arg = |g: &mut Gen| g.expecting(true, |g| g.scalar(depth + 1));
                match self.r.below(5) {
                    0 => format!("({x}).atan2({})", arg(self)),
                    1 => format!("({x}).hypot({})", arg(self)),
                    2 => format!("({x}).mul_add({}, {})", arg(self), arg(self)),
                    3 => format!("({x}).clamp(-1.0, 1.0)"),
                    // Either bound may be the larger: `clamp` is `max` then `min`.
                    _ => format!("({x}).clamp({}, {})", arg(self), arg(self)),
                }
            }
            3..=5 if self.gathers => self.gather_sum(depth),
            3 | 4 => {
                // An element of a usize array, as a float.
                let d = self.vec_dim_indexable();
                let uv = self.usize_vector(d, depth + 1);
                let i = self.index(d, depth);
                format!("((({uv})[{i}]) as {})", self.fl())
            }
            5 | 6 => {
                // A gather through a computed usize array (checked where it happens).
                let (d, d2) = (self.vec_dim_indexable(), self.vec_dim_indexable());
                let uv = self.usize_vector(d, depth + 1);
                let v = self.vector(d2, depth + 1);
                let i = self.index(d, depth);
                format!("({v})[(({uv})[{i}]) % {}]", d2.paren())
            }
            _ => {
                let x = self.expecting(e, |g| g.scalar(depth + 1));
                format!("(-{x})")
            }
        }
    }

    /// `((x as other).f() as fl)`: a value taken to the other float type, computed on
    /// there, and brought back.
    fn cast_round_trip(&mut self, depth: usize) -> String {
        let x = self.scalar(depth + 1);
        let (o, fl) = (self.other_fl(), self.fl());
        let inner = match self.r.below(4) {
            0 => format!("(({x}) as {o}).sin()"),
            1 => format!("(({x}) as {o}).abs().sqrt()"),
            // The literals take the other type from the cast.
            2 => format!("(({x}) as {o}) * 0.1 + 2.3"),
            _ => format!("(({x}) as {o}).mul_add(0.5, -1.25)"),
        };
        format!("(({inner}) as {fl})")
    }

    /// A fold over the index arrays: `ifold(g, init, |acc, j| acc * 0.5 + x[ix[j]] * e)`,
    /// or a column of `jx` into `b` or `c`; `e` may gather too (its indexes below `n` and
    /// `m` are often `ix[j]`, `jx[j][0]`, `jx[j][1]`).
    pub(super) fn gather_sum(&mut self, depth: usize) -> String {
        if self.r.one_in(3) {
            return self.gathered_rows(depth);
        }
        let init = self.scalar(depth + 1);
        let (acc, j) = (self.name("acc"), self.name("j"));
        let term = self.with(&j, T::U, Some(D::G), |g| {
            let x = g.expecting(true, |g| g.scalar(depth + 1));
            match g.r.below(3) {
                0 => format!("a[ix[{j}]] * {x}"),
                1 => format!("b[jx[{j}][1]] * {x}"),
                _ => format!("c[jx[{j}][0]][jx[{j}][1]] - {x}"),
            }
        });
        format!("ifold(g, {init}, |{acc}, {j}| {acc} * 0.5 + {term})")
    }

    /// A sum over `g` of terms reading two rows of `c` a step gathers (an edge's two ends:
    /// reverse mode once kept the adjoint of only one of them), as `sum(build(..))` or as an
    /// `ifold` adding a term.
    fn gathered_rows(&mut self, depth: usize) -> String {
        let (acc, j) = (self.name("acc"), self.name("j"));
        let x = self.with(&j, T::U, Some(D::G), |g| {
            g.expecting(true, |g| g.scalar(depth + 1))
        });
        match self.r.below(2) {
            0 => format!("sum(build(g, |{j}| dot(c[jx[{j}][0]], c[ix[{j}]]) * {x}))"),
            // The terms added to the state one by one (reversed as a sum), or an edge's
            // energy by its coordinates (each a row's element placed in its row).
            _ if x.len() % 3 == 1 => format!(
                "ifold(g, 0.0, |{acc}, {j}| {acc} + sqnorm(c[ix[{j}]]) * {x} - dot(c[jx[{j}][0]], c[ix[{j}]]))"
            ),
            _ if x.len() % 3 == 2 => format!(
                "ifold(g, 0.0, |{acc}, {j}| {acc} + sum(map2(c[ix[{j}]], c[jx[{j}][0]], |u, w| (u - w) * (u - w))) * {x})"
            ),
            // A loop of literal count over an edge's ends, each step reading rows at indexes
            // that move with it (a face's corners `f[j][k]`, `f[j][(k + 1) % 3]`): its
            // reverse is written out. (No draw of its own: the other programs stay as
            // they were.)
            _ if x.len().is_multiple_of(2) => {
                let k = self.name("k");
                format!(
                    "ifold(g, 0.0, |{acc}, {j}| {acc} + sum(build(2, |{k}| sqnorm(sub(c[[ix[{j}], jx[{j}][0]][{k}]], c[[ix[{j}], jx[{j}][0]][({k} + 1) % 2]])))) * {x})"
                )
            }
            _ => format!(
                "ifold(g, 0.0, |{acc}, {j}| {acc} + sqnorm(sub(c[ix[{j}]], c[jx[{j}][0]])) * {x})"
            ),
        }
    }

    /// A float vector of the typed constructs.
    pub(super) fn typed_vector(&mut self, d: D, depth: usize, e: bool) -> String {
        match self.r.below(4) {
            0 => {
                // A gather through a usize array, in range by `%`.
                let uv = self.usize_vector(d, depth + 1);
                let d2 = self.vec_dim_indexable();
                let src = self.vec_var_or_param(d2);
                let k = self.name("k");
                format!("map({uv}, |{k}| ({src})[{k} % {}])", d2.paren())
            }
            1 => {
                let i = self.name("i");
                let body = self.with(&i, T::U, Some(d), |g| g.cast_round_trip(depth + 1));
                format!("build({}, |{i}| {body})", d.text())
            }
            2 => {
                let uv = self.usize_vector(d, depth + 1);
                let (v, i) = (self.name("v"), self.name("i"));
                let x = self.expecting(true, |g| g.scalar(depth + 1));
                format!(
                    "{{ let {v} = {uv}; build({}, |{i}| (({v}[{i}]) as {}) * {x}) }}",
                    d.text(),
                    self.fl()
                )
            }
            _ if d == D::G => {
                let j = self.name("j");
                match self.r.below(3) {
                    0 => format!("build(g, |{j}| c[jx[{j}][0]][jx[{j}][1]] * s)"),
                    1 => format!("build(g, |{j}| a[ix[{j}]] - b[jx[{j}][1]])"),
                    _ => format!("map(ix, |{j}| a[{j}])"),
                }
            }
            _ => {
                let i = self.name("i");
                let body = self.with(&i, T::U, Some(d), |g| g.typed_scalar(depth + 1, e));
                format!("build({}, |{i}| {body})", d.text())
            }
        }
    }

    /// A usize vector of `d` elements.
    pub(super) fn usize_vector(&mut self, d: D, depth: usize) -> String {
        let leaf = self.leaf(depth, 4);
        if self.loops && !leaf && self.r.one_in(super::scalar::LOOPS_IN) {
            return self.loop_usize_vector(d, depth);
        }
        let z = self.name("z");
        match self.r.below(if leaf { 1 } else { 10 }) {
            0 => match self.pick_var(&T::UV(d)) {
                Some(v) if !self.r.one_in(3) => v,
                _ if d == D::G && self.gathers => {
                    if self.r.one_in(2) {
                        "ix".into()
                    } else {
                        format!("build(g, |{z}| jx[{z}][1])")
                    }
                }
                _ => format!("build({}, |{z}| {z})", d.text()),
            },
            1 | 2 => {
                let u = self.with(&z, T::U, Some(d), |g| g.usize_expr(depth + 1));
                format!("build({}, |{z}| {u})", d.text())
            }
            3 => {
                // The argmax of each row.
                let cols = loop {
                    let c = self.mat_cols(d);
                    if c.min() > 0 {
                        break c;
                    }
                };
                let m = self.matrix(d, cols, depth + 1);
                let (row, best, j) = (self.name("row"), self.name("best"), self.name("j"));
                format!(
                    "map({m}, |{row}| ifold({}, 0, |{best}, {j}| if {row}[{j}] > {row}[{best}] {{ {j} }} else {{ {best} }}))",
                    cols.text()
                )
            }
            4 => {
                // `x as usize` of a float bounded above (a NaN is 0, a negative too).
                let x = self.with(&z, T::U, Some(d), |g| g.scalar(depth + 1));
                let k = [3, 7, 18][self.r.below(3)];
                let x = if self.r.one_in(2) {
                    format!("(({x}).abs().min({k}.0))")
                } else {
                    format!("(({x}).min({k}.0))")
                };
                format!("build({}, |{z}| {x} as usize)", d.text())
            }
            5 if d.min() > 0 => {
                // A neighbour index that stays in range.
                let d1 = format!("{} - 1", d.paren());
                let u = match self.r.below(3) {
                    0 => format!("({z} + 1).min({d1})"),
                    1 => format!("({z} * 2).clamp(1, {d1})"),
                    _ => format!("({d1} - {z}).max({z})"),
                };
                format!("build({}, |{z}| {u})", d.text())
            }
            6 => {
                let c = self.boolean(depth + 1);
                let (x, y) = (
                    self.usize_vector(d, depth + 1),
                    self.usize_vector(d, depth + 1),
                );
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            7 => self.let_in(&T::UV(d), depth),
            8 => match d {
                D::NpM => {
                    let (x, y) = (
                        self.usize_vector(D::N, depth + 1),
                        self.usize_vector(D::M, depth + 1),
                    );
                    format!("concat({x}, {y})")
                }
                D::TwoN => {
                    let (x, y) = (
                        self.usize_vector(D::N, depth + 1),
                        self.usize_vector(D::N, depth + 1),
                    );
                    format!("interleave({x}, {y})")
                }
                _ => {
                    let x = self.usize_vector(d, depth + 1);
                    format!("reverse({x})")
                }
            },
            9 if self.v2 => self.tupled(&T::UV(d), depth),
            _ => {
                // A scan of usize states.
                let init = self.usize_expr(depth + 1);
                self.scan(d, &T::U, init, depth)
            }
        }
    }

    /// A usize expression of the typed constructs and the largest value it may have.
    pub(super) fn typed_usize(&mut self, depth: usize) -> (String, u64) {
        match self.r.below(5) {
            0 => {
                let (x, xm) = self.usize_max(depth + 1);
                let (y, ym) = self.usize_max(depth + 1);
                if self.r.one_in(2) {
                    (format!("({x}).min({y})"), xm.min(ym))
                } else {
                    (format!("({x}).max({y})"), xm.max(ym))
                }
            }
            1 => {
                let (x, _) = self.usize_max(depth + 1);
                let (lo, _) = self.usize_max(depth + 1);
                let (hi, hm) = self.usize_max(depth + 1);
                (format!("({x}).clamp({lo}, {hi})"), hm)
            }
            2 => {
                let x = self.scalar(depth + 1);
                let k = [3, 7, 18][self.r.below(3)];
                (format!("((({x}).abs().min({k}.0)) as usize)"), k)
            }
            3 => {
                let d = self.vec_dim_indexable();
                let uv = self.usize_vector(d, depth + 1);
                let i = self.index(d, depth);
                // Argmaxes, neighbours, bounded casts and scans mod 5 are small; a build of
                // usize expressions is below a few thousand.
                (format!("({uv})[{i}]"), 2000)
            }
            _ => match self.loop_index(D::G) {
                Some(j) if self.gathers => (format!("ix[{j}]"), 19),
                _ => {
                    let (x, xm) = self.usize_max(depth + 1);
                    (format!("({x}).max(1)"), xm.max(1))
                }
            },
        }
    }

    /// In a typed program, sometimes an index below `d` of the typed constructs: an element
    /// of an index array (a gather) in a loop over it, or a neighbour of a loop index.
    pub(super) fn typed_index(&mut self, d: D) -> Option<String> {
        if self.gathers
            && matches!(d, D::N | D::M)
            && self.r.one_in(2)
            && let Some(j) = self.loop_index(D::G)
        {
            return Some(match d {
                D::N if self.r.one_in(2) => format!("ix[{j}]"),
                D::N => format!("jx[{j}][0]"),
                _ => format!("jx[{j}][1]"),
            });
        }
        if self.r.one_in(8)
            && let Some(i) = self.loop_index(d)
        {
            let d1 = format!("{} - 1", d.paren());
            return Some(if self.r.one_in(2) {
                format!("({i} + 1).min({d1})")
            } else {
                format!("({i} * 2).clamp(1, {d1})")
            });
        }
        None
    }

    /// A result type for a typed kernel: a usize or usize vector, a gather, or a tuple with
    /// a usize vector.
    pub(super) fn typed_ret(&mut self) -> T {
        match self.r.below(6) {
            0 => T::U,
            1 | 2 => T::UV(self.vec_dim()),
            3 if self.gathers => T::V(D::G),
            _ => {
                let mut ts = vec![T::UV(self.vec_dim())];
                for _ in 0..1 + self.r.below(2) {
                    ts.push(match self.r.below(3) {
                        0 => T::F,
                        1 => T::V(self.vec_dim()),
                        _ => T::UV(self.vec_dim()),
                    });
                }
                let k = self.r.below(ts.len());
                ts.swap(0, k);
                T::Tup(ts)
            }
        }
    }
}
