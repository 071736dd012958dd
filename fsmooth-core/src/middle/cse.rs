//! `cse`: common subexpression elimination on the core IR in A-normal form.
//!
//! A `let` whose value an enclosing scope already bound reuses that variable. Values are
//! compared by a key that names the variables a value binds by position, so two
//! copies of one computation under different names (a reverse sweep's recomputed primal
//! beside the value's) are one.

use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, VarId, subst_loop};
use std::collections::HashMap;

/// Common subexpression elimination on A-normal form: a `let` whose value was already bound
/// in an enclosing scope reuses that variable. Values are compared structurally,
/// free variables by identity (every variable is bound once, and arrays never change) and
/// those a value binds itself by position, so arrays, views and whole blocks are shared too.
/// A value that could fail has already succeeded once where it is reused.
pub fn cse(e: &mut Core) {
    Cse::default().visit(e);
}

/// The state of [`cse`]'s one walk over the kernel.
#[derive(Default)]
struct Cse {
    /// The values bound in the enclosing scopes, by [`key`], with the variable that holds
    /// each (its type, symbolic value and span those of the value).
    seen: HashMap<String, Core>,
    /// Variables whose `let` was dropped for an earlier one's: the variable to read instead,
    /// and the order of the drops (a symbolic value is rewritten in that order).
    renamed: HashMap<VarId, (usize, Core)>,
}

impl Cse {
    fn visit(&mut self, e: &mut Core) {
        self.rename(e);
        if let Kind::Let(x, a, b) = &mut e.kind {
            self.visit(a);
            if !a.ty.is_tuple() {
                let k = key(a);
                if let Some(v) = self.seen.get(&k) {
                    // The body reads the earlier variable instead (renamed as it is visited).
                    let order = self.renamed.len();
                    self.renamed.insert(*x, (order, v.clone()));
                    *e = b.take();
                    self.visit(e);
                    return;
                }
                let var = Core {
                    kind: Kind::Var(*x),
                    ty: a.ty.clone(),
                    sym: a.sym.clone(),
                    span: a.span,
                };
                self.seen.insert(k.clone(), var);
                self.visit(b);
                self.seen.remove(&k);
                return;
            }
            self.visit(b);
            return;
        }
        for c in e.children_mut() {
            self.visit(c);
        }
    }

    /// This node with the dropped variables replaced, as [`Core::subst`] would have done for
    /// each in turn.
    fn rename(&self, e: &mut Core) {
        if self.renamed.is_empty() {
            return;
        }
        if let Kind::Var(x) = e.kind
            && let Some((_, by)) = self.renamed.get(&x)
        {
            let span = e.span;
            *e = by.clone();
            e.span = span;
            return;
        }
        let Some(s) = &e.sym else { return };
        let mut loops = Vec::new();
        s.loops(&mut loops);
        let mut ordered: Vec<(usize, VarId)> = loops
            .iter()
            .filter_map(|v| self.renamed.get(v).map(|(order, _)| (*order, *v)))
            .collect();
        if ordered.is_empty() {
            return;
        }
        ordered.sort();
        for (_, v) in ordered {
            let by = &self.renamed[&v].1;
            if let Some(s) = &e.sym
                && s.mentions_loop(v)
            {
                e.sym = by.sym.as_ref().map(|bs| subst_loop(s, v, bs));
            }
        }
    }
}

/// A value's structure as a string, for [`cse`]: two values with one key compute the same
/// thing. Variables bound outside the value are named by identity, those it binds itself by
/// their binding depth, so that two copies of one computation made under different names
/// (a reverse sweep's recomputed primal: `let t = x.sqrt(); ..` in each) get one key; every
/// compound node carries its type (a slice's length is only there).
pub fn key(e: &Core) -> String {
    let mut out = String::new();
    KeyWriter {
        bound: Vec::new(),
        out: &mut out,
    }
    .write(e);
    out
}

/// [`key`]'s walk: the variables bound around the node, innermost last.
struct KeyWriter<'a> {
    bound: Vec<VarId>,
    out: &'a mut String,
}

