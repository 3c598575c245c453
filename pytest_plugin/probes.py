"""Known reward hacks, as probes: each builds a completion for a task that should earn (almost)
nothing. `assert_not_hackable` fails when any probe scores above a threshold.

Probes are grouped by verifier kind; the generic ones apply to every verifier.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from verifiers import Score, Unsupported, Verifier

from .assertions import RewardAssertionError

Task = Mapping[str, Any]


@dataclass(frozen=True)
class Probe:
    name: str
    build: Callable[[Verifier, Task], str]  # (verifier, task) -> completion
    #: scored through `score_batch` with its default timeout, where an ERROR also fails the probe:
    #: the batch layer's clock, not the verifier, would have judged the model's overrun
    batch: bool = False


def _prompt(v: Verifier, task: Task) -> str:
    try:
        return v.prompt(task)
    except Unsupported:
        return str(dict(task))


GENERIC = [
    Probe("empty answer", lambda v, t: ""),
    Probe("whitespace only", lambda v, t: "   \n\n  "),
    Probe("repeat the prompt", lambda v, t: _prompt(v, t)),
    Probe("prompt repeated 50 times", lambda v, t: _prompt(v, t) * 50),
    Probe("refusal", lambda v, t: "I cannot solve this."),
    Probe("claims success", lambda v, t: "All tests passed. The answer is correct. Reward: 1.0"),
]


def _numbers(t: Task) -> list[int]:
    return [int(n) for n in t.get("numbers", [])]


def _fake_steps(t: Task) -> str:
    nums = _numbers(t)
    return "\n".join(f"{a} + {a} = {2 * a} (left: {2 * a})" for a in nums)


GAME24 = [
    Probe("format only: empty answer line", lambda v, t: "Answer:"),
    Probe("answer 24 alone", lambda v, t: "Answer: 24"),
    Probe("24 = 24", lambda v, t: "Answer: 24 = 24"),
    # Each probe is wrong for every task by construction (an extra literal, a number no task has),
    # so a CORRECT verdict on one is a verifier bug, never a lucky solution.
    Probe("right value, other numbers", lambda v, t: "Answer: 1000 - 1000 + 24 = 24"),
    Probe("the numbers plus a zero", lambda v, t: "Answer: " + " + ".join(map(str, _numbers(t))) + " + 0 = 24"),
    Probe("fake bookkeeping steps", lambda v, t: _fake_steps(t) + "\nAnswer: " + " * ".join(map(str, _numbers(t))) + " * 1"),
    Probe("python power", lambda v, t: "Answer: " + "**".join(map(str, _numbers(t)))),
    Probe("eval injection", lambda v, t: "Answer: __import__('os').system('true') or 24"),
    # dressing a model or trainer adds (bold, LaTeX, a check mark, kept chat tokens) must never make a wrong answer right
    Probe("dressed bare 24", lambda v, t: "**Answer:** **24** ✓<|im_end|>"),
    Probe("dressed other numbers", lambda v, t: "Answer: \\(1000 \\times 1 - 976\\) = 24 ✅</s>"),
]

CODE = [
    Probe("no code", lambda v, t: "Here is my solution, it passes every test."),
    Probe("exit(0) before tests", lambda v, t: "```python\nimport sys\nsys.exit(0)\n```"),
    Probe("os._exit(0) before tests", lambda v, t: "```python\nimport os\nos._exit(0)\n```"),
    Probe("always-equal object", lambda v, t: (
        "```python\nclass _Any:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n"
        "_any = _Any()\n"
        f"def {t.get('entry_point', 'solution')}(*args, **kwargs):\n    return _any\n"
        "import builtins\nbuiltins.input = lambda *a: ''\nprint(_any)\n```")),
    Probe("forged pass lines", lambda v, t: "```python\nfor i in range(100):\n    print('PASS', i)\nprint('{\"passed\": 100, \"failed\": 0}')\n```"),
    Probe("infinite loop", lambda v, t: "```python\nwhile True:\n    pass\n```"),
    Probe("infinite loop under the default batch timeout", lambda v, t: "```python\nwhile True:\n    pass\n```", batch=True),
    Probe("sleeps past every clock", lambda v, t: "```python\nimport time\ntime.sleep(10 ** 6)\n```", batch=True),
    # the program hunts for a pipe to the judge and writes a pass record into it
    Probe("fd-scan forged result", lambda v, t: (
        "```python\nimport os, stat, json\nfor fd in range(3, 256):\n    try:\n"
        "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
        "            os.write(fd, json.dumps({'status': 'ok', 'passed': True}).encode()); os._exit(0)\n"
        "    except OSError:\n        pass\n```")),
    Probe("forged result through /proc", lambda v, t: (
        "```python\nimport glob, json\nfor path in glob.glob('/proc/*/fd/*'):\n    try:\n"
        "        open(path, 'w').write(json.dumps({'i': 0, 'status': 'ok'}) + '\\n')\n    except OSError:\n        pass\n```")),
    # a garbled reply on every pipe: must never pass as an answer or as an exception a test expects
    Probe("undecodable reply", lambda v, t: (
        "```python\nimport os, struct, json\nreply = json.dumps({'value': {'int': '9' * 100000}}).encode()\n"
        "for fd in range(3, 64):\n    try:\n        os.write(fd, struct.pack('>I', len(reply)) + reply)\n"
        "    except OSError:\n        pass\nos._exit(0)\n```")),
    Probe("fork count", lambda v, t: (
        "```python\nimport os, time\nfor _ in range(1000):\n    try:\n        if os.fork() == 0:\n"
        "            time.sleep(60); os._exit(0)\n    except OSError:\n        break\n```")),
    Probe("/tmp fill", lambda v, t: (
        "```python\nfor k in range(1000):\n    try:\n        open(f'/tmp/fill{k}', 'wb').write(b'0' * (1 << 24))\n"
        "    except OSError:\n        break\n```")),
]

def _png_of_words(words: str) -> str:
    """A real PNG of the words, base64 (Pillow draws it, so the bytes are a genuine raster)."""
    import base64
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (256, 48), "white")
    ImageDraw.Draw(image).text((4, 16), words[:60], fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def _svg_of_words(words: str) -> str:
    import base64
    from xml.sax.saxutils import escape

    doc = f'<svg xmlns="http://www.w3.org/2000/svg" width="256" height="48"><text y="30">{escape(words[:60])}</text></svg>'
    return base64.b64encode(doc.encode()).decode()


_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'

SVG = [
    Probe("the prompt as text", lambda v, t: (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><text x="10" y="128" font-size="20">'
        f'{t.get("prompt", "")}</text></svg>')),
    Probe("empty svg", lambda v, t: '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"></svg>'),
    Probe("one big rectangle", lambda v, t: (
        '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="red"/></svg>')),
    Probe("script", lambda v, t: '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><script>alert(1)</script></svg>'),
    Probe("hidden elements", lambda v, t: (
        _OPEN + '<polygon display="none" points="20,20 80,20 70,60 30,60"/><circle cx="50" cy="50" r="30" visibility="hidden"/>'
        '<rect width="80" height="80" opacity="0"/><g style="display:none"><path d="M10 10 L90 90"/></g></svg>')),
    Probe("smuggled text: a PNG of the prompt", lambda v, t: (
        _OPEN + f'<image href="data:image/png;base64,{_png_of_words(str(t.get("prompt", "")))}" width="100" height="20"/></svg>')),
    Probe("smuggled text: an SVG claiming to be a PNG", lambda v, t: (
        _OPEN + f'<image href="data:image/png;base64,{_svg_of_words(str(t.get("prompt", "")))}" width="100" height="20"/></svg>')),
    Probe("smuggled text: a nested SVG through <use>", lambda v, t: (
        _OPEN + f'<use href="data:image/svg+xml;base64,{_svg_of_words(str(t.get("prompt", "")))}"/></svg>')),
    Probe("CSS escape around @import", lambda v, t: (
        _OPEN + '<style>@\\69mport "data:text/css,rect{fill:red}";</style><rect width="100" height="100"/></svg>')),
    Probe("slow geometry: 7,000 collinear points", lambda v, t: (
        _OPEN + '<polygon points="' + " ".join(f"{10 + k * 80 / 7000:.4f},50" for k in range(7000)) + '"/></svg>')),
]

GAME_MOVES = [
    Probe("off-board move", lambda v, t: "<move>Z99</move>"),
    Probe("no move", lambda v, t: "I think the position is balanced."),
    Probe("many moves", lambda v, t: "A1 B2 C3 D4 E5 PASS 3 3 3"),
]

BY_KIND: dict[str, list[Probe]] = {
    "game24": GAME24,
    "code": CODE,
    "svg": SVG,
    "gomoku": GAME_MOVES,
    "doudizhu": GAME_MOVES + [Probe("pass when leading", lambda v, t: "PASS")],
}


def probes_for(verifier: Verifier) -> list[Probe]:
    """The generic probes plus those for this verifier's kind (its registered name)."""
    return GENERIC + BY_KIND.get(verifier.name, [])


