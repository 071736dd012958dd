// Reverse mode through `reduce_by_index` with an operation other than addition.
fsmooth::fsmooth! {
    pub fn g(x: [f64; n], idx: [usize; n], s: [f64; 4]) -> ([f64; 4], [f64; n]) {
        vjp(|x| reduce_by_index(4, 0.0, |a, b| a.max(b), n, |i| (idx[i], x[i])), x, s)
    }
}

fn main() {}
