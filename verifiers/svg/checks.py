"""Programmatic checks: objective measurements where CLIP is weak (counting, geometry, shares).

Each check is `fn(drawing, **params) -> CheckResult` and is named in a task's `checks` list, e.g.
`{"check": "regular_polygon", "sides": 6}`. Most judge the rendered pixels, so they do not care
how a shape was written; a few read the SVG geometry (parallel sides, dash patterns, hands).
Checks of the main shape are written `@shape_check` and get that shape as their second argument.
A check never raises on a drawing: an odd or empty drawing simply fails it.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..base import TaskError
from .drawing import CheckResult, Drawing
from .geometry import Shape, shapes, simplify
from .outline import arc_around, circle_fit, concave_corners, star_shape
from .pixels import Component, colour_mask, components, dominant_family, ink, main_shape, profile_peaks, radial_profile
from .visibility import declared_visible, edge_marks, edges, outline_drawn, shown, stroke_width

Check = Callable[..., CheckResult]
CHECKS: dict[str, Check] = {}


def check(fn: Check) -> Check:
    CHECKS[fn.__name__] = fn
    return fn


def shape_check(fn: Callable[..., CheckResult]) -> Check:
    """A check of the main shape: `fn(drawing, shape, **params)`. A drawing with no main shape fails
    it ("nothing drawn") before `fn` runs; tasks name and parameterise it as any other check."""

    @functools.wraps(fn)
    def run(d: Drawing, *args: Any, **params: Any) -> CheckResult:
        shape = main_shape(d.image)
        if shape is None:
            return _fail("nothing drawn")
        return fn(d, shape, *args, **params)

    drawing, _shape, *rest = inspect.signature(fn).parameters.values()
    run.__signature__ = inspect.signature(fn).replace(parameters=[drawing, *rest])  # type: ignore[attr-defined]
    return check(run)


def _fail(detail: str, value: float = 0.0) -> CheckResult:
    return CheckResult(False, value, detail)


def _graded(passed: bool, value: float, detail: str) -> CheckResult:
    return CheckResult(passed, 1.0 if passed else min(value, 0.9), detail)


# ----------------------------------------------------------------------------- outlines
@shape_check
def regular_polygon(d: Drawing, shape: Shape, sides: int = 6) -> CheckResult:
    """`sides` corners around the main shape, at equal distances and even angles."""
    profile = radial_profile(shape.mask)
    peaks, _prom = profile_peaks(profile, 0.03)
    if len(peaks) != sides:
        return _fail(f"{len(peaks)} corners, not {sides}", max(0.0, 1 - abs(len(peaks) - sides) / sides) * 0.5)
    radii = profile[peaks]
    gaps = np.diff(np.sort(peaks), append=np.sort(peaks)[0] + len(profile))
    spread = max(radii.std() / radii.mean(), gaps.std() / gaps.mean())
    return _graded(spread < 0.06, 1 - spread, f"{sides} corners, radius/angle spread {spread:.1%}")


@shape_check
def star(d: Drawing, shape: Shape, points: int = 5, color: str | None = None) -> CheckResult:
    """A star: its outline is `points` tips alternating with notches, evenly (see `outline.star_shape`);
    a flower of circles, lines from a centre or a polygon are not."""
    is_star, detail = star_shape(shape.mask, points)
    if not is_star:
        peaks, _prominence = profile_peaks(radial_profile(shape.mask), 0.25)
        return _fail(detail, 0.5 * max(0.0, 1 - abs(len(peaks) - points) / points))
    if color is not None:
        family = dominant_family(d.image, shape.mask)
        if family != color:
            return _fail(f"{detail}, but {family or 'no clear colour'}, not {color}", 0.5)
    return CheckResult(True, 1.0, detail + (f", {color}" if color else ""))


@shape_check
def gear(d: Drawing, shape: Shape, min_teeth: int = 6) -> CheckResult:
    """At least `min_teeth` evenly spaced, shallow teeth around the main shape."""
    profile = radial_profile(shape.mask)
    depth = (profile.max() - profile.min()) / max(profile.max(), 1e-9)
    centres = _runs_above(profile, (profile.max() + profile.min()) / 2)
    if not 0.05 < depth < 0.45 or len(centres) < min_teeth:
        return _fail(
            f"{len(centres)} teeth of depth {depth:.0%}, need {min_teeth} shallow ones",
            min(len(centres) / max(min_teeth, 1), 1) * 0.5,
        )
    notches = concave_corners(shape.mask)
    if notches < min_teeth:  # a polygon's corners are no teeth: teeth stand out of the rim, with notches between
        return _fail(f"{len(centres)} bumps but {notches} notches between them: a polygon, not teeth", 0.4)
    gaps = np.diff(centres, append=centres[0] + len(profile))
    spread = gaps.std() / gaps.mean()
    return _graded(spread < 0.2, 1 - spread, f"{len(centres)} teeth, spacing spread {spread:.0%}")


def _runs_above(profile: np.ndarray, level: float) -> np.ndarray:
    """Centres (in bins) of the circular runs where `profile` exceeds `level`: flat-topped teeth count once."""
    above = profile > level
    if above.all() or not above.any():
        return np.array([])
    shift = int(np.argmin(above))  # start the circle at a point below the level
    rolled = np.roll(above, -shift)
    edges = np.diff(rolled.astype(int))
    starts, ends = np.nonzero(edges == 1)[0] + 1, np.nonzero(edges == -1)[0] + 1
    if rolled[-1]:  # the last run reaches the end of the circle (which starts below the level)
        ends = np.append(ends, len(rolled))
    return np.sort(((starts + ends) / 2 + shift) % len(profile))


@shape_check
def cross(d: Drawing, shape: Shape) -> CheckResult:
    """A bar crossing a longer bar: rows and columns are either the bar's width or the arm's span."""
    top, left, bottom, right = shape.box
    box = shape.mask[top:bottom, left:right]
    votes = [_crossing_profile(box.sum(axis=1)), _crossing_profile(box.sum(axis=0))]
    passed = all(votes) and 0.15 < shape.fill < 0.75
    return _graded(
        passed,
        0.4 * sum(votes),
        f"rows {'ok' if votes[0] else 'no'}, columns {'ok' if votes[1] else 'no'}, fill {shape.fill:.2f}",
    )


def _crossing_profile(widths: np.ndarray) -> bool:
    """Widths along one axis of a cross: a wide band inside, narrow constant bar widths on both sides."""
    top = widths.max()
    wide = widths >= 0.8 * top
    narrow = (widths > 0) & (widths < 0.5 * top)
    middle = ~wide & ~narrow & (widths > 0)
    idx = np.nonzero(wide)[0]
    if len(idx) == 0 or not narrow[: idx[0]].any() or not narrow[idx[-1] + 1 :].any():
        return False
    bar = widths[narrow]
    return middle.mean() < 0.1 and bar.std() < 0.2 * bar.mean() and np.all(wide[idx[0] : idx[-1] + 1])


# ----------------------------------------------------------------------------- geometry
def _shown_shapes(d: Drawing) -> list[Shape]:
    """The SVG's shapes that are declared visible and actually show in the render (see visibility)."""
    return [s for s in shapes(d.root) if shown(d, s)]


