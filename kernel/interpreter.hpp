// The gillab interpreter: xeus-python's IPython shell, with the kernel's
// own output path, interrupt handling, error names and native magics.
#pragma once

#include <xeus-python/xinterpreter.hpp>

#include "output_capture.hpp"

namespace gillab
{
    inline constexpr const char* version = "0.1.0";

    class interpreter : public xpyt::interpreter
    {
    public:
        explicit interpreter(output_capture& capture);

    private:
        void configure_impl() override;
        nl::json execute_request_impl(int execution_counter,
                                      const std::string& code,
                                      bool silent,
                                      bool store_history,
                                      nl::json user_expressions,
                                      bool allow_stdin) override;
        nl::json kernel_info_request_impl() override;

        nl::json run_cell(const std::string& code, bool silent, bool store_history, nl::json user_expressions);
        void record_silenced_error(pybind11::object outcome);
        [[noreturn]] void end_cell_in_forked_copy();
        nl::json error_reply(bool silent);

        output_capture& m_capture;
    };
}
