//! The reference interpreter of the source language (LANGUAGE.md), used by tests to check
//! the code the compiler generates.
//!
//! It evaluates the parsed AST directly, with an environment of names, and is meant to be
//! obviously correct rather than fast:
//!
//! - every value is a [`Value`]; arrays are nested [`Value::Array`]s, checked to be
//!   rectangular where they are built (`build`, array literals, `ifold` and `scan` states,
//!   the views); tuples are [`Value::Tuple`]s, which arrays never hold;
//! - tuples (LANGUAGE.md section 8) are plain values: `(a, b)` builds one, `t.k` takes a
//!   component (an error if `t` is not a tuple or has no component k), and patterns need
//!   nothing of their own, since the parser turns `let (a, b) = e;` and `|(s, q), i|` into
//!   a binding of the whole and `let`s of its projections. Declared tuple types are checked
//!   component by component, and size names are bound through them;
//! - `ifold` and `scan` run the same steps; every state must keep the initial state's shape
//!   (each tuple component its own). `scan` keeps the n states, state k after step k: an
//!   array of them, or for a tuple state a tuple of such arrays, component by component
//!   (nested tuples alike), so `scan(n, (0.0, [1.0, 2.0]), ..)` is `([f64; n], [[f64; 2]; n])`;
//! - the layout views (section 9: `concat join split reverse interleave slide pad`) are
//!   built-in functions, reached only when no closure or parameter in scope and no block or
//!   prelude function has the name; each builds its result array outright, and a fault the
//!   compiled code reports at run time (`split` of a length that is not a multiple of m,
//!   `slide` with w = 0 or n + 1 < w) or that its checker rejects (arguments that are not
//!   arrays, rows or lengths that differ, `pad`'s v not an element of the array) is an `Err`;
//! - at every call, size names are bound from the `usize` parameters and then from the
//!   argument shapes (a bare size name `n` in `[T; n]` takes that dimension's length), and
//!   every argument, and the result, is then checked against its declared type with those
//!   sizes (composite sizes such as `n + 1` must match the length they describe);
//! - f64 and f32 arithmetic are Rust's, each in its own type (an f32 never passes through
//!   f64; the math methods are [`MathFn::eval`] and [`MathFn::eval_f32`]); usize arithmetic
//!   is checked (underflow, overflow and `/` or `%` by zero are errors, never wrapped
//!   values), and `min`, `max`, `clamp` apply to usize too; casts are Rust's `as`;
//! - an unsuffixed float literal is untyped ([`Value::Untyped`]) until it meets a typed
//!   float (an operand, a math method's receiver or argument, a declared type, an element
//!   of the same array), and then has that type, as Rust gives a literal the type its
//!   context needs; what meets nothing is an f64. A float of one type meeting one of the
//!   other is an error, as in the checker;
//! - usize arrays are arrays of [`Value::Usize`]: index arrays (`a[idx[i]]`, a gather) are
//!   indexes like any other, and one out of range is an error where it is used;
//! - the derivative forms (section 12: `grad`, `jvp`, `vjp`) are reached by name like the
//!   views. Forward mode evaluates the function once on dual numbers ([`Value::DualF64`],
//!   [`Value::DualF32`]: each float of the arguments carries its tangent, and every scalar
//!   operation propagates it, the derivative of the branch taken at a kink); reverse mode
//!   runs forward mode once per float of the arguments (a column of the Jacobian each) and
//!   takes `s^T J`. Slow, but correct as soon as the scalar rules are. The `ad` and `dual`
//!   parts say exactly what is computed;
//! - every fault (bad index, bad slice, shape or type mismatch, unknown name, runaway
//!   recursion) is an `Err` with a description, never a panic.
//!
//! Every function belongs to a block (the user's, the blocks it imports from, the prelude),
//! and the names in its body mean its block's functions and imports, then the prelude's: a
//! user function replaces a prelude function of the same name in the user's block only, as
//! the compiler resolves names ([`Interp`]).
//!
//! Limitation: a [`Value`] does not carry a shape, so an empty array does not show its inner
//! sizes (`[[f64; m]; 0]` is just `[]`). A size that only such an array would determine is
//! unknown, and using it is an error. Nor can the views compare the row shape of an empty
//! argument with the other's (`concat([], b)` takes b's rows as they are).
//!
//! The interpreter does not type-check a program: it evaluates what it is given and checks
//! values where they meet a declared type (calls, results, annotated `let`s) or a form that
//! needs a shape (the list above). So it runs some programs the checker rejects, such as a
//! `split` whose length is not a multiple of m as written; for those it is no oracle.
//!
//! The module is in parts: `value` (the values), `env` (what names stand for), `types`
//! (sizes and types as written, and values checked against them), `call` (calls and the
//! evaluator), `eval` (expressions), `scalar` (operators, casts and math on scalars),
//! `tuples` (tuples, projections, `ifold` and `scan`), `views` (the layout views), `ad` (the
//! derivative forms) and `dual` (the tangents of the scalar operations).
//!
//! [`MathFn::eval`]: fsmooth_core::front::ast::MathFn::eval
//! [`MathFn::eval_f32`]: fsmooth_core::front::ast::MathFn::eval_f32