def _quads(d: Drawing) -> list[np.ndarray]:
    """Four-sided polygons whose four sides all show in the render."""
    out = []
    for s in shapes(d.root):
        if s.kind == "polygon" and len(s.points) >= 4 and declared_visible(s):
            pts = simplify(s.points)
            if len(pts) == 4 and outline_drawn(d, pts, True, 0.6, stroke_width(s)):
                out.append(pts)
    return out


def _parallel(u: np.ndarray, v: np.ndarray, degrees: float = 3.0) -> bool:
    cos = abs(float(u @ v)) / (float(np.linalg.norm(u) * np.linalg.norm(v)) + 1e-12)
    return bool(cos > np.cos(np.radians(degrees)))  # a plain bool: numpy bools add like `or`


@check
def trapezoid(d: Drawing) -> CheckResult:
    """A four-sided polygon with exactly one pair of parallel sides."""
    quads = _quads(d)
    if not quads:
        return _fail("no four-sided polygon")
    for q in quads:
        e = [q[(k + 1) % 4] - q[k] for k in range(4)]
        pairs = _parallel(e[0], e[2]) + _parallel(e[1], e[3])
        if pairs == 1:
            return CheckResult(True, 1.0, "four sides, one parallel pair")
    return _fail("four-sided polygons, but none with exactly one parallel pair", 0.4)


def _dashes_drawn(d: Drawing, a: np.ndarray, b: np.ndarray, width: float) -> bool:
    """Along the side, the render shows a stroke that breaks off and resumes (at least 3 dashes)."""
    marks = edge_marks(d, a, b, 96, width)
    starts = int(np.sum(marks[1:] & ~marks[:-1])) + int(marks[0])
    return 0.2 <= marks.mean() <= 0.9 and starts >= 3


