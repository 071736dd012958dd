//! `reuse`: an element of a `let`-bound `build`, computed again where the array is in scope,
//! at an index inside it, is read from the array. `let a1 = build(h, |j| (dot(w1[j], x) +
//! b1[j]).tanh())` then `(dot(w1[k], x) + b1[k]).tanh()` with `k < h` is `a1[k]`.
//!
//! Reverse mode makes such copies: the sweep of a dense layer needs each unit's activation
//! to differentiate `tanh`, and writes the activation's expression again where the primal
//! had bound the whole layer. One canonical form for a value however many times it is
//! written (LANGUAGE.md section 13), as common subexpressions are one `let`.
//!
//! Sound because the array was computed, every element without error, before the copy is
//! reached, and the copy is that element's expression at an index inside it: the same
//! value, bit for bit, and it could not have failed either.

use crate::front::size::Size;
use crate::middle::cse::key;
use crate::middle::ir::{Core, Kind, VarId};
use std::collections::HashMap;
use std::mem::discriminant;

/// Read the recomputed elements of `let`-bound `build`s from their arrays, everywhere in `e`.
pub fn reuse(e: &mut Core) {
    Reuse::default().visit(e);
}

/// Elements larger than this many nodes are not looked for (the search compares each
/// candidate with the element, and a large element is rarely written twice).
const MAX_ELEMENT: usize = 400;

/// A `let`-bound `build` in scope: `let array = build(count, |index| element)`.
struct Built {
    array: Core,
    count: Size,
    index: VarId,
    element: Core,
}

/// The state of [`reuse`]'s walk.
#[derive(Default)]
struct Reuse {
    /// The `build`s in scope, innermost last.
    built: Vec<Built>,
    /// The loops around the node, with their counts where those are sizes.
    loops: Vec<(VarId, Size)>,
    /// The scalar `let`s in scope, by variable: a copy may be written in several (the
    /// sweep's `let t = dot(..) + b; t.tanh()`), and is compared with them put back.
    lets: HashMap<VarId, Core>,
}

impl Reuse {
    fn visit(&mut self, e: &mut Core) {
        if let Some(read) = self.element_read(e) {
            *e = read;
            return;
        }
        self.visit_inside(e);
    }

    /// [`Reuse::visit`] without reading `e` itself from an array: a `build`'s whole element
    /// read from another's would make a copy of an array `cse` shares whole.
    fn visit_inside(&mut self, e: &mut Core) {
        match &mut e.kind {
            Kind::Let(x, a, b) => {
                self.visit(a);
                let built = match &a.kind {
                    Kind::Build(n, j, element) if worth_reading(element) => Some(Built {
                        array: Core {
                            kind: Kind::Var(*x),
                            ty: a.ty.clone(),
                            sym: None,
                            span: a.span,
                        },
                        count: n.clone(),
                        index: *j,
                        element: (**element).clone(),
                    }),
                    _ => None,
                };
                let pushed = built.is_some();
                self.built.extend(built);
                let scalar = !a.ty.is_arr() && !a.ty.is_tuple();
                if scalar {
                    self.lets.insert(*x, (**a).clone());
                }
                self.visit(b);
                if scalar {
                    self.lets.remove(x);
                }
                if pushed {
                    self.built.pop();
                }
            }
            Kind::Build(n, i, body) => {
                self.loops.push((*i, n.clone()));
                self.visit_inside(body);
                self.loops.pop();
            }
            Kind::Ifold(n, init, _, i, body) => {
                self.visit(n);
                self.visit(init);
                let count = n.sym.clone();
                self.under(*i, count, body);
            }
            Kind::Scan(n, init, _, i, body) => {
                self.visit(init);
                let count = Some(n.clone());
                self.under(*i, count, body);
            }
            _ => {
                for c in e.children_mut() {
                    self.visit(c);
                }
            }
        }
    }

    /// Visit a loop's `body` with its index `i` (and its count, when a size) known.
    fn under(&mut self, i: VarId, count: Option<Size>, body: &mut Core) {
        match count {
            Some(n) => {
                self.loops.push((i, n));
                self.visit(body);
                self.loops.pop();
            }
            None => self.visit(body),
        }
    }

    /// `e` as a read of an array in scope: `array[k]` when `e` is its element at `k`.
    fn element_read(&self, e: &Core) -> Option<Core> {
        let mut expanded = None;
        for b in self.built.iter().rev() {
            if !same_head(&b.element, e) {
                continue;
            }
            let whole = expanded.get_or_insert_with(|| self.expand(e));
            let Some(k) = at_index(&b.element, whole, b.index) else {
                continue;
            };
            if !self.inside(k, &b.count) || binds(whole, k) {
                continue;
            }
            let mut element = b.element.clone();
            element.subst(b.index, k);
            if key(&element) != key(whole) {
                continue;
            }
            let k = k.clone();
            return Some(Core {
                kind: Kind::Index(Box::new(b.array.clone()), Box::new(k)),
                ty: e.ty.clone(),
                sym: e.sym.clone(),
                span: e.span,
            });
        }
        None
    }

