//! Shared helpers for the end-to-end tests.
#![allow(dead_code)]

/// Compile a block with `fsmooth!` and keep its source text for the reference interpreter.
#[macro_export]
macro_rules! block {
    ($($t:tt)*) => {
        fsmooth::fsmooth! { $($t)* }
        /// The block's source, for `fsmooth_eval::interp`.
        #[allow(dead_code)]
        pub const SRC: &str = stringify!($($t)*);
    };
}

#[allow(unused_imports)] // not every test file draws random inputs
pub use fsmooth_testdata::Rng;

/// Relative closeness, with an absolute floor for values near zero.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true; // also equal infinities
    }
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

#[track_caller]
pub fn assert_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "lengths differ");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(close(*x, *y, tol), "element {k}: {x} vs {y} (tol {tol})");
    }
}

pub use fsmooth_eval::interp::Value;

/// The block's interpreter, parsed once per thread and source.
fn interp(src: &str) -> std::rc::Rc<fsmooth_eval::interp::Interp> {
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<fsmooth_eval::interp::Interp>>> =
            Default::default();
    }
    CACHE.with(|c| {
        c.borrow_mut()
            .entry(src.to_string())
            .or_insert_with(|| {
                std::rc::Rc::new(fsmooth_eval::interp::Interp::new(src).expect("the block parses"))
            })
            .clone()
    })
}

/// The reference interpreter's result for `name(args)` in a block's source, flattened
/// row-major as the generated kernels lay arrays out.
pub fn reference(src: &str, name: &str, args: &[Value]) -> Vec<f64> {
    match interp(src).call(name, args) {
        Ok(v) => v.flatten(),
        Err(e) => panic!("interpreter: {e}"),
    }
}

/// The interpreter's verdict, for calls that may fail.
pub fn reference_result(src: &str, name: &str, args: &[Value]) -> Result<Vec<f64>, String> {
    interp(src).call(name, args).map(|v| v.flatten())
}

/// The interpreter's result as its parts (one per component of a kernel returning a tuple,
/// the whole value otherwise), each flattened row-major, for calls that may fail.
pub fn reference_parts(src: &str, name: &str, args: &[Value]) -> Result<Vec<Vec<f64>>, String> {
    interp(src)
        .call(name, args)
        .map(|v| v.parts().iter().map(Value::flatten).collect())
}