def _dashed(paint: str) -> bool:
    values = [v for v in paint.replace(",", " ").split() if v != "none"]
    try:
        return any(float(v) > 0 for v in values)
    except ValueError:
        return False


@check
def dashed_square(d: Drawing) -> CheckResult:
    """A square outline (equal sides, right angles) stroked with a dash pattern."""
    best = 0.0
    for s in shapes(d.root):
        if s.kind != "polygon" or not declared_visible(s):
            continue
        q = simplify(s.points)
        if len(q) != 4:
            continue
        e = [q[(k + 1) % 4] - q[k] for k in range(4)]
        lengths = np.array([np.linalg.norm(v) for v in e])
        square = lengths.std() / lengths.mean() < 0.05 and all(
            abs(float(e[k] @ e[k + 1])) < 0.05 * lengths[k] * lengths[k + 1] for k in range(3)
        )
        dashed = (
            _dashed(s.style("stroke-dasharray"))
            and s.style("stroke", "none") != "none"
            and all(_dashes_drawn(d, a, b, stroke_width(s)) for a, b in edges(q, closed=True))
        )
        if square and dashed:
            return CheckResult(True, 1.0, "a square with a dashed stroke")
        best = max(best, 0.5 * square + 0.4 * dashed)
    return _fail("no square with a dashed stroke", best)


# ----------------------------------------------------------------------------- colour and shape
@check
def ellipse(d: Drawing, color: str = "light green") -> CheckResult:
    """A non-circular ellipse filled in the colour family `color`."""
    try:
        parts = components(colour_mask(d.image, color), 0.01)
    except KeyError as exc:
        raise TaskError(str(exc)) from None
    if not parts:
        return _fail(f"nothing {color}")
    ys, xs = np.nonzero(parts[0].mask)
    coords = np.column_stack([xs - xs.mean(), ys - ys.mean()])
    _vals, vecs = np.linalg.eigh(np.cov(coords.T))
    extents = [np.ptp(coords @ vecs[:, k]) + 1 for k in range(2)]
    ratio = max(extents) / min(extents)
    fill = parts[0].area / (extents[0] * extents[1])  # pi/4 for an ellipse, 1 for a rectangle
    is_ellipse = 0.72 < fill < 0.85
    passed = is_ellipse and ratio >= 1.15
    return _graded(passed, 0.5 + 0.2 * is_ellipse, f"{color} shape, axes ratio {ratio:.2f}, box fill {fill:.2f}")


@check
def no_entry_sign(d: Drawing) -> CheckResult:
    """A red ring with one red diagonal through the centre (the other diagonal left clear)."""
    red = colour_mask(d.image, "red")
    parts = components(red, 0.01)
    if not parts:
        return _fail("nothing red")
    top, left, bottom, right = parts[0].box
    cy, cx = (top + bottom) / 2, (left + right) / 2
    radius = (bottom - top + right - left) / 4

    def red_at(r: float, degrees: float) -> bool:
        y = int(round(cy + r * np.sin(np.radians(degrees))))
        x = int(round(cx + r * np.cos(np.radians(degrees))))
        return 0 <= y < red.shape[0] and 0 <= x < red.shape[1] and bool(red[y, x])

    ring = np.mean([red_at(0.9 * radius, a) for a in range(0, 360, 10)])
    diagonals = [red_at(0.45 * radius, a) and red_at(0.45 * radius, a + 180) for a in (45, 135)]
    centre = red_at(0, 0)
    passed = ring > 0.8 and centre and sum(diagonals) == 1
    return _graded(
        passed,
        0.4 * (ring > 0.8) + 0.3 * (sum(diagonals) == 1),
        f"ring {ring:.0%} red, centre {'red' if centre else 'clear'}, red diagonals {sum(diagonals)}",
    )


