"""Media: images uploaded once and served in every size.

``POST /media`` takes the image as the ``file`` part of a multipart body, or as the raw
body (WordPress's form, with ``Content-Disposition: attachment; filename=…``). The name
is kept to find the image by (the editor's search), never used for the files, which are
served, outside the namespace, at
``/wp-content/uploads/{name}`` (where WordPress serves its uploads).
"""

from __future__ import annotations

import os

from flask import current_app, request, send_from_directory
from flask.views import MethodView
from werkzeug.http import parse_options_header

from app.auth import current_viewer, may_read_media, owner_kept_from_deleting, require
from app.errors import ApiError, invalid_params, missing_params, no_route
from app.i18n import N_, _, ngettext
from app.jsonresponse import json_response
from app.render import UPLOADS_PATH, media_out, render_context
from app.smorest import Blueprint
from schemas.media import MediaOut, MediaUpload
from store import images
from store.media import FILE_NAME, delete_media, get_media, save_media

blp = Blueprint("media", __name__, description="Images: upload, read and delete.")

# Our upload route and WordPress's (app/routes/wordpress.py), and the editor's forms that
# carry an image (app/editor): a photo is larger than the 1 MB other bodies may be.
API_UPLOAD_ENDPOINTS = ("media.MediaCollection", "wordpress.media_upload")
UPLOAD_ENDPOINTS = (
    *API_UPLOAD_ENDPOINTS,
    "editor.new_event",
    "editor.edit_event",
    "editor.media",
    "editor.new_media",
)
# Room for the multipart envelope (boundaries, part headers) around a file of the limit.
UPLOAD_ENVELOPE = 16 * 1024
# The raw-body form of an upload, documented beside the multipart one.
RAW_IMAGE = {"schema": {"type": "string", "format": "binary"}}
# Generated names never change content: caches may keep them for a year.
IMMUTABLE = "public, max-age=31536000, immutable"


def upload_folder() -> str:
    return current_app.config["UPLOAD_FOLDER"]


def body_limit(endpoint: str | None) -> int:
    """The largest body a route accepts: uploads have their own, larger limit."""
    config = current_app.config
    if endpoint in UPLOAD_ENDPOINTS:
        return config["MAX_UPLOAD_BYTES"] + UPLOAD_ENVELOPE
    return config["MAX_CONTENT_LENGTH"]


def too_large() -> ApiError:
    return ApiError("rest_payload_too_large", _("The request body is larger than allowed."), 413)


# Bytes read at a time from a body (read_at_most).
READ_CHUNK = 64 * 1024


