"""`palais balance nobles`: the planted set (tests/data/balance_planted.toml: N17 worth 11 points for nothing, N18 at
9 gold and 4+4 seals for 1 point) comes back with the free noble dearer and the unaffordable one cheaper, and the
validation on fresh seeds calls neither under- nor overpriced. The gold-only search could not: N18 stayed overpriced
at 0 gold and N17 was proposed at a price the fresh seeds still called underpriced."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from palais_sim.cli import app
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.studies.balance import AIM_REACHED, FAIR, MIXED, OVER, UNDECIDED, UNDER, side
from palais_sim.games.palais_royal.studies.pricing import Outcome, Price
from palais_sim.study.evidence import level

COMPS = load_components(None)
PLANTED = Path(__file__).parents[1] / "data" / "balance_planted.toml"
DECIDED = ("favoured", "disfavoured")


@pytest.fixture(scope="module")
def planted() -> Path:
    comps = load_components(PLANTED)
    assert Price.of(comps, "N17") == Price(0, 0, 0, 11) and Price.of(comps, "N18") == Price(9, 4, 4, 1)
    assert [n for n in comps.nobles if n.id not in ("N17", "N18")] == [
        n for n in COMPS.nobles if n.id not in ("N17", "N18")
    ]
    return PLANTED


def _args(out: Path, planted: Path) -> list[str]:
    """The whole price at the greedy level, 100 groups (N18 is within reach in about 10% of the games: 100 groups
    give the 20 games within reach its passed-over verdict needs), one round."""
    return ["balance", "nobles", "--out", str(out), "--components", str(planted), "--nobles", "N17,N18,N10",
            "--strategy", "greedy", "--groups", "100", "--budget", "40000", "--rounds", "1",
            "--seals", "--points"]  # fmt: skip


@pytest.fixture(scope="module")
def balanced_run(planted: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    out = tmp_path_factory.mktemp("balanced") / "b"
    res = CliRunner().invoke(app, _args(out, planted))
    assert res.exit_code == 0, res.output
    return out, res


@pytest.fixture(scope="module")
def balanced(balanced_run: tuple[Path, Result]) -> tuple[Path, dict]:
    out, _ = balanced_run
    return out, json.loads((out / "balance.json").read_text())


def test_the_search_ends_with_its_verdicts_on_the_terminal(
    balanced: tuple[Path, dict], balanced_run: tuple[Path, Result]
) -> None:
    """The proposal's verdicts on the validation's seeds and the given set's on the same seeds, in a few lines
    before where it wrote (the tour's balance line printed only "balance written to ...")."""
    _, search = balanced
    out = balanced_run[1].stdout.splitlines()
    given = next(k for k, line in enumerate(out) if line.startswith("the given set, on the validation's seeds: "))
    proposal = next(k for k, line in enumerate(out) if line.startswith("the proposal (balanced.toml), on the "))
    assert given < proposal and out[-1].startswith("balance written to ")
    decided = sum(r["verdict"] != "undecided" for r in search["validation"])
    assert f": verdicts: {decided} of {len(search['validation'])} rows decided" in out[proposal]
    assert all("--validation-groups" in line for line in out if " undecided; the nearest needs " in line)


def test_the_search_says_on_stderr_what_it_does(balanced_run: tuple[Path, Result]) -> None:
    """A search of hours at the expert level shows its stages, each noble's outcome and each arm played (on stderr,
    timed), as the studies do."""
    _, res = balanced_run
    said = [line[9:] for line in res.stderr.splitlines() if re.match(r"^\d\d:\d\d:\d\d ", line)]
    stages = [line for line in said if line.startswith("balance: ")]
    assert stages[0] == "balance: the nobles study of the given set (3 nobles)"
    assert stages[-1] == "balance: the proposal's validation on fresh seeds"
    searched = {line.split(" (")[0]: line for line in stages if line.startswith("balance: round 1, ")}
    assert sorted(searched) == ["balance: round 1, N17", "balance: round 1, N18"]
    assert searched["balance: round 1, N17"].startswith(
        "balance: round 1, N17 (underpriced at 0 gold, 0+0 seals, 11 points): "
    ) and searched["balance: round 1, N17"].endswith((f", {AIM_REACHED}", ", fair at every level"))
    assert "(overpriced at 9 gold, 4+4 seals, 1 point): " in searched["balance: round 1, N18"]
    assert any(" played: " in line for line in said)  # the arms, as in a study
    looks = [line for line in said if " after look " in line]
    assert any(line.startswith("greedy: N17 at 1 gold, 0+0 seals, 11 points after look ") for line in looks)
    # a verdict that is not the value's (N18 passed over: within reach but never taken) says why beside the zero
    # interval of its value
    n18 = [line for line in looks if line.startswith("greedy: N18 after look ")]
    why = r"\+0\.0 pp \[\+0\.0, \+0\.0\], disfavoured \(overpriced.*within reach in \d+% of games"
    assert n18 and re.search(why, n18[0])
    assert not re.search(r"^\d\d:\d\d:\d\d ", res.stdout, re.M)


def test_the_free_noble_gets_dearer_and_the_unaffordable_one_cheaper(balanced, planted: Path) -> None:
    out, doc = balanced
    before = {r["key"]: r["verdict"] for r in doc["before"]}
    assert (before["N17"], before["N18"]) == ("favoured", "disfavoured")  # what the search had to fix
    given, proposal = load_components(planted), load_components(out / "balanced.toml")
    n17, n18 = (Price.of(proposal, n) for n in ("N17", "N18"))
    was17, was18 = Price(0, 0, 0, 11), Price(9, 4, 4, 1)
    assert n17 != was17 and n17.gold >= 0 and n17.seals >= 0 and n17.points <= 11  # dearer, in no way cheaper
    assert n18.gold < was18.gold or n18.seals < was18.seals  # cheaper in gold or seals
    assert n18.gold <= 9 and n18.seals <= 8 and n18.points >= 1
    assert Price.of(proposal, "N10") == Price.of(given, "N10")
    text = (out / "balanced.toml").read_text()
    assert "# N17: 0 -> " in text and "# N18: " in text  # a comment per changed noble
    # each search ended on aim: fair, or undecided (and then named, not called balanced)
    assert all(c["now"] in (FAIR, UNDECIDED) and c["balanced"] == (c["now"] == FAIR) for c in doc["changes"])
    assert set(doc["unbalanced"]) == {c["noble"] for c in doc["changes"] if c["now"] == UNDECIDED}


def test_the_validation_on_fresh_seeds_calls_neither_off(balanced) -> None:
    out, doc = balanced
    assert doc["validation_seed"] != doc["seed"]
    verdicts = {r["key"]: r["verdict"] for r in doc["validation"]}
    assert set(verdicts) == {"N17", "N18", "N10"}
    assert verdicts["N17"] not in DECIDED and verdicts["N18"] not in DECIDED
    for row in doc["before"] + doc["validation"]:
        assert {"subject", "key", "strategy", "effect", "ci", "verdict"} <= set(row)
    assert 0 < doc["games_spent"] <= doc["budget"]
    assert (out / "balance.md").exists() and (out / "balance.html").exists()


def test_a_repeated_command_reuses_every_arm(balanced, planted: Path) -> None:
    out, doc = balanced
    res = CliRunner().invoke(app, _args(out, planted))
    assert res.exit_code == 0, res.output
    again = json.loads((out / "balance.json").read_text())
    assert all(level["played_now"] == 0 for level in again["games"].values())
    assert again["validation"] == doc["validation"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--nobles", "N99"], "N99"),
        (["--nobles", "king_plus1"], "privilege kinds"),
        (["--budget", "100"], "too small"),
        (["--max-changes", "0"], "--max-changes"),
        (["--seals", "--max-seal-step", "0"], "--max-seal-step"),
        (["--max-point-step", "-1"], "--max-point-step"),
        (["--game", "palastgefluester"], "Palais Royal"),
        (["--validation-groups", "1"], "--validation-groups"),
        (["--validation-groups", "10", "--validation-looks", "6"], "--validation-looks"),
        (["--nobles", "N01", "--groups", "10", "--budget", "2000", "--validation-groups", "1000"], "too small"),
    ],
)
def test_bad_input_gets_one_line_and_exit_2(tmp_path: Path, extra: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["balance", "nobles", "--out", str(tmp_path / "x"), "--strategy", "greedy", *extra])
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_a_broken_component_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[meta]\nname = 'x'\n[[nobles]]\nid = 3\n")
    res = CliRunner().invoke(app, ["balance", "nobles", "--out", str(tmp_path / "x"), "--components", str(bad)])
    assert res.exit_code == 2 and "Traceback" not in res.output


