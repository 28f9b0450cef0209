#include "spinner.hpp"
#include "python_helpers.hpp"

#include <pybind11/eval.h>

#include "args.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        // Sizes chosen so that one long C step takes tens to hundreds of ms
        // on a laptop: long against any switch interval, short for a demo.
        const char* load_source = R"PY(
import random, re, threading, zlib

_cache = {}

def make_step(load):
    if load == "python":
        def step():
            total = 0
            for k in range(200):
                total += k
            return total
        return step
    if load not in _cache:
        if load == "bigint":
            _cache[load] = (7 ** 100_000, 11 ** 100_000)
        elif load == "sorted":
            rng = random.Random(0)
            _cache[load] = [rng.random() for _ in range(300_000)]
        elif load == "regex":
            _cache[load] = (re.compile(r"(x+x+)+y"), "x" * 18)
        elif load == "zlib":
            _cache[load] = " ".join(str(k * k) for k in range(150_000)).encode()
    data = _cache[load]
    if load == "bigint":
        a, b = data
        return lambda: a * b
    if load == "sorted":
        return lambda: sorted(data)
    if load == "regex":
        pattern, text = data
        return lambda: pattern.match(text)
    return lambda: zlib.compress(data, 6)

def start(load, state):
    step = make_step(load)
    def spin():
        while state[0]:
            step()
            state[1] += 1
    thread = threading.Thread(target=spin, name="gillab-spinner-" + load, daemon=True)
    thread.start()
    return thread
)PY";

    }

    const std::vector<spinner_load>& spinner_loads()
    {
        static const std::vector<spinner_load> loads = {
            {"python", "a pure-Python loop of 200 additions", false},
            {"bigint", "one multiply of two ~300,000-bit integers (7**100000 * 11**100000)", false},
            {"sorted", "sorted() of 300,000 floats", false},
            {"regex", "a backtracking regex, (x+x+)+y against 18 x's", false},
            {"zlib", "zlib.compress of 1.2 MB of text (releases the GIL)", true},
        };
        return loads;
    }

    std::vector<std::string> spinner_load_names()
    {
        std::vector<std::string> names;
        for (const spinner_load& load : spinner_loads()) names.push_back(load.name);
        return names;
    }

    const spinner_load& find_spinner_load(const std::string& name)
    {
        for (const spinner_load& load : spinner_loads())
        {
            if (load.name == name) return load;
        }
        throw usage_error("no spinner load named '" + name + "'");
    }

    spinner::spinner(const std::string& load)
    {
        find_spinner_load(load);
        m_state = py::list();
        m_state.append(true);
        m_state.append(0);
        m_thread = python_helpers(load_source)["start"](load, m_state);
    }

    spinner::~spinner()
    {
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        try
        {
            stop();
        }
        catch (...)
        {
            // A second interrupt while joining: the thread still ends after its step.
        }
        PyErr_Restore(type, value, traceback);
    }

    std::uint64_t spinner::steps() const
    {
        return m_state[1].cast<std::uint64_t>();
    }

    void spinner::stop()
    {
        if (!m_thread || m_thread.is_none()) return;
        m_state[0] = false;
        m_thread.attr("join")();
        m_thread = py::none();
    }
}
