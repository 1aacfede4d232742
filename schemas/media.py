"""Media: the upload body and the reference's image object."""

from marshmallow import fields

from rules import N_
from schemas.fields import BaseSchema, describe


class MediaUpload(BaseSchema):
    # A plain field documented as flask-smorest's ``Upload`` is (a binary string): that one
    # would load Flask into the schemas, which stay free of it (docs/architecture.md).
    file = fields.Raw(
        metadata={
            **describe(
                N_(
                    "The image (JPEG, PNG, GIF or WebP). An image may also be sent as the raw "
                    "body, with Content-Disposition: attachment; filename=…"
                )
            ),
            "type": "string",
            "format": "binary",
        }
    )


class ImageSize(BaseSchema):
    width = fields.Integer(metadata=describe(N_("Width in pixels.")))
    height = fields.Integer(metadata=describe(N_("Height in pixels.")))
    mime_type = fields.String(data_key="mime-type", metadata=describe(N_("The MIME type.")))
    filesize = fields.Integer(metadata=describe(N_("Size of the file in bytes.")))
    url = fields.String(metadata=describe(N_("The file of this size.")))


class MediaOut(BaseSchema):
    url = fields.String(metadata=describe(N_("The full-size file.")))
    id = fields.Integer(
        metadata=describe(N_("Media id: the value of image in event, venue and organizer writes."))
    )
    extension = fields.String(metadata=describe(N_("File extension: jpg, png, gif or webp.")))
    width = fields.Integer(metadata=describe(N_("Width in pixels.")))
    height = fields.Integer(metadata=describe(N_("Height in pixels.")))
    filesize = fields.Integer(metadata=describe(N_("Size of the file in bytes.")))
    sizes = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(ImageSize),
        metadata=describe(
            N_(
                "thumbnail (150×150, cropped), medium (within 300×300) and large (within "
                "1024×1024), each only where the original is larger."
            )
        ),
    )
