"""Grades as a CSV (one row per student and notebook), a JSON document with
every cell's score and every note, and an aligned text table."""

import csv
import json
from dataclasses import asdict, dataclass, field

from . import scoring

CSV_COLUMNS = ("student", "notebook", "score", "max_score", "manual_pending", "manual_max", "status", "sandbox",
               "notes")


@dataclass
class NotebookGrade:
    student: str
    notebook: str
    cells: list                 # scoring.CellScore
    status: str = "graded"      # graded | missing | unreadable | failed
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    sandbox: str = ""           # where it ran: bubblewrap | off ("" when it did not run)

    @property
    def totals(self):
        return scoring.totals(self.cells)

    def row(self):
        score, max_score, pending, manual_max = self.totals
        return {"student": self.student, "notebook": self.notebook,
                "score": round(score, 4), "max_score": round(max_score, 4),
                "manual_pending": round(pending, 4), "manual_max": round(manual_max, 4),
                "status": self.status, "sandbox": self.sandbox or "-", "notes": " | ".join(self.notes)}


def write_csv(grades, path):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for grade in grades:
            writer.writerow(grade.row())


def write_json(grades, path):
    document = {"schema": "gillab.grades", "schema_version": 1,
                "grades": [dict(grade.row(), notes=grade.notes, seconds=round(grade.seconds, 2),
                                cells=[asdict(c) for c in grade.cells]) for grade in grades]}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1)


def text_table(grades):
    header = ("student", "notebook", "score", "max", "manual", "status", "sandbox", "why")
    rows = [header]
    for grade in grades:
        r = grade.row()
        why = grade.notes[0] if grade.status != "graded" and grade.notes else ""
        rows.append((r["student"], r["notebook"], f"{r['score']:g}", f"{r['max_score']:g}",
                     f"{r['manual_pending']:g}" if r["manual_max"] else "-", r["status"], r["sandbox"], why))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    numeric = {2, 3, 4}
    lines = []
    for n, row in enumerate(rows):
        cells = [row[i].rjust(widths[i]) if i in numeric and n else row[i].ljust(widths[i]) for i in range(len(row))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
