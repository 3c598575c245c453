"""A suite: several verifiers evaluated with one model load, in one run folder.

Each verifier keeps a complete run of its own in `RUN/<key>/` (samples.jsonl, run.json, its
report and results.json), so each resumes on its own and `evalkit report RUN/<key>` works as for
any run. The suite adds what spans them: `RUN/suite.json` (the keys, to recognise a suite),
`RUN/results.json` (every verifier's results) and `RUN/report.html` (a section per verifier:
its metrics, verdicts and plots, linking to its sample browser)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from evalkit.jsonl import strict_dumps

from .report import _STYLE, build, metrics_html, verdicts_html

SUITE_FILE = "suite.json"


def is_suite(run_dir: Path) -> bool:
    return (run_dir / SUITE_FILE).is_file()


def suite_keys(run_dir: Path) -> list[str]:
    return list(json.loads((run_dir / SUITE_FILE).read_text())["keys"])


def mark_suite(run_dir: Path, keys: list[str]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / SUITE_FILE).write_text(json.dumps({"keys": keys}, indent=2) + "\n")


def rebuild(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Every verifier's report rebuilt from its samples, then the suite's page; the summaries by key."""
    summaries = {key: build(run_dir / key) for key in suite_keys(run_dir)}
    write_report(run_dir, summaries)
    return summaries


def write_results(run_dir: Path, shared: dict[str, Any], results: dict[str, dict[str, Any]]) -> None:
    """One results.json for the suite: what the verifiers share (versions, model, sampling,
    load time) once, then each verifier's own results."""
    body = {**shared, "verifiers": results}
    (run_dir / "results.json").write_text(strict_dumps(body, indent=2, default=str) + "\n")


def write_report(run_dir: Path, summaries: dict[str, dict[str, Any]]) -> None:
    e = html.escape
    sections = []
    for key, summary in summaries.items():
        plots = "".join(
            f'<img src="{e(key)}/{p}" alt="{e(key)} {p}" width="420">'
            for p in ("curves.png", "rates.png", "lengths.png")
            if (run_dir / key / p).is_file()
        )
        spec = summary["config"].get("verifier", {})
        sections.append(
            f"<section id='{e(key)}'><h2>{e(key)} <small>({e(str(spec.get('verifier', key)))})</small></h2>"
            f"{metrics_html(summary)}{verdicts_html(summary)}"
            f"<p>{plots}</p><p><a href='{e(key)}/report.html'>every sample of {e(key)}, with filters</a> · "
            f"config: <code>{e(json.dumps(spec.get('config', {})))}</code></p></section>"
        )
    first = next(iter(summaries.values()))["config"]
    title = e(f"{first.get('model', '?')} on {', '.join(summaries)}")
    contents = " · ".join(f"<a href='#{e(k)}'>{e(k)}</a>" for k in summaries)
    (run_dir / "report.html").write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{title}</h1><p>{contents}</p>{''.join(sections)}"
        "<p>Intervals: 95% percentile bootstrap for the mean reward, Wilson for accuracy (in each "
        "verifier's summary.json); standard errors over per-task means.</p></body></html>\n"
    )
