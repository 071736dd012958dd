//! `fuse`: loop fusion (the paper's Fig. 4) on the core IR.
//!
//! `build(n, f)[i] ~> f(i)` and `[e0, e1, ..][k] ~> ek`; a `let`-bound `build` is pushed into
//! the places that index it when that does not duplicate costly work: it is read at one place
//! inside at most one loop (each element is computed once, as `sum(build(..))`), or its
//! elements are plain loads (a transpose), which are cheaper to recompute than to store.
//! Anything else (a stencil's several readers, a vector read once per row of a matrix) is
//! materialised by the DPS translation. (`build(n, f).len() ~> n` happens in `check`, where
//! every length is already a size.)

use crate::middle::choices;
use crate::middle::elements;
use crate::middle::ir::{Core, Kind, Type, VarId};
use crate::middle::placed;
use crate::middle::pull;
use crate::middle::simplify::{count_reads, subst_index};

/// Fuse until nothing changes. `names` holds the kernel's variable names (fusion may add
/// variables).
pub fn fuse(e: &mut Core, names: &mut Vec<String>, views: bool) {
    // How many nodes the `if` rule below may still copy in this kernel: each use doubles the
    // code after an `if`, so a chain of such `if`s must not grow the kernel exponentially.
    let mut room = crate::middle::unroll::COPY_TOTAL;
    let mut reads = Vec::new();
    for _ in 0..64 {
        reads.clear();
        count_reads(e, &mut reads);
        let mut pass = Pass {
            views,
            names,
            room: &mut room,
            reads: &mut reads,
        };
        if !pass.visit(e) {
            break;
        }
        crate::middle::simplify::propagate(e);
    }
}

/// One bottom-up pass of the rules.
///
/// Each rule about a `let`-bound array looks at the reads of its variable in the rest of
/// the block. The reads of every variable are counted at the start of the pass (and the
/// count raised where a rule copies code), so those walks stop at the last read instead of
/// running to the end of the kernel: in a block of many statements each array is read a few
/// statements after its `let`.
struct Pass<'a> {
    /// Apply the rules of [`crate::middle::views`] (off with `views = false`).
    views: bool,
    names: &'a mut Vec<String>,
    room: &'a mut usize,
    /// At least how many times each variable is read, by id.
    reads: &'a mut Vec<u32>,
}

