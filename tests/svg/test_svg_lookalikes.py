"""Each of the seed's checked prompts, judged by its own checks: at least three different correct
drawings pass and at least three look-alikes fail, including every look-alike that fooled the
checks before (a polygon for a gear, petals for a star, dots for wifi, a black square for a city)."""

import pytest
from svg_docs import HOW, svg
from test_svg_checks import (
    AXES,
    CROSS,
    NO_ENTRY,
    NOT_NO_ENTRY,
    battery,
    city,
    clock,
    ground,
    polar,
    polygon,
    pts,
    rating,
    star_points,
    wifi,
)

from pytest_plugin.required_parts import require_module
from verifiers.svg.checks import run_checks
from verifiers.svg.drawing import drawing_from_svg
from verifiers.svg.tasks import builtin_tasks

TASKS = {t["id"]: t for t in builtin_tasks() if t.get("checks")}


def flower(n, colour="gold", petal=16, reach=25):
    at = [polar(reach, -90 + 360 * k / n) for k in range(n)]
    return svg(
        "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{petal}" fill="{colour}"/>' for x, y in at)
        + f'<circle cx="50" cy="50" r="{reach - 6}" fill="{colour}"/>'
    )


def spokes(n, colour="black"):
    return svg(
        f'<g stroke="{colour}" stroke-width="4">'
        + "".join(
            f'<line x1="50" y1="50" x2="{polar(45, -90 + 360 * k / n)[0]:.1f}" y2="{polar(45, -90 + 360 * k / n)[1]:.1f}"/>'
            for k in range(n)
        )
        + "</g>"
    )


def gear(teeth, outer=45, inner=36, hole=10, colour="#666"):
    step = 360 / teeth
    ring = []
    for k in range(teeth):
        a = k * step
        ring += [
            polar(inner, a),
            polar(outer, a + 0.2 * step),
            polar(outer, a + 0.5 * step),
            polar(inner, a + 0.7 * step),
        ]
    return svg(f'<polygon points="{pts(ring)}" fill="{colour}"/><circle cx="50" cy="50" r="{hole}" fill="#fff"/>')


def circles_rating(filled, total=5):
    return svg(
        "".join(
            f'<circle cx="{20 + 40 * i}" cy="21" r="15" '
            + ('fill="gold"/>' if i < filled else 'fill="none" stroke="gold" stroke-width="2"/>')
            for i in range(total)
        ),
        'viewBox="0 0 200 42"',
    )


def dots(sizes, shape="circle"):
    body = ""
    for i, r in enumerate(sizes):
        x = 20 + 28 * i
        body += (
            f'<circle cx="{x}" cy="{80 - r}" r="{r}"/>'
            if shape == "circle"
            else f'<rect x="{x - r}" y="{80 - 2 * r}" width="{2 * r}" height="{2 * r}"/>'
        )
    return svg(body)


def bars(n):
    return svg(
        "".join(
            f'<rect x="{10 + 22 * i}" y="{85 - 18 * (i + 1)}" width="14" height="{18 * (i + 1)}"/>' for i in range(n)
        )
    )


def wifi_arcs(radii, cx=50, cy=85, colour="#1565c0", width=7, dot=True, start=-140, end=-40):
    body = f'<circle cx="{cx}" cy="{cy}" r="5" fill="{colour}"/>' if dot else ""
    for r in radii:
        (x1, y1), (x2, y2) = polar(r, start, cx, cy), polar(r, end, cx, cy)
        body += f'<path d="M{x1:.1f} {y1:.1f} A{r} {r} 0 0 1 {x2:.1f} {y2:.1f}" fill="none" stroke="{colour}" stroke-width="{width}" stroke-linecap="round"/>'
    return svg(body)


def skyline(sky, buildings, windows=True, colour="#2b2b2b"):
    body = f'<rect width="100" height="100" fill="{sky}"/>'
    for x, w, h in buildings:
        body += f'<rect x="{x}" y="{100 - h}" width="{w}" height="{h}" fill="{colour}"/>'
        if windows:
            body += "".join(
                f'<rect x="{x + 3}" y="{y}" width="3" height="3" fill="#ffe066"/>' for y in range(100 - h + 4, 96, 9)
            )
    return svg(body)


def hexagon(rotate=0, scale=1.0, colour="teal", stroke=False):
    paint = f'fill="none" stroke="{colour}" stroke-width="4"' if stroke else f'fill="{colour}"'
    return svg(
        f'<g transform="rotate({rotate} 50 50) translate(50 50) scale({scale}) translate(-50 -50)"><polygon points="{polygon(6)}" {paint}/></g>'
    )


def star(n, outer=45, inner=18, colour="gold", stroke=False, rotate=0):
    paint = f'fill="none" stroke="{colour}" stroke-width="3"' if stroke else f'fill="{colour}"'
    return svg(f'<polygon points="{star_points(n, outer, inner)}" {paint} transform="rotate({rotate} 50 50)"/>')


