//! Calls: entering a function (binding its size names from the arguments, checking the
//! arguments and the result against the declared types), closures, and functions passed
//! as `fn(..)` parameters, whose uses are checked against that type.

use super::Blocks;
use super::ad::DERIVATIVES;
use super::env::{Denotation, Env, Function, bind, describe_denotation, lookup};
use super::types::{bind_sizes, check_shape, fmt_ty, settle_ty, ty_size_names};
use super::value::{Value, describe};
use super::views::VIEWS;
use super::{MAX_DEPTH, unwrap_rc};
use fsmooth_core::front::ast::{Expr, FnDef, Name, Ty};
use std::rc::Rc;

/// Appends a line naming the function an error passed through (the innermost few only).
fn trace_call(e: String, name: &str) -> String {
    const MARK: &str = "\n  in `";
    let depth = e.matches(MARK).count();
    if depth < 8 {
        format!("{e}{MARK}{name}`")
    } else if !e.ends_with("\n  ...") {
        format!("{e}\n  ...")
    } else {
        e
    }
}

fn too_deep() -> String {
    format!("calls nested more than {MAX_DEPTH} deep (recursion is not allowed)")
}

/// A closure's environment extended with its parameters.
fn bind_closure_args<'a>(
    params: &'a [Name],
    env: &Env<'a>,
    args: Vec<Denotation<'a>>,
) -> Result<Env<'a>, String> {
    if params.len() != args.len() {
        return Err(format!(
            "a closure of {} parameter{} is given {} argument{}",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            args.len(),
            if args.len() == 1 { "" } else { "s" }
        ));
    }
    let mut env = env.clone();
    for (p, a) in params.iter().zip(args) {
        env = bind(&env, &p.text, a);
    }
    Ok(env)
}

/// The evaluator: the function tables, borrowed from an [`Interp`](super::Interp), and the
/// block whose body it evaluates (names resolve there).
#[derive(Clone, Copy)]
pub(super) struct Evaluator<'a> {
    pub(super) blocks: &'a Blocks,
    pub(super) block: usize,
    /// [`super::stack_address`] when the evaluation started.
    pub(super) stack_base: usize,
    /// Is a function being differentiated (by `jvp`, `vjp` or `grad`) under evaluation?
    /// Then a derivative form is an error (higher derivatives are not supported).
    pub(super) differentiating: bool,
}