mod ad;
#[cfg(test)]
mod ad_gmm_tests;
#[cfg(test)]
mod ad_prop_tests;
#[cfg(test)]
mod ad_tests;
mod call;
mod dual;
mod env;
mod eval;
mod scalar;
mod scatter;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tuple_tests;
mod tuples;
#[cfg(test)]
mod typed_tests;
mod types;
mod value;
#[cfg(test)]
mod view_tests;
mod views;

pub use value::Value;

use call::Evaluator;
use env::Denotation;
use fsmooth_core::front::ast::{FnDef, Imported, Program};
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

/// A program ready to run: the user's block, the blocks it imports from (issue 19's
/// `pub mod` / `use`), and the prelude. Every function belongs to a block, and the names in
/// its body (and in the closures written there) mean that block's functions and imports,
/// then the prelude's: a block's function shadows a prelude function of its name in that
/// block only, as the compiler resolves names.
pub struct Interp {
    blocks: Blocks,
}

/// Every function, and the names each block sees.
pub(crate) struct Blocks {
    /// Every function: the user's block's, then the imported blocks', then the prelude's.
    defs: Vec<FnDef>,
    /// The block of each function: 0 the user's, the last the prelude.
    home: Vec<usize>,
    /// By block, the functions its bodies can call by name: its own and its imports.
    names: Vec<HashMap<String, usize>>,
}

impl Blocks {
    /// The function called `name` from a body in `block`, and its own block.
    pub(crate) fn find(&self, block: usize, name: &str) -> Option<(&FnDef, usize)> {
        let prelude = self.names.len() - 1;
        let i = self.names[block]
            .get(name)
            .or_else(|| self.names[prelude].get(name))?;
        Some((&self.defs[*i], self.home[*i]))
    }

