//! Tuples (LANGUAGE.md section 8): tuple expressions and projections, `let` and closure
//! patterns (nested, with `_`), folds and scans over tuple states, helpers taking and
//! returning tuples.

use super::state::{Gen, Var};
use super::ty::{D, T};

/// What a fold's body knows of one component of its state: the expression that reads it
/// (a pattern's name or a projection of one), nothing (bound to `_`), or per component.
#[derive(Clone)]
pub(super) enum Cur {
    Expr(String),
    Ignored,
    Parts(Vec<Cur>),
}

impl Cur {
    fn part(&self, k: usize) -> Cur {
        match self {
            Cur::Expr(x) => Cur::Expr(format!("{x}.{k}")),
            Cur::Ignored => Cur::Ignored,
            Cur::Parts(cs) => cs[k].clone(),
        }
    }
}

/// A pattern: its text, the variables it binds, and what it gives the body of a fold.
pub(super) struct Pattern {
    pub(super) text: String,
    pub(super) binds: Vec<Var>,
    pub(super) cur: Cur,
}

impl Gen {
    /// A pattern for a value of type `t`: a name, or for a tuple (usually) a tuple of
    /// patterns, whose components may be `_` (never the whole pattern when `top`).
    pub(super) fn pattern(&mut self, t: &T, top: bool) -> Pattern {
        let wild = !top && self.r.one_in(4);
        match t {
            _ if wild => Pattern {
                text: "_".into(),
                binds: Vec::new(),
                cur: Cur::Ignored,
            },
            T::Tup(ts) if !self.r.one_in(4) => {
                let parts: Vec<Pattern> = ts.iter().map(|t| self.pattern(t, false)).collect();
                let texts: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
                let text = format!("({})", texts.join(", "));
                let mut binds = Vec::new();
                let mut curs = Vec::new();
                for p in parts {
                    binds.extend(p.binds);
                    curs.push(p.cur);
                }
                Pattern {
                    text,
                    binds,
                    cur: Cur::Parts(curs),
                }
            }
            _ => {
                let base = match t {
                    T::Tup(_) => "t",
                    T::V(_) | T::M(..) | T::UV(_) => "v",
                    _ => "x",
                };
                let name = self.name(base);
                Pattern {
                    text: name.clone(),
                    binds: vec![Var::new(&name, t.clone(), None)],
                    cur: Cur::Expr(name),
                }
            }
        }
    }

    /// `{ let pat = e; body }` with `body` of type `t`; `e` of type `t` half the time (the
    /// generator's plain `let`), otherwise of a random type, usually a tuple taken apart.
    pub(super) fn let_in(&mut self, t: &T, depth: usize) -> String {
        let bt = if !self.v2 || self.r.one_in(2) {
            t.clone()
        } else {
            self.rand_type()
        };
        self.let_of(&bt, t, depth)
    }

    fn let_of(&mut self, bt: &T, t: &T, depth: usize) -> String {
        let e = self.take_expect();
        // In a typed program, sometimes `let x: T = ..`: the type flows into the value
        // (taken as not flowing through a tuple's components).
        let ann = self.typed && self.r.one_in(2);
        let val = self.expr_e(ann && !matches!(bt, T::Tup(_)), bt, depth + 1);
        let pat = self.pattern(bt, true);
        let body = self.with_vars(pat.binds, |g| g.expr_e(e, t, depth + 1));
        let ty = if ann {
            format!(": {}", bt.text(self.fl))
        } else {
            String::new()
        };
        format!("{{ let {}{ty} = {val}; {body} }}", pat.text)
    }

    /// A value of type `t` (not a tuple) taken out of a tuple: a projection, a pattern, a
    /// helper's result.
    pub(super) fn tupled(&mut self, t: &T, depth: usize) -> String {
        match self.r.below(5) {
            0 | 1 => {
                let (ts, path) = self.tuple_with(t);
                let e = self.tuple(&ts, depth + 1);
                format!("({e}){path}")
            }
            2 => {
                let (ts, _) = self.tuple_with(t);
                self.let_of(&T::Tup(ts), t, depth)
            }
            _ => {
                let found: Vec<(usize, String)> = (0..self.helpers.len())
                    .flat_map(|h| {
                        let mut ps = Vec::new();
                        if self.helpers[h].ret == *t {
                            ps.push(String::new());
                        }
                        path_to(&self.helpers[h].ret, t, String::new(), &mut ps);
                        ps.into_iter().map(move |p| (h, p))
                    })
                    .collect();
                // A helper's body is not small: not called in loops that run it often.
                if found.is_empty() || self.work() > 40 {
                    let (ts, path) = self.tuple_with(t);
                    let e = self.tuple(&ts, depth + 1);
                    return format!("({e}){path}");
                }
                let (h, path) = found[self.r.below(found.len())].clone();
                let call = self.call_helper(h, depth);
                format!("{call}{path}")
            }
        }
    }

