#!/usr/bin/env python3
"""Pictures with rows and columns but no chessboard, for measuring that the reader answers "no
chessboard found" on them. Needs Pillow and the DejaVu fonts (Debian's fonts-dejavu-core).

    python3 scripts/grid-pictures.py DEST COUNT SEED

The kinds, in turn (the file name starts with the kind):
    sheet       a spreadsheet: ruled cells of 60-120 x 18-30 pixels, words and numbers in them,
                a shaded header row and column
    calendar    a month: 7 columns of 5 or 6 weeks, day numbers, weekends shaded or not
    graph       graph paper: thin lines every 8-40 pixels, a bolder one every fifth
    stripes     bands of two colours, across, down or slanted, 10-80 pixels wide
    checker     a checkerboard of 3-7 squares a side (fewer than a chessboard's 8), flat
                colours like a board theme's, on a plain page
    sudoku      a 9x9 puzzle: thin lines, bold ones every third, some digits
    go          a go board: 19, 13 or 9 lines each way on a wood colour, a few stones
    tiles       a tiled wall: squares of one colour parted by grout lines, shading varying
                a little from tile to tile
    crossword   a 13x13 or 15x15 grid with black cells set symmetrically
    icons       a phone's home screen: rounded squares of many colours in 4-6 columns
    keyboard    rows of keys with letters on them
Then count the pictures taken for a board:

    fenlens recognize DEST/*.png 2>/dev/null | wc -l
"""
import glob
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFont

KINDS = ["sheet", "calendar", "graph", "stripes", "checker", "sudoku", "go", "tiles",
         "crossword", "icons", "keyboard"]
THEMES = [((240, 217, 181), (181, 136, 99)), ((238, 238, 210), (118, 150, 86)),
          ((222, 227, 230), (140, 162, 173)), ((255, 255, 255), (0, 0, 0)),
          ((232, 235, 239), (125, 135, 150)), ((200, 200, 200), (150, 150, 150))]


def font(rng, size):
    faces = sorted(glob.glob("/usr/share/fonts/truetype/dejavu/*.ttf"))
    return ImageFont.truetype(rng.choice(faces), size)


def word(rng):
    return "".join(rng.choice("etaoinshrdlucmfwyp") for _ in range(rng.randint(2, 9)))


def sheet(rng, draw, w, h):
    cw, ch = rng.randint(60, 120), rng.randint(18, 30)
    f = font(rng, ch - 8)
    line = rng.choice([(208, 208, 208), (225, 225, 225), (190, 190, 190)])
    draw.rectangle([0, 0, w, ch], fill=(240, 240, 240))
    draw.rectangle([0, 0, 40, h], fill=(240, 240, 240))
    for x in range(40, w, cw):
        draw.line([x, 0, x, h], fill=line)
    for y in range(ch, h, ch):
        draw.line([0, y, w, y], fill=line)
    for row, y in enumerate(range(ch, h - ch, ch)):
        draw.text((4, y + 3), str(row + 1), fill=(80, 80, 80), font=f)
        for x in range(40, w - cw, cw):
            if rng.random() < 0.55:
                text = word(rng) if rng.random() < 0.5 else str(rng.randint(0, 99999))
                draw.text((x + 4, y + 3), text, fill=(20, 20, 20), font=f)


