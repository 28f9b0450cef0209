import os
import sys

from gillab.kernel.shell import working_folder


def test_the_working_folder_goes_back_after_the_standard_library_once(monkeypatch, tmp_path):
    stdlib = os.path.dirname(os.__file__)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "student_module_for_the_test.py").write_text("VALUE = 42\n")
    working_folder.install()
    working_folder.install()
    assert sys.path.count("") == 1
    assert sys.path.index(stdlib) < sys.path.index("")
    import student_module_for_the_test
    assert student_module_for_the_test.VALUE == 42
    sys.modules.pop("student_module_for_the_test")