def stars_row(filled, total=5, points=5):
    body = ""
    for i in range(total):
        paint = 'fill="#f5b301"' if i < filled else 'fill="none" stroke="#f5b301" stroke-width="2"'
        body += f'<polygon points="{pts(polar(17 if k % 2 == 0 else 8, -90 + k * 180 / points, 20 + 40 * i, 21) for k in range(2 * points))}" {paint}/>'
    return svg(body, 'viewBox="0 0 200 42"')


LOOKALIKES = {  # prompt -> (correct drawings, look-alikes)
    "regular_hexagon": (
        [hexagon(), hexagon(17, 0.8), hexagon(0, 0.9, "navy", stroke=True)],
        [
            svg(f'<polygon points="{polygon(5)}" fill="teal"/>'),
            svg(f'<polygon points="{polygon(8)}" fill="teal"/>'),
            svg(f'<polygon points="{polygon(6, 30, 1.5)}" fill="teal"/>'),
            svg('<circle cx="50" cy="50" r="40"/>'),
        ],
    ),
    "trapezoid": (
        [
            svg('<polygon points="28,25 72,25 95,75 5,75"/>'),
            svg('<path d="M10 80 l20 -50 h30 l30 50 z" transform="rotate(30 50 50)"/>'),
            svg('<polygon points="20,20 80,20 70,60 30,60" fill="none" stroke="#333" stroke-width="3"/>'),
        ],
        [
            svg('<rect x="10" y="20" width="80" height="50"/>'),
            svg('<polygon points="10,75 30,25 90,25 70,75"/>'),
            svg(
                '<circle cx="50" cy="50" r="30" fill="red"/><polygon display="none" points="20,20 80,20 70,60 30,60"/>'
            ),
        ],
    ),
    "dashed_square": (
        [
            svg('<rect x="15" y="15" width="70" height="70" fill="none" stroke="#000" stroke-dasharray="8 5"/>'),
            svg(
                '<g style="stroke:#333;stroke-dasharray:4,2" fill="none"><polygon points="50,5 95,50 50,95 5,50"/></g>'
            ),
            svg(
                '<rect x="20" y="20" width="60" height="60" fill="#eef" stroke="navy" stroke-width="4" stroke-dasharray="10 6"/>'
            ),
        ],
        [
            svg('<rect x="15" y="15" width="70" height="70" fill="none" stroke="#000"/>'),
            svg('<rect x="10" y="30" width="80" height="40" fill="none" stroke="#000" stroke-dasharray="8 5"/>'),
            svg(
                '<circle cx="50" cy="50" r="30" fill="red"/><rect x="15" y="15" width="70" height="70" fill="none" '
                'stroke="#000" stroke-dasharray="8 5" visibility="hidden"/>'
            ),
        ],
    ),
    "light_green_ellipse": (
        [
            svg('<ellipse cx="50" cy="50" rx="42" ry="26" fill="#90ee90"/>'),
            svg(
                '<circle cx="0" cy="0" r="20" fill="lightgreen" transform="translate(50 50) rotate(40) scale(2 1.2)"/>'
            ),
            svg('<ellipse cx="50" cy="50" rx="25" ry="40" fill="#a8e6a1"/>'),
        ],
        [
            svg('<ellipse cx="50" cy="50" rx="42" ry="26" fill="darkgreen"/>'),
            svg('<circle cx="50" cy="50" r="40" fill="#90ee90"/>'),
            svg('<rect x="10" y="25" width="80" height="50" fill="#90ee90"/>'),
        ],
    ),
    "cross": (
        [
            svg(CROSS),
            svg('<path d="M40 10 H60 V40 H90 V60 H60 V90 H40 V60 H10 V40 H40 Z" fill="#222"/>'),
            svg(
                '<rect x="44" y="10" width="12" height="80" fill="navy"/><rect x="15" y="30" width="70" height="12" fill="navy"/>'
            ),
        ],
        [
            svg('<rect x="20" y="20" width="60" height="60"/>'),
            svg('<circle cx="50" cy="50" r="40"/>'),
            svg(
                '<g stroke="#000" stroke-width="14"><line x1="10" y1="10" x2="90" y2="90"/><line x1="90" y1="10" x2="10" y2="90"/></g>'
            ),
        ],
    ),
    "ground_symbol": (
        [ground([52, 34, 16]), ground([60, 45, 30, 15]), ground([70, 46, 22])],
        [
            ground([40, 40, 40]),
            ground([16, 34, 52]),
            svg('<g stroke="#000" stroke-width="3"><line x1="50" y1="10" x2="50" y2="50"/></g>'),
        ],
    ),
    "five_pointed_star": (
        [star(5), star(5, 45, 28, "red", rotate=20), star(5, colour="black", stroke=True)],
        [
            flower(5),
            spokes(5),
            svg(f'<polygon points="{polygon(5)}" fill="gold"/>'),
            star(6),
            svg('<circle cx="50" cy="50" r="40"/>'),
        ],
    ),
    "purple_hexagram": (
        [
            star(6, 45, 26, "purple"),
            svg(
                f'<polygon points="{polygon(3)}" fill="#9b30ff" transform="rotate(-90 50 50)"/>'
                f'<polygon points="{polygon(3)}" fill="#9b30ff" transform="rotate(90 50 50)"/>'
            ),
            star(6, 44, 25, "#7b1fa2", rotate=15),
        ],
        [
            flower(6, "purple"),
            star(6, 45, 26, "orange"),
            star(5, colour="purple"),
            svg(f'<polygon points="{polygon(6)}" fill="purple"/>'),
        ],
    ),
    "gear": (
        [gear(10), gear(12, 44, 37, 12, "#455a64"), gear(8, 45, 33, 8, "#8d6e63")],
        [
            hexagon(colour="#666"),
            svg(f'<polygon points="{polygon(8)}" fill="#666"/>'),
            svg('<circle cx="50" cy="50" r="40" fill="#666"/>'),
            star(5, colour="#666"),
        ],
    ),
    "no_entry_sign": (
        [
            *NO_ENTRY,
            svg(
                '<circle cx="50" cy="50" r="42" fill="white" stroke="#e53935" stroke-width="9"/><line x1="20" y1="20" x2="80" y2="80" stroke="#e53935" stroke-width="9"/>'
            ),
        ],
        NOT_NO_ENTRY,
    ),
    "star_rating_3_of_5": (
        [rating(3), stars_row(3), stars_row(3).replace("#f5b301", "#e53935")],
        [circles_rating(3), rating(5), rating(2), stars_row(3, points=6)],
    ),
    "wifi_3_bars": (
        [wifi([20, 36, 52]), wifi_arcs([18, 32, 46]), wifi_arcs([20, 35, 50], dot=False, colour="#333", width=6)],
        [dots([4, 8, 12]), dots([4, 8, 12], "square"), bars(3), wifi_arcs([16, 29, 42, 55])],
    ),
    "battery_20_red": (
        [battery(0.2), battery(0.15), battery(0.25, "#d32f2f")],
        [battery(0.8), battery(0.2, "green"), battery(0.0), battery(0.45)],
    ),
    "wifi_4_bars": (
        [
            wifi([16, 29, 42, 55]),
            wifi_arcs([14, 26, 38, 50]),
            wifi_arcs([15, 27, 39, 51], dot=False, colour="#222", width=5),
        ],
        [dots([3, 6, 9, 12], "square"), dots([3, 6, 9, 12]), bars(4), wifi_arcs([20, 36, 52])],
    ),
    "temperature_line_chart": (
        [
            svg(AXES + '<polyline points="15,70 27,61 39,66 51,42 63,47 75,30" fill="none" stroke="red"/>'),
            svg(
                '<path d="M10 8 V90 H95" fill="none" stroke="#000"/><path d="M15 70 L30 60 L45 65 L60 40 L75 45 L90 30" fill="none" stroke="blue"/>'
            ),
            svg(
                AXES
                + '<polyline points="15,40 30,45 45,30 60,35 75,20 90,25" fill="none" stroke="#e65100" stroke-width="3"/>'
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
            svg(
                AXES
                + '<polyline points="15,70 27,61 39,66 51,42 63,47 75,30" fill="none" stroke="red" display="none"/>'
            ),
        ],
    ),
    "night_city": (
        [
            city("#0b1030"),
            city("black"),
            skyline("#111a3a", [(2, 18, 40), (22, 14, 65), (38, 20, 50), (60, 16, 75), (78, 20, 35)]),
        ],
        [
            svg(
                '<rect width="100" height="100" fill="black"/>'
                + "".join(f'<circle cx="{15 + 17 * i}" cy="{30 + 9 * (i % 3)}" r="2" fill="white"/>' for i in range(5))
            ),
            city("#87ceeb"),
            skyline("#0b1030", [(0, 100, 50)]),
            svg('<rect width="100" height="100" fill="#0b1030"/>'),
        ],
    ),
    "modern_clock_face": (
        [clock(2), clock(2, ticks=4), clock(2, ticks=60)],
        [svg('<circle cx="50" cy="50" r="45" fill="none" stroke="#000"/>'), clock(1), clock(0)],
    ),
}


@pytest.fixture(autouse=True, scope="module")
def _cairo():
    require_module("cairosvg", HOW)
    require_module("scipy", HOW)


def test_every_checked_prompt_has_three_correct_drawings_and_three_lookalikes():
    assert set(LOOKALIKES) == set(TASKS) and len(TASKS) == 17
    assert all(len(good) >= 3 and len(bad) >= 3 for good, bad in LOOKALIKES.values())


def _passes(task, doc):
    results = run_checks(drawing_from_svg(doc), task["checks"])
    return all(r.passed for r in results.values()), results


@pytest.mark.parametrize("prompt", sorted(LOOKALIKES))
def test_correct_drawings_pass(prompt):
    for i, doc in enumerate(LOOKALIKES[prompt][0]):
        ok, results = _passes(TASKS[prompt], doc)
        assert ok, (prompt, "correct drawing", i, results)


@pytest.mark.parametrize("prompt", sorted(LOOKALIKES))
def test_lookalikes_fail(prompt):
    for i, doc in enumerate(LOOKALIKES[prompt][1]):
        ok, results = _passes(TASKS[prompt], doc)
        assert not ok, (prompt, "look-alike", i, results)
