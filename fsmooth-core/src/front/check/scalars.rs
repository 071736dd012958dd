//! Scalar operations: operators, negation, casts and the math methods, with the rule that
//! `f64`, `f32` and `usize` never mix implicitly (LANGUAGE.md sections 10 and 11): a mix is
//! an error on the user's token that names both types and the cast to write.

use super::elab::{Elab, Elaborated, Env, wrap_lets};
use super::infer::Want;
use super::show::{show, show_p};
use crate::front::ast::{BinOp, CastTy, Expr, ExprKind, MathFn, Sp, UnOp};
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};

impl Elab<'_> {
    /// `a op b`.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        e: &Expr,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        let sp = e.span;
        let (ca, cb) = self.operands(op, a, b, env, want);
        let (ca, cb) = (ca?, cb?);
        let text = show(e);
        let mk = |ty: Type, sym, ca: Core, cb: Core| Core {
            kind: Kind::Bin(op, Box::new(ca), Box::new(cb), text.clone()),
            ty,
            sym,
            span: sp,
        };
        match (&ca.ty, &cb.ty) {
            (Type::F64, Type::F64) | (Type::F32, Type::F32) if op.is_arith() => {
                let ty = ca.ty.clone();
                Ok(mk(ty, None, ca, cb))
            }
            (Type::F64, Type::F64) | (Type::F32, Type::F32) if op.is_cmp() => {
                Ok(mk(Type::Bool, None, ca, cb))
            }
            (Type::Usize, Type::Usize) if op.is_arith() => {
                let sym = crate::middle::ir::usize_sym(op, ca.sym.as_ref(), cb.sym.as_ref());
                Ok(mk(Type::Usize, sym, ca, cb))
            }
            (Type::Usize, Type::Usize) if op.is_cmp() => Ok(mk(Type::Bool, None, ca, cb)),
            (Type::Bool, Type::Bool)
                if matches!(op, BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne) =>
            {
                Ok(mk(Type::Bool, None, ca, cb))
            }
            (x, y) if numeric(x) && numeric(y) && x != y && (op.is_arith() || op.is_cmp()) => {
                // Blame the side to convert: a whole float literal where a `usize` is
                // wanted (`x[n / 2.0]`), else a usize (floats are what arithmetic on data
                // means), else a suffixed literal, else the right-hand side.
                let whole = |x: &Expr| matches!(x.kind, ExprKind::Float(v, _) if v.fract() == 0.0 && v >= 0.0);
                let usize_wanted = matches!(want, Want::Scalar(Scalar::Usize));
                let blame_left = if usize_wanted && (whole(a) || whole(b)) {
                    whole(a)
                } else {
                    ca.ty == Type::Usize
                        || (cb.ty != Type::Usize && typed_by_suffix(a) && !typed_by_suffix(b))
                };
                let (bad, bad_ty, to) = if blame_left {
                    (a, &ca.ty, &cb.ty)
                } else {
                    (b, &cb.ty, &ca.ty)
                };
                let mut help = match &bad.kind {
                    ExprKind::Float(v, _) if usize_wanted && whole(bad) => format!(
                        "\n  help: a `usize` is wanted here (an index or a size): write `{}` (`/` on `usize` rounds down)",
                        *v as u64
                    ),
                    _ => match constant_in(bad) {
                        Some(name) if to.is_float() => format!(
                            "\n  help: `{name}` here is the `{bad_ty}` constant: write `core::{to}::consts::{name}` (or `std::{to}::consts::{name}`)"
                        ),
                        _ => convert_help(bad, bad_ty, to),
                    },
                };
                if bad_ty.is_float() && to.is_float() && !help.is_empty() && !typed_by_suffix(bad) {
                    help += &format!(" (or convert the other side with `as {bad_ty}`)");
                }
                self.clash(&ca, &cb);
                self.err(
                    bad.span,
                    format!(
                        "mismatched types: `{}` needs both sides of the same type, found `{}` and `{}`{help}",
                        op.symbol(),
                        ca.ty,
                        cb.ty
                    ),
                );
                Err(())
            }
            (Type::Arr(..), _) | (_, Type::Arr(..)) => {
                let arr = if ca.ty.is_arr() { &ca } else { &cb };
                self.err(
                    arr.span,
                    format!(
                        "`{}` works on scalars, this is `{}`{}",
                        op.symbol(),
                        arr.ty,
                        arr_help(&arr.ty)
                    ),
                );
                Err(())
            }
            (x, y) => {
                self.err(
                    sp,
                    format!("`{}` cannot combine `{x}` and `{y}`", op.symbol()),
                );
                Err(())
            }
        }
    }

    /// `-a` (which passes its expectation on: `-1.0` is an f32 where one is expected) and
    /// `!a`.
    #[inline(never)]
    pub(super) fn e_un(
        &mut self,
        op: &UnOp,
        a: &Expr,
        sp: Sp,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        let want = if *op == UnOp::Neg { want } else { &Want::Any };
        let a = self.expr_want(a, env, want)?;
        match (op, &a.ty) {
            (UnOp::Neg, Type::F64 | Type::F32) => {
                let ty = a.ty.clone();
                Ok(Core::new(Kind::Neg(Box::new(a)), ty, sp))
            }
            (UnOp::Not, Type::Bool) => Ok(Core::new(Kind::Not(Box::new(a)), Type::Bool, sp)),
            (UnOp::Neg, Type::Usize) => {
                self.err(
                    sp,
                    "cannot negate a `usize`; for an f64 write `-(x as f64)` or `-1.0`",
                );
                Err(())
            }
            (UnOp::Neg, t) => {
                self.err(sp, format!("cannot negate `{t}`{}", arr_help(t)));
                Err(())
            }
            (UnOp::Not, t) => {
                self.err(sp, format!("`!` needs a `bool`, found `{t}`"));
                Err(())
            }
        }
    }

    /// `a as T`, between `f64`, `f32` and `usize`.
    #[inline(never)]
    pub(super) fn e_cast(&mut self, a: &Expr, to: &CastTy, sp: Sp, env: &Env) -> Elaborated {
        let a = self.expr(a, env)?;
        let target = match to {
            CastTy::F64 => Type::F64,
            CastTy::F32 => Type::F32,
            CastTy::Usize => Type::Usize,
        };
        match &a.ty {
            t if *t == target => Ok(a),
            Type::F64 | Type::F32 | Type::Usize => {
                Ok(Core::new(Kind::Cast(*to, Box::new(a)), target, sp))
            }
            t => {
                let help = match t {
                    Type::Arr(s, _) if s.is_float() || *s == crate::middle::ir::Scalar::Usize => {
                        format!(
                            "\n  help: convert the elements: `map(v, |x| x as {})`",
                            to.name()
                        )
                    }
                    _ => String::new(),
                };
                self.err(
                    sp,
                    format!(
                        "cannot cast `{t}`: `as` converts between `f64`, `f32` and `usize`{help}"
                    ),
                );
                Err(())
            }
        }
    }

    /// `x.f(args)`: a math method on a float (the result has the receiver's type, and so
    /// do the arguments, `powi`'s exponent aside), or `min`, `max`, `clamp` on a usize.
    #[inline(never)]
    pub(super) fn e_math(
        &mut self,
        f: MathFn,
        re: &Expr,
        args: &[Expr],
        sp: Sp,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        if args.len() != f.arity() {
            // Reported by the parser.
            return Err(());
        }
        let (r, vals) = if f == MathFn::Powi {
            let r = self.expr_want(re, env, want);
            let k = self.expr(&args[0], env);
            (r, vec![k])
        } else {
            let xs: Vec<&Expr> = std::iter::once(re).chain(args).collect();
            let mut all = self.agree(&xs, env, want).into_iter();
            let r = all.next().unwrap_or(Err(()));
            (r, all.collect())
        };
        let r = r?;
        let vals: Vec<Core> = vals.into_iter().collect::<Result<_, _>>()?;
        let name = f.name();
        if r.ty == Type::Usize && matches!(f, MathFn::Min | MathFn::Max | MathFn::Clamp) {
            for (a, v) in args.iter().zip(&vals) {
                if v.ty != Type::Usize {
                    self.err(
                        a.span,
                        format!(
                            "mismatched types: `{name}` on a `usize` takes `usize` arguments, found `{}`{}",
                            v.ty,
                            convert_help(a, &v.ty, &Type::Usize)
                        ),
                    );
                    return Err(());
                }
            }
            return Ok(self.usize_pick(f, r, vals, sp));
        }
        if !r.ty.is_float() {
            let help = match &r.ty {
                Type::Usize => convert_help(re, &r.ty, &Type::F64),
                t => arr_help(t).to_string(),
            };
            let has = if r.ty == Type::Usize {
                " (which has `min`, `max` and `clamp`)"
            } else {
                ""
            };
            self.err(
                re.span,
                format!(
                    "`{name}` is a method of `f64` and `f32`, but this is `{}`{has}{help}",
                    r.ty
                ),
            );
            return Err(());
        }
        if f == MathFn::Powi {
            let k = vals.into_iter().next().ok_or(())?;
            if k.ty != Type::Usize {
                self.err(
                    k.span,
                    format!(
                        "`powi` takes an integer exponent (`powi(2)`, `powi(-1)`), found `{}`\n  help: for a float exponent write `powf`",
                        k.ty
                    ),
                );
                return Err(());
            }
            let ty = r.ty.clone();
            return Ok(Core::new(Kind::Math(f, vec![r, k]), ty, sp));
        }
        for (a, v) in args.iter().zip(&vals) {
            if v.ty != r.ty {
                self.clash(&r, v);
                self.err(
                    a.span,
                    format!(
                        "mismatched types: `{name}` takes arguments of its receiver's type, `{}`, found `{}`{}",
                        r.ty,
                        v.ty,
                        convert_help(a, &v.ty, &r.ty)
                    ),
                );
                return Err(());
            }
        }
        let ty = r.ty.clone();
        Ok(Core::new(Kind::Math(f, [vec![r], vals].concat()), ty, sp))
    }

    /// `min`, `max` or `clamp` on usizes: comparisons and choices (as `clamp` means
    /// `x.max(lo).min(hi)`, it never panics, unlike `Ord::clamp`). The result has no symbolic
    /// value: sizes have no minimum.
    fn usize_pick(&mut self, f: MathFn, x: Core, args: Vec<Core>, sp: Sp) -> Core {
        let mut args = args.into_iter();
        let (Some(y), z) = (args.next(), args.next()) else {
            return x;
        };
        match (f, z) {
            (MathFn::Clamp, Some(hi)) => {
                let lo = self.pick(x, y, false, sp);
                self.pick(lo, hi, true, sp)
            }
            _ => self.pick(x, y, f == MathFn::Min, sp),
        }
    }

    /// `x.min(y)` (`min`) or `x.max(y)`: `if y < x { y } else { x }` or
    /// `if y < x { x } else { y }`, each operand evaluated once.
    fn pick(&mut self, x: Core, y: Core, min: bool, sp: Sp) -> Core {
        let mut bound: Vec<(VarId, Core)> = Vec::new();
        let x = self.atom(x, "a", &mut bound);
        let y = self.atom(y, "b", &mut bound);
        let less = Core::new(
            Kind::Bin(
                BinOp::Lt,
                Box::new(y.clone()),
                Box::new(x.clone()),
                String::new(),
            ),
            Type::Bool,
            sp,
        );
        let (then, other) = if min { (y, x) } else { (x, y) };
        let pick = Core::new(
            Kind::If(Box::new(less), Box::new(then), Box::new(other)),
            Type::Usize,
            sp,
        );
        wrap_lets(bound, pick, sp)
    }

    /// `c` itself when it is a variable or a size, else a variable bound to it.
    fn atom(&mut self, c: Core, name: &str, bound: &mut Vec<(VarId, Core)>) -> Core {
        if matches!(c.kind, Kind::Var(_) | Kind::Size(_)) {
            return c;
        }
        let id = self.fresh(name);
        let v = Core {
            kind: Kind::Var(id),
            ty: c.ty.clone(),
            sym: c.sym.clone(),
            span: c.span,
        };
        bound.push((id, c));
        v
    }
}

