//! Loop-invariant code motion for costly math. A call such as `icf[c][j].exp()` inside a
//! loop over points that never reads the point (ADBench GMM's `q_times`, evaluated once per
//! point and component) is computed before that loop, once per value of the inner indexes it
//! does read, into a table (`build(k, |c| build(d, |j| icf[c][j].exp()))`, an array in the
//! frame); inside the loop the call becomes a read of the table. Each value is the same call
//! on the same argument, so results are bit-identical; the table costs frame room, the
//! product of the loop counts it spans.
//!
//! Only calls that cannot fail move (evaluated before the loop, a failing index would fail
//! even when the loop runs no iteration): their arguments are arithmetic on variables, sizes
//! and array elements at indexes proven inside their arrays.
//!
//! Separately, the invariant `let`s at the head of a `build` with a constant count of at
//! least 2 that is still a loop here (after `unroll`) move before it whole (`peel`): that
//! loop runs at least once, so they would have run anyway. This is what shares the primal
//! among a Jacobian's columns of `jvp`, and between its rows of `vjp` (`build(2, |r| vjp(f,
//! x, seed(r)))`, too large to be written out twice).

use crate::front::ast::MathFn;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// Hoist the costly invariant calls of every loop in `e`, outermost loop first.
pub fn hoist(e: &mut Core, names: &mut Vec<String>) {
    let mut bounds = Vec::new();
    go(e, &mut bounds, names);
}

/// The calls worth a table entry: each is a call into the math library.
fn costly(f: MathFn) -> bool {
    matches!(
        f,
        MathFn::Exp
            | MathFn::Ln
            | MathFn::Sin
            | MathFn::Cos
            | MathFn::Tan
            | MathFn::Tanh
            | MathFn::Powf
    )
}

/// Visit `e` with the bounds of the loops around it (`None`: a count not known as a size).
fn go(e: &mut Core, bounds: &mut Vec<(VarId, Option<Size>)>, names: &mut Vec<String>) {
    let mut moved = Vec::new();
    let tables = match &mut e.kind {
        Kind::Build(n, i, body) => {
            if n.as_const().is_some_and(|c| c >= 2) {
                peel(body, &mut HashSet::from([*i]), &mut moved, names);
            }
            let tables = if n.as_const().is_some_and(|c| c <= 1) {
                Vec::new()
            } else {
                lift(body, *i, None, bounds, names)
            };
            bounds.push((*i, Some(n.clone())));
            go(body, bounds, names);
            bounds.pop();
            tables
        }
        Kind::Ifold(n, init, acc, i, body) => {
            go(n, bounds, names);
            go(init, bounds, names);
            let tables = if n
                .sym
                .as_ref()
                .and_then(|s| s.as_const())
                .is_some_and(|c| c <= 1)
            {
                Vec::new()
            } else {
                lift(body, *i, Some(*acc), bounds, names)
            };
            bounds.push((*i, n.sym.clone()));
            go(body, bounds, names);
            bounds.pop();
            tables
        }
        _ => {
            for c in e.children_mut() {
                go(c, bounds, names);
            }
            Vec::new()
        }
    };
    // The tables go right outside the loop, in the order they were made, and the `let`s
    // moved out of it outside them.
    for (t, table) in tables.into_iter().rev().chain(moved.into_iter().rev()) {
        let (ty, span) = (e.ty.clone(), e.span);
        let lp = std::mem::replace(e, Core::new(Kind::Float(0.0), Type::F64, span));
        *e = Core::new(Kind::Let(t, Box::new(table), Box::new(lp)), ty, span);
    }
}

