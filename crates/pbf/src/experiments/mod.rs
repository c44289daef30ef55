//! Experiments on the solver and the search: each produces a table for the terminal, a CSV and
//! an SVG chart.
//!
//! Owns: [`compare`] (pruned against unpruned on one simulation: the paper's Tables 1 and 2 and
//! Figure 5), [`scaling`] (time per particle-step against particles and threads), [`validation`]
//! (the surge front against Martin & Moyce) and [`bench_search`] (the search alone on a point
//! cloud). Does not touch: the step itself, or files other than through [`crate::io`].

pub mod bench_search;
pub mod compare;
pub mod report;
pub mod scaling;
pub mod validation;
