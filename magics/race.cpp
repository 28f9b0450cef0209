// %%race: N threads repeat the cell's read-modify-write M times each; the
// table says how many updates were lost, unlocked and under the safe
// patterns, what each costs, in this kernel and under other interpreters.
// Reads as: parse -> measure (runners/task_race.py, the kernel's native
// thread pool or a child interpreter) -> result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "workers/child_interpreter.hpp"
#include "render/number_format.hpp"
#include "framework/progress.hpp"
#include "framework/python_side.hpp"
#include "framework/registry.hpp"
#include "base/stats.hpp"
#include "instruments/switch_interval.hpp"
#include "framework/runner.hpp"
#include "manual.hpp"

namespace gillab
{

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
            published_figures published;
        };

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return manual_parser(
                "race",
                {{"threads", 't', "N", "threads (default 4)"},
                 {"iterations", 'n', "M", "repetitions per thread (default 100000; the published runs used 1000000)"},
                 {"runs", 'r', "N", "runs per mode (default 3)"},
                 {"modes", 'm', "MODE,...", "unlocked, lock, batch, per-thread (default: all four)"},
                 {"lock", 0, "", "just unlocked against lock, the published comparison (same as --modes unlocked,lock)"},
                 {"batch", 'b', "N", "repetitions per lock acquisition in mode batch (default 1000)"},
                 {"check", 'c', "EXPR", "the number that counts the updates (default: from the last statement)"},
                 {"switch-interval", 's', "DURATION", "run under this switch interval (1us to 1s; restored after)"},
                 no_published_option(),
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
            o.published = read_published_choice(args);
            return o;
        }

        // ---- measure --------------------------------------------------------

        nl::json request(const options& o, const std::string& cell)
        {
            return {{"task", "race"}, {"cell", cell}, {"check", o.check.empty() ? nl::json() : nl::json(o.check)}, {"threads", o.threads}, {"iterations", o.iterations}, {"runs", o.runs}, {"batch", o.batch}, {"modes", o.modes},
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
                                 "them (counter = one_more(counter)); a small --switch-interval (50us) then makes short runs "
                                 "lose too, but alone it cannot split a statement that has no call inside.";
            }
            return m.label + ": 0 lost does not make the statement thread-safe: no thread switch fell between "
                             "its read and its write this time; raise --iterations or lower --switch-interval.";
        }

        // An integer check stays whole in the table.
        Cell count_cell(const nl::json& answer, double value)
        {
            if (answer["expected"].is_number_integer()) return static_cast<std::int64_t>(value);
            return value;
        }

        nl::json count_json(const nl::json& answer, double value)
        {
            if (answer["expected"].is_number_integer()) return static_cast<long long>(value);
            return value;
        }

        // Per mode: the figures (medians over its runs) and the runs behind them (*_runs).
        nl::json mode_summaries(const nl::json& answer)
        {
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
                nl::json lost_counts = nl::json::array(), lost_percents = nl::json::array();
                for (double l : losses)
                {
                    lost_counts.push_back(count_json(answer, l));
                    lost_percents.push_back(expected != 0 ? nl::json(100.0 * l / expected) : nl::json());
                }
                by_mode[mode] = {{"mode", mode}, {"lost_runs", lost_counts}, {"lost_percent_runs", lost_percents}, {"lost_min", lost.min}, {"lost_max", lost.max}, {"lost_median", lost.median}, {"lost_percent_median", expected != 0 ? 100.0 * lost.median / expected : 0.0}, {"wall_runs_s", wall_by_mode[mode]}, {"wall_median_s", wall.median}, {"x_unlocked", unlocked_wall > 0 ? nl::json(wall.median / unlocked_wall) : nl::json()}};
            }
            return by_mode;
        }

        std::vector<Row> table_rows(const measured& m, const nl::json& by_mode)
        {
            const nl::json& answer = m.answer["result"];
            const double expected = answer["expected"].get<double>();
            const bool unlocked = by_mode.contains("unlocked");
            const double unlocked_wall = unlocked ? by_mode["unlocked"]["wall_median_s"].get<double>() : 0.0;
            std::vector<Row> rows;
            for (const nl::json& record : answer["records"])
            {
                const double got = record["got"].get<double>();
                const double wall = record["wall_s"].get<double>();
                rows.push_back({m.label, record["mode"].get<std::string>(), static_cast<std::int64_t>(record["run"].get<long long>()),
                                static_cast<std::int64_t>(record["threads"].get<long long>()), count_cell(answer, expected),
                                count_cell(answer, got), count_cell(answer, expected - got),
                                expected != 0 ? Cell(100.0 * (expected - got) / expected) : Cell(), wall,
                                unlocked_wall > 0 ? Cell(wall / unlocked_wall) : Cell()});
            }
            return rows;
        }

        ChartSeries lost_series(const measured& m, const nl::json& by_mode, const options& o)
        {
            ChartSeries series{m.label, {}, {}};
            for (std::size_t i = 0; i < o.modes.size(); ++i)
            {
                if (!by_mode.contains(o.modes[i])) continue;
                series.x.push_back(static_cast<double>(i));
                series.y.push_back(by_mode[o.modes[i]]["lost_percent_median"].get<double>());
            }
            return series;
        }

        // "3.11.2 (kernel): unlocked lost 0.0%-1.2%; lock lost 0.0%-0.0% at x1.40 the unlocked time"
        std::string summary_note(const measured& m, const nl::json& by_mode, const options& o)
        {
            const double expected = m.answer["result"]["expected"].get<double>();
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
            return line;
        }

        nl::json interpreter_record(const measured& m, const nl::json& by_mode, const std::string& why)
        {
            const nl::json& answer = m.answer["result"];
            return {{"python", m.label}, {"requested", m.target.requested}, {"kernel", m.target.is_kernel}, {"interpreter", m.answer["interpreter"]}, {"expected", answer["expected"]}, {"check", answer["check"]}, {"statement", answer["statement"]}, {"switch_interval_s", answer["switch_interval_s"]}, {"summary", by_mode}, {"explanation", why}};
        }

        std::string race_title(const options& o)
        {
            std::string title = "race: " + count_text(o.threads, "thread") + " x " + count_text(o.iterations, "repetition") +
                                ", " + count_text(o.runs, "run") + " per mode";
            if (!o.switch_interval_s) return title;
            char interval[80];
            std::snprintf(interval, sizeof interval, ", switch interval %g us", *o.switch_interval_s * 1e6);
            return title + interval;
        }

        nl::json options_json(const options& o)
        {
            return {{"threads", o.threads}, {"iterations", o.iterations}, {"runs", o.runs}, {"modes", o.modes}, {"batch", o.batch}, {"switch_interval_s", o.switch_interval_s ? nl::json(*o.switch_interval_s) : nl::json()}};
        }

        Result build_result(const std::vector<measured>& all, const options& o)
        {
            Result result;
            result.magic = "race";
            result.table.title = race_title(o);
            result.table.columns = {{"python", "python", ""}, {"mode", "mode", ""}, {"run", "run", ""}, {"threads", "threads", ""}, {"expected", "expected", ""}, {"got", "got", ""}, {"lost", "lost", ""}, {"lost_percent", "lost", "%"}, {"wall", "wall", "s"}, {"x_unlocked", "x unlocked", "x"}};
            Chart chart;
            chart.title = "Updates lost (median over runs)";
            chart.x_title = "mode";
            chart.y_title = "lost (%)";
            chart.categories = o.modes;
            nl::json interpreters = nl::json::array(), runs = nl::json::array();
            for (const measured& m : all)
            {
                const nl::json by_mode = mode_summaries(m.answer["result"]);
                for (const std::string& mode : o.modes)
                {
                    if (!by_mode.contains(mode)) continue;
                    nl::json record = by_mode[mode];
                    record["python"] = m.label;
                    record["requested"] = m.target.requested;
                    runs.push_back(record);
                }
                for (Row& row : table_rows(m, by_mode)) result.table.rows.push_back(std::move(row));
                chart.series.push_back(lost_series(m, by_mode, o));
                result.table.notes.push_back(summary_note(m, by_mode, o));
                const std::string why = explanation(m, by_mode);
                if (!why.empty()) result.table.notes.push_back(why);
                interpreters.push_back(interpreter_record(m, by_mode, why));
            }
            o.published.add_to("race", result.table.notes, chart);
            result.chart = chart;
            const nl::json& first = interpreters[0];
            result.data = {{"expected", first["expected"]}, {"check", first["check"]}, {"statement", first["statement"]}, {"interpreters", interpreters}, {"runs", runs}, {"explanation", first["explanation"]}, {"published", python_side::published_for_magic("race").at("data")}, {"options", options_json(o)}};
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
            for_each_interpreter(o.targets, &progress, [&](const interpreter_turn& turn) {
                all.push_back({turn.target, turn.label, {{"interpreter", turn.target.info.raw}, {"result", run_task(turn.target, request(o, *call.cell), "race", turn.progress)}}});
            });
            progress.update("done");
            Result result = build_result(all, o);
            add_interpreter_notes(result.table.notes, o.targets);
            return result;
        }
    }

    magic_definition race_magic()
    {
        return {"race", magic_kind::cell, parser(), &measure};
    }
}
