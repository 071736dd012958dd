//! Scalar expressions.

use super::state::{Gen, Var};
use super::ty::{D, T};
use super::typed::UNARY;

/// One scalar, vector or matrix in this many (not a leaf) is of the shapes of `shapes.rs`,
/// in a program that has them.
pub(super) const SHAPES_IN: usize = 16;

/// One scalar, vector, matrix, usize or usize vector in this many (not a leaf) is of the
/// forms of `loops.rs` (`iterate`, `scatter_add`, `reduce_by_index`), in a program that
/// has them.
pub(super) const LOOPS_IN: usize = 72;

impl Gen {
    pub(super) fn scalar(&mut self, depth: usize) -> String {
        // Does an expected type flow in (kept for the literals and the parts it flows to)?
        let e = self.take_expect();
        let leaf = self.leaf(depth, 4);
        if self.typed && !leaf && self.r.one_in(5) {
            return self.typed_scalar(depth, e);
        }
        if self.gathers && !leaf && self.r.one_in(8) {
            return self.gather_sum(depth);
        }
        if self.shapes && !leaf && self.r.one_in(SHAPES_IN) {
            return self.shaped_scalar(depth);
        }
        if self.loops && !leaf && self.r.one_in(LOOPS_IN) {
            return self.loop_scalar(depth);
        }
        match self.r.below(if leaf {
            4
        } else if self.v2 {
            25
        } else {
            19
        }) {
            0 => {
                let x = self.r.f64() * 3.0;
                self.lit(x, e)
            }
            1 => self.pick_var(&T::F).unwrap_or_else(|| "s".into()),
            2 => {
                let d = [D::N, D::M, D::Three][self.r.below(3)];
                let v = self.vec_var_or_param(d);
                let i = self.index(d, depth);
                format!("{v}[{i}]")
            }
            3 => {
                let i = self.index(D::N, depth);
                let j = self.index(D::M, depth);
                format!("c[{i}][{j}]")
            }
            4 => {
                let op = ["+", "-", "*", "/"][self.r.below(4)];
                let x = self.expecting(e, |g| g.scalar(depth + 1));
                let y = self.expecting(e, |g| g.scalar(depth + 1));
                format!("({x} {op} {y})")
            }
            5 => {
                let x = self.scalar(depth + 1);
                let f = [
                    "sin()",
                    "cos()",
                    "tanh()",
                    "abs()",
                    "floor()",
                    "powi(2)",
                    "abs().sqrt()",
                ];
                // Typed programs also draw the methods of version 2.
                if self.typed && self.r.one_in(2) {
                    return format!("({x}).{}", UNARY[self.r.below(UNARY.len())]);
                }
                format!("({x}).{}", f[self.r.below(f.len())])
            }
            6 => {
                // The receiver has a type of its own (a literal one is suffixed), which
                // flows into the argument.
                let x = self.scalar(depth + 1);
                let y = self.expecting(true, |g| g.scalar(depth + 1));
                let f = ["min", "max"][self.r.below(2)];
                format!("({x}).{f}({y})")
            }
            7 => {
                let v = self.vec_any(depth + 1);
                let f = ["sum", "sqnorm", "vmax", "logsumexp", "norm"];
                format!("{}({v})", f[self.r.below(f.len())])
            }
            8 => {
                let d = self.vec_dim();
                let (x, y) = (self.vector(d, depth + 1), self.vector(d, depth + 1));
                format!("dot({x}, {y})")
            }
            9 => {
                let (c, trip) = self.count(depth + 1);
                let init = self.scalar(depth + 1);
                let (acc, i) = (self.name("acc"), self.name("i"));
                let body = self.with(&acc, T::F, None, |g| {
                    g.with_vars(vec![Var::counter(&i, trip)], |g| {
                        let e = g.expecting(true, |g| g.scalar(depth + 1));
                        format!("{acc} * 0.5 + {e}")
                    })
                });
                format!("ifold({c}, {init}, |{acc}, {i}| {body})")
            }
            10 => {
                let c = self.boolean(depth + 1);
                let x = self.expecting(e, |g| g.scalar(depth + 1));
                let y = self.expecting(e, |g| g.scalar(depth + 1));
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            11 => self.expecting(e, |g| g.let_in(&T::F, depth)),
            12 => {
                let u = self.usize_expr(depth + 1);
                format!("(({u}) as {})", self.fl())
            }
            13 => {
                let x = self.expecting(e, |g| g.scalar(depth + 1));
                format!("(-{x})")
            }
            14 => {
                // A slice whose length is a size (n >= 1, so it is in range).
                let len = self.r.below(2);
                format!("sum(a[0..0 + {len}])")
            }
            15 => {
                // `twice` takes the program's float type.
                let v = self.expr_e(true, &T::V(D::M), depth + 1);
                format!("sum(twice({v}, |q| q * s + 1.0))")
            }
            // Near the top only: nested, its m^2 work per element would multiply.
            17 if depth <= 1 => self.triangle(depth),
            19 | 20 => self.tupled(&T::F, depth),
            21 | 22 => self.view_scalar(depth),
            23 => {
                // An element of a matrix of any shape whose sizes are never 0.
                let (r, c) = loop {
                    let (r, c) = self.mat_dims();
                    if r.min() > 0 {
                        break (r, c);
                    }
                };
                let m = self.matrix(r, c, depth + 1);
                let (i, j) = (self.index(r, depth), self.index(c, depth));
                format!("({m})[{i}][{j}]")
            }
            _ => {
                let d = self.vec_dim_indexable();
                let v = self.vector(d, depth + 1);
                let i = self.index(d, depth);
                // Parenthesised: `{ .. }[i]` at the start of a statement is a block, then an
                // array literal, in Rust's grammar.
                format!("({v})[{i}]")
            }
        }
    }

    /// A sum over a packed lower triangle of side `m` (GMM's `q_times`): the index is
    /// quadratic in the inner fold's index, in bounds for every `l < j < m`, and its
    /// divisions are exact, so the compiler reads it at a running index.
    fn triangle(&mut self, depth: usize) -> String {
        let (tri, t) = (self.name("tri"), self.name("t"));
        let elem = self.with_vars(vec![Var::counter(&t, 190)], |g| g.scalar(depth + 3));
        let init = self.scalar(depth + 1);
        let (acc, j, u, l) = (
            self.name("acc"),
            self.name("j"),
            self.name("u"),
            self.name("l"),
        );
        let at = if self.r.one_in(2) {
            format!("{l} * ({l} + 1) / 2 + {j}")
        } else {
            format!("{l} * (2 * m - {l} - 1) / 2 + ({j} - {l} - 1)")
        };
        let w = self.with(&j, T::U, Some(D::M), |g| {
            g.with(&l, T::U, Some(D::M), |g| {
                g.expecting(true, |g| g.scalar(depth + 3))
            })
        });
        // Half the time GMM's shape: the fold starts from a row's element `j` and its terms
        // read its elements `l < j`, a prefix of what the loop over `j` reads.
        let (start, times) = if self.r.one_in(2) {
            (format!("c[p % n][{j}]"), format!(" * c[p % n][{l}]"))
        } else {
            (self.lit_s("0.0"), String::new())
        };
        format!(
            "{{ let {tri} = build(m * (m + 1) / 2, |{t}| {elem}); \
             ifold(m, {init}, |{acc}, {j}| {acc} + ifold({j}, {start}, |{u}, {l}| {u} + {tri}[{at}] * ({w}){times})) }}"
        )
    }
}
