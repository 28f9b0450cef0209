"""Reading the charts the kernels send: a bundle's image/png, checked to be
matplotlib's, anti-aliased and drawn at twice its display size."""

import base64
import io

from PIL import Image

# tableau10's first two colours (gillab/magics/charts.py and Vega-Lite's default scheme)
BLUE = (0x4C, 0x78, 0xA8)
ORANGE = (0xF5, 0x85, 0x18)


def png_of(data, metadata):
    """The bundle's image as RGB, after checking what every chart must be."""
    image = Image.open(io.BytesIO(base64.b64decode(data["image/png"])))
    assert image.format == "PNG"
    assert image.info.get("Software", "").startswith("Matplotlib"), image.info
    size = metadata["image/png"]
    assert image.size == (2 * size["width"], 2 * size["height"])
    assert size["width"] >= 300 and size["height"] >= 150
    # anti-aliased text and lines blend into hundreds of shades; a bitmap font has a handful
    assert len(image.convert("RGB").getcolors(maxcolors=1 << 24)) > 200
    assert f'width="{size["width"]}" height="{size["height"]}"' in data["text/html"]
    return image.convert("RGB")


def pixels_near(image, colour, tolerance=12):
    """(x, y) of the pixels within tolerance of colour on every channel."""
    width = image.width
    return [(i % width, i // width) for i, p in enumerate(image.getdata())
            if all(abs(a - b) <= tolerance for a, b in zip(p, colour))]
