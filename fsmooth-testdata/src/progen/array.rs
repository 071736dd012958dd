//! Vector and matrix expressions.

use super::scalar::{LOOPS_IN, SHAPES_IN};
use super::state::{Gen, Var};
use super::ty::{D, T};

impl Gen {
    pub(super) fn vec_var_or_param(&mut self, d: D) -> String {
        if let Some(v) = self.pick_var(&T::V(d))
            && !self.r.one_in(3)
        {
            return v;
        }
        match d {
            D::N => "a".into(),
            D::M => "b".into(),
            D::P => "build(p, |z| s)".into(),
            D::Two => "[s, 0.5]".into(),
            D::Three => "[s, 1.5, -0.5]".into(),
            D::NpM => "concat(a, b)".into(),
            D::TwoN => "interleave(a, reverse(a))".into(),
            D::NxM => "join(c)".into(),
            D::Np2 => "pad(a, 1, 1, s)".into(),
            // A gather through the index array.
            D::G => "build(g, |z| a[ix[z]])".into(),
        }
    }

    /// A stencil with fixed ends (issue 21): `build(d, |i| if <i at an end> { .. } else {
    /// .. })`, the interior reading its neighbours `i - 1` and `i + 1` (bound by `let`s that
    /// only the interior's test makes safe, and that any index below `d` may then use).
    fn stencil(&mut self, d: D, e: bool, depth: usize) -> String {
        let (i, lo, hi) = (self.name("i"), self.name("lo"), self.name("hi"));
        let last = format!("{} - 1", d.paren());
        let test = match self.r.below(3) {
            0 => format!("{i} == 0 || {i} == {last}"),
            1 => format!("{i} < 1 || {i} >= {last}"),
            _ => format!("!(0 < {i} && {i} < {last})"),
        };
        let edge = self.with(&i, T::U, Some(d), |g| {
            g.expecting(e, |g| g.scalar(depth + 1))
        });
        let near = vec![Var::new(&lo, T::U, Some(d)), Var::new(&hi, T::U, Some(d))];
        let inner = self.with(&i, T::U, Some(d), |g| {
            g.with_vars(near, |g| {
                let v = g.vec_var_or_param(d);
                let x = g.expecting(e, |g| g.scalar(depth + 1));
                format!("({v}[{lo}] - {v}[{hi}]) * 0.5 + {x}")
            })
        });
        format!(
            "build({}, |{i}| if {test} {{ {edge} }} else {{ let {lo} = {i} - 1; let {hi} = {i} + 1; {inner} }})",
            d.text()
        )
    }

