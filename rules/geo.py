"""Great-circle distance and the bounding box that prefilters a radius search."""

import math

EARTH_RADIUS_KM = 6371.0088


def distance_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = phi2 - phi1
    dlmb = math.radians(lng2 - lng1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))


def bounding_box(lat: float, lng: float, radius_km: float):
    """((lat_min, lat_max), [(lng_min, lng_max), ...]) containing the circle; the
    longitude range is split in two where it crosses the antimeridian.

    The longitude half-width is asin(sin(r/R) / cos(lat)) (J. Matuschek, "Finding Points
    Within a Distance of a Latitude/Longitude Using Bounding Coordinates"): the widest
    point of a circle lies poleward of its centre, so r / (R cos(lat)) is too narrow for
    large radii at high latitudes. A circle that reaches a pole spans every longitude.
    """
    angular = radius_km / EARTH_RADIUS_KM
    dlat = math.degrees(angular)
    lat_min, lat_max = max(-90.0, lat - dlat), min(90.0, lat + dlat)
    if lat_min <= -90 or lat_max >= 90 or angular >= math.pi / 2:
        return (lat_min, lat_max), [(-180.0, 180.0)]
    ratio = math.sin(angular) / math.cos(math.radians(lat))
    if ratio >= 1:
        return (lat_min, lat_max), [(-180.0, 180.0)]
    dlng = math.degrees(math.asin(ratio)) + 1e-9  # rounding must not cut a venue on the edge
    if dlng >= 180:
        return (lat_min, lat_max), [(-180.0, 180.0)]
    low, high = lng - dlng, lng + dlng
    if low < -180:
        return (lat_min, lat_max), [(low + 360, 180.0), (-180.0, high)]
    if high > 180:
        return (lat_min, lat_max), [(low, 180.0), (-180.0, high - 360)]
    return (lat_min, lat_max), [(low, high)]
