//! Symbolic `usize` values: the sizes of the shape translation, compared as polynomials.
//!
//! A [`Size`] keeps the expression as written (codegen evaluates that tree, with checked
//! arithmetic), and [`Size::poly`] normalises it so that `2 * n` equals `n + n`. Atoms are
//! size names, loop indexes (so `i + 3 - i` is the static 3 and `i + 2 < w` can be proven),
//! and opaque `%`/non-constant `/` terms compared structurally.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// A symbolic usize expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Size {
    /// A constant.
    Lit(u64),
    /// A size name (a kernel's size or `usize` parameter).
    Name(String),
    /// A loop index (by the core IR variable id), with the loop's trip count as its bound.
    Loop(u32),
    /// `a + b`
    Add(Box<Size>, Box<Size>),
    /// `a - b`
    Sub(Box<Size>, Box<Size>),
    /// `a * b`
    Mul(Box<Size>, Box<Size>),
    /// `a / b`
    Div(Box<Size>, Box<Size>),
    /// `a % b`
    Rem(Box<Size>, Box<Size>),
}

/// A rational coefficient, kept normalised (positive denominator, gcd 1).
mod poly;
pub use poly::{Atom, Poly, Ratio};

impl Size {
    /// `a + b`
    pub fn plus(a: Size, b: Size) -> Size {
        Size::Add(Box::new(a), Box::new(b))
    }
    /// `a - b`
    pub fn minus(a: Size, b: Size) -> Size {
        Size::Sub(Box::new(a), Box::new(b))
    }
    /// The product of `dims`, the slots of an array of those dimensions (1 for none).
    pub fn product(dims: &[Size]) -> Size {
        dims.iter()
            .cloned()
            .reduce(Size::times)
            .unwrap_or(Size::Lit(1))
    }
    /// `a * b`
    pub fn times(a: Size, b: Size) -> Size {
        Size::Mul(Box::new(a), Box::new(b))
    }

    /// The normal form used to compare sizes.
    pub fn poly(&self) -> Poly {
        match self {
            Size::Lit(v) => Poly::constant(*v as i128),
            Size::Name(n) => Poly::atom(Atom::Name(n.clone())),
            Size::Loop(i) => Poly::atom(Atom::Loop(*i)),
            Size::Add(a, b) => a.poly().add(&b.poly()),
            Size::Sub(a, b) => a.poly().add(&b.poly().scale(Ratio::int(-1))),
            Size::Mul(a, b) => a.poly().mul(&b.poly()),
            // ⌊⌊x / c1⌋ / c⌋ = ⌊x / (c1 * c)⌋: `w / 2 / 2` is `w / 4`.
            Size::Div(a, b)
                if let Size::Div(x, b1) = &**a
                    && let (Some(c1), Some(c)) = (b1.as_const(), b.as_const())
                    && c1 > 0
                    && c > 0
                    && let Some(k) = c1.checked_mul(c) =>
            {
                Size::Div(x.clone(), Box::new(Size::Lit(k))).poly()
            }
            Size::Div(a, b) => match (a.poly().as_const(), b.poly().as_const()) {
                // Two constants: the quotient `usize` division gives (an index `1 / 2` is 0
                // once a loop is written out, not a half).
                (Some(k), Some(c)) if c > 0 && k >= 0 => Poly::constant(k / c),
                // Rust's division rounds down: `/ c` is `* 1/c` only where that is an integer
                // at every point (`d * (d + 1) / 2`); any other quotient is compared as
                // written (`n / 2` is `n / 2`, but `2 * (n / 2)` is not `n`).
                (_, Some(c)) => match a.poly().quotient(c) {
                    Some(q) => q,
                    None => Poly::atom(Atom::Opaque(format!("({} / {})", a.norm(), b.norm()))),
                },
                _ => Poly::atom(Atom::Opaque(format!("({} / {})", a.norm(), b.norm()))),
            },
            Size::Rem(a, b) => match (a.poly().as_const(), b.poly().as_const()) {
                (Some(k), Some(c)) if c > 0 && k >= 0 => Poly::constant(k % c),
                _ => Poly::atom(Atom::Opaque(format!("({} % {})", a.norm(), b.norm()))),
            },
        }
    }

    fn norm(&self) -> String {
        format!("{:?}", self.poly())
    }

    /// Equal as polynomials.
    pub fn same(&self, o: &Size) -> bool {
        // Equal as written needs no normalising.
        self == o || self.poly() == o.poly()
    }

