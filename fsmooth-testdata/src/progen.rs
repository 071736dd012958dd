//! Random well-typed, well-shaped fsmooth programs (Csmith-style), for differential tests of
//! the compiler against the reference interpreter.
//!
//! Every program is one block with a helper taking a closure and one kernel of a fixed
//! signature, `k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize)`, whose
//! result is an `f64`, a vector or a matrix. Expressions cover `build` and `ifold` (scalar
//! and array state, nested), slices, array literals, `if`, `let`, closures through the
//! helper and the prelude's `map`/`map2`, prelude calls, the math methods, and size
//! arithmetic over symbolic and literal sizes, sums over a packed triangle, and matrix
//! products. Programs are total on their [`inputs`] (indexes are loop indexes into arrays
//! of their loop's size, `i % n` with n >= 1, a packed triangle's below its size, or
//! constants below literal sizes), so every run compares values; errors are tested apart.

pub use crate::Rng;

/// A generated program and the result type of its kernel `k`.
pub struct Program {
    /// The block's source.
    pub src: String,
    /// `"f64"`, `"[f64; n]"` or `"[[f64; m]; n]"`.
    pub ret: &'static str,
}

/// The inputs of one call: sizes and values.
pub struct Inputs {
    /// Size of `a`.
    pub n: usize,
    /// Size of `b`.
    pub m: usize,
    /// `a`, `n` values.
    pub a: Vec<f64>,
    /// `b`, `m` values.
    pub b: Vec<f64>,
    /// `c`, `n * m` values, row-major.
    pub c: Vec<f64>,
    /// The scalar `s`.
    pub s: f64,
    /// The size parameter `p`.
    pub p: usize,
}

