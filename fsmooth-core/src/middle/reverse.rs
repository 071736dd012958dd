//! `reverse`: reverse-mode differentiation (LANGUAGE.md section 12's `vjp` and `grad`).
//! Given an expression and the adjoint of its value (the seed), it computes the adjoint of
//! every variable the expression reads, as core that the rest of the pipeline fuses and
//! plans like any kernel: no tape, no heap.
//!
//! The sweep walks the expression from its result back to its inputs. A `let` binds its
//! value (the primal, recomputed where the reverse code needs it), then the body's adjoints
//! are found, then the value's from the adjoint of the bound variable. Adjoints are values:
//! the contributions to a variable are summed where its scope ends.
//!
//! Loops recompute instead of storing (the rules are in `loops`):
//! - `build(n, |i| body)`: the body's reverse runs once per element with that element's
//!   adjoint. One fold over the steps sums every variable's contributions (its state a
//!   tuple of them), so each step's values are computed once for all; a map (one array read
//!   at `i` alone) gets its adjoint as a `build` instead. A contribution that is itself a sum
//!   from zero continues from the fold's state, so nested sums add into one array.
//! - An expensive array a `build`'s step computes (each element a loop: GMM's `Q (x - mu)`)
//!   is kept, computed once by a `build` of its own before the step's sweep reads it, instead
//!   of computed again by the sweep (`keep`).
//! - A sum-fold (`ifold(n, a, |acc, i| acc + term)`, `term` not reading `acc`): each step's
//!   `term` has the fold's adjoint, so the steps are independent, reversed as a `build` is;
//!   scratch does not grow with `n` (GMM's sum over points).
//! - Any other `ifold` or `scan` carries its state: its states are kept by a `scan` (the
//!   checkpoints, in the frame, one per step) and an `ifold` runs the steps backwards, its state
//!   the state's adjoint and the other variables' sums.
//!
//! Scalar operations reuse [`crate::middle::forward`]'s rules, which are linear in the
//! tangents: the contribution to an operand is the tangent of the operation when that
//! operand's tangent is the adjoint and the others' are zero. So the two modes share every
//! partial derivative, and a zero adjoint contributes nothing where a partial is infinite.
//!
//! A read `y[e]` contributes a one-hot array; the sums of such contributions are folds that
//! only add to an array, which the lowering runs in place (one element per read, see
//! [`crate::lower`]'s accumulation). An `ifold` or `scan` whose count depends on an enclosing
//! loop and that carries its state has no checkpoints of a size known before the loops run:
//! there, [`Reverse::gradients`] gives up and the caller uses forward mode.

use crate::front::ast::{BinOp, Sp};
use crate::front::size::Size;
use crate::middle::forward::{Forward, bin, cast_to, differentiable, is_zero, wrap};
use crate::middle::ir::{Core, Kind, Type, VarId, fresh};
use crate::middle::simplify;
use std::collections::{BTreeMap, HashMap, HashSet};

mod keep;
mod loops;
mod placed;
mod rows;
mod terms;
#[cfg(test)]
mod tests;

use loops::Count;
use terms::{chain_terms, placed, scatter_step};

/// Bindings in evaluation order.
type Lets = Vec<(VarId, Core)>;

/// The contributions to the adjoint of each variable, not yet summed (by variable id, so the
/// generated code does not depend on hashing).
type Adjoints = BTreeMap<VarId, Vec<Core>>;

/// A construct reverse mode does not handle: an `ifold` or `scan` carrying its state whose
/// count is not known before the loops run.
#[derive(Debug)]
pub struct Unsupported;

