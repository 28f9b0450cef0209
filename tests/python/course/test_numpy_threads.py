"""gillab.course.numpy_threads: the loaded BLAS, the NumPy jobs, one product's cores."""

import pytest


def test_loaded_blas_reads_the_mapped_library_and_names_its_threading(tmp_path):
    from gillab.course.numpy_threads import loaded_blas
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3\n"
                    "7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    path, kind = loaded_blas(str(maps))
    assert path.endswith("openblas-pthread/libblas.so.3") and kind.startswith("OpenBLAS")
    maps.write_text("7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    assert loaded_blas(str(maps))[0] is None


def test_numpy_jobs_compile_and_one_product_reports_its_cores():
    pytest.importorskip("numpy")
    from gillab.course.numpy_threads import blas_threads, jobs
    for name, source in jobs(1000, 2, 20).items():
        space = {}
        exec(source, space)
        assert isinstance(space["job"](0), float), name
    found = blas_threads(60)
    assert set(found) == {"defaults", "one thread"}
    assert all(0 < f["wall_s"] < 5 and f["cores"] > 0 for f in found.values()), found


def test_blas_table_says_what_the_first_row_means_for_python_threads():
    from gillab.course.numpy_threads import blas_table
    one = blas_table({"defaults": {"wall_s": 0.02, "cores": 1.0}, "one thread": {"wall_s": 0.02, "cores": 1.0}}, cpus=8).data
    assert "| left unset | 20.0 | 1.00 |" in one and "on the caller's thread" in one and "4 x 8 busy threads" in one
    many = blas_table({"defaults": {"wall_s": 0.01, "cores": 7.5}, "one thread": None}, cpus=8).data
    assert "oversubscribe 8 cores" in many and "no answer within 60 s" in many


def test_jobs_table_shows_each_job_beside_the_ceiling():
    from gillab.course.numpy_threads import jobs_table

    class Run:
        def __init__(self, cores):
            self.rows = [{"mode": "sequential", "workers": 1, "cores_used": cores}]
            self.runs = [{"mode": "sequential", "workers": 1, "jobs": 1, "wall_s": {"min": 1.0}},
                         {"mode": "threads", "workers": 2, "jobs": 2, "wall_s": {"min": 1.0}},
                         {"mode": "threads", "workers": 4, "jobs": 4, "wall_s": {"min": 2.0}}]

        def speedup(self, mode, workers):
            """Jobs per second against sequential's, as GilbenchResult.speedup gives it."""
            def rate(m, w):
                run = next(r for r in self.runs if (r["mode"], r["workers"]) == (m, w))
                return run["jobs"] / run["wall_s"]["min"]
            return rate(mode, workers) / rate("sequential", 1)

    shown = jobs_table({"floats": Run(0.98), "objects": Run(0.99), "matmul": Run(1.0)}, 1000, 2, 20, cpus=2).data
    assert "| sin and sqrt in place, 2 passes over 1,000 floats | 0.98 | x2.00 | x2.00 | x2 |" in shown
    assert "Busy machine" not in shown and "machine was busy" not in shown
    assert "machine was busy" in jobs_table({"floats": Run(0.3)}, 1000, 2, 20, cpus=2).data