    /// The value, when it is a constant (and non-negative).
    pub fn as_const(&self) -> Option<u64> {
        if let Size::Lit(v) = self {
            return Some(*v);
        }
        self.poly().as_const().and_then(|c| u64::try_from(c).ok())
    }

    /// True when the value depends on a loop index (so it cannot be a shape).
    pub fn has_loop(&self) -> bool {
        match self {
            Size::Lit(_) | Size::Name(_) => false,
            Size::Loop(_) => true,
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => a.has_loop() || b.has_loop(),
        }
    }

    /// Replace size names (a callee's) by sizes (the caller's).
    pub fn subst(&self, f: &dyn Fn(&str) -> Option<Size>) -> Size {
        let b = |x: &Size| Box::new(x.subst(f));
        match self {
            Size::Lit(_) | Size::Loop(_) => self.clone(),
            Size::Name(n) => f(n).unwrap_or_else(|| self.clone()),
            Size::Add(x, y) => Size::Add(b(x), b(y)),
            Size::Sub(x, y) => Size::Sub(b(x), b(y)),
            Size::Mul(x, y) => Size::Mul(b(x), b(y)),
            Size::Div(x, y) => Size::Div(b(x), b(y)),
            Size::Rem(x, y) => Size::Rem(b(x), b(y)),
        }
    }

    /// Every loop index used, in order of first appearance.
    pub fn loops(&self, out: &mut Vec<u32>) {
        match self {
            Size::Lit(_) | Size::Name(_) => {}
            Size::Loop(v) => {
                if !out.contains(v) {
                    out.push(*v)
                }
            }
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => {
                a.loops(out);
                b.loops(out);
            }
        }
    }

    /// True when loop index `v` is used.
    pub fn mentions_loop(&self, v: u32) -> bool {
        match self {
            Size::Lit(_) | Size::Name(_) => false,
            Size::Loop(x) => *x == v,
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => a.mentions_loop(v) || b.mentions_loop(v),
        }
    }

    /// Every size name used, in order of first appearance.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            Size::Lit(_) | Size::Loop(_) => {}
            Size::Name(n) => {
                if !out.contains(n) {
                    out.push(n.clone())
                }
            }
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => {
                a.names(out);
                b.names(out);
            }
        }
    }

    /// Evaluate with checked arithmetic (`None` on underflow, overflow, or `/ 0`; `/` rounds
    /// down, as Rust's does), as a whole ([`Size::whole`]).
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        self.whole().eval_tree(env)
    }

    /// [`Size::eval`] of the tree as it is.
    fn eval_tree(&self, env: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        match self {
            Size::Lit(v) => Some(*v),
            Size::Name(n) => env(n),
            Size::Loop(_) => None,
            Size::Add(a, b) => a.eval_tree(env)?.checked_add(b.eval_tree(env)?),
            Size::Sub(a, b) => a.eval_tree(env)?.checked_sub(b.eval_tree(env)?),
            Size::Mul(a, b) => a.eval_tree(env)?.checked_mul(b.eval_tree(env)?),
            Size::Div(a, b) => a.eval_tree(env)?.checked_div(b.eval_tree(env)?),
            Size::Rem(a, b) => a.eval_tree(env)?.checked_rem(b.eval_tree(env)?),
        }
    }

    /// A simplified tree, for readable messages and code: constant subtrees folded where no
    /// check is lost (`2 - 0` is `2`, `x - 0` is `x`, `x * 1` is `x`), the rest as written.
    pub fn fold(&self) -> Size {
        // Every subtree's constant value is found in one bottom-up pass first: asking each
        // subtree again at every level made folding a long sum quadratic in its length.
        Folding::of(self).0.fold()
    }

    /// The tree the generated code evaluates for this size (LANGUAGE.md section 10: sizes
    /// are checked as whole expressions, not term by term): the folded tree, unless a
    /// subtraction in it could fail where the whole is a natural number (`n - w + 1` with
    /// n = w - 1, whose `n - w` is negative, or `(n - 1) * m` with m = 0). Such a size is
    /// written as its polynomial: the positive terms, minus the negative ones, then one
    /// exact division (`1 + n - w`; exact because the polynomial is an integer everywhere),
    /// so that only a size that is really negative fails.
    /// Sizes with `%` or a division by a non-constant, or loop indexes, stay as written.
    pub fn whole(&self) -> Size {
        let f = self.fold();
        if subtractions_last(&f) {
            return f;
        }
        f.poly().to_size().map(|w| w.fold()).unwrap_or(f)
    }
}

