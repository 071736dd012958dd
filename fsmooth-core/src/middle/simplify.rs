//! `simplify`: constant folding, copy propagation and dead-code elimination on the core IR.
//!
//! Views (a variable, a row `m[i]`, a slice) are substituted into their uses so that fusion
//! sees through the `let`s that inlining introduces; constants and variables are propagated;
//! unused `let`s are dropped (every expression is pure).

use crate::front::ast::BinOp;
use crate::front::ast::Sp;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId, subst_loop};
use std::collections::HashMap;

/// A value that costs nothing to repeat: a variable, constant or size.
pub fn is_trivial(e: &Core) -> bool {
    matches!(
        e.kind,
        Kind::Var(_) | Kind::Size(_) | Kind::Float(_) | Kind::Bool(_)
    )
}

/// A view of an array that costs nothing to repeat: a variable, or a row of one at a trivial
/// index.
fn is_view(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) => true,
        Kind::Index(a, k) => e.ty.is_arr() && is_view(a) && is_trivial(k),
        _ => false,
    }
}

/// Replace loop index `i` in `body` by `k` (fusion's `f(i)` for `build(n, f)[k]`).
pub fn subst_index(i: VarId, k: &Core, mut body: Core, span: Sp) -> Core {
    if is_trivial(k) {
        body.subst(i, k);
        return body;
    }
    set_sym(&mut body, i, k.sym.as_ref());
    let ty = body.ty.clone();
    let sym = body.sym.clone();
    Core {
        kind: Kind::Let(i, Box::new(k.clone()), Box::new(body)),
        ty,
        sym,
        span,
    }
}

/// Loop index `i` is now bound to a value whose symbolic form is `by`.
fn set_sym(e: &mut Core, i: VarId, by: Option<&Size>) {
    if let Some(s) = &e.sym
        && s.mentions_loop(i)
    {
        e.sym = by.map(|b| subst_loop(s, i, b));
    }
    for c in e.children_mut() {
        set_sym(c, i, by);
    }
}

/// Copy propagation and dead `let` removal, bottom-up.
///
/// Each `let` is decided once its body is done: dropped when nothing reads its variable,
/// substituted when its value is trivial or a view. The substitutions wait for one last walk
/// (a variable or a view in place of a variable decides nothing differently), and the reads
/// of every variable are counted once and kept up to date, so the pass is linear in the size
/// of the kernel.
pub fn propagate(e: &mut Core) {
    let mut p = Propagate {
        reads: Vec::new(),
        forward: HashMap::new(),
    };
    count_reads(e, &mut p.reads);
    p.visit(e);
    if !p.forward.is_empty() {
        p.resolve(e);
    }
}

/// Add every read of a variable in `e` to `reads`, by id. (No symbolic value mentions a
/// `let`'s variable: they stand for loop indexes, and a `usize` `let` carries its value's. So
/// a `let`'s variable is read only where a [`Kind::Var`] says so; a test checks it after
/// every pass.)
pub(crate) fn count_reads(e: &Core, reads: &mut Vec<u32>) {
    if let Kind::Var(v) = e.kind {
        let v = v as usize;
        if reads.len() <= v {
            reads.resize(v + 1, 0);
        }
        reads[v] += 1;
    }
    for c in e.children() {
        count_reads(c, reads);
    }
}

/// The state of [`propagate`].
struct Propagate {
    /// How many times each variable is read, by id, counting the reads the substitutions
    /// still to be done will make.
    reads: Vec<u32>,
    /// The `let`s substituted: each variable's value, put in place of its reads at the end.
    forward: HashMap<VarId, Core>,
}

impl Propagate {
    fn visit(&mut self, e: &mut Core) {
        for c in e.children_mut() {
            self.visit(c);
        }
        float_lets(e);
        if let Kind::Let(x, a, b) = &mut e.kind {
            let x = *x;
            let reads = self.reads.get(x as usize).copied().unwrap_or(0);
            if reads == 0 {
                self.count(a, -1);
                *e = b.take();
            } else if is_trivial(a)
                || is_view(a)
                || reads == 1 && a.ty.is_arr() && starts_fold(b, x)
            {
                // Each read of `x` becomes a copy of `a`; the `let`'s own copy goes.
                let a = a.take();
                self.count(&a, i64::from(reads) - 1);
                self.reads[x as usize] = 0;
                self.forward.insert(x, a);
                *e = b.take();
            }
        }
    }

