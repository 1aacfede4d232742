/* The editor's one script (progressive enhancement: every form works without it).
   The all-day box switches the start and end inputs between date and date-and-time,
   keeping what was typed. */
(function () {
  "use strict";
  var allDay = document.getElementById("all_day");
  if (!allDay) return;
  function switchInputs() {
    ["start_date", "end_date"].forEach(function (id) {
      var input = document.getElementById(id);
      if (!input) return;
      var value = input.value;
      if (allDay.checked && input.type !== "date") {
        input.type = "date";
        input.value = value.slice(0, 10);
      } else if (!allDay.checked && input.type !== "datetime-local") {
        input.type = "datetime-local";
        input.value = value ? value.slice(0, 10) + "T" + (value.length > 10 ? value.slice(11, 16) : "00:00") : "";
      }
    });
  }
  allDay.addEventListener("change", switchInputs);
})();
