"""The luck correction (core.luck) on both games: unbiased whatever V is, exactly zero for a constant V, the same game
with and without it, and the seeds reserved for fitting out of every run's reach."""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from collections.abc import Callable
from typing import Any

import pytest

from palais_sim.core.games import get_game
from palais_sim.core.luck import LuckRecord, play_with_luck
from palais_sim.core.seeds import FIT_ROOT_SEEDS, ReservedSeed, check_root_seed, fit_root_seed, is_reserved
from palais_sim.games.palais_royal import chance as pr_chance
from palais_sim.games.palastgefluester import chance as pg_chance
from palais_sim.registry import load_strategies


class ConstantValue:
    def __call__(self, state: Any, seat: int) -> float:
        return 0.5

    def digest(self) -> str:
        return "constant"


class RandomValue:
    """A value with no relation to the game: a hash of what the seat holds and the game's counters."""

    def __call__(self, state: Any, seat: int) -> float:
        text = repr((state.hands, state.seed, seat, getattr(state, "kings_revealed", None)))
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4]) / 2**32

    def digest(self) -> str:
        return "random"


def pr_games(value: Any, seeds: range, strategy: str = "random", players: int = 2) -> list[LuckRecord]:
    game = get_game("palais-royal")
    context = game.context({"players": players})
    model = pr_chance.PrChance(context.components, context.options)
    return [play_with_luck(model, s, load_strategies(strategy, players, game), value)[1] for s in seeds]


def pg_games(value: Any, seeds: range, strategy: str = "heuristic", players: int = 3) -> list[LuckRecord]:
    game = get_game("palastgefluester")
    model = pg_chance.PgChance(game.context({"players": players}).options)
    return [play_with_luck(model, s, load_strategies(strategy, players, game), value)[1] for s in seeds]


def unbiased_failures(records: list[LuckRecord], kinds: tuple[str, ...], z: float = 4.0) -> list[str]:
    """What departs from an unbiased correction by more than ``z`` standard errors: the mean term of seat 1 per event
    kind, and the corrected mean against the raw one (seat 1)."""
    out = []
    for kind in kinds:
        sums = [r.by_kind[0].get(kind, 0.0) for r in records]
        mean, se = statistics.fmean(sums), statistics.stdev(sums) / math.sqrt(len(sums))
        if se > 0 and abs(mean) > z * se:
            out.append(f"{kind}: mean correction {mean:+.4f} (se {se:.4f})")
    diff = [r.correction[0] for r in records]
    mean, se = statistics.fmean(diff), statistics.stdev(diff) / math.sqrt(len(diff))
    if abs(mean) > z * se:
        out.append(f"corrected - raw: {-mean:+.4f} (se {se:.4f})")
    return out


def test_a_constant_value_corrects_nothing_exactly() -> None:
    for record in [*pr_games(ConstantValue(), range(5)), *pg_games(ConstantValue(), range(3))]:
        assert record.correction == [0.0] * len(record.raw)
        assert record.corrected == record.raw
        assert record.events["setup"] == 1


@pytest.mark.parametrize(
    ("play", "value", "kinds"),
    [
        (lambda v: pr_games(v, range(150)), pr_chance.LuckValue(), ("setup", "draw")),
        (lambda v: pr_games(v, range(150)), RandomValue(), ("setup", "draw")),
        (lambda v: pg_games(v, range(60)), pg_chance.LuckValue(), ("setup", "deal", "draw", "king")),
        (lambda v: pg_games(v, range(60)), RandomValue(), ("setup", "deal", "draw", "king")),
    ],
    ids=["pr-luck-value", "pr-random-value", "pg-luck-value", "pg-random-value"],
)
def test_the_correction_is_unbiased(
    play: Callable[[Any], list[LuckRecord]], value: Any, kinds: tuple[str, ...]
) -> None:
    records = play(value)
    assert all(any(r.events.get(k, 0) for r in records) for k in kinds), "every kind of event is met"
    assert unbiased_failures(records, kinds) == []


def test_the_check_catches_a_biased_correction(monkeypatch: pytest.MonkeyPatch) -> None:
    """The draw's expectation taken over a wrong distribution (its first card kind for sure): the draws' mean term
    moves off 0."""
    plain = pr_chance.PrChance.event

    def sure_first(self: pr_chance.PrChance, state: Any, kind: str, rng: Any) -> Any:
        event = plain(self, state, kind, rng)
        if kind != pr_chance.DRAW:
            return event
        return type(event)(kind, tuple((o, 1.0 if i == 0 else 0.0) for i, (o, _p) in enumerate(event.outcomes)))

    assert unbiased_failures(pr_games(pr_chance.LuckValue(), range(150), "random,greedy"), ("draw",)) == []
    monkeypatch.setattr(pr_chance.PrChance, "event", sure_first)
    records = pr_games(pr_chance.LuckValue(), range(150), "random,greedy")  # seat 1 draws far more often
    assert any(f.startswith("draw") for f in unbiased_failures(records, ("draw",)))


def test_measuring_luck_changes_no_game() -> None:
    game = get_game("palais-royal")
    context = game.context({"players": 3})
    model = pr_chance.PrChance(context.components, context.options)
    for seed in range(3):
        result, _record = play_with_luck(model, seed, load_strategies("random", 3, game), pr_chance.LuckValue())
        again = game.play(context, seed, load_strategies("random", 3, game))
        assert [s.score for s in result.seats] == [s.score for s in again.seats]
        assert result.final_state is not None and result.final_state.chance is None


def test_the_record_adds_up() -> None:
    for record in pg_games(pg_chance.LuckValue(), range(3)):
        for seat, total in enumerate(record.correction):
            assert math.isclose(sum(record.by_kind[seat].values()), total, abs_tol=1e-12)
        assert record.value_hash == pg_chance.LuckValue().digest()
        assert record.events["setup"] == 1 and record.events["deal"] >= 1


def test_the_seeds_reserved_for_fitting_are_refused_as_root_seeds() -> None:
    for seed in (FIT_ROOT_SEEDS.start, FIT_ROOT_SEEDS.stop - 1, fit_root_seed(12345)):
        assert is_reserved(seed)
        with pytest.raises(ReservedSeed, match="reserved for fitting"):
            check_root_seed(seed)
    for seed in (0, 1, 42, FIT_ROOT_SEEDS.start - 1, FIT_ROOT_SEEDS.stop, 2**63 - 1):
        check_root_seed(seed)  # the defaults and every seed outside the range pass
    with pytest.raises(ValueError, match="outside"):
        fit_root_seed(len(FIT_ROOT_SEEDS))


def test_the_value_functions_hashes_are_stable() -> None:
    assert pr_chance.LuckValue().digest() == pr_chance.LuckValue().digest()
    assert len(pg_chance.LuckValue().digest()) == 16
    assert pr_chance.LuckValue().digest() != pg_chance.LuckValue().digest()


def test_the_shipped_luck_value_was_fitted_on_reserved_seeds_only() -> None:
    data = json.loads(pg_chance.MODEL.read_text(encoding="utf-8"))
    assert is_reserved(data["root_seed"]) and "--fit-index" in data["command"]
    with pytest.raises(ReservedSeed):
        check_root_seed(data["root_seed"])  # no run can replay the fit's games
