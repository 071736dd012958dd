//! Stack high-water mark of one call, measured on the target: paint the free stack below the
//! caller's frame, make the call, and see how far down the paint was scrubbed off.

use core::ptr::{read_volatile, write_volatile};

const PAINT: u32 = 0xCCCC_CCCC;
/// Bytes of stack painted below the caller (plenty for these kernels).
const WINDOW: usize = 16 * 1024;

unsafe extern "C" {
    /// The lowest address the stack may grow to (cortex-m-rt's linker script: the end of
    /// `.bss`).
    static _stack_end: u32;
}

/// Runs `f` and returns its result with the bytes of stack it used (its frames and those of
/// everything it called). `f` should call an `#[inline(never)]` function: this function is
/// inlined into its caller, so the stack pointer read here is the one the call starts from.
#[inline(always)]
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let sp = cortex_m::register::msp::read() as usize & !3;
    let floor = &raw const _stack_end as usize;
    let bottom = sp.saturating_sub(WINDOW).max(floor);
    let mut a = bottom;
    while a < sp {
        // SAFETY: [bottom, sp) lies between the end of `.bss` and the live stack: memory no
        // frame and no static occupies (this firmware runs no interrupt handlers).
        unsafe { write_volatile(a as *mut u32, PAINT) };
        a = a.wrapping_add(4);
    }
    let r = f();
    let mut a = bottom;
    // SAFETY: as above; the frames that used this memory have returned.
    while a < sp && unsafe { read_volatile(a as *const u32) } == PAINT {
        a = a.wrapping_add(4);
    }
    (r, sp.wrapping_sub(a))
}
