// Where a --python name leads, where each interpreter was found, its label, and the probes kept
// per executable: a tree of executables of its own in a temp folder (PATH, the project's builds,
// Debian unstable's root, pyenv), nothing started.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "workers/interpreters.hpp"

namespace gillab
{
    namespace fs = std::filesystem;

    namespace
    {
        class InterpreterTree : public ::testing::Test
        {
        protected:
            fs::path root;
            std::map<std::string, std::string> saved;

            void SetUp() override
            {
                char name[] = "/tmp/gillab-interpreters-XXXXXX";
                root = mkdtemp(name);
                for (const char* variable : {"PATH", "GILLAB_CACHE", "PYENV_ROOT"})
                    saved[variable] = std::getenv(variable) ? std::getenv(variable) : "";
                setenv("PATH", (root / "bin").c_str(), 1);
                setenv("GILLAB_CACHE", (root / "cache").c_str(), 1);
                setenv("PYENV_ROOT", (root / "pyenv").c_str(), 1);
                for (const char* file : {"bin/python3.11", "cache/cpython-3.13/default/bin/python3.13",
                                         "cache/cpython-3.13/free-threaded/bin/python3.13t", "cache/debian-sid/root/usr/bin/python3.14",
                                         "pyenv/versions/3.9.2/bin/python3.9", "pyenv/versions/3.9.18/bin/python3.9",
                                         "pyenv/versions/3.9.2/bin/python3"})
                    executable(file);
                fs::create_symlink("python3.11", root / "bin/python3");  // one file, two names
                std::ofstream(root / "bin/python3.11-config") << "";
            }

            void TearDown() override
            {
                for (const auto& [variable, value] : saved) setenv(variable.c_str(), value.c_str(), 1);
                fs::remove_all(root);
            }

            std::string executable(const std::string& relative)
            {
                const fs::path path = root / relative;
                fs::create_directories(path.parent_path());
                std::ofstream(path) << "#!/bin/sh\n";
                fs::permissions(path, fs::perms::owner_all);
                return path;
            }

            std::string at(const std::string& relative) const { return (root / relative).string(); }
        };

        interpreter_info described(const std::string& executable, const std::string& version, bool free_threaded, const nl::json& build)
        {
            interpreter_info info;
            info.executable = executable;
            info.found = origin_of(executable);
            info.version = version;
            info.free_threaded_build = free_threaded;
            info.gil_enabled = !free_threaded;
            info.raw = {{"build", build}};
            return info;
        }
    }

    TEST_F(InterpreterTree, NamesAndVersionsLeadToTheFirstFolderInSearchOrder)
    {
        EXPECT_EQ(find_interpreter("python3"), at("bin/python3"));
        EXPECT_EQ(find_interpreter("3.11"), at("bin/python3.11"));
        EXPECT_EQ(find_interpreter("3.13"), at("cache/cpython-3.13/default/bin/python3.13"));
        EXPECT_EQ(find_interpreter("3.13t"), at("cache/cpython-3.13/free-threaded/bin/python3.13t"));
        EXPECT_EQ(find_interpreter("3.14"), at("cache/debian-sid/root/usr/bin/python3.14"));
        EXPECT_EQ(find_interpreter("3.9"), at("pyenv/versions/3.9.18/bin/python3.9"));  // the newest patch release
        EXPECT_EQ(find_interpreter("3.9.2"), at("pyenv/versions/3.9.2/bin/python3"));  // a full version names its folder
        EXPECT_EQ(find_interpreter("3.7"), "");
    }

    TEST_F(InterpreterTree, OriginsAreDataWithTheirWordsForPeople)
    {
        EXPECT_EQ(origin_of(at("bin/python3.11")), origin::path);
        EXPECT_EQ(origin_of(at("cache/cpython-3.13/free-threaded/bin/python3.13t")), origin::project_build);
        EXPECT_EQ(origin_of(at("cache/debian-sid/root/usr/bin/python3.14")), origin::sid_root);
        EXPECT_EQ(origin_of(at("pyenv/versions/3.9.2/bin/python3.9")), origin::pyenv);
        const std::vector<std::pair<origin, std::vector<std::string>>> words = {
            {origin::path, {"path", "PATH"}},
            {origin::project_build, {"project_build", "project build"}},
            {origin::sid_root, {"sid_root", "Debian unstable root (bwrap)"}},
            {origin::pyenv, {"pyenv", "pyenv"}}};
        for (const auto& [where, expected] : words)
        {
            EXPECT_EQ(origin_key(where), expected[0]);
            EXPECT_EQ(found_in_text(where), expected[1]);
        }
    }

    TEST_F(InterpreterTree, DiscoveryListsEachFileOnceByItsMostSpecificName)
    {
        const std::vector<std::string> expected = {
            at("bin/python3.11"), at("cache/cpython-3.13/default/bin/python3.13"), at("cache/cpython-3.13/free-threaded/bin/python3.13t"),
            at("cache/debian-sid/root/usr/bin/python3.14"), at("pyenv/versions/3.9.18/bin/python3.9"),
            at("pyenv/versions/3.9.2/bin/python3.9"), at("pyenv/versions/3.9.2/bin/python3")};
        EXPECT_EQ(discover_interpreters(), expected);
    }

