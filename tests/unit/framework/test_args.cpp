#include <gtest/gtest.h>

#include "framework/args.hpp"

using namespace gillab;

namespace
{
    arg_parser sample_parser()
    {
        return arg_parser("sample", "A sample magic.",
                          {{"workers", 'w', "N,N,...", "worker counts"},
                           {"interval", 0, "DURATION", "switch interval"},
                           {"modes", 'm', "MODE,...", "modes"},
                           {"lock", 0, "", "use a lock"},
                           {"out", 'o', "NAME", "store result"}},
                          1, "VALUE: optional value");
    }

    std::string error_of(const std::function<void()>& action)
    {
        try
        {
            action();
        }
        catch (const usage_error& e)
        {
            return e.what();
        }
        return "";
    }
}

TEST(SplitArguments, QuotesGroupAndBackslashEscapes)
{
    EXPECT_EQ(split_arguments("a 'b c' \"d e\" f\\ g"), (std::vector<std::string>{"a", "b c", "d e", "f g"}));
    EXPECT_TRUE(split_arguments("   ").empty());
    EXPECT_THROW(split_arguments("'open"), usage_error);
}

TEST(ParseDuration, UnitsAndPlainSeconds)
{
    EXPECT_DOUBLE_EQ(parse_duration("5ms"), 0.005);
    EXPECT_DOUBLE_EQ(parse_duration("0.2ms"), 0.0002);
    EXPECT_DOUBLE_EQ(parse_duration("200us"), 0.0002);
    EXPECT_DOUBLE_EQ(parse_duration("1s"), 1.0);
    EXPECT_DOUBLE_EQ(parse_duration("0.001"), 0.001);
    EXPECT_THROW(parse_duration("fast"), usage_error);
    EXPECT_THROW(parse_duration("ms"), usage_error);
    EXPECT_THROW(parse_duration("1e999"), usage_error);
}

TEST(ArgParser, ParsesLongShortInlineAndFlags)
{
    parsed_args args = sample_parser().parse("--workers 1,2,4 -m threads,processes --interval=1ms --lock -o r 7");
    EXPECT_EQ(args.integers("workers", {}, 1, 64), (std::vector<long long>{1, 2, 4}));
    EXPECT_EQ(args.choices("modes", {}, {"threads", "processes", "asyncio"}, true),
              (std::vector<std::string>{"threads", "processes"}));
    EXPECT_DOUBLE_EQ(args.duration("interval", 0.005, 1e-6, 1.0), 0.001);
    EXPECT_TRUE(args.has("lock"));
    EXPECT_EQ(args.text("out", ""), "r");
    EXPECT_EQ(args.positionals(), std::vector<std::string>{"7"});
}

TEST(ArgParser, DefaultsWhenAbsent)
{
    parsed_args args = sample_parser().parse("");
    EXPECT_EQ(args.integers("workers", {1, 8}, 1, 64), (std::vector<long long>{1, 8}));
    EXPECT_FALSE(args.has("lock"));
    EXPECT_DOUBLE_EQ(args.duration("interval", 0.005, 1e-6, 1.0), 0.005);
}

TEST(ArgParser, ErrorsNameTheBadValueAndWhatIsAccepted)
{
    arg_parser parser = sample_parser();
    std::string error = error_of([&] { parser.parse("--workers 0").integers("workers", {}, 1, 64); });
    EXPECT_NE(error.find("'0'"), std::string::npos) << error;
    EXPECT_NE(error.find("from 1 to 64"), std::string::npos) << error;

    error = error_of([&] { parser.parse("--modes threads,gpu").choices("modes", {}, {"threads", "processes"}, true); });
    EXPECT_NE(error.find("'gpu'"), std::string::npos) << error;
    EXPECT_NE(error.find("threads, processes"), std::string::npos) << error;

    error = error_of([&] { parser.parse("--bogus"); });
    EXPECT_NE(error.find("unknown option '--bogus'"), std::string::npos) << error;
    EXPECT_NE(error.find("usage: %sample"), std::string::npos) << error;

    error = error_of([&] { parser.parse("--workers"); });
    EXPECT_NE(error.find("needs a value"), std::string::npos) << error;

    error = error_of([&] { parser.parse("1 2"); });
    EXPECT_NE(error.find("unexpected argument '2'"), std::string::npos) << error;

    error = error_of([&] { parser.parse("--lock=yes"); });
    EXPECT_NE(error.find("takes no value"), std::string::npos) << error;

    error = error_of([&] { parser.parse("--workers 99999999999999999999999").integers("workers", {}, 1, 64); });
    EXPECT_NE(error.find("from 1 to 64"), std::string::npos) << error;
}

TEST(ArgParser, DurationListsParseEachItemAndNameTheBadOne)
{
    parsed_args args = sample_parser().parse("--interval 5ms,1ms,0.2ms,0.001");
    std::vector<double> seconds = args.durations("interval", {}, 1e-6, 1.0);
    ASSERT_EQ(seconds.size(), 4u);
    EXPECT_DOUBLE_EQ(seconds[0], 0.005);
    EXPECT_DOUBLE_EQ(seconds[2], 0.0002);
    EXPECT_DOUBLE_EQ(seconds[3], 0.001);
    EXPECT_EQ(sample_parser().parse("").durations("interval", {0.005}, 1e-6, 1.0), std::vector<double>{0.005});

    std::string error = error_of([] { sample_parser().parse("--interval 5ms,fast").durations("interval", {}, 1e-6, 1.0); });
    EXPECT_NE(error.find("'fast'"), std::string::npos) << error;
    EXPECT_NE(error.find("such as 5ms,1ms,0.2ms"), std::string::npos) << error;
    error = error_of([] { sample_parser().parse("--interval 5ms,2s").durations("interval", {}, 1e-6, 1.0); });
    EXPECT_NE(error.find("'2s'"), std::string::npos) << error;
    error = error_of([] { sample_parser().parse("--interval 5ms,,1ms").durations("interval", {}, 1e-6, 1.0); });
    EXPECT_NE(error.find("'5ms,,1ms'"), std::string::npos) << error;
}

TEST(ArgParser, ErrorsStayOneLine)
{
    std::string error = error_of([&] { sample_parser().parse("--workers 'a\nb'").integers("workers", {}, 1, 64); });
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(ArgParser, NegativeNumbersAreValuesNotOptions)
{
    std::string error = error_of([&] { sample_parser().parse("--workers -3").integers("workers", {}, 1, 64); });
    EXPECT_NE(error.find("'-3'"), std::string::npos) << error;
}

TEST(ArgParser, HelpListsEveryOption)
{
    std::string help = sample_parser().help();
    for (const char* name : {"--workers", "--interval", "--modes", "--lock", "--out"})
    {
        EXPECT_NE(help.find(name), std::string::npos) << name;
    }
}

TEST(ArgParser, ErrorsQuoteAnyInputAsShortValidOneLineText)
{
    // 'x' then 2-byte characters: byte 40 falls inside one of them
    std::string accented = "x";
    for (int i = 0; i < 30; ++i) accented += "\xc3\xa9";
    EXPECT_EQ(shown(accented), "'x" + accented.substr(1, 38) + "...'");
    EXPECT_EQ(shown(std::string("a\0b", 3)), "'a\\x00b'");
    EXPECT_EQ(shown("a\nb\x1b"), "'a b\\x1b'");
    const std::string error = error_of([] { sample_parser().parse(std::string("--lock x y\0z", 12)); });
    EXPECT_NE(error.find("'y\\x00z'"), std::string::npos) << error;
    EXPECT_NE(error.find("usage: %sample"), std::string::npos) << error;
}
