//! placeholder until the testdata crate lands