def test_side_of_a_noble_over_the_levels() -> None:
    def rows(*verdicts: str) -> list[dict]:
        return [{"verdict": v} for v in verdicts]

    assert side(rows("favoured", "undecided")) == UNDER
    assert side(rows("disfavoured", "balanced")) == OVER
    assert side(rows("favoured", "disfavoured")) == MIXED
    assert side(rows("balanced", "undecided")) == UNDECIDED  # undecided is not fair
    assert side(rows("balanced", "balanced")) == FAIR


def test_make_reports_publishes_the_search(balanced, tmp_path: Path) -> None:
    from palais_sim.study.publish import publish

    out, _doc = balanced
    index = publish(out.parent, tmp_path / "reports").read_text()
    assert "## [b](b/balance.md)" in index and "Proposed: N17 0 -> " in index
    assert (tmp_path / "reports" / "b" / "balanced.toml").exists()


def test_the_search_runs_its_arms_on_the_backend_it_is_given(planted: Path, tmp_path: Path, monkeypatch) -> None:
    """--backend ray reaches every arm's run (the Ray pool itself is tested with simulate; here its seam)."""
    import palais_sim.study.arms as arms

    seen = []
    real_run = arms.run

    def recording_run(settings, out, workers, **kwargs):
        seen.append((kwargs.get("backend"), kwargs.get("address")))
        return real_run(settings, out, workers, **{**kwargs, "backend": "local", "address": None})

    monkeypatch.setattr(arms, "run", recording_run)
    monkeypatch.setattr("palais_sim.tournament.ray_backend.require_ray", lambda: None)
    args = ["balance", "nobles", "--out", str(tmp_path / "r"), "--components", str(planted), "--nobles", "N10",
            "--strategy", "greedy", "--groups", "4", "--budget", "2000",
            "--backend", "ray", "--address", "auto"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert seen and set(seen) == {("ray", "auto")}
    bad = CliRunner().invoke(app, [*args[:-4], "--backend", "spark"])
    assert bad.exit_code == 2 and "--backend" in bad.output


# --- the audited defects of the search (issue 34), on stand-ins for the studies (no games) ---


def _row(key: str, effect: float, verdict: str) -> dict:
    return {"subject": "noble", "key": key, "strategy": "greedy", "effect": effect, "ci": [effect - 1, effect + 1],
            "n_groups": 10, "verdict": verdict, "reason": "value", "robust": False, "reading": verdict,
            "games": 20}  # fmt: skip


def test_the_bisection_keeps_the_fair_price_it_measured(tmp_path: Path, monkeypatch) -> None:
    """Gold 6: 7 under, 8 under, 10 fair, 9 over: the search proposed 8 (still under) and threw 10 away."""
    from palais_sim.games.palais_royal.studies.balance import BalancePlan, Search
    from palais_sim.games.palais_royal.studies.variants import repriced
    from palais_sim.study.common import Ledger, StudySpec

    said = {7: "favoured", 8: "favoured", 10: "balanced", 9: "disfavoured"}
    asked: list[int] = []

    def evaluate(self, comps, noble, price):
        asked.append(price.gold)
        return [_row(noble, 0.0, said[price.gold])]

    monkeypatch.setattr(Search, "evaluate", evaluate)
    plan = BalancePlan(StudySpec(strategies=("greedy",), groups=10), max_seal_step=0, max_point_step=0)  # gold only
    comps = repriced(COMPS, "N05", 6)
    found = Search(plan, tmp_path, Ledger()).price(comps, "N05", UNDER, [_row("N05", 9.0, "favoured")],
                                                   Price.of(comps, "N05"))  # fmt: skip
    assert asked == [7, 8, 10, 9]
    assert (found.price.gold, found.side, found.why) == (10, FAIR, None)


@pytest.fixture
def stand_in(monkeypatch) -> list[dict]:
    """The nobles study and the price search replaced by stand-ins: round 1 calls N01 underpriced; the proposal's
    check (round 2) calls N02, N03 and N01 (in that order of badness) underpriced; every price the search proposes
    is fair; the validation and any other study call everything balanced. Returns the studies asked for."""
    from palais_sim.games.palais_royal.studies import balance

    calls: list[dict] = []

    def compute(plan, out, ledger=None):
        comps = load_components(plan.spec.base.components)
        calls.append({"out": out.name, "seed": plan.spec.seed, "hash": comps.hash, "subjects": plan.subjects,
                      "groups": plan.spec.groups, "looks": plan.looks})  # fmt: skip
        if out.name == "before":
            return [_row("N01", 10.0, "favoured")], []
        if out.parent.name == "check-1":  # check-1/<the proposal's hash>
            return [_row("N02", 30.0, "favoured"), _row("N03", 20.0, "favoured"), _row("N01", 10.0, "favoured")], []
        last = plan.look_confidence(len(plan.look_sizes()) - 1)  # the rows' level: the last look's
        return [dict(_row(n, 0.0, "balanced"), confidence=last) for n in plan.subjects], []

    def price(self, comps, noble, start, rows, given):
        now = Price.of(comps, noble)
        dearer = replace(now, gold=now.gold + 1)
        return Outcome(dearer, FAIR, [_row(noble, 0.0, "balanced")], [{"price": dearer, "side": FAIR, "rows": []}])

    monkeypatch.setattr(balance.nobles, "compute", compute)
    monkeypatch.setattr(balance.Search, "price", price)
    return calls


def test_a_rerun_whose_search_proposes_otherwise_checks_its_own_proposal(tmp_path: Path, monkeypatch) -> None:
    """The check round of a rerun whose search now proposes another price (a change of the search, another budget):
    it played into the directory of the first proposal's check, whose arms hold another component set, and stopped
    with "holds a different run" (make reports of 2026-11-27 00:27). Each proposal has its own check directory."""
    from palais_sim.games.palais_royal.studies import balance
    from palais_sim.games.palais_royal.studies.balance import BalancePlan, run_balance
    from palais_sim.study.common import StudySpec

    real = balance.nobles.compute

    def compute(plan, out, ledger=None):
        if out.name == "before":
            return [_row("N01", 10.0, "favoured"), _row("N02", 0.0, "balanced")], []
        return real(plan, out, ledger)

    step = {"gold": 1}

    def price(self, comps, noble, start, rows, given):
        now = Price.of(comps, noble)
        dearer = replace(now, gold=now.gold + step["gold"])
        return Outcome(dearer, FAIR, [_row(noble, 0.0, "balanced")], [{"price": dearer, "side": FAIR, "rows": []}])

    monkeypatch.setattr(balance.nobles, "compute", compute)
    monkeypatch.setattr(balance.Search, "price", price)
    plan = BalancePlan(StudySpec(strategies=("greedy",), groups=4), subjects=("N01", "N02"), rounds=2)
    run_balance(plan, tmp_path / "b")
    step["gold"] = 2  # the rerun's search proposes another price
    run_balance(plan, tmp_path / "b")
    checks = sorted(p.name for p in (tmp_path / "b" / "check-1").iterdir())
    assert len(checks) == 2  # one check per proposal, both kept (a rerun of either reuses its arms)
    doc = json.loads((tmp_path / "b" / "balance.json").read_text())
    assert doc["changes"][0]["new_price"]["gold"] == COMPS.nobles[COMPS.noble_index["N01"]].gold + 2


def test_a_full_change_list_does_not_skip_the_nobles_already_changed(stand_in, tmp_path: Path) -> None:
    """--max-changes 2: once N02 is the second changed noble, N03 (new) is refused, but N01 (changed in round 1 and
    still underpriced) is repriced again; a `break` there skipped it."""
    from palais_sim.games.palais_royal.studies.balance import BalancePlan, run_balance
    from palais_sim.study.common import StudySpec

    plan = BalancePlan(StudySpec(strategies=("greedy",), groups=10), subjects=("N01", "N02", "N03"), max_changes=2)
    run_balance(plan, tmp_path / "b")
    doc = json.loads((tmp_path / "b" / "balance.json").read_text())
    assert [(c["round"], c["noble"]) for c in doc["changes"]] == [(1, "N01"), (2, "N02"), (2, "N01")]
    assert doc["balanced"] == "balanced.toml"  # beside the page, the same on every machine
    proposal = load_components(tmp_path / "b" / doc["balanced"])
    gold = {n: COMPS.nobles[COMPS.noble_index[n]].gold for n in ("N01", "N02", "N03")}
    assert [proposal.nobles[proposal.noble_index[n]].gold - gold[n] for n in ("N01", "N02", "N03")] == [2, 1, 0]


def test_before_and_after_are_compared_on_the_same_fresh_seeds(stand_in, tmp_path: Path) -> None:
    """The search's own study selected the nobles (a winner's curse): the before of the before/after comparison is
    the given set studied again on the validation's fresh seeds."""
    from palais_sim.games.palais_royal.studies.balance import BalancePlan, run_balance
    from palais_sim.study.common import StudySpec

    plan = BalancePlan(StudySpec(strategies=("greedy",), groups=10, seed=5), subjects=("N01", "N02", "N03"),
                       rounds=1)  # fmt: skip
    run_balance(plan, tmp_path / "b")
    doc = json.loads((tmp_path / "b" / "balance.json").read_text())
    fresh = [c for c in stand_in if c["seed"] == doc["validation_seed"]]
    assert {c["hash"] for c in fresh} == {COMPS.hash, load_components(tmp_path / "b" / doc["balanced"]).hash}
    again = next(c for c in fresh if c["hash"] == COMPS.hash)
    assert set(again["subjects"]) >= {"N01"}
    assert {r["key"] for r in doc["before_fresh"]} >= {"N01"}
    assert "fresh seeds" in (tmp_path / "b" / "balance.md").read_text()


def test_a_noble_no_price_balances_is_named_on_the_page_in_the_file_and_the_json(stand_in, tmp_path, monkeypatch):
    """The search's why (here a stand-in's) reaches balance.json, balanced.toml and the page."""
    from palais_sim.games.palais_royal.studies import balance
    from palais_sim.study.common import StudySpec

    why = "still underpriced at 12 gold, 1+1 seals, 4 points, the farthest the limits allow (...)"

    def price(self, comps, noble, start, rows, given):
        dearer = replace(Price.of(comps, noble), gold=12)
        return Outcome(dearer, UNDER, rows, [{"price": dearer, "side": UNDER, "rows": rows}], why)

    monkeypatch.setattr(balance.Search, "price", price)
    plan = balance.BalancePlan(StudySpec(strategies=("greedy",), groups=10), subjects=("N01", "N05"), rounds=1)
    balance.run_balance(plan, tmp_path / "b")
    doc = json.loads((tmp_path / "b" / "balance.json").read_text())
    assert doc["unbalanced"] == {"N01": why}
    assert doc["changes"][0]["why"] == why and doc["changes"][0]["balanced"] is False
    assert f"# N01: not balanced: {why}" in (tmp_path / "b" / "balanced.toml").read_text()
    assert f"**N01**: {why}" in (tmp_path / "b" / "balance.md").read_text()


def test_the_validation_has_its_own_size(stand_in, tmp_path: Path) -> None:
    """The search may screen at a few hundred groups; the validation alone decides whether the proposal holds, so
    it (and the given set again on its seeds) is played at --validation-groups in --validation-looks; the search's
    studies keep the search's size."""
    from palais_sim.games.palais_royal.studies.balance import BalancePlan, run_balance
    from palais_sim.study.common import StudySpec

    plan = BalancePlan(StudySpec(strategies=("greedy",), groups=10, seed=5), subjects=("N01", "N02", "N03"),
                       rounds=2, validation_groups=40, validation_looks=4)  # fmt: skip
    run_balance(plan, tmp_path / "b")
    doc = json.loads((tmp_path / "b" / "balance.json").read_text())
    sizes = {(c["seed"] == doc["validation_seed"], c["groups"], c["looks"]) for c in stand_in}
    assert sizes == {(True, 40, 4), (False, 10, 1)}
    assert {c["out"] for c in stand_in if c["seed"] == doc["validation_seed"]} == {"validation", "before-fresh"}
    assert (doc["validation_groups"], doc["validation_looks"]) == (40, 4)
    page = (tmp_path / "b" / "balance.md").read_text()
    assert "up to 40 groups per arm in 4 looks, each arm stopping" in page
    # the validation's rows are each at their look's level, not "95%": the table says so, and each row its level
    last = BalancePlan(StudySpec(strategies=("greedy",), groups=40), validation_looks=4).validation_plan(
        StudySpec(strategies=("greedy",), groups=40)
    )
    assert "| repeated 95% interval (pp), each at its look's level |" in page and "| 95% interval (pp) |" not in page
    assert f"[-1.0, +1.0] at {level(last.look_confidence(3))}" in page
    assert "**Validated**: every noble balanced" in page and "`greedy` 3 of 3 (3 balanced" in page


def test_the_validation_validates_only_what_it_shows_balanced() -> None:
    """An undecided row is not shown balanced, however near 0: the proposal is validated only when every noble is
    balanced at every level; a noble still called off names it."""
    from palais_sim.games.palais_royal.studies.balance import decided_text, validation_verdict

    def row(key: str, strategy: str, verdict: str) -> dict:
        return {"key": key, "strategy": strategy, "verdict": verdict}

    rows = [row("N01", "greedy", "balanced"), row("N01", "expert", "undecided"), row("N02", "greedy", "balanced"),
            row("N02", "expert", "balanced")]  # fmt: skip
    assert validation_verdict(rows, []).startswith("**Not shown balanced**: no noble is called")
    assert "1 of 4 rows are undecided" in validation_verdict(rows, [])
    rows[1] = row("N01", "expert", "favoured")
    said = validation_verdict(rows, ["N01"])
    assert said.startswith("**Not validated**") and said.endswith("fresh seeds: N01.")
    rows[1] = row("N01", "expert", "balanced")
    assert validation_verdict(rows, []).startswith("**Validated**")
    rows[1] = row("N01", "expert", "favoured")
    assert decided_text(rows, ["greedy", "expert"]) == (
        "Decided on validation: `greedy` 2 of 2 (2 balanced, 0 favoured, 0 disfavoured); "
        "`expert` 2 of 2 (1 balanced, 1 favoured, 0 disfavoured)."
    )


def test_the_before_after_chart_puts_a_nobles_rows_side_by_side(stand_in, tmp_path: Path, monkeypatch) -> None:
    """Before and after of one noble at one level next to each other, the nobles in order, levels in the study's."""
    from palais_sim.games.palais_royal.studies import balance
    from palais_sim.study.common import StudySpec

    drawn: list[list[dict]] = []
    real = balance.charts.forest
    monkeypatch.setattr(balance.charts, "forest", lambda rows, *a, **k: drawn.append(rows) or real(rows, *a, **k))
    plan = balance.BalancePlan(StudySpec(strategies=("greedy",), groups=10), subjects=("N01", "N02", "N03"))
    balance.run_balance(plan, tmp_path / "b")
    assert [(r["key"], r["strategy"]) for r in drawn[0]] == [
        ("N01", "greedy before"), ("N01", "greedy after"), ("N02", "greedy before"), ("N02", "greedy after"),
        ("N03", "greedy before"), ("N03", "greedy after"),
    ]  # fmt: skip


# --- issue 51: the search reaches the fix by default (the whole price, no flags) ---


@pytest.fixture(scope="module")
def issue_planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Issue 51's planted set, built from the standard set: N17 free (0 gold, 0+0 seals) and worth 11 points, N23 at
    9 gold and 4+4 seals for 1 point; N05 as a control."""
    from palais_sim.games.palais_royal.studies.variants import write_variant

    comps = Price(9, 4, 4, 1).apply(Price(0, 0, 0, 11).apply(COMPS, "N17"), "N23")
    return write_variant(comps, tmp_path_factory.mktemp("issue51") / "planted.toml")


def test_the_planted_set_passes_with_the_commands_defaults(issue_planted: Path, tmp_path: Path) -> None:
    """`palais balance nobles --players 2 --nobles N17,N23,N05 --components planted.toml` at the greedy level and
    nothing else: with gold alone N23 was proposed at 0 gold and the validation on fresh seeds still called it
    overpriced (within reach in about a quarter of the games, never taken), and N17 stayed underpriced at 12 gold.
    The defaults now search seals and points too, and the validation calls neither planted noble off."""
    out = tmp_path / "b"
    args = ["balance", "nobles", "--out", str(out), "--players", "2", "--nobles", "N17,N23,N05",
            "--components", str(issue_planted), "--strategy", "greedy"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "balance.json").read_text())
    verdicts = {r["key"]: r["verdict"] for r in doc["validation"]}
    assert verdicts["N17"] not in DECIDED and verdicts["N23"] not in DECIDED, doc["validation"]
    assert doc["limits"] == {"gold": 12, "seals": 4, "points": 4}
    searched = {c["noble"] for c in doc["changes"]}
    assert {"N17", "N23"} <= searched  # both were called off (N23 on the second round's seeds) and searched
    proposal = load_components(out / "balanced.toml")
    assert Price.of(proposal, "N23").seals < 8  # nobody takes N23 at 4+4 seals for 1 point, whatever its gold


@pytest.mark.parametrize(
    ("flags", "limits"),
    [
        ([], (12, 4, 4)),
        (["--no-seals"], (12, 0, 4)),
        (["--no-points"], (12, 4, 0)),
        (["--no-seals", "--no-points", "--max-step", "6"], (6, 0, 0)),
        (["--seals", "--points", "--max-seal-step", "2", "--max-point-step", "3"], (12, 2, 3)),
    ],
)
def test_the_search_moves_the_whole_price_unless_told_otherwise(
    flags: list[str], limits: tuple[int, int, int], tmp_path: Path, monkeypatch
) -> None:
    """The command's limits: gold, seals and points by default; --no-seals and --no-points keep a dimension."""
    from palais_sim.games.palais_royal.studies import balance

    plans: list = []
    monkeypatch.setattr(balance, "run_balance", lambda plan, out: plans.append(plan) or {"md": out / "balance.md"})
    res = CliRunner().invoke(app, ["balance", "nobles", "--out", str(tmp_path / "b"), "--strategy", "greedy", *flags])
    assert res.exit_code == 0, res.output
    assert [(p.limits.gold, p.limits.seals, p.limits.points) for p in plans] == [limits]


def test_a_noble_that_only_just_escapes_a_verdict_is_searched_too(stand_in, tmp_path: Path, monkeypatch) -> None:
    """Issue 51's planted set at seed 2: N23 (9 gold, 4+4 seals, 1 point) was within reach in a tenth of the games
    and never taken, but at 100 groups the study left it undecided on the search's seeds both rounds, so it was not
    searched, and the validation on fresh seeds called it overpriced. The search now takes the nobles that nearly
    are off too (``aim``), after those called off; a noble merely undecided near 0 stays as it is."""
    from palais_sim.games.palais_royal.studies import balance
    from palais_sim.study.common import StudySpec

    shunned = dict(_row("N23", 0.0, "undecided"), rates={"groups_noted": 100, "groups_reached": 20,
                                                         "taken_in_groups": 0.0})  # fmt: skip

    def compute(plan, out, ledger=None):
        if out.name == "before":
            return [shunned, _row("N05", 0.5, "undecided"), _row("N17", 9.0, "favoured")], []
        return [_row(n, 0.0, "balanced") for n in plan.subjects], []

    monkeypatch.setattr(balance.nobles, "compute", compute)
    plan = balance.BalancePlan(StudySpec(strategies=("greedy",), groups=10), subjects=("N05", "N17", "N23"), rounds=1)
    balance.run_balance(plan, tmp_path / "b")
    doc = json.loads((tmp_path / "b" / "balance.json").read_text())
    assert [(c["noble"], c["was"]) for c in doc["changes"]] == [("N17", UNDER), ("N23", OVER)]
