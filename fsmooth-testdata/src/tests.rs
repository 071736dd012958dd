//! Unit tests of the parsers and references on the known answers.
// Known answers are quoted digit for digit from the ADBench README and mpmath.
#![allow(clippy::excessive_precision)]

use super::reference::*;
use super::*;

fn assert_rel(found: f64, expected: f64, tol: f64) {
    let err = (found - expected).abs() / expected.abs().max(f64::MIN_POSITIVE);
    assert!(
        err <= tol,
        "found {found:e}, expected {expected:e}, relative error {err:e} > {tol:e}"
    );
}

#[test]
fn data_path_points_at_files() {
    for rel in [
        "LICENSE.txt",
        "README.md",
        "NOTICE.md",
        "ba/test.txt",
        "ba/ba1_n49_m7776_p31843.txt",
        "gmm/test.txt",
        "gmm/1k/gmm_d2_K5.txt",
        "gmm/1k/gmm_d10_K5.txt",
        "gmm/1k/gmm_d20_K5.txt",
    ] {
        assert!(data_path(rel).is_file(), "{rel} missing");
    }
    let text = std::fs::read_to_string(data_path("gmm/test.txt")).unwrap();
    assert_eq!(text, GMM_TEST);
}

#[test]
fn ba_test_known_answer() {
    let inp = parse_ba(BA_TEST).unwrap();
    assert_eq!((inp.n, inp.m, inp.p), (2, 10, 10));
    assert_eq!(inp.cams.len(), 2 * 11);
    assert_eq!(inp.x.len(), 10 * 3);
    assert_eq!(inp.w.len(), 10);
    assert_eq!(inp.feats.len(), 10 * 2);
    assert_eq!(inp.obs[3], (1, 3));
    let errs = ba_reproj_errors(&inp);
    assert_eq!(errs.len(), 20);
    for e in errs.chunks(2) {
        assert_rel(e[0], -2.69048849235189402e-01, 1e-12);
        assert_rel(e[1], 2.59944792677901881e-01, 1e-12);
    }
    for w in ba_weight_errors(&inp) {
        assert_rel(w, 8.26092651515999976e-01, 1e-12);
    }
    let cams = inp.obs_cams();
    let points = inp.obs_points();
    assert_eq!((cams.len(), points.len()), (10 * 11, 10 * 3));
    let e = ba_reproj_error(&cams[33..44], &points[9..12], inp.w[3], &inp.feats[6..8]);
    assert_eq!(e, [errs[6], errs[7]]);
}

#[test]
fn ba_large_parses() {
    let text = std::fs::read_to_string(data_path("ba/ba1_n49_m7776_p31843.txt")).unwrap();
    let inp = parse_ba(&text).unwrap();
    assert_eq!((inp.n, inp.m, inp.p), (49, 7776, 31843));
    assert_eq!(inp.cams.len(), 49 * 11);
    assert_eq!(inp.x.len(), 7776 * 3);
    assert_eq!(
        (inp.w.len(), inp.feats.len(), inp.obs.len()),
        (31843, 63686, 31843)
    );
    assert_eq!(inp.obs[31842], (31842 % 49, 31842 % 7776));
    let errs = ba_reproj_errors(&inp);
    assert!(errs.iter().all(|e| e.is_finite()));
    println!(
        "ba1_n49_m7776_p31843: reprojection error of every observation = ({:.17e}, {:.17e}), weight error = {:.17e}",
        errs[0],
        errs[1],
        ba_weight_error(inp.w[0])
    );
}

#[test]
fn rodrigues_zero_and_quarter_turn() {
    assert_eq!(
        rodrigues_rotate(&[0.0; 3], &[1.0, 2.0, 3.0]),
        [1.0, 2.0, 3.0]
    );
    let h = std::f64::consts::FRAC_PI_2;
    let y = rodrigues_rotate(&[0.0, 0.0, h], &[1.0, 0.0, 0.0]);
    assert!((y[0]).abs() < 1e-15 && (y[1] - 1.0).abs() < 1e-15 && y[2].abs() < 1e-15);
}

