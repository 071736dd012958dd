//! The reference interpreter of the source language (LANGUAGE.md), used by tests to check
//! the code the compiler generates.
//!
//! It evaluates the parsed AST directly, with an environment of names, and is meant to be
//! obviously correct rather than fast:
//!
//! - every value is a [`Value`]; arrays are nested [`Value::Array`]s, checked to be
//!   rectangular where they are built (`build`, array literals, `ifold` accumulators);
//! - at every call, size names are bound from the `usize` parameters and then from the
//!   argument shapes (a bare size name `n` in `[T; n]` takes that dimension's length), and
//!   every argument, and the result, is then checked against its declared type with those
//!   sizes (composite sizes such as `n + 1` must match the length they describe);
//! - f64 arithmetic is Rust's; usize arithmetic is checked (underflow, overflow and `/` or
//!   `%` by zero are errors, never wrapped values);
//! - every fault (bad index, bad slice, shape or type mismatch, unknown name, runaway
//!   recursion) is an `Err` with a description, never a panic.
//!
//! Functions live in one table: the prelude's, then the user's, so a user function replaces
//! a prelude function of the same name everywhere (also where other prelude functions call
//! it), as if the prelude were pasted into the block.
//!
//! Limitation: a [`Value`] does not carry a shape, so an empty array does not show its inner
//! sizes (`[[f64; m]; 0]` is just `[]`). A size that only such an array would determine is
//! unknown, and using it is an error.

use fsmooth_core::front::ast::{
    BinOp, CastTy, Expr, ExprKind, FnDef, Let, MathFn, Name, Program, SizeAst, SizeOp, Ty, UnOp,
};
use fsmooth_core::front::diag::{Diags, closest};
use proc_macro2::TokenStream;
use std::collections::HashMap;
use std::rc::Rc;
use std::str::FromStr;

/// The deepest nesting of calls (of functions and closures) before the interpreter gives
/// up: the language has no recursion, so only a recursive program gets this deep.
const MAX_DEPTH: usize = 256;

/// How much stack the evaluation may use (measured from [`Interp::call`]) before it gives
/// up: 1 MiB, half of a test thread's default stack, which a program without recursion
/// needs only for absurdly deep nesting (in a debug build a call level takes about 5 KiB).
const STACK_BUDGET: usize = 1 << 20;

/// The address of a local of the calling frame: how deep the stack is, for the guard.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The prelude's source (LANGUAGE.md section 6).
const PRELUDE: &str = fsmooth_core::front::check::PRELUDE;

/// A run-time value of the source language.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An `f64` scalar.
    F64(f64),
    /// A `usize` scalar (an index or a size).
    Usize(usize),
    /// A `bool`.
    Bool(bool),
    /// An array `[T; n]`: its n elements, each a value of type T.
    Array(Vec<Value>),
}

impl Value {
    /// A 1-D f64 array.
    pub fn vec(xs: &[f64]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::F64(x)).collect())
    }

    /// A row-major 2-D array with `cols` columns from flat data: `data.len() / cols` rows
    /// (rounded down: trailing values that do not fill a row are dropped). With `cols == 0`
    /// the result is the empty array.
    pub fn matrix(data: &[f64], cols: usize) -> Value {
        if cols == 0 {
            return Value::Array(Vec::new());
        }
        Value::Array(data.chunks_exact(cols).map(Value::vec).collect())
    }

    /// Row-major flattening of an (arbitrarily nested) array, as the generated kernels lay
    /// arrays out. Scalars flatten to one element (`usize` by `as f64`, `bool` to 0 or 1).
    pub fn flatten(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.flatten_into(&mut out);
        out
    }

    fn flatten_into(&self, out: &mut Vec<f64>) {
        match self {
            Value::F64(x) => out.push(*x),
            Value::Usize(k) => out.push(*k as f64),
            Value::Bool(b) => out.push(if *b { 1.0 } else { 0.0 }),
            Value::Array(xs) => {
                for x in xs {
                    x.flatten_into(out);
                }
            }
        }
    }

    /// The number inside an [`Value::F64`]; `None` for any other value.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(x) => Some(*x),
            _ => None,
        }
    }
}

/// A program ready to run: the user's functions plus the prelude (user definitions shadow
/// prelude ones of the same name).
pub struct Interp {
    fns: HashMap<String, FnDef>,
}

impl Interp {
    /// Parse `src` (the text of a fsmooth block, e.g. from `stringify!`) together with the
    /// prelude. Errors are the parse errors' messages (one per line), or a note that a
    /// function is defined twice in `src`.
    pub fn new(src: &str) -> Result<Interp, String> {
        let prelude = parse_program(PRELUDE).map_err(|e| format!("in the prelude: {e}"))?;
        let user = parse_program(src)?;
        let mut fns = HashMap::new();
        for f in prelude.fns {
            let name = f.name.s.clone();
            if fns.insert(name.clone(), f).is_some() {
                return Err(format!("the prelude defines `{name}` twice"));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for f in user.fns {
            let name = f.name.s.clone();
            if !seen.insert(name.clone()) {
                return Err(format!("the function `{name}` is defined twice"));
            }
            fns.insert(name, f);
        }
        Ok(Interp { fns })
    }

    /// Call function `name` (kernel or helper) with `args` (arrays as nested
    /// [`Value::Array`]; sizes are bound from argument shapes as LANGUAGE.md describes,
    /// `usize` parameters are passed as [`Value::Usize`]). Returns the result or a
    /// description of the run-time fault (with the chain of calls it happened in).
    pub fn call(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let def = self.fns.get(name).ok_or_else(|| {
            let hint = closest(name, sorted_names(&self.fns))
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            format!("no function `{name}`{hint}")
        })?;
        let ev = Ev {
            fns: &self.fns,
            stack_base: stack_address(),
        };
        let args = args.iter().map(|v| RVal::V(Rc::new(v.clone()))).collect();
        match ev.call_fn(def, args, 1)? {
            RVal::V(v) => Ok(unwrap_rc(v)),
            _ => Err(format!("`{name}` returned a function, not a value")),
        }
    }
}

fn parse_program(src: &str) -> Result<Program, String> {
    let tokens = TokenStream::from_str(src).map_err(|e| e.to_string())?;
    let mut diags = Diags::default();
    let program = fsmooth_core::front::parse::parse(tokens, &mut diags);
    if !diags.is_empty() {
        return Err(diags.messages().join("\n"));
    }
    program.ok_or_else(|| "the block could not be parsed".to_string())
}

fn unwrap_rc(v: Rc<Value>) -> Value {
    Rc::try_unwrap(v).unwrap_or_else(|v| (*v).clone())
}

/// What a name stands for during evaluation.
#[derive(Clone)]
enum RVal<'a> {
    /// A value.
    V(Rc<Value>),
    /// A function (closure or named function).
    F(Rc<Func<'a>>),
    /// A size name that no argument determined.
    NoSize,
}

/// A function value.
enum Func<'a> {
    /// `|x, y| body`, with the environment it was written in.
    Closure {
        params: &'a [Name],
        body: &'a Expr,
        env: Env<'a>,
    },
    /// A block or prelude function.
    Named(&'a FnDef),
    /// A function bound to a parameter (or `let`) of type `fn(params) -> ret`: its
    /// arguments and result are checked against that type, with the sizes of `env`.
    Typed {
        inner: Rc<Func<'a>>,
        params: &'a [Ty],
        ret: &'a Ty,
        env: Env<'a>,
    },
}

/// An immutable environment: a linked list of bindings, innermost first.
type Env<'a> = Option<Rc<Node<'a>>>;

struct Node<'a> {
    name: &'a str,
    val: RVal<'a>,
    next: Env<'a>,
}

fn bind<'a>(env: &Env<'a>, name: &'a str, val: RVal<'a>) -> Env<'a> {
    Some(Rc::new(Node {
        name,
        val,
        next: env.clone(),
    }))
}

fn lookup<'e, 'a>(env: &'e Env<'a>, name: &str) -> Option<&'e RVal<'a>> {
    let mut cur = env.as_ref();
    while let Some(node) = cur {
        if node.name == name {
            return Some(&node.val);
        }
        cur = node.next.as_ref();
    }
    None
}

