use crate::Error;

/// Where a kernel's intermediate arrays live (the DPS paper's `alloc`).
///
/// Every kernel takes `region: &mut Region<'_>` as its last argument and takes one frame from
/// it per call: exactly `k::scratch_len(..)` slots (`k::SCRATCH_LEN` for a kernel without size
/// names) of 8 bytes, an `f64` or a `usize` per slot, or two `f32`s. The frame does not
/// outlive the call, so one region serves any number of calls, of any kernels, one after the
/// other. A frame holds whatever the previous call left there: generated code writes every
/// slot before reading it.
///
/// | constructor | memory | feature |
/// | --- | --- | --- |
/// | [`Region::from_slab`] | your `&mut [f64]`; no allocator | none (`no_std`) |
/// | [`Region::new`] | a buffer the region owns, grown to the largest frame asked for | `alloc` (default) |
/// | `Region::in_bump` | frames from your `bumpalo::Bump` arena | `bumpalo` |
///
/// When the memory is too short (a slab shorter than the frame, a failed allocation), the call
/// returns [`Error::Scratch`] before writing anything.
///
/// # Example
///
/// ```
/// use fsmooth::{fsmooth, Region};
///
/// fsmooth! {
///     /// Three-point sums of a half-scaled signal: the scaled copy is stored in the frame.
///     pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
///         let s = smul(a, 0.5);
///         build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
///     }
/// }
///
/// let mut region = Region::new();
/// for n in [5, 50, 500] {
///     assert_eq!(stencil::scratch_len(n), n); // the frame: `s`, n slots
///     let a = vec![2.0; n];
///     let mut out = vec![0.0; stencil::out_len(n)];
///     stencil(&mut out, &a, &mut region)?;
///     assert!(out.iter().all(|&x| x == 3.0));
/// }
/// # Ok::<(), fsmooth::Error>(())
/// ```
pub struct Region<'a> {
    kind: Kind<'a>,
}

enum Kind<'a> {
    Slab(&'a mut [f64]),
    /// Memory the region owns: it only grows, and is zeroed only when it does.
    #[cfg(feature = "alloc")]
    Owned(alloc::vec::Vec<f64>),
    /// The largest frame taken so far from a caller's arena; a larger one is taken from the
    /// arena when a call needs it (the old one stays in the arena until the caller resets it).
    #[cfg(feature = "bumpalo")]
    Bump {
        /// The caller's arena.
        arena: &'a bumpalo::Bump,
        /// The frame every call reuses.
        frame: &'a mut [f64],
    },
}