#[test]
fn gmm_test_known_answer() {
    let inp = parse_gmm(GMM_TEST).unwrap();
    assert_eq!((inp.d, inp.k, inp.n, inp.m), (2, 3, 1, 0));
    assert_eq!(inp.gamma, 1.0);
    assert_eq!(inp.icf.len(), 3 * 3);
    assert_eq!(inp.x, [1.175171, 2.029160]);
    assert_rel(gmm_objective(&inp), 8.07380408004975791, 1e-12);
}

#[test]
fn gmm_1k_objectives() {
    for (name, text, d) in [
        ("gmm_d2_K5", GMM_D2_K5, 2),
        ("gmm_d10_K5", GMM_D10_K5, 10),
        ("gmm_d20_K5", GMM_D20_K5, 20),
    ] {
        let inp = parse_gmm(text).unwrap();
        assert_eq!((inp.d, inp.k, inp.n, inp.m), (d, 5, 1000, 0));
        assert_eq!(inp.gamma, 1.0);
        assert_eq!(inp.alphas.len(), 5);
        assert_eq!(inp.means.len(), 5 * d);
        assert_eq!(inp.icf.len(), 5 * d * (d + 1) / 2);
        assert_eq!(inp.x.len(), 1000 * d);
        let obj = gmm_objective(&inp);
        assert!(obj.is_finite(), "{name}: {obj}");
        println!("{name}: gmm objective = {obj:.17e}");
    }
}

#[test]
fn gmm_single_point_is_repeated() {
    let text = "1 1 3\n0.5\n0.25\n0.1\n2.0\n1.0 2\n";
    let inp = parse_gmm(text).unwrap();
    assert_eq!(inp.x, [2.0, 2.0, 2.0]);
    assert_eq!((inp.gamma, inp.m), (1.0, 2));
}

#[test]
fn parse_errors_are_messages() {
    assert!(parse_ba("2 10").unwrap_err().contains("end of input"));
    assert!(parse_ba("2 10 10 x").unwrap_err().contains("not a number"));
    assert!(parse_ba("0 10 10 1 2 3 4 5 6 7 8 9 10 11 1 2 3 1 1 2").is_err());
    let mut ba = BA_TEST.to_string();
    ba.push_str(" 1.0");
    assert!(parse_ba(&ba).unwrap_err().contains("unexpected"));
    assert!(parse_gmm("2 3").is_err());
    assert!(parse_gmm("0 3 1").is_err());
    let short = &GMM_TEST[..GMM_TEST.len() - 12];
    assert!(parse_gmm(short).unwrap_err().contains("tokens after icf"));
    assert!(parse_gmm(&GMM_TEST.replace("1.000000 0", "1.0 0.5")).is_err());
}

#[test]
fn icf_lower_index_matches_column_order() {
    for d in 1..8 {
        let mut idx = d;
        for col in 0..d {
            for row in col + 1..d {
                assert_eq!(icf_lower_index(d, row, col), idx);
                idx += 1;
            }
        }
        assert_eq!(idx, d * (d + 1) / 2);
    }
}

#[test]
fn logsumexp_is_stable() {
    assert_rel(
        logsumexp(&[1000.0, 1000.0]),
        1000.0 + std::f64::consts::LN_2,
        1e-15,
    );
    assert_rel(logsumexp(&[0.0, 0.0, 0.0]), 3f64.ln(), 1e-15);
    assert_rel(logsumexp(&[-1000.0]), -1000.0, 1e-15);
    assert_eq!(logsumexp(&[]), f64::NEG_INFINITY);
    assert_eq!(logsumexp(&[f64::NEG_INFINITY; 2]), f64::NEG_INFINITY);
}

