//! The respeller: for a program, equivalent spellings (LANGUAGE.md section 13), for the
//! respelling differential (`fsmooth-core/tests/respell_differential.rs`), which checks that
//! every spelling compiles to the same code and scratch.
//!
//! Each [`Rewrite`] replaces one spelling of a meaning by another wherever the program uses
//! it: a prelude helper by its body written in place, a sum of a `map` by a sum of a
//! `build`, a product by a `map2`. Each keeps the order of every float operation (a rewrite
//! that changes it would be no respelling): the prelude's `sum` starts from `-0.0` and adds
//! in index order, as the rewritten folds do. An argument that is not a variable is bound by
//! a `let` first, so that nothing is computed twice.

use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprCall};

/// One rewrite of section 13's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rewrite {
    /// `sum(v)` as the fold it is: `ifold(v.len(), -0.0, |acc, i| acc + v[i])` (a helper,
    /// or its body written in place; a sum written as an `ifold` adding a term).
    SumAsFold,
    /// `dot(a, b)` as `sum(map2(a, b, |x, y| x * y))`.
    DotAsMap2,
    /// `sqnorm(v)` as `dot(v, v)`.
    SqnormAsDot,
    /// `sum(map(v, |q| e))` as `sum(build(v.len(), |i| { let q = v[i]; e }))`.
    SumMapAsBuild,
}

/// Every rewrite.
pub const REWRITES: [Rewrite; 4] = [
    Rewrite::SqnormAsDot,
    Rewrite::DotAsMap2,
    Rewrite::SumMapAsBuild,
    Rewrite::SumAsFold,
];

/// `src` (a block's items) with `rewrites` applied wherever they apply, in the order given
/// (a `dot` from `sqnorm` is rewritten again by a later [`Rewrite::DotAsMap2`]); `None` when
/// none applied or the block does not parse as Rust.
pub fn respell(src: &str, rewrites: &[Rewrite]) -> Option<String> {
    let mut file: syn::File = syn::parse_file(src).ok()?;
    let mut applied = 0;
    for r in rewrites {
        let mut v = Respeller {
            rewrite: *r,
            applied: 0,
        };
        v.visit_file_mut(&mut file);
        applied += v.applied;
    }
    (applied > 0).then(|| file.to_token_stream().to_string())
}

struct Respeller {
    rewrite: Rewrite,
    /// How many places were rewritten (also the counter of fresh names).
    applied: usize,
}

/// The call `f(..)` of a function named `name` with `n` arguments.
fn call<'a>(e: &'a Expr, name: &str, n: usize) -> Option<&'a ExprCall> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    (p.path.is_ident(name) && c.args.len() == n).then_some(c)
}

/// A variable: safe to read twice.
fn is_var(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.get_ident().is_some())
}

fn text(e: &impl ToTokens) -> String {
    e.to_token_stream().to_string()
}

impl Respeller {
    /// A fresh name (the generator's names are short letters with numbers, never `rsp`).
    fn fresh(&self, what: &str) -> String {
        format!("rsp{}_{what}", self.applied)
    }

    /// `e` read through a variable: `(binding, name)`, the binding empty for a variable.
    fn bound(&self, e: &Expr, what: &str) -> (String, String) {
        if is_var(e) {
            (String::new(), text(e))
        } else {
            let v = self.fresh(what);
            (format!("let {v} = {};", text(e)), v)
        }
    }

    /// The respelling of `e`, if the rewrite applies to it.
    fn rewritten(&self, e: &Expr) -> Option<String> {
        match self.rewrite {
            Rewrite::SumAsFold => {
                let c = call(e, "sum", 1)?;
                let (bind, v) = self.bound(&c.args[0], "v");
                let (acc, i) = (self.fresh("acc"), self.fresh("i"));
                Some(format!(
                    "{{ {bind} ifold({v}.len(), -0.0, |{acc}, {i}| {acc} + {v}[{i}]) }}"
                ))
            }
            Rewrite::DotAsMap2 => {
                let c = call(e, "dot", 2)?;
                let (x, y) = (self.fresh("x"), self.fresh("y"));
                Some(format!(
                    "sum(map2({}, {}, |{x}, {y}| {x} * {y}))",
                    text(&c.args[0]),
                    text(&c.args[1])
                ))
            }
            Rewrite::SqnormAsDot => {
                let c = call(e, "sqnorm", 1)?;
                let (bind, v) = self.bound(&c.args[0], "v");
                Some(format!("{{ {bind} dot({v}, {v}) }}"))
            }
            Rewrite::SumMapAsBuild => {
                let c = call(e, "sum", 1)?;
                let m = call(&c.args[0], "map", 2)?;
                let Expr::Closure(f) = &m.args[1] else {
                    return None;
                };
                if f.inputs.len() != 1 {
                    return None;
                }
                let (bind, v) = self.bound(&m.args[0], "v");
                let i = self.fresh("i");
                Some(format!(
                    "{{ {bind} sum(build({v}.len(), |{i}| {{ let {} = {v}[{i}]; {} }})) }}",
                    text(&f.inputs[0]),
                    text(&f.body)
                ))
            }
        }
    }
}

impl VisitMut for Respeller {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Inner expressions first: an argument is respelled before it is moved.
        visit_mut::visit_expr_mut(self, e);
        if let Some(new) = self.rewritten(e)
            && let Ok(parsed) = syn::parse_str::<Expr>(&new)
        {
            *e = parsed;
            self.applied += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rewrite_respells_its_form_and_binds_what_is_not_a_variable() {
        let src = "pub fn k(a: [f64; n]) -> f64 { sqnorm(a) + dot(a, add(a, a)) + sum(map(add(a, a), |q| q * 2.0)) }";
        let all = respell(src, &REWRITES).unwrap();
        assert!(
            !all.contains("sqnorm") && !all.contains("dot") && !all.contains("map ("),
            "{all}"
        );
        assert!(all.contains("ifold"), "{all}");
        // A variable is read in place; another argument is bound once.
        let s = respell(
            "pub fn k(a: [f64; n]) -> f64 { sum(a) }",
            &[Rewrite::SumAsFold],
        )
        .unwrap();
        assert!(!s.contains("let"), "{s}");
        let s = respell(
            "pub fn k(a: [f64; n]) -> f64 { sum(add(a, a)) }",
            &[Rewrite::SumAsFold],
        )
        .unwrap();
        assert_eq!(s.matches("add").count(), 1, "{s}");
        // Nothing to rewrite.
        assert_eq!(respell("pub fn k(a: f64) -> f64 { a }", &REWRITES), None);
    }
}
