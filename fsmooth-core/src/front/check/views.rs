//! Layout views (LANGUAGE.md section 9), checked where they are called: `concat`, `join` and
//! `split` become core nodes of their own ([`Kind::Concat`], [`Kind::Reshape`]), which the
//! lowering writes in place; `reverse`, `interleave`, `pad` and `slide` become `build`s over
//! their arguments, so that fusion reads through them (a source view) and a `build` argument
//! fuses into the loop that writes the destination (a destination view). They work on arrays
//! of any rank: the element type is whatever one row is.

use super::elab::{Bind, Elab, Elaborated, Env, wrap_lets};
use super::infer::Want;
use super::tuples::hidden;
use crate::front::ast::{BinOp, Expr, ExprKind, Name, Sp};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Scalar, Type};

/// The views' names, in the order the docs list them.
pub const VIEWS: [&str; 7] = [
    "concat",
    "join",
    "split",
    "reverse",
    "interleave",
    "slide",
    "pad",
];

/// How each view is called, for arity errors.
pub fn usage(name: &str) -> &'static str {
    match name {
        "concat" => "concat(a, b)",
        "join" => "join(a)",
        "split" => "split(m, a)",
        "reverse" => "reverse(a)",
        "interleave" => "interleave(a, b)",
        "slide" => "slide(w, a)",
        _ => "pad(a, l, r, v)",
    }
}

/// Surface syntax for a desugared view, every node at the call's span.
struct Syntax(Sp);

impl Syntax {
    fn at(&self, kind: ExprKind) -> Expr {
        Expr { kind, span: self.0 }
    }
    fn var(&self, n: &Name) -> Expr {
        self.at(ExprKind::Var(n.clone()))
    }
    fn int(&self, v: u64) -> Expr {
        self.at(ExprKind::Int(v))
    }
    fn bin(&self, op: BinOp, a: Expr, b: Expr) -> Expr {
        self.at(ExprKind::Bin(op, Box::new(a), Box::new(b)))
    }
    fn len(&self, a: &Name) -> Expr {
        self.at(ExprKind::Len(Box::new(self.var(a))))
    }
    fn index(&self, a: &Name, i: Expr) -> Expr {
        self.at(ExprKind::Index(Box::new(self.var(a)), Box::new(i)))
    }
    fn build(&self, n: Expr, i: &Name, body: Expr) -> Expr {
        self.at(ExprKind::Build(Box::new(n), i.clone(), Box::new(body)))
    }
    fn cond(&self, c: Expr, a: Expr, b: Expr) -> Expr {
        self.at(ExprKind::If(Box::new(c), Box::new(a), Box::new(b)))
    }
}

