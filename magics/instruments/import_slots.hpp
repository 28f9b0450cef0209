// The running executable's own import table: where its calls to a shared
// library's function land (a jump slot of its PLT), and a way to point one at
// another function and back. Only the executable's own calls change: the
// libraries it loaded, this module included, keep calling the real function.
#pragma once

#include <cstdint>
#include <string>

namespace gillab
{
    // One jump slot of the main executable, e.g. its `pthread_mutex_lock`.
    class import_slot
    {
    public:
        // The slot the executable calls `symbol` through, or an empty slot
        // (found() false) when it has none, with why in `reason()`.
        static import_slot find(const std::string& symbol);

        bool found() const { return address_ != nullptr; }
        const std::string& reason() const { return reason_; }

        // Points the slot at `target` and returns what it pointed at. An
        // aligned 8-byte store: a thread calling through it meanwhile gets the
        // old function or the new one, never a torn address.
        void* redirect(void* target) const;

    private:
        void** address_ = nullptr;
        bool read_only_ = false;  // inside the executable's RELRO: unprotected around a store
        std::string reason_;
    };
}
