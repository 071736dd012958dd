//! The derivative forms of LANGUAGE.md section 12. `jvp(f, (a1, .., ak), (t1, .., tk))`
//! (or `jvp(f, a, t)`): `f` applied to fresh variables bound to the arguments, inlined as
//! any call is, then differentiated in forward mode ([`crate::middle::forward`]) with the
//! tangents `ti` for those variables; what `f` captures is constant.
//!
//! `vjp(f, (a..), s)` and `grad(f, a..)` (`vjp` with seed 1): the value, then the adjoints of
//! the arguments from a reverse sweep ([`crate::middle::reverse`]) seeded with `s`. Where the
//! sweep cannot keep a fold's states (a carried fold whose count depends on an enclosing
//! loop), by forward mode instead: element `e` of `gi` is `<s, jvp(f, a, unit(i, e))>`, one
//! forward pass per element of the arguments, each in a `build` over the argument's shape
//! (the same results, at the number of inputs times a `jvp`'s cost; docs/derivatives.md).

use super::elab::{Bind, Elab, Elaborated, Env, FunVal};
use super::infer::Want;
use crate::front::ast::BinOp;
use crate::front::ast::{Expr, ExprKind, Name, Sp};
use crate::front::size::Size;
use crate::middle::forward::{Forward, bin, wrap};
use crate::middle::ir::{Core, Kind, Type, VarId, fresh};
use crate::middle::reverse::{Reverse, Unsupported};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// How the forms are written, for errors.
const JVP_USAGE: &str = "`jvp(f, (a, b), (ta, tb))`, or `jvp(f, a, t)` for one argument";
const VJP_USAGE: &str = "`vjp(f, (a, b), s)`, or `vjp(f, a, s)` for one argument";
const GRAD_USAGE: &str = "`grad(f, a, b)`, for `f` returning a float";

/// Whether every float-carrying part of `t` is float (no `usize` or `bool` inside): what
/// a derivative can be taken by.
fn all_float(t: &Type) -> bool {
    match t {
        Type::F64 | Type::F32 => true,
        Type::Arr(s, _) => s.is_float(),
        Type::Tuple(ts) => ts.iter().all(all_float),
        Type::Usize | Type::Bool => false,
    }
}

/// The expressions of a tuple argument, or the one argument.
fn parts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Tuple(xs) => xs.iter().collect(),
        _ => vec![e],
    }
}

/// A construct of `e` that reverse mode cannot take, where it was written and why
/// (LANGUAGE.md sections 14 and 15): an `iterate` carrying a differentiated float (its step
/// count is not known before it runs), a `reduce_by_index` of differentiated floats whose
/// operation is not addition (`ops`: the states of the folds those became). `active`: the
/// variables whose values depend on the differentiated arguments; one that does not is a
/// constant to the sweep, which any construct may compute (a search by index, an `iterate`
/// over a captured value).
fn unreversible(
    e: &Core,
    ops: &[(VarId, Sp)],
    active: &mut HashSet<VarId>,
) -> Option<(Sp, String)> {
    // A chain of `let`s walked as a loop: it may be thousands long.
    let mut e = e;
    while let Kind::Let(x, value, body) = &e.kind {
        if let Some(found) = unreversible(value, ops, active) {
            return Some(found);
        }
        if reads_any(value, active) {
            active.insert(*x);
        }
        e = body;
    }
    let reads = reads_any(e, active);
    let carries = reads && crate::middle::forward::differentiable(&e.ty);
    match &e.kind {
        Kind::Iterate(..) if carries => {
            return Some((
                e.span,
                "this `iterate`: its state carries a differentiated float, and reverse mode needs the number of steps before the loop runs\n  help: write a bounded loop, `ifold(max_steps, init, |s, _| if cond { next } else { s })`, or take `jvp`".to_string(),
            ));
        }
        Kind::Ifold(_, _, acc, _, _) if carries => {
            if let Some((_, at)) = ops.iter().find(|(v, _)| v == acc) {
                return Some((
                    *at,
                    "`reduce_by_index` with an operation other than addition\n  help: `scatter_add` (or `|a, b| a + b`) has a reverse (a gather); for this one, take `jvp`".to_string(),
                ));
            }
        }
        _ => {}
    }
    // The states of a loop reading a differentiated value carry it.
    if reads {
        match &e.kind {
            Kind::Ifold(_, _, acc, _, _) | Kind::Scan(_, _, acc, _, _) => {
                active.insert(*acc);
            }
            Kind::Iterate(_, s, _, t, _) => {
                active.extend([*s, *t]);
            }
            _ => {}
        }
    }
    e.children().find_map(|c| unreversible(c, ops, active))
}

