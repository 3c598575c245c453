"""Does a shape the SVG declares actually show in the render? Checks that read geometry from the
tree (parallel sides, dash patterns, clock hands) count a shape only if it does.

Two tests, both needed:
- declared visibility: `display="none"`, `visibility="hidden"`, zero opacity, no paint at all;
- drawn visibility: the shape's outline, mapped into the rendered image, must show as an edge
  there (the colour changes across it, or a stroke sits on it) along most of its length. This
  is what catches what attributes cannot: a stylesheet class that hides it, a clip-path or mask,
  a shape off the canvas, white on white, or one painted over by another shape of its colour.
"""

from __future__ import annotations

import numpy as np

from .drawing import Drawing
from .geometry import Shape, numbers, value_of

EDGE_CONTRAST = 60  # summed |RGB| difference that counts as a visible edge
SAMPLES_PER_EDGE = 24


def declared_visible(shape: Shape) -> bool:
    """Not hidden by its attributes (see `geometry.shapes` for the inherited values)."""
    paint = shape.paint or {}
    if paint.get("display") == "none" or paint.get("visibility") in ("hidden", "collapse"):
        return False
    if value_of(paint.get("opacity"), 1.0) <= 0.05:
        return False
    fill = paint.get("fill", "black") not in ("none", "transparent") and value_of(paint.get("fill-opacity"), 1.0) > 0.05
    stroke = (
        paint.get("stroke", "none") not in ("none", "transparent")
        and value_of(paint.get("stroke-opacity"), 1.0) > 0.05
        and value_of(paint.get("stroke-width"), 1.0) > 0
    )
    if shape.kind == "polyline" and shape.tag in ("line", "polyline"):
        return stroke  # a line has no inside to fill
    return fill or stroke


def user_to_pixels(drawing: Drawing) -> tuple[float, np.ndarray]:
    """(scale, offset): pixel = user * scale + offset, for the root viewBox drawn letterboxed
    (xMidYMid meet, the default) into the square render, as both renderers do."""
    root = drawing.root
    box = numbers(root.get("viewBox"))
    if len(box) == 4 and box[2] > 0 and box[3] > 0:
        min_x, min_y, width, height = box
    else:
        width, height = (numbers(root.get("width")) or [100.0])[0], (numbers(root.get("height")) or [100.0])[0]
        min_x = min_y = 0.0
    pixels_w, pixels_h = drawing.size
    scale = min(pixels_w / max(width, 1e-9), pixels_h / max(height, 1e-9))
    offset = np.array([(pixels_w - width * scale) / 2 - min_x * scale, (pixels_h - height * scale) / 2 - min_y * scale])
    return scale, offset


def edge_marks(
    drawing: Drawing, a: np.ndarray, b: np.ndarray, samples: int = SAMPLES_PER_EDGE, stroke_width: float = 0.0
) -> np.ndarray:
    """For points along the segment a-b (user space): does the render show an edge or a stroke there?
    The two sides are looked at just beyond half the stroke's width."""
    scale, offset = user_to_pixels(drawing)
    pa, pb = a * scale + offset, b * scale + offset
    direction = pb - pa
    length = float(np.hypot(*direction))
    if length < 2:
        return np.zeros(samples, dtype=bool)
    normal = np.array([-direction[1], direction[0]]) / length
    t = (np.arange(samples) + 0.5) / samples
    points = pa + t[:, None] * direction
    image = drawing.image.astype(np.int32)
    h, w = image.shape[:2]

    def colour(at: np.ndarray) -> np.ndarray:
        xs = np.clip(np.round(at[:, 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(at[:, 1]).astype(int), 0, h - 1)
        inside = (at[:, 0] >= 0) & (at[:, 0] <= w - 1) & (at[:, 1] >= 0) & (at[:, 1] <= h - 1)
        return np.where(inside[:, None], image[ys, xs], -1000)  # off the canvas matches nothing

    side = max(3.0, stroke_width * scale / 2 + 2.0)
    on, left, right = colour(points), colour(points + side * normal), colour(points - side * normal)
    on_canvas = on[:, 0] >= 0

    def differ(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.abs(x - y).sum(axis=1) > EDGE_CONTRAST

    across = differ(left, right) & (left[:, 0] >= 0) & (right[:, 0] >= 0)  # a filled region's border
    stroke = differ(on, left) & differ(on, right)  # a line drawn on the segment
    return on_canvas & (across | stroke)


def edges(points: np.ndarray, closed: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    return list(zip(points, np.roll(points, -1, axis=0))) if closed else list(zip(points[:-1], points[1:]))


def outline_drawn(
    drawing: Drawing, points: np.ndarray, closed: bool = True, min_share: float = 0.6, stroke_width: float = 0.0
) -> bool:
    """Every edge of the outline shows in the render along at least `min_share` of its length."""
    if len(points) < 2:
        return False
    return all(
        edge_marks(drawing, a, b, stroke_width=stroke_width).mean() >= min_share for a, b in edges(points, closed)
    )


def circle_drawn(
    drawing: Drawing, centre: np.ndarray, radii: tuple[float, float], min_share: float = 0.6, stroke_width: float = 0.0
) -> bool:
    """The circle's (or ellipse's) rim shows in the render along at least `min_share` of it."""
    angles = np.linspace(0, 2 * np.pi, 33)
    rim = centre + np.column_stack([radii[0] * np.cos(angles), radii[1] * np.sin(angles)])
    marks = np.concatenate([edge_marks(drawing, a, b, 4, stroke_width) for a, b in zip(rim[:-1], rim[1:])])
    return bool(marks.mean() >= min_share)


def stroke_width(shape: Shape) -> float:
    """The stroke's width in user units (0 without a stroke); transforms are not applied to it."""
    paint = shape.paint or {}
    if paint.get("stroke", "none") in ("none", "transparent"):
        return 0.0
    return value_of(paint.get("stroke-width"), 1.0)


def shown(drawing: Drawing, shape: Shape, min_share: float = 0.6) -> bool:
    """Declared visible and drawn: the only shapes a geometry check may count."""
    if not declared_visible(shape):
        return False
    if shape.kind == "circle":
        return circle_drawn(drawing, shape.points[0], shape.radii, min_share, stroke_width(shape))
    return outline_drawn(drawing, shape.points, shape.kind == "polygon", min_share, stroke_width(shape))
