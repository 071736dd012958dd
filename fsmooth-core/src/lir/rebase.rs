//! Rebasing a step's code to a part of a buffer: a chunk of a parallel `build`
//! ([`St::ParRows`]) holds only its own rows, so the slots it addresses move by the chunk's
//! first slot. Renaming a buffer: a fold's small state moved from its output to a local
//! array (`lower/small_states.rs`).

use super::{Base, Ex, St, Wrap, rewrite_ex};

/// Rewrite `sts` so that every access to `base` at slot `k` is at `k - first` (loads, stores,
/// fills, streams, segments, copies). False, and `sts` partly rewritten, when something uses
/// `base` in a way that does not move with its slots (its length), or the code takes memory
/// or checks of its own (a frame, a heap buffer, a length check, another parallel loop).
pub fn rebase(sts: &mut [St], base: &Base, first: &Ex) -> bool {
    let m = Move {
        base,
        first,
        to: base,
    };
    rebase_all(sts, &m)
}

/// Rewrite `sts` so that every access to `base` is to `to` at the same slot. False, and
/// `sts` partly rewritten, when something uses `base` in a way a renamed buffer does not
/// keep (its length), or the code takes a frame, a heap buffer or checks of its own.
pub fn rename(sts: &mut [St], base: &Base, to: &Base) -> bool {
    let m = Move {
        base,
        first: &Ex::Usize(0),
        to,
    };
    rebase_all(sts, &m)
}

/// A rewrite of accesses to `base`: to buffer `to`, each slot `first` lower.
struct Move<'a> {
    base: &'a Base,
    first: &'a Ex,
    to: &'a Base,
}

fn moved(at: &mut Ex, first: &Ex) {
    if matches!(first, Ex::Usize(0)) {
        return;
    }
    let k = std::mem::replace(at, Ex::Usize(0));
    *at = Ex::Wrap(Wrap::Sub, Box::new(k), Box::new(first.clone()));
}

fn rebase_all(sts: &mut [St], m: &Move<'_>) -> bool {
    sts.iter_mut().all(|s| rebase_st(s, m))
}

fn rebase_st(s: &mut St, m: &Move<'_>) -> bool {
    let (base, first) = (m.base, m.first);
    // A buffer renamed is no longer an output: the executor's note that a step replaces
    // its slots unread does not apply to it.
    if m.to != base && matches!(s, St::Restate { base: b, .. } if b == base) {
        *s = St::Block(Vec::new());
        return true;
    }
    let own = |b: &Base| b == base;
    match s {
        St::Let { val, .. }
        | St::Assign(_, val)
        | St::Slot(val)
        | St::SlotAdd(val)
        | St::Put(_, val) => rebase_ex(val, m),
        St::Store(b, at, v) => {
            let ok = rebase_ex(at, m) && rebase_ex(v, m);
            if own(b) {
                moved(at, first);
                *b = m.to.clone();
            }
            ok
        }
        St::StoreRow(b, off, vs) => {
            let ok = rebase_ex(off, m) && vs.iter_mut().all(|v| rebase_ex(v, m));
            if own(b) {
                moved(off, first);
                *b = m.to.clone();
            }
            ok
        }
        St::For {
            n, streams, body, ..
        }
        | St::Lanes {
            n, streams, body, ..
        } => {
            let ok = rebase_ex(n, m);
            let ok = ok
                && streams.iter_mut().all(|st| {
                    let ok = rebase_ex(&mut st.start, m)
                        && st.width.as_mut().is_none_or(|w| rebase_ex(w, m));
                    if own(&st.base) {
                        moved(&mut st.start, first);
                        st.base = m.to.clone();
                    }
                    ok
                });
            ok && rebase_all(body, m)
        }
        St::Fill {
            base: b,
            off,
            n,
            streams,
            body,
            ..
        } => {
            let mut ok = rebase_ex(n, m);
            if let Some(o) = off.as_mut() {
                ok &= rebase_ex(o, m);
            }
            if own(b) {
                let o = off.get_or_insert(Ex::Usize(0));
                moved(o, first);
                *b = m.to.clone();
            }
            ok && streams.iter_mut().all(|st| {
                let ok = rebase_ex(&mut st.start, m)
                    && st.width.as_mut().is_none_or(|w| rebase_ex(w, m));
                if own(&st.base) {
                    moved(&mut st.start, first);
                    st.base = m.to.clone();
                }
                ok
            }) && rebase_all(body, m)
        }
        St::If(c, a, b) => rebase_ex(c, m) && rebase_all(a, m) && rebase_all(b, m),
        St::While(c, b) => rebase_ex(c, m) && rebase_all(b, m),
        St::Segment {
            base: b, off, body, ..
        } => {
            let ok = rebase_ex(off, m);
            if own(b) {
                moved(off, first);
                *b = m.to.clone();
            }
            ok && rebase_all(body, m)
        }
        St::Block(b) => rebase_all(b, m),
        // One offset for every row: it moves only when no row is cut from `base`.
        St::Rows { off, rows, body } => {
            rows.iter().all(|r| !own(&r.base)) && rebase_ex(off, m) && rebase_all(body, m)
        }
        St::Pieces { pieces, body, .. } => {
            pieces.iter_mut().all(|(_, s)| rebase_ex(s, m)) && rebase_all(body, m)
        }
        St::Swap(..) => true,
        St::CheckRange(a, b, c) => rebase_ex(a, m) && rebase_ex(b, m) && rebase_ex(c, m),
        St::Copy {
            dst,
            dst_off,
            src,
            src_off,
            n,
        } => {
            let ok = rebase_ex(dst_off, m) && rebase_ex(src_off, m) && rebase_ex(n, m);
            if own(dst) {
                moved(dst_off, first);
                *dst = m.to.clone();
            }
            if own(src) {
                moved(src_off, first);
                *src = m.to.clone();
            }
            ok
        }
        St::Alloc { off, len, .. } => rebase_ex(off, m) && rebase_ex(len, m),
        St::Restate { base: b, off, n } => {
            let ok = rebase_ex(off, m) && rebase_ex(n, m);
            if own(b) {
                moved(off, first);
                *b = m.to.clone();
            }
            ok
        }
        St::AddWithin {
            base: b,
            dst_off,
            src_off,
            n,
        } => {
            let ok = rebase_ex(dst_off, m) && rebase_ex(src_off, m) && rebase_ex(n, m);
            if own(b) {
                moved(dst_off, first);
                moved(src_off, first);
                *b = m.to.clone();
            }
            ok
        }
        St::Heap { .. }
        | St::Local { .. }
        | St::Frame { .. }
        | St::CheckLen { .. }
        | St::CheckColumn { .. }
        | St::ParSum { .. }
        | St::ParRows { .. } => false,
    }
}

fn rebase_ex(e: &mut Ex, m: &Move<'_>) -> bool {
    let mut ok = true;
    rewrite_ex(e, &mut |x| match x {
        Ex::Ld(b, at) | Ex::LdRow(b, at, ..) if b == m.base => {
            ok &= rebase_ex(at, m);
            moved(at, m.first);
            *b = m.to.clone();
            true
        }
        Ex::Len(b) if b == m.base => {
            ok = false;
            true
        }
        Ex::Block(sts, v) => {
            ok &= rebase_all(sts, m) && rebase_ex(v, m);
            true
        }
        _ => false,
    });
    ok
}
