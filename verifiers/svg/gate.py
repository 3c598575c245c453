"""Refuse unsafe or unrenderable SVG before any renderer sees it.

Every refusal is a `GateError` with a short reason code (`too_large`, `forbidden_element`, …) and a
detail for people. The gate parses with defusedxml (no DTD, no entities, no external references),
walks the tree once without recursion, and returns the tree *re-serialised*: the renderer draws
exactly what was checked, so a quirk of one XML parser cannot smuggle something past another.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from xml.etree import ElementTree as ET

import defusedxml
import defusedxml.ElementTree as SafeET

from .drawing import SVG_NS

XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

# Elements that run code, embed other documents or fetch things: never rendered.
FORBIDDEN = frozenset({"script", "foreignobject", "iframe", "embed", "object", "audio", "video", "canvas",
                       "handler", "listener"})
TEXT = frozenset({"text", "tspan", "textpath"})
ANIMATION = frozenset({"set", "animate", "animatetransform", "animatemotion", "animatecolor"})
_URL = re.compile(r"url\(\s*['\"]?\s*([^'\")\s]*)", re.IGNORECASE)
_RASTER_DATA = re.compile(r"data:image/(png|jpe?g|gif|webp)[;,]", re.IGNORECASE)


class GateError(ValueError):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


@dataclass(frozen=True)
class GateLimits:
    max_chars: int = 100_000
    max_nodes: int = 2_000
    max_depth: int = 32
    max_use_expansion: int = 10_000
    allow_text: bool = False


@dataclass(frozen=True)
class GatedSvg:
    svg: str            # the re-serialised document the renderer gets
    root: ET.Element    # its tree (tags in the SVG namespace)
    nodes: int


def local_name(tag: object) -> str:
    """`{ns}rect` -> `rect`; comments and processing instructions have no string tag."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def gate(svg: str, limits: GateLimits = GateLimits()) -> GatedSvg:
    """The checked, re-serialised SVG, or `GateError` with the first reason it is refused."""
    if not svg.strip():
        raise GateError("empty", "the SVG is empty")
    if len(svg) > limits.max_chars:
        raise GateError("too_large", f"{len(svg):,} characters (limit {limits.max_chars:,})")
    root = _parse(svg)
    if local_name(root.tag) != "svg":
        raise GateError("root_not_svg", f"the root element is <{local_name(root.tag) or root.tag}>")
    nodes = _walk(root, limits)
    if not (root.get("viewBox") or (root.get("width") and root.get("height"))):
        raise GateError("no_size", "the root <svg> needs a viewBox or both width and height")
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    _check_patterns(root, by_id)
    expanded = expanded_size(root, by_id, limits.max_use_expansion)
    if expanded > limits.max_use_expansion:
        raise GateError("use_fanout", f"<use> references expand to over {limits.max_use_expansion:,} elements")
    return GatedSvg(ET.tostring(root, encoding="unicode"), root, nodes)


def _parse(svg: str) -> ET.Element:
    try:
        root = SafeET.fromstring(svg, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except defusedxml.DefusedXmlException as exc:
        raise GateError("entities_forbidden", type(exc).__name__) from None
    except ET.ParseError as exc:
        code = "entities_forbidden" if "undefined entity" in str(exc) else "parse_error"
        raise GateError(code, str(exc)) from None
    if root.tag == "svg":  # no xmlns: put everything in the SVG namespace so renderers agree
        for element in root.iter():
            if isinstance(element.tag, str) and not element.tag.startswith("{"):
                element.tag = f"{{{SVG_NS}}}{element.tag}"
    return root


def _walk(root: ET.Element, limits: GateLimits) -> int:
    """Count nodes and depth, and refuse forbidden elements and attributes (no recursion)."""
    nodes = 0
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise GateError("too_many_nodes", f"over {limits.max_nodes:,} elements")
        if depth > limits.max_depth:
            raise GateError("too_deep", f"elements nested over {limits.max_depth} deep")
        name = local_name(element.tag).lower()
        if name in FORBIDDEN:
            raise GateError("forbidden_element", f"<{local_name(element.tag)}> is not allowed")
        if name in TEXT and not limits.allow_text:
            raise GateError("text_not_allowed", "<text> is refused (CLIP would read the words); allow_text=True permits it")
        if name == "style" and "@import" in (element.text or "").lower():
            raise GateError("external_reference", "@import in <style>")
        _check_attributes(element, name)
        _check_urls(element.text or "")
        stack.extend((child, depth + 1) for child in element)
    return nodes


def _check_attributes(element: ET.Element, name: str) -> None:
    for key, value in element.attrib.items():
        attr = local_name(key).lower()
        if attr.startswith("on"):
            raise GateError("event_attribute", f"{local_name(key)}= on <{name}>")
        if attr == "href":
            _check_href(value)
        if name in ANIMATION and attr == "attributename" and value.lower().endswith("href"):
            raise GateError("forbidden_element", f"<{name}> may not animate {value}")
        _check_urls(value)


def _check_href(value: str) -> None:
    target = value.strip()
    if target.startswith("#"):
        return
    if target.lower().startswith("data:"):
        if not _RASTER_DATA.match(target):
            raise GateError("external_reference", "only raster data: images (png, jpeg, gif, webp) are allowed")
        return
    raise GateError("external_reference", f"href to {target[:60]!r} (only #id and data: are allowed)")


def _check_urls(text: str) -> None:
    for target in _URL.findall(text):
        if not target.startswith("#") and not _RASTER_DATA.match(target):
            raise GateError("external_reference", f"url({target[:60]}) (only url(#id) is allowed)")


def _references(element: ET.Element) -> list[str]:
    """Ids this element points at: href="#id" and url(#id) in attributes."""
    out = []
    for key, value in element.attrib.items():
        if local_name(key) == "href" and value.strip().startswith("#"):
            out.append(value.strip()[1:])
        out.extend(t[1:] for t in _URL.findall(value) if t.startswith("#"))
    return out


def _check_patterns(root: ET.Element, by_id: dict[str, ET.Element]) -> None:
    """A pattern painted with another pattern multiplies tiles (cairosvg issue #309): refuse it."""
    for pattern in root.iter(f"{{{SVG_NS}}}pattern"):
        for element in pattern.iter():
            for ref in _references(element):
                target = by_id.get(ref)
                if target is not None and local_name(target.tag) == "pattern" and element is not pattern:
                    raise GateError("nested_pattern", f"pattern {pattern.get('id')!r} paints with pattern {ref!r}")


def expanded_size(root: ET.Element, by_id: dict[str, ET.Element], cap: int) -> int:
    """How many elements the tree has once every `<use>` is expanded, stopping once past `cap`.

    Computed bottom-up with memoisation (iteratively), so ten levels of ten-fold `<use>` fan-out
    are measured in microseconds instead of being rendered for 21 seconds. A reference cycle
    counts as over the cap.
    """
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[ET.Element, bool]] = [(root, False)]
    while stack:
        element, children_done = stack.pop()
        key = id(element)
        if key in size:
            continue
        kids = list(element)
        if local_name(element.tag) == "use":
            kids += [by_id[r] for r in _references(element) if r in by_id]
        if children_done:
            on_path.discard(key)
            size[key] = min(cap + 1, 1 + sum(size.get(id(k), cap + 1) for k in kids))
            continue
        if key in on_path:
            return cap + 1  # a <use> cycle
        on_path.add(key)
        stack.append((element, True))
        for kid in kids:
            if id(kid) in on_path:
                return cap + 1
            if id(kid) not in size:
                stack.append((kid, False))
    return size[id(root)]