/// The reverse transformation's state.
pub struct Reverse<'a> {
    /// The source name of every core variable (new ones are added).
    pub names: &'a mut Vec<String>,
    /// The variables whose values depend on the differentiated arguments.
    active: HashSet<VarId>,
    /// The type of each active variable.
    types: HashMap<VarId, Type>,
    /// Values computed after the sweep that reads them (the differentiated expression's, a
    /// sum-fold's steps'): a fold bound to a variable they read is never absorbed into
    /// another sum, which would change its value's rounding.
    pending: Vec<Core>,
    /// The arrays of rows kept for the sweep (see `keep`), each with the `build` computing
    /// it.
    kept: HashMap<VarId, Core>,
    /// The name of the derivative form (`grad`, `vjp`) that asked for the sweep: the span
    /// of the adjoints and checkpoints it binds, which no token of the user's computes (a
    /// remark about their buffers points there).
    at: Sp,
}

/// The name of a carried fold's or a scan's sweep state, whose first component is the
/// adjoint of the step's state, transformed by each step: such a sweep is no sum, and no sum
/// continues from it (the name survives the renaming of bound variables).
const CARRIED: &str = "carried";

/// A new variable of source name `name`.
fn named(names: &mut Vec<String>, name: &str) -> VarId {
    names.push(name.to_string());
    (names.len() - 1) as VarId
}

fn var(v: VarId, ty: &Type, span: Sp) -> Core {
    Core::new(Kind::Var(v), ty.clone(), span)
}

/// A loop index or other `usize` variable, with its symbolic value.
fn index(v: VarId, span: Sp) -> Core {
    Core::index_var(v, span)
}

fn at(a: Core, i: Core) -> Core {
    let (ty, span) = (a.ty.elem(), a.span);
    Core::new(Kind::Index(Box::new(a), Box::new(i)), ty, span)
}

fn proj(t: Core, k: usize) -> Core {
    if let Kind::Tuple(xs) = &t.kind {
        return xs[k].clone();
    }
    let ty = t.ty.parts()[k].clone();
    let span = t.span;
    Core::new(Kind::Proj(Box::new(t), k), ty, span)
}

/// One value, or the tuple of several (a tuple has two or more components).
fn tuple(mut xs: Vec<Core>, span: Sp) -> Core {
    if xs.len() == 1 {
        return xs.remove(0);
    }
    let ty = Type::Tuple(xs.iter().map(|x| x.ty.clone()).collect());
    Core::new(Kind::Tuple(xs), ty, span)
}

/// Component `k` of `n` of a value made by [`tuple`].
fn part(t: Core, k: usize, n: usize) -> Core {
    if n == 1 { t } else { proj(t, k) }
}

fn pick(c: Core, a: Core, b: Core) -> Core {
    let (ty, span) = (a.ty.clone(), a.span);
    Core::new(Kind::If(Box::new(c), Box::new(a), Box::new(b)), ty, span)
}

/// `e` with every `let x = y` of a float variable dropped, `x` read as `y` (`to` maps the
/// dropped ones). Inlining binds each argument so; reverse mode would give `x` an adjoint of
/// its own, so that `dot(v, v)` summed two arrays of contributions instead of one.
fn without_aliases(e: &mut Core, to: &mut HashMap<VarId, VarId>) {
    if !matches!(e.kind, Kind::Let(..)) {
        if let Kind::Var(x) = &mut e.kind {
            if let Some(y) = to.get(x) {
                *x = *y;
            }
            return;
        }
        for c in e.children_mut() {
            without_aliases(c, to);
        }
        return;
    }
    // A `let` chain by a loop: it may be thousands of `let`s long.
    let mut kept = Vec::new();
    let mut cur = e.take();
    while let Kind::Let(x, mut value, body) = cur.kind {
        without_aliases(&mut value, to);
        match value.kind {
            Kind::Var(y) if differentiable(&value.ty) => {
                to.insert(x, y);
            }
            _ => kept.push((x, value, cur.span, cur.sym)),
        }
        cur = *body;
    }
    without_aliases(&mut cur, to);
    *e = kept
        .into_iter()
        .rev()
        .fold(cur, |body, (x, value, span, sym)| {
            let ty = body.ty.clone();
            let mut chain = Core::new(Kind::Let(x, value, Box::new(body)), ty, span);
            chain.sym = sym;
            chain
        });
}

