"""``ismcts``: its actions are legal, its search is reproducible and spends its budget, and `palais analyse` shows
the candidates at a position's pending decision."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from palais_sim.cli import app
from palais_sim.games.palais_royal import rules
from palais_sim.games.palais_royal.components import standard_components
from palais_sim.games.palais_royal.notation import save_position
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import PH_TURN_START, RuleOptions
from palais_sim.games.palais_royal.view import PlayerView
from palais_sim.registry import load_strategy
from strategies.common.search import choice_key
from strategies.palais_royal.ismcts import IsmctsStrategy, Node

COMPONENTS = standard_components()


def _game_at(turns: int, players: int = 2, seed: int = 9):
    """A game played by greedy for ``turns`` turns, at its next decision."""
    state = new_game(COMPONENTS, RuleOptions(players=players), seed)
    greedy = load_strategy("greedy")
    while state.turn_no < turns:
        dec = rules.decision(state)
        rules.apply(state, greedy.choose(PlayerView(state, dec.seat), dec))
    return state


def test_every_candidate_is_legal_at_every_decision_of_a_game() -> None:
    search = IsmctsStrategy(budget=1)
    greedy = load_strategy("greedy")
    state = new_game(COMPONENTS, RuleOptions(players=3), 4)
    kinds = set()
    while not state.over and state.round < 25:
        dec = rules.decision(state)
        view = PlayerView(state, dec.seat)
        cands = search.candidates(view, dec)
        assert cands and len({key for key, _ in cands}) == len(cands)
        for _key, choice in cands:
            trial = state.copy()
            rules.apply(trial, choice)  # raises if illegal
        kinds.add(dec.kind)
        rules.apply(state, greedy.choose(view, dec))
    assert {"setup", "move", "recruit", "seals"} <= kinds


def _move_decision():
    state = _game_at(8)
    while rules.decision(state).kind != "move":
        dec = rules.decision(state)
        rules.apply(state, load_strategy("greedy").choose(PlayerView(state, dec.seat), dec))
    return state, rules.decision(state)


def test_the_halving_search_spends_its_budget_keeps_the_base_choice_and_repeats_itself() -> None:
    state, dec = _move_decision()
    search = IsmctsStrategy(budget=40)
    cands = search.candidates(PlayerView(state, dec.seat), dec)
    assert len(cands) >= 3
    first = search.analyse(PlayerView(state, dec.seat), dec)  # a fresh view: its random stream starts anew
    # Whole samples of the candidates still in the race: the budget, less at most one sample's worth.
    assert 40 - len(cands) < sum(c.visits for c in first) <= 40
    assert all(c.visits >= 1 for c in first)  # every candidate is tried in the first round
    again = search.analyse(PlayerView(state, dec.seat), dec)
    assert [(c.visits, c.value) for c in first] == [(c.visits, c.value) for c in again]
    # The rollout strategy's own choice stays in the race to the end: nothing has more samples.
    base = cands[0][1]
    assert next(c.visits for c in first if c.choice == base) == first[0].visits
    assert all(0.0 <= c.value <= 1.0 for c in first)
    # The survivor with the best mean (the most visited apart from the base), or the base.
    survivors = [c for c in first if c.visits == first[0].visits]
    played = search.choose(PlayerView(state, dec.seat), dec)
    assert played in [c.choice for c in survivors]
    assert [c.choice for c in first if c.played] == [played]


def test_analyse_with_a_prior_analyses_the_prior_root_that_plays() -> None:
    """With a prior the analysis is the PUCT root's (``palais train --teacher ...,prior=expert`` labels with it): its
    visits and values, and the candidate marked played is the one ``choose`` plays."""
    state, dec = _move_decision()
    search = IsmctsStrategy(budget=40, prior="expert", horizon=1)
    out = search.analyse(PlayerView(state, dec.seat), dec)  # a fresh view: its random stream starts anew
    root, votes = Node(), {}
    view = PlayerView(state, dec.seat)
    candidates = search.candidates(view, dec, votes)
    search.puct(view, dec, root, candidates, votes)
    assert {choice_key(c.choice): (c.visits, c.value) for c in out if c.visits} == {
        key: (node.visits, node.total / node.visits) for key, node in root.children.items() if node.visits
    }
    assert sum(c.visits for c in out) == 40  # PUCT spends the budget one rollout at a time
    played = search.choose(PlayerView(state, dec.seat), dec)
    assert [c.choice for c in out if c.played] == [played]


def test_the_halving_search_runs_on_time_too() -> None:
    state, dec = _move_decision()
    search = IsmctsStrategy(time_ms=30)
    out = search.analyse(PlayerView(state, dec.seat), dec)
    assert all(c.visits >= 1 for c in out)


def test_the_ucb_search_spends_its_budget_and_repeats_itself() -> None:
    state, dec = _move_decision()
    search = IsmctsStrategy(budget=40, root="ucb")
    first = search.analyse(PlayerView(state, dec.seat), dec)  # a fresh view: its random stream starts anew
    assert sum(c.visits for c in first) == 40
    again = search.analyse(PlayerView(state, dec.seat), dec)
    assert [(c.visits, c.value) for c in first] == [(c.visits, c.value) for c in again]
    assert first[0].visits == max(c.visits for c in first)
    assert all(0.0 <= c.value <= 1.0 for c in first if c.visits)
    # The most visited, unless the rollout strategy's own choice (the first candidate) is not clearly worse.
    base = search.candidates(PlayerView(state, dec.seat), dec)[0][1]
    played = search.choose(PlayerView(state, dec.seat), dec)
    assert played in (first[0].choice, base)
    assert [c.choice for c in first if c.played] == [played]


def test_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="budget"):
        IsmctsStrategy(budget=0)
    with pytest.raises(ValueError, match="styles"):
        IsmctsStrategy(styles="")
    with pytest.raises(ValueError, match="root must be one of halving, ucb"):
        IsmctsStrategy(root="flat")
    with pytest.raises(ValueError, match="skip names decision kinds: setup, cards.*not cardz"):
        IsmctsStrategy(skip="cards/cardz")


class _Counting:
    """A rollout strategy that counts the decisions it is asked, and plays greedy."""

    def __init__(self) -> None:
        self.greedy = load_strategy("greedy")
        self.asked = 0

    def choose(self, view: PlayerView, decision: rules.Decision) -> object:
        self.asked += 1
        return self.greedy.choose(view, decision)


@pytest.mark.parametrize("skip", ["move", ""])
def test_a_skipped_kind_is_the_rollout_strategys_choice_with_no_search(skip: str) -> None:
    state, dec = _move_decision()
    search = IsmctsStrategy(budget=40, skip=skip)
    counting = _Counting()
    search._rollout = counting
    search._rollouts = [counting]
    played = search.choose(PlayerView(state, dec.seat), dec)
    if skip:
        assert counting.asked == 1  # asked once for this decision, no rollout played
        assert played == load_strategy("greedy").choose(PlayerView(state, dec.seat), dec)
    else:
        assert counting.asked > 40  # the search played rollouts with it


def test_analyse_lists_the_candidates_of_a_position(tmp_path) -> None:
    # A position is taken at the start of a turn: play greedy games paused before each turn, up to the sixth.
    path = tmp_path / "position.json"
    state2 = new_game(COMPONENTS, RuleOptions(players=2), 9)
    greedy = load_strategy("greedy")
    state2.pause_at_turn = True
    while not (state2.phase == PH_TURN_START and state2.turn_no >= 6):
        if state2.phase == PH_TURN_START:
            rules.resume_turn(state2)
            continue
        dec = rules.decision(state2)
        rules.apply(state2, greedy.choose(PlayerView(state2, dec.seat), dec))
    save_position(state2, path)
    runner = CliRunner()
    result = runner.invoke(app, ["analyse", str(path), "--strategy", "ismcts:budget=30", "--decision", "move"])
    assert result.exit_code == 0, result.output
    assert "to decide move" in result.output and "visits" in result.output
    data = json.loads(
        runner.invoke(
            app, ["analyse", str(path), "--strategy", "ismcts:budget=30", "--decision", "move", "--json"]
        ).output
    )
    spent = sum(c["visits"] for c in data["candidates"])
    assert data["decision"] == "move" and 30 - len(data["candidates"]) < spent <= 30
    assert sum(c["played"] for c in data["candidates"]) == 1  # the choice the search plays is marked
    bad = runner.invoke(app, ["analyse", str(path), "--strategy", "greedy"])
    assert bad.exit_code == 2 and "cannot analyse" in bad.output


def test_a_card_the_seat_cannot_pay_alone_is_never_a_candidate() -> None:
    """With more card combinations than it searches, the search tried each playable card alone, but a card may be
    playable only after a gold4 pays for it: this game (seat 1 with no gold and a hand of gold4s and point cards)
    failed at its first recruit window."""
    from palais_sim.games.palais_royal.components import load_components
    from palais_sim.games.palais_royal.play import play_game
    from palais_sim.games.palais_royal.state import RuleOptions
    from palais_sim.registry import load_strategy

    options = RuleOptions(players=2, layout="SBG/DKC/MOP", max_rounds=100)
    seats = [load_strategy("ismcts:budget=2"), load_strategy("ismcts:budget=8")]
    result = play_game(load_components(None), options, 4215923173971654960, seats)
    assert result.finished
