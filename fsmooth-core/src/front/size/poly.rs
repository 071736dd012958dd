//! The normal form sizes are compared in: a polynomial with rational coefficients over
//! atoms (size names, loop indexes, opaque quotients and remainders), [`Size::poly`]'s result.

use super::Size;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ratio {
    num: i128,
    den: i128,
}

pub(super) fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i128::try_from(a).unwrap_or(i128::MAX).max(1)
}

impl Ratio {
    pub(super) fn new(num: i128, den: i128) -> Ratio {
        // Saturating throughout: absurd literal sizes must not panic the macro.
        let s = if den < 0 { -1 } else { 1 };
        let g = gcd(num, den);
        Ratio {
            num: num.saturating_mul(s) / g,
            den: den.saturating_mul(s).max(1) / g,
        }
    }
    pub(super) fn int(v: i128) -> Ratio {
        Ratio { num: v, den: 1 }
    }
    pub(super) fn is_zero(self) -> bool {
        self.num == 0
    }
    pub(super) fn add(self, o: Ratio) -> Ratio {
        Ratio::new(
            self.num
                .saturating_mul(o.den)
                .saturating_add(o.num.saturating_mul(self.den)),
            self.den.saturating_mul(o.den),
        )
    }
    pub(super) fn mul(self, o: Ratio) -> Ratio {
        Ratio::new(
            self.num.saturating_mul(o.num),
            self.den.saturating_mul(o.den),
        )
    }
}

/// An atom of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// A size name.
    Name(String),
    /// A loop index.
    Loop(u32),
    /// A non-polynomial term, compared by its normalised text.
    Opaque(String),
}

/// A polynomial with rational coefficients over [`Atom`]s.
#[derive(Clone, Debug, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub struct Poly {
    terms: BTreeMap<Vec<Atom>, Ratio>,
}

