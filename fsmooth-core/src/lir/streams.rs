//! The pass over translated loops that reads rows and prefixes of slices as streams
//! ([`row_streams`]): loop IR to loop IR.

use super::{
    Base, Ex, Node, St, Stream, Wrap, idents, read_every_step, rewrite_ex, rewrite_sts, same, uses,
    visit::{own_exprs, walk_ex, walk_st},
    walk_sts, wmul, writes,
};
use crate::front::ast::BinOp;
use proc_macro2::Ident;
use quote::format_ident;

/// Row streams: an inner loop's stream that starts at `c + l * w`, for the index `l` of an
/// enclosing loop, the inner loop's own count `w` and an offset `c` (often 0) fixed during
/// the loop, reads row `l` of the rows of width `w` from `c`. The enclosing loop takes those
/// rows one after the other (one cut before it, then one length test per row rather than an
/// offset range check), and the inner loop streams from its current row. The buffer must
/// not be written inside the enclosing loop, which now holds it borrowed. Every loop is
/// visited, those inside expressions too, and each also gives its inner loops the
/// prefixes of its slices that they read (`prefixes`).
pub fn row_streams(sts: &mut [St]) {
    for s in sts {
        row_streams_st(s);
    }
}

/// [`row_streams`] for the loops inside a scalar expression: a fold's loop, a scalar
/// kernel's result.
pub fn row_streams_ex(e: &mut Ex) {
    blocks_in(e, &mut |sts| row_streams(sts));
}

/// Call `f` on the statements of every block in `e` that no other block in `e` holds (each
/// outermost one; `f` sees to the blocks inside it).
pub(super) fn blocks_in(e: &mut Ex, f: &mut dyn FnMut(&mut Vec<St>)) {
    rewrite_ex(e, &mut |x| match x {
        Ex::Block(sts, v) => {
            f(sts);
            blocks_in(v, f);
            true
        }
        _ => false,
    });
}

fn row_streams_st(s: &mut St) {
    // Loops in the statement's own expressions (a fold's loop in a `let`'s value).
    for e in own_exprs(s) {
        row_streams_ex(e);
    }
    let (var, n, streams, body, fill) = match s {
        St::For {
            var,
            n,
            streams,
            body,
        } => (var, &*n, streams, body, None),
        St::Fill {
            base,
            var,
            n,
            streams,
            body,
            ..
        } => (var, &*n, streams, body, Some(base)),
        St::If(_, a, b) => {
            row_streams(a);
            row_streams(b);
            return;
        }
        St::While(_, b) => {
            row_streams(b);
            return;
        }
        // A sum in lanes takes element streams only (its chunks are cut from them).
        St::Block(b)
        | St::Segment { body: b, .. }
        | St::Pieces { body: b, .. }
        | St::Rows { body: b, .. }
        | St::Lanes { body: b, .. }
        | St::ParSum { body: b, .. }
        | St::ParRows { body: b, .. } => {
            row_streams(b);
            return;
        }
        _ => return,
    };
    row_streams(body);
    // A row stream's width and offset are evaluated before the loop, so they must not name
    // anything the loop binds or assigns.
    let inside = bound_in(var, body);
    let outside = |e: &Ex| idents(e).iter().all(|i| !inside.contains(i));
    // The buffers read as rows of this loop: the base, the rows' width and first offset.
    let mut rows: Vec<(Base, Ex, Ex)> = Vec::new();
    walk_sts(body, &mut |n| {
        let (St::For { n: w, streams, .. } | St::Fill { n: w, streams, .. }) = (match n {
            Node::St(st) => st,
            _ => return,
        }) else {
            return;
        };
        for st in streams {
            if st.width.is_none()
                && !matches!(st.base, Base::Row(_))
                && !rows.iter().any(|(b, ..)| *b == st.base)
                && outside(w)
                && let Some(c) = row_offset(&st.start, var, w)
                && outside(&c)
            {
                rows.push((st.base.clone(), w.clone(), c));
            }
        }
    });
    // A row read only on some steps (under an `if`) says nothing of the rows the others
    // would read: the buffer may hold fewer rows than the loop has steps, and taking them
    // one per step would end the loop early.
    let sometimes = read_under_a_branch(body);
    rows.retain(|(b, ..)| fill.as_deref() != Some(b) && !writes(body, b) && !sometimes.contains(b));
    for (base, width, c) in rows {
        let elem = format_ident!("__r{}_{}", var.to_string(), streams.len());
        for_each_stream(body, &mut |n, st| {
            if st.width.is_none()
                && st.base == base
                && same(n, &width)
                && row_offset(&st.start, var, n).is_some_and(|o| same(&o, &c))
            {
                st.base = Base::Row(elem.clone());
                st.start = Ex::Usize(0);
            }
        });
        streams.push(Stream {
            base,
            start: c,
            elem,
            width: Some(width),
        });
    }
    // A loop of a literal count LLVM writes out, its row loads then at fixed offsets from
    // one place, whose checks it merges (a Jacobian's 15 columns read back as rows: 5% more
    // instructions as a stream).
    if !matches!(n, Ex::Usize(_)) {
        row_loads(var, fill.as_deref(), streams, body);
    }
    prefixes(var, streams, body);
}

