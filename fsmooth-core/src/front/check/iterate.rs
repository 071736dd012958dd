//! `iterate(init, |s| cond, |s| next)` (LANGUAGE.md section 14): a loop that stops. Its
//! state keeps the start's type; the condition is a `bool`.

use super::elab::{Bind, Elab, Elaborated, Env, mismatch, retyped, tuple_arity};
use super::infer::{Want, float_clash, has_lit_only_part, lit_only};
use super::scalars::convert_help;
use crate::front::ast::{Expr, ExprKind, Name};
use crate::middle::ir::{Core, Kind, Type, VarId};

impl Elab<'_> {
    /// The name of `form` as a call, when the block or a binding in scope gives that name a
    /// function of its own (a v2 block's `fn iterate`): the form written is a call of it.
    pub(super) fn shadowed(&mut self, e: &Expr, form: &str, env: &Env) -> Option<Name> {
        let own = self.lookup(env, form).is_some() || self.scope.find(self.block, form).is_some();
        own.then(|| Name {
            text: form.to_string(),
            span: e.span.start,
        })
    }

    /// `iterate(init, |s| cond, |t| next)`. A start with literal-only parts (`0.0`) takes
    /// the type `want` says, or, when the step gives `f32`s there, is checked again as
    /// `f32`s (as an `ifold`'s start is).
    #[inline(never)]
    pub(super) fn e_iterate(&mut self, e: &Expr, env: &Env, want: &Want) -> Elaborated {
        let ExprKind::Iterate(init, s, cond, t, next) = &e.kind else {
            return Err(());
        };
        if let Some(call) = self.shadowed(e, "iterate", env) {
            let closure = |p: &Name, b: &Expr| Expr {
                kind: ExprKind::Closure(vec![p.clone()], Box::new(b.clone())),
                span: b.span,
            };
            let args = vec![(**init).clone(), closure(s, cond), closure(t, next)];
            return self.call(&call, &args, e, env, want);
        }
        // A start with literal-only parts (`(0.0, 0)`) takes the float types its uses ask
        // for, as an `ifold`'s start does: the clashes in the condition and the step with the
        // state's variables, or the step's own type, retype those parts, until one checks.
        let flexible = has_lit_only_part(init);
        let mut iwant = if flexible {
            super::loops::only_lit_parts(init, want.clone())
        } else {
            want.clone()
        };
        let mut tried = Vec::new();
        loop {
            let m = self.mark();
            // The state's variables, retypable when the start has literal-only parts.
            let vars = [self.fresh(&s.text), self.fresh(&t.text)];
            if flexible {
                self.flex.extend(vars);
            }
            let r = self.iterate_once(e, init, (s, cond), (t, next), env, &iwant, flexible, vars);
            let gives = match r {
                Ok(c) => return Ok(c),
                Err(_) if !flexible => return Err(()),
                Err(gives) => gives,
            };
            let demands: Vec<Option<usize>> = vars
                .iter()
                .flat_map(|v| self.demands_since(&m, *v))
                .collect();
            let mut next_want = retyped(&iwant, &demands, tuple_arity(init));
            if let Some(t) = gives {
                next_want = match (&init.kind, Want::of(&t)) {
                    (ExprKind::Tuple(xs), Want::Tuple(ws)) => Want::Tuple(
                        xs.iter()
                            .zip(ws)
                            .enumerate()
                            .map(|(k, (x, w))| if lit_only(x) { w } else { next_want.part(k) })
                            .collect(),
                    ),
                    (_, w) if lit_only(init) => w,
                    _ => next_want,
                };
            }
            let next_want = super::loops::only_lit_parts(init, next_want);
            tried.push(iwant);
            if tried.contains(&next_want) {
                return Err(());
            }
            self.rewind(&m);
            iwant = next_want;
        }
    }

    /// One attempt at [`Elab::e_iterate`], the state's variables `sid` (the condition's)
    /// and `tid` (the step's) made; when `retry` (the start has literal-only parts), a step
    /// whose float types clash with the start's gives the step's type.
    #[allow(clippy::too_many_arguments)]
    fn iterate_once(
        &mut self,
        e: &Expr,
        init: &Expr,
        (s, cond): (&Name, &Expr),
        (t, next): (&Name, &Expr),
        env: &Env,
        want: &Want,
        retry: bool,
        [sid, tid]: [VarId; 2],
    ) -> Result<Core, Option<Type>> {
        let init_c = self.expr_want(init, env, want).map_err(|_| None)?;
        let ty = init_c.ty.clone();
        if !retry {
            self.link(sid, &init_c);
            self.link(tid, &init_c);
        }
        let bind = |me: &mut Self, name: &Name, id| {
            if me.pattern_fits(name, &ty) {
                Bind::Val(id, ty.clone(), None)
            } else {
                Bind::Failed
            }
        };
        let mut cenv = env.clone();
        cenv.push((s.text.clone(), bind(self, s, sid)));
        let mut nenv = env.clone();
        nenv.push((t.text.clone(), bind(self, t, tid)));
        let cond_c = self.expr(cond, &cenv);
        let next_c = self.expr_want(next, &nenv, &Want::of(&ty));
        let (cond_c, next_c) = (cond_c.map_err(|_| None)?, next_c.map_err(|_| None)?);
        if cond_c.ty != Type::Bool {
            self.err(
                cond_c.span,
                format!(
                    "`iterate`'s condition must be a `bool` (the loop runs while it is true), found `{}`",
                    cond_c.ty
                ),
            );
            return Err(None);
        }
        if !next_c.ty.same(&ty) {
            let clash = float_clash(&next_c.ty, &ty);
            if clash && retry {
                return Err(Some(next_c.ty.clone()));
            }
            self.clash_ty(&next_c, &ty);
            self.err(
                next_c.span,
                format!(
                    "mismatched {}: the `iterate` step gives `{}`, but the state starts as `{}`{}",
                    mismatch(&next_c.ty, &ty),
                    next_c.ty,
                    ty,
                    convert_help(next, &next_c.ty, &ty)
                ),
            );
            return Err(None);
        }
        Ok(Core::new(
            Kind::Iterate(
                Box::new(init_c),
                sid,
                Box::new(cond_c),
                tid,
                Box::new(next_c),
            ),
            ty,
            e.span,
        ))
    }
}
