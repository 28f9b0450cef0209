/* The one translation unit that knows CPython 3.11's frame and code layout (see frame_reader.h). */
#define _GNU_SOURCE
#define Py_BUILD_CORE 1
#include <Python.h>
#include "internal/pycore_frame.h"

#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "instruments/frame_reader.h"

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000
#error "frame_reader.c reads CPython 3.11's frame layout (3.12 adds shim frames and moves cframe)"
#endif

static pid_t own_pid;
static uintptr_t code_type, bytes_type, str_type;

/* Longer tables or names than these are treated as unreadable (none in real code comes close). */
enum
{
    max_code_units = 1 << 22
};

void gillab_frame_reader_init(void)
{
    own_pid = getpid();
    code_type = (uintptr_t)&PyCode_Type;
    bytes_type = (uintptr_t)&PyBytes_Type;
    str_type = (uintptr_t)&PyUnicode_Type;
}

/* All or nothing: a short read counts as a failure. */
static int copy_from(uintptr_t address, void* out, size_t size)
{
    if (address == 0 || address + size < address) return 0;
    struct iovec local = {out, size};
    struct iovec remote = {(void*)address, size};
    return process_vm_readv(own_pid, &local, 1, &remote, 1, 0) == (ssize_t)size;
}

static int aligned(uintptr_t address)
{
    return address != 0 && address % sizeof(void*) == 0;
}

int gillab_read_frame(uintptr_t thread_state, gillab_frame_place* out)
{
    uintptr_t cframe = 0, frame = 0;
    if (!aligned(thread_state) || own_pid == 0) return -1;
    if (!copy_from(thread_state + offsetof(PyThreadState, cframe), &cframe, sizeof cframe) || !aligned(cframe)) return -1;
    if (!copy_from(cframe + offsetof(_PyCFrame, current_frame), &frame, sizeof frame)) return -1;
    if (frame == 0) return 0;
    if (!aligned(frame)) return -1;
    _PyInterpreterFrame copy;
    if (!copy_from(frame, &copy, offsetof(_PyInterpreterFrame, stacktop))) return -1;
    const uintptr_t code = (uintptr_t)copy.f_code;
    /* The header up to the bytecode (type, size and the identifying fields) into a whole
       struct, so every field read lies inside the object the compiler sees. */
    PyCodeObject co;
    if (!aligned(code) || !copy_from(code, &co, offsetof(PyCodeObject, co_code_adaptive))) return -1;
    if ((uintptr_t)Py_TYPE(&co) != code_type) return -1;
    const Py_ssize_t units = Py_SIZE(&co);
    if (units <= 0 || units > max_code_units) return -1;
    const uintptr_t first = code + offsetof(PyCodeObject, co_code_adaptive);
    const uintptr_t at = (uintptr_t)copy.prev_instr;
    /* A new frame's prev_instr is one before the first instruction. */
    if (at < first || at >= first + (uintptr_t)units * sizeof(_Py_CODEUNIT) || (at - first) % sizeof(_Py_CODEUNIT)) return -1;
    _Py_CODEUNIT unit = 0;
    if (!copy_from(at, &unit, sizeof unit)) return -1;
    out->code = code;
    out->identity.filename = (uintptr_t)co.co_filename;
    out->identity.qualname = (uintptr_t)co.co_qualname;
    out->identity.linetable = (uintptr_t)co.co_linetable;
    out->identity.first_line = co.co_firstlineno;
    out->identity.code_units = units;
    out->instruction = (int32_t)((at - first) / sizeof(_Py_CODEUNIT));
    out->opcode = (uint8_t)_Py_OPCODE(unit);
    return 1;
}

long gillab_read_bytes(uintptr_t bytes, unsigned char* out, size_t capacity)
{
    PyBytesObject head;
    if (!aligned(bytes) || !copy_from(bytes, &head, offsetof(PyBytesObject, ob_sval))) return -1;
    if ((uintptr_t)Py_TYPE(&head) != bytes_type || Py_SIZE(&head) < 0 || (size_t)Py_SIZE(&head) > capacity) return -1;
    const size_t size = (size_t)Py_SIZE(&head);
    if (size > 0 && !copy_from(bytes + offsetof(PyBytesObject, ob_sval), out, size)) return -1;
    return (long)size;
}

long gillab_read_ascii(uintptr_t text, char* out, size_t capacity)
{
    PyASCIIObject head;
    if (!aligned(text) || capacity == 0 || !copy_from(text, &head, sizeof head)) return -1;
    if ((uintptr_t)Py_TYPE(&head) != str_type || !head.state.compact || !head.state.ascii) return -1;
    if (head.length < 0 || (size_t)head.length >= capacity) return -1;
    const size_t length = (size_t)head.length;
    if (length > 0 && !copy_from(text + sizeof head, out, length)) return -1;
    out[length] = '\0';
    return (long)length;
}
