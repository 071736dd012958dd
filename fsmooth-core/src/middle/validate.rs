//! A validator for the core IR: what every pass may assume of a kernel, checked after each
//! pass in tests and debug builds ([`crate::pipeline`]).
//!
//! - scoping: every variable used (in an expression, a size or a symbolic value) is bound
//!   where it is used: a kernel parameter, a `let`, or a `build`/`ifold` binder; every
//!   size name is one of the kernel's;
//! - each variable is bound once in the whole kernel, and has a name;
//! - no symbolic value names a `let`'s variable (only loop indexes and size names): the
//!   middle passes count a `let`'s reads by its `Var` nodes alone;
//! - types: each node's type agrees with its children's where that is cheap to see (both
//!   branches of an `if`, the operands of an operator, an indexed array, a `build`'s shape);
//! - after [`crate::middle::anf`] (and only there: later passes inline again), the A-normal
//!   form it promises: the operands of f64 and bool operations, math calls and casts, the
//!   condition of an `if` and the initial value of a scalar `ifold` are trivial (a variable
//!   or a constant), an array, or `usize` arithmetic (which stays nested).
//!
//! Problems come back as messages, never panics. One walk over the kernel, with a flag per
//! variable for "in scope" and "bound": linear in the kernel's size (shapes compared as
//! polynomials only when they differ as written, as [`Size::same`] does).

use crate::front::ast::{BinOp, CastTy, MathFn};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kernel, Kind, Scalar, Type, VarId};
use crate::middle::print;
use crate::middle::simplify::is_trivial;

/// What to check beyond scoping, binding and types.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rules {
    /// The A-normal form [`crate::middle::anf`] promises.
    pub anf: bool,
}

/// Every problem found in `k`, as messages (empty when it is well formed). Stops counting
/// after a few dozen: one broken pass tends to break many nodes alike.
pub fn validate(k: &Kernel, rules: Rules) -> Vec<String> {
    let n = k.var_names.len();
    let mut v = Validator {
        kernel: k,
        rules,
        in_scope: vec![false; n],
        bound: vec![false; n],
        let_bound: vec![false; n],
        types: vec![None; n],
        problems: Vec::new(),
    };
    for p in &k.params {
        v.bind(p.id, p.ty.clone(), &k.body);
    }
    v.expr(&k.body);
    if !k.body.ty.same(&k.ret) {
        v.problem(
            &k.body,
            format!(
                "the body is of type `{}`, the kernel returns `{}`",
                k.body.ty, k.ret
            ),
        );
    }
    v.problems
}

/// How many problems are worth reporting.
const MAX_PROBLEMS: usize = 20;

/// How much of a node a message quotes.
const QUOTE: usize = 60;

struct Validator<'k> {
    kernel: &'k Kernel,
    rules: Rules,
    in_scope: Vec<bool>,
    bound: Vec<bool>,
    /// Bound by a `let` (which no symbolic value may name).
    let_bound: Vec<bool>,
    types: Vec<Option<Type>>,
    problems: Vec<String>,
}