    /// `e` with the scalar `let`s in scope it reads put back, and theirs.
    fn expand(&self, e: &Core) -> Core {
        let mut e = e.clone();
        self.put_back(&mut e, 0);
        e
    }

    fn put_back(&self, e: &mut Core, depth: usize) {
        if let Kind::Var(v) = e.kind {
            // (Bounded: a chain of `let`s each read twice doubles at every step.)
            if let Some(value) = self.lets.get(&v)
                && depth < 8
            {
                let span = e.span;
                *e = value.clone();
                e.span = span;
                self.put_back(e, depth + 1);
            }
            return;
        }
        for c in e.children_mut() {
            self.put_back(c, depth);
        }
    }

    /// `k < count`: a loop index counted by `count`, or a constant below it.
    fn inside(&self, k: &Core, count: &Size) -> bool {
        match &k.kind {
            Kind::Var(v) => self
                .loops
                .iter()
                .rev()
                .any(|(i, n)| i == v && n.same(count)),
            Kind::Size(Size::Lit(c)) => count.as_const().is_some_and(|n| *c < n),
            _ => false,
        }
    }
}

/// An element worth reading back: more than a load or a constant.
fn worth_reading(element: &Core) -> bool {
    let n = crate::middle::ir::nodes(element);
    (3..=MAX_ELEMENT).contains(&n)
}

/// Whether `a` and `b` are the same kind of node, of one type (the quick test before the
/// others).
fn same_head(a: &Core, b: &Core) -> bool {
    if discriminant(&a.kind) != discriminant(&b.kind) || a.ty != b.ty {
        return false;
    }
    match (&a.kind, &b.kind) {
        (Kind::Math(f, _), Kind::Math(g, _)) => f == g,
        (Kind::Bin(p, ..), Kind::Bin(q, ..)) => p == q,
        _ => true,
    }
}

/// What `e` has where `pattern` first reads `j`, walking both alike: the index `e` would be
/// `pattern` at. Only a variable or a constant.
fn at_index<'a>(pattern: &Core, e: &'a Core, j: VarId) -> Option<&'a Core> {
    if matches!(pattern.kind, Kind::Var(v) if v == j) {
        return match &e.kind {
            Kind::Var(_) | Kind::Size(Size::Lit(_)) => Some(e),
            _ => None,
        };
    }
    if discriminant(&pattern.kind) != discriminant(&e.kind) {
        return None;
    }
    pattern
        .children()
        .zip(e.children())
        .find_map(|(p, c)| at_index(p, c, j))
}

/// Whether `e` binds the variable `k` is (then `k` is no index outside `e`).
fn binds(e: &Core, k: &Core) -> bool {
    let Kind::Var(v) = k.kind else {
        return false;
    };
    let mut bound = Vec::new();
    crate::middle::ir::bound(e, &mut bound);
    bound.contains(&v)
}

#[cfg(test)]
mod tests {
    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn an_element_written_again_at_an_index_inside_is_read() {
        // The activation's `tanh` once per unit, not again in the second loop.
        let out = expand(
            "pub fn k(x: [f64; h], y: [f64; h]) -> f64 {
                let a = build(h, |j| (x[j] * 2.0).tanh());
                ifold(h, 0.0, |acc, k| acc + (x[k] * 2.0).tanh() * y[k] + a[k])
            }",
        );
        assert_eq!(out.matches("tanh").count(), 1, "{out}");
    }

    #[test]
    fn an_element_written_again_through_lets_is_read() {
        // The sweep's form: the pre-activation bound first, then its `tanh`.
        let out = expand(
            "pub fn k(x: [f64; h], y: [f64; h]) -> f64 {
                let a = build(h, |j| (x[j] * 2.0 + y[j]).tanh());
                ifold(h, 0.0, |acc, k| {
                    let t = x[k] * 2.0 + y[k];
                    let u = t.tanh();
                    acc + u * (1.0 - u * u) * t + a[k]
                })
            }",
        );
        assert_eq!(out.matches("tanh").count(), 1, "{out}");
    }

    #[test]
    fn not_at_an_index_that_may_be_outside() {
        // `k` counts to `m`, which may exceed `h`: computed again.
        let out = expand(
            "pub fn k(x: [f64; h], y: [f64; m]) -> f64 {
                let a = build(h, |j| (x[j % 3] * 2.0).tanh());
                ifold(m, a[0], |acc, k| acc + (x[k % 3] * 2.0).tanh() * y[k] + a[1])
            }",
        );
        assert_eq!(out.matches("tanh").count(), 2, "{out}");
    }
}
