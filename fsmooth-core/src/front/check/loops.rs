//! The loops: `build`, and `ifold` and `scan`, which share the check of their state and
//! body ([`Elab::state_loop`]).

use super::elab::{Bind, Elab, Elaborated, Env, mismatch, retyped, tuple_arity};
use super::infer::{Want, float_clash, has_lit_only_part, lit_only};
use super::scalars::convert_help;
use crate::front::ast::{Expr, ExprKind, Name, Sp};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};

/// A loop's start, state and index variables, and body.
type StateLoop = (Core, VarId, VarId, Core);

impl Elab<'_> {
    #[inline(never)]
    pub(super) fn e_build(
        &mut self,
        n: &Expr,
        i: &Name,
        body: &Expr,
        sp: Sp,
        env: &Env,
        want: &Want,
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
        let body = self.expr_want(body, &env, &want.elem());
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
    pub(super) fn e_ifold(&mut self, e: &Expr, env: &Env, want: &Want) -> Elaborated {
        let sp = e.span;
        let ExprKind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Err(());
        };
        let n = self.usize_expr(n, env, "`ifold`'s count");
        let state = self.state_loop("ifold", "the accumulator", init, acc, i, body, env, want);
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
    /// no type, and its uses fail quietly. A start with literal-only parts (`0.0`,
    /// `(0.0, x)`) expects what `want` says, else it is an `f64` unless the body clashes
    /// with that (`acc + v[i]` with v of `f32`s, or a body giving an `f32`): then it is
    /// elaborated again with those parts `f32`s ([`super::infer`]).
    ///
    /// A start that fails with an integer literal (`ifold(n, 0, |acc, i| acc + x[i])` over
    /// floats) but checks with it written as a float is one error on the literal, naming
    /// the float to write (a cast of the state, which the clash alone would suggest, gives a
    /// loop that compiles and counts wrong).
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
        want: &Want,
    ) -> Result<StateLoop, ()> {
        let m = self.mark();
        let r = self.state_loop_typed(form, state, init, acc, i, body, env, want);
        if r.is_ok() {
            return r;
        }
        for (floats, ints) in ints_as_floats(init) {
            self.rewind(&m);
            let fits = self
                .state_loop_typed(form, state, &floats, acc, i, body, env, want)
                .is_ok();
            self.rewind(&m);
            if fits {
                for (v, span) in ints {
                    self.err(
                        span,
                        format!(
                            "mismatched types: {state} of this `{form}` starts as `{v}`, an integer literal (a `usize`), but its body makes it a float\n  help: write `{v}.0`"
                        ),
                    );
                }
                return Err(());
            }
        }
        self.rewind(&m);
        self.state_loop_typed(form, state, init, acc, i, body, env, want)
    }

    /// [`Elab::state_loop`] with the start as written.
    #[allow(clippy::too_many_arguments)]
    fn state_loop_typed(
        &mut self,
        form: &str,
        state: &str,
        init: &Expr,
        acc: &Name,
        i: &Name,
        body: &Expr,
        env: &Env,
        want: &Want,
    ) -> Result<StateLoop, ()> {
        let flexible = has_lit_only_part(init);
        let mut iwant = only_lit_parts(init, want.clone());
        if !flexible {
            iwant = want.clone();
        }
        // The expectations tried: a body that clashes one way and then the other stops.
        let mut tried = Vec::new();
        loop {
            let m = self.mark();
            let (r, aid, gives) =
                self.state_loop_once(form, state, init, acc, i, body, env, &iwant, flexible);
            if r.is_ok() || !flexible {
                return r;
            }
            // What the clashes ask of the start's literal-only parts.
            let mut next = retyped(&iwant, &self.demands_since(&m, aid), tuple_arity(init));
            if let Some(t) = gives {
                next = match (&init.kind, Want::of(&t)) {
                    (ExprKind::Tuple(xs), Want::Tuple(ws)) => Want::Tuple(
                        xs.iter()
                            .zip(ws)
                            .enumerate()
                            .map(|(k, (x, w))| if lit_only(x) { w } else { next.part(k) })
                            .collect(),
                    ),
                    (_, w) if lit_only(init) => w,
                    _ => next,
                };
            }
            let next = only_lit_parts(init, next);
            tried.push(iwant);
            if tried.contains(&next) {
                return r;
            }
            self.rewind(&m);
            iwant = next;
        }
    }

    /// One attempt at [`Elab::state_loop`], the start expecting `want`: the result, the
    /// state's variable, and the body's type when the body checked but clashed with the
    /// start's float types.
    #[allow(clippy::too_many_arguments)]
    fn state_loop_once(
        &mut self,
        form: &str,
        state: &str,
        init: &Expr,
        acc: &Name,
        i: &Name,
        body: &Expr,
        env: &Env,
        want: &Want,
        flexible: bool,
    ) -> (Result<StateLoop, ()>, VarId, Option<Type>) {
        let init_c = self.expr_want(init, env, want);
        let (aid, iid) = (self.fresh(&acc.text), self.fresh(&i.text));
        if flexible {
            self.flex.push(aid);
        } else if let Ok(c) = &init_c {
            self.link(aid, c);
        }
        let mut env = env.clone();
        let acc_bind = match &init_c {
            Ok(init) if self.pattern_fits(acc, &init.ty) => Bind::Val(aid, init.ty.clone(), None),
            _ => Bind::Failed,
        };
        env.push((acc.text.clone(), acc_bind));
        env.push((
            i.text.clone(),
            Bind::Val(iid, Type::Usize, Some(Size::Loop(iid))),
        ));
        let bwant = init_c.as_ref().map_or(Want::Any, |c| Want::of(&c.ty));
        let body_c = self.expr_want(body, &env, &bwant);
        let (init_c, body_c) = match (init_c, body_c) {
            (Ok(x), Ok(y)) => (x, y),
            _ => return (Err(()), aid, None),
        };
        if !body_c.ty.same(&init_c.ty) {
            let clash = float_clash(&body_c.ty, &init_c.ty);
            self.clash_ty(&body_c, &init_c.ty);
            self.err(
                body_c.span,
                format!(
                    "mismatched {}: the `{form}` body gives `{}`, but {state} starts as `{}`{}{}",
                    mismatch(&body_c.ty, &init_c.ty),
                    body_c.ty,
                    init_c.ty,
                    super::tuples::parts_note(
                        &body_c.ty,
                        &init_c.ty,
                        "the body gives",
                        &format!("{state} starts as")
                    ),
                    convert_help(body, &body_c.ty, &init_c.ty)
                ),
            );
            return (Err(()), aid, clash.then(|| body_c.ty.clone()));
        }
        (Ok((init_c, aid, iid, body_c)), aid, None)
    }

    /// `scan(n, init, |acc, i| body)`: an `ifold` keeping its n states; n is a size, since
    /// it is the result's length.
    #[inline(never)]
    pub(super) fn e_scan(&mut self, e: &Expr, env: &Env, want: &Want) -> Elaborated {
        let sp = e.span;
        let ExprKind::Scan(n, init, acc, i, body) = &e.kind else {
            return Err(());
        };
        let n = self.size_expr(n, env, "`scan`'s count");
        let state = self.state_loop("scan", "the state", init, acc, i, body, env, want);
        let (n, (init, aid, iid, body)) = (n?, state?);
        if let Some(bad) = unstorable(&init.ty) {
            self.err(
                init.span,
                format!(
                    "a `scan` keeps every state in an array, and arrays hold `f64`, `f32` or `usize`: this state has a `{bad}`"
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

/// Expectation `w` of a start `init`, kept only for its literal-only parts (no other part
/// can change type).
pub(super) fn only_lit_parts(init: &Expr, w: Want) -> Want {
    match (&init.kind, w) {
        (ExprKind::Tuple(xs), Want::Tuple(ws)) => Want::Tuple(
            xs.iter()
                .zip(ws)
                .map(|(x, w)| if lit_only(x) { w } else { Want::Any })
                .collect(),
        ),
        (ExprKind::Tuple(_), _) => Want::Any,
        (_, w) if lit_only(init) => w,
        _ => Want::Any,
    }
}

/// A loop's start with its integer literals written as float literals, and those literals
/// with their spans: all of them (the whole start, or every part of a tuple start), then
/// each part of a tuple alone. Empty when it has none.
fn ints_as_floats(init: &Expr) -> Vec<(Expr, Vec<(u64, Sp)>)> {
    let int = |e: &Expr| match e.kind {
        ExprKind::Int(v) => Some((v, e.span)),
        _ => None,
    };
    let float = |e: &mut Expr| {
        if let ExprKind::Int(v) = e.kind {
            e.kind = ExprKind::Float(v as f64, None);
        }
    };
    match &init.kind {
        ExprKind::Tuple(xs) => {
            let parts: Vec<usize> = (0..xs.len()).filter(|k| int(&xs[*k]).is_some()).collect();
            let mut out = Vec::new();
            let mut sets = vec![parts.clone()];
            if parts.len() > 1 {
                sets.extend(parts.iter().map(|k| vec![*k]));
            }
            for set in sets.into_iter().filter(|s| !s.is_empty()) {
                let mut floats = init.clone();
                if let ExprKind::Tuple(ys) = &mut floats.kind {
                    set.iter().for_each(|k| float(&mut ys[*k]));
                }
                out.push((floats, set.iter().filter_map(|k| int(&xs[*k])).collect()));
            }
            out
        }
        _ => int(init)
            .map(|i| {
                let mut floats = init.clone();
                float(&mut floats);
                (floats, vec![i])
            })
            .into_iter()
            .collect(),
    }
}
