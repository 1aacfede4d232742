"""Images (SPEC §13): upload once, served in every size, shown by events, venues and
organizers as the reference's image object."""

import io
import os
import re
import struct
import zlib

import pytest
from PIL import Image, PngImagePlugin

from app.config import check_settings
from store import images
from store.media import FILE_NAME
from tests.conftest import NS, forget_listings
from tests.helpers import image_bytes, upload, uploaded

# The reference's image object (reference-behaviour §2.5: WordPress's attachment metadata
# without file and image_meta, each size with its url), for a 1200×900 JPEG.
REFERENCE_IMAGE = {
    "url": "http://wordpress.test/wp-content/uploads/2017/01/poster.jpg",
    "id": 12,
    "extension": "jpg",
    "width": 1200,
    "height": 900,
    "filesize": 183742,
    "sizes": {
        "thumbnail": {
            "width": 150,
            "height": 150,
            "mime-type": "image/jpeg",
            "filesize": 6411,
            "url": "http://wordpress.test/wp-content/uploads/2017/01/poster-150x150.jpg",
        },
        "medium": {
            "width": 300,
            "height": 225,
            "mime-type": "image/jpeg",
            "filesize": 14240,
            "url": "http://wordpress.test/wp-content/uploads/2017/01/poster-300x225.jpg",
        },
        "large": {
            "width": 1024,
            "height": 768,
            "mime-type": "image/jpeg",
            "filesize": 120355,
            "url": "http://wordpress.test/wp-content/uploads/2017/01/poster-1024x768.jpg",
        },
    },
}
FORMATS = {
    "JPEG": ("jpg", "image/jpeg"),
    "PNG": ("png", "image/png"),
    "GIF": ("gif", "image/gif"),
    "WEBP": ("webp", "image/webp"),
}


def noise_png(width, height) -> bytes:
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(out, "PNG")
    return out.getvalue()


def served(client, url: str):
    return client.get(url.replace("http://localhost", ""))


def decoded(client, url: str) -> Image.Image:
    response = served(client, url)
    assert response.status_code == 200
    return Image.open(io.BytesIO(response.data))


def same_shape(ours, reference, path="image"):
    """Same keys in the same order, values of the same JSON types, recursively."""
    assert type(ours) is type(reference), path
    if isinstance(reference, dict):
        assert list(ours) == list(reference), path
        for key in reference:
            same_shape(ours[key], reference[key], f"{path}.{key}")


def stored_files(app) -> list[str]:
    folder = app.config["UPLOAD_FOLDER"]
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


# --- upload -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_each_accepted_format_is_stored_with_its_sizes(client, admin, fmt):
    image = uploaded(client, admin, image_bytes(fmt), name="poster.bin")
    extension, mime = FORMATS[fmt]
    assert image["extension"] == extension
    assert (image["width"], image["height"]) == (1200, 900)
    assert {name: (s["width"], s["height"]) for name, s in image["sizes"].items()} == {
        "thumbnail": (150, 150),
        "medium": (300, 225),
        "large": (1024, 768),
    }
    for size in [image, *image["sizes"].values()]:
        response = served(client, size["url"])
        assert response.status_code == 200
        assert response.mimetype == mime
        assert len(response.data) == size["filesize"]
        assert Image.open(io.BytesIO(response.data)).format == fmt
        assert size.get("mime-type", mime) == mime


def test_representation_has_the_reference_image_objects_keys_and_types(client, admin):
    image = uploaded(client, admin, image_bytes())
    same_shape(image, REFERENCE_IMAGE)
    assert image["url"].startswith("http://localhost/wp-content/uploads/")
    assert client.get(f"{NS}/media/{image['id']}").get_json() == image


def test_sizes_exist_only_where_the_original_is_larger(client, admin):
    small = uploaded(client, admin, image_bytes(size=(120, 90)))
    assert "sizes" not in small  # the reference drops empty members
    same_shape(small, {k: v for k, v in REFERENCE_IMAGE.items() if k != "sizes"})
    wide = uploaded(client, admin, image_bytes(size=(400, 100)))
    assert {n: (s["width"], s["height"]) for n, s in wide["sizes"].items()} == {
        "thumbnail": (150, 100),
        "medium": (300, 75),
    }
    exact = uploaded(client, admin, image_bytes(size=(300, 300)))
    assert list(exact["sizes"]) == ["thumbnail"]