/// True when every subtraction of `s` is one whose failure means the whole is negative: a
/// chain `a - b - c` at the top (or under a top-level exact division), with no subtraction
/// in what is subtracted.
fn subtractions_last(s: &Size) -> bool {
    fn free(s: &Size) -> bool {
        match s {
            Size::Lit(_) | Size::Name(_) | Size::Loop(_) => true,
            Size::Sub(..) => false,
            Size::Add(a, b) | Size::Mul(a, b) | Size::Div(a, b) | Size::Rem(a, b) => {
                free(a) && free(b)
            }
        }
    }
    match s {
        Size::Sub(a, b) | Size::Div(a, b) => subtractions_last(a) && free(b),
        s => free(s),
    }
}

/// A size with what [`Size::fold`] asks of each of its subtrees.
struct Folding<'a> {
    size: &'a Size,
    /// [`Size::as_const`] of the subtree.
    konst: Option<u64>,
    /// It has a `-`, `/` or `%` (whose checks folding must keep).
    div_or_sub: bool,
    /// The operands, for an operation.
    parts: Option<Box<(Folding<'a>, Folding<'a>)>>,
}

impl<'a> Folding<'a> {
    /// The subtree's facts and its polynomial (computed as [`Size::poly`] does).
    fn of(s: &'a Size) -> (Folding<'a>, Poly) {
        let (Size::Add(a, b)
        | Size::Sub(a, b)
        | Size::Mul(a, b)
        | Size::Div(a, b)
        | Size::Rem(a, b)) = s
        else {
            let poly = s.poly();
            let konst = s.as_const();
            let leaf = Folding {
                size: s,
                konst,
                div_or_sub: false,
                parts: None,
            };
            return (leaf, poly);
        };
        let ((fa, pa), (fb, pb)) = (Folding::of(a), Folding::of(b));
        let poly = match s {
            Size::Add(..) => pa.add(&pb),
            Size::Sub(..) => pa.add(&pb.scale(Ratio::int(-1))),
            Size::Mul(..) => pa.mul(&pb),
            // As `Size::poly` has it (nested quotients by constants are one quotient).
            Size::Div(..) => s.poly(),
            _ => Poly::atom(Atom::Opaque(format!("({pa:?} % {pb:?})"))),
        };
        let konst = poly.as_const().and_then(|c| u64::try_from(c).ok());
        let div_or_sub = match s {
            Size::Add(..) | Size::Mul(..) => fa.div_or_sub || fb.div_or_sub,
            _ => true,
        };
        let folding = Folding {
            size: s,
            konst,
            div_or_sub,
            parts: Some(Box::new((fa, fb))),
        };
        (folding, poly)
    }

    fn fold(&self) -> Size {
        if let Some(c) = self.konst
            && !self.div_or_sub
        {
            return Size::Lit(c);
        }
        let Some(parts) = &self.parts else {
            return self.size.clone();
        };
        let (a, b) = &**parts;
        let f = |x: &Folding| Box::new(x.fold());
        match self.size {
            Size::Mul(..) if a.konst == Some(1) => b.fold(),
            Size::Mul(..) if b.konst == Some(1) => a.fold(),
            Size::Add(..) if b.konst == Some(0) => a.fold(),
            Size::Add(..) if a.konst == Some(0) => b.fold(),
            Size::Sub(..) if b.konst == Some(0) => a.fold(),
            Size::Sub(..) => match (a.konst, b.konst) {
                (Some(x), Some(y)) if x >= y && !a.div_or_sub && !b.div_or_sub => Size::Lit(x - y),
                _ => Size::Sub(f(a), f(b)),
            },
            Size::Add(..) => Size::Add(f(a), f(b)),
            Size::Mul(..) => Size::Mul(f(a), f(b)),
            Size::Div(..) => Size::Div(f(a), f(b)),
            _ => Size::Rem(f(a), f(b)),
        }
    }
}

