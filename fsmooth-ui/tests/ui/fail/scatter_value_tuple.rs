// A scatter's value is a scalar or a row, not a tuple (LANGUAGE.md section 15).
fsmooth::fsmooth! {
    pub fn pairs(x: [f64; n], idx: [usize; n]) -> [f64; 4] {
        scatter_add(4, n, |i| (idx[i], (x[i], x[i])))
    }
}

fn main() {}