/// Whether `e` reads a variable of `vars`.
fn reads_any(e: &Core, vars: &HashSet<VarId>) -> bool {
    matches!(e.kind, Kind::Var(x) if vars.contains(&x)) || e.children().any(|c| reads_any(c, vars))
}

impl Elab<'_> {
    /// The function value a derivative form differentiates: a closure, or a function's name.
    fn differentiated(&mut self, f: &Expr, env: &Env, form: &str) -> Option<Rc<FunVal>> {
        match &f.kind {
            ExprKind::Closure(params, body) => Some(Rc::new(FunVal::Closure {
                params: params.clone(),
                body: (**body).clone(),
                env: env.clone(),
                report: self.report,
                block: self.block,
                expect: None,
            })),
            ExprKind::Var(v) => match self.lookup(env, &v.text) {
                Some(Bind::Fun(g)) => Some(g.clone()),
                Some(Bind::Failed) => None,
                Some(_) => {
                    self.err(
                        f.span,
                        format!("`{}` is not a function: `{form}` differentiates a function of the block or a closure", v.text),
                    );
                    None
                }
                None => match self.scope.find(self.block, &v.text) {
                    Some(fi) => Some(Rc::new(FunVal::Def(fi))),
                    None => {
                        self.unknown_name(env, v, "function");
                        None
                    }
                },
            },
            _ => {
                self.err(
                    f.span,
                    format!("`{form}` differentiates a function of the block or a closure: write its name or `|x| ..`"),
                );
                None
            }
        }
    }

    /// `jvp(f, (a..), (t..))`: the pair `(f(a..), df)`, `df` the derivative of `f` at the
    /// arguments along the tangents.
    pub(super) fn e_jvp(&mut self, n: &Name, args: &[Expr], sp: Sp, env: &Env) -> Elaborated {
        let [f, primals, tangents] = args else {
            self.err(
                sp,
                format!("`jvp` takes a function, its arguments and their tangents: {JVP_USAGE}"),
            );
            return Err(());
        };
        let fun = self.differentiated(f, env, "jvp").ok_or(())?;
        let (primals, tangents) = (parts(primals), parts(tangents));
        if primals.len() != tangents.len() {
            self.err(
                args[2].span,
                format!(
                    "`jvp` takes one tangent per argument: {} argument{}, {} tangent{} ({JVP_USAGE})",
                    primals.len(),
                    if primals.len() == 1 { "" } else { "s" },
                    tangents.len(),
                    if tangents.len() == 1 { "" } else { "s" },
                ),
            );
            return Err(());
        }
        // Each argument bound to a fresh variable: the function's body sees the arguments
        // through them, and only they carry tangents (captures are constant).
        let capture = "`jvp(|x| f(x, k), x, t)`";
        let (mut bound, inner, call_args) = self
            .bind_arguments(&primals, env, "jvp", capture)
            .ok_or(())?;
        let mut seeds = HashMap::new();
        let mut ok = true;
        for (k, t) in tangents.iter().enumerate() {
            let (x, ty) = (bound[k].0, bound[k].1.ty.clone());
            let Ok(tangent) = self.expr_want(t, env, &Want::of(&ty)) else {
                ok = false;
                continue;
            };
            if !tangent.ty.same(&ty) {
                self.err(
                    t.span,
                    format!(
                        "mismatched {}: the tangent of argument {} must have its argument's type `{ty}`, found `{}`",
                        super::elab::mismatch(&ty, &tangent.ty),
                        k + 1,
                        tangent.ty
                    ),
                );
                ok = false;
                continue;
            }
            let dx = self.fresh(&format!("d{}", self.names[x as usize]));
            seeds.insert(x, dx);
            bound.push((dx, tangent));
        }
        if !ok {
            return Err(());
        }
        let body = self.apply(&fun, n, &call_args, sp, &inner, &Want::Any)?;
        if !all_float(&body.ty) {
            self.err(
                f.span,
                format!("`jvp` differentiates a function with a float result (`f64`, `f32`, arrays and tuples of them), but this one gives `{}`", body.ty),
            );
            return Err(());
        }
        // Forward mode meets the canonical form too, as reverse mode does: a tangent's code
        // does not depend on how the function is spelled (LANGUAGE.md section 13).
        let mut body = body;
        crate::middle::normalise(&mut body, &mut self.names, self.scope.options);
        let mut forward = Forward {
            names: &mut self.names,
            tangents: seeds,
        };
        let d = forward.dual(body);
        let ty = Type::Tuple(vec![d.primal.ty.clone(), d.tangent.ty.clone()]);
        let result = Core::new(Kind::Tuple(vec![d.primal, d.tangent]), ty, sp);
        bound.extend(d.lets);
        Ok(wrap(bound, result))
    }
}

