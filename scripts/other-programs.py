#!/usr/bin/env python3
"""Chessboard pictures drawn by other programs, for measuring only (never for training): the
renderers `../shared/devset` was drawn with (python-chess's `chess.svg` rasterized by
CairoSVG; the PyPI packages `chessboard-image`, all seven of its themes, and `fen2pil`), under
harder conditions than the devset's. Run it through `scripts/other-programs`, which installs
those packages in a virtual environment of its own:

    scripts/other-programs DEST COUNT SEED
    fenlens eval DEST

Each picture: a position from random legal play (8-110 plies, captures preferred a little, so
that some are sparse endgames), shown from Black's side 30% of the time; drawn 320-800 pixels
by one of the three programs (`chess.svg` with coordinates in its margin half the time, a
last-move highlight, a check mark, arrows and squares marked with an X (`squares=`, counted as
`marks` in the manifest) now and then, seven square palettes;
`chessboard-image` with its coordinates in a 20-pixel margin 40% of the time); then, in equal
shares, the kinds of `fenlens eval`:
    clean       the picture as drawn (`overlay` where `chess.svg` drew highlights, arrows or
                marks)
    screenshot  pasted into a 1024-1440 pixel page with a menu bar and a move list
    small       shrunk to a 100-200 pixel board
    photo       the picture, or the page, photographed: turned up to 8 degrees, corners
                jittered, uneven light, a colour cast, noise, blur and JPEG
Clean, screenshot and small pictures are stored as JPEG (quality 35-85) a third of the time.
`manifest.jsonl` is in the format `fenlens render --dataset` writes, with the board's corners
carried through every step, so `fenlens eval` reports corner errors too.
"""
import io
import json
import math
import os
import random
import sys

import cairosvg
import chess
import chess.svg
import chessboard_image
import fen2pil.draw
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

THEMES = ["alpha", "wikipedia", "uscf", "wisteria", "sakura", "maestro", "symbol"]
SVG_PALETTES = [None, ("#eeeed2", "#769656"), ("#dee3e6", "#8ca2ad"), ("#e8e8e8", "#a0a0a0"),
                ("#f0f0f0", "#c8c8c8"), ("#ffffdd", "#86a666"), ("#eae9d2", "#4b7399")]
FEN2PIL_PALETTES = [((255, 253, 208), (76, 153, 0)), ((240, 217, 181), (181, 136, 99)),
                    ((230, 230, 230), (120, 120, 140))]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def position(rng):
    """A position from random legal play, and its last move."""
    board = chess.Board()
    last = None
    for _ in range(rng.randint(8, 110)):
        moves = list(board.legal_moves)
        if not moves:
            break
        captures = [m for m in moves if board.is_capture(m)]
        last = rng.choice(captures) if captures and rng.random() < 0.4 else rng.choice(moves)
        board.push(last)
    return board, last


def no_overlays():
    """The overlays of a picture drawn without any."""
    return {"highlights": 0, "arrows": 0, "check": False, "marks": 0}


def square_corners(left, top, side):
    return [[left, top], [left + side, top], [left + side, top + side], [left, top + side]]


def draw_svg(rng, board, last, flipped, size):
    """python-chess's SVG, rasterized: picture, board corners, coordinates, overlays."""
    coordinates = rng.random() < 0.5
    kw = dict(orientation=chess.BLACK if flipped else chess.WHITE, size=size,
              coordinates=coordinates)
    overlays = no_overlays()
    if last is not None and rng.random() < 0.4:
        kw["lastmove"] = last
        overlays["highlights"] = 2
    if board.is_check():
        kw["check"] = board.king(board.turn)
        overlays["check"] = True
    if rng.random() < 0.25:
        squares = list(chess.SQUARES)
        kw["arrows"] = [chess.svg.Arrow(rng.choice(squares), rng.choice(squares))
                        for _ in range(rng.randint(1, 2))]
        overlays["arrows"] = len(kw["arrows"])
    if rng.random() < 0.15:
        kw["squares"] = chess.SquareSet(rng.sample(list(chess.SQUARES), rng.randint(1, 4)))
        overlays["marks"] = len(kw["squares"])
    palette = rng.choice(SVG_PALETTES)
    if palette:
        kw["colors"] = {"square light": palette[0], "square dark": palette[1]}
    svg = chess.svg.board(board, **kw)
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=size, output_height=size)
    # chess.svg's view box: 8 squares of 45 units, and a 15-unit margin for coordinates.
    full, offset = (390, 15) if coordinates else (360, 0)
    scale = size / full
    corners = square_corners(offset * scale, offset * scale, 360 * scale)
    look = "svg:" + (palette[1] if palette else "default")
    return Image.open(io.BytesIO(png)).convert("RGB"), corners, coordinates, "cburnett-svg", look, overlays