/// Bind each sum-fold that `e` evaluates once (not inside a loop's body, an `if`'s branch
/// or the right operand of `&&` and `||`) by a `let` of its own, just outside the expression that reads it: the sweep of
/// such a `let` sums the fold's value beside the adjoints (`sum_with_value`), where a fold
/// inside an expression (`0.5 * ifold(..) / p`, a mean loss) would be computed by a second
/// loop of its own for the value.
fn bind_sums(e: &mut Core, names: &mut Vec<String>) {
    if let Kind::Let(_, value, body) = &mut e.kind {
        // A `let` of a sum-fold is what the sweep wants already.
        if !is_sum(value) {
            bind_sums(value, names);
        }
        bind_sums(body, names);
        return;
    }
    let mut sums = Lets::new();
    lift_sums(e, &mut sums, names);
    if !sums.is_empty() {
        let read = e.take();
        *e = wrap(sums, read);
    }
}

/// Whether `e` is a float sum-fold (`ifold(n, a, |acc, i| acc + term)`, or a chain of
/// terms from `acc`).
fn is_sum(e: &Core) -> bool {
    matches!(&e.kind, Kind::Ifold(_, _, acc, _, step) if e.ty.is_float() && chain_terms(step, *acc).is_some())
}

/// Replace each sum-fold `e` evaluates once by a new variable, its binding pushed on `sums`
/// (see [`bind_sums`]); a `let` inside `e` binds its own.
fn lift_sums(e: &mut Core, sums: &mut Lets, names: &mut Vec<String>) {
    if is_sum(e) {
        let x = named(names, "sum");
        let (ty, span) = (e.ty.clone(), e.span);
        sums.push((x, e.take()));
        *e = var(x, &ty, span);
        return;
    }
    match &mut e.kind {
        Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) => {}
        // A branch, or the right operand of `&&` and `||`, may not be evaluated.
        Kind::If(c, ..) | Kind::Bin(BinOp::And | BinOp::Or, c, ..) => lift_sums(c, sums, names),
        Kind::Let(..) => bind_sums(e, names),
        _ => e.children_mut().for_each(|c| lift_sums(c, sums, names)),
    }
}

fn add(adj: &mut Adjoints, v: VarId, c: Core) {
    if !is_zero(&c) {
        adj.entry(v).or_default().push(c);
    }
}

