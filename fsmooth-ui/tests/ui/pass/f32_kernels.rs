// f32 kernels (LANGUAGE.md section 11): unsuffixed literals take their type from the context
// (operands, declared types, branches, math arguments, `ifold` starts, call parameters), and
// the prelude works on f32 vectors and matrices. Run against plain f32 Rust: the results must
// be bit for bit those of the same operations.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    /// A leaky ReLU with a gain.
    pub fn leaky(x: [f32; n], gain: f32) -> [f32; n] {
        map(x, |v| if v > 0.0 { v * gain } else { 0.01 * v })
    }

    /// The mean and the variance, accumulated from `0.0` starts.
    pub fn moments(x: [f32; n]) -> (f32, f32) {
        let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + x[i], q + x[i] * x[i]));
        let m = s / (n as f32);
        (m, (q / (n as f32) - m * m).max(0.0))
    }

    /// The prelude at f32: a damped step of a linear system.
    pub fn step(a: [[f32; m]; m], v: [f32; m], dt: f32) -> [f32; m] {
        let half = 0.5;
        add(v, smul(matvec(a, v), dt * half))
    }

    /// Softmax with the prelude's `logsumexp` and `norm`.
    pub fn softmax(x: [f32; n]) -> [f32; n] {
        let l = logsumexp(x);
        let p = build(n, |i| (x[i] - l).exp());
        smul(p, 1.0 / norm(p).max(1e-30))
    }

    /// Clamped, with literals as math arguments and a negative literal.
    pub fn clip(x: [f32; n]) -> [f32; n] {
        build(n, |i| x[i].clamp(-1.0, 1.0).mul_add(2.0, -0.5))
    }

    /// An f32 result from an f64 computation, converted where written.
    pub fn mixed(x: [f64; n]) -> [f32; n] {
        build(n, |i| (x[i] * 2.0) as f32 + 1.0)
    }
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let x: [f32; 5] = [0.5, -1.25, 2.0, 3.5, -0.75];

    let mut out = [0.0f32; 5];
    leaky(&mut out, &x, 3.0, &mut region)?;
    for i in 0..5 {
        let want = if x[i] > 0.0 { x[i] * 3.0 } else { 0.01f32 * x[i] };
        assert_eq!(out[i].to_bits(), want.to_bits(), "leaky[{i}]");
    }

    let (m, var) = moments(&x, &mut region)?;
    let (mut s, mut q) = (0.0f32, 0.0f32);
    for v in x {
        s += v;
        q += v * v;
    }
    let mm = s / 5.0;
    assert_eq!(m.to_bits(), mm.to_bits());
    assert_eq!(var.to_bits(), (q / 5.0 - mm * mm).max(0.0).to_bits());

    let a: [f32; 4] = [0.0, 1.0, -1.0, 0.0];
    let v: [f32; 2] = [1.0, 0.5];
    let mut next = [0.0f32; 2];
    step(&mut next, &a, &v, 0.1, &mut region)?;
    for i in 0..2 {
        let av = (-0.0f32 + a[2 * i] * v[0]) + a[2 * i + 1] * v[1];
        let want = v[i] + av * (0.1f32 * 0.5);
        assert!((next[i] - want).abs() <= 1e-6, "step[{i}] = {} vs {want}", next[i]);
    }

    let mut p = [0.0f32; 5];
    softmax(&mut p, &x, &mut region)?;
    let norm: f32 = p.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5, "{norm}");
    assert!(p.iter().all(|v| *v > 0.0));

    let mut c = [0.0f32; 5];
    clip(&mut c, &x, &mut region)?;
    for i in 0..5 {
        let want = x[i].max(-1.0).min(1.0).mul_add(2.0, -0.5);
        assert_eq!(c[i].to_bits(), want.to_bits(), "clip[{i}]");
    }

    let y = [0.25f64, 1.5];
    let mut z = [0.0f32; 2];
    mixed(&mut z, &y, &mut region)?;
    assert_eq!(z, [1.5f32, 4.0]);
    Ok(())
}
