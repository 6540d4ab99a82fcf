"""Demo files for seeds: real files that an image library reads, the same bytes every time."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from facade.kit import pixel_png


class TestPixelPng:
    """A one-pixel PNG of the colour asked for, byte-for-byte reproducible."""

    @pytest.mark.parametrize("rgb", [(200, 40, 40), (0, 0, 0), (255, 255, 255)])
    def test_a_real_png_of_that_colour(self, rgb: tuple[int, int, int]) -> None:
        with Image.open(io.BytesIO(pixel_png(rgb))) as image:
            image.load()  # decoding checks every chunk's CRC
            assert (image.format, image.size, image.mode) == ("PNG", (1, 1), "RGB")
            assert image.getpixel((0, 0)) == rgb

    def test_the_same_bytes_every_time(self) -> None:
        assert pixel_png((1, 2, 3)) == pixel_png((1, 2, 3)) != pixel_png((3, 2, 1))
