//! `forward`: forward-mode differentiation of a core expression (LANGUAGE.md section 12's
//! `jvp`). Every float value gets a tangent of its own type, computed beside it by the
//! chain rule; the result is the pair `(primal, tangent)`.
//!
//! The transformation works on one expression at a time and returns its primal and tangent
//! as two expressions over shared `let`s ([`Dual`]): a value that both need is bound once.
//! A `let` binds the value and its tangent; an `ifold` or `scan` carries the pair as a tuple
//! state; an `if` computes the pair in each branch. A `build` becomes two `build`s, the
//! tangent's with a fresh copy of the body (a loop writes one array: the body's primal
//! intermediates are computed again in the tangent's loop; fusion then merges what it can).
//!
//! A zero tangent contributes nothing, even where a partial derivative is infinite (`sqrt`,
//! `ln`, a division at 0): the terms of such functions are taken only where their tangent is
//! nonzero (`if t == 0 { 0 } else { t * partial }`, a select), and tangents known to be zero
//! when compiling are dropped. So `norm(v)` at `v = 0` along a direction that does not move
//! `v` has derivative 0, not NaN, as in the reference interpreter.
//!
//! Values without a tangent (`usize`, `bool`, and arrays of `usize`) get a placeholder of
//! their own type that nothing reads (a zero), so every node keeps one shape of rule and
//! dead-code removal drops the placeholders. At a kink the derivative is that of the branch
//! taken: `abs` below zero is `-x`'s, `min` and `max` take the tangent of the argument they
//! return, the first on a tie; `floor`, `ceil`, `signum` have none.

use crate::front::ast::{BinOp, CastTy, MathFn, Sp};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId, fresh};
use std::collections::HashMap;

/// An expression's primal and tangent, over `lets` that both read (in binding order).
pub struct Dual {
    /// Bindings around both.
    pub lets: Vec<(VarId, Core)>,
    /// The value.
    pub primal: Core,
    /// Its derivative along the tangents of the variables, of the value's type.
    pub tangent: Core,
}

/// The forward transformation's state.
pub struct Forward<'a> {
    /// The source name of every core variable (new ones are added).
    pub names: &'a mut Vec<String>,
    /// The tangent variable of each float-carrying variable bound so far.
    pub tangents: HashMap<VarId, VarId>,
}

/// Whether values of type `t` carry a derivative (floats, arrays of floats, tuples with one).
pub fn differentiable(t: &Type) -> bool {
    match t {
        Type::F64 | Type::F32 => true,
        Type::Arr(s, _) => s.is_float(),
        Type::Tuple(ts) => ts.iter().any(differentiable),
        Type::Usize | Type::Bool => false,
    }
}

/// Whether `t` is a tangent known to be zero when compiling (of a value that does not depend
/// on the differentiated arguments): its terms are dropped, so a constant's infinite partial
/// derivative contributes nothing, as in the reference interpreter.
pub fn is_zero(t: &Core) -> bool {
    match &t.kind {
        Kind::Float(x) => *x == 0.0,
        Kind::Build(_, _, body) => is_zero(body),
        Kind::Tuple(xs) | Kind::Array(xs) => xs.iter().all(is_zero),
        _ => false,
    }
}

/// `let v = value in body`, for each binding in order.
pub fn wrap(lets: Vec<(VarId, Core)>, body: Core) -> Core {
    lets.into_iter().rev().fold(body, |body, (v, value)| {
        let (ty, span) = (body.ty.clone(), body.span);
        Core::new(Kind::Let(v, Box::new(value), Box::new(body)), ty, span)
    })
}

fn var(v: VarId, ty: &Type, span: Sp) -> Core {
    Core::new(Kind::Var(v), ty.clone(), span)
}

fn float(x: f64, ty: &Type, span: Sp) -> Core {
    Core::new(Kind::Float(x), ty.clone(), span)
}

/// `a op b` as core, typed: a comparison or logic gives a `bool`, arithmetic its operands'
/// type.
pub fn bin(op: BinOp, a: Core, b: Core) -> Core {
    let ty = match op {
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => Type::Bool,
        BinOp::And | BinOp::Or => Type::Bool,
        _ => a.ty.clone(),
    };
    let span = a.span;
    Core::new(
        Kind::Bin(op, Box::new(a), Box::new(b), String::new()),
        ty,
        span,
    )
}

