pub fn gather(a: [f64; n], idx: [usize; g]) -> [f64; g] { build(g, |j| a[idx[j]]) }
pub fn reproj(cams: [[f64; 11]; nc], pts: [[f64; 3]; np], obs: [[usize; 2]; p]) -> [f64; p] {
    build(p, |j| dot(cams[obs[j][0]][3..6], pts[obs[j][1]]) * cams[obs[j][0]][6])
}
pub fn argmax_rows(m: [[f64; c]; r], c: usize) -> [usize; r] {
    build(r, |i| ifold(c, 0, |best, j| if m[i][j] > m[i][best] { j } else { best }))
}
pub fn neighbours(a: [f64; n]) -> [f64; n] { build(n, |i| a[(i + 1).min(n - 1)] - a[i.max(1) - 1] + a[(i * 2).clamp(1, n - 1)]) }
pub fn bucket(x: [f64; n], k: usize) -> [usize; n] { build(n, |i| (x[i].abs().min(k as f64)) as usize) }
pub fn rev_idx(idx: [usize; g], a: [f64; n]) -> ([usize; g], f64) { (reverse(idx), sum(map(idx, |k| a[k % n]))) }
====
pub fn saxpy(x: [f32; n], y: [f32; n], a: f32) -> [f32; n] { build(n, |i| a * x[i] + y[i] * 2.0) }
pub fn energy(x: [f32; n]) -> f32 { sum(map(x, |v| v * v * 0.5)) }
pub fn mixed(x: [f32; n], s: f64) -> f64 { (sum(x) as f64) * s + (s as f32).sqrt() as f64 }
pub fn angles(y: [f32; n], x: [f32; n]) -> [f32; n] {
    map2(y, x, |a, b| a.atan2(b).clamp(-1.5, 1.5) + a.hypot(b).cbrt())
}
pub fn cat(a: [f32; n], b: [f32; m]) -> [f32; n + m + 2] { pad(concat(a, reverse(b)), 1, 1, 0.5f32) }
====
fn norm2(v: [T; n]) -> T { ifold(n, 0.0, |acc, i| acc + v[i] * v[i]) }
pub fn biquad(x: [f32; n], b0: f32, b1: f32, a1: f32) -> [f32; n] {
    scan(n, (0.0f32, 0.0f32), |(y, xp), i| (b0 * x[i] + b1 * xp - a1 * y, x[i])).0
}
pub fn stats(x: [f32; n]) -> (f32, usize) {
    (norm2(x).sqrt(), ifold(n, 0, |best, i| if x[i] > x[best] { i } else { best }))
}
pub fn methods(x: f32, y: f64) -> (f32, f64) {
    (x.asin() + x.acos() + x.atan() + x.sinh() + x.cosh() + x.exp2() + x.log2() + x.log10() + x.signum() + x.mul_add(2.0, 1.0) + 2.0f32,
     y.tan().clamp(-1.0, 1.0) + y.cbrt() + (x as f64) * 0.5)
}
pub fn hist(x: [f32; n], lo: f32, hi: f32, bins: usize) -> [usize; n] {
    build(n, |i| ((x[i] - lo) / (hi - lo) * (bins as f32)).max(0.0).min((bins - 1) as f32) as usize)
}
====
fn loss(w: [f64; n], x: [[f64; n]; p], y: [f64; p]) -> f64 { ifold(p, 0.0, |acc, i| { let e = dot(w, x[i]) - y[i]; acc + e * e }) }
pub fn step(w: [f64; n], x: [[f64; n]; p], y: [f64; p]) -> (f64, [f64; n]) { grad(|v| loss(v, x, y), w) }
pub fn slope(w: [f64; n], x: [[f64; n]; p], y: [f64; p], t: [f64; n]) -> (f64, f64) { jvp(|v| loss(v, x, y), w, t) }
pub fn pull(m: [[f32; 3]; 2], v: [f32; 3], s: [f32; 2]) -> ([f32; 2], [[f32; 3]; 2], [f32; 3]) { vjp(matvec, (m, v), s) }
pub fn kinks(a: f64, b: f64) -> (f64, f64) { jvp(|x, y| x.abs().max(y).sqrt() + (x / y).atan2(y) + x.powi(3), (a, b), (1.0, 0.5)) }
