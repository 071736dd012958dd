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
    /// `reduce_by_index(m, 0.0, |a, b| a + b, n, f)` as `scatter_add(m, n, f)` (LANGUAGE.md
    /// section 15): a zero start (`0.0`, `0.0f32`, `0`, or a row of them, `build(d, |_|
    /// 0.0)`) and the addition of the element so far and the value, in that order (a row's
    /// element by element, `build(d, |e| a[e] + b[e])`), as `scatter_add` adds.
    ReduceAddAsScatter,
    /// Inside `if a == b { t } else { e }` (or `e` of `if a != b { e } else { t }`), of the
    /// variables `a` and `b`, a read `x[a]` in `t` as `x[b]`: the branch knows its condition.
    IndexInBranch,
    /// `ifold(k, init, |s, i| body)` with a literal count `k` of 1 to 4 written out: `{ let
    /// s0 = init; let s1 = { let s = s0; let i = 0; body }; .. }`. Not always the same code
    /// (a fold the compiler keeps as a loop is straight-line code written out): the
    /// differential compares the scratch of such a pair, not its tokens.
    UnrollFold,
    /// `ifold(k, (build(n, f), build(n, g)), |(p, q), i| .. (e0, e1))`, a tuple state of
    /// `build`s of one length, as the fold of one array of those rows: `{ let r = ifold(k,
    /// [build(n, f), build(n, g)], |s, i| { let p = s[0]; let q = s[1]; .. [e0, e1] }); (r[0],
    /// r[1]) }`. The rows may differ in element type (a `usize` and an `f64` build), which
    /// the checker then rejects: the differential compares the scratch of the pairs that
    /// compile, not their tokens.
    TupleStateAsRows,
    /// `ifold(k, (i0, i1, ..), |(s0, s1, ..), i| (e0, e1, ..))`, a tuple state whose new
    /// components are each arithmetic (so scalars: arrays have no operators) or a `build`
    /// reading its own state only at its own element (`build(n, |j| s0[j] + x[i][j])`),
    /// reading no other component's state, as the folds side by side: `{ let f0 = ifold(k, i0, |s0,
    /// i| e0); let f1 = ifold(k, i1, |s1, i| e1); .. (f0, f1, ..) }` (LANGUAGE.md section 13
    /// as docs/language.md lists it: sums side by side are one loop).
    TupleFoldAsSiblings,
}

/// Every rewrite.
pub const REWRITES: [Rewrite; 9] = [
    Rewrite::SqnormAsDot,
    Rewrite::DotAsMap2,
    Rewrite::SumMapAsBuild,
    Rewrite::SumAsFold,
    Rewrite::ReduceAddAsScatter,
    Rewrite::IndexInBranch,
    Rewrite::UnrollFold,
    Rewrite::TupleStateAsRows,
    Rewrite::TupleFoldAsSiblings,
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

/// A zero literal: `0.0` (suffixed or not) or `0`.
fn is_zero(e: &Expr) -> bool {
    let Expr::Lit(l) = e else { return false };
    match &l.lit {
        syn::Lit::Float(f) => f.base10_parse::<f64>().is_ok_and(|x| x == 0.0),
        syn::Lit::Int(i) => i.base10_parse::<u64>().is_ok_and(|x| x == 0),
        _ => false,
    }
}

/// The name a closure parameter binds, if it is a plain name.
fn param(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => Some(i.ident.to_string()),
        _ => None,
    }
}

/// The plain variable `e` is, if it is one.
fn ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// Every read `x[a]` in `block` made `x[b]`, unless a closure in it binds `a` or `b` (it
/// would read another variable); true when one was.
fn reads_as(block: &mut syn::Block, a: &str, b: &str) -> bool {
    struct Binds<'n>(&'n [&'n str], bool);
    impl<'ast> syn::visit::Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.1 |= self.0.contains(&p.ident.to_string().as_str());
        }
    }
    let mut binds = Binds(&[a, b], false);
    syn::visit::visit_block(&mut binds, block);
    if binds.1 {
        return false;
    }
    struct Reads<'n> {
        a: &'n str,
        b: syn::Expr,
        done: bool,
    }
    impl VisitMut for Reads<'_> {
        fn visit_expr_index_mut(&mut self, x: &mut syn::ExprIndex) {
            visit_mut::visit_expr_index_mut(self, x);
            if is_name(&x.index, self.a) {
                *x.index = self.b.clone();
                self.done = true;
            }
        }
    }
    let Ok(b) = syn::parse_str::<Expr>(b) else {
        return false;
    };
    let mut r = Reads { a, b, done: false };
    r.visit_block_mut(block);
    r.done
}

