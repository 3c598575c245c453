"""The adapters driven by the real frameworks' own reward code (verl 0.9.1, OpenRLHF 0.11.2), each
installed by scripts/setup.d/70-frameworks.sh in `.venv-frameworks` beside ours. The checks run in
that venv (tests/adapters/frameworks/*_check.py) and print JSON; a release that changes its
contract turns these red. TRL's GRPOTrainer runs in test_adapters_trl_real.py."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_plugin.required_parts import require_part

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv-frameworks" / "bin" / "python"
CHECKS = Path(__file__).with_name("frameworks")
ADAPTERS = ROOT / "evalkit" / "adapters"


@pytest.fixture(scope="module")
def framework_python():
    ok = (
        VENV_PYTHON.exists()
        and subprocess.run([str(VENV_PYTHON), "-c", "import verl, openrlhf"], capture_output=True).returncode == 0
    )
    require_part(ok, "verl and OpenRLHF in .venv-frameworks", "bash scripts/setup-env.sh")
    return str(VENV_PYTHON)


def run_check(python: str, script: str, *args: str, env: dict | None = None) -> dict:
    r = subprocess.run(
        [python, str(CHECKS / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(
    "adapter, manager, kwargs",
    [
        (str(ADAPTERS / "verl.py"), "naive", {}),  # loaded by file path
        ("pkg://evalkit.adapters.verl", "dapo", {"wrong_answer_credit": 0.0}),  # by package, with reward_kwargs
    ],
)
def test_verl_reward_loop_scores_a_mixed_batch_with_errors(framework_python, adapter, manager, kwargs):
    out = run_check(framework_python, "verl_check.py", adapter, manager, json.dumps(kwargs))
    rewards, extra = out["rewards"], out["extra"]
    credit = 0.15 if kwargs else 0.55 * 0.35 + 0.15
    assert rewards == pytest.approx([0.7, 0.5, 1.0, 0.0, 0.0, credit], abs=1e-6)
    assert extra["error"] == [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]  # unknown source, bad ground truth: ERROR items
    assert extra["acc"] == [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    assert extra["pred"][0] and extra["pred"][2] == "E9"  # answers for verl's maj@N
    assert extra["pass_rate"][1] == 0.5 and extra["win_rate"][2] == 1.0


@pytest.mark.slow
def test_verl_an_error_in_a_grpo_group_is_neutral_with_evalkits_manager_and_a_zero_without(framework_python):
    """A GRPO group [correct, wrong, empty, correct with a broken label], through verl's own reward
    loop and its own GRPO advantage: with verl's naive manager the broken label scores 0.0 and the right
    answer is pushed down as hard as the empty one; with evalkit's manager (loaded by importlib) it
    takes the group's mean valid reward and advantage 0, and the rest keep their order."""
    naive = run_check(framework_python, "verl_check.py", str(ADAPTERS / "verl.py"), "naive")["group"]
    ours = run_check(framework_python, "verl_check.py", str(ADAPTERS / "verl.py"), "evalkit")
    group = ours["group"]
    assert naive["rewards"][3] == 0.0 and naive["advantages"][3] == pytest.approx(naive["advantages"][2])
    valid = naive["rewards"][:3]
    assert group["rewards"] == pytest.approx([*valid, sum(valid) / 3], abs=1e-6)
    assert group["advantages"][3] == pytest.approx(0.0, abs=1e-6)
    assert group["advantages"][0] > 0 > group["advantages"][1] > group["advantages"][2]
    assert ours["extra"]["error"] == [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]  # the mixed batch: still counted


@pytest.mark.slow
def test_verl_warm_batches_start_no_containers_or_pools(framework_python):
    """verl's reward worker calls compute_score once per item, the batch's items in flight at once:
    they share the verifier's warm pool and sandboxes, so a warm batch starts no container."""
    out = run_check(framework_python, "verl_cost.py", "code", json.dumps({"backend": "docker", "pool_size": 2}), "4")
    assert out["items"] == 4 and out["all_correct"]
    assert out["containers_held_warm"] > 0  # the count looks at the verl workers' containers
    assert out["containers_started_warm"] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_openrlhf_executor_file_route_and_http_route_agree(framework_python, tmp_path):
    expected = [0.7, 0.55 * 0.35 + 0.15, 0.0]  # correct despite <|im_end|>; a wrong value; a bad label
    by_file = run_check(
        framework_python, "openrlhf_check.py", str(ADAPTERS / "openrlhf.py"), env={"EVALKIT_VERIFIER": "game24"}
    )["results"]
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.3)
        by_http = run_check(framework_python, "openrlhf_check.py", f"http://127.0.0.1:{port}/openrlhf?verifier=game24")[
            "results"
        ]
    finally:
        server.terminate()
        server.wait(timeout=30)
    for results in (by_file, by_http):
        assert [r["reward"] for r in results] == pytest.approx(expected, abs=1e-6)
        assert [r["extra_logs"]["error"] for r in results] == [[0.0], [0.0], [1.0]]


@pytest.mark.slow
def test_openrlhf_trains_on_an_error_as_zero_and_the_error_rate_stops_its_rollout(framework_python):
    """OpenRLHF calls the reward per sample and has no "no reward", so an ERROR in a GRPO group
    [correct, wrong, empty, correct with a broken label] is trained on as 0.0: through its own
    executor and advantage code the broken label's advantage equals the empty answer's, for each
    group estimator (flagged in extra_logs, as the docs say). EVALKIT_MAX_ERROR_RATE stops the rollout
    through the same executor, which would swallow an ordinary exception and go on without a reward."""
    out = run_check(
        framework_python, "openrlhf_group.py", str(ADAPTERS / "openrlhf.py"), env={"EVALKIT_VERIFIER": "game24"}
    )
    group, stop = out["group"], out["stop"]
    assert group["rewards"][3] == group["rewards"][2] == 0.0 and group["error"] == [0.0, 0.0, 0.0, 1.0]
    for estimator, advantages in group["advantages"].items():
        assert advantages[3] == pytest.approx(advantages[2]), estimator
        assert advantages[0] > advantages[1] > advantages[2], estimator
    assert stop["type"] == "StopTraining" and stop["stopped_at"] == 64  # the first ERROR after 64 scored
    assert stop["rewards_before"] == 64 and "past the allowed 5.0%" in stop["message"]
