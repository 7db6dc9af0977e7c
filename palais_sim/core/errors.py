"""The errors every game's play raises: one ``IllegalChoice`` for a choice the rules refuse and one ``StrategyError``
for a strategy that failed (the tournament worker records the latter's message with the game's seed)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(native_class=False)  # an exception: a plain Python class, also when compiled
class IllegalChoice(ValueError):
    """A choice that the rules do not allow at the pending decision."""


@mypyc_attr(native_class=False)
class NotListed(ValueError):
    """``view.legal_options`` of a decision whose choices are too many to list (Palais Royal's movement): sample
    them with ``view.sample_option``."""


@mypyc_attr(native_class=False)
class StrategyError(RuntimeError):
    """A strategy raised or answered illegally; the message names the strategy, its seat, the decision and the
    game's seed (``decision`` is the decision's label, as ``cards(move)``)."""

    def __init__(self, strategy: str, seat: int, decision: str, seed: int, problem: str) -> None:
        super().__init__(
            f"strategy {strategy!r} (seat {seat + 1}) failed at decision {decision} in game seed {seed}: {problem}"
        )
        self.strategy = strategy
        self.seat = seat
        self.decision = decision
        self.seed = seed
        self._args = (strategy, seat, decision, seed, problem)

    def __reduce__(self):
        """Picklable, so a failed game's error can travel back from a worker process."""
        return (StrategyError, self._args)