@check
def star_rating(d: Drawing, filled: int = 3, total: int = 5) -> CheckResult:
    """`total` similar stars in a row, `filled` of them solid and the rest outlines."""
    parts = [p for p in components(ink(d.image), 0.001)]
    if not parts:
        return _fail("nothing drawn")
    size = np.median([p.height for p in parts[:total]])
    stars = [p for p in parts if 0.7 * size <= p.height <= 1.3 * size]
    rows = [p.centre[0] for p in stars]
    if len(stars) != total or (rows and np.ptp(rows) > 0.5 * size):
        return _fail(f"{len(stars)} similar shapes in a row, not {total}", 0.3 * (len(stars) == total))
    not_stars = sum(not star_shape(p.mask, 5)[0] for p in stars)
    if not_stars:
        return _fail(f"{total} shapes in a row, but {not_stars} of them are not five-pointed stars", 0.3)
    solid = sum(p.fill > 0.33 for p in stars)
    return _graded(solid == filled, 0.5, f"{total} stars, {solid} solid (want {filled})")


@check
def signal_bars(d: Drawing, bars: int = 3) -> CheckResult:
    """A signal/wifi icon: `bars` separate strokes growing in size (a small dot is allowed)."""
    parts = sorted(components(ink(d.image), 0.001), key=lambda p: p.area)
    if len(parts) > 1 and _is_dot_under(parts[0], parts[1]):
        parts = parts[1:]  # the dot under wifi arcs is not a bar
    if len(parts) != bars:
        return _fail(f"{len(parts)} strokes, not {bars}", 0.3 if parts else 0.0)
    spans = [max(p.height, p.width) for p in parts]
    growing = all(b >= 1.15 * a for a, b in zip(spans, spans[1:]))
    return _graded(growing, 0.5, f"{bars} strokes, {'growing' if growing else 'not growing'} in size")


@check
def wifi(d: Drawing, bars: int = 3) -> CheckResult:
    """A wifi icon: `bars` concentric arcs of growing radius facing one way (an optional dot under
    them). Each stroke keeps its distance from its own fitted centre and sweeps an angle around
    it; the centres agree. Dots, squares or bars of growing size sweep no angle."""
    parts = sorted(components(ink(d.image), 0.001), key=lambda p: p.area)
    if len(parts) > 1 and _is_dot_under(parts[0], parts[1]):
        parts = parts[1:]
    if len(parts) != bars:
        return _fail(f"{len(parts)} strokes, not {bars}", 0.3 if parts else 0.0)
    fits = [circle_fit(p.mask) for p in parts]
    arcs = sorted((arc_around(p.mask, cy, cx) + (cy, cx) for p, (cy, cx, _r) in zip(parts, fits)), key=lambda a: a[0])
    flat = [a for a in arcs if a[1] > 0.7 or not 40 <= a[2] <= 200]
    if flat:
        return _fail(f"{len(flat)} of {bars} strokes are not arcs (dots, squares or bars sweep no angle)", 0.3)
    radii, mids = [a[0] for a in arcs], [a[3] for a in arcs]
    centres = np.array([[a[4], a[5]] for a in arcs])
    concentric = float(np.max(np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1)))) <= 0.35 * float(
        np.median(radii)
    )
    growing = all(b >= 1.15 * a for a, b in zip(radii, radii[1:]))
    facing = max(abs((m - mids[0] + 180) % 360 - 180) for m in mids) < 30
    passed = growing and facing and concentric
    return _graded(
        passed,
        0.5,
        f"{bars} arcs, {'growing' if growing else 'not growing'}, "
        f"{'concentric' if concentric else 'not concentric'}, {'facing one way' if facing else 'facing different ways'}",
    )


def _is_dot_under(dot: Component, arc: Component) -> bool:
    """A small round blob centred under the next stroke (a staircase's first bar sits beside the next)."""
    round_ = dot.fill > 0.5 and 0.6 < dot.height / max(1, dot.width) < 1.6
    _y, x = dot.centre
    return round_ and dot.area < 0.6 * arc.area and arc.box[1] <= x <= arc.box[3] and dot.box[0] >= arc.box[0]


