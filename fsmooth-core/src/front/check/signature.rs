//! Written types as checker types, and the generic check of one function: its parameters
//! bound (size names first), its result type, its body elaborated.

use super::Scope;
use super::elab::{Bind, Elab, Env, FunVal};
use super::infer::Want;
use super::pins::pin_sizes;
use super::scalars::convert_help;
use crate::front::ast::{Expr, ExprKind, SizeAst, SizeOp, Ty};
use crate::front::diag::Diags;
use crate::front::size::Size;
use crate::middle::ir::{KParam, Kernel, Type};
use std::collections::HashMap;
use std::rc::Rc;

/// Size names of a type, in order of first appearance.
pub(super) fn ty_size_names(t: &Ty, out: &mut Vec<String>) {
    match t {
        Ty::Array(e, n, _) => {
            // Textual order: `[[f64; m]; n]` mentions m first.
            ty_size_names(e, out);
            let mut v = Vec::new();
            n.names(&mut v);
            for x in v {
                if !out.contains(&x.text) {
                    out.push(x.text.clone());
                }
            }
        }
        Ty::Fn(ps, r, _) => {
            for p in ps {
                ty_size_names(p, out);
            }
            ty_size_names(r, out);
        }
        Ty::Tuple(ps, _) => {
            for p in ps {
                ty_size_names(p, out);
            }
        }
        _ => {}
    }
}

