//! The expression checker: each surface expression to a typed core expression, with its
//! shape, and every error on the tokens it is about. Calls and closures are in
//! [`super::calls`].

use super::Scope;
use super::infer::{Want, retypable};
use super::scalars::{cast_help, convert_help};
use super::signature::ty_of;
use crate::front::ast::{self, BinOp, CastTy, Expr, ExprKind, MathFn, Name, Sp, UnOp};
use crate::front::diag::{Diags, closest};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use std::collections::HashMap;
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
        /// The block it was written in: names in its body resolve there.
        block: usize,
        /// The result type the function parameter declares, and how to name it.
        expect: Option<(Type, String)>,
    },
    /// A function parameter inside a generic check: only its type is known.
    Opaque(Vec<Type>, Type),
}

/// A retypable variable, and the tuple component meant (`None`: the whole value).
pub(super) type Root = (VarId, Option<usize>);

/// The names in scope, innermost last.
pub(super) type Env = Vec<(String, Bind)>;

/// The state of elaborating one function.
pub(super) struct Elab<'a> {
    /// The functions calls resolve to.
    pub(super) scope: &'a Scope,
    /// The block of the body being elaborated: calls in it resolve to that block's
    /// functions ([`Scope::home`]).
    pub(super) block: usize,
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
    /// Sizes the kernel checks are not 0 at entry, each with the text of its error
    /// ([`crate::middle::ir::Kernel::entry_sizes`]).
    pub(super) entry_sizes: Vec<(Size, String)>,
    /// The name of every `let` the kernel binds, by its variable: where a remark about
    /// its array points.
    pub(super) let_spans: Vec<(VarId, proc_macro2::Span)>,
    /// Variables whose float type came from literals alone (`let c = 0.5;`, an `ifold`
    /// state started at `0.0`): a clash with an `f32` retypes them ([`super::infer`]).
    pub(super) flex: Vec<VarId>,
    /// The clashes met by those variables: the variable, and the tuple component if only
    /// one clashed.
    pub(super) demand: Vec<Root>,
    /// Variables bound to values of retypable ones, and those ([`Elab::link`]).
    pub(super) links: Vec<(VarId, Vec<Root>)>,
    /// Whether an element-type parameter of a generic helper stands for scalars only, by
    /// helper, parameter and scalar type ([`super::generic`]).
    pub(super) scalar_elems: HashMap<(usize, String, Scalar), bool>,
    /// The state variables of the `ifold`s that `reduce_by_index` calls with an operation
    /// other than addition became, and the calls' spans: reverse mode refuses them
    /// (LANGUAGE.md section 15).
    pub(super) scatter_ops: Vec<(VarId, Sp)>,
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
        self.unknown_name_of(env, n, what, &Type::F64);
    }

    /// [`Elab::unknown_name`] where the context wants a `float` (the module a Rust constant's
    /// name is suggested from).
    pub(super) fn unknown_name_of(&mut self, env: &Env, n: &Name, what: &str, float: &Type) {
        let mut cands: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        cands.extend(self.scope.visible(self.block));
        cands.extend(["build", "ifold", "scan", "iterate", "scatter_add", "length"]);
        cands.extend(super::views::VIEWS);
        let constant = crate::front::parse::FLOAT_CONSTS
            .iter()
            .any(|(c, _)| *c == n.text);
        let math = MathFn::from_name(&n.text).filter(|_| what == "function");
        let hint = match (constant, what) {
            // Rust's float methods written as free functions (`max(a, b)`, `sqrt(x)`).
            _ if let Some(f) = math => match f.arity() {
                0 => format!("\n  help: `{0}` is a method: write `x.{0}()`", n.text),
                _ => format!("\n  help: `{0}` is a method: write `a.{0}(b)`", n.text),
            },
            (_, "function") if n.text == "mean" => {
                "\n  help: write `sum(v) / (n as f64)` (the prelude has `sum`, `dot`, `norm`, `vmax`, ..)".to_string()
            }
            (true, "function") => format!(
                "\n  help: `{0}` is Rust's constant, not a function: write `core::{1}::consts::{0}` (or `{0}` after `use core::{1}::consts::{0};` in the block), without `()`",
                n.text, float
            ),
            (true, _) => format!(
                "\n  help: write `core::{1}::consts::{0}`, or bring it in with `use core::{1}::consts::{0};` inside the block",
                n.text, float
            ),
            _ => closest(&n.text, cands)
                .map(|c| format!("\n  help: did you mean `{c}`?"))
                .unwrap_or_default(),
        };
        self.err(
            n.span,
            format!("cannot find {what} `{}` in this block{hint}", n.text),
        );
    }

    /// Elaborate `e` in `env`, expecting nothing of it.
    pub(super) fn expr(&mut self, e: &Expr, env: &Env) -> Elaborated {
        self.expr_want(e, env, &Want::Any)
    }

    /// Elaborate `e` in `env`, where the context expects `want` (the type its unsuffixed
    /// float literals take, [`super::infer`]).
    pub(super) fn expr_want(&mut self, e: &Expr, env: &Env, want: &Want) -> Elaborated {
        let sp = e.span;
        match &e.kind {
            // Already reported by the parser.
            ExprKind::Error => Err(()),
            ExprKind::Float(v, suffix) => {
                let ty = match suffix {
                    Some(CastTy::F32) => Type::F32,
                    Some(_) => Type::F64,
                    None => want.float(),
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
                None if self.scope.find(self.block, &n.text).is_some() => {
                    self.err(
                        sp,
                        format!("`{}` is a function: call it, `{}(..)`", n.text, n.text),
                    );
                    Err(())
                }
                None => {
                    self.unknown_name_of(env, n, "value", &want.float());
                    Err(())
                }
            },
            ExprKind::Block(lets, tail) => self.e_block(lets, tail, sp, env, want),
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
            ExprKind::Build(n, i, body) => self.e_build(n, i, body, sp, env, want),
            ExprKind::Ifold(..) => self.e_ifold(e, env, want),
            ExprKind::Scan(..) => self.e_scan(e, env, want),
            ExprKind::Iterate(..) => self.e_iterate(e, env, want),
            ExprKind::Scatter(..) => self.e_scatter(e, env, want),
            ExprKind::Tuple(xs) => self.e_tuple(xs, sp, env, want),
            ExprKind::Proj(t, k, ksp) => self.e_proj(t, *k, *ksp, sp, env),
            ExprKind::Array(xs) => self.e_array(xs, sp, env, want),
            ExprKind::If(c, a, b) => self.e_if(c, a, b, sp, env, want),
            ExprKind::Bin(op, a, b) => self.binary(*op, a, b, e, env, want),
            ExprKind::Un(op, a) => self.e_un(op, a, sp, env, want),
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
                let p = self.expr_want(&pos, env, want)?;
                let ty = p.ty.clone();
                let one = Core::new(Kind::Float(1.0), ty.clone(), sp);
                Ok(Core::new(
                    Kind::Bin(BinOp::Div, Box::new(one), Box::new(p), String::new()),
                    ty,
                    sp,
                ))
            }
            ExprKind::Math(f, r, args) => self.e_math(*f, r, args, sp, env, want),
            ExprKind::Call(n, args) => self.call(n, args, e, env, want),
            ExprKind::Closure(..) => {
                self.err(
                    sp,
                    "a closure is allowed only as an argument for a function parameter",
                );
                Err(())
            }
        }
    }

    /// `{ let x = e; ..; tail }`. A `let` of a literal-only value without a declared type
    /// (or of an `ifold` started at one) is an `f64` unless a use clashes with an `f32`:
    /// then the block is elaborated again with that value an `f32` (component by component
    /// for a tuple), until no new clash asks for more ([`super::infer`]).
    #[inline(never)]
    fn e_block(
        &mut self,
        lets: &[ast::Let],
        tail: &Expr,
        sp: Sp,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        let mut wants: Vec<Want> = vec![Want::Any; lets.len()];
        loop {
            let m = self.mark();
            let mut ids: Vec<Option<VarId>> = vec![None; lets.len()];
            let r = self.block_once(lets, tail, sp, env, want, &wants, &mut ids);
            match &r {
                Ok(c) if want_clash(want, &c.ty) => self.demand(c),
                Ok(_) => return r,
                Err(()) => {}
            }
            let mut changed = false;
            for (k, id) in ids.iter().enumerate() {
                let Some(id) = id else { continue };
                let ds = self.demands_since(&m, *id);
                let w = retyped(&wants[k], &ds, tuple_arity(&lets[k].value));
                if w != wants[k] {
                    wants[k] = w;
                    changed = true;
                }
            }
            if !changed {
                return r;
            }
            self.rewind(&m);
        }
    }

    /// One attempt at a block, with `wants` the expectations of its literal-only `let`s;
    /// `ids` receives their variables.
    #[allow(clippy::too_many_arguments)]
    fn block_once(
        &mut self,
        lets: &[ast::Let],
        tail: &Expr,
        sp: Sp,
        env: &Env,
        want: &Want,
        wants: &[Want],
        ids: &mut [Option<VarId>],
    ) -> Elaborated {
        let mut env = env.clone();
        let mut bound = Vec::new();
        let mut ok = true;
        for (k, l) in lets.iter().enumerate() {
            if self.reads_itself(l, &env) {
                ok = false;
                env.push((l.name.text.clone(), Bind::Failed));
                continue;
            }
            // The declared type, if any; `Err` when it is no type (reported by `ty_of`).
            let declared = l.ty.as_ref().map(|t| ty_of(t, self.diags).ok_or(()));
            let flexible = l.ty.is_none() && retypable(&l.value);
            let vwant = match &declared {
                Some(Ok(t)) => Want::of(t),
                _ if flexible => wants[k].clone(),
                _ => Want::Any,
            };
            let v = self.expr_want(&l.value, &env, &vwant);
            let v = match (v, declared) {
                (Ok(v), None) => v,
                (Ok(v), Some(Ok(want))) if want.same(&v.ty) => v,
                (Ok(v), Some(Ok(want))) => {
                    self.clash_ty(&v, &want);
                    self.err(
                        l.value.span,
                        format!(
                            "mismatched {}: `{}` is declared `{want}`, but its value is `{}`{}",
                            mismatch(&want, &v.ty),
                            l.name.text,
                            v.ty,
                            convert_help(&l.value, &v.ty, &want)
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
            self.let_spans.push((id, l.name.span));
            if flexible {
                self.flex.push(id);
                ids[k] = Some(id);
            } else {
                self.link(id, &v);
            }
            env.push((
                l.name.text.clone(),
                Bind::Val(id, v.ty.clone(), v.sym.clone()),
            ));
            bound.push((id, v));
        }
        let body = self.expr_want(tail, &env, want);
        let body = if ok { body? } else { return Err(()) };
        Ok(wrap_lets(bound, body, sp))
    }

    #[inline(never)]
    fn e_index(&mut self, a: &Expr, i: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let index = Want::Scalar(crate::middle::ir::Scalar::Usize);
        let (a, i) = (self.expr(a, env), self.expr_want(i, env, &index));
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
    fn e_array(&mut self, xs: &[Expr], sp: Sp, env: &Env, want: &Want) -> Elaborated {
        let refs: Vec<&Expr> = xs.iter().collect();
        let items = self.agree(&refs, env, &want.elem());
        let items: Vec<Core> = items.into_iter().collect::<Result<_, _>>()?;
        let elem = items.first().map(|x| x.ty.clone()).unwrap_or(Type::F64);
        for (x, e) in items.iter().zip(xs).skip(1) {
            if !x.ty.same(&elem) {
                self.clash(&items[0], x);
                self.err(
                    x.span,
                    format!(
                        "mismatched {}: array literal elements must agree; the first is `{elem}`, this one is `{}`{}",
                        mismatch(&elem, &x.ty),
                        x.ty,
                        convert_help(e, &x.ty, &elem)
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
    fn e_if(&mut self, c: &Expr, a: &Expr, b: &Expr, sp: Sp, env: &Env, want: &Want) -> Elaborated {
        let cond = self.expr(c, env);
        let mut branches = self.agree(&[a, b], env, want).into_iter();
        let (ca, cb) = (
            branches.next().unwrap_or(Err(())),
            branches.next().unwrap_or(Err(())),
        );
        let (c, ca, cb) = (cond?, ca?, cb?);
        if c.ty != Type::Bool {
            self.err(
                c.span,
                format!("an `if` condition is a `bool`, found `{}`", c.ty),
            );
            return Err(());
        }
        if !ca.ty.same(&cb.ty) {
            self.clash(&ca, &cb);
            // An integer literal beside a float is the literal's mistake (`if i == 0 { 0 }
            // else { s + x[i] }`): the help and the error are on it.
            let floats = |t: &Type| matches!(t, Type::F64 | Type::F32);
            let (at, help) = match (&a.kind, &b.kind) {
                (ExprKind::Int(_), _) if floats(&cb.ty) => {
                    (ca.span, convert_help(a, &ca.ty, &cb.ty))
                }
                _ => (cb.span, convert_help(b, &cb.ty, &ca.ty)),
            };
            self.err(
                at,
                format!(
                    "mismatched {}: `if` branches must agree; the `then` branch is `{}`, the `else` branch is `{}`{}{}",
                    mismatch(&ca.ty, &cb.ty),
                    ca.ty,
                    cb.ty,
                    super::tuples::parts_note(&ca.ty, &cb.ty, "the `then` branch gives", "the `else` branch"),
                    help
                ),
            );
            return Err(());
        }
        let ty = ca.ty.clone();
        Ok(Core::new(
            Kind::If(Box::new(c), Box::new(ca), Box::new(cb)),
            ty,
            sp,
        ))
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

/// True when a value of type `t` clashes with the float type `want` expects.
fn want_clash(want: &Want, t: &Type) -> bool {
    match (want, t) {
        (Want::Scalar(s), t) => s.is_float() && t.scalar().is_some_and(|x| x.is_float() && x != *s),
        (Want::Tuple(ws), Type::Tuple(ts)) => ws.iter().zip(ts).any(|(w, t)| want_clash(w, t)),
        _ => false,
    }
}

/// The number of components of a tuple literal (or of the start of an `ifold` or `scan`).
pub(super) fn tuple_arity(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Tuple(xs) => Some(xs.len()),
        ExprKind::Ifold(_, init, ..) | ExprKind::Scan(_, init, ..) => tuple_arity(init),
        _ => None,
    }
}

/// Expectation `w` of a retypable value after the clashes `ds` (the whole value, or a
/// component of a tuple of `arity` components): those parts become `f32`.
pub(super) fn retyped(w: &Want, ds: &[Option<usize>], arity: Option<usize>) -> Want {
    let f32 = Want::Scalar(Scalar::F32);
    let mut w = w.clone();
    for d in ds {
        w = match (d, arity) {
            (Some(k), Some(n)) => {
                let mut parts = match &w {
                    Want::Tuple(ps) if ps.len() == n => ps.clone(),
                    _ => vec![Want::Any; n],
                };
                if *k < n {
                    parts[*k] = f32.clone();
                }
                Want::Tuple(parts)
            }
            (None, Some(n)) => Want::Tuple(vec![f32.clone(); n]),
            _ => f32.clone(),
        };
    }
    w
}

/// The word for a difference between types `a` and `b`: `types` when only the scalar
/// types differ, `shapes` otherwise.
pub(super) fn mismatch(a: &Type, b: &Type) -> &'static str {
    let same_dims =
        a.dims().len() == b.dims().len() && a.dims().iter().zip(b.dims()).all(|(x, y)| x.same(y));
    if !a.is_tuple() && !b.is_tuple() && same_dims && a.scalar() != b.scalar() {
        "types"
    } else {
        "shapes"
    }
}
