"""marshmallow schemas: query parameters, bodies and responses. The single source of
truth for validation and for the ``/doc`` OpenAPI document."""
