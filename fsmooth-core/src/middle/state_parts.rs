//! A fold's array state made of parts that the step reads apart and computes apart is the
//! fold of the tuple of its parts (scalar replacement of an aggregate, as [`crate::middle::tuples`]
//! does for tuples): one form for `[[f64; 16]; 2]` or `[f32; 16]` states and the tuple
//! spelling `([f64; 16], [f64; 16])`, whose components the lowering updates in place or keeps
//! in locals.
//!
//! - [`rows`]: a state of a few literal rows, read at literal rows, replaced by an array
//!   literal.
//! - [`pieces`]: a state replaced by a `concat` of pieces of literal lengths, each read of it
//!   (an element or a slice) proven inside one piece over the ranges of the loops around it.

use crate::front::ast::Sp;
use crate::front::size::{Size, names_nonneg};
use crate::middle::ir::{Core, Kind, Type, VarId, fresh, new_var, subst_loop};
use std::collections::HashMap;

/// The most rows a fold's state is taken apart into by [`rows`].
const STATE_ROWS_MAX: u64 = 8;

/// `ifold(c, init, |s, i| .. [e0, e1])` whose state `s: [T; L]` (`L` a literal, 2 to
/// `STATE_ROWS_MAX`, 8) is read only at literal rows (`s[0][j]`, `s[1]`) and replaced by an
/// array literal (in every branch) is the fold of the tuple of its rows:
/// `{ let t = ifold(c, (init[0], init[1]), |t, i| .. (e0', e1')); [t.0, t.1] }` with `s[r]`
/// read as `t.r`. The tuple-state spelling and this one are then one form, and each row is
/// a state of its own, which the lowering updates in place or keeps in locals (Welford's
/// mean and M2 as one `[[f64; 16]; 2]` was double-buffered through the frame, 2.0x the
/// tuple spelling). True when it applied.
pub fn rows(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Ifold(_, _, acc, _, body) = &e.kind else {
        return false;
    };
    let Some(rows) =
        e.ty.dims()
            .first()
            .and_then(Size::as_const)
            .filter(|l| (2..=STATE_ROWS_MAX).contains(l))
    else {
        return false;
    };
    let (acc, rows) = (*acc, rows as usize);
    if !literal_rows_only(body, acc, rows) || !rows_tail(body, rows) {
        return false;
    }
    let (ty, span) = (e.ty.clone(), e.span);
    let Kind::Ifold(count, init, _, i, mut body) = e.take().kind else {
        return false;
    };
    let row_ty = ty.elem();
    let tuple_ty = Type::Tuple(vec![row_ty.clone(); rows]);
    let t = new_var(names, acc);
    read_rows(&mut body, acc, t, &tuple_ty);
    tail_to_tuple(&mut body, &tuple_ty);
    let mut binds = Vec::new();
    let inits = init_rows(*init, rows, &row_ty, acc, names, &mut binds);
    let parts = fold_of_parts(
        count,
        inits,
        t,
        i,
        body,
        (&tuple_ty, span),
        acc,
        names,
        &mut binds,
    );
    *e = crate::middle::anf::wrap(binds, Core::new(Kind::Array(parts), ty, span));
    true
}

/// The fold `ifold(count, (inits..), |t, i| body)` of the tuple of a state's parts, bound
/// by a `let` pushed on `binds`: the reads of its components, in order ([`rows`] and
/// [`pieces`] put them back together as an array literal or a `concat`).
#[allow(clippy::too_many_arguments)]
fn fold_of_parts(
    count: Box<Core>,
    inits: Vec<Core>,
    t: VarId,
    i: VarId,
    body: Box<Core>,
    (tuple_ty, span): (&Type, Sp),
    like: VarId,
    names: &mut Vec<String>,
    binds: &mut Vec<(VarId, Core)>,
) -> Vec<Core> {
    let init = Core::new(Kind::Tuple(inits), tuple_ty.clone(), span);
    let fold = Core::new(
        Kind::Ifold(count, Box::new(init), t, i, body),
        tuple_ty.clone(),
        span,
    );
    let whole = new_var(names, like);
    binds.push((whole, fold));
    (0..tuple_ty.parts().len())
        .map(|p| {
            let var = Core::new(Kind::Var(whole), tuple_ty.clone(), span);
            Core::new(
                Kind::Proj(Box::new(var), p),
                tuple_ty.parts()[p].clone(),
                span,
            )
        })
        .collect()
}

