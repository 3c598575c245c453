"""Shape descriptors that encode what defines a prompt, read from the rendered pixels:

- a shape's outline as a polygon (its radial profile, simplified): a star is 2n vertices that
  alternate convex and concave with n-fold symmetry; a flower of circles needs many more vertices
  (its petals are arcs); a convex polygon has no concave vertex at all, so it is no gear;
- concentric arcs (wifi): every stroke keeps one distance from one common centre and sweeps an
  angle, where dots and squares of growing size sweep almost none.
"""

from __future__ import annotations

import numpy as np

from .pixels import radial_profile


def outline(mask: np.ndarray, tolerance: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, radii): the shape's outer boundary seen from its centroid, simplified with
    Douglas-Peucker at `tolerance` x its largest radius (at least 1.5 pixels, the noise of a
    rasterised edge). Vertices are (x, y) about the centroid."""
    profile, angles = _profile(mask)
    points = np.column_stack([profile * np.cos(angles), profile * np.sin(angles)])
    keep = _douglas_peucker_closed(points, max(tolerance * float(profile.max()), 1.5))  # >= pixel noise
    return points[keep], profile[keep]


def _douglas_peucker_closed(points: np.ndarray, tolerance: float) -> list[int]:
    """Indices kept by Douglas-Peucker on a closed ring (split at the two farthest-apart points)."""
    n = len(points)
    if n < 4:
        return list(range(n))
    start = int(np.argmax(np.hypot(*points.T)))
    far = int(np.argmax(np.hypot(*(points - points[start]).T)))
    a, b = sorted((start, far))
    first = _douglas_peucker(points, list(range(a, b + 1)), tolerance)
    second = _douglas_peucker(points, list(range(b, n)) + list(range(0, a + 1)), tolerance)
    return sorted(set(first) | set(second))


def _douglas_peucker(points: np.ndarray, chain: list[int], tolerance: float) -> list[int]:
    keep = {chain[0], chain[-1]}
    stack = [(0, len(chain) - 1)]
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        p, q = points[chain[lo]], points[chain[hi]]
        span = q - p
        length = float(np.hypot(*span)) or 1e-12
        inner = points[chain[lo + 1 : hi]]
        distance = np.abs(span[0] * (inner[:, 1] - p[1]) - span[1] * (inner[:, 0] - p[0])) / length
        k = int(np.argmax(distance))
        if distance[k] > tolerance:
            mid = lo + 1 + k
            keep.add(chain[mid])
            stack += [(lo, mid), (mid, hi)]
    return sorted(keep)


def convexity(vertices: np.ndarray) -> np.ndarray:
    """+1 for a convex vertex, -1 for a concave one (the ring runs counter-clockwise in angle)."""
    before = vertices - np.roll(vertices, 1, axis=0)
    after = np.roll(vertices, -1, axis=0) - vertices
    cross = before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0]
    return np.where(cross > 0, 1, -1)


def star_shape(mask: np.ndarray, points: int) -> tuple[bool, str]:
    """A star with `points` tips: its boundary (seen from the centroid) has that many evenly spaced
    tips at one radius, notches between them clearly inside but not at the centre, and runs
    *straight* from each tip to the next notch. Petals (arcs) bulge off those chords; lines from a
    centre have notches at the centre; a polygon has no notches."""
    from scipy.signal import find_peaks

    profile, angles = _profile(mask)
    bins = len(profile)
    tripled = np.concatenate([profile, profile, profile])
    peaks, _ = find_peaks(tripled, prominence=0.15 * profile.max())
    tips = np.sort(peaks[(peaks >= bins) & (peaks < 2 * bins)] - bins)
    if len(tips) != points:
        return False, f"{len(tips)} tips, not {points}"
    gaps = np.diff(tips, append=tips[0] + bins)
    notches = np.array([(t + int(np.argmin(np.roll(profile, -t)[:g]))) % bins for t, g in zip(tips, gaps)])
    tip_r, notch_r = profile[tips], profile[notches]
    ratio = float(notch_r.mean() / tip_r.mean())
    spread = max(
        float(tip_r.std() / tip_r.mean()), float(notch_r.std() / notch_r.mean()), float(gaps.std() / gaps.mean())
    )
    if not 0.2 <= ratio <= 0.8:
        return False, f"notches at {ratio:.0%} of the tips' radius (a star's lie between 20% and 80%)"
    if spread > 0.15:
        return False, f"tips or notches uneven (spread {spread:.0%})"
    xy = np.column_stack([profile * np.cos(angles), profile * np.sin(angles)])
    bulge = 0.0
    corners = np.sort(np.concatenate([tips, notches]))
    for a, b in zip(corners, np.roll(corners, -1)):
        idx = np.arange(a, b if b > a else b + bins) % bins
        middle = idx[
            len(idx) * 15 // 100 : max(len(idx) * 85 // 100, len(idx) * 15 // 100 + 1)
        ]  # corners round off when rasterised
        bulge = max(bulge, _off_chord(xy[middle], xy[a], xy[b]))
    limit = max(0.06 * float(tip_r.mean()), 2.5)  # a rasterised small edge wobbles by a pixel or two
    if bulge > limit:
        return (
            False,
            f"edges bulge {bulge / tip_r.mean():.0%} off straight (petals or arcs, not a star's straight edges)",
        )
    return True, f"{points} tips, straight edges, notches at {ratio:.0%} of the tips' radius"


def _profile(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The radial profile at about one direction per boundary pixel, and its angles (radians)."""
    ys, xs = np.nonzero(mask)
    reach = float(np.hypot(ys - ys.mean(), xs - xs.mean()).max()) if len(ys) else 0.0
    # more bins than boundary pixels would leave bins with no boundary pixel in them
    bins = int(np.clip(2 * np.pi * reach / 1.2, 48, 360))
    return radial_profile(mask, bins), np.radians((np.arange(bins) + 0.5) * 360 / bins)