#[test]
fn lgamma_known_values() {
    let pi = std::f64::consts::PI;
    assert_eq!(lgamma(1.0), 0.0);
    assert_eq!(lgamma(2.0), 0.0);
    assert_rel(lgamma(0.5), pi.sqrt().ln(), 1e-14);
    assert_rel(lgamma(10.0), 362880f64.ln(), 1e-14);
    assert_rel(lgamma(3.0), std::f64::consts::LN_2, 1e-14);
    // Reference values from mpmath.loggamma at 40 digits.
    for (x, y) in [
        (0.5, 0.5723649429247000870717137),
        (1.5, -0.1207822376352452223455184),
        (2.5, 0.2846828704729191596324947),
        (3.7, 1.428072326665387921872381),
        (12.3456, 18.35163031694585295489326),
        (20.5, 40.83150097453079810977609),
        (100.0, 359.134205369575398776044),
        (171.5, 709.1431630309282422723639),
        (1000.0, 5905.220423209181211826077),
        (0.1, 2.252712651734205959869702),
        (1e-3, 6.907178885383853682512345),
    ] {
        assert_rel(lgamma(x), y, 1e-14);
    }
    // Near the roots at 1 and 2 the error can only be absolute.
    for (x, y) in [
        (0.75, 0.2032809514312953714814),
        (0.999, 0.0005780385328913797240363),
        (1.001, -0.0005763935982833695416297),
        (1.25, -0.09827183642181316146385),
        (1.999, -0.0004224618006921537761066),
        (2.001, 0.0004231067348001636251797),
        (2.25, 0.1248717148923965943024),
    ] {
        let err = (lgamma(x) - y).abs();
        assert!(err < 3e-15, "lgamma({x}): absolute error {err:e}");
    }
    assert!(lgamma(-1.0).is_nan());
    assert_eq!(lgamma(0.0), f64::INFINITY);
    let k = (2.0 * pi).sqrt() * (-reference::LANCZOS_G).exp();
    assert_rel(k, reference::SQRT_2PI_EXP_MINUS_G, 4e-16);
    // The multivariate form reduces to lgamma for d = 1.
    assert_eq!(lgamma_multi(2.5, 1), lgamma(2.5));
}

#[test]
fn hand_model_parses() {
    let m = hand::model();
    assert_eq!((m.n_bones(), m.n_vertices()), (22, 544));
    assert_eq!(m.triangles.len(), 1084);
    assert_eq!(m.bone_names[0], "wrist");
    assert_eq!(m.parents[0], None);
    assert_eq!(m.parents[4], Some(3));
    assert_eq!(m.parents[21], Some(0));
    assert_eq!(m.parents_index()[0], 0);
    assert_eq!(m.weights.len(), 544 * 22);
    // The first vertex: `4:2:0.2707..:0:0.3625..:3:0.1229..:5:0.2437..`.
    assert_eq!(m.weights[2], 0.2707933843876052);
    assert_eq!(m.weights[0], 0.3625080610927875);
    assert_eq!(m.weights[5], 0.2437626707111821);
    assert_eq!(m.weights[1], 0.0);
    // Every vertex's weights sum to one, and the bottom rows are (0, 0, 0, 1).
    for row in m.weights.chunks(22) {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    }
    for t in m.base_relatives.iter().chain(&m.inverse_base_absolutes) {
        assert_eq!(t[3].map(f64::abs), [0.0, 0.0, 0.0, 1.0]);
    }
    let flat = m.base_relatives_flat();
    assert_eq!(flat.len(), 22 * 16);
    assert_eq!(flat[16 + 3], m.base_relatives[1][0][3]);
    for rel in [
        "hand/model/bones.txt",
        "hand/test.txt",
        "hand/simple_small/hand1_t26_c100.txt",
    ] {
        assert!(data_path(rel).is_file(), "{rel} missing");
    }
}