/// True when every read of `acc` in `e` is of a literal row below `rows`.
fn literal_rows_only(e: &Core, acc: VarId, rows: usize) -> bool {
    match &e.kind {
        Kind::Index(a, k) if matches!(a.kind, Kind::Var(v) if v == acc) => k
            .sym
            .as_ref()
            .and_then(Size::as_const)
            .is_some_and(|r| r < rows as u64),
        Kind::Var(v) => *v != acc,
        _ => e.children().all(|c| literal_rows_only(c, acc, rows)),
    }
}

/// True when `e`'s value is an array literal of `rows` items at the end of every `let`
/// chain and branch.
fn rows_tail(e: &Core, rows: usize) -> bool {
    match &e.kind {
        Kind::Let(_, _, b) => rows_tail(b, rows),
        Kind::If(_, a, b) => rows_tail(a, rows) && rows_tail(b, rows),
        Kind::Array(xs) => xs.len() == rows,
        _ => false,
    }
}

/// Every `acc[r]` in `e` read as `t.r`.
fn read_rows(e: &mut Core, acc: VarId, t: VarId, tuple_ty: &Type) {
    if let Kind::Index(a, k) = &e.kind
        && matches!(a.kind, Kind::Var(v) if v == acc)
        && let Some(r) = k.sym.as_ref().and_then(Size::as_const)
    {
        let var = Core::new(Kind::Var(t), tuple_ty.clone(), a.span);
        e.kind = Kind::Proj(Box::new(var), r as usize);
        return;
    }
    for c in e.children_mut() {
        read_rows(c, acc, t, tuple_ty);
    }
}

/// The array literals ([`rows_tail`]) or `concat`s ([`concat_tail`]) that `e` gives made
/// tuples of their items or parts, the `let`s and `if`s around them retyped.
fn tail_to_tuple(e: &mut Core, ty: &Type) {
    e.ty = ty.clone();
    e.sym = None;
    match &mut e.kind {
        Kind::Let(_, _, b) => tail_to_tuple(b, ty),
        Kind::If(_, a, b) => {
            tail_to_tuple(a, ty);
            tail_to_tuple(b, ty);
        }
        Kind::Array(xs) => e.kind = Kind::Tuple(std::mem::take(xs)),
        Kind::Concat(..) => {
            let mut leaves = Vec::new();
            concat_to_tuple_leaves(e.take(), &mut leaves);
            e.kind = Kind::Tuple(leaves);
            e.ty = ty.clone();
        }
        _ => {}
    }
}

/// The rows of a fold's initial state: an array literal's items, a `build`'s body at each
/// row (a copy with its own binders), a variable's rows, or the rows of a `let`-bound value
/// (`binds` gets the `let`).
fn init_rows(
    init: Core,
    rows: usize,
    row_ty: &Type,
    like: VarId,
    names: &mut Vec<String>,
    binds: &mut Vec<(VarId, Core)>,
) -> Vec<Core> {
    let span = init.span;
    match init.kind {
        Kind::Array(xs) if xs.len() == rows => xs,
        Kind::Build(_, v, body) => (0..rows)
            .map(|r| {
                let mut row = fresh((*body).clone(), names);
                row.subst(v, &Core::size(Size::Lit(r as u64), span));
                row
            })
            .collect(),
        Kind::Var(v) => row_reads(v, &init.ty, rows, row_ty, span),
        _ => {
            let v = new_var(names, like);
            let ty = init.ty.clone();
            binds.push((v, init));
            row_reads(v, &ty, rows, row_ty, span)
        }
    }
}