    /// Add `by` to the count of every variable `e` reads (through the substitutions to come).
    fn count(&mut self, e: &Core, by: i64) {
        if by == 0 {
            return;
        }
        if let Kind::Var(v) = e.kind {
            if let Some(value) = self.forward.remove(&v) {
                self.count(&value, by);
                self.forward.insert(v, value);
            } else if let Some(n) = self.reads.get_mut(v as usize) {
                *n = u32::try_from(i64::from(*n) + by).unwrap_or(0);
            }
            return;
        }
        for c in e.children() {
            self.count(c, by);
        }
    }

    /// Put each substituted variable's value in place of its reads (keeping the read's span).
    fn resolve(&self, e: &mut Core) {
        while let Kind::Var(x) = e.kind
            && let Some(value) = self.forward.get(&x)
        {
            let span = e.span;
            *e = value.clone();
            e.span = span;
        }
        for c in e.children_mut() {
            self.resolve(c);
        }
    }
}

/// True when `e` begins with a fold whose start is the variable `x` (`ifold(n, x, ..)`, or
/// bound by the first `let`): an array bound only to start a fold is that fold's start, as
/// when written there (`let rel = build(..); ifold(b, rel, ..)` is `ifold(b, build(..), ..)`,
/// whose first state is computed where the fold keeps it, not copied there).
fn starts_fold(e: &Core, x: VarId) -> bool {
    match &e.kind {
        Kind::Ifold(_, init, ..) => matches!(init.kind, Kind::Var(v) if v == x),
        Kind::Let(_, a, _) => starts_fold(a, x),
        _ => false,
    }
}

/// Let-floating, so fusion sees a `build` where inlining left `let y = a in build(..)`:
/// `let x = (let y = a in b) in c ~> let y = a in let x = b in c` and
/// `(let y = a in b)[k] ~> let y = a in b[k]` (variables are unique, so nothing is captured).
fn float_lets(e: &mut Core) {
    let span = e.span;
    let floats = match &e.kind {
        Kind::Let(_, a, _) | Kind::Index(a, _) => matches!(a.kind, Kind::Let(..)),
        _ => false,
    };
    if !floats {
        return;
    }
    let inner = match std::mem::replace(&mut e.kind, Kind::Bool(false)) {
        Kind::Let(x, a, c) => {
            let Kind::Let(y, ya, b) = a.kind else {
                unreachable!("checked above")
            };
            let (ty, sym) = (c.ty.clone(), c.sym.clone());
            (y, ya, Kind::Let(x, b, c), ty, sym)
        }
        Kind::Index(a, k) => {
            let Kind::Let(y, ya, b) = a.kind else {
                unreachable!("checked above")
            };
            (y, ya, Kind::Index(b, k), e.ty.clone(), e.sym.clone())
        }
        _ => unreachable!("checked above"),
    };
    let (y, ya, kind, ty, sym) = inner;
    let inner = Core {
        kind,
        ty,
        sym,
        span,
    };
    e.kind = Kind::Let(y, ya, Box::new(inner));
    if let Kind::Let(_, _, body) = &mut e.kind {
        float_lets(body);
    }
}

