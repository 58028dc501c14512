"""`cenotaph console`: a door beside lsp/, mcp/ and cli/ for a person reviewing the memory in a
browser. Server-rendered pages over the same `Memory` verbs as the other doors (never SQL);
`server.py` starts it (token, socket, browser), `app.py` is the Starlette application and its
security (session cookie, CSRF, Origin and Host checks, CSP), `render.py` the one place stored
text becomes HTML (escaped there and nowhere else), `pages/` one module per page group, and
`static/` the stylesheet and the one small script (the live refresh), shipped in the wheel."""
