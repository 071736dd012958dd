//! `check`: names, types and the shape translation (the paper's S), elaborating each kernel
//! into the core IR with every helper call and closure inlined.
//!
//! Every function of the block is checked once on its own, generically in its size names, and
//! errors are reported on the user's tokens. Kernels are then elaborated: a call unifies the
//! callee's size names with the caller's shapes and inlines the callee's body at those sizes.
//! Errors inside an inlined body are the callee's own (already reported by its generic
//! check); a failure that only the instantiation reveals is reported at the call.
//!
//! This module holds the block: the functions in scope ([`Scope`]) and the rules about the
//! block as a whole (names, recursion). The rest, in order of use:
//! `signature` (written types, and one function's parameters, result and body), `elab` (the
//! expression checker), `infer` (the float type of literals, from their context),
//! `scalars` (operators, casts and math methods: no implicit mixing of `f64`, `f32` and
//! `usize`), `loops` (`build`, `ifold`, `scan`), `tuples` (tuples, projections,
//! patterns' arity), `views` (the layout views), `calls` (calls, closures, inlining),
//! `generic` (element-type parameters that stand for scalars only), `pins`
//! (how a kernel reads its size names from its arguments), `show` (expressions as text for
//! run-time messages), and `prelude` (the prelude's functions, parsed once per thread).

mod calls;
mod elab;
mod generic;
mod infer;
#[cfg(test)]
mod literal_tests;
mod loops;
mod pins;
mod prelude;
mod scalars;
mod show;
mod signature;
#[cfg(test)]
mod tests;
mod tuples;
mod views;

pub use show::show;
pub use views::{VIEWS, usage};

use crate::front::ast::{self, Expr, ExprKind, FnDef};
use crate::front::diag::Diags;
use crate::middle::ir::Kernel;
use proc_macro2::Span;
use signature::check_fn;

/// The prelude's source text.
pub const PRELUDE: &str = include_str!("../prelude.fs");

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
        // Parsed once per thread (see `prelude` for why the cache is safe in a proc macro).
        let prelude = prelude::functions();
        for f in prelude {
            if !fns[..user].iter().any(|u| u.name.text == f.name.text) {
                fns.push(f);
            }
        }
        Scope { fns, user, options }
    }

    /// The index of the function called `name`.
    fn find(&self, name: &str) -> Option<usize> {
        self.fns.iter().position(|f| f.name.text == name)
    }
}

/// Check every user function, and elaborate the valid kernels.
pub fn check(scope: &Scope, diags: &mut Diags) -> Vec<Kernel> {
    let user = &scope.fns[..scope.user];
    for (k, f) in user.iter().enumerate() {
        not_built_in(f, diags);
        defined_once(f, &user[..k], diags);
        no_reserved_parameters(f, diags);
    }
    let recursive = find_recursion(scope, diags);
    let mut kernels = Vec::new();
    for (fi, f) in user.iter().enumerate() {
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

/// A function may not be named `build`, `ifold`, `scan` or `length`: those are forms of the
/// language, and a call by that name means the form. (The views, `concat` and the rest, are
/// functions: a block's own function of that name shadows them.)
fn not_built_in(f: &FnDef, diags: &mut Diags) {
    if matches!(f.name.text.as_str(), "build" | "ifold" | "scan" | "length") {
        diags.error(
            f.name.span,
            format!(
                "`{}` is built into fsmooth: choose another name",
                f.name.text
            ),
        );
    }
}

/// A name is defined once in a block (`earlier`: the block's functions before `f`). A block
/// function may shadow a prelude function, but not another of the block's.
fn defined_once(f: &FnDef, earlier: &[FnDef], diags: &mut Diags) {
    if earlier.iter().any(|g| g.name.text == f.name.text) {
        diags.error(
            f.name.span,
            format!("`{}` is defined twice in this block", f.name.text),
        );
    }
}

/// A kernel's parameters may not be named `out`, `region` or `scratch`, nor `out0`, `out1`,
/// ..: the generated Rust function takes parameters of those names itself (the `outI` are a
/// kernel's several results). (Helpers are inlined, so their parameters never reach Rust.)
fn no_reserved_parameters(f: &FnDef, diags: &mut Diags) {
    if !f.public {
        return;
    }
    for p in &f.params {
        let text = p.name.text.as_str();
        let numbered_out = text
            .strip_prefix("out")
            .is_some_and(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()));
        if matches!(text, "out" | "region" | "scratch") || numbered_out {
            diags.error(
                p.name.span,
                format!(
                    "`{}` is a name the generated kernel uses for itself: rename this parameter",
                    p.name.text
                ),
            );
        }
    }
}

/// No function calls itself, directly or through others: every call is inlined, and
/// fsmooth iterates with `build` and `ifold`. Finds the cycles of the call graph, reports
/// each once at a call that closes it, and returns every function on a cycle (calls to
/// those fail quietly afterwards).
fn find_recursion(scope: &Scope, diags: &mut Diags) -> Vec<usize> {
    fn calls(e: &Expr, out: &mut Vec<(String, Span)>) {
        if let ExprKind::Call(n, _) = &e.kind {
            out.push((n.text.clone(), n.span));
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
                .filter(|(name, _)| !f.params.iter().any(|p| &p.name.text == name))
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
                    .map(|(x, _)| format!("`{}`", scope.fns[*x].name.text))
                    .chain([format!("`{}`", scope.fns[start].name.text)])
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
        ExprKind::Float(..)
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
        ExprKind::Ifold(n, i, _, _, b) | ExprKind::Scan(n, i, _, _, b) => {
            f(n);
            f(i);
            f(b);
        }
        ExprKind::Array(xs) | ExprKind::Call(_, xs) | ExprKind::Tuple(xs) => xs.iter().for_each(f),
        ExprKind::Proj(a, _, _) => f(a),
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
