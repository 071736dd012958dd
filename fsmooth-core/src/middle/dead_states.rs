//! Components of a fold's tuple state that nothing needs are dropped: `ifold(n, (0.0, 3),
//! |(x, c), i| (x * 0.5 + a[i], (c + 1) % 5)).0` is the fold of `x` alone. A component is
//! needed when the fold's reader takes it, or when the step's code for a needed component
//! reads it (a condition both read counts for both). The same fold written as two folds side
//! by side, one of them unread, lost the unread one as a dead `let`; now the tuple spelling
//! costs what that one does (LANGUAGE.md section 13, the respelling differential's
//! `TupleFoldAsSiblings`).

use crate::middle::ir::{Core, Kind, Type, VarId, new_var};
use crate::middle::simplify::propagate;
use std::collections::BTreeSet;

/// Apply the rule at `e`'s root: a `let` of a tuple-state fold whose body reads the tuple
/// only through projections, or a projection of such a fold. True when it applied.
pub fn rule(e: &mut Core, names: &mut Vec<String>) -> bool {
    match &mut e.kind {
        Kind::Let(t, a, body) if matches!(a.kind, Kind::Ifold(..)) && a.ty.is_tuple() => {
            let t = *t;
            // A pattern's component bound and never read (`let (x, v) = ifold(..); x + x`)
            // needs nothing: its `let` goes first.
            drop_unread_parts(body, t);
            let Some(used) = projections(body, t) else {
                return false;
            };
            let old = a.ty.clone();
            let Some(keep) = shrink(a, &used, names) else {
                return false;
            };
            retarget(body, t, &keep, &old);
            true
        }
        Kind::Proj(f, k) if matches!(f.kind, Kind::Ifold(..)) => {
            let used = BTreeSet::from([*k]);
            let Some(keep) = shrink(f, &used, names) else {
                return false;
            };
            if keep.len() == 1 {
                let span = e.span;
                *e = f.take();
                e.span = span;
            } else {
                *k = keep.iter().position(|x| x == k).unwrap_or(*k);
            }
            true
        }
        _ => false,
    }
}

/// Every `let v = t.k` in `e` whose body does not read `v`, removed.
fn drop_unread_parts(e: &mut Core, t: VarId) {
    while let Kind::Let(v, a, b) = &mut e.kind
        && matches!(&a.kind, Kind::Proj(x, _) if matches!(x.kind, Kind::Var(x) if x == t))
        && !b.mentions(*v)
    {
        *e = b.take();
    }
    for c in e.children_mut() {
        drop_unread_parts(c, t);
    }
}

/// The components of tuple variable `t` that `e` reads, when it reads `t` only through
/// projections.
fn projections(e: &Core, t: VarId) -> Option<BTreeSet<usize>> {
    fn walk(e: &Core, t: VarId, out: &mut BTreeSet<usize>) -> bool {
        match &e.kind {
            Kind::Proj(x, k) if matches!(x.kind, Kind::Var(v) if v == t) => {
                out.insert(*k);
                true
            }
            Kind::Var(v) if *v == t => false,
            _ => e.children().all(|c| walk(c, t, out)),
        }
    }
    let mut out = BTreeSet::new();
    walk(e, t, &mut out).then_some(out)
}

/// Make `fold` (an `ifold` of a tuple state) the fold of the components that `used` needs;
/// returns them, in order, when some other could go. Its type becomes that of the kept
/// components (the one component's own when one is kept).
fn shrink(fold: &mut Core, used: &BTreeSet<usize>, names: &mut Vec<String>) -> Option<Vec<usize>> {
    let Kind::Ifold(_, init, acc, _, step) = &fold.kind else {
        return None;
    };
    let (acc, parts) = (*acc, fold.ty.parts().to_vec());
    if used.is_empty() || used.len() == parts.len() {
        return None;
    }
    let mut keep = used.clone();
    let new_step = loop {
        let k: Vec<usize> = keep.iter().copied().collect();
        let mut s = (**step).clone();
        restrict(&mut s, &k, &parts, names);
        propagate(&mut s);
        let read = projections(&s, acc)?;
        if read.is_subset(&keep) {
            break s;
        }
        keep.extend(read);
    };
    if keep.len() == parts.len() {
        return None;
    }
    let keep: Vec<usize> = keep.into_iter().collect();
    let ty = narrowed(&parts, &keep);
    let mut init = (**init).clone();
    restrict(&mut init, &keep, &parts, names);
    let mut step = new_step;
    retarget(&mut step, acc, &keep, &fold.ty);
    let Kind::Ifold(_, i0, _, _, st) = &mut fold.kind else {
        return None;
    };
    **i0 = init;
    **st = step;
    fold.ty = ty;
    Some(keep)
}

