//! Loop shapes that real kernels have and the rest of the generator reaches only by chance,
//! written only when [`super::Config::typed`] is on (the generator's later constructs; off,
//! every seed gives the program it always had):
//!
//! - **state folds** ([`Gen::state_fold`]): an `ifold` whose state is a tuple of arrays (of
//!   a literal length 2 to 16 or one of the generator's sizes) and scalars, each component's
//!   next value reading the others (rotated `v[(j + 1) % m]`, shifted, element-wise, summed),
//!   counted by a `usize` parameter or size (`p`, `p + 1`, `2 * p + 1`, `n`, `m`), so that
//!   odd and even step counts, 0 and 1 included, all run;
//! - **strided reads** ([`Gen::strided`]): a build over `d` reading `x[k * i + c]` (k in 2 to
//!   4, c < k) of an array of `k * d` elements, the phases of a stride summed, inside folds,
//!   decimations `x[2 * i]` (of `2 * d` or `2 * d - 1` elements), de-interleaving fold
//!   states, and images `[[f64; 2 * c]; 2 * r]` read into `[[f64; c]; r]`;
//! - **index tests** ([`Gen::index_tests`]): builds whose element tests its index against
//!   constants and sizes (`i < 4` in a count of 20 or `n`, `i >= n - 2`, `i == c`, `i > 0 &&
//!   i + 1 < n`, `else if` chains, clamps written as `if` chains), and the halves of a build
//!   over `d + d` one of which reads a matrix-vector product (`matvec(q, x)[i]`, or a row of
//!   `q` summed by an `ifold`).
//!
//! Every index is in range by construction on every input (`n, m >= 1`, `p >= 0`), and every
//! size subtraction is of a size at least as large.

use super::state::{Gen, Var};
use super::ty::{D, T};

/// The length of a template's array or the count of its loop: one of the generator's sizes,
/// or a literal.
#[derive(Clone)]
struct Len {
    /// As a count (`n + m`).
    text: String,
    /// As an operand (`(n + m)`).
    op: String,
    /// The generator's size, if it is one.
    d: Option<D>,
    /// Its least value.
    min: usize,
    /// Its largest value.
    max: u64,
}

impl Len {
    fn of(d: D) -> Len {
        Len {
            text: d.text().into(),
            op: d.paren(),
            d: Some(d),
            min: d.min(),
            max: d.max(),
        }
    }

    fn lit(k: usize) -> Len {
        Len {
            text: k.to_string(),
            op: k.to_string(),
            d: None,
            min: k,
            max: k as u64,
        }
    }

    /// The index variable `name` of a loop over it.
    fn index(&self, name: &str) -> Var {
        match self.d {
            Some(d) => Var::new(name, T::U, Some(d)),
            None => Var::counter(name, self.max),
        }
    }

    /// Its type as a float vector, if the generator has its size.
    fn ty(&self) -> Option<T> {
        self.d.map(T::V)
    }
}

/// A component of a state fold's tuple: an array of a length, or a scalar.
#[derive(Clone)]
enum Comp {
    Arr(Len),
    Sca,
}

impl Gen {
    /// A scalar of one of the module's shapes.
    pub(super) fn shaped_scalar(&mut self, depth: usize) -> String {
        match self.r.below(if self.v2 { 4 } else { 2 }) {
            0 => self.strided(&T::F, depth),
            1 => self.index_tests(&T::F, depth),
            _ => self.state_fold(&T::F, depth),
        }
    }

    /// A vector of `d` elements of one of the module's shapes.
    pub(super) fn shaped_vector(&mut self, d: D, depth: usize) -> String {
        match self.r.below(if self.v2 { 4 } else { 2 }) {
            0 => self.strided(&T::V(d), depth),
            1 => self.index_tests(&T::V(d), depth),
            _ => self.state_fold(&T::V(d), depth),
        }
    }

    /// A matrix of `r` rows of `c` columns of one of the module's shapes.
    pub(super) fn shaped_matrix(&mut self, r: D, c: D, depth: usize) -> String {
        if self.r.one_in(2) {
            self.strided(&T::M(r, c), depth)
        } else {
            self.index_tests(&T::M(r, c), depth)
        }
    }

    /// A length for a template's own arrays: a literal 2 to 16, or a size of the
    /// generator's (small ones only where the template runs many times).
    fn any_len(&mut self) -> Len {
        if self.work() > 200 {
            return Len::lit(2 + self.r.below(4));
        }
        if self.r.one_in(2) {
            Len::lit(2 + self.r.below(15))
        } else {
            Len::of(self.vec_dim())
        }
    }