impl KeyWriter<'_> {
    fn var(&self, v: VarId) -> String {
        match self.bound.iter().rposition(|b| *b == v) {
            Some(depth) => format!("#{depth}"),
            None => format!("v{v}"),
        }
    }

    fn size(&mut self, s: &Size) {
        let text = s.display_with(&|v| self.var(v));
        self.out.push_str(&text);
    }

    /// `children` in order, with `binds` bound for those from `from` on.
    fn under(&mut self, children: &[&Core], from: usize, binds: &[VarId]) {
        for (k, c) in children.iter().enumerate() {
            if k == from {
                self.bound.extend_from_slice(binds);
            }
            self.out.push(' ');
            self.write(c);
        }
        if from < children.len() {
            self.bound.truncate(self.bound.len() - binds.len());
        }
    }

    fn write(&mut self, e: &Core) {
        use std::fmt::Write;
        match &e.kind {
            Kind::Var(v) => {
                let name = self.var(*v);
                self.out.push_str(&name);
                return;
            }
            Kind::Float(x) => {
                let _ = write!(self.out, "f{}{:x}", e.ty, x.to_bits());
                return;
            }
            Kind::Bool(b) => {
                let _ = write!(self.out, "b{b}");
                return;
            }
            Kind::Size(s) => {
                self.out.push_str("s(");
                self.size(s);
                self.out.push(')');
                return;
            }
            _ => {}
        }
        let _ = write!(self.out, "({} ", e.ty);
        match &e.kind {
            Kind::Let(x, a, b) => {
                self.out.push_str("let");
                self.under(&[a, b], 1, &[*x]);
            }
            Kind::If(c, a, b) => {
                self.out.push_str("if");
                self.under(&[c, a, b], 3, &[]);
            }
            Kind::Bin(op, a, b, _) => {
                let _ = write!(self.out, "{op:?}");
                self.under(&[a, b], 2, &[]);
            }
            Kind::Neg(a) => {
                self.out.push_str("neg");
                self.under(&[a], 1, &[]);
            }
            Kind::Not(a) => {
                self.out.push_str("not");
                self.under(&[a], 1, &[]);
            }
            Kind::Cast(t, a) => {
                let _ = write!(self.out, "cast {t:?}");
                self.under(&[a], 1, &[]);
            }
            Kind::Math(f, xs) => {
                let _ = write!(self.out, "{f:?}");
                let xs: Vec<&Core> = xs.iter().collect();
                self.under(&xs, xs.len(), &[]);
            }
            Kind::Index(a, i) => {
                self.out.push_str("idx");
                self.under(&[a, i], 2, &[]);
            }
            Kind::Slice(a, lo) => {
                self.out.push_str("slice");
                self.under(&[a, lo], 2, &[]);
            }
            Kind::Build(n, i, body) => {
                self.out.push_str("build ");
                self.size(n);
                self.under(&[body], 0, &[*i]);
            }
            Kind::Ifold(n, init, acc, i, body) => {
                self.out.push_str("ifold");
                self.under(&[n, init, body], 2, &[*acc, *i]);
            }
            Kind::Scan(n, init, acc, i, body) => {
                self.out.push_str("scan ");
                self.size(n);
                self.under(&[init, body], 1, &[*acc, *i]);
            }
            Kind::Array(xs) => {
                self.out.push_str("array");
                let xs: Vec<&Core> = xs.iter().collect();
                self.under(&xs, xs.len(), &[]);
            }
            Kind::Tuple(xs) => {
                self.out.push_str("tuple");
                let xs: Vec<&Core> = xs.iter().collect();
                self.under(&xs, xs.len(), &[]);
            }
            Kind::Proj(t, k) => {
                let _ = write!(self.out, "proj {k}");
                self.under(&[t], 1, &[]);
            }
            Kind::CheckIndex(k, len) => {
                self.out.push_str("check ");
                self.size(len);
                self.under(&[k], 1, &[]);
            }
            Kind::Iterate(init, s, cond, t, next) => {
                self.out.push_str("iterate");
                self.under(&[init, cond], 1, &[*s]);
                self.under(&[next], 0, &[*t]);
            }
            Kind::Concat(a, b) => {
                self.out.push_str("concat");
                self.under(&[a, b], 2, &[]);
            }
            Kind::Reshape(a) => {
                self.out.push_str("reshape");
                self.under(&[a], 1, &[]);
            }
            Kind::Var(_) | Kind::Float(_) | Kind::Bool(_) | Kind::Size(_) => {}
        }
        self.out.push(')');
    }
}

#[cfg(test)]
mod tests {
    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn common_subexpressions_are_computed_once() {
        let out =
            expand("pub fn k(x: f64, v: [f64; 3]) -> f64 { x.cos() * x.cos() + v[1] / v[1] }");
        assert_eq!(out.matches(":: cos (").count(), 1, "{out}");
        assert_eq!(out.matches("ld (v , 1usize)").count(), 1, "{out}");
    }

    #[test]
    fn copies_of_a_whole_value_under_other_names_are_computed_once() {
        // Two blocks that differ only in the names they bind (a reverse sweep's recomputed
        // primal beside the value's): one array, one `sin`.
        let out = expand(
            "#![fsmooth(fusion = false)]
            pub fn k(x: f64, v: [f64; 2]) -> f64 {
                let a = if x > 0.0 { let t = x.sin(); build(2, |i| v[i] * t) } else { v };
                let b = if x > 0.0 { let u = x.sin(); build(2, |j| v[j] * u) } else { v };
                sum(a) * sum(b)
            }",
        );
        assert_eq!(out.matches(":: sin (").count(), 1, "{out}");
        // Not when they differ: another index read, or another product.
        let out = expand(
            "#![fsmooth(fusion = false)]
            pub fn k(x: f64, v: [f64; 2]) -> f64 {
                let a = if x > 0.0 { let t = x.sin(); build(2, |i| v[i] * t) } else { v };
                let b = if x > 0.0 { let u = x.sin(); build(2, |j| v[1 - j] * u) } else { v };
                let c = if x > 0.0 { let u = x.sin(); build(2, |j| v[j] * u * x) } else { v };
                sum(a) * sum(b) + sum(c)
            }",
        );
        assert_eq!(out.matches(":: sin (").count(), 3, "{out}");
    }
}
