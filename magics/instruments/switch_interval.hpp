// The GIL switch interval (sys.setswitchinterval) as something a magic may
// change only for a scope: the student's own setting always comes back, on
// success, on error and on interrupt.
#pragma once

#include <string>

namespace gillab
{
    // Accepted range for intervals a magic sets: CPython takes any positive
    // value, but below 1 µs or above 1 s the measurement means nothing.
    inline constexpr double min_switch_interval_s = 1e-6;
    inline constexpr double max_switch_interval_s = 1.0;

    double switch_interval_s();

    // The one way C++ sets the interval (GIL held): sys.setswitchinterval, so
    // anything watching sys sees the same call a student's cell makes.
    void set_switch_interval(double seconds);

    // Throws usage_error naming `what` and the accepted range when out of range.
    void check_switch_interval(double seconds, const std::string& what);

    // Sets the interval (GIL held); the destructor restores the saved one.
    class scoped_switch_interval
    {
    public:
        scoped_switch_interval();
        explicit scoped_switch_interval(double seconds);
        ~scoped_switch_interval();
        scoped_switch_interval(const scoped_switch_interval&) = delete;
        scoped_switch_interval& operator=(const scoped_switch_interval&) = delete;

        void set(double seconds);
        double saved_s() const { return m_saved_s; }

    private:
        double m_saved_s;
    };
}
