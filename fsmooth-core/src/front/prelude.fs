// The fsmooth prelude (LANGUAGE.md section 6), written in fsmooth and compiled by the same
// pipeline as user code: every block sees these helpers. User functions of the same name
// shadow them.

// Generic in the element type (LANGUAGE.md section 11): `T` is `f64` or `f32`, and the
// literals take `T` from the context (`-0.0` in `sum` is an f32 zero for f32 vectors).
// `map`, `map2` and `transpose` also take rows; the others work on scalars (a row bound to
// their `T` is reported as an argument of the wrong rank).
fn map(v: [T; n], f: fn(T) -> U) -> [U; n] {
    build(n, |i| f(v[i]))
}

fn map2(a: [T; n], b: [V; n], f: fn(T, V) -> U) -> [U; n] {
    build(n, |i| f(a[i], b[i]))
}

fn add(a: [T; n], b: [T; n]) -> [T; n] {
    build(n, |i| a[i] + b[i])
}

fn sub(a: [T; n], b: [T; n]) -> [T; n] {
    build(n, |i| a[i] - b[i])
}

fn emul(a: [T; n], b: [T; n]) -> [T; n] {
    build(n, |i| a[i] * b[i])
}

fn smul(v: [T; n], s: T) -> [T; n] {
    build(n, |i| v[i] * s)
}

// From -0.0, as Rust's `Iterator::sum` for floats: `-0.0 + x` is exactly `x` for every x
// (`0.0 + -0.0` is `0.0`), so the first addition of a written-out sum folds away.
fn sum(v: [T; n]) -> T {
    ifold(n, -0.0, |acc, i| acc + v[i])
}

fn dot(a: [T; n], b: [T; n]) -> T {
    sum(emul(a, b))
}

fn sqnorm(v: [T; n]) -> T {
    dot(v, v)
}

fn norm(v: [T; n]) -> T {
    sqnorm(v).sqrt()
}

fn vmax(v: [T; n]) -> T {
    ifold(n, -1.0 / 0.0, |acc, i| acc.max(v[i]))
}

fn logsumexp(v: [T; n]) -> T {
    let mx = vmax(v);
    sum(build(n, |i| (v[i] - mx).exp())).ln() + mx
}

fn cross(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn transpose(m: [[T; c]; r]) -> [[T; r]; c] {
    build(c, |j| build(r, |i| m[i][j]))
}

fn matmul(a: [[T; k]; n], b: [[T; m]; k]) -> [[T; m]; n] {
    let bt = transpose(b);
    build(n, |i| build(m, |j| dot(a[i], bt[j])))
}

fn matvec(a: [[T; m]; n], v: [T; m]) -> [T; n] {
    build(n, |i| dot(a[i], v))
}

fn outer(a: [T; n], b: [T; m]) -> [[T; m]; n] {
    build(n, |i| build(m, |j| a[i] * b[j]))
}

fn madd(a: [[T; m]; n], b: [[T; m]; n]) -> [[T; m]; n] {
    build(n, |i| add(a[i], b[i]))
}

fn msub(a: [[T; m]; n], b: [[T; m]; n]) -> [[T; m]; n] {
    build(n, |i| sub(a[i], b[i]))
}

fn msmul(a: [[T; m]; n], s: T) -> [[T; m]; n] {
    build(n, |i| smul(a[i], s))
}
