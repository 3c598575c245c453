"""Parallel batch scoring: order, dedup, cache, and items that hang, crash or eat memory."""

import asyncio
import dataclasses
import os
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifiers
from verifiers import Score, Verdict, Verifier
from verifiers.cache import ScoreCache


@verifiers.register("batch-probe")
class Probe(Verifier):
    """Behaves according to the completion, so one batch can mix every failure."""

    @dataclasses.dataclass(frozen=True)
    class Config:
        log_dir: str = ""

    def evaluate(self, completion, task):
        if self.config.log_dir:  # one file per call: counts how often an item was really scored
            open(os.path.join(self.config.log_dir, f"{os.getpid()}-{time.monotonic_ns()}"), "w").close()
        if completion == "hang":
            time.sleep(60)
        if completion == "crash":
            os._exit(3)
        if completion == "memory":
            _ = bytearray(8 * 1024**3)
        good = completion == task.get("want")
        return Score(float(good), Verdict.CORRECT if good else Verdict.INCORRECT, answer=completion)


def test_results_come_back_in_input_order():
    v = verifiers.get("batch-probe")
    completions = [str(i) for i in range(300)]
    tasks = [{"want": str(i if i % 3 else -1)} for i in range(300)]
    scores = v.score_batch(completions, tasks, workers=2)
    assert [s.answer for s in scores] == completions
    assert [s.reward for s in scores] == [float(i % 3 != 0) for i in range(300)]
    v.close()


def test_hang_crash_and_memory_become_error_without_sinking_the_batch():
    v = verifiers.get("batch-probe")
    completions = ["a", "hang", "a", "crash", "memory", "b", "a"]
    start = time.monotonic()
    scores = v.score_batch(completions, [{"want": "a"}] * len(completions), workers=2, timeout=1.5, memory_mb=1024)
    assert time.monotonic() - start < 20
    verdicts = [s.verdict for s in scores]
    assert verdicts == [
        Verdict.CORRECT,
        Verdict.ERROR,
        Verdict.CORRECT,
        Verdict.ERROR,
        Verdict.ERROR,
        Verdict.INCORRECT,
        Verdict.CORRECT,
    ]
    assert "longer than 1.5 s" in scores[1].reason
    assert "exited with code 3" in scores[3].reason
    assert "memory" in scores[4].reason
    v.close()


def test_identical_items_are_scored_once(tmp_path):
    v = verifiers.get("batch-probe", log_dir=str(tmp_path))
    scores = v.score_batch(["a"] * 50 + ["b"] * 50, [{"want": "a"}] * 100, workers=2)
    assert sum(s.reward for s in scores) == 50
    assert len(os.listdir(tmp_path)) == 2
    v.close()