impl<'a> Reverse<'a> {
    /// A transformation differentiating by the variables `args` (with their types), for
    /// the derivative form written at `at`.
    pub fn new(names: &'a mut Vec<String>, args: &[(VarId, Type)], at: Sp) -> Reverse<'a> {
        Reverse {
            names,
            active: args.iter().map(|(v, _)| *v).collect(),
            types: args.iter().cloned().collect(),
            pending: Vec::new(),
            kept: HashMap::new(),
            at,
        }
    }

    /// `body`'s value and the adjoint of each argument when that value has adjoint `seed`:
    /// bindings pushed on `lets`, then the value and one adjoint per argument (zero for an
    /// argument `body` does not read).
    ///
    /// The value is computed from the bindings the sweep makes anyway (a `let` chain's values,
    /// a sum-fold's sum beside its steps' adjoints), not by a second copy of `body`.
    pub fn gradients(
        &mut self,
        body: &Core,
        seed: Core,
        args: &[(VarId, Type)],
        lets: &mut Lets,
    ) -> Result<(Core, Vec<Core>), Unsupported> {
        let mut body = body.clone();
        without_aliases(&mut body, &mut HashMap::new());
        let by: Vec<VarId> = args.iter().map(|(v, _)| *v).collect();
        self.kept = keep::keep_rows(&mut body, &by, self.names);
        bind_sums(&mut body, self.names);
        let body = &body;
        let mut adj = Adjoints::new();
        let s = self.atom(seed, "seed", lets);
        let value = self.value_after(body, &s);
        self.pending.push(value.clone());
        self.back(body, &s, lets, &mut adj)?;
        let gradients = args
            .iter()
            .map(|(x, ty)| {
                let cs = adj.remove(x).unwrap_or_default();
                self.total(cs, ty, body.span, lets)
            })
            .collect();
        Ok((value, gradients))
    }

    /// The value of `e`, to be computed after `back(e, s)`: the last expression of its `let`
    /// chain when `back` binds the chain's values again, else a copy of `e`.
    fn value_after(&mut self, e: &Core, s: &Core) -> Core {
        let binds = matches!(e.kind, Kind::Let(..))
            && differentiable(&e.ty)
            && self.is_active(e)
            && !is_zero(s);
        let mut tail = e;
        while binds && let Kind::Let(_, _, body) = &tail.kind {
            tail = body;
        }
        fresh(tail.clone(), self.names)
    }

    /// Row `i` of the kept array `y` as its value (a copy, `i` for the `build`'s index);
    /// `None` when `y` is no kept array.
    fn kept_row(&mut self, y: VarId, i: VarId, span: Sp) -> Option<Core> {
        let rows = fresh(self.kept.get(&y)?.clone(), self.names);
        let Kind::Build(_, index, value) = rows.kind else {
            return None;
        };
        let mut value = *value;
        value.subst(index, &self::index(i, span));
        Some(value)
    }

    /// Whether a `value` computed after the sweep reads `x`.
    fn is_pending(&self, x: VarId) -> bool {
        self.pending.iter().any(|p| p.mentions(x))
    }

    fn new_var(&mut self, name: &str) -> VarId {
        named(self.names, name)
    }

    /// A new active variable of type `ty`.
    fn activate(&mut self, v: VarId, ty: &Type) {
        self.active.insert(v);
        self.types.insert(v, ty.clone());
    }

    /// Whether `e` reads an active variable.
    fn is_active(&self, e: &Core) -> bool {
        matches!(e.kind, Kind::Var(v) if self.active.contains(&v))
            || e.children().any(|c| self.is_active(c))
    }

    /// `e` itself if it is a variable or a constant, else a variable bound to it in `lets`.
    /// An adjoint (`adj`) or a fold's checkpoints (`states`) is spanned at the derivative
    /// form: the primal token its span came from (a prelude function's is the whole block)
    /// is not what computes it.
    fn atom(&mut self, mut e: Core, name: &str, lets: &mut Lets) -> Core {
        if matches!(
            e.kind,
            Kind::Var(_) | Kind::Float(_) | Kind::Size(_) | Kind::Bool(_)
        ) {
            return e;
        }
        if name == "adj" || name == "states" {
            e.span = self.at;
        }
        let v = self.new_var(name);
        let (ty, span) = (e.ty.clone(), e.span);
        lets.push((v, e));
        var(v, &ty, span)
    }

    /// The zero of type `ty`.
    fn zero(&mut self, ty: &Type, span: Sp) -> Core {
        Forward {
            names: self.names,
            tangents: HashMap::new(),
        }
        .zero(ty, span)
    }

    /// The sum of the contributions `cs` to a value of type `ty` (its zero when none).
    fn total(&mut self, cs: Vec<Core>, ty: &Type, span: Sp, lets: &mut Lets) -> Core {
        let mut cs: Vec<Core> = cs.into_iter().filter(|c| !is_zero(c)).collect();
        match ty {
            _ if cs.is_empty() => self.zero(ty, span),
            _ if cs.len() == 1 => cs.remove(0),
            Type::Tuple(ts) => {
                let cs: Vec<Core> = cs.into_iter().map(|c| self.atom(c, "adj", lets)).collect();
                let parts = ts
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let each = cs.iter().map(|c| proj(c.clone(), k)).collect();
                        self.total(each, t, span, lets)
                    })
                    .collect();
                Core::new(Kind::Tuple(parts), ty.clone(), span)
            }
            Type::Arr(..) => {
                // A one-hot contribution adds at its element only (`if p == e { b + v } else
                // { b }`): no `+ 0.0` elsewhere, which IEEE arithmetic would keep.
                let (hots, rest): (Vec<Core>, Vec<Core>) = cs
                    .into_iter()
                    .partition(|c| ty.dims().len() == 1 && one_hot_of(c, lets).is_some());
                let hots: Vec<(Core, Core)> = hots
                    .iter()
                    .filter_map(|c| one_hot_of(c, lets))
                    .map(|(e, v)| (fresh(e, self.names), fresh(v, self.names)))
                    .collect();
                let rest: Vec<Core> = rest
                    .into_iter()
                    .map(|c| self.atom(c, "adj", lets))
                    .collect();
                let p = self.new_var("p");
                let elem = ty.elem();
                let mut inner = Vec::new();
                let each: Vec<Core> = rest.iter().map(|c| at(c.clone(), index(p, span))).collect();
                let mut sum = (!each.is_empty()).then(|| self.total(each, &elem, span, &mut inner));
                for (e, v) in hots {
                    let hit = bin(BinOp::Eq, index(p, span), e);
                    sum = Some(match sum {
                        None => pick(hit, v, self.zero(&elem, span)),
                        Some(b) => {
                            let b = match b.kind {
                                Kind::Index(..) | Kind::Var(_) => b,
                                _ => self.atom(b, "adj", &mut inner),
                            };
                            pick(hit, bin(BinOp::Add, b.clone(), v), b)
                        }
                    });
                }
                let sum = sum.unwrap_or_else(|| self.zero(&elem, span));
                Core::new(
                    Kind::Build(ty.dims()[0].clone(), p, Box::new(wrap(inner, sum))),
                    ty.clone(),
                    span,
                )
            }
            _ => balanced_sum(cs),
        }
    }

    /// Add the adjoints of the variables `e` reads, when its value has adjoint `s` (an atom),
    /// to `adj`; bindings they need go on `lets`.
    fn back(
        &mut self,
        e: &Core,
        s: &Core,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<(), Unsupported> {
        if !differentiable(&e.ty) || !self.is_active(e) || is_zero(s) {
            return Ok(());
        }
        let span = e.span;
        match &e.kind {
            Kind::Var(v) => add(adj, *v, s.clone()),
            Kind::Let(..) => {
                // The chain's values in order (each a copy: the sweep binds their own `let`s
                // again), its body's adjoints, then each value's from its variable's, last
                // first. A loop, not a recursion: a chain may be thousands of `let`s long.
                let mut chain = Vec::new();
                let mut cur = e;
                while let Kind::Let(x, value, body) = &cur.kind {
                    let primal = fresh((**value).clone(), self.names);
                    lets.push((*x, primal));
                    let carries = differentiable(&value.ty) && self.is_active(value);
                    if carries {
                        self.activate(*x, &value.ty);
                    }
                    chain.push((*x, &**value, carries));
                    cur = body;
                }
                self.back(cur, s, lets, adj)?;
                for (x, value, carries) in chain.into_iter().rev() {
                    if let Some(cs) = adj.remove(&x)
                        && carries
                    {
                        let sx = self.total(cs, &value.ty, value.span, lets);
                        let sx = self.atom(sx, "adj", lets);
                        if !self.sum_with_value(x, value, &sx, lets, adj)? {
                            self.back(value, &sx, lets, adj)?;
                        }
                    }
                }
            }
            Kind::If(c, a, b) => self.branches(c, a, b, s, lets, adj)?,
            Kind::CheckIndex(..) => {}
            Kind::Cast(_, a) if !differentiable(&a.ty) => {}
            Kind::Cast(_, a) => {
                // A float cast's adjoint is cast back to the operand's type.
                let to = cast_to(&a.ty);
                let sa = Core::new(Kind::Cast(to, Box::new(s.clone())), a.ty.clone(), span);
                let sa = self.atom(sa, "adj", lets);
                self.back(a, &sa, lets, adj)?;
            }
            Kind::Bin(..) | Kind::Neg(_) | Kind::Math(..) => self.scalar(e, s, lets, adj)?,
            Kind::Index(a, i) => {
                let i = fresh((**i).clone(), self.names);
                let contribution = self.one_hot(&a.ty, i, s, span);
                let sa = self.atom(contribution, "adj", lets);
                self.back(a, &sa, lets, adj)?;
            }
            Kind::Slice(a, lo) => {
                let lo = fresh((**lo).clone(), self.names);
                let contribution = self.spread(&a.ty, lo, &e.ty, s, span);
                let sa = self.atom(contribution, "adj", lets);
                self.back(a, &sa, lets, adj)?;
            }
            Kind::Array(xs) => {
                for (k, x) in xs.iter().enumerate() {
                    let sk = at(s.clone(), Core::size(Size::Lit(k as u64), span));
                    let sk = self.atom(sk, "adj", lets);
                    self.back(x, &sk, lets, adj)?;
                }
            }
            Kind::Tuple(xs) => {
                for (k, x) in xs.iter().enumerate() {
                    let sk = self.atom(proj(s.clone(), k), "adj", lets);
                    self.back(x, &sk, lets, adj)?;
                }
            }
            Kind::Proj(t, k) => {
                let parts = (0..t.ty.parts().len())
                    .map(|j| {
                        if j == *k {
                            s.clone()
                        } else {
                            self.zero(&t.ty.parts()[j], span)
                        }
                    })
                    .collect();
                let st = Core::new(Kind::Tuple(parts), t.ty.clone(), span);
                let st = self.atom(st, "adj", lets);
                self.back(t, &st, lets, adj)?;
            }
            Kind::Concat(a, b) => {
                let first = |t: &Type| t.dims()[0].clone();
                let sa = self.part_of(s, Core::size(Size::Lit(0), span), &a.ty, lets);
                let sb = self.part_of(s, Core::size(first(&a.ty), span), &b.ty, lets);
                let sa = self.atom(sa, "adj", lets);
                let sb = self.atom(sb, "adj", lets);
                self.back(a, &sa, lets, adj)?;
                self.back(b, &sb, lets, adj)?;
            }
            Kind::Reshape(a) => {
                let sa = Core::new(Kind::Reshape(Box::new(s.clone())), a.ty.clone(), span);
                let sa = self.atom(sa, "adj", lets);
                self.back(a, &sa, lets, adj)?;
            }
            // A one-hot array, `v` at element `r` (a scatter's step): `v` gathers element `r`
            // of the adjoint, no loop over the others, which contribute nothing.
            Kind::Build(n, _, _) if let Some((r, v)) = placed(e) => {
                let len = Core::size(n.clone(), span);
                let inside = bin(BinOp::Lt, r.clone(), len);
                let gathered = at(s.clone(), r.clone());
                let zero = self.zero(&v.ty, span);
                let sv = self.atom(pick(inside, gathered, zero), "adj", lets);
                self.back(v, &sv, lets, adj)?;
            }
            Kind::Build(n, i, body) => {
                let count = Count {
                    value: Core::size(n.clone(), span),
                    size: Some(n.clone()),
                };
                let step = at(s.clone(), index(*i, span));
                self.steps(&count, *i, body, step, None, lets, adj)?;
            }
            // Refused by the checker (LANGUAGE.md section 14): the steps are not known before
            // the loop runs.
            Kind::Iterate(..) => return Err(Unsupported),
            Kind::Ifold(n, init, acc, i, body) => {
                let count = Count {
                    value: (**n).clone(),
                    size: n.sym.clone(),
                };
                let term = match chain_terms(body, *acc) {
                    Some(term) => Some(term),
                    None => scatter_step(body, *acc, self.names),
                };
                match term {
                    Some(term) => {
                        self.back(init, s, lets, adj)?;
                        self.steps(&count, *i, &term, s.clone(), None, lets, adj)?;
                    }
                    None => self.carried(&count, init, *acc, *i, body, s, None, lets, adj)?,
                }
            }
            Kind::Scan(n, init, acc, i, body) => {
                let count = Count {
                    value: Core::size(n.clone(), span),
                    size: Some(n.clone()),
                };
                let zero = self.zero(&init.ty, span);
                self.carried(&count, init, *acc, *i, body, &zero, Some(s), lets, adj)?;
            }
            Kind::Float(_) | Kind::Bool(_) | Kind::Size(_) | Kind::Not(_) => {}
        }
        Ok(())
    }

    /// `if c { a } else { b }`: each branch's adjoints, selected by the condition.
    fn branches(
        &mut self,
        c: &Core,
        a: &Core,
        b: &Core,
        s: &Core,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<(), Unsupported> {
        let span = c.span;
        let mut sides = Vec::new();
        for branch in [a, b] {
            let mut inner = Lets::new();
            let mut found = Adjoints::new();
            self.back(branch, s, &mut inner, &mut found)?;
            sides.push((inner, found));
        }
        let vars: Vec<VarId> = {
            let mut v: Vec<VarId> = sides.iter().flat_map(|(_, f)| f.keys().copied()).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if vars.is_empty() {
            return Ok(());
        }
        let mut values = Vec::new();
        for (mut inner, mut found) in sides {
            let parts = vars
                .iter()
                .map(|v| {
                    let cs = found.remove(v).unwrap_or_default();
                    let ty = self.types[v].clone();
                    self.total(cs, &ty, span, &mut inner)
                })
                .collect();
            values.push(wrap(inner, tuple(parts, span)));
        }
        let [then, other] = <[Core; 2]>::try_from(values).map_err(|_| Unsupported)?;
        let c = fresh(c.clone(), self.names);
        let chosen = self.atom(pick(c, then, other), "adj", lets);
        for (k, v) in vars.iter().enumerate() {
            add(adj, *v, part(chosen.clone(), k, vars.len()));
        }
        Ok(())
    }

    /// A scalar operation (arithmetic, a math method) by [`Forward`]'s rules: each
    /// operand that is not a variable is bound to one, and each active variable among the
    /// operands gets the operation's tangent when its own tangent is `s`.
    fn scalar(
        &mut self,
        e: &Core,
        s: &Core,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<(), Unsupported> {
        let mut node = e.clone();
        let mut temps = Vec::new();
        for operand in node.children_mut() {
            if matches!(operand.kind, Kind::Var(_))
                || !differentiable(&operand.ty)
                || !self.is_active(operand)
            {
                continue;
            }
            let t = self.new_var("t");
            let original = operand.take();
            lets.push((t, fresh(original.clone(), self.names)));
            self.activate(t, &original.ty);
            *operand = var(t, &original.ty, original.span);
            temps.push((t, original));
        }
        let s = self.atom(s.clone(), "adj", lets);
        let Kind::Var(sv) = s.kind else {
            unreachable!("an adjoint bound to a variable")
        };
        let mut operands: Vec<VarId> = node
            .children()
            .filter_map(|c| match c.kind {
                Kind::Var(v) if self.active.contains(&v) && differentiable(&c.ty) => Some(v),
                _ => None,
            })
            .collect();
        operands.sort_unstable();
        operands.dedup();
        for v in operands {
            // Each operand's tangent is a copy of the operation, and an inactive operand
            // left in it (a constant array's sum) may bind variables: renamed in each copy.
            let copy = fresh(node.clone(), self.names);
            let mut forward = Forward {
                names: self.names,
                tangents: HashMap::from([(v, sv)]),
            };
            let d = forward.dual(copy);
            lets.extend(d.lets);
            add(adj, v, d.tangent);
        }
        for (t, original) in temps.into_iter().rev() {
            if let Some(cs) = adj.remove(&t) {
                let st = self.total(cs, &original.ty, original.span, lets);
                let st = self.atom(st, "adj", lets);
                self.back(&original, &st, lets, adj)?;
            }
        }
        Ok(())
    }

    /// The part of type `ty` of the adjoint `s` (an atom) from row `lo` on: a `build` of
    /// its own when `s` is one (the elements of a `concat`'s adjoint computed where each
    /// part's adjoint goes, not stored whole and sliced: the parts do not overlap, so no
    /// element is computed twice), else the slice.
    fn part_of(&mut self, s: &Core, lo: Core, ty: &Type, lets: &Lets) -> Core {
        let span = s.span;
        if let Kind::Var(x) = s.kind
            && let Some((_, value)) = lets.iter().rev().find(|(v, _)| *v == x)
            && let Kind::Build(_, i, body) = &value.kind
        {
            let j = self.new_var("i");
            let at = match lo.kind {
                Kind::Size(Size::Lit(0)) => index(j, span),
                _ => Core::usize_bin(BinOp::Add, lo, index(j, span), "start + i", span),
            };
            let body = simplify::subst_index(*i, &at, (**body).clone(), span);
            let part = Core::new(
                Kind::Build(ty.dims()[0].clone(), j, Box::new(body)),
                ty.clone(),
                span,
            );
            return fresh(part, self.names);
        }
        Core::new(
            Kind::Slice(Box::new(s.clone()), Box::new(lo)),
            ty.clone(),
            span,
        )
    }

    /// The adjoint of array `a` (of type `ty`) from its element at `i` with adjoint `s`:
    /// `s` there, zero elsewhere.
    fn one_hot(&mut self, ty: &Type, i: Core, s: &Core, span: Sp) -> Core {
        let p = self.new_var("p");
        let zero = self.zero(&ty.elem(), span);
        let hit = bin(BinOp::Eq, index(p, span), i);
        Core::new(
            Kind::Build(
                ty.dims()[0].clone(),
                p,
                Box::new(pick(hit, s.clone(), zero)),
            ),
            ty.clone(),
            span,
        )
    }

    /// The adjoint of array `a` (of type `ty`) from its slice at `lo` (of type `slice`) with
    /// adjoint `s`: `s` over the slice's rows, zero elsewhere.
    fn spread(&mut self, ty: &Type, lo: Core, slice: &Type, s: &Core, span: Sp) -> Core {
        let p = self.new_var("p");
        let zero = self.zero(&ty.elem(), span);
        let len = Core::size(slice.dims()[0].clone(), span);
        let end = Core::usize_bin(BinOp::Add, lo.clone(), len, "start + length", span);
        let inside = bin(
            BinOp::And,
            bin(BinOp::Le, lo.clone(), index(p, span)),
            bin(BinOp::Lt, index(p, span), end),
        );
        let offset = Core::usize_bin(BinOp::Sub, index(p, span), lo, "index - start", span);
        Core::new(
            Kind::Build(
                ty.dims()[0].clone(),
                p,
                Box::new(pick(inside, at(s.clone(), offset), zero)),
            ),
            ty.clone(),
            span,
        )
    }
}

/// `(e, v)` when contribution `c` (or the value `lets` binds it to) is a one-hot vector
/// `build(n, |q| if q == e { v } else { 0.0 })` ([`Reverse::one_hot`]'s form).
fn one_hot_of(c: &Core, lets: &Lets) -> Option<(Core, Core)> {
    let value = match c.kind {
        Kind::Var(x) => &lets.iter().rev().find(|(v, _)| *v == x)?.1,
        _ => c,
    };
    let (e, v) = placed(value)?;
    v.ty.is_float().then(|| (e.clone(), v.clone()))
}

/// The sum of two or more scalars as a balanced tree: a variable read many times has many
/// contributions, and a chain of them as deep would be as deep to every later pass.
fn balanced_sum(mut cs: Vec<Core>) -> Core {
    while cs.len() > 1 {
        let mut next = Vec::with_capacity(cs.len().div_ceil(2));
        let mut it = cs.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => bin(BinOp::Add, a, b),
                None => a,
            });
        }
        cs = next;
    }
    cs.remove(0)
}
