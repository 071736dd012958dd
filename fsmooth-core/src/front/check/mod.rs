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
mod derivatives;
mod elab;
mod generic;
mod infer;
mod iterate;
#[cfg(test)]
mod literal_tests;
mod loops;
mod pins;
mod prelude;
mod scalars;
mod scatter;
mod show;
mod signature;
#[cfg(test)]
mod spec16_tests;
mod teach;
#[cfg(test)]
mod tests;
mod tuples;
mod views;

pub use show::show;
pub use views::{VIEWS, usage};

use crate::front::ast::{self, Expr, ExprKind, FnDef};
use crate::front::diag::{Diags, closest};
use crate::front::imports::Block;
use crate::middle::ir::Kernel;
use proc_macro2::Span;
use signature::check_fn;
use std::collections::HashMap;

/// The prelude's source text.
pub const PRELUDE: &str = include_str!("../prelude.fs");

/// The functions in scope in a block: the user's, those of the blocks it imports from, and
/// the prelude's. Each function belongs to a block, and names in its body resolve there:
/// to the block's own functions and imports first, then the prelude.
pub struct Scope {
    /// Every function: the user's block's first, then the imported blocks', then the prelude's.
    pub fns: Vec<FnDef>,
    /// How many of `fns` are the user's.
    pub user: usize,
    /// The block of each function: 0 the user's, then the imported blocks, the last the prelude.
    pub home: Vec<usize>,
    /// The names each block sees, to function indexes: its own and its imports.
    names: Vec<HashMap<String, usize>>,
    /// The user's block's imports that name no function (reported at the import): their
    /// calls fail quietly.
    unresolved: Vec<String>,
    /// By block: whether its source had errors where it is written (calls into it fail
    /// quietly: its errors are reported there).
    pub failed: Vec<bool>,
    /// The block's options.
    pub options: ast::Options,
    /// The user's block's `pub mod name;`, if it has one.
    pub module: Option<ast::ModuleDecl>,
    /// The user's block's imports.
    pub imports: Vec<ast::Import>,
}

impl Scope {
    /// A block without imports, joined with the prelude.
    pub fn new(program: ast::Program) -> Scope {
        let block = Block {
            id: String::new(),
            links: vec![None; program.imports.len()],
            program,
            failed: false,
        };
        Scope::linked(vec![block], &mut Diags::default())
    }

    /// The user's block (the first) and the blocks its imports name, transitively, joined
    /// with the prelude. The user's import errors go to `diags`.
    pub fn linked(blocks: Vec<Block>, diags: &mut Diags) -> Scope {
        let prelude_block = blocks.len();
        let mut fns = Vec::new();
        let mut home = Vec::new();
        let mut firsts = Vec::new();
        let mut failed = Vec::new();
        let mut imports = Vec::new();
        let mut links = Vec::new();
        let mut module = None;
        let mut options = ast::Options::default();
        for (b, block) in blocks.into_iter().enumerate() {
            firsts.push(fns.len());
            failed.push(block.failed);
            if b == 0 {
                options = block.program.options;
                module = block.program.module;
            }
            home.extend(std::iter::repeat_n(b, block.program.fns.len()));
            fns.extend(block.program.fns);
            imports.push(block.program.imports);
            links.push(block.links);
        }
        firsts.push(fns.len());
        let user = firsts[1];
        // Parsed once per thread (see `prelude` for why the cache is safe in a proc macro).
        for f in prelude::functions() {
            fns.push(f);
            home.push(prelude_block);
        }
        failed.push(false);
        let mut names: Vec<HashMap<String, usize>> = Vec::new();
        let mut unresolved = Vec::new();
        for b in 0..=prelude_block {
            let mut seen = HashMap::new();
            let own = firsts[b]..if b == prelude_block {
                fns.len()
            } else {
                firsts[b + 1]
            };
            for fi in own {
                // A name defined twice is reported by `defined_once`: the first counts.
                seen.entry(fns[fi].name.text.clone()).or_insert(fi);
            }
            names.push(seen);
        }
        for b in 0..prelude_block {
            let report = b == 0;
            for (import, to) in imports[b].iter().zip(&links[b]) {
                let Some(to) = *to else { continue };
                let mut quiet = Diags::default();
                let d = if report { &mut *diags } else { &mut quiet };
                let theirs = names[to].clone();
                let blocks = Owners {
                    importing: firsts[b]..firsts[b + 1],
                    imported: firsts[to]..firsts[to + 1],
                };
                let missing =
                    import_names(import, &theirs, &blocks, &fns, &mut names[b], failed[to], d);
                if report {
                    unresolved.extend(missing);
                }
            }
        }
        let imports = imports.into_iter().next().unwrap_or_default();
        Scope {
            fns,
            user,
            home,
            names,
            unresolved,
            failed,
            options,
            module,
            imports,
        }
    }

