//! `unused`: what a block binds, defines or imports and never uses: the findings behind its
//! warnings. rustc itself reports them, through its own lints on the user's tokens
//! ([`crate::emit::lints`]), so `#[allow(unused_variables)]`, `#![allow(unused)]`,
//! `#[expect(..)]` and `-D warnings` work on a block as on Rust code.
//!
//! One walk over the user's block (never the prelude, never an imported block) records, for
//! every binding, whether a name refers to it; the rules below read the record. Names
//! resolve as the checker resolves them: the innermost binding of that name, else a
//! function of the block, else an import, else the prelude. A name in a type (`[f64; n]`)
//! is the function's size name, whatever `let`s are in scope.

use crate::front::ast::{Expr, ExprKind, FnDef, Import, Imported, Name, Program, Ty};
use proc_macro2::Span;

/// What a block leaves unused.
#[derive(Debug, Default)]
pub struct Unused {
    /// Per function of the block with something to report, in block order.
    pub fns: Vec<FnUnused>,
    /// The imported names the block never calls, in source order.
    pub imports: Vec<UnusedImport>,
}

/// The findings in one function of the block.
#[derive(Debug)]
pub struct FnUnused {
    /// The function's position in [`Program::fns`].
    pub index: usize,
    /// Its unused bindings (parameters, `let`s, closure parameters), in source order.
    pub bindings: Vec<Name>,
    /// Whether it is a private helper that no kernel calls.
    pub dead: bool,
}

/// One imported name that the block never calls.
#[derive(Debug)]
pub enum UnusedImport {
    /// `f` or `f as g`: where the function's name and its name here are written.
    Name {
        /// The imported function's name, as written in the `use`.
        name: Name,
        /// Its name in the block (`name` again without `as`).
        alias: Name,
    },
    /// `*`, written at this span.
    Glob(Span),
}

/// Find what `program` leaves unused. `globs(import, name)` tells whether `import`'s `*`
/// brings a function called `name` (the linked blocks know which; `|_, _| true`, which counts
/// a glob as used by any call the block does not resolve itself, never reports a glob wrongly).
pub fn find(program: &Program, globs: &dyn Fn(&Import, &str) -> bool) -> Unused {
    let mut walk = Walk {
        program,
        globs,
        bindings: Vec::new(),
        scope: Vec::new(),
        calls: vec![Vec::new(); program.fns.len()],
        imported: program
            .imports
            .iter()
            .map(|i| vec![false; i.names.len()])
            .collect(),
        current: 0,
    };
    let mut unused = Vec::new();
    for (index, f) in program.fns.iter().enumerate() {
        walk.function(f, index);
        unused.push(unused_bindings(&walk));
    }
    let dead = dead_helpers(program, &walk.calls);
    let fns = unused
        .into_iter()
        .zip(dead)
        .enumerate()
        .filter(|(_, (bindings, dead))| !bindings.is_empty() || *dead)
        .map(|(index, (bindings, dead))| FnUnused {
            index,
            bindings,
            dead,
        })
        .collect();
    Unused {
        fns,
        imports: unused_imports(program, &walk.imported),
    }
}

/// Unused bindings: a function's parameter, a `let` (each name of a tuple pattern on its
/// own), or a closure's parameter (`build(n, |i| 0.0)`'s `i`) that nothing refers to, as
/// rustc's `unused_variables` finds them. A `let` shadowed before any use is unused
/// (`let x = 1.0; let x = 2.0; x`), one shadowed after a use is not (`let x = x + 1.0` uses
/// the first `x`). A `usize` parameter named in a type (`[f64; n]` of another parameter, the
/// result or a `let`'s annotation) is used: it fixes a size. A dead helper's bindings are
/// reported too; `_`, `_name` and the names [`reported`] leaves out never are. Reads the
/// record of the function just walked.
fn unused_bindings(walk: &Walk) -> Vec<Name> {
    walk.bindings
        .iter()
        .filter(|b| b.param_or_local && !b.used && reported(&b.name.text))
        .map(|b| b.name.clone())
        .collect()
}

/// Dead helpers: a private `fn` that no kernel (`pub fn`) reaches through calls, directly
/// or through other helpers, as rustc's `dead_code` finds an unreachable private function.
/// A helper called only by dead helpers is dead too; a call shadowed by a binding of the
/// same name (a function parameter `f`) is no call of the helper `f`. In a block with
/// `pub mod name;` nothing is dead: every function can be imported by another block.
fn dead_helpers(program: &Program, calls: &[Vec<usize>]) -> Vec<bool> {
    let mut reached: Vec<bool> = program.fns.iter().map(|f| f.public).collect();
    let mut stack: Vec<usize> = (0..program.fns.len()).filter(|&i| reached[i]).collect();
    while let Some(fi) = stack.pop() {
        for &g in &calls[fi] {
            if !reached[g] {
                reached[g] = true;
                stack.push(g);
            }
        }
    }
    program
        .fns
        .iter()
        .zip(reached)
        .map(|(f, r)| program.module.is_none() && !r && reported(&f.name.text))
        .collect()
}

