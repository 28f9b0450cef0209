import sys

import pytest

from gillab.runners.switch_interval import ScopedSwitchInterval


@pytest.fixture(autouse=True)
def five_ms():
    sys.setswitchinterval(0.005)
    yield
    sys.setswitchinterval(0.005)


def test_the_interval_set_inside_the_scope_is_put_back_after_it():
    with ScopedSwitchInterval(0.001) as interval:
        assert sys.getswitchinterval() == pytest.approx(0.001)
        interval.set(0.0002)
        assert sys.getswitchinterval() == pytest.approx(0.0002)
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_none_keeps_the_interval_and_an_error_still_restores_it():
    with pytest.raises(KeyboardInterrupt):
        with ScopedSwitchInterval() as interval:
            assert sys.getswitchinterval() == pytest.approx(0.005)
            interval.set(0.002)
            raise KeyboardInterrupt
    assert sys.getswitchinterval() == pytest.approx(0.005)
