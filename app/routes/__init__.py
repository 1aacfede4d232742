"""One flask-smorest Blueprint per resource."""


def blueprints():
    from app.routes import events

    return [events.blp]
