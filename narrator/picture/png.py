"""A scene as PNG, drawn with matplotlib, imported only here."""

from __future__ import annotations

from pathlib import Path

from narrator.picture.scene import Circle
from narrator.picture.scene import Line
from narrator.picture.scene import Rect
from narrator.picture.scene import Scene
from narrator.picture.scene import Text
from narrator.rules.errors import ConfigError

DPI = 100  # one scene pixel is one image pixel
POINTS = 72 / DPI  # matplotlib sizes text in points
INSTALL = "pip install matplotlib (a dependency of narrator: bash scripts/setup.sh installs it)"


def require_matplotlib(what: str) -> None:
    """A clear line, before any work, when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError(f"{what} needs matplotlib, which is not installed: {INSTALL}") from None


def write_png(scene: Scene, path: Path) -> None:
    """Draw ``scene`` into the PNG file ``path``."""
    require_matplotlib("a PNG picture")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import patches
    from matplotlib.figure import Figure

    figure = Figure(figsize=(scene.width / DPI, scene.height / DPI), dpi=DPI)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, scene.width)
    axes.set_ylim(scene.height, 0)
    axes.set_axis_off()
    for shape in scene.shapes:
        if isinstance(shape, Rect):
            box = patches.FancyBboxPatch(
                (shape.x, shape.y),
                shape.w,
                shape.h,
                boxstyle=f"round,pad=0,rounding_size={shape.radius}",
                facecolor=shape.fill,
                edgecolor=shape.stroke or "none",
                linewidth=shape.width,
            )
            axes.add_patch(box)
        elif isinstance(shape, Circle):
            axes.add_patch(
                patches.Circle(
                    shape.centre,
                    shape.r,
                    facecolor=shape.fill,
                    edgecolor=shape.stroke or "none",
                    linewidth=shape.width * POINTS,
                )
            )
        elif isinstance(shape, Line):
            axes.plot(
                [shape.start[0], shape.end[0]],
                [shape.start[1], shape.end[1]],
                color=shape.color,
                linewidth=shape.width * POINTS,
                solid_capstyle="round",
            )
        elif isinstance(shape, Text):
            axes.text(
                shape.x,
                shape.y,
                shape.text,
                fontsize=shape.size * POINTS,
                color=shape.color,
                fontweight="bold" if shape.bold else "normal",
                ha={"start": "left", "middle": "center", "end": "right"}[shape.anchor],
                va="baseline",
                family="DejaVu Sans",
            )
    figure.savefig(path, dpi=DPI, format="png")