/// `f64`, `f32` or `usize`.
fn numeric(t: &Type) -> bool {
    matches!(t, Type::F64 | Type::F32 | Type::Usize)
}

/// A float literal with a suffix (`2.0f32`).
/// Whether `e` is literals alone (`2.0 * PI`, a constant being a suffixed literal) with a
/// suffix among them: its type is the suffix's.
fn typed_by_suffix(e: &Expr) -> bool {
    fn literals(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Float(..) => true,
            ExprKind::Bin(_, a, b) => literals(a) && literals(b),
            ExprKind::Un(_, a) => literals(a),
            _ => false,
        }
    }
    fn any_suffix(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Float(_, Some(_)) => true,
            ExprKind::Bin(_, a, b) => any_suffix(a) || any_suffix(b),
            ExprKind::Un(_, a) => any_suffix(a),
            _ => false,
        }
    }
    literals(e) && any_suffix(e)
}

/// The name of a Rust float constant in `e` when `e` is literals alone with one whose value
/// is that constant's (the parser writes `core::f64::consts::PI` as its value).
fn constant_in(e: &Expr) -> Option<&'static str> {
    match &e.kind {
        ExprKind::Float(v, Some(t)) => crate::front::parse::FLOAT_CONSTS
            .iter()
            .find(|(_, c)| match t {
                CastTy::F32 => f64::from(*c as f32) == *v,
                _ => c == v,
            })
            .map(|(name, _)| *name),
        ExprKind::Bin(_, a, b) if typed_by_suffix(e) => constant_in(a).or_else(|| constant_in(b)),
        ExprKind::Un(_, a) if typed_by_suffix(e) => constant_in(a),
        _ => None,
    }
}

