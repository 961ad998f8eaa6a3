"""Direct labels (report/labels.py) name each point clear of the data and inside the frame, measured here on the
drawn figure at its own size: App. B's Fig. R8.1 printed "python" above its frame, "linux" over python's marker and
"json" on its own error bar."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from entropic.report import figures, labels

# App. B's widest points as Fig. R8.1 draws them: (predicted rank, measured rank, seed range below and above)
CORPORA = {"english": (5.2, 30.5, 1.9, 2.3), "shakespeare": (8.8, 27.6, 1.6, 2.3), "linux": (19.4, 34.4, 0.3, 0.3),
           "python": (20.9, 36.2, 0.6, 0.9), "json": (42.1, 31.9, 2.8, 1.6), "music": (48.4, 31.6, 0.4, 0.4)}


def crowded_figure():
    """Three widths of points with error bars, the widest named, drawn at the book's width."""
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.2))
    x = np.array([v[0] for v in CORPORA.values()])
    for i, level in enumerate([11.0, 20.0, None]):
        y = np.array([v[1] for v in CORPORA.values()]) if level is None else np.full(len(x), level)
        low, high = (np.array([v[2] for v in CORPORA.values()]), np.array([v[3] for v in CORPORA.values()])) \
            if level is None else (np.full(len(x), 0.5), np.full(len(x), 0.5))
        ax.errorbar(x, y, yerr=[low, high], fmt=figures.MARKERS[i], color=f"C{i}", capsize=3, ms=6)
    fig.tight_layout()
    return fig, ax


def covered(ax, placed) -> list[str]:
    """Labels that cover a marker or an error bar, leave the frame, or sit nearer another named point than their own."""
    renderer = ax.figure.canvas.get_renderer()
    frame, problems = ax.get_window_extent(renderer), []
    marker = 6 * ax.figure.dpi / 72
    data = []  # (x0, y0, x1, y1) of every marker and bar, in display pixels
    for line in ax.lines:
        for x, y in ax.transData.transform(line.get_xydata()):
            data.append((x - marker / 2, y - marker / 2, x + marker / 2, y + marker / 2))
    for x, y, low, high in CORPORA.values():
        (bx, b0), (_, b1) = ax.transData.transform([(x, y - low), (x, y + high)])
        data.append((bx - 1, b0, bx + 1, b1))
    points = {name: ax.transData.transform(v[:2]) for name, v in CORPORA.items()}
    for label in placed:
        box = label.get_window_extent(renderer)
        name = label.get_text()
        if box.x0 < frame.x0 or box.x1 > frame.x1 or box.y0 < frame.y0 or box.y1 > frame.y1:
            problems.append(f"{name} leaves the frame")
        if any(box.x0 < x1 and box.x1 > x0 and box.y0 < y1 and box.y1 > y0 for x0, y0, x1, y1 in data):
            problems.append(f"{name} covers data")
        near = {other: np.hypot(max(box.x0 - p[0], 0, p[0] - box.x1), max(box.y0 - p[1], 0, p[1] - box.y1))
                for other, p in points.items()}
        if min(near, key=near.get) != name:
            problems.append(f"{name} sits nearer {min(near, key=near.get)}")
    return problems


def test_every_label_stays_in_the_frame_clear_of_markers_and_error_bars_and_nearest_its_point():
    fig, ax = crowded_figure()
    placed = labels.direct_labels(ax, {name: v[:2] for name, v in CORPORA.items()}, "C2")
    fig.canvas.draw()
    assert sorted(label.get_text() for label in placed) == sorted(CORPORA)
    assert not covered(ax, placed)
    plt.close(fig)


def test_a_label_with_no_free_place_is_refused_not_printed_over_the_data():
    fig, ax = plt.subplots(figsize=(1.2, 1.0))
    ax.plot(np.arange(12) % 3, np.arange(12) // 3, "o", ms=14)
    with pytest.raises(ValueError, match="no place"):
        labels.direct_labels(ax, {f"corpus number {k}": (k % 3, k // 3) for k in range(12)}, "C0")
    plt.close(fig)