/// Unused imports: a name a `use` brings that no function of the block calls, as rustc's
/// `unused_imports` finds one (a call from a dead helper still uses it). A glob is unused
/// when no call of the block goes through it: the block's own functions and its named
/// imports come first.
fn unused_imports(program: &Program, used: &[Vec<bool>]) -> Vec<UnusedImport> {
    let mut out = Vec::new();
    for (import, used) in program.imports.iter().zip(used) {
        for (item, &u) in import.names.iter().zip(used) {
            match item {
                Imported::Name { name, alias } if !u && reported(&alias.text) => {
                    out.push(UnusedImport::Name {
                        name: name.clone(),
                        alias: alias.clone(),
                    });
                }
                Imported::Glob(span) if !u => out.push(UnusedImport::Glob(*span)),
                _ => {}
            }
        }
    }
    out
}

/// Whether a warning about `name` is reported: not `_` nor `_name` (rustc's way to say
/// "unused on purpose"), not a tuple pattern's synthesised name (not an identifier), and
/// snake case as rustc defines it (no uppercase letter, no `__` inside): rustc would add its
/// `non_snake_case` warning to any other, and an uppercase name could be a constant in the
/// block's module.
pub fn reported(name: &str) -> bool {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let identifier = name.chars().all(|c| c == '_' || c.is_alphanumeric())
        && name.chars().next().is_some_and(|c| !c.is_numeric());
    identifier
        && !name.starts_with('_')
        && !name.chars().any(char::is_uppercase)
        && !name.trim_end_matches('_').contains("__")
}

/// A binding: what a name refers to, and whether anything did.
struct Binding {
    name: Name,
    /// A parameter, `let` or closure parameter (not a size name that only a type binds).
    param_or_local: bool,
    used: bool,
}

/// The walk: the bindings of the function being walked, those in scope, and what the
/// block's functions call and import.
struct Walk<'p> {
    program: &'p Program,
    globs: &'p dyn Fn(&Import, &str) -> bool,
    /// Every binding of the current function, in source order.
    bindings: Vec<Binding>,
    /// Indexes into `bindings` in scope, innermost last.
    scope: Vec<usize>,
    /// By function: the block's functions it calls.
    calls: Vec<Vec<usize>>,
    /// By import, by name: whether a call goes through it.
    imported: Vec<Vec<bool>>,
    /// The function being walked.
    current: usize,
}

