//! What a kernel's array parameters and outputs accept (LANGUAGE.md section 17): anything
//! that is one contiguous, row-major run of the element type.
//!
//! A kernel's array parameter is `&(impl RowMajor<f64> + ?Sized)` (`f32`, `usize` for the
//! other element types), an output `&mut (impl RowMajorMut<f64> + ?Sized)`. The kernel turns
//! each into a flat slice once, at entry (`as_flattened`, no copy and no per-element cost),
//! before any length is checked or anything written.
//!
//! The element type is the trait's parameter, fixed by the kernel, so that a literal still
//! takes its type from the kernel: `k(&[1.0, 2.0])` and `k(&[1.0; 3])` compile for an f64 and
//! an f32 kernel alike (`[{float}; 2]` can only be `[T; N]` with `T` the kernel's element
//! type). The one call that compiled against v2 and no longer does is an empty literal
//! without a type, `k(&[])` or `k(&mut [])`: its element could be `f64` or `[f64; N]`. Write
//! `&[0.0; 0]`, or `&[] as &[f64]`.

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, rc::Rc, sync::Arc, vec::Vec};

/// A contiguous, row-major run of `T`: what a kernel's array parameter of element type `T`
/// accepts, by reference.
///
/// Implemented for `[T]`, `[T; N]`, `[[T; N]]`, `[[T; N]; M]` (and three levels deep),
/// `Vec<T>`, `Vec<[T; N]>`, `Box<[T]>`, `Rc<[T]>`, `Arc<[T]>` (feature `alloc`), references
/// to any of them, and with the `ndarray` feature ndarray's arrays and views (`ArrayBase`
/// whose storage holds `T`, and `ArrayRef`), which are row-major only in standard layout:
/// [`row_major`](RowMajor::row_major) is `None` for any other (the kernel returns
/// [`Error::Layout`](crate::Error::Layout)).
///
/// ```
/// use fsmooth::{fsmooth, Region};
///
/// fsmooth! {
///     pub fn row_sums(a: [[f64; 3]; n]) -> [f64; n] {
///         map(a, |r| sum(r))
///     }
/// }
///
/// let mut out = [0.0; 2];
/// let rows: Vec<[f64; 3]> = vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// row_sums(&mut out, &rows, &mut Region::new())?;
/// assert_eq!(out, [6.0, 15.0]);
/// row_sums(&mut out, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &mut Region::new())?; // flat, as before
/// assert_eq!(out, [6.0, 15.0]);
/// # Ok::<(), fsmooth::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a contiguous row-major run of `{T}`, which this kernel argument needs",
    label = "not a contiguous row-major run of `{T}`",
    note = "an array argument of element type `{T}` takes `&[{T}]`, `&[{T}; N]`, `&[[{T}; N]]`, `&[[{T}; N]; M]`, `&Vec<{T}>`, `&Vec<[{T}; N]>`, `&Box<[{T}]>` (feature `alloc`, a default) or (feature `ndarray`) an ndarray array or view of `{T}`"
)]
pub trait RowMajor<T> {
    /// The elements, flat and in row-major order; `None` when they are not one contiguous
    /// row-major run (an ndarray in another layout).
    fn row_major(&self) -> Option<&[T]>;
}

/// A mutable contiguous, row-major run of `T`: what a kernel's output of element type `T`
/// accepts, by mutable reference.
///
/// Implemented for `[T]`, `[T; N]`, `[[T; N]]`, `[[T; N]; M]` (and three levels deep),
/// `Vec<T>`, `Vec<[T; N]>`, `Box<[T]>` (feature `alloc`), mutable references to any of them,
/// and with the `ndarray` feature ndarray's mutable arrays and views, which are row-major only
/// in standard layout: [`row_major_mut`](RowMajorMut::row_major_mut) is `None` for any other
/// (the kernel returns [`Error::Layout`](crate::Error::Layout), the output untouched).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a mutable contiguous row-major run of `{T}`, which this kernel output needs",
    label = "not a mutable contiguous row-major run of `{T}`",
    note = "an output of element type `{T}` takes `&mut [{T}]`, `&mut [{T}; N]`, `&mut [[{T}; N]]`, `&mut [[{T}; N]; M]`, `&mut Vec<{T}>`, `&mut Vec<[{T}; N]>` or (feature `ndarray`) a mutable ndarray array or view of `{T}`"
)]
pub trait RowMajorMut<T> {
    /// The elements, flat and in row-major order; `None` when they are not one contiguous
    /// row-major run (an ndarray in another layout).
    fn row_major_mut(&mut self) -> Option<&mut [T]>;
}

