//! fsmooth kernels on a Cortex-M4F: no std, no allocator, no panic path.
//!
//! Runs the kernels of [`kernels`] on inputs generated on the host by `build.rs`, compares
//! every result with the one plain Rust computed there (std's math on the host, libm's here:
//! a few ulps, 1e-12 relative at most in f64, 1e-5 in f32; see [`check`]), checks that bad
//! calls return errors, prints it all over semihosting and exits 0 only if everything
//! matched. The f32 kernels run in [`single`]. `cargo run --release` boots it on
//! QEMU's `mps2-an386`; `.ci/firmware.sh` does that in CI.
//!
//! Every scratch frame is a static slab of exactly the kernel's `SCRATCH_LEN` (or a local
//! array), and the panic handler calls a symbol that does not exist: if any panic were
//! reachable, from a kernel or from this file, the firmware would not link.
#![no_std]
#![no_main]

mod check;
mod kernels;
mod out;
mod single;
mod stack;

/// Inputs and the results plain Rust computes for them on the host (see `build.rs`).
#[allow(clippy::approx_constant, clippy::excessive_precision)]
mod vectors {
    include!(concat!(env!("OUT_DIR"), "/vectors.rs"));
}

use check::Check;
use core::hint::black_box;
use cortex_m_rt::entry;
use cortex_m_semihosting::debug;
use fsmooth::{Error, Region};
use kernels::{kalman, kalman_p, kalman_x, layer, mlp, project, reproj_errors, smooth, smooth_all};
use vectors::*;

const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}
/// One slab for both halves of the Kalman step: a region serves one call at a time.
const KALMAN_SCRATCH: usize = max(
    max(kalman_x::SCRATCH_LEN, kalman_p::SCRATCH_LEN),
    kalman::SCRATCH_LEN,
);
/// One slab for both networks.
const NET_SCRATCH: usize = max(layer::SCRATCH_LEN, mlp::SCRATCH_LEN);

// One non-inlined function per kernel: the unit whose flash `.ci/firmware.sh` reports, and
// the call whose stack `stack::measure` sees. The kernels are inlined into them.

#[inline(never)]
fn call_project(o: &mut [f64], cam: &[f64], x: &[f64], r: &mut Region) -> Result<(), Error> {
    project(o, cam, x, r)
}

#[inline(never)]
fn call_reproj_errors(
    o: &mut [f64],
    cams: &[f64],
    points: &[f64],
    w: &[f64],
    feats: &[f64],
    r: &mut Region,
) -> Result<(), Error> {
    reproj_errors(o, cams, points, w, feats, r)
}

/// The Kalman step's new state, from the previous step's `x` and `p`.
#[inline(never)]
fn call_kalman_x(o: &mut [f64], x: &[f64], p: &[f64], z: f64, r: &mut Region) -> Result<(), Error> {
    let (f, q, h) = (
        black_box(&KALMAN_F),
        black_box(&KALMAN_Q),
        black_box(&KALMAN_H),
    );
    kalman_x(o, x, p, f, q, h, KALMAN_R, z, r)
}

/// The Kalman step's new covariance, from the previous step's `p`.
#[inline(never)]
fn call_kalman_p(o: &mut [f64], p: &[f64], r: &mut Region) -> Result<(), Error> {
    let (f, q, h) = (
        black_box(&KALMAN_F),
        black_box(&KALMAN_Q),
        black_box(&KALMAN_H),
    );
    kalman_p(o, p, f, q, h, KALMAN_R, r)
}

/// The whole Kalman step, both results at once.
#[inline(never)]
fn call_kalman(
    x1: &mut [f64],
    p1: &mut [f64],
    x: &[f64],
    p: &[f64],
    z: f64,
    r: &mut Region,
) -> Result<(), Error> {
    let (f, q, h) = (
        black_box(&KALMAN_F),
        black_box(&KALMAN_Q),
        black_box(&KALMAN_H),
    );
    kalman(x1, p1, x, p, f, q, h, KALMAN_R, z, r)
}

#[inline(never)]
fn call_smooth_all(o: &mut [f64], x: &[f64], alpha: f64, r: &mut Region) -> Result<(), Error> {
    smooth_all(o, x, alpha, r)
}

#[inline(never)]
fn call_layer(o: &mut [f64], w: &[f64], b: &[f64], x: &[f64], r: &mut Region) -> Result<(), Error> {
    layer(o, w, b, x, r)
}

#[inline(never)]
fn call_mlp(o: &mut [f64], w1: &[f64], w2: &[f64], x: &[f64], r: &mut Region) -> Result<(), Error> {
    mlp(o, w1, w2, x, r)
}

#[inline(never)]
fn call_smooth(o: &mut [f64], x: &[f64], alpha: f64, r: &mut Region) -> Result<(), Error> {
    smooth(o, x, alpha, r)
}