/// Does `e` name `name` anywhere (a variable, a closure's parameter, a field)?
fn mentions(e: &Expr, name: &str) -> bool {
    struct Names<'n>(&'n str, bool);
    impl<'ast> syn::visit::Visit<'ast> for Names<'_> {
        fn visit_ident(&mut self, i: &'ast syn::Ident) {
            self.1 |= i == self.0;
        }
    }
    let mut v = Names(name, false);
    syn::visit::visit_expr(&mut v, e);
    v.1
}

/// Is `e` a `build(n, |j| body)`, `n` not a literal, whose body reads `s` only as `s[j]`:
/// an array state's new value reading only its own element of the old one (which the compiler's `siblings`
/// runs in one fold beside others, as the tuple state).
fn own_build(e: &Expr, s: &str) -> bool {
    struct Reads<'n> {
        s: &'n str,
        j: String,
        other: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Reads<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if is_elem(e, self.s, &self.j) {
                return;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_ident(&mut self, i: &'ast syn::Ident) {
            self.other |= i == self.s;
        }
    }
    let Some(c) = call(e, "build", 2) else {
        return false;
    };
    let Expr::Closure(f) = &c.args[1] else {
        return false;
    };
    let Some(j) = f.inputs.first().and_then(param) else {
        return false;
    };
    // Not of a literal length: alone, such a state becomes scalars (`flat_states`), in a
    // tuple it stays an array, so the two spellings differ there by design.
    if f.inputs.len() != 1 || mentions(&c.args[0], s) || matches!(c.args[0], Expr::Lit(_)) {
        return false;
    }
    let mut v = Reads { s, j, other: false };
    syn::visit::Visit::visit_expr(&mut v, &f.body);
    !v.other
}

/// Is `e` arithmetic at its top (`+ - * / %`): a scalar.
fn is_arithmetic(e: &Expr) -> bool {
    matches!(e, Expr::Binary(x) if matches!(x.op,
        syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_) | syn::BinOp::Rem(_)))
}

/// Is `e` the variable `name`?
fn is_name(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident(name))
}

/// Is `e` `a + b` of the variables `a` and `b`, in that order?
fn is_sum_of(e: &Expr, a: &str, b: &str) -> bool {
    matches!(e, Expr::Binary(x) if matches!(x.op, syn::BinOp::Add(_))
        && is_name(&x.left, a) && is_name(&x.right, b))
}

/// Is `e` `v[i]` of the variables `v` and `i`?
fn is_elem(e: &Expr, v: &str, i: &str) -> bool {
    matches!(e, Expr::Index(x) if is_name(&x.expr, v) && is_name(&x.index, i))
}

