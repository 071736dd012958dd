//! The single-precision kernels: each called through its own `#[inline(never)] call_<kernel>`
//! (the unit whose flash `.ci/firmware.sh` reports and whose call graph it checks for
//! soft-float f64 routines), with its stack measured, and its result compared with the f32
//! one the host computed (`build.rs`).

use crate::check::Check;
#[cfg(feature = "canary-f64")]
use crate::kernels::canary::quat_rotate;
#[cfg(not(feature = "canary-f64"))]
use crate::kernels::quat_rotate;
use crate::kernels::{attitude, kalman_f32, layer_f32, mlp_f32, rms_f32, sgd_f32, smooth_f32};
use crate::stack;
use crate::vectors::*;
use core::hint::black_box;
use fsmooth::{Error, Region};

const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}
/// One slab for both networks.
const NET_SCRATCH: usize = max(layer_f32::SCRATCH_LEN, mlp_f32::SCRATCH_LEN);

/// The static slabs of the f32 kernels, `SCRATCH_LEN` 8-byte slots each (the smoother's is a
/// local array instead).
pub struct Slabs {
    net: [f64; NET_SCRATCH],
    kalman: [f64; kalman_f32::SCRATCH_LEN],
    quat: [f64; quat_rotate::SCRATCH_LEN],
    attitude: [f64; attitude::SCRATCH_LEN],
}

impl Slabs {
    pub const fn new() -> Slabs {
        Slabs {
            net: [0.0; NET_SCRATCH],
            kalman: [0.0; kalman_f32::SCRATCH_LEN],
            quat: [0.0; quat_rotate::SCRATCH_LEN],
            attitude: [0.0; attitude::SCRATCH_LEN],
        }
    }
}

#[inline(never)]
fn call_layer_f32(
    o: &mut [f32],
    w: &[f32],
    b: &[f32],
    x: &[f32],
    r: &mut Region,
) -> Result<(), Error> {
    layer_f32(o, w, b, x, r)
}

#[inline(never)]
fn call_mlp_f32(
    o: &mut [f32],
    w1: &[f32],
    w2: &[f32],
    x: &[f32],
    r: &mut Region,
) -> Result<(), Error> {
    mlp_f32(o, w1, w2, x, r)
}

#[inline(never)]
fn call_rms_f32(x: &[f32], r: &mut Region) -> Result<f32, Error> {
    rms_f32(x, r)
}

#[inline(never)]
fn call_smooth_f32(o: &mut [f32], x: &[f32], alpha: f32, r: &mut Region) -> Result<(), Error> {
    smooth_f32(o, x, alpha, r)
}

/// The whole Kalman step in f32, both results at once.
#[inline(never)]
fn call_kalman_f32(
    x1: &mut [f32],
    p1: &mut [f32],
    x: &[f32],
    p: &[f32],
    z: f32,
    r: &mut Region,
) -> Result<(), Error> {
    let (f, q, h) = (
        black_box(&KALMAN_F32_F),
        black_box(&KALMAN_F32_Q),
        black_box(&KALMAN_F32_H),
    );
    kalman_f32(x1, p1, x, p, f, q, h, KALMAN_F32_R, z, r)
}

#[inline(never)]
fn call_quat_rotate(o: &mut [f32], q: &[f32], v: &[f32], r: &mut Region) -> Result<(), Error> {
    quat_rotate(o, q, v, r)
}

#[inline(never)]
fn call_attitude(
    gyro: &[f32],
    acc: &[f32],
    dt: f32,
    k: f32,
    r: &mut Region,
) -> Result<(f32, f32), Error> {
    attitude(gyro, acc, dt, k, r)
}

#[inline(never)]
fn call_sgd_f32(
    w: &mut [f32],
    w0: &[f32],
    b: f32,
    x: &[f32],
    y: &[f32],
    lr: f32,
    r: &mut Region,
) -> Result<(f32, f32), Error> {
    sgd_f32(w, w0, b, x, y, lr, r)
}

