//! Helpers called by generated code. Not a stable API.
//!
//! Every access here is panic-free: loads and stores the compiler proved in bounds go through
//! `ld`/`st`, whose out-of-range arm is unreachable and folds away where LLVM can see it;
//! accesses it could not prove go through the `*_checked` forms, which return `Err`.
//!
//! Buffers hold `f64`, `f32` or `usize` ([`Elem`]); the math (`math.rs`) is generic over the
//! float types ([`Float`]), so an `f32` kernel computes in `f32` throughout.

use crate::Error;

mod frame;
mod math;
mod math32;
#[cfg(feature = "parallel")]
mod parallel;
pub use frame::*;
pub use math::*;
#[cfg(feature = "parallel")]
pub use parallel::*;

mod sealed {
    /// Only the runtime's element types.
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
    impl Sealed for usize {}
}

/// What a buffer holds: `f64`, `f32` or `usize` (LANGUAGE.md sections 10 and 11).
pub trait Elem: Copy + Default + PartialOrd + sealed::Sealed {
    /// Zero, usable in constants.
    const ZERO: Self;
}
impl Elem for f64 {
    const ZERO: f64 = 0.0;
}
impl Elem for f32 {
    const ZERO: f32 = 0.0;
}
impl Elem for usize {
    const ZERO: usize = 0;
}

/// Load a proven-in-bounds element.
#[inline(always)]
pub fn ld<T: Elem>(s: &[T], i: usize) -> T {
    match s.get(i) {
        Some(v) => *v,
        None => T::ZERO,
    }
}

/// [`ldr_of`] on an `f64` buffer: the form generated `f64` code calls (`ldr::<N>`), whose
/// one generic argument the call spells out.
#[inline(always)]
pub fn ldr<const N: usize>(s: &[f64], off: usize, k: usize) -> f64 {
    ldr_of::<N, f64>(s, off, k)
}

/// Element `k` of the row `s[off..off + N]`, both proven in bounds: every load of one row
/// makes the same range check, so LLVM keeps only the first.
#[inline(always)]
pub fn ldr_of<const N: usize, T: Elem>(s: &[T], off: usize, k: usize) -> T {
    // A choice of row, not of value: the same choice for every load of the row, which
    // LLVM computes once.
    let row: &[T; N] = match s
        .get(off..off.wrapping_add(N))
        .and_then(|r| <&[T; N]>::try_from(r).ok())
    {
        Some(r) => r,
        None => &const { [T::ZERO; N] },
    };
    match row.get(k) {
        Some(v) => *v,
        None => T::ZERO,
    }
}

/// [`ldr_row_of`] on an `f64` buffer (`ldr_row::<N>`), as [`ldr`] is [`ldr_of`]'s.
#[inline(always)]
pub fn ldr_row<const N: usize>(s: &[f64], r: usize, k: usize) -> f64 {
    ldr_row_of::<N, f64>(s, r, k)
}

/// Element `k` of row `r` of `s` taken as rows of `N` (`N > 0`), both proven in bounds: the
/// row at offset `r * N` that [`ldr_of`] reads, with one comparison of `r` against the number
/// of rows (computed once per buffer) where an offset needs its multiplication, an overflow
/// test and a comparison of its end.
#[inline(always)]
pub fn ldr_row_of<const N: usize, T: Elem>(s: &[T], r: usize, k: usize) -> T {
    let row: &[T; N] = match s.as_chunks::<N>().0.get(r) {
        Some(row) => row,
        None => &const { [T::ZERO; N] },
    };
    match row.get(k) {
        Some(v) => *v,
        None => T::ZERO,
    }
}

/// The rows of width `w` of `s`, one after the other: a loop's row stream. Each step is one
/// length test (a `get` of row `l` would also compute and test its offset). Rows of width 0
/// never end; the loops that take them have another part of their length.
#[inline(always)]
pub fn rows<T: Elem>(s: &[T], w: usize) -> Rows<'_, T> {
    Rows { rest: s, w }
}

/// The rows of literal width `N` of `s`, one after the other, as arrays: a loop's row
/// stream of a width known when the kernel is compiled. A slice iterator, so zipped with the
/// loop's range it is one counter and no test per row, and each element load is at a
/// constant offset into an array of known length.
#[inline(always)]
pub fn rows_of<T, const N: usize>(s: &[T]) -> core::slice::Iter<'_, [T; N]> {
    s.as_chunks::<N>().0.iter()
}