/// Row loads taken along the loop: the loads `ldr::<w>(b, c + l * w, k)` of the loop of
/// index `l`, for a literal width `w` and an offset `c` fixed during the loop, read row `l`
/// of the rows of width `w` from `c`, each with a range check of its own (a bone's 4 x 4
/// transform of the frame, `transforms[k]`, in the hand model's skinning). They become one
/// row stream: one cut before the loop, the rows then taken one after the other as arrays.
/// Only when the body reads the row at every step (every row the loop takes was then
/// proven in range, so the buffer holds a row for each step) and does not write the
/// buffer, which the loop holds borrowed. Only rows of the frame: an argument's or an
/// output's length is checked at entry, which lets LLVM drop the row's check already, and
/// a stream beside the loop's index costs a second counter (`pts[i]` in a scatter: one
/// instruction a step more).
fn row_loads(var: &Ident, fill: Option<&Base>, streams: &mut Vec<Stream>, body: &mut Vec<St>) {
    let inside = bound_in(var, body);
    let outside = |e: &Ex| idents(e).iter().all(|i| !inside.contains(i));
    let mut found: Vec<(Base, usize, Ex)> = Vec::new();
    walk_sts(body, &mut |n| {
        if let Node::Ex(Ex::LdRow(b, off, w, ..)) = n
            && fill != Some(b)
            && matches!(b, Base::Scratch(_))
            && let Some(c) = row_offset(off, var, &Ex::Usize(*w))
            && outside(&c)
            && !found
                .iter()
                .any(|(b2, w2, c2)| b2 == b && w2 == w && same(c2, &c))
        {
            found.push((b.clone(), *w, c));
        }
    });
    for (base, w, c) in found {
        if writes(body, &base) {
            continue;
        }
        let elem = format_ident!("__r{}_{}", var.to_string(), streams.len());
        let before = body.clone();
        rewrite_sts(body, &mut |e| {
            let Ex::LdRow(b, off, w2, k, _) = e else {
                return false;
            };
            if *b != base
                || *w2 != w
                || !row_offset(off, var, &Ex::Usize(w)).is_some_and(|o| same(&o, &c))
            {
                return false;
            }
            *e = Ex::Ld(Base::Row(elem.clone()), Box::new(Ex::Usize(*k)));
            true
        });
        if !read_every_step(body, &elem) {
            *body = before;
            continue;
        }
        streams.push(Stream {
            base,
            start: c,
            elem,
            width: Some(Ex::Usize(w)),
        });
    }
}

/// The buffers that streams of loops under a branch of `body` read (an `if`'s arms, the
/// right side of `&&` and `||`).
fn read_under_a_branch(body: &[St]) -> Vec<Base> {
    let mut out: Vec<Base> = Vec::new();
    walk_sts(body, &mut |n| {
        let mut under = |n: Node<'_>| {
            if let Node::Stream(st) = n
                && !out.contains(&st.base)
            {
                out.push(st.base.clone());
            }
        };
        match n {
            Node::St(St::If(_, a, b)) => {
                for s in a.iter().chain(b) {
                    walk_st(s, &mut under);
                }
            }
            // A loop that stops runs its step any number of times, maybe none.
            Node::St(St::While(c, b)) => {
                walk_ex(c, &mut under);
                for s in b {
                    walk_st(s, &mut under);
                }
            }
            Node::Ex(Ex::If(_, a, b)) => {
                walk_ex(a, &mut under);
                walk_ex(b, &mut under);
            }
            Node::Ex(Ex::Bin(BinOp::And | BinOp::Or, _, b)) => walk_ex(b, &mut under),
            _ => {}
        }
    });
    out
}

/// The names a loop of index `var` binds or assigns in `body`: its index, the names the
/// body declares ([`declared_in`]), and assigned locals.
pub(super) fn bound_in(var: &Ident, body: &[St]) -> Vec<Ident> {
    let mut inside: Vec<Ident> = vec![var.clone()];
    inside.extend(declared_in(body));
    walk_sts(body, &mut |n| {
        if let Node::St(St::Assign(id, _)) = n {
            inside.push(id.clone());
        }
    });
    inside
}