impl Pass<'_> {
    /// How many reads of `x` a walk may meet (all of them: no fewer than there are).
    fn left(&self, x: VarId) -> u32 {
        self.reads.get(x as usize).copied().unwrap_or(u32::MAX)
    }

    /// A view rule copied reads around: until the next pass counts them again, no walk may
    /// stop early.
    fn forget_reads(&mut self) {
        self.reads.iter_mut().for_each(|r| *r = u32::MAX);
    }

    /// One read fewer of every variable `e` reads (`e` is dropped).
    fn drop_reads(&mut self, e: &Core) {
        if let Kind::Var(v) = e.kind
            && let Some(n) = self.reads.get_mut(v as usize)
            && *n != u32::MAX
        {
            *n = n.saturating_sub(1);
        }
        for c in e.children() {
            self.drop_reads(c);
        }
    }

    /// `times` more reads of every variable `e` reads.
    fn add_reads(&mut self, e: &Core, times: u32) {
        if times == 0 {
            return;
        }
        if let Kind::Var(v) = e.kind {
            let v = v as usize;
            if self.reads.len() <= v {
                // Variables made in this pass: their reads are not known, so not bounded.
                self.reads.resize(v + 1, u32::MAX);
            }
            self.reads[v] = self.reads[v].saturating_add(times);
        }
        for c in e.children() {
            self.add_reads(c, times);
        }
    }

    fn visit(&mut self, e: &mut Core) -> bool {
        if self.views && crate::middle::views::before(e, self.names) {
            self.forget_reads();
            return true;
        }
        let mut changed = false;
        for c in e.children_mut() {
            changed |= self.visit(c);
        }
        self.rules(e) || changed
    }

    /// Apply the first rule that matches at `e`'s root; true when one did.
    fn rules(&mut self, e: &mut Core) -> bool {
        // A fold step choosing its new array state whole (`if i == 0 { x[0] } else {
        // add(s, x[i]) }`): the choice made element by element, `build(m, |j| if c { x[0][j] }
        // else { s[j] + x[i][j] })`, the form an update in place recognises (with the choice
        // whole, the state took a buffer of its own).
        if let Kind::Ifold(_, _, _, i, body) = &mut e.kind {
            let i = *i;
            if choices::choices_by_element(body.tail_mut(), i, self.names) {
                return true;
            }
        }
        if self.views && crate::middle::views::after(e, self.names) {
            self.forget_reads();
            return true;
        }
        let span = e.span;
        // Rule 1 and the literal rule.
        if let Kind::Index(a, k) = &mut e.kind {
            match &mut a.kind {
                Kind::Build(_, i, body) => {
                    let (i, body, k) = (*i, body.take(), k.take());
                    *e = subst_index(i, &k, body, span);
                    return true;
                }
                // `(if c { a } else { b })[k] ~> if c { a[k] } else { b[k] }`: a choice of
                // rows read at one element (a padded matrix's row, `pad(m, 1, 1, zeros)[r][c]`)
                // reads that element of the row chosen, with no row stored. Only one branch
                // runs either way; an index that costs something is bound once before.
                Kind::If(c, x, y) if choices::chooses_rows(x) && choices::chooses_rows(y) => {
                    let (c, x, y, mut k) = (c.take(), x.take(), y.take(), k.take());
                    let ty = e.ty.clone();
                    let mut bound = None;
                    if !matches!(k.kind, Kind::Var(_) | Kind::Size(_)) {
                        let t = self.names.len() as VarId;
                        self.names.push("at".into());
                        let sym = k.sym.clone();
                        let value =
                            std::mem::replace(&mut k, Core::new(Kind::Var(t), Type::Usize, span));
                        k.sym = sym;
                        bound = Some((t, value));
                    }
                    let at = |a: Core| {
                        let t = a.ty.elem();
                        Core::new(Kind::Index(Box::new(a), Box::new(k.clone())), t, span)
                    };
                    let choice = Core::new(
                        Kind::If(Box::new(c), Box::new(at(x)), Box::new(at(y))),
                        ty.clone(),
                        span,
                    );
                    if bound.is_some() {
                        self.forget_reads();
                    }
                    *e = match bound {
                        Some((t, value)) => {
                            Core::new(Kind::Let(t, Box::new(value), Box::new(choice)), ty, span)
                        }
                        None => choice,
                    };
                    return true;
                }
                Kind::Array(items) => {
                    if let Some(c) = k.sym.as_ref().and_then(|s| s.as_const())
                        && let Some(item) = items.get_mut(c as usize)
                    {
                        let mut item = item.take();
                        item.span = span;
                        let dropped = std::mem::replace(e, item);
                        self.drop_reads(&dropped);
                        return true;
                    }
                }
                _ => {}
            }
        }
        // A `let`-bound build of a constant or a variable (`build(d, |_| 0.0)`, an iota) is
        // written where it is read, whole or by element: it costs nothing to repeat, and
        // storing it would cost its length (`ifold(n, (zero, zero), ..)`).
        if let Kind::Let(x, a, b) = &mut e.kind
            && let Kind::Build(n, i, body) = &a.kind
            && matches!(
                body.kind,
                Kind::Float(_) | Kind::Size(_) | Kind::Bool(_) | Kind::Var(_)
            )
        {
            let (x, n, i) = (*x, n.clone(), *i);
            let (body, ty, at) = ((**body).clone(), a.ty.clone(), a.span);
            let names = &mut *self.names;
            let mut copy = || {
                let j = crate::middle::ir::new_var(names, i);
                let mut elem = body.clone();
                if matches!(elem.kind, Kind::Var(v) if v == i) {
                    elem = Core::index_var(j, elem.span);
                }
                Core::new(Kind::Build(n.clone(), j, Box::new(elem)), ty.clone(), at)
            };
            replace_var(b, x, &mut copy);
            *e = b.take();
            self.forget_reads();
            return true;
        }
        // A `let`-bound `concat` read as a `build` would be pushed into its reader: written
        // there, where the views' rules read its parts (`sum(concat(map(a, f), map(b, g)))`
        // is a sum over each part, as `sum(concat(a, b))` is).
        if self.views
            && let Kind::Let(x, a, b) = &mut e.kind
            && matches!(a.kind, Kind::Concat(..))
            && should_fuse(*x, a, b, self.left(*x))
            && read_once(b, *x, self.left(*x))
        {
            let value = a.take();
            replace_var(b, *x, &mut || value.clone());
            *e = b.take();
            self.forget_reads();
            return true;
        }
        // A `let`-bound array (of any form) read once, as a row a `build` places at one
        // index: written there (`middle/placed.rs`).
        if let Kind::Let(x, a, b) = &mut e.kind
            && a.ty.is_arr()
            && !matches!(a.kind, Kind::Var(_))
            && placed::read_once_placed(b, *x)
        {
            let value = a.take();
            replace_var(b, *x, &mut || value.clone());
            *e = b.take();
            return true;
        }
        // A `let`-bound build read at an outer loop's index inside that loop's inner loops
        // (`means[i]` in `build(n, |i| map(x[i], |t| t - means[i]))`): the element read once
        // at the head of the step (`middle/pull.rs`) and computed there at once (a row
        // pulled out as a view would be put back by `propagate` before the next pass), when
        // that makes it fusable: scalars, and rows whose elements run no loop of their own.
        if let Kind::Let(x, a, b) = &mut e.kind
            && let Kind::Build(n, _, body) = &a.kind
            && (!a.ty.elem().is_arr() || pull::cheap_elements(body))
            && !should_fuse(*x, body, b, self.left(*x))
        {
            let mut pulled = match pull::would_pull(b, *x, n, false) {
                true => (**b).clone(),
                false => Core::new(Kind::Bool(false), Type::Bool, span),
            };
            if pull::pull_reads(&mut pulled, (*x, &a.ty), n, false, self.names)
                && should_fuse(*x, body, &pulled, u32::MAX)
            {
                **b = pulled;
                let value = a.take();
                replace_reads(b, *x, &value, &mut { u32::MAX }, self.names);
                *e = b.take();
                self.forget_reads();
                return true;
            }
        }
        // Push a let-bound build into its readers.
        if let Kind::Let(x, a, b) = &mut e.kind
            && let Kind::Build(_, _, body) = &a.kind
            && should_fuse(*x, body, b, self.left(*x))
        {
            let value = a.take();
            let sites = replace_reads(b, *x, &value, &mut self.left(*x), self.names);
            // The value is now read at every site instead of once.
            self.add_reads(&value, sites.saturating_sub(1));
            *e = b.take();
            return true;
        }
        // A `let`-bound literal (a small array `unroll` wrote out) read only at constant
        // indexes: one `let` per element read, so the array is never stored; or read once as a
        // whole outside any loop: written where it is read (into its destination).
        if let Kind::Let(x, a, b) = &mut e.kind
            && let Kind::Array(items) = &mut a.kind
        {
            let x = *x;
            if const_reads_only(b, x, items.len(), &mut self.left(x)) {
                let names = &mut *self.names;
                let base = names.get(x as usize).cloned().unwrap_or_else(|| "x".into());
                let ids: Vec<VarId> = (0..items.len())
                    .map(|k| {
                        names.push(format!("{base}_{k}"));
                        (names.len() - 1) as VarId
                    })
                    .collect();
                let mut body = b.take();
                let mut read = vec![false; items.len()];
                let mut left = self.left(x);
                replace_const_reads(&mut body, x, &ids, items, &mut read, &mut left);
                for ((item, id), read) in items.iter_mut().zip(&ids).zip(read).rev() {
                    if !read {
                        self.drop_reads(item);
                    }
                    if read {
                        let (ty, sym, span) = (body.ty.clone(), body.sym.clone(), body.span);
                        body = Core {
                            kind: Kind::Let(*id, Box::new(item.take()), Box::new(body)),
                            ty,
                            sym,
                            span,
                        };
                    }
                }
                *e = body;
                return true;
            }
            if read_once(b, x, self.left(x)) && read_in_loop(b, x, false) == Some(false) {
                let value = a.take();
                let mut body = b.take();
                body.subst(x, &value);
                *e = body;
                return true;
            }
        }
        // `let x = if c { [..] } else { [..] } in body`, read only at constant indexes: the
        // rest of the block moves into both branches (small enough to copy), where `x` is a
        // literal the rule above makes scalars. Each path still runs `body` once.
        if let Kind::Let(x, a, b) = &mut e.kind
            && let Kind::If(..) = &a.kind
            && a.ty.is_arr()
            && let Kind::If(_, then, other) = &a.kind
            && crate::middle::unroll::literal_tail(then)
            && crate::middle::unroll::literal_tail(other)
        {
            let room = crate::middle::unroll::COPY_BUDGET.min(*self.room);
            if let Some(size) = nodes_within(b, room)
                && const_reads_only(b, *x, usize::MAX, &mut self.left(*x))
            {
                *self.room -= size;
                let x = *x;
                let Kind::If(c, then, other) = a.take().kind else {
                    unreachable!("matched above")
                };
                let body = b.take();
                let (ty, sym) = (body.ty.clone(), body.sym.clone());
                let branch = |value: Box<Core>, body: Core| Core {
                    kind: Kind::Let(x, value, Box::new(body)),
                    ty: ty.clone(),
                    sym: sym.clone(),
                    span,
                };
                let copy = crate::middle::ir::fresh(body.clone(), self.names);
                self.add_reads(&copy, 1);
                let kind = Kind::If(
                    c,
                    Box::new(branch(then, body)),
                    Box::new(branch(other, copy)),
                );
                *e = Core {
                    kind,
                    ty,
                    sym,
                    span,
                };
                return true;
            }
        }
        // Several reads of one element of a `let`-bound array in one loop: the element
        // computed once there (`middle/elements.rs`).
        if let Kind::Let(x, ..) = &e.kind {
            let left = self.left(*x);
            if elements::rule(e, self.names, left) {
                return true;
            }
        }
        false
    }
}

