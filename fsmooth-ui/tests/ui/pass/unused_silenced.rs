//! Every way to silence fsmooth's warnings, under `deny(warnings)`: any warning left fails
//! this case.
#![deny(warnings)]
use fsmooth::{fsmooth, Region};

fsmooth! {
    // `_name` and `_` are unused on purpose.
    pub fn padded(a: [f64; n], _unused: f64) -> [f64; n] {
        let _a1 = sum(a);
        let (_, b) = (1.0, 2.0);
        let (s, _q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + a[i], q));
        build(n, |_i| b + s)
    }

    pub fn ones(n: usize) -> [f64; n] {
        build(n, |_| 1.0)
    }

    // A lint level on the function.
    #[allow(unused_variables)]
    pub fn allowed(a: f64, b: f64) -> f64 {
        let c = 2.0;
        a
    }

    // An expectation, met by the unused `b`.
    #[expect(unused_variables)]
    pub fn expected(a: f64, b: f64) -> f64 {
        a
    }

    #[allow(dead_code)]
    fn spare(x: f64) -> f64 {
        x
    }

    fn _also_spare(x: f64) -> f64 {
        x
    }

    #[expect(dead_code)]
    fn expected_spare(x: f64) -> f64 {
        x
    }
}

mod quiet {
    #![allow(unused)]
    use fsmooth::fsmooth;

    fsmooth! {
        fn spare(x: f64, y: f64) -> f64 {
            x
        }

        pub fn k(a: f64, b: f64) -> f64 {
            let c = b;
            build(3, |i| a)[0]
        }
    }
}

fn main() {
    let mut region = Region::new();
    let mut out = [0.0; 2];
    padded(&mut out, &[1.0, 2.0], 0.0, &mut region).unwrap();
    assert_eq!(out, [5.0, 5.0]);
    ones(&mut out, 2, &mut region).unwrap();
    assert_eq!(allowed(1.0, 2.0, &mut region), Ok(1.0));
    assert_eq!(expected(1.0, 2.0, &mut region), Ok(1.0));
    assert_eq!(quiet::k(1.0, 2.0, &mut region), Ok(1.0));
}