/// A written size as a size.
fn size_of(s: &SizeAst) -> Size {
    match s {
        SizeAst::Lit(v, _) => Size::Lit(*v),
        SizeAst::Name(n) => Size::Name(n.text.clone()),
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
pub(super) fn ty_of(t: &Ty, diags: &mut Diags) -> Option<Type> {
    match t {
        Ty::F64(_) => Some(Type::F64),
        Ty::F32(_) => Some(Type::F32),
        Ty::Usize(_) => Some(Type::Usize),
        Ty::Bool(_) => Some(Type::Bool),
        Ty::Array(e, n, sp) => {
            let inner = ty_of(e, diags)?;
            let arr = Type::array_of(&inner, size_of(n));
            if arr.is_none() {
                diags.error(
                    *sp,
                    format!(
                        "arrays hold `f64`, `f32` or `usize` (or arrays of them), not `{inner}`"
                    ),
                );
            }
            arr
        }
        Ty::Fn(_, _, sp) => {
            diags.error(
                *sp,
                "a function type is allowed only as a parameter of a private helper",
            );
            None
        }
        Ty::Tuple(parts, _) => {
            let parts: Vec<Option<Type>> = parts.iter().map(|p| ty_of(p, diags)).collect();
            Some(Type::Tuple(parts.into_iter().collect::<Option<_>>()?))
        }
        Ty::Elem(n) => {
            diags.error(
                n.span,
                format!("`{}` is an element-type parameter: only private helpers take them (a kernel's types are concrete: `f64`, `[f64; n]`, ..)", n.text),
            );
            None
        }
    }
}

/// A written type with element-type parameters replaced by what `params` binds them to;
/// `None` when it names an unbound one (or is no type).
pub(super) fn ty_in(t: &Ty, params: &HashMap<String, Type>) -> Option<Type> {
    match t {
        Ty::Elem(n) => params.get(&n.text).cloned(),
        Ty::Array(e, n, _) => Type::array_of(&ty_in(e, params)?, size_of(n)),
        Ty::Tuple(parts, _) => Some(Type::Tuple(
            parts
                .iter()
                .map(|p| ty_in(p, params))
                .collect::<Option<_>>()?,
        )),
        t => ty_of(t, &mut Diags::default()),
    }
}

/// Bind the element-type parameters of written type `t` from the type `arg` of a value
/// passed for it (the first binding of each wins; mismatches are the caller's to report).
pub(super) fn bind_elems(t: &Ty, arg: &Type, params: &mut HashMap<String, Type>) {
    match (t, arg) {
        (Ty::Elem(n), a) => {
            params.entry(n.text.clone()).or_insert_with(|| a.clone());
        }
        (Ty::Array(e, _, _), Type::Arr(..)) => bind_elems(e, &arg.elem(), params),
        (Ty::Tuple(ps, _), Type::Tuple(xs)) => {
            for (p, x) in ps.iter().zip(xs) {
                bind_elems(p, x, params);
            }
        }
        _ => {}
    }
}

/// True when written type `t` has an element-type parameter.
pub(super) fn has_elems(t: &Ty) -> bool {
    match t {
        Ty::Elem(_) => true,
        Ty::Array(e, _, _) => has_elems(e),
        Ty::Tuple(ps, _) => ps.iter().any(has_elems),
        Ty::Fn(ps, r, _) => ps.iter().any(has_elems) || has_elems(r),
        _ => false,
    }
}

/// Check function `fi` generically; for a valid kernel, return its elaboration.
pub(super) fn check_fn(
    scope: &Scope,
    fi: usize,
    recursive: &[usize],
    diags: &mut Diags,
) -> Option<Kernel> {
    let f = &scope.fns[fi];
    // A helper generic in its element types is checked where it is called, at the types
    // its arguments give (as a Rust generic's body would be, were Rust's bounds as loose).
    if !f.public && (f.params.iter().any(|p| has_elems(&p.ty)) || has_elems(&f.ret)) {
        return None;
    }
    let mut el = Elab {
        scope,
        block: scope.home[fi],
        recursive,
        diags,
        report: true,
        suppressed: None,
        names: Vec::new(),
        depth: 0,
        inlined: 0,
        entry_sizes: Vec::new(),
        let_spans: Vec::new(),
        flex: Vec::new(),
        demand: Vec::new(),
        links: Vec::new(),
        scalar_elems: HashMap::new(),
        scatter_ops: Vec::new(),
    };
    let mut env: Env = Vec::new();
    let mut sizes: Vec<String> = Vec::new();
    let mut params = Vec::new();
    let mut ok = true;
    for p in &f.params {
        if let Ty::Usize(_) = p.ty
            && !sizes.contains(&p.name.text)
        {
            sizes.push(p.name.text.clone());
        }
        ty_size_names(&p.ty, &mut sizes);
    }
    for s in &sizes {
        env.push((s.clone(), Bind::Size(Size::Name(s.clone()))));
    }
    for (k, p) in f.params.iter().enumerate() {
        if p.failed {
            // Its type's error is reported where it is written; its uses say nothing more.
            env.push((p.name.text.clone(), Bind::Failed));
            ok = false;
            continue;
        }
        if f.params[..k].iter().any(|q| q.name.text == p.name.text) {
            el.err(
                p.name.span,
                format!("parameter `{}` is declared twice", p.name.text),
            );
            ok = false;
        }
        match &p.ty {
            Ty::Fn(ps, r, sp) => {
                if f.public {
                    // Bound anyway, so its uses raise no second error.
                    let ps: Option<Vec<Type>> =
                        ps.iter().map(|t| ty_of(t, &mut Diags::default())).collect();
                    let bind = match (ps, ty_of(r, &mut Diags::default())) {
                        (Some(ps), Some(r)) => Bind::Fun(Rc::new(FunVal::Opaque(ps, r))),
                        _ => Bind::Failed,
                    };
                    env.push((p.name.text.clone(), bind));
                    el.err(
                        *sp,
                        format!("kernel `{}` takes a function parameter: only private helpers can (kernels become Rust functions over slices)\n  help: make a private `fn` take `{}` and call it from the kernel with a closure", f.name.text, p.name.text),
                    );
                    ok = false;
                    continue;
                }
                let ps: Option<Vec<Type>> = ps.iter().map(|t| ty_of(t, el.diags)).collect();
                let r = ty_of(r, el.diags);
                match (ps, r) {
                    (Some(ps), Some(r)) => env.push((
                        p.name.text.clone(),
                        Bind::Fun(Rc::new(FunVal::Opaque(ps, r))),
                    )),
                    _ => {
                        env.push((p.name.text.clone(), Bind::Failed));
                        ok = false;
                    }
                }
            }
            Ty::Tuple(_, sp) if f.public => {
                env.push((p.name.text.clone(), Bind::Failed));
                el.err(
                    *sp,
                    format!("kernel `{}` takes a tuple parameter: kernels take arrays and scalars (Rust slices and values)\n  help: pass the components as parameters of their own; private helpers may take tuples", f.name.text),
                );
                ok = false;
            }
            Ty::Usize(_) => {
                // A usize parameter is a size name; its value is the size itself.
                let id = el.fresh(&p.name.text);
                params.push(KParam {
                    name: p.name.clone(),
                    id,
                    ty: Type::Usize,
                });
            }
            t => match ty_of(t, el.diags) {
                Some(ty) => {
                    let id = el.fresh(&p.name.text);
                    env.push((p.name.text.clone(), Bind::Val(id, ty.clone(), None)));
                    params.push(KParam {
                        name: p.name.clone(),
                        id,
                        ty,
                    });
                }
                None => {
                    // Reported by `ty_of`; bound, so that its uses raise nothing more.
                    env.push((p.name.text.clone(), Bind::Failed));
                    ok = false;
                }
            },
        }
    }
    let ret = match &f.ret {
        Ty::Fn(_, _, sp) => {
            el.err(*sp, "functions return values, not functions");
            None
        }
        Ty::Tuple(parts, _) if f.public && parts.iter().any(|p| matches!(p, Ty::Tuple(..))) => {
            let nested = parts.iter().find(|p| matches!(p, Ty::Tuple(..)));
            el.err(
                nested.map_or(f.ret.span(), |p| p.span()),
                format!("kernel `{}` returns a tuple inside its result tuple: a kernel's results are one flat tuple (each array an `outI`, the scalars returned)\n  help: flatten the result, `(a, b, c)` rather than `((a, b), c)`", f.name.text),
            );
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
            // Bound, so that the body's uses of it raise nothing more (one mistake, one
            // error).
            env.push((nm.clone(), Bind::Failed));
            ok = false;
        }
    }
    let pins = if f.public {
        pin_sizes(f, &sizes, el.diags)
    } else {
        Some(Vec::new())
    };
    let want = ret.as_ref().map_or(Want::Any, Want::of);
    let body = el.expr_want(&f.body, &env, &want);
    let (body, ret) = match (body, ret) {
        (Ok(b), Some(r)) => (b, r),
        _ => return None,
    };
    // With a size the parameters do not fix, or a return type fsmooth does not have, the
    // comparison would only repeat that error.
    if ok && !f.ret_failed && !body.ty.same(&ret) {
        let help = convert_help(tail_expr(&f.body), &body.ty, &ret);
        el.err(
            tail_expr(&f.body).span,
            format!(
                "mismatched {}: `{}` declares `{ret}`, but its body gives `{}`{}{help}",
                super::elab::mismatch(&ret, &body.ty),
                f.name.text,
                body.ty,
                super::tuples::parts_note(&ret, &body.ty, "declared", "the body gives")
            ),
        );
        return None;
    }
    if !ok || !f.public {
        return None;
    }
    let names = el.names;
    let entry_sizes = el.entry_sizes;
    let let_spans = el.let_spans;
    // Section 10: a `usize` parameter is a size name of `mod k` only when some shape depends
    // on it (in a parameter's or the result's type, or anywhere in the body, helpers
    // inlined); otherwise it is a plain value.
    let mut shaped = Vec::new();
    for p in &params {
        let p: &KParam = p;
        p.ty.size_names(&mut shaped);
    }
    ret.size_names(&mut shaped);
    crate::middle::ir::shape_names(&body, &mut shaped);
    let shape_sizes = sizes
        .iter()
        .filter(|s| shaped.contains(s))
        .cloned()
        .collect();
    Some(Kernel {
        shape_sizes,
        entry_sizes,
        name: f.name.clone(),
        attrs: f.attrs.clone(),
        params,
        ret,
        body,
        sizes,
        pins: pins?,
        var_names: names,
        let_spans,
    })
}

/// The last expression of a body, where a wrong result is reported.
fn tail_expr(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Block(_, t) => tail_expr(t),
        _ => e,
    }
}
