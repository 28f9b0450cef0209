// An instrument a line form keeps across cells (%gilwatch start ... stop,
// %heartbeat start ... stop): one per magic and kernel, made by start, taken
// back by stop. Between the two no code of the magic runs, so the instrument is
// the magic's to hold, not a runner's. One left running at kernel exit is ended
// then: its native thread must not sample or wait for the GIL while the
// interpreter finalises.
#pragma once

#include <functional>
#include <memory>

namespace gillab
{
    // Runs `end` at interpreter exit (Python's atexit). GIL held.
    void at_interpreter_exit(std::function<void()> end);

    template <typename Instrument>
    class kept_instrument
    {
    public:
        // The one kept now, or null.
        Instrument* running() const { return m_held.get(); }

        // Keeps `made` until take(). GIL held: the first one registers the end at exit.
        Instrument& keep(std::unique_ptr<Instrument> made)
        {
            if (!m_ended_at_exit)
            {
                at_interpreter_exit([this] { m_held.reset(); });
                m_ended_at_exit = true;
            }
            m_held = std::move(made);
            return *m_held;
        }

        std::unique_ptr<Instrument> take() { return std::move(m_held); }

    private:
        std::unique_ptr<Instrument> m_held;
        bool m_ended_at_exit = false;
    };
}
