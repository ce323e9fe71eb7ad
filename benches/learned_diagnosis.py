"""How well a net distilled from ``auto`` generalises (docs/training.md):
top-1 agreement of its move with ``auto``'s on training and held-out positions, and how often its
value head names the winner of held-out movement positions. Seeded; no timing.

Run: ``python benches/learned_diagnosis.py [--train-games 600] [--test-games 100] [--steps 2000]
[--depth 2] [--mix 0.5] [--hidden 128 128] [--save NET]`` (needs ``pingvinas[train]``).
"""

from __future__ import annotations

import argparse

import numpy as np

import pingvinas as pv
from pingvinas.learn import train as T


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train-games", type=int, default=600)
    p.add_argument("--test-games", type=int, default=100)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--every", type=int, default=500)
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--mix", type=float, default=0.5, help="search-value share of the targets")
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", default=None)
    args = p.parse_args()
    game = pv.Fish()
    train = T.distill(game, args.train_games, args.depth, args.mix, args.seed)
    # Held-out games from another seed, valued by their outcomes alone.
    test = T.distill(game, args.test_games, args.depth, 0.0, args.seed + 1_000_003)
    chance = float(np.mean(1.0 / test.mask.sum(1)))
    print(f"{len(train)} training rows, {len(test)} held out; top-1 by chance {chance:.3f}")
    trainer = T._Trainer(game, T.Settings(out="", hidden=args.hidden, seed=args.seed))
    sym, rng = T.Symmetries(game), np.random.default_rng(args.seed)
    planes = test.obs.reshape(len(test), *game.observation_shape)
    movement = (planes[:, -1, 0, 0] == 0) & (test.value[:, 0] != 0)

    def top1(s: T.Samples) -> float:
        logits, _ = T.forward(trainer.jnp, trainer.params, s.obs)
        picked = np.where(s.mask, np.asarray(logits), -np.inf).argmax(1)
        return float(np.mean(picked == s.policy.argmax(1)))

    head = T.Samples(train.obs[:3000], train.mask[:3000], train.policy[:3000], train.value[:3000])
    for done in range(args.every, args.steps + 1, args.every):
        pl, vl = trainer.fit(train, args.every, 256, sym, rng)
        _, v = T.forward(trainer.jnp, trainer.params, test.obs)
        v = np.asarray(v)[movement, 0]
        z = test.value[movement, 0]
        print(
            f"{done} updates: losses {pl:.3f} {vl:.3f}; top-1 train {top1(head):.3f}, held out "
            f"{top1(test):.3f}; winner named {np.mean(np.sign(v) == np.sign(z)):.3f} "
            f"(correlation {np.corrcoef(v, z)[0, 1]:.3f})",
            flush=True,
        )
    if args.save:
        trainer.net(game).save(args.save)


if __name__ == "__main__":
    main()
