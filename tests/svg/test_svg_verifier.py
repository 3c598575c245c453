"""The SVG verifier end to end with a real (tiny, random) open_clip model."""

import base64
import hashlib
import json
import time

import pytest
from svg_docs import ORDINARY, svg

from pytest_plugin import assert_not_hackable, check_verifier
from verifiers import TaskError, Verdict
from verifiers.svg import SvgVerifier
from verifiers.svg.tasks import builtin_tasks, derive_negatives, load_tasks

HEX = {"id": "hex", "prompt": "a regular hexagon", "negatives": ["a regular pentagon", "a circle"]}
SEED_TABLE = [
    "正六边形",
    "梯形",
    "虚线边框正方形",
    "Light green ellipse",
    "十字架",
    "奔驰车标",
    "BMW 车标",
    "电路图接地符号",
    "五角星",
    "紫色六芒星",
    "齿轮",
    "禁行标志 (红圈 + 单斜杠)",
    "五星评分 (3 颗实星 2 颗空心)",
    "三格 WIFI 信号阶梯",
    "电池图标 (20% 红色填充)",
    "四格 WIFI 信号阶梯",
    "急救箱",
    "美元符号",
    "人民币符号",
    "彩色山湖风景(landscape)",
    "折线图(温度变化)",
    "夜间城市景观",
    "现代时钟面盘",
]


def test_the_seed_table_is_built_in():
    tasks = builtin_tasks()
    assert [t["seed_name"] for t in tasks] == SEED_TABLE
    assert all(len(t["negatives"]) >= 3 for t in tasks)
    assert sum(bool(t["checks"]) for t in tasks) >= 10
    v = SvgVerifier()
    assert len(v.tasks("all")) == 23
    assert sorted(t["id"] for t in v.tasks("train") + v.tasks("test")) == sorted(t["id"] for t in tasks)
    assert "a regular hexagon" in v.prompt(tasks[0]) and "```svg" in v.prompt(tasks[0])


def test_scores_a_drawing_with_every_component(svg_verifier):
    s = svg_verifier.score(f"Here it is:\n```svg\n{ORDINARY['hexagon']}\n```", HEX)
    assert s.verdict in (Verdict.CORRECT, Verdict.INCORRECT)
    assert set(s.components) >= {"clip_cosine", "clip", "contrastive", "ink"}
    assert 0.0 <= s.reward <= 1.0
    assert s.reward == pytest.approx(0.2 / 0.6 * s.components["clip"] + 0.4 / 0.6 * s.components["contrastive"])
    assert set(s.info["negatives"]) == set(HEX["negatives"])
    assert s.info["clip"]["quick_gelu"] is False and s.answer is None  # drawings do not vote


def test_invalid_scores_zero_with_a_reason_code(svg_verifier):
    s = svg_verifier.score(svg('<text x="1" y="50">a regular hexagon</text>'), HEX)
    assert (s.verdict, s.reward, s.info["reason_code"]) == (Verdict.INVALID, 0.0, "text_not_allowed")


def test_blank_and_single_colour_renders_are_invalid(svg_verifier):
    for body in ("", '<rect width="100" height="100" fill="red"/>', '<circle r="1" cx="-50" cy="-50"/>'):
        s = svg_verifier.score(svg(body), HEX)
        assert s.info.get("reason_code") == "blank_render", (body, s)


def test_plugin_invariants_and_probes(svg_verifier):
    tasks = [HEX, {"id": "free", "prompt": "a red circle"}]
    check_verifier(svg_verifier, tasks=tasks, completions=list(ORDINARY.values())[:3], samples=2, seconds=30)
    for task in tasks:
        assert_not_hackable(svg_verifier, task, threshold=0.0)


def test_batch_equals_one_at_a_time(svg_verifier):
    completions = list(ORDINARY.values()) + ["no svg", svg("<script/>")]
    tasks = [HEX] * len(completions)
    together = svg_verifier.score_batch(completions, tasks)
    alone = [svg_verifier.score(c, t) for c, t in zip(completions, tasks)]
    for a, b in zip(together, alone):
        assert (a.verdict, a.info.get("png_sha256")) == (b.verdict, b.info.get("png_sha256"))
        assert a.reward == pytest.approx(b.reward, abs=1e-5)


def test_negatives_are_derived_when_a_task_lists_none(svg_verifier):
    task = {"id": "blue", "prompt": "three blue circles"}
    s = svg_verifier.score(ORDINARY["circle"], task)
    assert list(s.info["negatives"]) == derive_negatives(task["prompt"])
    assert "three red circles" in s.info["negatives"] and "two blue circles" in s.info["negatives"]


