#include "manual.hpp"

#include <fstream>
#include <sstream>

#include "framework/python_side.hpp"

namespace gillab
{
    namespace
    {
        bool read_file(const std::string& path, std::string& text)
        {
            std::ifstream in(path);
            if (!in) return false;
            std::ostringstream content;
            content << in.rdbuf();
            text = content.str();
            return true;
        }

        std::string translated_manual(const std::string& magic)
        {
            std::string english;
            if (!read_file(GILLAB_MANUAL_DIR "/" + magic + ".txt", english))
                return "(the manual of %" + magic + " is not installed: no " + magic + ".txt in " GILLAB_MANUAL_DIR ")";
            // Python's gettext, not glibc's: dgettext needs setlocale() in the kernel and the locale installed, and ignores LANGUAGE under C.
            return python_side::translated_manual(english, GILLAB_LOCALE_DIR);
        }
    }

    std::string manual(const std::string& magic, const std::map<std::string, std::string>& fill)
    {
        // Once per magic and kernel (the GIL guards the map): %%gilbench builds its parser on every call.
        static std::map<std::string, std::string> read;
        auto found = read.find(magic);
        if (found == read.end()) found = read.emplace(magic, translated_manual(magic)).first;
        std::string text = found->second;
        for (const auto& [key, value] : fill)
        {
            const std::string placeholder = "{" + key + "}";
            for (std::size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
                text.replace(at, placeholder.size(), value);
        }
        return text;
    }

    arg_parser manual_parser(const std::string& magic, std::vector<option_spec> options,
                             const std::map<std::string, std::string>& fill, std::size_t max_positionals,
                             std::string positional_help)
    {
        return arg_parser(magic, manual(magic, fill), std::move(options), max_positionals, std::move(positional_help));
    }
}
