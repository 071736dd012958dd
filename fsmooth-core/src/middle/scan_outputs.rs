//! A `build` that reads a `scan`'s states only at its own index is one more output of the
//! scan (LANGUAGE.md section 13: one cost however it is written).
//!
//! `let (a, b) = scan(n, (0.0, 1.0), step); build(n, |i| a[i] + b[i])` is `scan(n, (0.0, 1.0,
//! 0.0), |(s, p, _), i| { let (s2, p2) = step; (s2, p2, s2 + p2) }).2`: one loop, the states
//! in locals, each element written where the `build` would write it. The states' arrays are
//! then read by nothing, and a scan stores no scalar component that nothing reads, so the
//! frame keeps none of them: as a hand loop, which carries the running states and writes the
//! output. Written as `let (a, b) = scan(..)` and its `build`, the scan's states took one
//! array each (n slots for two states, 2n for three); spelt as the scan of the output they
//! took none.

use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId, new_var};

/// Applies the rule everywhere in `e`, innermost first.
pub fn scan_outputs(e: &mut Core, names: &mut Vec<String>) {
    for c in e.children_mut() {
        scan_outputs(c, names);
    }
    while scan_output(e, names) {}
}

/// The rule at `e`, a `let s = scan(..)` (see the module): true when it applied.
fn scan_output(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Let(s, value, rest) = &e.kind else {
        return false;
    };
    let Kind::Scan(n, init, acc, _, body) = &value.kind else {
        return false;
    };
    // The states: scalars, one or a tuple of them, started from a value written out.
    let states: Vec<Type> = match &init.ty {
        Type::Tuple(ts) if matches!(init.kind, Kind::Tuple(_)) => ts.clone(),
        Type::Tuple(_) => return false,
        t => vec![t.clone()],
    };
    if !states.iter().all(is_scalar)
        || states.len() > 1 && !acc_read_by_parts(body, *acc)
        || !ends_in(body, states.len())
    {
        return false;
    }
    // The names that stand for the states' arrays: `s`, `let a = s.k`.
    let mut aliases = vec![(*s, None)];
    collect_aliases(rest, *s, &mut aliases);
    let Some(path) = only_build(rest, &aliases, n) else {
        return false;
    };
    let (s, n) = (*s, n.clone());
    let Kind::Let(_, value, rest) = e.take().kind else {
        unreachable!("matched above")
    };
    let mut rest = *rest;
    drop_aliases(&mut rest, &aliases);
    let build = node_at(&mut rest, &path);
    let Kind::Build(_, j, elem) = build.take().kind else {
        unreachable!("found by only_build")
    };
    let Kind::Scan(_, init, acc, i, body) = value.kind else {
        unreachable!("matched above")
    };
    let span = value.span;
    let out = elem.ty.clone();
    let tuple = states.len() > 1;
    // The new state: the states, then the output's element (its start is never read).
    let mut all = states.clone();
    all.push(out.clone());
    let state_ty = Type::Tuple(all.clone());
    let acc2 = new_var(names, acc);
    let mut body = *body;
    let whole = Core::new(Kind::Var(acc2), state_ty.clone(), span);
    // `acc.k` (or `acc` of one state) is now `acc2.k`.
    for (k, t) in states.iter().enumerate() {
        let part = Core::new(Kind::Proj(Box::new(whole.clone()), k), t.clone(), span);
        if tuple {
            subst_part(&mut body, acc, k, &part);
        } else {
            body.subst(acc, &part);
        }
    }
    // The step's new states bound each to a name, then the output's element of them.
    let news: Vec<VarId> = (0..states.len()).map(|_| new_var(names, s)).collect();
    let mut elem = *elem;
    let at_step = Core::index_var(i, span);
    elem.subst(j, &at_step);
    reads_as_states(&mut elem, &aliases, i, &news, &states);
    let body = with_outputs(body, &news, &states, elem, &state_ty);
    let mut starts: Vec<Core> = match init.kind {
        Kind::Tuple(xs) => xs,
        _ => vec![*init],
    };
    starts.push(zero(&out, span));
    let init = Core::new(Kind::Tuple(starts), state_ty, span);
    let arrays: Vec<Type> = all
        .iter()
        .map(|t| Type::array_of(t, n.clone()).unwrap_or_else(|| unreachable!("a scalar")))
        .collect();
    let scan = Core::new(
        Kind::Scan(n.clone(), Box::new(init), acc2, i, Box::new(body)),
        Type::Tuple(arrays.clone()),
        span,
    );
    let k = states.len();
    *build = Core::new(Kind::Proj(Box::new(scan), k), arrays[k].clone(), span);
    *e = rest;
    true
}

