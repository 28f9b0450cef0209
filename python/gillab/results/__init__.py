"""The magics' result objects: one documented class per magic over the plain record the
magic answered with (`help(GilbenchResult)` lists every accessor). Standard library only, so
they load saved results without the kernel: `result_for(record)`.
"""

from .result import Result
from .gilbench import GilbenchResult
from .race import RaceResult
from .switchinterval import SwitchintervalResult
from .heartbeat import HeartbeatResult
from .gilwatch import GilwatchResult
from .gilwatch_exact import GilwatchExactResult

__all__ = ["Result", "GilbenchResult", "RaceResult", "SwitchintervalResult", "HeartbeatResult",
           "GilwatchResult", "GilwatchExactResult", "CLASSES", "result_for"]

# The class of each magic's result; a magic not named here returns a plain Result (%gilinfo).
CLASSES = {"gilbench": GilbenchResult, "race": RaceResult, "switchinterval": SwitchintervalResult,
           "heartbeat": HeartbeatResult, "gilwatch": GilwatchResult, "gilwatch_exact": GilwatchExactResult}


def result_for(record, presentation=None, magic=None):
    """The result object of a magic's record (its `to_dict()`), of the class of the magic named
    in it. In the kernel the record is None and `presentation`, the native object that draws the
    result, gives it when first read; `magic` names the class then."""
    return CLASSES.get(magic or record["magic"], Result)(record, presentation)
