#!/usr/bin/env python3
"""Altered copies of a dataset written by `fenlens render --dataset`, for measuring how the
reader copes with pictures as people store and crop them. Needs Pillow.

    python3 scripts/measuring-copies.py KIND SRC DEST

KIND is one of
    turned       each picture stored turned or mirrored as JPEG, tagged with the EXIF
                 orientation (2-8 in turn) that tells a viewer how to show it as drawn (phones
                 store photos so); the first 140 pictures
    see-through  the clean pictures as PNG with every near-white pixel (all channels above
                 235) transparent, stored as black (a diagram exported with no paper)
    cut          each picture cropped through the board: a strip off one side (the four in
                 turn), 0.2 to 1.4 squares deep (in turn, steps of 0.2), category `cutD`
    dialog       a "game over" panel over about 4x2 squares in the middle of the board (white,
                 near-black or grey in turn, with a line of text)
    hints        move hints as a site shows them while a piece is picked up: dots on 3-10
                 empty squares and a mark around 0-2 pieces, in lichess's manner (green dots,
                 shaded corners; category `hints-lichess`) and chess.com's (faint grey dots and
                 rings; `hints-chesscom`) in turn
    marks        2-3 squares strongly tinted under the pieces (chess.com's red premove at 80%,
                 lichess's blue premove at 50%, a right-click red mark at 80%; categories
                 `premove-red`, `premove-blue`, `mark-red` in turn; only the pixels near the
                 square's corner colour are tinted, so flat themes are exact and textured ones
                 approximate), and 1-2 squares outlined in translucent white (a dragged piece's
                 hover square)
    tilted       each picture as a camera sees it from below its top edge (a book or screen
                 photographed at an angle): squashed to 0.5-0.85 of its height and its top
                 edge shortened to 0.7-0.95 of the bottom's (in turn), on a dark desk, category
                 `tiltH` with H the height kept
    dragged      a piece picked up and dragged, as lichess shows it: its square keeps a ghost
                 of it at 30% (lichess's .ghost opacity) and the piece itself, whole, stands
                 0.3-1.2 squares away in a random direction over whatever is there; the truth
                 stays the position before the move (clean pictures of flat themes only,
                 where a square's own colour is known from its corner)
    crooked      each picture turned by 3, 6, 10, 15, 20 or 30 degrees (in turn) on a dark
                 ground 0.3 of its size wider on each side (a photograph taken crooked),
                 category `rotD`; the first 120 pictures
    overturned   the same, turned further: by 55, 90, 125, 180, 235 or 270 degrees (a page
                 photographed sideways or upside down, a screenshot turned over), so that
                 the board's pieces stand on their sides or heads once it is squared up;
                 category `rotD`; the first 120 pictures
    thumbnails   game positions of the clean and overlay pictures shrunk (Lanczos) until the
                 board is 64, 96 or 128 pixels wide (in turn), as sites show games in lists
                 and previews, category `thumbN` with N the board's width
    desktop      each picture pasted at its own size into a whole-screen screenshot of
                 2560x1440 or 3840x2160 (in turn) with a browser's tab bar, a side panel of
                 text lines, a move list and a small board-like preview (8x8 squares of
                 another palette, a fifth of the board's width) beside the board, on a dark or
                 light page (in turn), category `desktopW` with W the screen's width

The manifest is copied with the new file names (the truth stays the drawn placement; corners
move with a crop), so `fenlens eval DEST --verbose` shows what was misread and flagged:

    fenlens render --dataset /tmp/held2c --count 200 --seed 2026 --mix clean \\
        --pieces-root ../shared/pieces/lichess --only-sets merida,chessnut,fantasy,governor,staunty \\
        --boards-dir ../shared/boards/lichess
    python3 scripts/measuring-copies.py dialog /tmp/held2c /tmp/dialog
    fenlens eval /tmp/dialog
"""
import json
import math
import os
import random
import sys

from PIL import Image, ImageDraw

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
TURNED_COUNT = 140


def board_box(row):
    """The board's left, top and square size in the picture."""
    corners = row["boards"][0]["corners"]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys), (max(xs) - min(xs)) / 8


