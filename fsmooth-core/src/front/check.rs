//! `check`: names, types and the shape translation (the paper's S), elaborating each kernel
//! into the core IR with every helper call and closure inlined.
//!
//! Every function of the block is checked once on its own, generically in its size names, and
//! errors are reported on the user's tokens. Kernels are then elaborated: a call unifies the
//! callee's size names with the caller's shapes and inlines the callee's body at those sizes.
//! Errors inside an inlined body are the callee's own (already reported by its generic
//! check); a failure that only the instantiation reveals is reported at the call.

use crate::front::ast::{
    self, BinOp, CastTy, Expr, ExprKind, FnDef, MathFn, Name, SizeAst, SizeOp, Sp, Ty, UnOp,
};
use crate::front::diag::{Diags, closest};
use crate::front::size::Size;
use crate::middle::ir::{Core, KParam, Kernel, Kind, Pin, Type, VarId};
use proc_macro2::Span;
use std::collections::HashMap;
use std::rc::Rc;

/// The prelude's source text.
pub const PRELUDE: &str = include_str!("prelude.fs");

/// The functions in scope in a block: the user's, then the prelude's (shadowed by the user's).
pub struct Scope {
    /// Every function, user functions first.
    pub fns: Vec<FnDef>,
    /// How many of `fns` are the user's.
    pub user: usize,
    /// The block's options.
    pub options: ast::Options,
}

impl Scope {
    /// The user's program joined with the prelude.
    pub fn new(program: ast::Program) -> Scope {
        let user = program.fns.len();
        let options = program.options;
        let mut fns = program.fns;
        let mut d = Diags::default();
        let prelude = PRELUDE
            .parse::<proc_macro2::TokenStream>()
            .ok()
            .and_then(|t| crate::front::parse::parse(t, &mut d))
            .map(|p| p.fns)
            .unwrap_or_default();
        for f in prelude {
            if !fns[..user].iter().any(|u| u.name.s == f.name.s) {
                fns.push(f);
            }
        }
        Scope { fns, user, options }
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.fns.iter().position(|f| f.name.s == name)
    }
}

/// Check every user function, and elaborate the valid kernels.
pub fn check(scope: &Scope, diags: &mut Diags) -> Vec<Kernel> {
    for (k, f) in scope.fns[..scope.user].iter().enumerate() {
        if matches!(f.name.s.as_str(), "build" | "ifold" | "length") {
            diags.error(
                f.name.span,
                format!("`{}` is built into fsmooth: choose another name", f.name.s),
            );
        }
        if scope.fns[..k].iter().any(|g| g.name.s == f.name.s) {
            diags.error(
                f.name.span,
                format!("`{}` is defined twice in this block", f.name.s),
            );
        }
        for p in &f.params {
            if matches!(p.name.s.as_str(), "out" | "region" | "scratch") && f.public {
                diags.error(
                    p.name.span,
                    format!("`{}` is a name the generated kernel uses for itself: rename this parameter", p.name.s),
                );
            }
        }
    }
    let recursive = find_recursion(scope, diags);
    let mut kernels = Vec::new();
    for (fi, f) in scope.fns[..scope.user].iter().enumerate() {
        if recursive.contains(&fi) {
            continue;
        }
        if let Some(k) = check_fn(scope, fi, &recursive, diags)
            && f.public
        {
            kernels.push(k);
        }
    }
    kernels
}

/// Size names of a type, in order of first appearance.
fn ty_size_names(t: &Ty, out: &mut Vec<String>) {
    match t {
        Ty::Array(e, n, _) => {
            // Textual order: `[[f64; m]; n]` mentions m first.
            ty_size_names(e, out);
            let mut v = Vec::new();
            n.names(&mut v);
            for x in v {
                if !out.contains(&x.s) {
                    out.push(x.s.clone());
                }
            }
        }
        Ty::Fn(ps, r, _) => {
            for p in ps {
                ty_size_names(p, out);
            }
            ty_size_names(r, out);
        }
        _ => {}
    }
}

fn size_of(s: &SizeAst) -> Size {
    match s {
        SizeAst::Lit(v, _) => Size::Lit(*v),
        SizeAst::Name(n) => Size::Name(n.s.clone()),
        SizeAst::Bin(op, a, b, _) => {
            let (a, b) = (Box::new(size_of(a)), Box::new(size_of(b)));
            match op {
                SizeOp::Add => Size::Add(a, b),
                SizeOp::Sub => Size::Sub(a, b),
                SizeOp::Mul => Size::Mul(a, b),
                SizeOp::Div => Size::Div(a, b),
            }
        }
    }
}

/// A written type as a checker type (function types are handled by callers).
fn ty_of(t: &Ty, diags: &mut Diags) -> Option<Type> {
    match t {
        Ty::F64(_) => Some(Type::F64),
        Ty::Usize(_) => Some(Type::Usize),
        Ty::Bool(_) => Some(Type::Bool),
        Ty::Array(e, n, sp) => {
            let inner = ty_of(e, diags)?;
            match inner {
                Type::F64 => Some(Type::Arr(vec![size_of(n)])),
                Type::Arr(mut d) => {
                    d.insert(0, size_of(n));
                    Some(Type::Arr(d))
                }
                other => {
                    diags.error(
                        *sp,
                        format!("arrays hold `f64` (or arrays of f64), not `{other}`"),
                    );
                    None
                }
            }
        }
        Ty::Fn(_, _, sp) => {
            diags.error(
                *sp,
                "a function type is allowed only as a parameter of a private helper",
            );
            None
        }
    }
}

