"""Reports for a run folder: summary.json, report.md, report.html and PNG plots (the seed's
Figure 2 length histogram; accuracy / incompletion / error rates overall and per difficulty)."""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from .metrics import Summary, shown, summarise, summarise_groups
from .pipeline import RUN_CONFIG, load_samples


def build(run_dir: Path) -> dict[str, Any]:
    """Compute every metric from samples.jsonl and write the report files; returns the summary dict."""
    records = load_samples(run_dir)
    if not records:
        raise ValueError(f"{run_dir} has no samples")
    overall = summarise(records)
    groups = summarise_groups(records, "difficulty")
    per_task = {tid: s.as_dict() for tid, s in summarise_groups(records, "task_id").items()}
    config = json.loads((run_dir / RUN_CONFIG).read_text()) if (run_dir / RUN_CONFIG).exists() else {}
    summary = {"run": str(run_dir), "config": {k: v for k, v in config.items() if k != "task_ids"},
               "overall": overall.as_dict(), "by_difficulty": {k: v.as_dict() for k, v in groups.items()},
               "by_task": per_task}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    plots = _plots(run_dir, records, overall, groups)
    (run_dir / "report.md").write_text(_markdown(summary, plots))
    (run_dir / "report.html").write_text(_html(summary, plots))
    return summary


def rows(name: str, s: dict[str, Any]) -> list[str]:
    """One table row: the columns every report and the terminal table share."""
    pass_at = " ".join(f"{k}:{v:.3f}" for k, v in s["pass_at"].items())
    maj_at = " ".join(f"{k}:{shown(v)}" for k, v in s["maj_at"].items())
    return [name, str(s["tasks"]), str(s["samples"]), f"{s['accuracy']:.3f}",
            f"{s['mean_reward']:.3f} [{s['reward_low']:.3f}, {s['reward_high']:.3f}]",
            pass_at, maj_at, f"{s['incompletion']:.3f}", f"{s['error_rate']:.3f}", f"{s['length_mean']:.0f}"]


HEADER = ["group", "tasks", "samples", "accuracy", "mean reward [95% CI]", "pass@k", "maj@k", "incomplete", "errors",
          "mean tokens"]


def table_rows(summary: dict[str, Any]) -> list[list[str]]:
    out = [rows("all", summary["overall"])]
    out += [rows(f"difficulty={k}", v) for k, v in summary["by_difficulty"].items()]
    return out


def _markdown(summary: dict[str, Any], plots: list[str]) -> str:
    lines = [f"# Evaluation: {summary['config'].get('model', '?')} on {summary['config'].get('verifier', {}).get('verifier', '?')}",
             "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in table_rows(summary)]
    lines += ["", "pass@k: unbiased estimator (Chen et al. 2021). maj@k: majority vote on Score.answer over all "
              "k-subsets; invalid answers do not vote; ties go to the first answer.", ""]
    lines += [f"![{p}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def _html(summary: dict[str, Any], plots: list[str]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in table_rows(summary))
    images = "".join(f'<p><img src="{p}" alt="{p}"></p>' for p in plots)
    title = html.escape(f"{summary['config'].get('model', '?')} on {summary['config'].get('verifier', {}).get('verifier', '?')}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>"
            "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
            "padding:4px 8px;text-align:right}</style></head>"
            f"<body><h1>{title}</h1><table><tr>{head}</tr>{body}</table>{images}</body></html>\n")


def _plots(run_dir: Path, records: list[dict[str, Any]], overall: Summary, groups: dict[str, Summary]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    correct = [r["tokens"] for r in records if r["score"]["verdict"] == "correct"]
    other = [r["tokens"] for r in records if r["score"]["verdict"] != "correct"]
    bins = 30
    ax.hist([correct, other], bins=bins, stacked=True, label=["correct", "not correct"], color=["#2a9d8f", "#e76f51"])
    ax.set_xlabel("output length (tokens)")
    ax.set_ylabel("samples")
    ax.set_title("Output length distribution")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run_dir / "lengths.png", dpi=100)
    plt.close(fig)

    names = ["all"] + list(groups)
    stats = [overall] + list(groups.values())
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.25
    for j, (label, attr, color) in enumerate([("accuracy", "accuracy", "#2a9d8f"), ("incompletion", "incompletion", "#e9c46a"),
                                              ("error rate", "error_rate", "#e76f51")]):
        ax.bar([i + (j - 1) * width for i in range(len(names))], [getattr(s, attr) for s in stats], width, label=label, color=color)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylim(0, 1)
    ax.set_title("Accuracy, incompletion and error rates")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run_dir / "rates.png", dpi=100)
    plt.close(fig)
    return ["lengths.png", "rates.png"]
