use fsmooth::fsmooth;

fsmooth! {
    pub fn running_max(x: [[f64; d]; n], d: usize) -> [f64; d] {
        ifold(n, [0.0; d], |m, i| map2(m, x[i], |a, b| a.max(b)))
    }
}

fn main() {}
