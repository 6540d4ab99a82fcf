"""Pictures for the demo library, drawn with Pillow: gradients and shapes that look like a
sunset, a harbour, a garden, a picnic and a dashboard. Deterministic, pixel for pixel."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFilter

Size = tuple[int, int]
RGB = tuple[int, int, int]
LANDSCAPE: Size = (640, 480)


def gradient(size: Size, top: RGB, bottom: RGB) -> Image.Image:
    mask = Image.linear_gradient("L").resize(size)  # black at the top, white at the bottom
    return Image.composite(Image.new("RGB", size, bottom), Image.new("RGB", size, top), mask)


def sunset() -> Image.Image:
    image = gradient(LANDSCAPE, (255, 140, 60), (110, 40, 120))
    draw = ImageDraw.Draw(image)
    draw.ellipse((260, 200, 380, 320), fill=(255, 214, 90))
    draw.rectangle((0, 300, 640, 480), fill=(30, 40, 90))
    for row in range(310, 470, 14):  # the sun's reflection on the water
        half = max(8, 60 - (row - 310) // 3)
        draw.line((320 - half, row, 320 + half, row), fill=(240, 180, 80), width=3)
    return image


def harbour(shift: int = 0) -> Image.Image:
    image = gradient(LANDSCAPE, (120, 180, 235), (225, 240, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 300, 640, 480), fill=(40, 90, 140))
    for n, x in enumerate(range(60 + shift, 640, 150)):
        hull = (200, 60, 50) if n % 2 else (245, 245, 240)
        draw.polygon([(x, 330), (x + 90, 330), (x + 75, 360), (x + 15, 360)], fill=hull)
        draw.line((x + 45, 330, x + 45, 250), fill=(90, 70, 50), width=3)
        draw.polygon([(x + 47, 255), (x + 47, 325), (x + 85, 325)], fill=(250, 250, 250))
    return image


def garden(variant: int = 0) -> Image.Image:
    image = gradient(LANDSCAPE, (150, 200, 120), (40, 110, 40))
    draw = ImageDraw.Draw(image)
    colours = [(230, 40, 70), (250, 200, 40), (240, 120, 180), (250, 250, 250)]
    for n in range(24):
        x = 30 + (n * 97 + variant * 41) % 580
        y = 200 + (n * 53 + variant * 17) % 250
        draw.line((x, y, x, y + 60), fill=(30, 90, 30), width=4)
        draw.ellipse((x - 14, y - 14, x + 14, y + 14), fill=colours[(n + variant) % len(colours)])
    return image.filter(ImageFilter.GaussianBlur(2)) if variant else image


def picnic() -> Image.Image:
    """Drawn upright as a phone held in portrait shows it (480x640)."""
    image = gradient((480, 640), (140, 200, 250), (90, 160, 70))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 380, 480, 640), fill=(80, 150, 60))
    draw.rectangle((60, 470, 420, 600), fill=(220, 60, 60))  # the blanket
    for x, shirt in ((150, (40, 80, 200)), (310, (250, 190, 40))):
        draw.ellipse((x - 30, 300, x + 30, 360), fill=(230, 190, 160))
        draw.rectangle((x - 40, 360, x + 40, 480), fill=shirt)
    return image


def dashboard() -> Image.Image:
    image = Image.new("RGB", (800, 500), (244, 246, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 800, 48), fill=(35, 48, 77))
    for n, height in enumerate((120, 180, 150, 240, 210, 280, 260)):
        draw.rectangle((60 + n * 70, 440 - height, 100 + n * 70, 440), fill=(70, 130, 220))
    draw.rectangle((560, 80, 770, 200), fill=(255, 255, 255), outline=(210, 214, 222))
    draw.rectangle((560, 230, 770, 350), fill=(255, 255, 255), outline=(210, 214, 222))
    return image


def blurry() -> Image.Image:
    return harbour(40).filter(ImageFilter.GaussianBlur(9))


def river() -> Image.Image:
    image = gradient(LANDSCAPE, (250, 170, 110), (60, 70, 120))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 320, 640, 480), fill=(40, 60, 100))
    for n, x in enumerate(range(0, 640, 64)):  # the houses along the quay
        draw.rectangle((x + 4, 200 + (n % 3) * 15, x + 58, 320), fill=[(210, 120, 80), (230, 200, 120), (180, 80, 70)][n % 3])
    return image


def street() -> Image.Image:
    image = gradient(LANDSCAPE, (200, 210, 220), (120, 120, 125))
    draw = ImageDraw.Draw(image)
    draw.polygon([(250, 480), (390, 480), (330, 260), (310, 260)], fill=(70, 70, 75))
    for x in (60, 480):
        draw.rectangle((x, 120, x + 100, 400), fill=(160, 110, 90))
    return image
