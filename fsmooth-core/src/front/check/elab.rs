//! The expression checker: each surface expression to a typed core expression, with its
//! shape, and every error on the tokens it is about. Calls and closures are in
//! [`super::calls`].

use super::Scope;
use super::show::{as_f64, show};
use super::signature::ty_of;
use crate::front::ast::{self, BinOp, CastTy, Expr, ExprKind, MathFn, Name, Sp, UnOp};
use crate::front::diag::{Diags, closest};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use std::rc::Rc;

/// What a name in scope stands for.
#[derive(Clone)]
pub(super) enum Bind {
    /// A value held in a core variable.
    Val(VarId, Type, Option<Size>),
    /// A size name: a `usize` known before the loops.
    Size(Size),
    /// A function value.
    Fun(Rc<FunVal>),
    /// A name whose definition failed (a `let` whose value or declared type is wrong, a
    /// parameter whose type is not one): its error is reported, and every use of it fails
    /// quietly, as rustc's error type does, so that one mistake gives one error. It never
    /// becomes core: a use fails the whole kernel.
    Failed,
}

/// A function value: what a call applies.
pub(super) enum FunVal {
    /// A function of the scope (its index in [`Scope::fns`]).
    Def(usize),
    /// A closure, checked where it is applied, in the environment it was written in.
    Closure {
        params: Vec<Name>,
        body: Expr,
        env: Env,
        report: bool,
        /// The result type the function parameter declares, and how to name it.
        expect: Option<(Type, String)>,
    },
    /// A function parameter inside a generic check: only its type is known.
    Opaque(Vec<Type>, Type),
}

/// The names in scope, innermost last.
pub(super) type Env = Vec<(String, Bind)>;

/// The state of elaborating one function.
pub(super) struct Elab<'a> {
    /// The functions calls resolve to.
    pub(super) scope: &'a Scope,
    /// Functions on a call cycle (already reported): calls to them fail quietly.
    pub(super) recursive: &'a [usize],
    /// Where errors go.
    pub(super) diags: &'a mut Diags,
    /// Report errors (false inside inlined bodies: those are the callee's own).
    pub(super) report: bool,
    /// The first error suppressed while `report` was false.
    pub(super) suppressed: Option<String>,
    /// The source name of each core variable, indexed by its [`VarId`].
    pub(super) names: Vec<String>,
    /// How many inlined calls deep the checker is.
    pub(super) depth: usize,
    /// Calls inlined so far: bounded, so that helpers calling helpers twice over cannot make
    /// the macro run (nearly) forever.
    pub(super) inlined: usize,
    /// Sizes the kernel computes at entry for their checks ([`crate::middle::ir::Kernel::entry_sizes`]).
    pub(super) entry_sizes: Vec<Size>,
}

/// How many calls one function may inline in all.
pub(super) const MAX_INLINED: usize = 5_000;

/// An elaborated expression, or `Err` when it failed (the error already reported, or
/// suppressed inside an inlined body).
pub(super) type Elaborated = Result<Core, ()>;

