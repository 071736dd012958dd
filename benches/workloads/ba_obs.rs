//! ADBench bundle adjustment with the observations as data (issue 18): the reprojection
//! error of every observation of `ba1_n49_m7776_p31843`, its camera and point gathered
//! through `obs: [[usize; 2]; p]`, and the weight errors. Observations as ADBench builds
//! them (`i % n`, `i % m`), or uniform random ones (the gathers jump around memory).
//!
//! The fsmooth variant is `kernels::ba_obs`, whose `obs` is checked once at entry.

use super::ba::{project_hand, project_na};
use super::{Variant, Workload};
use fsmooth::Region;
use fsmooth_testdata::{BA_NCAMPARAMS, Rng, data_path, parse_ba};
use nalgebra::{SVector, Vector2, Vector3};
use std::hint::black_box;

type Cam = SVector<f64, BA_NCAMPARAMS>;

/// Reprojection errors (`out0`, 2 per observation) and weight errors (`out1`), in loops
/// over slices: the hand-written version of the kernel.
pub fn objective_hand(
    out0: &mut [f64],
    out1: &mut [f64],
    cams: &[f64],
    points: &[f64],
    w: &[f64],
    feats: &[f64],
    obs: &[usize],
) {
    let rows = out0.chunks_exact_mut(2).zip(feats.chunks_exact(2));
    for (((o, f), &wi), ob) in rows.zip(w).zip(obs.chunks_exact(2)) {
        let (c, pt) = (ob[0] * BA_NCAMPARAMS, ob[1] * 3);
        let cam: &[f64; 11] = cams[c..c + BA_NCAMPARAMS].try_into().unwrap();
        let x: &[f64; 3] = points[pt..pt + 3].try_into().unwrap();
        let p = project_hand(cam, x);
        o[0] = (p[0] - f[0]) * wi;
        o[1] = (p[1] - f[1]) * wi;
    }
    for (o, &wi) in out1.iter_mut().zip(w) {
        *o = 1.0 - wi * wi;
    }
}

/// The inputs in nalgebra's types.
struct Na {
    cams: Vec<Cam>,
    points: Vec<Vector3<f64>>,
    feats: Vec<Vector2<f64>>,
    obs: Vec<(usize, usize)>,
}

/// `ba1_n49_m7776_p31843` over its observations; `RANDOM`: uniform random observations.
pub struct BaObs<const RANDOM: bool> {
    cams: Vec<f64>,
    points: Vec<f64>,
    w: Vec<f64>,
    feats: Vec<f64>,
    obs: Vec<usize>,
    region: Region<'static>,
    out: (Vec<f64>, Vec<f64>),
    hand_out: (Vec<f64>, Vec<f64>),
    na: Na,
    na_out: (Vec<Vector2<f64>>, Vec<f64>),
}

impl<const RANDOM: bool> Workload for BaObs<RANDOM> {
    const GROUP: &'static str = if RANDOM { "ba_obs_random" } else { "ba_obs" };
    const SIZE: &'static str = if RANDOM {
        "ba1_n49_m7776_p31843, 31,843 random observations"
    } else {
        "ba1_n49_m7776_p31843, 31,843 observations (i % n, i % m)"
    };
    const NALGEBRA: &'static str = "static";

    fn variants() -> &'static [Variant] {
        &[Variant::Fsmooth, Variant::Hand, Variant::Nalgebra]
    }

    fn new() -> Self {
        let text = std::fs::read_to_string(data_path("ba/ba1_n49_m7776_p31843.txt")).unwrap();
        let mut inp = parse_ba(&text).unwrap();
        if RANDOM {
            let mut rng = Rng::new(18);
            for o in &mut inp.obs {
                *o = (rng.below(inp.n), rng.below(inp.m));
            }
        }
        let obs = inp.obs_flat();
        let na = Na {
            cams: inp
                .cams
                .chunks_exact(11)
                .map(Cam::from_column_slice)
                .collect(),
            points: inp
                .x
                .chunks_exact(3)
                .map(Vector3::from_column_slice)
                .collect(),
            feats: inp
                .feats
                .chunks_exact(2)
                .map(Vector2::from_column_slice)
                .collect(),
            obs: inp.obs.clone(),
        };
        let p = inp.p;
        let mut w = BaObs {
            obs,
            cams: inp.cams,
            points: inp.x,
            w: inp.w,
            feats: inp.feats,
            region: Region::new(),
            out: (vec![0.0; p * 2], vec![0.0; p]),
            hand_out: (vec![0.0; p * 2], vec![0.0; p]),
            na,
            na_out: (Vec::new(), Vec::new()),
        };
        super::check(&mut w);
        w
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (o0, o1) = black_box(&mut self.out);
        let (c, x, w, f) = black_box((&self.cams, &self.points, &self.w, &self.feats));
        let obs = black_box(&self.obs);
        super::kernels::ba_obs::objective(o0, o1, c, x, w, f, obs, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (o0, o1) = black_box(&mut self.hand_out);
        let (c, x, w, f) = black_box((&self.cams, &self.points, &self.w, &self.feats));
        objective_hand(o0, o1, c, x, w, f, black_box(&self.obs));
    }

    #[inline]
    fn nalgebra(&mut self) {
        let Na {
            cams,
            points,
            feats,
            obs,
        } = black_box(&self.na);
        let w = black_box(&self.w);
        let errs = obs.iter().zip(feats.iter().zip(w));
        self.na_out.0 = errs
            .map(|(&(c, pt), (f, &wi))| (project_na(&cams[c], &points[pt]) - f) * wi)
            .collect();
        self.na_out.1 = w.iter().map(|wi| 1.0 - wi * wi).collect();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (e, we) = match v {
            Variant::Fsmooth => (self.out.0.clone(), &self.out.1),
            Variant::Hand => (self.hand_out.0.clone(), &self.hand_out.1),
            Variant::Nalgebra => {
                let e = self.na_out.0.iter().flat_map(|e| [e.x, e.y]).collect();
                (e, &self.na_out.1)
            }
            _ => unreachable!(),
        };
        let mut all = e;
        all.extend_from_slice(we);
        all
    }

    fn tolerance() -> f64 {
        1e-10
    }
}
