//! Walking the loop IR: visitors, the questions the translation asks of code (which buffers
//! it reads or writes, whether it is plain, which names it reads, how an index moves with a
//! loop) and rewriting in place.

use super::{Base, Ex, St, Stream, Wrap, wadd};
use proc_macro2::Ident;
use quote::ToTokens;

/// Visit every expression and statement under `sts`, outermost first.
pub fn walk_sts(sts: &[St], f: &mut dyn FnMut(Node<'_>)) {
    for s in sts {
        walk_st(s, f);
    }
}

/// A node met by [`walk_sts`].
#[derive(Clone, Copy)]
pub enum Node<'a> {
    /// A statement.
    St(&'a St),
    /// An expression.
    Ex(&'a Ex),
    /// A stream of a loop.
    Stream(&'a Stream),
}

/// Visit `s` and everything under it.
pub fn walk_st(s: &St, f: &mut dyn FnMut(Node<'_>)) {
    f(Node::St(s));
    match s {
        St::Let { val, .. }
        | St::Assign(_, val)
        | St::Slot(val)
        | St::SlotAdd(val)
        | St::Put(_, val) => walk_ex(val, f),
        St::Store(_, at, v) => {
            walk_ex(at, f);
            walk_ex(v, f);
        }
        St::StoreRow(_, off, vs) => {
            walk_ex(off, f);
            for v in vs {
                walk_ex(v, f);
            }
        }
        St::ParRows {
            n,
            off,
            width,
            body,
            ..
        } => {
            walk_ex(n, f);
            if let Some(o) = off {
                walk_ex(o, f);
            }
            walk_ex(width, f);
            for st in body {
                walk_st(st, f);
            }
        }
        St::ParSum { n, body, .. } => {
            walk_ex(n, f);
            for st in body {
                walk_st(st, f);
            }
        }
        St::For {
            n, streams, body, ..
        }
        | St::Lanes {
            n, streams, body, ..
        }
        | St::Fill {
            n, streams, body, ..
        } => {
            if let St::Fill { off: Some(o), .. } = s {
                walk_ex(o, f);
            }
            walk_ex(n, f);
            for st in streams {
                f(Node::Stream(st));
                walk_ex(&st.start, f);
                if let Some(w) = &st.width {
                    walk_ex(w, f);
                }
            }
            walk_sts(body, f);
        }
        St::If(c, a, b) => {
            walk_ex(c, f);
            walk_sts(a, f);
            walk_sts(b, f);
        }
        St::While(c, b) => {
            walk_ex(c, f);
            walk_sts(b, f);
        }
        St::Block(b) => walk_sts(b, f),
        St::Pieces { pieces, body, .. } => {
            for (_, start) in pieces {
                walk_ex(start, f);
            }
            walk_sts(body, f);
        }
        St::Rows { off, body, .. } => {
            walk_ex(off, f);
            walk_sts(body, f);
        }
        St::Segment { off, body, .. } => {
            walk_ex(off, f);
            walk_sts(body, f);
        }
        St::CheckRange(a, b, c) => {
            walk_ex(a, f);
            walk_ex(b, f);
            walk_ex(c, f);
        }
        St::Copy {
            dst_off,
            src_off,
            n,
            ..
        }
        | St::AddWithin {
            dst_off,
            src_off,
            n,
            ..
        } => {
            walk_ex(dst_off, f);
            walk_ex(src_off, f);
            walk_ex(n, f);
        }
        St::Alloc { off, len, .. } | St::Restate { off, n: len, .. } => {
            walk_ex(off, f);
            walk_ex(len, f);
        }
        St::CheckLen { want, .. } | St::Heap { len: want, .. } => walk_ex(want, f),
        St::CheckColumn {
            at, stride, len, ..
        } => {
            walk_ex(at, f);
            walk_ex(stride, f);
            walk_ex(len, f);
        }
        St::Frame { len, parts, .. } => {
            if let Some(l) = len {
                walk_ex(l, f);
            }
            for p in parts.iter().flat_map(|p| p.iter().flatten()) {
                walk_ex(p, f);
            }
        }
        St::Swap(..) | St::Local { .. } => {}
    }
}

/// Visit `e` and everything under it.
pub fn walk_ex(e: &Ex, f: &mut dyn FnMut(Node<'_>)) {
    f(Node::Ex(e));
    match e {
        Ex::Bin(_, a, b) | Ex::Checked(_, a, b, _) | Ex::Wrap(_, a, b) | Ex::Check(a, b) => {
            walk_ex(a, f);
            walk_ex(b, f);
        }
        Ex::Neg(a)
        | Ex::Not(a)
        | Ex::ToF64(a)
        | Ex::ToF32(a)
        | Ex::IndexTo(_, a)
        | Ex::ToUsize(a)
        | Ex::Ld(_, a)
        | Ex::LdRow(_, a, ..) => walk_ex(a, f),
        Ex::Math(_, xs) | Ex::Entry(_, xs) | Ex::Fused(xs) | Ex::Tuple(xs) => {
            xs.iter().for_each(|x| walk_ex(x, f))
        }
        Ex::Block(st, v) => {
            walk_sts(st, f);
            walk_ex(v, f);
        }
        Ex::If(c, a, b) => {
            walk_ex(c, f);
            walk_ex(a, f);
            walk_ex(b, f);
        }
        _ => {}
    }
}

/// True when node `n` reads or writes buffer `b`.
pub(super) fn node_uses(n: Node<'_>, b: &Base) -> bool {
    match n {
        Node::Ex(Ex::Ld(x, _) | Ex::LdRow(x, ..) | Ex::Len(x))
        | Node::Stream(Stream { base: x, .. }) => x == b,
        Node::St(
            St::Store(x, ..)
            | St::StoreRow(x, ..)
            | St::Segment { base: x, .. }
            | St::Fill { base: x, .. }
            | St::CheckLen { base: x, .. }
            | St::CheckColumn { base: x, .. }
            | St::AddWithin { base: x, .. },
        ) => x == b,
        Node::St(St::Copy { dst, src, .. }) => dst == b || src == b,
        Node::St(St::Rows { rows, .. }) => rows.iter().any(|r| r.base == *b),
        _ => false,
    }
}

/// True when node `n` writes buffer `b`.
fn node_writes(n: Node<'_>, b: &Base) -> bool {
    matches!(n, Node::St(St::Store(x, ..) | St::StoreRow(x, ..) | St::Fill { base: x, .. } | St::Copy { dst: x, .. } | St::AddWithin { base: x, .. } | St::ParRows { base: x, .. }) if x == b)
        || matches!(n, Node::St(St::Rows { rows, .. }) if rows.iter().any(|r| r.mutable && r.base == *b))
}

/// True when anything under `sts` reads or writes buffer `b`.
pub fn uses(sts: &[St], b: &Base) -> bool {
    let mut hit = false;
    walk_sts(sts, &mut |n| hit |= node_uses(n, b));
    hit
}

/// True when anything in `e` reads or writes buffer `b`.
pub fn uses_ex(e: &Ex, b: &Base) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| hit |= node_uses(n, b));
    hit
}

/// True when anything under `sts` writes buffer `b`.
pub fn writes(sts: &[St], b: &Base) -> bool {
    let mut hit = false;
    walk_sts(sts, &mut |n| hit |= node_writes(n, b));
    hit
}

/// True when anything in `e` (a block's statements) writes buffer `b`.
pub fn writes_ex(e: &Ex, b: &Base) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| hit |= node_writes(n, b));
    hit
}

/// True when node `n` is plain: it cannot fail and writes nothing but locals.
fn node_plain(n: Node<'_>) -> bool {
    match n {
        Node::Ex(e) => !matches!(
            e,
            Ex::Checked(..) | Ex::Check(..) | Ex::Entry(..) | Ex::Internal(_)
        ),
        Node::St(s) => matches!(
            s,
            St::Let { .. }
                | St::Assign(..)
                | St::For { .. }
                | St::Lanes { .. }
                | St::If(..)
                | St::Block(_)
                | St::Segment { .. }
        ),
        Node::Stream(_) => true,
    }
}

/// True when everything under `sts` is plain: arithmetic on locals and loads, in local
/// loops, with no check that can fail and no write to a buffer (code that may be reordered).
pub fn plain(sts: &[St]) -> bool {
    let mut ok = true;
    walk_sts(sts, &mut |n| ok &= node_plain(n));
    ok
}

/// [`plain`] for an expression.
pub fn plain_ex(e: &Ex) -> bool {
    let mut ok = true;
    walk_ex(e, &mut |n| ok &= node_plain(n));
    ok
}

/// `at` as `x + var` with `x` free of `var`: `Some(Some(x))`, or `Some(None)` for `var`
/// alone; `None` when `at` moves by other than one slot per step of `var` (`var * m + l`).
pub fn unit_offset(at: &Ex, var: &Ident) -> Option<Option<Ex>> {
    let free = |x: &Ex| !idents(x).contains(var);
    match at {
        Ex::Var(v) if v == var => Some(None),
        Ex::Wrap(Wrap::Add, a, b) => {
            let side = |u: &Ex, x: &Ex| {
                if !free(x) {
                    return None;
                }
                Some(Some(match unit_offset(u, var)? {
                    Some(o) => wadd(o, x.clone()),
                    None => x.clone(),
                }))
            };
            side(a, b).or_else(|| side(b, a))
        }
        _ => None,
    }
}

/// True when `e` loads at an index that moves by other than one slot per step of `var`
/// (`w[var * m + l]`): a loop over `var` around `e` would read down a column.
pub fn strided_in(e: &Ex, var: &Ident) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| {
        if let Node::Ex(Ex::Ld(_, at) | Ex::LdRow(_, at, ..)) = n {
            hit |= idents(at).contains(var) && unit_offset(at, var).is_none();
        }
    });
    hit
}

