// The kernel's server: xeus's shell-on-main-thread server with every IOPub
// publish serialised, so that any thread may publish.
//
// xeus 2.4 sends on the IOPub socket with no lock; a Python thread printing
// while the shell thread publishes garbles frames, loses busy/idle and can
// crash the kernel. Here one mutex covers every publish, and messages that
// originate off the shell thread (stream text, displays from threads) carry
// a parent header snapshot owned by the gate, never kernel_core's, which the
// shell thread rewrites for every request.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xserver_shell_main.hpp>

namespace gillab
{
    namespace nl = nlohmann;

    class iopub_gate : public xeus::xserver_shell_main
    {
    public:
        iopub_gate(zmq::context_t& context,
                   const xeus::xconfiguration& config,
                   nl::json::error_handler_t eh);

        // The one gate of the process, or nullptr before the kernel is built.
        static iopub_gate* instance();

        // Serialises every IOPub publish; whoever must publish several
        // messages in order holds it. It exists before the gate does.
        static std::recursive_mutex& mutex();

        // Called, under mutex(), before any message other than stream text
        // leaves: the output capture drains pending text there, so a cell's
        // prints always precede its displays, results, errors and idle.
        void set_before_publish(std::function<void()> hook);

        // The parent header that off-thread output is attributed to: the
        // latest execute_request, as ipykernel does for background threads.
        void set_output_parent(const nl::json& parent_header);

        // True once the kernel announced itself; before, nothing may publish.
        bool started() const;

        // Publish from any thread, attributed to the output parent.
        void publish_from_any_thread(const std::string& msg_type, nl::json content);

        // The cell asked the kernel to end (exit()): the process ends once
        // the request's reply and idle status have left.
        void exit_after_idle();

    private:
        void start_impl(xeus::xpub_message msg) override;
        void publish_impl(xeus::xpub_message msg, xeus::channel c) override;
        void learn_session(const xeus::xpub_message& msg);

        std::function<void()> m_before_publish;
        bool m_in_hook = false;
        bool m_exit_after_idle = false;
        nl::json m_output_parent = nl::json::object();
        nl::json m_template_header = nl::json::object();  // session, username, version
        std::string m_topic_prefix;
        unsigned long long m_counter = 0;
    };

    xeus::xkernel::server_ptr make_iopub_gate(xeus::xcontext& context,
                                              const xeus::xconfiguration& config,
                                              nl::json::error_handler_t eh);
}
