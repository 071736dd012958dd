//! The generator's types: sizes ([`D`]), value types ([`T`]) and element types ([`Elem`]).

use super::Inputs;

/// A size the generator knows the value of on every input: one of the kernel's size names,
/// a literal, or a sum or product of them that a view gives (`concat(a, b)` is `n + m`
/// long, `pad(a, 1, 1, x)` is `n + 2`, `join(c)` is `n * m`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum D {
    /// `n`, the length of `a` (at least 1).
    N,
    /// `m`, the length of `b` (at least 1).
    M,
    /// `p`, the size parameter (may be 0).
    P,
    /// `2`.
    Two,
    /// `3`.
    Three,
    /// `n + m`.
    NpM,
    /// `2 * n`.
    TwoN,
    /// `n * m`.
    NxM,
    /// `n + 2`.
    Np2,
    /// `g`, the length of the index arrays `ix` and `jx` of a program with gathers (may
    /// be 0).
    G,
}

impl D {
    /// The size as written in a type or a loop count.
    pub fn text(self) -> &'static str {
        match self {
            D::N => "n",
            D::M => "m",
            D::P => "p",
            D::Two => "2",
            D::Three => "3",
            D::NpM => "n + m",
            D::TwoN => "2 * n",
            D::NxM => "n * m",
            D::Np2 => "n + 2",
            D::G => "g",
        }
    }

    /// The size as an operand (parenthesised if it is a sum or a product).
    pub(super) fn paren(self) -> String {
        match self {
            D::NpM | D::TwoN | D::NxM | D::Np2 => format!("({})", self.text()),
            _ => self.text().to_string(),
        }
    }

    /// Its value on inputs `i`.
    pub fn eval(self, i: &Inputs) -> usize {
        match self {
            D::N => i.n,
            D::M => i.m,
            D::P => i.p,
            D::Two => 2,
            D::Three => 3,
            D::NpM => i.n + i.m,
            D::TwoN => 2 * i.n,
            D::NxM => i.n * i.m,
            D::Np2 => i.n + 2,
            D::G => i.g,
        }
    }

    /// Its largest value over the generator's inputs (`n, m <= 19`, `p <= 3`): how many
    /// steps a loop over it may take.
    pub(super) fn max(self) -> u64 {
        match self {
            D::N | D::M => 19,
            D::P | D::Three => 3,
            D::G => 6,
            D::Two => 2,
            D::NpM | D::TwoN => 38,
            D::NxM => 361,
            D::Np2 => 21,
        }
    }

    /// Its smallest value over all inputs (`n, m >= 1`, `p >= 0`).
    pub(super) fn min(self) -> usize {
        match self {
            D::N | D::M | D::NxM => 1,
            D::P | D::G => 0,
            D::Two | D::NpM | D::TwoN => 2,
            D::Three | D::Np2 => 3,
        }
    }
}

/// The element type of a kernel's parameter or result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Elem {
    /// `f64`
    F64,
    /// `f32`
    F32,
    /// `usize`
    Usize,
}

impl Elem {
    /// The type as written.
    pub fn text(self) -> &'static str {
        match self {
            Elem::F64 => "f64",
            Elem::F32 => "f32",
            Elem::Usize => "usize",
        }
    }

    /// Does a compiled kernel's value `got` agree with the reference interpreter's `want`
    /// (both as f64) for a result of this element type? A usize exactly; a float within a
    /// relative 1e-9 (f64) or 1e-5 (f32, some 80 units in the last place), with an absolute
    /// floor of that much near zero, for what the compiler may compute differently but
    /// equally well (a sum from -0.0, a hoisted call); NaN agrees with NaN and an infinity
    /// with itself.
    pub fn agree(self, got: f64, want: f64) -> bool {
        let tol = match self {
            Elem::F64 => 1e-9,
            Elem::F32 => 1e-5,
            Elem::Usize => return got == want,
        };
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        got == want || (got - want).abs() <= tol * got.abs().max(want.abs()).max(1.0)
    }
}

/// A value type of the generated language. Its floats are the program's float type (`f64`,
/// or `f32` for an f32 program), given when the type is written.
#[derive(Clone, PartialEq, Debug)]
pub(super) enum T {
    F,
    U,
    /// A vector `[fl; d]`.
    V(D),
    /// A matrix `[[fl; cols]; rows]`, as `M(rows, cols)`.
    M(D, D),
    /// A usize vector `[usize; d]` (an index array, an argmax per row).
    UV(D),
    /// A tuple of two or more components.
    Tup(Vec<T>),
}

impl T {
    /// The type as written in a signature, with `fl` its floats' type.
    pub(super) fn text(&self, fl: Elem) -> String {
        let name = fl.text();
        match self {
            T::F => name.into(),
            T::U => "usize".into(),
            T::V(d) => format!("[{name}; {}]", d.text()),
            T::M(r, c) => format!("[[{name}; {}]; {}]", c.text(), r.text()),
            T::UV(d) => format!("[usize; {}]", d.text()),
            T::Tup(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| t.text(fl)).collect();
                format!("({})", parts.join(", "))
            }
        }
    }

    /// The element type of an array or scalar of this type, with `fl` its floats' type.
    pub(super) fn elem(&self, fl: Elem) -> Elem {
        match self {
            T::U | T::UV(_) => Elem::Usize,
            _ => fl,
        }
    }

    /// The sizes whose product is the number of f64 slots of an array (none for a scalar).
    pub(super) fn dims(&self) -> Vec<D> {
        match self {
            T::V(d) | T::UV(d) => vec![*d],
            T::M(r, c) => vec![*r, *c],
            _ => Vec::new(),
        }
    }
}