// The walks below that look for the reads of a variable `x` take `left`, at least how many
// reads of `x` they have still to meet, and stop when it reaches 0.

/// True when every occurrence of `x` in `e` is `x[k]` with a constant `k < len`.
fn const_reads_only(e: &Core, x: VarId, len: usize, left: &mut u32) -> bool {
    if *left == 0 {
        return true;
    }
    if let Kind::Index(a, k) = &e.kind
        && matches!(a.kind, Kind::Var(v) if v == x)
    {
        *left -= 1;
        return const_index(k).is_some_and(|c| c < len);
    }
    match &e.kind {
        Kind::Var(v) => *v != x,
        _ => e.children().all(|c| const_reads_only(c, x, len, left)),
    }
}

fn const_index(k: &Core) -> Option<usize> {
    let c = k.sym.as_ref()?.as_const()?;
    usize::try_from(c).ok()
}

/// Each `x[k]` made the variable `ids[k]`, bound to `items[k]`; `read[k]` set for each `k`
/// read.
fn replace_const_reads(
    e: &mut Core,
    x: VarId,
    ids: &[VarId],
    items: &[Core],
    read: &mut [bool],
    left: &mut u32,
) {
    if *left == 0 {
        return;
    }
    if let Kind::Index(a, k) = &e.kind
        && matches!(a.kind, Kind::Var(v) if v == x)
        && let Some(c) = const_index(k)
    {
        e.kind = Kind::Var(ids[c]);
        e.sym = items[c].sym.clone();
        read[c] = true;
        *left -= 1;
        return;
    }
    for c in e.children_mut() {
        replace_const_reads(c, x, ids, items, read, left);
    }
}

