#!/usr/bin/env python3
"""Copies of a dataset's pictures cropped through the board, for measuring the flags on
squares the picture's edge cuts off.

    python3 scripts/cut-through-board.py SRC DEST

Each picture of one board loses a strip along one side (the four sides in turn), 0.2 to 1.4
squares deep (in turn, in steps of 0.2), measured from the board's edge on that side; the
manifest keeps the placement and moves the corners with the crop. `fenlens eval DEST --verbose`
then shows which of the hidden squares were misread and whether they were flagged.

    fenlens render --dataset /tmp/held2c --count 200 --seed 2026 --mix clean \\
        --pieces-root ../shared/pieces/lichess --only-sets merida,chessnut,fantasy,governor,staunty \\
        --boards-dir ../shared/boards/lichess
    python3 scripts/cut-through-board.py /tmp/held2c /tmp/cut
    fenlens eval /tmp/cut

Needs Pillow.
"""
import json
import os
import sys

from PIL import Image


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dest = sys.argv[1:3]
    os.makedirs(os.path.join(dest, "images"), exist_ok=True)
    rows = [json.loads(line) for line in open(os.path.join(src, "manifest.jsonl"))]
    with open(os.path.join(dest, "manifest.jsonl"), "w") as manifest:
        for i, row in enumerate(rows):
            if len(row["boards"]) != 1:
                continue
            picture = Image.open(os.path.join(src, row["file"])).convert("RGB")
            corners = row["boards"][0]["corners"]
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            left, top, right, bottom = min(xs), min(ys), max(xs), max(ys)
            square = (right - left) / 8
            depth = square * (0.2 + 0.2 * (i // 4 % 7))
            side = i % 4
            box = [0, 0, picture.width, picture.height]
            if side == 0:
                box[0] = round(left + depth)
            elif side == 1:
                box[1] = round(top + depth)
            elif side == 2:
                box[2] = round(right - depth)
            else:
                box[3] = round(bottom - depth)
            cropped = picture.crop(tuple(box))
            name = "images/%06d.png" % i
            cropped.save(os.path.join(dest, name))
            moved = [[x - box[0], y - box[1]] for x, y in corners]
            row["file"] = name
            row["category"] = "cut%.1f" % (depth / square)
            row["width"], row["height"] = cropped.width, cropped.height
            row["corners"] = moved
            row["boards"][0]["corners"] = moved
            manifest.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
