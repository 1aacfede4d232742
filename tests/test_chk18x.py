"""Outside check chk18x: REST API shapes against the reference (SPEC §2, reference-behaviour §2.1 cost)."""

from tests.conftest import NS


def _cost(client, admin, cost):
    body = {"title": "Priced", "start_date": "tomorrow 10am", "end_date": "tomorrow 12pm", "cost": cost}
    answer = client.post(f"{NS}/events", json=body, headers=admin)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def test_cost_string_with_free_and_prices_parses_symbol_like_reference(client, admin):
    # Reference Cost_UtilsTest: parse_currency_symbol('free, 20$, 30$') == '$',
    # parse_currency_position('free, 20$, 30$') == 'postfix'.
    made = _cost(client, admin, "free, 20$, 30$")
    details = made["cost_details"]
    assert details["currency_symbol"] == "$", details
    assert details["currency_position"] == "postfix", details


def test_cost_string_and_list_forms_give_same_values(client, admin):
    # The same prices sent as a CSV string or as a list are one cost (reference: the string
    # is split on commas, preg_split('/\s*,\s*/')); both must list the "free" component.
    as_string = _cost(client, admin, "free, 20$, 30$")["cost_details"]["values"]
    as_list = _cost(client, admin, ["free", "20$", "30$"])["cost_details"]["values"]
    assert sorted(as_string) == sorted(as_list), (as_string, as_list)


def test_mixed_currencies_are_not_rewritten_to_one_symbol(client, admin):
    # Reference Cost_UtilsTest: parse_currency_symbol(['20¥', '30$']) is false (inconsistent
    # symbols -> no symbol). Our answer claims '¥' and shows the $30 price as "30¥".
    made = _cost(client, admin, ["20¥", "30$"])
    assert made["cost_details"]["currency_symbol"] == "", made["cost_details"]
    assert "30¥" not in made["cost"], made["cost"]


def test_cost_range_in_one_string_is_formatted_like_the_list_form(client, admin):
    # Reference: `cost` is tribe_get_cost($id, true) = get_formatted_event_cost: every price
    # found in the stored string (parse_cost_range) -> "min – max" with the currency
    # (reference-behaviour §2.1: "Free – 30$", min–max joined by space, EN DASH, space).
    # We already format the list form ["10", "20"] as "$10 – $20" and parse "10, 20" into
    # values ["10", "20"], but answer the string form raw.
    as_list = _cost(client, admin, ["10", "20"])
    as_string = _cost(client, admin, "10, 20")
    assert as_string["cost_details"]["values"] == as_list["cost_details"]["values"]
    assert as_string["cost"] == as_list["cost"], (as_string["cost"], as_list["cost"])
    euros = _cost(client, admin, "10€, 20€")
    assert euros["cost"] == "10€ – 20€", euros["cost"]
    free = _cost(client, admin, "5, 0")
    assert free["cost"].startswith("Free – "), free["cost"]