def draw_chessboard_image(rng, board, flipped, size):
    """chessboard-image: a theme's pieces and colours, coordinates in a 20-pixel margin."""
    theme = rng.choice(THEMES)
    coordinates = rng.random() < 0.4
    picture = chessboard_image.generate_pil(
        board.board_fen(), size=size, theme_name=theme,
        player_pov="black" if flipped else "white", show_coordinates=coordinates)
    margin = 20 if coordinates else 0
    corners = square_corners(margin, margin, 8 * (size // 8))
    return (picture.convert("RGB"), corners, coordinates, "chessboard-image-" + theme,
            "ci:" + theme, no_overlays())


def draw_fen2pil(rng, board, flipped, size):
    """fen2pil: its own pieces on three palettes, no coordinates."""
    size -= size % 8
    light, dark = rng.choice(FEN2PIL_PALETTES)
    picture = fen2pil.draw.transform_fen_pil(
        fen=board.board_fen(), board_size=size, light_color=light, dark_color=dark,
        perspective=1 if flipped else 0)
    return picture.convert("RGB"), square_corners(0, 0, size), False, "fen2pil", "fen2pil", no_overlays()


def page(rng, picture, corners):
    """The picture pasted into a page with a menu bar and a move list."""
    width, height = rng.choice([(1280, 800), (1440, 900), (1024, 768)])
    background = tuple(rng.randint(20, 250) for _ in range(3))
    canvas = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(canvas)
    font = ImageFont.truetype(FONT, 14)
    side = min(picture.size[0], int(height * rng.uniform(0.55, 0.85)))
    scale = side / picture.size[0]
    picture = picture.resize((side, round(picture.size[1] * scale)), Image.LANCZOS)
    x = rng.randint(10, width - picture.size[0] - 10)
    y = rng.randint(40, max(41, height - picture.size[1] - 10))
    draw.rectangle([0, 0, width, 32], fill=tuple(max(0, c - 40) for c in background))
    for i in range(6):
        word = rng.choice(["File", "Analysis", "Play", "Puzzles", "Learn", "Watch"])
        draw.text((10 + i * 120, 9), word, fill=(230, 230, 230), font=font)
    panel = x + picture.size[0] + 20
    if panel < width - 100:
        draw.rectangle([panel, y, width - 10, y + picture.size[1]],
                       fill=tuple(min(255, c + 25) for c in background))
        for i in range(rng.randint(5, 25)):
            move = rng.choice(["e4 e5", "Nf3 Nc6", "Bb5 a6", "d4 exd4", "O-O Nf6", "Re1 b5"])
            draw.text((panel + 10, y + 10 + i * 20), f"{i + 1}. {move}", fill=(20, 20, 20), font=font)
    canvas.paste(picture, (x, y))
    return canvas, [[x + cx * scale, y + cy * scale] for cx, cy in corners]


def homography(src, dst):
    """The 3x3 matrix mapping the four points `src` onto `dst`."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rhs.append(u)
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs.append(v)
    h = np.linalg.solve(np.array(rows, float), np.array(rhs, float))
    return np.append(h, 1.0).reshape(3, 3)


def photo(rng, picture, corners):
    """The picture photographed: turned, corners jittered, uneven light, cast, noise, blur."""
    w, h = picture.size
    scale = rng.uniform(0.8, 1.2)
    width, height = int(w * scale * 1.25), int(h * scale * 1.25)
    turn = math.radians(rng.uniform(-8, 8))
    jitter = 0.05 * min(w, h) * scale / 2
    landed = []
    for sx, sy in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
        x, y = sx * w * scale / 2, sy * h * scale / 2
        x, y = x * math.cos(turn) - y * math.sin(turn), x * math.sin(turn) + y * math.cos(turn)
        landed.append((width / 2 + x + rng.uniform(-jitter, jitter),
                       height / 2 + y + rng.uniform(-jitter, jitter)))
    picture_corners = [(0, 0), (w, 0), (w, h), (0, h)]
    to_picture = homography(landed, picture_corners)
    to_photo = homography(picture_corners, landed)
    background = tuple(rng.randint(10, 60) for _ in range(3))
    canvas = picture.transform((width, height), Image.PERSPECTIVE, tuple(to_picture.flatten()[:8]),
                               Image.BICUBIC, fillcolor=background)
    pixels = np.asarray(canvas).astype(np.float32)
    yy, xx = np.mgrid[0:height, 0:width]
    gx, gy = rng.uniform(-1, 1), rng.uniform(-1, 1)
    light = 1 + 0.25 * (gx * (xx / width - 0.5) + gy * (yy / height - 0.5))
    cast = np.array([rng.uniform(0.9, 1.1) for _ in range(3)])
    noise = np.random.default_rng(rng.randint(0, 1 << 30)).normal(0, rng.uniform(2, 8), pixels.shape)
    pixels = pixels * light[..., None] * cast + noise
    canvas = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    canvas = canvas.filter(ImageFilter.GaussianBlur(rng.uniform(0.4, 1.4)))
    moved = []
    for x, y in corners:
        u, v, s = to_photo @ np.array([x, y, 1.0])
        moved.append([u / s, v / s])
    return canvas, moved


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    dest, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(os.path.join(dest, "images"), exist_ok=True)
    kinds = ["clean", "screenshot", "small", "photo"]
    with open(os.path.join(dest, "manifest.jsonl"), "w") as manifest:
        for index in range(count):
            board, last = position(rng)
            flipped = rng.random() < 0.3
            size = rng.choice([320, 400, 480, 560, 640, 800])
            which = rng.random()
            if which < 0.35:
                drawn = draw_svg(rng, board, last, flipped, size)
            elif which < 0.8:
                drawn = draw_chessboard_image(rng, board, flipped, size)
            else:
                drawn = draw_fen2pil(rng, board, flipped, size)
            picture, corners, coordinates, pieces, look, overlays = drawn
            kind = kinds[index % len(kinds)]
            degradations = []
            if kind == "clean" and any(overlays.values()):
                kind = "overlay"
            elif kind == "screenshot":
                picture, corners = page(rng, picture, corners)
            elif kind == "small":
                side = rng.randint(100, 200)
                scale = side / picture.size[0]
                picture = picture.resize((side, round(picture.size[1] * scale)), Image.LANCZOS)
                corners = [[x * scale, y * scale] for x, y in corners]
            elif kind == "photo":
                if rng.random() < 0.5:
                    picture, corners = page(rng, picture, corners)
                picture, corners = photo(rng, picture, corners)
            quality = None
            if kind == "photo" or rng.random() < 1 / 3:
                quality = rng.randint(35, 85)
                degradations.append(f"jpeg:{quality}")
            name = f"images/{index:06d}." + ("jpg" if quality else "png")
            path = os.path.join(dest, name)
            if quality:
                picture.save(path, quality=quality)
            else:
                picture.save(path)
            pieces_shown = sum(1 for _ in board.piece_map())
            truth = {
                "placement": board.board_fen(), "flipped": flipped,
                "corners": [[round(x, 3), round(y, 3)] for x, y in corners],
                "coords": "outside" if coordinates else "none", "pieces": pieces,
                "look": look, "position": "endgame" if pieces_shown <= 10 else "game",
                "highlights": overlays["highlights"], "arrows": overlays["arrows"], "circles": 0,
                "check": overlays["check"], "marks": overlays["marks"],
            }
            entry = {
                "file": name, "category": kind, "width": picture.size[0],
                "height": picture.size[1], "placement": truth["placement"], "flipped": flipped,
                "corners": truth["corners"], "boards": [truth], "decoys": [],
                "degradations": degradations, "seed": seed, "index": index,
            }
            manifest.write(json.dumps(entry) + "\n")


if __name__ == "__main__":
    main()