/// Fold constant float and bool arithmetic (IEEE-exact: only operations on two constants, and
/// identities that hold for every f64, such as `x * 1.0`).
pub fn fold(e: &mut Core) {
    for c in e.children_mut() {
        fold(c);
    }
    let new = match &e.kind {
        Kind::Bin(op, a, b, _) => match (&a.kind, &b.kind) {
            (Kind::Float(x), Kind::Float(y)) => {
                let (x, y) = (*x, *y);
                // An f32 operation rounds to f32: computed in f32, as the kernel would.
                let arith = |f: fn(f64, f64) -> f64, g: fn(f32, f32) -> f32| {
                    let v = if a.ty == Type::F32 {
                        f64::from(g(x as f32, y as f32))
                    } else {
                        f(x, y)
                    };
                    Some(Folded::To(Kind::Float(v)))
                };
                match op {
                    BinOp::Add => arith(|x, y| x + y, |x, y| x + y),
                    BinOp::Sub => arith(|x, y| x - y, |x, y| x - y),
                    BinOp::Mul => arith(|x, y| x * y, |x, y| x * y),
                    BinOp::Div => arith(|x, y| x / y, |x, y| x / y),
                    BinOp::Rem => arith(|x, y| x % y, |x, y| x % y),
                    BinOp::Lt => Some(Folded::To(Kind::Bool(x < y))),
                    BinOp::Le => Some(Folded::To(Kind::Bool(x <= y))),
                    BinOp::Gt => Some(Folded::To(Kind::Bool(x > y))),
                    BinOp::Ge => Some(Folded::To(Kind::Bool(x >= y))),
                    BinOp::Eq => Some(Folded::To(Kind::Bool(x == y))),
                    BinOp::Ne => Some(Folded::To(Kind::Bool(x != y))),
                    _ => None,
                }
            }
            // `x < x` and `x > x` are false for every x, NaN too (a written-out argmin's
            // first step compares its start with itself).
            (Kind::Var(x), Kind::Var(y)) if x == y && matches!(op, BinOp::Lt | BinOp::Gt) => {
                Some(Folded::To(Kind::Bool(false)))
            }
            // `-0.0 + x` and `x - 0.0` are `x` for every x (not `0.0 + x`: `0.0 + -0.0` is
            // `0.0`).
            (Kind::Float(x), _) if is_neg_zero(*x) && *op == BinOp::Add => Some(Folded::Right),
            (_, Kind::Float(y)) if is_neg_zero(*y) && *op == BinOp::Add => Some(Folded::Left),
            (_, Kind::Float(y)) if is_pos_zero(*y) && *op == BinOp::Sub => Some(Folded::Left),
            (_, Kind::Float(y)) if *y == 1.0 && matches!(op, BinOp::Mul | BinOp::Div) => {
                Some(Folded::Left)
            }
            (Kind::Float(x), _) if *x == 1.0 && *op == BinOp::Mul => Some(Folded::Right),
            (Kind::Size(x), Kind::Size(y)) if a.ty == Type::Usize && e.ty == Type::Usize => {
                // Only operations that cannot fail on constants, so no error moves (`/` and
                // `%` by a constant: `f[j][(k + 1) % 3]` in a loop `unroll` wrote out).
                let v = match (op, x.as_const(), y.as_const()) {
                    (BinOp::Add, Some(p), Some(q)) => p.checked_add(q),
                    (BinOp::Mul, Some(p), Some(q)) => p.checked_mul(q),
                    (BinOp::Sub, Some(p), Some(q)) => p.checked_sub(q),
                    (BinOp::Div, Some(p), Some(q)) => p.checked_div(q),
                    (BinOp::Rem, Some(p), Some(q)) => p.checked_rem(q),
                    _ => None,
                };
                v.map(|v| Folded::To(Kind::Size(Size::Lit(v))))
            }
            (Kind::Size(x), Kind::Size(y)) if a.ty == Type::Usize => {
                // Comparisons of constants (a written-out loop's `i == 0`).
                match (x.as_const(), y.as_const()) {
                    (Some(p), Some(q)) => match op {
                        BinOp::Lt => Some(Folded::To(Kind::Bool(p < q))),
                        BinOp::Le => Some(Folded::To(Kind::Bool(p <= q))),
                        BinOp::Gt => Some(Folded::To(Kind::Bool(p > q))),
                        BinOp::Ge => Some(Folded::To(Kind::Bool(p >= q))),
                        BinOp::Eq => Some(Folded::To(Kind::Bool(p == q))),
                        BinOp::Ne => Some(Folded::To(Kind::Bool(p != q))),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        },
        Kind::Neg(a) => match a.kind {
            Kind::Float(x) => Some(Folded::To(Kind::Float(-x))),
            _ => None,
        },
        Kind::Not(a) => match a.kind {
            Kind::Bool(x) => Some(Folded::To(Kind::Bool(!x))),
            _ => None,
        },
        Kind::If(c, _, _) => match c.kind {
            Kind::Bool(true) => Some(Folded::Left),
            Kind::Bool(false) => Some(Folded::Right),
            _ => None,
        },
        // `build(n, |i| a[i])` of an `a` of `n` elements is `a` (a copy: the transposed
        // scans' `transpose(transpose(..))`, a helper returning its argument's rows).
        Kind::Build(_, i, body) => match &body.kind {
            Kind::Index(a, k)
                if matches!(k.kind, Kind::Var(v) if v == *i) && !a.mentions(*i) && a.ty == e.ty =>
            {
                Some(Folded::Element)
            }
            _ => None,
        },
        _ => None,
    };
    // The kept operand or branch is moved up, not copied (a chain of `* 1.0` would copy the
    // rest of the chain at every step); the node keeps its type, symbolic value and span.
    match new {
        Some(Folded::To(k)) => {
            // A constant size is its own symbolic value (an operation the sizes do not
            // model, `%`, had none).
            if let Kind::Size(n) = &k {
                e.sym = Some(n.clone());
            }
            e.kind = k;
        }
        Some(Folded::Element) => {
            let Kind::Build(_, _, body) = &mut e.kind else {
                unreachable!("only a build is its element's array");
            };
            let Kind::Index(a, _) = &mut body.kind else {
                unreachable!("matched above");
            };
            e.kind = std::mem::replace(&mut a.kind, Kind::Bool(false));
        }
        Some(side) => {
            let (Kind::Bin(_, left, right, _) | Kind::If(_, left, right)) = &mut e.kind else {
                unreachable!("only operations and branches keep a side")
            };
            let kept = if matches!(side, Folded::Left) {
                left
            } else {
                right
            };
            e.kind = std::mem::replace(&mut kept.kind, Kind::Bool(false));
        }
        None => {}
    }
}

/// What [`fold`] makes of a node.
enum Folded {
    /// This constant.
    To(Kind),
    /// Its left operand (of an `if`, the `then` branch).
    Left,
    /// Its right operand (of an `if`, the `else` branch).
    Right,
    /// Of `build(n, |i| a[i])`, the array `a`.
    Element,
}

fn is_neg_zero(x: f64) -> bool {
    x == 0.0 && x.is_sign_negative()
}

fn is_pos_zero(x: f64) -> bool {
    x == 0.0 && x.is_sign_positive()
}

/// Undo the A-normal form where it bought nothing: a scalar `let` read exactly once, in the
/// same scope (not inside a loop, branch or short-circuit operand it was outside of), is put
/// back where it is read. Code reads as the user wrote it and no work moves into a loop.
///
/// One walk finds every variable's reads and scopes first: putting a value where it is read
/// moves it within one scope, so no other variable's count or scope changes, and the `let`s
/// can then be undone in one more walk, each value moved to its read.
pub fn inline_single_uses(e: &mut Core) {
    inline_single(e, false);
}

/// [`inline_single_uses`] for loads only (`let x = a[i]`), before fusion: a closure's
/// parameters (`map2(a, b, |x, y| x * y)` binds `x` and `y`) put back where they are read, so
/// that fusion's let-floating and its budgets see `a[i] * b[i]` however it was written.
/// Arithmetic stays bound: a `let` at the head of a loop's body that reads nothing of the loop
/// is what `hoist` takes out of it (a Jacobian's primal shared by its rows).
pub fn inline_single_loads(e: &mut Core) {
    inline_single(e, true);
}

/// [`inline_single_uses`], of loads only when `loads_only`.
fn inline_single(e: &mut Core, loads_only: bool) {
    let mut reads = Reads::default();
    reads.walk(e, 0);
    Inline {
        reads,
        values: HashMap::new(),
        loads_only,
    }
    .visit(e);
}

/// What [`inline_single_uses`] needs to know of each variable, by id.
#[derive(Default)]
struct Reads {
    /// How many times it is read.
    count: Vec<u32>,
    /// The scope of (the last of) its reads.
    read_scope: Vec<u32>,
    /// The scope of its `let`.
    bound_scope: Vec<u32>,
    /// True when a symbolic value mentions it.
    in_sym: Vec<bool>,
    /// Scopes made so far (0 is the kernel's body).
    scopes: u32,
}

impl Reads {
    fn slot(v: &mut Vec<u32>, x: VarId) -> &mut u32 {
        let x = x as usize;
        if v.len() <= x {
            v.resize(x + 1, u32::MAX);
        }
        &mut v[x]
    }

    fn new_scope(&mut self) -> u32 {
        self.scopes += 1;
        self.scopes
    }

    /// Record the reads and `let`s of `e`, which is evaluated in `scope`. A loop's body, an
    /// `if`'s branches and the right operand of `&&`/`||` are scopes of their own.
    fn walk(&mut self, e: &Core, scope: u32) {
        if let Some(s) = &e.sym {
            let mut loops = Vec::new();
            s.loops(&mut loops);
            for v in loops {
                let v = v as usize;
                if self.in_sym.len() <= v {
                    self.in_sym.resize(v + 1, false);
                }
                self.in_sym[v] = true;
            }
        }
        match &e.kind {
            Kind::Var(v) => {
                let count = Self::slot(&mut self.count, *v);
                *count = if *count == u32::MAX { 1 } else { *count + 1 };
                *Self::slot(&mut self.read_scope, *v) = scope;
            }
            Kind::Let(x, a, b) => {
                *Self::slot(&mut self.bound_scope, *x) = scope;
                self.walk(a, scope);
                self.walk(b, scope);
            }
            Kind::Build(_, _, body) => {
                let inner = self.new_scope();
                self.walk(body, inner);
            }
            Kind::Ifold(n, init, _, _, body) => {
                self.walk(n, scope);
                self.walk(init, scope);
                let inner = self.new_scope();
                self.walk(body, inner);
            }
            Kind::Scan(_, init, _, _, body) => {
                self.walk(init, scope);
                let inner = self.new_scope();
                self.walk(body, inner);
            }
            Kind::If(c, a, b) => {
                self.walk(c, scope);
                for branch in [a, b] {
                    let inner = self.new_scope();
                    self.walk(branch, inner);
                }
            }
            Kind::Bin(BinOp::And | BinOp::Or, a, b, _) => {
                self.walk(a, scope);
                let inner = self.new_scope();
                self.walk(b, inner);
            }
            _ => {
                for c in e.children() {
                    self.walk(c, scope);
                }
            }
        }
    }

    /// `x`'s `let` is undone: read once, in the scope of its `let`. (A variable a symbolic
    /// value mentions keeps its `let`; no pass makes one, as a test checks.)
    fn single_same_scope(&self, x: VarId) -> bool {
        let x = x as usize;
        self.count.get(x) == Some(&1)
            && self.read_scope.get(x) == self.bound_scope.get(x)
            && !self.in_sym.get(x).copied().unwrap_or(false)
    }
}

/// The walk that undoes the `let`s.
struct Inline {
    reads: Reads,
    /// The values of the `let`s undone, waiting for their read.
    values: HashMap<VarId, Core>,
    /// Only `let`s of loads are undone ([`inline_single_loads`]).
    loads_only: bool,
}

impl Inline {
    fn visit(&mut self, e: &mut Core) {
        loop {
            match &mut e.kind {
                Kind::Var(v) => {
                    if let Some(value) = self.values.remove(v) {
                        let span = e.span;
                        *e = value;
                        e.span = span;
                    }
                    return;
                }
                Kind::Let(x, a, b)
                    if !a.ty.is_arr()
                        && (!self.loads_only || matches!(a.kind, Kind::Index(..)))
                        && self.reads.single_same_scope(*x) =>
                {
                    self.visit(a);
                    self.values.insert(*x, a.take());
                    *e = b.take();
                }
                _ => {
                    for c in e.children_mut() {
                        self.visit(c);
                    }
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::middle::ir::{Core, Kind, VarId};

    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    /// The `let`s of `e`, and the loop indexes its symbolic values mention.
    fn lets_and_sym_loops(e: &Core, lets: &mut Vec<VarId>, loops: &mut Vec<VarId>) {
        if let Kind::Let(x, ..) = e.kind {
            lets.push(x);
        }
        if let Some(s) = &e.sym {
            s.loops(loops);
        }
        for c in e.children() {
            lets_and_sym_loops(c, lets, loops);
        }
    }

    #[test]
    fn no_symbolic_value_mentions_a_let() {
        // What `propagate`, `fuse` and `inline_single_uses` rely on when they count the
        // reads of a `let`'s variable by its `Var` nodes alone.
        let blocks = [
            include_str!("../../tests/fuzz_corpus.fs"),
            "pub fn kalman(x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
                          h: [f64; 4], r: f64, z: f64) -> [[f64; 4]; 5] {
                let xp = matvec(f, x);
                let pp = madd(matmul(matmul(f, p), transpose(f)), q);
                let ph = matvec(pp, h);
                let s = dot(h, ph) + r;
                let xn = add(xp, smul(ph, (z - dot(h, xp)) / s));
                let pn = msub(pp, msmul(outer(ph, ph), 1.0 / s));
                build(5, |i| if i == 0 { xn } else { pn[i - 1] })
            }",
            "pub fn tri(m: [[f64; d]; d]) -> [f64; d * (d + 1) / 2] {
                build(d * (d + 1) / 2, |k| {
                    let row = ifold(d, 0, |r, j| if (j + 1) * (j + 2) / 2 <= k { j + 1 } else { r });
                    m[row][k - row * (row + 1) / 2]
                })
            }",
        ];
        let options = [
            "",
            "#![fsmooth(fusion = false)]",
            "#![fsmooth(unroll = false)]",
        ];
        for block in blocks.iter().flat_map(|b| b.split("====")) {
            for option in options {
                let src = format!("{option}\n{block}");
                let mut diags = crate::front::diag::Diags::default();
                let checked = crate::pipeline::front(src.parse().unwrap(), &mut diags).unwrap();
                assert!(diags.is_empty(), "{src}");
                for k in checked.kernels {
                    let mut check = |pass: &str, k: &crate::middle::ir::Kernel| {
                        let (mut lets, mut loops) = (Vec::new(), Vec::new());
                        lets_and_sym_loops(&k.body, &mut lets, &mut loops);
                        assert!(
                            lets.iter().all(|x| !loops.contains(x)),
                            "after {pass}: {src}"
                        );
                    };
                    check("check", &k);
                    let options = checked.scope.options;
                    crate::pipeline::middle_observed(k, options, Some(&mut check))
                        .unwrap_or_else(|e| panic!("{e}: {src}"));
                }
            }
        }
    }

    #[test]
    fn constants_fold_exactly() {
        let out = expand("pub fn k(x: f64) -> f64 { x * 1.0 + (2.0 * 3.0) }");
        assert!(out.contains("6f64") && !out.contains("1f64"), "{out}");
        // x + 0.0 is not x for x = -0.0: left alone. x + -0.0 and x - 0.0 are x.
        let out = expand("pub fn k(x: f64) -> f64 { x + 0.0 }");
        assert!(out.contains("0f64"), "{out}");
        for src in ["x + -0.0", "-0.0 + x", "x - 0.0"] {
            let out = expand(&format!("pub fn k(x: f64) -> f64 {{ {src} }}"));
            assert!(!out.contains("0f64"), "{src}: {out}");
        }
        let out = expand("pub fn k(x: f64) -> f64 { x - -0.0 }");
        assert!(out.contains("0f64"), "{out}");
    }

    #[test]
    fn short_circuit_operands_stay_conditional() {
        let out = expand("pub fn k(v: [f64; n], i: usize) -> bool { i < n && v[i] > 0.0 }");
        let and = out.find("&&").unwrap();
        let load = out.find(":: check (").unwrap();
        assert!(load > and, "the checked load moved before `&&`: {out}");
    }
}
