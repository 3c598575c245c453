"""Shapes from the parsed SVG in user space, with `transform`s applied and paint inherited.

Only what the checks need: vertices of straight-edged shapes (polygon, polyline, rect, line, and
paths; a curve segment contributes its end point), circles and ellipses, and each shape's
fill / stroke / stroke-dasharray after `style=` and inheritance from enclosing groups.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterator
from xml.etree.ElementTree import Element

import numpy as np

from .gate import local_name

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
_PATH_TOKEN = re.compile(r"([MmLlHhVvZzCcSsQqTtAa])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "Z": 0, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7}
INHERITED = ("fill", "stroke", "stroke-dasharray", "stroke-width", "visibility", "fill-opacity", "stroke-opacity")


@dataclass(frozen=True)
class Shape:
    kind: str  # "polygon" (closed), "polyline" (open), "circle" (incl. ellipses)
    points: np.ndarray  # N x 2 vertices in user space; for circles, the centre (1 x 2)
    radii: tuple[float, float] = (0.0, 0.0)
    paint: dict[str, str] | None = None
    tag: str = ""

    def style(self, name: str, default: str = "") -> str:
        return (self.paint or {}).get(name, default)


def numbers(text: str | None) -> list[float]:
    return [float(n) for n in _NUMBER.findall(text or "")]


def value_of(text: str | None, default: float) -> float:
    """The first number of an attribute, a percentage as a fraction; `default` when there is none."""
    values = numbers(text)
    if not values:
        return default
    return values[0] / 100 if (text or "").strip().endswith("%") else values[0]


def parse_transform(text: str | None) -> np.ndarray:
    """The 3x3 matrix of an SVG `transform` list (unknown parts are ignored)."""
    m = np.eye(3)
    for name, raw in _TRANSFORM.findall(text or ""):
        a = numbers(raw) + [0.0] * 6
        if name == "matrix":
            step = np.array([[a[0], a[2], a[4]], [a[1], a[3], a[5]], [0, 0, 1]])
        elif name == "translate":
            step = np.array([[1, 0, a[0]], [0, 1, a[1]], [0, 0, 1]])
        elif name == "scale":
            sy = a[1] if len(numbers(raw)) > 1 else a[0]
            step = np.diag([a[0], sy, 1.0])
        elif name == "rotate":
            c, s = math.cos(math.radians(a[0])), math.sin(math.radians(a[0]))
            cx, cy = a[1], a[2]
            step = np.array([[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy], [0, 0, 1]])
        else:
            t = math.tan(math.radians(a[0]))
            step = (
                np.array([[1, t, 0], [0, 1, 0], [0, 0, 1]])
                if name == "skewX"
                else np.array([[1, 0, 0], [t, 1, 0], [0, 0, 1]])
            )
        m = m @ step
    return m


def _paint(element: Element, inherited: dict[str, str]) -> dict[str, str]:
    """Paint and visibility after attributes and `style=`: inherited properties pass down; a
    `display: none` anywhere above hides the subtree; opacities multiply down the tree."""
    paint = dict(inherited)
    own: dict[str, str] = {}
    for key in (*INHERITED, "display", "opacity"):
        if element.get(key) is not None:
            own[key] = element.get(key, "").strip()
    for decl in (element.get("style") or "").split(";"):
        key, _, value = decl.partition(":")
        if key.strip() in (*INHERITED, "display", "opacity"):
            own[key.strip()] = value.strip()
    for key, value in own.items():
        if key == "display":
            if value == "none":
                paint["display"] = "none"
        elif key == "opacity":
            paint["opacity"] = str(value_of(paint.get("opacity"), 1.0) * value_of(value, 1.0))
        else:
            paint[key] = value
    return paint


def shapes(root: Element) -> Iterator[Shape]:
    """Every drawable shape under `root` (skipping <defs>, <clipPath>, <mask>, <pattern> content)."""
    stack: list[tuple[Element, np.ndarray, dict[str, str]]] = [(root, np.eye(3), {})]
    while stack:
        element, parent, inherited = stack.pop()
        tag = local_name(element.tag)
        if tag in ("defs", "clipPath", "mask", "pattern", "symbol", "marker"):
            continue
        matrix = parent @ parse_transform(element.get("transform"))
        paint = _paint(element, inherited)
        shape = _shape(element, tag, matrix, paint)
        if shape is not None:
            yield shape
        stack.extend((child, matrix, paint) for child in reversed(list(element)))


def _apply(matrix: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    if not points:
        return np.zeros((0, 2))
    p = np.column_stack([np.array(points, dtype=float), np.ones(len(points))])
    return (p @ matrix.T)[:, :2]


def _shape(element: Element, tag: str, matrix: np.ndarray, paint: dict[str, str]) -> Shape | None:
    g = lambda k: (numbers(element.get(k)) or [0.0])[0]  # noqa: E731
    if tag in ("polygon", "polyline"):
        flat = numbers(element.get("points"))
        pts = list(zip(flat[0::2], flat[1::2]))
        return Shape("polygon" if tag == "polygon" else "polyline", _apply(matrix, pts), paint=paint, tag=tag)
    if tag == "rect":
        x, y, w, h = g("x"), g("y"), g("width"), g("height")
        return Shape("polygon", _apply(matrix, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]), paint=paint, tag=tag)
    if tag == "line":
        return Shape("polyline", _apply(matrix, [(g("x1"), g("y1")), (g("x2"), g("y2"))]), paint=paint, tag=tag)
    if tag in ("circle", "ellipse"):
        rx = g("r") if tag == "circle" else g("rx")
        ry = g("r") if tag == "circle" else g("ry")
        sx, sy = np.hypot(matrix[0, 0], matrix[1, 0]), np.hypot(matrix[0, 1], matrix[1, 1])
        return Shape("circle", _apply(matrix, [(g("cx"), g("cy"))]), (rx * sx, ry * sy), paint, tag)
    if tag == "path":
        pts, closed = path_vertices(element.get("d") or "")
        return Shape("polygon" if closed else "polyline", _apply(matrix, pts), paint=paint, tag=tag)
    return None


def path_vertices(d: str) -> tuple[list[tuple[float, float]], bool]:
    """The vertices of a path's first subpath (curves contribute their end points) and whether it closes."""
    pts: list[tuple[float, float]] = []
    x = y = 0.0
    command, args = "", []
    tokens = _PATH_TOKEN.findall(d)
    i = 0
    while i < len(tokens):
        letter, number = tokens[i]
        if letter:
            if letter in "Zz":
                return pts, True
            if letter in "Mm" and pts:
                return pts, False  # only the first subpath
            command, args = letter, []
        elif command:
            args.append(float(number))
            need = _ARGS[command.upper()]
            if len(args) == need:
                rel = command.islower()
                up = command.upper()
                if up == "H":
                    x = x + args[0] if rel else args[0]
                elif up == "V":
                    y = y + args[0] if rel else args[0]
                else:
                    nx, ny = args[-2], args[-1]
                    x, y = (x + nx, y + ny) if rel else (nx, ny)
                pts.append((x, y))
                args = []
                if command in "Mm":
                    command = "l" if command == "m" else "L"  # extra pairs after M are line-tos
        i += 1
    return pts, False


