// The fsmooth prelude (LANGUAGE.md section 6), written in fsmooth and compiled by the same
// pipeline as user code: every block sees these helpers. User functions of the same name
// shadow them.

// Generic in the element types (LANGUAGE.md section 9): rows in, scalars out, and so on.
fn map(v: [T; n], f: fn(T) -> U) -> [U; n] {
    build(n, |i| f(v[i]))
}

fn map2(a: [T; n], b: [T; n], f: fn(T, T) -> U) -> [U; n] {
    build(n, |i| f(a[i], b[i]))
}

fn add(a: [f64; n], b: [f64; n]) -> [f64; n] {
    build(n, |i| a[i] + b[i])
}

fn sub(a: [f64; n], b: [f64; n]) -> [f64; n] {
    build(n, |i| a[i] - b[i])
}

fn emul(a: [f64; n], b: [f64; n]) -> [f64; n] {
    build(n, |i| a[i] * b[i])
}

fn smul(v: [f64; n], s: f64) -> [f64; n] {
    build(n, |i| v[i] * s)
}

// From -0.0, as Rust's `Iterator::sum` for floats: `-0.0 + x` is exactly `x` for every x
// (`0.0 + -0.0` is `0.0`), so the first addition of a written-out sum folds away.
fn sum(v: [f64; n]) -> f64 {
    ifold(n, -0.0, |acc, i| acc + v[i])
}

fn dot(a: [f64; n], b: [f64; n]) -> f64 {
    sum(emul(a, b))
}

fn sqnorm(v: [f64; n]) -> f64 {
    dot(v, v)
}

fn norm(v: [f64; n]) -> f64 {
    sqnorm(v).sqrt()
}

fn vmax(v: [f64; n]) -> f64 {
    ifold(n, -1.0 / 0.0, |acc, i| acc.max(v[i]))
}

fn logsumexp(v: [f64; n]) -> f64 {
    let mx = vmax(v);
    sum(build(n, |i| (v[i] - mx).exp())).ln() + mx
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn transpose(m: [[f64; c]; r]) -> [[f64; r]; c] {
    build(c, |j| build(r, |i| m[i][j]))
}

fn matmul(a: [[f64; k]; n], b: [[f64; m]; k]) -> [[f64; m]; n] {
    let bt = transpose(b);
    build(n, |i| build(m, |j| dot(a[i], bt[j])))
}

fn matvec(a: [[f64; m]; n], v: [f64; m]) -> [f64; n] {
    build(n, |i| dot(a[i], v))
}

fn outer(a: [f64; n], b: [f64; m]) -> [[f64; m]; n] {
    build(n, |i| build(m, |j| a[i] * b[j]))
}

fn madd(a: [[f64; m]; n], b: [[f64; m]; n]) -> [[f64; m]; n] {
    build(n, |i| add(a[i], b[i]))
}

fn msub(a: [[f64; m]; n], b: [[f64; m]; n]) -> [[f64; m]; n] {
    build(n, |i| sub(a[i], b[i]))
}

fn msmul(a: [[f64; m]; n], s: f64) -> [[f64; m]; n] {
    build(n, |i| smul(a[i], s))
}
