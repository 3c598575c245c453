"""Programmatic checks: the hand-written references and other correct drawings pass, near misses fail."""

import inspect
import math

import pytest
from svg_docs import HOW, svg

from pytest_plugin.required_parts import require_module
from verifiers import TaskError
from verifiers.svg.checks import CHECKS, run_checks
from verifiers.svg.drawing import drawing_from_svg
from verifiers.svg.tasks import builtin_tasks


@pytest.fixture(autouse=True, scope="module")
def _cairo():
    require_module("cairosvg", HOW)
    require_module("scipy", HOW)


def pts(points) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def polar(r: float, degrees: float, cx: float = 50, cy: float = 50) -> tuple[float, float]:
    return cx + r * math.cos(math.radians(degrees)), cy + r * math.sin(math.radians(degrees))


def star_points(n: int, outer: float = 45, inner: float = 18) -> str:
    return pts(polar(outer if k % 2 == 0 else inner, -90 + k * 180 / n) for k in range(2 * n))


def polygon(n: int, r: float = 45, sx: float = 1.0) -> str:
    return pts((50 + (x - 50) * sx, y) for x, y in (polar(r, 360 * k / n) for k in range(n)))


def wifi(radii, dot=True) -> str:
    body = '<circle cx="50" cy="82" r="5"/>' if dot else ""
    for r in radii:
        (x1, y1), (x2, y2) = polar(r, -135, 50, 82), polar(r, -45, 50, 82)
        body += f'<path d="M{x1:.1f} {y1:.1f} A{r} {r} 0 0 1 {x2:.1f} {y2:.1f}" fill="none" stroke="#222" stroke-width="7"/>'
    return svg(body)


def battery(share: float, colour: str = "#e00") -> str:
    return svg(
        '<rect x="10" y="30" width="70" height="40" fill="none" stroke="#000" stroke-width="4"/>'
        f'<rect x="80" y="42" width="8" height="16"/><rect x="12" y="32" width="{66 * share:.1f}" height="36" fill="{colour}"/>'
    )


def rating(filled: int, total: int = 5) -> str:
    body = ""
    for i in range(total):
        paint = 'fill="gold"' if i < filled else 'fill="none" stroke="gold" stroke-width="2"'
        body += f'<polygon points="{pts(polar(17 if k % 2 == 0 else 7, -90 + k * 36, 20 + 40 * i, 21) for k in range(10))}" {paint}/>'
    return svg(body, 'viewBox="0 0 200 42"')


def ground(lengths) -> str:
    lines = "".join(
        f'<line x1="{50 - n / 2}" y1="{50 + 11 * i}" x2="{50 + n / 2}" y2="{50 + 11 * i}"/>'
        for i, n in enumerate(lengths)
    )
    return svg(f'<g stroke="#000" stroke-width="3"><line x1="50" y1="10" x2="50" y2="50"/>{lines}</g>')


def clock(hands: int, ticks: int = 12) -> str:
    body = '<circle cx="50" cy="50" r="45" fill="none" stroke="#000" stroke-width="3"/>'
    for k in range(ticks):
        (x1, y1), (x2, y2) = polar(37, 360 * k / ticks), polar(42, 360 * k / ticks)
        body += f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#000" stroke-width="2"/>'
    for length, angle in [(22, -90), (32, 20)][:hands]:
        x, y = polar(length, angle)
        body += f'<line x1="50" y1="50" x2="{x:.1f}" y2="{y:.1f}" stroke="#000" stroke-width="3"/>'
    return svg(body)


def city(sky: str) -> str:
    body = f'<rect width="100" height="100" fill="{sky}"/>'
    for x, h in [(5, 50), (30, 70), (60, 45)]:
        body += f'<rect x="{x}" y="{100 - h}" width="20" height="{h}" fill="#333"/>'
        body += "".join(
            f'<rect x="{x + 4}" y="{y}" width="4" height="4" fill="#ffd54a"/>' for y in range(100 - h + 5, 95, 10)
        )
    return svg(body)


