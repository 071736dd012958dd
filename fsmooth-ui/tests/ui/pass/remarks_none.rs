#![deny(warnings)]
use fsmooth::fsmooth;

fsmooth! {
    #![fsmooth(remarks = true)]
    // `smooth` and `scaled_rows` of fail/remarks_stored.rs written as the remarks suggest:
    // each element of `exp` computed where it is read (`exp` is cheap next to a frame
    // buffer here), and the row factor applied after the sum. Nothing stored, no remark.
    pub fn smooth(a: [f64; n]) -> [f64; n] {
        build(n, |i| if i + 1 < n { a[i].exp() + a[i + 1].exp() } else { a[i].exp() })
    }

    pub fn rows(m: [[f64; k]; n], v: [f64; k]) -> [f64; n] {
        build(n, |i| sum(build(k, |j| m[i][j] * v[j])))
    }

    pub fn total(a: [f64; n]) -> f64 {
        sum(map(a, |x| x.exp()))
    }
}

fn main() {}
