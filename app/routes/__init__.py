"""One flask-smorest Blueprint per resource."""

from app.routes import categories, events, media, organizers, tags, venues


def blueprints():
    return [events.blp, venues.blp, organizers.blp, categories.blp, tags.blp, media.blp]