    /// A step count that is a `usize` parameter or size, and the most steps it may take:
    /// `p` (0 to 3) most often, so that both parities, 0 and 1 among them, are run.
    fn steps(&mut self, per_step: u64) -> (String, u64) {
        let (c, max): (String, u64) = match self.r.below(8) {
            0..=2 => ("p".to_string(), 3),
            3 => ("p + 1".to_string(), 4),
            4 => ("2 * p + 1".to_string(), 7),
            5 => ("n".to_string(), 19),
            6 => ("m".to_string(), 19),
            _ => ("m - 1".to_string(), 18),
        };
        if max
            .saturating_mul(per_step)
            .saturating_mul(self.work())
            .saturating_mul(4)
            > 20 * super::state::HEAVY
        {
            return ("p".into(), 3);
        }
        (c, max)
    }

    /// A float literal where no type flows in (suffixed in an f32 program).
    fn flit(&mut self) -> String {
        let x = [0.0, 0.5, 1.0, -0.25, 1.5, 0.125][self.r.below(6)];
        self.lit_s(&format!("{x:.3}"))
    }

    /// A scalar of the rest of the generator, with `vars` in scope, into which the
    /// program's float type flows or not (`e`: an operand of a float operator).
    fn sub_scalar(&mut self, vars: Vec<Var>, e: bool, depth: usize) -> String {
        self.with_vars(vars, |g| g.expecting(e, |g| g.scalar(depth + 2)))
    }

    /// An array of `len` elements for a template to read: a vector of the generator's if
    /// it has the size, else a build of scalars.
    fn source(&mut self, len: &Len, depth: usize) -> String {
        if let Some(d) = len.d
            && !self.r.one_in(3)
        {
            return if self.r.one_in(2) {
                self.vec_var_or_param(d)
            } else {
                self.vector(d, depth + 2)
            };
        }
        let j = self.name("j");
        let e = self.sub_scalar(vec![len.index(&j)], false, depth);
        format!("build({}, |{j}| {e})", len.text)
    }

    // ---- State folds --------------------------------------------------------------------

    /// `ifold(steps, (v, x, w, ..), |(v, x, w, ..), t| (..))`: a state of arrays and
    /// scalars, each next component reading the others; of type `want` (a scalar or a
    /// vector: a component, a sum, or the state taken apart by a `let`).
    fn state_fold(&mut self, want: &T, depth: usize) -> String {
        let len = match want {
            T::V(d) => Len::of(*d),
            _ => self.any_len(),
        };
        // At least an array of `len` and a scalar, in any order, and up to two more.
        let mut comps = vec![Comp::Arr(len.clone()), Comp::Sca];
        for _ in 0..self.r.below(3) {
            comps.push(match self.r.below(4) {
                0 => Comp::Sca,
                1 => Comp::Arr(self.any_len()),
                _ => Comp::Arr(len.clone()),
            });
        }
        for k in (1..comps.len()).rev() {
            let j = self.r.below(k + 1);
            comps.swap(k, j);
        }
        let per_step: u64 = comps
            .iter()
            .map(|c| match c {
                Comp::Arr(l) => l.max,
                Comp::Sca => 1,
            })
            .sum();
        let (cnt, trip) = self.steps(per_step);
        let init: Vec<String> = comps
            .iter()
            .map(|c| match c {
                Comp::Sca => {
                    if self.r.one_in(2) {
                        self.flit()
                    } else {
                        self.scalar(depth + 2)
                    }
                }
                Comp::Arr(l) => match self.r.below(3) {
                    0 => format!("build({}, |_| {})", l.text, self.flit()),
                    1 => {
                        let j = self.name("j");
                        let fl = self.fl();
                        format!(
                            "build({}, |{j}| ({j} as {fl}) * 0.25 + {})",
                            l.text,
                            self.flit()
                        )
                    }
                    _ => self.source(l, depth),
                },
            })
            .collect();
        // The body reads the components through a pattern's names, or as projections of
        // the whole state's name.
        let whole = self.r.one_in(4).then(|| self.name("sw"));
        let names: Vec<String> = comps
            .iter()
            .enumerate()
            .map(|(k, c)| match &whole {
                Some(w) => format!("{w}.{k}"),
                None => self.name(if matches!(c, Comp::Sca) { "sx" } else { "sa" }),
            })
            .collect();
        let t = self.name("st");
        let types: Vec<Option<T>> = comps
            .iter()
            .map(|c| match c {
                Comp::Sca => Some(T::F),
                Comp::Arr(l) => l.ty(),
            })
            .collect();
        let mut vars = vec![Var::counter(&t, trip)];
        match &whole {
            Some(w) => {
                if let Some(ts) = types.iter().cloned().collect::<Option<Vec<T>>>() {
                    vars.push(Var::new(w, T::Tup(ts), None));
                }
            }
            None => {
                for (n, ty) in names.iter().zip(&types) {
                    if let Some(ty) = ty {
                        vars.push(Var::new(n, ty.clone(), None));
                    }
                }
            }
        }
        let body: Vec<String> = self.with_vars(vars, |g| {
            (0..comps.len())
                .map(|k| g.next_comp(&comps, &names, k, &t, depth))
                .collect()
        });
        let pat = match &whole {
            Some(w) => w.clone(),
            None => format!("({})", names.join(", ")),
        };
        let fold = format!(
            "ifold({cnt}, ({}), |{pat}, {t}| ({}))",
            init.join(", "),
            body.join(", ")
        );
        self.fold_result(want, &comps, &len, fold, depth)
    }

