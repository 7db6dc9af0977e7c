"""What Palastgeflüster's ``expert`` sees of each candidate of a decision: the move itself and its after-state.

The candidates are every legal choice of a decision (``view.legal_options``). Each is described from the seat's view
alone:

- **the move**, read from the view: the ``heuristic`` player's score of it and its gap to the best score (and
  whether it is the best); for a card played, whether it repeats a person of the display, completes six different,
  ends the round as the Hofnarr under the Hofnarr king, the display's size after it, the safe persons left in the
  hand, who plays next (the seat again, a brown card's fewest-cards rule, or an opponent: that opponent's points
  lead and how likely it is forced into a repeat, from its display and the cards of its hand the seat knows), the
  person played (one-hot) and whether its action is live (not blocked; a Mundschenk not among the round's first
  two cards);
- **the after-state**, on one determinization of the view (``view.sample_state``: the hidden cards dealt at random,
  the same deal for every candidate): the candidate is applied and ``heuristic`` plays every seat on until the seat
  faces its next card, the round ends or the game does; the position reached gives whether the round ended and who
  scored, the seat's points lead, its display and hand, the safe persons in its hand, how many decisions the others
  made meanwhile, the game's reward (``PG_TURNS.reward``) and whether the game ended.

The other hands are the sample's, never the state's: two states the seat cannot tell apart get the same rows.
"""

from __future__ import annotations

import random
from typing import Any

from palais_sim.games.palastgefluester.components import BROWN, HOFNARR, MUNDSCHENK, PERSONS
from palais_sim.games.palastgefluester.play import PG_TURNS
from palais_sim.games.palastgefluester.rules import MUNDSCHENK_IDLE_CARDS, Decision, apply, decision
from palais_sim.games.palastgefluester.state import OVER, PgState
from palais_sim.games.palastgefluester.view import PlayerView

MOVE = (
    "h_score", "h_gap", "is_base", "repeat", "six", "jester_end", "display_after", "safe_after", "again", "brown",
    "next_lead", "next_forced", "live", *(f"person_{p}" for p in range(PERSONS)),
)  # fmt: skip
AFTER = (
    "round_ended", "scored", "others_scored", "lead", "my_display", "my_hand", "my_safe", "others_moves", "reward",
    "won", "lost",
)  # fmt: skip
FEATURES: tuple[str, ...] = MOVE + AFTER
MAX_STEPS = 60  # most decisions played on after a candidate (a round has a few dozen at most; a guard)


def forced_chance(view: PlayerView, seat: int) -> float:
    """How likely ``seat`` is forced to repeat a person if it plays now: 0 if a card of its hand the view knows is
    safe, else the chance that its unknown cards all repeat its display (persons drawn uniformly)."""
    display = view.persons(seat)
    known = view.known_hands[seat]
    if any(c % PERSONS not in display for c in known):
        return 0.0
    return (len(display) / PERSONS) ** (view.hand_sizes[seat] - len(known))


def _play_features(view: PlayerView, card: int) -> list[float]:
    """The card-play part of ``MOVE`` (after the three heuristic columns)."""
    me = view.seat
    display = view.persons(me)
    person = card % PERSONS
    repeat = person in display
    six = not repeat and len(display) + 1 >= view.components.different_to_end
    jester = not repeat and not six and person == HOFNARR and view.blocked == HOFNARR
    rest = list(view.hand)
    rest.remove(card)
    after = display | {person}
    safe = len({c % PERSONS for c in rest} - after)
    colour = view.components.colour(card)
    if colour == BROWN:
        sizes = [len(d) for d in view.displays]
        sizes[me] += 1
        fewest = min(sizes)
        tied = [s for s in range(view.n) if sizes[s] == fewest]
        nxt = me if me in tied else tied[0]
    else:
        nxt = colour
    best_other = max(p for s, p in enumerate(view.points) if s != nxt)
    live = person != view.blocked and (person != MUNDSCHENK or view.round_cards >= MUNDSCHENK_IDLE_CARDS)
    onehot = [1.0 if p == person else 0.0 for p in range(PERSONS)]
    return [
        float(repeat), float(six), float(jester), float(len(after)), float(safe), float(nxt == me),
        float(colour == BROWN), 0.0 if nxt == me else float(view.points[nxt] - best_other),
        0.0 if nxt == me else forced_chance(view, nxt), float(live), *onehot,
    ]  # fmt: skip


def move_features(view: PlayerView, dec: Decision, choices: list[object], base: Any) -> list[list[float]]:
    """The ``MOVE`` columns of each choice; ``base`` is the heuristic player whose scores they include."""
    score = getattr(base, "_" + dec.kind)
    scores = [float(score(view, dec, c)) for c in choices]
    top = max(scores)
    rows = []
    for choice, s in zip(choices, scores, strict=True):
        head = [s, s - top, 1.0 if s == top else 0.0]
        tail = _play_features(view, choice) if dec.kind == "play" else [0.0] * (len(MOVE) - 3)  # type: ignore[arg-type]
        rows.append(head + tail)
    return rows


def after_state(sample: PgState, seat: int, choice: object, base: Any) -> tuple[PgState, int]:
    """``sample`` (a copy is made) with ``choice`` applied and played on by ``base`` for every seat until ``seat``
    is to play a card, the round ends or the game does; the state and the decisions the other seats made."""
    state = sample.copy()
    start = state.round
    apply(state, choice)
    others = 0
    for _ in range(MAX_STEPS):
        if state.phase == OVER or state.round != start:
            break
        dec = decision(state)
        if dec.seat == seat and dec.kind == "play":
            break
        others += dec.seat != seat
        apply(state, base.choose(PlayerView(state, dec.seat), dec))
    return state, others


def _after_features(view: PlayerView, state: PgState, others: int) -> list[float]:
    me = view.seat
    over = state.phase == OVER
    gained = [p - q for p, q in zip(state.points, view.points, strict=True)]
    lead = state.points[me] - max(p for s, p in enumerate(state.points) if s != me)
    display = {c % PERSONS for c in state.displays[me]}
    hand = state.hands[me]
    return [
        float(state.round != view.round or over), float(gained[me]),
        float(max(g for s, g in enumerate(gained) if s != me)), float(lead), float(len(display)), float(len(hand)),
        float(len({c % PERSONS for c in hand} - display)), float(others), PG_TURNS.reward(state, me),
        float(over and me in state.winners), float(over and me not in state.winners),
    ]  # fmt: skip


def candidate_features(
    view: PlayerView, dec: Decision, choices: list[object], base: Any, rng: random.Random
) -> list[list[float]]:
    """One row (``FEATURES``) per choice, on one determinization drawn from ``rng``."""
    rows = move_features(view, dec, choices, base)
    sample = view.sample_state(rng)
    for row, choice in zip(rows, choices, strict=True):
        state, others = after_state(sample, view.seat, choice, base)
        row += _after_features(view, state, others)
    return rows
