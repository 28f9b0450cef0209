// Each magic's manual (the prose `%name?` shows above its options) is a text
// file of its own, share/manuals/NAME.txt, installed in share/gillab/manuals:
// written once, read here when the magic is registered, included in
// docs/magics.md (tools/manuals-into-docs), and translated paragraph by
// paragraph by the gettext catalogs of share/locale (gillab.magics.manuals).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/args.hpp"

namespace gillab
{
    // The manual of `magic` in the locale's language, with each {KEY} of `fill`
    // replaced by its text (lists the code owns: presets, loads). A missing
    // file gives one line saying where it was looked for, never an exception:
    // help must not fail. Needs the GIL.
    std::string manual(const std::string& magic, const std::map<std::string, std::string>& fill = {});

    // The parser of `magic` whose help is its manual (filled with `fill`): the name said once.
    arg_parser manual_parser(const std::string& magic, std::vector<option_spec> options,
                             const std::map<std::string, std::string>& fill = {}, std::size_t max_positionals = 0,
                             std::string positional_help = "");
}
