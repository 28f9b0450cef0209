/* CPython 3.11's GIL state as plain addresses, for a sampler that reads it
 * without taking the GIL. The layout comes from CPython's internal headers,
 * which need Py_BUILD_CORE and compile only as C: gil_state.c is the one
 * translation unit that includes them. Nothing here dereferences a thread
 * state; holders are pointer values to be matched against a registry. */
#ifndef GILLAB_GIL_STATE_H
#define GILLAB_GIL_STATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /* Read with relaxed atomic loads; every address stays valid for the
     * interpreter's life (the runtime and the main interpreter state). */
    typedef struct
    {
        const int* locked; /* 1 while some thread holds the GIL */
        const uintptr_t* last_holder; /* PyThreadState* that holds or last held it */
        const unsigned long* switch_number; /* +1 each time a different thread state takes it */
        const int* drop_request; /* a waiter timed out after the switch interval and asked */
        const uint64_t* last_thread_id; /* the id given to the newest thread state (PyThreadState_GetID) */
        /* Where a thread blocks while it waits to take the GIL: the GIL's
         * condition variable and its mutex, [from, to) each. */
        uintptr_t cond_from, cond_to, mutex_from, mutex_to;
        /* The pair a thread that drops the GIL on request waits on until another
         * thread has taken it (FORCE_SWITCHING in ceval_gil.c). */
        uintptr_t switch_cond, switch_mutex;
        void* interpreter; /* the PyInterpreterState whose thread states these are */
    } gillab_gil_fields;

    /* Call with the GIL held. Checks the compiled layout against the running
     * interpreter (version, then the fields' values while the caller holds the
     * GIL) and fills `out`. Returns NULL, or a one-line reason it cannot watch. */
    const char* gillab_gil_attach(gillab_gil_fields* out);

    typedef struct
    {
        uintptr_t address; /* the PyThreadState* as a number */
        uint64_t id; /* PyThreadState_GetID: unique per interpreter, increasing */
        unsigned long ident; /* threading.get_ident() of its thread */
        unsigned long native_id; /* the OS thread id */
    } gillab_thread_state;

    /* Call with the GIL held. Copies up to `capacity` of the interpreter's
     * live thread states (under the runtime's thread-list lock) and returns
     * how many there are. */
    size_t gillab_live_thread_states(gillab_thread_state* out, size_t capacity);

    /* The calling thread's own thread state (GIL held). */
    gillab_thread_state gillab_current_thread_state(void);

    typedef struct
    {
        uintptr_t address; /* the PyThreadState* as a number */
        uint64_t id; /* PyThreadState_GetID */
        unsigned long ident; /* its thread's, as known then (a threading.Thread sets it as it starts) */
        unsigned long native_id;
    } gillab_seen_state;

    /* Callable WITHOUT the GIL (a sampler thread): under the runtime's
     * thread-list lock, so that no thread state is made or freed meanwhile,
     * stores the id of the newest thread state made so far in `*newest` and
     * copies up to `capacity` of the live thread states whose id is above
     * `after`, newest first; returns how many there are. Thread states made by
     * native threads (PyGILState_Ensure) are listed like any other. */
    size_t gillab_thread_states_since(const gillab_gil_fields* fields, uint64_t after,
                                      gillab_seen_state* out, size_t capacity, uint64_t* newest);

#ifdef __cplusplus
}
#endif

#endif