    pub(super) fn vector(&mut self, d: D, depth: usize) -> String {
        let e = self.take_expect();
        let leaf = self.leaf(depth, 4);
        if self.typed && !leaf && self.r.one_in(6) {
            return self.typed_vector(d, depth, e);
        }
        if self.shapes && !leaf && self.r.one_in(SHAPES_IN) {
            return self.shaped_vector(d, depth);
        }
        if self.loops && !leaf && self.r.one_in(LOOPS_IN) {
            return self.loop_vector(d, depth);
        }
        match self.r.below(if leaf {
            2
        } else if self.v2 {
            19
        } else {
            13
        }) {
            0 | 1 => self.vec_var_or_param(d),
            2 | 3 if self.v2 && self.r.one_in(6) => self.stencil(d, e, depth),
            2 | 3 => {
                let i = self.name("i");
                let body = self.with(&i, T::U, Some(d), |g| {
                    g.expecting(e, |g| g.scalar(depth + 1))
                });
                format!("build({}, |{i}| {body})", d.text())
            }
            4 => {
                let f = ["add", "sub", "emul"][self.r.below(3)];
                let (x, y) = (self.vector(d, depth + 1), self.vector(d, depth + 1));
                format!("{f}({x}, {y})")
            }
            5 => {
                let (x, k) = (self.vector(d, depth + 1), self.scalar(depth + 1));
                format!("smul({x}, {k})")
            }
            6 => {
                let x = self.vector(d, depth + 1);
                let q = self.name("q");
                let body = self.with_elem(&q, T::F, d.max(), |g| g.scalar(depth + 2));
                format!("map({x}, |{q}| {body})")
            }
            7 => {
                let (x, y) = (self.vector(d, depth + 1), self.vector(d, depth + 1));
                format!("map2({x}, {y}, |u, w| u * w - s)")
            }
            8 => {
                let c = self.boolean(depth + 1);
                let x = self.expecting(e, |g| g.vector(d, depth + 1));
                let y = self.expecting(e, |g| g.vector(d, depth + 1));
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            9 => {
                let (cnt, trip) = self.count(depth + 1);
                let init = self.vector(d, depth + 1);
                let (acc, i) = (self.name("acc"), self.name("i"));
                let half = self.lit_s("0.5");
                let update = self.v2 && self.r.one_in(3);
                // Sweeps: the step a fold started from the state (Gauss-Seidel's), which the
                // compiler runs in the state's own buffer.
                let sweep = self.v2 && !update && self.r.one_in(4);
                let j = self.name("j");
                if sweep && self.r.one_in(2) {
                    // The sweeps written flat: `steps * d` steps, the point `t % d` (the
                    // compiler's nested folds).
                    let k = self.name("i");
                    let x = self.with(&acc, T::V(d), None, |g| {
                        g.with_vars(vec![Var::new(&k, T::U, Some(d))], |g| g.scalar(depth + 1))
                    });
                    let n = d.text();
                    return format!(
                        "ifold(({cnt}) * ({n}), {init}, |{acc}, {i}| {{ let {k} = {i} % ({n}); build({n}, |{j}| if {j} == {k} {{ {x} }} else {{ {acc}[{j}] }}) }})"
                    );
                }
                let body = self.with(&acc, T::V(d), None, |g| {
                    g.with_vars(vec![Var::counter(&i, trip)], |g| {
                        if sweep {
                            let (cnt2, trip2) = g.count(depth + 1);
                            let (v, k) = (g.name("v"), g.name("i"));
                            let inner = g.with(&v, T::V(d), None, |g| {
                                g.with_vars(vec![Var::counter(&k, trip2)], |g| {
                                    let x = g.scalar(depth + 1);
                                    format!(
                                        "build({}, |{j}| if {j} == {k} {{ {x} }} else {{ {v}[{j}] }})",
                                        d.text()
                                    )
                                })
                            });
                            format!("ifold({cnt2}, {acc}, |{v}, {k}| {inner})")
                        } else if update {
                            // One element replaced per step (updated in place, issue 21);
                            // none once `i` is past the end.
                            let x = g.scalar(depth + 1);
                            format!(
                                "build({}, |{j}| if {j} == {i} {{ {x} }} else {{ {acc}[{j}] }})",
                                d.text()
                            )
                        } else {
                            let e = g.vector(d, depth + 1);
                            format!("add(smul({acc}, {half}), {e})")
                        }
                    })
                });
                format!("ifold({cnt}, {init}, |{acc}, {i}| {body})")
            }
            10 if d == D::M => {
                let i = self.index(D::N, depth);
                let m = self.matrix(D::N, D::M, depth + 1);
                format!("({m})[{i}]")
            }
            10 if d == D::N => {
                let m = self.matrix(D::N, D::M, depth + 1);
                let v = self.vector(D::M, depth + 1);
                format!("matvec({m}, {v})")
            }
            11 if d == D::Three => {
                let x = self.expecting(e, |g| g.scalar(depth + 1));
                let y = self.expecting(e, |g| g.scalar(depth + 1));
                let z = self.expecting(e, |g| g.scalar(depth + 1));
                format!("[{x}, {y}, {z}]")
            }
            11 if d == D::Two => {
                let x = self.expecting(e, |g| g.scalar(depth + 1));
                let y = self.expecting(e, |g| g.scalar(depth + 1));
                format!("[{x}, {y}]")
            }
            11 if d == D::N => "a[0..n]".into(),
            12 => self.expecting(e, |g| g.let_in(&T::V(d), depth)),
            13 | 14 => self.view_vector(d, depth),
            15 => {
                // A scan with a scalar state: its states are the vector.
                let init = self.scalar(depth + 1);
                self.scan(d, &T::F, init, depth)
            }
            16 => self.tupled(&T::V(d), depth),
            17 => self.rows(d, depth),
            _ => {
                let x = self.expecting(true, |g| g.vector(d, depth + 1));
                format!("twice({x}, |q| q - 0.25)")
            }
        }
    }

    /// A vector out of a matrix: a row of a matrix whose columns are `d`, or a matrix of
    /// `d` rows mapped row by row to scalars.
    fn rows(&mut self, d: D, depth: usize) -> String {
        if self.r.one_in(2) {
            let r = [D::N, D::M, D::Three, D::NpM][self.r.below(4)];
            let i = self.index(r, depth);
            let m = self.matrix(r, d, depth + 1);
            return format!("({m})[{i}]");
        }
        let c = self.mat_cols(d);
        let m = self.matrix(d, c, depth + 1);
        let row = self.name("row");
        let body = self.with_elem(&row, T::V(c), d.max(), |g| g.scalar(depth + 2));
        format!("map({m}, |{row}| {body})")
    }

    /// A matrix of `r` rows of `c` columns that costs nothing to compute (a parameter, a
    /// variable, a view of one).
    fn mat_leaf(&mut self, r: D, c: D) -> String {
        if let Some(v) = self.pick_var(&T::M(r, c))
            && !self.r.one_in(3)
        {
            return v;
        }
        match (r, c) {
            (D::N, D::M) => "c".into(),
            (D::M, D::N) => "transpose(c)".into(),
            (D::N, D::Three) => "slide(3, pad(a, 1, 1, s))".into(),
            (D::TwoN, D::M) => "concat(c, reverse(c))".into(),
            _ => {
                let (z, row) = (self.name("z"), self.vec_var_or_param(c));
                format!("build({}, |{z}| {row})", r.text())
            }
        }
    }

    pub(super) fn matrix(&mut self, r: D, c: D, depth: usize) -> String {
        let e = self.take_expect();
        let leaf = self.leaf(depth, 3);
        let nm = (r, c) == (D::N, D::M);
        if self.shapes && !leaf && self.r.one_in(SHAPES_IN) {
            return self.shaped_matrix(r, c, depth);
        }
        if self.loops && !leaf && self.r.one_in(LOOPS_IN) {
            return self.loop_matrix(r, c, depth);
        }
        match self.r.below(if leaf {
            1
        } else if self.v2 {
            14
        } else {
            7
        }) {
            0 => self.mat_leaf(r, c),
            1 | 2 => {
                let i = self.name("i");
                let row = self.with(&i, T::U, Some(r), |g| {
                    g.expecting(e, |g| g.vector(c, depth + 1))
                });
                format!("build({}, |{i}| {row})", r.text())
            }
            3 => {
                let f = ["madd", "msub"][self.r.below(2)];
                let (x, y) = (self.matrix(r, c, depth + 1), self.matrix(r, c, depth + 1));
                format!("{f}({x}, {y})")
            }
            4 if nm => "transpose(transpose(c))".into(),
            5 if nm => {
                // A product by an m x m matrix, itself a product: rows as wide as the
                // columns, which the compiler's column tiles read by segments.
                let (x, y, z) = (
                    self.matrix(D::N, D::M, depth + 1),
                    self.matrix(D::N, D::M, depth + 1),
                    self.matrix(D::N, D::M, depth + 1),
                );
                format!("matmul({x}, matmul(transpose({y}), {z}))")
            }
            4..=6 => {
                let (x, y) = (self.vector(r, depth + 1), self.vector(c, depth + 1));
                format!("outer({x}, {y})")
            }
            7 | 8 => self.view_matrix(r, c, depth),
            // (Not of `p` or `g` rows or columns, which may be 0: the interpreter cannot
            // transpose an empty matrix.)
            9 if !matches!(r, D::P | D::G) && !matches!(c, D::P | D::G) && self.r.one_in(3) => {
                // Scans of a scalar state, one per column, transposed (the compiler's one
                // scan of rows).
                let j = self.name("j");
                let col = self.with(&j, T::U, Some(c), |g| {
                    let init = g.scalar(depth + 2);
                    g.scan(r, &T::F, init, depth + 1)
                });
                format!("transpose(build({}, |{j}| {col}))", c.text())
            }
            9 => {
                // A scan with a vector state: its states are the rows.
                let init = self.vector(c, depth + 1);
                self.scan(r, &T::V(c), init, depth)
            }
            10 => self.tupled(&T::M(r, c), depth),
            11 => {
                let (cnt, trip) = self.count(depth + 1);
                let init = self.matrix(r, c, depth + 1);
                let (acc, i) = (self.name("acc"), self.name("i"));
                let half = self.lit_s("0.5");
                let update = self.v2 && self.r.one_in(3);
                let j = self.name("j");
                let body = self.with(&acc, T::M(r, c), None, |g| {
                    g.with_vars(vec![Var::counter(&i, trip)], |g| {
                        if update {
                            // One row replaced per step, maybe from the state's rows.
                            let x = g.vector(c, depth + 1);
                            format!(
                                "build({}, |{j}| if {i} == {j} {{ {x} }} else {{ {acc}[{j}] }})",
                                r.text()
                            )
                        } else {
                            let e = g.matrix(r, c, depth + 1);
                            format!("madd(msmul({acc}, {half}), {e})")
                        }
                    })
                });
                format!("ifold({cnt}, {init}, |{acc}, {i}| {body})")
            }
            12 => {
                let b = self.boolean(depth + 1);
                let x = self.expecting(e, |g| g.matrix(r, c, depth + 1));
                let y = self.expecting(e, |g| g.matrix(r, c, depth + 1));
                format!("if {b} {{ {x} }} else {{ {y} }}")
            }
            _ => self.expecting(e, |g| g.let_in(&T::M(r, c), depth)),
        }
    }
}