/// The `let`s at the head of the body of a `build` with a constant count of at least 2 (one
/// that `unroll` did not write out), whose values read nothing bound in the loop (`inside`:
/// its index, then the `let`s that stay), taken out into `moved`: computed once instead of at
/// every element. The primal of a Jacobian by columns of `jvp` (`build(26, |k| jvp(f, x,
/// unit(k)).1)`) or by rows of `vjp` does not depend on the column or the row. The loop runs
/// at least once, so a value that may fail fails on its first element anyway (only which
/// error comes first can change). A `let` that stays gives up what of it does not depend on
/// the loop first: its invariant components ([`split_components`]) and the float arithmetic
/// heading its branches ([`speculate`]).
fn peel(
    body: &mut Core,
    inside: &mut HashSet<VarId>,
    moved: &mut Vec<(VarId, Core)>,
    names: &mut Vec<String>,
) {
    while let Kind::Let(x, value, rest) = &mut body.kind {
        if inside.iter().any(|v| value.mentions(*v)) {
            for (k, xk) in split_components(*x, value, inside, moved, names) {
                project_to(rest, *x, k, xk);
            }
            speculate(value, inside, moved);
            inside.insert(*x);
            return peel(rest, inside, moved, names);
        }
        let (x, value, rest) = (*x, value.take(), rest.take());
        moved.push((x, value));
        *body = rest;
    }
}

/// The components of `x`'s value, a tuple-valued `if` on a condition that does not depend on
/// the loop, whose values in both branches (with the `let`s they read) do not either, each
/// taken out into `moved` as an `if` of its own, the component replaced by its variable;
/// returns them, by position. Forward mode makes such `if`s: a branch's primal and tangent are one
/// tuple (`if |r| != 0 { (rotated, its tangent) } else { .. }`), and the primal does not
/// depend on the direction. The `let`s both need are computed in both.
fn split_components(
    x: VarId,
    value: &mut Core,
    inside: &HashSet<VarId>,
    moved: &mut Vec<(VarId, Core)>,
    names: &mut Vec<String>,
) -> Vec<(usize, VarId)> {
    let (span, Type::Tuple(tys)) = (value.span, value.ty.clone()) else {
        return Vec::new();
    };
    let Kind::If(cond, then, other) = &mut value.kind else {
        return Vec::new();
    };
    let invariant = |e: &Core| !inside.iter().any(|v| e.mentions(*v));
    if !invariant(cond) {
        return Vec::new();
    }
    let mut split = Vec::new();
    for (k, ty) in tys.iter().enumerate() {
        let (Some(a), Some(b)) = (component(then, k), component(other, k)) else {
            continue;
        };
        if !invariant(&a) || !invariant(&b) {
            continue;
        }
        let own = Core::new(
            Kind::If(cond.clone(), Box::new(a), Box::new(b)),
            ty.clone(),
            span,
        );
        let xk = crate::middle::ir::new_var(names, x);
        moved.push((xk, crate::middle::ir::fresh(own, names)));
        for branch in [&mut *then, &mut *other] {
            if let Kind::Tuple(xs) = &mut branch.tail_mut().kind {
                xs[k] = Core::new(Kind::Var(xk), ty.clone(), span);
            }
        }
        split.push((k, xk));
    }
    split
}

/// Component `k` of a branch ending in a tuple, with the branch's `let`s it reads.
fn component(branch: &Core, k: usize) -> Option<Core> {
    let mut lets = Vec::new();
    let mut at = branch;
    while let Kind::Let(x, value, rest) = &at.kind {
        lets.push((*x, &**value));
        at = rest;
    }
    let Kind::Tuple(xs) = &at.kind else {
        return None;
    };
    let value = xs.get(k)?.clone();
    let mut needed = HashSet::new();
    value.occurring(&mut needed);
    let mut kept = Vec::new();
    for (x, e) in lets.into_iter().rev() {
        if needed.contains(&x) {
            e.occurring(&mut needed);
            kept.push((x, e.clone()));
        }
    }
    kept.reverse();
    Some(crate::middle::forward::wrap(kept, value))
}

/// Every `x.k` in `e` read as `xk`.
fn project_to(e: &mut Core, x: VarId, k: usize, xk: VarId) {
    if let Kind::Proj(t, j) = &e.kind
        && *j == k
        && matches!(t.kind, Kind::Var(v) if v == x)
    {
        e.kind = Kind::Var(xk);
        return;
    }
    for c in e.children_mut() {
        project_to(c, x, k, xk);
    }
}