/// Deterministic inputs for program `prog`, trial `trial`.
pub fn inputs(prog: u64, trial: u64) -> Inputs {
    let mut r = Rng::new(
        prog.wrapping_mul(1_000_003)
            .wrapping_add(trial)
            .wrapping_add(7),
    );
    // n, m >= 1: generated programs index with `i % n`; p may be 0 (empty loops). Every
    // fourth trial takes sizes up to 19, so that rows taken eight and four at a time and
    // columns in tiles of sixteen and four run, with every kind of remainder.
    let (n, m) = if trial % 4 == 3 {
        (r.below(15) + 5, r.below(15) + 5)
    } else {
        (
            r.below(4) + 1,
            r.below(3) + 1 + usize::from(trial.is_multiple_of(2)),
        )
    };
    let p = r.below(4);
    let vec = |r: &mut Rng, k: usize| (0..k).map(|_| r.f64() * 2.0).collect::<Vec<f64>>();
    Inputs {
        n,
        m,
        a: vec(&mut r, n),
        b: vec(&mut r, m),
        c: vec(&mut r, n * m),
        s: r.f64(),
        p,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum T {
    F,
    U,
    /// A vector of one of the sizes.
    V(D),
    /// A matrix `[[f64; m]; n]`.
    M,
}

#[derive(Clone, Copy, PartialEq)]
enum D {
    N,
    M,
    P,
    Three,
}

impl D {
    fn text(self) -> &'static str {
        match self {
            D::N => "n",
            D::M => "m",
            D::P => "p",
            D::Three => "3",
        }
    }
}

struct Var {
    name: String,
    ty: T,
    /// For a loop index: the size it is below.
    below: Option<D>,
}

struct Gen {
    r: Rng,
    vars: Vec<Var>,
    fresh: usize,
}

impl Gen {
    fn name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}{}", self.fresh)
    }

    fn pick_var(&mut self, ty: T) -> Option<String> {
        let c: Vec<&Var> = self.vars.iter().filter(|v| v.ty == ty).collect();
        if c.is_empty() {
            return None;
        }
        Some(c[self.r.below(c.len())].name.clone())
    }

    fn loop_index(&mut self, d: D) -> Option<String> {
        let c: Vec<&Var> = self.vars.iter().filter(|v| v.below == Some(d)).collect();
        if c.is_empty() {
            return None;
        }
        Some(c[self.r.below(c.len())].name.clone())
    }

    fn with<R>(&mut self, name: &str, ty: T, below: Option<D>, f: impl FnOnce(&mut Gen) -> R) -> R {
        self.vars.push(Var {
            name: name.to_string(),
            ty,
            below,
        });
        let r = f(self);
        self.vars.pop();
        r
    }

    /// An index below size `d`.
    fn index(&mut self, d: D, depth: usize) -> String {
        if let Some(i) = self.loop_index(d)
            && !self.r.one_in(4)
        {
            return i;
        }
        match self.r.below(3) {
            0 if d == D::Three => format!("{}", self.r.below(3)),
            1 => {
                let u = self.usize_expr(depth + 1);
                format!("({u}) % {}", d.text())
            }
            _ => format!("0 % {}", d.text()),
        }
    }

    fn usize_expr(&mut self, depth: usize) -> String {
        match self.r.below(if depth > 3 { 3 } else { 6 }) {
            0 => ["n", "m", "p"][self.r.below(3)].to_string(),
            1 => format!("{}", self.r.below(4)),
            2 => self.pick_var(T::U).unwrap_or_else(|| "n".into()),
            3 => {
                let (x, y) = (self.usize_expr(depth + 1), self.usize_expr(depth + 1));
                format!("({x} + {y})")
            }
            4 => {
                let x = self.usize_expr(depth + 1);
                format!("({x} * 2)")
            }
            _ => {
                let v = self.vec_any(depth + 1);
                format!("{v}.len()")
            }
        }
    }

    fn vec_any(&mut self, depth: usize) -> String {
        let d = [D::N, D::M, D::P, D::Three][self.r.below(4)];
        self.expr(T::V(d), depth)
    }

    fn boolean(&mut self, depth: usize) -> String {
        match self.r.below(if depth > 3 { 2 } else { 5 }) {
            0 => {
                let (x, y) = (self.expr(T::F, depth + 1), self.expr(T::F, depth + 1));
                format!("{x} < {y}")
            }
            1 => {
                let (x, y) = (self.usize_expr(depth + 1), self.usize_expr(depth + 1));
                format!("{x} <= {y}")
            }
            2 => {
                let (x, y) = (self.boolean(depth + 1), self.boolean(depth + 1));
                format!("({x} && {y})")
            }
            3 => {
                let (x, y) = (self.boolean(depth + 1), self.boolean(depth + 1));
                format!("({x} || !({y}))")
            }
            _ => ["true", "false"][self.r.below(2)].to_string(),
        }
    }

    fn scalar(&mut self, depth: usize) -> String {
        let leaf = depth > 4;
        match self.r.below(if leaf { 4 } else { 19 }) {
            0 => format!("{:.3}", self.r.f64() * 3.0),
            1 => self.pick_var(T::F).unwrap_or_else(|| "s".into()),
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
                let (x, y) = (self.scalar(depth + 1), self.scalar(depth + 1));
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
                format!("({x}).{}", f[self.r.below(f.len())])
            }
            6 => {
                let (x, y) = (self.scalar(depth + 1), self.scalar(depth + 1));
                let f = ["min", "max"][self.r.below(2)];
                format!("({x}).{f}({y})")
            }
            7 => {
                let v = self.vec_any(depth + 1);
                let f = ["sum", "sqnorm", "vmax", "logsumexp", "norm"];
                format!("{}({v})", f[self.r.below(f.len())])
            }
            8 => {
                let d = [D::N, D::M, D::P][self.r.below(3)];
                let (x, y) = (self.expr(T::V(d), depth + 1), self.expr(T::V(d), depth + 1));
                format!("dot({x}, {y})")
            }
            9 => {
                let c = self.usize_expr(depth + 1);
                let init = self.scalar(depth + 1);
                let (acc, i) = (self.name("acc"), self.name("i"));
                let body = self.with(&acc, T::F, None, |g| {
                    g.with(&i, T::U, None, |g| {
                        let e = g.scalar(depth + 1);
                        format!("{acc} * 0.5 + {e}")
                    })
                });
                format!("ifold({c}, {init}, |{acc}, {i}| {body})")
            }
            10 => {
                let c = self.boolean(depth + 1);
                let (x, y) = (self.scalar(depth + 1), self.scalar(depth + 1));
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            11 => {
                let x = self.name("x");
                let v = self.scalar(depth + 1);
                let body = self.with(&x, T::F, None, |g| g.scalar(depth + 1));
                format!("{{ let {x} = {v}; {body} }}")
            }
            12 => {
                let u = self.usize_expr(depth + 1);
                format!("(({u}) as f64)")
            }
            13 => {
                let x = self.scalar(depth + 1);
                format!("(-{x})")
            }
            14 => {
                // A slice whose length is a size (n >= 1, so it is in range).
                let len = self.r.below(2);
                format!("sum(a[0..0 + {len}])")
            }
            15 => {
                let v = self.expr(T::V(D::M), depth + 1);
                format!("sum(twice({v}, |q| q * s + 1.0))")
            }
            // Near the top only: nested, its m^2 work per element would multiply.
            17 if depth <= 1 => self.triangle(depth),
            _ => {
                let d = [D::N, D::M][self.r.below(2)];
                let v = self.expr(T::V(d), depth + 1);
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
        let elem = self.with(&t, T::U, None, |g| g.scalar(depth + 3));
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
            g.with(&l, T::U, Some(D::M), |g| g.scalar(depth + 3))
        });
        // Half the time GMM's shape: the fold starts from a row's element `j` and its terms
        // read its elements `l < j`, a prefix of what the loop over `j` reads.
        let (start, times) = if self.r.one_in(2) {
            (format!("c[p % n][{j}]"), format!(" * c[p % n][{l}]"))
        } else {
            ("0.0".to_string(), String::new())
        };
        format!(
            "{{ let {tri} = build(m * (m + 1) / 2, |{t}| {elem}); \
             ifold(m, {init}, |{acc}, {j}| {acc} + ifold({j}, {start}, |{u}, {l}| {u} + {tri}[{at}] * ({w}){times})) }}"
        )
    }

    fn vec_var_or_param(&mut self, d: D) -> String {
        if let Some(v) = self.pick_var(T::V(d))
            && !self.r.one_in(3)
        {
            return v;
        }
        match d {
            D::N => "a".into(),
            D::M => "b".into(),
            D::P => "build(p, |z| s)".into(),
            D::Three => "[s, 1.5, -0.5]".into(),
        }
    }

    fn vector(&mut self, d: D, depth: usize) -> String {
        let leaf = depth > 4;
        match self.r.below(if leaf { 2 } else { 13 }) {
            0 | 1 => self.vec_var_or_param(d),
            2 | 3 => {
                let i = self.name("i");
                let body = self.with(&i, T::U, Some(d), |g| g.scalar(depth + 1));
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
                let body = self.with(&q, T::F, None, |g| g.scalar(depth + 2));
                format!("map({x}, |{q}| {body})")
            }
            7 => {
                let (x, y) = (self.vector(d, depth + 1), self.vector(d, depth + 1));
                format!("map2({x}, {y}, |u, w| u * w - s)")
            }
            8 => {
                let c = self.boolean(depth + 1);
                let (x, y) = (self.vector(d, depth + 1), self.vector(d, depth + 1));
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            9 => {
                let cnt = self.usize_expr(depth + 1);
                let init = self.vector(d, depth + 1);
                let (acc, i) = (self.name("acc"), self.name("i"));
                let body = self.with(&acc, T::V(d), None, |g| {
                    g.with(&i, T::U, None, |g| {
                        let e = g.vector(d, depth + 1);
                        format!("add(smul({acc}, 0.5), {e})")
                    })
                });
                format!("ifold({cnt}, {init}, |{acc}, {i}| {body})")
            }
            10 if d == D::M => {
                let i = self.index(D::N, depth);
                let m = self.matrix(depth + 1);
                format!("({m})[{i}]")
            }
            10 if d == D::N => {
                let m = self.matrix(depth + 1);
                let v = self.vector(D::M, depth + 1);
                format!("matvec({m}, {v})")
            }
            11 if d == D::Three => {
                let (x, y, z) = (
                    self.scalar(depth + 1),
                    self.scalar(depth + 1),
                    self.scalar(depth + 1),
                );
                format!("[{x}, {y}, {z}]")
            }
            11 if d == D::N => "a[0..n]".into(),
            12 => {
                let x = self.name("v");
                let val = self.vector(d, depth + 1);
                let body = self.with(&x, T::V(d), None, |g| g.vector(d, depth + 1));
                format!("{{ let {x} = {val}; {body} }}")
            }
            _ => {
                let x = self.vector(d, depth + 1);
                format!("twice({x}, |q| q - 0.25)")
            }
        }
    }

    fn matrix(&mut self, depth: usize) -> String {
        let leaf = depth > 3;
        match self.r.below(if leaf { 1 } else { 6 }) {
            0 => "c".into(),
            1 => {
                let i = self.name("i");
                let row = self.with(&i, T::U, Some(D::N), |g| g.vector(D::M, depth + 1));
                format!("build(n, |{i}| {row})")
            }
            2 => {
                let (x, y) = (self.matrix(depth + 1), self.matrix(depth + 1));
                format!("madd({x}, {y})")
            }
            3 => "transpose(transpose(c))".into(),
            4 => {
                // A product by an m x m matrix, itself a product: rows as wide as the
                // columns, which the compiler's column tiles read by segments.
                let (x, y, z) = (
                    self.matrix(depth + 1),
                    self.matrix(depth + 1),
                    self.matrix(depth + 1),
                );
                format!("matmul({x}, matmul(transpose({y}), {z}))")
            }
            _ => {
                let (x, y) = (self.vector(D::N, depth + 1), self.vector(D::M, depth + 1));
                format!("outer({x}, {y})")
            }
        }
    }

    fn expr(&mut self, t: T, depth: usize) -> String {
        match t {
            T::F => self.scalar(depth),
            T::U => self.usize_expr(depth),
            T::V(d) => self.vector(d, depth),
            T::M => self.matrix(depth),
        }
    }
}

/// Program number `seed`.
pub fn program(seed: u64) -> Program {
    let mut g = Gen {
        r: Rng::new(seed),
        vars: Vec::new(),
        fresh: 0,
    };
    let (ret, t) = match g.r.below(3) {
        0 => ("f64", T::F),
        1 => ("[f64; n]", T::V(D::N)),
        _ => ("[[f64; m]; n]", T::M),
    };
    // Skip trivial bodies (`a`, `s`): they test nothing.
    let mut body = g.expr(t, 0);
    while body.len() < 24 {
        body = g.expr(t, 0);
    }
    let src = format!(
        "fn twice(v: [f64; q], f: fn(f64) -> f64) -> [f64; q] {{ build(q, |i| f(f(v[i]))) }}\n\
         pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> {ret} {{\n    {body}\n}}\n"
    );
    Program { src, ret }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_deterministic_and_varied() {
        assert_eq!(program(3).src, program(3).src);
        let distinct: std::collections::HashSet<String> = (0..50).map(|s| program(s).src).collect();
        assert!(distinct.len() > 45);
    }
}
