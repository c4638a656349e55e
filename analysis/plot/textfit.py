"""Where a figure's texts fall: their boxes once drawn, which overlap or leave the canvas, and moving the
placed ones (labels, annotations) apart. Used by the talk version (:mod:`analysis.book.figure_files`) and
the phone rendition (:mod:`analysis.plot.phone`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def placed_texts(fig: Any) -> list[Any]:
    """The texts placed at a point (ax.text, ax.annotate, fig.text): the ones a layout may move."""
    return [t for ax in fig.axes for t in ax.texts] + list(fig.texts)


def release_grid_spacing(fig: Any) -> None:
    """Spacing a notebook fixed on its grid (hspace=0.08) makes tight_layout skip the grid: release it."""
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        grid = spec.get_topmost_subplotspec().get_gridspec() if spec is not None else None
        for name in grid.locally_modified_subplot_params() if grid is not None else ():
            setattr(grid, name, None)


def text_boxes(fig: Any) -> list[tuple[Any, Any]]:
    """Every text the figure draws (titles, labels, ticks, legends, annotations, the footer) with its box in
    pixels, as one draw of the figure at its size records them (texts that are hidden, empty or clipped away
    are not drawn, so not listed). A text drawn in a box (``bbox=``) is its box, padding included: two boxed
    labels whose boxes overlap collide even when their letters do not."""
    import matplotlib.text

    drawn: list[tuple[Any, Any]] = []
    original = matplotlib.text.Text.draw

    def draw(self: Any, renderer: Any) -> None:
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            box = self.get_window_extent(renderer)
            patch = self.get_bbox_patch()
            if patch is not None and box.width > 0 and box.height > 0:
                box = patch.get_window_extent(renderer)
            if box.width > 0 and box.height > 0:
                drawn.append((self, box))

    matplotlib.text.Text.draw = draw  # type: ignore[method-assign]
    try:
        fig.canvas.draw()
    finally:
        matplotlib.text.Text.draw = original  # type: ignore[method-assign]
    return drawn


OVERLAP_PX = 1.0  # boxes sharing less than a pixel each way only touch


def overlaps(boxes: Sequence[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The pairs of drawn texts whose boxes overlap by more than a pixel each way."""
    found = []
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
            h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
            if w > OVERLAP_PX and h > OVERLAP_PX:
                found.append((a, b))
    return found


def off_canvas(fig: Any, boxes: Sequence[tuple[Any, Any]], room: Any = None) -> list[Any]:
    """The drawn texts that leave the figure's canvas, or the area `room` (pixels), by more than a pixel."""
    x0, y0, x1, y1 = room.extents if room is not None else (0, 0, fig.bbox.width, fig.bbox.height)
    return [t for t, b in boxes if b.x0 < x0 - OVERLAP_PX or b.y0 < y0 - OVERLAP_PX or b.x1 > x1 + OVERLAP_PX
            or b.y1 > y1 + OVERLAP_PX]




def separate(fig: Any, room: Any, movable: set[int], rounds: int = 4, steps: int = 40) -> None:
    """Move the texts placed at a point (labels, annotations; `movable` holds their ids) apart until no
    text box overlaps another and none leaves the drawing area `room` (pixels): each step pushes an
    overlapping pair apart along the shorter way out (only the movable one of a pair moves; both share a
    move when both are), then the figure is drawn again."""
    import numpy as np

    for _ in range(rounds):
        drawn = text_boxes(fig)
        boxes = [[b.x0, b.y0, b.x1, b.y1] for _, b in drawn]
        moved = [np.zeros(2) for _ in drawn]
        can = [id(t) in movable for t, _ in drawn]
        if not any(can):
            return
        for _ in range(steps):
            changed = False
            for i in range(len(boxes)):
                for j in range(i + 1, len(boxes)):
                    if not (can[i] or can[j]):
                        continue
                    a, b = boxes[i], boxes[j]
                    w = min(a[2], b[2]) - max(a[0], b[0])
                    h = min(a[3], b[3]) - max(a[1], b[1])
                    if w <= OVERLAP_PX or h <= OVERLAP_PX:
                        continue
                    if w < h:
                        d = np.array([w + 2.0, 0.0]) * (1 if (a[0] + a[2]) <= (b[0] + b[2]) else -1)
                    else:
                        d = np.array([0.0, h + 2.0]) * (1 if (a[1] + a[3]) <= (b[1] + b[3]) else -1)
                    share = 0.5 if can[i] and can[j] else 1.0
                    for k, sign in ((i, -1), (j, 1)):
                        if can[k]:
                            step = sign * share * d
                            boxes[k] = [boxes[k][0] + step[0], boxes[k][1] + step[1],
                                        boxes[k][2] + step[0], boxes[k][3] + step[1]]
                            moved[k] += step
                    changed = True
            for k, box in enumerate(boxes):  # back inside the drawing area
                if not can[k]:
                    continue
                dx = max(0.0, room.x0 + 2 - box[0]) - max(0.0, box[2] - room.x1 + 2)
                dy = max(0.0, room.y0 + 2 - box[1]) - max(0.0, box[3] - room.y1 + 2)
                if dx or dy:
                    boxes[k] = [box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy]
                    moved[k] += (dx, dy)
                    changed = True
            if not changed:
                break
        if not any(m.any() for m in moved):
            return
        for (t, _), m in zip(drawn, moved, strict=True):
            if m.any():
                trans = t.get_transform()
                x, y = trans.transform(t.get_position()) + m
                t.set_position(tuple(trans.inverted().transform((x, y))))
                t.set_clip_on(False)
                if hasattr(t, "set_annotation_clip"):
                    t.set_annotation_clip(False)