    /// A tuple type with a component of type `t`, and the projections that reach it
    /// (`.1`, or `.0.1` through a nested tuple). Half the time for an array of `d` rows,
    /// the other components are arrays of `d` rows too, so that a scan can give them.
    fn tuple_with(&mut self, t: &T) -> (Vec<T>, String) {
        let rows = match t {
            T::V(d) | T::M(d, _) | T::UV(d) => Some(*d),
            _ => None,
        };
        let mut ts = match rows {
            Some(d) if self.r.one_in(2) => (0..1 + self.r.below(2))
                .map(|_| {
                    if self.r.one_in(2) {
                        T::V(d)
                    } else {
                        T::M(d, self.mat_cols(d))
                    }
                })
                .collect(),
            _ => {
                let mut ts = self.rand_tuple(1, true);
                ts.pop();
                ts
            }
        };
        let k = self.r.below(ts.len() + 1);
        if self.r.one_in(6) {
            let (inner, path) = self.tuple_with(t);
            ts.insert(k, T::Tup(inner));
            (ts, format!(".{k}{path}"))
        } else {
            ts.insert(k, t.clone());
            (ts, format!(".{k}"))
        }
    }

    /// A tuple with components of types `ts`.
    pub(super) fn tuple(&mut self, ts: &[T], depth: usize) -> String {
        let leaf = self.leaf(depth, 4);
        let tt = T::Tup(ts.to_vec());
        match self.r.below(if leaf { 2 } else { 12 }) {
            0 => match self.pick_var(&tt) {
                Some(v) => v,
                None => self.tuple_literal(ts, depth),
            },
            2 => {
                let c = self.boolean(depth + 1);
                let (x, y) = (self.tuple(ts, depth + 1), self.tuple(ts, depth + 1));
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            3 => self.let_in(&tt, depth),
            4 | 5 => self.tuple_fold(ts, depth),
            6..=8 => match scan_state(ts) {
                Some((d, st)) => {
                    let init = self.expr(&st, depth + 1);
                    self.scan(d, &st, init, depth)
                }
                None => self.tuple_fold(ts, depth),
            },
            9 => {
                let hs: Vec<usize> = (0..self.helpers.len())
                    .filter(|&h| self.helpers[h].ret == tt)
                    .collect();
                if hs.is_empty() || self.work() > 40 {
                    return self.tuple_literal(ts, depth);
                }
                let h = hs[self.r.below(hs.len())];
                self.call_helper(h, depth)
            }
            10 => {
                let (outer, path) = self.tuple_with(&tt);
                let e = self.tuple(&outer, depth + 1);
                format!("({e}){path}")
            }
            _ => self.tuple_literal(ts, depth),
        }
    }

    fn tuple_literal(&mut self, ts: &[T], depth: usize) -> String {
        let parts: Vec<String> = ts.iter().map(|t| self.expr(t, depth + 1)).collect();
        format!("({})", parts.join(", "))
    }

    /// `ifold(k, init, |pat, i| body)` with a tuple state.
    fn tuple_fold(&mut self, ts: &[T], depth: usize) -> String {
        let st = T::Tup(ts.to_vec());
        let i = self.name("i");
        let index = if self.r.one_in(3) {
            let d = self.vec_dim();
            (d.text().to_string(), Var::new(&i, T::U, Some(d)))
        } else {
            let (cnt, trip) = self.count(depth + 1);
            (cnt, Var::counter(&i, trip))
        };
        let (cnt, index) = index;
        let init = self.tuple(ts, depth + 1);
        let pat = self.pattern(&st, true);
        let mut vars = pat.binds;
        vars.push(index);
        let body = self.with_vars(vars, |g| g.step(&st, &pat.cur, depth + 1));
        format!("ifold({cnt}, {init}, |{}, {i}| {body})", pat.text)
    }

    /// `scan(d, init, |pat, i| body)` with state type `st` (a scalar, a vector or a tuple
    /// of those): `d` states.
    pub(super) fn scan(&mut self, d: D, st: &T, init: String, depth: usize) -> String {
        let pat = match st {
            T::Tup(_) => self.pattern(st, true),
            _ if self.r.one_in(8) => Pattern {
                text: "_".into(),
                binds: Vec::new(),
                cur: Cur::Ignored,
            },
            _ => self.pattern(st, true),
        };
        let i = self.name("i");
        let mut vars = pat.binds;
        vars.push(Var::new(&i, T::U, Some(d)));
        let body = self.with_vars(vars, |g| g.step(st, &pat.cur, depth + 1));
        format!("scan({}, {init}, |{}, {i}| {body})", d.text(), pat.text)
    }

    /// One step of a fold over a state of type `t`: each component that the body can read
    /// decays by half and gets a new term (so that long folds stay bounded), the others
    /// are computed afresh; sometimes under an `if` or a `let`.
    fn step(&mut self, t: &T, cur: &Cur, depth: usize) -> String {
        match self.r.below(if depth > 3 { 1 } else { 6 }) {
            1 => {
                let c = self.boolean(depth + 1);
                let (x, y) = (self.update(t, cur, depth), self.update(t, cur, depth + 1));
                format!("if {c} {{ {x} }} else {{ {y} }}")
            }
            2 => {
                let bt = if self.r.one_in(2) {
                    T::F
                } else {
                    T::Tup(self.rand_tuple(0, false))
                };
                let val = self.expr(&bt, depth + 1);
                let pat = self.pattern(&bt, true);
                let body = self.with_vars(pat.binds, |g| g.update(t, cur, depth + 1));
                format!("{{ let {} = {val}; {body} }}", pat.text)
            }
            _ => self.update(t, cur, depth),
        }
    }

    fn update(&mut self, t: &T, cur: &Cur, depth: usize) -> String {
        if let T::Tup(ts) = t {
            let parts: Vec<String> = ts
                .iter()
                .enumerate()
                .map(|(k, tk)| self.update(tk, &cur.part(k), depth))
                .collect();
            return format!("({})", parts.join(", "));
        }
        // `x * 0.5 + e`: the type of `x * 0.5` flows into e.
        let e = self.expr_e(
            matches!(t, T::F) && matches!(cur, Cur::Expr(_)),
            t,
            depth + 1,
        );
        let Cur::Expr(x) = cur else { return e };
        match t {
            T::F => format!("{x} * 0.5 + {e}"),
            T::U => format!("({x} + {e}) % 5"),
            T::V(_) => format!("add(smul({x}, {}), {e})", self.lit_s("0.5")),
            T::M(..) => format!("madd(msmul({x}, {}), {e})", self.lit_s("0.5")),
            T::UV(_) => format!("map2({x}, {e}, |u, w| (u + w) % 5)"),
            T::Tup(_) => unreachable!(),
        }
    }

    /// A call of helper `h`: the kernel's parameters (or other values of their types) and
    /// a tuple argument if it takes one.
    pub(super) fn call_helper(&mut self, h: usize, depth: usize) -> String {
        let mut args = Vec::new();
        for (plain, t) in [
            ("a", T::V(D::N)),
            ("b", T::V(D::M)),
            ("c", T::M(D::N, D::M)),
            ("s", T::F),
        ] {
            if self.r.one_in(4) {
                // A parameter's declared type flows into its argument.
                args.push(self.expr_e(true, &t, depth + 2));
            } else {
                args.push(plain.to_string());
            }
        }
        args.push("p".into());
        if self.gathers {
            args.push("ix".into());
            args.push("jx".into());
        }
        if let Some(t) = self.helpers[h].param.clone() {
            args.push(self.expr(&t, depth + 1));
        }
        format!("{}({})", self.helpers[h].name, args.join(", "))
    }
}

/// The projections that reach a component of type `want` inside a value of type `have`
/// (not `have` itself).
fn path_to(have: &T, want: &T, at: String, out: &mut Vec<String>) {
    if let T::Tup(ts) = have {
        for (k, t) in ts.iter().enumerate() {
            let p = format!("{at}.{k}");
            if t == want {
                out.push(p.clone());
            }
            path_to(t, want, p, out);
        }
    }
}

/// If every component of `ts` is an array of the same number `d` of rows (a vector of `d`
/// or a matrix of `d` rows), a scan of `d` steps gives them: `d` and the scan's state type.
fn scan_state(ts: &[T]) -> Option<(D, T)> {
    let rows = |t: &T| match t {
        T::V(d) | T::M(d, _) | T::UV(d) => Some(*d),
        _ => None,
    };
    let d = rows(&ts[0])?;
    let st: Option<Vec<T>> = ts
        .iter()
        .map(|t| match t {
            T::V(r) if *r == d => Some(T::F),
            T::M(r, c) if *r == d => Some(T::V(*c)),
            T::UV(r) if *r == d => Some(T::U),
            _ => None,
        })
        .collect();
    Some((d, T::Tup(st?)))
}