def calendar(rng, draw, w, h):
    weeks = rng.choice([5, 6])
    top = rng.randint(40, 120)
    cw, ch = (w - 40) // 7, (h - top - 20) // weeks
    f = font(rng, max(10, min(cw, ch) // 5))
    shade = rng.random() < 0.5
    day = 1 - rng.randint(0, 6)
    for r in range(weeks):
        for c in range(7):
            x, y = 20 + c * cw, top + r * ch
            fill = (235, 240, 250) if shade and c >= 5 else None
            draw.rectangle([x, y, x + cw, y + ch], outline=(170, 170, 170), fill=fill)
            if 1 <= day <= 31:
                draw.text((x + 6, y + 4), str(day), fill=(40, 40, 40), font=f)
            day += 1
    draw.text((20, 10), word(rng).capitalize() + " 2026", fill=(20, 20, 20), font=font(rng, 24))


def graph(rng, draw, w, h):
    step = rng.randint(8, 40)
    ink = rng.choice([(150, 200, 230), (200, 200, 200), (120, 180, 120)])
    for i, x in enumerate(range(0, w, step)):
        draw.line([x, 0, x, h], fill=ink, width=2 if i % 5 == 0 else 1)
    for i, y in enumerate(range(0, h, step)):
        draw.line([0, y, w, y], fill=ink, width=2 if i % 5 == 0 else 1)


def stripes(rng, image, w, h):
    a, b = rng.choice(THEMES)
    band = rng.randint(10, 80)
    slant = rng.choice([0, 0, 1, -1])
    vertical = rng.random() < 0.5
    pixels = image.load()
    for y in range(h):
        for x in range(w):
            t = (x if vertical else y) + slant * (y if vertical else x)
            pixels[x, y] = a if (t // band) % 2 == 0 else b


def checker(rng, draw, w, h):
    n = rng.randint(3, 7)
    a, b = rng.choice(THEMES)
    side = rng.randint(min(w, h) // 3, min(w, h) - 40) // n
    x0, y0 = rng.randint(0, w - side * n), rng.randint(0, h - side * n)
    for r in range(n):
        for c in range(n):
            x, y = x0 + c * side, y0 + r * side
            draw.rectangle([x, y, x + side - 1, y + side - 1], fill=a if (r + c) % 2 == 0 else b)


def sudoku(rng, draw, w, h):
    side = rng.randint(min(w, h) // 2, min(w, h) - 40) // 9
    x0, y0 = (w - 9 * side) // 2, (h - 9 * side) // 2
    f = font(rng, side * 2 // 3)
    for i in range(10):
        width = 3 if i % 3 == 0 else 1
        draw.line([x0 + i * side, y0, x0 + i * side, y0 + 9 * side], fill=(0, 0, 0), width=width)
        draw.line([x0, y0 + i * side, x0 + 9 * side, y0 + i * side], fill=(0, 0, 0), width=width)
    for r in range(9):
        for c in range(9):
            if rng.random() < 0.35:
                draw.text((x0 + c * side + side // 4, y0 + r * side + side // 8),
                          str(rng.randint(1, 9)), fill=(0, 0, 0), font=f)


def go(rng, draw, w, h):
    n = rng.choice([19, 13, 9])
    step = rng.randint(min(w, h) // 2, min(w, h) - 60) // (n - 1)
    x0, y0 = (w - (n - 1) * step) // 2, (h - (n - 1) * step) // 2
    pad = step
    draw.rectangle([x0 - pad, y0 - pad, x0 + (n - 1) * step + pad, y0 + (n - 1) * step + pad],
                   fill=rng.choice([(220, 179, 92), (235, 200, 130), (205, 160, 90)]))
    for i in range(n):
        draw.line([x0 + i * step, y0, x0 + i * step, y0 + (n - 1) * step], fill=(0, 0, 0))
        draw.line([x0, y0 + i * step, x0 + (n - 1) * step, y0 + i * step], fill=(0, 0, 0))
    for _ in range(rng.randint(0, n * 3)):
        x, y = x0 + rng.randrange(n) * step, y0 + rng.randrange(n) * step
        r = step * 0.47
        colour = rng.choice([(15, 15, 15), (245, 245, 245)])
        draw.ellipse([x - r, y - r, x + r, y + r], fill=colour, outline=(0, 0, 0))


def tiles(rng, draw, w, h):
    side = rng.randint(30, 160)
    base = rng.choice([(230, 230, 225), (200, 215, 230), (190, 150, 120), (90, 110, 100)])
    grout = tuple(max(0, v - rng.randint(30, 80)) for v in base)
    draw.rectangle([0, 0, w, h], fill=grout)
    for y in range(0, h, side):
        for x in range(0, w, side):
            d = rng.randint(-12, 12)
            draw.rectangle([x + 2, y + 2, x + side - 3, y + side - 3],
                           fill=tuple(max(0, min(255, v + d)) for v in base))


def crossword(rng, draw, w, h):
    n = rng.choice([13, 15])
    side = rng.randint(min(w, h) // 2, min(w, h) - 40) // n
    x0, y0 = (w - n * side) // 2, (h - n * side) // 2
    black = set()
    while len(black) < n * n // 6:
        r, c = rng.randrange(n), rng.randrange(n)
        black |= {(r, c), (n - 1 - r, n - 1 - c)}
    f = font(rng, max(8, side // 3))
    number = 1
    for r in range(n):
        for c in range(n):
            x, y = x0 + c * side, y0 + r * side
            draw.rectangle([x, y, x + side, y + side], outline=(0, 0, 0),
                           fill=(0, 0, 0) if (r, c) in black else (255, 255, 255))
            if (r, c) not in black and (r == 0 or c == 0 or (r - 1, c) in black) and rng.random() < 0.6:
                draw.text((x + 2, y + 1), str(number), fill=(0, 0, 0), font=f)
                number += 1


def icons(rng, draw, w, h):
    columns = rng.randint(4, 6)
    side = w // (columns + 1)
    gap = (w - columns * side) // (columns + 1)
    draw.rectangle([0, 0, w, h], fill=rng.choice([(30, 60, 110), (240, 240, 245), (20, 20, 20)]))
    y = gap
    while y + side < h:
        for c in range(columns):
            x = gap + c * (side + gap)
            colour = tuple(rng.randint(0, 255) for _ in range(3))
            draw.rounded_rectangle([x, y, x + side * 4 // 5, y + side * 4 // 5], radius=side // 5,
                                   fill=colour)
        y += side + gap


def keyboard(rng, draw, w, h):
    rows = ["QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM"]
    key = w // 12
    f = font(rng, key // 2)
    dark = rng.random() < 0.5
    draw.rectangle([0, 0, w, h], fill=(40, 40, 45) if dark else (210, 212, 218))
    for r, letters in enumerate(rows):
        for c, letter in enumerate(letters):
            x, y = key // 2 + r * key // 3 + c * key * 11 // 10, h // 4 + r * key * 6 // 5
            draw.rounded_rectangle([x, y, x + key, y + key], radius=key // 8,
                                   fill=(80, 80, 85) if dark else (255, 255, 255))
            draw.text((x + key // 4, y + key // 5), letter,
                      fill=(240, 240, 240) if dark else (0, 0, 0), font=f)


def picture(rng, kind):
    w, h = rng.choice([(800, 600), (1000, 1000), (1280, 800), (640, 960), (1200, 900)])
    image = Image.new("RGB", (w, h), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    if kind == "stripes":
        stripes(rng, image, w, h)
    else:
        globals()[kind](rng, draw, w, h)
    return image


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    dest, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(dest, exist_ok=True)
    rng = random.Random(seed)
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        picture(rng, kind).save(os.path.join(dest, f"{kind}-{i:04}.png"))


if __name__ == "__main__":
    main()