impl Poly {
    pub(super) fn constant(c: i128) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.terms.insert(Vec::new(), Ratio::int(c));
        }
        p
    }
    pub(super) fn atom(a: Atom) -> Poly {
        let mut p = Poly::default();
        p.terms.insert(vec![a], Ratio::int(1));
        p
    }
    pub(super) fn add(self, o: &Poly) -> Poly {
        let mut r = self;
        for (m, c) in &o.terms {
            let e = r.terms.entry(m.clone()).or_insert(Ratio::int(0));
            *e = e.add(*c);
            if e.is_zero() {
                r.terms.remove(m);
            }
        }
        r
    }
    pub(super) fn scale(&self, k: Ratio) -> Poly {
        let mut r = Poly::default();
        if !k.is_zero() {
            for (m, c) in &self.terms {
                r.terms.insert(m.clone(), c.mul(k));
            }
        }
        r
    }
    pub(super) fn mul(&self, o: &Poly) -> Poly {
        let mut r = Poly::default();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &o.terms {
                let mut m: Vec<Atom> = m1.iter().chain(m2).cloned().collect();
                m.sort();
                let mut t = Poly::default();
                t.terms.insert(m, c1.mul(*c2));
                r = r.add(&t);
            }
        }
        r
    }
    /// `self / c` as a polynomial, when that is an integer at every natural point of its
    /// atoms (`d * (d + 1) / 2`, `c * (2 * d - c - 1) / 2`): then Rust's rounding division
    /// is exact and the quotient is its polynomial. `None` otherwise (`n / 2`), or for
    /// `c <= 0`: such a quotient is compared as written (LANGUAGE.md section 16).
    pub fn quotient(&self, c: i128) -> Option<Poly> {
        if c <= 0 {
            return None;
        }
        let q = self.scale(Ratio::new(1, c));
        q.integer_valued().then_some(q)
    }

    /// Whether the polynomial is an integer at every natural (indeed every integer) point.
    /// With `l` the common denominator, `l * p` has integer coefficients, and `p(x)` is an
    /// integer iff `l * p(x)` is 0 modulo `l`, which depends only on each atom modulo `l`:
    /// the `l^k` residues of the `k` atoms decide it (too many to try: not trusted).
    pub(super) fn integer_valued(&self) -> bool {
        let l = self
            .terms
            .values()
            .fold(1i128, |l, c| (l / gcd(l, c.den)).saturating_mul(c.den));
        if l == 1 {
            return true;
        }
        if l > 1 << 20 {
            return false;
        }
        let mut atoms: Vec<&Atom> = self.terms.keys().flatten().collect();
        atoms.sort();
        atoms.dedup();
        let points = u32::try_from(atoms.len())
            .ok()
            .and_then(|k| l.checked_pow(k))
            .filter(|&p| p <= 4096);
        let Some(points) = points else { return false };
        // Integer coefficients of `l * p`, reduced modulo `l`.
        let terms: Vec<(Vec<usize>, i128)> = self
            .terms
            .iter()
            .map(|(m, c)| {
                let at = m
                    .iter()
                    .map(|a| atoms.iter().position(|b| *b == a).unwrap_or(0))
                    .collect();
                let den = c.den.max(1);
                (at, (c.num % den).rem_euclid(l) * (l / den) % l)
            })
            .collect();
        let mut x = vec![0i128; atoms.len()];
        for point in 0..points {
            let mut rest = point;
            for v in x.iter_mut() {
                *v = rest % l;
                rest /= l;
            }
            let mut sum = 0i128;
            for (at, k) in &terms {
                let mut t = *k;
                for &a in at {
                    t = t * x[a] % l;
                }
                sum = (sum + t) % l;
            }
            if sum != 0 {
                return false;
            }
        }
        true
    }

    /// `self / by` when it divides exactly as a polynomial (`split`'s rule): by a constant
    /// that divides every coefficient, or by one size name that every term contains.
    pub fn divide(&self, by: &Poly) -> Option<Poly> {
        if let Some(c) = by.as_const() {
            if c <= 0 {
                return None;
            }
            let mut q = Poly::default();
            for (m, k) in &self.terms {
                if k.den != 1 || k.num % c != 0 {
                    return None;
                }
                q.terms.insert(m.clone(), Ratio::int(k.num / c));
            }
            return Some(q);
        }
        let (m1, k1) = match by.terms.iter().collect::<Vec<_>>().as_slice() {
            [(m, k)] if m.len() == 1 && k.num == 1 && k.den == 1 => ((*m)[0].clone(), **k),
            _ => return None,
        };
        let _ = k1;
        let mut q = Poly::default();
        for (m, k) in &self.terms {
            let at = m.iter().position(|a| *a == m1)?;
            let mut rest = m.clone();
            rest.remove(at);
            q.terms.insert(rest, *k);
        }
        Some(q)
    }

    /// When `self` is `c * name` for a constant `c >= 1`: `target / c` as a size, if `c`
    /// divides it exactly as a polynomial (a helper's `[f64; 2 * w]` taking an argument of
    /// `[f64; 2 * n]` has `w = n`, of `[f64; 8 * n]` has `w = 4 * n`, of `[f64; n]` none).
    pub fn solve_multiple(&self, name: &str, target: &Poly) -> Option<Size> {
        let [(m, c)] = self.terms.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if *m != [Atom::Name(name.to_string())] || c.den != 1 || c.num < 1 {
            return None;
        }
        target.divide(&Poly::constant(c.num))?.to_size()
    }

    /// `self - o`, as [`Size::poly`] computes the polynomial of a difference.
    pub fn minus(&self, o: &Poly) -> Poly {
        self.clone().add(&o.scale(Ratio::int(-1)))
    }
    /// The constant value, if the polynomial has no atoms.
    pub fn as_const(&self) -> Option<i128> {
        match self.terms.len() {
            0 => Some(0),
            1 => {
                let (m, c) = self.terms.iter().next()?;
                (m.is_empty() && c.den == 1).then_some(c.num)
            }
            _ => None,
        }
    }
    /// Monomials with their coefficients (as f64, for sign tests).
    pub fn coeffs(&self) -> impl Iterator<Item = (&Vec<Atom>, f64)> {
        self.terms
            .iter()
            .map(|(m, c)| (m, c.num as f64 / c.den as f64))
    }

    /// Back to a size expression, when every atom is a size name: positive terms first, then
    /// the negative ones subtracted, then one exact division by the common denominator.
    pub fn to_size(&self) -> Option<Size> {
        let l = self
            .terms
            .values()
            .fold(1i128, |l, c| l / gcd(l, c.den) * c.den);
        let mut pos: Option<Size> = None;
        let mut neg: Option<Size> = None;
        for (m, c) in &self.terms {
            let k = c.num * (l / c.den);
            let mut t: Option<Size> = None;
            for a in m {
                let Atom::Name(n) = a else { return None };
                let f = Size::Name(n.clone());
                t = Some(match t {
                    Some(t) => Size::times(t, f),
                    None => f,
                });
            }
            let mag = u64::try_from(k.abs()).ok()?;
            let term = match t {
                Some(t) if mag == 1 => t,
                Some(t) => Size::times(Size::Lit(mag), t),
                None => Size::Lit(mag),
            };
            let acc = if k > 0 { &mut pos } else { &mut neg };
            *acc = Some(match acc.take() {
                Some(a) => Size::plus(a, term),
                None => term,
            });
        }
        let mut r = pos.unwrap_or(Size::Lit(0));
        if let Some(n) = neg {
            r = Size::minus(r, n);
        }
        if l > 1 {
            r = Size::Div(Box::new(r), Box::new(Size::Lit(u64::try_from(l).ok()?)));
        }
        Some(r)
    }

    /// The positive terms, and the negative terms negated: `p = pos - neg`, both with
    /// positive coefficients.
    pub fn split_signs(&self) -> (Poly, Poly) {
        let (mut pos, mut neg) = (Poly::default(), Poly::default());
        for (m, c) in &self.terms {
            if c.num > 0 {
                pos.terms.insert(m.clone(), *c);
            } else {
                neg.terms.insert(m.clone(), c.mul(Ratio::int(-1)));
            }
        }
        (pos, neg)
    }

    /// The highest power of `a` in any monomial.
    pub fn degree(&self, a: &Atom) -> usize {
        self.terms
            .keys()
            .map(|m| m.iter().filter(|x| *x == a).count())
            .max()
            .unwrap_or(0)
    }

    /// True when some monomial mentions a loop index.
    pub fn has_loop(&self) -> bool {
        self.terms
            .keys()
            .any(|m| m.iter().any(|a| matches!(a, Atom::Loop(_))))
    }
}