/// `v[0], .., v[rows - 1]`.
fn row_reads(v: VarId, ty: &Type, rows: usize, row_ty: &Type, span: Sp) -> Vec<Core> {
    (0..rows)
        .map(|r| {
            let var = Core::new(Kind::Var(v), ty.clone(), span);
            let at = Core::size(Size::Lit(r as u64), span);
            Core::new(
                Kind::Index(Box::new(var), Box::new(at)),
                row_ty.clone(),
                span,
            )
        })
        .collect()
}

/// The longest state [`pieces`] takes apart.
const PIECES_MAX_LEN: u64 = 64;

/// `ifold(c, init, |s, i| .. concat(a, b))` whose state `s: [T; L]` (`L` a literal) is
/// replaced by a `concat` of pieces of literal lengths (the same in every branch), and every
/// read of which (`s[k]`, `s[k + 8]`, `s[0..8]`) lies inside one piece for every value of the
/// loop indexes around it, is the fold of the tuple of its pieces, each read at its place in
/// its piece: Goertzel's `[f32; 16]` state `concat(new s1, s[0..8])` is the tuple spelling
/// `(new s1, s1)`. True when it applied.
pub fn pieces(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Ifold(count, _, acc, i, body) = &e.kind else {
        return false;
    };
    if e.ty
        .dims()
        .first()
        .and_then(Size::as_const)
        .is_none_or(|l| l > PIECES_MAX_LEN)
    {
        return false;
    }
    let Some(bounds) = concat_tail(body) else {
        return false;
    };
    if bounds.len() < 3 || e.ty.dims()[0].as_const() != bounds.last().copied() {
        return false;
    }
    let (acc, i) = (*acc, *i);
    let mut loops = HashMap::new();
    if let Some(c) = &count.sym {
        loops.insert(i, c.clone());
    }
    let (ty, span) = (e.ty.clone(), e.span);
    let piece_ty = |p: usize| match &ty {
        Type::Arr(s, d) => {
            let mut d = d.clone();
            d[0] = Size::Lit(bounds[p + 1] - bounds[p]);
            Type::Arr(*s, d)
        }
        t => t.clone(),
    };
    let parts: Vec<Type> = (0..bounds.len() - 1).map(piece_ty).collect();
    let tuple_ty = Type::Tuple(parts.clone());
    let t = new_var(names, acc);
    let mut reads = Reads {
        acc,
        t,
        bounds: &bounds,
        tuple_ty: &tuple_ty,
        loops,
    };
    let mut new_body = (**body).clone();
    if !reads.rewrite(&mut new_body) {
        return false;
    }
    tail_to_tuple(&mut new_body, &tuple_ty);
    let Kind::Ifold(count, init, _, i, _) = e.take().kind else {
        return false;
    };
    let mut binds = Vec::new();
    let inits = init_pieces(*init, &bounds, &parts, acc, names, &mut binds);
    let body = Box::new(new_body);
    let mut reads = fold_of_parts(
        count,
        inits,
        t,
        i,
        body,
        (&tuple_ty, span),
        acc,
        names,
        &mut binds,
    )
    .into_iter();
    let Some(mut out) = reads.next() else {
        return false;
    };
    for (p, part) in reads.enumerate() {
        let mut dims = ty.dims().to_vec();
        dims[0] = Size::Lit(bounds[p + 2]);
        let joined = Type::Arr(ty.scalar().unwrap_or(crate::middle::ir::Scalar::F64), dims);
        out = Core::new(Kind::Concat(Box::new(out), Box::new(part)), joined, span);
    }
    *e = crate::middle::anf::wrap(binds, out);
    true
}

