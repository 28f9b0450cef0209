"""Every lecture exercise graded, through the real grader and kernel, against known-wrong answers
(each must score nothing) and right answers other than the reference solution (each must score
every point). The answers live in lecture_answers/<lecture>/<exercise>.<right|wrong>.<name>.answer:
a first comment line saying what the answer does, then one `# %% <grade_id>` section per solution
cell it replaces, or a `# %% <grade_id> patch` section that changes the reference solution's cell
line by line: a `- ` line is removed (its first occurrence) and the `+ ` lines after it take its place."""

import glob
import json
import os
import re
import shutil
import subprocess

import nbformat
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GRADER = os.path.join(REPO, "build", "prefix", "bin", "gillab-grade")
ANSWERS = os.path.join(HERE, "lecture_answers")
NAME = re.compile(r"^(ex\d+)\.(right|wrong)\.([\w.-]+)\.answer$")


def read_answer(path):
    """(exercise, verdict, name, why, {grade_id: source, or ("patch", [(removed, [added, ...])])})."""
    exercise, verdict, name = NAME.match(os.path.basename(path)).groups()
    with open(path) as f:
        why, *rest = f.read().split("\n", 1)
    cells = {}
    for section in re.split(r"^# %% ", "".join(rest), flags=re.M)[1:]:
        header, source = section.split("\n", 1)
        grade_id, *kind = header.split()
        if kind == ["patch"]:
            hunks = []
            for line in source.rstrip("\n").split("\n"):
                if line[:1] == "-":
                    hunks.append((line[2:], []))
                else:
                    assert line[:1] == "+" and hunks, f"{path}: a patch line starts with '- ' or '+ ': {line!r}"
                    hunks[-1][1].append(line[2:])
            cells[grade_id] = ("patch", hunks)
        else:
            cells[grade_id] = source.rstrip("\n")
    return exercise, verdict, name, why.lstrip("# "), cells


def answered(reference, answer):
    """The cell's source under an answer: its own text, or the reference patched."""
    if isinstance(answer, str):
        return answer
    lines = reference.split("\n")
    for removed, added in answer[1]:
        assert removed in lines, f"the reference solution has no line {removed!r}"
        at = lines.index(removed)
        lines[at:at + 1] = added
    return "\n".join(lines)


def answers_of(lecture):
    found = {}
    for path in sorted(glob.glob(os.path.join(ANSWERS, lecture, "*.answer"))):
        exercise, *answer = read_answer(path)
        found.setdefault(exercise, []).append(tuple(answer))
    return found


def exercises_of(nb):
    """{exercise: (solution grade_ids, {test grade_id: points})} from the instructor notebook."""
    found = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        exercise = meta.get("grade_id", "").split("-")[0]
        if meta.get("solution"):
            found.setdefault(exercise, (set(), {}))[0].add(meta["grade_id"])
        if meta.get("grade"):
            found.setdefault(exercise, (set(), {}))[1][meta["grade_id"]] = meta["points"]
    return found


def answer_sets(nb, answers):
    """Submissions that between them hold every answer once: the k-th holds each exercise's k-th
    answer (the reference solution where an exercise has fewer)."""
    for k in range(max(len(a) for a in answers.values())):
        submission, held = nbformat.from_dict(json.loads(json.dumps(nb))), {}
        for exercise, listed in answers.items():
            if k < len(listed):
                held[exercise] = listed[k]
                for cell in submission.cells:
                    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                    if grade_id in listed[k][3]:
                        cell.source = answered(cell.source, listed[k][3][grade_id])
        yield submission, held


LECTURES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ANSWERS, "*")))


def test_every_exercise_has_two_wrong_answers_and_another_right_one():
    for lecture in LECTURES:
        nb = nbformat.read(os.path.join(REPO, "notebooks", lecture + ".ipynb"), as_version=4)
        exercises, answers = exercises_of(nb), answers_of(lecture)
        assert set(answers) == set(exercises), (lecture, sorted(answers), sorted(exercises))
        for exercise, listed in answers.items():
            verdicts = [verdict for verdict, *_ in listed]
            assert verdicts.count("wrong") >= 2 and verdicts.count("right") >= 1, (lecture, exercise, verdicts)
            for verdict, name, why, cells in listed:
                assert why and set(cells) <= exercises[exercise][0], (lecture, exercise, name, sorted(cells))
                for grade_id, answer in cells.items():  # every patch applies to the reference solution
                    answered(next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id),
                             answer)
    assert len(LECTURES) == len(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb")))


def grade(lecture, tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(os.path.join(REPO, "notebooks", lecture + ".ipynb"), source)
    out = tmp_path / "out"
    grader = subprocess.Popen([GRADER, "autograde", str(tmp_path / "submitted"), "--source", str(source),
                               "--out", str(out), "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        stdout, stderr = grader.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        grader.terminate()  # the grader stops its kernels and removes its folders on SIGTERM
        stdout, stderr = grader.communicate(timeout=60)
        pytest.fail("gillab-grade autograde ran past 1800 s:\n" + stdout + stderr)
    assert grader.returncode == 0, stdout + stderr
    with open(out / "grades.json") as f:
        return {g["student"]: {c["grade_id"]: c for c in g["cells"]} for g in json.load(f)["grades"]}


@pytest.mark.parametrize("lecture", LECTURES)
def test_wrong_answers_score_nothing_and_other_right_answers_every_point(lecture, tmp_path):
    if not os.path.exists(GRADER):
        pytest.skip("gillab-grade is not installed in build/prefix")
    nb = nbformat.read(os.path.join(REPO, "notebooks", lecture + ".ipynb"), as_version=4)
    exercises = exercises_of(nb)
    sets = list(answer_sets(nb, answers_of(lecture)))
    for k, (submission, _) in enumerate(sets):
        folder = tmp_path / "submitted" / f"set{k}"
        folder.mkdir(parents=True)
        nbformat.write(submission, str(folder / (lecture + ".ipynb")))
    scores = grade(lecture, tmp_path)
    problems = []
    for k, (_, held) in enumerate(sets):
        for exercise, (verdict, name, why, _) in held.items():
            for test_id, points in exercises[exercise][1].items():
                cell = scores[f"set{k}"][test_id]
                if verdict == "wrong" and cell["score"] > 0:
                    problems.append(f"{exercise}.wrong.{name} ({why}) scored {cell['score']}/{points} on {test_id}")
                if verdict == "right" and cell["score"] < points:
                    problems.append(f"{exercise}.right.{name} ({why}) lost points on {test_id}: {cell['reason']}")
    assert not problems, "\n".join(problems)