impl<'a> Evaluator<'a> {
    /// This evaluator, for the bodies of block `block`.
    fn at(&self, block: usize) -> Evaluator<'a> {
        Evaluator { block, ..*self }
    }

    /// Call a block or prelude function: bind sizes, check the arguments, evaluate the body,
    /// check the result.
    pub(super) fn call_fn(
        &self,
        def: &'a FnDef,
        args: Vec<Denotation<'a>>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        self.call_fn_inner(def, args, depth)
            .map_err(|e| trace_call(e, &def.name.text))
    }

    fn call_fn_inner(
        &self,
        def: &'a FnDef,
        args: Vec<Denotation<'a>>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        let (size_env, env) = self.enter(def, args)?;
        let r = self.eval(&def.body, &env, depth)?;
        self.conform(&def.ret, r, &size_env, || {
            format!("the result of `{}`", def.name.text)
        })
    }

    /// Bind the size names of `def` from `args` and check the arguments: the environment
    /// of the sizes alone (for checking types) and the body's environment (sizes, then
    /// parameters).
    fn enter(
        &self,
        def: &'a FnDef,
        args: Vec<Denotation<'a>>,
    ) -> Result<(Env<'a>, Env<'a>), String> {
        if args.len() != def.params.len() {
            return Err(format!(
                "`{}` takes {} argument{}, given {}",
                def.name.text,
                def.params.len(),
                if def.params.len() == 1 { "" } else { "s" },
                args.len()
            ));
        }
        // Sizes: from the usize parameters first, then from the argument shapes.
        let mut sizes: Vec<(&'a str, usize)> = Vec::new();
        for (p, a) in def.params.iter().zip(&args) {
            if let (Ty::Usize(_), Denotation::Value(v)) = (&p.ty, a)
                && let Value::Usize(k) = **v
                && !sizes.iter().any(|(s, _)| *s == p.name.text)
            {
                sizes.push((&p.name.text, k));
            }
        }
        for (p, a) in def.params.iter().zip(&args) {
            if let Denotation::Value(v) = a {
                bind_sizes(&p.ty, v, &mut sizes);
            }
        }
        let mut names = Vec::new();
        for p in &def.params {
            ty_size_names(&p.ty, &mut names);
        }
        ty_size_names(&def.ret, &mut names);
        for (s, _) in &sizes {
            if !names.contains(s) {
                names.push(s);
            }
        }
        let mut size_env: Env<'a> = None;
        for n in names {
            let v = match sizes.iter().find(|(s, _)| *s == n) {
                Some((_, k)) => Denotation::from(Value::Usize(*k)),
                None => Denotation::UnknownSize,
            };
            size_env = bind(&size_env, n, v);
        }
        // Check the arguments and bind the parameters.
        let mut env = size_env.clone();
        for (p, a) in def.params.iter().zip(args) {
            let a = self.conform(&p.ty, a, &size_env, || {
                format!("argument `{}` of `{}`", p.name.text, def.name.text)
            })?;
            env = bind(&env, &p.name.text, a);
        }
        Ok((size_env, env))
    }

    /// Check `v` against the declared type `ty` (sizes from `env`). A function bound to a
    /// `fn(..)` type is wrapped so that its uses are checked against that type.
    pub(super) fn conform(
        &self,
        ty: &'a Ty,
        v: Denotation<'a>,
        env: &Env<'a>,
        what: impl FnOnce() -> String,
    ) -> Result<Denotation<'a>, String> {
        match (ty, v) {
            (Ty::Fn(params, ret, _), Denotation::Function(f)) => {
                Ok(Denotation::Function(Rc::new(Function::Typed {
                    inner: f,
                    params,
                    ret,
                    env: env.clone(),
                })))
            }
            (Ty::Fn(..), v) => Err(format!(
                "{}: expected a function `{}`, found `{}`",
                what(),
                fmt_ty(ty),
                describe_denotation(&v)
            )),
            (_, Denotation::Value(v)) => match check_shape(ty, &v, env) {
                Ok(()) if v.has_untyped() => Ok(Denotation::from(settle_ty(ty, unwrap_rc(v)))),
                Ok(()) => Ok(Denotation::Value(v)),
                Err(e) => Err(format!(
                    "{}: expected `{}`, found `{}` ({e})",
                    what(),
                    fmt_ty(ty),
                    describe(&v)
                )),
            },
            (_, v) => Err(format!(
                "{}: expected `{}`, found {}",
                what(),
                fmt_ty(ty),
                describe_denotation(&v)
            )),
        }
    }

    /// Apply a function value to arguments; `depth` counts this call.
    pub(super) fn invoke(
        &self,
        f: &Function<'a>,
        args: Vec<Denotation<'a>>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        match f {
            Function::Named(def, block) => self.at(*block).call_fn(def, args, depth),
            Function::Closure {
                params,
                body,
                env,
                block,
            } => {
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
                let env = bind_closure_args(params, env, args)?;
                self.at(*block).eval(body, &env, depth)
            }
            Function::Typed {
                inner,
                params,
                ret,
                env,
            } => {
                let args = self.typed_args(params, ret, env, args)?;
                let r = self.invoke(inner, args, depth)?;
                self.conform(ret, r, env, || {
                    "the result of a function parameter".to_string()
                })
            }
        }
    }

    /// Check the arguments of a call through a `fn(params) -> ret` parameter.
    fn typed_args(
        &self,
        params: &'a [Ty],
        ret: &'a Ty,
        env: &Env<'a>,
        args: Vec<Denotation<'a>>,
    ) -> Result<Vec<Denotation<'a>>, String> {
        if params.len() != args.len() {
            return Err(format!(
                "a function of type `fn({}) -> {}` is given {} argument{}",
                params.iter().map(fmt_ty).collect::<Vec<_>>().join(", "),
                fmt_ty(ret),
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            ));
        }
        let mut checked = Vec::with_capacity(args.len());
        for (k, (p, a)) in params.iter().zip(args).enumerate() {
            checked.push(self.conform(p, a, env, || {
                format!("argument {} of a function parameter", k + 1)
            })?);
        }
        Ok(checked)
    }

    /// A call `name(args)`: a function of the environment (a closure, or a parameter or
    /// `let` bound to a function), else of the table, else a view (section 9) or a
    /// derivative form (section 12).
    pub(super) fn call(
        &self,
        name: &'a Name,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let f = match lookup(env, &name.text) {
            Some(Denotation::Function(f)) => f.clone(),
            Some(Denotation::Value(_) | Denotation::UnknownSize) => {
                return Err(format!("`{}` is not a function", name.text));
            }
            None => match self.blocks.find(self.block, &name.text) {
                Some((def, block)) => Rc::new(Function::Named(def, block)),
                None if VIEWS.contains(&name.text.as_str()) => {
                    return self.view(name, args, env, depth);
                }
                None if DERIVATIVES.contains(&name.text.as_str()) => {
                    return self.derivative(name, args, env, depth);
                }
                None => return Err(self.unknown_name(&name.text, env)),
            },
        };
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a, env, depth)?);
        }
        self.invoke(&f, vals, depth + 1)
    }
}
