//! The generator's state (variables in scope, helpers, fresh names) and its small pieces:
//! random types, indexes, sizes and conditions.

use super::scalar::LOOPS_IN;
use super::ty::{D, Elem, T};
use crate::Rng;

/// A variable in scope.
pub(super) struct Var {
    pub(super) name: String,
    pub(super) ty: T,
    /// For a loop index: the size it is below.
    pub(super) below: Option<D>,
    /// For a loop's index or element: how many steps the loop may take.
    trip: Option<u64>,
    /// For a `usize`: the largest value it may have (a guess for those not loop indexes).
    max: u64,
}

impl Var {
    /// A variable; with `below`, the index of a loop over that size.
    pub(super) fn new(name: &str, ty: T, below: Option<D>) -> Var {
        Var {
            name: name.to_string(),
            ty,
            below,
            trip: below.map(D::max),
            max: below.map_or(64, D::max),
        }
    }

    /// The index of an `ifold` of at most `trip` steps.
    pub(super) fn counter(name: &str, trip: u64) -> Var {
        Var {
            trip: Some(trip),
            max: trip,
            ..Var::new(name, T::U, None)
        }
    }

    /// The element a closure of a loop of at most `trip` steps is given (`map`'s).
    pub(super) fn elem(name: &str, ty: T, trip: u64) -> Var {
        Var {
            trip: Some(trip),
            ..Var::new(name, ty, None)
        }
    }
}

/// How much work (loop steps, estimated) an expression may take before the generator
/// writes only leaves inside it.
pub(super) const HEAVY: u64 = 2000;

/// A helper function of the block: `fn name(a, b, c, s, p[, t: param]) -> ret`.
pub(super) struct Helper {
    pub(super) name: String,
    pub(super) param: Option<T>,
    pub(super) ret: T,
}

pub(super) struct Gen {
    pub(super) r: Rng,
    pub(super) vars: Vec<Var>,
    pub(super) fresh: usize,
    /// The helpers defined so far (a helper calls only those before it).
    pub(super) helpers: Vec<Helper>,
    /// Does the program use the constructs of LANGUAGE.md sections 8 and 9 (tuples,
    /// scans, views, sizes other than `n`, `m`, `p`, 3)? One program in three does not,
    /// so that the shapes of version 1 (rows taken eight at a time, column tiles, triangle
    /// folds) keep their rate.
    pub(super) v2: bool,
    /// Does the program use the constructs of sections 10 and 11 (f32 kernels, usize
    /// arrays, casts, the math methods of version 2)? Only then does the generator draw
    /// anything more than it always has, so an untyped program is the same text as before.
    pub(super) typed: bool,
    /// The program's float type.
    pub(super) fl: Elem,
    /// Does the kernel take the index arrays `ix` and `jx`?
    pub(super) gathers: bool,
    /// Does the program use the loop shapes of `shapes.rs` (state folds, strided reads,
    /// index tests)? Only with [`super::Config::typed`] on, so that a program of the
    /// generator configured without it is the same text as before.
    pub(super) shapes: bool,
    /// Does the program use the forms of `loops.rs` (`iterate`, `scatter_add`,
    /// `reduce_by_index`)? Only with [`super::Config::typed`] on, as for `shapes`.
    pub(super) loops: bool,
    /// May the program be differentiated in reverse mode? Not once it has an `iterate`
    /// carrying a float or a `reduce_by_index` other than a scalar addition.
    pub(super) reverse: bool,
    /// Does an expected float type flow into the expression generated next (its declared
    /// type, the other operand of an operator, ..)? A literal there may be unsuffixed in an
    /// f32 program; elsewhere it gets `f32`, since a literal no type flows into is an f64.
    /// Set just before a call ([`Gen::expecting`]) and taken by the generator it reaches.
    pub(super) expect: bool,
}

/// Every way to reach a value of type `want` inside `have` (named `at`): `at` itself, or a
/// chain of projections into a tuple.
fn paths(at: &str, have: &T, want: &T, out: &mut Vec<String>) {
    if have == want {
        out.push(at.to_string());
    }
    if let T::Tup(ts) = have {
        for (k, t) in ts.iter().enumerate() {
            paths(&format!("{at}.{k}"), t, want, out);
        }
    }
}

