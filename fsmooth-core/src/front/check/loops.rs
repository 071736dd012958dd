//! The loops: `build`, and `ifold` and `scan`, which share the check of their state and
//! body ([`Elab::state_loop`]).

use super::elab::{Bind, Elab, Elaborated, Env};
use crate::front::ast::{Expr, ExprKind, Name, Sp};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};

impl Elab<'_> {
    #[inline(never)]
    pub(super) fn e_build(
        &mut self,
        n: &Expr,
        i: &Name,
        body: &Expr,
        sp: Sp,
        env: &Env,
    ) -> Elaborated {
        let n = self.size_expr(n, env, "`build`'s count");
        let id = self.fresh(&i.text);
        let mut env = env.clone();
        let index = if self.pattern_fits(i, &Type::Usize) {
            Bind::Val(id, Type::Usize, Some(Size::Loop(id)))
        } else {
            Bind::Failed
        };
        env.push((i.text.clone(), index));
        // The body is checked even when the count failed: the index is bound either way.
        let body = self.expr(body, &env);
        let (n, body) = (n?, body?);
        let Some(ty) = Type::array_of(&body.ty, n.clone()) else {
            self.err(
                body.span,
                format!(
                    "arrays hold `f64`, `f32` or `usize`: this `build` body is `{}`",
                    body.ty
                ),
            );
            return Err(());
        };
        Ok(Core::new(Kind::Build(n, id, Box::new(body)), ty, sp))
    }

    #[inline(never)]
    pub(super) fn e_ifold(&mut self, e: &Expr, env: &Env) -> Elaborated {
        let sp = e.span;
        let ExprKind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Err(());
        };
        let n = self.usize_expr(n, env, "`ifold`'s count");
        let state = self.state_loop("ifold", "the accumulator", init, acc, i, body, env);
        let (n, (init, aid, iid, body)) = (n?, state?);
        let ty = init.ty.clone();
        Ok(Core::new(
            Kind::Ifold(Box::new(n), Box::new(init), aid, iid, Box::new(body)),
            ty,
            sp,
        ))
    }

    /// The state and body of an `ifold` or a `scan` (`form`, whose state is `state`): the
    /// start, the state's and index's variables, and the body, checked to keep the start's
    /// shape. The body is checked even when the start failed; a state without a start has
    /// no type, and its uses fail quietly.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn state_loop(
        &mut self,
        form: &str,
        state: &str,
        init: &Expr,
        acc: &Name,
        i: &Name,
        body: &Expr,
        env: &Env,
    ) -> Result<(Core, VarId, VarId, Core), ()> {
        let init = self.expr(init, env);
        let (aid, iid) = (self.fresh(&acc.text), self.fresh(&i.text));
        let mut env = env.clone();
        let acc_bind = match &init {
            Ok(init) if self.pattern_fits(acc, &init.ty) => Bind::Val(aid, init.ty.clone(), None),
            _ => Bind::Failed,
        };
        env.push((acc.text.clone(), acc_bind));
        env.push((
            i.text.clone(),
            Bind::Val(iid, Type::Usize, Some(Size::Loop(iid))),
        ));
        let body = self.expr(body, &env);
        let (init, body) = (init?, body?);
        if !body.ty.same(&init.ty) {
            self.err(
                body.span,
                format!(
                    "mismatched shapes: the `{form}` body gives `{}`, but {state} starts as `{}`{}",
                    body.ty,
                    init.ty,
                    super::tuples::parts_note(
                        &body.ty,
                        &init.ty,
                        "the body gives",
                        &format!("{state} starts as")
                    )
                ),
            );
            return Err(());
        }
        Ok((init, aid, iid, body))
    }

    /// `scan(n, init, |acc, i| body)`: an `ifold` keeping its n states; n is a size, since
    /// it is the result's length.
    #[inline(never)]
    pub(super) fn e_scan(&mut self, e: &Expr, env: &Env) -> Elaborated {
        let sp = e.span;
        let ExprKind::Scan(n, init, acc, i, body) = &e.kind else {
            return Err(());
        };
        let n = self.size_expr(n, env, "`scan`'s count");
        let state = self.state_loop("scan", "the state", init, acc, i, body, env);
        let (n, (init, aid, iid, body)) = (n?, state?);
        if let Some(bad) = unstorable(&init.ty) {
            self.err(
                init.span,
                format!(
                    "a `scan` keeps every state in an array, and arrays hold `f64`: this state has a `{bad}`{}",
                    if *bad == Type::Usize {
                        "\n  help: count in f64: start at `0.0` and add `1.0`"
                    } else {
                        ""
                    }
                ),
            );
            return Err(());
        }
        let ty = init.ty.rows_of(&n);
        Ok(Core::new(
            Kind::Scan(n, Box::new(init), aid, iid, Box::new(body)),
            ty,
            sp,
        ))
    }
}

/// A component type that no array can hold (`bool`), if the type has one.
fn unstorable(t: &Type) -> Option<&Type> {
    match t {
        Type::F64 | Type::F32 | Type::Usize | Type::Arr(..) => None,
        Type::Tuple(ts) => ts.iter().find_map(unstorable),
        other => Some(other),
    }
}