    /// The function called `name` in the body of a function of block `block`: the block's
    /// own or imported, else the prelude's.
    fn find(&self, block: usize, name: &str) -> Option<usize> {
        let prelude = self.names.len() - 1;
        self.names[block]
            .get(name)
            .or_else(|| self.names[prelude].get(name))
            .copied()
    }

    /// Whether `name`, called in block `block`, is an import that names no function (an
    /// error at the import already).
    pub(super) fn unresolved_import(&self, block: usize, name: &str) -> bool {
        block == 0 && self.unresolved.iter().any(|n| n == name)
    }

    /// The index in [`Scope::fns`] of the prelude's first function.
    fn prelude_start(&self) -> usize {
        let prelude = self.names.len() - 1;
        self.home
            .iter()
            .position(|&b| b == prelude)
            .unwrap_or(self.fns.len())
    }

    /// The names of functions a body in `block` can call, for suggestions.
    fn visible(&self, block: usize) -> impl Iterator<Item = &str> {
        let prelude = self.names.len() - 1;
        self.names[block]
            .keys()
            .chain(self.names[prelude].keys())
            .map(String::as_str)
    }
}

/// The functions (indexes into [`Scope::fns`]) of an importing block and of the block it
/// imports from.
struct Owners {
    importing: std::ops::Range<usize>,
    imported: std::ops::Range<usize>,
}

/// Bring `import`'s names into the importing block's `names`. The imported block sees
/// `theirs`, of which only its own functions are importable (a block's imports are not
/// re-exported). Unknown names and clashes are reported, on the importing block's tokens;
/// the unknown ones are returned.
fn import_names(
    import: &ast::Import,
    theirs: &HashMap<String, usize>,
    blocks: &Owners,
    fns: &[FnDef],
    names: &mut HashMap<String, usize>,
    failed: bool,
    diags: &mut Diags,
) -> Vec<String> {
    let path = import.path_text();
    let mut missing = Vec::new();
    let owners = blocks.imported.clone();
    let bring = |names: &mut HashMap<String, usize>,
                 alias: &ast::Name,
                 fi: usize,
                 diags: &mut Diags| {
        match names.get(&alias.text) {
            Some(&g) if g == fi => {}
            Some(&g) if blocks.importing.contains(&g) => {
                diags.error(
                    alias.span,
                    format!(
                        "`{}` is defined in this block and imported from `{path}`: rename one (`use {path}::{{{} as other}}`)",
                        alias.text, alias.text
                    ),
                );
            }
            Some(_) => diags.error(
                alias.span,
                format!("`{}` is imported twice: rename one with `as`", alias.text),
            ),
            None => {
                names.insert(alias.text.clone(), fi);
            }
        }
    };
    for item in &import.names {
        match item {
            ast::Imported::Name { name, alias } => {
                match theirs.get(&name.text).filter(|fi| owners.contains(fi)) {
                    Some(&fi) => bring(names, alias, fi, diags),
                    // Its errors are reported where it is written.
                    None if failed => missing.push(alias.text.clone()),
                    None => {
                        missing.push(alias.text.clone());
                        let hint = closest(
                            &name.text,
                            owners.clone().map(|fi| fns[fi].name.text.as_str()),
                        )
                        .map(|c| format!("\n  help: did you mean `{c}`?"))
                        .unwrap_or_default();
                        diags.error(
                            name.span,
                            format!(
                                "`{}` is not a function of the block `{path}`{hint}",
                                name.text
                            ),
                        );
                    }
                }
            }
            ast::Imported::Glob(span) => {
                let mut all: Vec<(&String, &usize)> = theirs
                    .iter()
                    .filter(|(_, fi)| owners.contains(fi))
                    .collect();
                all.sort_by_key(|(_, fi)| **fi);
                for (n, &fi) in all {
                    let alias = ast::Name {
                        text: n.clone(),
                        span: *span,
                    };
                    // A glob yields to the block's own functions, as Rust's do.
                    if !names.contains_key(n) {
                        bring(names, &alias, fi, diags);
                    }
                }
            }
        }
    }
    missing
}