impl Elab<'_> {
    /// Report an error, or inside an inlined body keep the first for the call to report.
    pub(super) fn err(&mut self, span: impl Into<Sp>, msg: impl std::fmt::Display) {
        if self.report {
            self.diags.error(span, msg);
        } else if self.suppressed.is_none() {
            self.suppressed = Some(msg.to_string());
        }
    }

    /// A new core variable for the source name `name`.
    pub(super) fn fresh(&mut self, name: &str) -> VarId {
        self.names.push(name.to_string());
        (self.names.len() - 1) as VarId
    }

    /// The innermost binding of `name`.
    pub(super) fn lookup<'e>(&self, env: &'e Env, name: &str) -> Option<&'e Bind> {
        env.iter().rev().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// Report a name bound nowhere, with the closest name in scope as a hint.
    pub(super) fn unknown_name(&mut self, env: &Env, n: &Name, what: &str) {
        let mut cands: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        cands.extend(self.scope.fns.iter().map(|f| f.name.text.as_str()));
        cands.extend(["build", "ifold", "scan", "length"]);
        cands.extend(super::views::VIEWS);
        let hint = closest(&n.text, cands)
            .map(|c| format!("\n  help: did you mean `{c}`?"))
            .unwrap_or_default();
        self.err(
            n.span,
            format!("cannot find {what} `{}` in this block{hint}", n.text),
        );
    }

    /// Elaborate `e` in `env`.
    pub(super) fn expr(&mut self, e: &Expr, env: &Env) -> Elaborated {
        let sp = e.span;
        match &e.kind {
            // Already reported by the parser.
            ExprKind::Error => Err(()),
            ExprKind::Float(v, suffix) => {
                let ty = match suffix {
                    Some(CastTy::F32) => Type::F32,
                    _ => Type::F64,
                };
                let v = if ty == Type::F32 {
                    f64::from(*v as f32)
                } else {
                    *v
                };
                Ok(Core::new(Kind::Float(v), ty, sp))
            }
            ExprKind::Int(v) => Ok(Core::size(Size::Lit(*v), sp)),
            ExprKind::Bool(b) => Ok(Core::new(Kind::Bool(*b), Type::Bool, sp)),
            ExprKind::Var(n) => match self.lookup(env, &n.text).cloned() {
                Some(Bind::Val(id, ty, sym)) => Ok(Core {
                    kind: Kind::Var(id),
                    ty,
                    sym,
                    span: sp,
                }),
                Some(Bind::Size(s)) => Ok(Core::size(s, sp)),
                Some(Bind::Failed) => Err(()),
                Some(Bind::Fun(_)) => {
                    self.err(
                        sp,
                        format!("`{}` is a function: call it, `{}(..)`", n.text, n.text),
                    );
                    Err(())
                }
                None if self.scope.find(&n.text).is_some() => {
                    self.err(
                        sp,
                        format!("`{}` is a function: call it, `{}(..)`", n.text, n.text),
                    );
                    Err(())
                }
                None => {
                    self.unknown_name(env, n, "value");
                    Err(())
                }
            },
            ExprKind::Block(lets, tail) => self.e_block(lets, tail, sp, env),
            ExprKind::Index(a, i) => self.e_index(a, i, sp, env),
            ExprKind::Slice(a, lo, hi) => self.e_slice(a, lo, hi, sp, env),
            ExprKind::Len(a) => {
                let a = self.expr(a, env)?;
                match &a.ty {
                    Type::Arr(_, d) => Ok(Core::size(d[0].clone(), sp)),
                    other => {
                        self.err(a.span, format!("`len` needs an array, found `{other}`"));
                        Err(())
                    }
                }
            }
            ExprKind::Build(n, i, body) => self.e_build(n, i, body, sp, env),
            ExprKind::Ifold(..) => self.e_ifold(e, env),
            ExprKind::Scan(..) => self.e_scan(e, env),
            ExprKind::Tuple(xs) => self.e_tuple(xs, sp, env),
            ExprKind::Proj(t, k, ksp) => self.e_proj(t, *k, *ksp, sp, env),
            ExprKind::Array(xs) => self.e_array(xs, sp, env),
            ExprKind::If(c, a, b) => self.e_if(c, a, b, sp, env),
            ExprKind::Bin(op, a, b) => self.binary(*op, a, b, e, env),
            ExprKind::Un(op, a) => self.e_un(op, a, sp, env),
            ExprKind::Cast(a, to) => self.e_cast(a, to, sp, env),
            ExprKind::Math(MathFn::Powi, r, args)
                if matches!(
                    args.first().map(|a| &a.kind),
                    Some(ExprKind::Un(UnOp::Neg, _))
                ) =>
            {
                // `x.powi(-k)`: fsmooth has no negative integers, so this is
                // `1.0 / x.powi(k)`, which is how powi itself computes it.
                let Some(ExprKind::Un(UnOp::Neg, k)) = args.first().map(|a| &a.kind) else {
                    return Err(());
                };
                let pos = Expr {
                    kind: ExprKind::Math(MathFn::Powi, r.clone(), vec![(**k).clone()]),
                    span: sp,
                };
                let p = self.expr(&pos, env)?;
                let one = Core::new(Kind::Float(1.0), Type::F64, sp);
                Ok(Core::new(
                    Kind::Bin(BinOp::Div, Box::new(one), Box::new(p), String::new()),
                    Type::F64,
                    sp,
                ))
            }
            ExprKind::Math(f, r, args) => self.e_math(f, r, args, sp, env),
            ExprKind::Call(n, args) => self.call(n, args, e, env),
            ExprKind::Closure(..) => {
                self.err(
                    sp,
                    "a closure is allowed only as an argument for a function parameter",
                );
                Err(())
            }
        }
    }

    #[inline(never)]
    fn e_block(&mut self, lets: &[ast::Let], tail: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let mut env = env.clone();
        let mut bound = Vec::new();
        let mut ok = true;
        for l in lets {
            let v = self.expr(&l.value, &env);
            // The declared type, if any; `Err` when it is no type (reported by `ty_of`).
            let declared = l.ty.as_ref().map(|t| ty_of(t, self.diags).ok_or(()));
            let v = match (v, declared) {
                (Ok(v), None) => v,
                (Ok(v), Some(Ok(want))) if want.same(&v.ty) => v,
                (Ok(v), Some(Ok(want))) => {
                    self.err(
                        l.value.span,
                        format!(
                            "mismatched shapes: `{}` is declared `{want}`, but its value is `{}`",
                            l.name.text, v.ty
                        ),
                    );
                    ok = false;
                    env.push((l.name.text.clone(), Bind::Failed));
                    continue;
                }
                (Err(()), _) | (Ok(_), Some(Err(()))) => {
                    // Reported already: the name stays bound, so its uses raise nothing more.
                    ok = false;
                    env.push((l.name.text.clone(), Bind::Failed));
                    continue;
                }
            };
            if !self.pattern_fits(&l.name, &v.ty) {
                ok = false;
                env.push((l.name.text.clone(), Bind::Failed));
                continue;
            }
            let id = self.fresh(&l.name.text);
            env.push((
                l.name.text.clone(),
                Bind::Val(id, v.ty.clone(), v.sym.clone()),
            ));
            bound.push((id, v));
        }
        let body = self.expr(tail, &env);
        let mut body = if ok { body? } else { return Err(()) };
        for (id, v) in bound.into_iter().rev() {
            let ty = body.ty.clone();
            let sym = body.sym.clone();
            body = Core {
                kind: Kind::Let(id, Box::new(v), Box::new(body)),
                ty,
                sym,
                span: sp,
            };
        }
        Ok(body)
    }

    #[inline(never)]
    fn e_index(&mut self, a: &Expr, i: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let (a, i) = (self.expr(a, env), self.expr(i, env));
        let (a, i) = (a?, i?);
        let dims = match &a.ty {
            Type::Arr(_, d) => d.clone(),
            other => {
                self.err(a.span, format!("cannot index a value of type `{other}`"));
                return Err(());
            }
        };
        if i.ty != Type::Usize {
            self.err(
                i.span,
                format!(
                    "an index is a `usize`, found `{}`{}",
                    i.ty,
                    cast_help(&i.ty)
                ),
            );
            return Err(());
        }
        if let (Some(k), Some(n)) = (
            i.sym.as_ref().and_then(|s| s.as_const()),
            dims[0].as_const(),
        ) && k >= n
        {
            self.err(
                i.span,
                format!(
                    "index {k} is out of bounds: the array has type `{}` ({n} elements)",
                    a.ty
                ),
            );
            return Err(());
        }
        let ty = a.ty.elem();
        Ok(Core::new(Kind::Index(Box::new(a), Box::new(i)), ty, sp))
    }

    #[inline(never)]
    fn e_slice(
        &mut self,
        a: &Expr,
        lo: &Option<Box<Expr>>,
        hi: &Option<Box<Expr>>,
        sp: Sp,
        env: &Env,
    ) -> Elaborated {
        let a = self.expr(a, env)?;
        let dims = match &a.ty {
            Type::Arr(_, d) => d.clone(),
            other => {
                self.err(a.span, format!("cannot slice a value of type `{other}`"));
                return Err(());
            }
        };
        let lo = match lo {
            Some(x) => self.usize_expr(x, env, "a slice bound")?,
            None => Core::size(Size::Lit(0), sp),
        };
        let hi = match hi {
            Some(x) => self.usize_expr(x, env, "a slice bound")?,
            None => Core::size(dims[0].clone(), sp),
        };
        let len = match (&lo.sym, &hi.sym) {
            (Some(l), Some(h)) => {
                let d = Size::minus(h.clone(), l.clone()).fold();
                if !d.has_loop() {
                    Some(d)
                } else {
                    // `v[i..i + w]`: the loop index cancels.
                    d.poly().to_size()
                }
            }
            _ => None,
        };
        let Some(len) = len else {
            self.err(
                sp,
                "the length of this slice depends on data or a loop index: fsmooth must know every size before it runs (`v[i..i + 3]` is fine)",
            );
            return Err(());
        };
        if let (Some(l), Some(h)) = (
            lo.sym.as_ref().and_then(|s| s.as_const()),
            hi.sym.as_ref().and_then(|s| s.as_const()),
        ) {
            if l > h {
                self.err(
                    sp,
                    format!("slice {l}..{h} is empty backwards: the start is past the end"),
                );
                return Err(());
            }
            if let Some(n) = dims[0].as_const()
                && h > n
            {
                self.err(
                    sp,
                    format!(
                        "slice {l}..{h} is out of bounds: the array has type `{}` ({n} elements)",
                        a.ty
                    ),
                );
                return Err(());
            }
        }
        let mut nd = dims.clone();
        nd[0] = len;
        let elem = a.ty.scalar().unwrap_or(Scalar::F64);
        Ok(Core::new(
            Kind::Slice(Box::new(a), Box::new(lo)),
            Type::Arr(elem, nd),
            sp,
        ))
    }

    #[inline(never)]
    fn e_array(&mut self, xs: &[Expr], sp: Sp, env: &Env) -> Elaborated {
        let items: Vec<Elaborated> = xs.iter().map(|x| self.expr(x, env)).collect();
        let items: Vec<Core> = items.into_iter().collect::<Result<_, _>>()?;
        let elem = items.first().map(|x| x.ty.clone()).unwrap_or(Type::F64);
        for x in &items[1.min(items.len())..] {
            if !x.ty.same(&elem) {
                self.err(
                    x.span,
                    format!(
                        "mismatched shapes: array literal elements must agree; the first is `{elem}`, this one is `{}`",
                        x.ty
                    ),
                );
                return Err(());
            }
        }
        let n = Size::Lit(items.len() as u64);
        let Some(ty) = Type::array_of(&elem, n) else {
            self.err(
                items[0].span,
                format!(
                    "arrays hold `f64`, `f32` or `usize`, found `{elem}`{}",
                    cast_help(&elem)
                ),
            );
            return Err(());
        };
        Ok(Core::new(Kind::Array(items), ty, sp))
    }

    #[inline(never)]
    fn e_if(&mut self, c: &Expr, a: &Expr, b: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let (c, a, b) = (self.expr(c, env), self.expr(a, env), self.expr(b, env));
        let (c, a, b) = (c?, a?, b?);
        if c.ty != Type::Bool {
            self.err(
                c.span,
                format!("an `if` condition is a `bool`, found `{}`", c.ty),
            );
            return Err(());
        }
        if !a.ty.same(&b.ty) {
            self.err(
                b.span,
                format!(
                    "mismatched shapes: `if` branches must agree; the `then` branch is `{}`, the `else` branch is `{}`{}",
                    a.ty,
                    b.ty,
                    super::tuples::parts_note(&a.ty, &b.ty, "the `then` branch gives", "the `else` branch")
                ),
            );
            return Err(());
        }
        let ty = a.ty.clone();
        Ok(Core::new(
            Kind::If(Box::new(c), Box::new(a), Box::new(b)),
            ty,
            sp,
        ))
    }

    #[inline(never)]
    fn e_un(&mut self, op: &UnOp, a: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let a = self.expr(a, env)?;
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

    #[inline(never)]
    fn e_cast(&mut self, a: &Expr, to: &CastTy, sp: Sp, env: &Env) -> Elaborated {
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
                self.err(
                    sp,
                    format!("cannot cast `{t}`: `as` converts between `f64`, `f32` and `usize`"),
                );
                Err(())
            }
        }
    }

    #[inline(never)]
    fn e_math(&mut self, f: &MathFn, r: &Expr, args: &[Expr], sp: Sp, env: &Env) -> Elaborated {
        let r = self.expr(r, env);
        let args: Vec<Elaborated> = args.iter().map(|x| self.expr(x, env)).collect();
        let r = r?;
        let args: Vec<Core> = args.into_iter().collect::<Result<_, _>>()?;
        if !r.ty.is_float() {
            self.err(
                r.span,
                format!(
                    "`{}` is an f64 method, but this is `{}`{}",
                    f.name(),
                    r.ty,
                    cast_help(&r.ty)
                ),
            );
            return Err(());
        }
        if *f == MathFn::Powi {
            let k = args.into_iter().next().ok_or(())?;
            if k.ty != Type::Usize {
                self.err(
                    k.span,
                    format!("`powi` takes a `usize` exponent, found `{}`", k.ty),
                );
                return Err(());
            }
            let ty = r.ty.clone();
            return Ok(Core::new(Kind::Math(*f, vec![r, k]), ty, sp));
        }
        for a in &args {
            if a.ty != r.ty {
                self.err(
                    a.span,
                    format!(
                        "`{}` takes an f64 argument, found `{}`{}",
                        f.name(),
                        a.ty,
                        cast_help(&a.ty)
                    ),
                );
                return Err(());
            }
        }
        let ty = r.ty.clone();
        Ok(Core::new(Kind::Math(*f, [vec![r], args].concat()), ty, sp))
    }

    /// An expression that must be a usize.
    pub(super) fn usize_expr(&mut self, e: &Expr, env: &Env, what: &str) -> Elaborated {
        let c = self.expr(e, env)?;
        if c.ty != Type::Usize {
            self.err(
                c.span,
                format!("{what} is a `usize`, found `{}`{}", c.ty, cast_help(&c.ty)),
            );
            return Err(());
        }
        Ok(c)
    }

    /// An expression that must be a size: a usize known before any loop runs.
    pub(super) fn size_expr(&mut self, e: &Expr, env: &Env, what: &str) -> Result<Size, ()> {
        let c = self.usize_expr(e, env, what)?;
        match c.sym {
            Some(s) if !s.has_loop() => Ok(s),
            Some(_) => {
                self.err(
                    c.span,
                    format!("{what} depends on a loop index: fsmooth must know every size before it runs"),
                );
                Err(())
            }
            None => {
                self.err(
                    c.span,
                    format!("{what} depends on data: fsmooth must know every size before it runs (use a size name or a `usize` parameter)"),
                );
                Err(())
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, e: &Expr, env: &Env) -> Elaborated {
        let sp = e.span;
        let (ca, cb) = (self.expr(a, env), self.expr(b, env));
        let (ca, cb) = (ca?, cb?);
        let text = show(e);
        let mk = |ty: Type, sym: Option<Size>, ca: Core, cb: Core| Core {
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
            (Type::F64, Type::Usize) | (Type::Usize, Type::F64) => {
                let lit = if ca.ty == Type::Usize { a } else { b };
                let help = match lit.kind {
                    ExprKind::Int(v) => format!(
                        "\n  help: an integer literal is a `usize`; write `{v}.0` for an f64"
                    ),
                    _ => format!("\n  help: convert with `{}`", as_f64(lit)),
                };
                self.err(
                    lit.span,
                    format!("mismatched types: `{}` needs both sides of the same type, found `{}` and `{}`{help}", op.symbol(), ca.ty, cb.ty),
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
}

/// `let`s binding `bound`, in order, around `body`.
pub(super) fn wrap_lets(bound: Vec<(VarId, Core)>, body: Core, sp: Sp) -> Core {
    let mut body = body;
    for (id, v) in bound.into_iter().rev() {
        let ty = body.ty.clone();
        let sym = body.sym.clone();
        body = Core {
            kind: Kind::Let(id, Box::new(v), Box::new(body)),
            ty,
            sym,
            span: sp,
        };
    }
    body
}

/// A stand-in value of type `t`, for a call whose result only matters by its type.
pub(super) fn placeholder(t: &Type, sp: Sp) -> Core {
    match t {
        Type::Bool => Core::new(Kind::Bool(false), Type::Bool, sp),
        Type::Usize => Core::new(Kind::Size(Size::Lit(0)), Type::Usize, sp),
        Type::Tuple(ts) => Core::new(
            Kind::Tuple(ts.iter().map(|t| placeholder(t, sp)).collect()),
            t.clone(),
            sp,
        ),
        t => Core::new(Kind::Float(0.0), t.clone(), sp),
    }
}

/// A hint to convert a scalar of type `t` with `as`.
pub(super) fn cast_help(t: &Type) -> &'static str {
    match t {
        Type::Usize => "\n  help: convert with `as f64`",
        Type::F64 => "\n  help: convert with `as usize`",
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