def turned(i, row, picture, dest):
    if i >= TURNED_COUNT:
        return None
    tag = 2 + i % 7
    exif = Image.Exif()
    exif[0x0112] = tag
    name = "images/%06d.jpg" % i
    picture.convert("RGB").transpose(STORED[tag]).save(
        os.path.join(dest, name), quality=92, exif=exif
    )
    row["category"] = "exif%d" % tag
    return name


def see_through(i, row, picture, dest):
    if row["category"] != "clean":
        return None
    rgba = picture.convert("RGBA")
    pixels = rgba.load()
    for y in range(rgba.height):
        for x in range(rgba.width):
            if min(pixels[x, y][:3]) > 235:
                pixels[x, y] = (0, 0, 0, 0)
    name = "images/%06d.png" % i
    rgba.save(os.path.join(dest, name))
    return name


def cut(i, row, picture, dest):
    left, top, right, bottom, square = board_box(row)
    depth = square * (0.2 + 0.2 * (i // 4 % 7))
    box = [0, 0, picture.width, picture.height]
    side = i % 4
    if side == 0:
        box[0] = round(left + depth)
    elif side == 1:
        box[1] = round(top + depth)
    elif side == 2:
        box[2] = round(right - depth)
    else:
        box[3] = round(bottom - depth)
    cropped = picture.convert("RGB").crop(tuple(box))
    name = "images/%06d.png" % i
    cropped.save(os.path.join(dest, name))
    moved = [[x - box[0], y - box[1]] for x, y in row["boards"][0]["corners"]]
    row["category"] = "cut%.1f" % (depth / square)
    row["width"], row["height"] = cropped.width, cropped.height
    row["corners"] = moved
    row["boards"][0]["corners"] = moved
    return name


def dialog(i, row, picture, dest):
    left, top, _, _, square = board_box(row)
    picture = picture.convert("RGB")
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
    return name


def displayed_pieces(row):
    """The piece (FEN letter or '.') on each displayed cell, rows from the top."""
    board = row["boards"][0]
    rows = []
    for rank in board["placement"].split("/"):
        cells = []
        for ch in rank:
            cells += ["."] * int(ch) if ch.isdigit() else [ch]
        rows.append(cells)
    if board["flipped"]:
        rows = [list(reversed(r)) for r in reversed(rows)]
    return rows


def hints(i, row, picture, dest):
    left, top, _, _, square = board_box(row)
    rng = random.Random(i)
    pieces = displayed_pieces(row)
    cells = [(col, r) for r in range(8) for col in range(8)]
    empty = [c for c in cells if pieces[c[1]][c[0]] == "."]
    taken = [c for c in cells if pieces[c[1]][c[0]] != "."]
    lichess = i % 2 == 0
    layer = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for col, r in rng.sample(empty, min(len(empty), rng.randint(3, 10))):
        cx, cy = left + (col + 0.5) * square, top + (r + 0.5) * square
        # lichess: radial-gradient(rgba(20,85,30,0.5) 19%, transparent 20%) of the half
        # diagonal; chess.com: a disc a third of the square across, black at 14%.
        radius = square * (0.134 if lichess else 0.16)
        fill = (20, 85, 30, 128) if lichess else (0, 0, 0, 36)
        draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=fill)
    for col, r in rng.sample(taken, min(len(taken), rng.randint(0, 2))):
        x0, y0 = left + col * square, top + r * square
        if lichess:
            # transparent within 80% of the half diagonal, rgba(20,85,0,0.3) beyond.
            mask = Image.new("L", (round(square), round(square)), 77)
            reach = 0.566 * square
            centre = square / 2
            ImageDraw.Draw(mask).ellipse(
                [centre - reach, centre - reach, centre + reach, centre + reach], fill=0
            )
            shade = Image.new("RGBA", mask.size, (20, 85, 0, 255))
            shade.putalpha(mask)
            layer.alpha_composite(shade, (round(x0), round(y0)))
        else:
            draw.ellipse(
                [x0, y0, x0 + square, y0 + square],
                outline=(0, 0, 0, 36),
                width=max(1, round(0.1 * square)),
            )
    picture = Image.alpha_composite(picture.convert("RGBA"), layer).convert("RGB")
    row["category"] = "hints-lichess" if lichess else "hints-chesscom"
    name = "images/%06d.png" % i
    picture.save(os.path.join(dest, name))
    return name


def marks(i, row, picture, dest):
    left, top, _, _, square = board_box(row)
    rng = random.Random(i)
    picture = picture.convert("RGB")
    pixels = picture.load()
    tint, alpha = [((244, 42, 50), 0.8), ((20, 30, 85), 0.5), ((235, 97, 80), 0.8)][i % 3]
    for _ in range(rng.randint(2, 3)):
        col, r = rng.randrange(8), rng.randrange(8)
        x0, y0 = round(left + col * square), round(top + r * square)
        x1 = min(round(left + (col + 1) * square), picture.width)
        y1 = min(round(top + (r + 1) * square), picture.height)
        # Under the pieces: only the square's own colour (as at its corner) is tinted.
        ref = pixels[min(x0 + 2, picture.width - 1), min(y0 + 2, picture.height - 1)]
        for y in range(y0, y1):
            for x in range(x0, x1):
                p = pixels[x, y]
                if sum(abs(p[k] - ref[k]) for k in range(3)) < 40:
                    pixels[x, y] = tuple(round(p[k] * (1 - alpha) + tint[k] * alpha) for k in range(3))
    layer = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for _ in range(rng.randint(1, 2)):
        col, r = rng.randrange(8), rng.randrange(8)
        x0, y0 = left + col * square, top + r * square
        draw.rectangle(
            [x0, y0, x0 + square - 1, y0 + square - 1],
            outline=(255, 255, 255, 166),
            width=max(1, round(0.06 * square)),
        )
    picture = Image.alpha_composite(picture.convert("RGBA"), layer).convert("RGB")
    row["category"] = ["premove-red", "premove-blue", "mark-red"][i % 3]
    name = "images/%06d.png" % i
    picture.save(os.path.join(dest, name))
    return name


def solve(rows, values):
    """The solution of a square linear system (Gaussian elimination with pivoting)."""
    n = len(values)
    m = [list(r) + [v] for r, v in zip(rows, values)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[col])]
    return [m[r][n] / m[r][r] for r in range(n)]


