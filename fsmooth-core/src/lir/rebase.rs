//! Rebasing a step's code to a part of a buffer: a chunk of a parallel `build`
//! ([`St::ParRows`]) holds only its own rows, so the slots it addresses move by the chunk's
//! first slot.

use super::{Base, Ex, St, Wrap, rewrite_ex};

/// Rewrite `sts` so that every access to `base` at slot `k` is at `k - first` (loads, stores,
/// fills, streams, segments, copies). False, and `sts` partly rewritten, when something uses
/// `base` in a way that does not move with its slots (its length), or the code takes memory
/// or checks of its own (a frame, a heap buffer, a length check, another parallel loop).
pub fn rebase(sts: &mut [St], base: &Base, first: &Ex) -> bool {
    sts.iter_mut().all(|s| rebase_st(s, base, first))
}

fn moved(at: &mut Ex, first: &Ex) {
    let k = std::mem::replace(at, Ex::Usize(0));
    *at = Ex::Wrap(Wrap::Sub, Box::new(k), Box::new(first.clone()));
}

fn rebase_st(s: &mut St, base: &Base, first: &Ex) -> bool {
    let own = |b: &Base| b == base;
    match s {
        St::Let { val, .. }
        | St::Assign(_, val)
        | St::Slot(val)
        | St::SlotAdd(val)
        | St::Put(_, val) => rebase_ex(val, base, first),
        St::Store(b, at, v) => {
            let ok = rebase_ex(at, base, first) && rebase_ex(v, base, first);
            if own(b) {
                moved(at, first);
            }
            ok
        }
        St::StoreRow(b, off, vs) => {
            let ok =
                rebase_ex(off, base, first) && vs.iter_mut().all(|v| rebase_ex(v, base, first));
            if own(b) {
                moved(off, first);
            }
            ok
        }
        St::For {
            n, streams, body, ..
        }
        | St::Lanes {
            n, streams, body, ..
        } => {
            let ok = rebase_ex(n, base, first);
            let ok = ok
                && streams.iter_mut().all(|st| {
                    let ok = rebase_ex(&mut st.start, base, first)
                        && st.width.as_mut().is_none_or(|w| rebase_ex(w, base, first));
                    if own(&st.base) {
                        moved(&mut st.start, first);
                    }
                    ok
                });
            ok && rebase(body, base, first)
        }
        St::Fill {
            base: b,
            off,
            n,
            streams,
            body,
            ..
        } => {
            let mut ok = rebase_ex(n, base, first);
            if let Some(o) = off.as_mut() {
                ok &= rebase_ex(o, base, first);
            }
            if own(b) {
                let o = off.get_or_insert(Ex::Usize(0));
                moved(o, first);
            }
            ok && streams.iter_mut().all(|st| {
                let ok = rebase_ex(&mut st.start, base, first)
                    && st.width.as_mut().is_none_or(|w| rebase_ex(w, base, first));
                if own(&st.base) {
                    moved(&mut st.start, first);
                }
                ok
            }) && rebase(body, base, first)
        }
        St::If(c, a, b) => {
            rebase_ex(c, base, first) && rebase(a, base, first) && rebase(b, base, first)
        }
        St::While(c, b) => rebase_ex(c, base, first) && rebase(b, base, first),
        St::Segment {
            base: b, off, body, ..
        } => {
            let ok = rebase_ex(off, base, first);
            if own(b) {
                moved(off, first);
            }
            ok && rebase(body, base, first)
        }
        St::Block(b) => rebase(b, base, first),
        // One offset for every row: it moves only when no row is cut from `base`.
        St::Rows { off, rows, body } => {
            rows.iter().all(|r| !own(&r.base))
                && rebase_ex(off, base, first)
                && rebase(body, base, first)
        }
        St::Pieces { pieces, body, .. } => {
            pieces.iter_mut().all(|(_, s)| rebase_ex(s, base, first)) && rebase(body, base, first)
        }
        St::Swap(..) => true,
        St::CheckRange(a, b, c) => {
            rebase_ex(a, base, first) && rebase_ex(b, base, first) && rebase_ex(c, base, first)
        }
        St::Copy {
            dst,
            dst_off,
            src,
            src_off,
            n,
        } => {
            let ok = rebase_ex(dst_off, base, first)
                && rebase_ex(src_off, base, first)
                && rebase_ex(n, base, first);
            if own(dst) {
                moved(dst_off, first);
            }
            if own(src) {
                moved(src_off, first);
            }
            ok
        }
        St::Alloc { off, len, .. } => rebase_ex(off, base, first) && rebase_ex(len, base, first),
        St::Restate { base: b, off, n } => {
            let ok = rebase_ex(off, base, first) && rebase_ex(n, base, first);
            if own(b) {
                moved(off, first);
            }
            ok
        }
        St::AddWithin {
            base: b,
            dst_off,
            src_off,
            n,
        } => {
            let ok = rebase_ex(dst_off, base, first)
                && rebase_ex(src_off, base, first)
                && rebase_ex(n, base, first);
            if own(b) {
                moved(dst_off, first);
                moved(src_off, first);
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

fn rebase_ex(e: &mut Ex, base: &Base, first: &Ex) -> bool {
    let mut ok = true;
    rewrite_ex(e, &mut |x| match x {
        Ex::Ld(b, at) | Ex::LdRow(b, at, ..) if b == base => {
            ok &= rebase_ex(at, base, first);
            moved(at, first);
            true
        }
        Ex::Len(b) if b == base => {
            ok = false;
            true
        }
        Ex::Block(sts, v) => {
            ok &= rebase(sts, base, first) && rebase_ex(v, base, first);
            true
        }
        _ => false,
    });
    ok
}
