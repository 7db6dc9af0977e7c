"""``--backend ray``: the same tables as the local pool, and resume across backends, on a Ray head on loopback."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Empty

import pytest

pytest.importorskip("ray")

from typer.testing import CliRunner  # noqa: E402

from palais_sim.cli import app  # noqa: E402
from palais_sim.tournament import ray_backend  # noqa: E402
from palais_sim.tournament.runner import RunStopped, run  # noqa: E402
from tests.run_dirs import chunk_states
from tests.test_tournament_runner import assert_same_tables, small  # noqa: E402

RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_node(port: int, cpus: int, head: bool, env: dict | None = None) -> subprocess.Popen:
    """``ray start --block`` on 127.0.0.1 with its own temp dir (short: Ray's socket paths have a length limit), in a
    session of its own: the node's processes (raylet, workers) are its process group, killed by its pid alone."""
    temp = tempfile.mkdtemp(prefix="rayt", dir="/tmp")
    where = ["--head", f"--port={port}", "--include-dashboard=false"] if head else [f"--address=127.0.0.1:{port}"]
    return subprocess.Popen(
        [str(RAY), "start", *where, "--block", "--node-ip-address=127.0.0.1", f"--num-cpus={cpus}",
         "--disable-usage-stats", f"--temp-dir={temp}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env,
    )  # fmt: skip


def _wait_for_head(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert proc.poll() is None, "ray start --head failed"
            time.sleep(0.5)
    pytest.fail("the Ray head did not come up within 60 s")


def _stop_node(proc: subprocess.Popen) -> None:
    proc.terminate()  # --block: stops the processes it started
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)


@pytest.fixture(scope="module")
def ray_address():
    """A 2-CPU Ray head on 127.0.0.1 (``ray start --head --block``), stopped by its pid, not ``ray stop``."""
    port = _free_port()
    proc = _ray_node(port, 2, head=True)
    _wait_for_head(proc, port)
    time.sleep(2)  # the raylet registers just after the GCS opens its port
    yield f"127.0.0.1:{port}"
    _stop_node(proc)


@pytest.fixture(autouse=True)
def no_ray_left_in_the_test_process():
    """Every run leaves Ray as it found it: a stray Ray (started again by a late call from a thread) would take
    the test process down with the cluster's head."""
    yield
    ray = ray_backend.require_ray()
    stray = ray.is_initialized()
    if stray:
        ray.shutdown()
    assert not stray, "Ray is still initialised in the test process after the test"


def test_ray_tables_identical_to_the_local_pool(tmp_path, ray_address):
    s = small(games=30, players=3, strategies=("greedy", "random", "greedy:edge_bonus=2"))
    run(s, tmp_path / "local", workers=2, chunk_size=7)
    summary = run(s, tmp_path / "ray", workers=2, chunk_size=4, backend="ray", address=ray_address)
    assert summary.games == 30 and summary.errors == 0 and summary.workers == 2
    # the driver left the cluster it joined: it must not outlive the head (Ray ends a driver whose GCS is gone)
    assert not ray_backend.require_ray().is_initialized()
    assert_same_tables(tmp_path / "local", tmp_path / "ray")
    log = (tmp_path / "ray" / "run.log").read_text()
    assert "palais_sim.worker: chunk 7: 2 games" in log  # worker records reach run.log through the Ray queue
    assert not list((tmp_path / "ray").glob(".probe-*"))


def test_resume_across_backends(tmp_path, ray_address, monkeypatch):
    s = small(games=40)
    run(s, tmp_path / "whole", workers=1, chunk_size=5)

    # local, interrupted after 3 chunks; finished on Ray
    from palais_sim.tournament import worker

    real, calls = worker.run_chunk, {"n": 0}

    def interrupted(task):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr("palais_sim.tournament.runner.run_chunk", interrupted)
    with pytest.raises(RunStopped, match="3 of 8 chunks"):
        run(s, tmp_path / "l2r", workers=1, chunk_size=5)
    monkeypatch.undo()
    summary = run(s, tmp_path / "l2r", workers=2, resume=True, backend="ray", address=ray_address)
    assert summary.played_now == 25
    assert_same_tables(tmp_path / "whole", tmp_path / "l2r")

    # Ray, Ctrl-C in the driver after 2 chunks; finished by the local pool
    real_imap = ray_backend.RayExecutor.imap_unordered

    def ctrl_c(self, fn, tasks):
        for i, rep in enumerate(real_imap(self, fn, tasks)):
            if i == 2:
                raise KeyboardInterrupt
            yield rep

    monkeypatch.setattr(ray_backend.RayExecutor, "imap_unordered", ctrl_c)
    with pytest.raises(RunStopped, match=r"interrupted: \d of 8 chunks") as info:
        run(s, tmp_path / "r2l", workers=2, chunk_size=5, backend="ray", address=ray_address)
    assert info.value.code == 130
    monkeypatch.undo()
    # two chunks were reported; chunks the actors finished before they were stopped count too, from the disk
    done = {c["chunk"] for c in chunk_states(tmp_path / "r2l") if c["state"] == "done"}
    on_disk = {int(p.name[6:12]) for p in (tmp_path / "r2l" / "games").glob("chunk-*.parquet")}
    assert len(done) >= 2 and done == on_disk
    summary = run(s, tmp_path / "r2l", workers=2, resume=True)
    assert summary.played_now == 40 - 5 * len(done)
    assert_same_tables(tmp_path / "whole", tmp_path / "r2l")


def test_cli_backend_ray(tmp_path, ray_address):
    out = tmp_path / "cli"
    args = ["simulate", "--out", str(out), "--games", "8", "--players", "2", "--max-rounds", "4", "--seed", "3"]
    res = CliRunner().invoke(app, [*args, "--backend", "ray", "--address", ray_address])
    assert res.exit_code == 0, res.output
    assert "Played 8 games" in res.output and "2 workers" in res.output  # all the cluster's CPUs
    res = CliRunner().invoke(app, [*args[:2], str(tmp_path / "x"), "--address", ray_address])
    assert res.exit_code == 2 and "only for --backend ray" in res.output


def test_a_study_plays_its_arms_on_the_cluster_joined_once(tmp_path, ray_address, monkeypatch):
    """`palais study seats --backend ray --address`: the same rows as the local pool, Ray joined once for all the
    study's arms (not once per arm) and left at the end."""
    import json

    args = ["study", "seats", "--players", "2", "--groups", "6", "--strategy", "random", "--strategy", "greedy",
            "--max-rounds", "6"]  # fmt: skip
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    assert res.exit_code == 0, res.output
    ray = ray_backend.require_ray()
    real_init, joins = ray.init, []

    def counting_init(*a, **kw):
        joins.append(kw.get("address"))
        return real_init(*a, **kw)

    monkeypatch.setattr(ray, "init", counting_init)
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "ray"), "--backend", "ray", "--address", ray_address])
    assert res.exit_code == 0, res.output
    assert joins == [ray_address]  # two arms, one join
    rows = [json.loads((tmp_path / d / "study.json").read_text())["rows"] for d in ("local", "ray")]
    assert rows[0] == rows[1] and len(rows[0]) == 4
    sessions = [json.loads(p.read_text())["sessions"] for p in (tmp_path / "ray" / "runs").rglob("manifest.json")]
    assert len(sessions) == 2 and all(s[-1]["backend"] == "ray" and s[-1]["workers"] == 2 for s in sessions)