impl Size {
    /// The size in the user's terms (`n * (n + 1) / 2`), each loop index written by
    /// `loop_name` (the printers of each IR name them their own way).
    pub fn display_with(&self, loop_name: &dyn Fn(u32) -> String) -> String {
        fn go(s: &Size, loop_name: &dyn Fn(u32) -> String, prec: u8, out: &mut String) {
            let (op, p, a, b) = match s {
                Size::Lit(v) => return out.push_str(&v.to_string()),
                Size::Name(n) => return out.push_str(n),
                Size::Loop(i) => return out.push_str(&loop_name(*i)),
                Size::Add(a, b) => ("+", 1, a, b),
                Size::Sub(a, b) => ("-", 1, a, b),
                Size::Mul(a, b) => ("*", 2, a, b),
                Size::Div(a, b) => ("/", 2, a, b),
                Size::Rem(a, b) => ("%", 2, a, b),
            };
            if p < prec {
                out.push('(');
            }
            go(a, loop_name, p, out);
            out.push(' ');
            out.push_str(op);
            out.push(' ');
            go(b, loop_name, p + 1, out);
            if p < prec {
                out.push(')');
            }
        }
        let mut out = String::new();
        go(self, loop_name, 0, &mut out);
        out
    }
}

impl fmt::Display for Size {
    /// The size in the user's terms (`n * (n + 1) / 2`), loop indexes as `i3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display_with(&|i| format!("i{i}")))
    }
}

