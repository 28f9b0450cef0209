// What a magic leaves as it found it. A magic runs student code as its jobs;
// what those change of the kernel outside their own objects (the switch
// interval, processes left running, the interpreter state listed in
// gillab/magics/kernel_state.py) is put back when the magic ends: on success, on
// error and on interrupt. Python threads a job left running are named in the
// notes; those still running code are stopped (SystemExit, which ends a
// thread silently), those waiting without using a CPU stay, since an idle
// pool worker or a queue's feeder thread may belong to an object that lives
// on. A plain cell is not guarded: its changes are the student's.
#pragma once

#include <set>
#include <string>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // The scope of one magic. Construct and destroy with the GIL held, on the
    // kernel's main thread.
    class magic_state_guard
    {
    public:
        magic_state_guard();
        // Puts everything back if restore() was not called (an error or an interrupt).
        ~magic_state_guard();
        magic_state_guard(const magic_state_guard&) = delete;
        magic_state_guard& operator=(const magic_state_guard&) = delete;

        // Puts everything back now; returns one line for the result's notes
        // saying what that was ("" when nothing had changed).
        std::string restore();

        // For a magic whose purpose is to set the interval (%switchinterval 1ms):
        // the innermost running magic keeps the interval it finds at its end.
        static void keep_switch_interval();

        // For a magic whose purpose is to change the interpreter state across
        // cells (%gilwatch start installs its thread-start hook, stop removes
        // it): the innermost running magic keeps the state of
        // gillab/magics/kernel_state.py that it finds at its end.
        static void keep_interpreter_state();

    private:
        double m_interval_s;
        bool m_keep_interval = false;
        bool m_keep_state = false;
        py::object m_processes;  // live descendants before the magic
        std::set<unsigned long> m_threads;  // live Python threads before the magic
        py::object m_saved;
        bool m_restored = false;
        magic_state_guard* m_outer;
    };
}
