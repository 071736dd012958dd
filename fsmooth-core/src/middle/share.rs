//! `share`: a computation (a loop: an array, or a sum or fold to a number) written more than
//! once in one scope is bound once by a `let` at the head of that scope, before fusion: one
//! computation instead of one per copy, and one form for a `let` that names a value and the
//! expression written where it is read (LANGUAGE.md section 13). A scope is the kernel's body
//! (`half(img)` in `(half(img), half(half(img)))`, a helper called twice with the same
//! arguments; a result component it equals is then written where it lives) or a loop's body
//! or a branch (CG's `dot(p, poisson(p))` and `sub(r, smul(poisson(p), alpha))` in one step
//! read one `A p`, as with `let ap = poisson(p)`).
//!
//! Copies are found by [`crate::middle::cse::key`] (the variables a copy binds compared by
//! position), over what is bound outside the scope and the `let`s heading it. A copy is
//! shared only when one of them is evaluated unconditionally in the scope (not in a branch of
//! an `if` nor in a loop's body under it), so that computing it once at the head adds no work
//! and no error the program did not already have.

use crate::front::ast::BinOp;
use crate::middle::cse::key;
use crate::middle::ir::{Core, Kind, VarId, new_var};
use std::collections::{HashMap, HashSet};

/// Share the copies in `body` (see the module doc), then in every loop body and branch
/// under it, each as its own scope: a copy there may read what the scope's loop binds.
pub fn share(body: &mut Core, names: &mut Vec<String>) {
    share_scope(body, names);
    inner_scopes(body, names);
}

/// [`share_scope`] in every loop body and branch under `e` (not `e` itself), outermost first:
/// a copy shared in an outer scope is one variable when the inner scopes are searched.
fn inner_scopes(e: &mut Core, names: &mut Vec<String>) {
    match &mut e.kind {
        Kind::Build(_, _, b) | Kind::Ifold(_, _, _, _, b) | Kind::Scan(_, _, _, _, b) => {
            share(b, names)
        }
        Kind::Iterate(_, _, c, _, b) => {
            share(c, names);
            share(b, names);
        }
        Kind::If(_, a, b) => {
            share(a, names);
            share(b, names);
        }
        _ => {}
    }
    // The loop's count and start, the `if`'s condition, and every other node's children.
    match &mut e.kind {
        Kind::Build(..) => {}
        Kind::Ifold(n, init, ..) => {
            inner_scopes(n, names);
            inner_scopes(init, names);
        }
        Kind::Scan(_, init, ..) | Kind::Iterate(init, ..) => inner_scopes(init, names),
        Kind::If(c, ..) => inner_scopes(c, names),
        _ => {
            for c in e.children_mut() {
                inner_scopes(c, names);
            }
        }
    }
}

/// Share the copies in one scope `body` over what is bound outside it (the kernel's
/// parameters, or an enclosing loop's index, state and `let`s), largest first: the copies of
/// a larger computation (`sum(build(n, |j| a[i] * a[j]))` twice) become one before the
/// computations inside them would be stored to be read twice.
fn share_scope(body: &mut Core, names: &mut Vec<String>) {
    // Each round binds one computation; a body has fewer computations than nodes.
    for _ in 0..256 {
        // `let a = b` read as `b`: a copy over a shared variable is then a copy.
        crate::middle::simplify::propagate(body);
        // The `let`s heading the body are in scope for what follows them: a copy may read
        // them (it is bound after the last it reads).
        let chain = head_lets(body);
        let mut all = Vec::new();
        crate::middle::ir::bound(body, &mut all);
        let mut bound: HashSet<VarId> = all.into_iter().collect();
        for v in &chain {
            bound.remove(v);
        }
        let mut found: HashMap<String, Copies> = HashMap::new();
        collect(body, &bound, true, &mut found);
        let pick = found
            .into_iter()
            .filter(|(_, c)| c.count >= 2 && c.at_top)
            .max_by(|(ka, a), (kb, b)| a.size.cmp(&b.size).then_with(|| kb.cmp(ka)));
        let Some((k, copies)) = pick else {
            return;
        };
        let v = new_var(names, 0);
        if let Some(n) = names.get_mut(v as usize) {
            *n = "shared".into();
        }
        let value = copies.value;
        let mut read = Core::new(Kind::Var(v), value.ty.clone(), value.span);
        read.sym = value.sym.clone();
        replace(body, &k, &read);
        // After the last heading `let` the value reads.
        let after = chain
            .iter()
            .rposition(|x| value.mentions(*x))
            .map_or(0, |p| p + 1);
        bind_at(body, after, v, value);
    }
}