/// [`rows_of`] for writing: the rows of literal width `N` of an output the loop stores, as
/// `&mut` arrays (each store at a constant place, no range test).
#[inline(always)]
pub fn rows_of_mut<T, const N: usize>(s: &mut [T]) -> core::slice::IterMut<'_, [T; N]> {
    s.as_chunks_mut::<N>().0.iter_mut()
}

/// The iterator of [`rows`].
pub struct Rows<'a, T> {
    rest: &'a [T],
    w: usize,
}

impl<'a, T> Iterator for Rows<'a, T> {
    type Item = &'a [T];

    #[inline(always)]
    fn next(&mut self) -> Option<&'a [T]> {
        let (row, rest) = self.rest.split_at_checked(self.w)?;
        self.rest = rest;
        Some(row)
    }
}

/// Store to a proven-in-bounds element.
#[inline(always)]
pub fn st<T: Elem>(s: &mut [T], i: usize, v: T) {
    if let Some(d) = s.get_mut(i) {
        *d = v;
    }
}

/// `s[dst + j] += s[src + j]` for `j` in `0..n`, in order (LIR `St::AddWithin`). Two
/// ranges in bounds that do not overlap are added as two slices, which vectorises; otherwise
/// element by element with [`ld`] and [`st`], which is what the loop as written does.
#[inline(always)]
pub fn add_within<T: Elem + core::ops::Add<Output = T>>(
    s: &mut [T],
    dst: usize,
    src: usize,
    n: usize,
) {
    let (lo, hi) = if dst < src { (dst, src) } else { (src, dst) };
    if lo.checked_add(n).is_some_and(|end| end <= hi) && hi <= s.len() {
        let (low, high) = s.split_at_mut(hi);
        if let (Some(low), Some(high)) = (low.get_mut(lo..lo + n), high.get_mut(..n)) {
            let (d, from) = if dst < src { (low, high) } else { (high, low) };
            for (x, y) in d.iter_mut().zip(from.iter()) {
                *x = *x + *y;
            }
            return;
        }
    }
    for j in 0..n {
        let v = ld(s, dst.wrapping_add(j)) + ld(s, src.wrapping_add(j));
        st(s, dst.wrapping_add(j), v);
    }
}

/// The frame's part `s` cut into `N` pieces around a loop (LIR `St::Pieces`): piece `k` is
/// `s[starts[k]..starts[k + 1]]`, the last `s[starts[N - 1]..]`, each a `&mut` slice of its
/// own. `None` unless the starts are ascending and in `s` (the compiler proves they are: they
/// are the first slots of frame allocations live together, in the order they were made).
#[inline(always)]
pub fn pieces<T, const N: usize>(s: &mut [T], starts: [usize; N]) -> Option<[&mut [T]; N]> {
    let (_, mut rest) = s.split_at_mut_checked(*starts.first()?)?;
    let mut out: [&mut [T]; N] = core::array::from_fn(|_| <&mut [T]>::default());
    // No `enumerate` and no `k + 1`: both are checked for overflow in a build with
    // `overflow-checks = true`, a panic path the firmware's link rejects.
    let nexts = starts
        .iter()
        .skip(1)
        .map(Some)
        .chain(core::iter::once(None));
    for ((piece, &start), next) in out.iter_mut().zip(starts.iter()).zip(nexts) {
        let len = match next {
            Some(&next) => next.checked_sub(start)?,
            None => rest.len(),
        };
        let (this, tail) = core::mem::take(&mut rest).split_at_mut_checked(len)?;
        *piece = this;
        rest = tail;
    }
    Some(out)
}

/// The length of rows cut at `off` from buffers of lengths `lens` (LIR `St::Rows`): the
/// least of `len - off`, 0 where `off` is past a buffer's end.
#[inline(always)]
pub fn common_len<const N: usize>(off: usize, lens: [usize; N]) -> usize {
    lens.iter()
        .map(|l| l.saturating_sub(off))
        .min()
        .unwrap_or(0)
}

/// `s[o..o + len]` with `o` the least of `off` and `s.len()`, for a `len` from
/// [`common_len`] (so always `Some`, of length `len`).
#[inline(always)]
pub fn row_at<T>(s: &[T], off: usize, len: usize) -> Option<&[T]> {
    let o = off.min(s.len());
    s.get(o..o.wrapping_add(len))
}