/// The `let`s heading either branch of an `if` that stays in the loop, whose values are
/// float arithmetic (which cannot fail) reading nothing bound in the loop, taken out into
/// `moved` too: computed once before the loop, where they would run at most once a step.
/// A direction's tangent reads the primal's values in its branch (Rodrigues' `w = r /
/// theta`); taken when the branch is not, they cost that one computation.
fn speculate(value: &mut Core, inside: &HashSet<VarId>, moved: &mut Vec<(VarId, Core)>) {
    let Kind::If(_, then, other) = &mut value.kind else {
        return;
    };
    for branch in [then, other] {
        take_arithmetic(branch, &mut inside.clone(), moved);
    }
}

/// [`speculate`] on one branch: its chain of `let`s, those that stay added to `stays`.
fn take_arithmetic(body: &mut Core, stays: &mut HashSet<VarId>, moved: &mut Vec<(VarId, Core)>) {
    while let Kind::Let(x, value, rest) = &mut body.kind {
        if !float_arithmetic(value) || stays.iter().any(|v| value.mentions(*v)) {
            stays.insert(*x);
            return take_arithmetic(rest, stays, moved);
        }
        let (x, value, rest) = (*x, value.take(), rest.take());
        moved.push((x, value));
        *body = rest;
    }
}

/// Float arithmetic on scalar variables, constants and elements of array variables at
/// constant indexes inside them, math calls included: a value that cannot fail, so it can be
/// computed where it would not have been.
fn float_arithmetic(e: &Core) -> bool {
    e.ty.is_float()
        && match &e.kind {
            Kind::Float(_) | Kind::Var(_) => true,
            Kind::Bin(_, a, b, _) => float_arithmetic(a) && float_arithmetic(b),
            Kind::Neg(a) => float_arithmetic(a),
            Kind::Math(MathFn::Powi, _) => false,
            Kind::Math(_, xs) => xs.iter().all(float_arithmetic),
            Kind::Index(..) => constant_element(e),
            _ => false,
        }
}

/// An array variable, or an element or row of one at a constant index below its length.
fn constant_element(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) => true,
        Kind::Index(a, i) => {
            let len = a.ty.dims().first().and_then(|n| n.as_const());
            let at = match &i.kind {
                Kind::Size(s) => s.as_const(),
                _ => None,
            };
            matches!((at, len), (Some(at), Some(len)) if at < len) && constant_element(a)
        }
        _ => false,
    }
}

/// The hoisting inside the body of one loop (index `i`, accumulator `acc`).
struct Lift<'a> {
    /// Bounds of the loops outside the loop.
    outer: &'a [(VarId, Option<Size>)],
    /// Variables bound inside the loop (its index and accumulator included).
    inside: Vec<VarId>,
    /// Loops inside the loop around the current node, with their counts when those are
    /// sizes free of variables bound inside the loop (a table can span only those).
    path: Vec<(VarId, Option<Size>)>,
    /// Variables bound inside the loop to what a table could compute instead (an inlined
    /// closure's parameter, `let v = q[c][l]`).
    aliases: HashMap<VarId, Alias>,
    /// The values of the aliases with the aliases they read replaced, made when a table
    /// needs one (a chain of aliases written out can be exponentially larger than it).
    expanded: RefCell<HashMap<VarId, Core>>,
    /// The tables made: variable, definition.
    tables: Vec<(VarId, Core)>,
    /// Indexes of the folds inside a candidate being judged, with their counts.
    judged: RefCell<Vec<(VarId, Size)>>,
    names: &'a mut Vec<String>,
}

/// Replace the costly invariant calls in `body` by reads of tables; returns the tables.
fn lift(
    body: &mut Core,
    i: VarId,
    acc: Option<VarId>,
    outer: &[(VarId, Option<Size>)],
    names: &mut Vec<String>,
) -> Vec<(VarId, Core)> {
    let mut cx = Lift {
        outer,
        inside: [Some(i), acc].into_iter().flatten().collect(),
        path: Vec::new(),
        aliases: HashMap::new(),
        expanded: RefCell::default(),
        tables: Vec::new(),
        judged: RefCell::default(),
        names,
    };
    cx.walk(body);
    cx.tables
}

