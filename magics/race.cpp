// %%race: N threads repeat the cell's read-modify-write M times each; the
// table says how many updates were lost, unlocked and under the safe
// patterns, what each costs, in this kernel and under other interpreters.
// Reads as: parse -> measure (runners/task_race.py, the kernel's native
// thread pool or a child interpreter) -> result.
#include <algorithm>
#include <cstdio>
#include <optional>

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "workers/child_interpreter.hpp"
#include "render/number_format.hpp"
#include "framework/progress.hpp"
#include "render/published.hpp"
#include "framework/py_result.hpp"
#include "framework/registry.hpp"
#include "base/stats.hpp"
#include "instruments/switch_interval.hpp"
#include "framework/runner.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        const std::vector<std::string> all_modes = {"unlocked", "lock", "batch", "per-thread"};

        struct options
        {
            long long threads;
            long long iterations;
            long long runs;
            long long batch;
            std::vector<std::string> modes;
            std::string check;
            std::optional<double> switch_interval_s;
            std::vector<measurement_target> targets;
        };

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return arg_parser(
                "race",
                "Race a read-modify-write: N threads repeat the cell's last statement M times each, and the table\n"
                "says how many updates were lost.\n\n"
                "The cell: everything before the last statement is setup, run afresh before every run; the last\n"
                "statement is what the threads repeat, on shared state the setup created:\n"
                "    counter = 0                      |  box = Box()            |  items = []\n"
                "    counter += 1                     |  box.count += 1         |  items.append(1)\n"
                "Expected: the same statement run N*M times in one thread first (the 'sequential' row); the\n"
                "value compared is the check: the last statement's target (counter, box.count, totals['a']),\n"
                "len(...) of a container it appends/adds to, or --check EXPR. It must be a number that grows\n"
                "with every repetition. Names the statement assigns are shared module globals, as in\n"
                "`global counter`. The cell is self-contained (it also runs in other interpreters): names\n"
                "from other cells are not visible; define helpers such as plus_one in the setup.\n\n"
                "Modes (one row per run; 'x unlocked' is the wall time over the unlocked median):\n"
                "  unlocked    the statement as written\n"
                "  lock        a threading.Lock around every repetition (correct; pays for it per update)\n"
                "  batch       the lock taken once per --batch repetitions (correct; the lock's cost shrinks)\n"
                "  per-thread  each thread its own state (setup run per thread), the check's growth summed at\n"
                "              the end (correct; no lock at all)\n\n"
                "Why '0 lost' proves nothing on 3.10+: a thread gives up the GIL only at a call or a backward\n"
                "jump, so a bare `counter += 1` is rarely split between its read and its write. A call between\n"
                "them (counter = plus_one(counter)) makes the race visible, and a smaller --switch-interval then\n"
                "makes it show in shorter runs (alone, it cannot split a statement with no call inside); the\n"
                "result explains this whenever it sees 0 lost. On a free-threaded build (GIL off) threads run\n"
                "at once and lose updates without any switch.\n\n"
                "--python runs the same measurement in child interpreters (3.9 shows the classic race) and\n"
                "adds their rows; 'kernel' is this kernel, measured with its native thread pool.\n"
                "The result object (-o NAME) has rows, expected, interpreters, explanation, published,\n"
                "lost(mode), lost_percent(mode), wall(mode), cost(mode) (each takes python= to pick an\n"
                "interpreter), to_dict() and to_dataframe().",
                {{"threads", 't', "N", "threads (default 4)"},
                 {"iterations", 'n', "M", "repetitions per thread (default 100000; the published runs used 1000000)"},
                 {"runs", 'r', "N", "runs per mode (default 3)"},
                 {"modes", 'm', "MODE,...", "unlocked, lock, batch, per-thread (default: all four)"},
                 {"lock", 0, "", "just unlocked against lock, the published comparison (same as --modes unlocked,lock)"},
                 {"batch", 'b', "N", "repetitions per lock acquisition in mode batch (default 1000)"},
                 {"check", 'c', "EXPR", "the number that counts the updates (default: from the last statement)"},
                 {"switch-interval", 's', "DURATION", "run under this switch interval (1us to 1s; restored after)"},
                 python_option(),
                 output_option()});
        }

        options read_options(const parsed_args& args)
        {
            options o;
            o.threads = args.integer("threads", 4, 1, 256);
            o.iterations = args.integer("iterations", 100000, 1, 100000000);
            o.runs = args.integer("runs", 3, 1, 100);
            o.batch = args.integer("batch", 1000, 1, 100000000);
            if (args.has("lock") && args.has("modes"))
                throw usage_error("%race: --lock is short for --modes unlocked,lock; give one of them");
            o.modes = args.has("lock") ? std::vector<std::string>{"unlocked", "lock"}
                                       : args.choices("modes", all_modes, all_modes, true);
            o.check = args.text("check", "");
            if (args.has("switch-interval"))
            {
                o.switch_interval_s = args.duration("switch-interval", 0.005, 0.0, 10.0);
                check_switch_interval(*o.switch_interval_s, "%race --switch-interval");
            }
            o.targets = resolve_interpreters(args.text("python", ""), "race");
            return o;
        }

        // ---- measure --------------------------------------------------------

        nl::json request(const options& o, const std::string& cell)
        {
            return {{"task", "race"}, {"cell", cell}, {"check", o.check.empty() ? nl::json() : nl::json(o.check)},
                    {"threads", o.threads}, {"iterations", o.iterations}, {"runs", o.runs}, {"batch", o.batch},
                    {"modes", o.modes},
                    // set (and put back) by the runner in the interpreter it runs in
                    {"switch_interval_s", o.switch_interval_s ? nl::json(*o.switch_interval_s) : nl::json()}};
        }

        // ---- result ---------------------------------------------------------

        struct measured
        {
            measurement_target target;
            std::string label;
            nl::json answer;
        };

        std::string percent_text(double value)
        {
            char text[32];
            std::snprintf(text, sizeof text, "%.1f%%", value);
            return text;
        }

        std::string explanation(const measured& m, const nl::json& by_mode)
        {
            if (!by_mode.contains("unlocked") || by_mode["unlocked"]["lost_max"].get<double>() > 0) return "";
            const nl::json& v = m.answer["interpreter"]["version_info"];
            const bool switch_points_only = v[0].get<int>() == 3 && v[1].get<int>() >= 10;
            if (!m.target.info.gil_enabled)
            {
                return m.label + ": 0 lost without a GIL is luck, not safety: the threads ran at once and can "
                       "interleave anywhere; raise --iterations or --threads.";
            }
            if (switch_points_only)
            {
                return m.label + ": 0 lost does not make the statement thread-safe. Since 3.10 a thread hands over "
                       "the GIL only at a call or a backward jump (the loop's end), so a bare read-modify-write is "
                       "rarely split between its read and its write. Make the race visible: put a call between "
                       "them (counter = plus_one(counter)); a small --switch-interval (50us) then makes short runs "
                       "lose too, but alone it cannot split a statement that has no call inside.";
            }
            return m.label + ": 0 lost does not make the statement thread-safe: no thread switch fell between "
                   "its read and its write this time; raise --iterations or lower --switch-interval.";
        }

        Result build_result(const std::vector<measured>& all, const options& o)
        {
            Result result;
            result.magic = "race";
            char title[200];
            result.table.title = "race: " + count_text(o.threads, "thread") + " x " + count_text(o.iterations, "repetition") +
                                 ", " + count_text(o.runs, "run") + " per mode";
            if (o.switch_interval_s)
            {
                std::snprintf(title, sizeof title, ", switch interval %g us", *o.switch_interval_s * 1e6);
                result.table.title += title;
            }
            result.table.columns = {{"python", "python", ""}, {"mode", "mode", ""}, {"run", "run", ""},
                                    {"threads", "threads", ""}, {"expected", "expected", ""}, {"got", "got", ""},
                                    {"lost", "lost", ""}, {"lost_percent", "lost", "%"}, {"wall", "wall", "s"},
                                    {"x_unlocked", "x unlocked", "x"}};
            Chart chart;
            chart.title = "Updates lost (median over runs)";
            chart.x_title = "mode";
            chart.y_title = "lost (%)";
            chart.categories = o.modes;
            nl::json interpreters = nl::json::array();
            for (const measured& m : all)
            {
                const nl::json& answer = m.answer["result"];
                const double expected = answer["expected"].get<double>();
                std::map<std::string, std::vector<double>> lost_by_mode, wall_by_mode;
                for (const nl::json& record : answer["records"])
                {
                    const std::string mode = record["mode"];
                    lost_by_mode[mode].push_back(expected - record["got"].get<double>());
                    wall_by_mode[mode].push_back(record["wall_s"].get<double>());
                }
                const double unlocked_wall = wall_by_mode.count("unlocked") ? summarize(wall_by_mode["unlocked"]).median : 0.0;
                nl::json by_mode = nl::json::object();
                for (const auto& [mode, losses] : lost_by_mode)
                {
                    const summary lost = summarize(losses);
                    const summary wall = summarize(wall_by_mode[mode]);
                    nl::json lost_counts = nl::json::array();
                    for (double l : losses)
                    {
                        if (answer["expected"].is_number_integer()) lost_counts.push_back(static_cast<long long>(l));
                        else lost_counts.push_back(l);
                    }
                    by_mode[mode] = {{"lost", lost_counts},
                                     {"lost_min", lost.min}, {"lost_max", lost.max}, {"lost_median", lost.median},
                                     {"lost_percent_median", expected != 0 ? 100.0 * lost.median / expected : 0.0},
                                     {"wall_s", wall_by_mode[mode]}, {"wall_median_s", wall.median},
                                     {"x_unlocked", unlocked_wall > 0 ? nl::json(wall.median / unlocked_wall) : nl::json()}};
                }
                for (const nl::json& record : answer["records"])
                {
                    const double got = record["got"].get<double>();
                    const double lost = expected - got;
                    auto number = [&](double value) -> Cell
                    {
                        if (answer["expected"].is_number_integer()) return static_cast<std::int64_t>(value);
                        return value;
                    };
                    result.table.rows.push_back(
                        {m.label, record["mode"].get<std::string>(), static_cast<std::int64_t>(record["run"].get<long long>()),
                         static_cast<std::int64_t>(record["threads"].get<long long>()), number(expected), number(got),
                         number(lost), expected != 0 ? Cell(100.0 * lost / expected) : Cell(),
                         record["wall_s"].get<double>(),
                         unlocked_wall > 0 ? Cell(record["wall_s"].get<double>() / unlocked_wall) : Cell()});
                }
                ChartSeries series{m.label, {}, {}};
                for (std::size_t i = 0; i < o.modes.size(); ++i)
                {
                    if (!by_mode.contains(o.modes[i])) continue;
                    series.x.push_back(static_cast<double>(i));
                    series.y.push_back(by_mode[o.modes[i]]["lost_percent_median"].get<double>());
                }
                chart.series.push_back(series);

                std::string line = m.label + ":";
                for (const std::string& mode : o.modes)
                {
                    if (!by_mode.contains(mode)) continue;
                    const nl::json& s = by_mode[mode];
                    line += " " + mode + " lost " + percent_text(expected ? 100.0 * s["lost_min"].get<double>() / expected : 0) + "-" +
                            percent_text(expected ? 100.0 * s["lost_max"].get<double>() / expected : 0);
                    if (mode != "unlocked" && !s["x_unlocked"].is_null())
                    {
                        char cost[40];
                        std::snprintf(cost, sizeof cost, " at x%.2f the unlocked time", s["x_unlocked"].get<double>());
                        line += cost;
                    }
                    line += ";";
                }
                line.pop_back();
                result.table.notes.push_back(line);
                const std::string why = explanation(m, by_mode);
                if (!why.empty()) result.table.notes.push_back(why);
                interpreters.push_back({{"python", m.label},
                                        {"requested", m.target.requested},
                                        {"kernel", m.target.is_kernel},
                                        {"interpreter", m.answer["interpreter"]},
                                        {"expected", answer["expected"]},
                                        {"check", answer["check"]},
                                        {"statement", answer["statement"]},
                                        {"switch_interval_s", answer["switch_interval_s"]},
                                        {"summary", by_mode},
                                        {"explanation", why}});
            }
            const nl::json published = published_for_magic("race");
            result.table.notes.push_back(published["note"].get<std::string>());
            for (const nl::json& rule : published["chart_rules"])
                chart.rules.push_back({rule[0].get<std::string>(), rule[1].get<double>()});
            result.chart = chart;

            const nl::json& first = interpreters[0];
            result.data = {{"expected", first["expected"]},
                           {"check", first["check"]},
                           {"statement", first["statement"]},
                           {"interpreters", interpreters},
                           {"explanation", first["explanation"]},
                           {"published", published["data"]},
                           {"options", {{"threads", o.threads}, {"iterations", o.iterations}, {"runs", o.runs},
                                        {"modes", o.modes}, {"batch", o.batch},
                                        {"switch_interval_s", o.switch_interval_s ? nl::json(*o.switch_interval_s) : nl::json()}}}};
            return result;
        }

        Result measure(const magic_call& call)
        {
            if (!call.cell || call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
            {
                throw usage_error("%%race needs a cell: setup lines, then the statement to race last (counter = 0, then counter += 1)");
            }
            const options o = read_options(call.args);
            progress_line progress("race");
            std::vector<measured> all;
            for_each_interpreter(o.targets, &progress, [&](const interpreter_turn& turn)
            {
                all.push_back({turn.target, turn.label, {{"interpreter", turn.target.info.raw},
                                                         {"result", run_task(turn.target, request(o, *call.cell), "race", turn.progress)}}});
            });
            progress.update("done");
            return build_result(all, o);
        }
    }

    // The result object of %%race: a Result with lookups by mode and interpreter.
    struct race_result : Result
    {
        explicit race_result(Result r) : Result(std::move(r)) {}

        const nl::json& mode_summary(const std::string& mode, const py::object& python) const
        {
            const nl::json& interpreters = data["interpreters"];
            const nl::json* chosen = &interpreters[interpreter_index(interpreters, python)];
            if (!(*chosen)["summary"].contains(mode))
            {
                std::string measured;
                for (auto& item : (*chosen)["summary"].items()) measured += (measured.empty() ? "" : ", ") + item.key();
                throw py::key_error("mode '" + mode + "' was not measured; measured: " + measured);
            }
            return (*chosen)["summary"][mode];
        }
    };

    void bind_race_result(py::module_& m)
    {
        py::class_<race_result, Result>(m, "RaceResult")
            .def("lost", [](const race_result& r, const std::string& mode, py::object python)
                 { return py::cast(r.mode_summary(mode, python)["lost"]); }, "mode"_a = "unlocked", "python"_a = py::none(),
                 "updates lost in each run of a mode")
            .def("lost_percent", [](const race_result& r, const std::string& mode, py::object python)
                 { return r.mode_summary(mode, python)["lost_percent_median"].get<double>(); }, "mode"_a = "unlocked",
                 "python"_a = py::none(), "median share of the expected updates lost, in %")
            .def("wall", [](const race_result& r, const std::string& mode, py::object python)
                 { return r.mode_summary(mode, python)["wall_median_s"].get<double>(); }, "mode"_a = "unlocked",
                 "python"_a = py::none(), "median wall time of a mode's runs in seconds")
            .def("cost", [](const race_result& r, const std::string& mode, py::object python)
                 { return py::cast(r.mode_summary(mode, python)["x_unlocked"]); }, "mode"_a = "lock", "python"_a = py::none(),
                 "a mode's median wall time over the unlocked median (None without unlocked runs)");
    }

    magic_definition race_magic()
    {
        return {"race", magic_kind::cell, parser(), &measure,
                [](Result r) { return py::cast(race_result(std::move(r))); }, &bind_race_result};
    }
}
