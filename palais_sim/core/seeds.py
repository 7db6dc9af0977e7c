"""The root seeds reserved for fitting value functions and models, in one place.

A value function that corrects a verdict for luck must be fixed before the verdict's games are seen: fitted on games
no study, run, match, test or report plays. Those games descend from root seeds in ``FIT_ROOT_SEEDS`` only, and every
command that takes a root seed refuses one in the range (``check_root_seed``), so a study's games (derived from its
root by a seed sequence) never share a root with a fit's.
"""

from __future__ import annotations

from typing import Final

FIT_ROOT_SEEDS: Final = range(1 << 40, 1 << 41)
# Its upper half: the blocks of the strategies' model iterations (`palais train`); the lower half is the value
# functions' (``fit_root_seed``), so the two never share a root either.
ITERATION_ROOT_SEEDS: Final = range(FIT_ROOT_SEEDS.start + (len(FIT_ROOT_SEEDS) >> 1), FIT_ROOT_SEEDS.stop)


class ReservedSeed(ValueError):
    """A root seed in the range reserved for fitting."""


def is_reserved(seed: int) -> bool:
    return seed in FIT_ROOT_SEEDS


def check_root_seed(seed: int, option: str = "--seed") -> None:
    """Raise :class:`ReservedSeed` (a one-line message) for a root seed that a fit may use."""
    if is_reserved(seed):
        raise ReservedSeed(
            f"{option} {seed} lies in the range reserved for fitting value functions "
            f"({FIT_ROOT_SEEDS.start}..{FIT_ROOT_SEEDS.stop - 1}); choose another"
        )


def fit_root_seed(index: int) -> int:
    """The ``index``-th root seed a fit may use (0-based)."""
    half = len(FIT_ROOT_SEEDS) >> 1
    if not 0 <= index < half:
        raise ValueError(f"fit seed index {index} is outside 0..{half - 1}")
    return FIT_ROOT_SEEDS[index]
