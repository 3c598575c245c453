"""CSS as a renderer reads it: tokenized by tinycss2 (cairosvg's own CSS parser), so escapes such as
`@\\69mport` or `u\\72l(` are decoded before anything is judged. Used by the gate for `<style>`
sheets, `style=` attributes and presentation attributes that can hold `url(...)`."""

from __future__ import annotations

from typing import Callable, Iterator

import tinycss2


def _walk(nodes: list) -> Iterator:
    """Every node, nested blocks and rule bodies included (iteratively)."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        for attr in ("prelude", "content", "arguments", "value"):
            inner = getattr(node, attr, None)
            if isinstance(inner, list):
                stack.extend(reversed(inner))


def urls(nodes: list) -> Iterator[str]:
    """The targets of every `url(...)`, written as a token or as a function, escapes decoded."""
    for node in _walk(nodes):
        if node.type == "url":
            yield node.value
        elif node.type == "function" and node.lower_name == "url":
            strings = [a.value for a in node.arguments if a.type == "string"]
            yield strings[0] if strings else ""


def at_rules(nodes: list) -> Iterator[str]:
    """Lower-cased names of every at-rule (`import`, `font-face`, …), escapes decoded."""
    for node in _walk(nodes):
        if node.type == "at-rule":
            yield node.lower_at_keyword
        elif node.type == "at-keyword":  # an at-rule inside a block is only tokenized
            yield node.lower_value


def check_stylesheet(text: str, refuse: Callable[[str], None], allowed_url: Callable[[str], bool]) -> None:
    """Call `refuse(why)` for an @import or a url() that is not allowed, anywhere in a sheet."""
    nodes = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    _check(nodes, refuse, allowed_url)


def check_value(text: str, refuse: Callable[[str], None], allowed_url: Callable[[str], bool]) -> None:
    """The same for a declaration list (`style=`) or one attribute value."""
    nodes = tinycss2.parse_component_value_list(text, skip_comments=True)
    _check(nodes, refuse, allowed_url)


def _check(nodes: list, refuse: Callable[[str], None], allowed_url: Callable[[str], bool]) -> None:
    for name in at_rules(nodes):
        if name == "import":
            refuse("@import")
    for target in urls(nodes):
        if not allowed_url(target):
            refuse(f"url({target[:60]})")
