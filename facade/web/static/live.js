// The dashboard's one script: every few seconds it fetches the pending cards
// (/dashboard/pending, the same template the page was rendered with) and adds the new cards and
// drops the decided ones without a reload. Cards already shown are never moved or redrawn, so
// a reason being typed into one survives. The page's policy allows this file by nonce and
// fetches to its own origin only (facade/web/headers.py).
(function () {
  "use strict";
  var EVERY_MS = 3000;
  var section = document.getElementById("pending");
  if (!section) return;
  var cards = section.querySelector("[data-live=cards]");

  function shown() {
    var found = {};
    cards.querySelectorAll(":scope > [data-card]").forEach(function (node) {
      found[node.getAttribute("data-card")] = node;
    });
    return found;
  }

  function replaceContent(selector, fresh) {
    var here = section.querySelector(selector);
    var there = fresh.querySelector(selector);
    if (here && there && here.innerHTML !== there.innerHTML) {
      here.replaceChildren.apply(here, Array.from(there.childNodes).map(function (n) { return document.importNode(n, true); }));
    }
  }

  function merge(fresh) {
    var wanted = Array.from(fresh.querySelectorAll("[data-live=cards] > [data-card]"));
    var keys = wanted.map(function (node) { return node.getAttribute("data-card"); });
    var now = shown();
    Object.keys(now).forEach(function (key) {
      if (keys.indexOf(key) < 0) now[key].remove();
    });
    // Each new card goes before the next card (in the fresh order) that is already shown.
    for (var i = wanted.length - 1, next = null; i >= 0; i--) {
      var key = keys[i];
      var node = now[key];
      if (!node) {
        node = document.importNode(wanted[i], true);
        cards.insertBefore(node, next);
      }
      next = node;
    }
    replaceContent("[data-live=count]", fresh);
    replaceContent("[data-live=rest]", fresh);
  }

  function poll() {
    if (document.hidden) return;
    fetch("/dashboard/pending" + window.location.search, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (response.status === 401) {
          clearInterval(timer);  // the session ended: the next reload shows the sign-in form
          return null;
        }
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (html) merge(new DOMParser().parseFromString(html, "text/html"));
      })
      .catch(function () { /* the server is away for now; the next poll tries again */ });
  }

  var timer = setInterval(poll, EVERY_MS);
})();
