/* The editor's one script (progressive enhancement: every form works without it). */
(function () {
  "use strict";
  /* The all-day box switches the start and end inputs between date and date-and-time,
     keeping what was typed: the time a date input cannot hold is kept aside and comes
     back when the box is unticked (a box ticked by mistake must not make a midnight
     event); a day's input that never had one starts at 00:00. */
  var allDay = document.getElementById("all_day");
  if (!allDay) return;
  function switchInputs() {
    ["start_date", "end_date"].forEach(function (id) {
      var input = document.getElementById(id);
      if (!input || input.type === "text") return; /* a date as typed: kept as it is */
      var value = input.value;
      if (allDay.checked && input.type !== "date") {
        if (value.length > 10) input.dataset.time = value.slice(11, 16);
        input.type = "date";
        input.value = value.slice(0, 10);
      } else if (!allDay.checked && input.type !== "datetime-local") {
        input.type = "datetime-local";
        input.value = value ? value.slice(0, 10) + "T" + (input.dataset.time || "00:00") : "";
      }
    });
  }
  allDay.addEventListener("change", switchInputs);
})();

(function () {
  "use strict";
  /* The "repeats" builder follows the start date as it is typed. The "monthly on" choices:
     the server wrote them for the date the form came with, and put in data-labels the
     words to write them again in the page's language
     (app/editor/event_form.py::monthly_labels). The "weekly on" day: when the one day
     checked is the start's weekday and the user has not changed the days, it moves with
     the start (the server does the same for a form sent without this script:
     event_form.py::_moved_weekday); with none checked, the start's weekday is
     (event_form.py::with_start_weekday). */
  var select = document.getElementById("repeat_monthly");
  var start = document.getElementById("start_date");
  if (!select || !start || !select.dataset.labels) return;
  var labels = JSON.parse(select.dataset.labels);
  var byDay = select.querySelector('option[value="day"]');
  var byWeekday = select.querySelector('option[value="weekday"]');
  // Monday first, as the form lists them (RFC 5545's MO to SU).
  var days = Array.prototype.slice.call(document.querySelectorAll('input[name="repeat_days"]'));
  var daysChanged = false;
  days.forEach(function (box) {
    box.addEventListener("change", function () { daysChanged = true; });
  });
  /* A wall-clock date, or date and time, in the event's zone: what the date inputs send.
     Its day is its first ten characters; one with a UTC offset ("...T23:30:00-05:00")
     may fall on another day in the event's zone, so it is one of the other forms. */
  var wallClock = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?)?$/;
  function startDay() {
    /* A start in another form the API takes ("16.03.2027 19:00", in a text input, or
       with its own offset) is read by the server alone: its day comes in data-day while
       the value is as shown; typed anew, the server moves the day on saving
       (event_form.py::start_day). */
    var shown = start.value === start.defaultValue ? start.dataset.day || "" : "";
    var parts = wallClock.exec(start.value) || /^(\d{4})-(\d{2})-(\d{2})$/.exec(shown);
    var date = parts ? new Date(Date.UTC(+parts[1], +parts[2] - 1, +parts[3])) : null;
    return date && date.getUTCDate() === +parts[3] ? date : null;
  }
  function weekdayOf(date) {
    return (date.getUTCDay() + 6) % 7; // Monday 0
  }
  var shownDay = startDay();
  var lastWeekday = shownDay ? weekdayOf(shownDay) : -1;
  function relabel(date) {
    if (!date) {
      byDay.textContent = labels.plain[0];
      byWeekday.textContent = labels.plain[1];
      return;
    }
    var day = date.getUTCDate();
    // The rank as the builder writes it: first to fourth, and a fifth is the last.
    var rank = Math.floor((day - 1) / 7);
    byDay.textContent = day === 1 ? labels.first : labels.day.replace("{day}", String(day));
    byWeekday.textContent = labels.weekday[rank].replace("{weekday}", labels.names[weekdayOf(date)]);
  }
  function followWeekday(date) {
    if (!date || days.length !== 7) return;
    var weekday = weekdayOf(date);
    var checked = days.filter(function (box) { return box.checked; });
    if (!daysChanged && checked.length === 0) {
      days[weekday].checked = true; // none ticked: the start's weekday, as the server does
    } else if (!daysChanged && lastWeekday >= 0 && weekday !== lastWeekday &&
        checked.length === 1 && checked[0] === days[lastWeekday]) {
      days[lastWeekday].checked = false;
      days[weekday].checked = true;
    }
    lastWeekday = weekday;
  }
  function follow() {
    var date = startDay();
    relabel(date);
    followWeekday(date);
  }
  start.addEventListener("input", follow);
  start.addEventListener("change", follow);
})();


(function () {
  "use strict";
  /* Enter in the image search searches (the form's first button would save it). */
  var search = document.getElementById("image_search");
  var go = document.querySelector('button[name="image_search_go"]');
  if (!search || !go) return;
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      event.preventDefault();
      go.click();
    }
  });
})();

(function () {
  "use strict";
  /* A new event's form id, kept in the page's own entry of the history when the form is
     sent: Back shows the form again (fetched anew, with a new id and what was typed), and
     it takes back the id it was sent with, so sending it again leads to the event it made
     (app/editor::_save) instead of making a second one. */
  var formId = document.querySelector('input[name="form_id"]');
  if (!formId || !formId.form || !window.history) return;
  var kept = history.state && history.state.formId;
  if (kept) formId.value = kept;
  formId.form.addEventListener("submit", function () {
    var state = Object.assign({}, history.state || {}, { formId: formId.value });
    history.replaceState(state, "");
  });
})();
