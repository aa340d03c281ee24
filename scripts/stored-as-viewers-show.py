#!/usr/bin/env python3
"""Copies of a dataset's pictures stored the ways a viewer must undo, for measuring `decode`.

    python3 scripts/stored-as-viewers-show.py turned SRC DEST [COUNT]
        each picture stored turned or mirrored as JPEG, tagged with the EXIF orientation
        (2-8 in turn) that tells a viewer how to show it as drawn (phones store photos so)
    python3 scripts/stored-as-viewers-show.py see-through SRC DEST [CATEGORY]
        the pictures of one category (default clean) as PNG with every near-white pixel
        (all channels above 235) transparent, stored as black (a diagram exported with no paper)

    fenlens render --dataset /tmp/held2c --count 200 --seed 2026 --mix clean \
        --pieces-root ../shared/pieces/lichess --only-sets merida,chessnut,fantasy,governor,staunty \
        --boards-dir ../shared/boards/lichess
    python3 scripts/stored-as-viewers-show.py turned /tmp/held2c /tmp/turned 140
    fenlens eval /tmp/turned

The manifest is copied with the new file names (and the category `exifN` for turned
pictures), so `fenlens eval DEST` compares with the drawn placement. Needs Pillow.
"""
import json
import os
import sys

from PIL import Image

# The stored pixels for each EXIF orientation: the inverse of the turn a viewer applies.
STORED = {
    2: Image.FLIP_LEFT_RIGHT,
    3: Image.ROTATE_180,
    4: Image.FLIP_TOP_BOTTOM,
    5: Image.TRANSPOSE,
    6: Image.ROTATE_90,
    7: Image.TRANSVERSE,
    8: Image.ROTATE_270,
}


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("turned", "see-through"):
        sys.exit(__doc__)
    kind, src, dest = sys.argv[1:4]
    extra = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(os.path.join(dest, "images"), exist_ok=True)
    rows = [json.loads(line) for line in open(os.path.join(src, "manifest.jsonl"))]
    with open(os.path.join(dest, "manifest.jsonl"), "w") as manifest:
        for i, row in enumerate(rows):
            picture = Image.open(os.path.join(src, row["file"]))
            if kind == "turned":
                if i >= int(extra or len(rows)):
                    break
                tag = 2 + i % 7
                exif = Image.Exif()
                exif[0x0112] = tag
                name = "images/%06d.jpg" % i
                stored = picture.convert("RGB").transpose(STORED[tag])
                stored.save(os.path.join(dest, name), quality=92, exif=exif)
                row["category"] = "exif%d" % tag
            else:
                if row["category"] != (extra or "clean"):
                    continue
                rgba = picture.convert("RGBA")
                pixels = rgba.load()
                for y in range(rgba.height):
                    for x in range(rgba.width):
                        if min(pixels[x, y][:3]) > 235:
                            pixels[x, y] = (0, 0, 0, 0)
                name = "images/%06d.png" % i
                rgba.save(os.path.join(dest, name))
            row["file"] = name
            manifest.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