/// True when `x` is read exactly once in `e` (`reads`: at least how many times it is).
fn read_once(e: &Core, x: VarId, reads: u32) -> bool {
    fn count(e: &Core, x: VarId, found: &mut u32, left: &mut u32) {
        if *left == 0 || *found > 1 {
            return;
        }
        if matches!(e.kind, Kind::Var(v) if v == x) {
            *found += 1;
            *left -= 1;
        }
        for c in e.children() {
            count(c, x, found, left);
        }
    }
    let mut found = 0;
    count(e, x, &mut found, &mut { reads });
    found == 1
}

/// Whether the first read of `x` in `e` is inside the body of a loop in `e` (`inside`: `e`
/// is); `None` when `e` does not read `x`.
fn read_in_loop(e: &Core, x: VarId, inside: bool) -> Option<bool> {
    match &e.kind {
        Kind::Var(v) if *v == x => Some(inside),
        Kind::Build(_, _, body) => read_in_loop(body, x, true),
        Kind::Ifold(n, init, _, _, body) => read_in_loop(n, x, inside)
            .or_else(|| read_in_loop(init, x, inside))
            .or_else(|| read_in_loop(body, x, true)),
        Kind::Scan(_, init, _, _, body) => {
            read_in_loop(init, x, inside).or_else(|| read_in_loop(body, x, true))
        }
        _ => e.children().find_map(|c| read_in_loop(c, x, inside)),
    }
}

