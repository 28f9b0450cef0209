#include "framework/gil_watch_tool.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <pybind11/stl.h>

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        class gil_watch_tool
        {
        public:
            // period_s None: the default period (default_watch_period_s).
            gil_watch_tool(const std::optional<double>& period_s, bool blame, bool follow_caller)
                : m_period_s(period_s.value_or(default_watch_period_s()))
                , m_blame(blame)
                , m_follow_caller(follow_caller)
            {
            }

            gil_watch_tool& enter()
            {
                if (m_watch || m_record) throw std::runtime_error("a GilWatch watches one block only");
                m_watch = std::make_unique<gil_watch>("gilwatch", m_period_s, m_blame, m_follow_caller);
                return *this;
            }

            void exit(const py::args&)
            {
                if (!m_watch) return;
                m_record = m_watch->finish();
                m_watch.reset();
            }

            const gil_watch_record& record() const
            {
                if (!m_record) throw std::runtime_error("the watch has not run: use it as `with GilWatch(...) as watch:`");
                return *m_record;
            }

        private:
            double m_period_s;
            bool m_blame;
            bool m_follow_caller;
            std::unique_ptr<gil_watch> m_watch;  // while the block runs; its destructor stops the sampler
            std::optional<gil_watch_record> m_record;
        };
    }

    void bind_gil_watch_tool(py::module_& m)
    {
        py::class_<gil_watch_tool>(m, "GilWatch",
                                   "Who holds the GIL while the with-block runs, sampled every period_s (None: the "
                                   "switch interval / 5); blame reads the holders' frames, follow_caller also follows "
                                   "the thread that enters the block. The magic reads what it recorded.")
            .def(py::init<const std::optional<double>&, bool, bool>(), "period_s"_a = py::none(), "blame"_a = true,
                 "follow_caller"_a = false)
            .def("__enter__", &gil_watch_tool::enter, py::return_value_policy::reference)
            .def("__exit__", &gil_watch_tool::exit);
    }

    py::object gil_watch_type()
    {
        return py::type::of<gil_watch_tool>();
    }

    const gil_watch_record& watch_record(py::handle tool)
    {
        return tool.cast<const gil_watch_tool&>().record();
    }
}