def simplify(points: np.ndarray, tolerance: float = 0.02) -> np.ndarray:
    """Drop repeated points and points on a straight line between their neighbours (closed polygon).

    One pass with a stack, so linear in the number of points: a hostile polygon of 24,500
    collinear points takes milliseconds (a remove-and-restart loop took minutes)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(pts) == 0:
        return pts
    keep = np.ones(len(pts), dtype=bool)
    keep[1:] = np.hypot(*(np.diff(pts, axis=0).T)) > 1e-6
    pts = pts[keep]
    if len(pts) > 1 and np.hypot(*(pts[0] - pts[-1])) < 1e-6:
        pts = pts[:-1]
    if len(pts) <= 3:
        return pts
    scale = max(float(np.ptp(pts, axis=0).max()), 1e-9)

    def straight(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> bool:
        cross = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
        return bool(cross / (np.hypot(*(c - a)) * scale + 1e-12) < tolerance)

    out: list[np.ndarray] = []
    for p in pts:
        out.append(p)
        while len(out) >= 3 and straight(out[-3], out[-2], out[-1]):
            del out[-2]
    # the seam of the closed polygon: the last point, and then the first, may lie on a straight run
    while len(out) > 3 and straight(out[-2], out[-1], out[0]):
        out.pop()
    while len(out) > 3 and straight(out[-1], out[0], out[1]):
        out.pop(0)
    return np.array(out)
