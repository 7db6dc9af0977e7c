"""What ``expert`` sees of each candidate of a decision: its after-state and the move itself.

The candidates are the search's own (``IsmctsStrategy.candidates``: the styles' choices, the card combinations, one
movement plan per promising noble, each affordable noble and stopping). For each, one determinization of the seat's
view (``view.sample_state``: the hidden cards dealt at random, the same deal for every candidate) is played through
the candidate and on to the end of the seat's turn by the base style (greedy), and the position reached is described
by the leaf value's features (``leaf_value.features``: the seat's differences to the best other seat in everything it
owns, plain and scaled by closeness to the end) and its two fitted heads (win chance and worth, as logits); then the
other seats' replies, played by the base style too up to the seat's next turn, and the two heads and the score lead
there (a one-round rollout of a deterministic player, on the same deal for every candidate); and the same four at
the end of the next round (the seat's own next turn and the replies to it: a two-round rollout, the teacher's
horizon; ``docs/notes/2026-12-02-student.md``). The move
itself adds how many of the styles chose it, whether it is the base style's choice and whether it passes (no
movement, no noble). Everything is read from the seat's own view: the other hands are the sample's.
"""

from __future__ import annotations

import random
from typing import Any

from palais_sim.core.portable_math import log
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.leaf_value import FEATURES as LEAF_FEATURES
from palais_sim.games.palais_royal.leaf_value import features as leaf_features
from palais_sim.games.palais_royal.play import leaf_value
from palais_sim.games.palais_royal.scoring import final_scores
from palais_sim.games.palais_royal.state import GameState
from palais_sim.games.palais_royal.view import PlayerView

TURN_FEATURES: tuple[str, ...] = (*LEAF_FEATURES, "win_logit", "worth_logit", "votes", "is_base", "passes", "over")
REPLY_FEATURES: tuple[str, ...] = ("reply_win_logit", "reply_worth_logit", "reply_lead", "reply_over")
FEATURES: tuple[str, ...] = (*TURN_FEATURES, *REPLY_FEATURES)
SECOND_FEATURES: tuple[str, ...] = ("second_win_logit", "second_worth_logit", "second_lead", "second_over")
LONG_FEATURES: tuple[str, ...] = (*FEATURES, *SECOND_FEATURES)
FEATURE_SETS: tuple[tuple[str, ...], ...] = (LONG_FEATURES, FEATURES, TURN_FEATURES)  # a model is fitted on one
ROUNDS = {len(TURN_FEATURES): 0, len(FEATURES): 1, len(LONG_FEATURES): 2}  # rounds played out, by a set's size
TURN_STEPS = 40  # most decisions played to finish a turn (a turn has about ten; a guard, never reached in practice)


def _logit(p: float) -> float:
    p = min(1.0 - 1e-9, max(1e-9, p))
    return log(p / (1.0 - p))


def _passes(choice: object) -> bool:
    return choice is None or (isinstance(choice, list | tuple) and len(choice) == 0)


def after_turn(state: GameState, seat: int, choice: object, base: Any) -> GameState:
    """``state`` (a copy is made) with ``choice`` applied and the rest of the seat's turn played by ``base``."""
    state = state.copy()
    turn = state.turn_no
    rules.apply(state, choice)
    return _finish_turn(state, seat, base, turn)


def _finish_turn(state: GameState, seat: int, base: Any, turn: int) -> GameState:
    """``state`` itself, with the seat's decisions of turn ``turn`` played by ``base`` to the turn's end."""
    for _ in range(TURN_STEPS):
        if state.over or state.turn_no != turn:
            break
        dec = rules.decision(state)
        if dec.seat != seat:
            break
        rules.apply(state, base.choose(PlayerView(state, seat), dec))
    return state


def _play_replies(state: GameState, seat: int, base: Any) -> GameState:
    """``state`` itself, played on by ``base`` for every seat until ``seat``'s next turn begins."""
    for _ in range(TURN_STEPS * state.n):
        if state.over or state.current == seat:
            break
        dec = rules.decision(state)
        rules.apply(state, base.choose(PlayerView(state, dec.seat), dec))
    return state


def _lead_row(state: GameState, seat: int, win: Any, worth: Any) -> list[float]:
    """The leaf value's two heads (as logits), the seat's score lead and whether the game is over, at ``state``."""
    scores = final_scores(state)
    lead = scores[seat].total - max(s.total for s in scores if s.seat != seat)
    seen = leaf_features(state, seat, scores)
    return [_logit(win(seen)), _logit(worth(seen)), float(lead), 1.0 if state.over else 0.0]


class CandidateRows:
    """A decision's candidates described on one determinization of the seat's view: ``rows[i]`` is candidate ``i``'s
    ``TURN_FEATURES`` row, one round of replies longer (``REPLY_FEATURES``, then ``SECOND_FEATURES``) each time
    ``deepen`` names it. Deepening only the few a cheaper policy ranks best (a model's ``screens``) is what makes the
    longer rollouts affordable; every row is the one ``candidate_features`` would give it."""

    def __init__(
        self, view: PlayerView, choices: list[object], votes: list[int], styles: int, base: Any, rng: random.Random
    ) -> None:
        self.seat = view.seat
        self.base = base
        sample = view.sample_state(rng)
        self._win, self._worth = leaf_value()._heads(sample.n)  # the leaf value's heads, each applied to one row
        self.rows: list[list[float]] = []
        self._states: list[GameState] = []  # where each candidate's rollout stands (played on in place)
        for i, choice in enumerate(choices):
            state = after_turn(sample, self.seat, choice, base)
            row = leaf_features(state, self.seat, final_scores(state))
            row += [
                _logit(self._win(row)), _logit(self._worth(row)),
                votes[i] / max(1, styles), 1.0 if i == 0 else 0.0, 1.0 if _passes(choice) else 0.0,
                1.0 if state.over else 0.0,
            ]  # fmt: skip
            self.rows.append(row)
            self._states.append(state)

    def rounds(self, i: int) -> int:
        """The rounds of replies candidate ``i``'s row describes."""
        return (len(self.rows[i]) - len(TURN_FEATURES)) // len(REPLY_FEATURES)

    def deepen(self, indices: list[int]) -> None:
        """One more round for each candidate in ``indices``: the other seats' replies (the first), or the seat's next
        turn, played on the replies' state itself, and the replies to it (the second)."""
        for i in indices:
            if self.rounds(i) >= len(ROUNDS) - 1:
                raise ValueError(f"candidate {i} is described {self.rounds(i)} rounds deep already, the most there is")
            state = self._states[i]
            if self.rounds(i) > 0:
                state = _finish_turn(state, self.seat, self.base, state.turn_no)
            state = _play_replies(state, self.seat, self.base)
            self.rows[i] += _lead_row(state, self.seat, self._win, self._worth)


def candidate_features(
    view: PlayerView, choices: list[object], votes: list[int], styles: int, base: Any, rng: random.Random,
    replies: int = 1,
) -> list[list[float]]:  # fmt: skip
    """One feature row per choice (``TURN_FEATURES``, and after ``replies`` rounds of replies, 1 or 2, ``FEATURES``
    or ``LONG_FEATURES``); ``votes[i]``: how many of the ``styles`` chose ``choices[i]``; ``choices[0]`` is the base
    style's own choice, and ``base`` the style that finishes the turn."""
    described = CandidateRows(view, choices, votes, styles, base, rng)
    everyone = list(range(len(choices)))
    for _ in range(replies):
        described.deepen(everyone)
    return described.rows