CROSS = (
    '<rect x="42" y="8" width="16" height="84" fill="brown"/><rect x="20" y="26" width="60" height="16" fill="brown"/>'
)
AXES = '<line x1="10" y1="90" x2="95" y2="90" stroke="#000"/><line x1="10" y1="90" x2="10" y2="8" stroke="#000"/>'

NO_ENTRY = [  # a red ring with one diagonal bar, either way
    svg(
        '<circle cx="50" cy="50" r="40" fill="none" stroke="red" stroke-width="10"/><line x1="22" y1="22" x2="78" y2="78" stroke="red" stroke-width="10"/>'
    ),
    svg(
        '<circle cx="50" cy="50" r="40" fill="none" stroke="#c00" stroke-width="8"/><line x1="78" y1="22" x2="22" y2="78" stroke="#c00" stroke-width="8"/>'
    ),
]
NOT_NO_ENTRY = [  # the ring alone, a cross instead of a bar, a blue sign
    svg('<circle cx="50" cy="50" r="40" fill="none" stroke="red" stroke-width="10"/>'),
    svg(
        '<circle cx="50" cy="50" r="40" fill="none" stroke="red" stroke-width="10"/><g stroke="red" stroke-width="10">'
        '<line x1="22" y1="22" x2="78" y2="78"/><line x1="78" y1="22" x2="22" y2="78"/></g>'
    ),
    svg(
        '<circle cx="50" cy="50" r="40" fill="none" stroke="blue" stroke-width="10"/><line x1="22" y1="22" x2="78" y2="78" stroke="blue" stroke-width="10"/>'
    ),
]

