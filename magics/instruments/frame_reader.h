/* Where a thread's innermost Python frame is, read without the GIL and
 * without trusting any pointer: every read goes through process_vm_readv on
 * this process, so a frame or code object freed or rewritten while it is read
 * gives an error (EFAULT) or a value the checks below reject, never a crash.
 * CPython 3.11's layout (frame_reader.c is C for its internal headers). */
#ifndef GILLAB_FRAME_READER_H
#define GILLAB_FRAME_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /* The fields of a code object that identify it (a cache of decoded code
     * objects compares them before trusting an address seen before). */
    typedef struct
    {
        uintptr_t filename; /* co_filename (str) */
        uintptr_t qualname; /* co_qualname (str) */
        uintptr_t linetable; /* co_linetable (bytes) */
        int32_t first_line; /* co_firstlineno */
        int64_t code_units; /* Py_SIZE: the bytecode's length in code units */
    } gillab_code_identity;

    typedef struct
    {
        uintptr_t code; /* the frame's PyCodeObject* as a number */
        gillab_code_identity identity;
        int32_t instruction; /* the current instruction, in code units from the start */
        uint8_t opcode; /* the byte there (possibly a specialised opcode) */
    } gillab_frame_place;

    /* Call once with the GIL held: the type objects the checks compare against. */
    void gillab_frame_reader_init(void);

    /* The innermost frame of the thread whose PyThreadState is at `thread_state`.
     * Returns 1 and fills `out`, 0 when the thread runs no Python frame, -1 when
     * a read failed or a value was implausible (the frame changed under it). */
    int gillab_read_frame(uintptr_t thread_state, gillab_frame_place* out);

    /* Copies a bytes object's contents (at most `capacity`); returns the length
     * copied, or -1 if it is not a readable bytes object no longer than that. */
    long gillab_read_bytes(uintptr_t bytes, unsigned char* out, size_t capacity);

    /* Copies an ASCII str (at most `capacity` - 1, NUL-terminated); returns its
     * length, or -1 when it is not a readable compact ASCII str. */
    long gillab_read_ascii(uintptr_t text, char* out, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