// Written out, not by a macro: rustc lists these impls when a type is not accepted.
impl<T> RowMajor<T> for [T] {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T> RowMajorMut<T> for [T] {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self)
    }
}

impl<T, const N: usize> RowMajor<T> for [T; N] {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T, const N: usize> RowMajorMut<T> for [T; N] {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self)
    }
}

impl<T, const N: usize> RowMajor<T> for [[T; N]] {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened())
    }
}

impl<T, const N: usize> RowMajorMut<T> for [[T; N]] {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut())
    }
}

impl<T, const N: usize, const M: usize> RowMajor<T> for [[T; N]; M] {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened())
    }
}

impl<T, const N: usize, const M: usize> RowMajorMut<T> for [[T; N]; M] {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut())
    }
}

impl<T, const N: usize, const M: usize> RowMajor<T> for [[[T; N]; M]] {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened().as_flattened())
    }
}

impl<T, const N: usize, const M: usize> RowMajorMut<T> for [[[T; N]; M]] {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut().as_flattened_mut())
    }
}

impl<T, const N: usize, const M: usize, const K: usize> RowMajor<T> for [[[T; N]; M]; K] {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened().as_flattened())
    }
}

impl<T, const N: usize, const M: usize, const K: usize> RowMajorMut<T> for [[[T; N]; M]; K] {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut().as_flattened_mut())
    }
}

#[cfg(feature = "alloc")]
impl<T> RowMajor<T> for Vec<T> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self)
    }
}

#[cfg(feature = "alloc")]
impl<T> RowMajorMut<T> for Vec<T> {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self)
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize> RowMajor<T> for Vec<[T; N]> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened())
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize> RowMajorMut<T> for Vec<[T; N]> {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut())
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize, const M: usize> RowMajor<T> for Vec<[[T; N]; M]> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened().as_flattened())
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize, const M: usize> RowMajorMut<T> for Vec<[[T; N]; M]> {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut().as_flattened_mut())
    }
}

#[cfg(feature = "alloc")]
impl<T> RowMajor<T> for Box<[T]> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self)
    }
}

#[cfg(feature = "alloc")]
impl<T> RowMajorMut<T> for Box<[T]> {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self)
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize> RowMajor<T> for Box<[[T; N]]> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self.as_flattened())
    }
}

#[cfg(feature = "alloc")]
impl<T, const N: usize> RowMajorMut<T> for Box<[[T; N]]> {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        Some(self.as_flattened_mut())
    }
}

#[cfg(feature = "alloc")]
impl<T> RowMajor<T> for Rc<[T]> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self)
    }
}

#[cfg(feature = "alloc")]
impl<T> RowMajor<T> for Arc<[T]> {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        Some(self)
    }
}

// A reference to a run is a run: `k(&a)` with `a: &[f64]` or `a: &mut Vec<f64>`, which
// compiled against v2 by auto-deref.
impl<T, S: RowMajor<T> + ?Sized> RowMajor<T> for &S {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        (**self).row_major()
    }
}

impl<T, S: RowMajor<T> + ?Sized> RowMajor<T> for &mut S {
    #[inline(always)]
    fn row_major(&self) -> Option<&[T]> {
        (**self).row_major()
    }
}

impl<T, S: RowMajorMut<T> + ?Sized> RowMajorMut<T> for &mut S {
    #[inline(always)]
    fn row_major_mut(&mut self) -> Option<&mut [T]> {
        (**self).row_major_mut()
    }
}

#[cfg(feature = "ndarray")]
mod nd {
    use super::{RowMajor, RowMajorMut};
    use ndarray::{ArrayBase, ArrayRef, Data, DataMut, Dimension};

    // `as_slice` is `Some` exactly in standard layout (contiguous, row-major).
    impl<T, S: Data<Elem = T>, D: Dimension> RowMajor<T> for ArrayBase<S, D> {
        #[inline]
        fn row_major(&self) -> Option<&[T]> {
            self.as_slice()
        }
    }

    impl<T, D: Dimension> RowMajor<T> for ArrayRef<T, D> {
        #[inline]
        fn row_major(&self) -> Option<&[T]> {
            self.as_slice()
        }
    }

    impl<T, S: DataMut<Elem = T>, D: Dimension> RowMajorMut<T> for ArrayBase<S, D> {
        #[inline]
        fn row_major_mut(&mut self) -> Option<&mut [T]> {
            self.as_slice_mut()
        }
    }

    impl<T, D: Dimension> RowMajorMut<T> for ArrayRef<T, D> {
        #[inline]
        fn row_major_mut(&mut self) -> Option<&mut [T]> {
            self.as_slice_mut()
        }
    }
}