/// The type of the components `keep` of a tuple of `parts`.
fn narrowed(parts: &[Type], keep: &[usize]) -> Type {
    let part = |k: usize| parts.get(k).cloned().unwrap_or(Type::Bool);
    match keep {
        [one] => part(*one),
        _ => Type::Tuple(keep.iter().map(|&k| part(k)).collect()),
    }
}

/// `e`, a value of the tuple type of `parts`, as the value of its components `keep`: each
/// tuple it ends in (through `let`s and `if`s) keeps those components; any other ending is
/// bound and projected.
fn restrict(e: &mut Core, keep: &[usize], parts: &[Type], names: &mut Vec<String>) {
    let ty = narrowed(parts, keep);
    match &mut e.kind {
        Kind::Let(_, _, b) => restrict(b, keep, parts, names),
        Kind::If(_, a, b) => {
            restrict(a, keep, parts, names);
            restrict(b, keep, parts, names);
        }
        Kind::Tuple(xs) if keep.iter().all(|&k| k < xs.len()) => {
            let mut kept: Vec<Core> = keep.iter().map(|&k| xs[k].take()).collect();
            if kept.len() == 1 {
                *e = kept.remove(0);
                return;
            }
            *xs = kept;
        }
        _ => {
            let (span, whole) = (e.span, e.ty.clone());
            let y = new_var(names, 0);
            let read = |k: usize| {
                Core::new(
                    Kind::Proj(Box::new(Core::new(Kind::Var(y), whole.clone(), span)), k),
                    parts.get(k).cloned().unwrap_or(Type::Bool),
                    span,
                )
            };
            let value = match keep {
                [one] => read(*one),
                _ => Core::new(
                    Kind::Tuple(keep.iter().map(|&k| read(k)).collect()),
                    ty.clone(),
                    span,
                ),
            };
            let x = e.take();
            *e = Core::new(Kind::Let(y, Box::new(x), Box::new(value)), ty.clone(), span);
        }
    }
    e.ty = ty;
}

/// Reads of tuple variable `t` (of type `old`, now holding the components `keep`) in `e`:
/// `t.k` becomes the kept component's projection, or `t` itself when one is kept.
fn retarget(e: &mut Core, t: VarId, keep: &[usize], old: &Type) {
    let parts = old.parts();
    let ty = narrowed(parts, keep);
    if let Kind::Proj(x, k) = &mut e.kind
        && let Kind::Var(v) = x.kind
        && v == t
    {
        let pos = keep.iter().position(|j| j == k).unwrap_or(*k);
        if keep.len() == 1 {
            let (span, sym) = (e.span, e.sym.take());
            *e = Core::new(Kind::Var(t), ty, span);
            e.sym = sym;
        } else {
            *k = pos;
            x.ty = ty;
        }
        return;
    }
    for c in e.children_mut() {
        retarget(c, t, keep, old);
    }
}

#[cfg(test)]
mod tests {
    use crate::middle::fuse::tests::optimized;
    use crate::middle::ir::{Core, Kind};

    /// How many components the state of each `ifold` of the kernel has (1 for a scalar).
    fn states(src: &str) -> Vec<usize> {
        fn walk(e: &Core, out: &mut Vec<usize>) {
            if let Kind::Ifold(..) = e.kind {
                out.push(e.ty.parts().len().max(1));
            }
            e.children().for_each(|c| walk(c, out));
        }
        let mut out = Vec::new();
        walk(&optimized(src).body, &mut out);
        out
    }

    #[test]
    fn components_nothing_reads_leave_the_state() {
        // A counter nothing reads, under a projection and under a tuple `let`.
        assert_eq!(
            states(
                "pub fn k(a: [f64; n]) -> f64 { (ifold(n, (0.7, 3), |(x, c), i| (x * 0.5 + a[i], (c + 1) % 5))).0 }"
            ),
            [1]
        );
        assert_eq!(
            states(
                "pub fn k(a: [f64; n]) -> f64 { let (s, c, m) = ifold(n, (0.0, 0, 1.0), |(s, c, m), i| if a[i] > m { (s + a[i], c + 1, m) } else { (s, c, m * 0.5) }); s + m }"
            ),
            [2]
        );
        // A component the kept one's step reads stays (an argmin's distance), and so does
        // one a condition reads.
        assert_eq!(
            states(
                "pub fn k(a: [f64; n]) -> usize { ifold(n, (0, a[0]), |(b, d), i| if a[i] < d { (i, a[i]) } else { (b, d) }).0 }"
            ),
            [2]
        );
        assert_eq!(
            states(
                "pub fn k(a: [f64; n]) -> f64 { ifold(n, (0.0, 0), |(s, c), i| if c < 3 { (s + a[i], c + 1) } else { (s, c) }).0 }"
            ),
            [2]
        );
    }
}