class _SlowQueue:
    """A Ray queue stand-in whose ``get`` blocks until released, counting calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.late_calls = 0
        self.bridge: ray_backend._LogBridge | None = None
        self.inside = threading.Event()
        self.release = threading.Event()
        self.left = ["last record"]

    def get(self, block: bool = True, timeout: float | None = None):
        self.calls += 1
        self.late_calls += self.bridge._detached
        self.inside.set()
        self.release.wait(5)
        raise Empty

    def get_nowait(self):
        if self.left:
            return self.left.pop()
        raise Empty


def test_log_bridge_detach_waits_for_the_call_in_flight_and_makes_no_more():
    queue = _SlowQueue()
    bridge = queue.bridge = ray_backend._LogBridge(queue)
    listener = threading.Thread(target=lambda: records.append(bridge.get()))
    records: list = []
    listener.start()
    assert queue.inside.wait(5)
    detacher = threading.Thread(target=bridge.detach)
    detacher.start()
    detacher.join(0.3)
    assert detacher.is_alive()  # Ray may not shut down while the listener is inside a Ray call
    queue.release.set()
    detacher.join(5)
    listener.join(5)
    assert not detacher.is_alive() and not listener.is_alive()
    assert records == ["last record"]  # drained into the buffer
    assert queue.calls == 1 and queue.late_calls == 0  # the call in flight ended; none started after detach
    bridge.put_nowait(None)
    assert bridge.get() is None and queue.calls == 1


def test_probe_reports_a_run_directory_the_worker_cannot_see(tmp_path):
    host, err = ray_backend._probe((str(tmp_path / "elsewhere"), "token"))
    assert err and "FileNotFoundError" in err
    (tmp_path / ".probe-token").write_text("token")
    assert ray_backend._probe((str(tmp_path), "token")) == (socket.gethostname(), None)


def test_without_ray_the_backend_says_how_to_install(tmp_path):
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from palais_sim.cli import app\n"
        f"sys.argv = ['palais', 'simulate', '--out', {str(tmp_path / 'r')!r}, '--backend', 'ray']\n"
        "app()\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert res.stderr.strip() == "error: --backend ray needs Ray: pip install 'palais-sim[ray]'"
    assert not (tmp_path / "r").exists()


def test_the_ladder_plays_on_the_cluster(tmp_path, ray_address):
    """`palais ladder --backend ray --address`: the same ratings and head-to-head table as the local pool's, its run
    recorded as played on Ray with all the cluster's CPUs."""
    import json

    args = ["ladder", "--strategies", "random,greedy,seals", "--games", "6", "--max-rounds", "6", "--json"]
    local = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "ray"), "--backend", "ray", "--address", ray_address])
    assert res.exit_code == 0, res.output
    tables = [json.loads(r.output) for r in (local, res)]
    for t in tables:  # the clocks differ between any two runs
        for key in ("seconds", "run"):
            t.pop(key)
        for row in t["table"]:
            for key in ("decisions_timed", "cpu_seconds", "decisions_per_cpu_second"):
                row.pop(key)
    assert tables[0] == tables[1] and len(tables[0]["ratings"]) == 3
    session = json.loads((tmp_path / "ray" / "manifest.json").read_text())["sessions"][-1]
    assert session["backend"] == "ray" and session["workers"] == 2


