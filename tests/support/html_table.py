"""A result's HTML table read back as a reader sees it: header texts and rows of cell texts."""

from html.parser import HTMLParser


class TableCells(HTMLParser):
    """The HTML table's header texts and rows of cell texts."""

    def __init__(self, html):
        super().__init__()
        self.headers, self.rows, self._cell = [], [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            (self.headers if tag == "th" else self.rows[-1]).append(self._cell)
            self._cell = None

    def records(self):
        """One {header: cell text} per body row."""
        return [dict(zip(self.headers, row)) for row in self.rows if row]
