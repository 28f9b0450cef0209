"""Lecture 6's dial: a sentence placing each measured median lateness against its switch
interval, which a waiter behind a busy holder waits out at least once (take_gil's timed wait)."""


def _interval_ms(label):
    # "5ms" -> 5.0, "0.2ms" -> 0.2, "100us" -> 0.1
    if label.endswith("us"):
        return float(label[:-2]) / 1000
    if label.endswith("ms"):
        return float(label[:-2])
    raise ValueError(f"an interval label such as '5ms' or '100us', not {label!r}")


def floor_sentence(result, intervals=("5ms", "1ms", "0.2ms")):
    """Where the median lateness of `result` (a %switchinterval sweep) sits against each
    interval, and what a median below its interval means; true whatever the run shows."""
    placed, below = [], []
    for label in intervals:
        median = result.median(label)
        side = "above" if median >= _interval_ms(label) else "below"
        placed.append(f"{label} {median:.2f} ms ({side})")
        if side == "below":
            below.append(label)
    text = "Your median lateness against each interval: " + ", ".join(placed) + ". "
    if not below:
        return text + "Every median is above its interval: each waiter sat out at least one whole interval."
    return (text + f"Below the interval at {', '.join(below)}: there the probe often found the GIL free when "
            "it asked, so it never had to wait an interval out.")
