//! The terminal's view of a long loop: a bar (sim time, steps/s, ETA) on a terminal, a plain line
//! every 5 s otherwise, nothing when quiet; and the interrupt flag the loops watch.
//!
//! Owns: [`Bar`] (the library's `Progress` on a terminal) and [`interrupt_flag`]. Does not
//! touch: the loop itself (`pbf::run::step_loop`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Progress of a long run on the terminal.
pub struct Bar {
    show: bool,
    steps: u64,
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    last_line: Instant,
}

impl Bar {
    pub fn new(show: bool, steps: u64) -> Bar {
        use std::io::IsTerminal;
        let bar = (show && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(steps);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} steps  t = {msg}  {per_sec}  ETA {eta}",
                )
                .unwrap(),
            );
            b
        });
        let now = Instant::now();
        Bar {
            show,
            steps,
            bar,
            started: now,
            last_line: now,
        }
    }
}

impl pbf::run::Progress for Bar {
    fn warn(&mut self, message: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("warning: {message}")),
            None => eprintln!("warning: {message}"),
        }
    }

    fn tick(&mut self, done: u64, time: f64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
            b.set_message(format!("{time:.3} s"));
        } else if self.show && (self.last_line.elapsed().as_secs_f64() > 5.0 || done == self.steps)
        {
            self.last_line = Instant::now();
            let rate = done as f64 / self.started.elapsed().as_secs_f64();
            eprintln!(
                "step {done}/{}  t = {time:.3} s  {rate:.1} steps/s  ETA {:.0} s",
                self.steps,
                (self.steps - done) as f64 / rate
            );
        }
    }

    fn end(&mut self, early: bool) {
        if let Some(b) = &self.bar {
            if early {
                b.abandon();
            } else {
                b.finish_and_clear();
            }
        }
    }
}

/// Set by the first interrupt (Ctrl-C, SIGTERM, SIGHUP): the loop stops after the step under
/// way, the command writes what it has (queued frames, summary, tables) and exits with 130. A
/// second interrupt exits at once (frames already on disk stay whole: each is written to a
/// temporary file and renamed, and the series file lists only those).
pub fn interrupt_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\ninterrupt: finishing the step under way (interrupt again to quit now)");
        });
        if let Err(e) = installed {
            eprintln!("warning: cannot catch interrupts ({e}); Ctrl-C will stop the run at once");
        }
    });
    &STOP
}