def homography(src, dst):
    """The 8 coefficients (a..h) taking each point of `src` to the matching one of `dst`:
    x' = (a x + b y + c) / (g x + h y + 1), y' = (d x + e y + f) / (g x + h y + 1)."""
    rows, values = [], []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        values += [u, v]
    return solve(rows, values)


def apply(h, point):
    x, y = point
    w = h[6] * x + h[7] * y + 1
    return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w]


def tilted(i, row, picture, dest):
    keep = 0.5 + 0.05 * (i % 8)
    top = 0.7 + 0.05 * (i // 8 % 6)
    w, h = picture.width, picture.height
    margin = 0.06 * w
    out_w, out_h = round(w + 2 * margin), round(h * keep + 2 * margin)
    inset = w * (1 - top) / 2
    corners = [(0, 0), (w, 0), (w, h), (0, h)]
    placed = [
        (margin + inset, margin),
        (margin + w - inset, margin),
        (margin + w, margin + h * keep),
        (margin, margin + h * keep),
    ]
    # PIL wants the map from the new picture back to the old one.
    back = homography(placed, corners)
    forward = homography(corners, placed)
    warped = picture.convert("RGB").transform(
        (out_w, out_h), Image.PERSPECTIVE, back, Image.BICUBIC, fillcolor=(40, 38, 36)
    )
    name = "images/%06d.jpg" % i
    warped.save(os.path.join(dest, name), quality=90)
    moved = [apply(forward, c) for c in row["boards"][0]["corners"]]
    row["category"] = "tilt%.2f" % keep
    row["width"], row["height"] = out_w, out_h
    row["corners"] = moved
    row["boards"][0]["corners"] = moved
    return name


def dragged(i, row, picture, dest):
    if row["category"] != "clean" or not row["boards"][0].get("look", "").startswith("flat"):
        return None
    left, top, _, _, square = board_box(row)
    rng = random.Random(i)
    pieces = displayed_pieces(row)
    taken = [(col, r) for r in range(8) for col in range(8) if pieces[r][col] != "."]
    if not taken:
        return None
    col, r = rng.choice(taken)
    picture = picture.convert("RGB")
    box = tuple(round(v) for v in (left + col * square, top + r * square,
                                   left + (col + 1) * square, top + (r + 1) * square))
    cell = picture.crop(box)
    ground = cell.getpixel((1, 1))
    # The piece alone: the square's pixels unlike its own colour.
    mask = Image.new("L", cell.size, 0)
    for y in range(cell.height):
        for x in range(cell.width):
            if sum(abs(a - b) for a, b in zip(cell.getpixel((x, y)), ground)) > 30:
                mask.putpixel((x, y), 255)
    ghost = Image.blend(Image.new("RGB", cell.size, ground), cell, 0.3)
    picture.paste(ghost, box[:2])
    angle = rng.uniform(0, 2 * math.pi)
    reach = rng.uniform(0.3, 1.2) * square
    at = (round(box[0] + reach * math.cos(angle)), round(box[1] + reach * math.sin(angle)))
    picture.paste(cell, at, mask)
    row["category"] = "dragged"
    name = "images/%06d.png" % i
    picture.save(os.path.join(dest, name))
    return name


CROOKED_ANGLES = [3, 6, 10, 15, 20, 30]
CROOKED_COUNT = 120


def crooked(i, row, picture, dest):
    if i >= CROOKED_COUNT:
        return None
    return turned_on_ground(i, row, picture, dest, CROOKED_ANGLES[i % len(CROOKED_ANGLES)])


OVERTURNED_ANGLES = (55, 90, 125, 180, 235, 270)


def overturned(i, row, picture, dest):
    if i >= CROOKED_COUNT:
        return None
    return turned_on_ground(i, row, picture, dest, OVERTURNED_ANGLES[i % len(OVERTURNED_ANGLES)])


def turned_on_ground(i, row, picture, dest, degrees):
    """The picture turned by `degrees` on a dark ground 0.3 of its size wider on each side; the
    board's corners move with it, still named from the board's own top-left."""
    picture = picture.convert("RGB")
    w, h = picture.size
    margin = int(0.3 * max(w, h))
    ground = Image.new("RGB", (w + 2 * margin, h + 2 * margin), (45, 45, 48))
    ground.paste(picture, (margin, margin))
    turned = ground.rotate(degrees, resample=Image.BICUBIC, fillcolor=(45, 45, 48))
    # Pillow turns counter-clockwise on the screen (y pointing down) about the centre.
    cx, cy = ground.width / 2, ground.height / 2
    t = math.radians(degrees)

    def moved(p):
        x, y = p[0] + margin - cx, p[1] + margin - cy
        return [cx + x * math.cos(t) + y * math.sin(t), cy - x * math.sin(t) + y * math.cos(t)]

    corners = [moved(p) for p in row["boards"][0]["corners"]]
    name = "images/%06d.png" % i
    turned.save(os.path.join(dest, name))
    row["category"] = "rot%02d" % degrees
    row["width"], row["height"] = turned.size
    row["corners"] = corners
    row["boards"][0]["corners"] = corners
    return name


THUMBNAIL_SIDES = (64, 96, 128)
# How many thumbnails are made so far: the sides go in turn over the pictures kept (the
# renderer's kinds go in turn too, so the picture's own number would skip a side).
thumbnails_made = [0]


def thumbnails(i, row, picture, dest):
    if row["category"] not in ("clean", "overlay") or row["boards"][0]["position"] != "game":
        return None
    left, top, right, bottom, square = board_box(row)
    side = THUMBNAIL_SIDES[thumbnails_made[0] % len(THUMBNAIL_SIDES)]
    thumbnails_made[0] += 1
    scale = side / (right - left)
    picture = picture.convert("RGB")
    size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
    small = picture.resize(size, Image.LANCZOS)
    name = "images/%06d.png" % i
    small.save(os.path.join(dest, name))
    corners = [[x * scale, y * scale] for x, y in row["boards"][0]["corners"]]
    row["category"] = "thumb%d" % side
    row["width"], row["height"] = small.size
    row["corners"] = corners
    row["boards"][0]["corners"] = corners
    return name


DESKTOP_SCREENS = ((2560, 1440), (3840, 2160))
DESKTOP_PAGES = (
    # page, panels, text
    ((22, 21, 18), (38, 36, 33), (186, 186, 186)),
    ((240, 240, 240), (255, 255, 255), (60, 60, 60)),
)


def desktop(i, row, picture, dest):
    rng = random.Random(i)
    width, height = DESKTOP_SCREENS[i % len(DESKTOP_SCREENS)]
    page, panel, ink = DESKTOP_PAGES[(i // len(DESKTOP_SCREENS)) % len(DESKTOP_PAGES)]
    picture = picture.convert("RGB")
    screen = Image.new("RGB", (width, height), page)
    draw = ImageDraw.Draw(screen)
    bar = height // 18
    # Tab bar and address bar.
    draw.rectangle([0, 0, width, bar], fill=panel)
    for t in range(rng.randint(3, 8)):
        x = 10 + t * width // 9
        draw.rounded_rectangle([x, bar // 6, x + width // 10, bar - 4], 6, fill=page)
        draw.text((x + 12, bar // 3), "Tab %d - chess" % t, fill=ink)
    draw.rectangle([width // 8, bar + 8, width - width // 8, 2 * bar - 8], fill=panel)
    draw.text((width // 8 + 16, bar + bar // 3), "https://example.org/game/%d" % i, fill=ink)
    top = 2 * bar + rng.randint(10, height // 10)
    left = rng.randint(width // 6, width // 3)
    if top + picture.height > height or left + picture.width > width:
        return None
    # A side panel of text lines left of the board, a move list right of it.
    draw.rectangle([10, top, left - 30, top + picture.height], fill=panel)
    for line in range(rng.randint(6, 20)):
        y = top + 20 + line * 28
        if y > top + picture.height - 20:
            break
        draw.text((30, y), "Player %d  (%d)" % (line, 1500 + 37 * line), fill=ink)
    moves_left = left + picture.width + 40
    draw.rectangle([moves_left, top, width - 10, top + picture.height], fill=panel)
    for move in range(rng.randint(5, 30)):
        y = top + 16 + move * 24
        if y > top + picture.height - 20:
            break
        draw.text((moves_left + 20, y), "%d. e4 e5  Nf3 Nc6" % (move + 1), fill=ink)
    # A small board-like preview under the move list.
    square = max(4, picture.width // 40)
    px, py = moves_left + 20, min(height - 8 * square - 10, top + picture.height + 30)
    for r in range(8):
        for f in range(8):
            colour = (200, 200, 170) if (r + f) % 2 == 0 else (110, 140, 90)
            draw.rectangle(
                [px + f * square, py + r * square, px + (f + 1) * square - 1, py + (r + 1) * square - 1],
                fill=colour,
            )
    screen.paste(picture, (left, top))
    corners = [[x + left, y + top] for x, y in row["boards"][0]["corners"]]
    name = "images/%06d.png" % i
    screen.save(os.path.join(dest, name))
    row["category"] = "desktop%d" % width
    row["width"], row["height"] = width, height
    row["corners"] = corners
    row["boards"][0]["corners"] = corners
    return name


KINDS = {
    "turned": turned,
    "see-through": see_through,
    "cut": cut,
    "dialog": dialog,
    "hints": hints,
    "marks": marks,
    "tilted": tilted,
    "crooked": crooked,
    "overturned": overturned,
    "dragged": dragged,
    "thumbnails": thumbnails,
    "desktop": desktop,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    kind, src, dest = sys.argv[1:4]
    os.makedirs(os.path.join(dest, "images"), exist_ok=True)
    with open(os.path.join(dest, "manifest.jsonl"), "w") as manifest:
        for i, line in enumerate(open(os.path.join(src, "manifest.jsonl"))):
            row = json.loads(line)
            if len(row["boards"]) != 1:
                continue
            picture = Image.open(os.path.join(src, row["file"]))
            name = KINDS[kind](i, row, picture, dest)
            if name is not None:
                row["file"] = name
                manifest.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
