// The bubblewrap command of Debian unstable's root: the one place it is written.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "workers/child_process.hpp"
#include "workers/sid_root.hpp"

namespace gillab
{
    namespace
    {
        std::vector<std::string> after(const std::vector<std::string>& argv, const std::string& option)
        {
            std::vector<std::string> values;
            for (std::size_t i = 0; i + 1 < argv.size(); ++i)
                if (argv[i] == option) values.push_back(argv[i + 1]);
            return values;
        }

        class SidRoot : public ::testing::Test
        {
        protected:
            std::string saved_cache, saved_cwd;
            void SetUp() override
            {
                saved_cache = std::getenv("GILLAB_CACHE") ? std::getenv("GILLAB_CACHE") : "";
                setenv("GILLAB_CACHE", "/srv/cache", 1);
                char cwd[4096];
                saved_cwd = getcwd(cwd, sizeof cwd);
            }
            void TearDown() override
            {
                setenv("GILLAB_CACHE", saved_cache.c_str(), 1);
                (void)chdir(saved_cwd.c_str());
            }
        };
    }

    TEST_F(SidRoot, AnInterpreterOutsideTheRootStartsAsItself)
    {
        EXPECT_FALSE(runs_in_sid_root("/usr/bin/python3"));
        EXPECT_EQ(interpreter_command("/usr/bin/python3", {"/home/student/cell"}), std::vector<std::string>{"/usr/bin/python3"});
    }

    TEST_F(SidRoot, AnInterpreterInTheRootRunsUnderBubblewrapWithTheFoldersItNeeds)
    {
        ASSERT_EQ(chdir("/tmp"), 0);  // a system folder: not bound over the root's
        const std::string python = "/srv/cache/debian-sid/root/usr/bin/python3.14";
        EXPECT_TRUE(runs_in_sid_root(python));
        const std::vector<std::string> argv = interpreter_command(python, {"/home/student/cell", "/usr/lib"}, "/home/student/cell");
        const std::vector<std::string> start = {"bwrap", "--bind", "/srv/cache/debian-sid/root", "/"};
        EXPECT_TRUE(std::equal(start.begin(), start.end(), argv.begin()));
        EXPECT_EQ(std::vector<std::string>(argv.end() - 2, argv.end()), (std::vector<std::string>{"--", "/usr/bin/python3.14"}));
        EXPECT_EQ(after(argv, "--bind"), (std::vector<std::string>{"/srv/cache/debian-sid/root", "/home/student/cell"}));
        EXPECT_EQ(after(argv, "--ro-bind"), std::vector<std::string>{runners_directory()});
        EXPECT_EQ(after(argv, "--chdir"), std::vector<std::string>{"/home/student/cell"});
        EXPECT_NE(std::find(argv.begin(), argv.end(), "--die-with-parent"), argv.end());
    }

    TEST_F(SidRoot, TheWorkingFolderIsBoundReadOnlyAndIsWhereTheChildStarts)
    {
        char folder[] = "/var/tmp/gillab-sid-root-XXXXXX";
        ASSERT_NE(mkdtemp(folder), nullptr);
        ASSERT_EQ(chdir(folder), 0);
        const std::vector<std::string> argv = interpreter_command("/srv/cache/debian-sid/root/usr/bin/python3.15");
        EXPECT_EQ(after(argv, "--ro-bind"), (std::vector<std::string>{runners_directory(), folder}));
        EXPECT_EQ(after(argv, "--chdir"), std::vector<std::string>{folder});
        (void)chdir("/");
        rmdir(folder);
    }
}