    /// The next value of component `k` of a state fold's `comps` (read as `names`), at
    /// step `t`.
    fn next_comp(
        &mut self,
        comps: &[Comp],
        names: &[String],
        k: usize,
        t: &str,
        depth: usize,
    ) -> String {
        let me = &names[k];
        // Another scalar, and another array of the same length (or itself).
        let scalars: Vec<&String> = (0..comps.len())
            .filter(|&q| matches!(comps[q], Comp::Sca))
            .map(|q| &names[q])
            .collect();
        let sc = scalars[self.r.below(scalars.len())].clone();
        let fl = self.fl();
        match &comps[k] {
            Comp::Arr(l) => {
                let same: Vec<&String> = (0..comps.len())
                    .filter(|&q| matches!(&comps[q], Comp::Arr(o) if o.text == l.text))
                    .map(|q| &names[q])
                    .collect();
                let other = same[self.r.below(same.len())].clone();
                let j = self.name("j");
                let n = &l.text;
                let elem = match self.r.below(8) {
                    0 | 1 => {
                        let r = 1 + self.r.below(3);
                        format!(
                            "{me}[({j} + {r}) % {}] * ({sc}).tanh() + {other}[{j}] * 0.5",
                            l.op
                        )
                    }
                    2 => format!("{other}[{j}] + {me}[{j}] * 0.25"),
                    3 => format!("if {j} == 0 {{ {sc} }} else {{ {me}[{j} - 1] }}"),
                    4 if l.min >= 1 => {
                        format!("{me}[({j} + {} - 1) % {}] * 0.5 + {sc} * 0.25", l.op, l.op)
                    }
                    5 => {
                        let e = self.sub_scalar(vec![l.index(&j)], true, depth);
                        format!("{me}[{j}] * 0.5 + {e}")
                    }
                    6 => return format!("build({n}, |_| {sc})"),
                    _ => format!("{other}[{} - 1 - {j}] * 0.5 - ({t} as {fl}) * 0.125", l.op),
                };
                format!("build({n}, |{j}| {elem})")
            }
            Comp::Sca => {
                let arrays: Vec<(usize, &Len)> = (0..comps.len())
                    .filter_map(|q| match &comps[q] {
                        Comp::Arr(l) => Some((q, l)),
                        Comp::Sca => None,
                    })
                    .collect();
                let (q, l) = arrays[self.r.below(arrays.len())];
                let v = &names[q];
                match self.r.below(6) {
                    0 | 1 => format!("{me} * 0.5 + sum({v}) * 0.125"),
                    2 if l.min >= 1 => format!("{me} * 0.5 + {v}[{t} % {}]", l.op),
                    3 => format!("({me} + dot({v}, {v}) * 0.0625).tanh()"),
                    4 => {
                        let e = self.sub_scalar(Vec::new(), true, depth);
                        format!("{me} * 0.5 + {e}")
                    }
                    _ => format!("{me} * 0.5 + ({t} as {fl}) * 0.25"),
                }
            }
        }
    }

