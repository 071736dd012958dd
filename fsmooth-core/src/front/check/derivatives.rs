//! The derivative forms of LANGUAGE.md section 12. `jvp(f, (a1, .., ak), (t1, .., tk))`
//! (or `jvp(f, a, t)`): `f` applied to fresh variables bound to the arguments, inlined as
//! any call is, then differentiated in forward mode ([`crate::middle::forward`]) with the
//! tangents `ti` for those variables; what `f` captures is constant.

use super::elab::{Bind, Elab, Elaborated, Env, FunVal};
use super::infer::Want;
use crate::front::ast::{Expr, ExprKind, Name, Sp};
use crate::middle::forward::{Forward, differentiable, wrap};
use crate::middle::ir::{Core, Kind, Type, VarId};
use std::collections::HashMap;
use std::rc::Rc;

/// How the forms are written, for errors.
const JVP_USAGE: &str = "`jvp(f, (a, b), (ta, tb))`, or `jvp(f, a, t)` for one argument";

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
        // Each argument and its tangent bound to fresh variables: the function's body sees
        // the arguments through them, and only they carry tangents (captures are constant).
        let mut bound: Vec<(VarId, Core)> = Vec::new();
        let mut inner = env.clone();
        let mut call_args = Vec::new();
        let mut seeds = HashMap::new();
        let mut ok = true;
        for (k, (a, t)) in primals.iter().zip(&tangents).enumerate() {
            let Ok(value) = self.expr(a, env) else {
                ok = false;
                continue;
            };
            if !all_float(&value.ty) {
                self.err(
                    a.span,
                    format!("`jvp` differentiates by floats (`f64`, `f32`, arrays and tuples of them), but this argument is `{}`\n  help: to hold it constant, capture it: `jvp(|x| f(x, k), x, t)`", value.ty),
                );
                ok = false;
                continue;
            }
            let Ok(tangent) = self.expr_want(t, env, &Want::of(&value.ty)) else {
                ok = false;
                continue;
            };
            if !tangent.ty.same(&value.ty) {
                self.err(
                    t.span,
                    format!(
                        "mismatched {}: the tangent of argument {} must have its argument's type `{}`, found `{}`",
                        super::elab::mismatch(&value.ty, &tangent.ty),
                        k + 1,
                        value.ty,
                        tangent.ty
                    ),
                );
                ok = false;
                continue;
            }
            let name = match &a.kind {
                ExprKind::Var(v) => v.text.clone(),
                _ => format!("argument{}", k + 1),
            };
            let x = self.fresh(&name);
            let dx = self.fresh(&format!("d{name}"));
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
            seeds.insert(x, dx);
            bound.push((x, value));
            bound.push((dx, tangent));
        }
        if !ok {
            return Err(());
        }
        let body = self.apply(&fun, n, &call_args, sp, &inner, &Want::Any)?;
        if !differentiable(&body.ty) || !all_float(&body.ty) {
            self.err(
                f.span,
                format!("`jvp` differentiates a function with a float result (`f64`, `f32`, arrays and tuples of them), but this one gives `{}`", body.ty),
            );
            return Err(());
        }
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
