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
//!
//! **Typed programs** (LANGUAGE.md sections 10 and 11), written only when [`Config::typed`]
//! is on ([`program_with`]; [`program`] reads it from `FSMOOTH_PROGEN_TYPED`, off by
//! default, so that the programs of a seed stay what they were until the compiler supports
//! them): three programs in four are typed. Half of those are f32 programs (every float
//! parameter, value and result `f32`; literals typed by their context, or suffixed `f32`
//! where no type flows into them; casts to f64 and back inside the kernel), half f64 ones
//! with casts to f32 and back; half take index arrays `ix: [usize; g]` (indexes below n)
//! and `jx: [[usize; 2]; g]` (below n, then below m) used as gathers (`a[ix[j]]`,
//! `c[jx[j][0]][jx[j][1]]`), whose inputs sometimes hold a bad index ([`Inputs::bad`]).
//! Typed programs also have usize arrays as locals and results (an argmax per row, `x as
//! usize` of bounded floats, `(i + 1).min(n - 1)`, usize scans), `min`/`max`/`clamp` on
//! usize, and the math methods of version 2 (`atan2 asin acos atan sinh cosh hypot cbrt
//! exp2 log2 log10 signum mul_add clamp`). The rest is drawn as before, so the constructs
//! of versions 1 and 2 keep most of their share.
//!
//! **Loop shapes** (`shapes.rs`), also written only when [`Config::typed`] is on, in typed
//! and untyped programs alike, unless `FSMOOTH_PROGEN_SHAPES=0`: one scalar, vector or
//! matrix expression in 16 is an `ifold` whose state is a tuple of arrays (of a literal
//! length 2 to 16 or a size) and scalars reading one another, counted by `p`, `p + 1`,
//! `2 * p + 1`, `n`, `m` or `m - 1` (so both parities, 0 and 1 among them); strided reads
//! (`x[k * i + c]` of `k * d` elements, decimations `x[2 * i]`, images read by 2 x 2
//! blocks, folds de-interleaving their state); or builds testing their index (`i < 4`,
//! `i >= n - 2`, `i == c`, `i > 0 && i + 1 < n`, `else if` chains, clamps as `if` chains,
//! halves of `2 * d` elements one of which reads a matrix-vector product). Of 1,000
//! programs, about 190, 215 and 215 have each.
//!
//! **Loops that stop and scatters** (`loops.rs`, LANGUAGE.md sections 14 and 15), also
//! written only when [`Config::typed`] is on, unless `FSMOOTH_PROGEN_LOOPS=0`: one scalar,
//! vector, matrix, usize or usize vector expression in 72 is an `iterate` (searches bounded
//! by a size or a literal, float states with a step counter, array states, resampling scans)
//! or a `scatter_add` / `reduce_by_index` (`+ max min *`, scalars, usize counts and rows).
//! Of 2,000 programs, about 180 have an `iterate`, 100 a `scatter_add`, 90 a
//! `reduce_by_index`, 360 (18%) one of them. [`Program::reverse`] says whether `vjp` and
//! `grad` take the program.

mod array;
mod inputs;
mod loops;
mod scalar;
mod shapes;
mod state;
mod tuple;
mod ty;
mod typed;
mod view;

pub use crate::Rng;
pub use inputs::{ArgValue, Inputs, Param, inputs};
use inputs::{params, params_text};
use state::{Gen, Helper, Var};
use ty::T;
pub use ty::{D, Elem};

/// Whether [`program`] writes typed programs when `FSMOOTH_PROGEN_TYPED` is not set (the
/// planned digest sets it off, so that the digest stays that of the untyped programs).
pub const TYPED_BY_DEFAULT: bool = true;

/// What the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Typed programs (LANGUAGE.md sections 10 and 11, see the module's documentation),
    /// and the loop shapes of `shapes.rs`. Off, every seed gives the program it always has.
    pub typed: bool,
}