/// [`row_at`] of a buffer the code writes.
#[inline(always)]
pub fn row_at_mut<T>(s: &mut [T], off: usize, len: usize) -> Option<&mut [T]> {
    let o = off.min(s.len());
    s.get_mut(o..o.wrapping_add(len))
}

/// Store `v` at `s[off..off + N]`, proven in bounds: one range check for the row (a column
/// tile's sums), where a store per slot would test each.
#[inline(always)]
pub fn st_row<T: Elem, const N: usize>(s: &mut [T], off: usize, v: [T; N]) {
    if let Some(d) = s.get_mut(off..off.wrapping_add(N)) {
        d.copy_from_slice(&v);
    }
}

/// Store the proven-in-bounds row `r` of `s` taken as rows of `N` (`N > 0`): [`st_row`] at
/// offset `r * N`, with one comparison as in [`ldr_row_of`].
#[inline(always)]
pub fn st_row_at<T: Elem, const N: usize>(s: &mut [T], r: usize, v: [T; N]) {
    if let Some(d) = s.as_chunks_mut::<N>().0.get_mut(r) {
        *d = v;
    }
}

/// An index the compiler could not prove: `i < len`, else `Error::Index`.
#[inline(always)]
pub fn check(i: usize, len: usize) -> Result<usize, Error> {
    if i < len {
        Ok(i)
    } else {
        Err(Error::Index { index: i, len })
    }
}

/// An index array checked once at kernel entry (LANGUAGE.md section 10): every element
/// `s[at]`, `s[at + stride]`, `s[at + 2 * stride]`, .. (one column of a parameter's rows, or
/// the whole array for a stride of 1) is below `len`, else `Error::Index` with the first bad
/// value. The loops then use those elements as indexes without a check.
#[inline]
pub fn check_column(s: &[usize], at: usize, stride: usize, len: usize) -> Result<(), Error> {
    // The usual row widths first: one pass with no branch per element, which LLVM unrolls
    // and vectorises (the loop below stops at every element to test it). Only when some
    // element is out of range does the loop below run, to report the first bad one.
    let all_below = match stride {
        1 => column_below::<1>(s, at, len),
        2 => column_below::<2>(s, at, len),
        3 => column_below::<3>(s, at, len),
        4 => column_below::<4>(s, at, len),
        _ => false,
    };
    if all_below {
        return Ok(());
    }
    let mut i = at;
    while let Some(&v) = s.get(i) {
        if v >= len {
            return Err(Error::Index { index: v, len });
        }
        // A stride of 0 only comes with rows of no elements: nothing more to check.
        i = match i.checked_add(stride) {
            Some(j) if stride > 0 => j,
            _ => break,
        };
    }
    Ok(())
}

/// Whether element `at` of every row of width `W` of `s` (and of a last row cut short) is
/// below `len`. `false` also where it cannot tell (`at >= W`, `len` past `2^63`).
///
/// No comparison per element, which SSE2 has no vector form of for 64-bit integers: for
/// `len <= 2^63`, `v < len` exactly when `v` is below `2^63` and `v - len` wraps past zero,
/// setting its top bit. So the column is in range when an OR of its elements has the top
/// bit clear and an AND of their differences with `len` has it set: a subtraction, an OR
/// and an AND per element, two elements to a vector register.
fn column_below<const W: usize>(s: &[usize], at: usize, len: usize) -> bool {
    const TOP: usize = 1 << (usize::BITS - 1);
    if at >= W || len > TOP {
        return false;
    }
    let (rows, rest) = s.as_chunks::<W>();
    let (mut any, mut all) = (0usize, usize::MAX);
    for row in rows {
        // `at < W`, so `get` never misses: it is written so only to have no panic path.
        let v = row.get(at).copied().unwrap_or(0);
        any |= v;
        all &= v.wrapping_sub(len);
    }
    // A last row cut short (a buffer whose length is not a multiple of W).
    if let Some(&v) = rest.get(at) {
        any |= v;
        all &= v.wrapping_sub(len);
    }
    any & TOP == 0 && all & TOP != 0
}