/// Runs every f32 kernel and its checks.
pub fn run(c: &mut Check, slabs: &'static mut Slabs) {
    let mut region = Region::from_slab(&mut slabs.net);
    let mut o = [0.0; layer_f32::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let (w, b, x) = (
            black_box(&LAYER_F32_W),
            black_box(&LAYER_F32_B),
            black_box(&LAYER_F32_X),
        );
        call_layer_f32(&mut o, w, b, x, &mut region)
    });
    c.result("layer_f32", r, &o, &LAYER_F32_EXPECTED);
    c.stack("layer_f32", used, layer_f32::SCRATCH_LEN);
    let mut o = [0.0; mlp_f32::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let (w1, w2, x) = (
            black_box(&MLP_F32_W1),
            black_box(&MLP_F32_W2),
            black_box(&LAYER_F32_X),
        );
        call_mlp_f32(&mut o, w1, w2, x, &mut region)
    });
    c.result("mlp_f32", r, &o, &MLP_F32_EXPECTED);
    c.stack("mlp_f32", used, mlp_f32::SCRATCH_LEN);

    // A gradient step: the loss, then the new weights and bias (`out1`).
    let mut slab = [0.0; sgd_f32::SCRATCH_LEN];
    let mut region = Region::from_slab(&mut slab);
    let mut w = [0.0; sgd_f32::OUT1_LEN];
    let (r, used) = stack::measure(|| {
        let (w0, x, y) = (black_box(&SGD_W), black_box(&SGD_X), black_box(&SGD_Y));
        call_sgd_f32(
            &mut w,
            w0,
            black_box(SGD_B),
            x,
            y,
            black_box(SGD_LR),
            &mut region,
        )
    });
    let got = match &r {
        Ok((loss, b)) => [*loss, w[0], w[1], w[2], w[3], *b],
        Err(_) => [f32::NAN; 6],
    };
    c.result("sgd_f32", r, &got, &SGD_EXPECTED);
    c.stack("sgd_f32", used, sgd_f32::SCRATCH_LEN);

    let mut slab = [0.0; rms_f32::SCRATCH_LEN];
    let mut region = Region::from_slab(&mut slab);
    let (r, used) = stack::measure(|| call_rms_f32(black_box(&RMS_F32_X), &mut region));
    let got = match &r {
        Ok(v) => [*v],
        Err(_) => [f32::NAN],
    };
    c.result("rms_f32", r, &got, &RMS_F32_EXPECTED);
    c.stack("rms_f32", used, rms_f32::SCRATCH_LEN);

    let mut slab = [0.0; smooth_f32::SCRATCH_LEN];
    let mut region = Region::from_slab(&mut slab);
    let mut o = [0.0; smooth_f32::OUT_LEN];
    let (r, used) = stack::measure(|| {
        let x = black_box(&SMOOTH_F32_X);
        call_smooth_f32(&mut o, x, black_box(SMOOTH_F32_ALPHA), &mut region)
    });
    c.result("smooth_f32", r, &o, &SMOOTH_F32_EXPECTED);
    c.stack("smooth_f32", used, smooth_f32::SCRATCH_LEN);

    // Eight Kalman steps, each from the previous step's results.
    let mut region = Region::from_slab(&mut slabs.kalman);
    let (mut x, mut p) = (KALMAN_F32_X0, KALMAN_F32_P0);
    let mut peak = 0;
    let steps = KALMAN_F32_Z
        .iter()
        .zip(&KALMAN_F32_X_EXPECTED)
        .zip(&KALMAN_F32_P_EXPECTED);
    for ((&z, want_x), want_p) in steps {
        let mut x1 = [0.0; kalman_f32::OUT0_LEN];
        let mut p1 = [0.0; kalman_f32::OUT1_LEN];
        let (r, used) = stack::measure(|| {
            let (x, p) = (black_box(&x), black_box(&p));
            call_kalman_f32(&mut x1, &mut p1, x, p, black_box(z), &mut region)
        });
        peak = peak.max(used);
        c.result("kalman_f32 (out0)", r, &x1, want_x);
        c.result("kalman_f32 (out1)", r, &p1, want_p);
        (x, p) = (x1, p1);
    }
    c.stack("kalman_f32", peak, kalman_f32::SCRATCH_LEN);

    let mut region = Region::from_slab(&mut slabs.quat);
    let mut peak = 0;
    for ((q, v), want) in QUAT_Q.iter().zip(&QUAT_V).zip(&QUAT_EXPECTED) {
        let mut o = [0.0; quat_rotate::OUT_LEN];
        let (r, used) =
            stack::measure(|| call_quat_rotate(&mut o, black_box(q), black_box(v), &mut region));
        peak = peak.max(used);
        c.result("quat_rotate", r, &o, want);
    }
    c.stack("quat_rotate", peak, quat_rotate::SCRATCH_LEN);

    let mut region = Region::from_slab(&mut slabs.attitude);
    let (r, used) = stack::measure(|| {
        let (gyro, acc) = (black_box(&ATTITUDE_GYRO), black_box(&ATTITUDE_ACC));
        let (dt, k) = (black_box(ATTITUDE_DT), black_box(ATTITUDE_K));
        call_attitude(gyro, acc, dt, k, &mut region)
    });
    let got = r.map_or([f32::NAN; 2], |(roll, pitch)| [roll, pitch]);
    c.result("attitude (roll, pitch)", r, &got, &ATTITUDE_EXPECTED);
    c.stack("attitude", used, attitude::SCRATCH_LEN);

    // Bad calls: errors, not panics, with `out` as it was.
    // (The MLP's hidden layer: the smoother's state is updated in place and needs none.)
    let mut short = [0.0; mlp_f32::SCRATCH_LEN - 1];
    let mut region = Region::from_slab(&mut short);
    let mut o = [7.0; mlp_f32::OUT_LEN];
    let r = call_mlp_f32(&mut o, &MLP_F32_W1, &MLP_F32_W2, &LAYER_F32_X, &mut region);
    let scratch = Error::Scratch {
        needed: mlp_f32::SCRATCH_LEN,
        available: mlp_f32::SCRATCH_LEN - 1,
    };
    let kept = o.iter().all(|&v| v == 7.0);
    c.error(
        "mlp_f32 on a short slab: Error::Scratch",
        r,
        scratch,
        kept,
    );
    let mut region = Region::from_slab(&mut slabs.net);
    let mut o = [7.0; layer_f32::OUT_LEN];
    let x = black_box(&LAYER_F32_X[..7]);
    let r = call_layer_f32(&mut o, &LAYER_F32_W, &LAYER_F32_B, x, &mut region);
    let shape = Error::Shape {
        arg: "x",
        expected: 8,
        found: 7,
    };
    let kept = o.iter().all(|&v| v == 7.0);
    c.error("layer_f32 with 7 inputs: Error::Shape", r, shape, kept);
    let mut region = Region::from_slab(&mut slabs.kalman);
    let (mut x1, mut p1) = ([7.0; kalman_f32::OUT0_LEN], [7.0; kalman_f32::OUT1_LEN - 1]);
    let (x, p) = (&KALMAN_F32_X0, &KALMAN_F32_P0);
    let r = call_kalman_f32(&mut x1, &mut p1, x, p, 0.5, &mut region);
    let shape = Error::Shape {
        arg: "out1",
        expected: kalman_f32::OUT1_LEN,
        found: kalman_f32::OUT1_LEN - 1,
    };
    let kept = x1.iter().chain(&p1).all(|&v| v == 7.0);
    c.error("kalman_f32 with a short out1: Error::Shape", r, shape, kept);
}