/// Every identifier `e` names (locals, size names, parameters, stream elements).
pub fn idents(e: &Ex) -> Vec<Ident> {
    let mut out = Vec::new();
    walk_ex(e, &mut |n| match n {
        Node::Ex(Ex::Var(id) | Ex::Elem(id)) => out.push(id.clone()),
        Node::Ex(
            Ex::Ld(Base::Param(id), _) | Ex::LdRow(Base::Param(id), ..) | Ex::Len(Base::Param(id)),
        ) => out.push(id.clone()),
        _ => {}
    });
    out
}

/// Rewrite every expression under `sts`, outermost first: `f` replaces a node and returns
/// true, or returns false to look inside it.
pub fn rewrite_sts(sts: &mut [St], f: &mut dyn FnMut(&mut Ex) -> bool) {
    for s in sts {
        rewrite_st(s, f);
    }
}

fn rewrite_st(s: &mut St, f: &mut dyn FnMut(&mut Ex) -> bool) {
    for e in own_exprs(s) {
        rewrite_ex(e, f);
    }
    match s {
        St::For { streams, body, .. }
        | St::Lanes { streams, body, .. }
        | St::Fill { streams, body, .. } => {
            streams
                .iter_mut()
                .for_each(|st| rewrite_ex(&mut st.start, f));
            rewrite_sts(body, f);
        }
        St::If(_, a, b) => {
            rewrite_sts(a, f);
            rewrite_sts(b, f);
        }
        St::While(_, b) => rewrite_sts(b, f),
        St::Block(b)
        | St::Segment { body: b, .. }
        | St::Pieces { body: b, .. }
        | St::Rows { body: b, .. }
        | St::ParSum { body: b, .. }
        | St::ParRows { body: b, .. } => rewrite_sts(b, f),
        _ => {}
    }
}