@check
def battery(d: Drawing, level: float = 0.2, color: str = "red") -> CheckResult:
    """A battery body whose inside is `level` full of `color`, filled from one end."""
    try:
        paint = colour_mask(d.image, color)
    except KeyError as exc:
        raise TaskError(str(exc)) from None
    body = main_shape(d.image)
    if body is None:
        return _fail("nothing drawn")
    top, left, bottom, right = body.box
    horizontal = body.width >= body.height
    line_ink = (
        ink(d.image)[(top + bottom) // 2, left:right] if horizontal else ink(d.image)[top:bottom, (left + right) // 2]
    )
    line_paint = paint[(top + bottom) // 2, left:right] if horizontal else paint[top:bottom, (left + right) // 2]
    outline = line_ink & ~line_paint
    where = np.nonzero(outline)[0]
    if len(where) < 2:
        return _fail("no battery outline")
    first_end = where[0] + np.argmin(outline[where[0] :]) if not outline[where[0] :].all() else len(outline)
    last_start = where[-1]
    while last_start > 0 and outline[last_start - 1]:
        last_start -= 1
    inside = line_paint[first_end:last_start]
    if horizontal is False:
        inside = inside[::-1]  # fill from the bottom
    if len(inside) < 4:
        return _fail("no room inside the outline")
    share = float(inside.mean())
    painted = np.nonzero(inside)[0]
    from_end = len(painted) > 0 and (painted[0] < 0.15 * len(inside) or painted[-1] > 0.85 * len(inside))
    passed = abs(share - level) <= 0.1 and from_end
    return _graded(
        passed,
        max(0.0, 1 - abs(share - level) / max(level, 1 - level)),
        f"{share:.0%} {color} inside (want {level:.0%})",
    )


# ----------------------------------------------------------------------------- diagrams and scenes
def _horizontal_bars(mask: np.ndarray, min_share: float = 0.08) -> list[tuple[float, int, int]]:
    """Thick horizontal strokes as (row, start, end): runs of rows holding one long run each."""
    bars: list[tuple[float, int, int]] = []
    current: list[tuple[int, int, int]] = []
    for y in range(mask.shape[0]):
        xs = np.nonzero(mask[y])[0]
        long = len(xs) > min_share * mask.shape[1] and xs[-1] - xs[0] + 1 <= 1.05 * len(xs)
        if long:
            current.append((y, int(xs[0]), int(xs[-1])))
        elif current:
            bars.append((float(np.mean([r[0] for r in current])), current[0][1], current[0][2]))
            current = []
    return bars


@check
def ground_symbol(d: Drawing) -> CheckResult:
    """At least three stacked horizontal strokes shrinking downwards, centred under a vertical lead."""
    mask = ink(d.image)
    bars = _horizontal_bars(mask)
    if len(bars) < 3:
        return _fail(f"{len(bars)} horizontal strokes, need 3")
    bars = bars[-3:]
    lengths = [b[2] - b[1] for b in bars]
    centres = [(b[1] + b[2]) / 2 for b in bars]
    shrinking = all(b <= 0.9 * a for a, b in zip(lengths, lengths[1:]))
    centred = np.ptp(centres) < 0.05 * mask.shape[1]
    column = mask[: int(bars[0][0]) - 2, int(round(centres[0]))]
    lead = column.sum() > 0.1 * mask.shape[0]
    passed = shrinking and centred and lead
    return _graded(
        passed,
        0.3 * shrinking + 0.2 * centred + 0.2 * lead,
        f"3 strokes {'shrinking' if shrinking else 'not shrinking'}, {'centred' if centred else 'off-centre'}, "
        f"{'a' if lead else 'no'} lead above",
    )


@check
def line_chart(d: Drawing, min_points: int = 5) -> CheckResult:
    """A polyline of at least `min_points` points left to right, with two perpendicular axes."""
    series, axes = 0, {"h": False, "v": False}
    all_shapes = _shown_shapes(d)
    extent = max((np.ptp(s.points, axis=0).max() for s in all_shapes if len(s.points) > 1), default=0.0)
    for s in all_shapes:
        pts = s.points
        if s.kind == "polyline" and len(pts) >= min_points and np.all(np.diff(pts[:, 0]) > 0):
            series = max(series, len(pts))
        if len(pts) == 2:
            dx, dy = np.abs(pts[1] - pts[0])
            axes["h"] |= dy < 0.02 * extent and dx > 0.4 * extent
            axes["v"] |= dx < 0.02 * extent and dy > 0.4 * extent
        if s.kind == "polyline" and len(pts) == 3:  # one path for both axes: down then right
            legs = np.abs(np.diff(pts, axis=0))
            if (legs[:, 0] < 0.02 * extent).any() and (legs[:, 1] < 0.02 * extent).any():
                axes["h"] = axes["v"] = True
    passed = series >= min_points and axes["h"] and axes["v"]
    return _graded(
        passed,
        0.5 * (series >= min_points) + 0.2 * (axes["h"] and axes["v"]),
        f"series of {series} points, axes {'yes' if axes['h'] and axes['v'] else 'no'}",
    )


@check
def clock_face(d: Drawing) -> CheckResult:
    """A circle with at least two hands of different lengths from its centre and marks near the rim."""
    all_shapes = _shown_shapes(d)
    circles = [s for s in all_shapes if s.kind == "circle" and min(s.radii) > 0]
    if not circles:
        return _fail("no circle")
    face = max(circles, key=lambda s: min(s.radii))
    centre, radius = face.points[0], min(face.radii)
    hands, ticks = [], 0
    for s in all_shapes:
        if s is face or len(s.points) == 0:
            continue
        dist = np.linalg.norm(s.points - centre, axis=1)
        if s.kind == "polyline" and len(s.points) == 2 and dist.min() < 0.15 * radius and dist.max() > 0.3 * radius:
            hands.append(dist.max())
        elif 0.6 * radius < dist.mean() < 1.05 * radius and (s.kind != "circle" or max(s.radii) < 0.15 * radius):
            ticks += 1
    distinct = len(hands) >= 2 and max(hands) >= 1.15 * min(hands)
    passed = distinct and ticks >= 4
    return _graded(passed, 0.3 + 0.3 * distinct + 0.2 * (ticks >= 4), f"{len(hands)} hands, {ticks} marks near the rim")


@check
def night_scene(d: Drawing, min_buildings: int = 3) -> CheckResult:
    """A night city: a dark sky (the top third), a skyline of at least `min_buildings` flat-topped
    buildings of different heights standing out from the sky, and at least five small lights."""
    image = d.image.astype(np.float32) / 255
    luminance = image @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    sky = float(luminance[: image.shape[0] // 3].mean())
    bright = (luminance > 0.7) & ~((image > 0.95).all(axis=2) & (luminance[..., None] > 0.95).all(axis=2) & (sky > 0.6))
    lights = [p for p in components(bright, 0.00005) if p.area < 0.02 * bright.size]
    buildings, heights = _skyline(d.image, luminance)
    passed = sky < 0.35 and len(lights) >= 5 and buildings >= min_buildings and heights >= 2
    return _graded(
        passed,
        0.4 * (sky < 0.35) + 0.2 * (len(lights) >= 5) + 0.2 * (buildings >= min_buildings),
        f"sky lightness {sky:.2f}, {buildings} buildings of {heights} heights, {len(lights)} small lights",
    )


def _skyline(image: np.ndarray, luminance: np.ndarray) -> tuple[int, int]:
    """(flat-topped blocks, distinct heights) of the skyline: per column, the first pixel below the
    top fifth that is neither sky colour nor a light; blocks are runs of columns with one top."""
    h, w = luminance.shape
    sky = np.median(image[: max(1, h // 10)].reshape(-1, 3), axis=0)
    solid = (np.abs(image.astype(np.int32) - sky).sum(axis=2) > 40) & (luminance < 0.7)
    start = h // 5
    below = solid[start:]
    tops = np.where(below.any(axis=0), below.argmax(axis=0) + start, h)
    blocks, levels, run = 0, [], 1
    for x in range(1, w + 1):
        if x < w and abs(int(tops[x]) - int(tops[x - 1])) <= 2:
            run += 1
            continue
        top = int(tops[x - 1])
        if run >= 0.04 * w and top < 0.95 * h:
            blocks += 1
            if all(abs(top - level) >= 0.04 * h for level in levels):
                levels.append(top)
        run = 1
    return blocks, len(levels)


# ----------------------------------------------------------------------------- running
def run_checks(drawing: Drawing, specs: Sequence[Mapping[str, Any]]) -> dict[str, CheckResult]:
    """Run the task's checks; a misspelt check or parameter is the task's fault (TaskError)."""
    out: dict[str, CheckResult] = {}
    for spec in specs:
        name = spec.get("check")
        fn = CHECKS.get(name)  # type: ignore[arg-type]
        if fn is None:
            raise TaskError(f"unknown check {name!r}; known: {sorted(CHECKS)}")
        params = {k: v for k, v in spec.items() if k != "check"}
        try:
            inspect.signature(fn).bind(drawing, **params)
        except TypeError as exc:
            raise TaskError(f"check {name!r}: {exc}") from None
        key, n = name, 2
        while key in out:
            key, n = f"{name}#{n}", n + 1
        try:
            out[key] = fn(drawing, **params)
        except TaskError:
            raise
        except Exception as exc:  # a drawing no check anticipated: it fails, it does not crash
            out[key] = CheckResult(False, 0.0, f"could not measure: {type(exc).__name__}")
    return out
