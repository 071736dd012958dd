//! `siblings`: folds over one count bound side by side, each of a scalar state and none
//! reading another's value, run as one fold of their states (horizontal fusion). One form
//! for a point's three coordinates summed over the bones, whether written as one fold of a
//! tuple, as `build(3, |r| sum(build(b, ..)))` (which `unroll` writes out as three sums), or
//! as three `let`s: the arrays the sums share are read once per step, not once per sum
//! (LANGUAGE.md section 13). Each state sees the same operations in the same order, so the
//! values are the same bits.

use crate::front::ast::BinOp;
use crate::middle::ir::{Core, Kind, Type, VarId, fresh, new_var};

/// The most states one fold takes: enough for a point's coordinates or a 3 x 3 block's
/// sums, few enough to stay in registers.
const STATES_MAX: usize = 8;

/// Every run of sibling folds in `e` made one fold, outermost first.
pub fn siblings(e: &mut Core, names: &mut Vec<String>) {
    bind_operands(e, names);
    bind_result_folds(e, names);
    merge_run(e, names);
    for c in e.children_mut() {
        siblings(c, names);
    }
}

/// The folds among the operands of an array, a tuple or an arithmetic operation (`[s0, s1,
/// s2]` once `unroll` has written out `build(3, |r| sum(..))`), when at least two of them
/// count alike, bound by `let`s before it: a run [`merge_run`] takes. The operands are all
/// evaluated, in any order (no operand reads another).
fn bind_operands(e: &mut Core, names: &mut Vec<String>) {
    // Not `&&` and `||`, whose right operand may not be evaluated.
    let operands = match &e.kind {
        Kind::Array(_) | Kind::Tuple(_) => true,
        Kind::Bin(op, ..) => !matches!(op, BinOp::And | BinOp::Or),
        _ => false,
    };
    if !operands {
        return;
    }
    let first = e
        .children()
        .find(|c| joins(c, None, &[], false))
        .and_then(|c| match &c.kind {
            Kind::Ifold(n, ..) => Some((**n).clone()),
            _ => None,
        });
    let Some(count) = first else {
        return;
    };
    let alike = |c: &Core| joins(c, Some(&count), &[], false);
    if e.children().filter(|c| alike(c)).count() < 2 {
        return;
    }
    let mut taken = 0;
    bind_first(e, names, |c| {
        let take = taken < STATES_MAX && alike(c);
        taken += usize::from(take);
        take
    });
}

/// The operands of `e` that `take` accepts (in order) bound by `let`s before it, each
/// replaced by its variable.
fn bind_first(e: &mut Core, names: &mut Vec<String>, mut take: impl FnMut(&Core) -> bool) {
    let mut bound: Vec<(VarId, Core)> = Vec::new();
    for c in e.children_mut() {
        if take(c) {
            let v = names.len() as VarId;
            names.push("s".into());
            let read = Core::new(Kind::Var(v), c.ty.clone(), c.span);
            bound.push((v, std::mem::replace(c, read)));
        }
    }
    let body = e.take();
    *e = crate::middle::forward::wrap(bound, body);
}

/// The folds among the components of a tuple that ends a run of fold `let`s, bound by
/// `let`s before it when they join the run (`let v = ifold(n, ..); (v, ifold(n, ..))`: a
/// sum's value beside the gradient the reverse sweep adds up over the same steps), so that
/// [`merge_run`] takes them with it. A tuple's components are all evaluated and none reads
/// another, so binding them first changes nothing else.
fn bind_result_folds(e: &mut Core, names: &mut Vec<String>) {
    let mut run: Vec<VarId> = Vec::new();
    let mut count: Option<Core> = None;
    let mut arrays = 0;
    let mut cur = &mut *e;
    while let Kind::Let(v, value, _) = &cur.kind {
        if run.len() == STATES_MAX || !joins(value, count.as_ref(), &run, arrays == 0) {
            return;
        }
        if let Kind::Ifold(n, ..) = &value.kind {
            count.get_or_insert_with(|| (**n).clone());
        }
        arrays += usize::from(replaces_rows(value));
        run.push(*v);
        let Kind::Let(_, _, body) = &mut cur.kind else {
            return;
        };
        cur = body;
    }
    let Some(count) = count else {
        return;
    };
    if !matches!(cur.kind, Kind::Tuple(_)) {
        return;
    }
    let mut states = run.len();
    bind_first(cur, names, |c| {
        let take = states < STATES_MAX && joins(c, Some(&count), &run, arrays == 0);
        states += usize::from(take);
        arrays += usize::from(take && replaces_rows(c));
        take
    });
}