/// Vector sizes, weighted: the kernel's own sizes most of the time.
const VEC_DIMS: [D; 16] = [
    D::N,
    D::N,
    D::N,
    D::M,
    D::M,
    D::M,
    D::P,
    D::P,
    D::Three,
    D::Three,
    D::Two,
    D::NpM,
    D::TwoN,
    D::NxM,
    D::Np2,
    D::M,
];

/// Matrix shapes `(rows, cols)`, weighted: `[[f64; m]; n]` (the parameter `c`'s) most.
const MAT_DIMS: [(D, D); 17] = [
    (D::N, D::M),
    (D::N, D::M),
    (D::N, D::M),
    (D::N, D::M),
    (D::N, D::M),
    (D::M, D::N),
    (D::M, D::N),
    (D::N, D::Three),
    (D::N, D::Three),
    (D::TwoN, D::M),
    (D::NpM, D::M),
    (D::Np2, D::M),
    (D::Three, D::M),
    (D::P, D::M),
    (D::Two, D::Two),
    (D::M, D::Three),
    (D::N, D::Two),
];

impl Gen {
    /// The program's float type as written.
    pub(super) fn fl(&self) -> &'static str {
        self.fl.text()
    }

    /// The other float type (for casts there and back).
    pub(super) fn other_fl(&self) -> &'static str {
        match self.fl {
            Elem::F32 => "f64",
            _ => "f32",
        }
    }

    /// Takes [`Gen::expect`], leaving it unset.
    pub(super) fn take_expect(&mut self) -> bool {
        std::mem::take(&mut self.expect)
    }

    /// Runs `f` (which generates one expression) with [`Gen::expect`] set to `e`.
    pub(super) fn expecting<R>(&mut self, e: bool, f: impl FnOnce(&mut Gen) -> R) -> R {
        self.expect = e;
        let r = f(self);
        self.expect = false;
        r
    }

    /// A float literal of value `x` (three decimals), where an expected type flows in or
    /// not (`expect`): in a typed program, sometimes suffixed; in an f32 program always
    /// where no type flows in.
    pub(super) fn lit(&mut self, x: f64, expect: bool) -> String {
        let text = format!("{x:.3}");
        if !self.typed {
            return text;
        }
        let suffix = match self.fl {
            Elem::F32 if !expect || self.r.one_in(5) => "f32",
            Elem::F64 if self.r.one_in(12) => "f64",
            _ => "",
        };
        text + suffix
    }

    /// The literal `text` of a template where no type flows in (`smul(acc, 0.5)`): suffixed
    /// in an f32 program.
    pub(super) fn lit_s(&self, text: &str) -> String {
        match (self.typed, self.fl) {
            (true, Elem::F32) => format!("{text}f32"),
            _ => text.to_string(),
        }
    }

    pub(super) fn name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}{}", self.fresh)
    }

    /// A variable of type `ty`, or a projection of a tuple variable that has one.
    pub(super) fn pick_var(&mut self, ty: &T) -> Option<String> {
        let mut c = Vec::new();
        for v in &self.vars {
            paths(&v.name, &v.ty, ty, &mut c);
        }
        if c.is_empty() {
            return None;
        }
        Some(c[self.r.below(c.len())].clone())
    }

    pub(super) fn loop_index(&mut self, d: D) -> Option<String> {
        let c: Vec<&Var> = self.vars.iter().filter(|v| v.below == Some(d)).collect();
        if c.is_empty() {
            return None;
        }
        Some(c[self.r.below(c.len())].name.clone())
    }

    /// Runs `f` with `vars` in scope.
    pub(super) fn with_vars<R>(&mut self, vars: Vec<Var>, f: impl FnOnce(&mut Gen) -> R) -> R {
        let k = vars.len();
        self.vars.extend(vars);
        let r = f(self);
        self.vars.truncate(self.vars.len() - k);
        r
    }

    /// Runs `f` with `name`, the element of a loop of at most `trip` steps, in scope.
    pub(super) fn with_elem<R>(
        &mut self,
        name: &str,
        ty: T,
        trip: u64,
        f: impl FnOnce(&mut Gen) -> R,
    ) -> R {
        self.with_vars(vec![Var::elem(name, ty, trip)], f)
    }

    pub(super) fn with<R>(
        &mut self,
        name: &str,
        ty: T,
        below: Option<D>,
        f: impl FnOnce(&mut Gen) -> R,
    ) -> R {
        self.with_vars(vec![Var::new(name, ty, below)], f)
    }

    /// The steps of the loops around the expression being generated, multiplied (a
    /// bound on how many times it runs): programs must run in the executor's step budget,
    /// and quickly in the interpreter.
    pub(super) fn work(&self) -> u64 {
        self.vars
            .iter()
            .filter_map(|v| v.trip)
            .fold(1u64, u64::saturating_mul)
    }

    /// Should only leaves be generated here (too deep, or run too many times)?
    pub(super) fn leaf(&self, depth: usize, deepest: usize) -> bool {
        depth > deepest || self.work() > HEAVY
    }

    /// A random vector size; inside loops, only the small ones (`n * m` is up to 361 on
    /// the larger inputs).
    pub(super) fn vec_dim(&mut self) -> D {
        if self.gathers && self.r.one_in(8) {
            return D::G;
        }
        if !self.v2 {
            return [D::N, D::M, D::P, D::Three][self.r.below(4)];
        }
        let w = self.work();
        match VEC_DIMS[self.r.below(VEC_DIMS.len())] {
            D::NxM if w > 10 => D::M,
            D::NpM | D::TwoN | D::Np2 if w > 400 => D::N,
            d => d,
        }
    }

    /// The count of an `ifold` and how many steps it may take (small inside loops).
    pub(super) fn count(&mut self, depth: usize) -> (String, u64) {
        let (c, max) = self.usize_max(depth);
        if max.saturating_mul(self.work()) > 20 * HEAVY {
            let k = self.r.below(4);
            return (k.to_string(), k as u64);
        }
        (c, max)
    }

    /// A random vector size that is never 0 (so that it can be indexed).
    pub(super) fn vec_dim_indexable(&mut self) -> D {
        loop {
            let d = self.vec_dim();
            if d.min() > 0 {
                return d;
            }
        }
    }

    /// A random matrix shape.
    pub(super) fn mat_dims(&mut self) -> (D, D) {
        MAT_DIMS[self.r.below(MAT_DIMS.len())]
    }

    /// A random matrix shape with `rows` rows.
    pub(super) fn mat_cols(&mut self, rows: D) -> D {
        match rows {
            D::N => [D::M, D::M, D::Three, D::N][self.r.below(4)],
            D::M => [D::N, D::Three][self.r.below(2)],
            _ => [D::M, D::Two, D::Three][self.r.below(3)],
        }
    }

    /// Component types of a random tuple (two to four, nested up to `nest` levels more),
    /// `usize` components only if `usize_ok`.
    pub(super) fn rand_tuple(&mut self, nest: usize, usize_ok: bool) -> Vec<T> {
        let k = 2 + self.r.below(2) + usize::from(self.r.one_in(6));
        (0..k)
            .map(|_| match self.r.below(20) {
                0..=7 => T::F,
                8..=13 => T::V(self.vec_dim()),
                14..=15 => {
                    let (r, c) = self.mat_dims();
                    T::M(r, c)
                }
                16 if usize_ok => {
                    if self.typed && self.r.one_in(2) {
                        T::UV(self.vec_dim())
                    } else {
                        T::U
                    }
                }
                17..=19 if nest > 0 => T::Tup(self.rand_tuple(nest - 1, usize_ok)),
                _ => T::F,
            })
            .collect()
    }

    /// A random type for a `let`: a scalar, an array or (half the time) a tuple.
    pub(super) fn rand_type(&mut self) -> T {
        match self.r.below(8) {
            0 => T::F,
            1 => T::V(self.vec_dim()),
            2 => {
                let (r, c) = self.mat_dims();
                T::M(r, c)
            }
            3 if self.typed && self.r.one_in(2) => T::UV(self.vec_dim()),
            3 => T::U,
            _ => T::Tup(self.rand_tuple(1, true)),
        }
    }

    /// An index below size `d` (never 0).
    pub(super) fn index(&mut self, d: D, depth: usize) -> String {
        assert!(d.min() > 0, "an index below a size that may be 0");
        if self.typed
            && let Some(i) = self.typed_index(d)
        {
            return i;
        }
        if let Some(i) = self.loop_index(d)
            && !self.r.one_in(4)
        {
            if self.typed && self.r.one_in(5) {
                // A neighbour clamped into the range (a clamped border, issue 21).
                let last = format!("{} - 1", d.paren());
                return match self.r.below(3) {
                    0 => format!("({i} + 1).min({last})"),
                    1 => format!("({i}.max(1) - 1)"),
                    _ => format!("(({i} + 2).clamp(1, {}) - 1)", d.paren()),
                };
            }
            return i;
        }
        self.index_below(&d.paren(), d.min(), depth)
    }

    /// An index below the size `len` (an operand), which is at least `min` (at least 1).
    pub(super) fn index_below(&mut self, len: &str, min: usize, depth: usize) -> String {
        match self.r.below(3) {
            0 if min > 1 => format!("{}", self.r.below(min)),
            1 => {
                let u = self.usize_expr(depth + 1);
                format!("({u}) % {len}")
            }
            _ => format!("0 % {len}"),
        }
    }

    pub(super) fn usize_expr(&mut self, depth: usize) -> String {
        self.usize_max(depth).0
    }

    /// A `usize` expression and the largest value it may have.
    pub(super) fn usize_max(&mut self, depth: usize) -> (String, u64) {
        if self.typed && depth <= 3 && self.r.one_in(4) {
            return self.typed_usize(depth);
        }
        if self.loops && depth <= 3 && self.work() <= HEAVY && self.r.one_in(LOOPS_IN) {
            return self.loop_usize(depth);
        }
        match self.r.below(if depth > 3 { 3 } else { 6 }) {
            0 => {
                let d = [D::N, D::M, D::P][self.r.below(3)];
                (d.text().to_string(), d.max())
            }
            1 => {
                let k = self.r.below(4);
                (k.to_string(), k as u64)
            }
            2 => {
                let mut c: Vec<(String, u64)> = Vec::new();
                for v in &self.vars {
                    if v.ty == T::U {
                        c.push((v.name.clone(), v.max));
                    }
                }
                if c.is_empty() || self.r.one_in(4) {
                    // (Or a `usize` inside a tuple variable.)
                    return (self.pick_var(&T::U).unwrap_or_else(|| "n".into()), 64);
                }
                c.swap_remove(self.r.below(c.len()))
            }
            3 => {
                let (x, xm) = self.usize_max(depth + 1);
                let (y, ym) = self.usize_max(depth + 1);
                (format!("({x} + {y})"), xm + ym)
            }
            4 => {
                let (x, xm) = self.usize_max(depth + 1);
                (format!("({x} * 2)"), xm * 2)
            }
            _ => {
                let d = self.vec_dim();
                let v = self.vector(d, depth + 1);
                (format!("{v}.len()"), d.max())
            }
        }
    }

    pub(super) fn vec_any(&mut self, depth: usize) -> String {
        let d = self.vec_dim();
        self.vector(d, depth)
    }

    pub(super) fn boolean(&mut self, depth: usize) -> String {
        match self.r.below(if depth > 3 { 2 } else { 5 }) {
            0 => {
                let (x, y) = (self.scalar(depth + 1), self.scalar(depth + 1));
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

    /// An expression of type `t`, into which an expected type flows if [`Gen::expect`].
    pub(super) fn expr(&mut self, t: &T, depth: usize) -> String {
        let e = self.take_expect();
        match t {
            T::F => self.expecting(e, |g| g.scalar(depth)),
            T::U => self.usize_expr(depth),
            T::V(d) => self.expecting(e, |g| g.vector(*d, depth)),
            T::M(r, c) => self.expecting(e, |g| g.matrix(*r, *c, depth)),
            T::UV(d) => self.usize_vector(*d, depth),
            T::Tup(ts) => self.tuple(ts, depth),
        }
    }

    /// An expression of type `t`, into which an expected type flows or not (`e`).
    pub(super) fn expr_e(&mut self, e: bool, t: &T, depth: usize) -> String {
        self.expecting(e, |g| g.expr(t, depth))
    }
}