impl Config {
    /// [`TYPED_BY_DEFAULT`], unless `FSMOOTH_PROGEN_TYPED` is set: `1` (or anything but `0`
    /// and empty) switches typed programs on, `0` off.
    pub fn from_env() -> Config {
        let typed = match std::env::var("FSMOOTH_PROGEN_TYPED") {
            Ok(v) if v.is_empty() || v == "0" => false,
            Ok(_) => true,
            Err(_) => TYPED_BY_DEFAULT,
        };
        Config { typed }
    }
}

/// Whether the loop shapes of `shapes.rs` are on (in a program generated with
/// [`Config::typed`]): unless `FSMOOTH_PROGEN_SHAPES` is `0`, for a run of the differentials
/// over the programs as they were before them.
fn shapes_from_env() -> bool {
    std::env::var("FSMOOTH_PROGEN_SHAPES").as_deref() != Ok("0")
}

/// Whether the forms of `loops.rs` (`iterate`, `scatter_add`, `reduce_by_index`) are on (in
/// a program generated with [`Config::typed`]): unless `FSMOOTH_PROGEN_LOOPS` is `0`.
fn loops_from_env() -> bool {
    std::env::var("FSMOOTH_PROGEN_LOOPS").as_deref() != Ok("0")
}

/// A generated program and the result type of its kernel `k`.
pub struct Program {
    /// The block's source.
    pub src: String,
    /// The program's float type: every float parameter and result of `k` has it.
    pub fl: Elem,
    /// The kernel's parameters, in order.
    pub params: Vec<Param>,
    /// The kernel's result type as written (`"f64"`, `"[f64; n + m]"`,
    /// `"(f64, [[f64; m]; n])"`, ..).
    pub ret: String,
    /// The kernel's results in position order: one for a kernel returning a scalar or an
    /// array, one per component for a tuple.
    pub parts: Vec<Part>,
    /// May `vjp` and `grad` differentiate the kernel? False when it has an `iterate`
    /// carrying a float or a `reduce_by_index` other than a scalar addition (LANGUAGE.md
    /// sections 14 and 15: reverse mode refuses them); `jvp` takes every program.
    pub reverse: bool,
    /// Is the kernel's body a scatter whose indexes may be past the end (so that it fails
    /// with `Error::Index` on some inputs, and must fail alike compiled and interpreted)?
    /// A derivative that does not read the kernel's value may drop it, and its error with
    /// it, where the interpreter, which computes everything, fails.
    pub scatter_body: bool,
}

/// One result of a kernel: a scalar, or an array whose slots are the product of sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The sizes of an array, outermost first; empty for a scalar.
    pub dims: Vec<D>,
    /// Its element type (its type, for a scalar).
    pub elem: Elem,
}

impl Part {
    /// Is it an array (written into an output) rather than a returned scalar?
    pub fn is_array(&self) -> bool {
        !self.dims.is_empty()
    }

    /// The number of elements of an array on inputs `i` (1 for a scalar).
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

    /// The kernel's size names in the order `k::out_len` and `k::scratch_len` take them
    /// (first appearance in the signature): `n, m, p`, then `g` with index arrays.
    pub fn size_names(&self) -> &'static [&'static str] {
        if self.params.iter().any(|p| p.name == "ix") {
            &["n", "m", "p", "g"]
        } else {
            &["n", "m", "p"]
        }
    }

    /// The program as two blocks, as issue 19's shared code is written: its helpers in a
    /// block declaring `pub mod helpers;`, and the kernel in a block that imports them
    /// (`use crate::helpers::{twice, h0};`, or a glob for odd `seed`s). The helpers
    /// block first. Compiled, the kernel must be exactly the one-block program's.
    pub fn split_blocks(&self, seed: u64) -> (String, String) {
        let at = self.src.find("pub fn k(").unwrap_or(self.src.len());
        let (helpers, kernel) = self.src.split_at(at);
        let names: Vec<&str> = helpers
            .lines()
            .filter_map(|l| l.strip_prefix("fn "))
            .filter_map(|l| l.split('(').next())
            .collect();
        let import = if seed % 2 == 1 {
            "*".to_string()
        } else {
            format!("{{{}}}", names.join(", "))
        };
        (
            format!("pub mod helpers;\n{helpers}"),
            format!("use crate::helpers::{import};\n{kernel}"),
        )
    }

    /// Does the kernel take an index array holding the bad index of `i` ([`Inputs::bad`])?
    /// Then it may fail with `Error::Index` where the interpreter does not.
    pub fn bad_index(&self, i: &Inputs) -> bool {
        self.params.iter().any(|p| p.has_bad_index(i))
    }
}

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

