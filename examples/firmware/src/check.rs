//! The tally of checks: each kernel result against the host's, each bad call against the error
//! it must return, printed as they go.

use crate::out::Out;
use fsmooth::Error;

/// A float type the firmware checks results in, with its agreement with the host.
pub trait Float: Copy {
    /// Distance in ulps from `b` (the count of representable values between; finite values).
    fn ulps(self, b: Self) -> u64;
    /// Agreement with the host's value `b`.
    fn close(self, b: Self) -> bool;
    /// Prints the value.
    fn print(self, out: &mut Out);
    /// The value's bits, for a failure report.
    fn bits(self) -> u64;
}

/// f64: within 4 ulps, or 1e-12 relative. Basic operations are IEEE on both sides and in the
/// same order, so only libm (here) and glibc (on the host) differ, by an ulp or two per call.
impl Float for f64 {
    fn ulps(self, b: f64) -> u64 {
        let ord = |x: f64| {
            let i = x.to_bits() as i64;
            if i < 0 { i64::MIN.wrapping_sub(i) } else { i }
        };
        ord(self).wrapping_sub(ord(b)).unsigned_abs()
    }
    fn close(self, b: f64) -> bool {
        !self.is_nan()
            && !b.is_nan()
            && (self.ulps(b) <= 4 || (self - b).abs() <= 1e-12 * self.abs().max(b.abs()))
    }
    fn print(self, out: &mut Out) {
        out.f64(self);
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// f32: within 4 ulps, or 1e-5 relative. As for f64, the basic operations agree bit for bit
/// (IEEE single precision on the FPU and on the host, no fused multiply-add, the same order),
/// so differences come from libm's `expf`, `tanhf` and `atan2f` against glibc's, each within
/// an ulp or two. An ulp of f32 is 6e-8 relative, and such a difference grows when later
/// steps amplify it: a second layer's dot product whose terms cancel, 32 steps of the
/// attitude filter. 1e-5 (about 100 f32 ulps) allows for that and still rejects any real
/// error (a wrong operand or operation is off by far more). Whether a kernel computes in f32
/// at all is not for this check to tell (f64 intermediates would make it closer to the
/// host, not further): `.ci/firmware.sh` checks that in the machine code.
impl Float for f32 {
    fn ulps(self, b: f32) -> u64 {
        let ord = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 { i32::MIN.wrapping_sub(i) } else { i }
        };
        u64::from(ord(self).wrapping_sub(ord(b)).unsigned_abs())
    }
    fn close(self, b: f32) -> bool {
        !self.is_nan()
            && !b.is_nan()
            && (self.ulps(b) <= 4 || (self - b).abs() <= 1e-5 * self.abs().max(b.abs()))
    }
    fn print(self, out: &mut Out) {
        out.f32(self);
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

/// The tally of checks, printed as they go.
pub struct Check {
    pub out: Out,
    pub checks: usize,
    pub failures: usize,
}

impl Check {
    pub fn new() -> Check {
        Check {
            out: Out::new(),
            checks: 0,
            failures: 0,
        }
    }

    fn pass_fail(&mut self, ok: bool) {
        self.checks = self.checks.wrapping_add(1);
        if !ok {
            self.failures = self.failures.wrapping_add(1);
        }
        self.out.str(if ok { "ok    " } else { "FAIL  " });
    }

    /// One kernel call: it must have succeeded and `got` must match the host's `want`.
    pub fn result<T: Float, S>(&mut self, what: &str, r: Result<S, Error>, got: &[T], want: &[T]) {
        let mut worst = 0;
        let mut ok = r.is_ok() && got.len() == want.len();
        for (&g, &w) in got.iter().zip(want) {
            ok &= g.close(w);
            worst = worst.max(g.ulps(w));
        }
        self.pass_fail(ok);
        self.out.str(what);
        if r.is_err() {
            self.out.str(": the kernel returned an error").nl();
            return;
        }
        self.out
            .str(": max ")
            .u64(worst)
            .str(" ulps from the host; ");
        // `zip` with a range, not `enumerate`: no counter with an overflow check.
        for (k, &g) in (0..4usize).zip(got) {
            self.out.str(if k == 0 { "[" } else { ", " });
            g.print(&mut self.out);
        }
        self.out.str(if got.len() > 4 { ", ..]" } else { "]" }).nl();
        if !ok {
            for (&g, &w) in got.iter().zip(want) {
                self.out.str("        got ");
                g.print(&mut self.out);
                self.out.str(" (").hex(g.bits()).str("), host ");
                w.print(&mut self.out);
                self.out.str(" (").hex(w.bits());
                self.out.str("): ").u64(g.ulps(w)).str(" ulps").nl();
            }
        }
    }

    /// A bad call: it must return `want`.
    pub fn error<S>(&mut self, what: &str, r: Result<S, Error>, want: Error, out_kept: bool) {
        self.pass_fail(matches!(r, Err(e) if e == want) && out_kept);
        self.out.str(what).nl();
    }

    /// The stack a kernel used, and its slab (`SCRATCH_LEN` slots of 8 bytes, whatever the
    /// element type).
    pub fn stack(&mut self, kernel: &str, bytes: usize, scratch: usize) {
        self.out
            .str("      ")
            .str(kernel)
            .str(": stack ")
            .usize(bytes);
        self.out.str(" B, scratch ").usize(scratch).str(" slots (");
        self.out.usize(scratch.wrapping_mul(8)).str(" B)").nl();
    }
}