impl Elab<'_> {
    /// Bind each argument of a derivative form to a fresh variable, for `f`'s call to read:
    /// the variables and values, the environment with them, and the call's arguments.
    /// `None` after an error (reported).
    #[allow(clippy::type_complexity)]
    fn bind_arguments(
        &mut self,
        primals: &[&Expr],
        env: &Env,
        form: &str,
        capture: &str,
    ) -> Option<(Vec<(VarId, Core)>, Env, Vec<Expr>)> {
        let mut bound = Vec::new();
        let mut inner = env.clone();
        let mut call_args = Vec::new();
        let mut ok = true;
        for (k, a) in primals.iter().enumerate() {
            let Ok(value) = self.expr(a, env) else {
                ok = false;
                continue;
            };
            if !all_float(&value.ty) {
                self.err(
                    a.span,
                    format!("`{form}` differentiates by floats (`f64`, `f32`, arrays and tuples of them), but this argument is `{}`\n  help: to hold it constant, capture it: {capture}", value.ty),
                );
                ok = false;
                continue;
            }
            let name = match &a.kind {
                ExprKind::Var(v) => v.text.clone(),
                _ => format!("argument{}", k + 1),
            };
            let x = self.fresh(&name);
            inner.push((
                name.clone(),
                Bind::Val(x, value.ty.clone(), value.sym.clone()),
            ));
            call_args.push(Expr {
                kind: ExprKind::Var(Name {
                    text: name,
                    span: a.span.start,
                }),
                span: a.span,
            });
            bound.push((x, value));
        }
        ok.then_some((bound, inner, call_args))
    }

    /// `vjp(f, (a..), s)` (`grad` false) or `grad(f, a..)`: `(f(a..), g1, .., gk)`, `gi` the
    /// product of the seed with the derivative of `f` by argument `i`, of its shape.
    pub(super) fn e_vjp(
        &mut self,
        n: &Name,
        args: &[Expr],
        sp: Sp,
        env: &Env,
        grad: bool,
    ) -> Elaborated {
        let (form, usage) = if grad {
            ("grad", GRAD_USAGE)
        } else {
            ("vjp", VJP_USAGE)
        };
        let (f, primals, seed) = match (grad, args) {
            (true, [f, rest @ ..]) if !rest.is_empty() => {
                (f, rest.iter().collect::<Vec<_>>(), None)
            }
            (false, [f, primals, s]) => (f, parts(primals), Some(s)),
            _ => {
                self.err(
                    sp,
                    format!("`{form}` takes a function and its arguments: {usage}"),
                );
                return Err(());
            }
        };
        let fun = self.differentiated(f, env, form).ok_or(())?;
        let capture = if grad {
            "`grad(|x| f(x, k), x)`"
        } else {
            "`vjp(|x| f(x, k), x, s)`"
        };
        let (mut bound, inner, call_args) = self
            .bind_arguments(&primals, env, form, capture)
            .ok_or(())?;
        // A gradient has its argument's shape: by a tuple, component by component.
        for (a, (_, value)) in primals.iter().zip(&bound) {
            if value.ty.is_tuple() {
                self.err(
                    a.span,
                    format!("`{form}` by a tuple argument is not in this release: pass its components as arguments of their own (`{form}(|a, b| f((a, b)), ..)`)"),
                );
                return Err(());
            }
        }
        let body = self.apply(&fun, n, &call_args, sp, &inner, &Want::Any)?;
        let mut active: HashSet<VarId> = bound.iter().map(|(x, _)| *x).collect();
        if let Some((at, why)) = unreversible(&body, &self.scatter_ops, &mut active) {
            self.err(at, format!("`{form}` cannot differentiate through {why}"));
            return Err(());
        }
        if !all_float(&body.ty) || (grad && !body.ty.is_float()) {
            let what = if grad {
                "a scalar float result (`f64` or `f32`; `vjp` takes others)"
            } else {
                "a float result (`f64`, `f32`, arrays and tuples of them)"
            };
            self.err(
                f.span,
                format!(
                    "`{form}` differentiates a function with {what}, but this one gives `{}`",
                    body.ty
                ),
            );
            return Err(());
        }
        let seed = match seed {
            Some(s) => {
                let value = self.expr_want(s, env, &Want::of(&body.ty))?;
                if !value.ty.same(&body.ty) {
                    self.err(
                        s.span,
                        format!(
                            "mismatched {}: the seed must have the function's result type `{}`, found `{}`",
                            super::elab::mismatch(&body.ty, &value.ty),
                            body.ty,
                            value.ty
                        ),
                    );
                    return Err(());
                }
                value
            }
            None => Core::new(Kind::Float(1.0), body.ty.clone(), sp),
        };
        let sv = self.fresh("seed");
        let sty = seed.ty.clone();
        bound.push((sv, seed));
        let seed = Core::new(Kind::Var(sv), sty.clone(), sp);
        // The value, then each argument's gradient.
        let mut parts = Vec::new();
        let args: Vec<(VarId, Type)> = bound
            .iter()
            .take(primals.len())
            .map(|(x, v)| (*x, v.ty.clone()))
            .collect();
        // Reverse mode; forward mode, one pass per element, where reverse mode cannot keep
        // the states of a fold (`Unsupported`).
        let mut sweep = Vec::new();
        // The sweep meets the canonical form: a sum keeps nothing per term however it is
        // written (LANGUAGE.md section 13).
        let mut copy = fresh(body.clone(), &mut self.names);
        crate::middle::normalise(&mut copy, &mut self.names, self.scope.options);
        let reversed = Reverse::new(&mut self.names, &args, Sp::from(n.span)).gradients(
            &copy,
            seed.clone(),
            &args,
            &mut sweep,
        );
        match reversed {
            Ok((value, gradients)) => {
                bound.extend(sweep);
                parts.push(value);
                parts.extend(gradients);
            }
            Err(Unsupported) => {
                // By forward mode, over the canonical form as well.
                parts.push(fresh(copy.clone(), &mut self.names));
                for (x, ty) in &args {
                    let g = self.gradient_by(*x, ty, &copy, &seed, sp);
                    parts.push(g);
                }
            }
        }
        let tys = parts.iter().map(|p| p.ty.clone()).collect();
        Ok(wrap(
            bound,
            Core::new(Kind::Tuple(parts), Type::Tuple(tys), sp),
        ))
    }

    /// The gradient by argument variable `x` of type `ty`: a `build` over its shape whose
    /// element is `<seed, jvp(body, unit)>`, `unit` the tangent that is 1 at that element.
    fn gradient_by(&mut self, x: VarId, ty: &Type, body: &Core, seed: &Core, sp: Sp) -> Core {
        let dims: Vec<Size> = ty.dims().to_vec();
        let at: Vec<VarId> = dims.iter().map(|_| self.fresh("e")).collect();
        // The unit tangent: 1 where every index equals the element's.
        let unit = if dims.is_empty() {
            Core::new(Kind::Float(1.0), ty.clone(), sp)
        } else {
            let idx: Vec<VarId> = dims.iter().map(|_| self.fresh("u")).collect();
            let index = |v: VarId| {
                let mut c = Core::new(Kind::Var(v), Type::Usize, sp);
                c.sym = Some(Size::Loop(v));
                c
            };
            let cond = idx
                .iter()
                .zip(&at)
                .map(|(u, e)| bin(BinOp::Eq, index(*u), index(*e)))
                .reduce(|a, b| bin(BinOp::And, a, b))
                .unwrap_or_else(|| Core::new(Kind::Bool(true), Type::Bool, sp));
            let elem = ty.scalar().unwrap_or(crate::middle::ir::Scalar::F64).ty();
            let one = Core::new(Kind::Float(1.0), elem.clone(), sp);
            let zero = Core::new(Kind::Float(0.0), elem.clone(), sp);
            let mut e = Core::new(
                Kind::If(Box::new(cond), Box::new(one), Box::new(zero)),
                elem,
                sp,
            );
            for (k, u) in idx.iter().enumerate().rev() {
                let t = Type::Arr(
                    ty.scalar().unwrap_or(crate::middle::ir::Scalar::F64),
                    dims[k..].to_vec(),
                );
                e = Core::new(Kind::Build(dims[k].clone(), *u, Box::new(e)), t, sp);
            }
            e
        };
        let uv = self.fresh("unit");
        let copy = fresh(body.clone(), &mut self.names);
        let mut forward = Forward {
            names: &mut self.names,
            tangents: HashMap::from([(x, uv)]),
        };
        let d = forward.dual(copy);
        let tv = self.fresh("slope");
        let tty = d.tangent.ty.clone();
        let tangent = Core::new(Kind::Var(tv), tty.clone(), sp);
        let product = self.inner_product(seed.clone(), tangent, &tty, sp);
        let mut lets = vec![(uv, unit)];
        lets.extend(d.lets);
        lets.push((tv, d.tangent));
        let mut g = wrap(lets, product);
        // Over the argument's shape, innermost last.
        for (k, e) in at.iter().enumerate().rev() {
            let t = Type::Arr(
                ty.scalar().unwrap_or(crate::middle::ir::Scalar::F64),
                dims[k..].to_vec(),
            );
            g = Core::new(Kind::Build(dims[k].clone(), *e, Box::new(g)), t, sp);
        }
        g
    }

    /// `<a, b>` for values of type `ty`: the sum of the products of their floats.
    fn inner_product(&mut self, a: Core, b: Core, ty: &Type, sp: Sp) -> Core {
        match ty {
            Type::F64 | Type::F32 => bin(BinOp::Mul, a, b),
            Type::Tuple(ts) => ts
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let pa = Core::new(Kind::Proj(Box::new(a.clone()), k), t.clone(), sp);
                    let pb = Core::new(Kind::Proj(Box::new(b.clone()), k), t.clone(), sp);
                    self.inner_product(pa, pb, t, sp)
                })
                .reduce(|x, y| bin(BinOp::Add, x, y))
                .unwrap_or_else(|| Core::new(Kind::Float(0.0), Type::F64, sp)),
            Type::Arr(s, dims) => {
                let elem = ty.elem();
                let acc = self.fresh("acc");
                let i = self.fresh("i");
                let mut index = Core::new(Kind::Var(i), Type::Usize, sp);
                index.sym = Some(Size::Loop(i));
                let ea = Core::new(
                    Kind::Index(Box::new(a), Box::new(index.clone())),
                    elem.clone(),
                    sp,
                );
                let eb = Core::new(Kind::Index(Box::new(b), Box::new(index)), elem.clone(), sp);
                let term = self.inner_product(ea, eb, &elem, sp);
                let st = s.ty();
                let step = bin(BinOp::Add, Core::new(Kind::Var(acc), st.clone(), sp), term);
                let zero = Core::new(Kind::Float(0.0), st.clone(), sp);
                Core::new(
                    Kind::Ifold(
                        Box::new(Core::size(dims[0].clone(), sp)),
                        Box::new(zero),
                        acc,
                        i,
                        Box::new(step),
                    ),
                    st,
                    sp,
                )
            }
            Type::Usize | Type::Bool => Core::new(Kind::Float(0.0), Type::F64, sp),
        }
    }
}
