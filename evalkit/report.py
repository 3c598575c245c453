"""Reports for a run folder: summary.json, report.md, report.html and PNG plots (the seed's
Figure 2 length histogram; accuracy / incompletion / error rates overall and per difficulty;
pass@k and maj@k over k).

report.html is meant to be browsed: the metrics, the verdicts per bucket, the run's settings and
versions, and every sample (prompt, completion, verdict, reward, the Score's reason and
components) with filters by verdict, bucket and task. The filters live in the URL hash
(`report.html#verdict=invalid&bucket=hard`), so a filtered view can be linked."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from evalkit.jsonl import strict_dumps

from .metrics import Summary, group_order, shown, summarise, summarise_groups
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
    summary = {
        "run": str(run_dir),
        "config": {k: v for k, v in config.items() if k != "task_ids"},
        "overall": overall.as_dict(),
        "by_difficulty": {k: v.as_dict() for k, v in groups.items()},
        "by_task": per_task,
    }
    (run_dir / "summary.json").write_text(strict_dumps(summary, indent=2) + "\n")
    plots = _plots(run_dir, records, overall, groups)
    (run_dir / "report.md").write_text(_markdown(summary, plots))
    (run_dir / "report.html").write_text(_html(summary, plots, records))
    return summary


def rows(name: str, s: dict[str, Any]) -> list[str]:
    """One table row: the columns every report and the terminal table share."""
    pass_at = " ".join(f"{k}:{v:.3f}" for k, v in s["pass_at"].items())
    maj_at = " ".join(f"{k}:{shown(v)}" for k, v in s["maj_at"].items())
    return [
        name,
        str(s["tasks"]),
        str(s["samples"]),
        f"{s['accuracy']:.3f}",
        f"{s['mean_reward']:.3f} [{s['reward_low']:.3f}, {s['reward_high']:.3f}]",
        pass_at,
        maj_at,
        f"{s['incompletion']:.3f}",
        f"{s['error_rate']:.3f}",
        f"{s['length_mean']:.0f}",
    ]


HEADER = [
    "group",
    "tasks",
    "samples",
    "accuracy",
    "mean reward [95% CI]",
    "pass@k",
    "maj@k",
    "incomplete",
    "errors",
    "mean tokens",
]


def table_rows(summary: dict[str, Any]) -> list[list[str]]:
    out = [rows("all", summary["overall"])]
    out += [rows(f"difficulty={k}", v) for k, v in summary["by_difficulty"].items()]
    return out


def _markdown(summary: dict[str, Any], plots: list[str]) -> str:
    lines = [
        f"# Evaluation: {summary['config'].get('model', '?')} on {summary['config'].get('verifier', {}).get('verifier', '?')}",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(r) + " |" for r in table_rows(summary)]
    lines += [
        "",
        "pass@k: unbiased estimator (Chen et al. 2021). maj@k: majority vote on Score.answer over all "
        "k-subsets; invalid answers do not vote; ties go to the first answer.",
        "",
    ]
    lines += [f"![{p}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


VERDICTS = ("correct", "partial", "incorrect", "invalid", "timeout", "error")
MAX_SAMPLES_SHOWN = 5000

_STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;vertical-align:top}"
    "#samples td{text-align:left;max-width:600px}pre{white-space:pre-wrap;margin:0;font-size:12px}"
    ".correct{background:#e8f5e9}.invalid{background:#fff3e0}.error{background:#ffebee}"
    "label{margin-right:1em}details summary{cursor:pointer;color:#264653}"
)

_SCRIPT = """
const rows = JSON.parse(document.getElementById('sample-data').textContent);
const table = document.getElementById('samples');
for (const r of rows) {
  const tr = document.createElement('tr');
  tr.className = r.verdict; tr.dataset.verdict = r.verdict; tr.dataset.bucket = r.bucket; tr.dataset.task = r.task;
  const cells = [r.task, r.sample, r.bucket, r.verdict, r.reward.toFixed(3)];
  for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.appendChild(td); }
  const detail = document.createElement('td');
  const parts = [['reason', r.reason], ['components', r.components], ['completion', r.completion], ['prompt', r.prompt]];
  for (const [name, text] of parts) {
    const d = document.createElement('details'); if (name === 'reason') d.open = true;
    const s = document.createElement('summary'); s.textContent = name; d.appendChild(s);
    const pre = document.createElement('pre'); pre.textContent = text; d.appendChild(pre); detail.appendChild(d);
  }
  tr.appendChild(detail); table.appendChild(tr);
}
const filters = ['verdict', 'bucket', 'task'].map(k => document.getElementById('filter-' + k));
function apply() {
  const [v, b, t] = filters.map(f => f.value);
  let shown = 0;
  for (const tr of table.querySelectorAll('tr[data-verdict]')) {
    const keep = (!v || tr.dataset.verdict === v) && (!b || tr.dataset.bucket === b) && (!t || tr.dataset.task.includes(t));
    tr.hidden = !keep; shown += keep;
  }
  document.getElementById('shown').textContent = shown;
  const hash = new URLSearchParams();
  filters.forEach(f => { if (f.value) hash.set(f.id.slice(7), f.value); });
  history.replaceState(null, '', '#' + hash.toString());
}
const initial = new URLSearchParams(location.hash.slice(1));
filters.forEach(f => { f.value = initial.get(f.id.slice(7)) || ''; f.addEventListener('input', apply); });
apply();
"""


def metrics_html(summary: dict[str, Any]) -> str:
    """The metrics table (all samples, then each bucket) as HTML: the run's page and a suite's share it."""
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in table_rows(summary))
    return f"<table><tr>{head}</tr>{body}</table>"


def verdicts_html(summary: dict[str, Any]) -> str:
    """Verdict counts per group as an HTML table."""
    groups = {"all": summary["overall"], **summary["by_difficulty"]}
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td>" + "".join(f"<td>{g['verdicts'].get(v, 0)}</td>" for v in VERDICTS) + "</tr>"
        for name, g in groups.items()
        if "verdicts" in g
    )
    return f"<table><tr><th>group</th>{''.join(f'<th>{v}</th>' for v in VERDICTS)}</tr>{rows}</table>"


def _options(values: Any) -> str:
    return "<option value=''>all</option>" + "".join(f"<option>{html.escape(v)}</option>" for v in values)


def _html(summary: dict[str, Any], plots: list[str], records: list[dict[str, Any]]) -> str:
    from .runinfo import run_info

    e = html.escape
    images = "".join(f'<p><img src="{p}" alt="{p}"></p>' for p in plots)
    config = summary["config"]
    title = e(f"{config.get('model', '?')} on {config.get('verifier', {}).get('verifier', '?')}")
    settings = json.dumps({"run": summary["run"], **config, "made_with": run_info()}, indent=2, default=str)
    samples = [
        {
            "task": str(r["task_id"]),
            "sample": r["sample"],
            "bucket": str(r.get("difficulty")),
            "verdict": r["score"]["verdict"],
            "reward": float(r["score"]["reward"]),
            "reason": r["score"].get("reason", ""),
            "components": json.dumps(r["score"].get("components", {})),
            "completion": r.get("completion", ""),
            "prompt": r.get("prompt", ""),
        }
        for r in records[:MAX_SAMPLES_SHOWN]
    ]
    data = json.dumps(samples, ensure_ascii=False).replace("</", "<\\/")
    buckets = sorted({s["bucket"] for s in samples}, key=group_order)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{title}</h1>{metrics_html(summary)}"
        "<p>Intervals: 95% percentile bootstrap for the mean reward (it stays within the reward's range), "
        "Wilson for accuracy (in summary.json); standard errors over per-task means.</p>"
        f"<h2>Verdicts per bucket</h2>{verdicts_html(summary)}{images}"
        f"<h2>Samples (<span id='shown'>{len(samples)}</span> shown)</h2><p>"
        f"<label>verdict <select id='filter-verdict'>{_options(VERDICTS)}</select></label>"
        f"<label>bucket <select id='filter-bucket'>{_options(buckets)}</select></label>"
        "<label>task <input id='filter-task' placeholder='id contains'></label></p>"
        "<table id='samples'><tr><th>task</th><th>sample</th><th>bucket</th><th>verdict</th><th>reward</th>"
        "<th>why</th></tr></table>"
        f"<h2>Settings and versions</h2><pre>{e(settings)}</pre>"
        f"<script type='application/json' id='sample-data'>{data}</script><script>{_SCRIPT}</script></body></html>\n"
    )


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
    for j, (label, attr, color) in enumerate(
        [
            ("accuracy", "accuracy", "#2a9d8f"),
            ("incompletion", "incompletion", "#e9c46a"),
            ("error rate", "error_rate", "#e76f51"),
        ]
    ):
        ax.bar(
            [i + (j - 1) * width for i in range(len(names))],
            [getattr(s, attr) for s in stats],
            width,
            label=label,
            color=color,
        )
    ax.set_xticks(range(len(names)), names)
    ax.set_ylim(0, 1)
    ax.set_title("Accuracy, incompletion and error rates")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run_dir / "rates.png", dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    ks = sorted(overall.pass_at)
    ax.plot(ks, [overall.pass_at[k] for k in ks], "o-", label="pass@k", color="#264653")
    if all(overall.maj_at.get(k) is not None for k in ks):
        ax.plot(ks, [overall.maj_at[k] for k in ks], "s--", label="maj@k", color="#e76f51")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_ylim(0, 1)
    ax.set_xlabel("k (samples per task)")
    ax.set_title("pass@k and maj@k")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run_dir / "curves.png", dpi=100)
    plt.close(fig)
    return ["lengths.png", "rates.png", "curves.png"]