    /// What a state fold gives where `want` is needed: a component, a sum, or the state
    /// taken apart by a `let` and combined.
    fn fold_result(
        &mut self,
        want: &T,
        comps: &[Comp],
        len: &Len,
        fold: String,
        depth: usize,
    ) -> String {
        let wanted: Vec<usize> = (0..comps.len())
            .filter(|&q| match (&comps[q], want) {
                (Comp::Sca, T::F) => true,
                (Comp::Arr(l), T::V(_)) => l.text == len.text,
                _ => false,
            })
            .collect();
        let q = wanted[self.r.below(wanted.len())];
        if self.r.one_in(2) {
            return match (want, self.r.one_in(3)) {
                (T::F, true) => {
                    let arr = (0..comps.len())
                        .find(|&k| matches!(comps[k], Comp::Arr(_)))
                        .unwrap_or(0);
                    format!("sum(({fold}).{arr})")
                }
                _ => format!("({fold}).{q}"),
            };
        }
        let names: Vec<String> = comps
            .iter()
            .map(|c| self.name(if matches!(c, Comp::Sca) { "x" } else { "v" }))
            .collect();
        let mut vars = Vec::new();
        for (n, c) in names.iter().zip(comps) {
            match c {
                Comp::Sca => vars.push(Var::new(n, T::F, None)),
                Comp::Arr(l) => {
                    if let Some(ty) = l.ty() {
                        vars.push(Var::new(n, ty, None));
                    }
                }
            }
        }
        let scalar = (0..comps.len())
            .find(|&k| matches!(comps[k], Comp::Sca))
            .map(|k| names[k].clone())
            .unwrap_or_default();
        let body = match want {
            T::V(_) => {
                let others: Vec<&String> = (0..comps.len())
                    .filter(|&k| matches!(&comps[k], Comp::Arr(l) if l.text == len.text))
                    .map(|k| &names[k])
                    .collect();
                let y = others[self.r.below(others.len())];
                format!("add({}, smul({y}, ({scalar}).tanh()))", names[q])
            }
            _ => {
                let e = self.with_vars(vars, |g| g.expecting(true, |g| g.scalar(depth + 2)));
                format!("{} + {e}", names[q])
            }
        };
        format!("{{ let ({}) = {fold}; {body} }}", names.join(", "))
    }

    // ---- Strided reads ------------------------------------------------------------------

    /// `k * i + c` (c < k) written one of several ways.
    fn stride_at(&mut self, k: usize, i: &str, c: usize) -> String {
        match (c, self.r.below(3)) {
            (0, 0) => format!("{k} * {i}"),
            (0, 1) => format!("{i} * {k}"),
            (_, 0) => format!("{k} * {i} + {c}"),
            (_, 1) => format!("{i} * {k} + {c}"),
            _ => format!("{c} + {k} * {i}"),
        }
    }

    /// An array of `k * d` elements (`d` a size of the generator's when it is one): a build,
    /// or a view of the generator's vectors and matrices.
    fn strided_source(&mut self, k: usize, d: &Len, depth: usize) -> String {
        let views = self.v2 && d.d.is_some();
        match self.r.below(if views { 5 } else { 2 }) {
            2 if k == 2 => {
                let dd = d.d.unwrap();
                let (x, y) = (self.vector(dd, depth + 2), self.vector(dd, depth + 2));
                let f = ["interleave", "concat"][self.r.below(2)];
                format!("{f}({x}, {y})")
            }
            3 if k <= 3 => {
                let dd = d.d.unwrap();
                let c = if k == 2 { D::Two } else { D::Three };
                let m = self.matrix(dd, c, depth + 2);
                format!("join({m})")
            }
            4 if d.min >= 1 => {
                // Each element of a vector of `d` repeated, and shifted.
                let dd = d.d.unwrap();
                let (x, y) = (self.vec_var_or_param(dd), self.vec_var_or_param(dd));
                let j = self.name("j");
                format!(
                    "build({k} * {}, |{j}| {x}[{j} / {k}] * 0.5 + {y}[{j} % {}])",
                    d.op, d.op
                )
            }
            _ => {
                let j = self.name("j");
                let e = self.sub_scalar(vec![Var::counter(&j, k as u64 * d.max)], false, depth);
                format!("build({k} * {}, |{j}| {e})", d.op)
            }
        }
    }

