"""A scene as SVG, written by hand: no library, opens in any browser, scales on any screen."""

from __future__ import annotations

from xml.sax.saxutils import escape
from xml.sax.saxutils import quoteattr

from narrator.picture.scene import Circle
from narrator.picture.scene import Line
from narrator.picture.scene import Rect
from narrator.picture.scene import Scene
from narrator.picture.scene import Shape
from narrator.picture.scene import Text

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _shape(shape: Shape) -> str:
    n = _number
    if isinstance(shape, Rect):
        stroke = f' stroke="{shape.stroke}"' if shape.stroke else ""
        return (
            f'<rect x="{n(shape.x)}" y="{n(shape.y)}" width="{n(shape.w)}" height="{n(shape.h)}"'
            f' rx="{n(shape.radius)}" fill="{shape.fill}"{stroke}/>'
        )
    if isinstance(shape, Circle):
        stroke = f' stroke="{shape.stroke}" stroke-width="{n(shape.width)}"' if shape.stroke else ""
        (cx, cy) = shape.centre
        centre = f'cx="{n(cx)}" cy="{n(cy)}" r="{n(shape.r)}"'
        return f'<circle {centre} fill="{shape.fill}"{stroke}/>'
    if isinstance(shape, Line):
        (x1, y1), (x2, y2) = shape.start, shape.end
        return (
            f'<line x1="{n(x1)}" y1="{n(y1)}" x2="{n(x2)}" y2="{n(y2)}"'
            f' stroke="{shape.color}" stroke-width="{n(shape.width)}" stroke-linecap="round"/>'
        )
    assert isinstance(shape, Text)
    weight = ' font-weight="bold"' if shape.bold else ""
    return (
        f'<text x="{n(shape.x)}" y="{n(shape.y)}" font-size="{n(shape.size)}" fill="{shape.color}"'
        f' text-anchor="{shape.anchor}"{weight} xml:space="preserve">{escape(shape.text)}</text>'
    )


def to_svg(scene: Scene) -> str:
    """The SVG document of ``scene`` (UTF-8 text)."""
    width, height = _number(scene.width), _number(scene.height)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" font-family={quoteattr(FONT)}>',
        f"<title>{escape(scene.title)}</title>",
        *(_shape(shape) for shape in scene.shapes),
        "</svg>",
    ]
    return "\n".join(lines) + "\n"
