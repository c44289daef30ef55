//! One module per subcommand: its arguments and its `main`.

pub mod bench_search;
pub mod check;
pub mod compare;
pub mod run;
pub mod scaling;
pub mod validate;