/// Whether the step, after its `let`s, is the tuple of its `parts` new states written out
/// (any value for one state).
fn ends_in(body: &Core, parts: usize) -> bool {
    match &body.tail_ref().kind {
        Kind::Tuple(xs) => parts == 1 || xs.len() == parts,
        _ => parts == 1,
    }
}

/// Whether `t` is a scalar type a scan's state array holds.
fn is_scalar(t: &Type) -> bool {
    matches!(t, Type::F64 | Type::F32 | Type::Usize)
}

/// Whether the step reads its tuple state only by component (`acc.k`).
fn acc_read_by_parts(e: &Core, acc: VarId) -> bool {
    match &e.kind {
        Kind::Proj(t, _) if matches!(t.kind, Kind::Var(v) if v == acc) => true,
        Kind::Var(v) => *v != acc,
        _ => e.children().all(|c| acc_read_by_parts(c, acc)),
    }
}

/// The `let`s in `e` naming a component of `s`, `let a = s.k` (or `s` itself for one state).
fn collect_aliases(e: &Core, s: VarId, out: &mut Vec<(VarId, Option<usize>)>) {
    if let Kind::Let(a, v, _) = &e.kind {
        match &v.kind {
            Kind::Proj(t, k) if matches!(t.kind, Kind::Var(x) if x == s) => {
                out.push((*a, Some(*k)))
            }
            Kind::Var(x) if *x == s => out.push((*a, None)),
            _ => {}
        }
    }
    for c in e.children() {
        collect_aliases(c, s, out);
    }
}

/// Which state `x` reads as an array, when it is one of `aliases` or `s.k`.
fn state_of(x: &Core, aliases: &[(VarId, Option<usize>)]) -> Option<Option<usize>> {
    match &x.kind {
        Kind::Var(v) => aliases.iter().find(|(a, _)| a == v).map(|(_, k)| *k),
        Kind::Proj(t, k) => match &t.kind {
            Kind::Var(v) if aliases.first().is_some_and(|(s, _)| s == v) => Some(Some(*k)),
            _ => None,
        },
        _ => None,
    }
}

/// The path (child positions) from `e` to the one `build(n, |j| ..)` that reads the states,
/// when every read of them is there, at `j`, and no loop lies between (the scan would run
/// again at each of its steps). `None` otherwise.
fn only_build(e: &Core, aliases: &[(VarId, Option<usize>)], n: &Size) -> Option<Vec<usize>> {
    let mut found = None;
    let mut path = Vec::new();
    search(e, aliases, n, &mut path, &mut found, false).then_some(())?;
    found
}

/// [`only_build`]'s walk: false when a read is somewhere else.
fn search(
    e: &Core,
    aliases: &[(VarId, Option<usize>)],
    n: &Size,
    path: &mut Vec<usize>,
    found: &mut Option<Vec<usize>>,
    in_loop: bool,
) -> bool {
    let reads = |x: &Core| aliases.iter().any(|(a, _)| x.mentions(*a));
    if !reads(e) {
        return true;
    }
    match &e.kind {
        // An alias's own `let`: its value is not a read.
        // An alias's own `let`: its value is not a read, and the `let` goes (so it takes
        // no place in the path).
        Kind::Let(a, v, rest)
            if aliases.iter().any(|(x, _)| x == a) && state_of(v, aliases).is_some() =>
        {
            search(rest, aliases, n, path, found, in_loop)
        }
        Kind::Build(m, j, elem) if m == n && is_scalar(&elem.ty) && !in_loop && found.is_none() => {
            if !at_own(elem, aliases, *j) {
                return false;
            }
            *found = Some(path.clone());
            true
        }
        Kind::Var(_) => false,
        _ => {
            let loop_body = matches!(
                e.kind,
                Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
            );
            for (k, c) in e.children().enumerate() {
                path.push(k);
                let ok = search(c, aliases, n, path, found, in_loop || loop_body);
                path.pop();
                if !ok {
                    return false;
                }
            }
            true
        }
    }
}