impl Walk<'_> {
    /// Walk function `f` (number `index`), starting afresh.
    fn function(&mut self, f: &FnDef, index: usize) {
        self.bindings.clear();
        self.scope.clear();
        self.current = index;
        // Size names that only types bind (`a: [f64; n]` without `n: usize`): uses of them
        // are nobody's concern here, but they shadow the block's functions as bindings do.
        let mut sizes = Vec::new();
        for p in &f.params {
            ty_sizes(&p.ty, &mut sizes);
        }
        for s in &sizes {
            if !f.params.iter().any(|p| p.name.text == s.text) {
                self.bind(s.clone(), false);
            }
        }
        for p in &f.params {
            self.bind(p.name.clone(), true);
        }
        let fn_level = self.scope.len();
        // A parameter named in the signature's types fixes a size: it is used.
        ty_sizes(&f.ret, &mut sizes);
        for n in &sizes {
            self.size(n, fn_level);
        }
        self.expr(&f.body, fn_level);
        self.calls[index].sort_unstable();
        self.calls[index].dedup();
    }

    /// Bring a binding into scope.
    fn bind(&mut self, name: Name, param_or_local: bool) {
        self.scope.push(self.bindings.len());
        self.bindings.push(Binding {
            name,
            param_or_local,
            used: false,
        });
    }

    /// A size name in a type: the function's binding of that name (the first `fn_level`
    /// entries of the scope), whatever `let`s shadow it.
    fn size(&mut self, n: &Name, fn_level: usize) {
        if let Some(&b) = self.scope[..fn_level]
            .iter()
            .rev()
            .find(|&&b| self.bindings[b].name.text == n.text)
        {
            self.bindings[b].used = true;
        }
    }

    /// A name used as a value or called: the innermost binding, else a function of the
    /// block, else an import.
    fn name(&mut self, n: &str) {
        if let Some(&b) = self
            .scope
            .iter()
            .rev()
            .find(|&&b| self.bindings[b].name.text == n)
        {
            self.bindings[b].used = true;
            return;
        }
        if let Some(g) = self.program.fns.iter().position(|f| f.name.text == n) {
            self.calls[self.current].push(g);
            return;
        }
        for (import, used) in self.program.imports.iter().zip(&mut self.imported) {
            for (item, u) in import.names.iter().zip(used.iter_mut()) {
                if let Imported::Name { alias, .. } = item
                    && alias.text == n
                {
                    *u = true;
                    return;
                }
            }
        }
        for (import, used) in self.program.imports.iter().zip(&mut self.imported) {
            for (item, u) in import.names.iter().zip(used.iter_mut()) {
                if matches!(item, Imported::Glob(_)) && (self.globs)(import, n) {
                    *u = true;
                }
            }
        }
    }

    /// Walk `e` (`fn_level`: how many scope entries are the function's own).
    fn expr(&mut self, e: &Expr, fn_level: usize) {
        match &e.kind {
            ExprKind::Float(..) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Error => {}
            ExprKind::Var(n) => self.name(&n.text),
            ExprKind::Call(n, args) => {
                self.name(&n.text);
                for a in args {
                    self.expr(a, fn_level);
                }
            }
            ExprKind::Block(lets, tail) => {
                let mark = self.scope.len();
                for l in lets {
                    if let Some(t) = &l.ty {
                        let mut named = Vec::new();
                        ty_sizes(t, &mut named);
                        for n in &named {
                            self.size(n, fn_level);
                        }
                    }
                    self.expr(&l.value, fn_level);
                    self.bind(l.name.clone(), true);
                }
                self.expr(tail, fn_level);
                self.scope.truncate(mark);
            }
            ExprKind::Build(n, i, body) => {
                self.expr(n, fn_level);
                self.within(std::slice::from_ref(i), body, fn_level);
            }
            ExprKind::Ifold(n, init, acc, i, body) | ExprKind::Scan(n, init, acc, i, body) => {
                self.expr(n, fn_level);
                self.expr(init, fn_level);
                self.within(&[acc.clone(), i.clone()], body, fn_level);
            }
            ExprKind::Iterate(init, s, cond, t, next) => {
                self.expr(init, fn_level);
                self.within(std::slice::from_ref(s), cond, fn_level);
                self.within(std::slice::from_ref(t), next, fn_level);
            }
            ExprKind::Scatter(sc) => {
                self.expr(&sc.m, fn_level);
                if let Some(ne) = &sc.ne {
                    self.expr(ne, fn_level);
                }
                if let Some((a, b, op)) = &sc.op {
                    self.within(&[a.clone(), b.clone()], op, fn_level);
                }
                self.expr(&sc.n, fn_level);
                self.within(std::slice::from_ref(&sc.i), &sc.body, fn_level);
            }
            ExprKind::Closure(ps, body) => self.within(ps, body, fn_level),
            ExprKind::Index(a, b) | ExprKind::Bin(_, a, b) => {
                self.expr(a, fn_level);
                self.expr(b, fn_level);
            }
            ExprKind::Slice(a, lo, hi) => {
                self.expr(a, fn_level);
                for x in [lo, hi].into_iter().flatten() {
                    self.expr(x, fn_level);
                }
            }
            ExprKind::Len(a) | ExprKind::Un(_, a) | ExprKind::Cast(a, _) => self.expr(a, fn_level),
            ExprKind::Proj(a, _, _) => self.expr(a, fn_level),
            ExprKind::Tuple(xs) | ExprKind::Array(xs) => {
                for x in xs {
                    self.expr(x, fn_level);
                }
            }
            ExprKind::If(c, a, b) => {
                self.expr(c, fn_level);
                self.expr(a, fn_level);
                self.expr(b, fn_level);
            }
            ExprKind::Math(_, r, xs) => {
                self.expr(r, fn_level);
                for x in xs {
                    self.expr(x, fn_level);
                }
            }
        }
    }

    /// Walk `body` with the closure parameters `ps` in scope.
    fn within(&mut self, ps: &[Name], body: &Expr, fn_level: usize) {
        let mark = self.scope.len();
        for p in ps {
            self.bind(p.clone(), true);
        }
        self.expr(body, fn_level);
        self.scope.truncate(mark);
    }
}

/// The size names written in a type, in order.
fn ty_sizes(t: &Ty, out: &mut Vec<Name>) {
    match t {
        Ty::F64(_) | Ty::F32(_) | Ty::Usize(_) | Ty::Bool(_) | Ty::Elem(_) => {}
        Ty::Array(e, n, _) => {
            ty_sizes(e, out);
            let mut names = Vec::new();
            n.names(&mut names);
            out.extend(names.into_iter().cloned());
        }
        Ty::Fn(ps, r, _) => {
            for p in ps {
                ty_sizes(p, out);
            }
            ty_sizes(r, out);
        }
        Ty::Tuple(ts, _) => {
            for p in ts {
                ty_sizes(p, out);
            }
        }
    }
}

#[cfg(test)]
mod tests;