    /// The names a body in `block` can call, sorted (so that suggestions do not depend on
    /// hashing).
    pub(crate) fn sorted_names(&self, block: usize) -> Vec<&str> {
        let prelude = self.names.len() - 1;
        let mut names: Vec<&str> = self.names[block]
            .keys()
            .chain(self.names[prelude].keys())
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

impl Interp {
    /// Parse `src` (the text of a fsmooth block, e.g. from `stringify!`) together with the
    /// prelude. Errors are the parse errors' messages (one per line), or a note that a
    /// function is defined twice in `src`.
    pub fn new(src: &str) -> Result<Interp, String> {
        Interp::linked(src, &[])
    }

    /// Like [`Interp::new`], for a block whose `use` items import from other blocks: each
    /// given as its module path as written in the `use` (`"crate::geometry"`) and its
    /// source (declaring `pub mod geometry;`). Imports in those blocks are resolved the same
    /// way. Errors also name an import of no given module, or of no function of it.
    pub fn linked(src: &str, modules: &[(&str, &str)]) -> Result<Interp, String> {
        let prelude = parse_program(PRELUDE).map_err(|e| format!("in the prelude: {e}"))?;
        let mut programs = vec![parse_program(src)?];
        // The module path of each imported block, by its index in `programs`.
        let mut paths: Vec<String> = vec![String::new()];
        let mut links: Vec<Vec<usize>> = Vec::new();
        let mut b = 0;
        while b < programs.len() {
            let mut to = Vec::new();
            let wanted: Vec<String> = programs[b].imports.iter().map(|i| i.path_text()).collect();
            for path in wanted {
                let k = match paths.iter().position(|p| *p == path) {
                    Some(k) => k,
                    None => {
                        let (_, module) = modules
                            .iter()
                            .find(|(p, _)| p.replace(' ', "") == path)
                            .ok_or_else(|| format!("no block is module `{path}`"))?;
                        programs.push(parse_program(module)?);
                        paths.push(path);
                        programs.len() - 1
                    }
                };
                to.push(k);
            }
            links.push(to);
            b += 1;
        }
        let mut defs = Vec::new();
        let mut home = Vec::new();
        let mut names: Vec<HashMap<String, usize>> = Vec::new();
        let mut imports = Vec::new();
        for (b, program) in programs.into_iter().chain([prelude]).enumerate() {
            let mut own = HashMap::new();
            for f in program.fns {
                let name = f.name.text.clone();
                if own.insert(name.clone(), defs.len()).is_some() {
                    return Err(format!("the function `{name}` is defined twice"));
                }
                defs.push(f);
                home.push(b);
            }
            names.push(own);
            imports.push(program.imports);
        }
        for (b, to) in links.iter().enumerate() {
            for (import, &k) in imports[b].iter().zip(to) {
                // Only a block's own functions are importable: take them before `names[b]`
                // grows (a block may import from itself only through a cycle, which the
                // compiler's expansion cannot build).
                let theirs: Vec<(String, usize)> = names[k]
                    .iter()
                    .filter(|(_, i)| home[**i] == k)
                    .map(|(n, i)| (n.clone(), *i))
                    .collect();
                for item in &import.names {
                    match item {
                        Imported::Name { name, alias } => {
                            let (_, i) =
                                theirs
                                    .iter()
                                    .find(|(n, _)| *n == name.text)
                                    .ok_or_else(|| {
                                        format!(
                                            "`{}` is not a function of the block `{}`",
                                            name.text,
                                            import.path_text()
                                        )
                                    })?;
                            names[b].insert(alias.text.clone(), *i);
                        }
                        Imported::Glob(_) => {
                            for (n, i) in &theirs {
                                names[b].entry(n.clone()).or_insert(*i);
                            }
                        }
                    }
                }
            }
        }
        Ok(Interp {
            blocks: Blocks { defs, home, names },
        })
    }

    /// Call function `name` (kernel or helper) with `args` (arrays as nested
    /// [`Value::Array`]; sizes are bound from argument shapes as LANGUAGE.md describes,
    /// `usize` parameters are passed as [`Value::Usize`]). Returns the result or a
    /// description of the run-time fault (with the chain of calls it happened in).
    ///
    /// A kernel with several results returns a [`Value::Tuple`]: component I of
    /// [`Value::parts`] is what the generated kernel writes to `outI` (an array, to compare
    /// with [`Value::flatten`]) or returns (a scalar).
    pub fn call(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let (def, block) = self.blocks.find(0, name).ok_or_else(|| {
            let hint = closest(name, self.blocks.sorted_names(0))
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            format!("no function `{name}`{hint}")
        })?;
        let evaluator = Evaluator {
            blocks: &self.blocks,
            block,
            stack_base: stack_address(),
            differentiating: false,
        };
        let args = args.iter().map(|v| Denotation::from(v.clone())).collect();
        match evaluator.call_fn(def, args, 1)? {
            // An untyped float that met no type is an f64 (a helper returning `T`).
            Denotation::Value(v) => Ok(unwrap_rc(v).settle(value::Float::F64)),
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

/// The value inside `v`, cloned only if it is shared.
fn unwrap_rc(v: Rc<Value>) -> Value {
    Rc::try_unwrap(v).unwrap_or_else(|v| (*v).clone())
}