/// A fold `let`'s parts: its variable, count, first state, state, index and step.
struct Fold {
    var: VarId,
    count: Core,
    init: Core,
    acc: VarId,
    index: VarId,
    step: Core,
}

/// Whether `value`, a fold, may join a run whose folds bind `earlier` and count `count`: a
/// scalar state (or, when `array` allows it, an array state whose step replaces elements or
/// rows of it, which the lowering updates in place beside scalar states; an array rebuilt whole each
/// step would take a second buffer in a tuple state), the same count, and neither its start
/// nor its step reads a value of the run.
fn joins(value: &Core, count: Option<&Core>, earlier: &[VarId], array: bool) -> bool {
    let Kind::Ifold(n, init, acc, _, step) = &value.kind else {
        return false;
    };
    let in_place = || array && crate::middle::unroll::one_update(step);
    if value.ty.is_tuple() || value.ty.is_arr() && !in_place() && !own_elements(step, *acc) {
        return false;
    }
    // Counts known alike: the same size, or the same variable or projection of one (a
    // count read at run time, `t.0`, has no size).
    let read = |c: &Core| match &c.kind {
        Kind::Var(_) => true,
        Kind::Proj(t, _) => matches!(t.kind, Kind::Var(_)),
        _ => false,
    };
    let same_count = match count {
        None => n.sym.is_some() || read(n),
        Some(c) => {
            matches!((&c.sym, &n.sym), (Some(a), Some(b)) if a.same(b))
                || read(c) && read(n) && crate::middle::cse::key(c) == crate::middle::cse::key(n)
        }
    };
    same_count
        && earlier
            .iter()
            .all(|v| !value.mentions(*v) && !init.mentions(*v))
}

/// Whether `value` is a fold of an array state that [`joins`] takes as replacing elements
/// or rows one at a time (at most one a run: the lowering updates one such array in place
/// beside other states).
fn replaces_rows(value: &Core) -> bool {
    matches!(&value.kind, Kind::Ifold(_, _, acc, _, step)
        if value.ty.is_arr() && !own_elements(step, *acc))
}

/// Whether `step` is a `build` or an array literal (after `let`s not reading `acc`) whose
/// element reads, of the old state `acc`, only its own element or row (`map2(lo, x[i], |a, b| a.min(b))`): the
/// lowering updates such states in place, several side by side in one tuple state, as it
/// does one alone.
fn own_elements(step: &Core, acc: VarId) -> bool {
    /// Whether `e` reads `acc` only at the index `at` accepts.
    fn own(e: &Core, acc: VarId, at: &dyn Fn(&Core) -> bool) -> bool {
        match &e.kind {
            Kind::Index(a, i) if matches!(a.kind, Kind::Var(v) if v == acc) => at(i),
            Kind::Var(v) => *v != acc,
            _ => e.children().all(|c| own(c, acc, at)),
        }
    }
    match &step.kind {
        Kind::Let(_, v, b) => !v.mentions(acc) && own_elements(b, acc),
        Kind::Build(_, j, body) => own(body, acc, &|i| matches!(i.kind, Kind::Var(v) if v == *j)),
        // Written out by `unroll` (a literal length): element `k` reads `acc[k]`.
        Kind::Array(items) => items.iter().enumerate().all(|(k, x)| {
            own(x, acc, &|i| {
                i.sym.as_ref().and_then(|s| s.as_const()) == Some(k as u64)
            })
        }),
        _ => false,
    }
}