CASES = {  # check spec -> (drawings that pass, near misses that fail)
    ("regular_polygon", 6): (
        [
            svg(f'<polygon points="{polygon(6)}" fill="teal"/>'),
            svg(
                '<g transform="translate(50 50) rotate(17) scale(0.8)"><path d="M45 0 L22.5 39 L-22.5 39 L-45 0 L-22.5 -39 L22.5 -39 Z" '
                'fill="none" stroke="navy" stroke-width="4"/></g>'
            ),
        ],
        [
            svg(f'<polygon points="{polygon(5)}" fill="teal"/>'),
            svg(f'<polygon points="{polygon(6, 30, 1.5)}" fill="teal"/>'),
            svg('<circle cx="50" cy="50" r="40"/>'),
        ],
    ),
    ("trapezoid",): (
        [
            svg('<polygon points="28,25 72,25 95,75 5,75"/>'),
            svg('<path d="M10 80 l20 -50 h30 l30 50 z" transform="rotate(30 50 50)"/>'),
        ],
        [
            svg('<rect x="10" y="20" width="80" height="50"/>'),
            svg('<polygon points="10,75 30,25 90,25 70,75"/>'),
            svg('<polygon points="10,60 45,10 90,45 30,90"/>'),
        ],
    ),
    ("dashed_square",): (
        [
            svg('<rect x="15" y="15" width="70" height="70" fill="none" stroke="#000" stroke-dasharray="8 5"/>'),
            svg(
                '<g style="stroke:#333;stroke-dasharray:4,2" fill="none"><polygon points="50,5 95,50 50,95 5,50"/></g>'
            ),
        ],
        [
            svg('<rect x="15" y="15" width="70" height="70" fill="none" stroke="#000"/>'),
            svg('<rect x="10" y="30" width="80" height="40" fill="none" stroke="#000" stroke-dasharray="8 5"/>'),
            svg('<rect x="15" y="15" width="70" height="70" fill="none" stroke="#000" stroke-dasharray="none"/>'),
        ],
    ),
    ("ellipse", "light green"): (
        [
            svg('<ellipse cx="50" cy="50" rx="42" ry="26" fill="#90ee90"/>'),
            svg(
                '<circle cx="0" cy="0" r="20" fill="lightgreen" transform="translate(50 50) rotate(40) scale(2 1.2)"/>'
            ),
        ],
        [
            svg('<ellipse cx="50" cy="50" rx="42" ry="26" fill="darkgreen"/>'),
            svg('<circle cx="50" cy="50" r="40" fill="#90ee90"/>'),
            svg('<rect x="10" y="25" width="80" height="50" fill="#90ee90"/>'),
            svg('<ellipse cx="50" cy="50" rx="42" ry="26" fill="lightblue"/>'),
        ],
    ),
    ("cross",): (
        [svg(CROSS), svg('<path d="M40 10 H60 V40 H90 V60 H60 V90 H40 V60 H10 V40 H40 Z" fill="#222"/>')],
        [
            svg('<rect x="20" y="20" width="60" height="60"/>'),
            svg('<circle cx="50" cy="50" r="40"/>'),
            svg(
                '<g stroke="#000" stroke-width="14"><line x1="10" y1="10" x2="90" y2="90"/><line x1="90" y1="10" x2="10" y2="90"/></g>'
            ),
        ],
    ),
    ("star", 5): (
        [
            svg(f'<polygon points="{star_points(5)}" fill="gold"/>'),
            svg(
                f'<polygon points="{pts(polar(45, -90 + 144 * k) for k in range(5))}" fill="red" fill-rule="nonzero"/>'
            ),
        ],
        [
            svg(f'<polygon points="{polygon(5)}" fill="gold"/>'),
            svg(f'<polygon points="{star_points(6)}" fill="gold"/>'),
            svg('<circle cx="50" cy="50" r="40"/>'),
        ],
    ),
    ("star", 6, "purple"): (
        [
            svg(f'<polygon points="{star_points(6, 45, 26)}" fill="purple"/>'),
            svg(
                f'<polygon points="{polygon(3)}" fill="#9b30ff" transform="rotate(-90 50 50)"/>'
                f'<polygon points="{polygon(3)}" fill="#9b30ff" transform="rotate(90 50 50)"/>'
            ),
        ],
        [
            svg(f'<polygon points="{star_points(6, 45, 26)}" fill="orange"/>'),
            svg(f'<polygon points="{star_points(5)}" fill="purple"/>'),
            svg(f'<polygon points="{polygon(6)}" fill="purple"/>'),
        ],
    ),
    ("gear", 6): (
        [
            svg(
                f'<polygon points="{pts(polar(45 if k % 4 in (1, 2) else 35, 9 * k + (3 if k % 4 in (1, 3) else 0)) for k in range(40))}" fill="#666"/>'
                '<circle cx="50" cy="50" r="10" fill="#fff"/>'
            )
        ],
        [svg('<circle cx="50" cy="50" r="40" fill="#666"/>'), svg(f'<polygon points="{star_points(5)}" fill="#666"/>')],
    ),
    ("no_entry_sign",): (NO_ENTRY, NOT_NO_ENTRY),
    ("star_rating", 3, 5): ([rating(3)], [rating(5), rating(2), rating(3, total=4)]),
    ("signal_bars", 3): (
        [
            wifi([20, 36, 52]),
            wifi([20, 36, 52], dot=False),
            svg(
                "".join(
                    f'<rect x="{15 + 25 * i}" y="{80 - 20 * (i + 1)}" width="15" height="{20 * (i + 1)}"/>'
                    for i in range(3)
                )
            ),
        ],
        [
            wifi([16, 29, 42, 55]),
            svg("".join(f'<rect x="{15 + 25 * i}" y="40" width="15" height="40"/>' for i in range(3))),
        ],
    ),
    ("signal_bars", 4): ([wifi([16, 29, 42, 55])], [wifi([20, 36, 52])]),
    ("wifi", 3): (
        [wifi([20, 36, 52]), wifi([20, 36, 52], dot=False)],
        [
            svg(
                "".join(
                    f'<rect x="{15 + 25 * i}" y="{80 - 20 * (i + 1)}" width="15" height="{20 * (i + 1)}"/>'
                    for i in range(3)
                )
            ),
            svg("".join(f'<circle cx="{20 + 28 * i}" cy="{76 - 4 * i}" r="{4 + 4 * i}"/>' for i in range(3))),
            wifi([16, 29, 42, 55]),
        ],
    ),
    ("battery", 0.2, "red"): (
        [battery(0.2), battery(0.15)],
        [battery(0.8), battery(0.2, "green"), battery(0.0), battery(0.45)],
    ),
    ("ground_symbol",): (
        [ground([52, 34, 16]), ground([60, 45, 30, 15])],
        [ground([40, 40, 40]), ground([16, 34, 52])],
    ),
    ("line_chart", 5): (
        [
            svg(AXES + '<polyline points="15,70 27,61 39,66 51,42 63,47 75,30" fill="none" stroke="red"/>'),
            svg(
                '<path d="M10 8 V90 H95" fill="none" stroke="#000"/><path d="M15 70 L30 60 L45 65 L60 40 L75 45 L90 30" fill="none" stroke="blue"/>'
            ),
        ],
        [
            svg(
                AXES
                + "".join(
                    f'<rect x="{15 + 15 * i}" y="{60 - 5 * i}" width="10" height="{30 + 5 * i}"/>' for i in range(5)
                )
            ),
            svg(AXES + '<polyline points="15,70 50,40 90,30" fill="none" stroke="red"/>'),
            svg('<polyline points="15,70 27,61 39,66 51,42 63,47 75,30" fill="none" stroke="red"/>'),
        ],
    ),
    ("clock_face",): (
        [clock(2), clock(2, ticks=4)],
        [svg('<circle cx="50" cy="50" r="45" fill="none" stroke="#000"/>'), clock(1)],
    ),
    ("night_scene",): (
        [city("#0b1030"), city("black")],
        [city("#87ceeb"), svg('<rect width="100" height="100" fill="#0b1030"/>')],
    ),
}


