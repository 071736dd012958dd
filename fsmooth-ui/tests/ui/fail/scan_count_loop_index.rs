use fsmooth::fsmooth;

fsmooth! {
    // Prefix sums of every prefix: the inner scan's length changes with `i`.
    pub fn k(x: [f64; n]) -> [f64; n] {
        build(n, |i| sum(scan(i + 1, 0.0, |s, j| s + x[j])))
    }
}

fn main() {}