/// `let v1 = ifold(n, z1, |a1, i1| s1); .. let vk = ifold(n, zk, |ak, ik| sk); body` (k >=
/// 2 consecutive `let`s, see [`joins`]) becomes
///
/// ```text
/// let t = ifold(n, (z1, .., zk), |u, i| {
///     let a1 = u.0; let r1 = s1[i1 := i]; ..; let ak = u.(k-1); let rk = sk[ik := i];
///     (r1, .., rk)
/// });
/// let v1 = t.0; ..; let vk = t.(k-1); body
/// ```
///
/// True when it applied.
fn merge_run(e: &mut Core, names: &mut Vec<String>) -> bool {
    // The run: consecutive `let`s from `e`.
    let mut run: Vec<VarId> = Vec::new();
    let mut count: Option<Core> = None;
    let mut cur = &*e;
    // One array state at most: the lowering updates one array in place beside scalar states
    // (a sum's value beside the gradient the sweep adds to, `acc + t1 + t2` reversed).
    let mut arrays = 0;
    while let Kind::Let(v, value, body) = &cur.kind {
        if run.len() == STATES_MAX || !joins(value, count.as_ref(), &run, arrays == 0) {
            break;
        }
        arrays += usize::from(replaces_rows(value));
        if let Kind::Ifold(n, ..) = &value.kind {
            count.get_or_insert_with(|| (**n).clone());
        }
        run.push(*v);
        cur = body;
    }
    if run.len() < 2 {
        return false;
    }
    // Take the run's folds out (fresh names: each step is copied into the new one).
    let mut folds = Vec::new();
    let mut spans = Vec::new();
    let mut rest = e.take();
    while folds.len() < run.len() {
        let Core {
            kind,
            ty,
            sym,
            span,
        } = rest;
        let taken = match kind {
            Kind::Let(var, value, body) => match fresh(*value, names) {
                Core {
                    kind: Kind::Ifold(count, init, acc, index, step),
                    span: at,
                    ..
                } => Ok((var, at, count, init, acc, index, step, body)),
                value => Err(Kind::Let(var, Box::new(value), body)),
            },
            kind => Err(kind),
        };
        // The run was read off this chain, so every `let` of it is a fold; were one not,
        // the folds taken so far are put back as they were.
        let (var, at, count, init, acc, index, step, body) = match taken {
            Ok(parts) => parts,
            Err(kind) => {
                *e = put_back(
                    folds,
                    Core {
                        kind,
                        ty,
                        sym,
                        span,
                    },
                );
                return false;
            }
        };
        spans.push(at);
        folds.push(Fold {
            var,
            count: *count,
            init: *init,
            acc,
            index,
            step: *step,
        });
        rest = *body;
    }
    // The new fold's nodes point at the first fold (remarks about it name the user's).
    let span = spans[0];
    let tys: Vec<Type> = folds.iter().map(|f| f.init.ty.clone()).collect();
    let state_ty = Type::Tuple(tys.clone());
    let index = folds[0].index;
    let state = new_var(names, folds[0].acc);
    let state_read = || Core::new(Kind::Var(state), state_ty.clone(), span);
    // The step: each fold's state read from the tuple, its step run, the results tupled.
    let results: Vec<VarId> = folds.iter().map(|f| new_var(names, f.var)).collect();
    let mut step = Core::new(
        Kind::Tuple(
            results
                .iter()
                .zip(&tys)
                .map(|(r, t)| Core::new(Kind::Var(*r), t.clone(), span))
                .collect(),
        ),
        state_ty.clone(),
        span,
    );
    for (k, f) in folds.iter_mut().enumerate().rev() {
        let mut s = std::mem::replace(&mut f.step, Core::new(Kind::Bool(false), Type::Bool, span));
        s.subst(f.index, &Core::index_var(index, span));
        let with_result = Core::new(
            Kind::Let(results[k], Box::new(s), Box::new(step)),
            state_ty.clone(),
            span,
        );
        let own = Core::new(Kind::Proj(Box::new(state_read()), k), tys[k].clone(), span);
        step = Core::new(
            Kind::Let(f.acc, Box::new(own), Box::new(with_result)),
            state_ty.clone(),
            span,
        );
    }
    let inits: Vec<Core> = folds.iter_mut().map(|f| f.init.take()).collect();
    let fold = Core::new(
        Kind::Ifold(
            Box::new(folds[0].count.clone()),
            Box::new(Core::new(Kind::Tuple(inits), state_ty.clone(), span)),
            state,
            index,
            Box::new(step),
        ),
        state_ty.clone(),
        span,
    );
    // A run read back as the tuple of its values, in order, is the new fold itself.
    let tupled = matches!(&rest.kind, Kind::Tuple(xs) if xs.len() == folds.len()
        && xs.iter().zip(&folds).all(|(x, f)| matches!(x.kind, Kind::Var(v) if v == f.var)));
    if tupled {
        *e = fold;
        e.span = rest.span;
        return true;
    }
    // The values bound again from the fold's.
    let all = new_var(names, folds[0].var);
    let (ty, rest_span) = (rest.ty.clone(), rest.span);
    let mut out = rest;
    for (k, f) in folds.iter().enumerate().rev() {
        let read = Core::new(
            Kind::Proj(
                Box::new(Core::new(Kind::Var(all), state_ty.clone(), span)),
                k,
            ),
            tys[k].clone(),
            span,
        );
        out = Core::new(
            Kind::Let(f.var, Box::new(read), Box::new(out)),
            ty.clone(),
            rest_span,
        );
    }
    *e = Core::new(Kind::Let(all, Box::new(fold), Box::new(out)), ty, rest_span);
    true
}