    /// Strided reads of type `want`: a vector of `d` read at `k * i + c` from `k * d`
    /// elements, a decimation, a sum of strided reads in a fold, a fold de-interleaving its
    /// state, or (a matrix) an image of twice the rows and columns read by pairs.
    fn strided(&mut self, want: &T, depth: usize) -> String {
        match want {
            T::M(r, c) => self.strided_image(*r, *c, depth),
            T::V(d) => {
                let len = Len::of(*d);
                match self.r.below(5) {
                    0 if *d == D::TwoN => self.deinterleave(&Len::of(D::N), depth),
                    1 => {
                        let (cnt, trip) = self.steps(4 * len.max);
                        let (v, t) = (self.name("v"), self.name("t"));
                        let inner = self.with_vars(
                            vec![Var::new(&v, T::V(*d), None), Var::counter(&t, trip)],
                            |g| g.strided_vector(&len, Some(&v), depth),
                        );
                        let init = self.vector(*d, depth + 2);
                        format!("ifold({cnt}, {init}, |{v}, {t}| {inner})")
                    }
                    _ => self.strided_vector(&len, None, depth),
                }
            }
            _ => {
                let len = if self.r.one_in(3) {
                    Len::lit(2 + self.r.below(15))
                } else {
                    Len::of(self.vec_dim())
                };
                match self.r.below(6) {
                    0 => self.strided_fold(&len, depth),
                    1 | 5 => self.decimation(depth),
                    2 => {
                        let v = self.deinterleave(&len, depth);
                        format!("sum({v})")
                    }
                    _ => {
                        let v = self.strided_vector(&len, None, depth);
                        let f = ["sum", "sqnorm", "vmax"][self.r.below(3)];
                        format!("{f}({v})")
                    }
                }
            }
        }
    }

    /// `build(d, |i| x[k * i + c] ..)` of `x` of `k * d` elements (let-bound, or written
    /// in the read); in a fold whose state `acc` has `d` elements, it is read too.
    fn strided_vector(&mut self, d: &Len, acc: Option<&str>, depth: usize) -> String {
        let k = 2 + self.r.below(3);
        let src = self.strided_source(k, d, depth);
        let inline = self.r.one_in(4);
        let x = if inline {
            format!("({src})")
        } else {
            self.name("x")
        };
        let i = self.name("di");
        let elem = match self.r.below(5) {
            0 => {
                // Every phase of the stride, weighted.
                let terms: Vec<String> = (0..k)
                    .map(|c| {
                        let at = self.stride_at(k, &i, c);
                        format!("{x}[{at}]")
                    })
                    .collect();
                format!("({}) * 0.25", terms.join(" + "))
            }
            1 => {
                let c = self.r.below(k);
                let at = self.stride_at(k, &i, c);
                let e = self.sub_scalar(vec![d.index(&i)], true, depth);
                format!("{x}[{at}] * 0.5 + {e}")
            }
            _ => {
                let c = self.r.below(k);
                let at = self.stride_at(k, &i, c);
                format!("{x}[{at}]")
            }
        };
        let elem = match acc {
            Some(v) => format!("{v}[{i}] * 0.5 + {elem}"),
            None => elem,
        };
        let b = format!("build({}, |{i}| {elem})", d.text);
        if inline {
            b
        } else {
            format!("{{ let {x} = {src}; {b} }}")
        }
    }

    /// A fold summing strided reads: `ifold(d, init, |acc, i| acc * 0.5 + x[k * i + c] *
    /// e)`.
    fn strided_fold(&mut self, d: &Len, depth: usize) -> String {
        let k = 2 + self.r.below(3);
        let src = self.strided_source(k, d, depth);
        let (x, acc, i) = (self.name("x"), self.name("acc"), self.name("di"));
        let c = self.r.below(k);
        let at = self.stride_at(k, &i, c);
        let e = self.sub_scalar(vec![d.index(&i)], true, depth);
        let init = self.flit();
        format!(
            "{{ let {x} = {src}; ifold({}, {init}, |{acc}, {i}| {acc} * 0.5 + {x}[{at}] * {e}) }}",
            d.text
        )
    }

    /// A decimation reading only `x[2 * i]` (or `x[2 * i + 1]`) over `d`, of `2 * d`
    /// elements, or of `2 * d - 1` (no size is divided: a size division must be exact).
    fn decimation(&mut self, depth: usize) -> String {
        let d = self.vec_dim_indexable();
        let i = self.name("di");
        let x = self.name("x");
        let (src, at) = if self.r.one_in(2) {
            let src = self.strided_source(2, &Len::of(d), depth);
            let at = if self.r.one_in(2) {
                format!("2 * {i}")
            } else {
                format!("2 * {i} + 1")
            };
            (src, at)
        } else {
            let j = self.name("j");
            let e = self.sub_scalar(vec![Var::counter(&j, 2 * d.max())], false, depth);
            (
                format!("build(2 * {} - 1, |{j}| {e})", d.paren()),
                format!("2 * {i}"),
            )
        };
        let f = ["sum", "sqnorm", "vmax"][self.r.below(3)];
        format!(
            "{{ let {x} = {src}; {f}(build({}, |{i}| {x}[{at}])) }}",
            d.text()
        )
    }

