#include "manual.hpp"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

namespace gillab
{
    namespace
    {
        // The locale's languages in gettext's order of precedence: LANGUAGE
        // (a colon list), then LC_ALL, LC_MESSAGES, LANG; "es_ES.UTF-8" gives es_ES, es.
        std::vector<std::string> wanted_languages()
        {
            std::vector<std::string> out;
            auto add = [&out](std::string name)
            {
                name = name.substr(0, name.find_first_of(".@"));
                if (name.empty() || name == "C" || name == "POSIX") return;
                out.push_back(name);
                if (name.find('_') != std::string::npos) out.push_back(name.substr(0, name.find('_')));
            };
            if (const char* list = std::getenv("LANGUAGE"))
            {
                std::stringstream names(list);
                for (std::string name; std::getline(names, name, ':');) add(name);
            }
            for (const char* variable : {"LC_ALL", "LC_MESSAGES", "LANG"})
            {
                if (const char* value = std::getenv(variable); value && *value)
                {
                    add(value);
                    break;
                }
            }
            return out;
        }

        bool read_file(const std::string& path, std::string& text)
        {
            std::ifstream in(path);
            if (!in) return false;
            std::ostringstream content;
            content << in.rdbuf();
            text = content.str();
            return true;
        }

        // A translation the locale asks for, else the English manual.
        bool read_manual(const std::string& magic, std::string& text)
        {
            const std::string folder = GILLAB_MANUAL_DIR;
            for (const std::string& language : wanted_languages())
                if (read_file(folder + "/" + language + "/" + magic + ".txt", text)) return true;
            return read_file(folder + "/" + magic + ".txt", text);
        }
    }

    std::string manual(const std::string& magic, const std::map<std::string, std::string>& fill)
    {
        // Read once per magic: some magics build their parser on every call.
        static std::mutex lock;
        static std::map<std::string, std::string> read;
        std::string text;
        {
            std::lock_guard<std::mutex> guard(lock);
            auto found = read.find(magic);
            if (found == read.end())
            {
                std::string content;
                if (!read_manual(magic, content))
                    return "(the manual of %" + magic + " is not installed: no " + magic + ".txt in " GILLAB_MANUAL_DIR ")";
                found = read.emplace(magic, std::move(content)).first;
            }
            text = found->second;
        }
        if (!text.empty() && text.back() == '\n') text.pop_back();
        for (const auto& [key, value] : fill)
        {
            const std::string placeholder = "{" + key + "}";
            for (std::size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
                text.replace(at, placeholder.size(), value);
        }
        return text;
    }
}
