//! How a solid moves: its centre's offset as a function of time alone (so a run's state needs
//! only the time to place every solid, and a checkpoint needs nothing more).
//!
//! Owns: [`Motion`] and its offset. Does not touch: shapes or particles.

use glam::Vec3A;

/// The offset of a solid's centre from where the scene puts it, against time.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    Fixed,
    /// `amplitude · sin(2π t / period + phase)`, phase in radians.
    Sine {
        amplitude: Vec3A,
        period: f64,
        phase: f64,
    },
    /// `velocity · (clamp(t, start, end) − start)`: at rest before `start`, moving until `end`,
    /// then at rest where it arrived.
    Linear {
        velocity: Vec3A,
        start: f64,
        end: f64,
    },
    /// Piecewise linear through `(times[k], positions[k])`, held at the first and last position
    /// outside the times (increasing).
    Path {
        times: Vec<f64>,
        positions: Vec<Vec3A>,
    },
}

impl Motion {
    /// The offset at time `t`.
    pub fn offset(&self, t: f64) -> Vec3A {
        match self {
            Motion::Fixed => Vec3A::ZERO,
            Motion::Sine {
                amplitude,
                period,
                phase,
            } => *amplitude * (std::f64::consts::TAU * t / period + phase).sin() as f32,
            Motion::Linear {
                velocity,
                start,
                end,
            } => *velocity * (t.clamp(*start, end.max(*start)) - start) as f32,
            Motion::Path { times, positions } => {
                let k = times.partition_point(|&s| s <= t);
                if k == 0 {
                    positions[0]
                } else if k == times.len() {
                    positions[k - 1]
                } else {
                    let f = ((t - times[k - 1]) / (times[k] - times[k - 1])) as f32;
                    positions[k - 1] + (positions[k] - positions[k - 1]) * f
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_their_definitions() {
        let sine = Motion::Sine {
            amplitude: Vec3A::new(0.2, 0.0, 0.0),
            period: 2.0,
            phase: 0.0,
        };
        assert!(sine.offset(0.0).length() < 1e-7);
        assert!((sine.offset(0.5).x - 0.2).abs() < 1e-6);
        assert!((sine.offset(1.5).x + 0.2).abs() < 1e-6);
        let lin = Motion::Linear {
            velocity: Vec3A::new(1.0, 2.0, 0.0),
            start: 1.0,
            end: 2.0,
        };
        assert_eq!(lin.offset(0.5), Vec3A::ZERO);
        assert!((lin.offset(1.5) - Vec3A::new(0.5, 1.0, 0.0)).length() < 1e-6);
        assert_eq!(lin.offset(9.0), Vec3A::new(1.0, 2.0, 0.0));
        let path = Motion::Path {
            times: vec![0.0, 1.0, 3.0],
            positions: vec![Vec3A::ZERO, Vec3A::X, Vec3A::Y],
        };
        assert_eq!(path.offset(-1.0), Vec3A::ZERO);
        assert!((path.offset(0.25) - Vec3A::X * 0.25).length() < 1e-6);
        assert!((path.offset(2.0) - Vec3A::new(0.5, 0.5, 0.0)).length() < 1e-6);
        assert_eq!(path.offset(5.0), Vec3A::Y);
        // A zero amplitude stays exactly at the centre (so such a motion changes no bit).
        let still = Motion::Sine {
            amplitude: Vec3A::ZERO,
            period: 1.0,
            phase: 0.3,
        };
        let c = Vec3A::new(0.1, 0.7, -0.3);
        for t in [0.0, 0.13, 0.77, 5.0] {
            assert_eq!(c + still.offset(t), c);
        }
    }
}
