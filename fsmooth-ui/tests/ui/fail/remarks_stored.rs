#![deny(deprecated)]
use fsmooth::fsmooth;

fsmooth! {
    #![fsmooth(remarks = true)]
    // `e` is read at two indexes in one loop, and `t` once per row of `m`: both stored.
    pub fn smooth(a: [f64; n]) -> [f64; n] {
        let e = map(a, |x| x.exp());
        build(n, |i| if i + 1 < n { e[i] + e[i + 1] } else { e[i] })
    }

    pub fn scaled_rows(m: [[f64; k]; n], v: [f64; k]) -> [f64; n] {
        let t = map(v, |x| x.exp());
        build(n, |i| sum(build(k, |j| m[i][j] * t[j])))
    }

    // The output is a copy of the argument.
    pub fn same(a: [f64; n]) -> [f64; n] {
        a
    }
}

fn main() {}