impl<'a> Region<'a> {
    /// A region over caller-owned memory: no allocator is ever used. A slab of exactly the
    /// kernel's `scratch_len` slots suffices, and one sized for the largest of several
    /// kernels serves them all. A shorter one makes the call return [`Error::Scratch`], with
    /// the outputs untouched.
    ///
    /// `scratch_len` is a `const fn` and `SCRATCH_LEN` a constant, so the slab can be an
    /// array on the stack or a `static` (firmware).
    ///
    /// # Example
    ///
    /// ```
    /// use fsmooth::{fsmooth, Error, Region};
    ///
    /// fsmooth! {
    ///     pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
    ///         let s = smul(a, 0.5);
    ///         build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
    ///     }
    /// }
    ///
    /// let a = [1.0, 2.0, 3.0, 4.0];
    /// let mut out = [0.0; stencil::out_len(4)];
    ///
    /// let mut slab = [0.0; stencil::scratch_len(4)];
    /// stencil(&mut out, &a, &mut Region::from_slab(&mut slab))?;
    /// assert_eq!(out, [3.0, 4.5]);
    ///
    /// let mut short = [0.0; 3];
    /// let err = stencil(&mut out, &a, &mut Region::from_slab(&mut short));
    /// assert_eq!(err, Err(Error::Scratch { needed: 4, available: 3 }));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_slab(slab: &'a mut [f64]) -> Region<'a> {
        Region {
            kind: Kind::Slab(slab),
        }
    }

    /// The frame for one kernel call: exactly `needed` slots, holding whatever earlier calls
    /// left there.
    ///
    /// A slab region fails with [`Error::Scratch`] when it is too short. An owned region
    /// grows to the largest frame asked for and keeps it, so once it has served the largest
    /// frame it never allocates again.
    #[doc(hidden)]
    #[inline]
    pub fn frame(&mut self, needed: usize) -> Result<&mut [f64], Error> {
        match &mut self.kind {
            Kind::Slab(slab) => {
                let available = slab.len();
                slab.get_mut(..needed)
                    .ok_or(Error::Scratch { needed, available })
            }
            #[cfg(feature = "alloc")]
            Kind::Owned(mem) => {
                // Frames do not outlive the call, so every call reuses the same memory from
                // its start. It is not cleared between calls: generated code writes every
                // slot before reading it (as with a caller's slab, which holds anything),
                // so a warm call costs no allocation and no fill.
                if mem.len() < needed {
                    let more = needed - mem.len();
                    mem.try_reserve_exact(more).map_err(|_| Error::Scratch {
                        needed,
                        available: mem.len(),
                    })?;
                    mem.resize(needed, 0.0);
                }
                let available = mem.len();
                mem.get_mut(..needed)
                    .ok_or(Error::Scratch { needed, available })
            }
            #[cfg(feature = "bumpalo")]
            Kind::Bump { arena, frame } => {
                if frame.len() < needed {
                    // Zeroed once, when taken: bumpalo hands out initialised memory only.
                    *frame = arena.try_alloc_slice_fill_copy(needed, 0.0).map_err(|_| {
                        Error::Scratch {
                            needed,
                            available: frame.len(),
                        }
                    })?;
                }
                let available = frame.len();
                frame
                    .get_mut(..needed)
                    .ok_or(Error::Scratch { needed, available })
            }
        }
    }
}

#[cfg(feature = "bumpalo")]
impl<'a> Region<'a> {
    /// A region whose frames come from the caller's bumpalo arena (feature `bumpalo`).
    ///
    /// The region keeps the largest frame it has taken and reuses it for every call: it
    /// allocates from the arena only when a call needs more scratch than any call before, so
    /// after the first call of the largest kernel there is no arena allocation at all. A
    /// failed arena allocation is [`Error::Scratch`]. The frames live as long as the arena's
    /// memory (until the caller resets it, which the borrow of `arena` prevents while the
    /// region exists).
    ///
    /// # Example
    ///
    /// ```
    /// use fsmooth::{fsmooth, Region};
    ///
    /// fsmooth! {
    ///     pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
    ///         let s = smul(a, 0.5);
    ///         build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
    ///     }
    /// }
    ///
    /// let arena = bumpalo::Bump::new();
    /// let mut region = Region::in_bump(&arena);
    /// let mut out = [0.0; 2];
    /// stencil(&mut out, &[1.0, 2.0, 3.0, 4.0], &mut region)?;
    /// let warm = arena.allocated_bytes();
    /// for _ in 0..10 {
    ///     stencil(&mut out, &[1.0, 2.0, 3.0, 4.0], &mut region)?;
    /// }
    /// assert_eq!(arena.allocated_bytes(), warm); // the same frame, reused
    /// assert_eq!(out, [3.0, 4.5]);
    /// # Ok::<(), fsmooth::Error>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "bumpalo")))]
    pub fn in_bump(arena: &'a bumpalo::Bump) -> Region<'a> {
        Region {
            kind: Kind::Bump {
                arena,
                frame: &mut [],
            },
        }
    }
}

#[cfg(feature = "alloc")]
impl Region<'static> {
    /// A region that owns its memory, grows on demand and reuses it: after the first call
    /// that needs the most scratch, calls make no system allocation at all (and no fill).
    ///
    /// The frame is the paper's bump allocation done at compile time: every allocation of a
    /// call has a static offset in one frame, so the region only needs to hand out that
    /// frame. It is a growable buffer rather than a bumpalo arena because bumpalo can only
    /// hand out initialised memory without `unsafe`, which meant zero-filling every frame on
    /// every call (half of the blur benchmark's instructions).
    ///
    /// `Region::default()` is the same.
    ///
    /// # Example
    ///
    /// ```
    /// use fsmooth::{fsmooth, Region};
    ///
    /// fsmooth! {
    ///     /// Each row minus the mean of all rows: the mean row is stored in the frame.
    ///     pub fn centre_rows(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
    ///         let mean = smul(build(d, |j| ifold(n, 0.0, |acc, i| acc + x[i][j])), 1.0 / (n as f64));
    ///         build(n, |i| sub(x[i], mean))
    ///     }
    /// }
    ///
    /// let mut region = Region::new(); // grows to the largest frame, then reuses it
    /// let x = [[1.0, 10.0], [3.0, 30.0]];
    /// let mut out = [[0.0; 2]; 2];
    /// centre_rows(out.as_flattened_mut(), x.as_flattened(), 2, &mut region)?;
    /// assert_eq!(centre_rows::scratch_len(2, 2), 2);
    /// assert_eq!(out, [[-1.0, -10.0], [1.0, 10.0]]);
    /// # Ok::<(), fsmooth::Error>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn new() -> Region<'static> {
        Region {
            kind: Kind::Owned(alloc::vec::Vec::new()),
        }
    }
}

