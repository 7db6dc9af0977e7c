"""The run ledger (palais_sim.tournament.ledger): one line per finished chunk, the manifest the same size at any
number of chunks, a torn last line survived, and run directories of the earlier format (the chunk list inside
manifest.json) still resume and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from palais_sim.analytics.runs import open_run
from palais_sim.tournament.ledger import LEDGER, chunk_plan, read_ledger
from palais_sim.tournament.manifest import Manifest
from palais_sim.tournament.runner import run
from tests.run_dirs import chunk_states
from tests.test_tournament_runner import assert_same_tables, small


def test_one_ledger_line_per_chunk_and_a_manifest_that_does_not_grow(tmp_path):
    sizes = {}
    for chunk_size in (12, 1):  # 2 chunks, then 24
        out = tmp_path / f"c{chunk_size}"
        run(small(), out, workers=1, chunk_size=chunk_size)
        lines = (out / LEDGER).read_text().splitlines()
        assert len(lines) == 24 // chunk_size
        assert sorted(json.loads(line)["chunk"] for line in lines) == list(range(24 // chunk_size))
        manifest = json.loads((out / "manifest.json").read_text())
        assert "chunks" not in manifest and manifest["chunk_count"] == 24 // chunk_size
        assert manifest["totals"]["games"] == 24
        sizes[chunk_size] = len(json.dumps({k: v for k, v in manifest.items() if k != "created"}))
    assert abs(sizes[1] - sizes[12]) < 16  # the chunk size's digits, not a line per chunk
    assert_same_tables(tmp_path / "c12", tmp_path / "c1")


def test_the_last_line_for_a_chunk_wins_and_a_torn_last_line_is_ignored(tmp_path):
    ledger = tmp_path / LEDGER
    ledger.write_text(
        '{"chunk":0,"games":5,"errors":0,"decisions":50}\n'
        '{"chunk":1,"games":5,"errors":1,"decisions":40}\n'
        '{"chunk":0,"state":"pending"}\n'
        '{"chunk":2,"games":5,"err'
    )
    assert read_ledger(ledger) == {1: {"games": 5, "errors": 1, "decisions": 40}}
    plan = chunk_plan(13, 5, read_ledger(ledger))
    assert [(c["first"], c["count"], c["state"]) for c in plan] == [
        (0, 5, "pending"),
        (5, 5, "done"),
        (10, 3, "pending"),
    ]
    ledger.write_text('{"chunk":0,"games":5,"errors":0,"decisions":50}\nnot json\n{"chunk":1,"state":"pending"}\n')
    with pytest.raises(ValueError, match="line 2 is not a ledger entry"):
        read_ledger(ledger)


def test_a_run_killed_mid_line_resumes_to_the_same_tables(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    run(small(), whole, workers=1, chunk_size=4)
    run(small(), cut, workers=1, chunk_size=4)
    lines = (cut / LEDGER).read_text().splitlines()
    (cut / LEDGER).write_text("\n".join(lines[:3]) + "\n" + lines[3][:9])  # torn in the fourth line
    manifest = json.loads((cut / "manifest.json").read_text())
    (cut / "manifest.json").write_text(json.dumps({**manifest, "state": "interrupted"}))
    assert sum(c["state"] == "done" for c in chunk_states(cut)) == 3
    summary = run(small(), cut, workers=1, chunk_size=4, resume=True)
    assert summary.games == 24 and summary.played_now == 0  # the fourth chunk's files were complete on disk
    assert len(read_ledger(cut / LEDGER)) == 6
    assert_same_tables(whole, cut)


def _to_earlier_format(out: Path, pending: set[int]) -> None:
    """Rewrite a run directory as the earlier runner wrote it: every chunk listed in manifest.json, no ledger."""
    manifest = Manifest.load(out)
    assert manifest is not None
    chunks = []
    for c in manifest.chunks():
        if c["chunk"] in pending:
            c = {k: c[k] for k in ("chunk", "first", "count")} | {"state": "pending"}
            for table in ("games", "seats", "recruits"):
                (out / table / f"chunk-{c['chunk']:06d}.parquet").unlink()
        chunks.append(c)
    data = {k: v for k, v in manifest.data.items() if k != "chunk_count"}
    data["chunks"] = chunks
    data["state"] = "interrupted" if pending else "done"
    (out / "manifest.json").write_text(json.dumps(data, indent=1))
    (out / LEDGER).unlink()


def test_a_run_directory_of_the_earlier_format_resumes_and_reports(tmp_path):
    whole, old = tmp_path / "whole", tmp_path / "old"
    run(small(), whole, workers=1, chunk_size=4)
    run(small(), old, workers=1, chunk_size=4)
    _to_earlier_format(old, pending={2, 5})
    assert open_run(old).summary["games"] == 16  # read as it is: 4 of 6 chunks
    summary = run(small(), old, workers=1, chunk_size=4, resume=True)
    assert summary.played_now == 8 and summary.games == 24
    assert len(read_ledger(old / LEDGER)) == 6 and "chunks" not in json.loads((old / "manifest.json").read_text())
    assert_same_tables(whole, old)
    assert open_run(old).summary["games"] == 24