def test_keep_png_returns_exactly_what_was_scored(tiny_clip):
    v = SvgVerifier(clip_weights=tiny_clip, keep_png=True, render_workers=1)
    try:
        s = v.score(ORDINARY["gradient"], HEX)
    finally:
        v.close()
    png = base64.b64decode(s.info["png"])
    assert png.startswith(b"\x89PNG") and hashlib.sha256(png).hexdigest() == s.info["png_sha256"]
    json.dumps(s.to_dict())  # and the score stays plain JSON


def test_resvg_backend_scores_like_cairosvg(tiny_clip, svg_verifier):
    v = SvgVerifier(clip_weights=tiny_clip, renderer="resvg", render_workers=1)
    try:
        a, b = v.score(ORDINARY["hexagon"], HEX), svg_verifier.score(ORDINARY["hexagon"], HEX)
    finally:
        v.close()
    assert a.info["renderer"] == "resvg" and a.reward == pytest.approx(b.reward, abs=0.02)


def test_text_is_scored_when_allowed(tiny_clip):
    v = SvgVerifier(clip_weights=tiny_clip, allow_text=True, render_workers=1)
    try:
        s = v.score(svg('<text x="5" y="50" font-size="12">a regular hexagon</text>'), HEX)
    finally:
        v.close()
    assert s.verdict is not Verdict.INVALID


def test_no_clip_weights_means_no_clip_load():
    v = SvgVerifier(clip_weight=0, contrastive_weight=0, render_workers=1)
    try:
        s = v.score(ORDINARY["circle"], {"id": "c", "prompt": "a red ring"})
    finally:
        v.close()
    assert v._clip is None and (s.verdict, s.reward) == (Verdict.PARTIAL, 1.0)


def test_unloadable_clip_is_an_error_once_not_per_item(tmp_path):
    from verifiers.svg.clip import register_tiny_model

    v = SvgVerifier(clip_model=register_tiny_model(), clip_weights=str(tmp_path / "absent.pt"), render_workers=1)
    try:
        first = v.score(ORDINARY["circle"], HEX)
        started = time.monotonic()
        again = v.score_batch([ORDINARY["hexagon"]] * 3, [HEX] * 3)
        assert time.monotonic() - started < 10
    finally:
        v.close()
    assert first.is_error and "CLIP unavailable" in first.reason and "absent.pt" in first.reason
    assert all(s.is_error for s in again)


def test_bad_tasks_are_errors_not_invalid(svg_verifier):
    assert svg_verifier.score(ORDINARY["circle"], {"id": "x"}).is_error
    assert svg_verifier.score(ORDINARY["circle"], {"prompt": "a", "negatives": "b"}).is_error
    assert svg_verifier.score(ORDINARY["circle"], {"prompt": "a", "checks": [{"check": "no_such_check"}]}).is_error


def test_user_tasks_from_jsonl(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"id": "owl", "prompt": "an owl", "negatives": ["a cat"]}\n\n{"prompt": "two red squares"}\n')
    tasks = load_tasks(path)
    assert [t["id"] for t in tasks] == ["owl", "line-3"]
    assert [t["id"] for t in SvgVerifier(tasks_file=str(path)).tasks("all")] == ["owl", "line-3"]
    path.write_text('{"id": "broken", "negatives": []}\n')
    with pytest.raises(TaskError, match="mine.jsonl:1: .*prompt"):
        load_tasks(path)


def test_config_refuses_nonsense():
    for bad in ({"pick": "middle"}, {"renderer": "inkscape"}, {"clip_weight": -1}):
        with pytest.raises(ValueError):
            SvgVerifier(**bad)


def test_reference_drawings_are_correct_on_their_own_tasks(svg_verifier):
    tasks = list(builtin_tasks())
    scores = svg_verifier.score_batch([t["reference"] for t in tasks], tasks)
    for task, s in zip(tasks, scores):
        if task["checks"]:
            assert s.verdict is Verdict.CORRECT and s.components["checks"] == 1.0, (
                task["id"],
                s.reason,
                s.info.get("checks"),
            )
        else:
            assert s.verdict in (Verdict.CORRECT, Verdict.INCORRECT) and "checks" not in s.components


def test_checks_separate_a_drawing_from_its_near_miss(svg_verifier):
    hexagon_task = builtin_tasks()[0]
    pentagon = svg('<polygon points="95,50 63.9,92.8 13.6,76.5 13.6,23.5 63.9,7.2" fill="#4a90d9"/>')
    good, near = svg_verifier.score(hexagon_task["reference"], hexagon_task), svg_verifier.score(pentagon, hexagon_task)
    assert (good.verdict, near.verdict) == (Verdict.CORRECT, Verdict.INCORRECT)
    assert good.components["check:regular_polygon"] == 1.0 > near.components["check:regular_polygon"]
    assert good.components["checks"] - near.components["checks"] >= 0.5
