from app.smorest import Blueprint

blp = Blueprint("events", __name__, description="Events")
