"""`palais analyse`: the candidate choices at a position's pending decision, with a search strategy's estimate of
each (value and visits), as a chess engine's analysis lists its candidate moves.

The strategy must offer ``analyse(view, decision)`` (``ismcts`` does): a list of candidates with ``choice``,
``visits`` and ``value`` (its mean reward in [0, 1]: 0.7 for a win, 0.3 for the score margin, discounted per round),
and optionally ``played`` (the choice the strategy plays, marked ``*``).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, fail


def analyse(
    position: Path = typer.Argument(..., help="A position file (palais play --positions DIR writes one per turn)"),
    strategy: str = typer.Option("ismcts:budget=2000", "--strategy", help="A strategy with analyse(), e.g. ismcts"),
    seed: int | None = typer.Option(
        None, "--seed", "-s", help="Deal the hidden information the file leaves out from this seed"
    ),
    decision: str | None = typer.Option(
        None,
        "--decision",
        help="Go on in this turn to the first decision of this kind (move, recruit, cards, seals, ...): the decisions "
        "before it are answered by greedy",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the analysis as JSON"),
) -> None:
    """The candidate choices at a position's pending decision with their estimated value and visit counts."""
    from palais_sim.games.palais_royal import rules
    from palais_sim.games.palais_royal.account import TurnAccount
    from palais_sim.games.palais_royal.notation import NotationError, encode_choice, load_position
    from palais_sim.games.palais_royal.state import PH_TURN_START
    from palais_sim.games.palais_royal.view import PlayerView, describe_decision
    from palais_sim.registry import load_strategy

    try:
        state = load_position(position, seed)
        if state.phase == PH_TURN_START:
            rules.resume_turn(state)
        if state.over:
            raise ValueError(f"{position}: the game is over: nothing to analyse")
        searcher = load_strategy(strategy)
        if not callable(getattr(searcher, "analyse", None)):
            raise ValueError(f"strategy {strategy!r} cannot analyse a position (it has no analyse()); try ismcts")
        if decision is not None:
            helper = load_strategy("greedy")
            seat, turn = state.current, state.turn_no
            while rules.decision(state).kind != decision:
                pending = rules.decision(state)
                rules.apply(state, helper.choose(PlayerView(state, pending.seat), pending))
                if state.over or state.current != seat or state.turn_no != turn:
                    raise ValueError(f"no {decision} decision is left in this turn of seat {seat + 1}")
        pending = rules.decision(state)
        view = PlayerView(state, pending.seat)
        started = time.perf_counter()
        candidates = searcher.analyse(view, pending)
        seconds = time.perf_counter() - started
    except (NotationError, *USER_ERRORS) as exc:
        fail(str(exc))

    account = TurnAccount(None)  # type: ignore[arg-type]
    total = sum(c.visits for c in candidates) or 1
    rows = []
    for c in candidates:
        text = account.describe(state, pending, c.choice) or "(nothing)"
        value = c.value if isinstance(c.value, float) and math.isfinite(c.value) else None
        rows.append(
            {
                "choice": encode_choice(pending.kind, c.choice),
                "description": text,
                "visits": c.visits,
                "value": value,
                "played": bool(getattr(c, "played", False)),
            }
        )
    if as_json:
        payload = {
            "position": str(position),
            "round": state.round,
            "seat": pending.seat + 1,
            "decision": describe_decision(pending),
            "strategy": strategy,
            "seconds": round(seconds, 3),
            "candidates": rows,
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    typer.echo(
        f"{position}: round {state.round}, seat {pending.seat + 1} to decide {describe_decision(pending)}; "
        f"{strategy}: {total} visits in {seconds:.1f} s"
    )
    typer.echo(
        "value: the mean reward of the games played through this choice (0.7 for a win, 0.3 for the score margin, "
        "ismcts: less 1% per round the game lasts); * the choice it plays"
    )
    typer.echo("")
    typer.echo(f"{'#':>3} {'visits':>7} {'share':>6} {'value':>6}    choice")
    for i, r in enumerate(rows, 1):
        value = "-" if r["value"] is None else f"{r['value']:.3f}"
        mark = "*" if r["played"] else " "
        typer.echo(f"{i:>3} {r['visits']:>7} {100 * r['visits'] / total:>5.1f}% {value:>6}  {mark} {r['description']}")
