//! Deterministic parallel sums (the `parallel` feature): the steps of a loop are cut into
//! chunks of a fixed number of steps (the compiler's, passed by the generated code), whatever
//! the number of threads; each chunk sums its terms in
//! order, and the chunks' sums are added in a fixed binary tree over the chunk numbers. So a
//! result depends on the count alone, never on the thread count or on which thread ran
//! which chunk. Each chunk runs in a frame of its own: a copy of the caller's frame (which
//! holds the values computed before the loop) in memory kept per thread and reused, so a warm
//! call allocates nothing beyond what rayon does.

use crate::Error;
use core::cell::RefCell;
use core::ops::Add;
use std::vec::Vec;

std::thread_local! {
    /// This thread's frame for the chunks it runs.
    static FRAME: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// The sum of `leaf(lo, hi, frame)` over the chunks `lo..hi` of `0..n` (`chunk` steps each,
/// the last one shorter), added in a fixed
/// tree: chunks `a..b` are the sum of `a..mid` and `mid..b`, `mid` their midpoint. `frame`
/// is copied into the frame each chunk runs in. The first error in the order of the chunks
/// (the one the loop run in order would meet first) is the result when any chunk fails.
pub fn par_sum<T, F>(n: usize, chunk: usize, frame: &[f64], leaf: F) -> Result<T, Error>
where
    T: Copy + Send + Add<Output = T>,
    F: Fn(usize, usize, &mut [f64]) -> Result<T, Error> + Sync,
{
    let chunk = chunk.max(1);
    let cut = Cut { n, chunk };
    tree(0, n.div_ceil(chunk).max(1), cut, frame, &leaf)
}

/// How the steps are cut: `n` steps, `chunk` per chunk.
#[derive(Clone, Copy)]
struct Cut {
    n: usize,
    chunk: usize,
}

fn tree<T, F>(a: usize, b: usize, cut: Cut, frame: &[f64], leaf: &F) -> Result<T, Error>
where
    T: Copy + Send + Add<Output = T>,
    F: Fn(usize, usize, &mut [f64]) -> Result<T, Error> + Sync,
{
    if b - a <= 1 {
        let lo = a.saturating_mul(cut.chunk).min(cut.n);
        let hi = b.saturating_mul(cut.chunk).min(cut.n);
        return in_frame(frame, |own| leaf(lo, hi, own));
    }
    let mid = a + (b - a) / 2;
    let (left, right) = rayon::join(
        || tree(a, mid, cut, frame, leaf),
        || tree(mid, b, cut, frame, leaf),
    );
    Ok(left? + right?)
}

/// Run `leaf(lo, hi, rows, frame)` for the chunks `lo..hi` of `0..n` (`chunk` steps each),
/// `rows` the part of `dest` that steps `lo..hi` write (`width` elements per step; `dest`
/// holds all `n * width`), each chunk in a copy of `frame`. The steps write disjoint rows, so
/// the result does not depend on the order they run in. The first error in the order of the
/// chunks is the result when any chunk fails (chunks after it may have written their rows).
pub fn par_rows<T, F>(
    n: usize,
    chunk: usize,
    width: usize,
    dest: &mut [T],
    frame: &[f64],
    leaf: F,
) -> Result<(), Error>
where
    T: Send,
    F: Fn(usize, usize, &mut [T], &mut [f64]) -> Result<(), Error> + Sync,
{
    let cut = Cut {
        n,
        chunk: chunk.max(1),
    };
    rows_tree(
        0,
        n.div_ceil(cut.chunk).max(1),
        cut,
        width,
        dest,
        frame,
        &leaf,
    )
}

fn rows_tree<T, F>(
    a: usize,
    b: usize,
    cut: Cut,
    width: usize,
    rows: &mut [T],
    frame: &[f64],
    leaf: &F,
) -> Result<(), Error>
where
    T: Send,
    F: Fn(usize, usize, &mut [T], &mut [f64]) -> Result<(), Error> + Sync,
{
    let step = |c: usize| c.saturating_mul(cut.chunk).min(cut.n);
    if b - a <= 1 {
        return in_frame(frame, |own| leaf(step(a), step(b), rows, own));
    }
    let mid = a + (b - a) / 2;
    let at = (step(mid) - step(a)).saturating_mul(width);
    let len = rows.len();
    let (left, right) = rows
        .split_at_mut_checked(at)
        .ok_or(Error::Index { index: at, len })?;
    let (x, y) = rayon::join(
        || rows_tree(a, mid, cut, width, left, frame, leaf),
        || rows_tree(mid, b, cut, width, right, frame, leaf),
    );
    x.and(y)
}

/// `f` on a copy of `frame` in this thread's memory (a fresh one should the thread's be in
/// use, which a chunk never leaves it: chunks do not wait on other tasks).
fn in_frame<T>(frame: &[f64], f: impl FnOnce(&mut [f64]) -> T) -> T {
    FRAME.with(|cell| match cell.try_borrow_mut() {
        Ok(mut own) => {
            own.clear();
            own.extend_from_slice(frame);
            f(&mut own)
        }
        Err(_) => f(&mut frame.to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHUNK: usize = 1024;

    fn sum_in(pool: usize, n: usize) -> f64 {
        let terms: Vec<f64> = (0..n).map(|i| 1.0 / (1.0 + i as f64)).collect();
        rayon::ThreadPoolBuilder::new()
            .num_threads(pool)
            .build()
            .unwrap()
            .install(|| {
                par_sum(n, CHUNK, &[2.0], |lo, hi, frame| {
                    let mut s = -0.0;
                    for t in &terms[lo..hi] {
                        s += t * frame[0];
                    }
                    Ok(s)
                })
                .unwrap()
            })
    }

    #[test]
    fn a_sum_is_the_same_on_any_number_of_threads() {
        let n = 10 * CHUNK + 17;
        let one = sum_in(1, n);
        for threads in [2, 3, 8] {
            assert_eq!(
                sum_in(threads, n).to_bits(),
                one.to_bits(),
                "{threads} threads"
            );
        }
        // The chunks' sums in their tree, by hand: the same additions.
        let terms: Vec<f64> = (0..n).map(|i| 2.0 / (1.0 + i as f64)).collect();
        fn by_hand(terms: &[f64], a: usize, b: usize) -> f64 {
            if b - a == 1 {
                let hi = (b * CHUNK).min(terms.len());
                return terms[a * CHUNK..hi].iter().fold(-0.0, |s, t| s + t);
            }
            let mid = a + (b - a) / 2;
            by_hand(terms, a, mid) + by_hand(terms, mid, b)
        }
        assert_eq!(
            one.to_bits(),
            by_hand(&terms, 0, n.div_ceil(CHUNK)).to_bits()
        );
    }

    #[test]
    fn rows_are_cut_along_the_chunks() {
        let (n, width) = (3 * CHUNK + 5, 2);
        let mut dest = std::vec![0.0; n * width];
        par_rows(
            n,
            CHUNK,
            width,
            &mut dest,
            &[10.0],
            |lo, hi, rows, frame| {
                assert_eq!(rows.len(), (hi - lo) * width);
                for (k, row) in rows.chunks_mut(width).enumerate() {
                    row[0] = (lo + k) as f64;
                    row[1] = frame[0];
                }
                Ok(())
            },
        )
        .unwrap();
        for (i, row) in dest.chunks(width).enumerate() {
            assert_eq!(row, [i as f64, 10.0]);
        }
    }

    #[test]
    fn the_first_error_in_order_is_the_result() {
        let got = par_sum(5 * CHUNK, CHUNK, &[], |lo, _, _| {
            if lo >= 2 * CHUNK {
                Err(Error::Index { index: lo, len: 0 })
            } else {
                Ok(1.0)
            }
        });
        assert_eq!(
            got,
            Err(Error::Index {
                index: 2 * CHUNK,
                len: 0
            })
        );
    }
}