STALLING = "tests.stall_strategy:StallOnMarkedNode"  # greedy, but stuck for ever on the node marked to be lost


def _node_processes(pgid: int) -> dict[int, str]:
    """The processes of the Ray node started as process group ``pgid`` by their pid, with their titles: the group
    (raylet, agents, log monitor) and their children (the raylet's workers, each in a process group of its own)."""
    procs = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            title = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except (OSError, IndexError):
            continue  # ended meanwhile
        procs[int(stat.parent.name)] = (int(fields[1]), int(fields[2]), title)  # parent, group, title
    group = {pid for pid, (_, g, _) in procs.items() if g == pgid}
    return {pid: title for pid, (parent, g, title) in procs.items() if g == pgid or parent in group}


def _kill_node(pgid: int) -> None:
    """SIGKILL every process of the node (a machine lost at once), by pid."""
    import signal

    for pid in _node_processes(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _wait_for_cpus(address: str, cpus: int, env: dict) -> None:
    """Until the cluster has ``cpus`` CPUs (its second node registered), asked by a driver of its own."""
    code = (
        "import sys, time\nfrom palais_sim.tournament import ray_backend\n"
        f"ray = ray_backend.require_ray(); ray_backend.connect({address!r}, None)\n"
        "deadline = time.monotonic() + 60\n"
        f"while ray.cluster_resources().get('CPU', 0) < {cpus} and time.monotonic() < deadline:\n    time.sleep(0.2)\n"
        f"sys.exit(int(ray.cluster_resources().get('CPU', 0) < {cpus}))\n"
    )
    assert subprocess.run([sys.executable, "-c", code], env=env, timeout=120).returncode == 0, "no second node"


CLOCKS = ("seconds", "cpu_seconds", "cores")  # study.json's clocks of a skill level: wall and CPU time, cores


def _without_timing(page: dict) -> dict:
    """study.json without what differs between any two runs: the command (its --out, --backend) and the clocks."""
    page = {k: v for k, v in page.items() if k != "command"}
    page["games"] = {
        s: {k: v for k, v in g.items() if k not in ("seconds", "cpu_seconds", "cores")}
        for s, g in page["games"].items()
    }
    return page


def _markdown_without_timing(text: str) -> list[str]:
    """study.md without its command line and its games table's timing columns (wall time, CPU time, machine)."""
    import re

    kept = []
    for line in text.splitlines():
        if line.startswith("palais "):  # the command (a CliRunner run shows pytest's arguments)
            continue
        if re.fullmatch(r"\| `[^`]+` \| [\d,]+ \| [^|]+ \| [^|]+ \| [^|]+ \|", line):
            line = line.rsplit("|", 4)[0]  # skill level and games kept
        kept.append(line)
    return kept


def test_a_node_lost_mid_arm_loses_nothing(tmp_path):
    """Two nodes of one CPU each; the second is killed (its process group: raylet and workers) while it plays a chunk
    of the study's arm: the chunk is played again on the head, counted once, and the study's pages are the local
    run's."""
    import json

    args = ["study", "seats", "--players", "2", "--groups", "60", "--strategy", STALLING, "--seed", "5"]
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    assert res.exit_code == 0, res.output

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}  # `tests` importable everywhere
    port = _free_port()
    head = _ray_node(port, 1, head=True, env=env)
    second = None
    try:
        _wait_for_head(head, port)
        address = f"127.0.0.1:{port}"
        second = _ray_node(port, 1, head=False, env={**env, "PALAIS_TEST_STALL": "1"})
        _wait_for_cpus(address, 2, env)
        out = tmp_path / "ray"
        driver = subprocess.Popen(
            [str(RAY.with_name("palais")), *args, "--out", str(out), "--backend", "ray", "--address", address],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        busy: list[str] = []
        while not busy:  # the second node plays a chunk (stuck) and the arm has chunks done on the head
            assert driver.poll() is None and time.monotonic() < deadline, "no chunk ran on the second node"
            arm = next(out.glob("runs/*/*/*/ledger.jsonl"), None)
            if arm is not None and arm.read_text().strip():
                titles = _node_processes(second.pid).values()  # a worker's title: the task it runs, or ray::IDLE
                busy = [t for t in titles if t.startswith("ray::") and "Agent" not in t and t != "ray::IDLE"]
            time.sleep(0.1)
        _kill_node(second.pid)
        second.wait(timeout=30)
        output, _ = driver.communicate(timeout=180)
        assert driver.returncode == 0, output
    finally:
        if second is not None and second.poll() is None:
            _kill_node(second.pid)
        _stop_node(head)

    pages = [tmp_path / d for d in ("local", "ray")]
    local, on_ray = (json.loads((p / "study.json").read_text()) for p in pages)
    assert _without_timing(on_ray) == _without_timing(local)
    assert on_ray["games"][STALLING]["played_now"] == 60  # not 60 plus the lost chunk's games
    assert _markdown_without_timing((out / "study.md").read_text()) == _markdown_without_timing(
        (tmp_path / "local" / "study.md").read_text()
    )
    run_dir = arm.parent
    entries = [json.loads(line) for line in (run_dir / "ledger.jsonl").read_text().splitlines()]
    assert sorted(e["chunk"] for e in entries) == sorted({e["chunk"] for e in entries})  # each chunk done once
    assert sum(e["games"] for e in entries) == 60
    log = (run_dir / "run.log").read_text()
    lost = [int(t.split()[1]) for t in busy if t.startswith("ray::chunk ")]
    assert len(lost) == 1, busy
    assert [line for line in log.splitlines() if f"chunk {lost[0]}: 10 games" in line], log  # played again
    session = json.loads((run_dir / "manifest.json").read_text())["sessions"][-1]
    assert session["backend"] == "ray" and session["workers"] == 2
