//! Literal typing (LANGUAGE.md section 11): an unsuffixed float literal takes the float type
//! its context needs, as in Rust (`x * 2.0` with `x: f32` is f32); with no expectation it is
//! an `f64`.
//!
//! - Expectations flow down as a [`Want`]: from a declared type (a result, `let x: T`, a
//!   parameter once the call's element types are bound) into `if` branches, array items,
//!   `build` bodies, tuples and the operands of arithmetic.
//! - Siblings that must agree (the operands of an operator or a comparison, `if` branches,
//!   array items, a math method's receiver and arguments) go through [`Elab::agree`]: a
//!   literal-only one ([`lit_only`]) takes the type of the first that is not.
//! - A value bound before it is used (`let c = 0.5;`, an `ifold` state started at `0.0`) is
//!   an `f64` unless a use of it clashes with an `f32`: the clash records a demand
//!   ([`Elab::demand`]) and the binding is elaborated again as an `f32`, the first attempt
//!   forgotten ([`Elab::mark`], [`Elab::rewind`]). f64 code never takes a second attempt, so
//!   it elaborates as before.

use super::elab::{Elab, Elaborated, Env};
use crate::front::ast::{BinOp, Expr, ExprKind, MathFn, UnOp};
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};

/// What the context of an expression expects of its float literals.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Want {
    /// Nothing: a literal is an `f64`.
    Any,
    /// A scalar of this type, or an array of them.
    Scalar(Scalar),
    /// A tuple, component by component.
    Tuple(Vec<Want>),
}

impl Want {
    /// The expectation a value of type `t` sets.
    pub(super) fn of(t: &Type) -> Want {
        match t {
            Type::Tuple(ts) => Want::Tuple(ts.iter().map(Want::of).collect()),
            Type::Bool => Want::Any,
            t => t.scalar().map_or(Want::Any, Want::Scalar),
        }
    }

    /// The type of an unsuffixed float literal here.
    pub(super) fn float(&self) -> Type {
        match self {
            Want::Scalar(Scalar::F32) => Type::F32,
            _ => Type::F64,
        }
    }

    /// The expectation of component `k` of a tuple.
    pub(super) fn part(&self, k: usize) -> Want {
        match self {
            Want::Tuple(ws) => ws.get(k).cloned().unwrap_or(Want::Any),
            _ => Want::Any,
        }
    }

    /// The expectation of an array's elements or a scalar (none for a tuple).
    pub(super) fn elem(&self) -> Want {
        match self {
            Want::Tuple(_) => Want::Any,
            w => w.clone(),
        }
    }
}

/// True when the float type of `e` comes from its literals alone, and so from its context:
/// `1.0`, `-0.5`, `2.0 * 3.0`, `[0.0, 1.0]`, `(0.0, 0.0)`, `build(n, |i| 0.0)`, an `if` of
/// such branches.
pub(super) fn lit_only(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Float(_, None) => true,
        ExprKind::Un(UnOp::Neg, a) => lit_only(a),
        ExprKind::Bin(op, a, b) if op.is_arith() => lit_only(a) && lit_only(b),
        ExprKind::If(_, a, b) => lit_only(a) && lit_only(b),
        ExprKind::Block(_, t) => lit_only(t),
        ExprKind::Array(xs) | ExprKind::Tuple(xs) => !xs.is_empty() && xs.iter().all(lit_only),
        ExprKind::Build(_, _, b) => lit_only(b),
        ExprKind::Math(MathFn::Powi, r, _) => lit_only(r),
        ExprKind::Math(_, r, xs) => lit_only(r) && xs.iter().all(lit_only),
        _ => false,
    }
}

/// True when the value of `e`, bound by a `let`, may be retyped by its uses: literal-only,
/// or an `ifold` or `scan` whose start has a literal-only part (its expectation is the
/// start's).
pub(super) fn retypable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ifold(_, init, ..) | ExprKind::Scan(_, init, ..) => has_lit_only_part(init),
        _ => lit_only(e),
    }
}

/// True when `e` is literal-only or a tuple with a literal-only component (an `ifold`
/// state that may be retyped).
pub(super) fn has_lit_only_part(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Tuple(xs) => xs.iter().any(has_lit_only_part),
        _ => lit_only(e),
    }
}

/// True when `a` and `b` differ in their float type only where both are floats (`f32` vs
/// `f64`, scalars or elements, component by component for tuples): a clash a cast fixes.
pub(super) fn float_clash(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Tuple(xs), Type::Tuple(ys)) => xs.iter().zip(ys).any(|(x, y)| float_clash(x, y)),
        _ => match (a.scalar(), b.scalar()) {
            (Some(x), Some(y)) => x.is_float() && y.is_float() && x != y,
            _ => false,
        },
    }
}

/// Where the elaboration stood, to forget a tentative attempt ([`Elab::rewind`]).
pub(super) struct Mark {
    diags: usize,
    suppressed: bool,
    names: usize,
    entry: usize,
    inlined: usize,
    flex: usize,
    links: usize,
    demand: usize,
}

