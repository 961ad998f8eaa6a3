"""Direct labels: a name written beside its point, clear of the data and inside the axes (App. B's Fig. R8.1 names
each corpus beside its point, ``sections.real_corpora.figures``).

A label goes to the first place, in a ring around its point (right, left, above, below, the four diagonals, then the
same further off), where its text covers no marker, error bar, line or filled area of the axes and no earlier label,
stays inside the axes' frame, and is nearer its own point than any other named point (so that it names the right
one). Where some label finds no such place the axes' limits widen a little and every label is placed again; a label
that still finds none raises ``ValueError`` (a figure never prints a label over its data). Everything is measured in
display space at the figure's own size and resolution, so the figure must be drawn at the size it is shown at.
"""

from __future__ import annotations

import itertools

import numpy as np
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.transforms import Bbox

from .figures import SMALL

GAP = 3.0  # points of clear space between a label and anything it must not touch
RINGS = (1.0, 2.2, 3.6)  # how far off a label may sit, in multiples of the nearest place's offset
WIDEN = (0.0, 0.08, 0.16, 0.25)  # the share of their span by which the axes' limits widen, try after try


def _points(fig, value: float) -> float:
    """``value`` points in display pixels of ``fig``."""
    return value * fig.dpi / 72


def obstacles(ax) -> list[Bbox]:
    """The display-space boxes of what a label must not cover: each marker (its size), each segment of a line or
    of an error bar, each filled area of the axes ``ax``."""
    fig, boxes = ax.figure, []

    def segment_boxes(xy, width_px):
        pad = width_px / 2 + 0.5
        return [Bbox.from_extents(min(a[0], b[0]) - pad, min(a[1], b[1]) - pad, max(a[0], b[0]) + pad,
                                  max(a[1], b[1]) + pad) for a, b in itertools.pairwise(xy)]

    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.isfinite(xy).all(axis=1)]
        if line.get_marker() not in (None, "", "None", " ", "none"):
            half = _points(fig, line.get_markersize()) / 2 + 0.5
            boxes += [Bbox.from_extents(x - half, y - half, x + half, y + half) for x, y in xy]
        if line.get_linestyle() not in ("None", "", " ", "none") and len(xy) > 1:
            boxes += segment_boxes(xy, _points(fig, line.get_linewidth()))
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        if isinstance(collection, LineCollection):
            widths = collection.get_linewidths() if len(collection.get_linewidths()) else [1.0]
            for k, segment in enumerate(collection.get_segments()):
                xy = collection.get_transform().transform(np.asarray(segment, dtype=float))
                boxes += segment_boxes(xy, _points(fig, widths[k % len(widths)]))
        elif isinstance(collection, PathCollection):
            offsets = collection.get_offset_transform().transform(collection.get_offsets())
            sizes = collection.get_sizes() if len(collection.get_sizes()) else [36.0]
            for k, (x, y) in enumerate(offsets):
                half = _points(fig, np.sqrt(sizes[k % len(sizes)])) / 2 + 0.5
                boxes.append(Bbox.from_extents(x - half, y - half, x + half, y + half))
        elif isinstance(collection, PolyCollection):
            boxes.append(collection.get_window_extent(fig.canvas.get_renderer()))
    return boxes


def _distance(box: Bbox, xy) -> float:
    """Display distance from the point ``xy`` to the box (0 inside it)."""
    return float(np.hypot(max(box.x0 - xy[0], 0, xy[0] - box.x1), max(box.y0 - xy[1], 0, xy[1] - box.y1)))


def _places(offset: float):
    """Offsets (points) and alignments of the places around a point, nearest first."""
    for ring in RINGS:
        d = offset * ring
        yield from (((d, 0), "left", "center"), ((-d, 0), "right", "center"), ((0, d), "center", "bottom"),
                    ((0, -d), "center", "top"), ((d, d), "left", "bottom"), ((-d, d), "right", "bottom"),
                    ((d, -d), "left", "top"), ((-d, -d), "right", "top"))


def _place_all(ax, points: dict, color: str, fontsize: float) -> list | None:
    """Every label placed clear of the data (see the module docstring), or None when one finds no place (the labels
    placed so far removed)."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame, blocked = ax.get_window_extent(renderer), obstacles(ax)
    gap = _points(fig, GAP)
    marker = max([line.get_markersize() for line in ax.lines] + [0.0])  # points: clear of the largest marker
    placed, boxes = [], []
    at = {name: ax.transData.transform(xy) for name, xy in points.items()}  # display positions of the named points
    for name, (x, y) in sorted(points.items(), key=lambda item: item[1][0]):
        for xytext, ha, va in _places(marker / 2 + GAP + 1):
            label = ax.annotate(name, (x, y), textcoords="offset points", xytext=xytext, ha=ha, va=va,
                                fontsize=fontsize, color=color)
            box = label.get_window_extent(renderer)
            inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1)
            padded = box.padded(gap)
            own = all(_distance(box, at[name]) < _distance(box, xy) for other, xy in at.items() if other != name)
            if inside and own and not any(padded.overlaps(other) for other in blocked + boxes):
                placed.append(label)
                boxes.append(box)
                break
            label.remove()
        else:
            for label in placed:
                label.remove()
            return None
    return placed


def direct_labels(ax, points: dict, color: str, fontsize: float = SMALL) -> list:
    """Name each point of ``points`` (name -> (x, y) in data coordinates) beside it, clear of every marker, error bar,
    line and filled area of ``ax`` and of every other label, inside the axes (see the module docstring). Call it
    after everything else of the axes is drawn. Returns the labels (``Annotation``); raises ``ValueError`` when a
    label finds no free place even with the limits widened."""
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    for share in WIDEN:
        dx, dy = (xlim[1] - xlim[0]) * share / 2, (ylim[1] - ylim[0]) * share / 2
        ax.set_xlim(xlim[0] - dx, xlim[1] + dx)
        ax.set_ylim(ylim[0] - dy, ylim[1] + dy)
        placed = _place_all(ax, points, color, fontsize)
        if placed is not None:
            return placed
    raise ValueError(f"no place beside its point is clear of the data for every label of {sorted(points)}")
