//! The naive variant's library: fsmooth's prelude as plain Rust functions, each array
//! operation returning a fresh `Vec` (no fusion, no destination passing), scalar reductions
//! allocating nothing. Matrices are flat and row-major with their sizes passed along.

pub fn add(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

pub fn sub(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

pub fn smul(v: &[f64], s: f64) -> Vec<f64> {
    v.iter().map(|x| x * s).collect()
}

pub fn map(v: &[f64], f: impl Fn(f64) -> f64) -> Vec<f64> {
    v.iter().map(|&x| f(x)).collect()
}

pub fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn sqnorm(v: &[f64]) -> f64 {
    dot(v, v)
}

pub fn vmax(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

pub fn logsumexp(v: &[f64]) -> f64 {
    let mx = vmax(v);
    v.iter().map(|x| (x - mx).exp()).sum::<f64>().ln() + mx
}

pub fn cross(a: &[f64], b: &[f64]) -> Vec<f64> {
    vec![
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a` (n x k) times `b` (k x m), the textbook triple loop.
pub fn matmul(a: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            let mut s = 0.0;
            for l in 0..k {
                s += a[i * k + l] * b[l * m + j];
            }
            c[i * m + j] = s;
        }
    }
    c
}

/// The transpose of `a` (n x m).
pub fn transpose(a: &[f64], n: usize, m: usize) -> Vec<f64> {
    let mut t = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            t[j * n + i] = a[i * m + j];
        }
    }
    t
}

/// `a` (n x m) times the vector `v` (m).
pub fn matvec(a: &[f64], v: &[f64]) -> Vec<f64> {
    a.chunks_exact(v.len()).map(|row| dot(row, v)).collect()
}

pub fn outer(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| x * y))
        .collect()
}
