"""Domain errors the store raises; the HTTP layer turns them into responses (translating
their messages, which ``N_`` marks for the catalogs)."""


class InvalidInput(ValueError):
    """Bad input: ``params`` maps each parameter to an (untranslated) message, with
    ``values`` to fill its ``%(name)s`` placeholders."""

    def __init__(self, params: dict[str, str], **values):
        super().__init__(", ".join(params))
        self.params = params
        self.values = values


class Conflict(ValueError):
    """The write would break a uniqueness rule (``code`` names which)."""

    def __init__(self, code: str, message: str, param: str = "", **data):
        super().__init__(message)
        self.code = code
        self.message = message
        self.param = param  # the input field at fault, for forms to show it beside
        self.data = data


class Vanished(LookupError):
    """The item was removed (or re-created, as a series' occurrences are) by a concurrent
    write between the request's read and its own write: the answer is a 404, as a read
    after the removal would be."""