def _spec(key: tuple) -> dict:
    name, *args = key
    params = list(inspect.signature(CHECKS[name]).parameters)[1 : 1 + len(args)]
    return {"check": name, **dict(zip(params, args))}


@pytest.mark.parametrize("key", list(CASES), ids=lambda k: "-".join(map(str, k)))
def test_correct_drawings_pass_and_near_misses_fail(key):
    good, near_misses = CASES[key]
    spec = _spec(key)
    for i, doc in enumerate(good):
        (result,) = run_checks(drawing_from_svg(doc), [spec]).values()
        assert result.passed and result.value == 1.0, (f"correct drawing {i}", result)
    for i, doc in enumerate(near_misses):
        (result,) = run_checks(drawing_from_svg(doc), [spec]).values()
        assert not result.passed and result.value < 1.0, (f"near miss {i}", result)


def test_every_check_has_cases_and_at_least_ten_seed_prompts_have_checks():
    assert {k[0] for k in CASES} == set(CHECKS)
    assert sum(bool(t["checks"]) for t in builtin_tasks()) >= 10


@pytest.mark.parametrize("task", [t for t in builtin_tasks() if t["checks"]], ids=lambda t: t["id"])
def test_each_reference_drawing_passes_its_task_checks(task):
    results = run_checks(drawing_from_svg(task["reference"]), task["checks"])
    assert all(r.passed for r in results.values()), results


@pytest.mark.parametrize(
    "doc", [svg(""), svg('<rect width="100" height="100"/>'), svg('<circle r="0.5" cx="99" cy="99"/>')]
)
def test_odd_drawings_fail_every_check_without_raising(doc):
    drawing = drawing_from_svg(doc)
    for key in CASES:
        (result,) = run_checks(drawing, [_spec(key)]).values()
        assert not result.passed and 0.0 <= result.value < 1.0
        assert "could not measure" not in result.detail, (key, result)


def test_results_are_deterministic_and_repeated_checks_are_numbered():
    drawing = drawing_from_svg(builtin_tasks()[0]["reference"])
    specs = [{"check": "regular_polygon", "sides": 6}, {"check": "regular_polygon", "sides": 5}]
    first, again = run_checks(drawing, specs), run_checks(drawing, specs)
    assert list(first) == ["regular_polygon", "regular_polygon#2"] and first == again
    assert first["regular_polygon"].passed and not first["regular_polygon#2"].passed


@pytest.mark.parametrize(
    "spec", [{"check": "hexagonality"}, {"check": "star", "spikes": 5}, {"check": "ellipse", "color": "mauve"}]
)
def test_a_bad_check_spec_is_the_tasks_fault(spec):
    with pytest.raises(TaskError):
        run_checks(drawing_from_svg(svg('<ellipse cx="50" cy="50" rx="40" ry="20" fill="pink"/>')), [spec])
