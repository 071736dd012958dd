//! A printer for the core IR, in fsmooth's own syntax where it has one: `let x_3: f64 = ..;`,
//! `build(n, |i_4| ..)`, `ifold(n, init, |acc_5, i_6| ..)`, indexing, math methods and sizes
//! as the user writes them. Every variable prints as its source name and its id (`x_3`), so
//! two variables of one name stay apart; the names come from [`Kernel::var_names`].
//!
//! The output is for people (the explain tool, test failures); nothing parses it back.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kernel, Kind, Type, VarId};
use std::fmt;

/// How many spaces one level of nesting indents.
const INDENT: usize = 4;

/// Inline `if` branches and closure bodies longer than this print on lines of their own.
const INLINE: usize = 60;

/// The name a variable prints as: its source name and its id, `x_3`.
pub fn var(v: VarId, names: &[String]) -> String {
    let name = names.get(v as usize).map(String::as_str).unwrap_or("v");
    let name = name.trim_start_matches("r#");
    if name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
        return format!("{name}_{v}");
    }
    // A name the compiler gave (a tuple pattern's whole, `(s , q)`; a view's hidden
    // argument, `a `): its words joined, so that the printed code still parses.
    let words: Vec<&str> = name
        .split(|c: char| !(c == '_' || c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let joined = if words.is_empty() {
        "t".to_string()
    } else {
        words.join("_")
    };
    format!("{joined}_{v}")
}

/// A size expression, loop indexes named as variables.
pub fn size(s: &Size, names: &[String]) -> String {
    s.display_with(&|v| var(v, names))
}

/// A type as the user writes it, sizes with loop indexes named.
pub fn ty(t: &Type, names: &[String]) -> String {
    match t {
        Type::Arr(elem, dims) => dims.iter().rev().fold(elem.name().to_string(), |inner, n| {
            format!("[{inner}; {}]", size(n, names))
        }),
        Type::Tuple(ts) => {
            let parts: Vec<String> = ts.iter().map(|t| ty(t, names)).collect();
            format!("({})", parts.join(", "))
        }
        _ => t.to_string(),
    }
}

/// One expression, on as many lines as its `let`s and long branches need (the first line
/// unindented, the others indented as at nesting level 0).
pub fn expr(e: &Core, names: &[String]) -> String {
    Printer { names }.expr(e, 0)
}

/// A whole kernel: `pub fn k(a_0: [f64; n]) -> [f64; n] { .. }`.
pub fn kernel(k: &Kernel) -> String {
    let p = Printer {
        names: &k.var_names,
    };
    let params: Vec<String> = k
        .params
        .iter()
        .map(|x| format!("{}: {}", var(x.id, &k.var_names), ty(&x.ty, &k.var_names)))
        .collect();
    format!(
        "pub fn {}({}) -> {} {{\n{}\n}}\n",
        k.name.text,
        params.join(", "),
        ty(&k.ret, &k.var_names),
        p.block_body(&k.body, 1)
    )
}

impl fmt::Display for Kernel {
    /// The kernel in fsmooth's syntax ([`kernel`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&kernel(self))
    }
}

/// Binding strength, as Rust parses it: operands weaker than their place get parentheses.
mod prec {
    pub const IF: u8 = 0;
    pub const OR: u8 = 1;
    pub const AND: u8 = 2;
    pub const CMP: u8 = 3;
    pub const ADD: u8 = 4;
    pub const MUL: u8 = 5;
    pub const CAST: u8 = 6;
    pub const UNARY: u8 = 7;
    pub const POSTFIX: u8 = 8;
    pub const ATOM: u8 = 9;
}

fn bin_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Or => prec::OR,
        BinOp::And => prec::AND,
        BinOp::Add | BinOp::Sub => prec::ADD,
        BinOp::Mul | BinOp::Div | BinOp::Rem => prec::MUL,
        _ => prec::CMP,
    }
}

fn prec_of(e: &Core) -> u8 {
    match &e.kind {
        Kind::Float(v) if v.is_sign_negative() => prec::UNARY,
        Kind::Size(Size::Lit(_) | Size::Name(_) | Size::Loop(_)) => prec::ATOM,
        Kind::Size(Size::Mul(..) | Size::Div(..) | Size::Rem(..)) => prec::MUL,
        Kind::Size(_) => prec::ADD,
        Kind::If(..) => prec::IF,
        Kind::Bin(op, ..) => bin_prec(*op),
        Kind::Cast(..) => prec::CAST,
        Kind::Neg(_) | Kind::Not(_) => prec::UNARY,
        Kind::Index(..) | Kind::Slice(..) | Kind::Math(..) | Kind::Proj(..) => prec::POSTFIX,
        _ => prec::ATOM,
    }
}

