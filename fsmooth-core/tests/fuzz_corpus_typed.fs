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
====
pub fn resample(w: [f64; n], u0: f64) -> [usize; n] {
    let c = scan(n, 0.0, |acc, i| acc + w[i]);
    let total = c[n - 1];
    scan(n, 0, |k, j| { let u = (u0 + (j as f64) / (n as f64)) * total; iterate(k, |k| k + 1 < n && c[k] < u, |k| k + 1) })
}
pub fn newton(a: f32) -> (f32, usize) { iterate((a.max(1.0), 0), |(x, k)| k < 20 && (x * x - a).abs() > 0.0001, |(x, k)| (0.5 * (x + a / x), k + 1)) }
pub fn smooth3(v: [f64; n]) -> [f64; n] { iterate((v, 0), |(_, c)| c < 3, |(w, c)| (build(n, |i| w[i] * 0.5 + w[(i + 1) % n] * 0.25), c + 1)).0 }
pub fn first_above(m: [[f64; 4]; r], t: f64) -> usize { ifold(r, 0, |acc, i| acc + iterate(0, |j| j < 4 && m[i][j] <= t, |j| j + 1)) }
====
pub fn histogram(x: [f32; n], b: usize) -> [usize; b] { scatter_add(b, n, |i| (((x[i] * (b as f32)) as usize).min(b - 1), 1)) }
pub fn sums(pts: [[f64; 3]; n], labels: [usize; n], k: usize) -> ([[f64; 3]; k], [f64; k]) {
    (scatter_add(k, n, |i| (labels[i], pts[i])), reduce_by_index(k, -1000.0, |a, b| a.max(b), n, |i| (labels[i], pts[i][0])))
}
pub fn row_max(x: [[f64; 2]; n], idx: [usize; n], m: usize) -> [[f64; 2]; m] {
    reduce_by_index(m, build(2, |_| 0.0), |a, b| build(2, |e| a[e].max(b[e])), n, |i| (idx[i] % m, x[i]))
}
pub fn scatter_grad(x: [f64; n], idx: [usize; n], m: usize) -> (f64, [f64; n]) {
    grad(|x| { let s = scatter_add(m, n, |i| (idx[i], x[i] * x[i])); ifold(m, 0.0, |acc, j| acc + (j as f64 + 1.0) * s[j]) }, x)
}
pub fn halve_jvp(x: f64) -> (f64, f64) { jvp(|x| iterate((x, 0), |(s, c)| c < 20 && s > 1.0, |(s, c)| (s * 0.5, c + 1)).0, x, 1.0) }
