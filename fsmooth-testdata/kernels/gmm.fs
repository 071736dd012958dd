// Gaussian mixture model objective (ADBench), fsmooth draft written from LANGUAGE.md.
// Not compiled by this crate: the compiler team pastes it into a `fsmooth! { ... }` block.
// Reference: fsmooth_testdata::reference::gmm_objective; operations are in the same order
// except inside the prelude's logsumexp/sum/sqnorm.
//
// fsmooth has no lgamma, so the terms that depend only on sizes and the prior's parameters,
//     constant = -n d/2 ln(2 pi) - K C,  C = N d (ln(gamma) - 0.5 ln 2) - lgamma_d(N/2),
//     N = d + m + 1,
// are computed on the Rust side and passed in:
//     reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m)
// and m is passed as `inp.m as f64`.
//
// Each icf row holds d log-diagonal entries q, then the d(d-1)/2 strictly lower entries of
// L column by column: entry (row j, column c), c < j, is at d + c(2d - c - 1)/2 + (j - c - 1)
// (fsmooth_testdata::icf_lower_index, tested against the file layout).
//
// Sizes: alphas pins k; d and n follow from means (k*d values) and x (n*d values). If the
// compiler only pins sizes from 1-D parameters, add `d: usize` and `n: usize` parameters.

/// Q (x - mu) for one component, Q = diag(exp(q)) + L, given its icf row and xc = x - mu.
fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
    build(d, |j| {
        ifold(j, icf_k[j].exp() * xc[j], |acc, c| {
            acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c]
        })
    })
}

/// The ADBench GMM objective (negative log-likelihood with Wishart prior);
/// `constant` as described above.
pub fn gmm_objective(
    alphas: [f64; k],
    means: [[f64; d]; k],
    icf: [[f64; d * (d + 1) / 2]; k],
    x: [[f64; d]; n],
    gamma: f64,
    m: f64,
    constant: f64,
) -> f64 {
    let sum_qs = build(k, |c| sum(icf[c][0..d]));
    let main = ifold(n, 0.0, |acc, i| {
        acc + logsumexp(build(k, |c| {
            alphas[c] + sum_qs[c] - 0.5 * sqnorm(q_times(icf[c], sub(x[i], means[c])))
        }))
    });
    let prior = ifold(k, 0.0, |acc, c| {
        let frob = sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]);
        acc + (0.5 * gamma * gamma * frob - m * sum_qs[c])
    });
    constant + main - (n as f64) * logsumexp(alphas) + prior
}