/// Find cycles in the call graph; report each at a call that closes it.
fn find_recursion(scope: &Scope, diags: &mut Diags) -> Vec<usize> {
    fn calls(e: &Expr, out: &mut Vec<(String, Span)>) {
        if let ExprKind::Call(n, _) = &e.kind {
            out.push((n.s.clone(), n.span));
        }
        visit(e, &mut |c| calls(c, out));
    }
    let n = scope.fns.len();
    let edges: Vec<Vec<(usize, Span)>> = scope
        .fns
        .iter()
        .map(|f| {
            let mut cs = Vec::new();
            calls(&f.body, &mut cs);
            cs.into_iter()
                .filter(|(name, _)| !f.params.iter().any(|p| &p.name.s == name))
                .filter_map(|(name, sp)| scope.find(&name).map(|i| (i, sp)))
                .collect()
        })
        .collect();
    let mut bad: Vec<usize> = Vec::new();
    for start in 0..scope.user {
        let already = bad.contains(&start);
        // Depth-first search for a path back to `start`.
        let mut stack = vec![(start, 0usize)];
        let mut seen = vec![false; n];
        while let Some((f, k)) = stack.last().copied() {
            if k >= edges[f].len() {
                stack.pop();
                continue;
            }
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            let (g, sp) = edges[f][k];
            if g == start {
                let path: Vec<String> = stack
                    .iter()
                    .map(|(x, _)| format!("`{}`", scope.fns[*x].name.s))
                    .chain([format!("`{}`", scope.fns[start].name.s)])
                    .collect();
                if already {
                    // This function's cycle was reported from another of its members.
                } else if f == start {
                    diags.error(
                        sp,
                        format!(
                            "recursion: {} calls itself; fsmooth has `build` and `ifold` instead of recursion",
                            path[0]
                        ),
                    );
                } else if f < scope.user {
                    diags.error(
                        sp,
                        format!(
                            "recursion: {}; fsmooth has `build` and `ifold` instead of recursion",
                            path.join(" calls ")
                        ),
                    );
                }
                // Every member of the cycle is recursive: report the cycle once.
                for (x, _) in &stack {
                    if !bad.contains(x) {
                        bad.push(*x);
                    }
                }
                if !bad.contains(&start) {
                    bad.push(start);
                }
                break;
            }
            if !seen[g] {
                seen[g] = true;
                stack.push((g, 0));
            }
        }
    }
    bad
}

/// Call `f` on each direct sub-expression.
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Var(_)
        | ExprKind::Error => {}
        ExprKind::Block(lets, t) => {
            for l in lets {
                f(&l.value);
            }
            f(t);
        }
        ExprKind::Index(a, b) | ExprKind::Bin(_, a, b) => {
            f(a);
            f(b);
        }
        ExprKind::Slice(a, lo, hi) => {
            f(a);
            if let Some(x) = lo {
                f(x);
            }
            if let Some(x) = hi {
                f(x);
            }
        }
        ExprKind::Len(a) | ExprKind::Un(_, a) | ExprKind::Cast(a, _) => f(a),
        ExprKind::Build(n, _, b) => {
            f(n);
            f(b);
        }
        ExprKind::Ifold(n, i, _, _, b) => {
            f(n);
            f(i);
            f(b);
        }
        ExprKind::Array(xs) | ExprKind::Call(_, xs) => xs.iter().for_each(f),
        ExprKind::If(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
        ExprKind::Math(_, r, xs) => {
            f(r);
            xs.iter().for_each(f);
        }
        ExprKind::Closure(_, b) => f(b),
    }
}

/// The text of an expression, for run-time error messages.
pub fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Var(n) => n.s.clone(),
        ExprKind::Bin(op, a, b) => format!("{} {} {}", show_p(a), op.symbol(), show_p(b)),
        ExprKind::Len(a) => format!("{}.len()", show_p(a)),
        ExprKind::Index(a, i) => format!("{}[{}]", show_p(a), show(i)),
        ExprKind::Cast(a, CastTy::Usize) => format!("{} as usize", show_p(a)),
        ExprKind::Cast(a, CastTy::F64) => format!("{} as f64", show_p(a)),
        ExprKind::Call(n, xs) => format!(
            "{}({})",
            n.s,
            xs.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        _ => "..".to_string(),
    }
}

fn show_p(e: &Expr) -> String {
    match e.kind {
        ExprKind::Bin(..) | ExprKind::Cast(..) => format!("({})", show(e)),
        _ => show(e),
    }
}

/// `e as f64`, parenthesised only when needed.
fn as_f64(e: &Expr) -> String {
    format!("{} as f64", show_p(e))
}

#[derive(Clone)]
enum Bind {
    /// A value held in a core variable.
    Val(VarId, Type, Option<Size>),
    /// A size name: a `usize` known before the loops.
    Size(Size),
    /// A function value.
    Fun(Rc<FunVal>),
}

enum FunVal {
    Def(usize),
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

type Env = Vec<(String, Bind)>;

struct Elab<'a> {
    scope: &'a Scope,
    /// Functions on a call cycle (already reported): calls to them fail quietly.
    recursive: &'a [usize],
    diags: &'a mut Diags,
    /// Report errors (false inside inlined bodies: those are the callee's own).
    report: bool,
    /// The first error suppressed while `report` was false.
    suppressed: Option<String>,
    names: Vec<String>,
    depth: usize,
    /// Calls inlined so far: bounded, so that helpers calling helpers twice over cannot make
    /// the macro run (nearly) forever.
    inlined: usize,
}

/// How many calls one function may inline in all.
const MAX_INLINED: usize = 5_000;

type R = Result<Core, ()>;