struct Printer<'a> {
    names: &'a [String],
}

fn pad(level: usize) -> String {
    " ".repeat(level * INDENT)
}

impl Printer<'_> {
    fn var(&self, v: VarId) -> String {
        var(v, self.names)
    }

    /// `e` where an operand of strength `min` goes: in parentheses if it binds less tightly.
    fn operand(&self, e: &Core, level: usize, min: u8) -> String {
        let s = self.expr(e, level);
        if prec_of(e) < min {
            format!("({s})")
        } else {
            s
        }
    }

    /// `e` at nesting `level` (the caller adds any parentheses it needs).
    fn expr(&self, e: &Core, level: usize) -> String {
        match &e.kind {
            Kind::Float(v) => float(*v),
            Kind::Bool(b) => b.to_string(),
            Kind::Size(s) => size(s, self.names),
            Kind::Var(v) => self.var(*v),
            Kind::Let(..) => format!("{{\n{}\n{}}}", self.block_body(e, level + 1), pad(level)),
            Kind::If(c, a, b) => self.if_else(c, a, b, level),
            Kind::Bin(op, a, b, _) => {
                let p = bin_prec(*op);
                // Comparisons do not chain; `x as f64 < y` reads as a generic: both get
                // parentheses.
                let cmp = p == prec::CMP;
                let left_min = if cmp { p + 1 } else { p };
                let left = if cmp && matches!(a.kind, Kind::Cast(..)) {
                    format!("({})", self.expr(a, level))
                } else {
                    self.operand(a, level, left_min)
                };
                let right = self.operand(b, level, p + 1);
                format!("{left} {} {right}", op.symbol())
            }
            Kind::Neg(a) => format!("-{}", self.operand(a, level, prec::UNARY)),
            Kind::Not(a) => format!("!{}", self.operand(a, level, prec::UNARY)),
            Kind::Cast(t, a) => {
                format!("{} as {}", self.operand(a, level, prec::CAST), t.name())
            }
            Kind::Math(f, xs) => {
                let recv = xs
                    .first()
                    .map(|x| self.operand(x, level, prec::POSTFIX))
                    .unwrap_or_default();
                let args: Vec<String> = xs[1.min(xs.len())..]
                    .iter()
                    .map(|x| self.expr(x, level))
                    .collect();
                format!("{recv}.{}({})", f.name(), args.join(", "))
            }
            Kind::Index(a, i) => format!(
                "{}[{}]",
                self.operand(a, level, prec::POSTFIX),
                self.expr(i, level)
            ),
            Kind::Slice(a, lo) => {
                let len = e.ty.dims().first().cloned().unwrap_or(Size::Lit(0));
                let start = self.expr(lo, level);
                let end = match &lo.sym {
                    Some(s) => size(&slice_end(s, &len), self.names),
                    None => format!(
                        "{} + {}",
                        self.operand(lo, level, prec::ADD),
                        size(&len, self.names)
                    ),
                };
                format!("{}[{start}..{end}]", self.operand(a, level, prec::POSTFIX))
            }
            Kind::Build(n, i, body) => format!(
                "build({}, |{}| {})",
                size(n, self.names),
                self.var(*i),
                self.closure_body(body, level)
            ),
            Kind::Ifold(n, init, acc, i, body) => format!(
                "ifold({}, {}, |{}, {}| {})",
                self.expr(n, level),
                self.expr(init, level),
                self.var(*acc),
                self.var(*i),
                self.closure_body(body, level)
            ),
            Kind::Array(items) => {
                let items: Vec<String> = items.iter().map(|x| self.expr(x, level)).collect();
                format!("[{}]", items.join(", "))
            }
            Kind::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|x| self.expr(x, level)).collect();
                format!("({})", items.join(", "))
            }
            Kind::Proj(t, k) => format!("{}.{k}", self.operand(t, level, prec::POSTFIX)),
            Kind::Scan(n, init, acc, i, body) => format!(
                "scan({}, {}, |{}, {}| {})",
                size(n, self.names),
                self.expr(init, level),
                self.var(*acc),
                self.var(*i),
                self.closure_body(body, level)
            ),
            Kind::CheckIndex(k, len) => {
                format!(
                    "check_index({}, {})",
                    self.expr(k, level),
                    size(len, self.names)
                )
            }
            Kind::Iterate(init, s, cond, t, next) => format!(
                "iterate({}, |{}| {}, |{}| {})",
                self.expr(init, level),
                self.var(*s),
                self.closure_body(cond, level),
                self.var(*t),
                self.closure_body(next, level)
            ),
            Kind::Concat(a, b) => {
                format!("concat({}, {})", self.expr(a, level), self.expr(b, level))
            }
            Kind::Reshape(a) => {
                let (from, to) = (a.ty.dims(), e.ty.dims());
                if to.len() > from.len() && to.len() >= 2 {
                    format!(
                        "split({}, {})",
                        size(&to[1], self.names),
                        self.expr(a, level)
                    )
                } else {
                    format!("join({})", self.expr(a, level))
                }
            }
        }
    }

    /// A closure's body: inline when short and free of `let`s, else a block.
    fn closure_body(&self, body: &Core, level: usize) -> String {
        let inline = self.expr(body, level);
        if matches!(body.kind, Kind::Let(..)) || fits(&inline) {
            return inline;
        }
        format!(
            "{{\n{}{}\n{}}}",
            pad(level + 1),
            deeper(&inline),
            pad(level)
        )
    }

    /// `if c { a } else { b }`, on one line when both branches are short.
    fn if_else(&self, c: &Core, a: &Core, b: &Core, level: usize) -> String {
        let c = self.expr(c, level);
        let branch = |e: &Core| match e.kind {
            Kind::Let(..) | Kind::If(..) => None,
            _ => Some(self.expr(e, level)),
        };
        let (inline_a, inline_b) = (branch(a), branch(b));
        if let (Some(x), Some(y)) = (&inline_a, &inline_b)
            && fits(x)
            && fits(y)
        {
            return format!("if {c} {{ {x} }} else {{ {y} }}");
        }
        let body = |e: &Core, inline: Option<String>| match inline {
            Some(s) => format!("{}{}", pad(level + 1), deeper(&s)),
            None => self.block_body(e, level + 1),
        };
        let other = match &b.kind {
            Kind::If(c2, a2, b2) => format!(" else {}", self.if_else(c2, a2, b2, level)),
            _ => format!(" else {{\n{}\n{}}}", body(b, inline_b), pad(level)),
        };
        format!("if {c} {{\n{}\n{}}}{other}", body(a, inline_a), pad(level))
    }

    /// The statements of a `let` chain and its final expression, one per line at `level`.
    fn block_body(&self, e: &Core, level: usize) -> String {
        let mut lines = Vec::new();
        let mut cur = e;
        while let Kind::Let(v, a, b) = &cur.kind {
            lines.push(format!(
                "{}let {}: {} = {};",
                pad(level),
                self.var(*v),
                ty(&a.ty, self.names),
                self.expr(a, level)
            ));
            cur = b;
        }
        lines.push(format!("{}{}", pad(level), self.expr(cur, level)));
        lines.join("\n")
    }
}

/// `lo + len` as the user would write a slice's end: `a[d..x]` for a length `x - d`.
fn slice_end(lo: &Size, len: &Size) -> Size {
    match len {
        Size::Sub(whole, minus) if minus.same(lo) => (**whole).clone(),
        _ => {
            let end = Size::plus(lo.clone(), len.clone());
            end.poly().to_size().unwrap_or_else(|| end.fold())
        }
    }
}

/// Short enough for one line.
fn fits(s: &str) -> bool {
    s.len() <= INLINE && !s.contains('\n')
}

/// Text printed at one level, moved one level in (its first line is placed by the caller).
fn deeper(s: &str) -> String {
    s.replace('\n', &format!("\n{}", pad(1)))
}

/// An f64 as a Rust literal (or constant, for the values that have no literal).
fn float(v: f64) -> String {
    if v.is_nan() {
        "f64::NAN".into()
    } else if v == f64::INFINITY {
        "f64::INFINITY".into()
    } else if v == f64::NEG_INFINITY {
        "f64::NEG_INFINITY".into()
    } else {
        format!("{v:?}")
    }
}

#[cfg(test)]
#[path = "print_tests.rs"]
pub(crate) mod tests;
