import re
from datetime import timedelta
from rules import clock
from tests.conftest import NS, forget_all
def test_dbg(client, as_role, admin, make_event):
    clock.freeze()
    now = clock.utcnow().replace(tzinfo=None)
    def mk(title, h, **kw):
        s = now + timedelta(days=3, hours=h)
        return make_event(title=title, start_date=s.strftime("%Y-%m-%d %H:%M:%S"), end_date=(s+timedelta(minutes=30)).strftime("%Y-%m-%d %H:%M:%S"), timezone="UTC", **kw)
    a = mk("AAA", 1)
    b = mk("BBBprivate", 2, status="private")
    c = mk("CCChidden", 3, hide_from_listings=True)
    d = mk("DDDscheduled", 4, status="future", date_utc=(now + timedelta(minutes=10)).strftime("%Y-%m-%d %H:%M:%S"))
    p = mk("PPPpw", 5, password="pw")
    e = mk("EEE", 6)
    dr = mk("FFFdraft", 7, status="draft")
    def links(ev):
        t = client.get(ev["url"].replace("http://localhost", "")).get_data(as_text=True)
        return [x for x in ("AAA", "BBBprivate", "CCChidden", "DDDscheduled", "PPPpw", "EEE", "FFFdraft") if x in t]
    print("A", links(a)); print("E", links(e)); print("P", links(p))
    print("anon D status", client.get(f"{NS}/events/{d['id']}").status_code)
    clock.advance(11 * 60)
    forget_all(client.application)
    print("after A", links(a)); print("E", links(e))
    print("anon D status", client.get(f"{NS}/events/{d['id']}").status_code)
    print("C page", client.get(c["url"].replace("http://localhost", "")).status_code, links(c))
    assert 0
