#include "iopub_gate.hpp"

#include <atomic>
#include <chrono>
#include <random>
#include <sstream>
#include <thread>

#include <xeus/xmessage.hpp>
#include <zmq.hpp>

#include "forked_copy.hpp"
#include "launch.hpp"

namespace gillab
{
    namespace
    {
        std::atomic<iopub_gate*> the_gate{nullptr};

        // xeus::new_xguid is not thread-safe; ids made here come from the
        // gate's counter (under its mutex) and a per-process random prefix.
        std::string process_prefix()
        {
            static const std::string prefix = [] {
                std::random_device device;
                std::ostringstream out;
                out << std::hex << device() << device();
                return out.str();
            }();
            return prefix;
        }
    }

    iopub_gate::iopub_gate(zmq::context_t& context,
                           const xeus::xconfiguration& config,
                           nl::json::error_handler_t eh)
        : xeus::xserver_shell_main(context, config, eh)
    {
        the_gate = this;
    }

    iopub_gate* iopub_gate::instance()
    {
        return the_gate;
    }

    std::recursive_mutex& iopub_gate::mutex()
    {
        static std::recursive_mutex publish_mutex;
        return publish_mutex;
    }

    void iopub_gate::set_before_publish(std::function<void()> hook)
    {
        std::lock_guard<std::recursive_mutex> lock(mutex());
        m_before_publish = std::move(hook);
    }

    void iopub_gate::set_output_parent(const nl::json& parent_header)
    {
        std::lock_guard<std::recursive_mutex> lock(mutex());
        m_output_parent = parent_header;
    }

    bool iopub_gate::started() const
    {
        std::lock_guard<std::recursive_mutex> lock(mutex());
        return !m_template_header.empty();
    }

    void iopub_gate::publish_from_any_thread(const std::string& msg_type, nl::json content)
    {
        if (is_forked_copy()) return;  // the sockets (and the mutex's state) are the parent's
        std::lock_guard<std::recursive_mutex> lock(mutex());
        nl::json header = m_template_header;
        header["msg_id"] = process_prefix() + "-" + std::to_string(++m_counter);
        header["msg_type"] = msg_type;
        header["date"] = xeus::iso8601_now();
        xeus::xpub_message msg(m_topic_prefix + msg_type,
                               std::move(header),
                               m_output_parent,
                               nl::json::object(),
                               std::move(content),
                               xeus::buffer_sequence());
        publish_impl(std::move(msg), xeus::channel::SHELL);
    }

    void iopub_gate::publish_impl(xeus::xpub_message msg, xeus::channel c)
    {
        if (is_forked_copy()) return;
        std::lock_guard<std::recursive_mutex> lock(mutex());
        const std::string msg_type = msg.header().value("msg_type", "");
        if (msg_type != "stream" && m_before_publish && !m_in_hook)
        {
            m_in_hook = true;
            try
            {
                m_before_publish();
            }
            catch (...)
            {
                m_in_hook = false;
                throw;
            }
            m_in_hook = false;
        }
        const bool idle = msg_type == "status" && msg.content().value("execution_state", "") == "idle";
        xeus::xserver_zmq_split::publish_impl(std::move(msg), c);
        if (idle && m_exit_after_idle)
        {
            // The publisher thread sends on its own; give it time to put the
            // reply and the idle status on the wire.
            std::thread([] {
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                end_process();
            }).detach();
        }
    }

    void iopub_gate::exit_after_idle()
    {
        std::lock_guard<std::recursive_mutex> lock(mutex());
        m_exit_after_idle = true;
    }

    void iopub_gate::start_impl(xeus::xpub_message msg)
    {
        learn_session(msg);
        xeus::xserver_zmq_split::start_impl(std::move(msg));
    }

    // Messages built here share the session and topic of kernel_core's own;
    // the "starting" status is the first of them.
    void iopub_gate::learn_session(const xeus::xpub_message& msg)
    {
        std::lock_guard<std::recursive_mutex> lock(mutex());
        const nl::json& header = msg.header();
        const std::string msg_type = header.value("msg_type", "");
        m_template_header = {{"session", header.value("session", "")},
                             {"username", header.value("username", "")},
                             {"version", header.value("version", "5.3")}};
        const std::string& topic = msg.topic();
        if (topic.size() >= msg_type.size())
        {
            m_topic_prefix = topic.substr(0, topic.size() - msg_type.size());
        }
    }

    xeus::xkernel::server_ptr make_iopub_gate(xeus::xcontext& context,
                                              const xeus::xconfiguration& config,
                                              nl::json::error_handler_t eh)
    {
        return std::make_unique<iopub_gate>(context.get_wrapped_context<zmq::context_t>(), config, eh);
    }
}