/// The names `body` declares, once per declaration: its locals, inner loops' indexes and
/// stream elements.
pub(super) fn declared_in(body: &[St]) -> Vec<Ident> {
    let mut declared = Vec::new();
    walk_sts(body, &mut |n| match n {
        Node::St(St::Let { id, .. } | St::Segment { id, .. }) => declared.push(id.clone()),
        Node::St(
            St::For { var, .. }
            | St::Lanes { var, .. }
            | St::Fill { var, .. }
            | St::ParSum { var, .. }
            | St::ParRows { var, .. },
        ) => declared.push(var.clone()),
        Node::Stream(st) => declared.push(st.elem.clone()),
        _ => {}
    });
    declared
}

/// The name a loop gives the whole slice of its stream `elem` (a stream's slice is
/// otherwise shadowed by its element), when an inner loop reads a prefix of it.
pub fn whole_of(elem: &Ident) -> Ident {
    format_ident!("{}_all", elem)
}

/// The name of stream `s`'s whole slice when the loop's `body` reads a prefix of it
/// ([`whole_of`]): the printer binds the slice under it, the executor binds it too.
pub fn whole_read(s: &Stream, body: &[St]) -> Option<Ident> {
    let all = whole_of(&s.elem);
    (s.width.is_none() && uses(body, &Base::Row(all.clone()))).then_some(all)
}

/// Prefix streams: an inner loop whose count is `j`, the index of this loop, and whose
/// stream starts where a stream of this loop starts, reads the first `j` elements of that
/// stream's slice (`j` is below this loop's count, the slice's length). It cuts them from
/// that slice (`whole_of`), a cut LLVM proves in range, where cutting the buffer again
/// tests the range once per `j` (a packed triangle's `xc[..j]`, GMM). The start must mean
/// the same inside the loop: nothing in the body binds or assigns a name it reads.
fn prefixes(var: &Ident, streams: &[Stream], body: &mut [St]) {
    let inside = bound_in(var, body);
    for s in streams.iter().filter(|s| s.width.is_none()) {
        if writes(body, &s.base) || idents(&s.start).iter().any(|i| inside.contains(i)) {
            continue;
        }
        let whole = Base::Row(whole_of(&s.elem));
        for_each_stream(body, &mut |n, st| {
            if st.width.is_none()
                && matches!(n, Ex::Var(v) if v == var)
                && st.base == s.base
                && same(&st.start, &s.start)
            {
                st.base = whole.clone();
                st.start = Ex::Usize(0);
            }
        });
    }
}

/// `c` when `start` is `l * w`, `c + l * w` or `l * w + c` with `c` free of `l`.
fn row_offset(start: &Ex, l: &Ident, w: &Ex) -> Option<Ex> {
    let row = wmul(Ex::Var(l.clone()), w.clone());
    let free = |e: &Ex| !idents(e).contains(l);
    if same(start, &row) {
        return Some(Ex::Usize(0));
    }
    match start {
        Ex::Wrap(Wrap::Add, a, b) if same(a, &row) && free(b) => Some((**b).clone()),
        Ex::Wrap(Wrap::Add, a, b) if same(b, &row) && free(a) => Some((**a).clone()),
        // `(l + k) * w` for a constant k: row l from row k.
        Ex::Wrap(Wrap::Mul, lk, w2) if same(w2, w) => match &**lk {
            Ex::Wrap(Wrap::Add, x, k) if same(x, &Ex::Var(l.clone())) => match **k {
                Ex::Usize(k) => Some(wmul(Ex::Usize(k), w.clone())),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// Every stream of every loop under `sts`, with that loop's count.
pub(super) fn for_each_stream(sts: &mut [St], f: &mut dyn FnMut(&Ex, &mut Stream)) {
    for s in sts {
        for e in own_exprs(s) {
            blocks_in(e, &mut |b| for_each_stream(b, f));
        }
        match s {
            St::For {
                n, streams, body, ..
            }
            | St::Lanes {
                n, streams, body, ..
            }
            | St::Fill {
                n, streams, body, ..
            } => {
                for st in streams.iter_mut() {
                    f(n, st);
                }
                for_each_stream(body, f);
            }
            St::If(_, a, b) => {
                for_each_stream(a, f);
                for_each_stream(b, f);
            }
            St::While(_, b) => for_each_stream(b, f),
            St::Block(b)
            | St::Segment { body: b, .. }
            | St::Pieces { body: b, .. }
            | St::Rows { body: b, .. }
            | St::ParSum { body: b, .. }
            | St::ParRows { body: b, .. } => for_each_stream(b, f),
            _ => {}
        }
    }
}
