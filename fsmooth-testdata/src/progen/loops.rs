//! The forms of LANGUAGE.md sections 14 and 15, written only when [`super::Config::typed`]
//! is on (and `FSMOOTH_PROGEN_LOOPS` is not `0`), like the loop shapes of `shapes.rs`:
//!
//! - **`iterate`** ([`Gen::search`], [`Gen::float_iterate`], [`Gen::array_iterate`],
//!   [`Gen::resample`]): searches by a `usize` state bounded by a size or a literal (`k < n
//!   && x[k] < t`, `k + 1 < d && cs[k] < u`, downwards from `d`), whose reads are in range
//!   because `&&` stops first; float states with a step counter in a tuple (`(v, c)` with `c
//!   < K`), or plain ones that provably shrink (`v.min(1000.0) * 0.5` while `v > 1.0`);
//!   array states, with a counter or with a counter kept in element 0; searches inside
//!   `build`s, `ifold`s and `scan`s (systematic resampling: a scan whose step runs a search
//!   from the previous state).
//! - **`scatter_add` and `reduce_by_index`** ([`Gen::scatter`]): scalar values (the
//!   program's float type, usize counts) and rows; operations `+` (twice as often),
//!   `max`, `min`, `*`; indexes in range (`i % d`, `((x[i] * (d as f64)) as usize).min(d -
//!   1)`, `ix[i] % d`, `d - 1 - i` over `d` steps); results returned, read (`sum`, `vmax`,
//!   an element), or bound and read again. A kernel whose whole body is a scatter
//!   ([`Gen::top_scatter`], one vector or matrix kernel in 20) has, two times in three,
//!   indexes that may be past the end (`i`, `i + 1`, `(x[i] * (d as f64)) as usize`), so
//!   that `Error::Index` is compared too: only there, since the compiled code drops a
//!   scatter nothing reads, and its error with it, where the interpreter computes it.
//!
//! Every `iterate` stops: its condition tests a counter below a literal, or an index below
//! a size, or a value that every step brings below its bound. A program that has an
//! `iterate` carrying a float, or a `reduce_by_index` other than a scalar addition, is
//! marked [`super::Program::reverse`] false: `vjp` and `grad` refuse those (section 14, 15).

use super::state::{Gen, Var};
use super::ty::{D, T};

