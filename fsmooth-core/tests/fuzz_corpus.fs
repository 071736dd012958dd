pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }
pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] { cross(a, b) }
pub fn norm_add(a: [f64; n], b: [f64; n]) -> f64 { norm(add(a, b)) }
fn centre(v: [f64; n]) -> [f64; n] { let mean = sum(v) / (n as f64); build(n, |i| v[i] - mean) }
pub fn k(v: [f64; n]) -> [f64; n] { centre(smul(v, 2.0)) }
====
pub fn chain(a: [[f64; n]; n], b: [[f64; n]; n], c: [[f64; n]; n]) -> [[f64; n]; n] { matmul(matmul(a, b), c) }
pub fn mv(a: [[f64; m]; n], v: [f64; m]) -> [f64; n] { matvec(a, v) }
pub fn gram(a: [[f64; m]; n], m: usize) -> [[f64; n]; n] { matmul(a, transpose(a)) }
====
pub fn stencil(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 0.5); build(n - 2, |i| s[i] + 2.0 * s[i + 1] + s[i + 2]) }
pub fn blur(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h - 2] {
    let rows = build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 1] + img[y][x + 2]));
    build(h - 2, |y| build(w - 2, |x| (rows[y][x] + rows[y + 1][x] + rows[y + 2][x]) / 9.0))
}
====
fn softmax(v: [f64; n]) -> [f64; n] { let mx = vmax(v); let e = map(v, |x| (x - mx).exp()); smul(e, 1.0 / sum(e)) }
pub fn layer(w: [[f64; i]; o], b: [f64; o], x: [f64; i]) -> [f64; o] { softmax(add(matvec(w, x), b)) }
pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] { ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha))) }
pub fn windows(v: [f64; n], w: usize) -> [f64; n + 1 - w] { build(n + 1 - w, |i| sum(v[i..i + w])) }
====
fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
    build(d, |j| { ifold(j, icf_k[j].exp() * xc[j], |acc, c| { acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c] }) })
}
pub fn objective(alphas: [f64; k], means: [[f64; d]; k], icf: [[f64; d * (d + 1) / 2]; k], x: [[f64; d]; n], gamma: f64, m: f64) -> f64 {
    let sum_qs = build(k, |c| sum(icf[c][0..d]));
    let main = ifold(n, 0.0, |acc, i| { acc + logsumexp(build(k, |c| { alphas[c] + sum_qs[c] - 0.5 * sqnorm(q_times(icf[c], sub(x[i], means[c]))) })) });
    let prior = ifold(k, 0.0, |acc, c| { let frob = sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]); acc + (0.5 * gamma * gamma * frob - m * sum_qs[c]) });
    main - (n as f64) * logsumexp(alphas) + prior
}
====
fn rodrigues(r: [f64; 3], x: [f64; 3]) -> [f64; 3] {
    let sqtheta = sqnorm(r);
    if sqtheta != 0.0 { let theta = sqtheta.sqrt(); let w = map(r, |v| v / theta); let tmp = dot(w, x) * (1.0 - theta.cos());
        add(add(smul(x, theta.cos()), smul(cross(w, x), theta.sin())), smul(w, tmp)) } else { add(x, cross(r, x)) }
}
pub fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
    let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
    let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
    let rsq = sqnorm(p);
    add(smul(smul(p, 1.0 + cam[9] * rsq + cam[10] * rsq * rsq), cam[6]), cam[7..9])
}
pub fn tri(m: [[f64; d]; d]) -> [f64; d * (d + 1) / 2] {
    build(d * (d + 1) / 2, |k| { let row = ifold(d, 0, |r, j| if (j + 1) * (j + 2) / 2 <= k { j + 1 } else { r }); m[row][k - row * (row + 1) / 2] })
}
pub fn clamp_sum(a: [f64; n], lo: f64, hi: f64) -> f64 {
    let clamped = build(n, |i| if a[i] < lo { lo } else if a[i] > hi { hi } else { a[i] });
    if n > 3 && lo < hi || !(n == 0) { sum(clamped) } else { 0.0 - sum(clamped).powi(-2) }
}
====
fn moments(x: [f64; n]) -> (f64, f64) {
    let (mean, m2) = ifold(n, (0.0, 0.0), |(mean, m2), i| { let d = x[i] - mean; let mean1 = mean + d / ((i + 1) as f64); (mean1, m2 + d * (x[i] - mean1)) });
    (mean, m2 / (n as f64))
}
pub fn stats(v: [f64; n]) -> (f64, f64, [f64; n]) { let (mean, var) = moments(v); let sd = var.sqrt(); (mean, sd, build(n, |i| (v[i] - mean) / sd)) }
pub fn pick(a: [f64; n], b: [f64; n], s: f64) -> ([f64; n], f64, [[f64; n]; 2]) {
    let ((x, y), _) = ((a, s), b);
    let t = if s < 0.0 { (x, y) } else { (b, -y) };
    let (u, (_, w)) = ifold(n, (0.0, (s, a)), |(q, (_, r)), i| (q * 0.5 + r[i], (q, add(smul(r, 0.5), b))));
    (smul(t.0, t.1 + u), t.1 * 2.0, [w, t.0])
}
====
pub fn cumsum(x: [f64; n]) -> [f64; n] { scan(n, 0.0, |acc, i| acc + x[i]) }
pub fn biquad(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> [f64; n] {
    let xp = pad(x, 2, 0, 0.0);
    let (y, _) = scan(n, (0.0, 0.0), |(y1, y2), i| { let yi = b[0] * xp[i + 2] + b[1] * xp[i + 1] + b[2] * xp[i] - a[0] * y1 - a[1] * y2; (yi, y1) });
    y
}
pub fn ema(x: [[f64; c]; n], c: usize, alpha: f64) -> ([[f64; c]; n], f64) {
    let s = scan(n, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)));
    let (ys, zs) = scan(n, (0.0, x[0]), |(_, z), i| (sum(z), map(z, |v| v * alpha)));
    (s, ys[n - 1] + zs[0][0] + scan(3, (1.0, 2.0), |t, i| (t.1, t.0)).1[2])
}
====
pub fn total(a: [f64; n], b: [f64; m]) -> f64 { sum(concat(a, b)) + reverse(a)[0] + sum(join(split(2, interleave(a, a)))) }
pub fn both(a: [f64; n], b: [f64; m]) -> [f64; n + m] { concat(map(a, |x| x.abs()), map(b, |x| x * x)) }
pub fn flat(x: [[f64; d]; n], d: usize) -> [f64; n * d] { join(build(n, |i| smul(x[i], 2.0))) }
pub fn halves(c: [f64; 2 * n]) -> [[f64; 2]; n] { split(2, map(c, |x| x * 3.0)) }
pub fn flip(a: [f64; n], g: f64) -> [f64; n] { map(reverse(a), |x| x * g) }
pub fn smooth3(a: [f64; n]) -> [f64; n] { build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0) }
pub fn stereo(l: [f64; n], r: [f64; n], g: f64) -> [f64; 2 * n] { interleave(smul(l, g), smul(r, g)) }
pub fn tr(m: [[f64; c]; r], c: usize) -> [[f64; r]; c] { transpose(build(r, |i| map(m[i], |x| x + 1.0))) }
pub fn movavg(x: [f64; n], w: usize) -> ([f64; n - w + 1], [[f64; 3]; n], [[f64; 4]; n + 2]) {
    (build(n - w + 1, |i| sum(slide(w, x)[i]) / (w as f64)), slide(3, pad(x, 1, 1, 0.0)), pad(build(n, |i| [x[i], 1.0, 2.0, 3.0]), 1, 1, [0.0, 0.0, 0.0, 0.0]))
}
====
fn step(st: ([f64; n], f64), x: [f64; n]) -> ([f64; n], f64) { let (v, s) = st; (add(smul(v, 0.5), x), s * 0.5 + sum(x)) }
pub fn run(v0: [f64; n], x: [[f64; n]; t]) -> ([f64; n], f64, [f64; 2 * n], [[f64; t]; n]) {
    let (v, s) = ifold(t, (v0, 0.0), |st, i| step(st, x[i]));
    let rows = map(transpose(x), |r| sum(r));
    (v, s, interleave(reverse(v), rows), transpose(x))
}
