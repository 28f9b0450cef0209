// The framework: every magic is one definition (its parser and its measure
// function); the framework parses, runs and answers Python with the Result as
// data (gillab.results makes the result object and stores it under -o NAME).
// Magics never format or publish their own tables.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "framework/args.hpp"
#include "render/result.hpp"

namespace gillab
{
    namespace py = pybind11;

    enum class magic_kind
    {
        line,
        cell,
        line_cell
    };

    struct magic_call
    {
        parsed_args args;
        std::optional<std::string> cell;  // the cell body for cell magics
        py::dict user_ns;
    };

    struct magic_definition
    {
        std::string name;
        magic_kind kind;
        arg_parser parser;
        std::function<Result(const magic_call&)> run;
    };

    // `-o NAME`, which every magic accepts.
    option_spec output_option();

    // `--python PATH_OR_NAME[,...]`, for every magic that measures under other
    // interpreters (workers/child_interpreter runs them).
    option_spec python_option();

    // --no-published: the magic leaves the published figures out of its table and chart, so a
    // lecture can ask for a prediction first and show them with its comparison.
    option_spec no_published_option();

    // The course's published figures beside a magic's run (python_side::published_for_magic: its
    // note, and its chart's reference lines when it has any), unless --no-published left them out.
    struct published_figures
    {
        bool shown = true;
        void add_to(const std::string& magic, std::vector<std::string>& notes, Chart& chart) const;
    };

    // --no-published of a magic that declares no_published_option().
    published_figures read_published_choice(const parsed_args& args);

    const std::vector<magic_definition>& all_magics();

    // Parses `line`, runs the magic, returns presentation.hpp's magic_answer.
    py::dict run_magic(const std::string& name, const std::string& line,
                       std::optional<std::string> cell, py::dict user_ns);
}
