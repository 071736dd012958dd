//! `x.mul_add(y, z)` in f32, exactly rounded, on the integer significands: the product of two
//! 24-bit significands is exact in 48 bits, the sum is formed in 64 bits with a sticky bit
//! for what the alignment shifts out, and the result is rounded once (to nearest, ties to
//! even), into the subnormals too.

use super::{ABS, INF, SIGN};

/// `(m, q)` with |x| = m 2^q, m the integer significand (the hidden bit included for normal
/// numbers), for finite x.
#[inline(always)]
fn decode(bits: u32) -> (u64, i32) {
    let be = (bits >> 23) & 0xff;
    let frac = u64::from(bits & 0x007f_ffff);
    if be == 0 {
        (frac, -149)
    } else {
        (frac | 0x0080_0000, (be as i32).wrapping_sub(150))
    }
}

/// `m` shifted right by `d` with the bits shifted out ORed into bit 0 (a sticky bit).
#[inline(always)]
fn shr_sticky(m: u64, d: u32) -> u64 {
    if d == 0 {
        m
    } else if d < 64 {
        let lost = m & (1u64.wrapping_shl(d).wrapping_sub(1));
        m.wrapping_shr(d) | u64::from(lost != 0)
    } else {
        u64::from(m != 0)
    }
}

/// `x * y + z` with a single rounding.
pub fn fma(x: f32, y: f32, z: f32) -> f32 {
    let (bx, by, bz) = (x.to_bits(), y.to_bits(), z.to_bits());
    let (ax, ay, az) = (bx & ABS, by & ABS, bz & ABS);
    if ax >= INF || ay >= INF || ax == 0 || ay == 0 {
        // The product is infinite, NaN or an exact (signed) zero: the plain expression has
        // the right value and sign (inf - inf and 0 * inf are NaN, ±0 + z as IEEE).
        return x * y + z;
    }
    if az >= INF {
        // A finite product (however large) plus ±inf or NaN is z.
        return z;
    }
    if az == 0 {
        // x y exactly, rounded once; its sign wins over the zero's even when it rounds to 0.
        return x * y;
    }
    let (mx, qx) = decode(bx);
    let (my, qy) = decode(by);
    let (mz, qz) = decode(bz);
    // Each operand as M 2^E with M's top bit at 62 (one bit of headroom for a carry).
    let mp = mx.wrapping_mul(my); // < 2^48, nonzero
    let sp = mp.leading_zeros().wrapping_sub(1);
    let (mp, ep) = (
        mp.wrapping_shl(sp),
        qx.wrapping_add(qy).wrapping_sub(sp as i32),
    );
    let sz = mz.leading_zeros().wrapping_sub(1);
    let (mz, ez) = (mz.wrapping_shl(sz), qz.wrapping_sub(sz as i32));
    let neg_p = (bx ^ by) & SIGN != 0;
    let neg_z = bz & SIGN != 0;
    // The larger magnitude first (by exponent, then significand).
    let ((ma, ea, neg), (mb, eb)) = if (ep, mp) >= (ez, mz) {
        ((mp, ep, neg_p), (mz, ez))
    } else {
        ((mz, ez, neg_z), (mp, ep))
    };
    let d = ea.wrapping_sub(eb) as u32;
    let mb = shr_sticky(mb, d);
    // A sticky bit only appears for d >= 2, and then the difference keeps its top bit at 61
    // or 62: far above the rounding position. For d <= 1 nothing was shifted out (both
    // significands end in at least 15 zero bits), so a total cancellation is exact.
    let s = if neg_p == neg_z {
        ma.wrapping_add(mb)
    } else {
        ma.wrapping_sub(mb)
    };
    if s == 0 {
        // An exact zero sum of opposite signs is +0 in round-to-nearest.
        return 0.0;
    }
    // s 2^ea = n 2^(ea - lz), n in [2^63, 2^64): the result is (n / 2^63) 2^(ea - lz + 63).
    let lz = s.leading_zeros();
    let n = s.wrapping_shl(lz);
    let be = ea.wrapping_sub(lz as i32).wrapping_add(63 + 127);
    let sign = if neg { SIGN } else { 0 };
    if be >= 255 {
        return f32::from_bits(sign | INF);
    }
    // Bits dropped from n: 40 for a normal result (24 kept), more for a subnormal one.
    let drop = if be >= 1 {
        40
    } else {
        (41i32.wrapping_sub(be)) as u32
    };
    if drop > 64 {
        // Under 2^-150: rounds to zero.
        return f32::from_bits(sign);
    }
    let (kept, rest) = if drop == 64 {
        (0, n)
    } else {
        (
            n.wrapping_shr(drop),
            n & 1u64.wrapping_shl(drop).wrapping_sub(1),
        )
    };
    let half = 1u64.wrapping_shl(drop.wrapping_sub(1));
    let up = rest > half || (rest == half && kept & 1 == 1);
    let kept = (kept as u32).wrapping_add(u32::from(up));
    let bits = if be >= 1 {
        // kept in [2^23, 2^24]; 2^24 (a carry) is the next binade's 2^23, possibly infinity.
        (be as u32)
            .wrapping_shl(23)
            .wrapping_add(kept.wrapping_sub(0x0080_0000))
    } else {
        // A subnormal's bits are its significand; a carry to 2^23 is the least normal.
        kept
    };
    let bits = if bits >= INF { INF } else { bits };
    f32::from_bits(sign | bits)
}