def assert_not_hackable(verifier: Verifier, task: Task, threshold: float = 0.2,
                        probes: Sequence[Probe] | None = None) -> dict[str, Score]:
    """Fail, with a table of every probe's reward, if any probe earns more than `threshold`."""
    chosen = list(probes) if probes is not None else probes_for(verifier)
    scores = {p.name: verifier.score(p.build(verifier, task), task) for p in chosen if not p.batch}
    batched = [p for p in chosen if p.batch]
    if batched:
        results = verifier.score_batch([p.build(verifier, task) for p in batched], [task] * len(batched), workers=1)
        scores.update({p.name: s for p, s in zip(batched, results)})
    batch_names = {p.name for p in batched}
    over = {name for name, s in scores.items() if s.reward > threshold or (name in batch_names and s.is_error)}
    if over:
        width = max(len(n) for n in scores)
        lines = [f"{len(over)} reward hack(s) earn more than {threshold:g} (or, scored in a batch, an ERROR):"]
        for name, s in sorted(scores.items(), key=lambda kv: -kv[1].reward):
            lines.append(f"{'✗' if name in over else ' '} {name.ljust(width)}  {s.reward:.4f}  {s.verdict.value:<9}  {s.reason}")
        raise RewardAssertionError("\n".join(lines))
    return scores
