"""One game of Palastgeflüster at the command line (``palais play``, ``replay``, ``score``, ``inspect``,
``analyse``): the replay log, a position file per turn, going on from one, and the commands that read one. Reached
through the game interface (``GAME`` and its ``positions`` facet), so the commands have no branch of their own."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from palais_sim.core import loop
from palais_sim.games.palastgefluester.components import PERSON_IDS, PERSONS, PgComponents
from palais_sim.games.palastgefluester.notation import NotationError, ReplayRecorder, replay
from palais_sim.games.palastgefluester.play import PG_TURNS, PgResult, result_of
from palais_sim.games.palastgefluester.position import (
    POSITION_FORMAT,
    card_name,
    load_position,
    save_position,
    turn_number,
)
from palais_sim.games.palastgefluester.rules import Decision, decision, legal_options, new_game, points_to_win
from palais_sim.games.palastgefluester.state import NEXT, PLAY, PgState
from palais_sim.games.palastgefluester.view import PlayerView

TITLE = "Palastgeflüster"


class _TurnStarts(loop.Turns):
    """The game's turns as the play loop asks them, showing ``on_turn`` the state before every card played."""

    def __init__(self, on_turn: Callable[[PgState], None]) -> None:
        self.on_turn = on_turn

    def pending(self, state: PgState) -> Decision:
        if state.phase == PLAY:
            self.on_turn(state)
        return decision(state)

    def view(self, state: PgState, seat: int) -> PlayerView:
        return PlayerView(state, seat)

    def apply(self, state: PgState, choice: object) -> None:
        PG_TURNS.apply(state, choice)

    def reward(self, state: PgState, seat: int) -> float:
        return PG_TURNS.reward(state, seat)


def result_text(seed: int, result: PgResult) -> str:
    """A finished game in a few lines: the totals by seat and the winner."""
    payload = result.to_json()
    lines = [f"{TITLE}, {result.players} players, seed {seed}: {result.rounds} rounds, {result.decisions} decisions"]
    lines += [f"  seat {seat['seat']} {seat['strategy']:<14} {seat['total']:>3} points" for seat in payload["seats"]]
    status = "" if result.finished else f" (stopped unfinished at round {result.rounds})"
    lines.append(f"winner: seat {', '.join(str(w + 1) for w in result.winners) or 'none'}{status}")
    return "\n".join(lines)