impl Elab<'_> {
    /// A call of view `name` (no function of the block or prelude has the name).
    pub(super) fn view_call(
        &mut self,
        name: &Name,
        args: &[Expr],
        sp: Sp,
        env: &Env,
    ) -> Elaborated {
        let want = match name.text.as_str() {
            "join" | "reverse" => 1,
            "pad" => 4,
            _ => 2,
        };
        if args.len() != want {
            self.err(
                sp,
                format!(
                    "`{}` takes {want} argument{}, found {}",
                    usage(&name.text),
                    if want == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return Err(());
        }
        match name.text.as_str() {
            "concat" => self.v_concat(&args[0], &args[1], sp, env),
            "join" => self.v_join(&args[0], sp, env),
            "split" => self.v_split(&args[0], &args[1], sp, env),
            "reverse" => self.v_reverse(&args[0], sp, env),
            "interleave" => self.v_interleave(&args[0], &args[1], sp, env),
            "slide" => self.v_slide(&args[0], &args[1], sp, env),
            _ => self.v_pad(args, sp, env),
        }
    }

    /// An argument that must be an array; its dimensions.
    fn array_arg(&mut self, view: &str, e: &Expr, env: &Env) -> Result<(Core, Vec<Size>), ()> {
        let c = self.expr(e, env)?;
        match &c.ty {
            Type::Arr(_, d) => {
                let d = d.clone();
                Ok((c, d))
            }
            other => {
                let help = if other.is_tuple() {
                    "\n  help: take one component, `t.0`, or `concat` the components"
                } else {
                    ""
                };
                self.err(
                    c.span,
                    format!("`{view}` takes an array here, found `{other}`{help}"),
                );
                Err(())
            }
        }
    }

    fn v_concat(&mut self, a: &Expr, b: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let (a, b) = (
            self.array_arg("concat", a, env),
            self.array_arg("concat", b, env),
        );
        let ((a, da), (b, db)) = (a?, b?);
        if a.ty.scalar() != b.ty.scalar()
            || da.len() != db.len()
            || da[1..].iter().zip(&db[1..]).any(|(x, y)| !x.same(y))
        {
            self.err(
                b.span,
                format!(
                    "mismatched shapes: `concat` joins arrays of one row type; the first is `{}`, this one is `{}`",
                    a.ty, b.ty
                ),
            );
            return Err(());
        }
        let elem = a.ty.scalar().unwrap_or(Scalar::F64);
        let mut dims = da.clone();
        dims[0] = Size::plus(da[0].clone(), db[0].clone());
        Ok(Core::new(
            Kind::Concat(Box::new(a), Box::new(b)),
            Type::Arr(elem, dims),
            sp,
        ))
    }

    fn v_join(&mut self, a: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let (a, d) = self.array_arg("join", a, env)?;
        if d.len() < 2 {
            self.err(
                a.span,
                format!("`join` flattens an array of rows, found `{}`", a.ty),
            );
            return Err(());
        }
        let mut dims = vec![Size::times(d[0].clone(), d[1].clone())];
        dims.extend(d[2..].iter().cloned());
        let elem = a.ty.scalar().unwrap_or(Scalar::F64);
        Ok(Core::new(
            Kind::Reshape(Box::new(a)),
            Type::Arr(elem, dims),
            sp,
        ))
    }

    fn v_split(&mut self, m: &Expr, a: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let m = self.size_expr(m, env, "`split`'s row length");
        let (a, d) = self.array_arg("split", a, env)?;
        let m = m?;
        let Some(rows) = d[0].poly().divide(&m.poly()).and_then(|q| q.to_size()) else {
            if let (Some(len), Some(mc)) = (d[0].as_const(), m.as_const()) {
                self.err(
                    a.span,
                    format!("`split({mc}, ..)` cuts rows of {mc}, but this array has {len} elements, not a multiple of {mc}"),
                );
                return Err(());
            }
            self.err(
                a.span,
                format!(
                    "`split({m}, ..)` needs a length that is a multiple of `{m}`, but this array is `{}`\n  help: the length must be `{m}` times a size, as written (`[f64; {m} * k]`)",
                    a.ty
                ),
            );
            return Err(());
        };
        if m.as_const() == Some(0) {
            self.err(a.span, "`split(0, ..)` has rows of no elements: use m ≥ 1");
            return Err(());
        }
        let mut dims = vec![rows, m];
        dims.extend(d[1..].iter().cloned());
        let elem = a.ty.scalar().unwrap_or(Scalar::F64);
        Ok(Core::new(
            Kind::Reshape(Box::new(a)),
            Type::Arr(elem, dims),
            sp,
        ))
    }

    /// Bind elaborated `c` to a hidden name in `env`, for a desugared body to use.
    fn hold(&mut self, text: &str, c: Core, env: &mut Env, bound: &mut Vec<(u32, Core)>) -> Name {
        let n = hidden(text, c.span);
        let id = self.fresh(text);
        env.push((n.text.clone(), Bind::Val(id, c.ty.clone(), c.sym.clone())));
        self.link(id, &c);
        bound.push((id, c));
        n
    }

    fn v_reverse(&mut self, a: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let (a, _) = self.array_arg("reverse", a, env)?;
        let (mut env, mut bound) = (env.clone(), Vec::new());
        let an = self.hold("a", a, &mut env, &mut bound);
        let i = hidden("i", sp);
        let s = Syntax(sp);
        // `len - (i + 1)`: never below zero for i < len, and no `len - 1` of an empty array.
        let at = s.bin(
            BinOp::Sub,
            s.len(&an),
            s.bin(BinOp::Add, s.var(&i), s.int(1)),
        );
        let body = s.build(s.len(&an), &i, s.index(&an, at));
        let r = self.expr(&body, &env)?;
        Ok(wrap_lets(bound, r, sp))
    }

    fn v_interleave(&mut self, a: &Expr, b: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let (a, b) = (
            self.array_arg("interleave", a, env),
            self.array_arg("interleave", b, env),
        );
        let ((a, _), (b, _)) = (a?, b?);
        if !a.ty.same(&b.ty) {
            self.err(
                b.span,
                format!(
                    "mismatched shapes: `interleave` takes two arrays of one shape; the first is `{}`, this one is `{}`",
                    a.ty, b.ty
                ),
            );
            return Err(());
        }
        let (mut env, mut bound) = (env.clone(), Vec::new());
        let an = self.hold("a", a, &mut env, &mut bound);
        let bn = self.hold("b", b, &mut env, &mut bound);
        let i = hidden("i", sp);
        let s = Syntax(sp);
        let half = || s.bin(BinOp::Div, s.var(&i), s.int(2));
        let even = s.bin(BinOp::Eq, s.bin(BinOp::Rem, s.var(&i), s.int(2)), s.int(0));
        let body = s.build(
            s.bin(BinOp::Mul, s.int(2), s.len(&an)),
            &i,
            s.cond(even, s.index(&an, half()), s.index(&bn, half())),
        );
        let r = self.expr(&body, &env)?;
        Ok(wrap_lets(bound, r, sp))
    }

    fn v_slide(&mut self, w: &Expr, a: &Expr, sp: Sp, env: &Env) -> Elaborated {
        let wsp = w.span;
        let w = self.size_expr(w, env, "`slide`'s window");
        let (a, d) = self.array_arg("slide", a, env)?;
        let w = w?;
        if w.as_const() == Some(0) {
            self.err(
                wsp,
                "`slide(0, ..)` has windows of no elements: use a window of 1 or more",
            );
            return Err(());
        }
        if let (Some(wc), Some(n)) = (w.as_const(), d[0].as_const())
            && n + 1 < wc
        {
            self.err(
                wsp,
                format!(
                    "a window of {wc} is wider than `{}` allows: at most {}, the length + 1 (which gives no windows)",
                    a.ty,
                    n + 1
                ),
            );
            return Err(());
        }
        if w.as_const().is_none() {
            // Checked at entry, the error naming the window.
            let what = format!("slide({w}, ..) with {w} = 0");
            self.entry_sizes.push((w.clone(), what));
        }
        let (mut env, mut bound) = (env.clone(), Vec::new());
        let an = self.hold("a", a, &mut env, &mut bound);
        let wn = hidden("w", sp);
        env.push((wn.text.clone(), Bind::Size(w)));
        let (i, j) = (hidden("i", sp), hidden("j", sp));
        let s = Syntax(sp);
        // `len + 1 - w`: fails at entry exactly when there is no window (len + 1 < w).
        let count = s.bin(
            BinOp::Sub,
            s.bin(BinOp::Add, s.len(&an), s.int(1)),
            s.var(&wn),
        );
        let window = s.build(
            s.var(&wn),
            &j,
            s.index(&an, s.bin(BinOp::Add, s.var(&i), s.var(&j))),
        );
        let r = self.expr(&s.build(count, &i, window), &env)?;
        Ok(wrap_lets(bound, r, sp))
    }

    fn v_pad(&mut self, args: &[Expr], sp: Sp, env: &Env) -> Elaborated {
        let a = self.array_arg("pad", &args[0], env);
        let l = self.size_expr(&args[1], env, "`pad`'s left count");
        let r = self.size_expr(&args[2], env, "`pad`'s right count");
        let a = a?;
        let row = a.0.ty.elem();
        let v = self.expr_want(&args[3], env, &Want::of(&row));
        let ((a, _), l, r, v) = (a, l?, r?, v?);
        if !v.ty.same(&row) {
            self.err(
                v.span,
                format!(
                    "mismatched shapes: `pad` fills with an element of the array, `{row}`, found `{}`{}",
                    v.ty,
                    match row.dims() {
                        [k] if k.as_const().is_some_and(|k| (1..=8).contains(&k)) => {
                            let zeros = vec!["0.0"; k.as_const().unwrap_or(1) as usize];
                            format!("\n  help: fill with a row, e.g. `[{}]`", zeros.join(", "))
                        }
                        [] => String::new(),
                        _ => "\n  help: fill with a row of the array".to_string(),
                    }
                ),
            );
            return Err(());
        }
        let (mut env, mut bound) = (env.clone(), Vec::new());
        let an = self.hold("a", a, &mut env, &mut bound);
        let vn = self.hold("v", v, &mut env, &mut bound);
        let (ln, rn) = (hidden("l", sp), hidden("r", sp));
        env.push((ln.text.clone(), Bind::Size(l)));
        env.push((rn.text.clone(), Bind::Size(r)));
        let i = hidden("i", sp);
        let s = Syntax(sp);
        let count = s.bin(
            BinOp::Add,
            s.bin(BinOp::Add, s.var(&ln), s.len(&an)),
            s.var(&rn),
        );
        let from = || s.bin(BinOp::Sub, s.var(&i), s.var(&ln));
        let body = s.cond(
            s.bin(BinOp::Lt, s.var(&i), s.var(&ln)),
            s.var(&vn),
            s.cond(
                s.bin(BinOp::Lt, from(), s.len(&an)),
                s.index(&an, from()),
                s.var(&vn),
            ),
        );
        let r = self.expr(&s.build(count, &i, body), &env)?;
        Ok(wrap_lets(bound, r, sp))
    }
}
