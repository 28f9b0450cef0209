from gillab.runners import peak_rss

CELL = "import time\ndef job(i):\n    return bytearray(20_000_000)[i]\nasync def ajob(i):\n    return i\n"


def config(mode, workers=1, jobs=1):
    return {"mode": mode, "workers": workers, "jobs": jobs}


def test_a_fresh_interpreter_reports_the_peak_of_the_jobs_it_ran(tmp_path):
    (tmp_path / "peak_cell.py").write_text(CELL)
    figures = peak_rss.measure_once(str(tmp_path), "peak_cell", config("threads", 2, 2), "", 60)
    assert figures["peak_rss_bytes"] > 20_000_000
    figures = peak_rss.measure_once(str(tmp_path), "peak_cell", config("processes", 2, 2), "fork", 60)
    assert figures["largest_child_rss_bytes"] > 20_000_000


def test_a_failing_or_slow_run_says_why_in_one_line(tmp_path):
    (tmp_path / "bad_cell.py").write_text("def job(i):\n    raise ValueError('no memory for you')\n")
    figures = peak_rss.measure_once(str(tmp_path), "bad_cell", config("sequential"), "", 60)
    assert figures == {"problem": "memory run failed: ValueError: no memory for you"}
    (tmp_path / "slow_cell.py").write_text("import time\ndef job(i):\n    time.sleep(30)\n")
    figures = peak_rss.measure_once(str(tmp_path), "slow_cell", config("sequential"), None, 0.5)
    assert figures == {"problem": "memory run over --budget"}
