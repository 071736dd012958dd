//! Random well-typed, well-shaped fsmooth programs (Csmith-style), for differential tests of
//! the compiler against the reference interpreter.
//!
//! Every program is one block with a helper taking a closure, up to two helpers taking and
//! returning tuples, and one kernel of a fixed signature,
//! `k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize)`, whose result is an
//! `f64`, a vector, a matrix or a tuple of two to four of those (several results,
//! LANGUAGE.md section 8).
//!
//! Expressions cover `build` and `ifold` (scalar, array and tuple state, nested), `scan`
//! (scalar, array and tuple state; its states used whole, indexed, projected or taken
//! apart), tuples (literals, projections, `let` and closure patterns nested and with `_`,
//! `if` choosing between tuples, helpers taking and returning them), every layout view
//! (`concat join split reverse interleave slide pad transpose`) as a source (indexed,
//! summed, mapped) and as a destination (a result, a tuple component, a `let`-bound
//! array), slices, array literals, `if`, `let`, closures through the helper and the
//! prelude's `map`/`map2` (over rows too), prelude calls, the math methods, size
//! arithmetic over symbolic and literal sizes, sums over a packed triangle, and matrix
//! products. Programs are total on their [`inputs`] (indexes are loop indexes into arrays
//! of their loop's size, `i % n` with n >= 1, a packed triangle's below its size, or
//! constants below literal sizes; windows are never wider than their vector plus one), so
//! every run compares values; errors are tested apart.

mod array;
mod scalar;
mod state;
mod tuple;
mod ty;
mod view;

pub use crate::Rng;
use state::{Gen, Helper, Var};
pub use ty::D;
use ty::T;

/// A generated program and the result type of its kernel `k`.
pub struct Program {
    /// The block's source.
    pub src: String,
    /// The kernel's result type as written (`"f64"`, `"[f64; n + m]"`,
    /// `"(f64, [[f64; m]; n])"`, ..).
    pub ret: String,
    /// The kernel's results in position order: one for a kernel returning a scalar or an
    /// array, one per component for a tuple.
    pub parts: Vec<Part>,
}

/// One result of a kernel: a scalar, or an array whose slots are the product of sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The sizes of an array, outermost first; empty for a scalar.
    pub dims: Vec<D>,
}

impl Part {
    /// Is it an array (written into an output) rather than a returned scalar?
    pub fn is_array(&self) -> bool {
        !self.dims.is_empty()
    }

    /// The number of f64 slots of an array on inputs `i` (1 for a scalar).
    pub fn len(&self, i: &Inputs) -> usize {
        self.dims.iter().map(|d| d.eval(i)).product()
    }
}

impl Program {
    /// The lengths of the kernel's array results on inputs `i`, in position order (the
    /// lengths of `out`, or of `out0`, `out1`, .. skipping scalar components).
    pub fn out_lens(&self, i: &Inputs) -> Vec<usize> {
        self.parts
            .iter()
            .filter(|p| p.is_array())
            .map(|p| p.len(i))
            .collect()
    }
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

/// The kernel's parameters, which helpers take too (so that their bodies are generated
/// with the same names in scope).
const PARAMS: &str = "a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize";

/// A random result type for the kernel: a scalar, a vector or a matrix of any of the
/// generator's shapes, and a third of the time a flat tuple of two to four of those.
fn kernel_ret(g: &mut Gen) -> T {
    let array = |g: &mut Gen| {
        if g.r.one_in(2) {
            T::V(g.vec_dim())
        } else {
            let (r, c) = g.mat_dims();
            T::M(r, c)
        }
    };
    match g.r.below(if g.v2 { 12 } else { 6 }) {
        0 | 1 => T::F,
        2 | 3 => T::V(D::N),
        4 | 5 => T::M(D::N, D::M),
        6 | 7 => array(g),
        _ => {
            let k = 2 + g.r.below(3);
            T::Tup(
                (0..k)
                    .map(|_| if g.r.one_in(3) { T::F } else { array(g) })
                    .collect(),
            )
        }
    }
}

/// Program number `seed`.
pub fn program(seed: u64) -> Program {
    let mut g = Gen {
        r: Rng::new(seed),
        vars: Vec::new(),
        fresh: 0,
        helpers: Vec::new(),
        v2: false,
    };
    g.v2 = !g.r.one_in(3);
    let mut src = String::from(
        "fn twice(v: [f64; q], f: fn(f64) -> f64) -> [f64; q] { build(q, |i| f(f(v[i]))) }\n",
    );
    for h in 0..if g.v2 { g.r.below(3) } else { 0 } {
        let name = format!("h{h}");
        let param = (!g.r.one_in(3)).then(|| T::Tup(g.rand_tuple(1, true)));
        let ret = if g.r.one_in(4) {
            g.rand_type()
        } else {
            T::Tup(g.rand_tuple(1, true))
        };
        let vars: Vec<Var> = param
            .iter()
            .map(|t| Var::new("t", t.clone(), None))
            .collect();
        let body = g.with_vars(vars, |g| g.expr(&ret, 2));
        let extra = param
            .as_ref()
            .map(|t| format!(", t: {}", t.text()))
            .unwrap_or_default();
        src += &format!(
            "fn {name}({PARAMS}{extra}) -> {} {{ {body} }}\n",
            ret.text()
        );
        g.helpers.push(Helper { name, param, ret });
    }
    let t = kernel_ret(&mut g);
    // Skip trivial bodies (`a`, `s`): they test nothing.
    let mut body = g.expr(&t, 0);
    while body.len() < 24 {
        body = g.expr(&t, 0);
    }
    src += &format!("pub fn k({PARAMS}) -> {} {{\n    {body}\n}}\n", t.text());
    let parts = match &t {
        T::Tup(ts) => ts.iter().map(|t| Part { dims: t.dims() }).collect(),
        t => vec![Part { dims: t.dims() }],
    };
    Program {
        src,
        ret: t.text(),
        parts,
    }
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

    /// Tuples, patterns, scans, helpers and every view occur at a useful rate, and kernels
    /// return several results, mixing arrays and scalars.
    #[test]
    fn programs_use_the_constructs_of_sections_8_and_9() {
        let progs: Vec<Program> = (0..300).map(program).collect();
        let count = |f: &dyn Fn(&Program) -> bool| progs.iter().filter(|p| f(p)).count();
        for word in [
            "scan(",
            "concat(",
            "join(",
            "split(",
            "reverse(",
            "interleave(",
            "slide(",
            "pad(",
            "transpose(",
            "let (",
            "|(",
            "(_, ",
            "h0(",
            ").1",
        ] {
            let k = count(&|p| p.src.contains(word));
            assert!(k >= 15, "`{word}` in {k} of 300 programs");
        }
        let several = count(&|p| p.parts.len() > 1);
        let mixed =
            count(&|p| p.parts.iter().any(Part::is_array) && p.parts.iter().any(|q| !q.is_array()));
        assert!(several >= 60 && mixed >= 20, "{several} {mixed}");
        let i = inputs(0, 3);
        for p in &progs {
            assert_eq!(p.parts.len() > 1, p.ret.starts_with('('), "{}", p.ret);
            assert!(p.out_lens(&i).len() <= p.parts.len());
        }
    }
}