/// Check every user function, and elaborate the valid kernels.
pub fn check(scope: &Scope, diags: &mut Diags) -> Vec<Kernel> {
    let user = &scope.fns[..scope.user];
    for (k, f) in user.iter().enumerate() {
        not_built_in(f, diags);
        defined_once(f, &user[..k], diags);
        no_reserved_parameters(f, diags);
    }
    exported_imports_are_absolute(scope, diags);
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

/// A block that declares `pub mod name;` imports by absolute paths (`crate::..`, or another
/// crate's): its source is compiled again wherever it is imported, where `self::` and
/// `super::` would name other modules.
fn exported_imports_are_absolute(scope: &Scope, diags: &mut Diags) {
    let Some(decl) = &scope.module else { return };
    for i in &scope.imports {
        let first = i.path.clone().into_iter().next();
        if let Some(proc_macro2::TokenTree::Ident(id)) = first
            && (id == "self" || id == "super")
        {
            diags.error(
                id.span(),
                format!(
                    "block `{}` is imported by other blocks, where `{id}::` would mean another module: import by an absolute path (`crate::..`)",
                    decl.name.text
                ),
            );
        }
    }
}

/// A function may not be named `build`, `ifold`, `scan` or `length`: those are forms of the
/// language, and a call by that name means the form. (The views, `concat` and the rest, are
/// functions: a block's own function of that name shadows them, and so does one named as a
/// form of sections 14 and 15, `iterate`, `scatter_add` or `reduce_by_index`, as in v2.)
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
        .enumerate()
        .map(|(fi, f)| {
            let mut cs = Vec::new();
            calls(&f.body, &mut cs);
            cs.into_iter()
                .filter(|(name, _)| !f.params.iter().any(|p| &p.name.text == name))
                .filter_map(|(name, sp)| scope.find(scope.home[fi], &name).map(|i| (i, sp)))
                .collect()
        })
        .collect();
    let mut bad: Vec<usize> = Vec::new();
    // Imported blocks' cycles too (reported where they are written): inlining one would
    // not end.
    for start in 0..scope.prelude_start() {
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
                } else if f == start && start < scope.user {
                    diags.error(
                        sp,
                        format!(
                            "recursion: {} calls itself; fsmooth has `build` and `ifold` instead of recursion",
                            path[0]
                        ),
                    );
                } else if f != start && f < scope.user {
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
        ExprKind::Iterate(init, _, c, _, b) => {
            f(init);
            f(c);
            f(b);
        }
        ExprKind::Scatter(sc) => {
            f(&sc.m);
            if let Some(ne) = &sc.ne {
                f(ne);
            }
            if let Some((_, _, op)) = &sc.op {
                f(op);
            }
            f(&sc.n);
            f(&sc.body);
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
