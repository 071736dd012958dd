//! The frame of a kernel whose intermediates have several element types: one `&mut [f64]`
//! slab of 8-byte slots, laid out `[f64 slots | f32 slots | usize slots]`, cut into one
//! slice per type (LANGUAGE.md section 10: `scratch_len` counts 8-byte slots whatever the
//! element types).

use crate::Error;

/// The 8-byte slots of a frame of `f64s` f64, `f32s` f32 and `usizes` usize elements (two
/// f32 to a slot; a usize takes a slot of its own on every target). Saturating, as the
/// `const fn` sizes are: an overflowing frame is one no slab satisfies.
pub const fn slots(f64s: usize, f32s: usize, usizes: usize) -> usize {
    f64s.saturating_add(f32_slots(f32s)).saturating_add(usizes)
}

/// The 8-byte slots of `f32s` f32: `div_ceil`, whose `+ 1` cannot overflow and, being core's,
/// carries no overflow check into a build with `overflow-checks` (`f32s / 2 + f32s % 2`
/// did, a panic path LLVM does not remove at opt-level 1).
const fn f32_slots(f32s: usize) -> usize {
    f32s.div_ceil(2)
}

/// The parts of a frame of [`slots`]`(f64s, f32s, usizes)` slots, each exactly as long as
/// asked: the f64 part, the f32 part and the usize part. A frame too short for them is
/// `Error::Scratch` (never a panic); the casts cannot fail, since an f64 slot is as large and
/// as aligned as two f32 or a usize.
#[inline]
#[allow(clippy::type_complexity)]
pub fn split(
    frame: &mut [f64],
    f64s: usize,
    f32s: usize,
    usizes: usize,
) -> Result<(&mut [f64], &mut [f32], &mut [usize]), Error> {
    let short = Error::Scratch {
        needed: slots(f64s, f32s, usizes),
        available: frame.len(),
    };
    let (a, rest) = frame.split_at_mut_checked(f64s).ok_or(short)?;
    let (b, c) = rest.split_at_mut_checked(f32_slots(f32s)).ok_or(short)?;
    let b: &mut [f32] = bytemuck::try_cast_slice_mut(b).map_err(|_| short)?;
    let c: &mut [usize] = bytemuck::try_cast_slice_mut(c).map_err(|_| short)?;
    match (b.get_mut(..f32s), c.get_mut(..usizes)) {
        (Some(b), Some(c)) => Ok((a, b, c)),
        _ => Err(short),
    }
}

/// A frame part of a constant length as a fixed-size array, so that LLVM knows its length
/// and checks of constant offsets into it fold away. A part of another length (which the
/// compiler never makes) is `Error::Scratch`.
#[inline(always)]
pub fn fixed<T, const N: usize>(s: &mut [T]) -> Result<&mut [T; N], Error> {
    let available = s.len();
    <&mut [T; N]>::try_from(s).map_err(|_| Error::Scratch {
        needed: N,
        available,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_exact_and_do_not_overlap() {
        // 3 f64, 5 f32 (3 slots), 2 usize: 8 slots.
        assert_eq!(slots(3, 5, 2), 8);
        let mut slab = [0.0f64; 9];
        let (a, b, c) = split(&mut slab, 3, 5, 2).unwrap();
        assert_eq!((a.len(), b.len(), c.len()), (3, 5, 2));
        a.fill(1.5);
        b.fill(2.5);
        c.fill(7);
        assert_eq!(slab[..3], [1.5; 3]);
        // The f32 part starts at slot 3 and the usize part at slot 6.
        let (_, rest) = slab.split_at(6);
        let us: &[usize] = bytemuck::cast_slice(rest);
        assert_eq!(us[..2], [7, 7]);
        let f: &[f32] = bytemuck::cast_slice(&slab[3..6]);
        assert_eq!(f[..5], [2.5; 5]);
    }

    #[test]
    fn short_frames_and_wrong_constant_parts_are_errors() {
        let mut slab = [0.0f64; 4];
        assert_eq!(
            split(&mut slab, 3, 5, 2).map(|_| ()),
            Err(Error::Scratch {
                needed: 8,
                available: 4
            })
        );
        assert_eq!(slots(usize::MAX, 1, 0), usize::MAX);
        let mut s = [0.0f32; 3];
        assert!(fixed::<f32, 3>(&mut s).is_ok());
        assert_eq!(
            fixed::<f32, 4>(&mut s).map(|_| ()),
            Err(Error::Scratch {
                needed: 4,
                available: 3
            })
        );
    }
}
