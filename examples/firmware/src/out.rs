//! Text to the host over semihosting, without `core::fmt`: formatting machinery of `core` may
//! hold panic paths of its own, and this firmware must link without any. Numbers are printed
//! by the small panic-free routines below; every buffer access goes through `get`/`get_mut`,
//! and counters step with `wrapping_*`, so that the firmware links with `overflow-checks`
//! on too.

use core::num::NonZeroU64;
use cortex_m_semihosting::hio::{self, HostStream};

/// A line buffer flushed to the host's stdout.
pub struct Out {
    stream: Option<HostStream>,
    buf: [u8; 128],
    len: usize,
}

impl Out {
    pub fn new() -> Out {
        Out {
            stream: hio::hstdout().ok(),
            buf: [0; 128],
            len: 0,
        }
    }

    pub fn flush(&mut self) {
        if let (Some(s), Some(b)) = (self.stream.as_mut(), self.buf.get(..self.len)) {
            // Nowhere to report a failed write to.
            let _ = s.write_all(b);
        }
        self.len = 0;
    }

    pub fn byte(&mut self, b: u8) -> &mut Out {
        if self.len >= self.buf.len() {
            self.flush();
        }
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len = self.len.wrapping_add(1);
        }
        self
    }

    pub fn str(&mut self, s: &str) -> &mut Out {
        for &b in s.as_bytes() {
            self.byte(b);
        }
        self
    }

    /// Ends the line and sends it.
    pub fn nl(&mut self) {
        self.byte(b'\n');
        self.flush();
    }

    pub fn usize(&mut self, v: usize) -> &mut Out {
        self.u64(v as u64)
    }

    pub fn u64(&mut self, mut v: u64) -> &mut Out {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            if let Some(d) = digits.get_mut(n) {
                *d = b'0' + (v % 10) as u8;
                n = n.wrapping_add(1);
            }
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for &d in digits.iter().take(n).rev() {
            self.byte(d);
        }
        self
    }

    /// `0x` and 16 hex digits: an f64's exact bits.
    pub fn hex(&mut self, v: u64) -> &mut Out {
        self.str("0x");
        // Shifts by table, digits by table: no arithmetic that carries an overflow check.
        const SHIFTS: [u32; 16] = [60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0];
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        for s in SHIFTS {
            let d = (v.wrapping_shr(s) & 0xf) as usize;
            self.byte(DIGITS.get(d).copied().unwrap_or(b'?'));
        }
        self
    }

    /// `x` with 13 significant digits (`-2.690488492352e-1`).
    pub fn f64(&mut self, x: f64) -> &mut Out {
        self.float(x, 13)
    }

    /// `x` with 8 significant digits (`-2.6904885e-1`), enough to tell f32s apart.
    pub fn f32(&mut self, x: f32) -> &mut Out {
        self.float(f64::from(x), 8)
    }

    /// `x` with `digits` (2 to 16) significant digits. The digits come from scaling by tens,
    /// so the last one may be off by one; the firmware compares bits, not this text.
    fn float(&mut self, x: f64, digits: u32) -> &mut Out {
        if x.is_nan() {
            return self.str("NaN");
        }
        if x.is_sign_negative() {
            self.byte(b'-');
        }
        let mut m = x.abs();
        if m.is_infinite() {
            return self.str("inf");
        }
        if m == 0.0 {
            return self.str("0");
        }
        let mut e: i32 = 0;
        while m >= 10.0 {
            m /= 10.0;
            e = e.wrapping_add(1);
        }
        while m < 1.0 {
            m *= 10.0;
            e = e.wrapping_sub(1);
        }
        // 10^(digits - 1): the scale that puts `digits` digits before the point (non-zero by
        // type, so the divisions below have no division-by-zero panic path).
        let mut scale = NonZeroU64::MIN;
        for _ in 1..digits.clamp(2, 16) {
            scale = scale.saturating_mul(NonZeroU64::MIN.saturating_add(9));
        }
        let mut d = (m * scale.get() as f64 + 0.5) as u64;
        if d >= scale.get().wrapping_mul(10) {
            d /= 10;
            e = e.wrapping_add(1);
        }
        self.u64(d / scale).byte(b'.');
        let frac = d % scale;
        let mut p = scale.get() / 10;
        while p > 0 {
            self.byte(b'0' + ((frac / p) % 10) as u8);
            p /= 10;
        }
        self.byte(b'e');
        if e < 0 {
            self.byte(b'-');
        }
        self.u64(u64::from(e.unsigned_abs()))
    }
}
