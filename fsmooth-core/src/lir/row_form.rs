//! How printed code addresses a whole row of a buffer of rows (`lir::print`): at its offset
//! (`ldr::<w>(b, r * w, k)`, `st_row`) or as row `r` of the buffer taken as rows
//! (`ldr_row::<w>(b, r, k)`, `st_row_at`), chosen by what LLVM can prove of each. The
//! printer tells this module the loops it is inside and the sizes the entry reads from
//! lengths as it prints them.

use super::{Base, Entry, Ex, Wrap};
use proc_macro2::Ident;
use quote::quote;

/// `r` when a row's offset is `r * width` (a whole row of a buffer of rows of `width > 0`)
/// and the row is better read as row `r` of `base` taken as rows: one comparison of `r`
/// with their number in place of the offset's multiplication and range test.
///
/// Not when `r` is index arithmetic of the enclosing loops' indexes (`pts[i]` in a loop over
/// `i`, the count read from another argument): there LLVM proves the offset's range from the
/// loop's bound and the entry's length check and drops the test, which it does not do for the
/// number of rows (the centroid sums' points 10% dearer as rows), unless the loop counts
/// `base`'s own rows (`e[j]` in a loop over `p = e.len() / 2`: the same number, proven).
/// The row form is for indexes read from data (`v[e[j][0]]`), whose test no proof removes.
pub(super) fn row_of_offset<'a>(base: &Base, off: &'a Ex, width: usize) -> Option<&'a Ex> {
    let Ex::Wrap(Wrap::Mul, r, w) = off else {
        return None;
    };
    if width == 0 || !matches!(**w, Ex::Usize(v) if v == width) {
        return None;
    }
    if let Ex::Var(i) = &**r
        && counts_rows_of(i, base, width)
    {
        return Some(r);
    }
    (!loop_arithmetic(r)).then_some(&**r)
}

std::thread_local! {
    /// The indexes of the loops whose bodies are being printed, innermost last, each with
    /// its count when that is a variable.
    static LOOP_INDEXES: std::cell::RefCell<Vec<(String, Option<String>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The sizes read from a buffer's length at entry, `n = from_len(b.len(), w)`: the
    /// number of rows of width `w` of `b`.
    static ROW_COUNTS: std::cell::RefCell<Vec<(String, String, usize)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `f()` with `var`, counted by `n`, among the loop indexes in scope ([`row_of_offset`]).
pub(super) fn in_loop<T>(var: &Ident, n: &Ex, f: impl FnOnce() -> T) -> T {
    let count = match n {
        Ex::Var(c) => Some(c.to_string()),
        _ => None,
    };
    LOOP_INDEXES.with(|l| l.borrow_mut().push((var.to_string(), count)));
    let out = f();
    LOOP_INDEXES.with(|l| l.borrow_mut().pop());
    out
}

/// Note what `let id = val` binds ([`ROW_COUNTS`]): `id = from_len(b.len(), w)` is a number
/// of rows; any other binding of `id` (a size taken from a parameter, another kernel's
/// entry) forgets what `id` was.
pub(super) fn note_row_count(id: &Ident, val: &Ex) {
    let id = id.to_string();
    let rows = match val {
        Ex::Entry(Entry::FromLen, xs) => match xs.as_slice() {
            [Ex::Len(b), Ex::Usize(w)] => Some((quote!(#b).to_string(), *w)),
            [Ex::Len(b), Ex::Const(s)] => s
                .as_const()
                .and_then(|w| usize::try_from(w).ok())
                .map(|w| (quote!(#b).to_string(), w)),
            _ => None,
        },
        _ => None,
    };
    ROW_COUNTS.with(|r| {
        let mut r = r.borrow_mut();
        r.retain(|(x, ..)| *x != id);
        if let Some((b, w)) = rows {
            r.push((id, b, w));
        }
    });
}

/// Whether `i` is the index of an enclosing loop counted by the number of rows of width
/// `width` of `base`.
fn counts_rows_of(i: &Ident, base: &Base, width: usize) -> bool {
    let count = LOOP_INDEXES.with(|l| {
        l.borrow()
            .iter()
            .rev()
            .find(|(v, _)| *i == v)
            .and_then(|(_, c)| c.clone())
    });
    let Some(count) = count else {
        return false;
    };
    let base = quote!(#base).to_string();
    ROW_COUNTS.with(|r| {
        r.borrow()
            .iter()
            .any(|(n, b, w)| *n == count && *b == base && *w == width)
    })
}

/// Whether `e` is computed from the enclosing loops' indexes and constants alone.
fn loop_arithmetic(e: &Ex) -> bool {
    match e {
        Ex::Usize(_) => true,
        Ex::Var(id) => LOOP_INDEXES.with(|l| l.borrow().iter().any(|(v, _)| *id == v)),
        Ex::Wrap(_, a, b) | Ex::Bin(_, a, b) | Ex::Checked(_, a, b, _) => {
            loop_arithmetic(a) && loop_arithmetic(b)
        }
        _ => false,
    }
}