/// A slice `lo..hi` of an array of `len` elements: `lo <= hi <= len`, else `Error::Index`.
#[inline(always)]
pub fn check_range(lo: usize, hi: usize, len: usize) -> Result<(), Error> {
    if lo <= hi && hi <= len {
        Ok(())
    } else {
        Err(Error::Index { index: hi, len })
    }
}

/// Checked `usize` arithmetic, reporting the kernel expression `expr` on failure.
#[inline(always)]
pub fn add(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_add(b).ok_or(Error::Arithmetic { expr })
}
/// See [`add`].
#[inline(always)]
pub fn sub(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_sub(b).ok_or(Error::Arithmetic { expr })
}
/// See [`add`].
#[inline(always)]
pub fn mul(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_mul(b).ok_or(Error::Arithmetic { expr })
}
/// See [`add`].
#[inline(always)]
pub fn div(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_div(b).ok_or(Error::Arithmetic { expr })
}
/// Exact division: a remainder is an error. (v2's rule for sizes; since v3 a size's `/`
/// rounds down, as Rust's does, and kernels call [`div`]. Kept for code compiled before.)
#[inline(always)]
pub fn div_exact(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    match a.checked_rem(b) {
        Some(0) => Ok(a / b),
        _ => Err(Error::Arithmetic { expr }),
    }
}
/// A size read from an argument's length: `len / others`, or 0 when the other dimensions
/// are empty (the length check that follows then decides).
#[inline(always)]
pub fn from_len(len: usize, others: usize) -> usize {
    len.checked_div(others).unwrap_or(0)
}
/// `n` with `scale * n + offset == v`, rounded down and at least 0 (a size read from a
/// length such as `2 * h` or `n + 1`; the length check that follows rejects the rest).
pub fn solve_linear(v: usize, scale: usize, offset: i128) -> usize {
    let rest = (v as i128).saturating_sub(offset).max(0);
    usize::try_from(rest / (scale.max(1) as i128)).unwrap_or(usize::MAX)
}
/// The integer `k`-th root of `v`, rounded down (a size read from a square or cubic
/// array's length; the length check that follows rejects lengths that are not exact powers).
/// Integers only: a kernel's entry makes no float operation of another width than its own.
pub fn root(v: usize, k: u32) -> usize {
    if k <= 1 || v < 2 {
        return v;
    }
    let fits = |x: usize| {
        (0..k)
            .try_fold(1usize, |acc, _| acc.checked_mul(x))
            .is_some_and(|p| p <= v)
    };
    // The largest r with r^k <= v, by bisection: 1 fits, v does not (k >= 2, v >= 2).
    let (mut lo, mut hi) = (1usize, v);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
/// See [`add`].
#[inline(always)]
pub fn rem(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_rem(b).ok_or(Error::Arithmetic { expr })
}

/// A zeroed heap buffer of `n` slots, for the ablation modes that take storage from the heap
/// (`#![fsmooth(storage = "heap")]` and `"heap_frame"`): the paper's D, DF and DFB. A failed
/// allocation is `Error::Scratch`, not an abort.
#[cfg(feature = "alloc")]
pub fn heap<T: Elem>(n: usize) -> Result<alloc::vec::Vec<T>, Error> {
    let mut v = alloc::vec::Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Scratch {
        needed: n,
        available: 0,
    })?;
    v.resize(n, T::ZERO);
    Ok(v)
}