    /// A fold whose state of `2 * d` elements is de-interleaved each step (its even
    /// elements, then its odd ones): `build(2 * d, |j| if j < d { v[2 * j] } else { v[2 *
    /// (j - d) + 1] })`, counted by a parameter so that odd and even counts run.
    fn deinterleave(&mut self, d: &Len, depth: usize) -> String {
        let (cnt, _) = self.steps(2 * d.max);
        let (v, t, j) = (self.name("v"), self.name("t"), self.name("di"));
        let init = match d.d {
            Some(D::N) if self.r.one_in(2) => self.vector(D::TwoN, depth + 2),
            _ => {
                let z = self.name("j");
                let e = self.sub_scalar(vec![Var::counter(&z, 2 * d.max)], false, depth);
                format!("build(2 * {}, |{z}| {e})", d.op)
            }
        };
        let mix = if self.r.one_in(2) {
            format!(" * 0.5 + ({t} as {}) * 0.25", self.fl())
        } else {
            String::new()
        };
        format!(
            "ifold({cnt}, {init}, |{v}, {t}| build(2 * {}, |{j}| if {j} < {} {{ {v}[2 * {j}]{mix} }} else {{ {v}[2 * ({j} - {}) + 1] }}))",
            d.op, d.op, d.op
        )
    }

    /// An image of `2 * r` rows of `2 * c` read into `r` rows of `c`: one pixel of each
    /// 2 x 2 block (`img[2 * i + a][2 * j + b]`), or their mean.
    fn strided_image(&mut self, r: D, c: D, depth: usize) -> String {
        let (img, i, j) = (self.name("img"), self.name("di"), self.name("dj"));
        let src = match self.r.below(3) {
            0 if self.v2 => {
                let (bind, q) = self.mat_var(r, c, depth);
                let y = self.name("y");
                let other = self.vec_var_or_param(c);
                format!(
                    "{{ {bind}build(2 * {}, |{y}| interleave({q}[{y} / 2], {other})) }}",
                    r.paren()
                )
            }
            1 => {
                let (bind, q) = self.mat_var(r, c, depth);
                let (y, z) = (self.name("y"), self.name("z"));
                let e = self.sub_scalar(
                    vec![Var::counter(&y, 2 * r.max()), Var::counter(&z, 2 * c.max())],
                    true,
                    depth,
                );
                format!(
                    "{{ {bind}build(2 * {}, |{y}| build(2 * {}, |{z}| {q}[{y} / 2][{z} / 2] * 0.5 + {e})) }}",
                    r.paren(),
                    c.paren()
                )
            }
            _ => {
                let (y, z) = (self.name("y"), self.name("z"));
                let e = self.sub_scalar(
                    vec![Var::counter(&y, 2 * r.max()), Var::counter(&z, 2 * c.max())],
                    false,
                    depth,
                );
                format!(
                    "build(2 * {}, |{y}| build(2 * {}, |{z}| {e}))",
                    r.paren(),
                    c.paren()
                )
            }
        };
        let pix = |g: &mut Gen, a: usize, b: usize| {
            let (ra, cb) = (g.stride_at(2, &i, a), g.stride_at(2, &j, b));
            format!("{img}[{ra}][{cb}]")
        };
        let elem = if self.r.one_in(3) {
            let ps: Vec<String> = [(0, 0), (0, 1), (1, 0), (1, 1)]
                .iter()
                .map(|&(a, b)| pix(self, a, b))
                .collect();
            format!("({}) * 0.25", ps.join(" + "))
        } else {
            let (a, b) = (self.r.below(2), self.r.below(2));
            pix(self, a, b)
        };
        format!(
            "{{ let {img} = {src}; build({}, |{i}| build({}, |{j}| {elem})) }}",
            r.text(),
            c.text()
        )
    }

    /// A matrix of `r` rows of `c` to read at computed rows: a variable or parameter, or
    /// a matrix bound by a `let` first. The `let` (or nothing) and the name.
    fn mat_var(&mut self, r: D, c: D, depth: usize) -> (String, String) {
        if (r, c) == (D::N, D::M) && self.r.one_in(2) {
            return (String::new(), "c".into());
        }
        if let Some(v) = self.pick_var(&T::M(r, c))
            && !self.r.one_in(3)
        {
            return (String::new(), v);
        }
        let (q, m) = (self.name("q"), self.matrix(r, c, depth + 2));
        (format!("let {q} = {m}; "), q)
    }

    // ---- Index tests --------------------------------------------------------------------

