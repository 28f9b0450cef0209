"""gillab.lectures.numpy_threads: the loaded BLAS, the NumPy jobs, one product's cores."""

import pytest


def test_loaded_blas_reads_the_mapped_library_and_names_its_threading(tmp_path):
    from gillab.lectures.numpy_threads import loaded_blas
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3\n"
                    "7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    path, kind = loaded_blas(str(maps))
    assert path.endswith("openblas-pthread/libblas.so.3") and kind.startswith("OpenBLAS")
    maps.write_text("7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    assert loaded_blas(str(maps))[0] is None


def test_numpy_jobs_compile_and_one_product_reports_its_cores():
    pytest.importorskip("numpy")
    from gillab.lectures.numpy_threads import blas_threads, jobs
    for name, source in jobs(1000, 2, 20).items():
        space = {}
        exec(source, space)
        assert isinstance(space["job"](0), float), name
    found = blas_threads(60)
    assert set(found) == {"defaults", "one thread"}
    assert all(0 < f["wall_s"] < 5 and f["cores"] > 0 for f in found.values()), found
