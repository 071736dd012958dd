//! Calls: a block or prelude function is inlined at the sizes its arguments fix; a closure
//! is checked where it is applied; a function parameter, in a generic check, by its type.

use super::elab::{Bind, Elab, Elaborated, Env, FunVal, MAX_INLINED, placeholder, wrap_lets};
use super::infer::{Want, lit_only};
use super::scalars::convert_help;
use super::signature::{bind_elems, has_elems, ty_in, ty_of};
use crate::front::ast::{Expr, ExprKind, Name, Sp, Ty};
use crate::front::diag::Diags;
use crate::front::size::Size;
use crate::middle::ir::{Core, Scalar, Type, VarId};
use std::collections::HashMap;
use std::rc::Rc;

/// The forms of LANGUAGE.md sections 14 and 15 and how they are written: a call by one of
/// these names not of that form is this error, unless the block has a function of the name.
pub(super) const FORMS: [(&str, &str); 3] = [
    ("iterate", "`iterate(init, |s| cond, |s| next)`"),
    ("scatter_add", "`scatter_add(m, n, |i| (k, v))`"),
    (
        "reduce_by_index",
        "`reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`",
    ),
];

impl Elab<'_> {
    /// A call `n(args)`: to a function value in scope, or a block or prelude function.
    pub(super) fn call(
        &mut self,
        n: &Name,
        args: &[Expr],
        e: &Expr,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        // The derivative forms, when nothing in scope has their name (as the views).
        let free = |el: &Self| {
            el.lookup(env, &n.text).is_none() && el.scope.find(el.block, &n.text).is_none()
        };
        if n.text == "jvp" && free(self) {
            return self.e_jvp(n, args, e.span, env);
        }
        if (n.text == "grad" || n.text == "vjp") && free(self) {
            return self.e_vjp(n, args, e.span, env, n.text == "grad");
        }
        // A form of sections 14 and 15 not written as the form (the parser made the rest).
        if let Some((_, usage)) = FORMS.iter().find(|(f, _)| *f == n.text)
            && free(self)
        {
            self.err(n.span, format!("`{}` is written {usage}", n.text));
            return Err(());
        }
        let fun = match self.lookup(env, &n.text) {
            Some(Bind::Fun(f)) => f.clone(),
            Some(Bind::Failed) => return Err(()),
            Some(_) => {
                self.err(n.span, format!("`{}` is not a function", n.text));
                return Err(());
            }
            None => match self.scope.find(self.block, &n.text) {
                Some(fi) => Rc::new(FunVal::Def(fi)),
                None if self.scope.unresolved_import(self.block, &n.text) => return Err(()),
                None if super::views::VIEWS.contains(&n.text.as_str()) => {
                    return self.view_call(n, args, e.span, env);
                }
                None => {
                    self.unknown_name(env, n, "function");
                    return Err(());
                }
            },
        };
        self.apply(&fun, n, args, e.span, env, want)
    }

    /// Apply a function value to the arguments, where the context expects `want`.
    pub(super) fn apply(
        &mut self,
        fun: &FunVal,
        n: &Name,
        args: &[Expr],
        sp: Sp,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        match fun {
            FunVal::Def(fi) => self.call_def(*fi, n, args, sp, env, want),
            FunVal::Closure {
                params,
                body,
                env: cenv,
                report,
                block,
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
                let vals: Vec<Elaborated> = args.iter().map(|a| self.expr(a, env)).collect();
                let vals: Vec<Core> = vals.into_iter().collect::<Result<_, _>>()?;
                let mut cenv = cenv.clone();
                let mut bound = Vec::new();
                let saved = std::mem::replace(&mut self.report, *report);
                let fits = params
                    .iter()
                    .zip(&vals)
                    .all(|(p, v)| self.pattern_fits(p, &v.ty));
                self.report = saved;
                if !fits {
                    return Err(());
                }
                for (p, v) in params.iter().zip(vals) {
                    let id = self.fresh(&p.text);
                    cenv.push((p.text.clone(), Bind::Val(id, v.ty.clone(), v.sym.clone())));
                    self.link(id, &v);
                    bound.push((id, v));
                }
                let saved = self.report;
                self.report = *report;
                // The result type the parameter declares, else what the call's context expects.
                let bwant = expect.as_ref().map_or(want.clone(), |(t, _)| Want::of(t));
                let caller = std::mem::replace(&mut self.block, *block);
                let r = self.expr_want(body, &cenv, &bwant);
                self.block = caller;
                let r = match (r, expect) {
                    (Ok(r), Some((want, what))) if !r.ty.same(want) => {
                        self.clash_ty(&r, want);
                        self.err(
                            body.span,
                            format!("mismatched types: this closure gives `{}`, but {what} must give `{want}`{}", r.ty, convert_help(body, &r.ty, want)),
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
                            n.text,
                            ptys.len(),
                            args.len()
                        ),
                    );
                    return Err(());
                }
                for (a, t) in args.iter().zip(ptys) {
                    let v = self.expr_want(a, env, &Want::of(t))?;
                    if !v.ty.same(t) {
                        self.clash_ty(&v, t);
                        self.err(
                            v.span,
                            format!(
                                "mismatched {}: `{}` expects `{t}`, found `{}`{}",
                                super::elab::mismatch(t, &v.ty),
                                n.text,
                                v.ty,
                                convert_help(a, &v.ty, t)
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

    /// A call to the scope's function `fi`: its size names unified with the arguments' shapes,
    /// then its body inlined at those sizes.
    fn call_def(
        &mut self,
        fi: usize,
        n: &Name,
        args: &[Expr],
        sp: Sp,
        env: &Env,
        want: &Want,
    ) -> Elaborated {
        let f = &self.scope.fns[fi];
        if f.params.len() != args.len() {
            let sig: Vec<String> = f.params.iter().map(|p| p.name.text.clone()).collect();
            self.err(
                sp,
                format!(
                    "`{}` takes {} argument{} ({}), found {}",
                    n.text,
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    sig.join(", "),
                    args.len()
                ),
            );
            return Err(());
        }
        if self.recursive.contains(&fi) || self.scope.failed[self.scope.home[fi]] {
            // Reported where the function is written.
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
                let failed = matches!(&a.kind, ExprKind::Var(v)
                    if matches!(self.lookup(env, &v.text), Some(Bind::Failed)));
                let fv = match &a.kind {
                    ExprKind::Closure(ps, body) => Some(Rc::new(FunVal::Closure {
                        params: ps.clone(),
                        body: (**body).clone(),
                        env: env.clone(),
                        report: self.report,
                        block: self.block,
                        expect: None,
                    })),
                    ExprKind::Var(v) => match self.lookup(env, &v.text) {
                        Some(Bind::Fun(g)) => Some(g.clone()),
                        Some(_) => None,
                        None => self
                            .scope
                            .find(self.block, &v.text)
                            .map(|g| Rc::new(FunVal::Def(g))),
                    },
                    _ => None,
                };
                if failed {
                    // A name whose definition failed: reported already.
                    ok = false;
                } else if fv.is_none() {
                    self.err(
                        a.span,
                        format!("`{}` of `{}` is a function parameter: pass a closure such as `|x| x * 2.0` or a function's name", p.name.text, n.text),
                    );
                    ok = false;
                }
                funs.push(fv);
                vals.push(None);
            } else {
                // A concrete parameter type is what the argument's literals take; one with
                // element-type parameters is known once the other arguments bind them.
                let pw = if has_elems(&p.ty) {
                    Want::Any
                } else {
                    ty_of(&p.ty, &mut Diags::default()).map_or(Want::Any, |t| Want::of(&t))
                };
                match self.expr_want(a, env, &pw) {
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
                sizes.insert(p.name.text.clone(), s.clone());
                from.insert(p.name.text.clone(), format!("`{}`", p.name.text));
            }
        }
        // Element-type parameters take the types the arguments give them: first those that
        // are not literal-only, whose types are their own.
        let mut elems: HashMap<String, Type> = HashMap::new();
        for ((p, v), a) in f.params.iter().zip(&vals).zip(args) {
            if let Some(v) = v
                && !lit_only(a)
            {
                bind_elems(&p.ty, &v.ty, &mut elems);
            }
        }
        // A row bound to a parameter that stands for scalars only is an argument of the
        // wrong rank: the scalar makes the error name the argument.
        self.scalar_rows(fi, &mut elems);
        // Literal-only arguments take the parameter's type, or with its element type still
        // unbound, what the call's context expects; then they bind what is left.
        for (k, (p, a)) in f.params.iter().zip(args).enumerate() {
            let Some(v) = &vals[k] else { continue };
            if !lit_only(a) {
                continue;
            }
            let w = ty_in(&p.ty, &elems).map_or(want.elem(), |t| Want::of(&t));
            if Want::of(&v.ty) != w && w != Want::Any {
                match self.expr_want(a, env, &w) {
                    Ok(v) => vals[k] = Some(v),
                    Err(()) => return Err(()),
                }
            }
            if let Some(v) = &vals[k] {
                bind_elems(&p.ty, &v.ty, &mut elems);
            }
        }
        // An element type that an argument of too low a rank left unbound is its scalar, so
        // that the argument check below names the ranks (`sum` of an `f64`).
        for (p, v) in f.params.iter().zip(&vals) {
            if let Some(v) = v
                && ty_in(&p.ty, &elems).is_none()
            {
                let s =
                    v.ty.scalar()
                        .filter(|s| *s != Scalar::Bool)
                        .unwrap_or(Scalar::F64);
                unbound_elems(&p.ty, &s.ty(), &mut elems);
            }
        }
        let f = &self.scope.fns[fi];
        let mut ptys: Vec<Option<Type>> = Vec::new();
        let mut multiple_help = String::new();
        for (p, v) in f.params.iter().zip(&vals) {
            let t = match &p.ty {
                Ty::Fn(..) => None,
                t => ty_in(t, &elems),
            };
            if let (Some(t), Some(v)) = (&t, v) {
                let mut pairs = Vec::new();
                dims_pairs(&p.ty, t, &v.ty, &mut pairs);
                for (x, y) in pairs {
                    if let Size::Name(nm) = x
                        && !sizes.contains_key(nm)
                    {
                        sizes.insert(nm.clone(), y.clone());
                        from.insert(nm.clone(), format!("`{}`", p.name.text));
                    }
                }
                // Then a dimension a constant times an unbound name (`[f64; 2 * w]`): the
                // name is the argument's dimension divided by it, when that is exact.
                let mut pairs = Vec::new();
                dims_pairs(&p.ty, t, &v.ty, &mut pairs);
                for (x, y) in pairs {
                    let mut names = Vec::new();
                    x.names(&mut names);
                    let [nm] = &names[..] else { continue };
                    if sizes.contains_key(nm) || matches!(x, Size::Name(_)) {
                        continue;
                    }
                    if let Some(s) = x.poly().solve_multiple(nm, &y.poly()) {
                        sizes.insert(nm.clone(), s);
                        from.insert(nm.clone(), format!("`{}`", p.name.text));
                    } else if multiple_help.is_empty() {
                        multiple_help = format!(
                            "\n  help: `{}`'s `{nm}` comes from dividing: its parameter has `{x}` where the \
                             argument has `{y}`, and nothing says that division is exact; declare the \
                             argument's dimension in the same form, a multiple of a size name",
                            n.text
                        );
                    }
                }
            }
            ptys.push(t);
        }
        let subty = |w: &Ty, t: &Type| subst_type(w, t, &|nm| sizes.get(nm).cloned());
        let mut bad = false;
        for (((p, v), t), a) in f.params.iter().zip(&vals).zip(&ptys).zip(args) {
            let (Some(v), Some(t)) = (v, t) else { continue };
            let want = subty(&p.ty, t);
            let unbound: Vec<String> = {
                let mut ns = Vec::new();
                type_names(&want, &mut ns);
                let mut written = Vec::new();
                written_names(&p.ty, &mut written);
                ns.into_iter()
                    .filter(|x| !sizes.contains_key(x) && written.contains(x))
                    .collect()
            };
            if !unbound.is_empty() || !want.same(&v.ty) {
                let mut names = Vec::new();
                type_names(t, &mut names);
                let fixed: Vec<String> = names
                    .iter()
                    .filter_map(|nm| {
                        let (s, src) = (sizes.get(nm)?, from.get(nm)?);
                        (*src != format!("`{}`", p.name.text))
                            .then(|| format!("`{nm}` is `{s}`, fixed by argument {src}"))
                    })
                    .collect();
                // A mismatch of element types only: the sizes agree, so notes about them
                // are noise.
                let types_only =
                    unbound.is_empty() && super::elab::mismatch(&want, &v.ty) == "types";
                let note = if fixed.is_empty() || types_only {
                    String::new()
                } else {
                    format!(
                        "\n  note: `{}` takes `{}: {t}`, and in this call {}",
                        n.text,
                        p.name.text,
                        fixed.join(", ")
                    )
                };
                // Two different size names: say what would make them agree.
                let help = if multiple_help.is_empty() {
                    want
                    .dims()
                    .iter()
                    .zip(v.ty.dims())
                    .find(|(a, b)| {
                        !types_only
                            && !a.same(b)
                            && a.as_const().is_none()
                            && b.as_const().is_none()
                    })
                    .map(|(a, b)| {
                        format!("\n  help: nothing says `{a}` == `{b}`; if they are always equal, use one size name for both")
                    })
                    .unwrap_or_default()
                } else {
                    multiple_help.clone()
                };
                let help = if v.ty.is_tuple() && want.is_arr() {
                    format!(
                        "{help}\n  help: this is a tuple: take one component, `t.0`, or `concat` its arrays"
                    )
                } else {
                    help
                };
                self.clash_ty(v, &want);
                // The argument that set the element type may be the one typed by its
                // literals (`let z = build(8, |_| 1.0); add(z, x)` with x an f32 array):
                // it becomes the other float type (LANGUAGE.md section 16).
                let setters: Vec<Core> = vals
                    .iter()
                    .flatten()
                    .filter(|o| super::infer::float_clash(&o.ty, &v.ty))
                    .cloned()
                    .collect();
                for o in &setters {
                    self.demand(o);
                }
                let help = format!("{help}{}", convert_help(a, &v.ty, &want));
                self.err(
                    v.span,
                    format!(
                        "mismatched {}: argument `{}` of `{}` expects `{}`, found `{}`{note}{help}",
                        super::elab::mismatch(&want, &v.ty),
                        p.name.text,
                        n.text,
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
                        p.name.text,
                        n.text,
                        v.ty,
                        convert_help(a, &v.ty, t)
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
                            block,
                            ..
                        },
                        Ty::Fn(_, r, _),
                    ) => {
                        let want = ty_in(r, &elems).map(|t| subty(r, &t));
                        Rc::new(FunVal::Closure {
                            params: params.clone(),
                            body: body.clone(),
                            env: env.clone(),
                            report: *report,
                            block: *block,
                            expect: want.map(|t| (t, format!("`{}` of `{}`", p.name.text, n.text))),
                        })
                    }
                    _ => fv,
                };
                cenv.push((p.name.text.clone(), Bind::Fun(fv)));
            } else if let Some(v) = v {
                if matches!(p.ty, Ty::Usize(_)) && sizes.contains_key(&p.name.text) {
                    continue;
                }
                let id = self.fresh(&p.name.text);
                cenv.push((
                    p.name.text.clone(),
                    Bind::Val(id, v.ty.clone(), v.sym.clone()),
                ));
                self.link(id, &v);
                bound.push((id, v));
            }
        }
        // `None` also for a result of an element type no argument binds (`map`'s `U`): it
        // is what the body gives.
        let ret = match &f.ret {
            Ty::Fn(..) => None,
            w => ty_in(w, &elems).map(|t| subty(w, &t)),
        };
        let body = f.body.clone();
        let saved = (self.report, self.suppressed.take());
        self.report = false;
        self.depth += 1;
        let bwant = ret.as_ref().map_or(want.clone(), Want::of);
        let caller = std::mem::replace(&mut self.block, self.scope.home[fi]);
        let r = self.expr_want(&body, &cenv, &bwant);
        self.block = caller;
        self.depth -= 1;
        self.report = saved.0;
        let inner = std::mem::replace(&mut self.suppressed, saved.1);
        let mut r = match r {
            Ok(r) => r,
            Err(()) => {
                if let Some(msg) = inner {
                    // Inside the prelude, a help names its own variables (`v[i] as f64`),
                    // which the user never wrote: the help is about the arguments instead.
                    let prelude = self.scope.home[fi] + 1 == self.scope.failed.len();
                    let msg = match prelude {
                        true => prelude_failure(&msg, &n.text, &bound),
                        false => msg,
                    };
                    self.err(sp, format!("in this call to `{}`: {msg}", n.text));
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
                        n.text, r.ty
                    ),
                );
                return Err(());
            }
            r.ty = ret;
        }
        Ok(wrap_lets(bound, r, sp))
    }
}

/// How many dimensions written type `w` gives itself (an element-type parameter inside it
/// brings the others, which are the caller's).
fn written_rank(w: &Ty) -> usize {
    match w {
        Ty::Array(e, _, _) => 1 + written_rank(e),
        _ => 0,
    }
}

/// The dimensions of parameter type `p` (written `w`, its element types filled in) paired
/// with those of argument type `a`, through tuples, where their structure agrees. Only the
/// dimensions written in `w` are paired: those an element type brings are the caller's.
fn dims_pairs<'t>(w: &Ty, p: &'t Type, a: &'t Type, out: &mut Vec<(&'t Size, &'t Size)>) {
    match (w, p, a) {
        (_, Type::Arr(_, pd), Type::Arr(_, ad)) if pd.len() == ad.len() => {
            out.extend(pd.iter().zip(ad).take(written_rank(w)));
        }
        (Ty::Tuple(ws, _), Type::Tuple(ps), Type::Tuple(xs)) if ps.len() == xs.len() => {
            for ((w, x), y) in ws.iter().zip(ps).zip(xs) {
                dims_pairs(w, x, y, out);
            }
        }
        _ => {}
    }
}

/// `t` (written type `w` with its element types filled in) with the size names of the
/// dimensions written in `w` replaced where `f` knows them. The dimensions an element type
/// brings are the caller's and stay as they are, even where a name is also one of the
/// callee's (`map(transpose(c), ..)` with `c: [[f64; m]; n]` binds `T` to `[f64; n]` and
/// `map`'s own `n` to `m`).
fn subst_type(w: &Ty, t: &Type, f: &dyn Fn(&str) -> Option<Size>) -> Type {
    match (w, t) {
        (_, Type::Arr(e, d)) => {
            let k = written_rank(w);
            Type::Arr(
                *e,
                d.iter()
                    .enumerate()
                    .map(|(i, s)| if i < k { s.subst(f) } else { s.clone() })
                    .collect(),
            )
        }
        (Ty::Tuple(ws, _), Type::Tuple(ts)) => Type::Tuple(
            ws.iter()
                .zip(ts)
                .map(|(w, x)| subst_type(w, x, f))
                .collect(),
        ),
        (_, t) => t.clone(),
    }
}

/// Every size name written in the dimensions of type `w` (not in its element types').
fn written_names(w: &Ty, out: &mut Vec<String>) {
    match w {
        Ty::Array(e, n, _) => {
            let mut names = Vec::new();
            n.names(&mut names);
            out.extend(names.into_iter().map(|n| n.text.clone()));
            written_names(e, out);
        }
        Ty::Tuple(ps, _) => ps.iter().for_each(|p| written_names(p, out)),
        _ => {}
    }
}

/// Every size name in type `t`.
fn type_names(t: &Type, out: &mut Vec<String>) {
    match t {
        Type::Arr(_, d) => d.iter().for_each(|s| s.names(out)),
        Type::Tuple(ts) => ts.iter().for_each(|x| type_names(x, out)),
        _ => {}
    }
}

/// Bind every element-type parameter of written type `w` that `elems` lacks to `t`.
fn unbound_elems(w: &Ty, t: &Type, elems: &mut HashMap<String, Type>) {
    match w {
        Ty::Elem(n) => {
            elems.entry(n.text.clone()).or_insert_with(|| t.clone());
        }
        Ty::Array(e, _, _) => unbound_elems(e, t, elems),
        Ty::Tuple(ps, _) => ps.iter().for_each(|p| unbound_elems(p, t, elems)),
        _ => {}
    }
}

/// The error a call into the prelude met inside its body (`msg`), for the user: without the
/// help lines that name the prelude's own variables, and with one about an argument of
/// `usize` elements, which the prelude's arithmetic does not take (`sum(map(x, |v| if v > 0.0
/// { 1 } else { 0 }))`).
fn prelude_failure(msg: &str, name: &str, args: &[(VarId, Core)]) -> String {
    let first = msg.lines().next().unwrap_or(msg).to_string();
    let counts = args
        .iter()
        .any(|(_, a)| a.ty.is_arr() && a.ty.scalar() == Some(Scalar::Usize));
    match counts {
        true => format!(
            "{first}\n  help: `{name}` computes with floats, and an argument has `usize` elements: \
             make them floats (`1.0` for `1`, or `map(a, |k| k as f64)`), or count with \
             `ifold(n, 0, |c, i| ..)`"
        ),
        false => first,
    }
}
