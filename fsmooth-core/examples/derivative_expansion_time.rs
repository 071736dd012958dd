//! How long the macro takes to expand derivative kernels: section 12's `gmm_grad` (by
//! forward mode, one pass per parameter argument's element in the code) and the BA
//! Jacobian by unit tangents. `cargo run --release -p fsmooth-core --example
//! derivative_expansion_time`.

use std::time::Instant;

const KERNELS: &str = include_str!("../../tests/shared/adbench_kernels.rs");

/// The text of the first `fn` or `pub fn` named `name` after `after` (its signature to its
/// closing brace).
fn item_after(after: &str, name: &str) -> String {
    let from = KERNELS.find(after).unwrap_or(0);
    let at = from
        + KERNELS[from..]
            .find(&format!("fn {name}("))
            .unwrap_or_else(|| panic!("{name}"));
    let start = KERNELS[..at].rfind('\n').map_or(0, |n| n + 1);
    let open = at + KERNELS[at..].find('{').unwrap();
    let mut depth = 0;
    for (k, ch) in KERNELS[open..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return KERNELS[start..open + k + 1].to_string();
                }
            }
            _ => {}
        }
    }
    unreachable!("unbalanced braces in {name}")
}

/// The first item named `name`.
fn item(name: &str) -> String {
    item_after("", name)
}

fn time(what: &str, src: &str) {
    let tokens: proc_macro2::TokenStream = src.parse().unwrap();
    let mut best = f64::INFINITY;
    let mut out_len = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let out = fsmooth_core::expand(tokens.clone());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        out_len = out.to_string().len();
        assert!(!out.to_string().contains("compile_error"), "{what}");
    }
    println!("{what:<24} min {best:>9.3} ms   {out_len:>8} bytes of Rust");
}

fn main() {
    let gmm = [
        item("q_times"),
        item_after("macro_rules! gmm_block", "objective"),
    ]
    .join("\n");
    time("gmm objective", &gmm);
    let grad = format!(
        "{gmm}\n{}",
        "pub fn gmm_grad(alphas: [f64; k], means: [[f64; d]; k], icf: [[f64; d * (d + 1) / 2]; k], x: [[f64; d]; n], gamma: f64, m: f64, c: f64) -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) { grad(|a, mu, q| objective(a, mu, q, x, gamma, m, c), alphas, means, icf) }"
    );
    time("gmm_grad", &grad);
    let ba = ["rodrigues", "radial_distort", "project", "reproj_error"]
        .map(item)
        .join("\n");
    time(
        "ba reproj_error",
        &format!(
            "{ba}\npub fn r(cam: [f64; 11], x: [f64; 3], w: f64, f: [f64; 2]) -> [f64; 2] {{ reproj_error(cam, x, w, f) }}"
        ),
    );
    time(
        "ba reproj_jacobian",
        &format!("{ba}\n{}", item("reproj_jacobian")),
    );
}
