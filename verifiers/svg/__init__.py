"""The SVG verifier: gate the SVG, render it safely, score it with open_clip and programmatic checks."""

from .verifier import SvgConfig, SvgVerifier

__all__ = ["SvgConfig", "SvgVerifier"]
