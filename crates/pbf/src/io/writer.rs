//! The background writer that keeps the solver off the disk: a bounded queue of frames, one
//! thread that writes them and rewrites the series file after each.
//!
//! Owns: [`FrameWriter`] and its queue. Does not touch: the formats (frame, series, files).

use super::files::{write_frame, write_obstacles};
use super::frame::Frame;
use super::series::{series_name, series_text};
use super::write_atomic;
use crate::scene::Format;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

/// A small bounded queue (parking_lot mutex + condvars).
struct Queue<T> {
    items: Mutex<(VecDeque<T>, bool)>,
    not_empty: Condvar,
    not_full: Condvar,
    cap: usize,
}

impl<T> Queue<T> {
    fn push(&self, t: T) {
        let mut g = self.items.lock();
        while g.0.len() >= self.cap {
            self.not_full.wait(&mut g);
        }
        g.0.push_back(t);
        self.not_empty.notify_one();
    }

    /// Next item, or None once closed and drained.
    fn pop(&self) -> Option<T> {
        let mut g = self.items.lock();
        loop {
            if let Some(t) = g.0.pop_front() {
                self.not_full.notify_one();
                return Some(t);
            }
            if g.1 {
                return None;
            }
            self.not_empty.wait(&mut g);
        }
    }

    fn close(&self) {
        self.items.lock().1 = true;
        self.not_empty.notify_all();
    }
}

/// The files a series lists: (simulated time, file name) each.
pub type Listed = Vec<(f64, String)>;

/// Writes frames and the series file on a background thread. The solver hands over a snapshot and
/// goes on; it waits only when two frames are already queued.
pub struct FrameWriter {
    queue: Arc<Queue<Frame>>,
    state: Arc<(Mutex<WriterState>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Frames queued so far (the writer counts those it is done with).
    pushed: u64,
}

#[derive(Default)]
struct WriterState {
    error: Option<String>,
    written: Vec<(f64, String)>,
    /// The obstacle surface files written, for their own series.
    obstacles: Vec<(f64, String)>,
    /// Seconds spent writing.
    busy: f64,
    /// Frames taken off the queue and finished (written, or skipped after a failure).
    done: u64,
}

impl FrameWriter {
    /// Start a writer into `dir` (which must exist); the series is [`series_name`].
    pub fn start(dir: PathBuf, name: String, format: Format) -> FrameWriter {
        Self::resume(dir, name, format, Vec::new(), Vec::new())
    }

    /// A writer whose series already list `frames` and `obstacle_frames` (time, file): a run
    /// going on from a checkpoint. The series files are rewritten to them at once (a killed
    /// run may have listed frames past the checkpoint).
    pub fn resume(
        dir: PathBuf,
        name: String,
        format: Format,
        frames: Vec<(f64, String)>,
        obstacle_frames: Vec<(f64, String)>,
    ) -> FrameWriter {
        for (list, series) in [
            (&frames, name.clone()),
            (&obstacle_frames, format!("{name}_obstacles")),
        ] {
            if !list.is_empty() {
                let path = dir.join(series_name(&series, format));
                let _ = write_atomic(&path, |tmp| std::fs::write(tmp, series_text(format, list)));
            }
        }
        let queue: Arc<Queue<Frame>> = Arc::new(Queue {
            items: Mutex::new((VecDeque::new(), false)),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            cap: 2,
        });
        let state = Arc::new((
            Mutex::new(WriterState {
                written: frames,
                obstacles: obstacle_frames,
                ..WriterState::default()
            }),
            Condvar::new(),
        ));
        let (q, shared) = (queue.clone(), state.clone());
        let thread = std::thread::Builder::new()
            .name("frame-writer".into())
            .spawn(move || {
                let series = dir.join(series_name(&name, format));
                let obstacle_series = dir.join(series_name(&format!("{name}_obstacles"), format));
                let (st, idle) = (&shared.0, &shared.1);
                let finished = || {
                    st.lock().done += 1;
                    idle.notify_all();
                };
                while let Some(frame) = q.pop() {
                    if st.lock().error.is_some() {
                        finished();
                        continue; // drain after a failure
                    }
                    let t = std::time::Instant::now();
                    // List a file written at the frame's time in a series, and rewrite it.
                    let list = |path: PathBuf,
                                pick: fn(&mut WriterState) -> &mut Vec<(f64, String)>,
                                series: &PathBuf| {
                        let file = path.file_name().unwrap().to_string_lossy().to_string();
                        let text = {
                            let mut g = st.lock();
                            let listed = pick(&mut g);
                            listed.push((frame.time, file));
                            series_text(format, listed)
                        };
                        write_atomic(series, |tmp| std::fs::write(tmp, text))
                    };
                    let r = write_frame(&dir, &frame, format).and_then(|path| {
                        list(path, |g| &mut g.written, &series)?;
                        // The obstacles' surfaces at the same time, in a series of their own.
                        match write_obstacles(&dir, &frame, format)? {
                            Some(path) => list(path, |g| &mut g.obstacles, &obstacle_series),
                            None => Ok(()),
                        }
                    });
                    {
                        let mut g = st.lock();
                        g.busy += t.elapsed().as_secs_f64();
                        if let Err(e) = r {
                            g.error = Some(format!(
                                "writing frame {} into {}: {e}",
                                frame.index,
                                dir.display()
                            ));
                        }
                    }
                    finished();
                }
            })
            .expect("spawn the frame writer");
        FrameWriter {
            queue,
            state,
            thread: Some(thread),
            pushed: 0,
        }
    }

    /// Wait until every frame queued so far is on disk (whole) and listed in its series; returns
    /// the series entries so far (fluid, obstacles) or the first error.
    pub fn flush(&self) -> Result<(Listed, Listed), String> {
        let (st, idle) = (&self.state.0, &self.state.1);
        let mut g = st.lock();
        while g.done < self.pushed {
            idle.wait(&mut g);
        }
        match &g.error {
            Some(e) => Err(e.clone()),
            None => Ok((g.written.clone(), g.obstacles.clone())),
        }
    }

    /// Queue a frame; fails if an earlier write failed.
    pub fn push(&mut self, frame: Frame) -> Result<(), String> {
        if let Some(e) = self.state.0.lock().error.clone() {
            return Err(e);
        }
        self.queue.push(frame);
        self.pushed += 1;
        Ok(())
    }

    /// Wait for the queue to drain; returns (frames written, seconds spent writing) or the first
    /// error.
    pub fn finish(mut self) -> Result<(usize, f64), String> {
        self.queue.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let g = self.state.0.lock();
        match &g.error {
            Some(e) => Err(e.clone()),
            None => Ok((g.written.len(), g.busy)),
        }
    }
}

impl Drop for FrameWriter {
    fn drop(&mut self) {
        self.queue.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
