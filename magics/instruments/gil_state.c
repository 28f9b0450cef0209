/* The one translation unit that sees CPython's internals (see gil_state.h). */
#define Py_BUILD_CORE 1
#include <Python.h>
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"

#include <stdio.h>

#include "instruments/gil_state.h"

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000
#error "gil_state.c reads CPython 3.11's GIL layout (it moves into the interpreter state in 3.12)"
#endif

static gillab_thread_state describe(PyThreadState* tstate)
{
    gillab_thread_state state;
    state.address = (uintptr_t)tstate;
    state.id = tstate->id;
    state.ident = tstate->thread_id;
    state.native_id = tstate->native_thread_id;
    return state;
}

const char* gillab_gil_attach(gillab_gil_fields* out)
{
    static char reason[200];
    const unsigned long running = (unsigned long)Py_Version >> 16;
    if (running != ((unsigned long)PY_VERSION_HEX >> 16))
    {
        snprintf(reason, sizeof reason,
                 "reads the GIL layout of CPython %d.%d, but this interpreter is %lu.%lu",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION, running >> 8, running & 0xff);
        return reason;
    }
    struct _gil_runtime_state* gil = &_PyRuntime.ceval.gil;
    PyThreadState* self = PyThreadState_Get();
    PyInterpreterState* interp = PyThreadState_GetInterpreter(self);
    /* The caller holds the GIL: the layout is right only if these agree. */
    if (_Py_atomic_load_relaxed(&gil->locked) != 1 ||
        (PyThreadState*)_Py_atomic_load_relaxed(&gil->last_holder) != self ||
        gil->interval != _PyEval_GetSwitchInterval() ||
        interp->threads.next_unique_id < self->id)
    {
        snprintf(reason, sizeof reason,
                 "the GIL state of this CPython %d.%d does not match the layout it was built for",
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
        return reason;
    }
    out->locked = (const int*)&gil->locked._value;
    out->last_holder = (const uintptr_t*)&gil->last_holder._value;
    out->switch_number = &gil->switch_number;
    out->drop_request = (const int*)&interp->ceval.gil_drop_request._value;
    out->last_thread_id = &interp->threads.next_unique_id;
    out->cond_from = (uintptr_t)&gil->cond;
    out->cond_to = out->cond_from + sizeof gil->cond;
    out->mutex_from = (uintptr_t)&gil->mutex;
    out->mutex_to = out->mutex_from + sizeof gil->mutex;
    out->switch_cond = (uintptr_t)&gil->switch_cond;
    out->switch_mutex = (uintptr_t)&gil->switch_mutex;
    out->interpreter = interp;
    return NULL;
}

size_t gillab_live_thread_states(gillab_thread_state* out, size_t capacity)
{
    PyInterpreterState* interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    /* pystate.c's HEAD_LOCK: thread states are added under it, also by
     * threads that do not hold the GIL (PyGILState_Ensure). */
    PyThread_acquire_lock(_PyRuntime.interpreters.mutex, WAIT_LOCK);
    size_t count = 0;
    for (PyThreadState* tstate = interp->threads.head; tstate != NULL; tstate = tstate->next)
    {
        if (count < capacity) out[count] = describe(tstate);
        ++count;
    }
    PyThread_release_lock(_PyRuntime.interpreters.mutex);
    return count;
}

gillab_thread_state gillab_current_thread_state(void)
{
    return describe(PyThreadState_Get());
}

size_t gillab_thread_states_since(const gillab_gil_fields* fields, uint64_t after,
                                  gillab_seen_state* out, size_t capacity, uint64_t* newest)
{
    PyInterpreterState* interp = (PyInterpreterState*)fields->interpreter;
    /* The same HEAD_LOCK: taken without the GIL, it only ever waits for a
     * thread state being linked or unlinked. */
    PyThread_acquire_lock(_PyRuntime.interpreters.mutex, WAIT_LOCK);
    *newest = interp->threads.next_unique_id;
    size_t count = 0;
    /* New thread states go in at the head, so ids fall along the list. */
    for (PyThreadState* tstate = interp->threads.head; tstate != NULL && tstate->id > after; tstate = tstate->next)
    {
        if (count < capacity)
        {
            out[count].address = (uintptr_t)tstate;
            out[count].id = tstate->id;
            out[count].ident = tstate->thread_id;
            out[count].native_id = tstate->native_thread_id;
        }
        ++count;
    }
    PyThread_release_lock(_PyRuntime.interpreters.mutex);
    return count;
}
