//! Layout views (LANGUAGE.md section 9) as sources (indexed, summed, mapped) and as
//! destinations (whatever a vector or matrix expression gives may be a view, so views are
//! kernel results, tuple components and `let`-bound arrays).

use super::state::Gen;
use super::ty::{D, T};

impl Gen {
    /// A vector of size `d` that is a view.
    pub(super) fn view_vector(&mut self, d: D, depth: usize) -> String {
        if self.r.one_in(4) {
            let x = self.vector(d, depth + 1);
            return format!("reverse({x})");
        }
        match (d, self.r.below(3)) {
            (D::NpM, 0) => {
                let (x, y) = (self.vector(D::M, depth + 1), self.vector(D::N, depth + 1));
                format!("concat({x}, {y})")
            }
            (D::NpM, _) => {
                let (x, y) = (self.vector(D::N, depth + 1), self.vector(D::M, depth + 1));
                format!("concat({x}, {y})")
            }
            (D::TwoN, k) => {
                let f = if k == 0 { "concat" } else { "interleave" };
                let (x, y) = (self.vector(D::N, depth + 1), self.vector(D::N, depth + 1));
                format!("{f}({x}, {y})")
            }
            (D::NxM, k) => {
                let m = if k == 0 {
                    self.matrix(D::M, D::N, depth + 1)
                } else {
                    self.matrix(D::N, D::M, depth + 1)
                };
                format!("join({m})")
            }
            (D::Np2, 0) => {
                let (x, two) = (self.vector(D::N, depth + 1), self.vector(D::Two, depth + 1));
                if self.r.one_in(2) {
                    format!("concat({x}, {two})")
                } else {
                    format!("concat({two}, {x})")
                }
            }
            (D::Np2, _) => self.pad(D::N, 2, depth),
            (D::Three, 0) => self.pad(D::Two, 1, depth),
            (D::Three, _) => {
                // A window of a 3-point stencil.
                let (x, i) = (self.vector(D::Np2, depth + 1), self.index(D::N, depth));
                format!("slide(3, {x})[{i}]")
            }
            (D::Two, 0) => {
                // A row of the pairs of a vector of 2 * n.
                let (x, i) = (self.vector(D::TwoN, depth + 1), self.index(D::N, depth));
                format!("split(2, {x})[{i}]")
            }
            (D::Two, _) => {
                let src = [D::Three, D::NpM, D::TwoN, D::Np2][self.r.below(4)];
                let x = self.vector(src, depth + 1);
                let rows = format!("({} + 1 - 2)", src.text());
                let i = self.index_below(&rows, src.min() - 1, depth);
                format!("slide(2, {x})[{i}]")
            }
            (D::N, 0) => {
                let x = self.vector(D::N, depth + 1);
                format!("slide(n, {x})[0]")
            }
            (D::N, 1) => {
                // A 3-point stencil: the windows of the padded vector, mapped to scalars.
                let x = self.pad(D::N, 2, depth + 1);
                let w = self.name("w");
                let body = self.with_elem(&w, T::V(D::Three), D::N.max(), |g| g.scalar(depth + 2));
                format!("map(slide(3, {x}), |{w}| {body})")
            }
            // Not for `p` rows: the interpreter cannot transpose an empty matrix (its
            // values do not show an empty array's inner sizes), so a column of `p` is a
            // reversed vector.
            (D::P | D::G, _) => {
                let x = self.vector(d, depth + 1);
                format!("reverse({x})")
            }
            _ => {
                // A column: a row of the transpose.
                let c = [D::N, D::M, D::Three][self.r.below(3)];
                let m = self.matrix(d, c, depth + 1);
                let j = self.index(c, depth);
                format!("transpose({m})[{j}]")
            }
        }
    }

    /// `pad(x, l, r, v)` with `x` of size `d` and `l + r == extra`.
    fn pad(&mut self, d: D, extra: usize, depth: usize) -> String {
        let x = self.vector(d, depth + 1);
        let v = self.scalar(depth + 1);
        let l = self.r.below(extra + 1);
        format!("pad({x}, {l}, {}, {v})", extra - l)
    }