/// [`rewrite_sts`] for one expression.
pub fn rewrite_ex(e: &mut Ex, f: &mut dyn FnMut(&mut Ex) -> bool) {
    if f(e) {
        return;
    }
    match e {
        Ex::Block(st, v) => {
            rewrite_sts(st, f);
            rewrite_ex(v, f);
        }
        Ex::If(c, a, b) => {
            rewrite_ex(c, f);
            rewrite_ex(a, f);
            rewrite_ex(b, f);
        }
        _ => operands_mut(e).into_iter().for_each(|x| rewrite_ex(x, f)),
    }
}

/// The operands of an operator, a call or a load, in order (none for a block, an `if` or a
/// leaf).
pub(super) fn operands_mut(e: &mut Ex) -> Vec<&mut Ex> {
    match e {
        Ex::Bin(_, a, b) | Ex::Checked(_, a, b, _) | Ex::Wrap(_, a, b) | Ex::Check(a, b) => {
            vec![a, b]
        }
        Ex::Neg(a)
        | Ex::Not(a)
        | Ex::ToF64(a)
        | Ex::ToF32(a)
        | Ex::IndexTo(_, a)
        | Ex::ToUsize(a)
        | Ex::Ld(_, a)
        | Ex::LdRow(_, a, ..) => vec![a],
        Ex::Math(_, xs) | Ex::Entry(_, xs) | Ex::Fused(xs) | Ex::Tuple(xs) => {
            xs.iter_mut().collect()
        }
        _ => Vec::new(),
    }
}