impl Elab<'_> {
    /// Where the elaboration stands.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            diags: self.diags.len(),
            suppressed: self.suppressed.is_some(),
            names: self.names.len(),
            entry: self.entry_sizes.len(),
            inlined: self.inlined,
            flex: self.flex.len(),
            links: self.links.len(),
            demand: self.demand.len(),
        }
    }

    /// Forget everything since `m`: errors, variables, entry sizes, demands. Nothing
    /// elaborated since may be kept.
    pub(super) fn rewind(&mut self, m: &Mark) {
        self.diags.truncate(m.diags);
        if !m.suppressed {
            self.suppressed = None;
        }
        self.names.truncate(m.names);
        self.entry_sizes.truncate(m.entry);
        self.inlined = m.inlined;
        self.flex.truncate(m.flex);
        self.links.truncate(m.links);
        self.demand.truncate(m.demand);
    }

    /// The demands recorded since `m` on variable `v`: `None` for the whole value, `Some(k)`
    /// for component k of a tuple.
    pub(super) fn demands_since(&self, m: &Mark, v: VarId) -> Vec<Option<usize>> {
        self.demand[m.demand.min(self.demand.len())..]
            .iter()
            .filter(|(x, _)| *x == v)
            .map(|(_, k)| *k)
            .collect()
    }

    /// `c` clashed with a value of the other float type: every retypable variable its value
    /// comes from (through arithmetic, branches, `let` bodies and other variables bound to
    /// such values) should have been that type.
    pub(super) fn demand(&mut self, c: &Core) {
        let roots = self.roots(c);
        self.demand.extend(roots);
    }

    /// Variable `id` is bound to `v`: a clash of `id` is a clash of the retypable variables
    /// `v` comes from.
    pub(super) fn link(&mut self, id: VarId, v: &Core) {
        if self.flex.is_empty() {
            return;
        }
        let roots = self.roots(v);
        if !roots.is_empty() {
            self.links.push((id, roots));
        }
    }

    /// The retypable variables (and components) the value of `c` comes from.
    fn roots(&self, c: &Core) -> Vec<(VarId, Option<usize>)> {
        fn walk(c: &Core, comp: Option<usize>, out: &mut Vec<(VarId, Option<usize>)>) {
            match &c.kind {
                Kind::Var(id) => out.push((*id, comp)),
                Kind::Proj(t, k) if matches!(t.kind, Kind::Var(_)) => walk(t, Some(*k), out),
                Kind::Neg(a) | Kind::Let(_, _, a) => walk(a, comp, out),
                // An element or a part of a literal-typed array has its float type
                // (`let z = build(8, |_| 1.0);` then `z[0] < x[0]` with x an f32 array).
                Kind::Index(a, _) | Kind::Slice(a, _) => walk(a, comp, out),
                Kind::Bin(op, a, b, _) if op.is_arith() => {
                    walk(a, comp, out);
                    walk(b, comp, out);
                }
                Kind::If(_, a, b) => {
                    walk(a, comp, out);
                    walk(b, comp, out);
                }
                Kind::Math(MathFn::Powi, xs) => {
                    if let Some(x) = xs.first() {
                        walk(x, comp, out);
                    }
                }
                Kind::Math(_, xs) | Kind::Array(xs) => xs.iter().for_each(|x| walk(x, comp, out)),
                Kind::Build(_, _, b) => walk(b, comp, out),
                // A component's own variables are whole values.
                Kind::Tuple(xs) => xs.iter().for_each(|x| walk(x, None, out)),
                _ => {}
            }
        }
        if self.flex.is_empty() {
            return Vec::new();
        }
        let mut found = Vec::new();
        walk(c, None, &mut found);
        let mut out = Vec::new();
        for (id, comp) in found {
            if self.flex.contains(&id) {
                out.push((id, comp));
            } else if let Some((_, rs)) = self.links.iter().rev().find(|(x, _)| *x == id) {
                // `let w = acc;` then `w.1`: component 1 of acc.
                out.extend(rs.iter().map(|&(x, k)| (x, k.or(comp))));
            }
        }
        out
    }

    /// Record the demands of a clash between `a` and `b` (nothing unless their float types
    /// clash).
    pub(super) fn clash(&mut self, a: &Core, b: &Core) {
        if float_clash(&a.ty, &b.ty) {
            self.demand(a);
            self.demand(b);
        }
    }

    /// Record the demands of `c` clashing with a value of type `t`.
    pub(super) fn clash_ty(&mut self, c: &Core, t: &Type) {
        if float_clash(&c.ty, t) {
            self.demand(c);
        }
    }

    /// Elaborate expressions whose types must agree, each expecting `want`; then each
    /// literal-only one whose type differs from that of the first that is not
    /// literal-only is elaborated again expecting that type.
    pub(super) fn agree(&mut self, xs: &[&Expr], env: &Env, want: &Want) -> Vec<Elaborated> {
        let mut out: Vec<Elaborated> = xs.iter().map(|x| self.expr_want(x, env, want)).collect();
        let anchor = xs
            .iter()
            .zip(&out)
            .find_map(|(x, c)| match c {
                Ok(c) if !lit_only(x) => Some(Want::of(&c.ty)),
                _ => None,
            })
            .filter(|w| *w != Want::Any);
        if let Some(anchor) = anchor {
            for (x, c) in xs.iter().zip(out.iter_mut()) {
                if lit_only(x)
                    && let Ok(v) = c
                    && Want::of(&v.ty) != anchor
                {
                    *c = self.expr_want(x, env, &anchor);
                }
            }
        }
        out
    }

    /// The two operands of `op`, typed together (comparisons expect nothing of their
    /// operands; arithmetic passes its own expectation on).
    pub(super) fn operands(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        env: &Env,
        want: &Want,
    ) -> (Elaborated, Elaborated) {
        let want = if op.is_arith() { want } else { &Want::Any };
        let mut r = self.agree(&[a, b], env, want).into_iter();
        let x = r.next().unwrap_or(Err(()));
        let y = r.next().unwrap_or(Err(()));
        (x, y)
    }
}
