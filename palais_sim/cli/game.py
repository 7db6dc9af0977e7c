"""`palais play`, `score`, `inspect`, `replay` and `version`: single games, positions and replay logs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from palais_sim import __version__
from palais_sim.cli.errors import USER_ERRORS, check_seed, explain, fail, fresh_directory, writable_file
from palais_sim.cli.options import (
    ComponentsOpt,
    GameOpt,
    GoldLimitOpt,
    LayoutOpt,
    StartGoldOpt,
    TiebreakOpt,
    parse_start_gold,
)
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategies


def rule_options(
    players: int, layout: str, gold_limit: int | None, max_rounds: int, start_gold: str | None = None
) -> RuleOptions:
    return RuleOptions(
        players=players, layout=layout, gold_limit=gold_limit, max_rounds=max_rounds,
        start_gold=parse_start_gold(start_gold, players),
    )  # fmt: skip


def play(
    game: str = GameOpt,
    players: int | None = typer.Option(
        None, "--players", "-p", help="Number of players \\[default: 2; the game's usual]"
    ),
    seed: int = typer.Option(1, "--seed", "-s", help="Game seed"),
    strategies: str | None = typer.Option(
        None, "--strategies", help="Comma-separated strategies, one per seat or one \\[default: greedy; heuristic]"
    ),
    layout: str = LayoutOpt,
    components: Path | None = ComponentsOpt,
    gold_limit: int | None = GoldLimitOpt,
    max_rounds: int | None = typer.Option(
        None, "--max-rounds", help="Stop a game after this many rounds (recorded unfinished) \\[default: 100; 200]"
    ),
    start_gold: str | None = StartGoldOpt,
    tiebreak: str = TiebreakOpt,
    log: Path | None = typer.Option(None, "--log", help="Write a replay log (JSON lines) to this file"),
    positions: Path | None = typer.Option(
        None, "--positions", help="Write the position at the start of every turn into this directory"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON instead of the turn account"),
    start: Path | None = typer.Option(
        None,
        "--from",
        help="Continue from this position file instead of a new game: players, layout, rules and component set come "
        "from the file; hidden information it leaves out (deck, other hands) is dealt from --seed",
    ),
) -> None:
    """Play one game and print a turn-by-turn account (or the result as JSON)."""
    the_game = _game(game)
    if the_game.name != "palais-royal":
        other = {"--layout": layout, "--gold-limit": gold_limit, "--start-gold": start_gold, "--from": start}
        given = [k for k, v in other.items() if v not in (None, "random")]
        if given or positions is not None:
            fail(f"{', '.join(given) or '--positions'}: Palais Royal options; {the_game.title} does not take them")
        _play_other(the_game, players, seed, strategies, components, max_rounds, tiebreak, log, as_json)
        return
    players = 2 if players is None else players
    strategies = "greedy" if strategies is None else strategies
    max_rounds = 100 if max_rounds is None else max_rounds
    from palais_sim.games.palais_royal.account import TurnAccount
    from palais_sim.games.palais_royal.notation import NotationError, ReplayWriter, export_position, load_position
    from palais_sim.games.palais_royal.play import continue_game

    check_seed(seed)
    if log is not None:
        writable_file(log, "--log")
    if positions is not None:
        fresh_directory(positions, "--positions", "turn-*.json")
    try:
        if start is not None:
            state = load_position(start, seed)
            comps, options, seed = state.components, state.options, state.seed
            players = state.n
        else:
            state = None
            comps = load_components(components)
            options = rule_options(players, layout, gold_limit, max_rounds, start_gold)
        seats = load_strategies(strategies, players)
        account = None if as_json else TurnAccount(sys.stdout)
        begin = export_position(state) if state is not None else None
        writer = ReplayWriter(log, comps, options, seed, [s.name for s in seats], begin) if log else None

        def observe(before, decision, choice) -> None:
            if writer:
                writer.record(decision, choice)
            if account:
                account.record(before, decision, choice)

        on_turn = None
        if positions:
            from palais_sim.games.palais_royal.notation import save_position

            def on_turn(state) -> None:
                save_position(state, positions / f"turn-{state.turn_no:04d}.json")

        if state is not None:
            result = continue_game(state, seats, observer=observe, on_turn_start=on_turn)
        else:
            result = play_game(comps, options, seed, seats, observer=observe, on_turn_start=on_turn)
        if writer:
            writer.finish(result)
    except (NotationError, *USER_ERRORS) as exc:
        fail(explain(exc))
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        account.summary(result)
        if log:
            typer.echo(f"replay log written to {log}")


def _game(name: str):
    """The game ``--game`` names, or a one-line error."""
    from palais_sim.games import get_game

    try:
        return get_game(name)
    except ValueError as exc:
        fail(str(exc))


def _play_other(
    game, players: int | None, seed: int, strategies: str | None, components: Path | None, max_rounds: int | None,
    tiebreak: str, log: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """``palais play`` for a game other than Palais Royal, through the game interface (and its replay log)."""
    check_seed(seed)
    if log is not None:
        writable_file(log, "--log")
    players = game.default_players if players is None else players
    settings = {
        "players": players, "components": str(components) if components else None, "tiebreak": tiebreak,
        "max_rounds": max_rounds or game.default_max_rounds,
    }  # fmt: skip
    try:
        context = game.context(settings)
        seats = load_strategies(strategies or "heuristic", players, game.name)
        result = game.play_logged(context, seed, seats, log) if log else game.play(context, seed, seats)
    except USER_ERRORS as exc:
        fail(explain(exc))
    payload = result.to_json()
    if as_json:
        typer.echo(json.dumps(payload, indent=2))
        return
    typer.echo(f"{game.title}, {players} players, seed {seed}: {result.rounds} rounds, {result.decisions} decisions")
    for seat in payload["seats"]:
        typer.echo(f"  seat {seat['seat']} {seat['strategy']:<14} {seat['total']:>3} points")
    status = "" if result.finished else f" (stopped unfinished at round {result.rounds})"
    typer.echo(f"winner: seat {', '.join(str(w + 1) for w in result.winners) or 'none'}{status}")
    if log:
        typer.echo(f"replay log written to {log}")


def _position(path: Path):
    from palais_sim.games.palais_royal.notation import NotationError, load_position

    try:
        return load_position(path)
    except NotationError as exc:
        fail(str(exc))


def score(
    position: Path = typer.Argument(..., help="A position file (palais-position/1)"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON"),
) -> None:
    """Final scoring of a position as if the game ended now."""
    from palais_sim.games.palais_royal.scoring import final_scores, winners

    state = _position(position)
    scores = final_scores(state)
    best = winners(scores)
    payload = {
        "seats": [s.to_json() for s in scores],
        "winners": [w + 1 for w in best],
    }
    if as_json:
        typer.echo(json.dumps(payload, indent=2))
        return
    for row in payload["seats"]:
        typer.echo(
            f"seat {row['seat']}: {row['total']} points (nobles {row['nobles']}, played cards {row['cards_played']}, "
            f"hand {row['cards_unplayed']}, park {row['park']}; cardinal {row['cardinal']})"
        )
    typer.echo(f"winners: {', '.join(str(w) for w in payload['winners'])}")


def inspect(
    position: Path = typer.Argument(..., help="A position file (palais-position/1)"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON"),
) -> None:
    """What the seat to move would get now: majorities, reinforcement, movement, recruit costs."""
    from palais_sim.games.palais_royal import rules
    from palais_sim.games.palais_royal.board import ROOM_KEYS

    state = _position(position)
    seat = state.current
    payload = {
        "seat": seat + 1,
        "majority": {key: rules.has_majority(state, seat, i) for i, key in enumerate(ROOM_KEYS)},
        "reinforce": rules.reinforce_count(state, seat),
        "movement": rules.movement_points(state, seat),
        "mint": rules.mint_income(state, seat),
        "recruit_cost": {str(f): rules.recruit_cost(state, f) for f in range(36) if state.park[f] >= 0},
    }
    if as_json:
        typer.echo(json.dumps(payload, indent=2))
        return
    typer.echo(f"seat {payload['seat']} to move")
    typer.echo("majority in: " + (", ".join(k for k, v in payload["majority"].items() if v) or "no room"))
    typer.echo(f"reinforce {payload['reinforce']}, movement {payload['movement']}, mint {payload['mint']}")
    costs = ", ".join(f"{f}:{c}" for f, c in payload["recruit_cost"].items())
    typer.echo(f"recruit cost by field: {costs}")


def replay(
    log: Path = typer.Argument(..., help="A replay log written by palais play --log"), game: str = GameOpt
) -> None:
    """Play a replay log back and verify it: every decision legal, the same final scores."""
    from palais_sim.games.palais_royal.notation import NotationError, verify_replay

    the_game = _game(game)
    if the_game.name != "palais-royal":
        try:
            typer.echo(the_game.verify_replay(log))
        except OSError as exc:
            fail(explain(exc))
        except ValueError as exc:  # the game's NotationError
            fail(str(exc), code=1 if "result:" in str(exc) or "waits for" in str(exc) else 2)
        return
    try:
        result = verify_replay(log)
    except NotationError as exc:
        fail(str(exc), code=1 if "result:" in str(exc) or "waits for" in str(exc) else 2)
    totals = ", ".join(f"seat {i + 1}: {t}" for i, t in enumerate(result["totals"]))
    typer.echo(f"replay verified: {totals}; winners {result['winners']}; {result['rounds']} rounds")


def version() -> None:
    """Print the engine version, whether the engine runs compiled, and each game's code fingerprint."""
    from palais_sim import build_info
    from palais_sim.games import GAMES
    from palais_sim.tournament.fingerprint import code_fingerprint

    info = build_info()
    engine = "compiled (mypyc)" if info["compiled"] else f"pure Python: {info['reason']}"
    typer.echo(f"{__version__} ({engine})")
    # The code a run or a study records: a run of another fingerprint was played by other rules or strategies.
    typer.echo("code fingerprints: " + ", ".join(f"{name} {code_fingerprint(name)}" for name in GAMES))
