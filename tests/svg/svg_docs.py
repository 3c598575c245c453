"""Small helpers and documents shared by the SVG tests."""

SVG_NS = 'xmlns="http://www.w3.org/2000/svg"'
XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"'
HOW = "pip install -e .[svg] (cairosvg, open-clip-torch, torch, torchvision, resvg-py)"


def svg(body: str, size: str = 'viewBox="0 0 100 100"') -> str:
    """A complete SVG document around `body`."""
    return f"<svg {SVG_NS} {size}>{body}</svg>"


def use_fanout(levels: int, fan: int) -> str:
    """`fan`-fold `<use>` references nested `levels` deep: fan**levels rectangles (CVE-2026-31899)."""
    body = '<defs><rect id="a0" width="1" height="1"/>'
    for i in range(1, levels + 1):
        body += f'<g id="a{i}">' + f'<use xlink:href="#a{i - 1}"/>' * fan + "</g>"
    return f'<svg {SVG_NS} {XLINK} viewBox="0 0 1 1">{body}</defs><use xlink:href="#a{levels}"/></svg>'


# Ordinary drawings of the kind models write, for renderer agreement and end-to-end tests.
ORDINARY = {
    "hexagon": svg(
        '<polygon points="50,5 89,27.5 89,72.5 50,95 11,72.5 11,27.5" fill="#88dd88" stroke="#225522" stroke-width="2"/>'
    ),
    "circle": svg('<circle cx="50" cy="50" r="40" fill="none" stroke="red" stroke-width="8"/>'),
    "curves": svg(
        '<path d="M10 80 C 40 10, 65 10, 95 80 S 150 150, 180 80" fill="none" stroke="blue" stroke-width="4"/>',
        'viewBox="0 0 200 160"',
    ),
    "gradient": svg(
        '<defs><linearGradient id="g"><stop offset="0" stop-color="gold"/><stop offset="1" stop-color="purple"/>'
        '</linearGradient></defs><rect x="10" y="10" width="80" height="50" rx="8" fill="url(#g)"/>'
    ),
    "transformed": svg(
        '<g transform="translate(50 50) rotate(30)"><rect x="-30" y="-15" width="60" height="30" fill="teal"/></g>'
    ),
    "dashed": svg(
        '<rect x="15" y="15" width="70" height="70" fill="none" stroke="black" stroke-width="3" stroke-dasharray="8 4"/>'
    ),
    "wide": svg('<ellipse cx="100" cy="40" rx="90" ry="30" fill="lightgreen"/>', 'width="200" height="80"'),
}