#[cfg(feature = "alloc")]
impl Default for Region<'static> {
    fn default() -> Self {
        Region::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_hands_out_exact_frames_and_reports_short_slabs() {
        let mut slab = [1.0; 4];
        let mut r = Region::from_slab(&mut slab);
        assert_eq!(r.frame(4).map(|f| f.len()), Ok(4));
        assert_eq!(r.frame(0).map(|f| f.len()), Ok(0));
        assert_eq!(
            r.frame(5).map(|f| f.len()),
            Err(Error::Scratch {
                needed: 5,
                available: 4
            })
        );
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn bump_region_grows_then_reuses() {
        let mut r = Region::new();
        assert_eq!(r.frame(100).map(|f| f.len()), Ok(100));
        let bytes = |r: &Region| match &r.kind {
            Kind::Owned(m) => m.capacity() * 8,
            _ => 0,
        };
        let warm = bytes(&r);
        assert!(warm >= 800);
        for _ in 0..10 {
            assert_eq!(r.frame(50).map(|f| f.len()), Ok(50));
            assert_eq!(r.frame(100).map(|f| f.len()), Ok(100));
        }
        assert_eq!(bytes(&r), warm);
        // No fill between calls: what a call wrote is still there for the next one.
        if let Ok(f) = r.frame(3) {
            f[2] = 7.0;
        }
        assert_eq!(r.frame(3).map(|f| f[2]), Ok(7.0));
    }

    #[cfg(feature = "bumpalo")]
    #[test]
    fn bump_region_allocates_from_the_arena_only_when_a_frame_grows() {
        let arena = bumpalo::Bump::new();
        let mut r = Region::in_bump(&arena);
        assert_eq!(r.frame(0).map(|f| f.len()), Ok(0));
        assert_eq!(arena.allocated_bytes(), 0);
        assert_eq!(r.frame(100).map(|f| f.len()), Ok(100));
        let warm = arena.allocated_bytes();
        assert!(warm >= 800);
        for _ in 0..10 {
            assert_eq!(r.frame(50).map(|f| f.len()), Ok(50));
            assert_eq!(r.frame(100).map(|f| f.len()), Ok(100));
        }
        assert_eq!(arena.allocated_bytes(), warm);
        if let Ok(f) = r.frame(3) {
            f[2] = 7.0;
        }
        assert_eq!(r.frame(3).map(|f| f[2]), Ok(7.0));
        assert_eq!(r.frame(200).map(|f| f.len()), Ok(200));
        assert!(arena.allocated_bytes() >= warm + 1600);
    }

    #[cfg(feature = "bumpalo")]
    #[test]
    fn a_failed_arena_allocation_is_a_scratch_error() {
        let arena = bumpalo::Bump::new();
        arena.set_allocation_limit(Some(64));
        let mut r = Region::in_bump(&arena);
        assert_eq!(
            r.frame(1 << 20).map(|f| f.len()),
            Err(Error::Scratch {
                needed: 1 << 20,
                available: 0
            })
        );
        assert_eq!(r.frame(4).map(|f| f.len()), Ok(4));
    }
}
