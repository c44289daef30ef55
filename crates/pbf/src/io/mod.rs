//! Output for ParaView and splashsurf, and point files for the search bench.
//!
//! Owns: the frame formats ([`frame`]), the series files ([`series`]), atomic writes and frame
//! file names ([`files`]), the background writer ([`writer`]), the run summary ([`summary`]), the per-frame measures
//! ([`energy`]), the forces on the obstacles ([`forces`]) and
//! point files ([`points`]). Does not touch: the solver.
//!
//! Every file is written under a temporary name in the same folder and renamed into place, so an
//! interrupted run leaves only whole frames, and a series file that lists exactly the frames on
//! disk.

pub mod energy;
pub mod files;
pub mod forces;
pub mod frame;
pub mod pieces;
pub mod points;
pub mod series;
pub mod summary;
pub mod writer;

pub use files::{
    clear_after_checkpoint, clear_earlier_output, frame_name, obstacles_name, write_atomic,
    write_frame, write_obstacles,
};
pub use frame::Frame;
pub use series::{file_series_text, pvd_text, series_name, series_text};
pub use writer::FrameWriter;