    /// A build whose element tests its index, of type `want`; for a scalar, such a build of
    /// a literal count (20, ..) or a size, summed or read.
    fn index_tests(&mut self, want: &T, depth: usize) -> String {
        match want {
            T::V(d) => match (*d, self.r.below(2)) {
                (D::TwoN, 0) => self.halves(&Len::of(D::N), true, depth),
                (D::NpM, 0) => self.halves_npm(depth),
                _ => self.tested_build(&Len::of(*d), depth),
            },
            T::M(r, c) => self.tested_rows(*r, *c, depth),
            _ => {
                let len = match self.r.below(3) {
                    0 => Len::lit([20, 8, 12, 5, 16][self.r.below(5)]),
                    _ => Len::of(self.vec_dim()),
                };
                let v = match self.r.below(2) {
                    0 => self.halves(&len, false, depth),
                    _ => self.tested_build(&len, depth),
                };
                if len.min >= 1 && self.r.one_in(3) {
                    let at = self.r.below(len.min);
                    format!("({v})[{at}]")
                } else {
                    let f = ["sum", "sqnorm", "vmax"][self.r.below(3)];
                    format!("{f}({v})")
                }
            }
        }
    }

    /// `build(n, |i| if <test of i> { .. } else { .. })`.
    fn tested_build(&mut self, n: &Len, depth: usize) -> String {
        let i = self.name("ti");
        let x = self.name("x");
        // An array of `n` elements the branches read at neighbours their test makes safe.
        let src = self.source(n, depth);
        let e = |g: &mut Gen| g.sub_scalar(vec![n.index(&i)], false, depth);
        let (nt, no) = (n.text.clone(), n.op.clone());
        let k = 1 + self.r.below(5);
        let body = match self.r.below(9) {
            0 => {
                let (a, b) = (e(self), e(self));
                format!("if {i} < {k} {{ {a} }} else {{ {b} }}")
            }
            1 => {
                let test = if n.min >= 2 {
                    format!("{i} >= {no} - 2")
                } else {
                    format!("{i} + 2 >= {no}")
                };
                let b = e(self);
                format!("if {test} {{ {x}[{i}] * 0.5 }} else {{ {b} }}")
            }
            2 => {
                let c = match self.r.below(3) {
                    0 => "p".to_string(),
                    1 if n.min >= 1 => format!("{no} - 1"),
                    _ => self.r.below(4).to_string(),
                };
                let (a, b) = (e(self), e(self));
                format!("if {i} == {c} {{ {a} }} else {{ {b} }}")
            }
            3 => {
                let b = e(self);
                format!(
                    "if {i} > 0 && {i} + 1 < {no} {{ ({x}[{i} - 1] + {x}[{i} + 1]) * 0.5 - {x}[{i}] }} else {{ {b} }}"
                )
            }
            4 | 8 if n.min >= 1 => {
                let o = self.r.below(3);
                let q = self.name("q");
                let b = e(self);
                format!(
                    "{{ let {q} = if {i} + {o} == 0 {{ 0 }} else if {i} + {o} > {no} {{ {no} - 1 }} else {{ {i} + {o} - 1 }}; {x}[{q}] * 0.5 + {b} }}"
                )
            }
            5 => {
                let (a, b, c) = (e(self), e(self), e(self));
                format!("if {i} < {k} {{ {a} }} else if {i} + {k} >= {no} {{ {b} }} else {{ {c} }}")
            }
            6 => {
                // A shift with a fill: the read is below `n` only where the test holds.
                let b = e(self);
                if self.r.one_in(2) {
                    format!("if {i} >= {k} {{ {x}[{i} - {k}] }} else {{ {b} }}")
                } else {
                    format!("if {i} + {k} < {no} {{ {x}[{i} + {k}] }} else {{ {b} }}")
                }
            }
            _ => {
                let (a, b) = (e(self), e(self));
                let test = match self.r.below(3) {
                    0 => format!("{i} < m"),
                    1 => format!("{i} % 2 == 0"),
                    _ => format!("2 * {i} < {no}"),
                };
                format!("if {test} {{ {a} }} else {{ {b} }}")
            }
        };
        if body.contains(&x) {
            format!("{{ let {x} = {src}; build({nt}, |{i}| {body}) }}")
        } else {
            format!("build({nt}, |{i}| {body})")
        }
    }

