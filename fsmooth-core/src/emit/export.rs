//! A block that declares `pub mod name;`: its items inside `mod name`, with the hidden
//! `macro_rules!` that hands the block's source to importing blocks
//! ([`crate::front::imports`]).

use crate::front::ast::ModuleDecl;
use crate::front::imports::{BLOCK_MACRO, section_template};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// `mod name { items; the source macro }` for the block whose tokens are `source`, with
/// id `id`. `failed`: the block had errors, so importing blocks stay quiet about it.
pub fn module(
    decl: &ModuleDecl,
    id: &str,
    failed: bool,
    source: &TokenStream,
    items: TokenStream,
) -> TokenStream {
    let ModuleDecl { attrs, vis, name } = decl;
    let name = crate::front::ast::ident(&name.text, name.span);
    let mac = crate::front::ast::ident(&format!("__fsmooth_src_{id}"), Span::call_site());
    let reach = crate::front::ast::ident(BLOCK_MACRO, Span::call_site());
    let section = section_template(id, failed, source);
    let rules = quote! {
        ($requester:literal [$($path:tt)*] $($rest:tt)*) => {
            ::fsmooth::fsmooth! { #section $($rest)* }
        };
    };
    // Other crates reach a `pub` module's macro: it is exported (at the crate root, hence
    // the id in its name) and re-exported here; otherwise it stays in its crate.
    let export = if decl.exported() {
        quote! {
            #[doc(hidden)]
            #[macro_export]
            macro_rules! #mac { #rules }
            #[doc(hidden)]
            pub use #mac as #reach;
        }
    } else {
        quote! {
            #[doc(hidden)]
            macro_rules! #mac { #rules }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub(crate) use #mac as #reach;
        }
    };
    quote! {
        #(#attrs)*
        #vis mod #name {
            #items
            #export
        }
    }
}