/// The statement lists directly inside `s` (a loop's body, a block, an `if`'s branches),
/// those of parallel loops excepted (their chunks run in copies of the frame).
pub(super) fn bodies_mut(s: &mut St) -> Vec<&mut Vec<St>> {
    match s {
        St::For { body, .. }
        | St::Fill { body, .. }
        | St::Lanes { body, .. }
        | St::Block(body)
        | St::Segment { body, .. }
        | St::Pieces { body, .. }
        | St::Rows { body, .. } => vec![body],
        St::If(_, a, b) => vec![a, b],
        St::While(_, b) => vec![b],
        _ => Vec::new(),
    }
}

/// Replace every `Ex::Elem(elem)` under `sts` by `with`.
pub fn replace_elem(sts: &mut [St], elem: &Ident, with: &Ex) {
    rewrite_sts(sts, &mut |e| elem_to(e, elem, with));
}

fn elem_to(e: &mut Ex, elem: &Ident, with: &Ex) -> bool {
    let hit = matches!(e, Ex::Elem(x) if x == elem);
    if hit {
        *e = with.clone();
    }
    hit
}

/// Replace every `Ex::Elem(elem)` under `e` by `with`.
pub fn replace_ex(e: &mut Ex, elem: &Ident, with: &Ex) {
    rewrite_ex(e, &mut |x| elem_to(x, elem, with));
}

/// The expressions `s` holds itself, not those of the statements in its body (nor its
/// streams' starts).
pub(super) fn own_exprs(s: &mut St) -> Vec<&mut Ex> {
    match s {
        St::Let { val, .. }
        | St::Assign(_, val)
        | St::Slot(val)
        | St::SlotAdd(val)
        | St::Put(_, val) => {
            vec![val]
        }
        St::Store(_, at, v) => vec![at, v],
        St::StoreRow(_, off, vs) => std::iter::once(off).chain(vs.iter_mut()).collect(),
        St::For { n, .. } | St::Lanes { n, .. } | St::ParSum { n, .. } => vec![n],
        St::ParRows { n, off, width, .. } => off.iter_mut().chain([n, width]).collect(),
        St::Fill { off, n, .. } => off.iter_mut().chain(std::iter::once(n)).collect(),
        St::If(c, ..) | St::While(c, _) => vec![c],
        St::Segment { off, .. } => vec![off],
        St::CheckRange(a, b, c) => vec![a, b, c],
        St::Copy {
            dst_off,
            src_off,
            n,
            ..
        }
        | St::AddWithin {
            dst_off,
            src_off,
            n,
            ..
        } => vec![dst_off, src_off, n],
        St::Alloc { off, len, .. } | St::Restate { off, n: len, .. } => vec![off, len],
        St::CheckLen { want, .. } | St::Heap { len: want, .. } => vec![want],
        St::CheckColumn {
            at, stride, len, ..
        } => vec![at, stride, len],
        St::Frame { len, parts, .. } => len
            .iter_mut()
            .chain(parts.iter_mut().flat_map(|p| p.iter_mut().flatten()))
            .collect(),
        St::Pieces { pieces, .. } => pieces.iter_mut().map(|(_, start)| start).collect(),
        St::Rows { off, .. } => vec![off],
        St::Block(_) | St::Swap(..) | St::Local { .. } => Vec::new(),
    }
}

/// True when `s` (or a statement inside it) assigns one of `names`.
pub(super) fn assigns(s: &St, names: &[Ident]) -> bool {
    let mut hit = false;
    walk_st(s, &mut |n| {
        hit |= matches!(n, Node::St(St::Assign(a, _)) if names.contains(a))
            || matches!(n, Node::St(St::Swap(a, b)) if names.contains(a) || names.contains(b));
    });
    hit
}

/// True when `a` and `b` print the same: equal expressions (every identifier is bound once
/// in a scope, so the same text names the same values).
pub fn same(a: &Ex, b: &Ex) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// Drop each `let` of a block expression under `sts` that nothing after it in the block
/// reads and whose value cannot fail: a peeled step's index (`let i = j + 1`) once every
/// read of it has become a stream, so that the loop runs over its slices alone.
pub fn drop_unread_lets(sts: &mut [St]) {
    rewrite_sts(sts, &mut drop_unread);
}

