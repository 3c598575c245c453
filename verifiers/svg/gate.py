"""Refuse unsafe or unrenderable SVG before any renderer sees it.

Every refusal is a `GateError` with a short reason code (`too_large`, `forbidden_element`, …) and a
detail for people. The gate parses with defusedxml (no DTD, no entities, no external references),
walks the tree once without recursion, and returns the tree *re-serialised*: the renderer draws
exactly what was checked, so a quirk of one XML parser cannot smuggle something past another.
"""

from __future__ import annotations

import base64
import binascii
import html.entities
import io
import re
from dataclasses import dataclass
from xml.etree import ElementTree as ET

import defusedxml
import defusedxml.ElementTree as SafeET

from . import css
from .drawing import SVG_NS

XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

# Elements that run code, embed other documents or fetch things: never rendered.
FORBIDDEN = frozenset(
    {"script", "foreignobject", "iframe", "embed", "object", "audio", "video", "canvas", "handler", "listener"}
)
TEXT = frozenset({"text", "tspan", "textpath"})
ANIMATION = frozenset({"set", "animate", "animatetransform", "animatemotion", "animatecolor"})
_URL = re.compile(r"url\(\s*['\"]?\s*([^'\")\s]*)", re.IGNORECASE)
_RASTER_DATA = re.compile(r"data:image/(png|jpe?g|gif|webp);base64,", re.IGNORECASE)
_PILLOW_FORMAT = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP"}
MAX_RASTER_BYTES = 1 << 20
MAX_RASTER_PIXELS = 4096 * 4096


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
    allow_raster: bool = False  # embedded images can carry words or a whole SVG: off unless asked for


@dataclass(frozen=True)
class GatedSvg:
    svg: str  # the re-serialised document the renderer gets
    root: ET.Element  # its tree (tags in the SVG namespace)
    nodes: int


def local_name(tag: object) -> str:
    """`{ns}rect` -> `rect`; comments and processing instructions have no string tag."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def gate(svg: str, limits: GateLimits = GateLimits()) -> GatedSvg:
    """The checked, re-serialised SVG, or `GateError` with the first reason it is refused."""
    if not svg.strip():
        raise GateError("empty", "the SVG is empty")
    try:
        svg.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise GateError("bad_characters", f"a lone surrogate at character {exc.start} is not text") from None
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


_NAMED_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31});")
_XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})


def _html_entity(m: re.Match[str]) -> str:
    """An HTML named entity (`&nbsp;`, `&deg;`: an SVG written for a web page, where they render) as
    the character references XML reads; a fixed character or two each, so nothing can expand."""
    name = m.group(1)
    value = html.entities.html5.get(name + ";")
    if name in _XML_ENTITIES or value is None:
        return m.group(0)  # XML's own, or no entity at all: the parser decides
    return "".join(f"&#{ord(ch)};" for ch in value)


def _parse(svg: str) -> ET.Element:
    if "&" in svg:
        svg = _NAMED_ENTITY.sub(_html_entity, svg)
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
            raise GateError(
                "text_not_allowed", "<text> is refused (CLIP would read the words); allow_text=True permits it"
            )
        if name == "style":
            css.check_stylesheet(element.text or "", _refuse_css, _allowed_url(limits))
        _check_attributes(element, name, limits)
        stack.extend((child, depth + 1) for child in element)
    return nodes


def _check_attributes(element: ET.Element, name: str, limits: GateLimits) -> None:
    for key, value in element.attrib.items():
        attr = local_name(key).lower()
        if attr.startswith("on"):
            raise GateError("event_attribute", f"{local_name(key)}= on <{name}>")
        if attr == "href":
            _check_href(value, limits)
        if name in ANIMATION and attr == "attributename" and value.lower().endswith("href"):
            raise GateError("forbidden_element", f"<{name}> may not animate {value}")
        if attr == "style" or "url" in value.lower() or "\\" in value:  # CSS, read with escapes decoded
            css.check_value(value, _refuse_css, _allowed_url(limits))


def _refuse_css(why: str) -> None:
    raise GateError("external_reference", f"{why} in CSS (only url(#id) is allowed)")


def _allowed_url(limits: GateLimits):
    return lambda target: target.strip().startswith("#") or (limits.allow_raster and _is_raster(target.strip()))


def _check_href(value: str, limits: GateLimits) -> None:
    target = value.strip()
    if target.startswith("#"):
        return
    if target.lower().startswith("data:"):
        if not limits.allow_raster:
            raise GateError(
                "raster_not_allowed",
                "embedded images are refused (they can carry words or another "
                "document); allow_raster=True permits real raster images",
            )
        check_raster(target)
        return
    raise GateError("external_reference", f"href to {target[:60]!r} (only #id and data: are allowed)")


def _is_raster(target: str) -> bool:
    try:
        check_raster(target)
        return True
    except GateError:
        return False


def check_raster(uri: str) -> None:
    """A data: URI must hold a real raster image of the type it claims (decoded by Pillow), never SVG."""
    match = _RASTER_DATA.match(uri)
    if match is None:
        raise GateError("bad_raster", "only base64 data: images of type png, jpeg, gif or webp are allowed")
    payload = uri[match.end() :]
    if len(payload) > MAX_RASTER_BYTES * 4 // 3 + 4:
        raise GateError("bad_raster", f"an embedded image over {MAX_RASTER_BYTES:,} bytes")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise GateError("bad_raster", "the embedded image is not valid base64") from None
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            claimed = _PILLOW_FORMAT[match.group(1).lower()]
            if image.format != claimed:
                raise GateError(
                    "bad_raster", f"the bytes are {image.format or 'not an image'}, not the {claimed} claimed"
                )
            if image.width * image.height > MAX_RASTER_PIXELS:
                raise GateError("bad_raster", f"an embedded image of {image.width}x{image.height} pixels")
            image.verify()
    except GateError:
        raise
    except Exception as exc:  # Pillow's many ways of saying "not an image"
        raise GateError("bad_raster", f"the embedded image does not decode ({type(exc).__name__})") from None


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