/// How many nodes `e` has, when that is at most `most`.
fn nodes_within(e: &Core, most: usize) -> Option<usize> {
    fn count(e: &Core, n: &mut usize, most: usize) {
        *n += 1;
        for c in e.children() {
            if *n > most {
                return;
            }
            count(c, n, most);
        }
    }
    let mut n = 0;
    count(e, &mut n, most);
    (n <= most).then_some(n)
}

/// Every read `x[e1]..[ek]` of `x`, with the loops between the `let` and it: `f(depth,
/// repeats, k)` where `repeats` counts the loops whose index is not one of `e1..ek` (each
/// iteration of such a loop reads the same elements again).
pub(super) fn reads_in(
    e: &Core,
    x: VarId,
    loops: &mut Vec<VarId>,
    f: &mut dyn FnMut(&[VarId], usize, usize),
    other: &mut bool,
    left: &mut u32,
) {
    if *left == 0 {
        return;
    }
    // An index chain rooted at `x` (found before any list is made: most nodes are not one).
    let mut cur = e;
    while let Kind::Index(a, _) = &cur.kind {
        cur = a;
    }
    if !std::ptr::eq(cur, e) && matches!(cur.kind, Kind::Var(v) if v == x) {
        let mut idx: Vec<&Core> = Vec::new();
        let mut cur = e;
        while let Kind::Index(a, k) = &cur.kind {
            idx.push(k);
            cur = a;
        }
        // A loop whose index an index follows (`i`, `i - 1`, `2 * i + j`: linear in it, by
        // a whole coefficient) reads a different element on each iteration, so it repeats
        // nothing. (`(i - 4) / 4` reads each element four times over.)
        let mut used: Vec<VarId> = Vec::new();
        for k in &idx {
            if let Kind::Var(v) = k.kind {
                used.push(v);
            }
            if let Some(s) = &k.sym {
                let p = s.poly();
                for l in loops.iter() {
                    let var = crate::front::size::Atom::Loop(*l);
                    // `c * l` plus terms without l.
                    let linear = p
                        .coeffs()
                        .any(|(m, c)| c != 0.0 && c.fract() == 0.0 && m[..] == [var.clone()])
                        && p.coeffs()
                            .all(|(m, _)| m[..] == [var.clone()] || !m.contains(&var));
                    if linear {
                        used.push(*l);
                    }
                }
            }
        }
        let repeats = loops.iter().filter(|l| !used.contains(l)).count();
        f(loops, repeats, idx.len());
        *left -= 1;
        for k in idx {
            reads_in(k, x, loops, f, other, left);
        }
        return;
    }
    match &e.kind {
        Kind::Var(v) if *v == x => {
            *other = true;
            *left -= 1;
        }
        Kind::Build(_, i, body) => {
            loops.push(*i);
            reads_in(body, x, loops, f, other, left);
            loops.pop();
        }
        Kind::Ifold(n, init, _, i, body) => {
            reads_in(n, x, loops, f, other, left);
            reads_in(init, x, loops, f, other, left);
            loops.push(*i);
            reads_in(body, x, loops, f, other, left);
            loops.pop();
        }
        Kind::Scan(_, init, _, i, body) => {
            reads_in(init, x, loops, f, other, left);
            loops.push(*i);
            reads_in(body, x, loops, f, other, left);
            loops.pop();
        }
        _ => {
            for c in e.children() {
                reads_in(c, x, loops, f, other, left);
            }
        }
    }
}

