//! `sizes`: the sizes a kernel's code needs ([`SizeTable`]), each computed once at entry with
//! checked arithmetic, so that a loop bound or an offset is a local, not a product computed
//! again at every use.

use crate::front::size::Size;
use crate::lir::{Checked, Ex, St};
use proc_macro2::{Ident, Span};
use quote::format_ident;

/// Sizes needed by the code, each computed once at kernel entry with checked arithmetic.
#[derive(Default)]
pub struct SizeTable {
    entries: Vec<(String, Ident, St)>,
}

impl SizeTable {
    /// The expression for size `s`: a literal, a size name, or a local computed at entry.
    pub fn get(&mut self, s: &Size) -> Ex {
        // As a whole: `n - w + 1` is `n + 1 - w`, which is 0 for n = w - 1 (LANGUAGE.md
        // section 10), where `n - w` alone would fail.
        let s = s.whole();
        match &s {
            Size::Lit(v) => Ex::Usize(*v as usize),
            Size::Name(n) => Ex::Var(crate::front::ast::ident(n, Span::call_site())),
            Size::Loop(_) => Ex::Usize(0),
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => {
                let key = s.to_string();
                if let Some((_, id, _)) = self.entries.iter().find(|(k, _, _)| *k == key) {
                    return Ex::Var(id.clone());
                }
                let (x, y) = (self.get(a), self.get(b));
                let c = match s {
                    Size::Add(..) => Checked::Add,
                    Size::Sub(..) => Checked::Sub,
                    Size::Mul(..) => Checked::Mul,
                    Size::Div(..) => Checked::Div,
                    _ => Checked::Rem,
                };
                let id = format_ident!("__z{}", self.entries.len());
                let val = Ex::Checked(c, Box::new(x), Box::new(y), key.clone());
                let st = St::Let {
                    id: id.clone(),
                    mutable: false,
                    usize_ty: true,
                    val,
                };
                self.entries.push((key, id.clone(), st));
                Ex::Var(id)
            }
        }
    }

    /// Size `s` checked at entry not to be 0, `Error::Arithmetic` with the text `what` if it
    /// is (a division of `s` by itself, whose quotient nothing reads).
    pub fn nonzero(&mut self, s: &Size, what: &str) {
        let x = self.get(s);
        let id = format_ident!("__z{}", self.entries.len());
        let val = Ex::Checked(
            Checked::Div,
            Box::new(x.clone()),
            Box::new(x),
            what.to_string(),
        );
        let st = St::Let {
            id: id.clone(),
            mutable: false,
            usize_ty: true,
            val,
        };
        self.entries.push((format!("nonzero {what}"), id, st));
    }

    /// The entry statements, in dependency order.
    pub fn statements(&self) -> Vec<St> {
        self.entries.iter().map(|(_, _, c)| c.clone()).collect()
    }
}
