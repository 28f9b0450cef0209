// Whom each waiting thread waited behind: at every sample, each thread
// proven waiting for the GIL (gil_waits.hpp) is noted with the holder and
// the holder's place (holder_frames.hpp), and, as held times are, that state
// is credited with the time until the next sample.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "instruments/holder_frames.hpp"

namespace gillab
{
    struct blame_key
    {
        std::uint32_t waiter = 0;  // the sampler's wait slot
        place_id place = unknown_place;
        std::uintptr_t holder = 0;  // 0: nobody held the GIL (the waiter was being woken)
        std::uint64_t last_thread_id = 0;  // read with the holder, to prove whose it was
        bool operator==(const blame_key& other) const
        {
            return waiter == other.waiter && place == other.place && holder == other.holder &&
                   last_thread_id == other.last_thread_id;
        }
    };

    struct blame_total
    {
        blame_key key;
        std::int64_t ns = 0;
    };

    class wait_blame
    {
    public:
        // A sample at `t_ns`: what the previous sample noted is credited up to it.
        void sample(std::int64_t t_ns);
        void note(const blame_key& key) { m_pending.push_back(key); }
        std::vector<blame_total> totals() const;

    private:
        struct key_hash
        {
            std::size_t operator()(const blame_key& k) const
            {
                std::uint64_t h = k.holder * 0x9E3779B97F4A7C15ULL;
                h ^= (static_cast<std::uint64_t>(k.waiter) << 32 | k.place) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
                return static_cast<std::size_t>(h ^ (k.last_thread_id * 0xBF58476D1CE4E5B9ULL));
            }
        };
        std::vector<blame_key> m_pending;
        std::int64_t m_last_ns = 0;
        std::unordered_map<blame_key, std::int64_t, key_hash> m_ns;
    };
}
