"""The error body every failure returns, for the OpenAPI document."""

from marshmallow import fields

from rules import N_
from schemas.fields import OutSchema


class ErrorData(OutSchema):
    optional = ("params", "details", "term_id")

    status = fields.Integer(metadata={"description": N_("HTTP status code.")})
    params = fields.Raw(
        metadata={
            "description": N_(
                "The parameters at fault: a list (missing) or an object of messages (invalid)."
            )
        }
    )
    details = fields.Dict(metadata={"description": N_("Details of each invalid parameter.")})
    term_id = fields.Integer(metadata={"description": N_("Id of the term that already exists.")})


class Error(OutSchema):
    code = fields.String(metadata={"description": N_("Machine-readable error code.")})
    message = fields.String(
        metadata={"description": N_("Human-readable message, in the language of the root.")}
    )
    data = fields.Nested(ErrorData)