/// `let`s binding `folds` (in order) before `rest`: the chain [`merge_run`] took them from.
fn put_back(folds: Vec<Fold>, rest: Core) -> Core {
    let (ty, span) = (rest.ty.clone(), rest.span);
    folds.into_iter().rev().fold(rest, |body, f| {
        let fold_ty = f.init.ty.clone();
        let fold = Core::new(
            Kind::Ifold(
                Box::new(f.count),
                Box::new(f.init),
                f.acc,
                f.index,
                Box::new(f.step),
            ),
            fold_ty,
            span,
        );
        Core::new(
            Kind::Let(f.var, Box::new(fold), Box::new(body)),
            ty.clone(),
            span,
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::middle::fuse::tests::{count, optimized};
    use crate::middle::ir::Kind;

    /// The folds of the kernel in `src` after the middle.
    fn folds(src: &str) -> usize {
        count(&optimized(src).body, &|k| matches!(k, Kind::Ifold(..)))
    }

    #[test]
    fn sums_over_one_count_side_by_side_are_one_fold() {
        // A point's three coordinates summed over the bones: written as `build(3, ..)`
        // (written out by `unroll` as three sums), as three `let`s, and as the one fold of a
        // tuple a user may write: one fold each.
        for src in [
            "pub fn k(t: [[f64; 3]; b], w: [f64; b]) -> [f64; 3] {
                build(3, |r| sum(build(b, |k| t[k][r] * w[k])))
            }",
            "pub fn k(t: [[f64; 3]; b], w: [f64; b]) -> [f64; 3] {
                let s0 = sum(build(b, |k| t[k][0] * w[k]));
                let s1 = ifold(b, 0.0, |a, k| a + t[k][1] * w[k]);
                let s2 = dot(build(b, |k| t[k][2]), w);
                [s0, s1, s2]
            }",
            "pub fn k(t: [[f64; 3]; b], w: [f64; b]) -> [f64; 3] {
                let (s0, s1, s2) = ifold(b, (0.0, 0.0, 0.0), |(a, c, d), k| {
                    (a + t[k][0] * w[k], c + t[k][1] * w[k], d + t[k][2] * w[k])
                });
                [s0, s1, s2]
            }",
        ] {
            assert_eq!(folds(src), 1, "{src}\n{}", optimized(src));
        }
    }

    #[test]
    fn sums_side_by_side_compile_as_the_tuple_fold() {
        // The same code, up to names: written as `build(3, ..)` of sums, as three `let`s,
        // and as the fold of a tuple (its starts `-0.0`, the prelude's `sum`'s).
        let spellings = [
            "pub fn k(t: [[f64; 3]; b], w: [f64; b]) -> [f64; 3] {
                build(3, |r| sum(build(b, |k| t[k][r] * w[k])))
            }",
            "pub fn k(t: [[f64; 3]; b], w: [f64; b]) -> [f64; 3] {
                let s0 = sum(build(b, |k| t[k][0] * w[k]));
                let s1 = sum(build(b, |k| t[k][1] * w[k]));
                let s2 = sum(build(b, |k| t[k][2] * w[k]));
                [s0, s1, s2]
            }",
            "pub fn k(t: [[f64; 3]; b], w: [f64; b]) -> [f64; 3] {
                let (s0, s1, s2) = ifold(b, (-0.0, -0.0, -0.0), |(a, c, d), k| {
                    (a + t[k][0] * w[k], c + t[k][1] * w[k], d + t[k][2] * w[k])
                });
                [s0, s1, s2]
            }",
        ];
        let first = crate::middle::interchange::tests::code(spellings[0]);
        for src in &spellings[1..] {
            assert_eq!(crate::middle::interchange::tests::code(src), first, "{src}");
        }
    }

    #[test]
    fn folds_side_by_side_read_back_as_a_tuple_are_the_tuple_fold() {
        // `(f0, f1)` of the run's values, in order, is the merged fold itself: the same
        // code as the tuple fold when it is another fold's start (a tuple of the fold's
        // projections there was a state copied once more).
        let tuple = "pub fn k(c: [f64; m], p: usize) -> (f64, usize) {
            ifold(p, ifold(m, (-1.5, p), |(x, y), i| (x * 0.5 + c[i], (y + i) % 5)), |(x, y), j| (x * 0.5, (y + j) % 5))
        }";
        let apart = "pub fn k(c: [f64; m], p: usize) -> (f64, usize) {
            ifold(p, {
                let f0 = ifold(m, -1.5, |x, i| x * 0.5 + c[i]);
                let f1 = ifold(m, p, |y, i| (y + i) % 5);
                (f0, f1)
            }, |(x, y), j| (x * 0.5, (y + j) % 5))
        }";
        assert_eq!(
            crate::middle::interchange::tests::code(apart),
            crate::middle::interchange::tests::code(tuple)
        );
    }

    #[test]
    fn folds_that_read_each_other_or_count_apart_stay_apart() {
        for src in [
            // The second reads the first's value.
            "pub fn k(x: [f64; n]) -> f64 {
                let s = sum(x);
                ifold(n, 0.0, |a, i| a + x[i] * s)
            }",
            // Two counts.
            "pub fn k(x: [f64; n], y: [f64; m]) -> f64 {
                let s = sum(x);
                let t = sum(y);
                s * t
            }",
        ] {
            assert_eq!(folds(src), 2, "{src}\n{}", optimized(src));
        }
    }

    #[test]
    fn a_sum_beside_an_array_fold_over_its_steps_is_one_fold() {
        // A sum and a fold of an array state over the same count, the pair the result: one
        // fold (the value of `acc + t1 - t2` beside the gradient the sweep adds up, which
        // were two passes over the faces). Two array states stay apart.
        let pair = "pub fn k(x: [f64; m], f: [[usize; 2]; p]) -> (f64, [f64; m]) {
            grad(|y| ifold(p, 0.0, |acc, j| acc + y[f[j][0]] * y[f[j][1]] - y[f[j][1]]), x)
        }";
        assert_eq!(folds(pair), 1, "{}", optimized(pair));
        let written = "pub fn k(x: [f64; m], c: [usize; p]) -> (f64, [f64; m]) {
            let s = ifold(p, 0.0, |acc, j| acc + x[c[j]]);
            (s, ifold(p, build(m, |q| 0.0), |h, j| build(m, |q| if q == c[j] { h[q] + 1.0 } else { h[q] })))
        }";
        assert_eq!(folds(written), 1, "{}", optimized(written));
        // An array rebuilt whole each step stays apart (in a tuple state it took a second
        // buffer: 2m slots against m).
        let whole = "pub fn k(x: [f64; m], c: [usize; p]) -> (f64, [f64; m]) {
            let s = ifold(p, 0.0, |acc, j| acc + x[c[j]]);
            (s, ifold(p, x, |h, j| build(m, |q| h[q] * 0.5 + h[(q + 1) % m] * 0.25)))
        }";
        assert_eq!(folds(whole), 2, "{}", optimized(whole));
        let two = "pub fn k(x: [f64; m], c: [usize; p]) -> ([f64; m], [f64; m]) {
            let s = ifold(p, x, |h, j| build(m, |q| if q == c[j] { h[q] * 2.0 } else { h[q] }));
            (s, ifold(p, build(m, |q| 0.0), |h, j| build(m, |q| if q == c[j] { h[q] + 1.0 } else { h[q] })))
        }";
        assert_eq!(folds(two), 2, "{}", optimized(two));
    }
}
