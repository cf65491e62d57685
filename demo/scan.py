"""Simulate a scanned note: rasterised pages with noise and a slight rotation, no text layer."""

from __future__ import annotations

import datetime as dt
import io

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

from demo.corpus_specs import COLLABORATION

SCAN_DPI = 200


def scan(pdf: bytes, seed: int, date: dt.date) -> tuple[bytes, int]:
    """Rasterise ``pdf`` like a photocopy: grey, slightly rotated, noisy, JPEG, no text layer."""
    rng = np.random.default_rng(seed)
    pages = []
    for page in pdfium.PdfDocument(pdf):
        image = page.render(scale=SCAN_DPI / 72, grayscale=True).to_pil().convert("L")
        image = image.rotate(float(rng.uniform(-0.9, 0.9)), resample=Image.Resampling.BICUBIC, fillcolor=255)
        pixels = np.asarray(image, dtype=np.float32) + rng.normal(0, 7, (image.height, image.width))
        pages.append(Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.5)))
    out = io.BytesIO()
    # Pillow writes greyscale pages as JPEG streams; fixed dates keep the file reproducible.
    stamp = dt.datetime.combine(date, dt.time(9, 0)).timetuple()
    pages[0].save(out, "PDF", save_all=True, append_images=pages[1:], resolution=SCAN_DPI, quality=65,
                  creationDate=stamp, modDate=stamp, producer=f"{COLLABORATION} scan station")
    return out.getvalue(), len(pages)