/// How a `let`-bound array `x` is read in `scope` (the rest of its block), as fusion sees
/// it: for the remarks ([`crate::emit::remarks`]).
pub(crate) struct Reads {
    /// Some read is not of an element (the whole array, a row passed on).
    pub whole: bool,
    /// Every element read: the loops around it (outermost first), the loops repeating it,
    /// how many indexes.
    pub found: Vec<(Vec<VarId>, usize, usize)>,
}

/// [`Reads`] of `x` in `scope`.
pub(crate) fn reads_of(x: VarId, scope: &Core) -> Reads {
    let mut found = Vec::new();
    let mut whole = false;
    reads_in(
        scope,
        x,
        &mut Vec::new(),
        &mut |l, r, len| found.push((l.to_vec(), r, len)),
        &mut whole,
        &mut { u32::MAX },
    );
    Reads { whole, found }
}

fn should_fuse(x: VarId, body: &Core, scope: &Core, reads: u32) -> bool {
    let mut found = Vec::new();
    let mut other = false;
    reads_in(
        scope,
        x,
        &mut Vec::new(),
        &mut |l, r, len| found.push((l.len(), r, len)),
        &mut other,
        &mut { reads },
    );
    if other {
        return false;
    }
    // A read of an element of a row (`x[i][j]`) would redo the row's own loops for each of
    // its elements.
    if found.iter().any(|(_, _, len)| *len > 1) && row_loops(body) {
        return false;
    }
    let found: Vec<(usize, usize)> = found.into_iter().map(|(d, r, _)| (d, r)).collect();
    match found[..] {
        [] => true,
        // One read that no loop repeats (`sum(build(..))` reads each element once, and so
        // does `m[i][j]` inside loops over i and j), or inside at most one loop.
        [(d, r)] if r == 0 || d <= 1 => true,
        // One read that a loop repeats (a `let` before a fold read in its step): written
        // there when an element is a few arithmetic operations, as when the step computes
        // it (`ifold(t, x0, |x, _| add(x, smul(p, a)))`), and as hand-written code would.
        [_] => loads_only(body) || arithmetic(body),
        _ => loads_only(body),
    }
}

/// True when computing an element is a few (at most 8 nodes) arithmetic operations on
/// loads at index arithmetic: no loop, no call.
fn arithmetic(e: &Core) -> bool {
    fn ops(e: &Core) -> bool {
        match &e.kind {
            Kind::Var(_) | Kind::Size(_) | Kind::Float(_) => true,
            Kind::Index(a, k) => ops(a) && index_arith(k),
            Kind::Bin(op, a, b, _) => {
                use crate::front::ast::BinOp::{Add, Div, Mul, Sub};
                matches!(op, Add | Sub | Mul | Div) && ops(a) && ops(b)
            }
            Kind::Neg(a) | Kind::Cast(_, a) => ops(a),
            _ => false,
        }
    }
    !e.ty.is_arr() && nodes_within(e, 8).is_some() && ops(e)
}

