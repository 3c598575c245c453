"""score_batch on Ray: warm actors that keep their verifier between calls, spread over a two-node
cluster (Ray's own multi-node harness: a head and a second raylet on loopback), a killed actor's
chunk retried on another, its replacement started on the same node releasing what it left."""

import glob
import os
import tempfile

import pytest

import verifiers
from pytest_plugin.required_parts import require_module
from verifiers.batch import pools_for


@pytest.fixture(scope="module")
def ray_cluster():
    require_module("ray", "pip install 'evalkit-rl[ray]'")
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    yield ray
    ray.shutdown()
    cluster.shutdown()


def _group(v):
    return next(pool for key, pool in pools_for(v).items() if key[0] == "ray")


def test_warm_actors_on_two_nodes_match_the_local_pool_and_survive_a_dead_actor(ray_cluster):
    v = verifiers.get("game24")
    tasks = v.tasks("test", limit=30)
    completions = [f"Answer: {t['solution']}" if i % 2 else "Answer: 1 + 1" for i, t in enumerate(tasks)]
    local = v.score_batch(completions, tasks, workers=2)
    assert v.score_batch(completions, tasks, executor="ray", workers=2) == local
    group = _group(v)
    placed = group.where()
    assert len({node for node, _pid in placed}) == 2  # one actor per node
    assert v.score_batch(completions, tasks, executor="ray", workers=2) == local
    assert group.where() == placed  # the same warm actors served the second call
    ray_cluster.kill(group.actors[0])
    assert v.score_batch(completions, tasks, executor="ray", workers=2) == local  # its chunk went elsewhere
    assert group.replaced == 1 and group.where()[0][0] == placed[0][0]  # replaced on the same node
    v.close()
    assert group.closed


class _LoadsNowhere(dict):
    """A task that pickles on the driver and fails to load on the actor (as one too deep for its stack)."""

    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise ValueError("this task cannot be loaded here")


def test_an_item_an_actor_cannot_load_is_its_own_error(ray_cluster):
    """The actor's call failed (RayTaskError) and the whole batch raised; now that chunk's items go
    one by one, and only the item that cannot be loaded is ERROR."""
    v = verifiers.get("game24")
    tasks = v.tasks("test", limit=24)
    completions = [f"Answer: {t['solution']}" for t in tasks]
    tasks[7] = _LoadsNowhere(tasks[7], note="loads nowhere")
    try:
        scores = v.score_batch(completions, tasks, executor="ray", workers=2)
    finally:
        v.close()
    assert scores[7].is_error and "failed on this item" in scores[7].reason
    assert [s.verdict.value for i, s in enumerate(scores) if i != 7] == ["correct"] * 23


@pytest.mark.slow
def test_a_dead_actors_sandbox_leftovers_are_released_by_its_replacement(ray_cluster):
    v = verifiers.get("code", backend="local")
    task = {"test_cases": ["assert f(1) == 2"]}
    program = "```python\ndef f(x):\n    return x + 1\n```"
    assert v.score_batch([program] * 4, [task] * 4, executor="ray", workers=2)[0].verdict.value == "correct"
    group = _group(v)
    before = {pid for _node, pid in group.where()}
    ray_cluster.kill(group.actors[0])
    scores = v.score_batch([program + "\n"] * 4, [task] * 4, executor="ray", workers=2)
    assert all(s.verdict.value == "correct" for s in scores) and group.replaced == 1
    left = [
        p
        for p in glob.glob(os.path.join(tempfile.gettempdir(), "evalkit-sbx-*-*"))
        if not os.path.exists(f"/proc/{p.split('-')[-2]}")
    ]
    assert not left, left  # no work dir of a dead process remains
    v.close()
    assert before


def test_more_workers_than_free_cpus_scale_down_or_fail_at_once(ray_cluster):
    """Each actor takes one CPU: asking for 8 on a 2-CPU cluster scores with 2 and warns, and asking
    when no CPU is free fails within seconds instead of waiting forever."""
    import time

    v, other = verifiers.get("game24"), verifiers.get("game24", wrong_answer_credit=0.0)
    task = {"numbers": [4, 4, 6, 8]}
    deadline = time.monotonic() + 30  # the earlier tests' actors give their CPUs back asynchronously
    while ray_cluster.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    with pytest.warns(UserWarning, match="8 Ray workers asked for but 2 CPUs are free"):
        scores = v.score_batch(["Answer: (6-4)*(4+8)"] * 6, [task] * 6, executor="ray", workers=8)
    assert [s.verdict.value for s in scores] == ["correct"] * 6 and len(_group(v).actors) == 2
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="no free CPU"):
        other.score_batch(["Answer: 1"], [task], executor="ray", workers=1)
    assert time.monotonic() - start < 30  # FREE_WAIT_SECONDS, then the error
    v.close()
    other.close()