/// [`drop_unread_lets`] for an expression.
pub fn drop_unread_lets_ex(e: &mut Ex) {
    rewrite_ex(e, &mut drop_unread);
}

fn drop_unread(e: &mut Ex) -> bool {
    {
        if let Ex::Block(b, v) = e {
            let mut k = b.len();
            while k > 0 {
                k -= 1;
                // Named nowhere after it, by any token (an assignment, a swap, a stream's
                // start): the printed rest is the test.
                let unread = match &b[k] {
                    St::Let { id, val, .. } if plain_ex(val) => {
                        let rest = &b[k + 1..];
                        let name = id.to_string();
                        let text = quote::quote!(#(#rest)* #v).to_string();
                        !text
                            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .any(|t| t == name)
                    }
                    _ => false,
                };
                if unread {
                    b.remove(k);
                }
            }
        }
        false
    }
}

/// True when local `var` is read anywhere under `sts`.
pub fn mentions_var(sts: &[St], var: &Ident) -> bool {
    let mut hit = false;
    walk_sts(sts, &mut |n| {
        if let Node::Ex(Ex::Var(v)) = n {
            hit |= v == var;
        }
    });
    hit
}

/// True when `sts`, run to its end, reads stream `elem` (its element, or a load from its
/// row) whatever the values: outside the arms of an `if`, the right side of `&&`/`||`, and
/// the bodies of loops (which may take no step). A stream's start is computed before its
/// loop; one that can fail (a row index checked against its count) may only move there
/// when every step reads the stream.
pub fn read_every_step(sts: &[St], elem: &Ident) -> bool {
    sts.iter().any(|s| st_reads_always(s, elem))
}

/// [`read_every_step`] for a loop body that is one expression.
pub fn read_every_step_ex(e: &Ex, elem: &Ident) -> bool {
    ex_reads_always(e, elem)
}

fn st_reads_always(s: &St, elem: &Ident) -> bool {
    let ex = |e: &Ex| ex_reads_always(e, elem);
    match s {
        St::Let { val, .. }
        | St::Assign(_, val)
        | St::Slot(val)
        | St::SlotAdd(val)
        | St::Put(_, val) => ex(val),
        St::Store(_, at, v) => ex(at) || ex(v),
        St::StoreRow(_, off, vs) => ex(off) || vs.iter().any(ex),
        // The count and the streams' cuts are evaluated before the first step.
        St::For { n, streams, .. } | St::Lanes { n, streams, .. } | St::Fill { n, streams, .. } => {
            let off = match s {
                St::Fill { off: Some(o), .. } => ex(o),
                _ => false,
            };
            off || ex(n)
                || streams
                    .iter()
                    .any(|st| matches!(&st.base, Base::Row(x) if x == elem) || ex(&st.start))
        }
        St::If(c, ..) | St::While(c, _) => ex(c),
        St::Block(b) => read_every_step(b, elem),
        St::Segment { off, body, .. } => ex(off) || read_every_step(body, elem),
        St::CheckRange(a, b, c) => ex(a) || ex(b) || ex(c),
        _ => false,
    }
}

fn ex_reads_always(e: &Ex, elem: &Ident) -> bool {
    let ex = |x: &Ex| ex_reads_always(x, elem);
    match e {
        Ex::Elem(x) => x == elem,
        Ex::Ld(b, a) | Ex::LdRow(b, a, ..) => matches!(b, Base::Row(x) if x == elem) || ex(a),
        Ex::If(c, ..) => ex(c),
        Ex::Bin(crate::front::ast::BinOp::And | crate::front::ast::BinOp::Or, a, _) => ex(a),
        Ex::Bin(_, a, b) | Ex::Checked(_, a, b, _) | Ex::Wrap(_, a, b) | Ex::Check(a, b) => {
            ex(a) || ex(b)
        }
        Ex::Neg(a)
        | Ex::Not(a)
        | Ex::ToF64(a)
        | Ex::ToF32(a)
        | Ex::IndexTo(_, a)
        | Ex::ToUsize(a) => ex(a),
        Ex::Math(_, xs) | Ex::Entry(_, xs) | Ex::Fused(xs) | Ex::Tuple(xs) => xs.iter().any(ex),
        Ex::Block(sts, v) => read_every_step(sts, elem) || ex(v),
        _ => false,
    }
}