/// The piece boundaries (`0`, each piece's end) of the `concat` of pieces of literal lengths
/// that `e` gives at the end of every `let` chain and branch, the same in all.
fn concat_tail(e: &Core) -> Option<Vec<u64>> {
    match &e.kind {
        Kind::Let(_, _, b) => concat_tail(b),
        Kind::If(_, a, b) => {
            let x = concat_tail(a)?;
            (concat_tail(b)? == x).then_some(x)
        }
        Kind::Concat(..) => {
            let mut leaves = Vec::new();
            concat_leaves(e, &mut leaves);
            let mut bounds = vec![0];
            for l in leaves {
                let len = l.ty.dims().first().and_then(Size::as_const)?;
                bounds.push(bounds.last()? + len);
            }
            Some(bounds)
        }
        _ => None,
    }
}

/// The parts of a tree of `concat`s, in order.
fn concat_leaves<'a>(e: &'a Core, out: &mut Vec<&'a Core>) {
    match &e.kind {
        Kind::Concat(a, b) => {
            concat_leaves(a, out);
            concat_leaves(b, out);
        }
        _ => out.push(e),
    }
}

/// The reads of a state being taken apart into pieces, rewritten as reads of its pieces.
struct Reads<'a> {
    acc: VarId,
    t: VarId,
    bounds: &'a [u64],
    tuple_ty: &'a Type,
    /// The trip counts of the loops around the read being rewritten.
    loops: HashMap<VarId, Size>,
}

impl Reads<'_> {
    /// Rewrite every read of the state in `e`; false when one is not inside one piece.
    fn rewrite(&mut self, e: &mut Core) -> bool {
        let span = e.span;
        match &mut e.kind {
            Kind::Var(v) => *v != self.acc,
            Kind::Index(a, k) if matches!(a.kind, Kind::Var(v) if v == self.acc) => {
                let Some(p) = self.piece(&k.sym, 1) else {
                    return false;
                };
                if !self.rewrite(k) {
                    return false;
                }
                **a = self.part(p, span);
                self.shift(k, p);
                true
            }
            Kind::Slice(a, lo) if matches!(a.kind, Kind::Var(v) if v == self.acc) => {
                let Some(width) = e.ty.dims().first().and_then(Size::as_const) else {
                    return false;
                };
                let Some(p) = self.piece(&lo.sym, width) else {
                    return false;
                };
                if !self.rewrite(lo) {
                    return false;
                }
                let whole = lo.sym.as_ref().and_then(Size::as_const) == Some(self.bounds[p])
                    && width == self.bounds[p + 1] - self.bounds[p];
                if whole {
                    *e = self.part(p, span);
                } else {
                    **a = self.part(p, span);
                    self.shift(lo, p);
                }
                true
            }
            Kind::Build(n, v, b) => {
                let (n, v) = (n.clone(), *v);
                self.within(v, Some(n), |r| r.rewrite(b))
            }
            Kind::Ifold(c, init, _, v, b) => {
                let (n, v) = (c.sym.clone(), *v);
                self.rewrite(c) && self.rewrite(init) && self.within(v, n, |r| r.rewrite(b))
            }
            Kind::Scan(n, init, _, v, b) => {
                let (n, v) = (n.clone(), *v);
                self.rewrite(init) && self.within(v, Some(n), |r| r.rewrite(b))
            }
            _ => e.children_mut().all(|c| self.rewrite(c)),
        }
    }

    /// `f` with loop index `v` known to run over `0..n` (unknown: any natural).
    fn within(&mut self, v: VarId, n: Option<Size>, f: impl FnOnce(&mut Self) -> bool) -> bool {
        if let Some(n) = n {
            self.loops.insert(v, n);
        }
        let ok = f(self);
        self.loops.remove(&v);
        ok
    }

    /// Piece `p` of the state, read through the tuple.
    fn part(&self, p: usize, span: Sp) -> Core {
        let var = Core::new(Kind::Var(self.t), self.tuple_ty.clone(), span);
        let ty = self.tuple_ty.parts()[p].clone();
        Core::new(Kind::Proj(Box::new(var), p), ty, span)
    }

    /// An index into the state made the index into piece `p`.
    fn shift(&self, k: &mut Box<Core>, p: usize) {
        let lo = self.bounds[p];
        if lo == 0 {
            return;
        }
        let span = k.span;
        let at = Core::size(Size::Lit(lo), span);
        **k = Core::usize_bin(
            crate::front::ast::BinOp::Sub,
            k.take(),
            at,
            "piece index",
            span,
        );
    }

    /// The piece that holds `width` elements from index `at` wherever it is read: `at - lo`
    /// and `hi - width - at` non-negative for every value of the loop indexes (each index
    /// of a loop here in `0..n`, any other any natural number).
    fn piece(&self, at: &Option<Size>, width: u64) -> Option<usize> {
        let at = at.as_ref()?;
        let mut vars = Vec::new();
        at.loops(&mut vars);
        let (mut low, mut high) = (at.clone(), at.clone());
        for v in vars {
            let free = Size::Name(format!("__piece{v}"));
            low = subst_loop(&low, v, &free);
            let top = match self.loops.get(&v) {
                Some(n) => Size::minus(Size::minus(n.clone(), Size::Lit(1)), free.clone()),
                None => free,
            };
            high = subst_loop(&high, v, &top);
        }
        (0..self.bounds.len() - 1).find(|&p| {
            let (lo, hi) = (self.bounds[p], self.bounds[p + 1]);
            hi >= lo + width
                && names_nonneg(&Size::minus(low.clone(), Size::Lit(lo)))
                && names_nonneg(&Size::minus(Size::Lit(hi - width), high.clone()))
        })
    }
}

