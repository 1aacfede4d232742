"""Images: decoded with Pillow, re-encoded without metadata, resized to WordPress's sizes.

Pure functions over bytes (no Flask, no database). The type of an upload is what Pillow
decodes, never its name or its Content-Type; every stored file is written here from
decoded pixels, so nothing of the upload but its pixels (EXIF, GPS, XMP, comments,
text chunks) reaches a stored file. EXIF orientation is applied before it is dropped.
An animated GIF, WebP or PNG keeps every frame (with its duration, and the loop count);
its sizes are made from its first frame, as WordPress makes them.
"""

from __future__ import annotations

import io
import multiprocessing
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Pillow is imported when an image is read: 2 MB of every worker
    from PIL import Image


# Pillow format name -> (extension, mime type). Anything else is refused.
FORMATS = {
    "JPEG": ("jpg", "image/jpeg"),
    "PNG": ("png", "image/png"),
    "GIF": ("gif", "image/gif"),
    "WEBP": ("webp", "image/webp"),
}
MIME_BY_EXTENSION = {extension: mime for extension, mime in FORMATS.values()}
# JPEGs with a multi-picture index (phones' depth maps, Ultra HDR gain maps) open as MPO:
# they are JPEGs, stored as their first (main) picture.
ALIASES = {"MPO": "JPEG"}
# The formats whose frames are an animation (an MPO's other pictures are not).
ANIMATED = ("GIF", "WEBP", "PNG")
# WordPress's default sizes: name -> (width, height, crop).
SIZES = (
    ("thumbnail", 150, 150, True),
    ("medium", 300, 300, False),
    ("large", 1024, 1024, False),
)
DEFAULT_MAX_PIXELS = 50_000_000  # the MAX_IMAGE_PIXELS setting's default
# Most frames of an animation: each costs about 0.1 ms however small, and 10 MiB hold
# 270,000 frames of a few pixels (half a minute); 5,000 is over three minutes at 25 a second.
MAX_FRAMES = 5000
JPEG_QUALITY = 85
WEBP_QUALITY = 85


class InvalidImage(ValueError):
    """Not an image in an accepted format, or one that cannot be decoded whole."""


class ImageTooLarge(InvalidImage):
    """More pixels than allowed: a decompression bomb, or simply too large to handle."""


class TooManyFrames(InvalidImage):
    """An animation of more than ``MAX_FRAMES`` frames."""


@dataclass
class Encoded:
    width: int
    height: int
    data: bytes


@dataclass
class Processed:
    extension: str
    mime_type: str
    original: Encoded
    sizes: dict[str, Encoded] = field(default_factory=dict)


def _open(data: bytes, max_pixels: int) -> Image.Image:
    """Decodes ``data`` fully, refusing more than ``max_pixels`` before decoding."""
    from PIL import Image, UnidentifiedImageError  # imported when an image is read

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=list(FORMATS))
            if image.width * image.height > max_pixels:
                raise ImageTooLarge(f"{image.width}x{image.height}")
            frames = _frame_count(image)
            if frames > MAX_FRAMES:
                raise TooManyFrames(str(frames))
            if frames * image.width * image.height > max_pixels:
                raise ImageTooLarge(f"{frames} frames of {image.width}x{image.height}")
            image.load()  # the first frame; an animation's others in _frames
    except (ImageTooLarge, TooManyFrames):
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise ImageTooLarge(str(error)) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as error:
        raise InvalidImage(str(error)) from None
    except Exception as error:  # a malformed file can trip any decoder path
        raise InvalidImage(repr(error)) from None
    image.format = ALIASES.get(image.format, image.format)
    if image.format not in FORMATS or image.width < 1 or image.height < 1:
        raise InvalidImage(str(image.format))
    return image


def _frame_count(image: Image.Image) -> int:
    """The frames of an animation (1 for a still image, or a JPEG's several pictures)."""
    if image.format not in ANIMATED:
        return 1
    return getattr(image, "n_frames", 1)


def _frames(decoded: Image.Image) -> tuple[list, list[int]]:
    """Every frame of an animation, each whole (Pillow composes it on the ones before) and
    upright, with its duration in milliseconds; ([], []) for a still image."""
    from PIL import ImageSequence  # imported when an image is read

    if _frame_count(decoded) < 2:
        return [], []
    frames, durations = [], []
    for frame in ImageSequence.Iterator(decoded):
        copy = frame.copy()  # loaded: WebP sets a frame's duration when it decodes it
        durations.append(int(copy.info.get("duration", 0)))
        copy.format = decoded.format
        frames.append(_upright(copy))
    decoded.seek(0)
    return frames, durations


def _upright(image: Image.Image) -> Image.Image:
    """The decoded first frame turned upright, with no metadata but its transparency."""
    from PIL import ImageOps  # imported when an image is read

    fmt = image.format
    keep = {k: image.info[k] for k in ("transparency",) if k in image.info}
    try:
        # In place: a large image is not copied once more just to be turned upright.
        ImageOps.exif_transpose(image, in_place=True)
    except Exception:  # an unreadable EXIF block: keep the pixels as they are
        pass
    image.info = keep
    image.format = fmt
    return image