impl Validator<'_> {
    fn names(&self) -> &[String] {
        &self.kernel.var_names
    }

    fn name(&self, v: VarId) -> String {
        print::var(v, self.names())
    }

    /// Record a problem about node `at` (quoted, first line only, shortened).
    fn problem(&mut self, at: &Core, msg: String) {
        if self.problems.len() >= MAX_PROBLEMS {
            return;
        }
        let text = print::expr(at, self.names());
        let first = text.lines().next().unwrap_or("");
        let mut quote: String = first.chars().take(QUOTE).collect();
        if quote.len() < text.len() {
            quote.push_str(" ..");
        }
        self.problems.push(format!("{msg}, in `{quote}`"));
    }

    /// Bring `v` into scope with type `ty` (for the binding node `at`).
    fn bind(&mut self, v: VarId, ty: Type, at: &Core) {
        let i = v as usize;
        if i >= self.in_scope.len() {
            self.problem(at, format!("variable {v} is bound but has no name"));
            return;
        }
        if self.bound[i] {
            let name = self.name(v);
            self.problem(at, format!("`{name}` is bound twice"));
        }
        self.bound[i] = true;
        self.in_scope[i] = true;
        self.types[i] = Some(ty);
    }

    fn unbind(&mut self, v: VarId) {
        if let Some(s) = self.in_scope.get_mut(v as usize) {
            *s = false;
        }
    }

    /// `v` is used at `at`: it must be in scope.
    fn used(&mut self, v: VarId, at: &Core) -> Option<Type> {
        match self.in_scope.get(v as usize) {
            Some(true) => self.types[v as usize].clone(),
            Some(false) => {
                let name = self.name(v);
                self.problem(at, format!("`{name}` is used out of its scope"));
                None
            }
            None => {
                self.problem(at, format!("variable {v} is used but has no name"));
                None
            }
        }
    }

    /// The variables and size names of a size are in scope.
    fn size(&mut self, s: &Size, at: &Core) {
        match s {
            Size::Lit(_) => {}
            Size::Name(n) => {
                if !self.kernel.sizes.iter().any(|x| x == n) {
                    self.problem(at, format!("size `{n}` is not one of the kernel's"));
                }
            }
            Size::Loop(v) => {
                if let Some(t) = self.used(*v, at)
                    && t != Type::Usize
                {
                    let name = self.name(*v);
                    self.problem(at, format!("`{name}` is in a size but is of type `{t}`"));
                }
            }
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => {
                self.size(a, at);
                self.size(b, at);
            }
        }
    }

    /// `e`'s type is `want`.
    fn expect(&mut self, e: &Core, want: &Type, what: &str) {
        if !e.ty.same(want) {
            self.problem(e, format!("{what} is of type `{}`, not `{want}`", e.ty));
        }
    }

    /// `e` is trivial, an array or `usize` arithmetic (the operands A-normal form allows).
    fn atom(&mut self, e: &Core, what: &str) {
        if self.rules.anf && !(is_trivial(e) || e.ty.is_arr() || e.ty == Type::Usize) {
            self.problem(e, format!("not in A-normal form: {what} is not trivial"));
        }
    }

    fn expr(&mut self, e: &Core) {
        if let Some(s) = &e.sym {
            self.size(s, e);
            if e.ty != Type::Usize {
                self.problem(e, format!("a symbolic value on a `{}`", e.ty));
            }
            let mut loops = Vec::new();
            s.loops(&mut loops);
            for v in loops {
                if self.let_bound.get(v as usize) == Some(&true) {
                    let name = self.name(v);
                    self.problem(
                        e,
                        format!("a symbolic value names `{name}`, which a `let` binds"),
                    );
                }
            }
        }
        match &e.kind {
            Kind::Float(_) => {
                if !e.ty.is_float() {
                    self.problem(e, format!("a float literal of type `{}`", e.ty));
                }
            }
            Kind::Bool(_) => self.expect(e, &Type::Bool, "a bool"),
            Kind::Size(s) => {
                self.size(s, e);
                self.expect(e, &Type::Usize, "a size");
            }
            Kind::Var(v) => {
                if let Some(t) = self.used(*v, e)
                    && !t.same(&e.ty)
                {
                    let name = self.name(*v);
                    self.problem(
                        e,
                        format!("`{name}` is bound as `{t}` but used as `{}`", e.ty),
                    );
                }
            }
            Kind::Let(..) => self.lets(e),
            Kind::If(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
                self.expect(c, &Type::Bool, "the condition");
                self.atom(c, "the condition");
                self.expect(a, &e.ty, "the `then` branch");
                self.expect(b, &e.ty, "the `else` branch");
            }
            Kind::Bin(op, a, b, _) => {
                self.expr(a);
                self.expr(b);
                self.bin(e, *op, a, b);
            }
            Kind::Neg(a) => {
                self.expr(a);
                if !a.ty.is_float() {
                    self.problem(e, format!("a negation of a `{}`", a.ty));
                }
                self.expect(e, &a.ty, "a negation");
                self.atom(a, "the operand of `-`");
            }
            Kind::Not(a) => {
                self.expr(a);
                self.expect(a, &Type::Bool, "the operand of `!`");
                self.expect(e, &Type::Bool, "a `!`");
                self.atom(a, "the operand of `!`");
            }
            Kind::Cast(t, a) => {
                self.expr(a);
                let want = match t {
                    CastTy::F64 => Type::F64,
                    CastTy::F32 => Type::F32,
                    CastTy::Usize => Type::Usize,
                };
                self.expect(e, &want, "a cast");
                if a.ty.is_arr() {
                    self.problem(e, "a cast of an array".into());
                }
                self.atom(a, "the operand of `as`");
            }
            Kind::Math(f, xs) => {
                for x in xs {
                    self.expr(x);
                }
                self.math(e, *f, xs);
            }
            Kind::Index(a, i) => {
                self.expr(a);
                self.expr(i);
                self.expect(i, &Type::Usize, "an index");
                if a.ty.is_arr() {
                    self.expect(e, &a.ty.elem(), "an element");
                } else {
                    self.problem(e, format!("indexing a `{}`", a.ty));
                }
            }
            Kind::Slice(a, lo) => {
                self.expr(a);
                self.expr(lo);
                self.expect(lo, &Type::Usize, "a slice's start");
                let (whole, part) = (a.ty.dims(), e.ty.dims());
                let rows_agree = whole.len() == part.len()
                    && !whole.is_empty()
                    && whole[1..].iter().zip(&part[1..]).all(|(x, y)| x.same(y));
                if !rows_agree {
                    self.problem(e, format!("a slice of type `{}` of a `{}`", e.ty, a.ty));
                }
            }
            Kind::Build(n, i, body) => {
                self.size(n, e);
                self.bind(*i, Type::Usize, e);
                self.expr(body);
                self.unbind(*i);
                match Type::array_of(&body.ty, n.clone()) {
                    Some(t) => self.expect(e, &t, "a `build`"),
                    None => self.problem(e, format!("a `build` of `{}` elements", body.ty)),
                }
            }
            Kind::Ifold(n, init, acc, i, body) => {
                self.expr(n);
                self.expr(init);
                self.expect(n, &Type::Usize, "an `ifold`'s count");
                self.expect(init, &e.ty, "an `ifold`'s initial value");
                if !e.ty.is_arr() && !e.ty.is_tuple() {
                    self.atom(init, "a scalar `ifold`'s initial value");
                }
                self.bind(*acc, e.ty.clone(), e);
                self.bind(*i, Type::Usize, e);
                self.expr(body);
                self.unbind(*acc);
                self.unbind(*i);
                self.expect(body, &e.ty, "an `ifold`'s body");
            }
            Kind::CheckIndex(k, len) => {
                self.size(len, e);
                self.expr(k);
                self.expect(k, &Type::Usize, "a checked index");
                self.atom(k, "a checked index");
                self.expect(e, &Type::Usize, "a checked index");
            }
            Kind::Iterate(init, s, cond, t, next) => {
                self.expr(init);
                self.expect(init, &e.ty, "an `iterate`'s initial value");
                self.bind(*s, e.ty.clone(), e);
                self.expr(cond);
                self.unbind(*s);
                self.expect(cond, &Type::Bool, "an `iterate`'s condition");
                self.bind(*t, e.ty.clone(), e);
                self.expr(next);
                self.unbind(*t);
                self.expect(next, &e.ty, "an `iterate`'s step");
            }
            Kind::Array(items) => {
                for x in items {
                    self.expr(x);
                }
                let elem = items.first().map(|x| x.ty.clone()).unwrap_or(Type::F64);
                for x in items.iter().skip(1) {
                    self.expect(x, &elem, "an array item");
                }
                match Type::array_of(&elem, Size::Lit(items.len() as u64)) {
                    Some(t) => self.expect(e, &t, "an array literal"),
                    None => self.problem(e, format!("an array of `{elem}` items")),
                }
            }
            Kind::Tuple(items) => {
                for x in items {
                    self.expr(x);
                }
                let parts = Type::Tuple(items.iter().map(|x| x.ty.clone()).collect());
                if items.len() < 2 {
                    self.problem(e, "a tuple of fewer than two components".into());
                }
                self.expect(e, &parts, "a tuple");
            }
            Kind::Proj(t, k) => {
                self.expr(t);
                match t.ty.parts().get(*k) {
                    Some(part) => self.expect(e, &part.clone(), "a projection"),
                    None => self.problem(e, format!("component {k} of a `{}`", t.ty)),
                }
            }
            Kind::Scan(n, init, acc, i, body) => {
                self.size(n, e);
                self.expr(init);
                self.bind(*acc, init.ty.clone(), e);
                self.bind(*i, Type::Usize, e);
                self.expr(body);
                self.unbind(*acc);
                self.unbind(*i);
                self.expect(body, &init.ty, "a `scan`'s body");
                self.expect(e, &init.ty.rows_of(n), "a `scan`");
            }
            Kind::Concat(a, b) => {
                self.expr(a);
                self.expr(b);
                let (da, db) = (a.ty.dims(), b.ty.dims());
                let ok = !da.is_empty()
                    && a.ty.scalar() == b.ty.scalar()
                    && da.len() == db.len()
                    && da[1..].iter().zip(&db[1..]).all(|(x, y)| x.same(y));
                if !ok {
                    self.problem(e, format!("a `concat` of `{}` and `{}`", a.ty, b.ty));
                } else {
                    let mut dims = da.to_vec();
                    dims[0] = Size::plus(da[0].clone(), db[0].clone());
                    let elem = a.ty.scalar().unwrap_or(Scalar::F64);
                    self.expect(e, &Type::Arr(elem, dims), "a `concat`");
                }
            }
            Kind::Reshape(a) => {
                self.expr(a);
                if !a.ty.is_arr() || !e.ty.is_arr() || !a.ty.slots().same(&e.ty.slots()) {
                    self.problem(e, format!("a `{}` seen as a `{}`", a.ty, e.ty));
                }
            }
        }
    }

    /// A chain of `let`s, walked as a loop (chains are long; nesting is not).
    fn lets(&mut self, e: &Core) {
        let mut bound = Vec::new();
        let mut cur = e;
        while let Kind::Let(v, a, b) = &cur.kind {
            self.expr(a);
            self.bind(*v, a.ty.clone(), cur);
            if let Some(l) = self.let_bound.get_mut(*v as usize) {
                *l = true;
            }
            self.expect(b, &cur.ty, "a `let`'s body");
            bound.push(*v);
            cur = b;
        }
        self.expr(cur);
        for v in bound {
            self.unbind(v);
        }
    }

    fn bin(&mut self, e: &Core, op: BinOp, a: &Core, b: &Core) {
        let sym = op.symbol();
        match op {
            BinOp::And | BinOp::Or => {
                self.expect(a, &Type::Bool, &format!("the left operand of `{sym}`"));
                self.expect(b, &Type::Bool, &format!("the right operand of `{sym}`"));
                self.expect(e, &Type::Bool, &format!("a `{sym}`"));
                self.atom(a, &format!("the left operand of `{sym}`"));
            }
            _ => {
                if a.ty.is_arr() || a.ty != b.ty {
                    self.problem(e, format!("`{sym}` of a `{}` and a `{}`", a.ty, b.ty));
                }
                let want = if op.is_cmp() {
                    Type::Bool
                } else {
                    a.ty.clone()
                };
                self.expect(e, &want, &format!("a `{sym}`"));
                if e.ty != Type::Usize && a.ty != Type::Usize {
                    self.atom(a, &format!("the left operand of `{sym}`"));
                    self.atom(b, &format!("the right operand of `{sym}`"));
                }
            }
        }
    }

    fn math(&mut self, e: &Core, f: MathFn, xs: &[Core]) {
        let name = f.name();
        if xs.len() != 1 + f.arity() {
            self.problem(e, format!("`{name}` with {} operands", xs.len()));
        }
        let ty = xs.first().map_or(Type::F64, |x| x.ty.clone());
        if !ty.is_float() {
            self.problem(e, format!("`{name}` of a `{ty}`"));
        }
        // `powi`'s exponent may be a usize expression.
        if f != MathFn::Powi {
            for x in xs.iter().skip(1) {
                self.expect(x, &ty, &format!("the argument of `{name}`"));
            }
        }
        self.expect(e, &ty, &format!("a `{name}`"));
        for x in xs {
            self.atom(x, &format!("an operand of `{name}`"));
        }
    }
}

/// The same type, shapes compared as written first (cheap), then as polynomials.
#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