def play_session(
    context: Any, seed: int, seats: Callable[[int], Sequence[Any]], out: TextIO | None, log: Path | None,
    positions: Path | None = None, start: Path | None = None,
) -> PgResult:  # fmt: skip
    """Play one game between ``seats(players)`` (from ``start``, a position file, if given; its hidden information
    left out is dealt from ``seed``); with ``log``, its replay log; with ``positions``, the position before every
    card played, as ``turn-NNNN.json`` in that directory; with ``out``, the seats' totals and the winner."""
    if start is not None:
        begin = load_position(start, seed)
        seed = begin.seed
    else:
        begin = new_game(context.options, seed, context.components)
    strategies = seats(begin.n)
    recorder = ReplayRecorder(begin.copy(), loop.strategy_names(strategies)) if log is not None else None
    turns: loop.Turns = PG_TURNS
    if positions is not None:
        folder = positions

        def write(state: PgState) -> None:
            save_position(state, folder / f"turn-{turn_number(state):04d}.json")

        turns = _TurnStarts(write)
    if len(strategies) != begin.n:
        raise ValueError(f"{begin.n} players need {begin.n} strategies, got {len(strategies)}")
    loop.run_to_end(begin, strategies, turns, recorder.record if recorder is not None else None)
    result = result_of(begin, strategies, begin.decisions)
    if recorder is not None and log is not None:
        text = json.dumps(recorder.finish(begin), separators=(",", ":"))
        tmp = log.with_name(log.name + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(log)
    if out is not None:
        out.write(result_text(seed, result) + "\n")
    return result


def replay_text(log: Path) -> str:
    """Replay a log written by :func:`play_session`; the summary line, or NotationError (naming the file) at the
    first difference."""
    if Path(log).is_dir():
        raise NotationError(f"{log}: is a directory, not a replay log")
    try:
        data = json.loads(Path(log).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise NotationError(f"{log}: not a text file (a replay log is JSON)") from None
    except json.JSONDecodeError as exc:
        raise NotationError(f"{log}: not a JSON replay log (line {exc.lineno}: {exc.msg})") from None
    try:
        state = replay(data)
    except NotationError as exc:
        raise NotationError(f"{log}: {str(exc).removeprefix('replay: ')}") from None
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise NotationError(f"{log}: not a replay log this engine can read ({exc!r})") from None
    return f"{log}: {len(data.get('decisions', []))} decisions replayed, result identical (round {state.round})"


# ---------------------------------------------------------------------------------------------- score


def standings(state: PgState) -> tuple[list[int], str]:
    """The seats that would win if the game ended now (0-based) and the tie-break's column: the most points, then
    the rules' tie-break (most cards in the display) or the variant's (the highest noted total); still tied, shared."""
    tiebreak = state.options.tiebreak
    keys = state.noted if tiebreak == "noted" else [len(d) for d in state.displays]
    top = max(state.points)
    leaders = [s for s in range(state.n) if state.points[s] == top]
    best = max(keys[s] for s in leaders)
    return [s for s in leaders if keys[s] == best], tiebreak


def score_position(path: Path) -> tuple[dict, str]:
    """The points as if the game ended now and who would win, with the tie-break: payload and text."""
    state = load_position(path)
    winners, tiebreak = standings(state)
    target = points_to_win(state)
    seats = [
        {"seat": s + 1, "points": state.points[s], "display": len(state.displays[s]), "noted": state.noted[s]}
        for s in range(state.n)
    ]
    payload = {"round": state.round, "target": target, "tiebreak": tiebreak, "seats": seats,
               "winners": [w + 1 for w in winners]}  # fmt: skip
    leaders = [s for s in range(state.n) if state.points[s] == max(state.points)]
    how = (
        "ahead on points" if len(leaders) == 1
        else f"{len(leaders)} seats tied on {max(state.points)} points, "
        + (f"broken by the {tiebreak} tie-break" if len(winners) == 1 else f"still tied after the {tiebreak} tie-break")
    )  # fmt: skip
    lines = [f"round {state.round}, {target} points to win; tie-break: {tiebreak}"]
    lines += [
        f"seat {r['seat']}: {r['points']} point{'s' * (r['points'] != 1)} (display {r['display']}, noted {r['noted']})"
        for r in seats
    ]
    lines.append(f"winners if the game ended now: seat {', '.join(str(w + 1) for w in winners)} ({how})")
    return payload, "\n".join(lines)


# ---------------------------------------------------------------------------------------------- inspect


def _cards(comps: PgComponents, cards: Sequence[int]) -> str:
    return ", ".join(card_name(comps, c) for c in cards) or "none"


def describe(state: PgState, pending: Decision, choice: object) -> str:
    """A choice of the pending decision in words (seats 1-based)."""
    comps = state.components
    kind = pending.kind
    if kind in ("play", "discard", "guard"):
        return f"{kind} {card_name(comps, choice)}"  # type: ignore[arg-type]
    if kind == "next":
        return f"seat {choice + 1} plays next"  # type: ignore[operator]
    if kind == "swap":
        a, ca, b, cb = choice  # type: ignore[misc]
        return f"swap seat {a + 1}'s {card_name(comps, ca)} with seat {b + 1}'s {card_name(comps, cb)}"
    if kind == "wizard":
        partner, count = choice  # type: ignore[misc]
        return f"exchange {count} card{'s' * (count != 1)} with seat {partner + 1}"
    if kind in ("give", "partner_give"):
        return f"give {_cards(comps, choice)}"  # type: ignore[arg-type]
    return repr(choice)


def outcome(state: PgState, choice: object) -> str:
    """What playing ``choice`` at the pending decision gives now, found by playing it on a copy of the position."""
    after = state.copy()
    ends = len(after.round_ends)
    PG_TURNS.apply(after, choice)
    if len(after.round_ends) > ends:
        end = after.round_ends[-1]
        scorers = ", ".join(str(s + 1) for s in end.scorers)
        text = f"ends the round ({end.kind}): " + (
            f"seat {scorers} scores" if len(end.scorers) == 1 else f"seats {scorers} score"
        )
        if after.over:
            text += f"; the game ends, won by seat {', '.join(str(w + 1) for w in after.winners)}"
        return text
    king = "reveals a king card, " if len(after.kings_revealed) != len(state.kings_revealed) else ""
    if after.phase == PLAY:
        return f"{king}then seat {after.current + 1} plays"
    pending = decision(after)
    if after.phase == NEXT:
        tied = ", ".join(str(s + 1) for s in pending.seats)
        return f"{king}then seat {pending.seat + 1} chooses who plays next among seats {tied}"
    return f"{king}then seat {pending.seat + 1} decides {pending.kind}"


def inspect_position(path: Path) -> tuple[dict, str]:
    """What the seat to move would get now: its legal choices and, for each, what it gives (a round end and who
    scores, the action that follows, or who plays next); payload and text."""
    state = load_position(path)
    pending = decision(state)
    comps = state.components
    seat = pending.seat
    blocked = state.blocked
    choices = [
        {"choice": list(c) if isinstance(c, tuple) else c, "description": describe(state, pending, c),
         "outcome": outcome(state, c)}
        for c in legal_options(state, pending)
    ]  # fmt: skip
    payload = {
        "seat": seat + 1,
        "decision": pending.kind,
        "round": state.round,
        "points": list(state.points),
        "hand": [card_name(comps, c) for c in sorted(state.hands[seat])],
        "display": [card_name(comps, c) for c in state.displays[seat]],
        "blocked": None if blocked < 0 else PERSON_IDS[blocked],
        "choices": choices,
    }
    persons = {c % PERSONS for c in state.displays[seat]}
    lines = [
        f"seat {seat + 1} to decide {pending.kind} (round {state.round}; points {', '.join(map(str, state.points))})",
        f"hand: {_cards(comps, sorted(state.hands[seat]))}",
        f"display: {_cards(comps, state.displays[seat])} ({len(persons)} different)",
        f"blocked by the king card: {payload['blocked'] or 'nobody'}",
        "choices:",
    ]
    lines += [f"  {c['description']}: {c['outcome']}" for c in choices]
    return payload, "\n".join(lines)


# ---------------------------------------------------------------------------------------------- analyse


def analyse_position(path: Path, seed: int | None, searcher: Any, helper: Any, kind: str | None) -> dict:
    """The candidate choices at a position's pending decision as ``searcher.analyse`` rates them; with ``kind``,
    the decisions before the first one of that kind in this turn are answered by ``helper``."""
    state = load_position(path, seed)
    if state.over:
        raise NotationError(f"{path}: the game is over: nothing to analyse")
    if kind is not None:
        turn_seat = state.current
        while decision(state).kind != kind:
            pending = decision(state)
            PG_TURNS.apply(state, helper.choose(PlayerView(state, pending.seat), pending))
            if state.over or state.phase == PLAY:
                raise ValueError(f"no {kind} decision is left in this turn of seat {turn_seat + 1}")
    pending = decision(state)
    started = time.perf_counter()
    candidates = searcher.analyse(PlayerView(state, pending.seat), pending)
    seconds = time.perf_counter() - started
    rows = []
    for c in candidates:
        value = c.value if isinstance(c.value, float) and math.isfinite(c.value) else None
        rows.append(
            {
                "choice": list(c.choice) if isinstance(c.choice, tuple) else c.choice,
                "description": describe(state, pending, c.choice),
                "visits": c.visits,
                "value": value,
                "played": bool(getattr(c, "played", False)),
            }
        )
    return {
        "position": str(path),
        "round": state.round,
        "seat": pending.seat + 1,
        "decision": pending.kind,
        "seconds": round(seconds, 3),
        "candidates": rows,
    }


class PgPositions:
    """Palastgeflüster's position-file facet (:class:`palais_sim.core.game.Positions`): the functions above."""

    format = POSITION_FORMAT
    analyser = "search:budget=400"  # the common search, rollouts by the heuristic

    def play_session(
        self, context: Any, seed: int, seats: Callable[[int], Sequence[Any]], out: TextIO | None, log: Path | None,
        positions: Path | None, start: Path | None,
    ) -> PgResult:  # fmt: skip
        return play_session(context, seed, seats, out, log, positions, start)

    def score(self, path: Path) -> tuple[dict, str]:
        return score_position(path)

    def inspect(self, path: Path) -> tuple[dict, str]:
        return inspect_position(path)

    def analyse(self, path: Path, seed: int | None, searcher: Any, helper: Any, decision: str | None) -> dict:
        return analyse_position(path, seed, searcher, helper, decision)


POSITIONS = PgPositions()