    TEST_F(InterpreterTree, NamesThatLeadNowhereAreOneLineUsageErrors)
    {
        try
        {
            resolve_interpreters("kernel,3.7", "gilbench");
            FAIL() << "3.7 is not in the tree";
        }
        catch (const usage_error& error)
        {
            const std::string text = error.what();
            EXPECT_EQ(text.rfind("%gilbench: --python 3.7: no python3.7 on PATH, in the project's builds (", 0), 0u) << text;
            EXPECT_NE(text.find("see %gilinfo --interpreters"), std::string::npos) << text;
            EXPECT_EQ(text.find('\n'), std::string::npos);
        }
        EXPECT_THROW(resolve_interpreters("kernel,,3.13", "race"), usage_error);
        EXPECT_THROW(resolve_interpreters(at("bin/missing"), "race"), usage_error);
        const std::vector<measurement_target> kernel = resolve_interpreters("", "race");
        ASSERT_EQ(kernel.size(), 1u);
        EXPECT_TRUE(kernel[0].is_kernel);
    }

    TEST_F(InterpreterTree, LabelsNameVersionOriginBuildAndTheGilNeverAPath)
    {
        const nl::json plain = {{"pgo", false}, {"lto", false}, {"debug", false}, {"vendor", ""}};
        const nl::json debian = {{"pgo", true}, {"lto", true}, {"debug", false}, {"vendor", "Debian"}};
        EXPECT_EQ(described(at("cache/cpython-3.13/free-threaded/bin/python3.13t"), "3.13.5", true, plain).label(),
                  "3.13.5t (project build, no PGO/LTO, GIL off)");
        EXPECT_EQ(described(at("cache/cpython-3.13/default/bin/python3.13"), "3.13.5", false, plain).label(),
                  "3.13.5 (project build, no PGO/LTO)");
        EXPECT_EQ(described(at("cache/debian-sid/root/usr/bin/python3.14"), "3.14.10", false, debian).label(),
                  "3.14.10 (Debian unstable, PGO+LTO)");
        EXPECT_EQ(described("/usr/bin/python3", "3.11.2", false, debian).label(), "3.11.2 (Debian, PGO+LTO)");
        EXPECT_EQ(described(at("pyenv/versions/3.9.18/bin/python3.9"), "3.9.18", false, plain).label(), "3.9.18 (pyenv, no PGO/LTO)");
        EXPECT_EQ(described(at("bin/python3.11"), "3.11.7", false, plain).label(), "3.11.7 (no PGO/LTO)");
    }

    TEST_F(InterpreterTree, AProbeIsKeptUntilTheExecutablesFileChanges)
    {
        probe_cache cache;
        int probes = 0;
        const auto probe = [&probes](const std::string& executable, const probe_env&) {
            ++probes;
            interpreter_info info;
            info.executable = executable;
            info.version = "3.13." + std::to_string(probes);
            return info;
        };
        const std::string python = at("cache/cpython-3.13/default/bin/python3.13");
        EXPECT_EQ(cache.get(python, {}, probe).version, "3.13.1");
        EXPECT_EQ(cache.get(python, {}, probe).version, "3.13.1");
        EXPECT_EQ(probes, 1);
        EXPECT_EQ(cache.get(python, {{"PYTHON_GIL", "1"}}, probe).version, "3.13.2");  // another environment, another answer
        EXPECT_EQ(cache.get(python, {}, probe).version, "3.13.1");
        EXPECT_EQ(probes, 2);

        fs::last_write_time(python, fs::last_write_time(python) + std::chrono::seconds(10));  // rebuilt in place
        EXPECT_EQ(cache.get(python, {}, probe).version, "3.13.3");
        EXPECT_EQ(cache.get(python, {}, probe).version, "3.13.3");
        fs::rename(at("cache/cpython-3.13/free-threaded/bin/python3.13t"), python);  // another file at the same path
        EXPECT_EQ(cache.get(python, {}, probe).version, "3.13.4");
        EXPECT_EQ(probes, 4);
    }

    TEST_F(InterpreterTree, AProbeThatFailedOrAFileThatIsGoneIsAskedAgain)
    {
        probe_cache cache;
        int probes = 0;
        const auto failing = [&probes](const std::string& executable, const probe_env&) -> interpreter_info {
            ++probes;
            throw usage_error(executable + " did not answer as a Python");
        };
        EXPECT_THROW(cache.get(at("bin/python3.11"), {}, failing), usage_error);
        EXPECT_THROW(cache.get(at("bin/python3.11"), {}, failing), usage_error);
        const auto answering = [&probes](const std::string&, const probe_env&) {
            ++probes;
            return interpreter_info{};
        };
        cache.get(at("bin/gone"), {}, answering);
        cache.get(at("bin/gone"), {}, answering);
        EXPECT_EQ(probes, 4);
    }
}
