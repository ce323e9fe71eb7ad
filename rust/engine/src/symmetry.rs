//! Symmetries of a board: the maps of a game's board (a Fish board, a Marathon course) onto
//! itself, each as the permutations that learning code and solvers need. The geometry of each
//! game is in `fish/symmetry.rs` and `marathon/symmetry.rs`; this is the game-free part: the
//! type and the group operations.
//!
//! A symmetry maps every position to an equivalent one (the same values, the same players to
//! move; legal actions map to legal actions). It is given as
//! - `actions[a]`: the image of action `a`, a permutation of `0..num_actions`;
//! - `cells[i]`: the image of observation cell `i` (`row * cols + col` of the observation
//!   planes), a permutation of `0..rows * cols`;
//! - `planes[p]`: the plane that plane `p`'s values move to (the identity for Fish; Marathon's
//!   facing planes turn with the board).
//!
//! So the observation of the transformed position is `out[planes[p]][cells[i]] = obs[p][i]`,
//! and a policy `pi` over actions becomes `out[actions[a]] = pi[a]`.

use crate::game::Action;

/// One symmetry of a board (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// Its name: `"identity"`, `"mirror"`, `"rotate-60"`, `"reflect-30"`, ... (each game
    /// documents its names).
    pub name: String,
    /// `actions[a]`: the image of action `a`.
    pub actions: Vec<Action>,
    /// `cells[i]`: the image of observation cell `i`.
    pub cells: Vec<u32>,
    /// `planes[p]`: where plane `p`'s values go.
    pub planes: Vec<u32>,
}

fn compose(first: &[u32], then: &[u32]) -> Vec<u32> {
    first.iter().map(|&x| then[x as usize]).collect()
}

fn invert(p: &[u32]) -> Vec<u32> {
    let mut out = vec![0; p.len()];
    for (i, &x) in p.iter().enumerate() {
        out[x as usize] = i as u32;
    }
    out
}

fn is_permutation(p: &[u32]) -> bool {
    let mut seen = vec![false; p.len()];
    p.iter()
        .all(|&x| (x as usize) < p.len() && !std::mem::replace(&mut seen[x as usize], true))
}

impl Symmetry {
    /// The identity on spaces of these sizes.
    pub fn identity(actions: usize, cells: usize, planes: usize) -> Symmetry {
        Symmetry {
            name: "identity".into(),
            actions: (0..actions as u32).collect(),
            cells: (0..cells as u32).collect(),
            planes: (0..planes as u32).collect(),
        }
    }

    /// Whether it maps everything to itself.
    pub fn is_identity(&self) -> bool {
        let id = |p: &[u32]| p.iter().enumerate().all(|(i, &x)| i as u32 == x);
        id(&self.actions) && id(&self.cells) && id(&self.planes)
    }

    /// Whether all three maps are permutations.
    pub fn is_valid(&self) -> bool {
        is_permutation(&self.actions) && is_permutation(&self.cells) && is_permutation(&self.planes)
    }

    /// `self`, then `other` (named `"<self>+<other>"`).
    pub fn then(&self, other: &Symmetry) -> Symmetry {
        Symmetry {
            name: format!("{}+{}", self.name, other.name),
            actions: compose(&self.actions, &other.actions),
            cells: compose(&self.cells, &other.cells),
            planes: compose(&self.planes, &other.planes),
        }
    }

    /// The symmetry that undoes this one (named `"<self>^-1"`).
    pub fn inverse(&self) -> Symmetry {
        Symmetry {
            name: format!("{}^-1", self.name),
            actions: invert(&self.actions),
            cells: invert(&self.cells),
            planes: invert(&self.planes),
        }
    }

    /// Whether the maps are equal (names aside).
    pub fn same_map(&self, other: &Symmetry) -> bool {
        (&self.actions, &self.cells, &self.planes) == (&other.actions, &other.cells, &other.planes)
    }

    /// The observation of the transformed position from `obs` (planes, then cells), written to
    /// `out` (the same length): `out[planes[p]][cells[i]] = obs[p][i]`.
    pub fn transform_observation(&self, obs: &[f32], out: &mut [f32]) {
        let area = self.cells.len();
        debug_assert_eq!(obs.len(), area * self.planes.len());
        debug_assert_eq!(out.len(), obs.len());
        for (p, &to_plane) in self.planes.iter().enumerate() {
            let (src, dst) = (p * area, to_plane as usize * area);
            for (i, &to_cell) in self.cells.iter().enumerate() {
                out[dst + to_cell as usize] = obs[src + i];
            }
        }
    }
}

/// Checks that `syms` is a group: it holds the identity, every member is valid, and it is
/// closed under composition and inverses. Returns what is wrong, for tests.
pub fn check_group(syms: &[Symmetry]) -> Result<(), String> {
    let find = |s: &Symmetry| syms.iter().position(|t| t.same_map(s));
    if !syms.iter().any(Symmetry::is_identity) {
        return Err("no identity".into());
    }
    for a in syms {
        if !a.is_valid() {
            return Err(format!("{} is not a permutation", a.name));
        }
        if find(&a.inverse()).is_none() {
            return Err(format!("the inverse of {} is missing", a.name));
        }
        for b in syms {
            if find(&a.then(b)).is_none() {
                return Err(format!("{} then {} is missing", a.name, b.name));
            }
        }
    }
    for (i, a) in syms.iter().enumerate() {
        if syms[..i].iter().any(|b| b.same_map(a)) {
            return Err(format!("{} is listed twice", a.name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composition_inverse_and_observations() {
        let swap = Symmetry {
            name: "swap".into(),
            actions: vec![1, 0, 2],
            cells: vec![1, 0],
            planes: vec![0, 1],
        };
        let id = Symmetry::identity(3, 2, 2);
        assert!(swap.then(&swap).is_identity());
        assert!(swap.inverse().same_map(&swap));
        check_group(&[id.clone(), swap.clone()]).unwrap();
        assert!(check_group(std::slice::from_ref(&swap)).is_err());
        let obs = [1.0, 2.0, 3.0, 4.0];
        let mut out = [0.0; 4];
        swap.transform_observation(&obs, &mut out);
        assert_eq!(out, [2.0, 1.0, 4.0, 3.0]);
    }
}
