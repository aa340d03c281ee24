#!/usr/bin/env python3
"""Copies of a dataset's pictures with a "game over" dialog over the middle of the board (an
opaque panel over about 4x2 squares, white, near-black or grey in turn, with a line of text),
for measuring the flags on the squares it hides.

    python3 scripts/dialog-over-board.py SRC DEST
    fenlens eval DEST

The manifest is copied unchanged (the placement under the panel stays the truth). Needs Pillow.
"""
import json
import os
import sys

from PIL import Image, ImageDraw


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dest = sys.argv[1:3]
    os.makedirs(os.path.join(dest, "images"), exist_ok=True)
    with open(os.path.join(dest, "manifest.jsonl"), "w") as manifest:
        for i, line in enumerate(open(os.path.join(src, "manifest.jsonl"))):
            row = json.loads(line)
            corners = row["boards"][0]["corners"]
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            square, left, top = (max(xs) - min(xs)) / 8, min(xs), min(ys)
            picture = Image.open(os.path.join(src, row["file"])).convert("RGB")
            draw = ImageDraw.Draw(picture)
            fill = [(255, 255, 255), (38, 36, 33), (60, 60, 60)][i % 3]
            draw.rounded_rectangle(
                [left + 2.1 * square, top + 2.6 * square, left + 5.9 * square, top + 4.9 * square],
                radius=square * 0.2,
                fill=fill,
            )
            draw.text((left + 2.5 * square, top + 3 * square), "White wins", fill=(128, 128, 128))
            name = "images/%06d.png" % i
            picture.save(os.path.join(dest, name))
            row["file"] = name
            manifest.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