/// Saturating evaluation of a size in a `const fn`, as a whole ([`Size::whole`]).
pub fn const_size(s: &Size) -> TokenStream {
    let s = s.whole();
    let bin = |f: TokenStream, a: &Size, b: &Size| {
        let (a, b) = (const_size(a), const_size(b));
        quote!(#f(#a, #b))
    };
    match &s {
        Size::Lit(v) => {
            let v = *v as usize;
            quote!(#v)
        }
        Size::Name(n) => {
            let id = crate::front::ast::ident(n, Span::call_site());
            quote!(#id)
        }
        Size::Loop(_) => quote!(0usize),
        Size::Add(a, b) => bin(quote!(usize::saturating_add), a, b),
        Size::Sub(a, b) => bin(quote!(::fsmooth::__rt::sat_sub), a, b),
        Size::Mul(a, b) => bin(quote!(usize::saturating_mul), a, b),
        Size::Div(a, b) => bin(quote!(::fsmooth::__rt::sat_div), a, b),
        Size::Rem(a, b) => {
            let (a, b) = (const_size(a), const_size(b));
            quote!(match #a.checked_rem(#b) { Some(v) => v, None => usize::MAX })
        }
    }
}

/// Is `s` provably non-negative? Size names are natural numbers, so a polynomial over them
/// whose coefficients are all non-negative is; so is one that is at 0 and after shifting a
/// name by one (`p(0) >= 0` and `p(x + 1) >= 0` for every natural x): that proves
/// `d * (d + 1) / 2 - d >= 0`, the room a triangle's diagonal needs. Anything with opaque
/// terms is not trusted.
///
/// Answers are remembered (per thread, a few thousand at most): the same proofs come up for
/// every read of the same rows, in hoisting and in the DPS translation.
pub fn names_nonneg(s: &Size) -> bool {
    thread_local! {
        static PROVEN: RefCell<HashMap<Size, bool>> = RefCell::new(HashMap::new());
    }
    if let Some(known) = PROVEN.with(|proven| proven.borrow().get(s).copied()) {
        return known;
    }
    let holds = nonneg_on_naturals(s, 0);
    PROVEN.with(|proven| {
        let mut proven = proven.borrow_mut();
        if proven.len() >= 4096 {
            proven.clear();
        }
        proven.insert(s.clone(), holds);
    });
    holds
}

fn nonneg_on_naturals(s: &Size, depth: usize) -> bool {
    // A quotient `h / c` that rounds (LANGUAGE.md section 16): with `h = c * q + r`, `r` below
    // `c`, the quotient is `q`; `s` is non-negative if it is for every `r`, over natural `q`
    // (`h - 2 * (h / 2)` is `r`).
    if depth < 4
        && let Some((h, c)) = rounding_quotient(s)
    {
        let q = format!("{h} / {c}");
        return (0..c).all(|r| nonneg_on_naturals(&split_quotient(s, &h, c, &q, r), depth + 1));
    }
    let p = s.poly();
    if p.coeffs()
        .any(|(m, _)| m.iter().any(|a| !matches!(a, Atom::Name(_))))
    {
        return false;
    }
    // A name in a negative term, to split on.
    let Some(x) = p
        .coeffs()
        .filter(|(_, c)| *c < 0.0)
        .flat_map(|(m, _)| m.iter())
        .find_map(|a| match a {
            Atom::Name(n) => Some(n.clone()),
            _ => None,
        })
    else {
        // No negative term: non-negative iff the constant is (it is a term like any other).
        return p.coeffs().all(|(_, c)| c >= 0.0);
    };
    if depth >= 4 {
        return false;
    }
    let at = |v: Size| s.subst(&|n: &str| (n == x).then(|| v.clone()));
    let shifted = Size::plus(Size::Name(x.clone()), Size::Lit(1));
    nonneg_on_naturals(&at(Size::Lit(0)), depth + 1) && nonneg_on_naturals(&at(shifted), depth + 1)
}

/// The first quotient `h / c` of a size name by a small constant in `s` that is not exact.
fn rounding_quotient(s: &Size) -> Option<(String, u64)> {
    match s {
        Size::Div(a, b) => match (&**a, b.as_const()) {
            (Size::Name(h), Some(c)) if (2..=16).contains(&c) => Some((h.clone(), c)),
            _ => rounding_quotient(a).or_else(|| rounding_quotient(b)),
        },
        Size::Add(a, b) | Size::Sub(a, b) | Size::Mul(a, b) | Size::Rem(a, b) => {
            rounding_quotient(a).or_else(|| rounding_quotient(b))
        }
        Size::Lit(_) | Size::Name(_) | Size::Loop(_) => None,
    }
}

/// `s` with `h / c` written `q` and every other `h` written `c * q + r`.
fn split_quotient(s: &Size, h: &str, c: u64, q: &str, r: u64) -> Size {
    let f = |x: &Size| Box::new(split_quotient(x, h, c, q, r));
    match s {
        Size::Div(a, b) if matches!(&**a, Size::Name(x) if x == h) && b.as_const() == Some(c) => {
            Size::Name(q.to_string())
        }
        Size::Name(x) if x == h => Size::plus(
            Size::times(Size::Lit(c), Size::Name(q.to_string())),
            Size::Lit(r),
        ),
        Size::Lit(_) | Size::Name(_) | Size::Loop(_) => s.clone(),
        Size::Add(a, b) => Size::Add(f(a), f(b)),
        Size::Sub(a, b) => Size::Sub(f(a), f(b)),
        Size::Mul(a, b) => Size::Mul(f(a), f(b)),
        Size::Div(a, b) => Size::Div(f(a), f(b)),
        Size::Rem(a, b) => Size::Rem(f(a), f(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n() -> Size {
        Size::Name("n".into())
    }

    #[test]
    fn sizes_compare_as_polynomials() {
        let two_n = Size::times(Size::Lit(2), n());
        let n_plus_n = Size::plus(n(), n());
        assert!(two_n.same(&n_plus_n));
        assert!(!two_n.same(&n()));
        let tri = Size::Div(
            Box::new(Size::times(n(), Size::plus(n(), Size::Lit(1)))),
            Box::new(Size::Lit(2)),
        );
        assert_eq!(tri.to_string(), "n * (n + 1) / 2");
        assert_eq!(tri.eval(&|_| Some(4)), Some(10));
        let w = Size::minus(Size::plus(Size::Loop(3), n()), Size::Loop(3));
        assert_eq!(w.poly().to_size(), Some(n()));
        assert_eq!(
            tri.poly().to_size().map(|s| s.to_string()),
            Some("(n + n * n) / 2".to_string())
        );
        let loop_cancels = Size::minus(Size::plus(Size::Loop(3), Size::Lit(3)), Size::Loop(3));
        assert_eq!(loop_cancels.as_const(), Some(3));
        assert!(loop_cancels.has_loop());
    }

    #[test]
    fn checked_evaluation() {
        let w2 = Size::minus(Size::Name("w".into()), Size::Lit(2));
        assert_eq!(w2.eval(&|_| Some(1)), None);
        assert_eq!(w2.eval(&|_| Some(5)), Some(3));
        // Rust's division (LANGUAGE.md section 16): rounds down; by zero fails.
        let half = Size::Div(Box::new(n()), Box::new(Size::Lit(2)));
        assert_eq!(half.eval(&|_| Some(5)), Some(2));
        assert_eq!(half.eval(&|_| Some(205)), Some(102));
        let by_n = Size::Div(Box::new(Size::Lit(7)), Box::new(n()));
        assert_eq!(by_n.eval(&|_| Some(0)), None);
        assert_eq!(by_n.eval(&|_| Some(2)), Some(3));
    }

    #[test]
    fn a_quotient_is_its_polynomial_only_where_that_is_exact() {
        let half = |s: Size| Size::Div(Box::new(s), Box::new(Size::Lit(2)));
        let (d, m) = (|| Size::Name("d".into()), || Size::Name("m".into()));
        // n / 2 equals n / 2, but 2 * (n / 2) is not n, nor n / 2 + n / 2.
        assert!(half(n()).same(&half(n())));
        assert!(!Size::times(Size::Lit(2), half(n())).same(&n()));
        assert!(!Size::plus(half(n()), half(n())).same(&n()));
        // Exact everywhere, though not with integer coefficients: a polynomial.
        let tri = half(Size::times(d(), Size::plus(d(), Size::Lit(1))));
        assert!(tri.same(&half(Size::plus(Size::times(d(), d()), d()))));
        assert!(
            Size::times(Size::Lit(2), tri.clone()).same(&Size::plus(Size::times(d(), d()), d()))
        );
        assert!(half(Size::times(Size::Lit(4), m())).same(&Size::times(Size::Lit(2), m())));
        // d * m / 2 is not exact (d = m = 1); (d * d - d) * m / 2 is.
        assert!(
            !Size::times(Size::Lit(2), half(Size::times(d(), m()))).same(&Size::times(d(), m()))
        );
        let exact = half(Size::times(Size::minus(Size::times(d(), d()), d()), m()));
        assert!(
            exact
                .poly()
                .coeffs()
                .all(|(mono, _)| mono.iter().all(|a| matches!(a, Atom::Name(_))))
        );
        // Quotients of quotients are one quotient, as in Rust.
        let quarter = Size::Div(Box::new(n()), Box::new(Size::Lit(4)));
        assert!(half(half(n())).same(&quarter));
        assert!(half(half(half(n()))).same(&Size::Div(Box::new(n()), Box::new(Size::Lit(8)))));
        assert!(!half(n()).same(&quarter));
        // Constants fold as usize does.
        assert_eq!(half(Size::Lit(5)).as_const(), Some(2));
    }

    #[test]
    fn sizes_are_evaluated_as_wholes() {
        let (n, w) = (|| Size::Name("n".into()), || Size::Name("w".into()));
        // slide(w, a) of n elements: n - w + 1 windows; 0 for n = w - 1, not an error.
        let windows = Size::plus(Size::minus(n(), w()), Size::Lit(1));
        let at = |nv: u64, wv: u64| move |x: &str| Some(if x == "n" { nv } else { wv });
        assert_eq!(windows.eval(&at(4, 5)), Some(0));
        assert_eq!(windows.eval(&at(9, 3)), Some(7));
        // Really negative: still an error.
        assert_eq!(windows.eval(&at(3, 5)), None);
        assert_eq!(windows.whole().to_string(), "1 + n - w");
        // (n - 1) * m with n = m = 0 is 0; with n = 0 and m = 5, -5.
        let m = Size::Name("m".into());
        let prod = Size::times(Size::minus(n(), Size::Lit(1)), m);
        assert_eq!(prod.eval(&|_| Some(0)), Some(0));
        assert_eq!(prod.eval(&at(0, 5)), None);
        // Subtractions that can only fail when the whole is negative stay as written.
        for s in [
            Size::minus(n(), Size::Lit(2)),
            Size::minus(Size::minus(n(), w()), Size::Lit(1)),
            Size::Div(
                Box::new(Size::minus(Size::times(n(), n()), n())),
                Box::new(Size::Lit(2)),
            ),
        ] {
            assert_eq!(s.whole(), s.fold(), "{s}");
        }
        let q = Size::Div(
            Box::new(Size::times(n(), Size::plus(n(), Size::Lit(1)))),
            Box::new(Size::Lit(2)),
        );
        assert_eq!(q.whole(), q.fold());
        assert!(
            const_size(&windows).to_string().contains("sat_sub"),
            "{}",
            const_size(&windows)
        );
    }

    #[test]
    fn polynomials_nonnegative_on_naturals() {
        let d = || Size::Name("d".into());
        let tri = Size::Div(
            Box::new(Size::times(d(), Size::plus(d(), Size::Lit(1)))),
            Box::new(Size::Lit(2)),
        );
        // d (d + 1) / 2 - d = d (d - 1) / 2 >= 0 on the naturals, not on the reals.
        assert!(names_nonneg(&Size::minus(tri.clone(), d())));
        assert!(!names_nonneg(&Size::minus(
            tri,
            Size::plus(d(), Size::Lit(1))
        )));
        assert!(!names_nonneg(&Size::minus(d(), Size::Lit(1))));
        assert!(names_nonneg(&Size::times(d(), d())));
    }
}