impl Elab<'_> {
    fn err(&mut self, span: impl Into<Sp>, msg: impl std::fmt::Display) {
        if self.report {
            self.diags.error(span, msg);
        } else if self.suppressed.is_none() {
            self.suppressed = Some(msg.to_string());
        }
    }

    fn fresh(&mut self, name: &str) -> VarId {
        self.names.push(name.to_string());
        (self.names.len() - 1) as VarId
    }

    fn lookup<'e>(&self, env: &'e Env, name: &str) -> Option<&'e Bind> {
        env.iter().rev().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    fn unknown_name(&mut self, env: &Env, n: &Name, what: &str) {
        let mut cands: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        cands.extend(self.scope.fns.iter().map(|f| f.name.s.as_str()));
        cands.extend(["build", "ifold", "length"]);
        let hint = closest(&n.s, cands)
            .map(|c| format!("\n  help: did you mean `{c}`?"))
            .unwrap_or_default();
        self.err(
            n.span,
            format!("cannot find {what} `{}` in this block{hint}", n.s),
        );
    }

    fn expr(&mut self, e: &Expr, env: &Env) -> R {
        let sp = e.span;
        match &e.kind {
            // Already reported by the parser.
            ExprKind::Error => Err(()),
            ExprKind::Float(v) => Ok(Core::new(Kind::F64(*v), Type::F64, sp)),
            ExprKind::Int(v) => Ok(Core::size(Size::Lit(*v), sp)),
            ExprKind::Bool(b) => Ok(Core::new(Kind::Bool(*b), Type::Bool, sp)),
            ExprKind::Var(n) => match self.lookup(env, &n.s).cloned() {
                Some(Bind::Val(id, ty, sym)) => Ok(Core {
                    kind: Kind::Var(id),
                    ty,
                    sym,
                    span: sp,
                }),
                Some(Bind::Size(s)) => Ok(Core::size(s, sp)),
                Some(Bind::Fun(_)) => {
                    self.err(
                        sp,
                        format!("`{}` is a function: call it, `{}(..)`", n.s, n.s),
                    );
                    Err(())
                }
                None if self.scope.find(&n.s).is_some() => {
                    self.err(
                        sp,
                        format!("`{}` is a function: call it, `{}(..)`", n.s, n.s),
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
                    Type::Arr(d) => Ok(Core::size(d[0].clone(), sp)),
                    other => {
                        self.err(a.span, format!("`len` needs an array, found `{other}`"));
                        Err(())
                    }
                }
            }
            ExprKind::Build(n, i, body) => self.e_build(n, i, body, sp, env),
            ExprKind::Ifold(..) => self.e_ifold(e, env),
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
                let one = Core::new(Kind::F64(1.0), Type::F64, sp);
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
    fn e_block(&mut self, lets: &[ast::Let], tail: &Expr, sp: Sp, env: &Env) -> R {
        let mut env = env.clone();
        let mut bound = Vec::new();
        let mut ok = true;
        for l in lets {
            let v = self.expr(&l.value, &env);
            let v = match v {
                Ok(v) => v,
                Err(()) => {
                    ok = false;
                    continue;
                }
            };
            if let Some(t) = &l.ty
                && let Some(want) = ty_of(t, self.diags)
                && !want.same(&v.ty)
            {
                self.err(
                    l.value.span,
                    format!(
                        "mismatched shapes: `{}` is declared `{want}`, but its value is `{}`",
                        l.name.s, v.ty
                    ),
                );
                ok = false;
            }
            let id = self.fresh(&l.name.s);
            env.push((l.name.s.clone(), Bind::Val(id, v.ty.clone(), v.sym.clone())));
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
    fn e_index(&mut self, a: &Expr, i: &Expr, sp: Sp, env: &Env) -> R {
        let (a, i) = (self.expr(a, env), self.expr(i, env));
        let (a, i) = (a?, i?);
        let dims = match &a.ty {
            Type::Arr(d) => d.clone(),
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
    ) -> R {
        let a = self.expr(a, env)?;
        let dims = match &a.ty {
            Type::Arr(d) => d.clone(),
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
        Ok(Core::new(
            Kind::Slice(Box::new(a), Box::new(lo)),
            Type::Arr(nd),
            sp,
        ))
    }

    #[inline(never)]
    fn e_build(&mut self, n: &Expr, i: &Name, body: &Expr, sp: Sp, env: &Env) -> R {
        let n = self.size_expr(n, env, "`build`'s count")?;
        let id = self.fresh(&i.s);
        let mut env = env.clone();
        env.push((
            i.s.clone(),
            Bind::Val(id, Type::Usize, Some(Size::Loop(id))),
        ));
        let body = self.expr(body, &env)?;
        let ty = match &body.ty {
            Type::F64 => Type::Arr(vec![n.clone()]),
            Type::Arr(d) => Type::Arr([vec![n.clone()], d.clone()].concat()),
            other => {
                self.err(
                    body.span,
                    format!(
                        "arrays hold `f64`: this `build` body is `{other}`{}",
                        if *other == Type::Usize {
                            "; write `(..) as f64`"
                        } else {
                            ""
                        }
                    ),
                );
                return Err(());
            }
        };
        Ok(Core::new(Kind::Build(n, id, Box::new(body)), ty, sp))
    }

    #[inline(never)]
    fn e_ifold(&mut self, e: &Expr, env: &Env) -> R {
        let sp = e.span;
        let ExprKind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Err(());
        };
        let (n, init) = (
            self.usize_expr(n, env, "`ifold`'s count"),
            self.expr(init, env),
        );
        let (n, init) = (n?, init?);
        let aid = self.fresh(&acc.s);
        let iid = self.fresh(&i.s);
        let mut env = env.clone();
        env.push((acc.s.clone(), Bind::Val(aid, init.ty.clone(), None)));
        env.push((
            i.s.clone(),
            Bind::Val(iid, Type::Usize, Some(Size::Loop(iid))),
        ));
        let body = self.expr(body, &env)?;
        if !body.ty.same(&init.ty) {
            self.err(
                body.span,
                format!(
                    "mismatched shapes: the `ifold` body gives `{}`, but the accumulator starts as `{}`",
                    body.ty, init.ty
                ),
            );
            return Err(());
        }
        let ty = init.ty.clone();
        Ok(Core::new(
            Kind::Ifold(Box::new(n), Box::new(init), aid, iid, Box::new(body)),
            ty,
            sp,
        ))
    }

    #[inline(never)]
    fn e_array(&mut self, xs: &[Expr], sp: Sp, env: &Env) -> R {
        let items: Vec<R> = xs.iter().map(|x| self.expr(x, env)).collect();
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
        let ty = match elem {
            Type::F64 => Type::Arr(vec![n]),
            Type::Arr(d) => Type::Arr([vec![n], d].concat()),
            other => {
                self.err(
                    items[0].span,
                    format!("arrays hold `f64`, found `{other}`{}", cast_help(&other)),
                );
                return Err(());
            }
        };
        Ok(Core::new(Kind::Array(items), ty, sp))
    }

    #[inline(never)]
    fn e_if(&mut self, c: &Expr, a: &Expr, b: &Expr, sp: Sp, env: &Env) -> R {
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
                    "mismatched shapes: `if` branches must agree; the `then` branch is `{}`, the `else` branch is `{}`",
                    a.ty, b.ty
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
    fn e_un(&mut self, op: &UnOp, a: &Expr, sp: Sp, env: &Env) -> R {
        let a = self.expr(a, env)?;
        match (op, &a.ty) {
            (UnOp::Neg, Type::F64) => Ok(Core::new(Kind::Neg(Box::new(a)), Type::F64, sp)),
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
    fn e_cast(&mut self, a: &Expr, to: &CastTy, sp: Sp, env: &Env) -> R {
        let a = self.expr(a, env)?;
        match (&a.ty, to) {
            (Type::F64 | Type::Usize, CastTy::F64) => {
                if a.ty == Type::F64 {
                    return Ok(a);
                }
                Ok(Core::new(
                    Kind::Cast(CastTy::F64, Box::new(a)),
                    Type::F64,
                    sp,
                ))
            }
            (Type::Usize, CastTy::Usize) => Ok(a),
            (Type::F64, CastTy::Usize) => Ok(Core::new(
                Kind::Cast(CastTy::Usize, Box::new(a)),
                Type::Usize,
                sp,
            )),
            (t, _) => {
                self.err(
                    sp,
                    format!("cannot cast `{t}`: `as` converts between `f64` and `usize`"),
                );
                Err(())
            }
        }
    }

    #[inline(never)]
    fn e_math(&mut self, f: &MathFn, r: &Expr, args: &[Expr], sp: Sp, env: &Env) -> R {
        let r = self.expr(r, env);
        let args: Vec<R> = args.iter().map(|x| self.expr(x, env)).collect();
        let r = r?;
        let args: Vec<Core> = args.into_iter().collect::<Result<_, _>>()?;
        if r.ty != Type::F64 {
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
            return Ok(Core::new(Kind::Math(*f, vec![r, k]), Type::F64, sp));
        }
        for a in &args {
            if a.ty != Type::F64 {
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
        Ok(Core::new(
            Kind::Math(*f, [vec![r], args].concat()),
            Type::F64,
            sp,
        ))
    }

    /// An expression that must be a usize.
    fn usize_expr(&mut self, e: &Expr, env: &Env, what: &str) -> R {
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
    fn size_expr(&mut self, e: &Expr, env: &Env, what: &str) -> Result<Size, ()> {
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

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, e: &Expr, env: &Env) -> R {
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
            (Type::F64, Type::F64) if op.is_arith() => Ok(mk(Type::F64, None, ca, cb)),
            (Type::F64, Type::F64) if op.is_cmp() => Ok(mk(Type::Bool, None, ca, cb)),
            (Type::Usize, Type::Usize) if op.is_arith() => {
                let sym = match (&ca.sym, &cb.sym) {
                    (Some(x), Some(y)) => {
                        let (x, y) = (Box::new(x.clone()), Box::new(y.clone()));
                        Some(match op {
                            BinOp::Add => Size::Add(x, y),
                            BinOp::Sub => Size::Sub(x, y),
                            BinOp::Mul => Size::Mul(x, y),
                            BinOp::Div => Size::Div(x, y),
                            _ => Size::Rem(x, y),
                        })
                    }
                    _ => None,
                };
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
            (Type::Arr(_), _) | (_, Type::Arr(_)) => {
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

    fn call(&mut self, n: &Name, args: &[Expr], e: &Expr, env: &Env) -> R {
        let fun = match self.lookup(env, &n.s) {
            Some(Bind::Fun(f)) => f.clone(),
            Some(_) => {
                self.err(n.span, format!("`{}` is not a function", n.s));
                return Err(());
            }
            None => match self.scope.find(&n.s) {
                Some(fi) => Rc::new(FunVal::Def(fi)),
                None => {
                    self.unknown_name(env, n, "function");
                    return Err(());
                }
            },
        };
        self.apply(&fun, n, args, e.span, env)
    }

    fn apply(&mut self, fun: &FunVal, n: &Name, args: &[Expr], sp: Sp, env: &Env) -> R {
        match fun {
            FunVal::Def(fi) => self.call_def(*fi, n, args, sp, env),
            FunVal::Closure {
                params,
                body,
                env: cenv,
                report,
                expect,
            } => {
                if params.len() != args.len() {
                    self.err(
                        sp,
                        format!(
                            "this closure takes {} arguments, found {}",
                            params.len(),
                            args.len()
                        ),
                    );
                    return Err(());
                }
                let vals: Vec<R> = args.iter().map(|a| self.expr(a, env)).collect();
                let vals: Vec<Core> = vals.into_iter().collect::<Result<_, _>>()?;
                let mut cenv = cenv.clone();
                let mut bound = Vec::new();
                for (p, v) in params.iter().zip(vals) {
                    let id = self.fresh(&p.s);
                    cenv.push((p.s.clone(), Bind::Val(id, v.ty.clone(), v.sym.clone())));
                    bound.push((id, v));
                }
                let saved = self.report;
                self.report = *report;
                let r = self.expr(body, &cenv);
                let r = match (r, expect) {
                    (Ok(r), Some((want, what))) if !r.ty.same(want) => {
                        self.err(
                            body.span,
                            format!("mismatched types: this closure gives `{}`, but {what} must give `{want}`", r.ty),
                        );
                        Err(())
                    }
                    (r, _) => r,
                };
                self.report = saved;
                Ok(wrap_lets(bound, r?, sp))
            }
            FunVal::Opaque(ptys, rty) => {
                if ptys.len() != args.len() {
                    self.err(
                        sp,
                        format!(
                            "`{}` takes {} arguments, found {}",
                            n.s,
                            ptys.len(),
                            args.len()
                        ),
                    );
                    return Err(());
                }
                for (a, t) in args.iter().zip(ptys) {
                    let v = self.expr(a, env)?;
                    if !v.ty.same(t) {
                        self.err(
                            v.span,
                            format!(
                                "mismatched shapes: `{}` expects `{t}`, found `{}`",
                                n.s, v.ty
                            ),
                        );
                        return Err(());
                    }
                }
                // Only the type matters in a generic check.
                Ok(placeholder(rty, sp))
            }
        }
    }

    fn call_def(&mut self, fi: usize, n: &Name, args: &[Expr], sp: Sp, env: &Env) -> R {
        let f = &self.scope.fns[fi];
        if f.params.len() != args.len() {
            let sig: Vec<String> = f.params.iter().map(|p| p.name.s.clone()).collect();
            self.err(
                sp,
                format!(
                    "`{}` takes {} argument{} ({}), found {}",
                    n.s,
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    sig.join(", "),
                    args.len()
                ),
            );
            return Err(());
        }
        if self.recursive.contains(&fi) {
            return Err(());
        }
        if self.depth > 64 {
            self.err(sp, "functions nest too deeply");
            return Err(());
        }
        self.inlined += 1;
        if self.inlined > MAX_INLINED {
            if self.inlined == MAX_INLINED + 1 {
                let was = std::mem::replace(&mut self.report, true);
                self.err(
                    sp,
                    format!("inlining this call exceeds {MAX_INLINED} inlined calls: the function expands to too much code (does a helper call another several times, many levels deep?)"),
                );
                self.report = was;
            }
            return Err(());
        }
        // Elaborate the arguments: values, or function values for function parameters.
        let mut vals: Vec<Option<Core>> = Vec::new();
        let mut funs: Vec<Option<Rc<FunVal>>> = Vec::new();
        let mut ok = true;
        for (p, a) in f.params.iter().zip(args) {
            if let Ty::Fn(..) = p.ty {
                let fv = match &a.kind {
                    ExprKind::Closure(ps, body) => Some(Rc::new(FunVal::Closure {
                        params: ps.clone(),
                        body: (**body).clone(),
                        env: env.clone(),
                        report: self.report,
                        expect: None,
                    })),
                    ExprKind::Var(v) => match self.lookup(env, &v.s) {
                        Some(Bind::Fun(g)) => Some(g.clone()),
                        Some(_) => None,
                        None => self.scope.find(&v.s).map(|g| Rc::new(FunVal::Def(g))),
                    },
                    _ => None,
                };
                if fv.is_none() {
                    self.err(
                        a.span,
                        format!("`{}` of `{}` is a function parameter: pass a closure such as `|x| x * 2.0` or a function's name", p.name.s, n.s),
                    );
                    ok = false;
                }
                funs.push(fv);
                vals.push(None);
            } else {
                match self.expr(a, env) {
                    Ok(v) => vals.push(Some(v)),
                    Err(()) => ok = false,
                }
                funs.push(None);
            }
        }
        if !ok {
            return Err(());
        }
        let f = &self.scope.fns[fi];
        // Unify the callee's size names with the arguments' shapes.
        let mut sizes: HashMap<String, Size> = HashMap::new();
        let mut from: HashMap<String, String> = HashMap::new();
        for (p, v) in f.params.iter().zip(&vals) {
            if let (Ty::Usize(_), Some(v)) = (&p.ty, v)
                && let Some(s) = &v.sym
                && !s.has_loop()
            {
                sizes.insert(p.name.s.clone(), s.clone());
                from.insert(p.name.s.clone(), format!("`{}`", p.name.s));
            }
        }
        let mut ptys: Vec<Option<Type>> = Vec::new();
        for (p, v) in f.params.iter().zip(&vals) {
            let t = match &p.ty {
                Ty::Fn(..) => None,
                t => {
                    let mut d = Diags::default();
                    ty_of(t, &mut d)
                }
            };
            if let (Some(Type::Arr(pd)), Some(v)) = (&t, v)
                && let Type::Arr(ad) = &v.ty
                && pd.len() == ad.len()
            {
                for (x, y) in pd.iter().zip(ad) {
                    if let Size::Name(nm) = x
                        && !sizes.contains_key(nm)
                    {
                        sizes.insert(nm.clone(), y.clone());
                        from.insert(nm.clone(), format!("`{}`", p.name.s));
                    }
                }
            }
            ptys.push(t);
        }
        let sub = |s: &Size| s.subst(&|nm| sizes.get(nm).cloned());
        let subty = |t: &Type| match t {
            Type::Arr(d) => Type::Arr(d.iter().map(sub).collect()),
            t => t.clone(),
        };
        let mut bad = false;
        for ((p, v), t) in f.params.iter().zip(&vals).zip(&ptys) {
            let (Some(v), Some(t)) = (v, t) else { continue };
            let want = subty(t);
            let unbound: Vec<String> = {
                let mut ns = Vec::new();
                for d in want.dims() {
                    d.names(&mut ns);
                }
                ns.into_iter()
                    .filter(|x| {
                        !sizes.contains_key(x)
                            && t.dims().iter().any(|d| {
                                let mut v = Vec::new();
                                d.names(&mut v);
                                v.contains(x)
                            })
                    })
                    .collect()
            };
            if !unbound.is_empty() || !want.same(&v.ty) {
                let mut names = Vec::new();
                for d in t.dims() {
                    d.names(&mut names);
                }
                let fixed: Vec<String> = names
                    .iter()
                    .filter_map(|nm| {
                        let (s, src) = (sizes.get(nm)?, from.get(nm)?);
                        (*src != format!("`{}`", p.name.s))
                            .then(|| format!("`{nm}` is `{s}`, fixed by argument {src}"))
                    })
                    .collect();
                let note = if fixed.is_empty() {
                    String::new()
                } else {
                    format!(
                        "\n  note: `{}` takes `{}: {t}`, and in this call {}",
                        n.s,
                        p.name.s,
                        fixed.join(", ")
                    )
                };
                // Two different size names: say what would make them agree.
                let help = want
                    .dims()
                    .iter()
                    .zip(v.ty.dims())
                    .find(|(a, b)| !a.same(b) && a.as_const().is_none() && b.as_const().is_none())
                    .map(|(a, b)| {
                        format!("\n  help: nothing says `{a}` == `{b}`; if they are always equal, use one size name for both")
                    })
                    .unwrap_or_default();
                self.err(
                    v.span,
                    format!(
                        "mismatched shapes: argument `{}` of `{}` expects `{}`, found `{}`{note}{help}",
                        p.name.s,
                        n.s,
                        if unbound.is_empty() {
                            want.to_string()
                        } else {
                            t.to_string()
                        },
                        v.ty
                    ),
                );
                bad = true;
            } else if *t != Type::Usize && !v.ty.same(&want) {
                bad = true;
            } else if matches!(t, Type::F64 | Type::Bool | Type::Usize) && v.ty != *t {
                self.err(
                    v.span,
                    format!(
                        "mismatched types: argument `{}` of `{}` is `{t}`, found `{}`{}",
                        p.name.s,
                        n.s,
                        v.ty,
                        cast_help(&v.ty)
                    ),
                );
                bad = true;
            }
        }
        if bad {
            return Err(());
        }
        // Inline the callee at these sizes.
        let mut cenv: Env = Vec::new();
        for (k, s) in &sizes {
            cenv.push((k.clone(), Bind::Size(s.clone())));
        }
        let mut bound = Vec::new();
        for ((p, v), fv) in f.params.iter().zip(vals).zip(funs) {
            if let Some(fv) = fv {
                // A closure learns the result type its parameter declares, at these sizes.
                let fv = match (&*fv, &p.ty) {
                    (
                        FunVal::Closure {
                            params,
                            body,
                            env,
                            report,
                            ..
                        },
                        Ty::Fn(_, r, _),
                    ) => {
                        let mut d = Diags::default();
                        let want = ty_of(r, &mut d).map(|t| subty(&t));
                        Rc::new(FunVal::Closure {
                            params: params.clone(),
                            body: body.clone(),
                            env: env.clone(),
                            report: *report,
                            expect: want.map(|t| (t, format!("`{}` of `{}`", p.name.s, n.s))),
                        })
                    }
                    _ => fv,
                };
                cenv.push((p.name.s.clone(), Bind::Fun(fv)));
            } else if let Some(v) = v {
                if matches!(p.ty, Ty::Usize(_)) && sizes.contains_key(&p.name.s) {
                    continue;
                }
                let id = self.fresh(&p.name.s);
                cenv.push((p.name.s.clone(), Bind::Val(id, v.ty.clone(), v.sym.clone())));
                bound.push((id, v));
            }
        }
        let ret = match &f.ret {
            Ty::Fn(..) => None,
            t => {
                let mut d = Diags::default();
                ty_of(t, &mut d).map(|t| subty(&t))
            }
        };
        let body = f.body.clone();
        let saved = (self.report, self.suppressed.take());
        self.report = false;
        self.depth += 1;
        let r = self.expr(&body, &cenv);
        self.depth -= 1;
        self.report = saved.0;
        let inner = std::mem::replace(&mut self.suppressed, saved.1);
        let mut r = match r {
            Ok(r) => r,
            Err(()) => {
                if let Some(msg) = inner {
                    self.err(sp, format!("in this call to `{}`: {msg}", n.s));
                }
                return Err(());
            }
        };
        if let Some(ret) = ret {
            if !ret.same(&r.ty) {
                self.err(
                    sp,
                    format!(
                        "in this call to `{}`: its body gives `{}`, but it declares `{ret}`",
                        n.s, r.ty
                    ),
                );
                return Err(());
            }
            r.ty = ret;
        }
        Ok(wrap_lets(bound, r, sp))
    }
}

fn wrap_lets(bound: Vec<(VarId, Core)>, body: Core, sp: Sp) -> Core {
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

fn placeholder(t: &Type, sp: Sp) -> Core {
    match t {
        Type::Bool => Core::new(Kind::Bool(false), Type::Bool, sp),
        Type::Usize => Core::new(Kind::Size(Size::Lit(0)), Type::Usize, sp),
        t => Core::new(Kind::F64(0.0), t.clone(), sp),
    }
}

fn cast_help(t: &Type) -> &'static str {
    match t {
        Type::Usize => "\n  help: convert with `as f64`",
        Type::F64 => "\n  help: convert with `as usize`",
        _ => "",
    }
}

fn arr_help(t: &Type) -> &'static str {
    if t.is_arr() {
        "\n  help: for arrays use the prelude (`add`, `sub`, `emul`, `smul`) or `build`"
    } else {
        ""
    }
}

/// Check function `fi` generically; for a valid kernel, return its elaboration.
fn check_fn(scope: &Scope, fi: usize, recursive: &[usize], diags: &mut Diags) -> Option<Kernel> {
    let f = &scope.fns[fi];
    let mut el = Elab {
        scope,
        recursive,
        diags,
        report: true,
        suppressed: None,
        names: Vec::new(),
        depth: 0,
        inlined: 0,
    };
    let mut env: Env = Vec::new();
    let mut sizes: Vec<String> = Vec::new();
    let mut params = Vec::new();
    let mut ok = true;
    for p in &f.params {
        if let Ty::Usize(_) = p.ty
            && !sizes.contains(&p.name.s)
        {
            sizes.push(p.name.s.clone());
        }
        ty_size_names(&p.ty, &mut sizes);
    }
    for s in &sizes {
        env.push((s.clone(), Bind::Size(Size::Name(s.clone()))));
    }
    for (k, p) in f.params.iter().enumerate() {
        if f.params[..k].iter().any(|q| q.name.s == p.name.s) {
            el.err(
                p.name.span,
                format!("parameter `{}` is declared twice", p.name.s),
            );
            ok = false;
        }
        match &p.ty {
            Ty::Fn(ps, r, sp) => {
                if f.public {
                    // Bound anyway, so its uses raise no second error.
                    let ps: Option<Vec<Type>> =
                        ps.iter().map(|t| ty_of(t, &mut Diags::default())).collect();
                    if let (Some(ps), Some(r)) = (ps, ty_of(r, &mut Diags::default())) {
                        env.push((p.name.s.clone(), Bind::Fun(Rc::new(FunVal::Opaque(ps, r)))));
                    }
                    el.err(
                        *sp,
                        format!("kernel `{}` takes a function parameter: only private helpers can (kernels become Rust functions over slices)\n  help: make a private `fn` take `{}` and call it from the kernel with a closure", f.name.s, p.name.s),
                    );
                    ok = false;
                    continue;
                }
                let ps: Option<Vec<Type>> = ps.iter().map(|t| ty_of(t, el.diags)).collect();
                let r = ty_of(r, el.diags);
                match (ps, r) {
                    (Some(ps), Some(r)) => {
                        env.push((p.name.s.clone(), Bind::Fun(Rc::new(FunVal::Opaque(ps, r)))))
                    }
                    _ => ok = false,
                }
            }
            Ty::Usize(_) => {
                // A usize parameter is a size name; its value is the size itself.
                let id = el.fresh(&p.name.s);
                params.push(KParam {
                    name: p.name.clone(),
                    id,
                    ty: Type::Usize,
                });
            }
            t => match ty_of(t, el.diags) {
                Some(ty) => {
                    let id = el.fresh(&p.name.s);
                    env.push((p.name.s.clone(), Bind::Val(id, ty.clone(), None)));
                    params.push(KParam {
                        name: p.name.clone(),
                        id,
                        ty,
                    });
                }
                None => ok = false,
            },
        }
    }
    let ret = match &f.ret {
        Ty::Fn(_, _, sp) => {
            el.err(*sp, "functions return values, not functions");
            None
        }
        t => ty_of(t, el.diags),
    };
    let mut ret_names = Vec::new();
    ty_size_names(&f.ret, &mut ret_names);
    for nm in ret_names {
        if !sizes.contains(&nm) {
            el.err(
                f.ret.span(),
                format!("size `{nm}` in the return type is not fixed by any parameter\n  help: add a parameter `{nm}: usize`, or use a size from the parameters"),
            );
            ok = false;
        }
    }
    let pins = if f.public {
        pin_sizes(f, &sizes, el.diags)
    } else {
        Some(Vec::new())
    };
    let body = el.expr(&f.body, &env);
    let (body, ret) = match (body, ret) {
        (Ok(b), Some(r)) => (b, r),
        _ => return None,
    };
    // With a size the parameters do not fix, the comparison would only repeat that error.
    if ok && !body.ty.same(&ret) {
        let tail = tail_span(&f.body);
        el.err(
            tail,
            format!(
                "mismatched shapes: `{}` declares `{ret}`, but its body gives `{}`",
                f.name.s, body.ty
            ),
        );
        return None;
    }
    if !ok || !f.public {
        return None;
    }
    let names = el.names;
    Some(Kernel {
        name: f.name.clone(),
        attrs: f.attrs.clone(),
        params,
        ret,
        body,
        sizes,
        pins: pins?,
        var_names: names,
    })
}

fn tail_span(e: &Expr) -> Sp {
    match &e.kind {
        ExprKind::Block(_, t) => tail_span(t),
        _ => e.span,
    }
}

/// Decide how each of a kernel's size names is read from its arguments.
fn pin_sizes(f: &FnDef, sizes: &[String], diags: &mut Diags) -> Option<Vec<Pin>> {
    let given: Vec<String> = f
        .params
        .iter()
        .filter(|p| matches!(p.ty, Ty::Usize(_)))
        .map(|p| p.name.s.clone())
        .collect();
    let (pins, known) = propagate_pins(f, &given);
    let missing: Vec<&String> = sizes.iter().filter(|s| !known.contains(s)).collect();
    if missing.is_empty() {
        return Some(pins);
    }
    // Suggest the fewest `usize` parameters: add the first unknown size, see what the
    // lengths then give, repeat.
    let mut extra = given.clone();
    let mut suggest = Vec::new();
    loop {
        let (_, known) = propagate_pins(f, &extra);
        match sizes.iter().find(|s| !known.contains(s)) {
            Some(s) => {
                suggest.push(format!("`{s}: usize`"));
                extra.push(s.clone());
            }
            None => break,
        }
    }
    let names: Vec<String> = missing.iter().map(|s| format!("`{s}`")).collect();
    let (what, rest) = if missing.len() == 1 {
        ("size", String::new())
    } else if suggest.len() < missing.len() {
        (
            "sizes",
            " (the others then follow from the argument lengths)".to_string(),
        )
    } else {
        ("sizes", String::new())
    };
    // Point at the parameter whose shape mentions the size.
    let at = f
        .params
        .iter()
        .find(|p| {
            let mut ns = Vec::new();
            ty_size_names(&p.ty, &mut ns);
            ns.contains(missing[0])
        })
        .map(|p| Sp::from(p.name.span).to(Sp::from(p.ty.span())))
        .unwrap_or(Sp::from(f.sig_span));
    diags.error(
        at,
        format!(
            "{what} {} of kernel `{}` cannot be read from the argument lengths\n  help: add {} {}{rest}",
            names.join(", "),
            f.name.s,
            if suggest.len() == 1 { "a parameter" } else { "parameters" },
            suggest.join(", ")
        ),
    );
    None
}

/// `size = scale * name + offset` for one size name not yet known, with integer constants.
fn linear(size: &Size, known: &[String]) -> Option<(String, u64, i64)> {
    let mut names = Vec::new();
    size.names(&mut names);
    let [nm] = &names[..] else { return None };
    if known.contains(nm) {
        return None;
    }
    let p = size.poly();
    let mut scale = None;
    let mut offset = 0i64;
    for (m, c) in p.coeffs() {
        if c.fract() != 0.0 {
            return None;
        }
        match &m[..] {
            [] => offset = c as i64,
            [crate::front::size::Atom::Name(x)] if x == nm && c >= 1.0 => scale = Some(c as u64),
            _ => return None,
        }
    }
    Some((nm.clone(), scale?, offset))
}

/// Pins reachable from the `given` sizes: a parameter whose unknown dimensions are all one
/// bare size name fixes it (`[f64; n]`: n = len; `[[f64; n]; n]`: n = sqrt(len)).
fn propagate_pins(f: &FnDef, given: &[String]) -> (Vec<Pin>, Vec<String>) {
    let mut known: Vec<String> = given.to_vec();
    let mut pins: Vec<Pin> = f
        .params
        .iter()
        .filter(|p| matches!(p.ty, Ty::Usize(_)))
        .map(|p| Pin::Param(p.name.s.clone()))
        .collect();
    let arrays: Vec<(&ast::Param, Vec<Size>)> = f
        .params
        .iter()
        .filter_map(|p| match ty_of(&p.ty, &mut Diags::default()) {
            Some(Type::Arr(dims)) => Some((p, dims)),
            _ => None,
        })
        .collect();
    loop {
        let mut progress = false;
        for (p, dims) in &arrays {
            let unknown: Vec<usize> = (0..dims.len())
                .filter(|&k| {
                    let mut ns = Vec::new();
                    dims[k].names(&mut ns);
                    ns.iter().any(|x| !known.contains(x))
                })
                .collect();
            let Some(&k0) = unknown.first() else { continue };
            if let Size::Name(nm) = &dims[k0]
                && unknown
                    .iter()
                    .all(|&k| matches!(&dims[k], Size::Name(x) if x == nm))
            {
                let others = dims
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| !unknown.contains(j))
                    .map(|(_, d)| d.clone())
                    .collect();
                pins.push(Pin::FromLen {
                    name: nm.clone(),
                    param: p.name.s.clone(),
                    others,
                    power: unknown.len(),
                });
                known.push(nm.clone());
                progress = true;
            } else if let [k] = unknown[..]
                && let Some((nm, scale, offset)) = linear(&dims[k], &known)
            {
                // `[f64; 2 * h]` gives h = len / 2, `[f64; n + 1]` gives n = len - 1.
                let others = dims
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, d)| d.clone())
                    .collect();
                pins.push(Pin::Linear {
                    name: nm.clone(),
                    param: p.name.s.clone(),
                    others,
                    scale,
                    offset,
                });
                known.push(nm);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    (pins, known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> (Vec<Kernel>, Vec<String>) {
        let mut d = Diags::default();
        let block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
        (block.kernels, d.messages())
    }

    #[test]
    fn prelude_checks_clean() {
        let mut d = Diags::default();
        crate::pipeline::front(PRELUDE.parse().unwrap(), &mut d).unwrap();
        assert!(d.is_empty(), "{:?}", d.messages());
    }

    #[test]
    fn shapes_flow_through_calls() {
        let (ks, errs) = run("pub fn k(a: [f64; n], b: [f64; n]) -> f64 { norm(add(a, b)) }");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(ks.len(), 1);
        assert_eq!(ks[0].sizes, vec!["n".to_string()]);
    }

    #[test]
    fn reports_mismatched_arguments_with_both_shapes() {
        let (_, errs) = run("pub fn k(a: [f64; 3], b: [f64; 4]) -> [f64; 3] { add(a, b) }");
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].contains("[f64; 3]") && errs[0].contains("[f64; 4]"),
            "{}",
            errs[0]
        );
        let (_, errs) = run("pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n] { add(a, b) }");
        assert!(
            errs[0].contains("`n` = m") || errs[0].contains("[f64; n]"),
            "{errs:?}"
        );
    }

    #[test]
    fn sizes_are_polynomials() {
        let (_, errs) = run("pub fn k(a: [f64; n]) -> [f64; 2 * n] { build(n + n, |i| a[i % n]) }");
        assert!(errs.is_empty(), "{errs:?}");
    }

    #[test]
    fn collects_independent_errors() {
        let (_, errs) = run(
            "pub fn k(a: [f64; n]) -> f64 { sum(a) + 1 }\n pub fn j(a: [f64; n]) -> f64 { sqnrom(a) }",
        );
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[1].contains("sqnorm"));
    }

    #[test]
    fn data_dependent_sizes_and_recursion_are_rejected() {
        let (_, errs) = run("pub fn k(a: [f64; n]) -> f64 { sum(build(a[0] as usize, |i| 1.0)) }");
        assert!(errs[0].contains("depends on data"), "{errs:?}");
        let (_, errs) = run("fn f(x: f64) -> f64 { f(x) }\npub fn k(x: f64) -> f64 { f(x) }");
        assert!(errs.iter().any(|e| e.contains("recursion")), "{errs:?}");
    }

    #[test]
    fn exponential_inlining_is_cut_off() {
        let mut src = String::from("fn f0(x: f64) -> f64 { x }\n");
        for k in 1..40 {
            src += &format!(
                "fn f{k}(x: f64) -> f64 {{ f{}(x) + f{}(x) }}\n",
                k - 1,
                k - 1
            );
        }
        src += "pub fn k(x: f64) -> f64 { f39(x) }";
        let (_, errs) = run(&src);
        assert!(errs.iter().any(|e| e.contains("too much code")), "{errs:?}");
    }

    #[test]
    fn unpinned_sizes_need_a_parameter() {
        let (_, errs) = run("pub fn k(a: [[f64; m]; n]) -> f64 { sum(a[0]) }");
        assert!(
            errs.iter().any(|e| e.contains("add a parameter `m: usize`")
                || e.contains("add a parameter `n: usize`")),
            "{errs:?}"
        );
        let (ks, errs) = run("pub fn k(a: [[f64; m]; n], m: usize) -> f64 { sum(a[0]) }");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(ks[0].sizes, vec!["m".to_string(), "n".to_string()]);
    }
}