def _off_chord(path: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """The largest distance of `path`'s points from the segment p-q's line."""
    span = q - p
    length = float(np.hypot(*span)) or 1e-12
    return float(np.max(np.abs(span[0] * (path[:, 1] - p[1]) - span[1] * (path[:, 0] - p[0])) / length))


def concave_corners(mask: np.ndarray) -> int:
    """How many concave corners the outline has (a convex polygon: none)."""
    vertices, _radii = outline(mask, tolerance=0.03)
    return int((convexity(vertices) < 0).sum()) if len(vertices) >= 3 else 0


def circle_fit(mask: np.ndarray, steps: int = 20) -> tuple[float, float, float]:
    """The circle through the middle of a stroke's pixels: (cy, cx, r). Starts from the algebraic
    (Kasa) fit, which shrinks short thick arcs, then minimises the geometric distance
    sum (|p - c| - r)^2 by Gauss-Newton."""
    ys, xs = np.nonzero(mask)
    pts = np.column_stack([xs, ys]).astype(float)
    a = np.column_stack([pts, np.ones(len(pts))])
    (p, q, c), *_ = np.linalg.lstsq(a, (pts**2).sum(axis=1), rcond=None)
    centre = np.array([p / 2, q / 2])
    radius = float(np.sqrt(max(c + centre @ centre, 1e-9)))
    for _ in range(steps):
        offsets = pts - centre
        dist = np.maximum(np.hypot(*offsets.T), 1e-9)
        jacobian = np.column_stack([-offsets / dist[:, None], -np.ones(len(pts))])
        step, *_ = np.linalg.lstsq(jacobian, -(dist - radius), rcond=None)
        centre, radius = centre + step[:2], radius + float(step[2])
        if np.abs(step).max() < 1e-3:
            break
    return float(centre[1]), float(centre[0]), float(abs(radius))


def arc_around(mask: np.ndarray, cy: float, cx: float) -> tuple[float, float, float, float]:
    """(mean radius, relative thickness, swept angle in degrees, mid direction) of a stroke seen
    from (cy, cx): an arc keeps its radius and sweeps an angle; a dot or square sweeps little."""
    ys, xs = np.nonzero(mask)
    r = np.hypot(ys - cy, xs - cx)
    angles = np.degrees(np.arctan2(ys - cy, xs - cx)) % 360
    hist = np.histogram(angles, bins=72, range=(0, 360))[0] > 0
    if hist.all():
        sweep = 360.0
    else:  # the longest circular run of occupied 5-degree bins
        rolled = np.roll(hist, -int(np.argmin(hist)))
        runs, run = [], 0
        for occupied in rolled:
            run = run + 1 if occupied else 0
            runs.append(run)
        sweep = 5.0 * max(runs)
    mid = float(np.degrees(np.arctan2(np.sin(np.radians(angles)).mean(), np.cos(np.radians(angles)).mean())) % 360)
    thickness = float((np.percentile(r, 90) - np.percentile(r, 10)) / max(r.mean(), 1e-9))
    return float(r.mean()), thickness, sweep, mid