/// Program number `seed`, typed or not as [`Config::from_env`] says.
pub fn program(seed: u64) -> Program {
    program_with(seed, Config::from_env())
}

/// Program number `seed` of the generator configured by `cfg`.
pub fn program_with(seed: u64, cfg: Config) -> Program {
    let mut g = Gen {
        r: Rng::new(seed),
        vars: Vec::new(),
        fresh: 0,
        helpers: Vec::new(),
        v2: false,
        typed: false,
        fl: Elem::F64,
        gathers: false,
        shapes: cfg.typed && shapes_from_env(),
        loops: cfg.typed && loops_from_env(),
        reverse: true,
        expect: false,
    };
    g.v2 = !g.r.one_in(3);
    if cfg.typed && !g.r.one_in(4) {
        g.typed = true;
        if g.r.one_in(2) {
            g.fl = Elem::F32;
        }
        g.gathers = g.r.one_in(2);
    }
    let fl = g.fl.text();
    let sig = params_text(g.fl, g.gathers);
    let mut src = format!(
        "fn twice(v: [{fl}; q], f: fn({fl}) -> {fl}) -> [{fl}; q] {{ build(q, |i| f(f(v[i]))) }}\n",
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
        // A declared result type flows into the body's literals (unless it is a tuple).
        let expect = !matches!(ret, T::Tup(_));
        let body = g.with_vars(vars, |g| g.expr_e(expect, &ret, 2));
        let extra = param
            .as_ref()
            .map(|t| format!(", t: {}", t.text(g.fl)))
            .unwrap_or_default();
        src += &format!(
            "fn {name}({sig}{extra}) -> {} {{ {body} }}\n",
            ret.text(g.fl)
        );
        g.helpers.push(Helper { name, param, ret });
    }
    let t = if g.typed && g.r.one_in(4) {
        g.typed_ret()
    } else {
        kernel_ret(&mut g)
    };
    // Skip trivial bodies (`a`, `s`): they test nothing.
    let expect = !matches!(t, T::Tup(_));
    let mut body = g.expr_e(expect, &t, 0);
    while body.len() < 24 {
        body = g.expr_e(expect, &t, 0);
    }
    // Sometimes the whole body is a scatter whose indexes may be past the end, so that
    // both sides must fail alike (`Error::Index`).
    let scatter_body = g.loops && matches!(t, T::V(_) | T::UV(_) | T::M(..)) && g.r.one_in(20);
    if scatter_body {
        body = g.top_scatter(&t);
    }
    src += &format!("pub fn k({sig}) -> {} {{\n    {body}\n}}\n", t.text(g.fl));
    let part = |t: &T| Part {
        dims: t.dims(),
        elem: t.elem(g.fl),
    };
    let parts = match &t {
        T::Tup(ts) => ts.iter().map(part).collect(),
        t => vec![part(t)],
    };
    Program {
        src,
        fl: g.fl,
        params: params(g.fl, g.gathers),
        ret: t.text(g.fl),
        parts,
        reverse: g.reverse,
        scatter_body,
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
            // (`split(` is in about 5% of programs: 15 of 300 is its mean.)
            let least = if word == "split(" { 10 } else { 15 };
            assert!(k >= least, "`{word}` in {k} of 300 programs");
        }
        // Issue 21's shapes: stencils with fixed ends, folds replacing one row a step.
        for (word, least) in [("; let hi", 5), ("} else { acc", 5)] {
            let k = count(&|p| p.src.contains(word));
            assert!(k >= least, "`{word}` in {k} of 300 programs");
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

    /// The loop shapes of `shapes.rs` (with typed programs on): state folds counted by a
    /// parameter, strided reads, builds testing their index; each in well over a tenth of
    /// the programs, and none without them.
    #[test]
    fn programs_have_the_loop_shapes_of_shapes_rs() {
        if !shapes_from_env() {
            return;
        }
        // A closure binding a name `base` followed by digits (`|di3|`, `, st12|`).
        fn binds(src: &str, base: &str) -> bool {
            src.match_indices(base).any(|(k, _)| {
                let before = src[..k].ends_with('|') || src[..k].ends_with(", ");
                let digits: String = src[k + base.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                before
                    && !digits.is_empty()
                    && src[k + base.len() + digits.len()..].starts_with('|')
            })
        }
        let progs: Vec<Program> = (0..600)
            .map(|j| program_with(j, Config { typed: true }))
            .collect();
        let count = |f: &dyn Fn(&Program) -> bool| progs.iter().filter(|p| f(p)).count();
        let folds = count(&|p| binds(&p.src, "st"));
        let strided = count(&|p| binds(&p.src, "di"));
        let tested = count(&|p| binds(&p.src, "ti"));
        assert!(
            folds >= 60 && strided >= 60 && tested >= 60,
            "{folds} {strided} {tested}"
        );
        for (word, least) in [
            ("|_|", 30),
            ("let img", 10),
            (") % ", 60),
            ("} else if ti", 20),
            ("matvec(", 20),
            ("- 1, |j", 5),
        ] {
            let k = count(&|p| p.src.contains(word));
            assert!(k >= least, "`{word}` in {k} of 600 programs");
        }
        for j in 0..300 {
            let p = program_with(j, Config { typed: false });
            for base in ["st", "di", "ti"] {
                assert!(!binds(&p.src, base), "`{base}` in program {j}:\n{}", p.src);
            }
        }
    }

    /// The forms of `loops.rs` (with typed programs on): `iterate`, `scatter_add` and
    /// `reduce_by_index` each in some programs, all of them together in a moderate share
    /// (so that the rest keeps its coverage), and none without typed programs; programs
    /// that reverse mode refuses are marked.
    #[test]
    fn programs_have_the_forms_of_loops_rs() {
        if !loops_from_env() {
            return;
        }
        let progs: Vec<Program> = (0..600)
            .map(|j| program_with(j, Config { typed: true }))
            .collect();
        let count = |f: &dyn Fn(&Program) -> bool| progs.iter().filter(|p| f(p)).count();
        let has = |p: &Program, w: &str| p.src.contains(w);
        let iterate = count(&|p| has(p, "iterate("));
        let scatter = count(&|p| has(p, "scatter_add("));
        let reduce = count(&|p| has(p, "reduce_by_index("));
        let any =
            count(&|p| has(p, "iterate(") || has(p, "scatter_add(") || has(p, "reduce_by_index("));
        eprintln!(
            "of 600 programs: iterate {iterate}, scatter_add {scatter}, reduce_by_index {reduce}, any {any}"
        );
        assert!(
            iterate >= 30 && scatter >= 15 && reduce >= 15,
            "{iterate} {scatter} {reduce}"
        );
        assert!((60..=150).contains(&any), "{any}");
        for (word, least) in [("iterate((", 15), ("scan(", 30), ("|_| ", 5)] {
            let k = count(&|p| has(p, word));
            assert!(k >= least, "`{word}` in {k} of 600 programs");
        }
        let refused = count(&|p| !p.reverse);
        assert!(refused > 0 && refused < any, "{refused} {any}");
        for p in &progs {
            if p.reverse {
                assert!(!has(p, ".min(1000.0) * 0.5"), "{}", p.src);
            }
        }
        for j in 0..300 {
            let p = program_with(j, Config { typed: false });
            for word in ["iterate(", "scatter_add(", "reduce_by_index("] {
                assert!(!p.src.contains(word), "`{word}` in program {j}:\n{}", p.src);
            }
            assert!(p.reverse);
        }
    }

    /// Without typed programs, nothing of sections 10 and 11 appears: every seed gives the
    /// program it gave before they existed.
    #[test]
    fn untyped_programs_have_no_typed_constructs() {
        for j in 0..300 {
            let p = program_with(j, Config { typed: false });
            for word in [
                "f32", "[usize;", "ix", "jx", ".clamp(", "mul_add", "as usize",
            ] {
                assert!(!p.src.contains(word), "`{word}` in program {j}:\n{}", p.src);
            }
            assert_eq!(p.fl, Elem::F64);
            assert_eq!(p.params.len(), 5);
            assert!(p.parts.iter().all(|q| q.elem == Elem::F64));
        }
    }

    /// Typed programs: a quarter are written as before, half of the others in f32, half take
    /// index arrays; gathers, usize arrays and results, casts both ways, suffixed literals
    /// and every math method of version 2 occur at a useful rate.
    #[test]
    fn typed_programs_use_the_constructs_of_sections_10_and_11() {
        let progs: Vec<Program> = (0..600)
            .map(|j| program_with(j, Config { typed: true }))
            .collect();
        let count = |f: &dyn Fn(&Program) -> bool| progs.iter().filter(|p| f(p)).count();
        let f32s = count(&|p| p.fl == Elem::F32);
        let gathers = count(&|p| p.params.iter().any(|q| q.name == "ix"));
        assert!(
            (150..300).contains(&f32s) && (150..300).contains(&gathers),
            "{f32s} {gathers}"
        );
        for word in [
            "ix[", "jx[", "[usize;", "as usize", ").min(", ".clamp(", "mul_add", "as f64)",
            "as f32)", "0.5f32", "scan(", "concat(", "best",
        ] {
            let k = count(&|p| p.src.contains(word));
            assert!(k >= 30, "`{word}` in {k} of 600 programs");
        }
        for method in [
            "atan2", "hypot", "asin", "acos", "sinh", "cosh", "cbrt", "exp2", "log2", "log10",
            "signum", "atan()",
        ] {
            let k = count(&|p| p.src.contains(method));
            // (About 7 in 600 each, `exp2` the rarest.)
            assert!(k >= 3, "`{method}` in {k} of 600 programs");
        }
        // Literals by context in f32 programs: some unsuffixed literal next to a float.
        let by_context = count(&|p| p.fl == Elem::F32 && p.src.contains(" * 0.5 + "));
        assert!(by_context >= 50, "{by_context}");
        let usize_arrays = count(&|p| {
            p.parts
                .iter()
                .any(|q| q.elem == Elem::Usize && q.is_array())
        });
        assert!(usize_arrays >= 40, "{usize_arrays}");
        // The parameters' element types follow the program's float type.
        for p in &progs {
            let a = &p.params[0];
            assert_eq!((a.name, a.elem), ("a", p.fl));
            assert!(p.src.contains(&format!("a: [{}; n]", p.fl.text())));
        }
        // Every input of a program with index arrays has them in range but when it holds a
        // bad index, and some inputs do.
        let mut bad = 0;
        for j in 0..200 {
            for t in 0..4 {
                let i = inputs(j, t);
                let ok_ix = i.ix.iter().all(|&k| k < i.n);
                let ok_jx = i.jx.chunks(2).all(|r| r[0] < i.n && r[1] < i.m);
                assert_eq!(ok_ix && ok_jx, i.bad.is_none(), "{j} {t}");
                assert_eq!((i.ix.len(), i.jx.len()), (i.g, 2 * i.g));
                bad += usize::from(i.bad.is_some());
            }
        }
        assert!(bad >= 20, "{bad}");
    }
}
