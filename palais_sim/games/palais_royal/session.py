"""One game at the command line (``palais play``, ``replay``, ``score``, ``inspect``, ``analyse``): the turn
account, the replay log, position files and continuing from one. Reached through the game interface
(:mod:`.game`), so the commands have no Palais Royal branch of their own."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.account import TurnAccount
from palais_sim.games.palais_royal.board import ROOM_KEYS
from palais_sim.games.palais_royal.play import PrResult, continue_game, play_game
from palais_sim.games.palais_royal.position import POSITION_FORMAT, export_position, load_position, save_position
from palais_sim.games.palais_royal.replay import ReplayWriter, encode_choice, verify_replay
from palais_sim.games.palais_royal.scoring import final_scores, winners
from palais_sim.games.palais_royal.state import PH_TURN_START
from palais_sim.games.palais_royal.view import PlayerView, describe_decision


def play_session(
    context: Any, seed: int, seats: Callable[[int], Sequence[Any]], out: TextIO | None, log: Path | None,
    positions: Path | None, start: Path | None,
) -> PrResult:  # fmt: skip
    """Play one game between ``seats(players)`` (from ``start``, a position file, if given), narrating every turn
    to ``out``, writing the replay log to ``log`` and the position at the start of every turn into the directory
    ``positions``."""
    state = load_position(start, seed) if start is not None else None
    comps, options = (state.components, state.options) if state is not None else context
    if state is not None:
        seed = state.seed
    strategies = seats(options.players)
    account = TurnAccount(out) if out is not None else None
    begin = export_position(state) if state is not None else None
    writer = ReplayWriter(log, comps, options, seed, [s.name for s in strategies], begin) if log else None

    def observe(before, decision, choice) -> None:
        if writer:
            writer.record(decision, choice)
        if account:
            account.record(before, decision, choice)

    on_turn = None
    if positions is not None:
        folder = positions

        def on_turn(turn_state) -> None:
            save_position(turn_state, folder / f"turn-{turn_state.turn_no:04d}.json")

    if state is not None:
        result = continue_game(state, strategies, observer=observe, on_turn_start=on_turn)
    else:
        result = play_game(comps, options, seed, strategies, observer=observe, on_turn_start=on_turn)
    if writer:
        writer.finish(result)
    if account:
        account.summary(result)
    return result


def replay_text(log: Path) -> str:
    """Verify a replay log (raises NotationError at the first difference); its summary line."""
    result = verify_replay(log)
    totals = ", ".join(f"seat {i + 1}: {t}" for i, t in enumerate(result["totals"]))
    return f"replay verified: {totals}; winners {result['winners']}; {result['rounds']} rounds"


def score_position(path: Path) -> tuple[dict, str]:
    """Final scoring of a position as if the game ended now: the JSON payload and its text."""
    state = load_position(path)
    scores = final_scores(state)
    payload = {"seats": [s.to_json() for s in scores], "winners": [w + 1 for w in winners(scores)]}
    lines = [
        f"seat {row['seat']}: {row['total']} points (nobles {row['nobles']}, played cards {row['cards_played']}, "
        f"hand {row['cards_unplayed']}, park {row['park']}; cardinal {row['cardinal']})"
        for row in payload["seats"]
    ]
    lines.append(f"winners: {', '.join(str(w) for w in payload['winners'])}")
    return payload, "\n".join(lines)


def inspect_position(path: Path) -> tuple[dict, str]:
    """What the seat to move would get now (majorities, reinforcement, movement, recruit costs): payload and text."""
    state = load_position(path)
    seat = state.current
    payload = {
        "seat": seat + 1,
        "majority": {key: rules.has_majority(state, seat, i) for i, key in enumerate(ROOM_KEYS)},
        "reinforce": rules.reinforce_count(state, seat),
        "movement": rules.movement_points(state, seat),
        "mint": rules.mint_income(state, seat),
        "recruit_cost": {str(f): rules.recruit_cost(state, f) for f in range(36) if state.park[f] >= 0},
    }
    costs = ", ".join(f"{f}:{c}" for f, c in payload["recruit_cost"].items())
    text = "\n".join(
        [
            f"seat {payload['seat']} to move",
            "majority in: " + (", ".join(k for k, v in payload["majority"].items() if v) or "no room"),
            f"reinforce {payload['reinforce']}, movement {payload['movement']}, mint {payload['mint']}",
            f"recruit cost by field: {costs}",
        ]
    )
    return payload, text


def analyse_position(path: Path, seed: int | None, searcher: Any, helper: Any, decision: str | None) -> dict:
    """The candidate choices at a position's pending decision as ``searcher.analyse`` rates them; with
    ``decision``, the decisions before the first one of that kind in this turn are answered by ``helper``."""
    state = load_position(path, seed)
    if state.phase == PH_TURN_START:
        rules.resume_turn(state)
    if state.over:
        raise ValueError(f"{path}: the game is over: nothing to analyse")
    if decision is not None:
        seat, turn = state.current, state.turn_no
        while rules.decision(state).kind != decision:
            pending = rules.decision(state)
            rules.apply(state, helper.choose(PlayerView(state, pending.seat), pending))
            if state.over or state.current != seat or state.turn_no != turn:
                raise ValueError(f"no {decision} decision is left in this turn of seat {seat + 1}")
    pending = rules.decision(state)
    started = time.perf_counter()
    candidates = searcher.analyse(PlayerView(state, pending.seat), pending)
    seconds = time.perf_counter() - started
    account = TurnAccount(None)  # type: ignore[arg-type]
    rows = []
    for c in candidates:
        value = c.value if isinstance(c.value, float) and math.isfinite(c.value) else None
        rows.append(
            {
                "choice": encode_choice(pending.kind, c.choice),
                "description": account.describe(state, pending, c.choice) or "(nothing)",
                "visits": c.visits,
                "value": value,
                "played": bool(getattr(c, "played", False)),
            }
        )
    return {
        "position": str(path),
        "round": state.round,
        "seat": pending.seat + 1,
        "decision": describe_decision(pending),
        "seconds": round(seconds, 3),
        "candidates": rows,
    }


class PrPositions:
    """Palais Royal's position-file facet (:class:`palais_sim.core.game.Positions`): the functions above."""

    format = POSITION_FORMAT
    analyser = "ismcts:budget=2000"  # its own tree search, whose candidates know the game

    def play_session(
        self, context: Any, seed: int, seats: Callable[[int], Sequence[Any]], out: TextIO | None, log: Path | None,
        positions: Path | None, start: Path | None,
    ) -> PrResult:  # fmt: skip
        return play_session(context, seed, seats, out, log, positions, start)

    def score(self, path: Path) -> tuple[dict, str]:
        return score_position(path)

    def inspect(self, path: Path) -> tuple[dict, str]:
        return inspect_position(path)

    def analyse(self, path: Path, seed: int | None, searcher: Any, helper: Any, decision: str | None) -> dict:
        return analyse_position(path, seed, searcher, helper, decision)


POSITIONS = PrPositions()