    /// A matrix of `r` rows of `c` columns that is a view.
    pub(super) fn view_matrix(&mut self, r: D, c: D, depth: usize) -> String {
        match (r, c, self.r.below(4)) {
            (_, _, 0) => {
                let m = self.matrix(r, c, depth + 1);
                format!("reverse({m})")
            }
            // Not of a matrix of `p` rows (see `view_vector`).
            (_, _, 1) if c != D::P && c != D::G => {
                let m = self.matrix(c, r, depth + 1);
                format!("transpose({m})")
            }
            (D::NpM, _, _) => {
                let (x, y) = (
                    self.matrix(D::N, c, depth + 1),
                    self.matrix(D::M, c, depth + 1),
                );
                format!("concat({x}, {y})")
            }
            (D::TwoN, _, k) => {
                let f = if k == 2 { "concat" } else { "interleave" };
                let (x, y) = (
                    self.matrix(D::N, c, depth + 1),
                    self.matrix(D::N, c, depth + 1),
                );
                format!("{f}({x}, {y})")
            }
            (D::Np2, _, _) => {
                let (x, row) = (self.matrix(D::N, c, depth + 1), self.vector(c, depth + 1));
                let l = self.r.below(3);
                format!("pad({x}, {l}, {}, {row})", 2 - l)
            }
            (D::N, D::M, _) => {
                let v = self.vector(D::NxM, depth + 1);
                format!("split(m, {v})")
            }
            (D::M, D::N, _) => {
                let v = self.vector(D::NxM, depth + 1);
                format!("split(n, {v})")
            }
            (D::N, D::Two, _) => {
                let v = self.vector(D::TwoN, depth + 1);
                format!("split(2, {v})")
            }
            (D::N, D::Three, _) => {
                let v = self.vector(D::Np2, depth + 1);
                format!("slide(3, {v})")
            }
            (D::Two, D::Two, _) => {
                let v = self.vector(D::Three, depth + 1);
                format!("slide(2, {v})")
            }
            _ if c != D::P && c != D::G => {
                let m = self.matrix(c, r, depth + 1);
                format!("transpose({m})")
            }
            _ => {
                let m = self.matrix(r, c, depth + 1);
                format!("reverse({m})")
            }
        }
    }

    /// A vector view of any length (not necessarily one of the generator's sizes): its
    /// text, its length as an operand, and the least that length can be.
    fn any_view(&mut self, depth: usize) -> (String, String, usize) {
        match self.r.below(6) {
            0 => {
                let (d1, d2) = (self.vec_dim(), self.vec_dim());
                let (x, y) = (self.vector(d1, depth + 1), self.vector(d2, depth + 1));
                let len = format!("({} + {})", d1.text(), d2.text());
                (format!("concat({x}, {y})"), len, d1.min() + d2.min())
            }
            1 => {
                let d = self.vec_dim();
                let (x, y) = (self.vector(d, depth + 1), self.vector(d, depth + 1));
                let len = format!("(2 * {})", d.paren());
                (format!("interleave({x}, {y})"), len, 2 * d.min())
            }
            2 => {
                let d = self.vec_dim();
                let x = self.vector(d, depth + 1);
                let v = self.scalar(depth + 1);
                let sizes = [("0", 0), ("1", 1), ("2", 2), ("p", 0), ("m", 1)];
                let (l, lmin) = sizes[self.r.below(sizes.len())];
                let (r, rmin) = sizes[self.r.below(sizes.len())];
                let len = format!("({l} + {} + {r})", d.text());
                (
                    format!("pad({x}, {l}, {r}, {v})"),
                    len,
                    lmin + d.min() + rmin,
                )
            }
            3 => {
                let d = self.vec_dim();
                let x = self.vector(d, depth + 1);
                (format!("reverse({x})"), d.paren(), d.min())
            }
            4 => {
                let (r, c) = self.mat_dims();
                let m = self.matrix(r, c, depth + 1);
                let len = format!("({} * {})", r.paren(), c.paren());
                (format!("join({m})"), len, r.min() * c.min())
            }
            _ => {
                // A window of width w of a vector with at least w elements.
                let w = 2 + self.r.below(2);
                let d = loop {
                    let d = self.vec_dim();
                    if d.min() >= w {
                        break d;
                    }
                };
                let x = self.vector(d, depth + 1);
                let rows = format!("({} + 1 - {w})", d.text());
                let i = self.index_below(&rows, d.min() + 1 - w, depth);
                (format!("slide({w}, {x})[{i}]"), w.to_string(), w)
            }
        }
    }

    /// A scalar read from a view: indexed, summed, mapped then summed, or the windows of a
    /// slide reduced one by one.
    pub(super) fn view_scalar(&mut self, depth: usize) -> String {
        if self.r.one_in(5) {
            let w = 2 + self.r.below(2);
            let d = loop {
                let d = self.vec_dim();
                if d.min() + 1 >= w {
                    break d;
                }
            };
            let x = self.vector(d, depth + 1);
            let row = self.name("w");
            let wd = if w == 2 { D::Two } else { D::Three };
            let body = self.with_elem(&row, T::V(wd), d.max(), |g| g.scalar(depth + 2));
            return format!("sum(map(slide({w}, {x}), |{row}| {body}))");
        }
        let (v, len, min) = self.any_view(depth + 1);
        match self.r.below(4) {
            0 if min > 0 => {
                let i = self.index_below(&len, min, depth);
                format!("({v})[{i}]")
            }
            1 => {
                let q = self.name("q");
                let body = self.with_elem(&q, T::F, 64, |g| g.scalar(depth + 2));
                format!("sum(map({v}, |{q}| {body}))")
            }
            2 => format!("vmax({v})"),
            _ => format!("sum({v})"),
        }
    }
}