/// A help line: how to make `e`, of type `from`, a `to` (empty when no cast does it).
pub(super) fn convert_help(e: &Expr, from: &Type, to: &Type) -> String {
    match (&e.kind, to) {
        (ExprKind::Int(v), Type::F64 | Type::F32) => {
            format!("\n  help: an integer literal is a `usize`; write `{v}.0` for an {to}")
        }
        (ExprKind::Float(v, Some(_)), Type::F64 | Type::F32) => format!(
            "\n  help: write `{v:?}`: a literal without a suffix takes the type its context needs"
        ),
        _ if numeric(from) && numeric(to) && from != to => {
            let text = show_p(e);
            if text.contains("..") {
                format!("\n  help: convert it with `as {to}`")
            } else {
                format!("\n  help: convert with `{text} as {to}`")
            }
        }
        (_, Type::Arr(t, d)) => match from {
            Type::Arr(s, ds)
                if s != t
                    && numeric(&s.ty())
                    && numeric(&t.ty())
                    && d.len() == ds.len()
                    && d.iter().zip(ds).all(|(x, y)| x.same(y)) =>
            {
                let text = show(e);
                let text = if text.contains("..") { "v" } else { &text };
                if d.len() == 1 {
                    format!("\n  help: convert the elements: `map({text}, |x| x as {t})`")
                } else {
                    format!("\n  help: convert the elements with `map` and `as {t}`")
                }
            }
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// A hint to convert a scalar of type `t` with `as` (to an index for floats, to an `f64`
/// for a usize).
pub(super) fn cast_help(t: &Type) -> &'static str {
    match t {
        Type::Usize => "\n  help: convert with `as f64`",
        Type::F64 | Type::F32 => "\n  help: convert with `as usize`",
        _ => "",
    }
}

/// A hint, for an array type, that arithmetic on arrays goes through the prelude.
pub(super) fn arr_help(t: &Type) -> &'static str {
    if t.is_arr() {
        "\n  help: for arrays use the prelude (`add`, `sub`, `emul`, `smul`) or `build`"
    } else {
        ""
    }
}