/// Is `(ne, op)` a `reduce_by_index`'s zero start and addition (of scalars, or of rows
/// element by element: `build(d, |_| 0.0)` and `|a, b| build(d, |e| a[e] + b[e])`)?
fn is_zero_and_addition(ne: &Expr, op: &Expr) -> bool {
    let Expr::Closure(f) = op else { return false };
    let (Some(a), Some(b)) = (
        f.inputs.first().and_then(param),
        f.inputs.iter().nth(1).and_then(param),
    ) else {
        return false;
    };
    if f.inputs.len() != 2 || a == b {
        return false;
    }
    if is_zero(ne) {
        return is_sum_of(&f.body, &a, &b);
    }
    // Rows: a build of zeros of a length, and the build of element sums of the same.
    let (Some(z), Some(s)) = (call(ne, "build", 2), call(&f.body, "build", 2)) else {
        return false;
    };
    let (Expr::Closure(zc), Expr::Closure(sc)) = (&z.args[1], &s.args[1]) else {
        return false;
    };
    let Some(e) = sc.inputs.first().and_then(param) else {
        return false;
    };
    let elem_sum = matches!(&*sc.body, Expr::Binary(x) if matches!(x.op, syn::BinOp::Add(_))
        && is_elem(&x.left, &a, &e) && is_elem(&x.right, &b, &e));
    text(&z.args[0]) == text(&s.args[0])
        && zc.inputs.len() == 1
        && matches!(zc.inputs[0], syn::Pat::Wild(_))
        && is_zero(&zc.body)
        && sc.inputs.len() == 1
        && e != a
        && e != b
        && elem_sum
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
            Rewrite::IndexInBranch => {
                let Expr::If(x) = e else { return None };
                let Expr::Binary(c) = &*x.cond else {
                    return None;
                };
                let (Some(a), Some(b)) = (ident(&c.left), ident(&c.right)) else {
                    return None;
                };
                let mut x = x.clone();
                let applied = match (c.op, &mut x.else_branch) {
                    (syn::BinOp::Eq(_), _) => reads_as(&mut x.then_branch, &a, &b),
                    (syn::BinOp::Ne(_), Some((_, other))) => match &mut **other {
                        Expr::Block(blk) => reads_as(&mut blk.block, &a, &b),
                        _ => false,
                    },
                    _ => false,
                };
                applied.then(|| text(&x))
            }
            Rewrite::TupleFoldAsSiblings => {
                let c = call(e, "ifold", 3)?;
                let Expr::Tuple(init) = &c.args[1] else {
                    return None;
                };
                let Expr::Closure(f) = &c.args[2] else {
                    return None;
                };
                let (syn::Pat::Tuple(pat), Expr::Tuple(news)) = (f.inputs.first()?, &*f.body)
                else {
                    return None;
                };
                let n = init.elems.len();
                if f.inputs.len() != 2 || n < 2 || pat.elems.len() != n || news.elems.len() != n {
                    return None;
                }
                // Each state a plain name or `_`.
                let names: Vec<Option<String>> = pat
                    .elems
                    .iter()
                    .map(|p| match p {
                        syn::Pat::Wild(_) => Some(None),
                        p => param(p).map(Some),
                    })
                    .collect::<Option<_>>()?;
                let own = news.elems.iter().enumerate().all(|(k, e)| {
                    (is_arithmetic(e) || names[k].as_ref().is_some_and(|s| own_build(e, s)))
                        && names
                            .iter()
                            .enumerate()
                            .all(|(j, x)| j == k || x.as_ref().is_none_or(|x| !mentions(e, x)))
                });
                if !own {
                    return None;
                }
                // The count computed once (it may hold a closure, whose names are bound once).
                let (bind, cnt) = self.bound(&c.args[0], "n");
                let index = text(&f.inputs[1]);
                // The index is bound where it is read (and, read nowhere, in the first fold
                // only): each name the program binds, once, as written.
                let read = |e: &Expr| param(&f.inputs[1]).is_some_and(|i| mentions(e, &i));
                let none_reads = !news.elems.iter().any(read);
                let mut out = format!("{{ {bind}");
                let mut parts = Vec::new();
                for (k, (i0, e)) in init.elems.iter().zip(&news.elems).enumerate() {
                    let v = self.fresh(&format!("f{k}"));
                    let s = names[k].clone().unwrap_or_else(|| "_".into());
                    let index = if read(e) || (none_reads && k == 0) {
                        index.as_str()
                    } else {
                        "_"
                    };
                    out.push_str(&format!(
                        " let {v} = ifold({cnt}, {}, |{s}, {index}| {});",
                        text(i0),
                        text(e)
                    ));
                    parts.push(v);
                }
                out.push_str(&format!(" ({}) }}", parts.join(", ")));
                Some(out)
            }
            Rewrite::UnrollFold => {
                let c = call(e, "ifold", 3)?;
                let Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(k),
                    ..
                }) = &c.args[0]
                else {
                    return None;
                };
                let k = k
                    .base10_parse::<usize>()
                    .ok()
                    .filter(|k| (1..=4).contains(k))?;
                let Expr::Closure(f) = &c.args[2] else {
                    return None;
                };
                if f.inputs.len() != 2 {
                    return None;
                }
                let (state, index) = (&f.inputs[0], &f.inputs[1]);
                let bind = |p: &syn::Pat, v: &str| match p {
                    syn::Pat::Wild(_) => String::new(),
                    p => format!("let {} = {v};", text(p)),
                };
                let s = |j: usize| self.fresh(&format!("s{j}"));
                let mut out = format!("{{ let {} = {};", s(0), text(&c.args[1]));
                for j in 0..k {
                    out.push_str(&format!(
                        " let {} = {{ {} {} {} }};",
                        s(j + 1),
                        bind(state, &s(j)),
                        bind(index, &j.to_string()),
                        text(&f.body)
                    ));
                }
                out.push_str(&format!(" {} }}", s(k)));
                Some(out)
            }
            Rewrite::TupleStateAsRows => {
                let c = call(e, "ifold", 3)?;
                let Expr::Tuple(init) = &c.args[1] else {
                    return None;
                };
                let builds: Vec<&ExprCall> = init
                    .elems
                    .iter()
                    .map(|x| call(x, "build", 2))
                    .collect::<Option<_>>()?;
                let len = text(&builds.first()?.args[0]);
                if builds.len() < 2 || builds.iter().any(|b| text(&b.args[0]) != len) {
                    return None;
                }
                let Expr::Closure(f) = &c.args[2] else {
                    return None;
                };
                let (Some(syn::Pat::Tuple(state)), Some(index)) =
                    (f.inputs.first(), f.inputs.iter().nth(1))
                else {
                    return None;
                };
                if f.inputs.len() != 2 || state.elems.len() != builds.len() {
                    return None;
                }
                let mut body = (*f.body).clone();
                let tail = match &mut body {
                    Expr::Block(b) => match b.block.stmts.last_mut() {
                        Some(syn::Stmt::Expr(x, None)) => x,
                        _ => return None,
                    },
                    x => x,
                };
                let Expr::Tuple(new) = &*tail else {
                    return None;
                };
                if new.elems.len() != builds.len() {
                    return None;
                }
                let items: Vec<String> = new.elems.iter().map(text).collect();
                *tail = syn::parse_str(&format!("[{}]", items.join(", "))).ok()?;
                let (st, r) = (self.fresh("s"), self.fresh("r"));
                let mut lets = String::new();
                for (k, p) in state.elems.iter().enumerate() {
                    match p {
                        syn::Pat::Wild(_) => {}
                        p => {
                            param(p)?;
                            lets.push_str(&format!("let {} = {st}[{k}]; ", text(p)));
                        }
                    }
                }
                let rows: Vec<String> = init.elems.iter().map(text).collect();
                let parts: Vec<String> = (0..builds.len()).map(|k| format!("{r}[{k}]")).collect();
                Some(format!(
                    "{{ let {r} = ifold({}, [{}], |{st}, {}| {{ {lets}{} }}); ({}) }}",
                    text(&c.args[0]),
                    rows.join(", "),
                    text(index),
                    text(&body),
                    parts.join(", ")
                ))
            }
            Rewrite::ReduceAddAsScatter => {
                let c = call(e, "reduce_by_index", 5)?;
                if !is_zero_and_addition(&c.args[1], &c.args[2]) {
                    return None;
                }
                Some(format!(
                    "scatter_add({}, {}, {})",
                    text(&c.args[0]),
                    text(&c.args[3]),
                    text(&c.args[4])
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

    /// A tuple state of `build`s of one length is one array of rows, read back as a tuple;
    /// builds of other lengths, a state pattern that is not a tuple of names, or a step
    /// that is not a tuple literal are left as written.
    #[test]
    fn a_tuple_state_of_rows_is_one_array() {
        let one = |src: &str| respell(src, &[Rewrite::TupleStateAsRows]);
        let s = one("pub fn k(t: usize) -> ([f64; 4], [f64; 4]) { ifold(t, (build(4, |_| 0.0), build(4, |_| 1.0)), |(a, _), i| { let c = 2.0; (build(4, |j| a[j] * c), a) }) }").unwrap();
        assert!(
            s.contains("[build (4 , | _ | 0.0) , build (4 , | _ | 1.0)]")
                && s.contains("let a = rsp0_s [0] ;")
                && !s.contains("rsp0_s [1]")
                && s.contains("[build (4 , | j | a [j] * c) , a]")
                && s.contains("(rsp0_r [0] , rsp0_r [1])"),
            "{s}"
        );
        for kept in [
            "ifold(t, (build(4, |_| 0.0), build(5, |_| 0.0)), |(a, b), i| (a, b))",
            "ifold(t, (build(4, |_| 0.0), 0.0), |(a, b), i| (a, b))",
            "ifold(t, (build(4, |_| 0.0), build(4, |_| 0.0)), |s, i| s)",
            "ifold(t, (build(4, |_| 0.0), build(4, |_| 0.0)), |(a, b), i| if i > 0 { (a, b) } else { (b, a) })",
        ] {
            let src = format!("pub fn k(t: usize) -> f64 {{ {kept}.0[0] }}");
            assert_eq!(one(&src), None, "{kept}");
        }
    }

    /// A `reduce_by_index` adding from zero is a `scatter_add`, for scalars and rows, and
    /// respelled inside other forms' closures (an `iterate`'s); another start or operation,
    /// or the addition the other way round, is left as written.
    #[test]
    fn a_reduce_by_index_adding_from_zero_is_a_scatter_add() {
        let one = |src: &str| respell(src, &[Rewrite::ReduceAddAsScatter]);
        let s = one("pub fn k(x: [f64; n], m: usize) -> [f64; m] { reduce_by_index(m, 0.0, |a, b| a + b, n, |i| (i % m, x[i])) }").unwrap();
        assert!(s.contains("scatter_add (m , n , | i |"), "{s}");
        let s = one("pub fn k(x: [[f32; 2]; n], m: usize) -> [[f32; 2]; m] { reduce_by_index(m, build(2, |_| 0.0f32), |a, b| build(2, |e| a[e] + b[e]), n, |i| (i % m, x[i])) }").unwrap();
        assert!(
            s.contains("scatter_add") && !s.contains("reduce_by_index"),
            "{s}"
        );
        let s = one("pub fn k(n: usize) -> usize { iterate(0, |k| k < reduce_by_index(3, 0, |a, b| a + b, n, |i| (i % 3, 1))[0], |k| k + 1) }").unwrap();
        assert!(s.contains("scatter_add"), "{s}");
        for kept in [
            "reduce_by_index(m, 0.0, |a, b| b + a, n, |i| (i % m, x[i]))",
            "reduce_by_index(m, -0.0, |a, b| a + b, n, |i| (i % m, x[i]))",
            "reduce_by_index(m, 1.0, |a, b| a + b, n, |i| (i % m, x[i]))",
            "reduce_by_index(m, 0.0, |a, b| a.max(b), n, |i| (i % m, x[i]))",
            "reduce_by_index(m, 0.0, |a, a| a + a, n, |i| (i % m, x[i]))",
        ] {
            let src = format!("pub fn k(x: [f64; n], m: usize) -> [f64; m] {{ {kept} }}");
            assert_eq!(one(&src), None, "{kept}");
        }
    }

    /// A tuple fold whose new components are arithmetic, each reading only its own state,
    /// is the folds side by side; one reading another's state, or not arithmetic (an
    /// array's `add`), is left as written.
    #[test]
    fn a_tuple_fold_of_independent_scalars_is_folds_side_by_side() {
        let one = |src: &str| respell(src, &[Rewrite::TupleFoldAsSiblings]);
        let s = one("pub fn k(x: [f64; n]) -> (f64, f64) { ifold(n, (0.0, 1.0), |(s, _), i| (s + x[i], x[i] * 2.0)) }").unwrap();
        assert!(
            s.contains("let rsp0_f0 = ifold (n , 0.0 , | s , i | s + x [i]) ;")
                && s.contains("let rsp0_f1 = ifold (n , 1.0 , | _ , i | x [i] * 2.0) ;")
                && s.contains("(rsp0_f0 , rsp0_f1)"),
            "{s}"
        );
        for kept in [
            "ifold(n, (0.0, 1.0), |(s, t), i| (s + t, t * 2.0))",
            "ifold(n, (0.0, 1.0), |(s, t), i| (s + x[i], x[i].max(t)))",
            "ifold(n, (0.0, 1.0), |st, i| (st.0 + x[i], st.1))",
            "ifold(n, (0.0, 1.0), |(s, t), i| { let u = 2.0; (s + u, t + u) })",
        ] {
            let src = format!("pub fn k(x: [f64; n]) -> (f64, f64) {{ {kept} }}");
            assert_eq!(one(&src), None, "{kept}");
        }
        // Array states updated at their own element, side by side too; one reading another
        // element of its state is left as written.
        let src = "pub fn k(x: [[f64; d]; n]) -> ([f64; d], [f64; d]) { ifold(n, (x[0], x[0]), |(lo, hi), i| (build(d, |j| lo[j].min(x[i][j])), build(d, |j| hi[j].max(x[i][j])))) }";
        let s = one(src).unwrap();
        assert!(
            s.contains("ifold (n , x [0] , | lo , i | build (d , | j | lo [j] . min (x [i] [j])))"),
            "{s}"
        );
        let src = "pub fn k(x: [[f64; d]; n]) -> ([f64; d], f64) { ifold(n, (x[0], 0.0), |(lo, t), i| (build(d, |j| lo[(j + 1) % d].min(x[i][j])), t + 1.0)) }";
        assert_eq!(one(src), None);
    }
}