fn no_size(name: &str) -> String {
    format!(
        "size `{name}` is not known: no argument determines it \
         (an empty array does not show its inner sizes)"
    )
}

/// The value of size name `name` in `env`.
fn size_of(env: &Env<'_>, name: &str) -> Result<usize, String> {
    match lookup(env, name) {
        Some(RVal::V(v)) => match **v {
            Value::Usize(k) => Ok(k),
            ref other => Err(format!(
                "size `{name}` is `{}`, not a usize",
                describe(other)
            )),
        },
        Some(RVal::NoSize) => Err(no_size(name)),
        Some(RVal::F(_)) => Err(format!("size `{name}` is a function")),
        None => Err(format!("unknown size name `{name}`")),
    }
}

/// Evaluate a size written in a type, with checked arithmetic.
fn eval_size(s: &SizeAst, env: &Env<'_>) -> Result<usize, String> {
    match s {
        SizeAst::Lit(k, _) => {
            usize::try_from(*k).map_err(|_| format!("size {k} does not fit in usize"))
        }
        SizeAst::Name(n) => size_of(env, &n.s),
        SizeAst::Bin(op, a, b, _) => {
            let x = eval_size(a, env)?;
            let y = eval_size(b, env)?;
            let r = match op {
                SizeOp::Add => x.checked_add(y),
                SizeOp::Sub => x.checked_sub(y),
                SizeOp::Mul => x.checked_mul(y),
                SizeOp::Div => x.checked_div(y),
            };
            r.ok_or_else(|| {
                format!(
                    "size `{}` is {x} {} {y}, which {}",
                    fmt_size(s),
                    size_op_symbol(*op),
                    size_fault(*op)
                )
            })
        }
    }
}

fn size_op_symbol(op: SizeOp) -> &'static str {
    match op {
        SizeOp::Add => "+",
        SizeOp::Sub => "-",
        SizeOp::Mul => "*",
        SizeOp::Div => "/",
    }
}

fn size_fault(op: SizeOp) -> &'static str {
    match op {
        SizeOp::Sub => "underflows",
        SizeOp::Div => "divides by zero",
        SizeOp::Add | SizeOp::Mul => "overflows",
    }
}

/// A size as written, with the parentheses it needs.
fn fmt_size(s: &SizeAst) -> String {
    fn prec(s: &SizeAst) -> u8 {
        match s {
            SizeAst::Bin(SizeOp::Add | SizeOp::Sub, ..) => 1,
            SizeAst::Bin(SizeOp::Mul | SizeOp::Div, ..) => 2,
            _ => 3,
        }
    }
    match s {
        SizeAst::Lit(k, _) => k.to_string(),
        SizeAst::Name(n) => n.s.clone(),
        SizeAst::Bin(op, a, b, _) => {
            let p = prec(s);
            let l = if prec(a) < p {
                format!("({})", fmt_size(a))
            } else {
                fmt_size(a)
            };
            let r = if prec(b) <= p {
                format!("({})", fmt_size(b))
            } else {
                fmt_size(b)
            };
            format!("{l} {} {r}", size_op_symbol(*op))
        }
    }
}

/// A type as written.
fn fmt_ty(t: &Ty) -> String {
    match t {
        Ty::F64(_) => "f64".into(),
        Ty::Usize(_) => "usize".into(),
        Ty::Bool(_) => "bool".into(),
        Ty::Array(e, s, _) => format!("[{}; {}]", fmt_ty(e), fmt_size(s)),
        Ty::Fn(ps, r, _) => {
            let ps: Vec<String> = ps.iter().map(fmt_ty).collect();
            format!("fn({}) -> {}", ps.join(", "), fmt_ty(r))
        }
    }
}

/// The type of a value, as fsmooth would write it.
fn describe(v: &Value) -> String {
    match v {
        Value::F64(_) => "f64".into(),
        Value::Usize(_) => "usize".into(),
        Value::Bool(_) => "bool".into(),
        Value::Array(xs) => match xs.first() {
            None => "[_; 0]".into(),
            Some(x0) if xs.iter().all(|x| same_shape(x0, x)) => {
                format!("[{}; {}]", describe(x0), xs.len())
            }
            Some(_) => format!("a ragged array of {} elements", xs.len()),
        },
    }
}

fn describe_rval(v: &RVal<'_>) -> String {
    match v {
        RVal::V(v) => describe(v),
        RVal::F(_) => "a function".into(),
        RVal::NoSize => "an unknown size".into(),
    }
}

/// Same scalar type, or arrays of the same length whose elements pairwise have the same shape.
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F64(_), Value::F64(_))
        | (Value::Usize(_), Value::Usize(_))
        | (Value::Bool(_), Value::Bool(_)) => true,
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_shape(x, y))
        }
        _ => false,
    }
}

/// Bind the bare size names of `ty` that are not bound yet from the shape of `v`, dimension
/// by dimension (inner dimensions from the first element). Mismatches are left for
/// [`check_shape`] to report.
fn bind_sizes<'a>(ty: &'a Ty, v: &Value, sizes: &mut Vec<(&'a str, usize)>) {
    if let (Ty::Array(elem, size, _), Value::Array(xs)) = (ty, v) {
        if let SizeAst::Name(n) = size
            && !sizes.iter().any(|(s, _)| *s == n.s)
        {
            sizes.push((&n.s, xs.len()));
        }
        if let Some(x0) = xs.first() {
            bind_sizes(elem, x0, sizes);
        }
    }
}

/// Every size name in `ty`, in order of first appearance, without repeats.
fn ty_size_names<'a>(ty: &'a Ty, out: &mut Vec<&'a str>) {
    match ty {
        Ty::F64(_) | Ty::Usize(_) | Ty::Bool(_) => {}
        Ty::Array(elem, size, _) => {
            let mut names = Vec::new();
            size.names(&mut names);
            for n in names {
                if !out.contains(&n.s.as_str()) {
                    out.push(&n.s);
                }
            }
            ty_size_names(elem, out);
        }
        Ty::Fn(ps, r, _) => {
            for p in ps {
                ty_size_names(p, out);
            }
            ty_size_names(r, out);
        }
    }
}

/// Check that `v` has type `ty`, with the sizes of `env`. The error says what differs.
fn check_shape(ty: &Ty, v: &Value, env: &Env<'_>) -> Result<(), String> {
    match (ty, v) {
        (Ty::F64(_), Value::F64(_))
        | (Ty::Usize(_), Value::Usize(_))
        | (Ty::Bool(_), Value::Bool(_)) => Ok(()),
        (Ty::Array(elem, size, _), Value::Array(xs)) => {
            let n = eval_size(size, env)?;
            if xs.len() != n {
                return Err(format!(
                    "size `{}` is {n}, but the array has {} elements",
                    fmt_size(size),
                    xs.len()
                ));
            }
            xs.iter().try_for_each(|x| check_shape(elem, x, env))
        }
        _ => Err(format!("`{}` is not a `{}`", describe(v), fmt_ty(ty))),
    }
}

/// Appends a line naming the function an error passed through (the innermost few only).
fn frame(e: String, name: &str) -> String {
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

fn not_bool(op: BinOp) -> String {
    format!("`{}` needs bool operands", op.symbol())
}

fn int_lit<'a>(k: u64) -> Result<RVal<'a>, String> {
    usize::try_from(k)
        .map(|k| val(Value::Usize(k)))
        .map_err(|_| format!("literal {k} does not fit in usize"))
}

fn too_deep() -> String {
    format!("calls nested more than {MAX_DEPTH} deep (recursion is not allowed)")
}

/// A closure's environment extended with its parameters.
fn bind_closure_args<'a>(
    params: &'a [Name],
    env: &Env<'a>,
    args: Vec<RVal<'a>>,
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
        env = bind(&env, &p.s, a);
    }
    Ok(env)
}

/// The function names in sorted order (so that suggestions do not depend on hashing).
fn sorted_names(fns: &HashMap<String, FnDef>) -> Vec<&str> {
    let mut names: Vec<&str> = fns.keys().map(String::as_str).collect();
    names.sort_unstable();
    names
}