def test_disk_cache_reuses_scores_across_runs_but_not_errors(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    v = verifiers.get("batch-probe", log_dir=str(calls))
    cache = tmp_path / "cache.sqlite"
    first = v.score_batch(["a", "b", "hang"], [{"want": "a"}] * 3, workers=1, timeout=1, cache=cache)
    assert len(ScoreCache(cache)) == 2  # the ERROR is not cached
    before = len(os.listdir(calls))
    second = v.score_batch(["a", "b"], [{"want": "a"}] * 2, workers=1, timeout=1, cache=cache)
    assert len(os.listdir(calls)) == before
    assert second == first[:2]
    v.close()


def test_disk_cache_never_serves_what_older_scoring_code_gave(tmp_path, monkeypatch):
    """A fix to a verifier (a hole a model found) must not be undone by the rewards the old code
    cached: the cache key holds a digest of the code that scores, here a third-party verifier's file."""
    import importlib
    import sys

    from verifiers import cache as cache_module

    source = tmp_path / "lenient_verifier.py"
    verifier_code = (
        "import verifiers\nfrom verifiers import Score, Verdict\n"
        "class Lenient(verifiers.Verifier):\n"
        "    def evaluate(self, completion, task):\n"
        "        return Score({reward}, Verdict.CORRECT if {reward} else Verdict.INCORRECT, {{}}, None, 'x')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    db = tmp_path / "cache.sqlite"
    rewards = []
    for reward in (1.0, 0.0):  # the hole, then the fix, in the same file
        source.write_text(verifier_code.format(reward=reward))
        sys.modules.pop("lenient_verifier", None)
        cls = importlib.import_module("lenient_verifier").Lenient
        cache_module._digest_of.cache_clear()  # a new process after the fix
        rewards.append(cls().score_batch(["exploit"], [{}], workers=0, cache=db)[0].reward)
    assert rewards == [1.0, 0.0]


def test_works_from_a_thread_and_from_asyncio():
    v = verifiers.get("batch-probe")
    results = {}

    def in_thread():
        results["t"] = v.score_batch(["a", "hang"], [{"want": "a"}] * 2, workers=1, timeout=1)

    t = threading.Thread(target=in_thread)
    t.start()
    t.join(30)
    assert [s.verdict for s in results["t"]] == [Verdict.CORRECT, Verdict.ERROR]
    scores = asyncio.run(v.ascore_batch(["a", "b"], [{"want": "a"}] * 2, workers=1))
    assert [s.reward for s in scores] == [1.0, 0.0]
    v.close()


def test_serial_executor_and_length_mismatch():
    v = verifiers.get("batch-probe")
    assert [s.reward for s in v.score_batch(["a", "b"], [{"want": "a"}] * 2, workers=0)] == [1.0, 0.0]
    with pytest.raises(ValueError, match="2 completions but 1 tasks"):
        v.score_batch(["a", "b"], [{"want": "a"}])
    with pytest.raises(ValueError, match="unknown executor"):
        v.score_batch(["a"], [{"want": "a"}], executor="nope")


def test_batch_equals_one_by_one_on_game24():
    v = verifiers.get("game24")
    tasks = v.tasks("test", limit=40)
    completions = [f"Answer: {t['solution']} = 24" if i % 2 else "Answer: 1 + 2" for i, t in enumerate(tasks)]
    assert v.score_batch(completions, tasks, workers=2) == [v.score(c, t) for c, t in zip(completions, tasks)]
    v.close()


def test_short_game24_items_stay_in_the_callers_thread_and_long_ones_go_to_the_pool():
    """game24 scores a short completion inline (cheaper than any worker round trip); a long one,
    possibly hostile, goes to the worker pool and its hard timeout. The scores are the same."""
    from verifiers.batch import pools_for

    v = verifiers.get("game24")
    task = {"numbers": [4, 4, 6, 8]}
    short = ["Answer: (6-4)*(4+8)", "Answer: 1 + 2"]
    assert v.score_batch(short, [task] * 2, workers=2) == [v.score(c, task) for c in short]
    assert not pools_for(v), "a short item started a worker pool"
    long = ["reasoning " * (v.inline_max_chars // 10 + 1) + "\nAnswer: (6-4)*(4+8)"]
    assert v.score_batch(short + long, [task] * 3, workers=2) == [v.score(c, task) for c in short + long]
    assert len(pools_for(v)) == 1, "the long item did not go to the worker pool"
    v.close()


@verifiers.register("inline-probe")
class InlineProbe(Verifier):
    """Short completions may be scored in the caller's thread; each score says which process made it."""

    inline_max_chars = 100

    @dataclasses.dataclass(frozen=True)
    class Config:
        seconds: float = 0.002

    def evaluate(self, completion, task):
        time.sleep(self.config.seconds)
        return Score(1.0, Verdict.CORRECT, answer=completion, info={"pid": os.getpid()})


def test_a_large_inline_batch_is_shared_by_this_thread_and_the_workers(monkeypatch):
    """Many short items: this thread scores from the back of the queue while the workers take from
    its front; a long item is only ever a worker's. Results come back in order, each item once."""
    import verifiers.batch

    monkeypatch.setattr(verifiers.batch, "SHARE_INLINE_FROM", 64)
    v = verifiers.get("inline-probe")
    long = "x" * 200
    v.score_batch([long + "z"], [{}], workers=2)  # a long item starts the workers: the test then waits on no start
    completions = [long, *(f"item {i}" for i in range(600)), long + "y"]
    done = []
    scores = v.score_batch(completions, [{}] * len(completions), workers=2, progress=done.append)
    assert [s.answer for s in scores] == completions and sum(done) == len(completions)
    here = [s.answer for s in scores if s.info["pid"] == os.getpid()]
    assert here and len(here) < 600, f"this thread scored {len(here)} of 600 short items: the work was not shared"
    assert long not in here and long + "y" not in here
    v.close()


def test_a_verifier_no_worker_can_hold_keeps_a_large_inline_batch_in_this_thread(monkeypatch):
    """Sharing with workers is an optimisation: a verifier that does not pickle scores as before."""
    import verifiers.batch

    monkeypatch.setattr(verifiers.batch, "SHARE_INLINE_FROM", 64)
    v = verifiers.get("inline-probe", seconds=0.0)
    v.unpicklable = threading.Lock()
    scores = v.score_batch([f"item {i}" for i in range(200)], [{}] * 200, workers=2)
    assert all(s.correct and s.info["pid"] == os.getpid() for s in scores)
    v.close()


def test_a_deadline_stops_the_shared_work_of_this_thread_too():
    """The deadline is checked between this thread's items: the batch returns on time, late items
    ERROR (not scored: we failed, not the model)."""
    v = verifiers.get("inline-probe", seconds=0.005)
    completions = [f"item {i}" for i in range(6000)]  # 30 s of work
    started = time.monotonic()
    scores = v.score_batch(completions, [{}] * len(completions), workers=1, deadline=0.5)
    assert time.monotonic() - started < 10
    verdicts = {s.verdict for s in scores}
    assert Verdict.ERROR in verdicts and Verdict.CORRECT in verdicts
    assert all(s.info.get("scored") is False for s in scores if s.verdict is Verdict.ERROR)
    v.close()


UNGUARDED = """
import verifiers
v = verifiers.get("game24")
v.inline_max_chars = 0  # every item through the worker pool, which is what is tested here
scores = v.score_batch(["Answer: (6-4)*(4+8)"] * 12, [{"numbers": [4, 4, 6, 8]}] * 12, workers=2)
print(sorted({s.verdict.value for s in scores}))
"""


@pytest.mark.parametrize("how", ["script", "module"])
def test_a_script_without_a_main_guard_scores_in_workers(tmp_path, how):
    """Workers never re-run the caller's script (as with joblib/loky), so no `__main__` guard is needed."""
    import subprocess
    import sys

    (tmp_path / "unguarded.py").write_text(UNGUARDED)
    args = [sys.executable, "unguarded.py"] if how == "script" else [sys.executable, "-m", "unguarded"]
    r = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "['correct']", r.stderr[-2000:]


PLAIN_SCORER = """
from verifiers import Score, Verdict

class Plain:  # a Scorer with no close(), as the SVG render job is
    def score(self, completion, task):
        return Score(1.0, Verdict.CORRECT)
"""
PLAIN_RUN = """
from verifiers.batch import score_batch, close_pools
from plain_scorer import Plain

scorer = Plain()
print(len(score_batch(scorer, ["a", "b", "c"], [{}, {}, {}], workers=2)))
close_pools(scorer)
"""


def test_a_pool_of_a_scorer_without_close_shuts_down_silently(tmp_path):
    import subprocess
    import sys

    (tmp_path / "plain_scorer.py").write_text(PLAIN_SCORER)
    (tmp_path / "plain.py").write_text(PLAIN_RUN)
    r = subprocess.run([sys.executable, "plain.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "3", r.stderr[-2000:]
    assert r.stderr == ""  # no AttributeError traceback from the workers as they stop


class Counting(Probe):
    closed = 0

    def close(self):
        type(self).closed += 1
        super().close()


def test_the_plugins_checks_leave_the_callers_verifier_open():
    from pytest_plugin import assert_bounded, check_verifier

    v = Counting()
    check_verifier(v, tasks=[{"want": "x"}], completions=["x", "y"])
    assert_bounded(v, [("x", {"want": "x"})])
    assert Counting.closed == 0 and v.score_batch(["x"], [{"want": "x"}], workers=1)[0].reward == 1.0
    v.close()


THREADED_UNGUARDED = """
import threading
import verifiers

print("RUN", flush=True)  # a worker that re-ran this script would print it again
results = []
shared = verifiers.get("game24")

def score(k):
    v = shared if k % 2 else verifiers.get("game24")  # one shared verifier, and fresh ones, all starting pools at once
    v.inline_max_chars = 0  # through the worker pools, which is what is tested here
    for _ in range(3):
        results.append(v.score_batch(["Answer: (6-4)*(4+8)"] * 4, [{"numbers": [4, 4, 6, 8]}] * 4, workers=2))

threads = [threading.Thread(target=score, args=(k,)) for k in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted({s.verdict.value for batch in results for s in batch}), len(results))
"""


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as fh:
                    if marker.encode() in fh.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def test_threads_starting_pools_at_once_never_rerun_an_unguarded_script(tmp_path):
    """Six threads each start a pool for a fresh verifier at the same moment, three times over: the
    script runs once each time, and nothing it started outlives it."""
    import subprocess
    import sys
    import uuid

    (tmp_path / "threaded.py").write_text(THREADED_UNGUARDED)
    for _ in range(3):
        marker = f"EVALKIT_TEST_MARK={uuid.uuid4().hex}"
        env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
        r = subprocess.run(
            [sys.executable, "threaded.py"], cwd=tmp_path, capture_output=True, text=True, timeout=180, env=env
        )
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout.split("\n").count("RUN") == 1 and "['correct'] 18" in r.stdout, r.stdout + r.stderr[-1000:]
        deadline = time.monotonic() + 10
        while _processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _processes_with(marker) == []


def test_concurrent_callers_share_one_warm_pool():
    """8 threads scoring one item each, 10 rounds (as verl's reward workers and OpenRLHF call a
    reward): every call queues onto the same warm workers; no pool or worker is started for them."""
    from concurrent.futures import ThreadPoolExecutor

    from verifiers.batch import pools_for
    from verifiers.pool import WorkerPool

    v = Probe()
    v.score_batch(["a", "b"], [{"want": "a"}, {"want": "a"}], workers=2)  # warm: 2 workers started
    (pool,) = pools_for(v).values()
    made, started = WorkerPool.created, pool.workers_started

    def one(k):
        return v.score_batch([f"item {k}"], [{"want": f"item {k}"}], workers=2)[0]

    with ThreadPoolExecutor(8) as threads:
        scores = [s for _ in range(10) for s in threads.map(one, range(8))]
    assert [s.verdict.value for s in scores] == ["correct"] * 80
    assert (WorkerPool.created, pool.workers_started) == (made, started)
    v.close()


def test_a_hang_or_crash_in_one_callers_item_stays_that_items_error():
    """Callers sharing a pool: a hang (timeout) and a crash in one thread's batch are that item's
    ERROR; every other caller's items score normally."""
    from concurrent.futures import ThreadPoolExecutor

    v = Probe()
    batches = [["ok0", "hang", "ok1"], ["ok2", "crash"], ["ok3"], ["ok4", "ok5"]]

    def run(batch):
        return v.score_batch(batch, [{"want": c} for c in batch], workers=2, timeout=2)

    with ThreadPoolExecutor(4) as threads:
        results = list(threads.map(run, batches))
    verdicts = [[s.verdict.value for s in r] for r in results]
    assert verdicts == [["correct", "error", "correct"], ["correct", "error"], ["correct"], ["correct", "correct"]]
    assert "longer than" in results[0][1].reason and "exited" in results[1][1].reason
    v.close()


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    st.integers(1, 60),
    st.integers(0, 60),
    st.integers(1, 9),
    st.lists(st.sampled_from(["worker", "caller", "crash"]), max_size=80),
)
def test_the_caller_takes_only_its_own_chunks_and_every_item_is_handed_out_once(n, split, size, takers):
    """A job's queue, taken from both ends in any order (and a worker's chunk given back after a
    crash): the caller only ever gets items from `callers_from` on; every item is handed out once."""
    from verifiers.pool import _Job

    items = [(i, f"c{i}", {}) for i in range(n)]
    split = min(split, n)
    job = _Job(items, None, size, split)
    handed: list[int] = []
    for taker in takers:
        if taker == "caller":
            chunk = job.take_back()
            if chunk is not None:
                assert all(i >= split for i, _c, _t in chunk)
                handed += [i for i, _c, _t in chunk]
        elif job.pending:
            chunk = job.take_front()
            if taker == "crash":  # the worker died on its first item: the rest go back to the front
                handed.append(chunk[0][0])
                if chunk[1:]:
                    job.pending.appendleft(chunk[1:])
            else:
                handed += [i for i, _c, _t in chunk]
    while job.pending:
        handed += [i for i, _c, _t in job.take_front()]
    assert sorted(handed) == list(range(n)) and job.callers_chunks == 0
