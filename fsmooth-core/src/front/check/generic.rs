//! Element-type parameters that stand for scalars only.
//!
//! A helper's `T` stands for whatever its arguments give it, a scalar or a row (`map` over a
//! matrix takes rows). The prelude's arithmetic (`add(a: [T; n], b: [T; n])`, `dot`, `sum`,
//! ..) works on scalars only, and a matrix passed where a vector goes is then a mistake of
//! rank, best reported as such on the argument ("expects `[f64; n]`, found
//! `[[f64; 3]; n]`") rather than deep inside the inlined body. So when an argument binds `T`
//! to a row, the checker asks whether the helper's body checks with `T` a scalar but not
//! with `T` a row; if so, `T` is bound to the row's scalar, and the argument check that
//! follows reports the rank. The answer is kept per helper, parameter and scalar type.

use super::elab::{Bind, Elab, Env, FunVal};
use super::infer::Want;
use super::signature::{ty_in, ty_size_names};
use crate::front::ast::Ty;
use crate::front::size::Size;
use crate::middle::ir::{Scalar, Type};
use std::collections::HashMap;
use std::rc::Rc;

impl Elab<'_> {
    /// Rebind to their scalar the element types in `elems` bound to rows where function
    /// `fi` takes scalars only.
    pub(super) fn scalar_rows(&mut self, fi: usize, elems: &mut HashMap<String, Type>) {
        let mut rows: Vec<(String, Scalar)> = elems
            .iter()
            .filter_map(|(k, t)| match t {
                Type::Arr(s, _) => Some((k.clone(), *s)),
                _ => None,
            })
            .collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, s) in rows {
            if self.scalar_only(fi, &name, s) {
                elems.insert(name, s.ty());
            }
        }
    }

    /// Whether function `fi` checks with element type `name` an `s` but not a row of `s`s.
    fn scalar_only(&mut self, fi: usize, name: &str, s: Scalar) -> bool {
        let key = (fi, name.to_string(), s);
        if let Some(b) = self.scalar_elems.get(&key) {
            return *b;
        }
        // No while probing: a probe that reaches the same question again answers it so.
        self.scalar_elems.insert(key.clone(), false);
        // A size name no user can write, for the row's length.
        let row = Type::Arr(s, vec![Size::Name("m ".to_string())]);
        let b = self.probe(fi, name, &s.ty(), s) && !self.probe(fi, name, &row, s);
        self.scalar_elems.insert(key, b);
        b
    }

    /// Whether function `fi`'s body checks, generically in its sizes, with element type
    /// `name` bound to `t` and every other one to `s`. Leaves no trace: errors, variables
    /// and everything else the attempt made are forgotten.
    fn probe(&mut self, fi: usize, name: &str, t: &Type, s: Scalar) -> bool {
        let f = &self.scope.fns[fi];
        let mut names = Vec::new();
        for p in &f.params {
            elem_names(&p.ty, &mut names);
        }
        elem_names(&f.ret, &mut names);
        let elems: HashMap<String, Type> = names
            .into_iter()
            .map(|n| {
                let ty = if n == name { t.clone() } else { s.ty() };
                (n, ty)
            })
            .collect();
        let m = self.mark();
        let saved = (self.report, self.suppressed.take());
        self.report = false;
        self.depth += 1;
        let mut env: Env = Vec::new();
        let mut sizes = Vec::new();
        for p in &f.params {
            if let Ty::Usize(_) = p.ty {
                sizes.push(p.name.text.clone());
            }
            ty_size_names(&p.ty, &mut sizes);
        }
        for n in sizes {
            env.push((n.clone(), Bind::Size(Size::Name(n))));
        }
        for p in &f.params {
            let bind = match &p.ty {
                Ty::Usize(_) => continue,
                Ty::Fn(ps, r, _) => {
                    let ps: Option<Vec<Type>> = ps.iter().map(|t| ty_in(t, &elems)).collect();
                    match (ps, ty_in(r, &elems)) {
                        (Some(ps), Some(r)) => Bind::Fun(Rc::new(FunVal::Opaque(ps, r))),
                        _ => Bind::Failed,
                    }
                }
                w => match ty_in(w, &elems) {
                    Some(ty) => Bind::Val(self.fresh(&p.name.text), ty, None),
                    None => Bind::Failed,
                },
            };
            env.push((p.name.text.clone(), bind));
        }
        let ret = ty_in(&f.ret, &elems);
        let want = ret.as_ref().map_or(Want::Any, Want::of);
        let r = self.expr_want(&f.body, &env, &want);
        let ok = self.suppressed.is_none()
            && match (r, ret) {
                (Ok(r), Some(t)) => r.ty.same(&t),
                (Ok(_), None) => true,
                (Err(()), _) => false,
            };
        self.depth -= 1;
        self.rewind(&m);
        self.report = saved.0;
        self.suppressed = saved.1;
        ok
    }
}

/// The element-type parameters written in `t`, each once.
fn elem_names(t: &Ty, out: &mut Vec<String>) {
    match t {
        Ty::Elem(n) if !out.contains(&n.text) => out.push(n.text.clone()),
        Ty::Array(e, _, _) => elem_names(e, out),
        Ty::Tuple(ps, _) => ps.iter().for_each(|p| elem_names(p, out)),
        Ty::Fn(ps, r, _) => {
            ps.iter().for_each(|p| elem_names(p, out));
            elem_names(r, out);
        }
        _ => {}
    }
}