impl Lift<'_> {
    fn walk(&mut self, e: &mut Core) {
        if let Kind::Math(f, _) = &e.kind
            && costly(*f)
            && e.ty == Type::F64
            && let Some((val, used)) = self.invariant(e)
        {
            self.replace(e, val, used);
            return;
        }
        // A fold that does not read the loop (`sum(icf[c][0..d])` written in the loop over
        // points): a loop run once per value of the inner indexes it reads, not per step.
        if matches!(e.kind, Kind::Ifold(..))
            && e.ty.is_float()
            && let Some((val, used)) = self.invariant(e)
        {
            self.replace(e, val, used);
            return;
        }
        match &mut e.kind {
            Kind::Let(v, a, b) => {
                self.walk(a);
                let movable = if a.ty.is_arr() {
                    self.array(a)
                } else {
                    self.infallible(a)
                };
                if movable {
                    let mut reads = HashSet::new();
                    self.reads(a, &mut reads);
                    let value = (**a).clone();
                    self.aliases.insert(*v, Alias { value, reads });
                }
                self.inside.push(*v);
                self.walk(b);
            }
            Kind::Build(n, i, b) => {
                let free = self.free_size(n).then(|| n.clone());
                self.inside.push(*i);
                self.path.push((*i, free));
                self.walk(b);
                self.path.pop();
            }
            Kind::Scan(n, init, acc, i, b) => {
                // A scan is a loop: what reads its index or state stays inside it.
                self.walk(init);
                let free = self.free_size(n).then(|| n.clone());
                self.inside.extend([*acc, *i]);
                self.path.push((*i, free));
                self.walk(b);
                self.path.pop();
            }
            Kind::Iterate(init, s, cond, t, next) => {
                // A loop with no count: what reads its state stays inside it.
                self.walk(init);
                self.inside.extend([*s, *t]);
                self.walk(cond);
                self.walk(next);
            }
            Kind::Ifold(n, init, acc, i, b) => {
                self.walk(n);
                self.walk(init);
                // Only a count the kernel computes at entry anyway (a size): a table's
                // count is computed there, and `p - 1` computed early could fail where the
                // loop, never reached, would not.
                let free = match &n.kind {
                    Kind::Size(s) if self.free_size(s) => Some(s.clone()),
                    _ => None,
                };
                self.inside.extend([*acc, *i]);
                self.path.push((*i, free));
                self.walk(b);
                self.path.pop();
            }
            _ => {
                for c in e.children_mut() {
                    self.walk(c);
                }
            }
        }
    }

    /// A size that does not change inside the loop.
    fn free_size(&self, s: &Size) -> bool {
        !self.inside.iter().any(|v| s.mentions_loop(*v))
    }

    /// The bound of loop index `v`, inside or outside the loop.
    fn bound(&self, v: VarId) -> Option<Size> {
        if let Some((_, b)) = self.judged.borrow().iter().rev().find(|(w, _)| *w == v) {
            return Some(b.clone());
        }
        self.path
            .iter()
            .chain(self.outer)
            .rev()
            .find(|(w, _)| *w == v)
            .and_then(|(_, b)| b.clone())
    }

    /// `e` with the aliases it reads replaced by their values, and theirs by theirs.
    fn expand(&self, e: &Core) -> Core {
        let mut e = e.clone();
        if !self.aliases.is_empty() {
            self.replace_aliases(&mut e);
        }
        e
    }

    fn replace_aliases(&self, e: &mut Core) {
        if let Kind::Var(v) = e.kind {
            if let Some(val) = self.expanded(v) {
                let span = e.span;
                *e = val;
                e.span = span;
            }
            return;
        }
        for c in e.children_mut() {
            self.replace_aliases(c);
        }
    }

    /// The value of alias `v`, expanded; `None` when `v` is not an alias.
    fn expanded(&self, v: VarId) -> Option<Core> {
        if let Some(val) = self.expanded.borrow().get(&v) {
            return Some(val.clone());
        }
        let val = self.expand(&self.aliases.get(&v)?.value);
        self.expanded.borrow_mut().insert(v, val.clone());
        Some(val)
    }

    /// The variables `e` reads once its aliases are expanded (with those its symbolic values
    /// mention).
    fn reads(&self, e: &Core, out: &mut HashSet<VarId>) {
        if let Kind::Var(v) = e.kind {
            match self.aliases.get(&v) {
                Some(alias) => out.extend(alias.reads.iter().copied()),
                None => {
                    out.insert(v);
                    mentioned_by_sym(e, out);
                }
            }
            return;
        }
        mentioned_by_sym(e, out);
        for c in e.children() {
            self.reads(c, out);
        }
    }

    /// When `e` can move out of the loop: its value (aliases replaced) and the indexes of the
    /// inner loops it reads, outermost first. `None` when it reads anything else bound inside
    /// the loop, or may fail. (Judged on `e` as it is, which decides as its expansion would:
    /// an alias is infallible, and an alias read as an index is looked through.)
    fn invariant(&self, e: &Core) -> Option<(Core, Vec<VarId>)> {
        if !self.infallible(e) {
            return None;
        }
        let mut read = HashSet::new();
        self.reads(e, &mut read);
        let mut used = Vec::new();
        for &v in &self.inside {
            if !read.contains(&v) {
                continue;
            }
            match self.path.iter().position(|(w, b)| *w == v && b.is_some()) {
                Some(p) => used.push((p, v)),
                None => return None,
            }
        }
        used.sort();
        Some((self.expand(e), used.into_iter().map(|(_, v)| v).collect()))
    }

    /// Arithmetic on variables, sizes and array elements at proven indexes, and folds of it
    /// counted by sizes fixed in the loop (their `let`s of scalars too).
    fn infallible(&self, e: &Core) -> bool {
        match &e.kind {
            Kind::Float(_) | Kind::Size(_) => true,
            Kind::Var(_) => !e.ty.is_arr(),
            Kind::Bin(_, a, b, _) => {
                e.ty.is_float()
                    && a.ty == e.ty
                    && b.ty == e.ty
                    && self.infallible(a)
                    && self.infallible(b)
            }
            Kind::Ifold(n, init, _, i, body) => {
                let Kind::Size(count) = &n.kind else {
                    return false;
                };
                if !e.ty.is_float() || !self.free_size(count) || !self.infallible(init) {
                    return false;
                }
                self.judged.borrow_mut().push((*i, count.clone()));
                let ok = self.infallible(body);
                self.judged.borrow_mut().pop();
                ok
            }
            Kind::Let(_, value, body) => {
                !value.ty.is_arr() && self.infallible(value) && self.infallible(body)
            }
            Kind::Neg(a) => self.infallible(a),
            Kind::Math(MathFn::Powi, xs) => {
                xs.len() == 2 && self.infallible(&xs[0]) && self.atom(&xs[1])
            }
            Kind::Math(_, xs) => xs.iter().all(|x| x.ty == Type::F64 && self.infallible(x)),
            Kind::Cast(crate::front::ast::CastTy::F64, a) => self.atom(a),
            Kind::Index(a, i) => self.array(a) && self.below(i, &a.ty),
            _ => false,
        }
    }

    /// A `usize` variable or size.
    fn atom(&self, e: &Core) -> bool {
        e.ty == Type::Usize && matches!(e.kind, Kind::Var(_) | Kind::Size(_))
    }

    /// An array variable, or a row or a slice of one at a proven index.
    fn array(&self, e: &Core) -> bool {
        match &e.kind {
            Kind::Var(_) => e.ty.is_arr(),
            Kind::Index(a, i) => self.array(a) && self.below(i, &a.ty),
            Kind::Slice(a, lo) => self.array(a) && self.slice_within(lo, &e.ty, &a.ty),
            _ => false,
        }
    }

    /// `i` is below the first dimension of `ty`: a loop index whose count is at most that
    /// dimension, or a constant below it.
    fn below(&self, i: &Core, ty: &Type) -> bool {
        let Some(dim) = ty.dims().first() else {
            return false;
        };
        let room = |used: Size| {
            if let (Size::Lit(d), Size::Lit(u)) = (dim, &used) {
                return d >= u;
            }
            crate::front::size::names_nonneg(&Size::minus(dim.clone(), used))
        };
        match &i.kind {
            Kind::Var(v) if self.aliases.contains_key(v) => {
                self.expanded(*v).is_some_and(|val| self.below(&val, ty))
            }
            Kind::Var(v) => self.bound(*v).is_some_and(room),
            Kind::Size(s) => s.as_const().is_some_and(|k| room(Size::Lit(k + 1))),
            _ => false,
        }
    }

    /// A slice from constant `lo` of type `ty` ends within the first dimension of `of`.
    fn slice_within(&self, lo: &Core, ty: &Type, of: &Type) -> bool {
        let (Some(len), Some(dim)) = (ty.dims().first(), of.dims().first()) else {
            return false;
        };
        let Kind::Size(lo) = &lo.kind else {
            return false;
        };
        lo.as_const().is_some()
            && crate::front::size::names_nonneg(&Size::minus(
                dim.clone(),
                Size::plus(lo.clone(), len.clone()),
            ))
    }

    /// Put `e` in a table over the inner loop indexes `used` and read it instead.
    fn replace(&mut self, e: &mut Core, val: Core, used: Vec<VarId>) {
        let span = e.span;
        let t = self.fresh("hoisted");
        let counts: Vec<Size> = used
            .iter()
            .map(|v| self.bound(*v).unwrap_or(Size::Lit(0)))
            .collect();
        // The table: fresh indexes in place of the loop's.
        let mut val = val;
        let fresh: Vec<VarId> = used.iter().map(|_| self.fresh("h")).collect();
        for (v, w) in used.iter().zip(&fresh) {
            val.subst(*v, &index_var(*w, span));
        }
        let elem = val.ty.scalar().unwrap_or(Scalar::F64);
        for k in (0..used.len()).rev() {
            let ty = Type::Arr(elem, counts[k..].to_vec());
            val = Core::new(
                Kind::Build(counts[k].clone(), fresh[k], Box::new(val)),
                ty,
                span,
            );
        }
        // The read: `t[c][j]`.
        let mut read = Core::new(Kind::Var(t), val.ty.clone(), span);
        for (k, v) in used.iter().enumerate() {
            let ty = if k + 1 == used.len() {
                elem.ty()
            } else {
                Type::Arr(elem, counts[k + 1..].to_vec())
            };
            read = Core::new(
                Kind::Index(Box::new(read), Box::new(index_var(*v, span))),
                ty,
                span,
            );
        }
        *e = read;
        self.tables.push((t, val));
    }

    fn fresh(&mut self, name: &str) -> VarId {
        self.names.push(name.to_string());
        (self.names.len() - 1) as VarId
    }
}

/// A variable bound inside a loop to a value a table could compute instead.
struct Alias {
    /// Its value, as written (aliases it reads not replaced).
    value: Core,
    /// The variables its value reads once expanded.
    reads: HashSet<VarId>,
}

/// The loop indexes `e`'s own symbolic value mentions.
fn mentioned_by_sym(e: &Core, out: &mut HashSet<VarId>) {
    if let Some(s) = &e.sym {
        let mut loops = Vec::new();
        s.loops(&mut loops);
        out.extend(loops);
    }
}

/// Loop index `v` as an expression.
fn index_var(v: VarId, span: crate::front::ast::Sp) -> Core {
    Core {
        kind: Kind::Var(v),
        ty: Type::Usize,
        sym: Some(Size::Loop(v)),
        span,
    }
}

#[cfg(test)]
#[path = "hoist_tests.rs"]
mod tests;
