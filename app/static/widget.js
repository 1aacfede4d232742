/* The calendar's widget for other sites (SPEC §15):
   <div data-calendar-events data-limit="5" data-categories="music" data-lang="fr"></div>
   <script src="https://events.example.org/widget.js" async></script>
   Each such element becomes a list of the next events, read from the JSON API (CORS), every
   occurrence of a series in its place (as the API and the site's list view list them), drawn in an open
   shadow root so that the host page's styles and ours stay apart. Titles and venue names
   are inserted as text, never as markup. When the API refuses the element's attributes
   (an unknown category), the list says so and the API's message goes to console.warn; with
   no event to show, it says that in words. The list names the language its dates are
   written in, and each message its own (WCAG 3.1.2: a screen reader reads them in it). */
(function () {
  "use strict";
  var script = document.currentScript;
  // The host's styles stop at the shadow root, the browser's do not: a link left to them is
  // #0000EE, unreadable on a dark page. It takes the host's text colour (underlined, so it
  // still reads as a link), or --calendar-link-color, which inherits through the root.
  var STYLE =
    ":host{display:block;font:inherit}ul{list-style:none;margin:0;padding:0}" +
    "li{padding:.5em 0;border-bottom:1px solid rgba(127,127,127,.3)}" +
    "a{font-weight:600;color:var(--calendar-link-color,inherit);text-decoration:underline}" +
    ".when,.where{display:block;opacity:.8;font-size:.9em}";

  function text(tag, className, value) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = value;
    return node;
  }

  // The start as the pages write it: the wall clock of the event's own zone, named by
  // its abbreviation (the visitor's zone may be another: a time without a zone misleads).
  function when(event, lang) {
    var wall = new Date(event.start_date.replace(" ", "T") + "Z");
    var options = event.all_day
      ? { dateStyle: "medium", timeZone: "UTC" }
      : { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" };
    try {
      var written = new Intl.DateTimeFormat(lang || undefined, options).format(wall);
      return event.all_day || !event.timezone_abbr ? written : written + " " + event.timezone_abbr;
    }
    catch (e) { return event.start_date; }
  }

  // Written in by the site that serves the script (app/pages::widget), one setting a line:
  // its API's address, its language roots, its default language (that of the root ""), and
  // what the widget says when the API refuses its attributes and when it has no event to
  // show (by language root, "" the site's own).
  var API = "/wp-json/calendar/events/v1";
  var LANGUAGES = ["en"];
  var DEFAULT = "en";
  var UNAVAILABLE = { "": "The events could not be shown." };
  var EMPTY = { "": "No upcoming events." };

  // The site's address: the folder the script was served from, without the language root
  // it may have been asked under (…/fr/widget.js). A site served under a path keeps it
  // (https://example.org/blog/widget.js reads https://example.org/blog/wp-json/…).
  function siteOf(src) {
    var url = new URL(src, document.baseURI);
    var folders = url.pathname.split("/").slice(0, -1);
    var last = (folders[folders.length - 1] || "").toLowerCase();
    if (folders.length > 1 && LANGUAGES.indexOf(last) >= 0) folders.pop();
    return url.origin + folders.join("/");
  }
  var base = script ? siteOf(script.src) : "";

  // The language root data-lang names: the language itself, else its base ("en" for
  // "en-US"), else "" (the site's own root: a language the site lacks has no root).
  function languageOf(lang) {
    var wanted = lang.toLowerCase();
    var base = wanted.split(/[-_]/)[0];
    return LANGUAGES.indexOf(wanted) >= 0 ? wanted : LANGUAGES.indexOf(base) >= 0 ? base : "";
  }

  // The language the dates are written in (Intl's, from data-lang or else the visitor's
  // browser), or "" when data-lang names none Intl knows (the dates are then ISO's).
  function datesLanguage(lang) {
    try { return new Intl.DateTimeFormat(lang || undefined).resolvedOptions().locale; }
    catch (e) { return ""; }
  }

  // A message of the site's catalog for the language root ("" the site's own, in DEFAULT),
  // marked with its language.
  function message(className, words, language) {
    var item = text("li", className, words[language] || words[""]);
    item.lang = language && words[language] ? language : DEFAULT;
    return item;
  }

  function entry(event, base, prefix, lang) {
    var item = document.createElement("li");
    var link = text("a", "", event.title);
    link.href = base + prefix + "/event/" + encodeURIComponent(event.slug) + "/";
    item.appendChild(link);
    item.appendChild(text("span", "when", when(event, lang)));
    var venue = Array.isArray(event.venue) ? event.venue[0] : event.venue;
    if (venue && venue.venue) item.appendChild(text("span", "where", venue.venue));
    return item;
  }

  // The API's answer, or its refusal as an Error carrying its message.
  function answered(answer) {
    return answer.json().catch(function () { return {}; }).then(function (body) {
      if (answer.ok) return body;
      var params = (body.data && body.data.params) || {};
      var detail = Object.keys(params).map(function (name) { return name + ": " + params[name]; });
      throw new Error((body.message || "HTTP " + answer.status) + (detail.length ? " (" + detail.join("; ") + ")" : ""));
    });
  }

  function draw(host) {
    var lang = host.getAttribute("data-lang") || "";
    // At most 50: one page of the API's listing holds the entries, every occurrence of a
    // series among them as the site's list view shows it.
    var limit = Math.min(Math.max(parseInt(host.getAttribute("data-limit") || "5", 10) || 5, 1), 50);
    var query = new URLSearchParams({
      per_page: String(limit),
      ends_after: new Date().toISOString().slice(0, 19) + "Z",
      strict_dates: "true", // the instant itself: the API snaps a date to the end of its day
    });
    ["categories", "tags", "venue", "organizer", "search"].forEach(function (name) {
      var value = host.getAttribute("data-" + name);
      if (value) query.set(name, value);
    });
    var root = host.shadowRoot || host.attachShadow({ mode: "open" });
    var style = document.createElement("style");
    style.textContent = STYLE;
    var list = document.createElement("ul");
    var written = datesLanguage(lang);
    if (written) list.lang = written;
    root.replaceChildren(style, list);
    var language = languageOf(lang);
    var prefix = language ? "/" + encodeURIComponent(language) : "";

    fetch(base + prefix + API + "/events?" + query.toString())
      .then(answered)
      .then(function (body) {
        (body.events || []).forEach(function (event) {
          list.appendChild(entry(event, base, prefix, lang));
        });
      })
      .then(function () { if (!list.children.length) list.appendChild(message("empty", EMPTY, language)); })
      .catch(function (problem) {
        list.replaceChildren(message("unavailable", UNAVAILABLE, language));
        console.warn("Calendar widget: " + problem.message);
      });
  }

  function start() {
    document.querySelectorAll("[data-calendar-events]").forEach(draw);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