def _for_format(image: Image.Image, fmt: str) -> Image.Image:
    """A mode the format can store."""
    if fmt == "JPEG" and image.mode not in ("L", "RGB", "CMYK"):
        return image.convert("RGB")
    if fmt == "GIF" and image.mode not in ("P", "L"):
        return image.convert("RGBA" if _has_alpha(image) else "RGB")
    if fmt in ("PNG", "WEBP") and image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
        if fmt == "WEBP" or image.mode not in ("I", "I;16"):
            return image.convert("RGBA" if _has_alpha(image) else "RGB")
    return image


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def _encode(image: Image.Image, fmt: str, animation: dict | None = None) -> bytes:
    """``image`` in ``fmt`` with no metadata; ``animation``: the frames after it, their
    durations and the loop count of an animated original."""
    image = _for_format(image, fmt)
    out = io.BytesIO()
    options: dict = {}
    if animation:
        rest = [_for_format(frame, fmt) for frame in animation["frames"]]
        options = {"save_all": True, "append_images": rest, "duration": animation["durations"]}
        if animation["loop"] is not None:
            options["loop"] = animation["loop"]
    if fmt == "JPEG":
        options.update(quality=JPEG_QUALITY, optimize=True)
    elif fmt == "WEBP":
        options.update(quality=WEBP_QUALITY)
    elif fmt == "PNG":
        options.update(optimize=False)
    if "transparency" in image.info and fmt in ("PNG", "GIF"):
        options["transparency"] = image.info["transparency"]
    # No exif=, icc_profile=, pnginfo= or comment=: the file carries pixels only.
    image.save(out, format=fmt, **options)
    return out.getvalue()


def _resize_mode(image: Image.Image) -> Image.Image:
    """Palette and bilevel images are resized in a full-colour mode, 16-bit grey in 8 bits."""
    if image.mode.startswith("I"):  # I, I;16…: 16-bit samples scaled down, not clipped
        return image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    if image.mode in ("P", "1", "PA", "LA", "F"):
        return image.convert("RGBA" if _has_alpha(image) else "RGB")
    return image


def size_dimensions(width: int, height: int, box_w: int, box_h: int, crop: bool):
    """WordPress's rule: a size exists only where the original is larger; a cropped size
    is the box (or the original's side where smaller), a fitted one keeps the ratio."""
    if width <= box_w and height <= box_h:
        return None
    if crop:
        return min(width, box_w), min(height, box_h)
    scale = min(box_w / width, box_h / height)
    return max(1, round(width * scale)), max(1, round(height * scale))


# One image decoded at a time per process: a decoded image takes up to 4 bytes a pixel
# (200 MB at 50 million pixels), so threads decoding together would multiply that.
_DECODING = threading.Lock()
# Larger images are decoded in a child process that ends with the upload: a 49-megapixel
# PNG peaked at 425 MB, and a gthread worker kept such heaps (1.3 GB after four uploads).
# Up to here (16 MB decoded at 4 bytes a pixel) a worker decodes them itself.
IN_PROCESS_PIXELS = 4_000_000
# The children start from a server process that has only loaded this module (no copy of
# the worker's threads, connections or heap), a few milliseconds each.
_CHILDREN = multiprocessing.get_context("forkserver")
_CHILDREN.set_forkserver_preload(["store.images"])


def process(data: bytes, max_pixels: int) -> Processed:
    """The upload decoded and re-encoded in its own format, with each size that applies.

    Raises ``InvalidImage`` (not an accepted image, or truncated) or ``ImageTooLarge``.
    """
    with _DECODING:
        if _pixels(data) <= IN_PROCESS_PIXELS:
            return _process(data, max_pixels)
        with ProcessPoolExecutor(1, mp_context=_CHILDREN, max_tasks_per_child=1) as child:
            try:
                return child.submit(_process, data, max_pixels).result()
            except BrokenProcessPool as error:  # the child died (out of memory, killed)
                raise InvalidImage(f"could not be decoded: {error}") from None


def _pixels(data: bytes) -> int:
    """The pixels the header announces, in every frame of an animation (nothing decoded);
    0 when there is no header that Pillow reads, which ``_open`` then refuses."""
    from PIL import Image  # imported when an image is read

    try:
        with Image.open(io.BytesIO(data), formats=list(FORMATS)) as image:
            return _frame_count(image) * image.width * image.height
    except Exception:  # any decoder may trip on a malformed header
        return 0


def _process(data: bytes, max_pixels: int) -> Processed:
    from PIL import Image, ImageOps  # imported when an image is read

    decoded = _open(data, max_pixels)
    fmt = decoded.format
    extension, mime_type = FORMATS[fmt]
    try:
        loop = decoded.info.get("loop")
        frames, durations = _frames(decoded)
        image = frames[0] if frames else _upright(decoded)
        animation = frames and {"frames": frames[1:], "durations": durations, "loop": loop}
        original = Encoded(image.width, image.height, _encode(image, fmt, animation))
        result = Processed(extension, mime_type, original)
        source = _resize_mode(image)
        for name, box_w, box_h, crop in SIZES:
            dimensions = size_dimensions(image.width, image.height, box_w, box_h, crop)
            if dimensions is None:
                continue
            if crop:
                resized = ImageOps.fit(source, dimensions, Image.Resampling.LANCZOS)
            else:
                resized = source.resize(dimensions, Image.Resampling.LANCZOS, reducing_gap=3.0)
            result.sizes[name] = Encoded(*dimensions, _encode(resized, fmt))
    except (OSError, ValueError, EOFError, SyntaxError) as error:  # a later frame's decoder
        raise InvalidImage(str(error)) from None
    return result