/// Saturating arithmetic for the `const fn` sizes (`scratch_len`, `out_len`): an overflowing
/// size saturates to `usize::MAX`, which no slab satisfies.
pub const fn sat_sub(a: usize, b: usize) -> usize {
    a.saturating_sub(b)
}
/// `/` for the `const fn` sizes: a division by zero gives 0, as an underflowing `-` does
/// (the call itself returns `Error::Arithmetic`), so that a buffer of `out_len` elements can
/// always be made.
pub const fn sat_div(a: usize, b: usize) -> usize {
    match a.checked_div(b) {
        Some(v) => v,
        None => 0,
    }
}
/// `usize::max` in a `const fn`.
pub const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    #[test]
    fn row_loads_read_their_row_or_nothing() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(super::ldr::<2>(&s, 2, 1), 4.0);
        // A row past the end, or an element past the row: 0.0, never a panic (the
        // compiler proves neither happens; the executor flags it if one did).
        assert_eq!(super::ldr::<2>(&s, 4, 0), 0.0);
        assert_eq!(super::ldr::<2>(&s, usize::MAX, 0), 0.0);
        assert_eq!(super::ldr::<2>(&s, 0, 2), 0.0);
        let u = [4usize, 5, 6, 7];
        assert_eq!(super::ldr_of::<2, _>(&u, 2, 1), 7);
        assert_eq!(super::ldr_of::<2, _>(&u, 3, 0), 0);
        let f = [1.5f32, 2.5];
        assert_eq!(super::ld(&f, 1), 2.5);
        assert_eq!(super::ld(&f, 2), 0.0);
    }

    /// `pieces` cuts at ascending starts inside the slice, each piece up to the next start
    /// (the last to the end), and refuses anything else.
    #[test]
    fn pieces_cut_at_their_starts_or_not_at_all() {
        let mut s = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let [a, b, c] = super::pieces(&mut s, [1, 3, 3]).unwrap();
        assert_eq!(
            (&*a, &*b, &*c),
            (&[1.0, 2.0][..], &[][..], &[3.0, 4.0, 5.0][..])
        );
        a[0] = 7.0;
        c[2] = 8.0;
        assert_eq!(s, [0.0, 7.0, 2.0, 3.0, 4.0, 8.0]);
        let [whole] = super::pieces(&mut s, [0]).unwrap();
        assert_eq!(whole.len(), 6);
        assert!(super::pieces(&mut s, [6]).unwrap()[0].is_empty());
        assert!(super::pieces(&mut s, [2, 1]).is_none());
        assert!(super::pieces(&mut s, [7]).is_none());
        assert!(super::pieces(&mut s, [1, 7]).is_none());
        assert!(super::pieces::<f64, 0>(&mut s, []).is_none());
    }

    /// Rows at one slot of several buffers have the least length there, and are cut even
    /// where the slot is past a buffer's end (then empty).
    #[test]
    fn shared_rows_have_one_length() {
        let (a, mut b) = ([1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0]);
        let len = super::common_len(1, [a.len(), b.len()]);
        assert_eq!(len, 2);
        assert_eq!(super::row_at(&a, 1, len), Some(&[2.0, 3.0][..]));
        super::row_at_mut(&mut b, 1, len).unwrap()[1] = 9.0;
        assert_eq!(b, [6.0, 7.0, 9.0]);
        let len = super::common_len(4, [a.len(), b.len()]);
        assert_eq!(len, 0);
        assert_eq!(super::row_at(&b, 4, len), Some(&[][..]));
        assert_eq!(super::row_at(&a, 4, len), Some(&[][..]));
        assert_eq!(super::common_len::<0>(0, []), 0);
    }

    /// `add_within` equals the loop of `ld`s and `st`s it replaces, for every pair of
    /// ranges: apart either way round, overlapping (where the loop reads what it has just
    /// written), and past the end.
    #[test]
    fn add_within_adds_like_its_loop() {
        let by_loop = |s: &mut [f64], dst: usize, src: usize, n: usize| {
            for j in 0..n {
                let v = super::ld(s, dst.wrapping_add(j)) + super::ld(s, src.wrapping_add(j));
                super::st(s, dst.wrapping_add(j), v);
            }
        };
        let start: Vec<f64> = (0..9).map(|k| (k * k) as f64 + 0.5).collect();
        for dst in 0..10 {
            for src in 0..10 {
                for n in 0..6 {
                    let (mut a, mut b) = (start.clone(), start.clone());
                    super::add_within(&mut a, dst, src, n);
                    by_loop(&mut b, dst, src, n);
                    assert_eq!(a, b, "dst {dst}, src {src}, n {n}");
                }
            }
        }
        // An offset that wraps, as the loop's wrapping arithmetic does.
        let (mut a, mut b) = (start.clone(), start.clone());
        super::add_within(&mut a, usize::MAX, 0, 2);
        by_loop(&mut b, usize::MAX, 0, 2);
        assert_eq!(a, b);
    }

    #[test]
    fn rows_come_in_turn_and_rows_of_width_0_never_end() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        let r: Vec<&[f64]> = super::rows(&s, 2).collect();
        assert_eq!(r, [&[1.0, 2.0][..], &[3.0, 4.0][..]]);
        assert!(super::rows(&s, 0).take(7).all(|r| r.is_empty()));
        assert_eq!(super::rows(&s, 0).take(7).count(), 7);
        let u = [1usize, 2, 3];
        assert_eq!(super::rows(&u, 3).next(), Some(&u[..]));
    }

    #[test]
    fn stores_of_every_element_type() {
        let mut u = [0usize; 4];
        super::st(&mut u, 1, 9);
        super::st(&mut u, 4, 9);
        super::st_row(&mut u, 2, [5, 6]);
        super::st_row(&mut u, 3, [7, 8]);
        assert_eq!(u, [0, 9, 5, 6]);
    }

    #[test]
    fn columns_are_checked_against_their_length() {
        // obs: [[usize; 2]; 3], column 0 indexes 4 cameras, column 1 indexes 3 points.
        let obs = [0, 2, 3, 1, 1, 0];
        assert_eq!(super::check_column(&obs, 0, 2, 4), Ok(()));
        assert_eq!(super::check_column(&obs, 1, 2, 3), Ok(()));
        assert_eq!(
            super::check_column(&obs, 0, 2, 3),
            Err(crate::Error::Index { index: 3, len: 3 })
        );
        // The whole array (stride 1), an empty one, a stride of 0 (no elements).
        assert_eq!(
            super::check_column(&obs, 0, 1, 3),
            Err(crate::Error::Index { index: 3, len: 3 })
        );
        assert_eq!(super::check_column(&[], 0, 1, 0), Ok(()));
        assert_eq!(
            super::check_column(&[5], 0, 0, 1),
            Err(crate::Error::Index { index: 5, len: 1 })
        );
        assert_eq!(super::check_column(&obs, usize::MAX, 2, 1), Ok(()));
    }

    /// The one-pass test's bit trick at the edges of its range: lengths up to `2^63`,
    /// elements from `2^63` up, and a length past `2^63` (left to the plain loop).
    #[test]
    fn column_checks_hold_at_the_top_of_the_range() {
        let top = 1usize << (usize::BITS - 1);
        assert_eq!(super::check_column(&[top - 1, 0], 0, 1, top), Ok(()));
        for (v, len) in [
            (top, top),
            (top, 3),
            (usize::MAX, 3),
            (usize::MAX, top),
            (3, 3),
        ] {
            assert_eq!(
                super::check_column(&[0, v, 1], 0, 1, len),
                Err(crate::Error::Index { index: v, len }),
                "{v} against {len}"
            );
        }
        assert_eq!(super::check_column(&[top, 7], 0, 1, top + 1), Ok(()));
        assert_eq!(
            super::check_column(&[top + 1, 7], 0, 1, top + 1),
            Err(crate::Error::Index {
                index: top + 1,
                len: top + 1
            })
        );
    }

    /// The one-pass test (row widths 1 to 4) and the element-by-element loop (other
    /// widths, and every failure) agree: the same verdict, and the first bad element.
    #[test]
    fn column_checks_agree_with_a_plain_scan() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % k) as usize
        };
        for case in 0..4000 {
            let stride = next(7);
            let n = next(40);
            let len = next(12);
            let at = next(stride as u64 + 2);
            // Mostly in range, now and then a bad element, sometimes a huge one.
            let s: Vec<usize> = (0..n)
                .map(|_| match next(40) {
                    0 => len + next(3),
                    1 => usize::MAX - next(2),
                    _ => next(len.max(1) as u64),
                })
                .collect();
            let mut want = Ok(());
            let mut i = at;
            while i < s.len() {
                if s[i] >= len {
                    want = Err(crate::Error::Index { index: s[i], len });
                    break;
                }
                if stride == 0 {
                    break;
                }
                i += stride;
            }
            assert_eq!(
                super::check_column(&s, at, stride, len),
                want,
                "case {case}: {s:?}, at {at}, stride {stride}, len {len}"
            );
        }
    }

    #[test]
    fn integer_roots_are_exact() {
        for k in 2..=4u32 {
            for r in 0usize..300 {
                let p = r.pow(k);
                assert_eq!(super::root(p, k), r, "{r}^{k}");
                if r > 1 {
                    assert_eq!(super::root(p - 1, k), r - 1, "{r}^{k} - 1");
                }
            }
        }
        assert_eq!(
            super::root(usize::MAX, 2),
            (1usize << (usize::BITS / 2)) - 1
        );
        assert_eq!(super::root(usize::MAX, 64), 1);
    }
}