def test_sizes_dimensions_and_filesizes_are_those_of_the_served_files(client, admin):
    image = uploaded(client, admin, noise_png(700, 500), name="noise.png")
    assert set(image["sizes"]) == {"thumbnail", "medium"}
    for size in [image, *image["sizes"].values()]:
        response = served(client, size["url"])
        assert len(response.data) == size["filesize"]
        assert Image.open(io.BytesIO(response.data)).size == (size["width"], size["height"])


def test_images_under_a_sub_path_are_served_where_their_addresses_say(under_blog, admin):
    """An image's addresses under /blog (``source_url``, ``url``, each size's, the event's
    ``image`` and its page's ``<img>``) serve it: they named /wp-content/uploads/…, outside
    the path, a 404 (chk19s D1). The site's own upload, named by that address, is the row."""
    answer = under_blog(
        "/blog/wp-json/wp/v2/media",
        "POST",
        data=noise_png(700, 500),
        headers={
            **admin,
            "Content-Type": "image/png",
            "Content-Disposition": "attachment; filename=a.png",
        },
    )
    assert answer.status_code == 201, answer.get_json()
    uploads = "http://localhost/blog/wp-content/uploads/"
    body = {"title": "Pictured", "start_date": "2030-01-05", "end_date": "2030-01-05"}
    source = answer.get_json()["source_url"]
    made = under_blog(f"/blog{NS}/events", "POST", headers=admin, json={**body, "image": source})
    image = made.get_json()["image"]
    assert image["id"] == answer.get_json()["id"]  # the site's own upload, not a copy
    urls = [source, image["url"], *(size["url"] for size in image["sizes"].values())]
    for url in urls:
        assert url.startswith(uploads), url
        assert under_blog(url.removeprefix("http://localhost")).status_code == 200, url
    html = under_blog("/blog/event/pictured/", headers={"Accept": "text/html"}).get_data(
        as_text=True
    )
    shown = re.findall(r'<img[^>]* src="([^"]+)"', html)
    shown += [
        url for srcset in re.findall(r'srcset="([^"]+)"', html) for url in srcset.split()[::2]
    ]
    assert shown and all(url.startswith(uploads) for url in shown), shown


def test_raw_body_upload_with_content_disposition(client, admin):
    response = client.post(
        f"{NS}/media",
        data=image_bytes("PNG", size=(200, 200), mode="RGBA", colour=(0, 0, 255, 128)),
        headers={
            **admin,
            "Content-Type": "image/png",
            "Content-Disposition": 'attachment; filename="a.png"',
        },
    )
    assert response.status_code == 201, response.get_json()
    image = response.get_json()
    assert image["extension"] == "png" and image["sizes"]["thumbnail"]["width"] == 150
    assert decoded(client, image["url"]).mode == "RGBA"  # transparency kept


def test_a_raw_body_sent_as_a_form_is_read_as_the_image_on_both_routes(client, admin):
    """Found by an outside check: the README's `curl --data-binary @poster.jpg` sends the
    image as application/x-www-form-urlencoded, which was parsed away ("No data")."""
    for path in (f"{NS}/media", "/wp-json/wp/v2/media"):
        response = client.post(
            path,
            data=image_bytes("JPEG", size=(120, 90)),
            headers={
                **admin,
                "Content-Type": "application/x-www-form-urlencoded",
                "Content-Disposition": "attachment; filename=poster.jpg",
            },
        )
        assert response.status_code == 201, (path, response.get_json())


def test_uploaded_names_never_reach_the_filesystem(client, admin, app):
    for name in ("../../escape.jpg", "/etc/passwd", "a\x00b.php", "photo.jpg.php"):
        uploaded(client, admin, image_bytes(size=(160, 160)), name=name)
    files = stored_files(app)
    assert len(files) == 8  # four originals, four thumbnails
    assert all(FILE_NAME.match(name) for name in files)
    assert not os.path.exists(os.path.join(app.config["UPLOAD_FOLDER"], "..", "escape.jpg"))


def test_jpegs_with_several_pictures_are_jpegs(client, admin):
    # Phones add depth maps and HDR gain maps as extra pictures (MPO): the main one is kept.
    main, extra = Image.new("RGB", (400, 300), (250, 0, 0)), Image.new("RGB", (400, 300))
    out = io.BytesIO()
    main.save(out, "MPO", save_all=True, append_images=[extra])
    assert Image.open(io.BytesIO(out.getvalue())).format == "MPO"
    image = uploaded(client, admin, out.getvalue())
    assert image["extension"] == "jpg" and image["sizes"]["medium"]["mime-type"] == "image/jpeg"
    stored = decoded(client, image["url"])
    assert stored.format == "JPEG" and stored.getpixel((10, 10))[0] > 200


