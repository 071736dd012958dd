//! Kernels written with functions imported from another crate's blocks agree with the
//! plain-Rust reference and ADBench's known answer, exactly as the same kernels written in
//! one block do; and the library's own kernels run from this crate.

// ADBench's known answers are written as published.
#![allow(clippy::excessive_precision)]

use fsmooth::{Error, Region};
use fsmooth_example_geometry::{estimators::camera, geometry};
use fsmooth_example_reproj::{objective, project_first, rotate_all};
use fsmooth_testdata::{BaInput, Rng, parse_ba, reference};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[test]
fn objective_over_imports_matches_the_reference_and_known_answer() {
    let test = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let random = BaInput::random(13, 50, 400, &mut Rng::new(19));
    let mut region = Region::new();
    for (what, inp) in [("test", &test), ("random", &random)] {
        let (mut e, mut we) = (vec![0.0; inp.p * 2], vec![0.0; inp.p]);
        let obs = inp.obs_flat();
        objective(
            &mut e,
            &mut we,
            &inp.cams,
            &inp.x,
            &inp.w,
            &inp.feats,
            &obs,
            &mut region,
        )
        .unwrap();
        let want = reference::ba_reproj_errors(inp);
        for (j, (g, w)) in e.iter().zip(&want).enumerate() {
            assert!(close(*g, *w, 1e-12), "{what}, element {j}: {g} vs {w}");
        }
        assert_eq!(we, reference::ba_weight_errors(inp), "{what}");
        if what == "test" {
            // ADBench's known answer (fsmooth-testdata/data/adbench/README.md).
            assert!(close(e[0], -2.69048849235189402e-01, 1e-12), "{}", e[0]);
            assert!(close(e[1], 2.59944792677901881e-01, 1e-12), "{}", e[1]);
        }
    }
}

#[test]
fn an_imported_kernel_is_also_the_library_s_own_rust_function() {
    let inp = BaInput::random(4, 3, 5, &mut Rng::new(5));
    let mut region = Region::new();
    let mut here = vec![0.0; 2 * inp.n];
    project_first(&mut here, &inp.cams, &inp.x, &mut region).unwrap();
    for c in 0..inp.n {
        // The library's kernel `geometry::project`, called directly.
        let mut there = [0.0; 2];
        let cam = &inp.cams[11 * c..11 * c + 11];
        geometry::project(&mut there, cam, &inp.x[..3], &mut region).unwrap();
        assert_eq!(here[2 * c..2 * c + 2], there);
        assert_eq!(there, reference::ba_project(cam, &inp.x[..3]));
        // And `camera::reproj_error`, whose block imports `project` in the library.
        let mut err = [0.0; 2];
        camera::reproj_error(&mut err, cam, &inp.x[..3], 0.5, &[0.25, -0.5], &mut region).unwrap();
        assert_eq!(
            err,
            reference::ba_reproj_error(cam, &inp.x[..3], 0.5, &[0.25, -0.5])
        );
    }
    let mut rotated = vec![0.0; 3 * inp.n];
    rotate_all(&mut rotated, &inp.cams, &[1.0, 2.0, 3.0], &mut region).unwrap();
    for c in 0..inp.n {
        let r = [inp.cams[11 * c], inp.cams[11 * c + 1], inp.cams[11 * c + 2]];
        let want = reference::rodrigues_rotate(&r, &[1.0, 2.0, 3.0]);
        for (g, w) in rotated[3 * c..3 * c + 3].iter().zip(want) {
            assert!(close(*g, w, 1e-14), "{g} vs {w}");
        }
    }
}

#[test]
fn bad_input_is_an_error_and_leaves_the_outputs_untouched() {
    let inp = BaInput::random(2, 3, 4, &mut Rng::new(1));
    let mut obs = inp.obs_flat();
    obs[5] = 3; // point 3 of 3
    let (mut e, mut we) = (vec![7.0; 8], vec![7.0; 4]);
    let r = objective(
        &mut e,
        &mut we,
        &inp.cams,
        &inp.x,
        &inp.w,
        &inp.feats,
        &obs,
        &mut Region::new(),
    );
    assert!(matches!(r, Err(Error::Index { index: 3, len: 3 })), "{r:?}");
    assert!(e.iter().chain(&we).all(|v| *v == 7.0));
}
