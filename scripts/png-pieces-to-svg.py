#!/usr/bin/env python3
"""Turns pgn2web's piece pictures (32x32 PNGs of each piece on a white square) into SVG piece
sets that `fenlens render --pieces-root` reads: the white square around the piece is made
transparent (flood fill from the border), and every run of same-coloured pixels in a row
becomes one <rect>. For measuring only (see scripts/foreign-designs). Needs Pillow.

usage: png-pieces-to-svg.py SET_DIR OUT_DIR
"""
import sys
from collections import deque
from pathlib import Path

from PIL import Image

ROLES = "kqrbnp"


def keyed(path):
    im = Image.open(path).convert("RGBA")
    w, h = im.size
    px = im.load()
    background = [[False] * w for _ in range(h)]
    queue = deque()
    for x in range(w):
        queue.extend([(x, 0), (x, h - 1)])
    for y in range(h):
        queue.extend([(0, y), (w - 1, y)])
    while queue:
        x, y = queue.popleft()
        if not (0 <= x < w and 0 <= y < h) or background[y][x]:
            continue
        r, g, b, a = px[x, y]
        if min(r, g, b) < 240 and a > 0:
            continue
        background[y][x] = True
        queue.extend([(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)])
    return im, background


def to_svg(path):
    im, background = keyed(path)
    w, h = im.size
    px = im.load()
    rects = []
    for y in range(h):
        x = 0
        while x < w:
            if background[y][x]:
                x += 1
                continue
            colour = px[x, y]
            end = x + 1
            while end < w and not background[y][end] and px[end, y] == colour:
                end += 1
            r, g, b, a = colour
            rects.append(
                f'<rect x="{x}" y="{y}" width="{end - x}" height="1" '
                f'fill="#{r:02x}{g:02x}{b:02x}" fill-opacity="{a / 255:.3f}"/>'
            )
            x = end
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" '
        f'height="{h}" shape-rendering="crispEdges">' + "".join(rects) + "</svg>"
    )


def main():
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for colour in "wb":
        for role in ROLES:
            svg = to_svg(src / f"{colour}{role}ws.png")
            (out / f"{colour}{role.upper()}.svg").write_text(svg)


if __name__ == "__main__":
    main()