/// Whether a row (a `build`'s body of array type) runs loops before its last `build`: work
/// that is the row's, not its elements'.
fn row_loops(body: &Core) -> bool {
    fn has_loop(e: &Core) -> bool {
        matches!(e.kind, Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..))
            || e.children().any(has_loop)
    }
    match &body.kind {
        Kind::Let(_, value, rest) => has_loop(value) || row_loops(rest),
        Kind::Build(..) | Kind::Var(_) => false,
        // A choice of rows: the chosen row's elements are read, each once.
        Kind::If(_, a, b) => row_loops(a) || row_loops(b),
        _ => body.ty.is_arr() && has_loop(body),
    }
}

/// True when computing an element is only loads, at indexes of index arithmetic, perhaps
/// chosen by comparisons of indexes (a padded array's element: `if i < l { v } else
/// { a[i - l] }`): cheaper to recompute at every read than to store.
fn loads_only(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) | Kind::Size(_) | Kind::Float(_) => true,
        Kind::Index(a, k) => loads_only(a) && index_arith(k),
        Kind::Build(_, _, b) => loads_only(b),
        // A choice of scalars only: a choice of rows read whole (`slide(3, p[y + dy])[x]` in
        // the zero-padded filter) would be a row built at every read (85x: its element
        // read through a view of the row is not pushed into the branches).
        Kind::If(c, a, b) if !e.ty.is_arr() => index_test(c) && loads_only(a) && loads_only(b),
        _ => false,
    }
}

/// Comparisons of index arithmetic joined by `&&` and `||` (a unit tangent's element, `if
/// u == e && v == f { 1.0 } else { 0.0 }`).
fn index_test(e: &Core) -> bool {
    match &e.kind {
        Kind::Bin(crate::front::ast::BinOp::And | crate::front::ast::BinOp::Or, a, b, _) => {
            index_test(a) && index_test(b)
        }
        _ => index_arith(e),
    }
}

/// `usize` arithmetic and comparisons over variables and sizes.
fn index_arith(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) | Kind::Size(_) => e.ty == crate::middle::ir::Type::Usize,
        Kind::Bin(op, a, b, _) => {
            let usize_operands = a.ty == crate::middle::ir::Type::Usize;
            let ok_op = !matches!(
                op,
                crate::front::ast::BinOp::And | crate::front::ast::BinOp::Or
            );
            usize_operands && ok_op && index_arith(a) && index_arith(b)
        }
        _ => false,
    }
}

/// Every `x[..]` made `value[..]`; how many there were.
fn replace_reads(
    e: &mut Core,
    x: VarId,
    value: &Core,
    left: &mut u32,
    names: &mut Vec<String>,
) -> u32 {
    let mut sites = 0;
    replace_at(e, x, value, left, names, &mut sites);
    sites
}

/// [`replace_reads`], counting the sites in `sites`: the first read takes the value, later
/// ones a copy with variables of their own (each read may bind the loop index anew).
fn replace_at(
    e: &mut Core,
    x: VarId,
    value: &Core,
    left: &mut u32,
    names: &mut Vec<String>,
    sites: &mut u32,
) {
    if *left == 0 {
        return;
    }
    if let Kind::Index(a, k) = &mut e.kind
        && matches!(a.kind, Kind::Var(v) if v == x)
    {
        let span = a.span;
        **a = if *sites == 0 {
            value.clone()
        } else {
            crate::middle::ir::fresh(value.clone(), names)
        };
        a.span = span;
        *left -= 1;
        *sites += 1;
        // The index may read `x` too (the copy of `value` cannot).
        replace_at(k, x, value, left, names, sites);
        return;
    }
    for c in e.children_mut() {
        replace_at(c, x, value, left, names, sites);
    }
}

#[cfg(test)]
#[path = "fuse_tests.rs"]
pub(crate) mod tests;

/// Replace every occurrence of variable `x` in `e` by a copy `copy` makes.
fn replace_var(e: &mut Core, x: VarId, copy: &mut dyn FnMut() -> Core) {
    if matches!(e.kind, Kind::Var(v) if v == x) {
        let span = e.span;
        *e = copy();
        e.span = span;
        return;
    }
    for c in e.children_mut() {
        replace_var(c, x, copy);
    }
}