/// Whether the generator also writes the shape the open finding of progen-v3's report
/// concerns (`FSMOOTH_PROGEN_SCATTER_FINDINGS=1`; off by default, since it fails the
/// differentials): a `scatter_add` of usize values or rows that may take no step (the
/// untyped interpreter cannot always tell the zeros' type; fsmooth-core's
/// tests/scatter_findings.rs). Finding 1, rows past the end, is fixed and always generated.
fn scatter_findings() -> bool {
    std::env::var("FSMOOTH_PROGEN_SCATTER_FINDINGS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The value type of a scatter's steps.
#[derive(Clone, Copy)]
enum Val {
    /// The program's float type.
    Fl,
    /// `usize`.
    U,
    /// A row of the program's float type, of that many elements.
    Row(D),
}

impl Gen {
    /// A float scalar of one of the module's forms.
    pub(super) fn loop_scalar(&mut self, depth: usize) -> String {
        let fl = self.fl();
        match self.r.below(9) {
            0 | 1 => {
                let (s, _) = self.search(depth);
                format!("(({s}) as {fl})")
            }
            2 | 3 => self.float_iterate(depth),
            4 => {
                let len = self.vec_dim_indexable();
                let v = self.array_iterate(len, depth);
                if self.r.one_in(2) {
                    format!("sum({v})")
                } else {
                    let at = self.r.below(len.min());
                    format!("({v})[{at}]")
                }
            }
            5 => {
                let d = self.vec_dim_indexable();
                let v = self.resample(d, depth);
                let at = self.r.below(d.min());
                format!("((({v})[{at}]) as {fl})")
            }
            _ => {
                let d = self.scatter_dim();
                let val = if self.r.one_in(4) { Val::U } else { Val::Fl };
                let h = self.scatter(d, val, depth, false);
                match val {
                    Val::U => {
                        let sum = format!("sum(map({h}, |q| (q as {fl})))");
                        if d.min() > 0 && self.r.one_in(2) {
                            format!("((({h})[{}]) as {fl})", self.r.below(d.min()))
                        } else {
                            sum
                        }
                    }
                    _ => match self.r.below(3) {
                        0 if d.min() > 0 => format!("({h})[{}]", self.r.below(d.min())),
                        1 => format!("vmax({h})"),
                        _ => format!("sum({h})"),
                    },
                }
            }
        }
    }

    /// A usize of one of the module's forms and the largest value it may have: a search.
    pub(super) fn loop_usize(&mut self, depth: usize) -> (String, u64) {
        self.search(depth)
    }

    /// A float vector of `d` elements of one of the module's forms.
    pub(super) fn loop_vector(&mut self, d: D, depth: usize) -> String {
        match self.r.below(7) {
            0 | 1 => self.array_iterate(d, depth),
            2 => {
                // A float state per element, from the element.
                let i = self.name("i");
                let body = self.with(&i, T::U, Some(d), |g| g.float_iterate(depth + 1));
                format!("build({}, |{i}| {body})", d.text())
            }
            3 if d.min() > 0 => {
                // A search per element, its result an index into a vector of `d`.
                let i = self.name("i");
                let x = self.vec_var_or_param(d);
                let s = self.with(&i, T::U, Some(d), |g| g.search(depth + 1).0);
                format!(
                    "build({}, |{i}| {x}[({s}).min({} - 1)] * 0.5)",
                    d.text(),
                    d.paren()
                )
            }
            _ => {
                let h = self.scatter(d, Val::Fl, depth, false);
                if self.r.one_in(3) {
                    // Bound, and read again.
                    let (v, j) = (self.name("h"), self.name("j"));
                    let e = self.with_vars(
                        vec![Var::new(&v, T::V(d), None), Var::new(&j, T::U, Some(d))],
                        |g| g.expecting(true, |g| g.scalar(depth + 2)),
                    );
                    format!(
                        "{{ let {v} = {h}; build({}, |{j}| {v}[{j}] * 0.5 + {e}) }}",
                        d.text()
                    )
                } else {
                    h
                }
            }
        }
    }

    /// A matrix of `r` rows of `c` of one of the module's forms: a scatter of rows, or an
    /// `iterate` over a matrix state.
    pub(super) fn loop_matrix(&mut self, r: D, c: D, depth: usize) -> String {
        if self.r.one_in(4) {
            let (w, k) = (self.name("w"), self.name("c"));
            let init = self.matrix(r, c, depth + 1);
            let (i, j) = (self.name("i"), self.name("j"));
            let steps = 1 + self.r.below(3);
            self.reverse = false;
            let e = self.with_vars(
                vec![
                    Var::new(&w, T::M(r, c), None),
                    Var::new(&i, T::U, Some(r)),
                    Var::new(&j, T::U, Some(c)),
                ],
                |g| g.expecting(true, |g| g.scalar(depth + 3)),
            );
            return format!(
                "iterate(({init}, 0), |(_, {k})| {k} < {steps}, |({w}, {k})| (build({}, |{i}| build({}, |{j}| {w}[{i}][{j}] * 0.5 + {e})), {k} + 1)).0",
                r.text(),
                c.text()
            );
        }
        self.scatter(r, Val::Row(c), depth, false)
    }

    /// A usize vector of `d` elements of one of the module's forms: a histogram (or
    /// another usize scatter), a resampling, a search per element.
    pub(super) fn loop_usize_vector(&mut self, d: D, depth: usize) -> String {
        match self.r.below(4) {
            0 | 1 => self.scatter(d, Val::U, depth, false),
            2 => self.resample(d, depth),
            _ => {
                let i = self.name("i");
                let body = self.with(&i, T::U, Some(d), |g| {
                    if g.r.one_in(2) {
                        g.search(depth + 1).0
                    } else {
                        // The count of a float iterate.
                        g.counted_iterate(depth + 1)
                    }
                });
                format!("build({}, |{i}| {body})", d.text())
            }
        }
    }

    // ---- iterate ------------------------------------------------------------------------

    /// A search by a usize state, and the largest value it may give: `iterate(k0, |k| k < d
    /// && x[k] < t, |k| k + 1)` and its variants, in range by `&&`.
    fn search(&mut self, depth: usize) -> (String, u64) {
        let d = self.vec_dim();
        let k = self.name("k");
        let (bind, x) = self.search_source(d, depth);
        // The threshold, evaluated at every step (it may read the state).
        let t = self.with_vars(vec![Var::counter(&k, d.max())], |g| {
            g.expecting(false, |g| g.scalar(depth + 2))
        });
        let cmp = ["<", "<=", ">", ">="][self.r.below(4)];
        let dp = d.paren();
        let mut start = 0;
        let s = match self.r.below(6) {
            0 | 1 => format!("iterate(0, |{k}| {k} < {dp} && {x}[{k}] {cmp} {t}, |{k}| {k} + 1)"),
            2 => {
                // From a start that may be past the end (then no step).
                let (k0, k0max) = self.usize_max(depth + 2);
                start = k0max;
                format!("iterate({k0}, |{k}| {k} + 1 < {dp} && {x}[{k}] {cmp} {t}, |{k}| {k} + 1)")
            }
            3 => format!("iterate({dp}, |{k}| {k} > 0 && {x}[{k} - 1] {cmp} {t}, |{k}| {k} - 1)"),
            4 => format!(
                "iterate(0, |{k}| {k} + 1 < {dp} && ({x}[{k}] + {x}[{k} + 1]) * 0.5 {cmp} {t}, |{k}| {k} + 2)"
            ),
            _ if d.min() > 0 => {
                let lim = 1 + self.r.below(12);
                format!("iterate(0, |{k}| {k} < {lim} && {x}[{k} % {dp}] {cmp} {t}, |{k}| {k} + 1)")
            }
            _ => format!("iterate(0, |{k}| {k} < {dp} && {x}[{k}] {cmp} {t}, |{k}| {k} + 1)"),
        };
        let max = (d.max() + 12).max(start);
        // Parenthesised: a block or a call may be an operand anywhere.
        if bind.is_empty() {
            (format!("({s})"), max)
        } else {
            (format!("({{ {bind}{s} }})"), max)
        }
    }

    /// The vector a search reads: a variable or parameter, a vector bound by a `let`
    /// first, or cumulative sums (a scan of absolute values, increasing). The `let` (or
    /// nothing) and the name.
    fn search_source(&mut self, d: D, depth: usize) -> (String, String) {
        match self.r.below(4) {
            0 | 1 => (String::new(), self.vec_var_or_param(d)),
            2 => {
                let x = self.name("x");
                let v = self.vector(d, depth + 2);
                (format!("let {x} = {v}; "), x)
            }
            _ => {
                let (cs, acc, i) = (self.name("cs"), self.name("acc"), self.name("i"));
                let v = self.vec_var_or_param(d);
                let zero = self.lit_s("0.0");
                (
                    format!(
                        "let {cs} = scan({}, {zero}, |{acc}, {i}| {acc} + {v}[{i}].abs()); ",
                        d.text()
                    ),
                    cs,
                )
            }
        }
    }

    /// A float `iterate`: a tuple state `(v, c)` (or `(u, w, c)`) with a step counter `c <
    /// K`, or a plain state that every step brings below its bound; its value, or its
    /// count as a float.
    fn float_iterate(&mut self, depth: usize) -> String {
        self.reverse = false;
        let fl = self.fl();
        let x0 = self.expecting(false, |g| g.scalar(depth + 2));
        let (v, w, c) = (self.name("v"), self.name("w"), self.name("c"));
        let lim = 1 + self.r.below(20);
        let trip = lim as u64;
        match self.r.below(7) {
            0 => format!("iterate({x0}, |{v}| {v} > 1.0, |{v}| {v}.min(1000.0) * 0.5)"),
            1 => format!("iterate({x0}, |{v}| {v} < 4.0, |{v}| {v}.max(0.0) + 1.0)"),
            2 => {
                let (cond, next) = match self.r.below(3) {
                    0 => (format!("{v}.abs() > 1.0"), format!("{v} * 0.5")),
                    1 => (format!("{v}.abs() < 1.0"), format!("{v} * 2.0")),
                    _ => (
                        format!("({v} * {v} - 2.0).abs() > 0.000001"),
                        format!("0.5 * ({v} + 2.0 / {v})"),
                    ),
                };
                let pick = self.r.below(3);
                let it = format!(
                    "iterate(({x0}, 0), |({v}, {c})| {c} < {lim} && {cond}, |({v}, {c})| ({next}, {c} + 1))"
                );
                match pick {
                    0 => format!("{it}.0"),
                    1 => format!("({it}.1 as {fl})"),
                    _ => {
                        let (a, b) = (self.name("x"), self.name("n"));
                        format!("{{ let ({a}, {b}) = {it}; {a} * ({b} as {fl}) }}")
                    }
                }
            }
            3 | 4 => {
                // A step of the rest of the generator, reading the state.
                let t = self.expecting(false, |g| g.scalar(depth + 2));
                let e = self.with_vars(
                    vec![Var::elem(&v, T::F, trip), Var::counter(&c, trip)],
                    |g| g.expecting(true, |g| g.scalar(depth + 2)),
                );
                format!(
                    "iterate(({x0}, 0), |({v}, {c})| {c} < {lim} && {v} < {t}, |({v}, {c})| ({v} * 0.5 + {e}, {c} + 1)).0"
                )
            }
            5 => {
                let y0 = self.expecting(false, |g| g.scalar(depth + 2));
                format!(
                    "iterate(({x0}, {y0}, 0), |({v}, _, {c})| {c} < {lim} && {v}.abs() < 10.0, |({v}, {w}, {c})| ({w}, {v} + {w} * 0.5, {c} + 1)).1"
                )
            }
            _ => {
                // The count of a float iterate, as a float.
                let n = self.counted_iterate(depth);
                format!("(({n}) as {fl})")
            }
        }
    }

    /// How many steps a float `iterate` takes (a usize), counted in its state: `iterate((x,
    /// 0), |(v, c)| c < K && v > 1.0, |(v, c)| (v * 0.5, c + 1)).1`.
    fn counted_iterate(&mut self, depth: usize) -> String {
        self.reverse = false;
        let x0 = self.expecting(false, |g| g.scalar(depth + 2));
        let (v, c) = (self.name("v"), self.name("c"));
        let lim = 1 + self.r.below(20);
        format!(
            "iterate(({x0}, 0), |({v}, {c})| {c} < {lim} && {v} > 1.0, |({v}, {c})| ({v} * 0.5, {c} + 1)).1"
        )
    }

    /// An array state of `d` elements: with a counter in a tuple (`(w, c)` with `c < K`,
    /// maybe also a test of the state), or plain, its element 0 counting up to a bound.
    fn array_iterate(&mut self, d: D, depth: usize) -> String {
        self.reverse = false;
        let (w, c, j) = (self.name("w"), self.name("c"), self.name("j"));
        let init = self.vector(d, depth + 1);
        let lim = 1 + self.r.below(4);
        let dp = d.paren();
        let e = self.with_vars(
            vec![Var::new(&w, T::V(d), None), Var::new(&j, T::U, Some(d))],
            |g| g.expecting(true, |g| g.scalar(depth + 3)),
        );
        let next = if d.min() > 0 && self.r.one_in(2) {
            format!("{w}[{j}] * 0.5 + {w}[({j} + 1) % {dp}] * 0.25 + ({e}) * 0.125")
        } else {
            format!("{w}[{j}] * 0.5 + {e}")
        };
        if d.min() > 0 && self.r.one_in(3) {
            // A plain array state: element 0 counts, from where it starts, up to 4.
            return format!(
                "iterate({init}, |{w}| {w}[0] < 4.0, |{w}| build({}, |{j}| if {j} == 0 {{ {w}[0].max(0.0) + 1.0 }} else {{ {next} }}))",
                d.text()
            );
        }
        let test = if self.r.one_in(2) {
            let t = self.expecting(false, |g| g.scalar(depth + 2));
            format!(" && sum({w}) > {t}")
        } else {
            String::new()
        };
        format!(
            "iterate(({init}, 0), |({w}, {c})| {c} < {lim}{test}, |({w}, {c})| (build({}, |{j}| {next}), {c} + 1)).0",
            d.text()
        )
    }

    /// Systematic resampling (LANGUAGE.md section 14): for each of `d` pointers, the index
    /// of the element of the cumulative sums of a vector that it lands in; a scan whose step
    /// runs a search from the previous state, or a build searching from 0.
    fn resample(&mut self, d: D, depth: usize) -> String {
        let len = self.vec_dim_indexable();
        let (cs, acc, i, tot) = (
            self.name("cs"),
            self.name("acc"),
            self.name("i"),
            self.name("tot"),
        );
        let (k, j, u, q) = (
            self.name("k"),
            self.name("j"),
            self.name("u"),
            self.name("k"),
        );
        let v = self.vec_var_or_param(len);
        let (zero, fl) = (self.lit_s("0.0"), self.fl());
        let lp = len.paren();
        let u0 = if self.r.one_in(2) {
            "0.5".to_string()
        } else {
            format!(
                "({}).min(1.0)",
                self.expecting(true, |g| g.scalar(depth + 2))
            )
        };
        let at = format!(
            "let {u} = (({j} as {fl}) + {u0}) / ({} as {fl}) * {tot};",
            d.paren()
        );
        let search = |from: &str| {
            format!("iterate({from}, |{q}| {q} + 1 < {lp} && {cs}[{q}] < {u}, |{q}| {q} + 1)")
        };
        let body = if self.r.one_in(3) {
            format!("build({}, |{j}| {{ {at} {} }})", d.text(), search("0"))
        } else {
            format!(
                "scan({}, 0, |{k}, {j}| {{ {at} {} }})",
                d.text(),
                search(&k)
            )
        };
        format!(
            "{{ let {cs} = scan({}, {zero}, |{acc}, {i}| {acc} + {v}[{i}].abs()); let {tot} = {cs}[{lp} - 1]; {body} }}",
            len.text()
        )
    }

    // ---- scatter_add, reduce_by_index ---------------------------------------------------

    /// A kernel's whole body that is a scatter of type `t` (a vector, usize vector or
    /// matrix) whose indexes may be past the end: it is computed whatever the inputs, so
    /// the compiled code must fail where the interpreter does.
    pub(super) fn top_scatter(&mut self, t: &T) -> String {
        match t {
            T::V(d) => self.scatter(*d, Val::Fl, 1, true),
            T::UV(d) => self.scatter(*d, Val::U, 1, true),
            T::M(r, c) => self.scatter(*r, Val::Row(*c), 1, true),
            _ => unreachable!("a scatter of {t:?}"),
        }
    }

    /// The length of a scatter read as a scalar: a size that is not 0 most of the time.
    fn scatter_dim(&mut self) -> D {
        if self.r.one_in(6) {
            self.vec_dim()
        } else {
            self.vec_dim_indexable()
        }
    }

    /// `scatter_add(d, cnt, |i| (k, v))` or `reduce_by_index(d, ne, |x, y| op, cnt, |i|
    /// (k, v))` with values `val`; its indexes in range unless `oob` (then one scatter in
    /// three has indexes that may be past the end: only where it is sure to be computed,
    /// since the compiled code drops what nothing reads and the interpreter does not).
    fn scatter(&mut self, d: D, val: Val, depth: usize, oob: bool) -> String {
        let fl = self.fl();
        // Which form (0 to 3: `reduce_by_index` with `+`, `max`, `min`, `*`; else
        // `scatter_add`).
        // (`+` twice as often: the respeller's `ReduceAddAsScatter` reads it.)
        let mut form = match self.r.below(9) {
            8 => 0,
            f => f,
        };
        let findings = scatter_findings();
        if d.min() == 0 && !matches!(val, Val::Fl) && !findings {
            // Over a length that may be 0, by as many steps: a start for when there are
            // none (see `no_zero`).
            form = self.r.below(4);
        }
        // The steps: over a vector size, so that `i` indexes vectors of it. Not 0 for a
        // `scatter_add` of usize values or rows: the interpreter gives float zeros for those
        // (finding 2 of progen-v3's report).
        let no_zero = form >= 4 && !matches!(val, Val::Fl) && !findings;
        let nd = if self.gathers && !no_zero && self.r.one_in(4) {
            D::G
        } else {
            let w = self.work();
            let nd = if no_zero {
                self.vec_dim_indexable()
            } else {
                self.vec_dim()
            };
            match nd {
                D::NxM if w > 1 => D::M,
                D::NpM | D::TwoN | D::Np2 if w > 100 => D::N,
                x => x,
            }
        };
        let oob = oob && !self.r.one_in(3);
        let i = self.name("si");
        let iv = || Var::new(&i, T::U, Some(nd));
        let dp = d.paren();
        let k = if d.min() == 0 && !oob {
            // A length that may be 0: steps over that size (forwards or backwards).
            return self.scatter_over(d, val, depth, form);
        } else if oob {
            // Possibly out of range: `Error::Index` on both sides.
            match self.r.below(4) {
                0 => i.clone(),
                1 => format!("{i} + 1"),
                2 if d.min() > 0 => format!("({i} * 7 + 3) % ({dp} + 1)"),
                _ => {
                    let x = self.vec_var_or_param(nd);
                    format!("(({x}[{i}]) * ({dp} as {fl})) as usize")
                }
            }
        } else {
            match self.r.below(5) {
                0 => format!("{i} % {dp}"),
                1 => format!("({i} * 7 + 3) % {dp}"),
                2 if nd == D::G && self.gathers => format!("ix[{i}] % {dp}"),
                2 | 3 => {
                    let x = self.vec_var_or_param(nd);
                    let x = if self.r.one_in(3) {
                        format!("{x}[{i}].abs()")
                    } else {
                        format!("{x}[{i}]")
                    };
                    format!("((({x}) * ({dp} as {fl})) as usize).min({dp} - 1)")
                }
                _ => {
                    let u = self.with_vars(vec![iv()], |g| g.usize_expr(depth + 2));
                    format!("({u}) % {dp}")
                }
            }
        };
        self.scatter_with(d, val, depth, form, nd, &i, k)
    }

    /// A scatter over a length `d` that may be 0, by steps over `d` itself: index `i` or
    /// `d - 1 - i`.
    fn scatter_over(&mut self, d: D, val: Val, depth: usize, form: usize) -> String {
        let i = self.name("si");
        let k = if self.r.one_in(2) {
            i.clone()
        } else {
            format!("{} - 1 - {i}", d.paren())
        };
        self.scatter_with(d, val, depth, form, d, &i, k)
    }

    /// The scatter of `form` (as [`Gen::scatter`] draws it) into `d` elements, of `nd`
    /// steps `i` going to index `k`.
    #[allow(clippy::too_many_arguments)]
    fn scatter_with(
        &mut self,
        d: D,
        val: Val,
        depth: usize,
        form: usize,
        nd: D,
        i: &str,
        k: String,
    ) -> String {
        let iv = || Var::new(i, T::U, Some(nd));
        let v = match val {
            Val::Fl => self.with_vars(vec![iv()], |g| {
                if g.r.one_in(3) {
                    let x = g.vec_var_or_param(nd);
                    format!("{x}[{i}]")
                } else {
                    g.expecting(false, |g| g.scalar(depth + 2))
                }
            }),
            Val::U => match self.r.below(3) {
                0 => "1".to_string(),
                1 => format!("{i} % 3 + 1"),
                _ => {
                    let u = self.with_vars(vec![iv()], |g| g.usize_expr(depth + 2));
                    format!("({u}) % 5 + 1")
                }
            },
            Val::Row(c) => self.with_vars(vec![iv()], |g| {
                if nd == D::N && c == D::M && g.r.one_in(2) {
                    format!("c[{i}]")
                } else {
                    g.vector(c, depth + 2)
                }
            }),
        };
        let step = format!("|{i}| ({k}, {v})");
        let (x, y) = (self.name("x"), self.name("y"));
        let cnt = nd.text();
        let reduce = |ne: String, op: String| {
            format!(
                "reduce_by_index({}, {ne}, |{x}, {y}| {op}, {cnt}, {step})",
                d.text()
            )
        };
        match (val, form) {
            (Val::Fl, 0) => reduce(self.lit_s("0.0"), format!("{x} + {y}")),
            (Val::Fl, 1) => {
                self.reverse = false;
                reduce(self.lit_s("-1000.0"), format!("{x}.max({y})"))
            }
            (Val::Fl, 2) => {
                self.reverse = false;
                reduce(self.lit_s("1000.0"), format!("{x}.min({y})"))
            }
            (Val::Fl, 3) => {
                self.reverse = false;
                reduce(self.lit_s("1.0"), format!("{x} * {y}"))
            }
            (Val::U, 0) => reduce("0".into(), format!("{x} + {y}")),
            // (Reverse mode refuses these too, though no differentiated value goes through
            // them: finding 3 of progen-v3's report.)
            (Val::U, 1..=3) => {
                self.reverse = false;
                match form {
                    1 => reduce("0".into(), format!("{x}.max({y})")),
                    2 => reduce("1000".into(), format!("{x}.min({y})")),
                    _ => reduce("1".into(), format!("{x} * {y}")),
                }
            }
            (Val::Row(c), 0..=3) => {
                self.reverse = false;
                let e = self.name("e");
                let (ne, op) = match self.r.below(4) {
                    0 => ("0.0", format!("{x}[{e}] + {y}[{e}]")),
                    1 => ("-1000.0", format!("{x}[{e}].max({y}[{e}])")),
                    2 => ("1000.0", format!("{x}[{e}].min({y}[{e}])")),
                    _ => ("1.0", format!("{x}[{e}] * {y}[{e}]")),
                };
                let ne = self.lit_s(ne);
                let ct = c.text();
                reduce(
                    format!("build({ct}, |_| {ne})"),
                    format!("build({ct}, |{e}| {op})"),
                )
            }
            _ => format!("scatter_add({}, {cnt}, {step})", d.text()),
        }
    }
}