/// The pieces of a fold's initial state: a `concat` of the same pieces' parts, a `build`'s
/// body over each piece (a copy with its own binders), slices of a variable, or slices of a
/// `let`-bound value (`binds` gets the `let`).
fn init_pieces(
    init: Core,
    bounds: &[u64],
    parts: &[Type],
    like: VarId,
    names: &mut Vec<String>,
    binds: &mut Vec<(VarId, Core)>,
) -> Vec<Core> {
    let span = init.span;
    if concat_tail(&init).as_deref() == Some(bounds) && matches!(init.kind, Kind::Concat(..)) {
        let mut leaves = Vec::new();
        concat_to_tuple_leaves(init, &mut leaves);
        return leaves;
    }
    let var = match init.kind {
        Kind::Build(_, v, body) => {
            return parts
                .iter()
                .enumerate()
                .map(|(p, ty)| {
                    let j = new_var(names, v);
                    let mut at = Core::index_var(j, span);
                    if bounds[p] > 0 {
                        let lo = Core::size(Size::Lit(bounds[p]), span);
                        at = Core::usize_bin(crate::front::ast::BinOp::Add, at, lo, "piece", span);
                    }
                    let mut elem = fresh((*body).clone(), names);
                    elem.subst(v, &at);
                    let n = ty.dims()[0].clone();
                    Core::new(Kind::Build(n, j, Box::new(elem)), ty.clone(), span)
                })
                .collect();
        }
        Kind::Var(v) => (v, init.ty.clone()),
        _ => {
            let v = new_var(names, like);
            let ty = init.ty.clone();
            binds.push((v, init));
            (v, ty)
        }
    };
    parts
        .iter()
        .enumerate()
        .map(|(p, ty)| {
            let whole = Core::new(Kind::Var(var.0), var.1.clone(), span);
            let lo = Core::size(Size::Lit(bounds[p]), span);
            Core::new(Kind::Slice(Box::new(whole), Box::new(lo)), ty.clone(), span)
        })
        .collect()
}

/// The parts of a tree of `concat`s, moved out.
fn concat_to_tuple_leaves(e: Core, out: &mut Vec<Core>) {
    match e.kind {
        Kind::Concat(a, b) => {
            concat_to_tuple_leaves(*a, out);
            concat_to_tuple_leaves(*b, out);
        }
        _ => out.push(e),
    }
}