def read_at_most(stream, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of ``stream`` (the one more tells a body over the
    limit), a chunk at a time: one ``read(limit + 1)`` allocates the whole limit before it
    reads (Werkzeug's LimitedStream, io's buffered files), 10 MB for any upload, and a
    MemoryError for a limit of 10**14."""
    chunks, size = [], 0
    while size <= limit:
        chunk = stream.read(min(READ_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def uploaded_bytes(files) -> bytes:
    """The image's bytes, from the ``file`` part or the raw body, never more than the limit
    plus one byte read (the stream itself stops at the body limit, chunked bodies too)."""
    limit = current_app.config["MAX_UPLOAD_BYTES"]
    storage = files.get("file")
    if storage is not None and hasattr(storage, "stream"):
        data = read_at_most(storage.stream, limit)
    elif request.mimetype == "multipart/form-data":
        raise missing_params(["file"])
    else:
        data = read_at_most(request.stream, limit)
    if len(data) > limit:
        raise too_large()
    if not data:
        raise missing_params(["file"])
    return data


def uploaded_name(files) -> str:
    """The name of the uploaded file: the ``file`` part's, or the raw body's
    ``Content-Disposition`` filename ("" when none)."""
    storage = files.get("file")
    if storage is not None and getattr(storage, "filename", None):
        return storage.filename
    _value, options = parse_options_header(request.headers.get("Content-Disposition", ""))
    return options.get("filename", "")


def decode(data: bytes) -> images.Processed:
    try:
        return images.process(data, current_app.config["MAX_IMAGE_PIXELS"])
    except images.ImageTooLarge:
        raise invalid_params(
            {
                "file": ngettext(
                    "The image has more than %(num)s pixel.",
                    "The image has more than %(num)s pixels.",
                    current_app.config["MAX_IMAGE_PIXELS"],
                )
            }
        ) from None
    except images.TooManyFrames:
        raise invalid_params(
            {
                "file": ngettext(
                    "The animation has more than %(num)s frame.",
                    "The animation has more than %(num)s frames.",
                    images.MAX_FRAMES,
                )
            }
        ) from None
    except images.InvalidImage:
        raise invalid_params({"file": _("Not a complete JPEG, PNG, GIF or WebP image.")}) from None


def media_not_found(media_id: int) -> ApiError:
    return ApiError(
        "rest-media-not-found", _("Image with ID %(id)s does not exist.", id=media_id), 404
    )


def media_or_404(media_id: int):
    media = get_media(media_id)
    if media is None:
        raise media_not_found(media_id)
    return media


# Why an owner may not delete an image (SPEC §13 lets owners delete theirs): removing it
# would change items this user may not edit.
SHOWN_BY_OTHERS = N_(
    "Other users' events, venues or organizers show this image: only an editor may delete it."
)


def deletion_refusal(viewer, media) -> str:
    """Why ``viewer``, the image's owner, may not delete it, or "" (they may, or it is not
    theirs): ``may``'s rule (app/auth.py::owner_kept_from_deleting)."""
    return _(SHOWN_BY_OTHERS) if owner_kept_from_deleting(viewer, media) else ""


def require_deletable(viewer, media) -> None:
    """Raises 401/403 unless ``viewer`` may delete ``media``; its owner, refused because
    other users' items show it, gets a 403 that says so (``rest_forbidden``)."""
    refusal = deletion_refusal(viewer, media)
    if refusal:
        raise ApiError("rest_forbidden", refusal, 403)
    require(viewer, "delete_media", media)


@blp.route("/media")
class MediaCollection(MethodView):
    @blp.arguments(MediaUpload, location="files")
    @blp.doc(requestBody={"content": {"application/octet-stream": RAW_IMAGE}})
    @blp.response(201, MediaOut)
    def post(self, files):
        """Upload an image: stored without metadata, with its thumbnail, medium and large sizes."""
        viewer = current_viewer()
        data = uploaded_bytes(files)
        # Authorised before decoding: nobody without the right makes the server decode.
        require(viewer, "upload_media")
        processed = decode(data)
        media = save_media(processed, viewer.id, upload_folder(), uploaded_name(files))
        return json_response(media_out(media, render_context(viewer)), 201)


@blp.route("/media/<int:id>")
class MediaById(MethodView):
    @blp.response(200, MediaOut)
    def get(self, id):
        """Read an image object: public like the items that show it."""
        viewer = current_viewer()
        media = media_or_404(id)
        if not may_read_media(viewer, media):
            raise media_not_found(id)  # as if absent: its existence is not disclosed
        return json_response(media_out(media, render_context(viewer)))

    @blp.response(200, MediaOut)
    def delete(self, id):
        """Delete an image and all its files; items showing it show no image from then on."""
        viewer = current_viewer()
        media = media_or_404(id)
        require_deletable(viewer, media)
        body = media_out(media, render_context(viewer))
        delete_media(media, upload_folder())
        return json_response(body)


def serve_upload(name: str):
    """A stored file, under its generated name: anything else is a 404."""
    if not FILE_NAME.fullmatch(name):
        raise no_route()
    mimetype = images.MIME_BY_EXTENSION[name.rsplit(".", 1)[1]]
    folder = upload_folder()
    if not os.path.isfile(os.path.join(folder, name)):
        raise no_route()
    response = send_from_directory(folder, name, mimetype=mimetype, conditional=True, etag=True)
    response.headers["Cache-Control"] = IMMUTABLE
    return response


def register_uploads(app) -> None:
    app.add_url_rule(f"{UPLOADS_PATH}/<name>", "uploads", serve_upload, methods=["GET"])
