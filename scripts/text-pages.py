#!/usr/bin/env python3
"""Pictures of text without any chessboard, for measuring that the reader answers "no
chessboard found" on them (a document, an editor, a page of prose). Needs Pillow and the
DejaVu fonts (Debian's fonts-dejavu-core).

    python3 scripts/text-pages.py DEST COUNT SEED

Each page holds lines of made-up words (1-11 letters) in 9-24 pixel type in one of DejaVu's
fonts, dark on light paper or light on a dark page, on 600-1920 pixels; a few lines are left
blank. Then count the pictures taken for a board:

    fenlens recognize DEST/*.png 2>/dev/null | wc -l
"""
import glob
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFont

LETTERS = "etaoinshrdlucmfwypvbgkjqxz"
SIZES = [(800, 1000), (1240, 1754), (1920, 1080), (1366, 768), (600, 800), (1000, 700)]
PAPERS = [(255, 255, 255), (250, 250, 245), (245, 240, 228), (30, 30, 30), (40, 44, 52), (255, 255, 255)]


def word(rng):
    return "".join(rng.choice(LETTERS) for _ in range(rng.choice([1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 8, 9, 11])))


def page(rng, fonts):
    width, height = rng.choice(SIZES)
    paper = rng.choice(PAPERS)
    ink = (20, 20, 20) if sum(paper) > 300 else (220, 220, 220)
    image = Image.new("RGB", (width, height), paper)
    draw = ImageDraw.Draw(image)
    size = rng.choice([9, 10, 11, 12, 13, 14, 16, 18, 20, 24])
    font = ImageFont.truetype(rng.choice(fonts), size)
    leading = int(size * rng.uniform(1.15, 1.7))
    margin = rng.randint(10, 120)
    monospaced = "Mono" in font.path
    y = margin
    while y < height - margin - leading:
        if rng.random() < 0.08:
            y += leading
            continue
        x = margin + (rng.choice([0, 0, 0, 4, 8]) * size // 2 if monospaced else 0)
        line = []
        while True:
            candidate = " ".join(line + [word(rng)])
            if draw.textlength(candidate, font=font) > width - 2 * margin - x or (rng.random() < 0.05 and line):
                break
            line = candidate.split(" ")
        draw.text((x, y), " ".join(line), font=font, fill=ink)
        y += leading
    return image, size


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    dest, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fonts = sorted(glob.glob("/usr/share/fonts/truetype/dejavu/*.ttf"))
    if not fonts:
        sys.exit("no DejaVu fonts in /usr/share/fonts/truetype/dejavu: apt-get install fonts-dejavu-core")
    os.makedirs(dest, exist_ok=True)
    rng = random.Random(seed)
    for index in range(count):
        image, size = page(rng, fonts)
        image.save(os.path.join(dest, f"{index:03d}_text_{size}.png"))


if __name__ == "__main__":
    main()