/// Whether `e` reads the states only as `x[j]`.
fn at_own(e: &Core, aliases: &[(VarId, Option<usize>)], j: VarId) -> bool {
    if let Kind::Index(x, at) = &e.kind
        && state_of(x, aliases).is_some()
    {
        return matches!(at.kind, Kind::Var(v) if v == j);
    }
    if let Kind::Var(v) = e.kind {
        return !aliases.iter().any(|(a, _)| *a == v);
    }
    e.children().all(|c| at_own(c, aliases, j))
}

/// `e` without the `let`s of the aliases (read by nothing once the `build` is gone).
fn drop_aliases(e: &mut Core, aliases: &[(VarId, Option<usize>)]) {
    while let Kind::Let(a, v, _) = &e.kind
        && aliases.iter().any(|(x, _)| x == a)
        && state_of(v, aliases).is_some()
    {
        let Kind::Let(_, _, rest) = e.take().kind else {
            unreachable!("matched above")
        };
        *e = *rest;
    }
    for c in e.children_mut() {
        drop_aliases(c, aliases);
    }
}

/// The node at `path` below `e`, the aliases' `let`s dropped (`only_build`'s path does not
/// count them).
fn node_at<'a>(e: &'a mut Core, path: &[usize]) -> &'a mut Core {
    let mut e = e;
    let mut path = path;
    while let Some((&k, rest)) = path.split_first() {
        e = e
            .children_mut()
            .nth(k)
            .unwrap_or_else(|| unreachable!("a path found in it"));
        path = rest;
    }
    e
}

/// `acc.k` replaced by `part` in `e`.
fn subst_part(e: &mut Core, acc: VarId, k: usize, part: &Core) {
    if let Kind::Proj(t, c) = &e.kind
        && *c == k
        && matches!(t.kind, Kind::Var(v) if v == acc)
    {
        *e = part.clone();
        return;
    }
    for c in e.children_mut() {
        subst_part(c, acc, k, part);
    }
}

/// The reads `x[i]` of a state's array in the `build`'s element (its index `j` already the
/// step's `i`), now the step's new state.
fn reads_as_states(
    e: &mut Core,
    aliases: &[(VarId, Option<usize>)],
    i: VarId,
    news: &[VarId],
    states: &[Type],
) {
    if let Kind::Index(x, at) = &e.kind
        && let Some(k) = state_of(x, aliases)
        && matches!(at.kind, Kind::Var(v) if v == i)
    {
        let k = k.unwrap_or(0);
        *e = Core::new(Kind::Var(news[k]), states[k].clone(), e.span);
        return;
    }
    for c in e.children_mut() {
        reads_as_states(c, aliases, i, news, states);
    }
}

/// The step `body` (its `let`s, then the new states) with each new state bound to its name
/// in `news` and the result `(news.., elem)`.
fn with_outputs(body: Core, news: &[VarId], states: &[Type], elem: Core, ty: &Type) -> Core {
    let span = body.span;
    match body.kind {
        Kind::Let(v, a, rest) => {
            let rest = with_outputs(*rest, news, states, elem, ty);
            Core::new(Kind::Let(v, a, Box::new(rest)), ty.clone(), span)
        }
        kind => {
            let values: Vec<Core> = match kind {
                Kind::Tuple(xs) if news.len() > 1 => xs,
                kind => vec![Core::new(kind, body.ty.clone(), span)],
            };
            let mut items: Vec<Core> = news
                .iter()
                .zip(states)
                .map(|(v, t)| Core::new(Kind::Var(*v), t.clone(), span))
                .collect();
            items.push(elem);
            let mut out = Core::new(Kind::Tuple(items), ty.clone(), span);
            for ((v, x), _) in news.iter().zip(values).zip(states).rev() {
                out = Core::new(Kind::Let(*v, Box::new(x), Box::new(out)), ty.clone(), span);
            }
            out
        }
    }
}

/// A start for the output's component, which no step reads.
fn zero(t: &Type, span: crate::front::ast::Sp) -> Core {
    match t {
        Type::Usize => Core::size(Size::Lit(0), span),
        t => Core::new(Kind::Float(0.0), t.clone(), span),
    }
}

#[cfg(test)]
#[path = "scan_outputs_tests.rs"]
mod tests;
