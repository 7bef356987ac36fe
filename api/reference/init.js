// Renders /v1/openapi.json with Redoc (redoc.standalone.js, MIT, see
// redoc-LICENSE.txt). A file of its own, so that the page's
// Content-Security-Policy needs no inline script.
Redoc.init("/v1/openapi.json", {
  expandResponses: "200",
  hideDownloadButton: false,
  requiredPropsFirst: true,
  sortPropsAlphabetically: false,
  theme: { typography: { fontFamily: "system-ui, sans-serif", headings: { fontFamily: "system-ui, sans-serif" } } }
}, document.getElementById("redoc"));