#[test]
fn hand_test_known_residuals() {
    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    assert_eq!(inp.correspondences, [309, 387]);
    assert_eq!(inp.theta.len(), 26);
    let r = hand::objective(&m, &inp);
    assert_eq!(r.len(), 6);
    let known = [
        0.165193147941611551,
        -0.174542769272742593,
        0.154751161622253441,
        -0.125651749731793605,
        -0.0425102935355075040,
        -0.130665781132340175,
    ];
    for (got, want) in r.iter().zip(known) {
        assert_rel(*got, want, 1e-12);
    }
}

#[test]
fn hand_simple_small_runs() {
    let m = hand::model();
    let inp = hand::parse_input(hand::SIMPLE_SMALL, m.n_vertices()).unwrap();
    assert_eq!((inp.points.len(), inp.theta.len()), (100, 26));
    let r = hand::objective(&m, &inp);
    assert_eq!(r.len(), 300);
    assert!(r.iter().all(|v| v.is_finite() && v.abs() < 10.0));
    println!("hand1_t26_c100: residuals[0..3] = {:?}", &r[..3]);
}

#[test]
fn hand_rotations() {
    // Small angle-axis vectors give the identity, as in ADBench.
    let id = hand::angle_axis_to_rotation(&[1e-5, 0.0, 0.0]);
    assert_eq!(id, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    // A quarter turn about z takes x to y, with either routine.
    let h = std::f64::consts::FRAC_PI_2;
    for r in [
        hand::angle_axis_to_rotation(&[0.0, 0.0, h]),
        hand::euler_to_rotation(&[0.0, h, 0.0]),
    ] {
        assert!(r[1][0] > 1.0 - 1e-15 && r[0][0].abs() < 1e-15, "{r:?}");
    }
    // Euler angles in "xzy" order: p[0] about x, then p[2] about y, then p[1] about z.
    let r = hand::euler_to_rotation(&[0.3, 0.0, 0.0]);
    assert_eq!(r[0], [1.0, 0.0, 0.0]);
    assert_eq!(r[2][1], 0.3f64.sin());
    let r = hand::euler_to_rotation(&[0.0, 0.0, 0.3]);
    assert_eq!(r[0][2], 0.3f64.sin());
}

#[test]
fn hand_parse_errors() {
    let m = hand::model();
    assert!(
        hand::parse_input("1 26\n600 0 0 0", 544)
            .unwrap_err()
            .contains("vertex 600")
    );
    assert!(
        hand::parse_input("1 2\n3 0 0 0\n1", 544)
            .unwrap_err()
            .contains("end of input")
    );
    assert!(
        hand::parse_input("0 1\n1 2", 544)
            .unwrap_err()
            .contains("unexpected")
    );
    let bad_parent = hand::BONES.replacen("thumb1:0:", "thumb1:5:", 1);
    let e = hand::parse_model(&bad_parent, hand::VERTICES, hand::TRIANGLES).unwrap_err();
    assert!(e.contains("parent 5"), "{e}");
    let e = hand::parse_model(hand::BONES, "1:2:3", "").unwrap_err();
    assert!(e.contains("too few"), "{e}");
    assert!(hand::parse_model(hand::BONES, hand::VERTICES, "1:2:999").is_err());
    assert_eq!(m.n_vertices(), 544);
}

#[test]
fn ba_obs_index_array_and_random_problems() {
    let inp = parse_ba(BA_TEST).unwrap();
    let obs = inp.obs_flat();
    assert_eq!(obs.len(), 20);
    assert_eq!(&obs[6..8], &[1, 3]);
    let mut rng = Rng::new(3);
    let r = BaInput::random(5, 7, 40, &mut rng);
    assert_eq!(
        (r.cams.len(), r.x.len(), r.w.len(), r.feats.len()),
        (55, 21, 40, 80)
    );
    assert!(r.obs.iter().all(|&(c, p)| c < 5 && p < 7));
    // Several cameras and points are used, and they differ.
    assert!(r.obs.iter().any(|&(c, _)| c != r.obs[0].0));
    assert_ne!(r.cams[..11], r.cams[11..22]);
    assert!(ba_reproj_errors(&r).iter().all(|e| e.is_finite()));
}
