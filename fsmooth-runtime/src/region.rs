use crate::Error;

/// Where a kernel's intermediates live (the DPS paper's `alloc`): one frame of f64 slots per
/// call, sized by the kernel's `scratch_len`.
pub struct Region<'a> {
    kind: Kind<'a>,
}

enum Kind<'a> {
    Slab(&'a mut [f64]),
    #[cfg(feature = "alloc")]
    Bump(bumpalo::Bump),
}

impl<'a> Region<'a> {
    /// A region over caller-owned memory: no allocator is ever used. A slab of exactly the
    /// kernel's `scratch_len` slots suffices.
    pub fn from_slab(slab: &'a mut [f64]) -> Region<'a> {
        Region {
            kind: Kind::Slab(slab),
        }
    }

    /// The frame for one kernel call: exactly `needed` slots.
    ///
    /// A slab region fails with [`Error::Scratch`] when it is too short. A bump region
    /// reuses its largest chunk, so once it has served the largest frame it never allocates
    /// again.
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
            Kind::Bump(bump) => {
                // Frames do not outlive the call, so every call starts from an empty arena;
                // `reset` keeps the largest chunk, which is what makes later calls free.
                bump.reset();
                bump.try_alloc_slice_fill_copy(needed, 0.0)
                    .map_err(|_| Error::Scratch {
                        needed,
                        available: 0,
                    })
            }
        }
    }
}

#[cfg(feature = "alloc")]
impl Region<'static> {
    /// A bumpalo-backed region that grows on demand and reuses its memory: after the first
    /// call that needs the most scratch, calls make no system allocation at all.
    pub fn new() -> Region<'static> {
        Region {
            kind: Kind::Bump(bumpalo::Bump::new()),
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
            Kind::Bump(b) => b.allocated_bytes(),
            Kind::Slab(_) => 0,
        };
        let warm = bytes(&r);
        assert!(warm >= 800);
        for _ in 0..10 {
            assert_eq!(r.frame(50).map(|f| f.len()), Ok(50));
            assert_eq!(r.frame(100).map(|f| f.len()), Ok(100));
        }
        assert_eq!(bytes(&r), warm);
    }
}
