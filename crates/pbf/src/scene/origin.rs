//! Where the simulation's coordinates start: a scene far from the origin is simulated in
//! coordinates relative to a point near its tank, so positions keep the precision of a scene
//! placed at the origin.
//!
//! Owns: [`Scene::origin`], [`Scene::translated`] and [`Scene::local`]. Does not touch: the solver, which is
//! built from the translated scene and adds the origin back where positions leave it (frames,
//! obstacle surfaces; checkpoints hold the simulation's own coordinates with the origin).
//!
//! Positions are f32: at 1,000 m their spacing is 6e-5 m, about 2.6 of the `g dt²` a particle
//! at rest falls in a 4 ms step, and a pool of still water placed 1 km from the origin moved
//! 4.5 times as fast as the same pool at the origin (0.043 against 0.0096 m/s after 3 s).

use super::Scene;

impl Scene {
    /// The point the simulation's coordinates are taken from: 0 on every axis where the tank's
    /// centre lies within 16 tank sizes of the origin (every scene placed near it runs
    /// exactly as it did before this existed); elsewhere the centre rounded to a multiple of
    /// `P`, the power of two at or above the tank's largest side (so the translation is
    /// exact for the scene's coordinates near it).
    pub fn origin(&self) -> [f32; 3] {
        let (lo, hi) = (self.tank.min, self.tank.max);
        let size = (0..3).map(|a| hi[a] - lo[a]).fold(0.0f32, f32::max);
        let p = 2f32.powi(size.max(f32::MIN_POSITIVE).log2().ceil() as i32);
        std::array::from_fn(|a| {
            let c = 0.5 * (lo[a] + hi[a]);
            if c.abs() <= 16.0 * size {
                0.0
            } else {
                p * (c / p).round()
            }
        })
    }

    /// The scene in the solver's coordinates: moved by minus its [`origin`](Self::origin).
    pub fn local(&self) -> Scene {
        self.translated(self.origin().map(|x| -x))
    }

    /// The scene moved by `by`: the tank, the blocks, the nozzles and the obstacles (their
    /// motions are offsets and velocities, and move with them).
    pub fn translated(&self, by: [f32; 3]) -> Scene {
        let mut s = self.clone();
        let shift = |p: &mut [f32; 3]| {
            for a in 0..3 {
                p[a] += by[a];
            }
        };
        shift(&mut s.tank.min);
        shift(&mut s.tank.max);
        for b in &mut s.fluid {
            shift(&mut b.min);
            shift(&mut b.max);
        }
        for e in &mut s.emitter {
            shift(&mut e.center);
        }
        for o in &mut s.obstacle {
            shift(&mut o.center);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::Scene;

    fn tank(min: [f32; 3], max: [f32; 3]) -> Scene {
        toml::from_str(&format!(
            "[tank]\nmin = {min:?}\nmax = {max:?}\n\
             [[fluid]]\nmin = {min:?}\nmax = {max:?}\n\
             [particles]\nradius = 0.01\n[time]\ndt = 0.002\nend = 1.0\n"
        ))
        .unwrap()
    }

    #[test]
    fn scenes_near_the_origin_keep_their_coordinates_and_far_ones_move_near_it() {
        assert_eq!(
            tank([-2.0, 0.0, -0.75], [2.0, 3.0, 0.75]).origin(),
            [0.0; 3]
        );
        assert_eq!(tank([0.0; 3], [0.5, 0.6, 0.5]).origin(), [0.0; 3]);
        assert_eq!(tank([7.0, 0.0, 0.0], [8.0, 1.0, 1.0]).origin(), [0.0; 3]);
        // 1 km up and along x: the tank (0.5 m) comes to within P = 0.5 of the origin.
        let far = tank([1000.0, 1000.0, 0.0], [1000.5, 1000.6, 0.5]);
        let o = far.origin();
        assert_eq!(o, [1000.0, 1000.0, 0.0]);
        let local = far.translated(o.map(|x| -x));
        assert_eq!(local.tank.min, [0.0; 3]);
        assert_eq!(local.fluid[0].max[0], 0.5);
    }
}
