"""What the programmatic checks look at: the gated SVG, its parsed tree and its rendered pixels.

A `Drawing` is built once per completion after gating and rendering, and every check reads it;
checks never parse or render again, so a hostile SVG is only ever touched by the guarded steps.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element

import numpy as np

SVG_NS = "http://www.w3.org/2000/svg"


@dataclass(frozen=True)
class Drawing:
    svg: str  # the SVG text that passed the gate
    root: Element  # its parsed tree (defusedxml), root tag `svg`
    image: np.ndarray  # H x W x 3 uint8 RGB, rendered on white at the verifier's render size

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the rendered image in pixels."""
        return self.image.shape[1], self.image.shape[0]


@dataclass(frozen=True)
class CheckResult:
    """One programmatic check: pass/fail, a score in [0, 1] (partial credit) and why."""

    passed: bool
    value: float
    detail: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(min(1.0, max(0.0, self.value))))


def image_from_png(png: bytes) -> np.ndarray:
    """Decode a rendered PNG into H x W x 3 uint8 RGB, compositing any alpha onto white."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return np.asarray(Image.alpha_composite(white, rgba).convert("RGB"))


def drawing_from_svg(svg: str, size: int = 256, **_: Any) -> Drawing:
    """Parse and render an SVG *in this process*, unguarded: for tests and trusted input only.

    The verifier builds drawings through the gate and the killable render worker instead.
    """
    import cairosvg
    import defusedxml.ElementTree as SafeET

    root = SafeET.fromstring(svg, forbid_dtd=True)
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=size, output_height=size, background_color="white")
    return Drawing(svg=svg, root=root, image=image_from_png(png))