DRIVER = """
import glob, json, os, subprocess, sys, tempfile
import ray
import verifiers
from verifiers.batch import pools_for

def descendants(roots):
    parent = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent[int(entry)] = int(fh.read().rpartition(")")[2].split()[1])
        except (ValueError, OSError, IndexError):
            pass
    found, todo = set(roots), list(roots)
    while todo:
        pid = todo.pop()
        children = [child for child, ppid in parent.items() if ppid == pid and child not in found]
        found.update(children)
        todo.extend(children)
    return sorted(found)

def held_by(owners):
    dirs = glob.glob(os.path.join(tempfile.gettempdir(), "evalkit-sbx-*-*"))
    labels = subprocess.run(["docker", "ps", "-a", "--format", '{{.Label "evalkit.sandbox.owner"}}'],
                            capture_output=True, text=True).stdout.split()
    return {"dirs": [d for d in dirs if int(os.path.basename(d).split("-")[2]) in owners],
            "containers": [c for c in labels if int(c.rpartition(":")[2]) in owners]}

backend, ending = sys.argv[1], sys.argv[2]
ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)  # its own cluster
v = verifiers.get("code", backend=backend, pool_size=1)
task = {"test_cases": ["assert f(1) == 2"]}
program = "```python\\ndef f(x):\\n    return x + 1\\n```"
scores = v.score_batch([program + "\\n" * k for k in range(4)], [task] * 4, executor="ray", workers=2)
group = next(pool for key, pool in pools_for(v).items() if key[0] == "ray")
actors = [pid for _, pid in group.where()]
owners = descendants([os.getpid(), *actors])
print(json.dumps({"verdicts": [s.verdict.value for s in scores], "reasons": [s.reason for s in scores],
                  "actors": actors, "owners": owners, "held": held_by(set(owners))}), flush=True)
ray.kill(group.actors[0])  # killed: it cannot clean up after itself
if ending == "close":
    v.close()
else:
    ray.shutdown()  # the driver ends without closing: the other actor dies with the cluster
"""


def _containers(owners: set[int]) -> set[str]:
    """Sandbox containers whose owner label names one of `owners` (the other xdist group starts and
    stops its own meanwhile)."""
    import docker

    from sandboxes.docker_pool import LABEL

    listed = docker.from_env().api.containers(all=True, filters={"label": LABEL})
    return {c["Id"] for c in listed if int(c["Labels"][LABEL].rpartition(":")[2]) in owners}


def _work_dirs(owners: set[int]) -> set[str]:
    """Local sandbox work dirs named after one of `owners`."""
    found = glob.glob(os.path.join(tempfile.gettempdir(), "evalkit-sbx-*-*"))
    return {p for p in found if int(os.path.basename(p).split("-")[2]) in owners}


def _outliving(pids: list[int], seconds: float) -> list[int]:
    """Those of `pids` still running after `seconds`. Actors end asynchronously: each notices its
    raylet is gone and exits on its own, and an exited one may stay a zombie until init reaps it."""
    import time

    from sandboxes.owners import process_alive

    deadline = time.monotonic() + seconds
    while [pid for pid in pids if process_alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    return [pid for pid in pids if process_alive(pid)]


@pytest.mark.slow
@pytest.mark.parametrize("backend,ending", [("docker", "close"), ("docker", "shutdown"), ("local", "shutdown")])
def test_a_killed_actor_and_an_ending_driver_leave_no_sandbox_behind(tmp_path, backend, ending):
    """One actor is killed, then the driver either closes the verifier or shuts Ray down and exits
    without closing: every container, work dir and actor process it started is gone afterwards."""
    import json
    import subprocess
    import sys

    require_module("ray", "pip install 'evalkit-rl[ray]'")
    if backend == "docker":
        from pytest_plugin.required_parts import require_part

        require_part(
            lambda: subprocess.run(["docker", "info"], capture_output=True).returncode == 0,
            "Docker",
            "bash scripts/setup-env.sh",
        )
    (tmp_path / "driver.py").write_text(DRIVER)
    r = subprocess.run(
        [sys.executable, "driver.py", backend, ending], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads(r.stdout.strip().splitlines()[0])
    assert report["verdicts"] == ["correct"] * 4, report["reasons"]
    assert len(report["actors"]) == 2
    assert not _outliving(report["actors"], seconds=60), "an actor outlived its driver"
    # Only what the driver's own processes held counts: the other xdist group runs sandboxes meanwhile.
    assert report["held"]["containers" if backend == "docker" else "dirs"], "the driver held no sandbox to leave"
    owners = set(report["owners"])
    assert _containers(owners) == set(), "sandbox containers left behind"
    assert _work_dirs(owners) == set(), "sandbox work dirs left behind"