    /// The halves of a build over `d + d` (`2 * d`), one reading a matrix-vector product
    /// (`matvec(q, x)[i]`, or a row of `q` summed by an `ifold`), the other anything:
    /// `build(d + d, |i| if i < d { matvec(q, x)[i] } else { 3.0 })`. For `two_n`, `d` is
    /// `n` and the result's type is written `2 * n`.
    fn halves(&mut self, d: &Len, two_n: bool, depth: usize) -> String {
        // Its matrix-vector product may be computed for each element: not of n * m rows.
        let d = &match d.d {
            Some(D::NxM) => Len::of(D::N),
            _ => d.clone(),
        };
        let cols = [D::M, D::N, D::Three][self.r.below(3)];
        let i = self.name("ti");
        let (q, x) = (self.name("q"), self.name("x"));
        let qv = match d.d {
            Some(dd) => self.matrix(dd, cols, depth + 2),
            None => {
                let (z, row) = (self.name("z"), self.vector(cols, depth + 2));
                format!("build({}, |{z}| {row})", d.text)
            }
        };
        let xv = self.vector(cols, depth + 2);
        let other = self.sub_scalar(vec![Var::counter(&i, 2 * d.max)], false, depth);
        let three = self.flit();
        let other = if self.r.one_in(2) { three } else { other };
        let count = if two_n || self.r.one_in(2) {
            format!("2 * {}", d.op)
        } else {
            format!("{} + {}", d.op, d.op)
        };
        let body = if self.r.one_in(2) {
            format!(
                "if {i} < {} {{ matvec({q}, {x})[{i}] }} else {{ {other} }}",
                d.op
            )
        } else {
            let (acc, k) = (self.name("acc"), self.name("k"));
            let zero = self.lit_s("0.0");
            format!(
                "if {i} >= {} {{ ifold({}, {zero}, |{acc}, {k}| {acc} + {q}[{i} - {}][{k}] * {x}[{k}]) }} else {{ {other} }}",
                d.op,
                cols.text(),
                d.op
            )
        };
        format!("{{ let {q} = {qv}; let {x} = {xv}; build({count}, |{i}| {body}) }}")
    }

    /// `build(n + m, |i| if i < n { matvec(q, x)[i] } else { .. b[i - n] .. })`, or with
    /// the halves the other way round.
    fn halves_npm(&mut self, depth: usize) -> String {
        let cols = [D::M, D::Three][self.r.below(2)];
        let i = self.name("ti");
        let (bind, q) = self.mat_var(D::N, cols, depth);
        let x = self.vec_var_or_param(cols);
        let e = self.sub_scalar(vec![Var::counter(&i, 38)], true, depth);
        let b = if self.r.one_in(2) {
            format!(
                "build(n + m, |{i}| if {i} < n {{ matvec({q}, {x})[{i}] }} else {{ b[{i} - n] * {e} }})"
            )
        } else {
            format!(
                "build(n + m, |{i}| if {i} >= m {{ matvec({q}, {x})[{i} - m] }} else {{ b[{i}] * {e} }})"
            )
        };
        if bind.is_empty() {
            b
        } else {
            format!("{{ {bind}{b} }}")
        }
    }

    /// A matrix whose rows or elements test their indexes: one row replaced, a diagonal,
    /// the interior rows averaged with their neighbours.
    fn tested_rows(&mut self, r: D, c: D, depth: usize) -> String {
        let (i, j) = (self.name("ti"), self.name("tj"));
        match self.r.below(3) {
            0 => {
                let k = self.r.below(4);
                let (a, b) = self.with_vars(vec![Var::new(&i, T::U, Some(r))], |g| {
                    (g.vector(c, depth + 2), g.vector(c, depth + 2))
                });
                format!(
                    "build({}, |{i}| if {i} == {k} {{ {a} }} else {{ {b} }})",
                    r.text()
                )
            }
            1 => {
                let vars = || vec![Var::new(&i, T::U, Some(r)), Var::new(&j, T::U, Some(c))];
                let a = self.sub_scalar(vars(), false, depth);
                let b = self.sub_scalar(vars(), false, depth);
                let z = self.flit();
                format!(
                    "build({}, |{i}| build({}, |{j}| if {i} == {j} {{ {a} }} else if {i} < {j} {{ {b} }} else {{ {z} }}))",
                    r.text(),
                    c.text()
                )
            }
            _ => {
                let (bind, x) = self.mat_var(r, c, depth);
                let no = r.paren();
                let half = self.lit_s("0.5");
                format!(
                    "{{ {bind}build({}, |{i}| if {i} > 0 && {i} + 1 < {no} {{ smul(add({x}[{i} - 1], {x}[{i} + 1]), {half}) }} else {{ {x}[{i}] }}) }}",
                    r.text()
                )
            }
        }
    }
}
