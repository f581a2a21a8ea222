#!/usr/bin/env python3
"""Renders a terminal capture (`tmux capture-pane -e -p`: text with ANSI SGR colour
sequences) to a PNG, cell by cell, in DejaVu Sans Mono. Used by make.sh; needs Pillow.

Usage: render_png.py CAPTURE.ansi OUT.png [COLUMNS ROWS]
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

# The 16 colours of a dark terminal theme (xterm's defaults, a little softened).
PALETTE16 = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]
FG, BG = (204, 204, 204), (24, 24, 24)


def colour256(n):
    if n < 16:
        return PALETTE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def parse(text):
    """Yields rows of (char, fg, bg, bold)."""
    sgr = re.compile(r"\x1b\[([0-9;]*)m")
    fg, bg, bold, rev = FG, BG, False, False
    for line in text.split("\n"):
        row = []
        pos = 0
        for m in list(sgr.finditer(line)) + [None]:
            end = m.start() if m else len(line)
            for ch in re.sub(r"\x1b[^m]*m?", "", line[pos:end]):
                f, b = (bg, fg) if rev else (fg, bg)
                row.append((ch, f, b, bold))
            if not m:
                break
            pos = m.end()
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold, rev = FG, BG, False, False
                elif c == 1:
                    bold = True
                elif c == 22:
                    bold = False
                elif c == 7:
                    rev = True
                elif c == 27:
                    rev = False
                elif 30 <= c <= 37:
                    fg = PALETTE16[c - 30]
                elif 90 <= c <= 97:
                    fg = PALETTE16[c - 90 + 8]
                elif 40 <= c <= 47:
                    bg = PALETTE16[c - 40]
                elif 100 <= c <= 107:
                    bg = PALETTE16[c - 100 + 8]
                elif c == 39:
                    fg = FG
                elif c == 49:
                    bg = BG
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    col = colour256(codes[i + 2])
                    if c == 38:
                        fg = col
                    else:
                        bg = col
                    i += 2
                elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                    col = tuple(codes[i + 2:i + 5])
                    if c == 38:
                        fg = col
                    else:
                        bg = col
                    i += 4
                i += 1
        yield row


def main():
    src, out = sys.argv[1], sys.argv[2]
    cols = int(sys.argv[3]) if len(sys.argv) > 3 else 80
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else 24
    text = open(src, encoding="utf-8", errors="replace").read()
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 15)
    bold = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", 15)
    cw = round(font.getlength("M"))
    ch = 19
    img = Image.new("RGB", (cols * cw + 16, rows * ch + 16), BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(list(parse(text))[:rows]):
        for x, (c, f, b, is_bold) in enumerate(row[:cols]):
            px, py = 8 + x * cw, 8 + y * ch
            if b != BG:
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=b)
            if c != " ":
                d.text((px, py + 1), c, fill=f, font=bold if is_bold else font)
    img.save(out, optimize=True)


if __name__ == "__main__":
    main()