def test_the_type_is_what_decodes_not_the_name_or_content_type(client, admin):
    image = uploaded(client, admin, image_bytes("PNG", size=(50, 50)), name="looks-like.jpg")
    assert image["extension"] == "png"
    assert served(client, image["url"]).mimetype == "image/png"


# --- refused uploads ------------------------------------------------------------------------


def _bomb_png(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width``×``height`` pixels, with almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 1024))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "data,name",
    [
        (b"just some text, not an image\n" * 20, "photo.jpg"),
        (image_bytes()[:2000], "truncated.jpg"),
        (image_bytes("PNG")[:300], "truncated.png"),
        (image_bytes("BMP", size=(20, 20)), "bitmap.bmp"),
        (image_bytes("TIFF", size=(20, 20)), "scan.tiff"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>", "x.svg"),
        (b"GIF89a" + b"\x00" * 40, "broken.gif"),
    ],
)
def test_what_is_not_an_accepted_image_is_400(client, admin, app, data, name):
    response = upload(client, admin, data, name)
    assert response.status_code == 400
    body = response.get_json()
    assert body["code"] == "rest_invalid_param" and "file" in body["data"]["params"]
    assert stored_files(app) == []


def test_decompression_bombs_are_refused(client, admin, app):
    response = upload(client, admin, _bomb_png(100_000, 100_000), "bomb.png")
    assert response.status_code == 400
    assert "file" in response.get_json()["data"]["params"]
    app.config["MAX_IMAGE_PIXELS"] = 100 * 100
    response = upload(client, admin, image_bytes("PNG", size=(101, 100)), "big.png")
    assert response.status_code == 400
    assert "pixels" in response.get_json()["data"]["params"]["file"]
    assert stored_files(app) == []


def test_missing_file_is_400(client, admin):
    response = client.post(f"{NS}/media", data={"other": "x"}, headers=admin)
    assert response.status_code == 400
    assert response.get_json()["code"] == "rest_missing_callback_param"
    response = client.post(f"{NS}/media", headers=admin)
    assert response.get_json()["data"]["params"] == ["file"]


def test_bodies_over_the_upload_limit_are_413_before_being_read(client, admin, app):
    app.config["MAX_UPLOAD_BYTES"] = 20_000
    big = noise_png(120, 120)  # about 43 kB
    assert len(big) > 20_000
    response = upload(client, admin, big, "big.png")
    assert response.status_code == 413
    assert response.get_json()["code"] == "rest_payload_too_large"
    raw = client.post(f"{NS}/media", data=big, headers={**admin, "Content-Type": "image/png"})
    assert raw.status_code == 413


def test_chunked_bodies_are_refused_past_the_limit_and_accepted_below(client, admin, app):
    app.config["MAX_UPLOAD_BYTES"] = 20_000

    def chunked(data: bytes):
        return client.post(
            f"{NS}/media",
            input_stream=io.BytesIO(data),
            headers={**admin, "Content-Type": "image/png", "Transfer-Encoding": "chunked"},
            # What gunicorn sets when it de-chunks a body: the stream ends where the body does.
            environ_overrides={"wsgi.input_terminated": True},
        )

    response = chunked(noise_png(120, 120))
    assert response.status_code == 413
    assert response.get_json()["code"] == "rest_payload_too_large"
    assert chunked(image_bytes("PNG", size=(60, 60))).status_code == 201


def test_uploads_have_their_own_limit_above_the_general_one(client, admin, app):
    big = noise_png(700, 700)  # about 1.5 MB: over MAX_CONTENT_LENGTH (1 MiB)
    assert len(big) > app.config["MAX_CONTENT_LENGTH"]
    assert upload(client, admin, big, "big.png").status_code == 201
    response = client.post(f"{NS}/events", data=big, headers={**admin, "Content-Type": "x/y"})
    assert response.status_code == 413


