// `reduce_by_index`'s start has the values' type.
fsmooth::fsmooth! {
    pub fn g(x: [f64; n], idx: [usize; n]) -> [f64; 4] {
        reduce_by_index(4, 0, |a, b| a + b, n, |i| (idx[i], x[i]))
    }
}

fn main() {}
