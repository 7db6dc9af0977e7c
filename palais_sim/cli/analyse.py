"""`palais analyse`: the candidate choices at a position's pending decision, with a search strategy's estimate of
each (value and visits), as a chess engine's analysis lists its candidate moves.

The strategy must offer ``analyse(view, decision)`` (``ismcts`` does): a list of candidates with ``choice``,
``visits`` and ``value`` (its mean reward in [0, 1]: 0.7 for a win, 0.3 for the score margin, discounted per round),
and optionally ``played`` (the choice the strategy plays, marked ``*``).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from palais_sim.cli.errors import USER_ERRORS, fail
from palais_sim.cli.options import PositionGameOpt
from palais_sim.core.game import Game


def analyse(
    position: Path = typer.Argument(..., help="A position file (palais play --positions DIR writes one per turn)"),
    game: Game | None = PositionGameOpt,
    strategy: str | None = typer.Option(
        None,
        "--strategy",
        help="A strategy with analyse() \\[default: the game's: ismcts:budget=2000; search:budget=400]",
    ),
    seed: int | None = typer.Option(
        None, "--seed", "-s", help="Deal the hidden information the file leaves out from this seed"
    ),
    decision: str | None = typer.Option(
        None,
        "--decision",
        help="Go on in this turn to the first decision of this kind (the game's decision kinds: move, cards, ...; "
        "discard, swap, ...): the decisions before it are answered by the game's usual player (greedy; heuristic)",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the analysis as JSON"),
) -> None:
    """The candidate choices at a position's pending decision with their estimated value and visit counts."""
    from palais_sim.core.games import game_of_position, get_game
    from palais_sim.registry import load_strategy

    try:
        the_game = game or game_of_position(position) or get_game()
        facet = the_game.positions
        if facet is None:
            raise ValueError(f"analyse: {the_game.title} has no position files")
        strategy = strategy or facet.analyser
        searcher = load_strategy(strategy, the_game)
        if not callable(getattr(searcher, "analyse", None)):
            raise ValueError(
                f"strategy {strategy!r} cannot analyse a position (it has no analyse()); try {facet.analyser}"
            )
        helper = load_strategy(the_game.default_strategy, the_game)
        payload = facet.analyse(position, seed, searcher, helper, decision)
    except USER_ERRORS as exc:
        fail(str(exc))
    rows = payload["candidates"]
    if as_json:
        typer.echo(json.dumps({**payload, "strategy": strategy}, indent=2))
        return
    total = sum(r["visits"] for r in rows) or 1
    typer.echo(
        f"{position}: round {payload['round']}, seat {payload['seat']} to decide {payload['decision']}; "
        f"{strategy}: {total} visits in {payload['seconds']:.1f} s"
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