def test_an_upload_limit_the_start_accepts_takes_a_small_image(client, admin, app):
    """MAX_UPLOAD_BYTES=10**14 passes the start's check; a small upload was then a 500
    (MemoryError: ``read(limit + 1)`` allocated the limit before reading). Bodies are read
    a chunk at a time: raw, multipart and chunked alike."""
    app.config["MAX_UPLOAD_BYTES"] = 10**14
    check_settings(app.config)
    small = image_bytes("PNG", (8, 8))
    headers = {
        **admin,
        "Content-Type": "image/png",
        "Content-Disposition": 'attachment; filename="tiny.png"',
    }
    raw = client.post(f"{NS}/media", data=small, headers=headers)
    assert raw.status_code == 201, (raw.status_code, raw.get_data()[:200])
    assert upload(client, admin, small, "tiny.png").status_code == 201
    chunked = client.post(
        f"{NS}/media",
        input_stream=io.BytesIO(small),
        headers={**headers, "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert chunked.status_code == 201


# --- metadata ------------------------------------------------------------------------------


def _exif_with_gps() -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = "SpyCam"  # Make
    exif[0x0110] = "Model X"  # Model
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to display
    gps = {1: "N", 2: (48.0, 51.0, 24.0), 3: "E", 4: (2.0, 21.0, 3.0)}
    exif[0x8825] = gps  # GPSInfo
    return exif


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_exif_and_gps_are_removed_and_orientation_applied(client, admin, fmt):
    data = image_bytes(fmt, size=(400, 200), exif=_exif_with_gps())
    assert Image.open(io.BytesIO(data)).getexif().get(0x010F) == "SpyCam"
    image = uploaded(client, admin, data)
    assert (image["width"], image["height"]) == (200, 400)  # upright
    for size in [image, *image["sizes"].values()]:
        stored = decoded(client, size["url"])
        assert dict(stored.getexif()) == {}
        assert "exif" not in stored.info and "xmp" not in stored.info
        assert b"SpyCam" not in served(client, size["url"]).data


def test_png_text_chunks_are_removed(client, admin):
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "home address: 1 Secret Lane")
    info.add_text("XML:com.adobe.xmp", "<x:xmpmeta>GPS</x:xmpmeta>")
    image = uploaded(client, admin, image_bytes("PNG", size=(200, 200), pnginfo=info))
    for size in [image, *image["sizes"].values()]:
        data = served(client, size["url"]).data
        assert b"Secret Lane" not in data and b"xmpmeta" not in data


def _animation(fmt: str, size=(400, 400)) -> bytes:
    """Three frames of different colours (identical frames would be merged into one)."""
    frames = [Image.new("RGB", size, c) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(
        out, fmt, save_all=True, append_images=frames[1:], duration=[100, 200, 300], loop=0
    )
    assert Image.open(io.BytesIO(out.getvalue())).n_frames == 3
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["GIF", "WEBP", "PNG"])
def test_animations_keep_every_frame_and_their_sizes_the_first(client, admin, fmt):
    """An animated GIF is a GIF (SPEC §13 removes metadata only): the file at `url` keeps
    its frames, durations and loop (outside check chk20m); the sizes are made from the
    first frame, as WordPress makes them."""
    image = uploaded(client, admin, _animation(fmt), f"anim.{fmt.lower()}")
    stored = decoded(client, image["url"])
    assert stored.format == fmt and stored.n_frames == 3
    assert stored.info.get("loop") == 0
    durations, colours = [], []
    for index in range(3):
        stored.seek(index)
        frame = stored.convert("RGB")  # loaded: WebP dates a frame when it decodes it
        durations.append(int(stored.info["duration"]))
        colours.append(frame.getpixel((5, 5)))
    assert durations == [100, 200, 300]
    assert [max(range(3), key=c.__getitem__) for c in colours] == [0, 1, 2]
    assert set(image["sizes"]) == {"thumbnail", "medium"}
    for size in image["sizes"].values():
        assert getattr(decoded(client, size["url"]), "n_frames", 1) == 1


def test_an_animation_counts_the_pixels_of_every_frame(client, admin, app):
    app.config["MAX_IMAGE_PIXELS"] = 400 * 400 * 2
    response = upload(client, admin, _animation("GIF"), "anim.gif")
    assert response.status_code == 400
    assert "pixels" in response.get_json()["data"]["params"]["file"]


def test_an_animation_of_too_many_frames_is_400_with_a_reason(client, admin, monkeypatch):
    """Bounded work: each frame costs about 0.1 ms however small it is."""
    monkeypatch.setattr(images, "MAX_FRAMES", 2)
    response = upload(client, admin, _animation("GIF"), "anim.gif")
    assert response.status_code == 400
    assert "more than 2 frames" in response.get_json()["data"]["params"]["file"]


# --- serving the files ---------------------------------------------------------------------


def test_files_are_served_with_type_etag_long_cache_and_nosniff(client, admin):
    image = uploaded(client, admin, image_bytes())
    response = served(client, image["sizes"]["medium"]["url"])
    assert response.status_code == 200
    assert response.mimetype == "image/jpeg"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "immutable" in response.headers["Cache-Control"]
    assert "max-age=31536000" in response.headers["Cache-Control"]
    etag = response.headers["ETag"]
    again = client.get(
        image["sizes"]["medium"]["url"].replace("http://localhost", ""),
        headers={"If-None-Match": etag},
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    "name",
    [
        "nothing.jpg",
        "0123456789abcdef0123456789abcdef.jpg",
        "0123456789abcdef0123456789abcdef.php",
        "..%2F..%2Fsetup.cfg",
        "%2e%2e",
    ],
)
def test_unknown_file_names_are_json_404(client, name):
    response = client.get(f"/wp-content/uploads/{name}")
    assert response.status_code == 404
    assert response.get_json()["code"] == "rest_no_route"


# --- reading and deleting ------------------------------------------------------------------


def test_reading_an_image_is_public_and_unknown_ids_are_404(client, admin):
    image = uploaded(client, admin, image_bytes(size=(200, 200)))
    assert client.get(f"{NS}/media/{image['id']}").get_json() == image
    response = client.get(f"{NS}/media/999999")
    assert response.status_code == 404
    assert response.get_json()["code"] == "rest-media-not-found"
    event_id = client.post(
        f"{NS}/events",
        json={"title": "E", "start_date": "tomorrow", "end_date": "tomorrow"},
        headers=admin,
    ).get_json()["id"]
    assert client.get(f"{NS}/media/{event_id}").status_code == 404  # an event is no image


@pytest.mark.parametrize(
    "role,status",
    [
        (None, 401),
        ("subscriber", 403),
        ("contributor", 201),
        ("author", 201),
        ("editor", 201),
        ("administrator", 201),
    ],
)
def test_who_may_upload(client, as_role, app, role, status):
    headers = as_role(role) if role else {}
    response = upload(client, headers, image_bytes(size=(100, 100)))
    assert response.status_code == status, response.get_json()
    if status != 201:
        assert response.get_json()["code"] == "rest_forbidden"
        assert stored_files(app) == []


@pytest.mark.parametrize(
    "role,status",
    [
        (None, 401),
        ("subscriber", 403),
        ("contributor", 403),
        ("other_author", 403),
        ("owner", 200),
        ("editor", 200),
        ("administrator", 200),
    ],
)
def test_who_may_delete(client, as_role, role, status):
    owner = as_role("author", "owner")
    image = uploaded(client, owner, image_bytes(size=(100, 100)))
    headers = {}
    if role == "other_author":
        headers = as_role("author", "other_author")
    elif role == "owner":
        headers = owner
    elif role:
        headers = as_role(role)
    response = client.delete(f"{NS}/media/{image['id']}", headers=headers)
    assert response.status_code == status, response.get_json()
    if status == 200:
        assert response.get_json() == image
        assert client.get(f"{NS}/media/{image['id']}").status_code == 404
    else:
        assert client.get(f"{NS}/media/{image['id']}").status_code == 200


def test_contributors_delete_their_own_images(client, as_role):
    contributor = as_role("contributor")
    image = uploaded(client, contributor, image_bytes(size=(100, 100)))
    assert client.delete(f"{NS}/media/{image['id']}", headers=contributor).status_code == 200


def test_deleting_removes_every_file_and_items_show_no_image(client, admin, app):
    image = uploaded(client, admin, image_bytes())
    assert len(stored_files(app)) == 4
    event = client.post(
        f"{NS}/events",
        json={
            "title": "With image",
            "start_date": "tomorrow",
            "end_date": "tomorrow",
            "image": image["id"],
            "venue": {"venue": "Hall", "image": image["id"]},
        },
        headers=admin,
    ).get_json()
    assert event["image"] == image and event["venue"]["image"] == image
    assert client.delete(f"{NS}/media/{image['id']}", headers=admin).status_code == 200
    assert stored_files(app) == []
    for url in [image["url"], *(s["url"] for s in image["sizes"].values())]:
        assert served(client, url).status_code == 404
    again = client.get(f"{NS}/events/{event['id']}").get_json()
    assert again["image"] is False
    assert "image" not in again["venue"]  # venues omit the key when there is none
    assert client.delete(f"{NS}/media/{image['id']}", headers=admin).status_code == 404


# --- image on events, venues and organizers ------------------------------------------------


def test_event_image_by_id_number_string_or_object_and_by_url(client, admin, make_event):
    image = uploaded(client, admin, image_bytes())
    assert make_event(image=image["id"])["image"] == image
    assert make_event(image=str(image["id"]))["image"] == image
    assert make_event(image=image)["image"] == image  # the object read back, sent back
    by_url = make_event(image="https://cdn.example.org/p/poster.PNG?x=1")
    assert by_url["image"] == {
        "url": "https://cdn.example.org/p/poster.PNG?x=1",
        "extension": "png",
    }
    form = client.post(
        f"{NS}/events",
        data={"title": "F", "start_date": "tomorrow", "end_date": "tomorrow", "image": image["id"]},
        headers=admin,
    )
    assert form.get_json()["image"] == image
    single = client.get(f"{NS}/events/{form.get_json()['id']}").get_json()
    assert single["image"] == image and single["json_ld"]["image"] == image["url"]
    for empty in ("", 0, "0"):
        client.post(
            f"{NS}/events/{form.get_json()['id']}", json={"image": image["id"]}, headers=admin
        )
        cleared = client.post(
            f"{NS}/events/{form.get_json()['id']}", json={"image": empty}, headers=admin
        )
        assert cleared.get_json()["image"] is False


def test_venue_and_organizer_image_by_id_and_url(client, admin):
    image = uploaded(client, admin, image_bytes())
    venue = client.post(
        f"{NS}/venues", json={"venue": "V", "image": str(image["id"])}, headers=admin
    ).get_json()
    assert venue["image"] == image
    assert client.get(f"{NS}/venues/{venue['id']}").get_json()["image"] == image
    organizer = client.post(
        f"{NS}/organizers", json={"organizer": "O", "image": image["id"]}, headers=admin
    ).get_json()
    assert organizer["image"] == image
    listed = client.get(f"{NS}/organizers").get_json()["organizers"][0]
    assert listed["image"] == image
    updated = client.post(
        f"{NS}/venues/{venue['id']}", json={"image": "https://x.example/v.jpg"}, headers=admin
    ).get_json()
    assert updated["image"] == {"url": "https://x.example/v.jpg", "extension": "jpg"}
    event = client.post(
        f"{NS}/events",
        json={
            "title": "E",
            "start_date": "tomorrow",
            "end_date": "tomorrow",
            "organizer": [{"organizer": "Inline", "image": image["id"]}],
        },
        headers=admin,
    ).get_json()
    assert event["organizer"][0]["image"] == image


@pytest.mark.parametrize("path", ["/events", "/venues", "/organizers"])
def test_an_id_that_is_not_an_image_is_400_naming_image(client, admin, path):
    other = client.post(f"{NS}/venues", json={"venue": "Not an image"}, headers=admin).get_json()
    body = {
        "/events": {"title": "E", "start_date": "tomorrow", "end_date": "tomorrow"},
        "/venues": {"venue": "V2"},
        "/organizers": {"organizer": "O"},
    }[path]
    for value in (other["id"], str(other["id"]), 987654, {"id": 987654}):
        response = client.post(f"{NS}{path}", json={**body, "image": value}, headers=admin)
        assert response.status_code == 400, value
        assert response.get_json()["code"] == "rest_invalid_param"
        assert "image" in response.get_json()["data"]["params"]


def test_contributors_show_their_own_images_on_their_drafts_only(client, as_role, admin):
    contributor = as_role("contributor")
    own = uploaded(client, contributor, image_bytes(size=(100, 100)))
    other = uploaded(client, admin, image_bytes(size=(100, 100)))
    body = {"title": "Draft", "start_date": "tomorrow", "end_date": "tomorrow"}
    draft = client.post(f"{NS}/events", json={**body, "image": own["id"]}, headers=contributor)
    assert draft.status_code == 201
    assert draft.get_json()["status"] == "draft" and draft.get_json()["image"] == own
    refused = client.post(f"{NS}/events", json={**body, "image": other["id"]}, headers=contributor)
    assert refused.status_code == 400
    assert "image" in refused.get_json()["data"]["params"]
    # A URL needs upload_files, as in the reference.
    by_url = client.post(
        f"{NS}/events", json={**body, "image": "https://x.example/a.jpg"}, headers=contributor
    )
    assert by_url.status_code == 400


def test_an_image_on_a_password_protected_event_is_masked(client, admin, make_event):
    image = uploaded(client, admin, image_bytes(size=(100, 100)))
    event = make_event(image=image["id"], password="secret")
    assert client.get(f"{NS}/events?per_page=5").get_json()["events"][0]["image"] is False
    assert client.get(f"{NS}/events/{event['id']}?password=secret").get_json()["image"] == image


def test_listings_with_images_load_them_in_a_fixed_number_of_queries(client, app, admin, caplog):
    image_ids = [uploaded(client, admin, image_bytes(size=(80, 80)))["id"] for _ in range(12)]
    for n, image_id in enumerate(image_ids):
        client.post(
            f"{NS}/events",
            json={
                "title": f"E{n}",
                "start_date": "tomorrow",
                "end_date": "tomorrow",
                "image": image_id,
                "venue": {"venue": f"V{n}", "image": image_id},
                "organizer": [{"organizer": f"O{n}", "image": image_id}],
            },
            headers=admin,
        )

    def count_queries(path):
        forget_listings(app)
        caplog.clear()
        with caplog.at_level("DEBUG", logger="peewee"):
            response = client.get(path)
            assert response.status_code == 200
        return len([r for r in caplog.records if r.name == "peewee"]), response.get_json()

    count_queries(f"{NS}/events?per_page=1")  # warm-up: per-version bookkeeping of the cache
    (few, _), (many, body) = (
        count_queries(f"{NS}/events?per_page=2"),
        count_queries(f"{NS}/events?per_page=12"),
    )
    assert all(event["image"]["id"] in image_ids for event in body["events"])
    assert few == many
    venues_few, _ = count_queries(f"{NS}/venues?per_page=2")
    venues_many, _ = count_queries(f"{NS}/venues?per_page=12")
    assert venues_few == venues_many


# --- seed and documentation ----------------------------------------------------------------


def test_seed_gives_some_events_generated_images(app, client):
    runner = app.test_cli_runner()
    runner.invoke(args=["users", "create", "owner", "--role", "administrator"])
    result = runner.invoke(args=["seed", "--events", "40"])
    assert result.exit_code == 0, result.output
    events = client.get(f"{NS}/events?per_page=50&starts_after=2000-01-01").get_json()["events"]
    with_images = [e["image"] for e in events if e["image"]]
    assert with_images
    image = with_images[0]
    same_shape(image, REFERENCE_IMAGE)
    assert decoded(client, image["sizes"]["thumbnail"]["url"]).size == (150, 150)


def test_media_routes_are_documented(client):
    document = client.get(f"{NS}/doc").get_json()
    upload_doc = document["paths"]["/media"]["post"]
    assert {"multipart/form-data", "application/octet-stream"} <= set(
        upload_doc["requestBody"]["content"]
    )
    assert {"201", "400", "401", "403", "413"} <= set(upload_doc["responses"])
    assert {"get", "delete"} <= set(document["paths"]["/media/{id}"])
    routes = client.get(NS).get_json()["routes"]
    assert "/calendar/events/v1/media" in routes


def test_digits_that_are_not_ascii_are_not_ids(client, admin):
    # "²" and "٣" are digits to str.isdigit() but not to int(): a 400, never a 500.
    body = {"title": "E", "start_date": "tomorrow", "end_date": "tomorrow"}
    for field in ("image", "venue", "organizer"):
        for value in ("²", "٣"):
            response = client.post(f"{NS}/events", json={**body, field: value}, headers=admin)
            assert response.status_code == 400, (field, value)
    form = client.post(f"{NS}/events", data={**body, "tags[²]": "x"}, headers=admin)
    assert form.status_code in (201, 400)


def test_images_of_hidden_items_are_as_hidden_as_the_items(client, admin, as_role, make_event):
    unattached = uploaded(client, admin, image_bytes())
    assert client.get(f"{NS}/media/{unattached['id']}").status_code == 200  # like WordPress
    draft_image = uploaded(client, admin, image_bytes())
    make_event(title="Secret", status="draft", image=draft_image["id"])
    protected_image = uploaded(client, admin, image_bytes())
    make_event(title="Locked", password="pw", image=protected_image["id"])
    for media in (draft_image, protected_image):
        assert client.get(f"{NS}/media/{media['id']}").status_code == 404
        subscriber = as_role("subscriber")
        assert client.get(f"{NS}/media/{media['id']}", headers=subscriber).status_code == 404
        assert client.get(f"{NS}/media/{media['id']}", headers=admin).status_code == 200
    make_event(title="Public", image=draft_image["id"])  # now shown by a public event too
    assert client.get(f"{NS}/media/{draft_image['id']}").status_code == 200


def test_upload_names_with_a_trailing_newline_are_no_route(client, admin):
    image = uploaded(client, admin, image_bytes())
    name = image["url"].rsplit("/", 1)[1]
    response = client.get(f"/wp-content/uploads/{name}%0A")
    assert response.status_code == 404
    assert response.get_json()["code"] == "rest_no_route"


def test_deleting_an_image_cannot_change_other_authors_items(client, as_role, make_event):
    contributor, author = as_role("contributor"), as_role("author")
    image = uploaded(client, contributor, image_bytes())
    shown = make_event(headers=author, title="Theirs", image=image["id"])
    assert client.delete(f"{NS}/media/{image['id']}", headers=contributor).status_code == 403
    assert client.get(f"{NS}/events/{shown['id']}").get_json()["image"]["id"] == image["id"]
    own = uploaded(client, contributor, image_bytes())
    assert client.delete(f"{NS}/media/{own['id']}", headers=contributor).status_code == 200


def test_deleting_an_image_other_authors_items_show_says_why(client, as_role, make_event):
    author, other = as_role("author", "ann"), as_role("author", "otto")
    image = uploaded(client, author, image_bytes())
    make_event(headers=other, title="Theirs", image=image["id"])
    refused = client.delete(f"{NS}/media/{image['id']}", headers=author)
    assert refused.status_code == 403
    body = refused.get_json()
    assert body["code"] == "rest_forbidden" and body["data"] == {"status": 403}
    assert "only an editor may delete it" in body["message"]
    assert client.get(f"{NS}/media/{image['id']}").status_code == 200


@pytest.fixture
def hidden_image(client, as_role):
    """Found by an outside check (fourteenth session). An image that only a contributor's draft shows: the API hides it from other authors."""
    contributor = as_role("contributor")
    image = uploaded(client, contributor, image_bytes(size=(400, 300)))
    draft = client.post(
        f"{NS}/events",
        json={
            "title": "Mine",
            "start_date": "tomorrow",
            "end_date": "tomorrow",
            "image": image["id"],
        },
        headers=contributor,
    )
    assert draft.status_code == 201 and draft.get_json()["status"] == "draft"
    author = as_role("author")
    assert client.get(f"{NS}/media/{image['id']}", headers=author).status_code == 404
    assert client.get(f"{NS}/media/{image['id']}").status_code == 404
    return image


@pytest.mark.parametrize(
    "path, body",
    [
        ("events", {"title": "Grab", "start_date": "tomorrow", "end_date": "tomorrow"}),
        ("venues", {"venue": "Grab hall"}),
        ("organizers", {"organizer": "Grab org"}),
    ],
)
def test_an_image_the_caller_may_not_read_cannot_be_attached_by_id(
    client, as_role, hidden_image, path, body
):
    """SPEC §9: no draft content reaches a caller who may not see it, by any route or
    embedding; §13: an id that is not an image (for the caller) is a 400 naming `image`, as a
    venue or organizer id the caller may not read is (§10). Attaching it by id answered the
    image object with its URL and made it public."""
    author = as_role("author")
    answer = client.post(f"{NS}/{path}", json={**body, "image": hidden_image["id"]}, headers=author)
    assert answer.status_code == 400, answer.get_json()
    assert "image" in answer.get_json()["data"]["params"]
    assert client.get(f"{NS}/media/{hidden_image['id']}").status_code == 404


def _plain_jpeg(color=(3, 100, 7), size=(800, 600)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "JPEG")
    return buffer.getvalue()


def test_an_image_url_of_our_own_upload_is_that_image(client, admin):
    """D8: the reference reuses an attachment whose URL is sent as ``image``; here the URL of
    our own upload was kept as an outside URL, so the event lost the sizes, and after the
    image was deleted (SPEC §13: its files removed, its events cleared) the event still
    showed the dead URL."""
    media = client.post(
        f"{NS}/media",
        data={"file": (io.BytesIO(_plain_jpeg()), "p.jpg", "image/jpeg")},
        headers=admin,
    ).get_json()
    body = {
        "title": "Own URL",
        "start_date": "2027-12-24 10:00",
        "end_date": "2027-12-24 11:00",
        "image": media["url"],
    }
    event = client.post(f"{NS}/events", json=body, headers=admin).get_json()
    assert event["image"].get("id") == media["id"], event["image"]
    assert client.delete(f"{NS}/media/{media['id']}", headers=admin).status_code in (200, 204)
    assert client.get(f"{NS}/events/{event['id']}").get_json()["image"] is False