fn val<'a>(v: Value) -> RVal<'a> {
    RVal::V(Rc::new(v))
}

/// The evaluator: the function table, borrowed from an [`Interp`].
struct Ev<'a> {
    fns: &'a HashMap<String, FnDef>,
    /// [`stack_address`] when the evaluation started.
    stack_base: usize,
}

impl<'a> Ev<'a> {
    /// Call a block or prelude function: bind sizes, check the arguments, evaluate the body,
    /// check the result.
    fn call_fn(
        &self,
        def: &'a FnDef,
        args: Vec<RVal<'a>>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        self.call_fn_inner(def, args, depth)
            .map_err(|e| frame(e, &def.name.s))
    }

    fn call_fn_inner(
        &self,
        def: &'a FnDef,
        args: Vec<RVal<'a>>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        let (size_env, env) = self.enter(def, args)?;
        let r = self.eval(&def.body, &env, depth)?;
        self.conform(&def.ret, r, &size_env, || {
            format!("the result of `{}`", def.name.s)
        })
    }

    /// Bind the size names of `def` from `args` and check the arguments: the environment
    /// of the sizes alone (for checking types) and the body's environment (sizes, then
    /// parameters).
    fn enter(&self, def: &'a FnDef, args: Vec<RVal<'a>>) -> Result<(Env<'a>, Env<'a>), String> {
        if args.len() != def.params.len() {
            return Err(format!(
                "`{}` takes {} argument{}, given {}",
                def.name.s,
                def.params.len(),
                if def.params.len() == 1 { "" } else { "s" },
                args.len()
            ));
        }
        // Sizes: from the usize parameters first, then from the argument shapes.
        let mut sizes: Vec<(&'a str, usize)> = Vec::new();
        for (p, a) in def.params.iter().zip(&args) {
            if let (Ty::Usize(_), RVal::V(v)) = (&p.ty, a)
                && let Value::Usize(k) = **v
                && !sizes.iter().any(|(s, _)| *s == p.name.s)
            {
                sizes.push((&p.name.s, k));
            }
        }
        for (p, a) in def.params.iter().zip(&args) {
            if let RVal::V(v) = a {
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
                Some((_, k)) => val(Value::Usize(*k)),
                None => RVal::NoSize,
            };
            size_env = bind(&size_env, n, v);
        }
        // Check the arguments and bind the parameters.
        let mut env = size_env.clone();
        for (p, a) in def.params.iter().zip(args) {
            let a = self.conform(&p.ty, a, &size_env, || {
                format!("argument `{}` of `{}`", p.name.s, def.name.s)
            })?;
            env = bind(&env, &p.name.s, a);
        }
        Ok((size_env, env))
    }

    /// Check `v` against the declared type `ty` (sizes from `env`). A function bound to a
    /// `fn(..)` type is wrapped so that its uses are checked against that type.
    fn conform(
        &self,
        ty: &'a Ty,
        v: RVal<'a>,
        env: &Env<'a>,
        what: impl FnOnce() -> String,
    ) -> Result<RVal<'a>, String> {
        match (ty, v) {
            (Ty::Fn(params, ret, _), RVal::F(f)) => Ok(RVal::F(Rc::new(Func::Typed {
                inner: f,
                params,
                ret,
                env: env.clone(),
            }))),
            (Ty::Fn(..), v) => Err(format!(
                "{}: expected a function `{}`, found `{}`",
                what(),
                fmt_ty(ty),
                describe_rval(&v)
            )),
            (_, RVal::V(v)) => match check_shape(ty, &v, env) {
                Ok(()) => Ok(RVal::V(v)),
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
                describe_rval(&v)
            )),
        }
    }

    /// Apply a function value to arguments; `depth` counts this call.
    fn invoke(&self, f: &Func<'a>, args: Vec<RVal<'a>>, depth: usize) -> Result<RVal<'a>, String> {
        match f {
            Func::Named(def) => self.call_fn(def, args, depth),
            Func::Closure { params, body, env } => {
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
                let env = bind_closure_args(params, env, args)?;
                self.eval(body, &env, depth)
            }
            Func::Typed {
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
        args: Vec<RVal<'a>>,
    ) -> Result<Vec<RVal<'a>>, String> {
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

    /// Evaluate `e` to a value (not a function).
    fn rc_value(&self, e: &'a Expr, env: &Env<'a>, depth: usize) -> Result<Rc<Value>, String> {
        match self.eval(e, env, depth)? {
            RVal::V(v) => Ok(v),
            RVal::F(_) => Err("a function is used as a value".into()),
            RVal::NoSize => Err("an unknown size is used as a value".into()),
        }
    }

    fn value(&self, e: &'a Expr, env: &Env<'a>, depth: usize) -> Result<Value, String> {
        self.rc_value(e, env, depth).map(unwrap_rc)
    }

    fn usize_of(
        &self,
        e: &'a Expr,
        env: &Env<'a>,
        depth: usize,
        what: &str,
    ) -> Result<usize, String> {
        match *self.rc_value(e, env, depth)? {
            Value::Usize(k) => Ok(k),
            ref other => Err(format!(
                "{what} must be a usize, found `{}`",
                describe(other)
            )),
        }
    }

    fn bool_of(
        &self,
        e: &'a Expr,
        env: &Env<'a>,
        depth: usize,
        what: &str,
    ) -> Result<bool, String> {
        match *self.rc_value(e, env, depth)? {
            Value::Bool(b) => Ok(b),
            ref other => Err(format!(
                "{what} must be a bool, found `{}`",
                describe(other)
            )),
        }
    }

    fn f64_of(&self, e: &'a Expr, env: &Env<'a>, depth: usize, what: &str) -> Result<f64, String> {
        match *self.rc_value(e, env, depth)? {
            Value::F64(x) => Ok(x),
            ref other => Err(format!(
                "{what} must be an f64, found `{}`",
                describe(other)
            )),
        }
    }

    fn unknown(&self, name: &str, env: &Env<'a>) -> String {
        let mut candidates = sorted_names(self.fns);
        let mut cur = env.as_ref();
        while let Some(node) = cur {
            candidates.push(node.name);
            cur = node.next.as_ref();
        }
        let hint = closest(name, candidates)
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        format!("unknown name `{name}`{hint}")
    }

    /// Evaluate `e` in `env`; `depth` is the number of calls in progress. Each form has its
    /// own method, which keeps this frame (and so the stack used per nested call) small.
    fn eval(&self, e: &'a Expr, env: &Env<'a>, depth: usize) -> Result<RVal<'a>, String> {
        if stack_address().abs_diff(self.stack_base) > STACK_BUDGET {
            return Err(format!(
                "the evaluation nests too deeply (over {} KiB of interpreter stack, \
                 at {depth} nested calls): recursion is not allowed",
                STACK_BUDGET >> 10
            ));
        }
        match &e.kind {
            ExprKind::Error => Err("this expression did not parse".to_string()),
            ExprKind::Float(x) => Ok(val(Value::F64(*x))),
            ExprKind::Int(k) => int_lit(*k),
            ExprKind::Bool(b) => Ok(val(Value::Bool(*b))),
            ExprKind::Var(n) => self.var(n, env),
            ExprKind::Block(lets, tail) => self.block(lets, tail, env, depth),
            ExprKind::Index(a, i) => self.index(a, i, env, depth),
            ExprKind::Slice(a, lo, hi) => self.slice(a, lo.as_deref(), hi.as_deref(), env, depth),
            ExprKind::Len(a) => self.len(a, env, depth),
            ExprKind::Build(n, i, body) => self.build(n, i, body, env, depth),
            ExprKind::Ifold(n, init, acc, i, body) => self.ifold(n, init, acc, i, body, env, depth),
            ExprKind::Array(es) => self.array(es, env, depth),
            ExprKind::If(c, t, f) => {
                if self.bool_of(c, env, depth, "an `if` condition")? {
                    self.eval(t, env, depth)
                } else {
                    self.eval(f, env, depth)
                }
            }
            ExprKind::Bin(op, l, r) => self.binary(*op, l, r, env, depth).map(val),
            ExprKind::Un(op, x) => self.unary(*op, x, env, depth),
            ExprKind::Cast(x, to) => self.cast(x, *to, env, depth),
            ExprKind::Math(f, x, args) => self.math(*f, x, args, env, depth),
            ExprKind::Call(name, args) => self.call(name, args, env, depth),
            ExprKind::Closure(params, body) => Ok(RVal::F(Rc::new(Func::Closure {
                params,
                body,
                env: env.clone(),
            }))),
        }
    }

    fn var(&self, n: &'a Name, env: &Env<'a>) -> Result<RVal<'a>, String> {
        match lookup(env, &n.s) {
            Some(RVal::NoSize) => Err(no_size(&n.s)),
            Some(v) => Ok(v.clone()),
            None => match self.fns.get(&n.s) {
                Some(def) => Ok(RVal::F(Rc::new(Func::Named(def)))),
                None => Err(self.unknown(&n.s, env)),
            },
        }
    }

    fn block(
        &self,
        lets: &'a [Let],
        tail: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let mut env = env.clone();
        for l in lets {
            let v = self.eval(&l.value, &env, depth)?;
            let v = match &l.ty {
                Some(ty) => self.conform(ty, v, &env, || format!("`let {}`", l.name.s))?,
                None => v,
            };
            env = bind(&env, &l.name.s, v);
        }
        self.eval(tail, &env, depth)
    }

    fn index(
        &self,
        a: &'a Expr,
        i: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let a = self.rc_value(a, env, depth)?;
        let i = self.usize_of(i, env, depth, "an index")?;
        match &*a {
            Value::Array(xs) => match xs.get(i) {
                Some(x) => Ok(val(x.clone())),
                None => Err(format!(
                    "index {i} out of range for an array of {} elements",
                    xs.len()
                )),
            },
            other => Err(format!("cannot index `{}`", describe(other))),
        }
    }

    fn slice(
        &self,
        a: &'a Expr,
        lo: Option<&'a Expr>,
        hi: Option<&'a Expr>,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let a = self.rc_value(a, env, depth)?;
        let lo = match lo {
            Some(lo) => Some(self.usize_of(lo, env, depth, "a slice bound")?),
            None => None,
        };
        let hi = match hi {
            Some(hi) => Some(self.usize_of(hi, env, depth, "a slice bound")?),
            None => None,
        };
        let Value::Array(xs) = &*a else {
            return Err(format!("cannot slice `{}`", describe(&a)));
        };
        let lo = lo.unwrap_or(0);
        let hi = hi.unwrap_or(xs.len());
        match xs.get(lo..hi) {
            Some(part) if lo <= hi => Ok(val(Value::Array(part.to_vec()))),
            _ => Err(format!(
                "slice {lo}..{hi} out of range for an array of {} elements",
                xs.len()
            )),
        }
    }

    fn len(&self, a: &'a Expr, env: &Env<'a>, depth: usize) -> Result<RVal<'a>, String> {
        match &*self.rc_value(a, env, depth)? {
            Value::Array(xs) => Ok(val(Value::Usize(xs.len()))),
            other => Err(format!("`{}` has no length", describe(other))),
        }
    }

    fn build(
        &self,
        n: &'a Expr,
        i: &'a Name,
        body: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let n = self.usize_of(n, env, depth, "the count of `build`")?;
        let mut xs: Vec<Value> = Vec::new();
        for k in 0..n {
            let env = bind(env, &i.s, val(Value::Usize(k)));
            let x = self.value(body, &env, depth)?;
            if let Some(x0) = xs.first()
                && !same_shape(x0, &x)
            {
                return Err(format!(
                    "`build` elements differ in shape: element 0 is `{}`, element {k} is `{}`",
                    describe(x0),
                    describe(&x)
                ));
            }
            xs.push(x);
        }
        Ok(val(Value::Array(xs)))
    }

    #[allow(clippy::too_many_arguments)]
    fn ifold(
        &self,
        n: &'a Expr,
        init: &'a Expr,
        acc_name: &'a Name,
        i: &'a Name,
        body: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let n = self.usize_of(n, env, depth, "the count of `ifold`")?;
        let mut acc = self.rc_value(init, env, depth)?;
        for k in 0..n {
            let env = bind(env, &acc_name.s, RVal::V(acc.clone()));
            let env = bind(&env, &i.s, val(Value::Usize(k)));
            let next = self.rc_value(body, &env, depth)?;
            if !same_shape(&acc, &next) {
                return Err(format!(
                    "the `ifold` body changes the accumulator's shape from `{}` to `{}` (step {k})",
                    describe(&acc),
                    describe(&next)
                ));
            }
            acc = next;
        }
        Ok(RVal::V(acc))
    }

    fn array(&self, es: &'a [Expr], env: &Env<'a>, depth: usize) -> Result<RVal<'a>, String> {
        let mut xs: Vec<Value> = Vec::with_capacity(es.len());
        for (k, e) in es.iter().enumerate() {
            let x = self.value(e, env, depth)?;
            if let Some(x0) = xs.first()
                && !same_shape(x0, &x)
            {
                return Err(format!(
                    "array literal elements differ in shape: element 0 is `{}`, element {k} is `{}`",
                    describe(x0),
                    describe(&x)
                ));
            }
            xs.push(x);
        }
        Ok(val(Value::Array(xs)))
    }

    fn unary(
        &self,
        op: UnOp,
        x: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        match op {
            UnOp::Neg => match *self.rc_value(x, env, depth)? {
                Value::F64(x) => Ok(val(Value::F64(-x))),
                ref other => Err(format!(
                    "unary `-` applies to f64, not `{}`",
                    describe(other)
                )),
            },
            UnOp::Not => Ok(val(Value::Bool(!self.bool_of(
                x,
                env,
                depth,
                "the operand of `!`",
            )?))),
        }
    }

    fn cast(
        &self,
        x: &'a Expr,
        to: CastTy,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let x = self.rc_value(x, env, depth)?;
        match (&*x, to) {
            (Value::F64(x), CastTy::F64) => Ok(val(Value::F64(*x))),
            (Value::Usize(k), CastTy::F64) => Ok(val(Value::F64(*k as f64))),
            // Rust's `as`: saturating, NaN to 0.
            (Value::F64(x), CastTy::Usize) => Ok(val(Value::Usize(*x as usize))),
            (Value::Usize(k), CastTy::Usize) => Ok(val(Value::Usize(*k))),
            (other, _) => Err(format!(
                "cannot cast `{}` with `as {}`",
                describe(other),
                if to == CastTy::F64 { "f64" } else { "usize" }
            )),
        }
    }

    fn math(
        &self,
        f: MathFn,
        x: &'a Expr,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let what = format!("the receiver of `{}`", f.name());
        let x = self.f64_of(x, env, depth, &what)?;
        if args.len() != f.arity() {
            return Err(format!(
                "`{}` takes {} argument(s), found {}",
                f.name(),
                f.arity(),
                args.len()
            ));
        }
        let y = match (f, args.first()) {
            (_, None) => 0.0,
            (MathFn::Powi, Some(k)) => f64::from(self.powi_exponent(k, env, depth)?),
            (_, Some(y)) => {
                let what = format!("the argument of `{}`", f.name());
                self.f64_of(y, env, depth, &what)?
            }
        };
        Ok(val(Value::F64(f.eval(x, y))))
    }

    fn call(
        &self,
        name: &'a Name,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<RVal<'a>, String> {
        let f = match lookup(env, &name.s) {
            Some(RVal::F(f)) => f.clone(),
            Some(RVal::V(_) | RVal::NoSize) => {
                return Err(format!("`{}` is not a function", name.s));
            }
            None => match self.fns.get(&name.s) {
                Some(def) => Rc::new(Func::Named(def)),
                None => return Err(self.unknown(&name.s, env)),
            },
        };
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a, env, depth)?);
        }
        self.invoke(&f, vals, depth + 1)
    }

    /// The exponent of `powi`: a usize expression or a negated integer literal, as i32.
    fn powi_exponent(&self, k: &'a Expr, env: &Env<'a>, depth: usize) -> Result<i32, String> {
        let too_big =
            |k: &dyn std::fmt::Display| format!("`powi` exponent {k} does not fit in i32");
        if let ExprKind::Un(UnOp::Neg, inner) = &k.kind
            && let ExprKind::Int(lit) = inner.kind
        {
            return i64::try_from(lit)
                .ok()
                .and_then(|v| i32::try_from(-v).ok())
                .ok_or_else(|| too_big(&format!("-{lit}")));
        }
        let k = self.usize_of(k, env, depth, "the exponent of `powi`")?;
        i32::try_from(k).map_err(|_| too_big(&k))
    }

    /// `l op r` on scalars.
    fn binary(
        &self,
        op: BinOp,
        l: &'a Expr,
        r: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Value, String> {
        if matches!(op, BinOp::And | BinOp::Or) {
            return self.logic(op, l, r, env, depth);
        }
        let a = self.rc_value(l, env, depth)?;
        let b = self.rc_value(r, env, depth)?;
        arith(op, &a, &b)
    }

    /// `l && r`, `l || r`: `false && r` and `true || r` do not evaluate r.
    fn logic(
        &self,
        op: BinOp,
        l: &'a Expr,
        r: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Value, String> {
        let what = format!("an operand of `{}`", op.symbol());
        let a = self.bool_of(l, env, depth, &what)?;
        match (op, a) {
            (BinOp::And, false) => Ok(Value::Bool(false)),
            (BinOp::Or, true) => Ok(Value::Bool(true)),
            _ => Ok(Value::Bool(self.bool_of(r, env, depth, &what)?)),
        }
    }
}

/// `a op b` for the arithmetic and comparison operators: both f64 (Rust's f64 operations)
/// or both usize (checked: underflow, overflow and division by zero are errors).
fn arith(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => {
            let (x, y) = (*x, *y);
            Ok(match op {
                BinOp::Add => Value::F64(x + y),
                BinOp::Sub => Value::F64(x - y),
                BinOp::Mul => Value::F64(x * y),
                BinOp::Div => Value::F64(x / y),
                BinOp::Rem => Value::F64(x % y),
                BinOp::Lt => Value::Bool(x < y),
                BinOp::Le => Value::Bool(x <= y),
                BinOp::Gt => Value::Bool(x > y),
                BinOp::Ge => Value::Bool(x >= y),
                BinOp::Eq => Value::Bool(x == y),
                BinOp::Ne => Value::Bool(x != y),
                BinOp::And | BinOp::Or => return Err(not_bool(op)),
            })
        }
        (Value::Usize(x), Value::Usize(y)) => {
            let (x, y) = (*x, *y);
            let checked = |r: Option<usize>, fault: &str| {
                r.map(Value::Usize)
                    .ok_or_else(|| format!("usize `{x} {} {y}` {fault}", op.symbol()))
            };
            match op {
                BinOp::Add => checked(x.checked_add(y), "overflows"),
                BinOp::Sub => checked(x.checked_sub(y), "underflows"),
                BinOp::Mul => checked(x.checked_mul(y), "overflows"),
                BinOp::Div => checked(x.checked_div(y), "divides by zero"),
                BinOp::Rem => checked(x.checked_rem(y), "divides by zero"),
                BinOp::Lt => Ok(Value::Bool(x < y)),
                BinOp::Le => Ok(Value::Bool(x <= y)),
                BinOp::Gt => Ok(Value::Bool(x > y)),
                BinOp::Ge => Ok(Value::Bool(x >= y)),
                BinOp::Eq => Ok(Value::Bool(x == y)),
                BinOp::Ne => Ok(Value::Bool(x != y)),
                BinOp::And | BinOp::Or => Err(not_bool(op)),
            }
        }
        (a, b) => Err(format!(
            "`{}` needs two f64 or two usize operands, found `{}` and `{}`",
            op.symbol(),
            describe(a),
            describe(b)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interp(src: &str) -> Interp {
        match Interp::new(src) {
            Ok(i) => i,
            Err(e) => panic!("parse failed: {e}"),
        }
    }

    fn run(src: &str, name: &str, args: &[Value]) -> Result<Value, String> {
        interp(src).call(name, args)
    }

    fn prelude(name: &str, args: &[Value]) -> Value {
        match interp("").call(name, args) {
            Ok(v) => v,
            Err(e) => panic!("{name} failed: {e}"),
        }
    }

    fn f(x: f64) -> Value {
        Value::F64(x)
    }

    fn u(k: usize) -> Value {
        Value::Usize(k)
    }

    fn err(r: Result<Value, String>) -> String {
        match r {
            Ok(v) => panic!("expected an error, got {v:?}"),
            Err(e) => e,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + b.abs())
    }

    const PAPER: &str = "
        /// Sum of three vectors.
        pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
            add(add(a, b), c)
        }

        pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
            cross(a, b)
        }

        fn centre(v: [f64; n]) -> [f64; n] {
            let mean = sum(v) / (n as f64);
            build(n, |i| v[i] - mean)
        }
    ";

    #[test]
    fn value_helpers() {
        assert_eq!(Value::vec(&[1.0, 2.0]), Value::Array(vec![f(1.0), f(2.0)]));
        let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3);
        assert_eq!(
            m,
            Value::Array(vec![
                Value::vec(&[1.0, 2.0, 3.0]),
                Value::vec(&[4.0, 5.0, 6.0])
            ])
        );
        assert_eq!(m.flatten(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            Value::matrix(&[1.0, 2.0, 3.0], 2),
            Value::Array(vec![Value::vec(&[1.0, 2.0])])
        );
        assert_eq!(Value::matrix(&[1.0], 0), Value::Array(vec![]));
        assert_eq!(f(2.5).flatten(), vec![2.5]);
        assert_eq!(u(3).flatten(), vec![3.0]);
        assert_eq!(f(2.5).as_f64(), Some(2.5));
        assert_eq!(u(2).as_f64(), None);
        assert_eq!(Value::vec(&[1.0]).as_f64(), None);
    }

    #[test]
    fn paper_add3_and_cross() {
        let i = interp(PAPER);
        let r = i.call(
            "add3",
            &[
                Value::vec(&[1.0, 2.0]),
                Value::vec(&[10.0, 20.0]),
                Value::vec(&[100.0, 200.0]),
            ],
        );
        assert_eq!(r, Ok(Value::vec(&[111.0, 222.0])));
        let r = i.call(
            "cross3",
            &[Value::vec(&[1.0, 0.0, 0.0]), Value::vec(&[0.0, 1.0, 0.0])],
        );
        assert_eq!(r, Ok(Value::vec(&[0.0, 0.0, 1.0])));
        let r = i.call(
            "cross",
            &[Value::vec(&[1.0, 2.0, 3.0]), Value::vec(&[4.0, 5.0, 6.0])],
        );
        assert_eq!(r, Ok(Value::vec(&[-3.0, 6.0, -3.0])));
        let r = i.call("centre", &[Value::vec(&[1.0, 2.0, 6.0])]);
        assert_eq!(r, Ok(Value::vec(&[-2.0, -1.0, 3.0])));
        // cross wants exactly 3 elements
        let e = err(i.call(
            "cross3",
            &[Value::vec(&[1.0, 0.0]), Value::vec(&[0.0, 1.0, 0.0])],
        ));
        assert!(e.contains("argument `a` of `cross3`"), "{e}");
    }

    #[test]
    fn prelude_vectors() {
        let a = Value::vec(&[1.0, 2.0, 3.0]);
        let b = Value::vec(&[4.0, -5.0, 6.0]);
        assert_eq!(
            prelude("add", &[a.clone(), b.clone()]),
            Value::vec(&[5.0, -3.0, 9.0])
        );
        assert_eq!(
            prelude("sub", &[a.clone(), b.clone()]),
            Value::vec(&[-3.0, 7.0, -3.0])
        );
        assert_eq!(
            prelude("emul", &[a.clone(), b.clone()]),
            Value::vec(&[4.0, -10.0, 18.0])
        );
        assert_eq!(
            prelude("smul", &[a.clone(), f(2.0)]),
            Value::vec(&[2.0, 4.0, 6.0])
        );
        assert_eq!(prelude("sum", std::slice::from_ref(&a)), f(6.0));
        assert_eq!(prelude("sum", &[Value::vec(&[])]), f(0.0));
        assert_eq!(prelude("dot", &[a.clone(), b.clone()]), f(12.0));
        assert_eq!(prelude("sqnorm", std::slice::from_ref(&a)), f(14.0));
        assert_eq!(prelude("norm", &[Value::vec(&[3.0, 4.0])]), f(5.0));
        assert_eq!(prelude("vmax", std::slice::from_ref(&b)), f(6.0));
        assert_eq!(prelude("vmax", &[Value::vec(&[])]), f(f64::NEG_INFINITY));
        // ln(e^-2 + e^-1 + e^0) + 3
        let lse = prelude("logsumexp", std::slice::from_ref(&a))
            .as_f64()
            .unwrap_or(f64::NAN);
        assert!(close(lse, 3.4076059644443806), "{lse}");
        // large inputs do not overflow thanks to the max shift
        let lse = prelude("logsumexp", &[Value::vec(&[1000.0, 1000.0])])
            .as_f64()
            .unwrap_or(f64::NAN);
        assert!(close(lse, 1000.0 + 2f64.ln()), "{lse}");
    }

    #[test]
    fn prelude_matrices() {
        // a = [[1, 2, 3], [4, 5, 6]] (2x3), b = [[7, 8], [9, 10], [11, 12]] (3x2)
        let a = Value::matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3);
        let b = Value::matrix(&[7.0, 8.0, 9.0, 10.0, 11.0, 12.0], 2);
        assert_eq!(
            prelude("transpose", std::slice::from_ref(&a)),
            Value::matrix(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], 2)
        );
        assert_eq!(
            prelude("matmul", &[a.clone(), b.clone()]),
            Value::matrix(&[58.0, 64.0, 139.0, 154.0], 2)
        );
        assert_eq!(
            prelude("matvec", &[a.clone(), Value::vec(&[1.0, 0.0, -1.0])]),
            Value::vec(&[-2.0, -2.0])
        );
        assert_eq!(
            prelude(
                "outer",
                &[Value::vec(&[1.0, 2.0]), Value::vec(&[3.0, 4.0, 5.0])]
            ),
            Value::matrix(&[3.0, 4.0, 5.0, 6.0, 8.0, 10.0], 3)
        );
        let c = Value::matrix(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0], 3);
        assert_eq!(
            prelude("madd", &[a.clone(), c.clone()]),
            Value::matrix(&[2.0, 3.0, 4.0, 6.0, 7.0, 8.0], 3)
        );
        assert_eq!(
            prelude("msub", &[a.clone(), c.clone()]),
            Value::matrix(&[0.0, 1.0, 2.0, 2.0, 3.0, 4.0], 3)
        );
        assert_eq!(
            prelude("msmul", &[a.clone(), f(-1.0)]),
            Value::matrix(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0], 3)
        );
        // inner dimensions must agree
        let e = err(interp("").call("matmul", &[a.clone(), a.clone()]));
        assert!(
            e.contains("argument `b` of `matmul`") && e.contains("[[f64; m]; k]"),
            "{e}"
        );
        // a ragged matrix is rejected
        let ragged = Value::Array(vec![Value::vec(&[1.0, 2.0]), Value::vec(&[3.0])]);
        let e = err(interp("").call("transpose", &[ragged]));
        assert!(e.contains("argument `m` of `transpose`"), "{e}");
    }

    #[test]
    fn map_and_map2_with_closures_and_functions() {
        let src = "
            fn scale(v: [f64; n], s: f64) -> [f64; n] { map(v, |x| x * s) }
            fn blend(a: [f64; n], b: [f64; n], t: f64) -> [f64; n] {
                map2(a, b, |x, y| x * (1.0 - t) + y * t)
            }
            fn sq(x: f64) -> f64 { x * x }
            fn squares(v: [f64; n]) -> [f64; n] { map(v, sq) }
            fn twice(f: fn(f64) -> f64, x: f64) -> f64 { f(f(x)) }
            fn quad(x: f64) -> f64 { twice(sq, x) }
            fn nested(v: [f64; n], w: [f64; m]) -> [f64; n] {
                map(v, |x| sum(map(w, |y| x * y)))
            }
        ";
        let i = interp(src);
        assert_eq!(
            i.call("scale", &[Value::vec(&[1.0, -2.0]), f(3.0)]),
            Ok(Value::vec(&[3.0, -6.0]))
        );
        assert_eq!(
            i.call(
                "blend",
                &[Value::vec(&[0.0, 10.0]), Value::vec(&[4.0, 20.0]), f(0.25)]
            ),
            Ok(Value::vec(&[1.0, 12.5]))
        );
        assert_eq!(
            i.call("squares", &[Value::vec(&[2.0, 3.0])]),
            Ok(Value::vec(&[4.0, 9.0]))
        );
        assert_eq!(i.call("quad", &[f(3.0)]), Ok(f(81.0)));
        assert_eq!(
            i.call(
                "nested",
                &[Value::vec(&[1.0, 2.0]), Value::vec(&[1.0, 2.0, 3.0])]
            ),
            Ok(Value::vec(&[6.0, 12.0]))
        );
        // a closure of the wrong type is caught at its use
        let e = err(run(
            "fn g(v: [f64; n]) -> [f64; n] { map(v, |x| x < 1.0) }",
            "g",
            &[Value::vec(&[1.0])],
        ));
        assert!(e.contains("the result of a function parameter"), "{e}");
        // a kernel entry cannot receive a function
        let e = err(i.call("twice", &[f(1.0), f(1.0)]));
        assert!(e.contains("argument `f` of `twice`"), "{e}");
    }

    #[test]
    fn ifold_with_array_accumulator() {
        let src = "
            fn colsum(m: [[f64; c]; r]) -> [f64; c] {
                ifold(r, build(c, |j| 0.0), |acc, i| add(acc, m[i]))
            }
            fn prefix(v: [f64; n]) -> [f64; n] {
                ifold(n, build(n, |j| 0.0), |acc, i| build(n, |j| if j < i { acc[j] } else { acc[j] + v[i] }))
            }
            fn bad(v: [f64; n]) -> [f64; n] {
                ifold(2, v, |acc, i| acc[0..1])
            }
        ";
        let i = interp(src);
        let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2);
        assert_eq!(i.call("colsum", &[m]), Ok(Value::vec(&[9.0, 12.0])));
        assert_eq!(
            i.call("prefix", &[Value::vec(&[1.0, 2.0, 3.0])]),
            Ok(Value::vec(&[1.0, 3.0, 6.0]))
        );
        let e = err(i.call("bad", &[Value::vec(&[1.0, 2.0])]));
        assert!(e.contains("accumulator's shape"), "{e}");
    }

    #[test]
    fn slices() {
        let src = "
            fn mid(v: [f64; n]) -> [f64; 2] { v[1..3] }
            fn head(v: [f64; n]) -> [f64; 2] { v[..2] }
            fn tail(v: [f64; n]) -> [f64; n - 1] { v[1..] }
            fn all(v: [f64; n]) -> [f64; n] { v[..] }
            fn window(v: [f64; n], a: usize, b: usize) -> f64 { sum(v[a..b]) }
            fn row_part(m: [[f64; c]; r]) -> [f64; 1] { m[1][1..2] }
        ";
        let i = interp(src);
        let v = Value::vec(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            i.call("mid", std::slice::from_ref(&v)),
            Ok(Value::vec(&[2.0, 3.0]))
        );
        assert_eq!(
            i.call("head", std::slice::from_ref(&v)),
            Ok(Value::vec(&[1.0, 2.0]))
        );
        assert_eq!(
            i.call("tail", std::slice::from_ref(&v)),
            Ok(Value::vec(&[2.0, 3.0, 4.0]))
        );
        assert_eq!(i.call("all", std::slice::from_ref(&v)), Ok(v.clone()));
        assert_eq!(i.call("window", &[v.clone(), u(1), u(4)]), Ok(f(9.0)));
        assert_eq!(i.call("window", &[v.clone(), u(2), u(2)]), Ok(f(0.0)));
        let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2);
        assert_eq!(i.call("row_part", &[m]), Ok(Value::vec(&[4.0])));
        let e = err(i.call("window", &[v.clone(), u(3), u(2)]));
        assert!(e.contains("slice 3..2"), "{e}");
        let e = err(i.call("window", &[v.clone(), u(0), u(5)]));
        assert!(e.contains("slice 0..5"), "{e}");
        let e = err(i.call("tail", &[Value::vec(&[])]));
        assert!(e.contains("slice 1..0"), "{e}");
        // mid of a short vector is out of range
        let e = err(i.call("mid", &[Value::vec(&[1.0, 2.0])]));
        assert!(e.contains("slice 1..3"), "{e}");
    }

    #[test]
    fn size_arithmetic() {
        let src = "
            fn extend(a: [f64; n], b: [f64; n + 1]) -> [f64; n + 1] {
                build(n + 1, |i| if i < n { a[i] + b[i] } else { b[i] })
            }
            fn pairs(v: [f64; 2 * n]) -> [[f64; 2]; n] { build(n, |i| [v[2 * i], v[2 * i + 1]]) }
            fn pairs2(n: usize, v: [f64; 2 * n]) -> [[f64; 2]; n] { pairs(v) }
            fn halves(n: usize, v: [f64; 2 * n]) -> [[f64; 2]; n] { build(n, |i| v[2 * i..2 * i + 2]) }
            fn shrink(v: [f64; n]) -> [f64; n - 1] { v[1..] }
            fn tri(d: usize, p: [f64; d * (d + 1) / 2]) -> f64 { sum(p) + (d as f64) }
            fn dup(v: [f64; n]) -> [f64; n + n] { build(2 * n, |i| v[i % n]) }
        ";
        let i = interp(src);
        assert_eq!(
            i.call(
                "extend",
                &[Value::vec(&[1.0, 2.0]), Value::vec(&[10.0, 20.0, 30.0])]
            ),
            Ok(Value::vec(&[11.0, 22.0, 30.0]))
        );
        let e = err(i.call(
            "extend",
            &[Value::vec(&[1.0, 2.0]), Value::vec(&[10.0, 20.0])],
        ));
        assert!(
            e.contains("argument `b` of `extend`") && e.contains("[f64; n + 1]"),
            "{e}"
        );
        // composite sizes are checked, not solved: nothing pins `n` of `pairs`, even when
        // it is called from a function that knows it
        let e = err(i.call("pairs", &[Value::vec(&[1.0, 2.0])]));
        assert!(e.contains("size `n` is not known"), "{e}");
        let e = err(i.call("pairs2", &[u(1), Value::vec(&[1.0, 2.0])]));
        assert!(
            e.contains("size `n` is not known") && e.contains("in `pairs2`"),
            "{e}"
        );
        // the declared result `[f64; n - 1]` underflows for n = 0 (the slice is fine)
        assert_eq!(
            i.call("shrink", &[Value::vec(&[1.0, 2.0])]),
            Ok(Value::vec(&[2.0]))
        );
        assert_eq!(
            i.call("halves", &[u(2), Value::vec(&[1.0, 2.0, 3.0, 4.0])]),
            Ok(Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2))
        );
        assert_eq!(
            i.call("tri", &[u(2), Value::vec(&[1.0, 2.0, 3.0])]),
            Ok(f(8.0))
        );
        let e = err(i.call("tri", &[u(3), Value::vec(&[1.0, 2.0, 3.0])]));
        assert!(e.contains("d * (d + 1) / 2"), "{e}");
        assert_eq!(
            i.call("dup", &[Value::vec(&[1.0, 2.0])]),
            Ok(Value::vec(&[1.0, 2.0, 1.0, 2.0]))
        );
    }

    #[test]
    fn usize_parameter_as_size() {
        let src = "
            pub fn iota(n: usize) -> [f64; n] { build(n, |i| i as f64) }
            pub fn grid(r: usize, c: usize) -> [[f64; c]; r] { build(r, |i| build(c, |j| (i * c + j) as f64)) }
            fn wrong(n: usize) -> [f64; n] { build(n + 1, |i| 0.0) }
            fn pinned(n: usize, v: [f64; n]) -> f64 { sum(v) * (n as f64) }
        ";
        let i = interp(src);
        assert_eq!(i.call("iota", &[u(3)]), Ok(Value::vec(&[0.0, 1.0, 2.0])));
        assert_eq!(i.call("iota", &[u(0)]), Ok(Value::vec(&[])));
        assert_eq!(
            i.call("grid", &[u(2), u(2)]),
            Ok(Value::matrix(&[0.0, 1.0, 2.0, 3.0], 2))
        );
        let e = err(i.call("wrong", &[u(2)]));
        assert!(e.contains("the result of `wrong`"), "{e}");
        assert_eq!(
            i.call("pinned", &[u(2), Value::vec(&[1.0, 2.0])]),
            Ok(f(6.0))
        );
        let e = err(i.call("pinned", &[u(3), Value::vec(&[1.0, 2.0])]));
        assert!(e.contains("argument `v` of `pinned`"), "{e}");
        let e = err(i.call("iota", &[f(3.0)]));
        assert!(e.contains("argument `n` of `iota`"), "{e}");
    }

    #[test]
    fn runtime_faults() {
        let src = "
            fn at(v: [f64; n], i: usize) -> f64 { v[i] }
            fn at2(m: [[f64; c]; r], i: usize, j: usize) -> f64 { m[i][j] }
            fn inner(v: [f64; w]) -> f64 { sum(build(w - 2, |i| v[i + 1])) }
            fn wrap(v: [f64; n], i: usize) -> f64 { v[i % n] }
            fn half(v: [f64; n], k: usize) -> usize { n / k }
            fn big(k: usize) -> usize { k * k }
            fn mixed(x: f64) -> f64 { x + 1 }
        ";
        let i = interp(src);
        let v = Value::vec(&[1.0, 2.0, 3.0]);
        assert_eq!(i.call("at", &[v.clone(), u(2)]), Ok(f(3.0)));
        let e = err(i.call("at", &[v.clone(), u(3)]));
        assert!(
            e.contains("index 3 out of range") && e.contains("in `at`"),
            "{e}"
        );
        let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2);
        assert_eq!(i.call("at2", &[m.clone(), u(1), u(0)]), Ok(f(3.0)));
        assert!(err(i.call("at2", &[m.clone(), u(0), u(2)])).contains("index 2 out of range"));
        assert!(err(i.call("at2", &[m, u(2), u(0)])).contains("index 2 out of range"));
        assert_eq!(i.call("inner", std::slice::from_ref(&v)), Ok(f(2.0)));
        let e = err(i.call("inner", &[Value::vec(&[1.0])]));
        assert!(e.contains("usize `1 - 2` underflows"), "{e}");
        assert_eq!(i.call("wrap", &[v.clone(), u(4)]), Ok(f(2.0)));
        let e = err(i.call("wrap", &[Value::vec(&[]), u(4)]));
        assert!(e.contains("usize `4 % 0` divides by zero"), "{e}");
        let e = err(i.call("half", &[v.clone(), u(0)]));
        assert!(e.contains("divides by zero"), "{e}");
        assert!(err(i.call("big", &[u(usize::MAX)])).contains("overflows"));
        assert!(err(i.call("mixed", &[f(1.0)])).contains("two f64 or two usize"));
        // shape mismatch
        let e = err(i.call(
            "add",
            &[Value::vec(&[1.0, 2.0]), Value::vec(&[1.0, 2.0, 3.0])],
        ));
        assert!(
            e.contains("argument `b` of `add`") && e.contains("[f64; 3]"),
            "{e}"
        );
        // wrong argument count, unknown function
        assert!(err(i.call("add", &[Value::vec(&[1.0])])).contains("takes 2 arguments"));
        assert!(err(i.call("ad", &[])).contains("no function `ad`"));
        assert!(err(i.call("tranpose", &[])).contains("did you mean `transpose`"));
    }

    #[test]
    fn runaway_recursion_is_an_error() {
        let src = "
            fn f(x: f64) -> f64 { g(x) + 1.0 }
            fn g(x: f64) -> f64 { f(x) * 2.0 }
            fn h(x: f64) -> f64 { apply(h, x) }
            fn apply(k: fn(f64) -> f64, x: f64) -> f64 { k(x) }
        ";
        let i = interp(src);
        let e = err(i.call("f", &[f(1.0)]));
        assert!(e.contains("recursion"), "{e}");
        let e = err(i.call("h", &[f(1.0)]));
        assert!(e.contains("recursion"), "{e}");
        // recursion under several expression levels per call
        let src = "fn r(v: [f64; n]) -> [f64; n] { build(n, |i| (r(v)[i] + 1.0) * 2.0) }";
        let e = err(run(src, "r", &[Value::vec(&[1.0])]));
        assert!(e.contains("recursion"), "{e}");
    }

    #[test]
    fn deep_but_finite_nesting_is_fine() {
        // a chain of 40 helpers, each calling the next through a closure
        let mut src = String::from("fn c0(x: f64) -> f64 { x + 1.0 }\n");
        for k in 1..40 {
            src += &format!(
                "fn c{k}(x: f64) -> f64 {{ sum(map([x], |y| c{}(y))) + 1.0 }}\n",
                k - 1
            );
        }
        assert_eq!(run(&src, "c39", &[f(0.0)]), Ok(f(40.0)));
        // a long left-nested sum (parse.rs itself overflows a 2 MiB debug stack near 300)
        let terms: Vec<String> = (0..150).map(|_| "x".to_string()).collect();
        let src = format!("fn s(x: f64) -> f64 {{ {} }}", terms.join(" + "));
        assert_eq!(run(&src, "s", &[f(1.0)]), Ok(f(150.0)));
    }

    #[test]
    fn scalars_casts_and_math() {
        let src = "
            fn cast(x: f64) -> usize { x as usize }
            fn rem(x: f64, y: f64) -> f64 { x % y }
            fn pw(x: f64, k: usize) -> [f64; 4] { [x.powi(k), x.powi(-2), x.powi(0), x.powf(0.5)] }
            fn math(x: f64) -> [f64; 8] {
                [x.sqrt(), x.exp().ln(), x.abs(), (-x).abs(), x.floor(), x.ceil(), x.min(1.0), x.max(1.0)]
            }
            fn trig(x: f64) -> [f64; 4] { [x.sin(), x.cos(), x.tan(), x.tanh()] }
            fn guard(v: [f64; n], i: usize) -> bool { i < n && v[i] > 0.0 }
            fn either(v: [f64; n], i: usize) -> bool { i >= n || v[i] > 0.0 }
            fn sign(x: f64) -> f64 { if x < 0.0 { -1.0 } else if x == 0.0 { 0.0 } else { 1.0 } }
            fn not(b: bool) -> bool { !b }
            fn lets(x: f64) -> f64 {
                let y: f64 = x * 2.0;
                let v: [f64; 2] = [y, x];
                let k = v.len();
                let z = length(v);
                v[0] + v[1] + ((k + z) as f64)
            }
            fn badlet(x: f64) -> f64 { let v: [f64; 3] = [x, x]; x }
            fn shadow(v: [f64; n]) -> f64 { sum(v) }
            fn sum(v: [f64; n]) -> f64 { 42.0 }
            fn cmp_bool(a: bool) -> bool { a == a }
            fn lit_shape(x: f64) -> [[f64; 2]; 2] { [[x, x], [x]] }
        ";
        let i = interp(src);
        assert_eq!(i.call("cast", &[f(2.9)]), Ok(u(2)));
        assert_eq!(i.call("cast", &[f(-1.5)]), Ok(u(0)));
        assert_eq!(i.call("cast", &[f(f64::NAN)]), Ok(u(0)));
        assert_eq!(i.call("cast", &[f(1e300)]), Ok(u(usize::MAX)));
        assert_eq!(i.call("rem", &[f(-7.5), f(2.0)]), Ok(f(-1.5)));
        assert_eq!(
            i.call("pw", &[f(2.0), u(3)]),
            Ok(Value::vec(&[8.0, 0.25, 1.0, 2.0f64.sqrt()]))
        );
        assert_eq!(
            i.call("math", &[f(2.5)]),
            Ok(Value::vec(&[
                2.5f64.sqrt(),
                2.5f64.exp().ln(),
                2.5,
                2.5,
                2.0,
                3.0,
                1.0,
                2.5
            ]))
        );
        assert_eq!(
            i.call("trig", &[f(0.5)]),
            Ok(Value::vec(&[
                0.5f64.sin(),
                0.5f64.cos(),
                0.5f64.tan(),
                0.5f64.tanh()
            ]))
        );
        let v = Value::vec(&[1.0, -1.0]);
        assert_eq!(i.call("guard", &[v.clone(), u(0)]), Ok(Value::Bool(true)));
        assert_eq!(i.call("guard", &[v.clone(), u(1)]), Ok(Value::Bool(false)));
        assert_eq!(i.call("guard", &[v.clone(), u(2)]), Ok(Value::Bool(false)));
        assert_eq!(i.call("either", &[v.clone(), u(2)]), Ok(Value::Bool(true)));
        assert_eq!(i.call("either", &[v.clone(), u(1)]), Ok(Value::Bool(false)));
        assert_eq!(i.call("sign", &[f(-3.0)]), Ok(f(-1.0)));
        assert_eq!(i.call("sign", &[f(0.0)]), Ok(f(0.0)));
        assert_eq!(i.call("sign", &[f(3.0)]), Ok(f(1.0)));
        assert_eq!(i.call("not", &[Value::Bool(false)]), Ok(Value::Bool(true)));
        assert_eq!(i.call("lets", &[f(1.0)]), Ok(f(7.0)));
        assert!(err(i.call("badlet", &[f(1.0)])).contains("`let v`"));
        // a user function replaces the prelude's, also inside other prelude functions
        assert_eq!(i.call("shadow", &[Value::vec(&[1.0])]), Ok(f(42.0)));
        assert_eq!(
            i.call("dot", &[Value::vec(&[1.0]), Value::vec(&[1.0])]),
            Ok(f(42.0))
        );
        assert!(err(i.call("cmp_bool", &[Value::Bool(true)])).contains("two f64 or two usize"));
        assert!(err(i.call("lit_shape", &[f(1.0)])).contains("differ in shape"));
    }

    #[test]
    fn parse_errors() {
        let e = Interp::new("fn f(x: f64) -> f64 { x +* }")
            .err()
            .unwrap_or_default();
        assert!(!e.is_empty());
        let e = Interp::new("fn f(x: f64) -> f64 { for i in 0..3 {} }")
            .err()
            .unwrap_or_default();
        assert!(e.contains("no `for` loops"), "{e}");
        let e = Interp::new("fn f(x: f64) -> f64 { x } fn f(x: f64) -> f64 { x }")
            .err()
            .unwrap_or_default();
        assert!(e.contains("defined twice"), "{e}");
        let e = Interp::new("fn f(x: f64) -> f64 { \"x\" }")
            .err()
            .unwrap_or_default();
        assert!(e.contains("literals"), "{e}");
        let e = Interp::new("fn f( -> f64 { 1.0 }")
            .err()
            .unwrap_or_default();
        assert!(!e.is_empty());
        let e = Interp::new("fn f(x: f64) -> f64 { (x }")
            .err()
            .unwrap_or_default();
        assert!(!e.is_empty());
    }

    #[test]
    fn doc_comments_and_stringify_text() {
        // stringify! of a block renders `///` as `#[doc = ..]`
        let i = interp("#[doc = \" docs \"] pub fn one() -> f64 { 1.0 }");
        assert_eq!(i.call("one", &[]), Ok(f(1.0)));
    }
}