/// Bind `v` to `value` by a `let` after the first `depth` `let`s heading `e`.
fn bind_at(e: &mut Core, depth: usize, v: VarId, value: Core) {
    if depth > 0
        && let Kind::Let(_, _, rest) = &mut e.kind
    {
        bind_at(rest, depth - 1, v, value);
        return;
    }
    let rest = std::mem::replace(
        e,
        Core::new(Kind::Bool(false), value.ty.clone(), value.span),
    );
    let (ty, span) = (rest.ty.clone(), rest.span);
    *e = Core::new(Kind::Let(v, Box::new(value), Box::new(rest)), ty, span);
}

/// The variables of the `let`s heading `e`, in order.
fn head_lets(e: &Core) -> Vec<VarId> {
    let mut out = Vec::new();
    let mut cur = e;
    while let Kind::Let(v, _, rest) = &cur.kind {
        out.push(*v);
        cur = rest;
    }
    out
}

/// The copies of one computation: how many, whether one is evaluated unconditionally, the
/// size of one (nodes), and one of them.
struct Copies {
    count: usize,
    at_top: bool,
    size: usize,
    value: Core,
}

/// True when `e` reads no variable bound in the scope's body (only what is bound outside it,
/// and the `let`s heading it), not counting those `e` binds itself.
fn over_parameters(e: &Core, bound: &HashSet<VarId>) -> bool {
    let mut all = HashSet::new();
    e.occurring(&mut all);
    let mut own = Vec::new();
    crate::middle::ir::bound(e, &mut own);
    all.iter().all(|v| own.contains(v) || !bound.contains(v))
}

/// The nodes of `e`.
fn size(e: &Core) -> usize {
    1 + e.children().map(size).sum::<usize>()
}

/// Record the computations (loops: arrays, and sums and other folds to a number) under `e`
/// over what is bound outside the scope only; `top`: `e` is evaluated unconditionally, once
/// each time the scope is.
fn collect(e: &Core, bound: &HashSet<VarId>, top: bool, found: &mut HashMap<String, Copies>) {
    let computes = matches!(
        e.kind,
        Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
    );
    if !e.ty.is_tuple() && computes && over_parameters(e, bound) {
        let c = found.entry(key(e)).or_insert_with(|| Copies {
            count: 0,
            at_top: false,
            size: size(e),
            value: e.clone(),
        });
        c.count += 1;
        c.at_top |= top;
    }
    match &e.kind {
        Kind::If(c, a, b) => {
            collect(c, bound, top, found);
            collect(a, bound, false, found);
            collect(b, bound, false, found);
        }
        Kind::Build(_, _, b) => collect(b, bound, false, found),
        Kind::Ifold(n, init, _, _, b) => {
            collect(n, bound, top, found);
            collect(init, bound, top, found);
            collect(b, bound, false, found);
        }
        Kind::Scan(_, init, _, _, b) => {
            collect(init, bound, top, found);
            collect(b, bound, false, found);
        }
        Kind::Iterate(init, _, c, _, b) => {
            collect(init, bound, top, found);
            collect(c, bound, false, found);
            collect(b, bound, false, found);
        }
        // The right side of `&&` and `||` runs only sometimes.
        Kind::Bin(BinOp::And | BinOp::Or, a, b, _) => {
            collect(a, bound, top, found);
            collect(b, bound, false, found);
        }
        _ => {
            for c in e.children() {
                collect(c, bound, top, found);
            }
        }
    }
}

/// Replace every copy of the computation with key `k` in `e` by `read`.
fn replace(e: &mut Core, k: &str, read: &Core) {
    if e.ty == read.ty
        && matches!(
            e.kind,
            Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
        )
        && key(e) == k
    {
        let span = e.span;
        *e = read.clone();
        e.span = span;
        return;
    }
    for c in e.children_mut() {
        replace(c, k, read);
    }
}

