"""One module per page group. Each lists `PAGES` (path, render: GET, a whole page) and `ACTIONS`
(path, run: POST, one domain verb as the person logged in, returning a notice or a page of its own:
a preview asking for confirmation)."""
