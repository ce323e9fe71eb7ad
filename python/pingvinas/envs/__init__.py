"""Adapters to the learning frameworks, each an optional extra; thin translations of names and
shapes. :mod:`pingvinas.envs.vector` holds the Gymnasium vector environment backed by
``pv.VectorEnv``."""
