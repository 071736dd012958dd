//! The inputs of a generated kernel: sizes and values of every parameter, in each element
//! type a program may take them in, and the parameters of a program.

use super::ty::Elem;
use crate::Rng;

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
    /// `a` for an f32 program (each value of `a` rounded to f32).
    pub a32: Vec<f32>,
    /// `b` for an f32 program.
    pub b32: Vec<f32>,
    /// `c` for an f32 program.
    pub c32: Vec<f32>,
    /// `s` for an f32 program.
    pub s32: f32,
    /// Size of the index arrays `ix` and `jx` (may be 0).
    pub g: usize,
    /// `ix`, `g` indexes below `n` (into `a` and the rows of `c`), unless [`Inputs::bad`]
    /// names it.
    pub ix: Vec<usize>,
    /// `jx`, `g` rows of two indexes, row-major: below `n` (into `a`, the rows of `c`), then
    /// below `m` (into `b`, a row of `c`), unless [`Inputs::bad`] names it.
    pub jx: Vec<usize>,
    /// On some trials one index of `ix` or `jx` is out of range, to exercise the check of
    /// index arrays at entry (LANGUAGE.md section 10): the array (`"ix"` or `"jx"`) and the
    /// bad value. A kernel that uses that index array's column as an index may then fail
    /// with `Error::Index` (at entry, even where the reference interpreter never reaches the
    /// element), and must not succeed where the interpreter fails.
    pub bad: Option<(&'static str, usize)>,
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
    let (a, b, c, s) = (vec(&mut r, n), vec(&mut r, m), vec(&mut r, n * m), r.f64());
    // Drawn after everything programs without index arrays read, which stays as it was.
    let g = r.below(7);
    let mut ix: Vec<usize> = (0..g).map(|_| r.below(n)).collect();
    let mut jx: Vec<usize> = (0..g).flat_map(|_| [r.below(n), r.below(m)]).collect();
    let mut bad = None;
    if trial % 4 == 2 && prog.is_multiple_of(2) && g > 0 {
        let at = r.below(g);
        let over = r.below(3);
        bad = Some(match r.below(3) {
            0 => {
                ix[at] = n + over;
                ("ix", n + over)
            }
            1 => {
                jx[2 * at] = n + over;
                ("jx", n + over)
            }
            _ => {
                jx[2 * at + 1] = m + over;
                ("jx", m + over)
            }
        });
    }
    Inputs {
        g,
        ix,
        jx,
        bad,
        ..Inputs::new(n, m, a, b, c, s, p)
    }
}

impl Inputs {
    /// Inputs of the given sizes and values (the f32 ones rounded from them), without index
    /// arrays (`g` = 0).
    pub fn new(
        n: usize,
        m: usize,
        a: Vec<f64>,
        b: Vec<f64>,
        c: Vec<f64>,
        s: f64,
        p: usize,
    ) -> Inputs {
        let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        Inputs {
            n,
            m,
            a32: f32s(&a),
            b32: f32s(&b),
            c32: f32s(&c),
            s32: s as f32,
            a,
            b,
            c,
            s,
            p,
            g: 0,
            ix: Vec::new(),
            jx: Vec::new(),
            bad: None,
        }
    }
}

/// A parameter of a generated kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name.
    pub name: &'static str,
    /// Its element type (its own type for a scalar).
    pub elem: Elem,
    /// Is it an array (passed as a slice) rather than a scalar?
    pub array: bool,
}

/// The value of an argument, in its element type.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// An f64 scalar.
    F64(f64),
    /// An f32 scalar.
    F32(f32),
    /// A usize scalar.
    Usize(usize),
    /// An f64 array, flat and row-major.
    F64s(Vec<f64>),
    /// An f32 array, flat and row-major.
    F32s(Vec<f32>),
    /// A usize array, flat and row-major.
    Usizes(Vec<usize>),
}

impl Param {
    /// Its number of columns on inputs `i` if it is a matrix (`c` has `m`, `jx` 2); `None`
    /// for a vector or a scalar.
    pub fn cols(&self, i: &Inputs) -> Option<usize> {
        match self.name {
            "c" => Some(i.m),
            "jx" => Some(2),
            _ => None,
        }
    }

    /// Its value on inputs `i`.
    pub fn value(&self, i: &Inputs) -> ArgValue {
        match (self.name, self.elem) {
            ("a", Elem::F64) => ArgValue::F64s(i.a.clone()),
            ("b", Elem::F64) => ArgValue::F64s(i.b.clone()),
            ("c", Elem::F64) => ArgValue::F64s(i.c.clone()),
            ("s", Elem::F64) => ArgValue::F64(i.s),
            ("a", Elem::F32) => ArgValue::F32s(i.a32.clone()),
            ("b", Elem::F32) => ArgValue::F32s(i.b32.clone()),
            ("c", Elem::F32) => ArgValue::F32s(i.c32.clone()),
            ("s", Elem::F32) => ArgValue::F32(i.s32),
            ("p", _) => ArgValue::Usize(i.p),
            ("ix", _) => ArgValue::Usizes(i.ix.clone()),
            ("jx", _) => ArgValue::Usizes(i.jx.clone()),
            (name, elem) => unreachable!("no parameter `{name}` of {elem:?}"),
        }
    }

    /// Its value in Rust, in a scope where `i` is the [`Inputs`] (`&i.a32`, `i.p`), as the
    /// generated kernel takes it.
    pub fn rust(&self) -> String {
        let field = match (self.name, self.elem) {
            ("a" | "b" | "c" | "s", Elem::F32) => format!("{}32", self.name),
            (name, _) => name.to_string(),
        };
        if self.array {
            format!("&i.{field}")
        } else {
            format!("i.{field}")
        }
    }

    /// Does a bad index of the inputs (see [`Inputs::bad`]) sit in this parameter?
    pub fn has_bad_index(&self, i: &Inputs) -> bool {
        i.bad.is_some_and(|(name, _)| name == self.name)
    }
}

/// The parameters every generated kernel takes: `a: [fl; n], b: [fl; m], c: [[fl; m]; n],
/// s: fl, p: usize`, and with gathers `ix: [usize; g], jx: [[usize; 2]; g]`.
pub(super) fn params(fl: Elem, gathers: bool) -> Vec<Param> {
    let mut ps = vec![
        Param {
            name: "a",
            elem: fl,
            array: true,
        },
        Param {
            name: "b",
            elem: fl,
            array: true,
        },
        Param {
            name: "c",
            elem: fl,
            array: true,
        },
        Param {
            name: "s",
            elem: fl,
            array: false,
        },
        Param {
            name: "p",
            elem: Elem::Usize,
            array: false,
        },
    ];
    if gathers {
        ps.push(Param {
            name: "ix",
            elem: Elem::Usize,
            array: true,
        });
        ps.push(Param {
            name: "jx",
            elem: Elem::Usize,
            array: true,
        });
    }
    ps
}

/// The parameters as written in a signature.
pub(super) fn params_text(fl: Elem, gathers: bool) -> String {
    let fl = fl.text();
    let mut text = format!("a: [{fl}; n], b: [{fl}; m], c: [[{fl}; m]; n], s: {fl}, p: usize");
    if gathers {
        text += ", ix: [usize; g], jx: [[usize; 2]; g]";
    }
    text
}
