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