fn math(f: MathFn, args: Vec<Core>) -> Core {
    let (ty, span) = (args[0].ty.clone(), args[0].span);
    Core::new(Kind::Math(f, args), ty, span)
}

pub(crate) fn neg(a: Core) -> Core {
    let (ty, span) = (a.ty.clone(), a.span);
    Core::new(Kind::Neg(Box::new(a)), ty, span)
}

fn pick(c: Core, a: Core, b: Core) -> Core {
    let (ty, span) = (a.ty.clone(), a.span);
    Core::new(Kind::If(Box::new(c), Box::new(a), Box::new(b)), ty, span)
}

fn proj(t: Core, k: usize) -> Core {
    let ty = t.ty.parts().get(k).cloned().unwrap_or(Type::Bool);
    let span = t.span;
    Core::new(Kind::Proj(Box::new(t), k), ty, span)
}

fn pair(a: Core, b: Core) -> Core {
    let ty = Type::Tuple(vec![a.ty.clone(), b.ty.clone()]);
    let span = a.span;
    Core::new(Kind::Tuple(vec![a, b]), ty, span)
}

impl Forward<'_> {
    /// A new variable named like `like`'s (or `t`).
    fn new_var(&mut self, name: &str) -> VarId {
        self.names.push(name.to_string());
        (self.names.len() - 1) as VarId
    }

    /// `e` itself if it costs nothing to repeat, else a variable bound to it in `lets`.
    fn atom(&mut self, e: Core, lets: &mut Vec<(VarId, Core)>) -> Core {
        if matches!(
            e.kind,
            Kind::Var(_) | Kind::Float(_) | Kind::Size(_) | Kind::Bool(_)
        ) {
            return e;
        }
        let v = self.new_var("d");
        let (ty, span) = (e.ty.clone(), e.span);
        lets.push((v, e));
        var(v, &ty, span)
    }

    /// The zero tangent of a value of type `ty` (a placeholder for types without one).
    pub fn zero(&mut self, ty: &Type, span: Sp) -> Core {
        match ty {
            Type::F64 | Type::F32 => float(0.0, ty, span),
            Type::Usize => Core::size(Size::Lit(0), span),
            Type::Bool => Core::new(Kind::Bool(false), Type::Bool, span),
            Type::Arr(s, dims) => {
                let i = self.new_var("i");
                let elem = if dims.len() > 1 {
                    Type::Arr(*s, dims[1..].to_vec())
                } else {
                    s.ty()
                };
                let body = self.zero(&elem, span);
                Core::new(
                    Kind::Build(dims[0].clone(), i, Box::new(body)),
                    ty.clone(),
                    span,
                )
            }
            Type::Tuple(ts) => {
                let parts = ts.iter().map(|t| self.zero(t, span)).collect();
                Core::new(Kind::Tuple(parts), ty.clone(), span)
            }
        }
    }

    /// The primal and tangent of `e`.
    pub fn dual(&mut self, e: Core) -> Dual {
        let span = e.span;
        let ty = e.ty.clone();
        if !differentiable(&ty) {
            return self.constant(e);
        }
        let mut lets = Vec::new();
        let (primal, tangent) = match e.kind {
            Kind::Float(x) => (float(x, &ty, span), float(0.0, &ty, span)),
            Kind::Var(v) => {
                let t = match self.tangents.get(&v) {
                    Some(dv) => var(*dv, &ty, span),
                    None => self.zero(&ty, span),
                };
                (var(v, &ty, span), t)
            }
            Kind::Let(v, value, body) => {
                let d = self.dual(*value);
                lets.extend(d.lets);
                let vty = d.primal.ty.clone();
                lets.push((v, d.primal));
                if differentiable(&vty) && !is_zero(&d.tangent) {
                    let dv = self.new_var(&format!("d{}", self.names[v as usize]));
                    lets.push((dv, d.tangent));
                    self.tangents.insert(v, dv);
                }
                let b = self.dual(*body);
                lets.extend(b.lets);
                (b.primal, b.tangent)
            }
            Kind::If(c, a, b) => {
                let c = self.primal(*c, &mut lets);
                let a = self.dual(*a);
                let b = self.dual(*b);
                if is_zero(&a.tangent) && is_zero(&b.tangent) {
                    let value = pick(c, wrap(a.lets, a.primal), wrap(b.lets, b.primal));
                    let t = self.zero(&ty, span);
                    (value, t)
                } else {
                    let a = wrap(a.lets, pair(a.primal, a.tangent));
                    let b = wrap(b.lets, pair(b.primal, b.tangent));
                    let both = self.atom(pick(c, a, b), &mut lets);
                    (proj(both.clone(), 0), proj(both, 1))
                }
            }
            Kind::Bin(op, a, b, _) => {
                let a = self.dual(*a);
                let b = self.dual(*b);
                lets.extend(a.lets);
                lets.extend(b.lets);
                self.binary(op, (a.primal, a.tangent), (b.primal, b.tangent), &mut lets)
            }
            Kind::Neg(a) => {
                let a = self.dual(*a);
                lets.extend(a.lets);
                let t = if is_zero(&a.tangent) {
                    a.tangent
                } else {
                    neg(a.tangent)
                };
                (neg(a.primal), t)
            }
            Kind::Cast(to, a) => {
                let from_float = a.ty.is_float();
                let a = self.dual(*a);
                lets.extend(a.lets);
                let cast = |x: Core| Core::new(Kind::Cast(to, Box::new(x)), ty.clone(), span);
                let t = if from_float && to != CastTy::Usize && !is_zero(&a.tangent) {
                    cast(a.tangent)
                } else {
                    float(0.0, &ty, span)
                };
                (cast(a.primal), t)
            }
            Kind::Math(f, args) => self.math(f, args, &ty, span, &mut lets),
            Kind::Index(a, i) => self.select(Kind::Index, *a, *i, &ty, span, &mut lets),
            Kind::Slice(a, lo) => self.select(Kind::Slice, *a, *lo, &ty, span, &mut lets),
            Kind::Build(n, i, body) => {
                // The tangent's loop runs a fresh copy of the body's primal part.
                let copy = fresh(
                    Core::new(Kind::Build(n.clone(), i, body.clone()), ty.clone(), span),
                    self.names,
                );
                let primal = Core::new(Kind::Build(n, i, body), ty.clone(), span);
                let Kind::Build(n2, i2, body2) = copy.kind else {
                    unreachable!("a copy of a build is a build")
                };
                let d = self.dual(*body2);
                if is_zero(&d.tangent) {
                    let t = self.zero(&ty, span);
                    (primal, t)
                } else {
                    let t = wrap(d.lets, d.tangent);
                    (
                        primal,
                        Core::new(Kind::Build(n2, i2, Box::new(t)), ty.clone(), span),
                    )
                }
            }
            Kind::Ifold(n, init, acc, i, body) => {
                let n = self.primal(*n, &mut lets);
                let r = self.fold(n, *init, acc, i, *body, false, span, &mut lets);
                (proj(r.clone(), 0), proj(r, 1))
            }
            // A `usize`: no derivative (returned above).
            Kind::CheckIndex(k, len) => {
                let c = Core::new(Kind::CheckIndex(k, len), ty.clone(), span);
                return self.constant(c);
            }
            Kind::Iterate(init, s, cond, t, next) => {
                let r = self.iterate(*init, (s, *cond), (t, *next), span, &mut lets);
                (proj(r.clone(), 0), proj(r, 1))
            }
            Kind::Scan(n, init, acc, i, body) => {
                let n = Core::size(n, span);
                let r = self.fold(n, *init, acc, i, *body, true, span, &mut lets);
                (proj(r.clone(), 0), proj(r, 1))
            }
            Kind::Array(xs) => {
                let (ps, ts) = self.each(xs, &mut lets);
                (
                    Core::new(Kind::Array(ps), ty.clone(), span),
                    Core::new(Kind::Array(ts), ty.clone(), span),
                )
            }
            Kind::Tuple(xs) => {
                let (ps, ts) = self.each(xs, &mut lets);
                (
                    Core::new(Kind::Tuple(ps), ty.clone(), span),
                    Core::new(Kind::Tuple(ts), ty.clone(), span),
                )
            }
            Kind::Proj(t, k) => {
                let t = self.dual(*t);
                lets.extend(t.lets);
                let p = self.atom(t.primal, &mut lets);
                let d = self.atom(t.tangent, &mut lets);
                (proj(p, k), proj(d, k))
            }
            Kind::Concat(a, b) => {
                let a = self.dual(*a);
                let b = self.dual(*b);
                lets.extend(a.lets);
                lets.extend(b.lets);
                let cat = |x: Core, y: Core| {
                    Core::new(Kind::Concat(Box::new(x), Box::new(y)), ty.clone(), span)
                };
                (cat(a.primal, b.primal), cat(a.tangent, b.tangent))
            }
            Kind::Reshape(a) => {
                let a = self.dual(*a);
                lets.extend(a.lets);
                let shape = |x: Core| Core::new(Kind::Reshape(Box::new(x)), ty.clone(), span);
                (shape(a.primal), shape(a.tangent))
            }
            // Without a tangent: handled above.
            Kind::Bool(_) | Kind::Size(_) | Kind::Not(_) => unreachable!("not differentiable"),
        };
        Dual {
            lets,
            primal,
            tangent,
        }
    }

    /// A value without a derivative (an index, a size, a condition): itself, reading the
    /// primal values of the variables (whose ids are unchanged), and a placeholder tangent.
    fn constant(&mut self, e: Core) -> Dual {
        let (ty, span) = (e.ty.clone(), e.span);
        let tangent = self.zero(&ty, span);
        Dual {
            lets: Vec::new(),
            primal: e,
            tangent,
        }
    }

    /// The primal value of `e`: itself when it has no derivative, else its dual's primal
    /// (whose `let`s also bind tangents that the value may not need: dead-code removal
    /// drops those).
    fn primal(&mut self, e: Core, lets: &mut Vec<(VarId, Core)>) -> Core {
        if differentiable(&e.ty) {
            let d = self.dual(e);
            lets.extend(d.lets);
            d.primal
        } else {
            e
        }
    }

    fn each(&mut self, xs: Vec<Core>, lets: &mut Vec<(VarId, Core)>) -> (Vec<Core>, Vec<Core>) {
        let mut ps = Vec::new();
        let mut ts = Vec::new();
        for x in xs {
            let d = self.dual(x);
            lets.extend(d.lets);
            ps.push(d.primal);
            ts.push(d.tangent);
        }
        (ps, ts)
    }

    /// An element or a slice (`make`) of array `a` at `at`: the same of its primal and of its
    /// tangent, at the one primal index.
    fn select(
        &mut self,
        make: fn(Box<Core>, Box<Core>) -> Kind,
        a: Core,
        at: Core,
        ty: &Type,
        span: Sp,
        lets: &mut Vec<(VarId, Core)>,
    ) -> (Core, Core) {
        let a = self.dual(a);
        lets.extend(a.lets);
        let at = self.primal(at, lets);
        let at = self.atom(at, lets);
        let of = |x: Core, at: Core| Core::new(make(Box::new(x), Box::new(at)), ty.clone(), span);
        let p = self.atom(a.primal, lets);
        let t = if is_zero(&a.tangent) {
            self.zero(ty, span)
        } else {
            of(a.tangent, at.clone())
        };
        (of(p, at), t)
    }

    /// `term(t)` where tangent `t` is nonzero, else 0: the term of a partial derivative
    /// that may be infinite (`t` is bound to a variable first).
    fn guard(
        &mut self,
        t: Core,
        term: impl FnOnce(Core) -> Core,
        lets: &mut Vec<(VarId, Core)>,
    ) -> Core {
        let t = self.atom(t, lets);
        let (ty, span) = (t.ty.clone(), t.span);
        let zero = float(0.0, &ty, span);
        pick(bin(BinOp::Eq, t.clone(), zero.clone()), zero, term(t))
    }

    /// A float operation `a op b` on duals.
    fn binary(
        &mut self,
        op: BinOp,
        (pa, ta): (Core, Core),
        (pb, tb): (Core, Core),
        lets: &mut Vec<(VarId, Core)>,
    ) -> (Core, Core) {
        let (za, zb) = (is_zero(&ta), is_zero(&tb));
        if za && zb {
            let ty = pa.ty.clone();
            let span = pa.span;
            return (bin(op, pa, pb), float(0.0, &ty, span));
        }
        match op {
            BinOp::Add if za => (bin(op, pa, pb), tb),
            BinOp::Add | BinOp::Sub if zb => (bin(op, pa, pb), ta),
            BinOp::Sub if za => (bin(op, pa, pb), neg(tb)),
            BinOp::Add | BinOp::Sub => (bin(op, pa, pb), bin(op, ta, tb)),
            BinOp::Mul => {
                let pa = self.atom(pa, lets);
                let pb = self.atom(pb, lets);
                let t = if za {
                    bin(BinOp::Mul, pa.clone(), tb)
                } else if zb {
                    bin(BinOp::Mul, ta, pb.clone())
                } else {
                    bin(
                        BinOp::Add,
                        bin(BinOp::Mul, ta, pb.clone()),
                        bin(BinOp::Mul, pa.clone(), tb),
                    )
                };
                (bin(BinOp::Mul, pa, pb), t)
            }
            BinOp::Div => {
                let pa = self.atom(pa, lets);
                let pb = self.atom(pb, lets);
                let q = self.atom(bin(BinOp::Div, pa, pb.clone()), lets);
                // ta (1 / b) - tb (q / b), each term only where its tangent is nonzero (b may
                // be 0). The factors are primal values: in a Jacobian's loop over directions
                // (rows of `vjp`, columns of `jvp`) `hoist` computes them once, and each
                // direction multiplies instead of dividing.
                let one = float(1.0, &pb.ty, pb.span);
                let inv = self.atom(bin(BinOp::Div, one, pb), lets);
                let first = (!za).then(|| {
                    let inv = inv.clone();
                    self.guard(ta, |t| bin(BinOp::Mul, t, inv), lets)
                });
                let second = (!zb).then(|| {
                    let slope = self.atom(bin(BinOp::Mul, q.clone(), inv.clone()), lets);
                    self.guard(tb, |t| neg(bin(BinOp::Mul, t, slope)), lets)
                });
                let t = match (first, second) {
                    (Some(a), Some(b)) => bin(BinOp::Add, a, b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => unreachable!("both tangents zero returned above"),
                };
                (q, t)
            }
            BinOp::Rem => {
                // a % b = a - trunc(a / b) b, with trunc(a / b) = (a - a % b) / b.
                let pa = self.atom(pa, lets);
                let pb = self.atom(pb, lets);
                let r = self.atom(bin(BinOp::Rem, pa.clone(), pb.clone()), lets);
                if zb {
                    return (r, ta);
                }
                let whole = bin(BinOp::Div, bin(BinOp::Sub, pa, r.clone()), pb);
                let term = bin(BinOp::Mul, whole, tb);
                let t = if za {
                    neg(term)
                } else {
                    bin(BinOp::Sub, ta, term)
                };
                (r, t)
            }
            // Comparisons and logic have no tangent: they never reach here.
            _ => unreachable!("a float operation"),
        }
    }

    /// A math method on duals: the receiver, then its arguments.
    fn math(
        &mut self,
        f: MathFn,
        args: Vec<Core>,
        ty: &Type,
        span: Sp,
        lets: &mut Vec<(VarId, Core)>,
    ) -> (Core, Core) {
        let mut ps = Vec::new();
        let mut ts = Vec::new();
        for a in args {
            if differentiable(&a.ty) {
                let d = self.dual(a);
                lets.extend(d.lets);
                let p = self.atom(d.primal, lets);
                let t = self.atom(d.tangent, lets);
                ps.push(p);
                ts.push(t);
            } else {
                // `powi`'s exponent.
                let p = self.primal(a, lets);
                let p = self.atom(p, lets);
                ts.push(p.clone());
                ps.push(p);
            }
        }
        let x = ps[0].clone();
        let tx = ts[0].clone();
        let value = self.atom(math(f, ps.clone()), lets);
        // The differentiable operands' tangents, all known zero: so is the result's.
        let zeros: Vec<bool> = ts.iter().map(is_zero).collect();
        let float_args: Vec<bool> = ps.iter().map(|p| p.ty.is_float()).collect();
        if zeros.iter().zip(&float_args).all(|(z, f)| *z || !*f) {
            return (value, float(0.0, ty, span));
        }
        // A sum of terms, those of zero tangents dropped.
        let terms = |parts: Vec<(bool, Core)>| -> Core {
            let mut kept = parts.into_iter().filter(|(z, _)| !z).map(|(_, t)| t);
            let first = kept.next().unwrap_or_else(|| float(0.0, ty, span));
            kept.fold(first, |a, b| bin(BinOp::Add, a, b))
        };
        let c = |v: f64| float(v, ty, span);
        let mul = |a: Core, b: Core| bin(BinOp::Mul, a, b);
        let div = |a: Core, b: Core| bin(BinOp::Div, a, b);
        let add = |a: Core, b: Core| bin(BinOp::Add, a, b);
        let sub = |a: Core, b: Core| bin(BinOp::Sub, a, b);
        let t = match f {
            // (Slopes with a division are primal values, bound apart as a quotient's are.)
            MathFn::Sqrt => {
                let slope = self.atom(div(c(0.5), value.clone()), lets);
                self.guard(tx, |t| mul(t, slope), lets)
            }
            MathFn::Exp => mul(tx, value.clone()),
            MathFn::Ln => {
                let slope = self.atom(div(c(1.0), x), lets);
                self.guard(tx, |t| mul(t, slope), lets)
            }
            MathFn::Sin => mul(tx, math(MathFn::Cos, vec![x])),
            MathFn::Cos => neg(mul(tx, math(MathFn::Sin, vec![x]))),
            MathFn::Tan => mul(tx, add(c(1.0), mul(value.clone(), value.clone()))),
            MathFn::Tanh => mul(tx, sub(c(1.0), mul(value.clone(), value.clone()))),
            MathFn::Abs => pick(bin(BinOp::Lt, x, c(0.0)), neg(tx.clone()), tx),
            MathFn::Floor | MathFn::Ceil | MathFn::Signum => c(0.0),
            MathFn::Powi => {
                // k x^(k-1) tx, and 0 for k = 0.
                let k = ps[1].clone();
                let zero = Core::size(Size::Lit(0), span);
                let one = Core::size(Size::Lit(1), span);
                let km1 = Core::usize_bin(BinOp::Sub, k.clone(), one, "k - 1", span);
                let kf = Core::new(
                    Kind::Cast(cast_to(ty), Box::new(k.clone())),
                    ty.clone(),
                    span,
                );
                let d = mul(mul(kf, math(MathFn::Powi, vec![x, km1])), tx);
                pick(bin(BinOp::Eq, k, zero), c(0.0), d)
            }
            MathFn::Powf => {
                // y x^(y-1) tx + x^y ln(x) ty, the second term only where ln(x) is real.
                let y = ps[1].clone();
                let ty_ = ts[1].clone();
                let slope = mul(
                    y.clone(),
                    math(MathFn::Powf, vec![x.clone(), sub(y, c(1.0))]),
                );
                let first = self.guard(tx, |t| mul(slope, t), lets);
                let second = pick(
                    bin(BinOp::Gt, x.clone(), c(0.0)),
                    mul(mul(value.clone(), math(MathFn::Ln, vec![x])), ty_),
                    c(0.0),
                );
                terms(vec![(zeros[0], first), (zeros[1], second)])
            }
            MathFn::Min => pick(bin(BinOp::Lt, ps[1].clone(), x), ts[1].clone(), tx),
            MathFn::Max => pick(bin(BinOp::Gt, ps[1].clone(), x), ts[1].clone(), tx),
            MathFn::Clamp => {
                // x.max(lo).min(hi)
                let (lo, hi) = (ps[1].clone(), ps[2].clone());
                let m = self.atom(math(MathFn::Max, vec![x.clone(), lo.clone()]), lets);
                let tm = self.atom(pick(bin(BinOp::Gt, lo, x), ts[1].clone(), tx), lets);
                pick(bin(BinOp::Lt, hi, m), ts[2].clone(), tm)
            }
            MathFn::Atan2 => {
                // y.atan2(x): (x dy - y dx) / (x^2 + y^2), the receiver being y.
                let (y, dy, xx, dx) = (x, tx, ps[1].clone(), ts[1].clone());
                let r2 = self.atom(
                    add(mul(xx.clone(), xx.clone()), mul(y.clone(), y.clone())),
                    lets,
                );
                let r = r2.clone();
                let first = self.guard(dy, |t| div(mul(xx, t), r), lets);
                let second = self.guard(dx, |t| neg(div(mul(y, t), r2)), lets);
                terms(vec![(zeros[0], first), (zeros[1], second)])
            }
            MathFn::Asin => {
                let r = math(MathFn::Sqrt, vec![sub(c(1.0), mul(x.clone(), x))]);
                self.guard(tx, |t| div(t, r), lets)
            }
            MathFn::Acos => {
                let r = math(MathFn::Sqrt, vec![sub(c(1.0), mul(x.clone(), x))]);
                self.guard(tx, |t| neg(div(t, r)), lets)
            }
            MathFn::Atan => div(tx, add(c(1.0), mul(x.clone(), x))),
            MathFn::Sinh => mul(tx, math(MathFn::Cosh, vec![x])),
            MathFn::Cosh => mul(tx, math(MathFn::Sinh, vec![x])),
            MathFn::Hypot => {
                let (yy, ty_) = (ps[1].clone(), ts[1].clone());
                let num = terms(vec![(zeros[0], mul(x, tx)), (zeros[1], mul(yy, ty_))]);
                pick(
                    bin(BinOp::Eq, value.clone(), c(0.0)),
                    c(0.0),
                    div(num, value.clone()),
                )
            }
            MathFn::Cbrt => {
                let v = value.clone();
                self.guard(tx, |t| div(t, mul(c(3.0), mul(v.clone(), v))), lets)
            }
            MathFn::Exp2 => mul(mul(tx, value.clone()), c(std::f64::consts::LN_2)),
            MathFn::Log2 => self.guard(tx, |t| div(t, mul(x, c(std::f64::consts::LN_2))), lets),
            MathFn::Log10 => self.guard(tx, |t| div(t, mul(x, c(std::f64::consts::LN_10))), lets),
            MathFn::MulAdd => terms(vec![
                (zeros[0], mul(tx, ps[1].clone())),
                (zeros[1], mul(x, ts[1].clone())),
                (zeros[2], ts[2].clone()),
            ]),
        };
        (value, t)
    }

    /// An `ifold` (or `scan`) whose state is the pair of the state and its tangent: the
    /// variable bound to it (its type the pair's, or the pair of the arrays of states).
    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        n: Core,
        init: Core,
        acc: VarId,
        i: VarId,
        body: Core,
        scan: bool,
        span: Sp,
        lets: &mut Vec<(VarId, Core)>,
    ) -> Core {
        let init = self.dual(init);
        lets.extend(init.lets);
        let sty = init.primal.ty.clone();
        let state = self.new_var(&self.names[acc as usize].clone());
        let pty = Type::Tuple(vec![sty.clone(), sty.clone()]);
        let dacc = self.new_var(&format!("d{}", self.names[acc as usize]));
        self.tangents.insert(acc, dacc);
        let step = self.dual(body);
        let inner = wrap(step.lets, pair(step.primal, step.tangent));
        let inner = wrap(
            vec![
                (acc, proj(var(state, &pty, span), 0)),
                (dacc, proj(var(state, &pty, span), 1)),
            ],
            inner,
        );
        let start = pair(init.primal, init.tangent);
        let folded = if scan {
            let Some(n) = n.sym.clone() else {
                unreachable!("a scan's count is a size")
            };
            let rty = pty.rows_of(&n);
            Core::new(
                Kind::Scan(n, Box::new(start), state, i, Box::new(inner)),
                rty,
                span,
            )
        } else {
            Core::new(
                Kind::Ifold(Box::new(n), Box::new(start), state, i, Box::new(inner)),
                pty,
                span,
            )
        };
        self.atom(folded, lets)
    }

    /// An `iterate` whose state is the pair of the state and its tangent: the variable
    /// bound to it. The condition reads the primal state only.
    fn iterate(
        &mut self,
        init: Core,
        (s, cond): (VarId, Core),
        (t, next): (VarId, Core),
        span: Sp,
        lets: &mut Vec<(VarId, Core)>,
    ) -> Core {
        let init = self.dual(init);
        lets.extend(init.lets);
        let sty = init.primal.ty.clone();
        let pty = Type::Tuple(vec![sty.clone(), sty]);
        let (cs, ns) = (
            self.new_var(&self.names[s as usize].clone()),
            self.new_var(&self.names[t as usize].clone()),
        );
        let cond = wrap(vec![(s, proj(var(cs, &pty, span), 0))], cond);
        let dt = self.new_var(&format!("d{}", self.names[t as usize]));
        self.tangents.insert(t, dt);
        let step = self.dual(next);
        let inner = wrap(
            vec![
                (t, proj(var(ns, &pty, span), 0)),
                (dt, proj(var(ns, &pty, span), 1)),
            ],
            wrap(step.lets, pair(step.primal, step.tangent)),
        );
        let start = pair(init.primal, init.tangent);
        let it = Core::new(
            Kind::Iterate(Box::new(start), cs, Box::new(cond), ns, Box::new(inner)),
            pty,
            span,
        );
        self.atom(it, lets)
    }
}

/// The cast to a float type.
pub fn cast_to(t: &Type) -> CastTy {
    if t.scalar() == Some(Scalar::F32) {
        CastTy::F32
    } else {
        CastTy::F64
    }
}
