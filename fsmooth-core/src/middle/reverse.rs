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
//! Loops recompute instead of storing:
//! - `build(n, |i| body)`: the body's reverse runs once per element with that element's
//!   adjoint. An array read only at the loop's own index (`y[i]`) gets its adjoint as a
//!   `build` (element `i` from step `i`); every other variable's contributions are summed over
//!   the steps by an `ifold`.
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
//! An element read `y[e]` at an index other than the loop's contributes a one-hot array, whose
//! cost is `y`'s size per read. An `ifold` or `scan` whose count depends on an enclosing loop
//! and that carries its state has no checkpoints of a size known before the loops run: there,
//! [`Reverse::gradients`] gives up and the caller uses forward mode.

use crate::front::ast::{BinOp, Sp};
use crate::front::size::Size;
use crate::middle::forward::{Forward, bin, cast_to, differentiable, is_zero, wrap};
use crate::middle::ir::{Core, Kind, Type, VarId, fresh};
use std::collections::{BTreeMap, HashMap, HashSet};

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
}

fn var(v: VarId, ty: &Type, span: Sp) -> Core {
    Core::new(Kind::Var(v), ty.clone(), span)
}

/// A loop index or other `usize` variable, with its symbolic value.
fn index(v: VarId, span: Sp) -> Core {
    let mut c = Core::new(Kind::Var(v), Type::Usize, span);
    c.sym = Some(Size::Loop(v));
    c
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

fn add(adj: &mut Adjoints, v: VarId, c: Core) {
    if !is_zero(&c) {
        adj.entry(v).or_default().push(c);
    }
}

/// The first occurrence of an array variable in `e` at index `i` of a loop, and whether every
/// occurrence of each variable is such a read: `own[y]` true when all are.
fn own_reads(e: &Core, i: VarId, own: &mut BTreeMap<VarId, bool>) {
    if let Kind::Index(a, k) = &e.kind
        && let (Kind::Var(y), Kind::Var(j)) = (&a.kind, &k.kind)
        && *j == i
    {
        own.entry(*y).or_insert(true);
        return;
    }
    if let Kind::Var(y) = &e.kind {
        own.insert(*y, false);
    }
    for c in e.children() {
        own_reads(c, i, own);
    }
}

/// `e` with each read `y[i]` of a variable of `by` replaced by its element variable.
fn replace_reads(e: &mut Core, i: VarId, by: &HashMap<VarId, VarId>) {
    if let Kind::Index(a, k) = &e.kind
        && let (Kind::Var(y), Kind::Var(j)) = (&a.kind, &k.kind)
        && *j == i
        && let Some(to) = by.get(y)
    {
        e.kind = Kind::Var(*to);
        e.sym = None;
        return;
    }
    for c in e.children_mut() {
        replace_reads(c, i, by);
    }
}

/// The step of a sum-fold: `term` when `body` is `acc + term` or `term + acc` after `let`s
/// that do not read `acc` (the `let`s kept around `term`), and `acc` is a float.
fn sum_step(body: &Core, acc: VarId) -> Option<Core> {
    match &body.kind {
        Kind::Let(x, value, rest) if !value.mentions(acc) => {
            let term = sum_step(rest, acc)?;
            Some(wrap(vec![(*x, (**value).clone())], term))
        }
        Kind::Bin(BinOp::Add, a, b, _) if body.ty.is_float() => {
            let is_acc = |e: &Core| matches!(e.kind, Kind::Var(v) if v == acc);
            if is_acc(a) && !b.mentions(acc) {
                Some((**b).clone())
            } else if is_acc(b) && !a.mentions(acc) {
                Some((**a).clone())
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A loop's count, as a `usize` value and as a size when it has one.
struct Count {
    value: Core,
    size: Option<Size>,
}

impl<'a> Reverse<'a> {
    /// A transformation differentiating by the variables `args` (with their types).
    pub fn new(names: &'a mut Vec<String>, args: &[(VarId, Type)]) -> Reverse<'a> {
        Reverse {
            names,
            active: args.iter().map(|(v, _)| *v).collect(),
            types: args.iter().cloned().collect(),
        }
    }

    /// The adjoint of each argument when `body`'s value has adjoint `seed`: bindings pushed on
    /// `lets`, then one value per argument (zero for an argument `body` does not read).
    pub fn gradients(
        &mut self,
        body: &Core,
        seed: Core,
        args: &[(VarId, Type)],
        lets: &mut Lets,
    ) -> Result<Vec<Core>, Unsupported> {
        let mut adj = Adjoints::new();
        let s = self.atom(seed, "seed", lets);
        self.back(body, &s, lets, &mut adj)?;
        Ok(args
            .iter()
            .map(|(x, ty)| {
                let cs = adj.remove(x).unwrap_or_default();
                self.total(cs, ty, body.span, lets)
            })
            .collect())
    }

    fn new_var(&mut self, name: &str) -> VarId {
        self.names.push(name.to_string());
        (self.names.len() - 1) as VarId
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
    fn atom(&mut self, e: Core, name: &str, lets: &mut Lets) -> Core {
        if matches!(
            e.kind,
            Kind::Var(_) | Kind::Float(_) | Kind::Size(_) | Kind::Bool(_)
        ) {
            return e;
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
                let cs: Vec<Core> = cs.into_iter().map(|c| self.atom(c, "adj", lets)).collect();
                let p = self.new_var("p");
                let elem = ty.elem();
                let mut inner = Vec::new();
                let each = cs.iter().map(|c| at(c.clone(), index(p, span))).collect();
                let sum = self.total(each, &elem, span, &mut inner);
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
                        self.back(value, &sx, lets, adj)?;
                    }
                }
            }
            Kind::If(c, a, b) => self.branches(c, a, b, s, lets, adj)?,
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
                let sa = Core::new(
                    Kind::Slice(
                        Box::new(s.clone()),
                        Box::new(Core::size(Size::Lit(0), span)),
                    ),
                    a.ty.clone(),
                    span,
                );
                let sb = Core::new(
                    Kind::Slice(
                        Box::new(s.clone()),
                        Box::new(Core::size(first(&a.ty), span)),
                    ),
                    b.ty.clone(),
                    span,
                );
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
            Kind::Build(n, i, body) => {
                let count = Count {
                    value: Core::size(n.clone(), span),
                    size: Some(n.clone()),
                };
                let step = at(s.clone(), index(*i, span));
                self.steps(&count, *i, body, step, lets, adj)?;
            }
            Kind::Ifold(n, init, acc, i, body) => {
                let count = Count {
                    value: (**n).clone(),
                    size: n.sym.clone(),
                };
                match sum_step(body, *acc) {
                    Some(term) => {
                        self.back(init, s, lets, adj)?;
                        self.steps(&count, *i, &term, s.clone(), lets, adj)?;
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
            let mut forward = Forward {
                names: self.names,
                tangents: HashMap::from([(v, sv)]),
            };
            let d = forward.dual(node.clone());
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

    /// Steps independent of each other: `body` run for `i` in `0..count`, step `i`'s value
    /// having adjoint `step` (which may read `i`). Arrays read only at `i` get a `build` of
    /// their adjoints; every other variable the sum of its contributions over the steps.
    fn steps(
        &mut self,
        count: &Count,
        i: VarId,
        body: &Core,
        step: Core,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<(), Unsupported> {
        let span = body.span;
        let mut reads = BTreeMap::new();
        own_reads(body, i, &mut reads);
        let own: Vec<VarId> = reads
            .into_iter()
            .filter(|(y, all)| *all && self.active.contains(y))
            .map(|(y, _)| y)
            .collect();
        let mut elements = HashMap::new();
        let mut inner = Lets::new();
        for y in &own {
            let ty = self.types[y].clone();
            let name = format!("{}_i", self.names[*y as usize]);
            let yi = self.new_var(&name);
            self.activate(yi, &ty.elem());
            inner.push((yi, at(var(*y, &ty, span), index(i, span))));
            elements.insert(*y, yi);
        }
        let mut body = body.clone();
        replace_reads(&mut body, i, &elements);
        let s = self.atom(step, "adj", &mut inner);
        let mut found = Adjoints::new();
        self.back(&body, &s, &mut inner, &mut found)?;
        // A map (one array, read at `i` alone): its adjoint is a `build`, element `i` from
        // step `i`.
        let element_of: HashMap<VarId, VarId> = elements.iter().map(|(y, yi)| (*yi, *y)).collect();
        if found.len() == 1
            && let Some((yi, cs)) = found.pop_first()
        {
            if let Some(&y) = element_of.get(&yi) {
                let ty = self.types[&y].clone();
                let total = self.total(cs, &ty.elem(), span, &mut inner);
                let dim = ty.dims()[0].clone();
                let zero = self.zero(&ty.elem(), span);
                let value = wrap(inner, total);
                let value = match &count.size {
                    Some(n) if n.same(&dim) => value,
                    _ => pick(
                        bin(BinOp::Lt, index(i, span), count.value.clone()),
                        value,
                        zero,
                    ),
                };
                let rows = Core::new(Kind::Build(dim, i, Box::new(value)), ty, span);
                let rows = fresh(rows, self.names);
                let rows = self.atom(rows, "adj", lets);
                add(adj, y, rows);
                return Ok(());
            }
            found.insert(yi, cs);
        }
        // Otherwise one fold over the steps sums every variable's contributions, so each
        // step's values are computed once for all of them; an element read at `i` adds to
        // row `i` of its array.
        let mut parts: Vec<(VarId, Type, Vec<Core>)> = Vec::new();
        for (v, cs) in std::mem::take(&mut found) {
            match element_of.get(&v) {
                Some(&y) => {
                    let ty = self.types[&y].clone();
                    let total = self.total(cs, &ty.elem(), span, &mut inner);
                    let total = self.atom(total, "adj", &mut inner);
                    let row = self.one_hot(&ty, index(i, span), &total, span);
                    let row = self.atom(row, "adj", &mut inner);
                    match parts.iter_mut().find(|(x, ..)| *x == y) {
                        Some(part) => part.2.push(row),
                        None => parts.push((y, ty, vec![row])),
                    }
                }
                None => {
                    let ty = self.types[&v].clone();
                    match parts.iter_mut().find(|(x, ..)| *x == v) {
                        Some(part) => part.2.extend(cs),
                        None => parts.push((v, ty, cs)),
                    }
                }
            }
        }
        if parts.is_empty() {
            return Ok(());
        }
        let width = parts.len();
        let tys: Vec<Type> = parts.iter().map(|(_, t, _)| t.clone()).collect();
        let start = tuple(tys.iter().map(|t| self.zero(t, span)).collect(), span);
        let state_ty = start.ty.clone();
        let state = self.new_var("adj");
        let mut next = inner;
        let step = match self.pass_into(state, &state_ty, &parts, &mut next, span) {
            Some(step) => step,
            None => {
                let mut each = Vec::new();
                for (k, (_, ty, cs)) in parts.iter().enumerate() {
                    let sum = part(var(state, &state_ty, span), k, width);
                    each.push(self.accumulated(sum, cs.clone(), ty, span, &mut next));
                }
                tuple(each, span)
            }
        };
        let fold = Core::new(
            Kind::Ifold(
                Box::new(count.value.clone()),
                Box::new(start),
                state,
                i,
                Box::new(wrap(next, step)),
            ),
            state_ty,
            span,
        );
        let fold = fresh(fold, self.names);
        let sums = self.atom(fold, "adj", lets);
        for (k, (v, ..)) in parts.iter().enumerate() {
            add(adj, *v, part(sums.clone(), k, width));
        }
        Ok(())
    }

    /// The step of a fold with tuple state `state` summing `parts`, when their contributions
    /// include every component of one sum from zero (a fold bound in `lets`, read nowhere
    /// else): that fold, started from the state plus the other contributions, its state
    /// widened to the whole state (the components it does not add to pass through), so
    /// that every addition goes to the one state, in place.
    fn pass_into(
        &mut self,
        state: VarId,
        state_ty: &Type,
        parts: &[(VarId, Type, Vec<Core>)],
        lets: &mut Lets,
        span: Sp,
    ) -> Option<Core> {
        let width = parts.len();
        let (pos, feeds) = (0..lets.len()).rev().find_map(|pos| {
            let (x, value) = &lets[pos];
            let Kind::Ifold(_, init, ..) = &value.kind else {
                return None;
            };
            if !is_zero(init) || lets.iter().any(|(_, v)| v.mentions(*x)) {
                return None;
            }
            let tys: Vec<Type> = match &value.ty {
                Type::Tuple(ts) => ts.clone(),
                t => vec![t.clone()],
            };
            let mut feeds: Vec<Option<usize>> = vec![None; tys.len()];
            for (k, (_, ty, cs)) in parts.iter().enumerate() {
                for c in cs.iter().filter(|c| c.mentions(*x)) {
                    let j = match &c.kind {
                        Kind::Var(v) if *v == *x && tys.len() == 1 => 0,
                        Kind::Proj(t, j) if matches!(t.kind, Kind::Var(v) if v == *x) => *j,
                        _ => return None,
                    };
                    if feeds[j].is_some() || !tys[j].same(ty) {
                        return None;
                    }
                    feeds[j] = Some(k);
                }
            }
            let feeds: Option<Vec<usize>> = feeds.into_iter().collect();
            Some((pos, feeds?))
        })?;
        // The fold's body, its state's components renumbered as the whole state's.
        let (x, fold) = lets[pos].clone();
        let Kind::Ifold(m, _, inner, i, mut body) = fold.kind else {
            return None;
        };
        let tuple_state = fold.ty.is_tuple();
        let widened = self.new_var("adj");
        if !renumber(&mut body, inner, tuple_state, &feeds, widened, state_ty) {
            return None;
        }
        let mut results = vec![None; width];
        let tail = tail_of(&mut body);
        let values = match (&mut tail.kind, tuple_state) {
            (Kind::Tuple(xs), true) => std::mem::take(xs),
            (_, false) => vec![tail.take()],
            _ => return None,
        };
        for (j, v) in values.into_iter().enumerate() {
            results[feeds[j]] = Some(v);
        }
        let result = results
            .into_iter()
            .enumerate()
            .map(|(k, r)| r.unwrap_or_else(|| part(var(widened, state_ty, span), k, width)))
            .collect();
        *tail = tuple(result, span);
        retype_tail(&mut body, state_ty);
        lets.remove(pos);
        let starts = parts
            .iter()
            .enumerate()
            .map(|(k, (_, ty, cs))| {
                let rest = cs.iter().filter(|c| !c.mentions(x)).cloned().collect();
                let sum = part(var(state, state_ty, span), k, width);
                self.accumulated(sum, rest, ty, span, lets)
            })
            .collect();
        Some(Core::new(
            Kind::Ifold(m, Box::new(tuple(starts, span)), widened, i, body),
            state_ty.clone(),
            span,
        ))
    }

    /// `sum` plus the contributions `cs` (bound in `lets`). A contribution that is a sum
    /// over steps starting from zero continues from the sum so far instead (`acc +
    /// ifold(m, 0, f)` is `ifold(m, acc, f)`, up to rounding), so nested sums all add into
    /// one array, in place ([`crate::lower`]'s accumulation).
    fn accumulated(
        &mut self,
        sum: Core,
        cs: Vec<Core>,
        ty: &Type,
        span: Sp,
        lets: &mut Lets,
    ) -> Core {
        let from_zero = |c: &Core, lets: &Lets| -> Option<usize> {
            let Kind::Var(x) = c.kind else { return None };
            let k = lets.iter().position(|(v, _)| *v == x)?;
            let Kind::Ifold(_, init, ..) = &lets[k].1.kind else {
                return None;
            };
            let used = lets.iter().any(|(_, value)| value.mentions(x));
            (is_zero(init) && !used).then_some(k)
        };
        let (folds, others): (Vec<Core>, Vec<Core>) = cs
            .into_iter()
            .filter(|c| !is_zero(c))
            .partition(|c| from_zero(c, lets).is_some());
        let mut running = sum;
        if !others.is_empty() {
            let rest = self.total(others, ty, span, lets);
            let rest = self.atom(rest, "adj", lets);
            running = self.total(vec![running, rest], ty, span, lets);
        }
        for f in folds {
            let Some(k) = from_zero(&f, lets) else {
                continue;
            };
            let (_, fold) = lets.remove(k);
            let Kind::Ifold(m, _, acc, i, body) = fold.kind else {
                continue;
            };
            running = Core::new(
                Kind::Ifold(m, Box::new(running), acc, i, body),
                ty.clone(),
                span,
            );
        }
        running
    }

    /// An `ifold` whose state carries from step to step (`s` the adjoint of its last state),
    /// or a `scan` (`rows` the adjoint of its states, `s` zero): the states kept by a `scan`,
    /// the steps reversed by an `ifold` whose state is the adjoint of the step's state and
    /// the sums of the other variables' contributions.
    #[allow(clippy::too_many_arguments)]
    fn carried(
        &mut self,
        count: &Count,
        init: &Core,
        acc: VarId,
        i: VarId,
        body: &Core,
        s: &Core,
        rows: Option<&Core>,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<(), Unsupported> {
        let span = body.span;
        let n = match &count.size {
            Some(n) if !n.has_loop() => n.clone(),
            _ => return Err(Unsupported),
        };
        let sty = init.ty.clone();
        let start = fresh(init.clone(), self.names);
        let start = self.atom(start, "init", lets);
        let kept = Core::new(
            Kind::Scan(
                n.clone(),
                Box::new(start.clone()),
                acc,
                i,
                Box::new(body.clone()),
            ),
            sty.rows_of(&n),
            span,
        );
        let kept = fresh(kept, self.names);
        let states = self.atom(kept, "states", lets);
        // Reverse step t runs the body's step n - 1 - t from the state before it.
        let t = self.new_var("t");
        let one = Core::size(Size::Lit(1), span);
        let last = Core::usize_bin(
            BinOp::Sub,
            count.value.clone(),
            one.clone(),
            "count - 1",
            span,
        );
        let step_index = Core::usize_bin(BinOp::Sub, last, index(t, span), "count - 1 - t", span);
        let mut inner = Lets::new();
        let before_index =
            Core::usize_bin(BinOp::Sub, step_index.clone(), one, "count - 2 - t", span);
        let kept_row = self.rows_at(&states, before_index, &sty, span);
        let first = bin(
            BinOp::Eq,
            step_index.clone(),
            Core::size(Size::Lit(0), span),
        );
        inner.push((acc, pick(first, start.clone(), kept_row)));
        self.activate(acc, &sty);
        let after = self.new_var("adj");
        let mut step_adj = var(after, &sty, span);
        if let Some(rows) = rows {
            let here = self.rows_at(rows, step_index.clone(), &sty, span);
            let mut extra = Lets::new();
            step_adj = self.total(vec![step_adj, here], &sty, span, &mut extra);
            inner.extend(extra);
        }
        let sa = self.atom(step_adj, "adj", &mut inner);
        let mut body = body.clone();
        body.subst(i, &step_index);
        let mut found = Adjoints::new();
        self.back(&body, &sa, &mut inner, &mut found)?;
        let to_acc = found.remove(&acc).unwrap_or_default();
        let to_acc = self.total(to_acc, &sty, span, &mut inner);
        let others: Vec<(VarId, Vec<Core>)> = found.into_iter().collect();
        let vars: Vec<VarId> = others.iter().map(|(v, _)| *v).collect();
        let mut tys = vec![sty.clone()];
        tys.extend(vars.iter().map(|v| self.types[v].clone()));
        let mut start_parts = vec![s.clone()];
        start_parts.extend(tys[1..].iter().map(|t| self.zero(t, span)));
        let begin = tuple(start_parts, span);
        let state_ty = begin.ty.clone();
        let state = self.new_var("adj");
        let width = tys.len();
        let mut parts = vec![to_acc];
        for (k, (_, mut cs)) in others.into_iter().enumerate() {
            cs.push(part(var(state, &state_ty, span), k + 1, width));
            parts.push(self.total(cs, &tys[k + 1], span, &mut inner));
        }
        let mut step = vec![(after, part(var(state, &state_ty, span), 0, width))];
        step.extend(inner);
        let step = wrap(step, tuple(parts, span));
        let fold = Core::new(
            Kind::Ifold(
                Box::new(count.value.clone()),
                Box::new(begin),
                state,
                t,
                Box::new(step),
            ),
            state_ty,
            span,
        );
        let fold = fresh(fold, self.names);
        let result = self.atom(fold, "adj", lets);
        for (k, v) in vars.iter().enumerate() {
            add(adj, *v, part(result.clone(), k + 1, width));
        }
        let to_init = self.atom(part(result, 0, width), "adj", lets);
        self.back(init, &to_init, lets, adj)
    }

    /// Row `k` of `rows`, the states of a `scan` with state type `ty` (a tuple of arrays
    /// for a tuple state).
    fn rows_at(&mut self, rows: &Core, k: Core, ty: &Type, span: Sp) -> Core {
        match ty {
            Type::Tuple(ts) => tuple(
                ts.iter()
                    .enumerate()
                    .map(|(j, t)| self.rows_at(&proj(rows.clone(), j), k.clone(), t, span))
                    .collect(),
                span,
            ),
            _ => at(rows.clone(), k),
        }
    }
}

/// The last expression of a `let` chain.
fn tail_of(e: &mut Core) -> &mut Core {
    match e.kind {
        Kind::Let(_, _, ref mut body) => tail_of(body),
        _ => e,
    }
}

/// Every read of fold state `from` (component `j` of it when `tuple`) made a read of
/// component `feeds[j]` of `to`, of type `ty`; false when `from` is read otherwise.
fn renumber(e: &mut Core, from: VarId, tuple: bool, feeds: &[usize], to: VarId, ty: &Type) -> bool {
    let width = ty.parts().len().max(1);
    let read = |k: usize, span: Sp| part(var(to, ty, span), k, width);
    match &e.kind {
        Kind::Proj(t, j) if tuple && matches!(t.kind, Kind::Var(v) if v == from) => {
            *e = read(feeds[*j], e.span);
            return true;
        }
        Kind::Var(v) if *v == from => {
            if tuple {
                return false;
            }
            *e = read(feeds[0], e.span);
            return true;
        }
        _ => {}
    }
    e.children_mut()
        .all(|c| renumber(c, from, tuple, feeds, to, ty))
}

/// Give a `let` chain whose last expression changed type that type throughout.
fn retype_tail(e: &mut Core, ty: &Type) {
    e.ty = ty.clone();
    if let Kind::Let(_, _, body) = &mut e.kind {
        retype_tail(body, ty);
    }
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

#[cfg(test)]
mod tests {
    use crate::middle::ir::{Core, Kind};

    /// The kernel's core as the checker leaves it (derivatives expanded).
    fn checked(src: &str) -> Core {
        let mut d = crate::front::diag::Diags::default();
        let mut block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
        block.kernels.remove(0).body
    }

    fn count(e: &Core, f: &dyn Fn(&Kind) -> bool) -> usize {
        usize::from(f(&e.kind)) + e.children().map(|c| count(c, f)).sum::<usize>()
    }

    fn scans(e: &Core) -> usize {
        count(e, &|k| matches!(k, Kind::Scan(..)))
    }

    #[test]
    fn a_sum_fold_is_reversed_without_checkpoints() {
        let e = checked(
            "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
                grad(|w| ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()), x)
            }",
        );
        assert_eq!(scans(&e), 0);
    }

    #[test]
    fn a_carried_fold_keeps_its_states() {
        let e = checked(
            "pub fn k(x: [f64; n]) -> (f64, [f64; n]) { grad(|w| ifold(n, 1.0, |acc, i| acc * w[i]), x) }",
        );
        assert_eq!(scans(&e), 1);
    }

    #[test]
    fn a_map_s_adjoint_is_a_build_of_its_elements_adjoints() {
        // No fold sums the contributions: element i comes from step i alone.
        let e = checked(
            "pub fn k(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) { vjp(|w| map(w, |a| a.exp()), x, s) }",
        );
        assert_eq!(count(&e, &|k| matches!(k, Kind::Ifold(..))), 0);
    }

    #[test]
    fn a_carried_fold_counted_by_an_enclosing_loop_is_left_to_forward_mode() {
        // The states of `ifold(i + 1, ..)` have no size before the loops run: `gradients`
        // gives up, and the checker's forward mode has no checkpoints either.
        let e = checked(
            "pub fn k(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
                vjp(|w| build(n, |i| ifold(i + 1, 1.0, |acc, j| acc * w[j])), x, s)
            }",
        );
        assert_eq!(scans(&e), 0);
    }
}