#[entry]
fn main() -> ! {
    // Static slabs. cortex-m-rt hands each `static mut` declared at the top of the entry
    // function to it as a `&'static mut`, safely: the entry function runs once.
    static mut PROJECT_SLAB: [f64; project::SCRATCH_LEN] = [0.0; project::SCRATCH_LEN];
    static mut BA_SLAB: [f64; reproj_errors::scratch_len(BA_N, BA_M, BA_P)] =
        [0.0; reproj_errors::scratch_len(BA_N, BA_M, BA_P)];
    static mut KALMAN_SLAB: [f64; KALMAN_SCRATCH] = [0.0; KALMAN_SCRATCH];
    static mut NET_SLAB: [f64; NET_SCRATCH] = [0.0; NET_SCRATCH];
    static mut SINGLE_SLABS: single::Slabs = single::Slabs::new();

    let mut c = Check::new();
    c.out
        .str("fsmooth firmware: Cortex-M4F, no_std, no allocator, libm")
        .nl();

    // BA: one camera projection per case, then ADBench's reprojection errors.
    let mut region = Region::from_slab(PROJECT_SLAB);
    let mut peak = 0;
    let cases = PROJECT_CAMS
        .iter()
        .zip(&PROJECT_POINTS)
        .zip(&PROJECT_EXPECTED);
    for ((cam, x), want) in cases {
        let mut o = [0.0; project::OUT_LEN];
        let (r, used) =
            stack::measure(|| call_project(&mut o, black_box(cam), black_box(x), &mut region));
        peak = peak.max(used);
        c.result("project", r, &o, want);
    }
    c.stack("project", peak, project::SCRATCH_LEN);

    let mut region = Region::from_slab(BA_SLAB);
    let mut o = [0.0; reproj_errors::out_len(BA_N, BA_M, BA_P)];
    let (r, used) = stack::measure(|| {
        let (cams, points) = (black_box(&BA_CAMS), black_box(&BA_POINTS));
        let (w, feats) = (black_box(&BA_W), black_box(&BA_FEATS));
        call_reproj_errors(&mut o, cams, points, w, feats, &mut region)
    });
    c.result("reproj_errors (ADBench ba/test.txt)", r, &o, &BA_EXPECTED);
    c.stack(
        "reproj_errors",
        used,
        reproj_errors::scratch_len(BA_N, BA_M, BA_P),
    );

    // Kalman: eight steps, each from the previous step's results.
    let mut region = Region::from_slab(KALMAN_SLAB);
    let (mut x, mut p) = (KALMAN_X0, KALMAN_P0);
    let (mut peak_x, mut peak_p) = (0, 0);
    let steps = KALMAN_Z
        .iter()
        .zip(&KALMAN_X_EXPECTED)
        .zip(&KALMAN_P_EXPECTED);
    for ((&z, want_x), want_p) in steps {
        let mut x1 = [0.0; kalman_x::OUT_LEN];
        let mut p1 = [0.0; kalman_p::OUT_LEN];
        let (rx, used) = stack::measure(|| {
            call_kalman_x(
                &mut x1,
                black_box(&x),
                black_box(&p),
                black_box(z),
                &mut region,
            )
        });
        peak_x = peak_x.max(used);
        let (rp, used) = stack::measure(|| call_kalman_p(&mut p1, black_box(&p), &mut region));
        peak_p = peak_p.max(used);
        c.result("kalman_x", rx, &x1, want_x);
        c.result("kalman_p", rp, &p1, want_p);
        (x, p) = (x1, p1);
    }
    c.stack("kalman_x", peak_x, kalman_x::SCRATCH_LEN);
    c.stack("kalman_p", peak_p, kalman_p::SCRATCH_LEN);

    // The same eight steps with the two-result kernel.
    let (mut x, mut p) = (KALMAN_X0, KALMAN_P0);
    let mut peak = 0;
    let steps = KALMAN_Z
        .iter()
        .zip(&KALMAN_X_EXPECTED)
        .zip(&KALMAN_P_EXPECTED);
    for ((&z, want_x), want_p) in steps {
        let mut x1 = [0.0; kalman::OUT0_LEN];
        let mut p1 = [0.0; kalman::OUT1_LEN];
        let (r, used) = stack::measure(|| {
            call_kalman(
                &mut x1,
                &mut p1,
                black_box(&x),
                black_box(&p),
                black_box(z),
                &mut region,
            )
        });
        peak = peak.max(used);
        c.result("kalman (out0)", r, &x1, want_x);
        c.result("kalman (out1)", r, &p1, want_p);
        (x, p) = (x1, p1);
    }
    c.stack("kalman", peak, kalman::SCRATCH_LEN);
    // A wrong `out1` is an error before anything is written: `out0` keeps its values.
    let (mut x1, mut p1) = ([7.0; kalman::OUT0_LEN], [7.0; kalman::OUT1_LEN - 1]);
    let r = call_kalman(&mut x1, &mut p1, &KALMAN_X0, &KALMAN_P0, 0.5, &mut region);
    let shape = Error::Shape {
        arg: "out1",
        expected: kalman::OUT1_LEN,
        found: kalman::OUT1_LEN - 1,
    };
    let kept = x1.iter().chain(&p1).all(|&v| v == 7.0);
    c.error("kalman with a short out1: Error::Shape", r, shape, kept);

    // The networks share a slab.
    let mut region = Region::from_slab(NET_SLAB);
    let mut o = [0.0; layer::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let (w, b, x) = (
            black_box(&LAYER_W),
            black_box(&LAYER_B),
            black_box(&LAYER_X),
        );
        call_layer(&mut o, w, b, x, &mut region)
    });
    c.result("layer", r, &o, &LAYER_EXPECTED);
    c.stack("layer", used, layer::SCRATCH_LEN);
    let mut o = [0.0; mlp::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let (w1, w2, x) = (black_box(&MLP_W1), black_box(&MLP_W2), black_box(&LAYER_X));
        call_mlp(&mut o, w1, w2, x, &mut region)
    });
    c.result("mlp", r, &o, &MLP_EXPECTED);
    c.stack("mlp", used, mlp::SCRATCH_LEN);

    // The smoother's slab is a local array.
    let mut slab = [0.0; smooth::SCRATCH_LEN];
    let mut region = Region::from_slab(&mut slab);
    let mut o = [0.0; smooth::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let x = black_box(&SMOOTH_X);
        call_smooth(&mut o, x, black_box(SMOOTH_ALPHA), &mut region)
    });
    c.result("smooth", r, &o, &SMOOTH_EXPECTED);
    c.stack("smooth", used, smooth::SCRATCH_LEN);

    // Its scan: a static slab would be empty, so a local one of the same constant.
    let mut slab = [0.0; smooth_all::SCRATCH_LEN];
    let mut region = Region::from_slab(&mut slab);
    let mut o = [0.0; smooth_all::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let x = black_box(&SMOOTH_X);
        call_smooth_all(&mut o, x, black_box(SMOOTH_ALPHA), &mut region)
    });
    c.result("smooth_all (scan)", r, &o, &SMOOTH_ALL_EXPECTED);
    c.stack("smooth_all", used, smooth_all::SCRATCH_LEN);

    // Bad calls are errors, not panics, and leave `out` as it was.
    // (The MLP's hidden layer: the smoother's state is updated in place in `out` and needs
    // none, and the Kalman kernels' 4 x 4 products are written out.)
    let mut short = [0.0; mlp::SCRATCH_LEN - 1];
    let mut region = Region::from_slab(&mut short);
    let mut o = [7.0; mlp::OUT_LEN];
    let r = call_mlp(&mut o, &MLP_W1, &MLP_W2, &LAYER_X, &mut region);
    let scratch = Error::Scratch {
        needed: mlp::SCRATCH_LEN,
        available: mlp::SCRATCH_LEN - 1,
    };
    let kept = o.iter().all(|&v| v == 7.0);
    c.error("mlp on a short slab: Error::Scratch", r, scratch, kept);
    let mut region = Region::from_slab(NET_SLAB);
    let mut o = [7.0; layer::OUT_LEN];
    let x = black_box(&LAYER_X[..7]);
    let r = call_layer(&mut o, &LAYER_W, &LAYER_B, x, &mut region);
    let shape = Error::Shape {
        arg: "x",
        expected: 8,
        found: 7,
    };
    let kept = o.iter().all(|&v| v == 7.0);
    c.error("layer with 7 inputs: Error::Shape", r, shape, kept);

    single::run(&mut c, SINGLE_SLABS);

    #[cfg(feature = "canary-panic")]
    {
        // An index nothing proves in bounds: a panic path, so this build must not link.
        let i = black_box(3usize);
        c.out.f64(black_box(&LAYER_X[..])[i]).nl();
    }

    c.out
        .usize(c.checks.wrapping_sub(c.failures))
        .str(" of ")
        .usize(c.checks);
    c.out.str(" checks passed").nl();
    debug::exit(if c.failures == 0 {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

/// The no-panic guard of optimised builds: this handler calls a function that exists nowhere,
/// so the firmware links only if the optimiser removed every path to a panic. (Unoptimised
/// builds keep overflow and bounds checks the optimiser would remove, so they get the
/// ordinary handler below.)
#[cfg(not(any(feature = "locate-panics", debug_assertions)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe extern "Rust" {
        fn fsmooth_firmware_has_a_reachable_panic() -> !;
    }
    // SAFETY: never runs: the symbol is undefined, so a firmware that can get here fails to
    // link.
    unsafe { fsmooth_firmware_has_a_reachable_panic() }
}

/// With `locate-panics` (and in dev builds), an ordinary handler, so that the firmware links
/// and its panic paths can be found in the disassembly (`.ci/firmware.sh` does so when the
/// guard fires).
#[cfg(any(feature = "locate-panics", debug_assertions))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
