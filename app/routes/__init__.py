"""One flask-smorest Blueprint per resource."""


def blueprints():
    from app.routes import categories, events, media, organizers, tags, venues

    return [events.blp, venues.blp, organizers.blp, categories.blp, tags.blp, media.blp]
