#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

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

// One case per wording a student can meet, each checked whole.
TEST(ArgParserWording, EveryErrorIsOneNamedLine)
{
    arg_parser parser = sample_parser();
    const std::string usage = "usage: %sample [--workers N,N,...] [--interval DURATION] [--modes MODE,...] [--lock] "
                              "[--out NAME] [VALUE]";
    EXPECT_EQ(error_of([&] { parser.parse("--bogus 1"); }), "%sample: unknown option '--bogus'; " + usage);
    EXPECT_EQ(error_of([&] { parser.parse("-x"); }), "%sample: unknown option '-x'; " + usage);
    EXPECT_EQ(error_of([&] { parser.parse("--"); }), "%sample: unknown option '--'; " + usage);
    EXPECT_EQ(error_of([&] { parser.parse("7 8"); }), "%sample: unexpected argument '8'; " + usage);
    EXPECT_EQ(error_of([&] { parser.parse("--lock=yes"); }), "%sample: --lock takes no value; " + usage);
    EXPECT_EQ(error_of([&] { parser.parse("--lock=false"); }), "%sample: --lock takes no value; " + usage);
    EXPECT_EQ(error_of([&] { parser.parse("--workers"); }), "%sample: --workers needs a value (N,N,...)");
    EXPECT_EQ(error_of([&] { parser.parse("--lock -w"); }), "%sample: --workers needs a value (N,N,...)");
    EXPECT_EQ(error_of([&] { parser.parse("'open"); }), "%sample: unclosed quote ' in the arguments; " + usage);
}

TEST(ArgParserWording, EveryValueErrorNamesTheValueAndWhatIsAccepted)
{
    arg_parser parser = sample_parser();
    auto bad = [&](const std::string& line, const std::function<void(const parsed_args&)>& read) { return error_of([&] { read(parser.parse(line)); }); };
    EXPECT_EQ(bad("--out 0x10", [](const parsed_args& a) { a.integer("out", 1, 1, 64); }),
              "%sample: bad value '0x10' for --out; accepted: a whole number from 1 to 64");
    EXPECT_EQ(bad("--out 1e999", [](const parsed_args& a) { a.number("out", 0.5, 0.0, 1.0); }),
              "%sample: bad value '1e999' for --out; accepted: a number from 0 to 1");
    EXPECT_EQ(bad("--workers 1,2,", [](const parsed_args& a) { a.integers("workers", {}, 1, 64); }),
              "%sample: bad value '1,2,' for --workers; accepted: comma-separated whole numbers from 1 to 64");
    EXPECT_EQ(bad("--workers 1,lots", [](const parsed_args& a) { a.integers_or_words("workers", {}, 1, 64, {"default", "per-job"}); }),
              "%sample: bad value 'lots' for --workers; accepted: comma-separated whole numbers from 1 to 64, or default, per-job");
    EXPECT_EQ(bad("--interval soon", [](const parsed_args& a) { a.duration("interval", 0.005, 1e-6, 1.0); }),
              "%sample: bad value 'soon' for --interval; accepted: a duration such as 5ms, 0.2ms, 1s or 0.005");
    EXPECT_EQ(bad("--interval 2s", [](const parsed_args& a) { a.duration("interval", 0.005, 1e-6, 1.0); }),
              "%sample: bad value '2s' for --interval; accepted: a duration from 0.001 ms to 1000 ms");
    EXPECT_EQ(bad("--interval 5ms,2s", [](const parsed_args& a) { a.durations("interval", {}, 1e-6, 1.0); }),
              "%sample: bad value '2s' for --interval; accepted: comma-separated durations from 0.001 ms to 1000 ms, "
              "such as 5ms,1ms,0.2ms");
    EXPECT_EQ(bad("--modes gpu", [](const parsed_args& a) { a.choices("modes", {}, {"threads", "asyncio"}, false); }),
              "%sample: bad value 'gpu' for --modes; accepted: one of threads, asyncio");
    EXPECT_EQ(bad("-m threads,gpu", [](const parsed_args& a) { a.choices("modes", {}, {"threads", "asyncio"}, true); }),
              "%sample: bad value 'gpu' for --modes; accepted: comma-separated, from threads, asyncio");
}

TEST(ArgParser, NumbersAreDecimalWhateverTheirLeadingZeros)
{
    EXPECT_EQ(sample_parser().parse("--workers 010,08").integers("workers", {}, 1, 64), (std::vector<long long>{10, 8}));
}

TEST(ArgParser, TheLastOfARepeatedOptionWins)
{
    parsed_args args = sample_parser().parse("--workers 1 -w 2,3 --lock --lock");
    EXPECT_EQ(args.integers("workers", {}, 1, 64), (std::vector<long long>{2, 3}));
    EXPECT_TRUE(args.has("lock"));
}

TEST(ArgParser, AValueIsTakenWhateverItLooksLike)
{
    // As before CLI11: the token after an option is its value, even "--lock".
    EXPECT_EQ(sample_parser().parse("-o --lock").text("out", ""), "--lock");
    EXPECT_FALSE(sample_parser().parse("-o --lock").has("lock"));
    EXPECT_EQ(sample_parser().parse("--out= r").text("out", ""), "r");
    EXPECT_EQ(error_of([] { sample_parser().parse("--out="); }), "%sample: --out needs a value (NAME)");
    EXPECT_EQ(sample_parser().parse("-5ms").positionals(), std::vector<std::string>{"-5ms"});
}

TEST(ArgParser, AParserWithoutPositionalsRefusesAnyWord)
{
    arg_parser parser("bare", "No positionals.", {{"lock", 0, "", "use a lock"}});
    EXPECT_EQ(error_of([&] { parser.parse("--lock now"); }), "%bare: unexpected argument 'now'; usage: %bare [--lock]");
    EXPECT_EQ(error_of([&] { parser.parse("-h"); }), "%bare: unknown option '-h'; usage: %bare [--lock]");
    EXPECT_EQ(error_of([&] { parser.parse("--help"); }), "%bare: unknown option '--help'; usage: %bare [--lock]");
}

// Why the values are typed and the line split by hand: CLI11 2.1's own helpers
// read them otherwise. If one of these fails, that reason has gone.
TEST(ArgParserReasons, Cli11TypesAndSplitsDifferently)
{
    long long integer = 0;
    EXPECT_TRUE(CLI::detail::lexical_cast(std::string("010"), integer));
    EXPECT_EQ(integer, 8);
    EXPECT_TRUE(CLI::detail::lexical_cast(std::string("99999999999999999999999"), integer));
    double number = 0;
    EXPECT_TRUE(CLI::detail::lexical_cast(std::string("1e999"), number));
    EXPECT_EQ(CLI::detail::split("1,2,", ',').size(), 2u);
    EXPECT_EQ(CLI::detail::split_up("x'y z'"), (std::vector<std::string>{"x'y", "z'"}));
    EXPECT_EQ(CLI::detail::split_up("'open"), std::vector<std::string>{"open"});
}
