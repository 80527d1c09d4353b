// The page's own safety net, before the app: when the app's scripts cannot be fetched (a dropped
// connection, a release that replaced the hashed files the page names) or its entry throws before anything
// is shown, the visitor gets a sentence and a Reload button instead of a blank page. Once the app has shown
// something, its error boundaries (src/components/error-boundary.tsx) take over and this stays quiet.
//
// A classic script from our own origin (the Content-Security-Policy allows no inline script); no
// dependencies; it writes only with DOM calls, never HTML.
(function () {
  "use strict";
  var SHOWN_ID = "load-failed";

  function appIsUp() {
    var root = document.getElementById("root");
    return root !== null && root.childElementCount > 0;
  }

  /** An element with its text (never HTML) and inline styles (set through the DOM, which the CSP allows). */
  function element(tag, text, style) {
    var node = document.createElement(tag);
    node.textContent = text;
    for (var name in style) node.style[name] = style[name];
    return node;
  }

  function show() {
    if (document.getElementById(SHOWN_ID) || appIsUp()) return;
    if (!document.body) {
      document.addEventListener("DOMContentLoaded", show);
      return;
    }
    // Fixed: #root may already fill the viewport (min-height 100vh) and push a box after it out of sight.
    var box = element("div", "", {
      position: "fixed",
      top: "15vh",
      left: "0",
      right: "0",
      maxWidth: "420px",
      margin: "0 auto",
      padding: "0 24px",
      fontFamily: "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
      color: "rgba(0, 0, 0, 0.88)",
      textAlign: "center",
    });
    box.id = SHOWN_ID;
    box.setAttribute("role", "alert");
    var title = element("h1", "This page could not load.", { fontSize: "20px", fontWeight: "600", margin: "0 0 8px" });
    var detail = element(
      "p",
      "The connection may have dropped, or a new version was released while the page was loading. Check your connection, then reload the page.",
      { fontSize: "14px", lineHeight: "1.6", color: "rgba(0, 0, 0, 0.65)", margin: "0 0 20px" },
    );
    var button = element("button", "Reload page", {
      font: "inherit",
      fontSize: "14px",
      padding: "6px 16px",
      border: "0",
      borderRadius: "6px",
      background: "#1677ff",
      color: "#fff",
      cursor: "pointer",
    });
    button.type = "button";
    button.addEventListener("click", function () {
      window.location.reload();
    });

    box.appendChild(title);
    box.appendChild(detail);
    box.appendChild(button);
    document.body.appendChild(box);

    // The app came up after all (the failure was not its own): the message goes.
    var root = document.getElementById("root");
    if (root && typeof MutationObserver === "function") {
      var observer = new MutationObserver(function () {
        if (!appIsUp()) return;
        observer.disconnect();
        if (box.parentNode) box.parentNode.removeChild(box);
      });
      observer.observe(root, { childList: true });
    }
  }

  // A script or module preload that could not be fetched: the error event reaches window only in the
  // capture phase. A module whose imports could not be fetched fires it at its own script element.
  window.addEventListener(
    "error",
    function (event) {
      var target = event.target;
      if (target && target !== window && (target.tagName === "SCRIPT" || (target.tagName === "LINK" && /preload/.test(target.rel || "")))) {
        // Give the app a moment: a preload that failed may still be fetched again by the import itself.
        setTimeout(show, target.tagName === "LINK" ? 3000 : 0);
        return;
      }
      // The entry threw before the app showed anything: nothing would ever appear.
      if (target === window || !target) setTimeout(show, 0);
    },
    true,
  );
})();