#[cfg(test)]
mod tests {
    /// The generated `scratch_len` body of the only kernel of `src`.
    fn scratch(src: &str) -> String {
        let out = crate::expand(src.parse().expect("tokens")).to_string();
        let from = out.find("fn scratch_len").expect("a scratch_len");
        let body = &out[from..];
        let (open, close) = (body.find('{').unwrap(), body.find('}').unwrap());
        body[open + 1..close].trim().to_string()
    }

    const HALF: &str = "fn half(x: [[f64; w]; h]) -> [[f64; w / 2]; h / 2] {
        build(h / 2, |r| build(w / 2, |c| 0.25 * (x[2 * r][2 * c] + x[2 * r][2 * c + 1]
            + x[2 * r + 1][2 * c] + x[2 * r + 1][2 * c + 1])))
    }";

    #[test]
    fn a_pyramid_written_out_computes_each_level_once() {
        // No `let`s: each level written from the image, as with `let`s (section 13).
        let written = format!(
            "{HALF} pub fn k(img: [[f64; w]; h]) -> ([[f64; w / 2]; h / 2], [[f64; w / 4]; h / 4]) {{
                (half(img), half(half(img)))
            }}"
        );
        let bound = format!(
            "{HALF} pub fn k(img: [[f64; w]; h]) -> ([[f64; w / 2]; h / 2], [[f64; w / 4]; h / 4]) {{
                let l1 = half(img);
                (l1, half(l1))
            }}"
        );
        assert_eq!(scratch(&written), "0");
        assert_eq!(scratch(&written), scratch(&bound));
    }

    #[test]
    fn copies_in_branches_only_are_not_shared() {
        // Neither copy runs unconditionally: computing it before the `if` would add work
        // (and a run of the other branch never computes it).
        let src = format!(
            "{HALF} pub fn k(img: [[f64; w]; h], s: f64) -> f64 {{
                if s > 0.0 {{ sum(join(half(img))) * s }} else {{ sum(join(half(img))) }}
            }}"
        );
        let out = crate::expand(src.parse().unwrap()).to_string();
        assert!(!out.contains("shared"), "{out}");
    }

    #[test]
    fn a_copy_over_a_loop_index_is_shared_in_the_loop_body() {
        // `sum(build(n, |j| a[i] * a[j]))` twice reads the loop's `i`: shared in the outer
        // `build`'s body, once per `i`, the sum as a whole (largest first), so its `build`
        // is still fused: no scratch, as with `let s = ..; s + s`, and the same as with the
        // array `let`-bound and summed twice.
        let copies = "pub fn k(a: [f64; n]) -> f64 {
            sum(build(n, |i| sum(build(n, |j| a[i] * a[j])) + sum(build(n, |j| a[i] * a[j]))))
        }";
        let let_bound = "pub fn k(a: [f64; n]) -> f64 {
            sum(build(n, |i| { let t = build(n, |j| a[i] * a[j]); sum(t) + sum(t) }))
        }";
        let out = crate::expand(copies.parse().unwrap()).to_string();
        assert_eq!(out.matches("for i_").count(), 2, "{out}");
        assert!(out.contains("shared"), "{out}");
        assert_eq!(scratch(copies), "0usize");
        assert_eq!(scratch(let_bound), "0usize");
    }

    #[test]
    fn a_step_reading_one_array_twice_stores_it_once_as_a_let_does() {
        // CG's `A p` written twice in the step, or bound by a `let`: one stored array.
        let poisson = "fn ap(p: [f64; n]) -> [f64; n] {
            build(n, |i| 2.0 * p[i] - (if i > 0 { p[i - 1] } else { 0.0 }))
        }";
        let twice = format!(
            "{poisson} pub fn k(b: [f64; n], t: usize) -> [f64; n] {{
                ifold(t, b, |p, _| {{
                    let a = 1.0 / dot(p, ap(p));
                    build(n, |i| p[i] - a * ap(p)[i])
                }})
            }}"
        );
        let once = format!(
            "{poisson} pub fn k(b: [f64; n], t: usize) -> [f64; n] {{
                ifold(t, b, |p, _| {{
                    let q = ap(p);
                    let a = 1.0 / dot(p, q);
                    build(n, |i| p[i] - a * q[i])
                }})
            }}"
        );
        assert_eq!(scratch(&twice), scratch(&once));
        assert_ne!(scratch(&once), "0usize");
    }
}
